//! The delivery queue: notifications sent outside the app (webhooks, e-mail), with
//! retries, exponential back-off and a dead letter. This module holds its decisions over
//! the store (fan-out, loading claimed jobs, recording outcomes) and the webhook body;
//! the loop that claims and sends is [`crate::workers::delivery`].
//!
//! The notification row is the durable outbox item (written with its events, on both
//! write paths). A worker in every server process:
//!
//! 1. **fans out** new notifications (`fanned_out_at IS NULL`): in one transaction it
//!    locks a batch (`FOR UPDATE SKIP LOCKED` on PostgreSQL), inserts one `deliveries`
//!    row per channel and endpoint the user's settings ask for (stable ids: notification,
//!    channel, endpoint) and marks the notifications fanned out. A crash before the commit
//!    leaves the notifications to fan out again; nothing pending is lost;
//! 2. **claims** due deliveries (`status = 'pending' AND next_attempt_at <= now`) for a
//!    lease, like the due-work worker ([`crate::workers::due`]): `UPDATE .. WHERE id IN
//!    (SELECT .. FOR UPDATE SKIP LOCKED) RETURNING id`, so several instances share the
//!    work and each delivery is attempted by one instance at a time;
//! 3. **sends** them (outside any transaction) and **records** each outcome as soon as it
//!    finishes, guarded by its lease: delivered; or failed, to be tried again after
//!    `backoff * 2^(attempts-1)` (at most `backoff_max`), or after the `Retry-After` of a
//!    429 or 503 answer (at most `backoff_max` too); or dead after `max_attempts`.
//!
//! Sending is a continuous stream under bounds, not rounds: two lanes (HTTP: webhooks and
//! Web Push; mail: mails and digests), each claimed and sent on its own with its own number
//! of places (`DJAMBI_DELIVERY_CONCURRENCY`, `DJAMBI_MAIL_CONCURRENCY`), claiming more as
//! places free; at most `DJAMBI_DELIVERY_PER_ENDPOINT` attempts in flight per endpoint (a
//! webhook endpoint, a push subscription, a mail address), whose further deliveries are
//! left out of the claims meanwhile; short connect and first-byte timeouts
//! (`DJAMBI_WEBHOOK_CONNECT_TIMEOUT`, `DJAMBI_WEBHOOK_FIRST_BYTE_TIMEOUT`). A receiver that
//! accepts connections and never answers thus holds its own places only, for the
//! first-byte timeout, and is tried again after its back-off; everyone else's deliveries
//! go on.
//!
//! A webhook endpoint that fails `webhook_disable_after` attempts in a row is disabled:
//! its pending deliveries die and its owner gets a `webhook_disabled` notification.
//!
//! Delivery is at least once: an instance that dies after sending and before recording
//! sends again when the lease runs out. Receivers de-duplicate by `webhook-id`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{NaiveDateTime, TimeDelta};
use serde_json::json;

use super::config::NotifyConfig;
use super::email::{self, Mail, MailContext};
use super::feed::FeedItem;
use super::push::{self, PushSubscriptionRow};
use super::webhooks::WebhookRow;
use super::{settings, stable_id};
use crate::ids::{PushSubscriptionId, UserId, WebhookId};
use crate::store::outbox::{NotificationRow, account_mail};
use crate::store::{self, DbConnection, StoreError};

/// Notifications fanned out, and deliveries claimed, per statement.
pub const BATCH: i64 = 100;
/// Longest error text kept.
const MAX_ERROR: usize = 500;

pub use crate::store::deliveries::DeliveryRow;

/// What the workers of this process did (read them for metrics).
#[derive(Debug, Default)]
pub struct Counters {
    pub fanned_out: AtomicU64,
    pub created: AtomicU64,
    pub claimed: AtomicU64,
    pub delivered: AtomicU64,
    pub failed: AtomicU64,
    pub dead: AtomicU64,
    pub disabled_endpoints: AtomicU64,
}

