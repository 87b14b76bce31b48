//! [`SecretString`]: a string that never shows itself in `Debug` output (passwords and
//! tokens in request and response bodies, and so in logs and panics).

use serde::{Deserialize, Serialize};

/// A secret string. `Debug` prints `"<redacted>"`; JSON carries it as a plain string.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecretString(String);

impl SecretString {
    pub fn new(s: impl Into<String>) -> SecretString {
        SecretString(s.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

impl From<String> for SecretString {
    fn from(s: String) -> SecretString {
        SecretString(s)
    }
}

impl std::fmt::Debug for SecretString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"<redacted>\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_and_json_carries() {
        let s: SecretString = serde_json::from_str("\"hunter2 hunter2\"").unwrap();
        assert_eq!(format!("{s:?}"), "\"<redacted>\"");
        assert_eq!(s.expose(), "hunter2 hunter2");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"hunter2 hunter2\"");
    }
}
