//! Web Push: `POST/GET /v1/me/push-subscriptions`, `DELETE /v1/me/push-subscriptions/{id}`
//! and `GET /v1/push/vapid-public-key`. See [`crate::notifications::push`].

use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::ids::PushSubscriptionId;
use crate::notifications::push::PushSubscriptionRow;
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(vapid_public_key)
        .service(create_subscription)
        .service(list_subscriptions)
        .service(delete_subscription);
}

const PROBLEM: &str = "application/problem+json";

/// The server's VAPID public key.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"public_key": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U"}))]
pub struct VapidPublicKey {
    /// The uncompressed P-256 point, base64url: the `applicationServerKey` of
    /// `PushManager.subscribe`.
    pub public_key: String,
}

/// The server's VAPID public key (the application server key browsers subscribe with).
#[utoipa::path(
    tag = "notifications",
    responses(
        (status = 200, description = "The key", body = VapidPublicKey),
        (status = 404, description = "Web Push is not enabled on this server", body = Problem, content_type = PROBLEM)
    )
)]
#[get("/push/vapid-public-key")]
pub async fn vapid_public_key(app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let key = app.notifications().vapid_public_key()?;
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "public, max-age=300"))
        .json(VapidPublicKey { public_key: key }))
}

/// The keys of a browser's subscription.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PushKeys {
    /// The browser's P-256 public key, base64url (65 bytes decoded).
    #[schema(min_length = 1, max_length = 200)]
    pub p256dh: String,
    /// The browser's authentication secret, base64url (16 bytes decoded).
    #[schema(min_length = 1, max_length = 200)]
    pub auth: String,
}

/// A browser's `PushSubscription`, as `JSON.stringify(subscription)` gives it
/// (`expirationTime` and other members are ignored).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({
    "endpoint": "https://fcm.googleapis.com/fcm/send/c1KrmpTuRm0:APA91bE",
    "keys": {
        "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
        "auth": "tBHItJI5svbpez7KI4CCXg"
    }
}))]
pub struct CreatePushSubscription {
    /// The push service's URL for this browser: https on a known push service, else a
    /// URL the webhook rules allow.
    #[schema(format = "uri", min_length = 1, max_length = 2000)]
    pub endpoint: String,
    pub keys: PushKeys,
}

/// A device that receives pushes.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "endpoint": "https://fcm.googleapis.com/fcm/send/c1KrmpTuRm0:APA91bE",
    "created_at": "2026-12-01T12:00:00Z"
}))]
pub struct PushSubscriptionView {
    #[schema(value_type = String)]
    pub id: PushSubscriptionId,
    pub endpoint: String,
    pub created_at: DateTime<Utc>,
}

impl PushSubscriptionView {
    fn of(s: &PushSubscriptionRow) -> PushSubscriptionView {
        PushSubscriptionView {
            id: s.id.clone(),
            endpoint: s.endpoint.clone(),
            created_at: s.created_at.and_utc(),
        }
    }
}

/// Register this browser for push notifications.
///
/// Send the browser's `PushSubscription` (subscribed with the key of
/// `GET /v1/push/vapid-public-key`). Notifications whose `push` channel is on in the
/// settings go to every device of the account. `201` when new, `200` when the endpoint
/// was already mine (its keys renewed). At most 20 per user. Needs a login session.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    request_body = CreatePushSubscription,
    responses(
        (status = 201, description = "Registered", body = PushSubscriptionView),
        (status = 200, description = "Already registered; keys renewed", body = PushSubscriptionView),
        (status = 400, description = "Not an allowed endpoint, or bad keys", body = Problem, content_type = PROBLEM),
        (status = 404, description = "Web Push is not enabled on this server", body = Problem, content_type = PROBLEM),
        (status = 409, description = "Too many subscriptions", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/me/push-subscriptions")]
pub async fn create_subscription(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<CreatePushSubscription>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let b = body.into_inner();
    let (row, new) = app
        .notifications()
        .subscribe_push(&auth.user_id, &b.endpoint, &b.keys.p256dh, &b.keys.auth)
        .await?;
    let view = PushSubscriptionView::of(&row);
    Ok(if new {
        HttpResponse::Created().json(view)
    } else {
        HttpResponse::Ok().json(view)
    })
}

/// My devices that receive pushes.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The subscriptions, oldest first", body = Vec<PushSubscriptionView>)
    )
)]
#[get("/me/push-subscriptions")]
pub async fn list_subscriptions(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let rows = app
        .notifications()
        .push_subscriptions(&auth.user_id)
        .await?;
    let v: Vec<PushSubscriptionView> = rows.iter().map(PushSubscriptionView::of).collect();
    Ok(HttpResponse::Ok().json(v))
}

/// Stop pushes to a device.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    params(("id" = String, Path, format = "uuid", description = "The subscription")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such subscription of mine", body = Problem, content_type = PROBLEM)
    )
)]
#[delete("/me/push-subscriptions/{id}")]
pub async fn delete_subscription(
    app: web::Data<AppState>,
    auth: Authenticated,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let id = PushSubscriptionId::new(super::uuid_id(path.into_inner(), "push subscription")?);
    app.notifications()
        .delete_push_subscription(&auth.user_id, &id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
