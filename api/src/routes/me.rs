//! `GET /v1/me` and `PATCH /v1/me`: one's own profile, email and password change;
//! `DELETE /v1/me`: close the account; `GET /v1/me/export`: download one's data.

use actix_web::{HttpRequest, HttpResponse, delete, get, patch, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::accounts::User;
use crate::accounts::close::{self as close_case, Closing};
use crate::accounts::export as export_case;
use crate::accounts::profile::{self, ProfileChange};
use crate::auth::{Scope, SecretString};
use crate::error::{ApiError, Problem};
use crate::ids::UserId;
use crate::routes::caller::Authenticated;
use crate::routes::caller::client_addr;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_me)
        .service(patch_me)
        .service(close_account)
        .service(export_account);
}

/// An account as its owner sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "username": "alice",
    "email": "alice@example.org",
    "email_verified": true,
    "language": "fr",
    "time_zone": "Europe/Paris",
    "created_at": "2026-11-30T12:00:00Z",
    "updated_at": "2026-11-30T12:00:00Z"
}))]
pub struct Profile {
    #[schema(value_type = String)]
    pub id: UserId,
    pub username: String,
    pub email: String,
    /// Whether the owner confirmed `email` with the link mailed to it. Until then no
    /// notification mail goes there (the feed, webhooks and push are unaffected) and
    /// moves by mail are refused; `POST /v1/me/email-verification` sends the link again.
    pub email_verified: bool,
    /// The language of the account's pages, mails and problem titles (`en`, `fr`, `es`);
    /// `null`: they follow the browser's `Accept-Language`, mails are in English.
    pub language: Option<String>,
    /// The IANA time zone of the dates in the account's pages and mails; `null`: UTC.
    pub time_zone: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&User> for Profile {
    fn from(u: &User) -> Self {
        Profile {
            id: u.id.clone(),
            username: u.username.clone(),
            email: u.email.clone(),
            email_verified: u.email_verified_at.is_some(),
            language: u.language.clone(),
            time_zone: u.time_zone.clone(),
            created_at: u.created_at.and_utc(),
            updated_at: u.updated_at.and_utc(),
        }
    }
}

/// What a password change ended.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct PasswordChange {
    /// Other login sessions ended (their access and refresh tokens no longer work).
    pub sessions_ended: usize,
    /// Personal access tokens revoked.
    pub personal_access_tokens_revoked: usize,
}

/// The profile after a change; after a password change, also what it ended.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({
    "id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    "username": "alice",
    "email": "alice@example.org",
    "email_verified": true,
    "language": "fr",
    "time_zone": "Europe/Paris",
    "created_at": "2026-11-30T12:00:00Z",
    "updated_at": "2026-12-01T08:00:00Z",
    "password_changed": {"sessions_ended": 2, "personal_access_tokens_revoked": 1}
}))]
pub struct UpdatedProfile {
    #[serde(flatten)]
    pub profile: Profile,
    /// Present when the password was changed: every other login session has ended and
    /// every personal access token is revoked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_changed: Option<PasswordChange>,
}

