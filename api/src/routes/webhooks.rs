//! Webhook endpoints: `POST/GET /v1/me/webhooks`, `DELETE /v1/me/webhooks/{id}`,
//! `POST /v1/me/webhooks/{id}/secret`, `GET /v1/me/webhooks/{id}/deliveries`.
//! See [`crate::notifications::webhooks`] for the signatures and the address rules.

use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::ids::WebhookId;
use crate::notifications::webhooks::{DeliveryRow, WebhookRow};
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_webhook)
        .service(list_webhooks)
        .service(delete_webhook)
        .service(rotate_secret)
        .service(list_deliveries);
}

const PROBLEM: &str = "application/problem+json";

/// A webhook endpoint (its secret is shown only when created or rotated).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11", "url": "https://example.org/djambi-hook",
    "enabled": true, "disabled_reason": null, "created_at": "2026-11-30T12:00:00Z",
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
}))]
pub struct WebhookView {
    #[schema(value_type = String)]
    pub id: WebhookId,
    pub url: String,
    /// `false` once disabled after failing repeatedly (register it again to resume).
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The signing secret (`whsec_` + base64), only in the answer that made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// After a rotation: until when the previous secret also signs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_secret_until: Option<DateTime<Utc>>,
}

impl WebhookView {
    fn of(w: &WebhookRow, with_secret: bool) -> WebhookView {
        WebhookView {
            id: w.id.clone(),
            url: w.url.clone(),
            enabled: w.disabled_at.is_none(),
            disabled_reason: w.disabled_reason.clone(),
            created_at: w.created_at.and_utc(),
            secret: with_secret.then(|| w.secret.clone()),
            previous_secret_until: w.previous_until.map(|t| t.and_utc()),
        }
    }
}

/// A new endpoint.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://example.org/djambi-hook"}))]
pub struct CreateWebhookRequest {
    /// An http:// or https:// URL whose host has public addresses (it must resolve when
    /// registered: a `400` otherwise).
    #[schema(format = "uri", min_length = 1, max_length = 2000)]
    pub url: String,
}

/// Register a webhook endpoint.
///
/// Every notification the settings send to webhooks is POSTed to it, signed as Standard
/// Webhooks specifies (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The
/// answer shows the secret once. At most 10 per user. Needs a login session.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "Registered; keep the secret", body = WebhookView),
        (status = 400, description = "Not an allowed URL", body = Problem, content_type = PROBLEM),
        (status = 409, description = "Too many endpoints", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/webhooks")]
pub async fn create_webhook(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<CreateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let row = app
        .notifications()
        .create_webhook(&auth.user_id, &body.into_inner().url)
        .await?;
    Ok(HttpResponse::Created().json(WebhookView::of(&row, true)))
}

/// My webhook endpoints.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The endpoints, oldest first", body = Vec<WebhookView>)
    )
)]
#[get("/me/webhooks")]
pub async fn list_webhooks(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let rows = app.notifications().webhooks(&auth.user_id).await?;
    let v: Vec<WebhookView> = rows.iter().map(|w| WebhookView::of(w, false)).collect();
    Ok(HttpResponse::Ok().json(v))
}

/// Delete a webhook endpoint (and its deliveries). Needs a login session.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    params(("id" = String, Path, format = "uuid", description = "The endpoint")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such endpoint of mine", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/me/webhooks/{id}")]
pub async fn delete_webhook(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let id = WebhookId::new(super::uuid_id(path.into_inner(), "webhook endpoint")?);
    app.notifications()
        .delete_webhook(&auth.user_id, &id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Rotate an endpoint's secret.
///
/// The answer shows the new secret once. For `DJAMBI_WEBHOOK_SECRET_GRACE` (default
/// 24 h) deliveries carry two signatures, by the new secret and by the previous one.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    params(("id" = String, Path, format = "uuid", description = "The endpoint")),
    responses(
        (status = 200, description = "The endpoint with its new secret", body = WebhookView),
        (status = 404, description = "No such endpoint of mine", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/webhooks/{id}/secret")]
pub async fn rotate_secret(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let id = WebhookId::new(super::uuid_id(path.into_inner(), "webhook endpoint")?);
    let row = app
        .notifications()
        .rotate_webhook_secret(&auth.user_id, &id)
        .await?;
    Ok(HttpResponse::Ok().json(WebhookView::of(&row, true)))
}

/// One delivery to an endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: String,
    /// The notification (= the `webhook-id` header).
    pub notification_id: String,
    pub kind: String,
    /// `pending`, `delivered` or `dead`.
    pub status: String,
    pub attempts: i32,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    /// The HTTP status of the last attempt.
    pub last_status: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

impl DeliveryView {
    fn of(d: &DeliveryRow, kind: String) -> DeliveryView {
        DeliveryView {
            id: d.id.clone(),
            notification_id: d.notification_id.clone(),
            kind,
            status: d.status.clone(),
            attempts: d.attempts,
            next_attempt_at: (d.status == "pending").then(|| d.next_attempt_at.and_utc()),
            last_error: d.last_error.clone(),
            last_status: d.last_status,
            created_at: d.created_at.and_utc(),
            delivered_at: d.delivered_at.map(|t| t.and_utc()),
        }
    }
}

/// The 50 most recent deliveries to an endpoint, newest first.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    params(("id" = String, Path, format = "uuid", description = "The endpoint")),
    responses(
        (status = 200, description = "Recent deliveries", body = Vec<DeliveryView>),
        (status = 404, description = "No such endpoint of mine", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/me/webhooks/{id}/deliveries")]
pub async fn list_deliveries(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let id = WebhookId::new(super::uuid_id(path.into_inner(), "webhook endpoint")?);
    let rows = app
        .notifications()
        .webhook_deliveries(&auth.user_id, &id)
        .await?;
    let v: Vec<DeliveryView> = rows
        .into_iter()
        .map(|(d, kind)| DeliveryView::of(&d, kind))
        .collect();
    Ok(HttpResponse::Ok().json(v))
}
