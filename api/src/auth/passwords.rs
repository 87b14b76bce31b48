//! Password hashing with argon2id (PHC strings). The cost comes from the configuration;
//! verification reads the cost from each stored hash, so raising it later is safe.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::config::Argon2Config;
use crate::error::ApiError;

/// Hashes and verifies passwords. Cheap to clone.
#[derive(Clone)]
pub struct Passwords {
    argon2: Argon2<'static>,
    /// A hash of a random password, verified against when the user does not exist so that
    /// an unknown user costs the same time as a wrong password.
    dummy_hash: String,
}

impl std::fmt::Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passwords").finish_non_exhaustive()
    }
}

impl Passwords {
    pub fn new(cfg: &Argon2Config) -> Result<Passwords, String> {
        let params = Params::new(cfg.memory_kib, cfg.iterations, cfg.parallelism, None)
            .map_err(|e| format!("invalid argon2 parameters: {e}"))?;
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let mut p = Passwords {
            argon2,
            dummy_hash: String::new(),
        };
        p.dummy_hash = p
            .hash(&uuid::Uuid::new_v4().to_string())
            .map_err(|e| e.to_string())?;
        Ok(p)
    }

    /// A new PHC string (`$argon2id$v=19$m=...`) with a fresh random salt. CPU-heavy: call
    /// it off the async workers.
    pub fn hash(&self, password: &str) -> Result<String, ApiError> {
        let salt = SaltString::generate(&mut OsRng);
        self.argon2
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::internal(format!("password hashing failed: {e}")))
    }

    /// Whether `password` matches `hash`. A malformed stored hash never matches.
    pub fn verify(&self, password: &str, hash: &str) -> bool {
        match PasswordHash::new(hash) {
            Ok(parsed) => self
                .argon2
                .verify_password(password.as_bytes(), &parsed)
                .is_ok(),
            Err(_) => false,
        }
    }

    /// Spends the time of one verification and returns false (for unknown users).
    pub fn verify_dummy(&self, password: &str) -> bool {
        let _ = self.verify(password, &self.dummy_hash);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_and_verify() {
        let p = Passwords::new(&Argon2Config {
            memory_kib: 64,
            iterations: 1,
            parallelism: 1,
        })
        .unwrap();
        let h = p.hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(p.verify("correct horse", &h));
        assert!(!p.verify("wrong horse", &h));
        assert!(!p.verify("correct horse", "not a hash"));
        assert!(!p.verify_dummy("anything"));
    }
}
