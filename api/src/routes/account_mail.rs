//! The mailed links of accounts: `POST /v1/me/email-verification` (send the
//! verification mail again), `POST /v1/email-verification/{token}` (confirm an address,
//! no login; `GET` shows a page with a button that does it, so that a mail scanner
//! following the link confirms nothing).

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts::verification;
use crate::auth::Authenticated;
use crate::error::{ApiError, Problem};
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(resend_verification)
        .service(confirm_email)
        .service(confirm_email_page);
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
/// one it was sent to.
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
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let user = verification::confirm(&state.accounts(), path.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(EmailVerified {
        email_verified: true,
        email: user.email,
    }))
}

/// A page with the button that confirms the address (what the mail links to).
#[utoipa::path(
    tag = "accounts",
    params(("token" = String, Path, description = "From the verification mail's link")),
    responses(
        (status = 200, description = "A page with the button", content_type = "text/html", body = String)
    )
)]
#[get("/email-verification/{token}")]
pub async fn confirm_email_page(path: web::Path<String>) -> HttpResponse {
    let token: String = path
        .into_inner()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(200)
        .collect();
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Djambi: confirm your address</title></head>\
         <body><form method=\"post\" action=\"/v1/email-verification/{token}\">\
         <p>Confirm that this address is yours?</p><button>Confirm</button></form></body></html>"
    );
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .body(html)
}
