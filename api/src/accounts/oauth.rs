//! OAuth 2.0 for third-party apps: the authorization code flow with PKCE (RFC 6749
//! section 4.1, RFC 7636 with `S256` only) for public clients, with no registration.
//!
//! - An app names itself with a `client_id` of its choosing (1 to 64 printable ASCII
//!   characters) and a redirect URI: `https://…`, or for a native app a loopback
//!   `http://127.0.0.1:*/…`, `http://[::1]:*/…` or `http://localhost:*/…` (RFC 8252), or
//!   a page of this server itself (so that its `/docs` can sign in). No fragment, no user
//!   information.
//! - The player approves on the consent page; [`issue_code`] then makes a code (random,
//!   stored hashed) that lives [`CODE_TTL`], bound to the client, the redirect URI, the
//!   scopes and the PKCE challenge.
//! - [`exchange`] trades it for an access token. The first presentation of a code uses it
//!   up, right or wrong: a code presented again (a replay, or one swapped to another
//!   client, or sent with another verifier after its use) is refused and the token issued
//!   from it is revoked (RFC 6749 section 4.1.2). Codes are kept an hour after they expire
//!   for that, then deleted.
//! - The access token (`djo_…`) is opaque and stored hashed, as a personal access token
//!   is, in the same table with the app's `client_id`: the same scopes, the same checks,
//!   listed and revoked with the player's tokens. It lives [`TOKEN_DAYS`] days; there is
//!   no refresh token (a refresh token of a public client is as strong as the access
//!   token, and rotating it safely needs more than this flow gives): when it expires, the
//!   app asks again, and a player who still trusts it approves in one click.
//! - [`revoke`] (RFC 7009) ends a token presented by whoever holds it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::TimeDelta;
use sha2::{Digest, Sha256};

use super::Accounts;
use super::tokens::MAX_TOKENS_PER_USER;
use crate::auth::{Scope, tokens};
use crate::ids::{TokenId, UserId};
use crate::store::models::PersonalAccessToken;
use crate::store::oauth::OAuthCode;
use crate::store::{self, RunError, StoreError};

/// How long an authorization code may be exchanged.
pub const CODE_TTL: TimeDelta = TimeDelta::seconds(120);
/// How long a code is kept after it expires (to recognise a replay).
const CODE_KEPT: TimeDelta = TimeDelta::hours(1);
/// Codes one account may have made within the last [`CODE_TTL`] + [`CODE_KEPT`].
pub const MAX_RECENT_CODES: i64 = 50;
/// Days an app's access token lives.
pub const TOKEN_DAYS: i64 = 365;
/// The longest `client_id`.
pub const CLIENT_ID_MAX: usize = 64;
/// The longest redirect URI.
pub const REDIRECT_URI_MAX: usize = 2000;
/// The longest `state`.
pub const STATE_MAX: usize = 1000;
/// The longest token or code presented.
pub const TOKEN_MAX: usize = 256;

/// Why the OAuth use cases refused or failed (the routes answer RFC 6749's errors).
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// The code (or the request around it) does not give a token: `invalid_grant`.
    #[error("{0}")]
    InvalidGrant(&'static str),
    /// The token was issued to another client: `invalid_client`.
    #[error("this token was issued to another client")]
    OtherClient,
    /// Too many codes made lately.
    #[error("too many authorizations in the last hour; try again later")]
    TooManyCodes,
    /// The account holds the most live tokens it may.
    #[error("the account already holds {0} live tokens; revoke some in the settings first")]
    TokenCap(i64),
    #[error("the account no longer exists")]
    AccountGone,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<RunError> for OAuthError {
    fn from(e: RunError) -> Self {
        OAuthError::Store(e.into())
    }
}

/// Whether a `client_id` is acceptable: 1 to [`CLIENT_ID_MAX`] printable ASCII
/// characters, not only spaces.
pub fn client_id_ok(client_id: &str) -> bool {
    (1..=CLIENT_ID_MAX).contains(&client_id.len())
        && client_id.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !client_id.trim().is_empty()
}

/// Checks a redirect URI (see the module's rules); `own` is this server's public URL.
/// Answers the parsed URI, or why it is refused.
pub fn check_redirect_uri(uri: &str, own: &url::Url) -> Result<url::Url, &'static str> {
    if uri.is_empty() {
        return Err("`redirect_uri` is required");
    }
    if uri.len() > REDIRECT_URI_MAX {
        return Err("`redirect_uri` is too long");
    }
    let parsed = url::Url::parse(uri).map_err(|_| "`redirect_uri` is not an absolute URI")?;
    if parsed.fragment().is_some() {
        return Err("`redirect_uri` must not have a fragment");
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("`redirect_uri` must not carry user information");
    }
    let Some(host) = parsed.host() else {
        return Err("`redirect_uri` must name a host");
    };
    let loopback = match host {
        url::Host::Domain(d) => d.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(a) => a == std::net::Ipv4Addr::LOCALHOST,
        url::Host::Ipv6(a) => a == std::net::Ipv6Addr::LOCALHOST,
    };
    let same_origin = parsed.origin() == own.origin();
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if loopback || same_origin => Ok(parsed),
        "http" => Err(
            "`redirect_uri` must be https, or http on a loopback address (127.0.0.1, [::1], localhost)",
        ),
        _ => Err("`redirect_uri` must be an https (or loopback http) URI"),
    }
}

