//! Each user's notification settings: which kinds go to which channel, the reminder
//! offsets, and the daily e-mail digest. Stored as one JSON document per user
//! (`notification_settings`); a user without a row has [`NotificationSettings::default`].

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::KINDS;
use crate::error::{ApiError, FieldError};
use crate::store::DbConnection;
use crate::store::StoreError;
use crate::store::schema::notification_settings;

/// The longest reminder offset (seconds) and how many offsets a user may have.
pub const MAX_REMINDER_OFFSET_SECS: i64 = 30 * 86_400;
pub const MAX_REMINDERS: usize = 4;

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
}

fn yes() -> bool {
    true
}

/// A user's notification settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "kinds": {
        "your_turn": {"feed": true, "email": true, "webhook": true},
        "reminder": {"feed": true, "email": true, "webhook": true},
        "timeout": {"feed": true, "email": true, "webhook": true},
        "chief_killed": {"feed": true, "email": false, "webhook": true},
        "seat_eliminated": {"feed": true, "email": false, "webhook": true},
        "game_started": {"feed": true, "email": false, "webhook": true},
        "game_ended": {"feed": true, "email": true, "webhook": true},
        "draw_offered": {"feed": true, "email": true, "webhook": true}
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
    vec![86_400, 3_600]
}

/// The default channels of a kind: the feed and webhooks always; mail for what asks
/// the player to act or ends a game.
pub fn default_channels(kind: &str) -> KindChannels {
    let email = matches!(
        kind,
        "your_turn" | "reminder" | "timeout" | "game_ended" | "draw_offered" | "webhook_disabled"
    );
    KindChannels {
        feed: true,
        email,
        webhook: kind != "webhook_disabled",
    }
}

impl Default for NotificationSettings {
    fn default() -> Self {
        NotificationSettings {
            kinds: KINDS
                .iter()
                .map(|k| (k.to_string(), default_channels(k)))
                .collect(),
            reminder_offsets_secs: default_offsets(),
            email_digest: false,
        }
    }
}

impl NotificationSettings {
    /// The channels of a kind (kinds outside the settings have their defaults).
    pub fn channels(&self, kind: &str) -> KindChannels {
        self.kinds
            .get(kind)
            .copied()
            .unwrap_or_else(|| default_channels(kind))
    }

    /// Checks a document sent by a client and completes it (missing kinds, sorted offsets).
    pub fn checked(mut self) -> Result<NotificationSettings, ApiError> {
        let mut errors = Vec::new();
        for (kind, ch) in &self.kinds {
            if !KINDS.contains(&kind.as_str()) {
                errors.push(FieldError::new(
                    format!("kinds.{kind}"),
                    format!("unknown kind (known: {})", KINDS.join(", ")),
                ));
            } else if !ch.feed {
                errors.push(FieldError::new(
                    format!("kinds.{kind}.feed"),
                    "the feed is always on",
                ));
            }
        }
        if self.reminder_offsets_secs.len() > MAX_REMINDERS {
            errors.push(FieldError::new(
                "reminder_offsets_secs",
                format!("at most {MAX_REMINDERS} reminders"),
            ));
        }
        if self
            .reminder_offsets_secs
            .iter()
            .any(|s| !(60..=MAX_REMINDER_OFFSET_SECS).contains(s))
        {
            errors.push(FieldError::new(
                "reminder_offsets_secs",
                format!("each must be 60 to {MAX_REMINDER_OFFSET_SECS} seconds"),
            ));
        }
        if !errors.is_empty() {
            return Err(ApiError::fields(errors));
        }
        for k in KINDS {
            self.kinds
                .entry(k.to_string())
                .or_insert_with(|| default_channels(k));
        }
        self.reminder_offsets_secs.sort_unstable_by(|a, b| b.cmp(a));
        self.reminder_offsets_secs.dedup();
        Ok(self)
    }
}

/// A user's settings (the defaults when none were saved).
pub fn load(conn: &mut DbConnection, user: &str) -> Result<NotificationSettings, StoreError> {
    let text: Option<String> = notification_settings::table
        .find(user)
        .select(notification_settings::settings)
        .first(conn)
        .optional()?;
    Ok(text
        .and_then(|t| serde_json::from_str::<NotificationSettings>(&t).ok())
        .and_then(|s| s.checked().ok())
        .unwrap_or_default())
}

/// Saves a user's settings (checked by the caller).
pub fn save(
    conn: &mut DbConnection,
    user: &str,
    settings: &NotificationSettings,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(settings).unwrap_or_default();
    let n = diesel::update(notification_settings::table.find(user))
        .set((
            notification_settings::settings.eq(&text),
            notification_settings::updated_at.eq(at),
        ))
        .execute(conn)?;
    if n == 0 {
        diesel::insert_into(notification_settings::table)
            .values((
                notification_settings::user_id.eq(user),
                notification_settings::settings.eq(&text),
                notification_settings::updated_at.eq(at),
            ))
            .execute(conn)?;
    }
    Ok(())
}
