//! `POST /v1/unsubscribe/{token}`: the one-click unsubscribe of notification mails
//! (RFC 8058), without logging in; `GET` shows a page with a button that does the same.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, Problem};
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(unsubscribe).service(unsubscribe_page);
}

const PROBLEM: &str = "application/problem+json";

#[derive(Debug, Serialize, ToSchema)]
pub struct Unsubscribed {
    /// Mail is now off for every kind of notification.
    pub unsubscribed: bool,
}

/// Stop notification mails (one click, no login).
///
/// The token comes from the `List-Unsubscribe` header of a notification mail. Turns
/// e-mail off for every kind; the feed and webhooks stay as they are.
#[utoipa::path(
    tag = "notifications",
    params(("token" = String, Path, description = "From the mail's List-Unsubscribe link")),
    responses(
        (status = 200, description = "Unsubscribed", body = Unsubscribed),
        (status = 404, description = "Not a valid link", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/unsubscribe/{token}")]
pub async fn unsubscribe(
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    app.notifications().unsubscribe(&path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(Unsubscribed { unsubscribed: true }))
}

/// A page with a button to stop notification mails.
#[utoipa::path(
    tag = "notifications",
    params(("token" = String, Path, description = "From the mail's List-Unsubscribe link")),
    responses(
        (status = 200, description = "A page with the button", content_type = "text/html", body = String),
        (status = 404, description = "Not a valid link", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/unsubscribe/{token}")]
pub async fn unsubscribe_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = path.into_inner();
    let reader = app.notifications().unsubscriber(&token).await?;
    // The page is the account's: its language preference, else the browser's.
    let lang = super::language::of_request(&req, reader.language.as_deref());
    let text = |id: &str| super::web::page::escape_html(&crate::i18n::t(lang, id));
    let html = format!(
        "<!doctype html><html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{}</title></head>\
         <body><form method=\"post\" action=\"/v1/unsubscribe/{token}\">\
         <p>{}</p><button>{}</button></form></body></html>",
        lang.code(),
        text("unsubscribe-title"),
        text("unsubscribe-question"),
        text("unsubscribe-button"),
    );
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CONTENT_LANGUAGE, lang.code()))
        .insert_header((header::VARY, "Accept-Language"))
        .body(html))
}