/// Whether a PKCE `code_challenge` (or verifier) has the form of RFC 7636: 43 to 128
/// unreserved characters.
pub fn pkce_form_ok(value: &str) -> bool {
    (43..=128).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// The `S256` challenge of a verifier.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether a `state` is acceptable: at most [`STATE_MAX`] printable ASCII characters.
pub fn state_ok(state: &str) -> bool {
    state.len() <= STATE_MAX && state.bytes().all(|b| (0x20..=0x7e).contains(&b))
}

/// What `GET /oauth/authorize` asks, as sent (every parameter optional).
#[derive(Debug, Clone, Default)]
pub struct RawAuthorization {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub scope: Option<String>,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
}

/// An authorization request that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    pub client_id: String,
    pub redirect_uri: String,
    /// The redirect URI's host (and port, when it has one), for the consent page.
    pub redirect_host: String,
    pub scopes: Vec<Scope>,
    pub state: Option<String>,
    pub code_challenge: String,
}

/// Why an authorization request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The client or its redirect URI is not valid: say so to the player, redirect
    /// nowhere (RFC 6749 section 4.1.2.1).
    NoRedirect(String),
    /// Anything else: back to the (validated) redirect URI with `error`.
    Redirect {
        redirect_uri: String,
        state: Option<String>,
        error: &'static str,
        description: String,
    },
}

/// Checks an authorization request in the RFC's order: the client and its redirect URI
/// first (nothing is redirected before they are known good), then the rest.
pub fn check_authorization(
    raw: &RawAuthorization,
    own: &url::Url,
) -> Result<AuthorizationRequest, Refusal> {
    let client_id = raw.client_id.clone().unwrap_or_default();
    if !client_id_ok(&client_id) {
        return Err(Refusal::NoRedirect(format!(
            "`client_id` is required: 1 to {CLIENT_ID_MAX} printable ASCII characters"
        )));
    }
    let redirect_uri = raw.redirect_uri.clone().unwrap_or_default();
    let parsed = check_redirect_uri(&redirect_uri, own)
        .map_err(|why| Refusal::NoRedirect(why.to_string()))?;
    // The state goes back as sent, unless it is unusable (then it is left out).
    let state = raw.state.clone().filter(|s| state_ok(s));
    let refuse = |error: &'static str, description: &str| Refusal::Redirect {
        redirect_uri: redirect_uri.clone(),
        state: state.clone(),
        error,
        description: description.to_string(),
    };
    if raw.state.as_deref().is_some_and(|s| !state_ok(s)) {
        return Err(refuse(
            "invalid_request",
            "`state` must be at most 1000 printable ASCII characters",
        ));
    }
    match raw.response_type.as_deref() {
        Some("code") => {}
        None => return Err(refuse("invalid_request", "`response_type` is required")),
        Some(_) => {
            return Err(refuse(
                "unsupported_response_type",
                "only `response_type=code` is supported",
            ));
        }
    }
    match raw.code_challenge_method.as_deref() {
        Some("S256") => {}
        None => {
            return Err(refuse(
                "invalid_request",
                "PKCE is required: send `code_challenge` and `code_challenge_method=S256`",
            ));
        }
        Some(_) => {
            return Err(refuse(
                "invalid_request",
                "only `code_challenge_method=S256` is supported",
            ));
        }
    }
    let code_challenge = raw.code_challenge.clone().unwrap_or_default();
    if !pkce_form_ok(&code_challenge) {
        return Err(refuse(
            "invalid_request",
            "`code_challenge` must be 43 to 128 characters of [A-Za-z0-9-._~]",
        ));
    }
    let scope_text = raw.scope.as_deref().unwrap_or("read");
    let names: Vec<&str> = scope_text.split_whitespace().collect();
    if names.len() > 16 || names.iter().any(|n| Scope::parse(n).is_none()) {
        return Err(refuse(
            "invalid_scope",
            "the scopes are space-separated names among `read` and `play`",
        ));
    }
    let scopes = Scope::parse_list(scope_text);
    if scopes.is_empty() {
        return Err(refuse("invalid_scope", "ask for at least one scope"));
    }
    let redirect_host = match (parsed.host_str(), parsed.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        (None, _) => String::new(),
    };
    Ok(AuthorizationRequest {
        client_id,
        redirect_uri,
        redirect_host,
        scopes,
        state,
        code_challenge,
    })
}

