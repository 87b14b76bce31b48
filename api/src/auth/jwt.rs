//! Access tokens: short-lived HS256 JWTs signed with `DJAMBI_JWT_SECRET`.
//!
//! Claims: `sub` (user id), `sid` (the login session, checked against the database on every
//! request so that logout revokes the token at once), `scope` ("read play"), `iss`
//! ("djambi"), `iat`, `exp`.
//!
//! `iat` and `exp` are the injected `Clock`'s time, as are the ages of sessions, refresh
//! tokens and personal access tokens: callers pass `clock.now()` to [`JwtKeys::issue`] and
//! [`JwtKeys::verify`]. `jsonwebtoken` checks the signature, the algorithm, the issuer and
//! that the claims are there, never the time (it would read the system's): `verify`
//! compares `exp` with `now` itself, with [`LEEWAY_SECS`] of skew.

use std::time::Duration;

use chrono::NaiveDateTime;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, errors::ErrorKind};
use serde::{Deserialize, Serialize};

/// Why an access token could not be made or was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// Signing failed (a server fault).
    #[error("JWT signing failed: {0}")]
    Signing(String),
    /// The token presented is not a valid access token; the reason is for the client.
    #[error("{0}")]
    Invalid(&'static str),
}

pub const ISSUER: &str = "djambi";
/// Clock skew tolerated when checking `exp`, in seconds.
pub const LEEWAY_SECS: u64 = 5;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub sid: String,
    pub scope: String,
    pub iss: String,
    pub iat: i64,
    pub exp: i64,
}

/// Signing and verification keys, and the token lifetime.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl std::fmt::Debug for JwtKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtKeys")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl JwtKeys {
    pub fn new(secret: &[u8], ttl: Duration) -> Result<JwtKeys, String> {
        let encoding = EncodingKey::from_secret(secret).map_err(|e| format!("JWT key: {e}"))?;
        let decoding = DecodingKey::from_secret(secret).map_err(|e| format!("JWT key: {e}"))?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "sub", "iss"]);
        // `exp` is checked against the injected clock in `verify`, not the system's.
        validation.validate_exp = false;
        Ok(JwtKeys {
            encoding,
            decoding,
            validation,
            ttl,
        })
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A new access token for a session, issued at `now` (the clock's); returns it and its
    /// lifetime in seconds.
    pub fn issue(
        &self,
        user_id: &str,
        session_id: &str,
        now: NaiveDateTime,
    ) -> Result<(String, u64), JwtError> {
        let now = now.and_utc().timestamp();
        let ttl = self.ttl.as_secs();
        let claims = Claims {
            sub: user_id.to_string(),
            sid: session_id.to_string(),
            scope: "read play".to_string(),
            iss: ISSUER.to_string(),
            iat: now,
            exp: now.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX)),
        };
        Ok((self.encode(&claims)?, ttl))
    }

    /// Signs arbitrary claims (tests use it to make expired tokens).
    pub fn encode(&self, claims: &Claims) -> Result<String, JwtError> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .map_err(|e| JwtError::Signing(e.to_string()))
    }

    /// Verifies signature, algorithm and issuer, and that the token has not expired at `now`
    /// (the clock's), give or take [`LEEWAY_SECS`].
    pub fn verify(&self, token: &str, now: NaiveDateTime) -> Result<Claims, JwtError> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map(|d| d.claims)
            .map_err(|e| {
                let why = match e.kind() {
                    ErrorKind::InvalidSignature => "the access token's signature is not valid",
                    ErrorKind::InvalidIssuer => "the access token was not issued by this server",
                    ErrorKind::InvalidAlgorithm => "the access token uses another algorithm",
                    _ => "the access token is malformed",
                };
                JwtError::Invalid(why)
            })?;
        if expired(claims.exp, now) {
            return Err(JwtError::Invalid("the access token has expired"));
        }
        Ok(claims)
    }
}

/// Whether a token expiring at `exp` (Unix seconds) has expired at `now`: past `exp` by
/// more than [`LEEWAY_SECS`] (as `jsonwebtoken` had it).
fn expired(exp: i64, now: NaiveDateTime) -> bool {
    let leeway = i64::try_from(LEEWAY_SECS).unwrap_or(i64::MAX);
    exp < now.and_utc().timestamp().saturating_sub(leeway)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> JwtKeys {
        JwtKeys::new(b"0123456789abcdef0123456789abcdef", Duration::from_secs(60)).unwrap()
    }

    /// A time far from the machine's: only the given clock counts.
    fn t0() -> NaiveDateTime {
        NaiveDateTime::parse_from_str("2001-02-03 04:05:06", "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn issue_and_verify() {
        let k = keys();
        let (t, ttl) = k.issue("u1", "s1", t0()).unwrap();
        assert_eq!(ttl, 60);
        let c = k.verify(&t, t0()).unwrap();
        assert_eq!((c.sub.as_str(), c.sid.as_str()), ("u1", "s1"));
        assert_eq!(c.iat, t0().and_utc().timestamp());
        assert_eq!(c.exp, c.iat + 60);
    }

    #[test]
    fn tokens_expire_by_the_given_clock() {
        let k = keys();
        let (t, _) = k.issue("u1", "s1", t0()).unwrap();
        let at = |secs: i64| t0() + chrono::TimeDelta::seconds(secs);
        // Valid up to `exp` and the leeway after it; expired one second later.
        let leeway = LEEWAY_SECS as i64;
        assert!(k.verify(&t, at(60 + leeway)).is_ok());
        let late = k.verify(&t, at(60 + leeway + 1)).unwrap_err();
        assert_eq!(late, JwtError::Invalid("the access token has expired"));
        // The machine's clock (years after `t0`) plays no part.
        assert!(k.verify(&t, chrono::Utc::now().naive_utc()).is_err());
    }

    #[test]
    fn expired_tampered_and_foreign_tokens_fail() {
        let k = keys();
        let now = t0().and_utc().timestamp();
        let expired = k
            .encode(&Claims {
                sub: "u".into(),
                sid: "s".into(),
                scope: "read".into(),
                iss: ISSUER.into(),
                iat: now - 7200,
                exp: now - 3600,
            })
            .unwrap();
        assert!(
            k.verify(&expired, t0())
                .unwrap_err()
                .to_string()
                .contains("expired")
        );

        let (t, _) = k.issue("u1", "s1", t0()).unwrap();
        let mut tampered = t.clone().into_bytes();
        let i = t.find('.').unwrap() + 3;
        tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
        assert!(
            k.verify(&String::from_utf8(tampered).unwrap(), t0())
                .is_err()
        );

        let other = JwtKeys::new(
            b"another secret another secret 123",
            Duration::from_secs(60),
        )
        .unwrap();
        assert!(other.verify(&t, t0()).is_err());
        assert!(k.verify("garbage", t0()).is_err());
    }
}