/// Changes to one's account. Every field is optional, but one is needed; `email` and
/// `new_password` need the current password, `language` and `time_zone` do not. A new password ends
/// every other login session and revokes every personal access token.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "correct horse battery", "new_password": "battery staple horse"}))]
pub struct UpdateMeRequest {
    /// A new email address (as at registration); needs `current_password`. The new
    /// address is unverified until the link mailed to it is used.
    #[schema(
        min_length = 5,
        max_length = 254,
        pattern = "^\\s*[^@\\s\\x00-\\x1f\\x7f-\\x9f]+@[^@.\\s\\x00-\\x1f\\x7f-\\x9f][^@\\s\\x00-\\x1f\\x7f-\\x9f]*\\.[^@\\s\\x00-\\x1f\\x7f-\\x9f]*[^@.\\s\\x00-\\x1f\\x7f-\\x9f]\\s*$"
    )]
    pub email: Option<String>,
    /// Required with `email` or `new_password`.
    #[schema(value_type = Option<String>, format = Password, min_length = 1, max_length = 128)]
    pub current_password: Option<SecretString>,
    /// Same rules as at registration. Changing the password ends every other login
    /// session and revokes every personal access token.
    #[schema(value_type = Option<String>, format = Password, min_length = 8, max_length = 128)]
    pub new_password: Option<SecretString>,
    /// The language of pages, mails and problem titles: `en`, `fr` or `es`; `""` clears
    /// it (they then follow `Accept-Language`, mails are in English).
    #[schema(example = "fr", max_length = 35)]
    pub language: Option<String>,
    /// The time zone of dates in pages and mails, an IANA name (`Europe/Paris`,
    /// `America/Mexico_City`, `UTC`); `""` clears it (UTC).
    #[schema(example = "Europe/Paris", max_length = 64)]
    pub time_zone: Option<String>,
}

/// One's own profile.
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The caller's profile", body = Profile),
        (status = 403, description = "The token lacks the `read` scope", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/me")]
pub async fn get_me(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let user = profile::get(&state.accounts(), auth.user_id).await?;
    Ok(HttpResponse::Ok().json(Profile::from(&user)))
}

/// Change one's email or password (needs a login session, not a personal access token,
/// and the current password).
///
/// A password change ends every other login session of the account (their access and
/// refresh tokens stop working at once) and revokes every personal access token; the
/// session that made the change lives on. Wrong current passwords count against the
/// account's login limits.
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["session"])),
    request_body = UpdateMeRequest,
    responses(
        (status = 200, description = "The updated profile; after a password change every other \
            session has ended and every personal access token is revoked, as \
            `password_changed` says", body = UpdatedProfile),
        (status = 400, description = "A field is invalid, or the current password is wrong",
            body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this account (shared with \
            the login limit); `Retry-After` says when to try again", body = Problem,
            content_type = "application/problem+json"),
        (status = 503, description = "Too many password checks at once; `Retry-After` says \
            when to try again", body = Problem, content_type = "application/problem+json")
    )
)]
#[patch("/me")]
pub async fn patch_me(
    req: HttpRequest,
    state: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<UpdateMeRequest>,
) -> Result<HttpResponse, ApiError> {
    let session_id = auth.require_session()?.clone();
    let body = body.into_inner();
    let change = ProfileChange {
        user_id: auth.user_id.clone(),
        session_id,
        email: body.email,
        current_password: body.current_password,
        new_password: body.new_password,
        language: body.language,
        time_zone: body.time_zone,
        client: client_addr(&req, &state.config.trusted_proxies),
    };
    let updated = profile::update(&state.accounts(), change).await?;
    Ok(HttpResponse::Ok().json(UpdatedProfile {
        profile: Profile::from(&updated.user),
        password_changed: updated.password_changed.map(|c| PasswordChange {
            sessions_ended: c.sessions_ended,
            personal_access_tokens_revoked: c.tokens_revoked,
        }),
    }))
}

/// Closing the account: the current password, to be sure.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "correct horse battery"}))]
pub struct CloseAccountRequest {
    #[schema(value_type = String, format = Password, min_length = 1, max_length = 128)]
    pub current_password: SecretString,
}

/// What closing the account did.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[schema(example = json!({"closed": true, "games_resigned": 2, "seats_left": 1}))]
pub struct AccountClosed {
    /// Always `true`.
    pub closed: bool,
    /// Seats of games in progress resigned.
    pub games_resigned: usize,
    /// Seats of games not started left.
    pub seats_left: usize,
}