impl Counters {
    pub fn add(c: &AtomicU64, n: usize) {
        c.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// The wait after the `attempts`-th failed attempt.
pub fn backoff(cfg: &NotifyConfig, attempts: u32) -> Duration {
    let factor = 1u32 << attempts.saturating_sub(1).min(20);
    cfg.backoff.saturating_mul(factor).min(cfg.backoff_max)
}

/// The wait after the `attempts`-th failed attempt: what the receiver asked for
/// (`Retry-After`), bounded by `backoff_max`; else the back-off.
pub fn wait_after(cfg: &NotifyConfig, attempts: u32, asked: Option<Duration>) -> Duration {
    match asked {
        Some(asked) => asked.min(cfg.backoff_max),
        None => backoff(cfg, attempts),
    }
}

pub fn delta(d: Duration) -> TimeDelta {
    TimeDelta::from_std(d).unwrap_or(TimeDelta::MAX)
}

/// The wait a `Retry-After` value asks for at `now` (RFC 9110, section 10.2.3): delay
/// seconds, or an HTTP-date (a date in the past: no wait). `None` when it is neither.
pub fn retry_after(value: &str, now: NaiveDateTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Absurdly many digits saturate (the caller bounds the wait anyway).
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let now = std::time::UNIX_EPOCH
        + Duration::from_secs(now.and_utc().timestamp().max(0) as u64)
        + Duration::from_nanos(u64::from(now.and_utc().timestamp_subsec_nanos()));
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Fans out up to [`BATCH`] notifications; returns how many.
pub fn fan_out(
    conn: &mut DbConnection,
    cfg: &NotifyConfig,
    now: NaiveDateTime,
) -> Result<(usize, usize), StoreError> {
    store::transaction(conn, |conn| {
        let rows = store::deliveries::lock_unfanned(conn, BATCH)?;
        if rows.is_empty() {
            return Ok((0, 0));
        }
        type Targets = (
            settings::NotificationSettings,
            Vec<WebhookRow>,
            String,
            Vec<PushSubscriptionRow>,
            crate::i18n::TimeZone,
        );
        // Each user's settings, endpoints, address and zone: four queries for the batch.
        let mut users: Vec<&UserId> = rows.iter().map(|n| &n.user_id).collect();
        users.sort_unstable();
        users.dedup();
        let mut by_user: HashMap<UserId, Targets> = users
            .iter()
            .map(|u| {
                let none = (
                    settings::NotificationSettings::default(),
                    Vec::new(),
                    String::new(),
                    Vec::new(),
                    crate::i18n::TimeZone::UTC,
                );
                ((*u).clone(), none)
            })
            .collect();
        for (user, text) in store::settings::load_of(conn, &users)? {
            if let Some(t) = by_user.get_mut(&user) {
                t.0 = settings::parse(&text);
            }
        }
        for hook in store::webhooks::list_of(conn, &users)? {
            if hook.disabled_at.is_none() {
                if let Some(t) = by_user.get_mut(&hook.user_id) {
                    t.1.push(hook);
                }
            }
        }
        for (user, email, zone) in store::recipients::addresses_of(conn, &users)? {
            if let Some(t) = by_user.get_mut(&user) {
                t.2 = email;
                t.4 = zone
                    .as_deref()
                    .and_then(crate::i18n::parse_time_zone)
                    .unwrap_or(crate::i18n::TimeZone::UTC);
            }
        }
        if cfg.vapid.is_some() {
            for sub in store::push_subscriptions::list_of(conn, &users)? {
                if let Some(t) = by_user.get_mut(&sub.user_id) {
                    t.3.push(sub);
                }
            }
        }
        let mut made = Vec::new();
        for n in &rows {
            let (s, hooks, email, subs, zone) = &by_user[&n.user_id];
            let mut targets: Vec<(&str, &str)> = Vec::new();
            let to_address;
            if account_mail::is_account_mail(&n.kind) {
                // An account mail goes to the address it names, verified or not (it is
                // what verifies it), whatever the settings; never to webhooks.
                to_address = account_mail_to(n);
                if cfg.smtp.is_some() && !to_address.is_empty() {
                    targets.push(("email", &to_address));
                }
            } else {
                let ch = s.channels(&n.kind);
                if ch.webhook {
                    targets.extend(hooks.iter().map(|h| ("webhook", h.id.as_str())));
                }
                // `email` is empty unless the address is verified.
                if ch.email && cfg.smtp.is_some() && !email.is_empty() {
                    targets.push((if s.email_digest { "digest" } else { "email" }, email));
                }
                if ch.push_on() {
                    targets.extend(subs.iter().map(|p| ("push", p.id.as_str())));
                }
            }
            for (channel, endpoint) in targets {
                // A digest item waits for the reader's next midnight (see `email`).
                let due = if channel == "digest" {
                    email::digest_due(now, *zone)
                } else {
                    now
                };
                let row = DeliveryRow {
                    id: stable_id(&[&n.id, channel, endpoint]),
                    notification_id: n.id.clone(),
                    user_id: n.user_id.clone(),
                    channel: channel.into(),
                    endpoint: endpoint.into(),
                    status: "pending".into(),
                    attempts: 0,
                    next_attempt_at: due,
                    lease_until: None,
                    last_error: None,
                    last_status: None,
                    created_at: now,
                    delivered_at: None,
                };
                made.push(row);
            }
        }
        store::deliveries::insert_many(conn, &made)?;
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        store::deliveries::mark_fanned_out(conn, &ids, now)?;
        Ok((rows.len(), made.len()))
    })
}

/// The address an account mail goes to (its payload's `to`).
fn account_mail_to(n: &NotificationRow) -> String {
    serde_json::from_str::<serde_json::Value>(&n.payload)
        .ok()
        .and_then(|p| p.get("to").and_then(|t| t.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// Where a claimed delivery goes.
#[derive(Debug, Clone)]
pub enum Target {
    Webhook(WebhookRow),
    Email {
        to: String,
        mail: Mail,
    },
    /// An item of a daily digest (sent together with the others claimed for `to`).
    Digest {
        to: String,
        mail: Mail,
    },
    /// A Web Push to one device: the plain payload (encrypted when sent).
    Push {
        sub: PushSubscriptionRow,
        payload: String,
    },
    /// Nothing to send to any more (the endpoint was disabled or deleted).
    Gone(String),
}

/// A claimed delivery with what it needs to be sent.
#[derive(Debug, Clone)]
pub struct Job {
    pub delivery: DeliveryRow,
    pub note: NotificationRow,
    pub target: Target,
    pub lease: NaiveDateTime,
}

/// Loads the claimed deliveries (composing their mails).
pub fn load_jobs(
    conn: &mut DbConnection,
    mail: &MailContext<'_>,
    ids: &[String],
    lease: NaiveDateTime,
) -> Result<Vec<Job>, StoreError> {
    let rows = store::deliveries::load(conn, ids)?;
    // A claim is mostly pushes: their subscriptions and readers' languages in two queries.
    let pushes: Vec<&DeliveryRow> = rows
        .iter()
        .map(|(d, _)| d)
        .filter(|d| d.channel == "push")
        .collect();
    let sub_ids: Vec<PushSubscriptionId> = pushes.iter().map(|d| d.subscription_id()).collect();
    let sub_ids: Vec<&PushSubscriptionId> = sub_ids.iter().collect();
    let mut subs: HashMap<PushSubscriptionId, PushSubscriptionRow> = HashMap::new();
    let mut langs: HashMap<UserId, crate::i18n::Lang> = HashMap::new();
    if !pushes.is_empty() {
        for sub in store::push_subscriptions::find_many(conn, &sub_ids)? {
            subs.insert(sub.id.clone(), sub);
        }
        let mut users: Vec<&UserId> = pushes.iter().map(|d| &d.user_id).collect();
        users.sort_unstable();
        users.dedup();
        for (user, code) in store::recipients::languages_of(conn, &users)? {
            langs.insert(user, crate::i18n::Lang::from_pref(code.as_deref()));
        }
    }
    let mut jobs = Vec::with_capacity(rows.len());
    for (d, note) in rows {
        let target = match d.channel.as_str() {
            "webhook" => match store::webhooks::find(conn, &d.webhook_id())? {
                Some(w) if w.disabled_at.is_none() => Target::Webhook(w),
                Some(_) => Target::Gone("the endpoint is disabled".into()),
                None => Target::Gone("the endpoint was deleted".into()),
            },
            "email" => Target::Email {
                to: d.endpoint.clone(),
                mail: email::compose(conn, mail, &note)?,
            },
            "digest" => Target::Digest {
                to: d.endpoint.clone(),
                mail: email::compose(conn, mail, &note)?,
            },
            "push" => match subs.get(&d.subscription_id()) {
                Some(sub) => {
                    let lang = langs
                        .get(&note.user_id)
                        .copied()
                        .unwrap_or(crate::i18n::Lang::EN);
                    Target::Push {
                        sub: sub.clone(),
                        payload: push::payload(&note, mail.public_url, lang),
                    }
                }
                None => Target::Gone("the subscription was deleted".into()),
            },
            other => Target::Gone(format!("unknown channel {other}")),
        };
        jobs.push(Job {
            delivery: d,
            note,
            target,
            lease,
        });
    }
    Ok(jobs)
}

/// How an attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Delivered {
        status: Option<i32>,
    },
    Failed {
        status: Option<i32>,
        error: String,
        /// The wait the receiver asked for (`Retry-After` of a 429 or 503), instead of
        /// the back-off; at most `DJAMBI_DELIVERY_BACKOFF_MAX`.
        retry_after: Option<Duration>,
    },
    /// Never to be tried again.
    Dead(String),
    /// The push service no longer knows the subscription (404, 410): the delivery dies
    /// and the subscription is deleted.
    Unsubscribed {
        status: i32,
    },
}

/// The body of a webhook delivery: `{"type", "timestamp", "data"}` (Standard Webhooks).
pub fn webhook_body(note: &NotificationRow) -> String {
    json!({
        "type": note.kind,
        "timestamp": note.created_at.and_utc(),
        "data": FeedItem::of(note),
    })
    .to_string()
}

fn clip(s: &str) -> String {
    s.chars().take(MAX_ERROR).collect()
}

/// Records the outcomes of many attempts, in the caller's transaction: the pushes and
/// mails delivered in one statement (their common case needs nothing else), every other
/// outcome by [`record`]; each in a savepoint of its own, so that one that fails to
/// record leaves the others. Such errors are logged: those leases run out and their
/// deliveries are tried again.
pub fn record_many(
    conn: &mut DbConnection,
    cfg: &NotifyConfig,
    c: &Counters,
    outcomes: &[(&Job, &Outcome)],
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let mut delivered = Vec::new();
    for (job, outcome) in outcomes {
        let d = &job.delivery;
        match outcome {
            Outcome::Delivered { status } if d.channel != "webhook" => {
                delivered.push(store::deliveries::Delivered {
                    id: d.id.clone(),
                    lease: job.lease,
                    attempts: d.attempts + 1,
                    status: *status,
                });
                tracing::info!(delivery = %d.id, channel = %d.channel, notification = %d.notification_id, "delivered");
            }
            _ => {
                if let Err(e) = record(conn, cfg, c, job, outcome, now) {
                    tracing::warn!(delivery = %d.id, error = %e, "recording a delivery failed");
                }
            }
        }
    }
    if !delivered.is_empty() {
        match store::transaction(conn, |conn| {
            store::deliveries::delivered_many(conn, &delivered, now)
        }) {
            Ok(()) => Counters::add(&c.delivered, delivered.len()),
            Err(e) => {
                tracing::warn!(deliveries = delivered.len(), error = %e, "recording deliveries failed")
            }
        }
    }
    Ok(())
}

/// Records an attempt's outcome (if the lease is still this attempt's).
pub fn record(
    conn: &mut DbConnection,
    cfg: &NotifyConfig,
    c: &Counters,
    job: &Job,
    outcome: &Outcome,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let d = &job.delivery;
    let attempts = d.attempts + 1;
    store::transaction(conn, |conn| {
        match outcome {
            Outcome::Delivered { status } => {
                store::deliveries::delivered(conn, &d.id, job.lease, attempts, *status, now)?;
                Counters::add(&c.delivered, 1);
                if d.channel == "webhook" {
                    store::webhooks::reset_failures(conn, &d.webhook_id())?;
                }
                tracing::info!(delivery = %d.id, channel = %d.channel, notification = %d.notification_id, "delivered");
            }
            Outcome::Failed {
                status,
                error,
                retry_after,
            } => {
                let dead = attempts as u32 >= cfg.max_attempts;
                let next = now + delta(wait_after(cfg, attempts as u32, *retry_after));
                store::deliveries::failed(
                    conn,
                    &d.id,
                    job.lease,
                    attempts,
                    dead,
                    next,
                    *status,
                    &clip(error),
                )?;
                Counters::add(if dead { &c.dead } else { &c.failed }, 1);
                tracing::warn!(delivery = %d.id, channel = %d.channel, attempts, dead, error = %error, "delivery failed");
                if d.channel == "webhook" {
                    endpoint_failed(conn, cfg, c, &d.webhook_id(), now)?;
                }
            }
            Outcome::Unsubscribed { status } => {
                let why = format!("the push service answered {status}: subscription deleted");
                store::deliveries::dead(conn, &d.id, job.lease, &why)?;
                store::push_subscriptions::delete_in(conn, None, &d.subscription_id())?;
                Counters::add(&c.dead, 1);
                tracing::info!(delivery = %d.id, subscription = %d.endpoint, status, "push subscription gone");
            }
            Outcome::Dead(why) => {
                store::deliveries::dead(conn, &d.id, job.lease, &clip(why))?;
                Counters::add(&c.dead, 1);
                tracing::warn!(delivery = %d.id, reason = %why, "delivery dropped");
            }
        }
        Ok(())
    })
}

/// Counts a failed attempt against an endpoint; disables it at the limit.
fn endpoint_failed(
    conn: &mut DbConnection,
    cfg: &NotifyConfig,
    c: &Counters,
    id: &WebhookId,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    store::webhooks::add_failure(conn, id)?;
    let Some(hook) = store::webhooks::find(conn, id)? else {
        return Ok(());
    };
    if hook.disabled_at.is_some() || (hook.consecutive_failures as u32) < cfg.webhook_disable_after
    {
        return Ok(());
    }
    let reason = format!("{} failed attempts in a row", hook.consecutive_failures);
    if !store::webhooks::disable(conn, id, now, &reason)? {
        return Ok(());
    }
    store::deliveries::kill_pending_of_endpoint(conn, id.as_str(), "the endpoint was disabled")?;
    let at = now.to_string();
    let note = NotificationRow {
        id: stable_id(&["webhook_disabled", id.as_str(), &at]),
        user_id: hook.user_id.clone(),
        kind: "webhook_disabled".into(),
        game_id: None,
        version: None,
        payload: json!({"webhook_id": id.as_str(), "url": hook.url, "reason": reason}).to_string(),
        created_at: now,
        read_at: None,
    };
    store::outbox::enqueue(conn, std::slice::from_ref(&note))?;
    Counters::add(&c.disabled_endpoints, 1);
    tracing::warn!(webhook = %id, user = %hook.user_id, %reason, "webhook endpoint disabled");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_up_to_the_cap() {
        let get = |n: &str| match n {
            "DJAMBI_DELIVERY_BACKOFF" => Some("10s".to_string()),
            "DJAMBI_DELIVERY_BACKOFF_MAX" => Some("1m".to_string()),
            _ => None,
        };
        let cfg = NotifyConfig::parse(&get).unwrap();
        let secs: Vec<u64> = (1..=6).map(|n| backoff(&cfg, n).as_secs()).collect();
        assert_eq!(secs, [10, 20, 40, 60, 60, 60]);
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = chrono::DateTime::from_timestamp(1_445_412_480, 0)
            .unwrap()
            .naive_utc(); // Wed, 21 Oct 2015 07:28:00 GMT
        let secs = |v: &str| retry_after(v, now).map(|d| d.as_secs());
        assert_eq!(secs("120"), Some(120));
        assert_eq!(secs(" 0 "), Some(0));
        assert_eq!(secs("Wed, 21 Oct 2015 07:30:00 GMT"), Some(120));
        // A date already past asks for no wait.
        assert_eq!(secs("Wed, 21 Oct 2015 07:00:00 GMT"), Some(0));
        assert_eq!(secs("99999999999999999999999"), Some(u64::MAX));
        for bad in ["", "-5", "1.5", "soon", "Wed, 21 Oct 2015"] {
            assert_eq!(secs(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_long_retry_after_is_bounded_by_the_longest_back_off() {
        let get = |n: &str| match n {
            "DJAMBI_DELIVERY_BACKOFF_MAX" => Some("1h".to_string()),
            _ => None,
        };
        let cfg = NotifyConfig::parse(&get).unwrap();
        let asked = |s: u64| Some(Duration::from_secs(s));
        assert_eq!(
            wait_after(&cfg, 1, asked(86_400)),
            Duration::from_secs(3600)
        );
        // A short one is taken as asked, shorter than the back-off (30 s by default).
        assert_eq!(wait_after(&cfg, 1, asked(2)), Duration::from_secs(2));
        assert_eq!(wait_after(&cfg, 1, None), Duration::from_secs(30));
    }
}
