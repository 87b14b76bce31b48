//! The web client's login and logout: `POST /web/session` (username and password as JSON,
//! answered with the session cookie and the page's CSRF token) and `POST /web/logout`
//! (ends the session, removes the cookie). See [`crate::auth::web_session`].

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;

use crate::auth::web_session;
use crate::error::ApiError;
use crate::ids::UserId;
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::routes::sessions::{LoginRequest, password_login};
use crate::state::AppState;

#[derive(Serialize)]
struct WebLogin {
    csrf_token: String,
    user_id: UserId,
    username: String,
}

/// Refuses a request that a browser says comes from another site (login CSRF): an
/// `Origin` whose host differs from the request's `Host`, or `Sec-Fetch-Site:
/// cross-site`.
pub(super) fn same_origin(req: &HttpRequest) -> Result<(), ApiError> {
    let refused = || ApiError::Forbidden("cross-site requests are not accepted here".into());
    let headers = req.headers();
    if headers
        .get("Sec-Fetch-Site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("cross-site"))
    {
        return Err(refused());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().map_err(|_| refused())?;
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let origin_host = url::Url::parse(origin)
            .ok()
            .and_then(|u| {
                u.host_str().map(|h| match u.port() {
                    Some(p) => format!("{h}:{p}"),
                    None => h.to_string(),
                })
            })
            .unwrap_or_default();
        if origin_host.is_empty() || !origin_host.eq_ignore_ascii_case(host) {
            return Err(refused());
        }
    }
    Ok(())
}

/// `POST /web/session`: log in, get the session cookie.
pub async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    same_origin(&req)?;
    let logged_in = password_login(&req, &state, body.into_inner()).await?;
    let (user, session_id) = (logged_in.user, logged_in.tokens.session_id);
    let secret = state.config.jwt_secret.expose();
    let ttl = state.accounts().refresh_ttl.num_seconds().max(60);
    let expires = state.clock.now().and_utc().timestamp() + ttl;
    let value = web_session::issue(secret, session_id.as_str(), user.id.as_str(), expires);
    let secure = web_session::secure(&req, &state.config.public_url);
    Ok(HttpResponse::Created()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((
            header::SET_COOKIE,
            web_session::set_cookie(&value, ttl, secure),
        ))
        .json(WebLogin {
            csrf_token: web_session::csrf_token(secret, session_id.as_str()),
            user_id: user.id.clone(),
            username: user.username.clone(),
        }))
}

/// `POST /web/logout`: end the session of the cookie (CSRF token required) and remove
/// the cookie.
pub async fn logout(
    req: HttpRequest,
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    crate::routes::sessions::end_session(&state, &auth).await?;
    let secure = web_session::secure(&req, &state.config.public_url);
    Ok(HttpResponse::NoContent()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::SET_COOKIE, web_session::clear_cookie(secure)))
        .finish())
}
