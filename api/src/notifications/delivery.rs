//! The delivery queue: notifications sent outside the app (webhooks, e-mail), with
//! retries, exponential back-off and a dead letter.
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
//!    lease, like the due-work worker ([`crate::games::due`]): `UPDATE .. WHERE id IN
//!    (SELECT .. FOR UPDATE SKIP LOCKED) RETURNING id`, so several instances share the
//!    work and each delivery is attempted by one instance at a time;
//! 3. **sends** them (outside any transaction) and **records** each outcome, guarded by
//!    its lease: delivered; or failed, to be tried again after
//!    `backoff * 2^(attempts-1)` (at most `backoff_max`); or dead after `max_attempts`.
//!
//! A webhook endpoint that fails `webhook_disable_after` attempts in a row is disabled:
//! its pending deliveries die and its owner gets a `webhook_disabled` notification.
//!
//! Delivery is at least once: an instance that dies after sending and before recording
//! sends again when the lease runs out. Receivers de-duplicate by `webhook-id`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actix_web::web;
use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;
use futures_util::StreamExt;
use serde_json::json;

use super::config::NotifyConfig;
use super::feed::FeedItem;
use super::webhooks::{self, WebhookRow};
use super::{settings, stable_id};
use crate::shutdown::Pace;
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::lease::Queue;
use crate::store::outbox::NotificationRow;
use crate::store::schema::{deliveries, notifications, users, webhooks as webhooks_t};
use crate::store::{self, DbConnection};

