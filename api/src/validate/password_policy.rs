//! Passwords (NIST SP 800-63B, RFC 8265).
//!
//! - **Normalised**: a password is prepared and enforced with the RFC 8265 OpaqueString
//!   profile (non-ASCII spaces become U+0020, NFC normalisation; control characters and
//!   other disallowed code points are refused) before it is hashed or checked, so `é`
//!   typed as one code point or as `e` + a combining accent is the same password.
//! - **8 to 128 characters** after normalisation, any characters the profile allows
//!   (spaces and passphrases welcome); no composition rules.
//! - **Not guessable**: zxcvbn's estimate must reach score 3 (about 10^10 guesses), with
//!   the username and the email as context, so common passwords (`password`, `12345678`),
//!   keyboard walks, repeats, dictionary words and the username with a digit are refused
//!   with zxcvbn's warning and suggestions as the message.

use std::borrow::Cow;

use precis_core::profile::PrecisFastInvocation;
use precis_profiles::OpaqueString;
use zxcvbn::Score;

pub const MIN_CHARS: usize = 8;
pub const MAX_CHARS: usize = 128;

/// The OpaqueString form of a password, or why it has none.
pub fn normalize(password: &str) -> Result<Cow<'_, str>, String> {
    OpaqueString::enforce(password).map_err(|_| {
        "contains characters a password may not have (control or unassigned code points)"
            .to_string()
    })
}

/// The forms of a presented password to verify, in order: the normalised one, then the
/// password as given when that differs (hashes stored before normalisation was introduced).
pub fn candidates(presented: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(2);
    if let Ok(n) = normalize(presented) {
        out.push(n.into_owned());
    }
    if out.first().is_none_or(|n| n != presented) {
        out.push(presented.to_string());
    }
    out
}

/// Checks a new password (already normalised) for an account with these names.
pub fn check_new(password: &str, username: &str, email: &str) -> Result<(), String> {
    let n = password.chars().count();
    if !(MIN_CHARS..=MAX_CHARS).contains(&n) {
        return Err(format!("must be {MIN_CHARS} to {MAX_CHARS} characters"));
    }
    if password.trim().is_empty() {
        return Err("must not be only spaces".into());
    }
    let local = email.split('@').next().unwrap_or("");
    let entropy = zxcvbn::zxcvbn(password, &[username, local, email]);
    if entropy.score() >= Score::Three {
        return Ok(());
    }
    let mut message = String::from("is too easy to guess");
    if let Some(feedback) = entropy.feedback() {
        if let Some(warning) = feedback.warning() {
            message.push_str(&format!(": {warning}"));
        }
        let tips: Vec<String> = feedback
            .suggestions()
            .iter()
            .map(|s| s.to_string())
            .collect();
        if !tips.is_empty() {
            message.push_str(&format!(" ({})", tips.join(" ")));
        }
    }
    if !message.ends_with(')') {
        message.push_str(" (a few uncommon words make a strong password)");
    }
    Err(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_to_nfc() {
        let composed = "caf\u{e9} au lait";
        let decomposed = "cafe\u{301} au lait";
        assert_eq!(normalize(decomposed).unwrap(), composed);
        assert_eq!(normalize(composed).unwrap(), composed);
        assert_eq!(normalize("no\u{a0}break").unwrap(), "no break");
        assert!(normalize("bell\u{7}").is_err());
    }

    #[test]
    fn candidates_try_the_normal_form_first() {
        assert_eq!(candidates("plain text"), vec!["plain text"]);
        assert_eq!(
            candidates("cafe\u{301}!"),
            vec!["caf\u{e9}!".to_string(), "cafe\u{301}!".to_string()]
        );
        assert_eq!(candidates("bell\u{7}"), vec!["bell\u{7}"]);
    }

    #[test]
    fn weak_passwords_are_refused() {
        for weak in [
            "password",
            "12345678",
            "qwertyuiop",
            "aaaaaaaaaa",
            "alice1234",
            "alice_smith1",
            "Password1!",
        ] {
            let e = check_new(weak, "alice_smith", "alice@example.org").unwrap_err();
            assert!(e.starts_with("is too easy to guess"), "{weak}: {e}");
        }
        for strong in [
            "correct horse battery",
            "a brand new passphrase",
            "load generator password",
            "Gx7#kq2!vT9z",
        ] {
            assert!(
                check_new(strong, "alice", "alice@example.org").is_ok(),
                "{strong}"
            );
        }
        assert!(check_new("short", "a", "a@b.c").is_err());
        assert!(check_new(&"x".repeat(129), "a", "a@b.c").is_err());
    }
}
