//! Field rules shared by the handlers: usernames (the profile of [`names`]), emails,
//! passwords ([`password_policy`]) and names. Each check pushes an [`Invalid`]; handlers collect them and return
//! one `validation` problem listing every bad field.

pub mod names;
pub mod password_policy;

use crate::auth::SecretString;

pub const USERNAME_MIN: usize = names::MIN_CHARS;
pub const USERNAME_MAX: usize = names::MAX_CHARS;
pub const EMAIL_MAX: usize = 254;
pub const PASSWORD_MIN: usize = password_policy::MIN_CHARS;
pub const PASSWORD_MAX: usize = password_policy::MAX_CHARS;
pub const TOKEN_NAME_MAX: usize = 64;

/// One invalid field of an input, and why (plain data: the routes render it as a
/// `validation` problem, the use cases carry it in their errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

/// Every invalid field of an input (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidFields(pub Vec<Invalid>);

/// Collects field errors.
#[derive(Debug, Default)]
pub struct Checks(Vec<Invalid>);

impl Checks {
    pub fn new() -> Self {
        Checks(Vec::new())
    }

    pub fn add(&mut self, field: &str, message: impl Into<String>) {
        self.0.push(Invalid {
            field: field.to_string(),
            message: message.into(),
        });
    }

    /// `Ok` if nothing was added, else one `validation` problem with every error.
    pub fn finish(self) -> Result<(), InvalidFields> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(InvalidFields(self.0))
        }
    }

    /// A new username, by the profile of [`names`].
    pub fn username(&mut self, field: &str, v: &str) {
        if let Err(why) = names::check(v) {
            self.add(field, why);
        }
    }

    /// An email as sent: surrounding white space is dropped (the document's pattern allows
    /// it), but counts towards the length.
    pub fn email_as_sent(&mut self, field: &str, sent: &str) {
        if sent.chars().count() > EMAIL_MAX {
            self.add(field, format!("must be 1 to {EMAIL_MAX} characters"));
        } else {
            self.email(field, sent.trim());
        }
    }

    pub fn email(&mut self, field: &str, v: &str) {
        if v.is_empty() || v.chars().count() > EMAIL_MAX {
            self.add(field, format!("must be 1 to {EMAIL_MAX} characters"));
            return;
        }
        let ok = match v.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains('@')
                    && v.chars().all(|c| !c.is_whitespace() && !c.is_control())
            }
            None => false,
        };
        if !ok {
            self.add(field, "is not an email address");
        }
    }

    /// A new password for the account `username`/`email`: normalised (RFC 8265
    /// OpaqueString), then checked by [`password_policy::check_new`]. Returns the
    /// normalised form when it passes.
    pub fn new_password(
        &mut self,
        field: &str,
        v: &SecretString,
        username: &str,
        email: &str,
    ) -> Option<String> {
        if v.expose().chars().count() > PASSWORD_MAX {
            self.add(
                field,
                format!("must be {PASSWORD_MIN} to {PASSWORD_MAX} characters"),
            );
            return None;
        }
        let normalized = match password_policy::normalize(v.expose()) {
            Ok(p) => p.into_owned(),
            Err(why) => {
                self.add(field, why);
                return None;
            }
        };
        match password_policy::check_new(&normalized, username, email) {
            Ok(()) => Some(normalized),
            Err(why) => {
                self.add(field, why);
                None
            }
        }
    }

    /// A free-text name: 1..=max characters, no control characters.
    pub fn name(&mut self, field: &str, v: &str, max: usize) {
        let n = v.trim().chars().count();
        if n == 0 || v.chars().count() > max {
            self.add(field, format!("must be 1 to {max} characters"));
        } else if v.chars().any(char::is_control) {
            self.add(field, "must not contain control characters");
        }
    }

    /// No control characters (NUL, in particular, cannot be stored in PostgreSQL text).
    pub fn no_control(&mut self, field: &str, v: &str) {
        if v.chars().any(char::is_control) {
            self.add(field, "must not contain control characters");
        }
    }

    /// A string no longer than `max` characters (for fields checked elsewhere).
    /// A language of the site (`en`, `fr`, `es`, … as in `locales/`); the code it names.
    pub fn language(&mut self, field: &str, v: &str) -> Option<&'static str> {
        match crate::i18n::Lang::from_code(v) {
            Some(lang) => Some(lang.code()),
            None => {
                self.add(
                    field,
                    format!("must be one of {}", crate::i18n::codes().join(", ")),
                );
                None
            }
        }
    }

    /// A time zone of the IANA database (`Europe/Paris`, `UTC`); its canonical name.
    pub fn time_zone(&mut self, field: &str, v: &str) -> Option<&'static str> {
        match crate::i18n::parse_time_zone(v) {
            Some(zone) => Some(zone.name()),
            None => {
                self.add(
                    field,
                    "must be a time zone of the IANA database, e.g. Europe/Paris or UTC",
                );
                None
            }
        }
    }

    pub fn max_len(&mut self, field: &str, v: &str, max: usize) {
        if v.is_empty() || v.chars().count() > max {
            self.add(field, format!("must be 1 to {max} characters"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        let mut c = Checks::new();
        c.username("u", "ab");
        c.username("u", "has space");
        c.username("u", "_lead");
        c.email("e", "no-at-sign");
        c.email("e", "a@b");
        c.new_password("p", &SecretString::new("short"), "u", "e@x.org");
        c.new_password("p", &SecretString::new("password"), "u", "e@x.org");
        c.name("n", "  ", 10);
        assert_eq!(c.0.len(), 8);
        let mut ok = Checks::new();
        ok.username("u", "Alice_99");
        ok.email("e", "alice@example.org");
        let p = SecretString::new("cafe\u{301} horse battery");
        assert_eq!(
            ok.new_password("p", &p, "Alice_99", "alice@example.org")
                .as_deref(),
            Some("caf\u{e9} horse battery")
        );
        ok.name("n", "my bot", 10);
        assert!(ok.finish().is_ok());
    }
}
