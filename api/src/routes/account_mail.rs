//! The mailed links of accounts: `POST /v1/me/email-verification` (send the
//! verification mail again), `POST /v1/email-verification/{token}` (confirm an address,
//! no login; `GET` shows a page with a button that does it, so that a mail scanner
//! following the link confirms nothing); `POST /v1/password-resets` (ask for a reset
//! link: the same answer whatever exists) and `POST /v1/password-resets/{token}` (set a
//! new password with it).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use super::me::PasswordChange;
use crate::accounts::password_reset::{self, ResetFor};
use crate::accounts::verification;
use crate::accounts::{AccountError, MailTokenRejected};
use crate::auth::SecretString;
use crate::error::too_many;
use crate::error::{ApiError, Problem};
use crate::routes::caller::Authenticated;
use crate::routes::caller::client_addr;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;
use crate::validate::{Checks, EMAIL_MAX, USERNAME_MAX};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(resend_verification)
        .service(confirm_email)
        .service(confirm_email_page)
        .service(request_reset)
        .service(reset_password);
}

const PROBLEM: &str = "application/problem+json";

/// The answer to a confirmation.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"email_verified": true, "email": "alice@example.org"}))]
pub struct EmailVerified {
    /// Always `true`.
    pub email_verified: bool,
    /// The address now verified.
    pub email: String,
}

/// Send the address verification mail again.
///
/// Earlier links stop working. At most one mail a minute and five a day per account
/// (the registration's and an address change's count).
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["session"])),
    responses(
        (status = 202, description = "The mail is queued for the account's address"),
        (status = 401, description = "Missing or invalid token", body = Problem, content_type = PROBLEM),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = PROBLEM),
        (status = 409, description = "The address is already verified", body = Problem,
            content_type = PROBLEM),
        (status = 429, description = "A mail was sent less than a minute ago, or five today; \
            `Retry-After` says when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/email-verification")]
pub async fn resend_verification(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    verification::resend(&state.accounts(), auth.user_id).await?;
    Ok(HttpResponse::Accepted().finish())
}

/// Confirm an address with the token of its verification mail (no login).
///
/// A token works once, for 48 hours, and only while the account's address is still the
/// one it was sent to. Sent by the page's button (a form post,
/// `application/x-www-form-urlencoded`), the answer is a page (`text/html`, a 404 page
/// for a link that does not work) in the account's language.
#[utoipa::path(
    tag = "accounts",
    params(("token" = String, Path, description = "From the verification mail's link")),
    responses(
        (status = 200, description = "The address is verified", body = EmailVerified),
        (status = 404, description = "Not a valid link: unknown, used, expired, or the address \
            changed since", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/email-verification/{token}")]
pub async fn confirm_email(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let from_page = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let confirmed = verification::confirm(&state.accounts(), path.into_inner().into()).await;
    if !from_page {
        let user = confirmed?;
        return Ok(HttpResponse::Ok().json(EmailVerified {
            email_verified: true,
            email: user.email,
        }));
    }
    // A person pressed the page's button: a page answers.
    match confirmed {
        Ok(user) => {
            let lang = super::language::of_request(&req, user.language.as_deref());
            let text = crate::i18n::tr(
                lang,
                "confirm-done",
                &[("email", user.email.as_str().into())],
            );
            Ok(super::web::page::notice_page(
                lang,
                actix_web::http::StatusCode::OK,
                "confirmed",
                &crate::i18n::t(lang, "confirm-title"),
                &format!(
                    "<p role=\"status\">{}</p>\n<p><a href=\"/\">{}</a></p>",
                    super::web::page::escape_html(&text),
                    super::web::page::escape_html(&crate::i18n::t(lang, "confirm-open")),
                ),
            ))
        }
        Err(AccountError::MailToken(_) | AccountError::AccountGone) => Ok(
            super::web::page::not_found_page(super::web::page_lang(&req).await, "confirm-invalid"),
        ),
        Err(e) => Err(e.into()),
    }
}

/// A page with the button that confirms the address (what the mail links to), in the
/// account's language; a link that does not work (unknown, used, expired, the address
/// changed since) is a 404 page.
#[utoipa::path(
    tag = "accounts",
    params(("token" = String, Path, description = "From the verification mail's link")),
    responses(
        (status = 200, description = "A page with the button (a link that does not work is a \
            404: an HTML page saying so to a request that accepts `text/html`, else the \
            `not-found` problem)", content_type = "text/html", body = String)
    )
)]
#[get("/email-verification/{token}")]
pub async fn confirm_email_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let raw = path.into_inner();
    let well_formed = raw.len() <= 200
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let preference = if well_formed {
        verification::check_link(&state.accounts(), raw.clone().into()).await
    } else {
        Err(AccountError::MailToken(MailTokenRejected::Unknown))
    };
    let preference = match preference {
        Ok(p) => p,
        // A person gets the page saying so; a program, the documented problem.
        Err(AccountError::MailToken(_) | AccountError::AccountGone)
            if !super::fallback::accepts_html(&req) =>
        {
            return Err(ApiError::NotFound(
                "no such verification link: unknown, used, expired, or its address changed".into(),
            ));
        }
        Err(AccountError::MailToken(_) | AccountError::AccountGone) => {
            return Ok(super::web::page::not_found_page(
                super::web::page_lang(&req).await,
                "confirm-invalid",
            ));
        }
        Err(e) => return Err(e.into()),
    };
    let lang = super::language::of_request(&req, preference.as_deref());
    let text = |id: &str| super::web::page::escape_html(&crate::i18n::t(lang, id));
    let content = format!(
        "<form method=\"post\" action=\"/v1/email-verification/{raw}\">\n\
         <p>{}</p>\n<button type=\"submit\">{}</button>\n</form>",
        text("confirm-question"),
        text("confirm-button"),
    );
    let mut response = super::web::page::notice_page(
        lang,
        actix_web::http::StatusCode::OK,
        "confirm",
        &crate::i18n::t(lang, "confirm-title"),
        &content,
    );
    // The link's token must not leave in a `Referer`.
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    Ok(response)
}

