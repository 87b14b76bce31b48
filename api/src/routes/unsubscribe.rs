//! `POST /v1/unsubscribe/{token}`: the one-click unsubscribe of notification mails
//! (RFC 8058), without logging in; `GET` shows a page with a button that does the same.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, Problem};
use crate::notifications::email::check_unsubscribe_token;
use crate::notifications::settings;
use crate::state::AppState;
use crate::store;
use crate::store::StoreError;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(unsubscribe).service(unsubscribe_page);
}

const PROBLEM: &str = "application/problem+json";

#[derive(Debug, Serialize, ToSchema)]
pub struct Unsubscribed {
    /// Mail is now off for every kind of notification.
    pub unsubscribed: bool,
}

fn user_of(app: &AppState, token: &str) -> Result<String, ApiError> {
    check_unsubscribe_token(app.config.jwt_secret.expose(), token)
        .ok_or_else(|| ApiError::NotFound("no such unsubscribe link".into()))
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
    let user = user_of(&app, &path.into_inner())?;
    let at = app.clock.now();
    store::run(&app.pool, move |conn| {
        store::transaction(conn, |conn| {
            let mut s = settings::load(conn, &user)?;
            for ch in s.kinds.values_mut() {
                ch.email = false;
            }
            s.email_digest = false;
            settings::save(conn, &user, &s, at)
        })
    })
    .await
    .map_err(|e: StoreError| ApiError::from(e))?;
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
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = path.into_inner();
    user_of(&app, &token)?;
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Djambi: stop mails</title></head>\
         <body><form method=\"post\" action=\"/v1/unsubscribe/{token}\">\
         <p>Stop all notification mails from Djambi?</p><button>Unsubscribe</button></form></body></html>"
    );
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .body(html))
}