/// `uri` with `params` added to its query (the redirect back to the app).
pub fn redirect_to(uri: &str, params: &[(&str, &str)]) -> String {
    match url::Url::parse(uri) {
        Ok(mut u) => {
            {
                let mut q = u.query_pairs_mut();
                for (k, v) in params {
                    q.append_pair(k, v);
                }
            }
            u.to_string()
        }
        Err(_) => uri.to_string(),
    }
}

/// The player approved `request`: a new code for it (shown once, in the redirect).
pub async fn issue_code(
    ctx: &Accounts<'_>,
    user_id: UserId,
    request: AuthorizationRequest,
) -> Result<String, OAuthError> {
    let code = tokens::generate(tokens::CODE_PREFIX);
    let now = ctx.clock.now();
    let row = OAuthCode {
        code_hash: tokens::hash(&code),
        user_id,
        client_id: request.client_id,
        redirect_uri: request.redirect_uri,
        scopes: Scope::join(&request.scopes),
        code_challenge: request.code_challenge,
        created_at: now,
        expires_at: now + CODE_TTL,
        used_at: None,
        token_id: None,
    };
    store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            if !store::users::lock(conn, &row.user_id)? {
                return Ok(Err(OAuthError::AccountGone));
            }
            store::oauth::delete_expired(conn, &row.user_id, now - CODE_KEPT)?;
            if store::oauth::count_recent(conn, &row.user_id, now - CODE_KEPT)? >= MAX_RECENT_CODES
            {
                return Ok(Err(OAuthError::TooManyCodes));
            }
            store::oauth::insert(conn, &row)?;
            Ok::<_, StoreError>(Ok(()))
        })?
    })
    .await?;
    Ok(code)
}

/// What the token endpoint was sent (`grant_type=authorization_code`).
#[derive(Debug, Clone)]
pub struct CodeExchange {
    pub code: String,
    pub client_id: String,
    pub redirect_uri: String,
    pub code_verifier: String,
}

/// An access token issued to an app; `secret` is shown this once.
#[derive(Debug)]
pub struct IssuedToken {
    pub secret: String,
    pub scopes: Vec<Scope>,
    /// Seconds until it expires.
    pub expires_in: i64,
}