/// Close one's account (needs a login session and the current password).
///
/// At once: every login session, personal access token, webhook, notification setting,
/// queued mail and notification of the account ends. Each seat in a game in progress
/// resigns (the same command as `POST /v1/games/{id}/resignation`), each seat in a game
/// not started is left. Then the personal data is erased: the address, the password and
/// the name (the account's seats show `[deleted]`); finished games keep their logs. The
/// name cannot be registered again for 180 days. This cannot be undone.
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["session"])),
    request_body = CloseAccountRequest,
    responses(
        (status = 200, description = "The account is closed", body = AccountClosed),
        (status = 400, description = "The current password is wrong, or the body is malformed",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json"),
        (status = 413, description = "The body is too large", body = Problem,
            content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this account (shared with \
            the login limit); `Retry-After` says when to try again", body = Problem,
            content_type = "application/problem+json"),
        (status = 503, description = "Too many password checks at once; `Retry-After` says \
            when to try again", body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/me")]
pub async fn close_account(
    req: HttpRequest,
    state: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<CloseAccountRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let closing = Closing {
        user_id: auth.user_id.clone(),
        current_password: body.into_inner().current_password,
        client: client_addr(&req, &state.config.trusted_proxies),
    };
    let closed = close_case::close(&state.accounts(), state.game_ctx(), closing).await?;
    Ok(HttpResponse::Ok().json(AccountClosed {
        closed: true,
        games_resigned: closed.resigned,
        seats_left: closed.left,
    }))
}

/// Download one's data as one JSON document (needs a login session).
///
/// The account (name, address, whether verified), the notification settings, the live
/// login sessions, the live personal access tokens (without their secrets), the webhook
/// endpoints (without their signing secrets), the vacations, every game the account holds
/// a seat in with its record and players, the notifications of the feed (a `message`
/// item without the other player's text), the table-talk messages the account wrote
/// (`messages`, private ones included; not those others sent it), the players it muted
/// (`mutes`), the messages it reported (`message_reports`) and its Web Push
/// subscriptions (`push_subscriptions`, without the `auth` secret).
/// `format` names the version of this layout; the README describes it. Answered as an
/// attachment, never cached.
#[utoipa::path(
    tag = "me",
    security(("bearer" = ["session"])),
    responses(
        (status = 200, description = "The export (`Content-Disposition: attachment`)",
            body = Object, content_type = "application/json",
            example = json!({"format": "djambi-account-export/1", "exported_at": "2026-12-01T08:00:00Z",
                "account": {"id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11", "username": "alice",
                    "email": "alice@example.org", "email_verified": true,
                    "email_verified_at": "2026-11-30T12:10:00Z",
                    "created_at": "2026-11-30T12:00:00Z", "updated_at": "2026-11-30T12:10:00Z"},
                "notification_settings": {}, "sessions": [], "personal_access_tokens": [],
                "webhooks": [], "vacations": [],
                "games": [{"id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "kind": "played",
                    "status": "finished", "my_seats": ["R"], "record": "[Event \"Djambi correspondence game\"]\n..."}],
                "notifications": [],
                "messages": [{"id": "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d12",
                    "game_id": "5b3f2a4e-1c7d-4e55-9a0b-7f3e2d1c0b9a", "seq": 3, "seat": "R",
                    "to": ["B"], "text": "Leave my chief alone and I leave yours.",
                    "game_version": 17, "created_at": "2026-12-01T10:00:00Z", "hidden": false}],
                "mutes": [{"username": "mallory", "created_at": "2026-12-01T11:00:00Z"}],
                "message_reports": [], "push_subscriptions": []})),
        (status = 401, description = "Missing or invalid token", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "Called with a personal access token", body = Problem,
            content_type = "application/problem+json")
    )
)]
#[get("/me/export")]
pub async fn export_account(
    state: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let doc = export_case::export(
        &state.accounts(),
        state.game_ctx(),
        auth.user_id.clone(),
        state.config.public_url.as_str().to_string(),
    )
    .await?;
    let name = doc["account"]["username"]
        .as_str()
        .unwrap_or("account")
        .to_string();
    Ok(HttpResponse::Ok()
        .insert_header((
            actix_web::http::header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"djambi-export-{name}.json\""),
        ))
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(doc))
}
