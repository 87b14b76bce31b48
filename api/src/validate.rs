//! Field rules shared by the handlers: lengths and characters of usernames, emails,
//! passwords and names. Each check pushes a [`FieldError`]; handlers collect them and return
//! one `validation` problem listing every bad field.

use crate::error::{ApiError, FieldError};

pub const USERNAME_MIN: usize = 3;
pub const USERNAME_MAX: usize = 32;
pub const EMAIL_MAX: usize = 254;
pub const PASSWORD_MIN: usize = 8;
pub const PASSWORD_MAX: usize = 128;
pub const TOKEN_NAME_MAX: usize = 64;

/// Collects field errors.
#[derive(Debug, Default)]
pub struct Checks(Vec<FieldError>);

impl Checks {
    pub fn new() -> Self {
        Checks(Vec::new())
    }

    pub fn add(&mut self, field: &str, message: impl Into<String>) {
        self.0.push(FieldError::new(field, message));
    }

    /// `Ok` if nothing was added, else one `validation` problem with every error.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::fields(self.0))
        }
    }

    pub fn username(&mut self, field: &str, v: &str) {
        let n = v.chars().count();
        if !(USERNAME_MIN..=USERNAME_MAX).contains(&n) {
            self.add(
                field,
                format!("must be {USERNAME_MIN} to {USERNAME_MAX} characters"),
            );
        } else if !v
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || !v.starts_with(|c: char| c.is_ascii_alphanumeric())
        {
            self.add(
                field,
                "may contain only letters A-Z, digits, `_` and `-`, and must start with a letter or digit",
            );
        }
    }

    pub fn email(&mut self, field: &str, v: &str) {
        if v.is_empty() || v.len() > EMAIL_MAX {
            self.add(field, format!("must be 1 to {EMAIL_MAX} bytes"));
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

    pub fn password(&mut self, field: &str, v: &str) {
        let n = v.chars().count();
        if !(PASSWORD_MIN..=PASSWORD_MAX).contains(&n) {
            self.add(
                field,
                format!("must be {PASSWORD_MIN} to {PASSWORD_MAX} characters"),
            );
        } else if v.trim().is_empty() {
            self.add(field, "must not be only spaces");
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
        c.password("p", "short");
        c.name("n", "  ", 10);
        assert_eq!(c.0.len(), 7);
        let mut ok = Checks::new();
        ok.username("u", "Alice_99");
        ok.email("e", "alice@example.org");
        ok.password("p", "correct horse battery");
        ok.name("n", "my bot", 10);
        assert!(ok.finish().is_ok());
    }
}