/// Notifications fanned out, and deliveries claimed, per statement.
pub const BATCH: i64 = 100;
/// Deliveries sent at once by one instance.
pub const CONCURRENCY: usize = 8;
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
    fn add(c: &AtomicU64, n: usize) {
        c.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// What deliveries need at run time: the HTTP client and the counters.
#[derive(Debug)]
pub struct DeliveryState {
    pub client: reqwest::Client,
    /// `None` without an SMTP server.
    pub mailer: Option<super::email::Mailer>,
    pub counters: Counters,
}

impl DeliveryState {
    pub fn new(cfg: &NotifyConfig) -> Result<DeliveryState, String> {
        Ok(DeliveryState {
            client: webhooks::client(cfg.webhook_timeout, cfg.webhook_allow_private)?,
            mailer: cfg.smtp.as_ref().map(super::email::mailer).transpose()?,
            counters: Counters::default(),
        })
    }
}

/// The wait after the `attempts`-th failed attempt.
pub fn backoff(cfg: &NotifyConfig, attempts: u32) -> Duration {
    let factor = 1u32 << attempts.saturating_sub(1).min(20);
    cfg.backoff.saturating_mul(factor).min(cfg.backoff_max)
}

fn delta(d: Duration) -> TimeDelta {
    TimeDelta::from_std(d).unwrap_or(TimeDelta::MAX)
}

/// Fans out up to [`BATCH`] notifications; returns how many.
pub fn fan_out(
    conn: &mut DbConnection,
    cfg: &NotifyConfig,
    now: NaiveDateTime,
) -> Result<(usize, usize), StoreError> {
    store::transaction(conn, |conn| {
        macro_rules! q {
            () => {
                notifications::table
                    .filter(notifications::fanned_out_at.is_null())
                    .order((notifications::created_at.asc(), notifications::id.asc()))
                    .limit(BATCH)
                    .select(NotificationRow::as_select())
            };
        }
        let rows: Vec<NotificationRow> = match conn {
            DbConnection::Pg(c) => q!().for_update().skip_locked().load(c)?,
            DbConnection::Sqlite(c) => q!().load(c)?,
        };
        if rows.is_empty() {
            return Ok((0, 0));
        }
        let mut by_user: HashMap<
            String,
            (settings::NotificationSettings, Vec<WebhookRow>, String),
        > = HashMap::new();
        let mut created = 0;
        for n in &rows {
            if !by_user.contains_key(&n.user_id) {
                let s = settings::load(conn, &n.user_id)?;
                let hooks: Vec<WebhookRow> = crate::store::webhooks::list(conn, &n.user_id)?
                    .into_iter()
                    .filter(|w| w.disabled_at.is_none())
                    .collect();
                let email: String = users::table
                    .find(&n.user_id)
                    .select(users::email)
                    .first(conn)?;
                by_user.insert(n.user_id.clone(), (s, hooks, email));
            }
            let (s, hooks, email) = &by_user[&n.user_id];
            let ch = s.channels(&n.kind);
            let mut targets: Vec<(&str, &str)> = Vec::new();
            if ch.webhook {
                targets.extend(hooks.iter().map(|h| ("webhook", h.id.as_str())));
            }
            if ch.email && cfg.smtp.is_some() && !email.is_empty() {
                targets.push((if s.email_digest { "digest" } else { "email" }, email));
            }
            for (channel, endpoint) in targets {
                // A digest item waits for the next midnight (see `email`).
                let due = if channel == "digest" {
                    (now.date() + chrono::Days::new(1)).and_time(chrono::NaiveTime::MIN)
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
                diesel::insert_into(deliveries::table)
                    .values(&row)
                    .execute(conn)?;
                created += 1;
            }
        }
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        diesel::update(notifications::table.filter(notifications::id.eq_any(ids)))
            .set(notifications::fanned_out_at.eq(Some(now)))
            .execute(conn)?;
        Ok((rows.len(), created))
    })
}

/// The deliveries waiting for an attempt.
const PENDING_DELIVERIES: Queue = Queue {
    table: "deliveries",
    id: "id",
    due: "next_attempt_at",
    lease: "lease_until",
    only: "status = 'pending'",
};

/// Claims up to `limit` due deliveries until `until`.
pub fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    Ok(PENDING_DELIVERIES.claim(conn, now, until, limit)?)
}

/// Where a claimed delivery goes.
#[derive(Debug, Clone)]
pub enum Target {
    Webhook(WebhookRow),
    Email {
        to: String,
        mail: super::email::Mail,
    },
    /// An item of a daily digest (sent together with the others claimed for `to`).
    Digest {
        to: String,
        mail: super::email::Mail,
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

/// Loads the claimed deliveries.
pub fn load_jobs(
    conn: &mut DbConnection,
    app: &AppState,
    ids: &[String],
    lease: NaiveDateTime,
) -> Result<Vec<Job>, StoreError> {
    let rows: Vec<DeliveryRow> = deliveries::table
        .filter(deliveries::id.eq_any(ids))
        .select(DeliveryRow::as_select())
        .load(conn)?;
    let mut jobs = Vec::with_capacity(rows.len());
    for d in rows {
        let note: NotificationRow = notifications::table
            .find(&d.notification_id)
            .select(NotificationRow::as_select())
            .first(conn)?;
        let target = match d.channel.as_str() {
            "webhook" => match webhooks_t::table
                .find(&d.endpoint)
                .select(WebhookRow::as_select())
                .first(conn)
                .optional()?
            {
                Some(w) if w.disabled_at.is_none() => Target::Webhook(w),
                Some(_) => Target::Gone("the endpoint is disabled".into()),
                None => Target::Gone("the endpoint was deleted".into()),
            },
            "email" => Target::Email {
                to: d.endpoint.clone(),
                mail: super::email::compose(conn, app, &note)?,
            },
            "digest" => Target::Digest {
                to: d.endpoint.clone(),
                mail: super::email::compose(conn, app, &note)?,
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
    },
    /// Never to be tried again.
    Dead(String),
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

/// Sends one webhook delivery.
pub async fn send_webhook(
    client: &reqwest::Client,
    hook: &WebhookRow,
    note: &NotificationRow,
    now: NaiveDateTime,
) -> Outcome {
    let body = webhook_body(note);
    let ts = now.and_utc().timestamp();
    let sig = webhooks::signature_header(&hook.signing_secrets(now), &note.id, ts, body.as_bytes());
    let res = client
        .post(&hook.url)
        .header("content-type", "application/json")
        .header("webhook-id", &note.id)
        .header("webhook-timestamp", ts.to_string())
        .header("webhook-signature", sig)
        .body(body)
        .send()
        .await;
    match res {
        Ok(r) if r.status().is_success() => Outcome::Delivered {
            status: Some(i32::from(r.status().as_u16())),
        },
        Ok(r) => Outcome::Failed {
            status: Some(i32::from(r.status().as_u16())),
            error: format!("the endpoint answered {}", r.status()),
        },
        Err(e) => {
            use std::error::Error;
            let mut text = e.to_string();
            let mut src = e.source();
            while let Some(s) = src {
                text.push_str(": ");
                text.push_str(&s.to_string());
                src = s.source();
            }
            Outcome::Failed {
                status: None,
                error: text,
            }
        }
    }
}

/// Sends one job.
pub async fn send(app: &AppState, job: &Job, now: NaiveDateTime) -> Outcome {
    match &job.target {
        Target::Webhook(hook) => send_webhook(&app.delivery.client, hook, &job.note, now).await,
        Target::Email { to, mail } | Target::Digest { to, mail } => {
            super::email::send(app, to, mail, &job.delivery.id).await
        }
        Target::Gone(why) => Outcome::Dead(why.clone()),
    }
}

fn clip(s: &str) -> String {
    s.chars().take(MAX_ERROR).collect()
}

/// Records an attempt's outcome (if the lease is still this attempt's).
pub fn record(
    conn: &mut DbConnection,
    app: &AppState,
    job: &Job,
    outcome: &Outcome,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let cfg = &app.config.notify;
    let c = &app.delivery.counters;
    let d = &job.delivery;
    let attempts = d.attempts + 1;
    let mine = deliveries::table
        .filter(deliveries::id.eq(&d.id))
        .filter(deliveries::status.eq("pending"))
        .filter(deliveries::lease_until.eq(Some(job.lease)));
    store::transaction(conn, |conn| {
        match outcome {
            Outcome::Delivered { status } => {
                diesel::update(mine)
                    .set((
                        deliveries::status.eq("delivered"),
                        deliveries::attempts.eq(attempts),
                        deliveries::delivered_at.eq(Some(now)),
                        deliveries::lease_until.eq(None::<NaiveDateTime>),
                        deliveries::last_status.eq(*status),
                        deliveries::last_error.eq(None::<String>),
                    ))
                    .execute(conn)?;
                Counters::add(&c.delivered, 1);
                if d.channel == "webhook" {
                    diesel::update(webhooks_t::table.find(&d.endpoint))
                        .set(webhooks_t::consecutive_failures.eq(0))
                        .execute(conn)?;
                }
                tracing::info!(delivery = %d.id, channel = %d.channel, notification = %d.notification_id, "delivered");
            }
            Outcome::Failed { status, error } => {
                let dead = attempts as u32 >= cfg.max_attempts;
                let next = now + delta(backoff(cfg, attempts as u32));
                diesel::update(mine)
                    .set((
                        deliveries::status.eq(if dead { "dead" } else { "pending" }),
                        deliveries::attempts.eq(attempts),
                        deliveries::next_attempt_at.eq(next),
                        deliveries::lease_until.eq(None::<NaiveDateTime>),
                        deliveries::last_status.eq(*status),
                        deliveries::last_error.eq(Some(clip(error))),
                    ))
                    .execute(conn)?;
                Counters::add(if dead { &c.dead } else { &c.failed }, 1);
                tracing::warn!(delivery = %d.id, channel = %d.channel, attempts, dead, error = %error, "delivery failed");
                if d.channel == "webhook" {
                    endpoint_failed(conn, app, &d.endpoint, now)?;
                }
            }
            Outcome::Dead(why) => {
                diesel::update(mine)
                    .set((
                        deliveries::status.eq("dead"),
                        deliveries::lease_until.eq(None::<NaiveDateTime>),
                        deliveries::last_error.eq(Some(clip(why))),
                    ))
                    .execute(conn)?;
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
    app: &AppState,
    id: &str,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(webhooks_t::table.find(id))
        .set(webhooks_t::consecutive_failures.eq(webhooks_t::consecutive_failures + 1))
        .execute(conn)?;
    let Some(hook) = webhooks_t::table
        .find(id)
        .select(WebhookRow::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(());
    };
    if hook.disabled_at.is_some()
        || (hook.consecutive_failures as u32) < app.config.notify.webhook_disable_after
    {
        return Ok(());
    }
    let reason = format!("{} failed attempts in a row", hook.consecutive_failures);
    let n = diesel::update(
        webhooks_t::table
            .find(id)
            .filter(webhooks_t::disabled_at.is_null()),
    )
    .set((
        webhooks_t::disabled_at.eq(Some(now)),
        webhooks_t::disabled_reason.eq(Some(&reason)),
    ))
    .execute(conn)?;
    if n == 0 {
        return Ok(());
    }
    diesel::update(
        deliveries::table
            .filter(deliveries::channel.eq("webhook"))
            .filter(deliveries::endpoint.eq(id))
            .filter(deliveries::status.eq("pending")),
    )
    .set((
        deliveries::status.eq("dead"),
        deliveries::last_error.eq(Some("the endpoint was disabled")),
    ))
    .execute(conn)?;
    let at = now.to_string();
    let note = NotificationRow {
        id: stable_id(&["webhook_disabled", id, &at]),
        user_id: hook.user_id.clone(),
        kind: "webhook_disabled".into(),
        game_id: None,
        version: None,
        payload: json!({"webhook_id": id, "url": hook.url, "reason": reason}).to_string(),
        created_at: now,
        read_at: None,
    };
    crate::store::outbox::enqueue(conn, std::slice::from_ref(&note))?;
    Counters::add(&app.delivery.counters.disabled_endpoints, 1);
    tracing::warn!(webhook = %id, user = %hook.user_id, %reason, "webhook endpoint disabled");
    Ok(())
}

/// One round: fan out, claim, send, record. Returns the number of deliveries claimed.
pub async fn round(app: &web::Data<AppState>) -> Result<usize, store::RunError> {
    let cfg = app.config.notify.clone();
    let now = app.clock.now();
    let until = now + delta(cfg.delivery_lease);
    let a = app.clone();
    let jobs = store::run(&app.pool, move |conn| {
        loop {
            match fan_out(conn, &cfg, now) {
                Ok((n, created)) => {
                    Counters::add(&a.delivery.counters.fanned_out, n);
                    Counters::add(&a.delivery.counters.created, created);
                    if (n as i64) < BATCH {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "fanning out notifications failed");
                    break;
                }
            }
        }
        let jobs = claim(conn, now, until, BATCH).and_then(|ids| load_jobs(conn, &a, &ids, until));
        Ok::<_, store::RunError>(jobs.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "claiming deliveries failed");
            Vec::new()
        }))
    })
    .await?;
    let claimed = jobs.len();
    if claimed == 0 {
        return Ok(0);
    }
    Counters::add(&app.delivery.counters.claimed, claimed);
    // Digest items go out as one mail per address; everything else one by one.
    let mut groups: Vec<Vec<Job>> = Vec::new();
    let mut digests: HashMap<String, usize> = HashMap::new();
    for job in jobs {
        if let Target::Digest { to, .. } = &job.target {
            if let Some(&i) = digests.get(to) {
                groups[i].push(job);
                continue;
            }
            digests.insert(to.clone(), groups.len());
        }
        groups.push(vec![job]);
    }
    let results: Vec<(Job, Outcome)> = futures_util::stream::iter(groups)
        .map(|group| async move {
            let outcome = match &group[0].target {
                Target::Digest { to, .. } => {
                    let mails: Vec<&super::email::Mail> = group
                        .iter()
                        .filter_map(|j| match &j.target {
                            Target::Digest { mail, .. } => Some(mail),
                            _ => None,
                        })
                        .collect();
                    let day = group[0].delivery.next_attempt_at.date() - chrono::Days::new(1);
                    let mail = super::email::digest(&mails, &day.to_string());
                    let id = stable_id(&["digest", to, &day.to_string()]);
                    super::email::send(app, to, &mail, &id).await
                }
                _ => send(app, &group[0], app.clock.now()).await,
            };
            group
                .into_iter()
                .map(|j| (j, outcome.clone()))
                .collect::<Vec<_>>()
        })
        .buffer_unordered(CONCURRENCY)
        .map(futures_util::stream::iter)
        .flatten()
        .collect()
        .await;
    let a = app.clone();
    store::run(&app.pool, move |conn| {
        let now = a.clock.now();
        for (job, outcome) in &results {
            if let Err(e) = record(conn, &a, job, outcome, now) {
                // The lease runs out and the delivery is tried again.
                tracing::warn!(delivery = %job.delivery.id, error = %e, "recording a delivery failed");
            }
        }
        Ok::<_, store::RunError>(())
    })
    .await?;
    Ok(claimed)
}

/// Starts the delivery worker on the server's runtime.
pub fn spawn(app: web::Data<AppState>) {
    let every = app
        .config
        .notify
        .delivery_interval
        .max(Duration::from_millis(1));
    let shutdown = app.shutdown.clone();
    shutdown.spawn_periodic("delivery", every, move || {
        let app = app.clone();
        async move {
            match round(&app).await {
                Ok(n) if n as i64 >= BATCH => Pace::Again,
                Ok(_) => Pace::Rest,
                Err(e) => {
                    tracing::warn!(error = %e, "delivery round could not run");
                    Pace::Rest
                }
            }
        }
    });
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
}
