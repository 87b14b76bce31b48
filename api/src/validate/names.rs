//! The username profile: one fixed ASCII alphabet, applied the same way at registration
//! and at login, so that no two accounts look alike and no look-alike logs in.
//!
//! - A new username is 3 to 32 characters from `A-Z a-z 0-9 _ -`. It starts and ends with a
//!   letter or a digit, and `_`/`-` never come two in a row. Nothing is trimmed, mapped or
//!   normalised: a name outside the profile is refused at registration, and a login name
//!   with any character outside the alphabet matches no account (`\u{212A}elvin`, with the
//!   Kelvin sign, is not `kelvin`).
//! - The name is shown as registered; it is matched case-insensitively: its *login key*
//!   is the name in ASCII lower case, unique among accounts.
//! - Its *skeleton* is unique too, so a name that merely looks like a registered one is
//!   refused: the login key with `0`→`o`, `1` and `i`→`l` (`I` and `l`), `_`→`-`, then
//!   `rn`→`m`, `vv`→`w`, `cl`→`d`. A login must give the name itself (any case), never a
//!   look-alike: `Ivan` and `lvan` cannot both exist, and `lvan` does not log into `Ivan`.
//!
//! The migration `2026-11-30-000010_username_skeleton` computes the same skeleton in SQL
//! for accounts made before it; keep the two in step.

pub const MIN_CHARS: usize = 3;
pub const MAX_CHARS: usize = 32;

/// Why a name is outside the profile (the text is for the client).
pub fn check(name: &str) -> Result<(), String> {
    let n = name.chars().count();
    if !(MIN_CHARS..=MAX_CHARS).contains(&n) {
        return Err(format!("must be {MIN_CHARS} to {MAX_CHARS} characters"));
    }
    let sep = |c: u8| c == b'_' || c == b'-';
    let bytes = name.as_bytes();
    if !bytes.iter().all(|&c| c.is_ascii_alphanumeric() || sep(c)) {
        return Err("may contain only the letters A-Z and a-z, the digits 0-9, `_` and `-`".into());
    }
    if sep(bytes[0]) || sep(bytes[bytes.len() - 1]) {
        return Err("must start and end with a letter or a digit".into());
    }
    if bytes.windows(2).any(|w| sep(w[0]) && sep(w[1])) {
        return Err("must not have two of `_` and `-` in a row".into());
    }
    Ok(())
}

/// The key a name is stored and looked up under: ASCII lower case. `None` for a name
/// with a character outside the alphabet (or too long), which no account can have. (The
/// placement rules of [`check`] are not applied here: accounts registered before them
/// keep logging in.)
pub fn login_key(name: &str) -> Option<String> {
    let in_alphabet = name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    (in_alphabet && (1..=MAX_CHARS).contains(&name.len())).then(|| name.to_ascii_lowercase())
}

/// The look-alike skeleton of a name in the profile (see the module documentation).
pub fn skeleton(name: &str) -> String {
    let folded: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| match c {
            '0' => 'o',
            '1' | 'i' => 'l',
            '_' => '-',
            other => other,
        })
        .collect();
    folded
        .replace("rn", "m")
        .replace("vv", "w")
        .replace("cl", "d")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile() {
        for ok in ["bob", "Alice_99", "a-b_c", "x1y", &"a".repeat(32)] {
            assert!(check(ok).is_ok(), "{ok}");
        }
        for bad in [
            "ab",
            &"a".repeat(33),
            "has space",
            "_lead",
            "trail-",
            "a__b",
            "a-_b",
            "émile",
            "\u{212A}elvin",
            "ｂｏｂ",
            "bob\u{200B}",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
        for alien in [
            "\u{212A}elvin",
            "émile",
            "ｂｏｂ",
            "bob\u{200B}",
            "has space",
        ] {
            assert_eq!(login_key(alien), None, "{alien}");
        }
        assert_eq!(login_key("ALICE").as_deref(), Some("alice"));
    }

    #[test]
    fn look_alikes_share_a_skeleton() {
        for (a, b) in [
            ("Ivan", "lvan"),
            ("bill", "b1ll"),
            ("bob0", "bobO"),
            ("modern", "rnodern"),
            ("vvalter", "walter"),
            ("clave", "dave"),
            ("bob_smith", "bob-smith"),
            ("Alice", "ALICE"),
        ] {
            assert_eq!(skeleton(a), skeleton(b), "{a} / {b}");
        }
        assert_ne!(skeleton("alice"), skeleton("alicia"));
        assert_ne!(skeleton("bob"), skeleton("rob"));
    }
}
