//! Opaque random tokens (refresh tokens, personal access tokens) and their stored form.
//!
//! A token is a prefix plus 32 random bytes in unpadded base64url. Only its SHA-256 (hex)
//! is stored, so a database leak reveals no usable token.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Prefix of personal access tokens.
pub const PAT_PREFIX: &str = "djp_";
/// Prefix of refresh tokens.
pub const REFRESH_PREFIX: &str = "djr_";

/// A new random token with the given prefix.
pub fn generate(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// The stored form of a token: SHA-256, hex.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A short, harmless reminder of which token this is (`djp_AbCd…`).
pub fn hint(token: &str) -> String {
    let shown: String = token.chars().take(PAT_PREFIX.len() + 4).collect();
    format!("{shown}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashed() {
        let a = generate(PAT_PREFIX);
        let b = generate(PAT_PREFIX);
        assert_ne!(a, b);
        assert!(a.starts_with("djp_"));
        assert_eq!(a.len(), 4 + 43);
        assert_eq!(hash(&a).len(), 64);
        assert_eq!(hash(&a), hash(&a));
        assert_eq!(hint(&a).chars().count(), 9);
    }
}