/// Trades a code for an access token (see the module's rules). A code presented a second
/// time revokes the token issued from it.
pub async fn exchange(ctx: &Accounts<'_>, req: CodeExchange) -> Result<IssuedToken, OAuthError> {
    let hash = tokens::hash(&req.code);
    let now = ctx.clock.now();
    let secret = tokens::generate(tokens::OAUTH_PREFIX);
    let token_hash = tokens::hash(&secret);
    let token_hint = tokens::hint(&secret);
    let issued = store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            use OAuthError::InvalidGrant;
            // Claim first: of two presentations at once, exactly one claims the code,
            // and the other, reading after it, sees the token it issued.
            let claimed = store::oauth::claim(conn, &hash, now)?;
            let Some(code) = store::oauth::find(conn, &hash)? else {
                return Ok(Err(InvalidGrant("unknown authorization code")));
            };
            if !claimed {
                if let Some(token_id) = &code.token_id {
                    store::tokens::revoke(conn, token_id, now)?;
                }
                return Ok(Err(InvalidGrant(
                    "this authorization code was already used; any token issued from it is revoked",
                )));
            }
            if code.expires_at <= now {
                return Ok(Err(InvalidGrant("this authorization code has expired")));
            }
            if code.client_id != req.client_id {
                return Ok(Err(InvalidGrant(
                    "this authorization code was issued to another client",
                )));
            }
            if code.redirect_uri != req.redirect_uri {
                return Ok(Err(InvalidGrant(
                    "`redirect_uri` is not the one the code was issued for",
                )));
            }
            if !pkce_form_ok(&req.code_verifier) || s256(&req.code_verifier) != code.code_challenge
            {
                return Ok(Err(InvalidGrant(
                    "`code_verifier` does not match the code's challenge",
                )));
            }
            if !store::users::lock(conn, &code.user_id)? {
                return Ok(Err(OAuthError::AccountGone));
            }
            if store::tokens::count_live(conn, &code.user_id)? >= MAX_TOKENS_PER_USER {
                return Ok(Err(OAuthError::TokenCap(MAX_TOKENS_PER_USER)));
            }
            let row = PersonalAccessToken {
                id: TokenId::new(uuid::Uuid::now_v7().to_string()),
                user_id: code.user_id.clone(),
                name: code.client_id.clone(),
                scopes: code.scopes.clone(),
                token_hash,
                token_hint,
                created_at: now,
                expires_at: Some(now + TimeDelta::days(TOKEN_DAYS)),
                last_used_at: None,
                revoked_at: None,
                client_id: Some(code.client_id.clone()),
            };
            store::tokens::insert(conn, &row)?;
            store::oauth::set_token(conn, &hash, &row.id)?;
            Ok::<_, StoreError>(Ok(Scope::parse_list(&row.scopes)))
        })?
    })
    .await?;
    Ok(IssuedToken {
        secret,
        scopes: issued,
        expires_in: TimeDelta::days(TOKEN_DAYS).num_seconds(),
    })
}

