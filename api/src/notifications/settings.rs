//! Each user's notification settings: which kinds go to which channel, the reminder
//! offsets, and the daily e-mail digest. Stored as one JSON document per user
//! (`notification_settings`); a user without a row has [`NotificationSettings::default`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{KINDS, NotificationError, Notifications};
use crate::ids::UserId;
use crate::store::{self, DbConnection, StoreError};

/// The longest reminder offset (seconds) and how many offsets a user may have.
pub const MAX_REMINDER_OFFSET_SECS: i64 = 30 * 86_400;
pub const MAX_REMINDERS: usize = 4;

/// Where one kind of notification goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
    /// desktops). Absent (a PUT, a document saved before push existed): the kind's
    /// default; always present once [`NotificationSettings::checked`].
    #[serde(default = "no_push")]
    pub push: Option<bool>,
}

impl KindChannels {
    /// Whether pushes go out for the kind.
    pub fn push_on(&self) -> bool {
        self.push.unwrap_or(false)
    }
}

fn no_push() -> Option<bool> {
    None
}

fn yes() -> bool {
    true
}

/// A user's notification settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// The default channels of a kind: the feed and webhooks always; mail and push for what
/// asks the player to act or ends a game, and for an event's news that concerns the
/// player's own play (a round paired, the event's end or cancellation; not its start,
/// which the round's mail announces); push also for table talk.
pub fn default_channels(kind: &str) -> KindChannels {
    let email = matches!(
        kind,
        "your_turn"
            | "reminder"
            | "timeout"
            | "game_ended"
            | "draw_offered"
            | "webhook_disabled"
            | "tournament_round"
            | "tournament_finished"
            | "tournament_cancelled"
    );
    KindChannels {
        feed: true,
        email,
        webhook: kind != "webhook_disabled",
        push: Some(email || kind == "message"),
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
    pub fn checked(mut self) -> Result<NotificationSettings, NotificationError> {
        let mut errors = Vec::new();
        for (kind, ch) in &self.kinds {
            if !KINDS.contains(&kind.as_str()) {
                errors.push((
                    format!("kinds.{kind}"),
                    format!("unknown kind (known: {})", KINDS.join(", ")),
                ));
            } else if !ch.feed {
                errors.push((format!("kinds.{kind}.feed"), "the feed is always on".into()));
            }
        }
        if self.reminder_offsets_secs.len() > MAX_REMINDERS {
            errors.push((
                "reminder_offsets_secs".into(),
                format!("at most {MAX_REMINDERS} reminders"),
            ));
        }
        if self
            .reminder_offsets_secs
            .iter()
            .any(|s| !(60..=MAX_REMINDER_OFFSET_SECS).contains(s))
        {
            errors.push((
                "reminder_offsets_secs".into(),
                format!("each must be 60 to {MAX_REMINDER_OFFSET_SECS} seconds"),
            ));
        }
        if !errors.is_empty() {
            return Err(NotificationError::Invalid(errors));
        }
        for k in KINDS {
            self.kinds
                .entry(k.to_string())
                .or_insert_with(|| default_channels(k));
        }
        for (k, ch) in self.kinds.iter_mut() {
            ch.push = ch.push.or(default_channels(k).push);
        }
        self.reminder_offsets_secs.sort_unstable_by(|a, b| b.cmp(a));
        self.reminder_offsets_secs.dedup();
        Ok(self)
    }
}

/// A user's settings (the defaults when none were saved, or when the saved document no
/// longer passes the checks).
pub fn load(conn: &mut DbConnection, user: &UserId) -> Result<NotificationSettings, StoreError> {
    Ok(store::settings::load(conn, user)?
        .map(|t| parse(&t))
        .unwrap_or_default())
}

/// A saved document read back (the defaults if it no longer reads or checks).
pub fn parse(text: &str) -> NotificationSettings {
    serde_json::from_str::<NotificationSettings>(text)
        .ok()
        .and_then(|s| s.checked().ok())
        .unwrap_or_default()
}

/// Saves a user's settings (checked by the caller).
pub fn save(
    conn: &mut DbConnection,
    user: &UserId,
    settings: &NotificationSettings,
    at: chrono::NaiveDateTime,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(settings).unwrap_or_default();
    store::settings::save(conn, user, &text, at)
}

impl Notifications<'_> {
    /// `GET /v1/me/notification-settings`: the user's settings.
    pub async fn settings(&self, user: &UserId) -> Result<NotificationSettings, NotificationError> {
        let user = user.clone();
        Ok(store::run(self.pool, move |conn| load(conn, &user)).await?)
    }

    /// `PUT /v1/me/notification-settings`: checks, completes and saves; answers what was
    /// saved.
    pub async fn replace_settings(
        &self,
        user: &UserId,
        settings: NotificationSettings,
    ) -> Result<NotificationSettings, NotificationError> {
        let settings = settings.checked()?;
        let (user, at, saved) = (user.clone(), self.clock.now(), settings.clone());
        store::run(self.pool, move |conn| save(conn, &user, &saved, at)).await?;
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README names the kinds that mail by default; it must name exactly those.
    #[test]
    fn the_readme_lists_the_default_mail_kinds() {
        let readme = include_str!("../../../README.md");
        let marker = "Defaults: webhooks get every kind; mail goes for ";
        let start = readme
            .find(marker)
            .expect("the README names the mail defaults")
            + marker.len();
        let rest = &readme[start..];
        let documented = listed(&rest[..rest.find('.').unwrap()]);
        assert_eq!(
            documented,
            kinds_where(&KINDS, |k| default_channels(k).email)
        );
    }

    /// The kinds a README list names (comma-separated), sorted.
    fn listed(list: &str) -> Vec<String> {
        let mut kinds: Vec<String> = list
            .split(',')
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect();
        kinds.sort();
        kinds
    }

    /// The kinds of `kinds` whose defaults `on` accepts, sorted.
    fn kinds_where(kinds: &[&str], on: impl Fn(&str) -> bool) -> Vec<String> {
        let mut chosen: Vec<String> = kinds
            .iter()
            .filter(|k| on(k))
            .map(|k| k.to_string())
            .collect();
        chosen.sort();
        chosen
    }

    /// Every kind's defaults, as the README and the settings page describe them.
    #[test]
    fn the_tournament_kinds_have_their_defaults() {
        assert_eq!(KINDS.len(), 15);
        let all = NotificationSettings::default();
        for k in KINDS {
            assert!(all.kinds.contains_key(k), "{k}");
        }
        for k in [
            "tournament_round",
            "tournament_finished",
            "tournament_cancelled",
        ] {
            let ch = default_channels(k);
            assert!(
                ch.feed && ch.email && ch.webhook && ch.push_on(),
                "{k}: {ch:?}"
            );
        }
        let started = default_channels("tournament_started");
        assert!(started.feed && started.webhook, "{started:?}");
        assert!(!started.email && !started.push_on(), "{started:?}");
        // A document saved before the kinds existed gets them with their defaults.
        let old: NotificationSettings =
            serde_json::from_str(r#"{"kinds": {"your_turn": {"email": false, "webhook": true}}}"#)
                .unwrap();
        let checked = old.checked().unwrap();
        assert_eq!(
            checked.channels("tournament_round"),
            default_channels("tournament_round")
        );
        assert!(!checked.channels("your_turn").email);
    }

    /// The README names the kinds that push by default; it must name exactly those.
    #[test]
    fn the_readme_lists_the_default_push_kinds() {
        let readme = include_str!("../../../README.md");
        let start = readme
            .find("`push` channel is on (default: ")
            .expect("the README names the push defaults");
        let rest = &readme[start..];
        let documented = listed(&rest[rest.find(": ").unwrap() + 2..rest.find(')').unwrap()]);
        // `webhook_disabled` is not a setting's kind, but goes out by its defaults.
        let mut kinds = KINDS.to_vec();
        kinds.push("webhook_disabled");
        assert_eq!(
            documented,
            kinds_where(&kinds, |k| default_channels(k).push_on())
        );
    }
}
