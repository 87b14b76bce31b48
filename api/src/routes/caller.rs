//! Who calls: the [`Authenticated`] extractor (a handler that takes it requires a valid
//! bearer token), and the client's address ([`client_addr`], for the limits per address).
//!
//! ```ignore
//! async fn handler(auth: Authenticated) -> Result<HttpResponse, ApiError> {
//!     auth.require(Scope::Play)?;           // 403 `forbidden` without the scope
//!     let session = auth.require_session()?; // 403 for personal access tokens
//!     ...
//! }
//! ```
//!
//! A missing header, a non-Bearer scheme, a malformed, expired, tampered or foreign JWT, a
//! JWT of a revoked session, and an unknown, revoked or expired personal access token are
//! all 401 `unauthorized` problems with `WWW-Authenticate: Bearer`.
//!
//! Without an `Authorization` header, the web client's session cookie is accepted
//! instead (see [`crate::auth::web_session`]): the same session check and scopes as a login's
//! access token, and for any method but GET/HEAD/OPTIONS the `X-CSRF-Token` header of
//! the session (403 `forbidden` when missing or wrong).

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;

use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, http::header, web};
use ipnet::IpNet;

use crate::accounts::authenticate;
use crate::auth::tokens::is_stored_access_token;
use crate::auth::{Scope, web_session};
use crate::error::ApiError;
use crate::ids::{SessionId, TokenId, UserId};
use crate::rate_limit::forwarded_client;
use crate::state::AppState;

/// How the caller authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthVia {
    /// A JWT from a login; `session_id` is its refresh-token family.
    Session { session_id: SessionId },
    /// A personal access token.
    PersonalAccessToken { token_id: TokenId },
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Authenticated {
    pub user_id: UserId,
    pub scopes: Vec<Scope>,
    pub via: AuthVia,
}

impl Authenticated {
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }

    /// 403 `forbidden` unless the token carries `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.has(scope) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "this token lacks the `{}` scope",
                scope.as_str()
            )))
        }
    }

    /// The login session, or 403 `forbidden` for a personal access token (account
    /// management and logout need a login).
    pub fn require_session(&self) -> Result<&SessionId, ApiError> {
        match &self.via {
            AuthVia::Session { session_id } => Ok(session_id),
            AuthVia::PersonalAccessToken { .. } => Err(ApiError::Forbidden(
                "this needs a login session; personal access tokens cannot manage the account"
                    .into(),
            )),
        }
    }
}

/// The bearer token of a request, or a 401.
pub fn bearer_token(req: &HttpRequest) -> Result<String, ApiError> {
    let value = req.headers().get(header::AUTHORIZATION).ok_or_else(|| {
        ApiError::unauthenticated("an `Authorization: Bearer <token>` header is required")
    })?;
    let text = value
        .to_str()
        .map_err(|_| ApiError::invalid_token("the Authorization header is not valid text"))?;
    let (scheme, token) = text.trim().split_once(' ').ok_or_else(|| {
        ApiError::invalid_token("the Authorization header must be `Bearer <token>`")
    })?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::invalid_token(
            "the Authorization header must use the Bearer scheme",
        ));
    }
    let token = token.trim();
    if token.is_empty() || token.len() > 4096 {
        return Err(ApiError::invalid_token("the bearer token is malformed"));
    }
    Ok(token.to_string())
}

async fn authenticate(
    state: web::Data<AppState>,
    token: String,
) -> Result<Authenticated, ApiError> {
    let accounts = state.accounts();
    if is_stored_access_token(&token) {
        let caller = authenticate::personal_token(&accounts, &token).await?;
        return Ok(Authenticated {
            user_id: caller.user_id,
            scopes: Scope::parse_list(&caller.scopes),
            via: AuthVia::PersonalAccessToken {
                token_id: caller.token_id,
            },
        });
    }
    let claims = authenticate::access_token(&accounts, &token).await?;
    Ok(Authenticated {
        user_id: UserId::new(claims.sub),
        scopes: Scope::parse_list(&claims.scope),
        via: AuthVia::Session {
            session_id: SessionId::new(claims.sid),
        },
    })
}

/// Whether a request authenticates with the web session cookie: it has the cookie and
/// no `Authorization` header (the header wins).
pub fn uses_cookie(req: &HttpRequest) -> bool {
    !req.headers().contains_key(header::AUTHORIZATION) && web_session::cookie_value(req).is_some()
}

/// The caller of a request that carries the web session cookie (see [`uses_cookie`]):
/// the cookie's MAC and expiry, the CSRF token for state-changing methods, then the
/// session row.
async fn authenticate_cookie(
    state: web::Data<AppState>,
    req: &HttpRequest,
) -> Result<Authenticated, ApiError> {
    let value = web_session::cookie_value(req).unwrap_or_default();
    let secret = state.config.jwt_secret.expose().to_string();
    let now = state.clock.now().and_utc().timestamp();
    let (sid, uid) = web_session::verify(&secret, &value, now).ok_or_else(|| {
        ApiError::invalid_token("the session cookie is not valid or has expired; log in again")
    })?;
    let (sid, uid) = (SessionId::new(sid), UserId::new(uid));
    if web_session::is_unsafe(req.method()) {
        let presented = req
            .headers()
            .get(web_session::CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !web_session::csrf_ok(&secret, sid.as_str(), presented) {
            return Err(ApiError::Forbidden(format!(
                "a request with the session cookie must send the page's `{}` header; \
                 reload the page and try again",
                web_session::CSRF_HEADER
            )));
        }
    }
    authenticate::cookie_session(&state.accounts(), sid.clone(), uid.clone()).await?;
    Ok(Authenticated {
        user_id: uid,
        scopes: Scope::ALL.to_vec(),
        via: AuthVia::Session { session_id: sid },
    })
}

/// The account a request authenticated as, kept in the request's extensions so that what
/// runs after the handler (the problem titles' language) knows whose answer it is.
#[derive(Debug, Clone)]
pub struct CallerAccount(pub UserId);

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let req = req.clone();
        Box::pin(async move {
            let state =
                state.ok_or_else(|| ApiError::internal("application state is not configured"))?;
            let caller = if uses_cookie(&req) {
                authenticate_cookie(state, &req).await?
            } else {
                authenticate(state, bearer_token(&req)?).await?
            };
            req.extensions_mut()
                .insert(CallerAccount(caller.user_id.clone()));
            Ok(caller)
        })
    }
}

/// The client's address: the TCP peer's, or, when the peer is a trusted proxy, the
/// right-most `X-Forwarded-For` entry that is not a trusted proxy.
pub fn client_addr(req: &HttpRequest, trusted: &[IpNet]) -> IpAddr {
    let peer = req
        .peer_addr()
        .map(|a| a.ip())
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    forwarded_client(
        peer,
        req.headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok()),
        trusted,
    )
}
