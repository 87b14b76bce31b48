//! The web client's cookie session (`/login`, `/play/{id}`, ...): a login through the web
//! pages sets an HttpOnly cookie instead of handing the page a bearer token.
//!
//! - The cookie `djambi_session` holds `v1.<session id>.<user id>.<expiry>.<mac>`: the
//!   session row of an ordinary login (`sessions`, so logout and revocation work as for
//!   the API's tokens), its user, its expiry (Unix seconds, the refresh-token lifetime),
//!   and an HMAC-SHA256 of the rest keyed by the JWT secret. The
//!   [`Authenticated`](crate::routes::caller::Authenticated) extractor accepts it when no `Authorization`
//!   header is sent, after checking the session row is live, with a login's scopes.
//! - Flags: `HttpOnly`, `SameSite=Lax` (the cookie goes with a top-level link from a
//!   turn mail, never with a cross-site POST or sub-request), `Path=/`, and `Secure`
//!   when `DJAMBI_PUBLIC_URL` is `https://` or the request came over TLS.
//! - CSRF: every request carrying the cookie with a method other than GET/HEAD/OPTIONS
//!   must send `X-CSRF-Token`, an HMAC of the session id (so bound to the session, not
//!   stored), compared in constant time; missing or wrong is `403 forbidden`. The pages
//!   get the token in `<meta name="csrf-token">`.
//!
//! This mechanism is the web client's: it is not in the OpenAPI document, which
//! documents bearer tokens for third-party clients.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
use hmac::{KeyInit, Mac};

use actix_web::HttpRequest;
use actix_web::http::{Method, header};

/// The cookie's name.
pub const COOKIE: &str = "djambi_session";
/// The header carrying the CSRF token.
pub const CSRF_HEADER: &str = "X-CSRF-Token";

type HmacSha256 = hmac::Hmac<sha2_011::Sha256>;

fn mac(secret: &str, purpose: &[u8], parts: &[&str]) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(purpose);
    for p in parts {
        mac.update(p.as_bytes());
        mac.update(b"\0");
    }
    mac
}

/// The cookie value for a session of `user_id`, valid until `expires` (Unix seconds).
pub fn issue(secret: &str, session_id: &str, user_id: &str, expires: i64) -> String {
    let exp = expires.to_string();
    let tag = mac(
        secret,
        b"djambi-web-session\0",
        &[session_id, user_id, &exp],
    )
    .finalize()
    .into_bytes();
    format!(
        "v1.{session_id}.{user_id}.{exp}.{}",
        B64URL.encode(tag.as_slice())
    )
}

/// The session id and user id of a cookie value, if its MAC is right and it has not
/// expired at `now` (Unix seconds).
pub fn verify(secret: &str, value: &str, now: i64) -> Option<(String, String)> {
    if value.len() > 512 {
        return None;
    }
    let mut parts = value.split('.');
    let (Some("v1"), Some(sid), Some(uid), Some(exp), Some(tag), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    let tag = B64URL.decode(tag).ok()?;
    mac(secret, b"djambi-web-session\0", &[sid, uid, exp])
        .verify_slice(&tag)
        .ok()?;
    let expires: i64 = exp.parse().ok()?;
    (expires > now).then(|| (sid.to_string(), uid.to_string()))
}

/// The CSRF token of a session.
pub fn csrf_token(secret: &str, session_id: &str) -> String {
    let tag = mac(secret, b"djambi-web-csrf\0", &[session_id])
        .finalize()
        .into_bytes();
    B64URL.encode(tag.as_slice())
}

/// Whether `presented` is the CSRF token of the session (constant time).
pub fn csrf_ok(secret: &str, session_id: &str, presented: &str) -> bool {
    let Ok(tag) = B64URL.decode(presented.trim()) else {
        return false;
    };
    mac(secret, b"djambi-web-csrf\0", &[session_id])
        .verify_slice(&tag)
        .is_ok()
}

/// Whether a method changes state (and so needs the CSRF token).
pub fn is_unsafe(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The session cookie of a request, if any (the `Cookie` headers are read by hand: the
/// server has no other use for a cookie jar).
pub fn cookie_value(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().trim_matches('"').to_string())
}

/// Whether the cookie must be `Secure`: the public URL is https, or this request came
/// over TLS.
pub fn secure(req: &HttpRequest, public_url: &url::Url) -> bool {
    public_url.scheme() == "https" || req.app_config().secure()
}

/// The `Set-Cookie` value of a new session.
pub fn set_cookie(value: &str, max_age_secs: i64, secure: bool) -> String {
    format!(
        "{COOKIE}={value}; Path=/; Max-Age={max_age_secs}; HttpOnly; SameSite=Lax{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(secure: bool) -> String {
    set_cookie("", 0, secure)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "a test secret that is long enough!!";

    #[test]
    fn a_cookie_round_trips_and_resists_tampering() {
        let v = issue(SECRET, "s-1", "u-1", 2_000);
        assert_eq!(
            verify(SECRET, &v, 1_000),
            Some(("s-1".into(), "u-1".into()))
        );
        assert_eq!(verify(SECRET, &v, 2_000), None, "expired");
        assert_eq!(
            verify("another secret entirely, also long", &v, 1_000),
            None
        );
        let forged = v.replace("u-1", "u-2");
        assert_eq!(verify(SECRET, &forged, 1_000), None);
        let later = v.replace(".2000.", ".9000.");
        assert_eq!(verify(SECRET, &later, 1_000), None);
        assert_eq!(verify(SECRET, "v1.a.b", 0), None);
        assert_eq!(verify(SECRET, "", 0), None);
    }

    #[test]
    fn csrf_tokens_are_bound_to_the_session() {
        let t = csrf_token(SECRET, "s-1");
        assert!(csrf_ok(SECRET, "s-1", &t));
        assert!(!csrf_ok(SECRET, "s-2", &t));
        assert!(!csrf_ok(SECRET, "s-1", ""));
        assert!(!csrf_ok(SECRET, "s-1", "not base64 !!"));
        assert!(!csrf_ok(SECRET, "s-1", &csrf_token(SECRET, "s-2")));
    }

    #[test]
    fn cookie_flags() {
        let c = set_cookie("abc", 60, true);
        assert_eq!(
            c,
            "djambi_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure"
        );
        assert!(!clear_cookie(false).contains("Secure"));
        assert!(clear_cookie(false).contains("Max-Age=0"));
    }
}
