//! `GET/PUT /v1/me/notification-settings`: which kinds of notification go to which
//! channel, reminder offsets and the daily digest (see [`crate::notifications::settings`]).

use std::collections::BTreeMap;

use actix_web::{HttpResponse, get, put, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::Scope;
use crate::error::{ApiError, Problem};
use crate::notifications::settings as plain;
use crate::routes::caller::Authenticated;
use crate::routes::json_body::JsonBody;
use crate::state::AppState;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_settings).service(put_settings);
}

const PROBLEM: &str = "application/problem+json";

/// Where one kind of notification goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KindChannels {
    /// The in-app feed and its stream: always on (`false` is refused).
    #[serde(default = "yes")]
    pub feed: bool,
    /// A mail per notification (or in the daily digest when `email_digest` is on).
    pub email: bool,
    /// A POST to each of the user's enabled webhooks.
    pub webhook: bool,
    /// A Web Push notification to each of the user's subscribed devices (phones,
    /// desktops, see `POST /v1/me/push-subscriptions`). Absent in a PUT: the kind's
    /// default; always present in answers.
    #[serde(default = "no_push")]
    pub push: Option<bool>,
}

fn no_push() -> Option<bool> {
    None
}

fn yes() -> bool {
    true
}

/// A user's notification settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "kinds": {
        "your_turn": {"feed": true, "email": true, "webhook": true, "push": true},
        "reminder": {"feed": true, "email": true, "webhook": true, "push": true},
        "timeout": {"feed": true, "email": true, "webhook": true, "push": true},
        "chief_killed": {"feed": true, "email": false, "webhook": true, "push": false},
        "seat_eliminated": {"feed": true, "email": false, "webhook": true, "push": false},
        "game_started": {"feed": true, "email": false, "webhook": true, "push": false},
        "game_ended": {"feed": true, "email": true, "webhook": true, "push": true},
        "draw_offered": {"feed": true, "email": true, "webhook": true, "push": true},
        "message": {"feed": true, "email": false, "webhook": true, "push": true},
        "conditional_played": {"feed": true, "email": false, "webhook": true, "push": false},
        "conditional_discarded": {"feed": true, "email": false, "webhook": true, "push": false},
        "tournament_started": {"feed": true, "email": false, "webhook": true, "push": false},
        "tournament_round": {"feed": true, "email": true, "webhook": true, "push": true},
        "tournament_finished": {"feed": true, "email": true, "webhook": true, "push": true},
        "tournament_cancelled": {"feed": true, "email": true, "webhook": true, "push": true}
    },
    "reminder_offsets_secs": [86400, 3600],
    "email_digest": false
}))]
pub struct NotificationSettings {
    /// Channels per kind (every kind; kinds left out of a PUT get their defaults).
    #[serde(default)]
    pub kinds: BTreeMap<String, KindChannels>,
    /// Reminders before a deadline, in seconds before it (at most 4, 60 s to 30 days;
    /// default 24 h and 1 h). `[]`: no reminders.
    #[serde(default = "default_offsets")]
    pub reminder_offsets_secs: Vec<i64>,
    /// `true`: instead of a mail per item, one mail a day collecting the day's items.
    #[serde(default)]
    pub email_digest: bool,
}

fn default_offsets() -> Vec<i64> {
    plain::NotificationSettings::default().reminder_offsets_secs
}

impl From<plain::NotificationSettings> for NotificationSettings {
    fn from(s: plain::NotificationSettings) -> Self {
        NotificationSettings {
            kinds: s
                .kinds
                .into_iter()
                .map(|(k, c)| {
                    let c = KindChannels {
                        feed: c.feed,
                        email: c.email,
                        webhook: c.webhook,
                        push: c.push,
                    };
                    (k, c)
                })
                .collect(),
            reminder_offsets_secs: s.reminder_offsets_secs,
            email_digest: s.email_digest,
        }
    }
}

impl From<NotificationSettings> for plain::NotificationSettings {
    fn from(s: NotificationSettings) -> Self {
        plain::NotificationSettings {
            kinds: s
                .kinds
                .into_iter()
                .map(|(k, c)| {
                    let c = plain::KindChannels {
                        feed: c.feed,
                        email: c.email,
                        webhook: c.webhook,
                        push: c.push,
                    };
                    (k, c)
                })
                .collect(),
            reminder_offsets_secs: s.reminder_offsets_secs,
            email_digest: s.email_digest,
        }
    }
}

/// My notification settings.
///
/// Per kind: `feed` (always on), `email` and `webhook`; the reminder offsets before a
/// deadline; and whether mail comes as one daily digest.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["read"])),
    responses(
        (status = 200, description = "The settings (defaults until changed)", body = NotificationSettings)
    )
)]
#[get("/me/notification-settings")]
pub async fn get_settings(
    app: web::Data<AppState>,
    auth: Authenticated,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::Read)?;
    let s = app.notifications().settings(&auth.user_id).await?;
    Ok(HttpResponse::Ok().json(NotificationSettings::from(s)))
}

/// Replace my notification settings.
///
/// Kinds left out get their defaults; `feed: false` is refused (the feed is always on).
/// Needs a login session.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["session"])),
    request_body = NotificationSettings,
    responses(
        (status = 200, description = "The settings as saved", body = NotificationSettings),
        (status = 400, description = "An unknown kind, `feed: false` or a bad offset", body = Problem, content_type = PROBLEM)
    )
)]
#[put("/me/notification-settings")]
pub async fn put_settings(
    app: web::Data<AppState>,
    auth: Authenticated,
    body: JsonBody<NotificationSettings>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let saved = app
        .notifications()
        .replace_settings(&auth.user_id, body.into_inner().into())
        .await?;
    Ok(HttpResponse::Ok().json(NotificationSettings::from(saved)))
}