/// Revokes a token (RFC 7009): an app's access token or a personal access token, or an
/// authorization code (used up, and the token issued from it revoked). An unknown or
/// already revoked token is no error. When `client_id` is given, a token issued to
/// another app is refused ([`OAuthError::OtherClient`]).
pub async fn revoke(
    ctx: &Accounts<'_>,
    token: String,
    client_id: Option<String>,
) -> Result<(), OAuthError> {
    let hash = tokens::hash(&token);
    let now = ctx.clock.now();
    store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            if token.starts_with(tokens::CODE_PREFIX) {
                let Some(code) = store::oauth::find(conn, &hash)? else {
                    return Ok(Ok(()));
                };
                if client_id.as_ref().is_some_and(|c| *c != code.client_id) {
                    return Ok(Err(OAuthError::OtherClient));
                }
                store::oauth::claim(conn, &hash, now)?;
                if let Some(token_id) = &code.token_id {
                    store::tokens::revoke(conn, token_id, now)?;
                }
                return Ok(Ok(()));
            }
            let Some(t) = store::tokens::find_by_hash(conn, &hash)? else {
                return Ok(Ok(()));
            };
            if let (Some(given), Some(owner)) = (&client_id, &t.client_id) {
                if given != owner {
                    return Ok(Err(OAuthError::OtherClient));
                }
            }
            store::tokens::revoke(conn, &t.id, now)?;
            Ok::<_, StoreError>(Ok(()))
        })?
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own() -> url::Url {
        url::Url::parse("http://djambi.test:8080/").unwrap()
    }

    #[test]
    fn redirect_uris_are_https_or_loopback() {
        for ok in [
            "https://app.example/cb",
            "https://app.example:8443/cb?x=1",
            "http://127.0.0.1:51234/callback",
            "http://localhost:3000/",
            "http://[::1]:9/cb",
            "http://djambi.test:8080/docs/oauth2-redirect.html",
        ] {
            assert!(check_redirect_uri(ok, &own()).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/relative",
            "http://app.example/cb",
            "http://127.0.0.2/cb",
            "http://djambi.test:8081/cb",
            "https://app.example/cb#frag",
            "https://user:pw@app.example/cb",
            "javascript:alert(1)",
            "ftp://app.example/",
            "com.example.app:/cb",
        ] {
            assert!(check_redirect_uri(bad, &own()).is_err(), "{bad}");
        }
        let long = format!("https://a.example/{}", "x".repeat(REDIRECT_URI_MAX));
        assert!(check_redirect_uri(&long, &own()).is_err());
    }

    fn raw() -> RawAuthorization {
        RawAuthorization {
            response_type: Some("code".into()),
            client_id: Some("my-app".into()),
            redirect_uri: Some("http://127.0.0.1:4000/cb".into()),
            scope: Some("play read".into()),
            state: Some("xyz".into()),
            code_challenge: Some(s256(&"v".repeat(43))),
            code_challenge_method: Some("S256".into()),
        }
    }

    #[test]
    fn a_good_request_passes() {
        let r = check_authorization(&raw(), &own()).unwrap();
        assert_eq!(r.scopes, vec![Scope::Read, Scope::Play]);
        assert_eq!(r.redirect_host, "127.0.0.1:4000");
        assert_eq!(r.state.as_deref(), Some("xyz"));
    }

    #[test]
    fn a_bad_client_or_redirect_uri_is_never_redirected_to() {
        let edits: [fn(&mut RawAuthorization); 5] = [
            |r: &mut RawAuthorization| r.client_id = None,
            |r: &mut RawAuthorization| r.client_id = Some("x".repeat(65)),
            |r: &mut RawAuthorization| r.client_id = Some("a\nb".into()),
            |r: &mut RawAuthorization| r.redirect_uri = None,
            |r: &mut RawAuthorization| r.redirect_uri = Some("http://evil.example/".into()),
        ];
        for edit in edits {
            let mut r = raw();
            r.response_type = Some("token".into());
            edit(&mut r);
            assert!(matches!(
                check_authorization(&r, &own()),
                Err(Refusal::NoRedirect(_))
            ));
        }
    }

    #[test]
    fn other_errors_go_back_to_the_app() {
        type Edit = fn(&mut RawAuthorization);
        let cases: [(Edit, &str); 7] = [
            (
                |r| r.response_type = Some("token".into()),
                "unsupported_response_type",
            ),
            (|r| r.response_type = None, "invalid_request"),
            (
                |r| r.code_challenge_method = Some("plain".into()),
                "invalid_request",
            ),
            (|r| r.code_challenge_method = None, "invalid_request"),
            (
                |r| r.code_challenge = Some("short".into()),
                "invalid_request",
            ),
            (|r| r.scope = Some("read admin".into()), "invalid_scope"),
            (|r| r.scope = Some(" ".into()), "invalid_scope"),
        ];
        for (edit, expected) in cases {
            let mut r = raw();
            edit(&mut r);
            match check_authorization(&r, &own()) {
                Err(Refusal::Redirect {
                    error,
                    state,
                    redirect_uri,
                    ..
                }) => {
                    assert_eq!(error, expected);
                    assert_eq!(state.as_deref(), Some("xyz"));
                    assert_eq!(redirect_uri, "http://127.0.0.1:4000/cb");
                }
                other => panic!("{other:?}"),
            }
        }
        let mut r = raw();
        r.scope = None;
        assert_eq!(
            check_authorization(&r, &own()).unwrap().scopes,
            vec![Scope::Read]
        );
    }

    #[test]
    fn pkce_s256_is_rfc_7636s() {
        // RFC 7636, appendix B.
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(pkce_form_ok("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
        assert!(!pkce_form_ok("a+b/c=="));
        assert!(!pkce_form_ok(&"a".repeat(129)));
    }

    #[test]
    fn redirects_keep_the_apps_query() {
        assert_eq!(
            redirect_to(
                "https://a.example/cb?x=1",
                &[("code", "c d"), ("state", "s")]
            ),
            "https://a.example/cb?x=1&code=c+d&state=s"
        );
    }
}
