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
/// Prefix of the access tokens apps get through OAuth 2.0 (`POST /oauth/token`); stored
/// and checked as personal access tokens are.
pub const OAUTH_PREFIX: &str = "djo_";
/// Prefix of OAuth 2.0 authorization codes.
pub const CODE_PREFIX: &str = "djc_";

/// Whether a bearer token is one of the opaque, stored kinds (a personal access token or
/// an app's OAuth token) rather than a login's JWT.
pub fn is_stored_access_token(token: &str) -> bool {
    token.starts_with(PAT_PREFIX) || token.starts_with(OAUTH_PREFIX)
}

/// Prefix of refresh tokens.
pub const REFRESH_PREFIX: &str = "djr_";

/// Prefix of address verification tokens (mailed).
pub const VERIFY_PREFIX: &str = "djv_";
/// Prefix of password reset tokens (mailed).
pub const RESET_PREFIX: &str = "djx_";

/// A mailed token: the prefix and HMAC-SHA256, keyed by the server's signing secret, of
/// its row's random id (32 bytes, unpadded base64url). The mail is composed again at each
/// delivery attempt from the outbox row, which holds only the id: neither the outbox nor
/// the token table holds the token, and without the key the id gives nothing.
pub fn mailed(secret: &str, prefix: &str, id: &str) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2_011::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key");
    mac.update(b"djambi-mailed-token\0");
    mac.update(prefix.as_bytes());
    mac.update(id.as_bytes());
    format!(
        "{prefix}{}",
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    )
}

/// A new random id for a mailed token's row (32 random bytes, hex).
pub fn random_id() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

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

    #[test]
    fn mailed_tokens_depend_on_the_key_the_kind_and_the_id() {
        let id = random_id();
        assert_eq!(id.len(), 64);
        let t = mailed("k1", VERIFY_PREFIX, &id);
        assert!(t.starts_with("djv_"));
        assert_eq!(t.len(), 4 + 43);
        assert_eq!(t, mailed("k1", VERIFY_PREFIX, &id));
        assert_ne!(t, mailed("k2", VERIFY_PREFIX, &id));
        assert_ne!(t[4..], mailed("k1", RESET_PREFIX, &id)[4..]);
        assert_ne!(t, mailed("k1", VERIFY_PREFIX, &random_id()));
    }
}