/// Whom a reset is for: exactly one of `username` and `email`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "alice"}))]
pub struct PasswordResetRequest {
    /// The account's name (any case).
    #[schema(min_length = 1, max_length = 128)]
    pub username: Option<String>,
    // (128 and 1016 are `USERNAME_MAX * 4` and `EMAIL_MAX * 4`, as for logins.)
    /// The account's address (any case); every account with this verified address gets
    /// a mail.
    #[schema(min_length = 1, max_length = 1016)]
    pub email: Option<String>,
}

/// The one answer to a reset request.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"status": "accepted", "detail": "If an account matches and its address is verified, a mail with a reset link is on its way."}))]
pub struct ResetRequested {
    /// Always `accepted`.
    pub status: String,
    pub detail: String,
}

/// Ask for a password reset link (no login).
///
/// The answer is the same (status, body, and at least 250 ms) whether or not the name or
/// address belongs to an account. If it does and the account's address is verified, a
/// mail with a single-use token valid for one hour goes there; an account, or an address,
/// gets at most three such mails an hour (further requests are answered the same and send
/// nothing).
#[utoipa::path(
    tag = "accounts",
    request_body = PasswordResetRequest,
    responses(
        (status = 202, description = "Accepted (whatever exists)", body = ResetRequested),
        (status = 400, description = "Not exactly one of `username` and `email`, or a \
            malformed body", body = Problem, content_type = PROBLEM),
        (status = 413, description = "The body is too large", body = Problem, content_type = PROBLEM),
        (status = 429, description = "Too many requests from this client address; \
            `Retry-After` says when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/password-resets")]
pub async fn request_reset(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonBody<PasswordResetRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    // The bounds the document states (a name or address outside them matches nothing
    // anyway, but what the schema refuses is refused).
    let mut checks = Checks::new();
    if let Some(u) = &body.username {
        checks.max_len("username", u, USERNAME_MAX * 4);
    }
    if let Some(e) = &body.email {
        checks.max_len("email", e, EMAIL_MAX * 4);
    }
    checks.finish()?;
    let who = match body {
        PasswordResetRequest {
            username: Some(u),
            email: None,
        } => ResetFor::Username(u),
        PasswordResetRequest {
            username: None,
            email: Some(e),
        } => ResetFor::Email(e),
        _ => {
            return Err(ApiError::field(
                "body",
                "give exactly one of `username` and `email`",
            ));
        }
    };
    state
        .reset_ip_limiter
        .acquire(client_addr(&req, &state.config.trusted_proxies))
        .map_err(too_many)?;
    password_reset::request(&state.accounts(), who).await?;
    Ok(HttpResponse::Accepted().json(ResetRequested {
        status: "accepted".into(),
        detail: "If an account matches and its address is verified, a mail with a reset link \
                 is on its way."
            .into(),
    }))
}

/// A new password, set with a reset token.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"new_password": "battery staple horse"}))]
pub struct SetPasswordRequest {
    /// Same rules as at registration.
    #[schema(value_type = String, format = Password, min_length = 8, max_length = 128)]
    pub new_password: SecretString,
}

/// Set a new password with the token of a reset mail (no login).
///
/// The token works once, for an hour. Every login session and personal access token of
/// the account ends (log in again with the new password), and the owner gets a mail
/// saying the password was reset. A password the policy refuses is a `400` and leaves
/// the token usable.
#[utoipa::path(
    tag = "accounts",
    params(("token" = String, Path, description = "From the reset mail")),
    request_body = SetPasswordRequest,
    responses(
        (status = 200, description = "The password is set; what ended", body = PasswordChange),
        (status = 400, description = "The new password breaks the rules, or the body is \
            malformed", body = Problem, content_type = PROBLEM),
        (status = 404, description = "Not a valid token: unknown, used or expired", body = Problem,
            content_type = PROBLEM),
        (status = 413, description = "The body is too large", body = Problem, content_type = PROBLEM),
        (status = 503, description = "Too many password hashes at once; `Retry-After` says \
            when to try again", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/password-resets/{token}")]
pub async fn reset_password(
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonBody<SetPasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let changed = password_reset::reset(
        &state.accounts(),
        path.into_inner().into(),
        body.into_inner().new_password,
    )
    .await?;
    Ok(HttpResponse::Ok().json(PasswordChange {
        sessions_ended: changed.sessions_ended,
        personal_access_tokens_revoked: changed.tokens_revoked,
    }))
}
