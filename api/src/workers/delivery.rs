//! The delivery worker: in every server process, loops that fan out new notifications
//! ([`fan_out_loop`]), a loop that claims due deliveries and sends them (webhooks over
//! HTTP, mail over SMTP), and a recorder that records their outcomes, many to a
//! transaction ([`record_outcomes`]). The queue's rules (fan-out, back-off, the dead
//! letter, disabling endpoints) are [`crate::notifications::delivery`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDateTime;

use super::email::{self as smtp, Mailer};
use crate::clock::Clock;
use crate::config::{Config, Secret};
use crate::notifications::config::NotifyConfig;
use crate::notifications::delivery::{
    BATCH, Counters, Job, Outcome, Target, delta, fan_out, load_jobs, record_many, retry_after,
    webhook_body,
};
use crate::notifications::email::{self, Mail, MailContext};
use crate::notifications::push::{self, PushSubscriptionRow, VapidKeys};
use crate::notifications::stable_id;
use crate::notifications::webhooks::{self, WebhookRow};
use crate::shutdown::Shutdown;
use crate::store::cache::GameCache;
use crate::store::deliveries::Lane;
use crate::store::{self, DbPool};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// What the delivery worker needs: the store, the clock, the settings, the HTTP client
/// and the mailer it sends with, its counters, and what composing mails needs.
#[derive(Debug)]
pub struct Delivery {
    pub pool: DbPool,
    pub clock: Arc<dyn Clock>,
    pub config: NotifyConfig,
    pub client: reqwest::Client,
    /// `None` without an SMTP server.
    pub mailer: Option<Mailer>,
    pub counters: Arc<Counters>,
    /// `DJAMBI_PUBLIC_URL` (the links in mails).
    pub public_url: String,
    /// Keys the unsubscribe tokens.
    pub signing_secret: Secret,
    /// The game states mails describe.
    pub games: Arc<GameCache>,
    /// `None` without Web Push.
    pub vapid: Option<VapidKeys>,
    /// `DJAMBI_MAIL_DOMAIN` (the reply addresses of turn mails).
    pub mail_domain: Option<String>,
    /// Woken when notification rows were written (the live hub's user signals).
    pub notes_written: Arc<tokio::sync::Notify>,
}

impl Delivery {
    pub fn new(
        config: &Config,
        pool: DbPool,
        clock: Arc<dyn Clock>,
        games: Arc<GameCache>,
        notes_written: Arc<tokio::sync::Notify>,
    ) -> Result<Delivery, String> {
        let cfg = &config.notify;
        Ok(Delivery {
            client: webhooks::client(
                cfg.webhook_timeout,
                cfg.webhook_connect_timeout,
                cfg.webhook_allow_private,
            )?,
            mailer: cfg.smtp.as_ref().map(smtp::mailer).transpose()?,
            counters: Arc::new(Counters::default()),
            config: cfg.clone(),
            public_url: config.public_url.as_str().to_string(),
            signing_secret: config.jwt_secret.clone(),
            vapid: cfg.vapid.as_ref().map(VapidKeys::of).transpose()?,
            games,
            mail_domain: config.mail_moves.domain.clone(),
            notes_written,
            pool,
            clock,
        })
    }

    fn mail_context(&self) -> MailContext<'_> {
        MailContext {
            public_url: &self.public_url,
            signing_secret: self.signing_secret.expose(),
            games: &self.games,
            mail_domain: self.mail_domain.as_deref(),
        }
    }

    async fn send_mail(&self, to: &str, mail: &Mail, id: &str) -> Outcome {
        smtp::send(
            self.mailer.as_ref(),
            self.config.smtp.as_ref(),
            to,
            mail,
            id,
        )
        .await
    }

    /// An HTTP endpoint's stored URL, checked again before each attempt: the client's
    /// resolver guards host names, but an address literal never reaches it, so an
    /// endpoint stored before a rule was tightened (an IPv4 address inside IPv6) would
    /// otherwise still be called.
    fn refused(&self, url: &str) -> Option<Outcome> {
        webhooks::check_url(url, self.config.webhook_allow_private)
            .err()
            .map(|e| Outcome::Dead(format!("the endpoint is refused: {e}")))
    }

    /// Sends one job.
    async fn send(&self, job: &Job, now: NaiveDateTime) -> Outcome {
        let url = match &job.target {
            Target::Webhook(hook) => Some(hook.url.as_str()),
            Target::Push { sub, .. } => Some(sub.endpoint.as_str()),
            _ => None,
        };
        if let Some(refused) = url.and_then(|u| self.refused(u)) {
            return refused;
        }
        match &job.target {
            Target::Webhook(hook) => {
                let first_byte = self.config.webhook_first_byte_timeout;
                first_byte_within(first_byte, send_webhook(&self.client, hook, &job.note, now))
                    .await
            }
            Target::Email { to, mail } | Target::Digest { to, mail } => {
                self.send_mail(to, mail, &job.delivery.id).await
            }
            Target::Push { sub, payload } => match &self.vapid {
                Some(keys) => {
                    let first_byte = self.config.webhook_first_byte_timeout;
                    let push = send_push(&self.client, keys, sub, payload, &job.note.kind, now);
                    first_byte_within(first_byte, push).await
                }
                None => Outcome::Dead("Web Push is not enabled".into()),
            },
            Target::Gone(why) => Outcome::Dead(why.clone()),
        }
    }
}

/// An HTTP attempt whose answer's head must come within `limit` (the attempts read no
/// body): a receiver that accepts the connection and never answers fails after `limit`,
/// not after the whole `DJAMBI_WEBHOOK_TIMEOUT`.
async fn first_byte_within(
    limit: Duration,
    attempt: impl std::future::Future<Output = Outcome>,
) -> Outcome {
    match tokio::time::timeout(limit, attempt).await {
        Ok(outcome) => outcome,
        Err(_) => Outcome::Failed {
            status: None,
            error: format!("no answer within {} ms", limit.as_millis()),
            retry_after: None,
        },
    }
}

/// Sends one Web Push: the payload encrypted for the device (RFC 8291), VAPID-signed
/// (RFC 8292), with the kind's `TTL` and `Urgency`.
pub async fn send_push(
    client: &reqwest::Client,
    keys: &VapidKeys,
    sub: &PushSubscriptionRow,
    payload: &str,
    kind: &str,
    now: NaiveDateTime,
) -> Outcome {
    let url = match url::Url::parse(&sub.endpoint) {
        Ok(u) => u,
        Err(e) => return Outcome::Dead(format!("bad endpoint: {e}")),
    };
    let body = match push::encrypt(sub, payload.as_bytes()) {
        Ok(b) => b,
        Err(e) => return Outcome::Dead(format!("cannot encrypt: {e}")),
    };
    let (ttl, urgency) = push::ttl_and_urgency(kind);
    let res = client
        .post(url.clone())
        .header("content-type", "application/octet-stream")
        .header("content-encoding", "aes128gcm")
        .header("ttl", ttl.to_string())
        .header("urgency", urgency)
        .header("authorization", keys.authorization(&url, now))
        .body(body)
        .send()
        .await;
    match res {
        Ok(r) if matches!(r.status().as_u16(), 404 | 410) => {
            let status = i32::from(r.status().as_u16());
            drain(r).await;
            Outcome::Unsubscribed { status }
        }
        other => answer(other, now).await,
    }
}

/// The most of an answer's body read so its connection can serve the next attempt (an
/// HTTP/1.1 connection whose body was left unread is closed); a longer body is dropped
/// with its connection.
const DRAIN_LIMIT: usize = 16 * 1024;

/// Reads (and forgets) an answer's body, up to [`DRAIN_LIMIT`].
async fn drain(mut r: reqwest::Response) {
    let mut read = 0;
    while let Ok(Some(chunk)) = r.chunk().await {
        read += chunk.len();
        if read > DRAIN_LIMIT {
            return;
        }
    }
}

/// The outcome of an HTTP attempt: a 2xx delivers; anything else is tried again (after
/// the receiver's `Retry-After` for a 429 or 503, else after the back-off).
async fn answer(res: Result<reqwest::Response, reqwest::Error>, now: NaiveDateTime) -> Outcome {
    match res {
        Ok(r) if r.status().is_success() => {
            let status = Some(i32::from(r.status().as_u16()));
            drain(r).await;
            Outcome::Delivered { status }
        }
        Ok(r) => {
            let asked = matches!(r.status().as_u16(), 429 | 503)
                .then(|| r.headers().get(reqwest::header::RETRY_AFTER))
                .flatten()
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry_after(v, now));
            let status = r.status();
            drain(r).await;
            Outcome::Failed {
                status: Some(i32::from(status.as_u16())),
                error: format!("the endpoint answered {status}"),
                retry_after: asked,
            }
        }
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
                retry_after: None,
            }
        }
    }
}

/// Sends one webhook delivery.
pub async fn send_webhook(
    client: &reqwest::Client,
    hook: &WebhookRow,
    note: &crate::store::outbox::NotificationRow,
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
    answer(res, now).await
}

/// The place one attempt (or one digest mail) holds: its lane, its endpoint (the
/// `endpoint` value of its rows: a webhook endpoint's id, a push subscription's id, a mail
/// address; what `DJAMBI_DELIVERY_PER_ENDPOINT` counts) and its account.
///
/// A push is counted per subscription, never per push service host: every Chrome user's
/// subscription is on one host, so a bound per host would be a bound on the whole site's
/// pushes, and one hung device would hold up everyone's.
#[derive(Debug, Clone)]
struct Place {
    lane: Lane,
    endpoint: String,
    user: String,
}

/// What one instance has in flight: per lane, per endpoint, per account.
#[derive(Debug, Default)]
struct InFlight {
    lanes: HashMap<Lane, usize>,
    endpoints: HashMap<String, usize>,
    users: HashMap<String, usize>,
}

impl InFlight {
    fn lane(&self, lane: Lane) -> usize {
        self.lanes.get(&lane).copied().unwrap_or(0)
    }

    fn take(&mut self, p: &Place) {
        *self.lanes.entry(p.lane).or_default() += 1;
        *self.endpoints.entry(p.endpoint.clone()).or_default() += 1;
        *self.users.entry(p.user.clone()).or_default() += 1;
    }

    fn free(&mut self, p: &Place) {
        fn dec(m: &mut HashMap<String, usize>, k: &str) {
            if let Some(n) = m.get_mut(k) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    m.remove(k);
                }
            }
        }
        if let Some(n) = self.lanes.get_mut(&p.lane) {
            *n = n.saturating_sub(1);
        }
        dec(&mut self.endpoints, &p.endpoint);
        dec(&mut self.users, &p.user);
    }

    /// The `endpoint` values, and the accounts, that have their share in flight: left out
    /// of the next claim.
    fn busy(&self, per_endpoint: usize, per_account: usize) -> (Vec<String>, Vec<String>) {
        let full = |m: &HashMap<String, usize>, max: usize| -> Vec<String> {
            m.iter()
                .filter(|(_, n)| **n >= max)
                .map(|(e, _)| e.clone())
                .collect()
        };
        (
            full(&self.endpoints, per_endpoint),
            full(&self.users, per_account),
        )
    }
}

/// Sends one group of jobs (one job, or the digest items of one address) and hands the
/// outcome to the recorder.
async fn send_group(d: Arc<Delivery>, group: Vec<Job>, recorder: Recorder) {
    let outcome = match &group[0].target {
        Target::Digest { to, .. } => {
            let mails: Vec<&Mail> = group
                .iter()
                .filter_map(|j| match &j.target {
                    Target::Digest { mail, .. } => Some(mail),
                    _ => None,
                })
                .collect();
            // The reader's day that ended when the items fell due.
            let zone = mails.first().map_or(crate::i18n::TimeZone::UTC, |m| m.zone);
            let day = email::digest_day(group[0].delivery.next_attempt_at, zone);
            let mail = email::digest(&mails, day);
            let id = stable_id(&["digest", to, &day.to_string()]);
            d.send_mail(to, &mail, &id).await
        }
        _ => d.send(&group[0], d.clock.now()).await,
    };
    // The recorder outlives every attempt (it stops after them): a send cannot fail, and
    // if it did the leases would run out and the deliveries be tried again.
    let _ = recorder.send((group, outcome));
}

/// Where finished attempts go to be recorded.
type Recorder = tokio::sync::mpsc::UnboundedSender<(Vec<Job>, Outcome)>;

/// The most outcomes recorded in one transaction.
const RECORD_BATCH: usize = 256;

/// Records the outcomes of finished attempts, as many as have finished in one
/// transaction ([`record_many`]): one commit per attempt capped a burst at the database's
/// commit rate. Runs until every sender is gone, then has recorded everything sent.
async fn record_outcomes(
    d: Arc<Delivery>,
    mut outcomes: tokio::sync::mpsc::UnboundedReceiver<(Vec<Job>, Outcome)>,
) {
    while let Some(first) = outcomes.recv().await {
        let mut batch = vec![first];
        while batch.len() < RECORD_BATCH {
            match outcomes.try_recv() {
                Ok(more) => batch.push(more),
                Err(_) => break,
            }
        }
        let a = d.clone();
        let recorded = store::run(&d.pool, move |conn| {
            let now = a.clock.now();
            let outcomes: Vec<(&Job, &Outcome)> = batch
                .iter()
                .flat_map(|(group, outcome)| group.iter().map(move |job| (job, outcome)))
                .collect();
            store::transaction(conn, |conn| {
                record_many(conn, &a.config, &a.counters, &outcomes, now)
            })
        })
        .await;
        if let Err(e) = recorded {
            // The leases run out and the deliveries are tried again.
            tracing::warn!(error = %e, "recording deliveries could not run");
        }
    }
}

/// Fan-out loops on PostgreSQL: each locks a batch of its own (`SKIP LOCKED`). SQLite
/// has one (one writer anyway).
const FAN_OUT_LOOPS: usize = 2;

/// The least time between two fan-out passes that a write's signal starts: under a
/// stream of moves a pass takes what came meanwhile, not one notification each.
const FAN_OUT_GAP: Duration = Duration::from_millis(10);

/// Fans out new notifications, batch after batch while there are more, else when a write
/// signals new ones (at most every [`FAN_OUT_GAP`]) or every `DJAMBI_DELIVERY_INTERVAL`
/// (rows written without a signal: another instance's, whose signal was lost); apart
/// from the claims (on a connection of its own), so that a burst's first pushes go out
/// while the rest is fanned out, and wakes the claims after each batch that made
/// deliveries.
async fn fan_out_loop(d: Arc<Delivery>, stop: CancellationToken, made: Arc<tokio::sync::Notify>) {
    let every = d.config.delivery_interval.max(Duration::from_millis(1));
    while !stop.is_cancelled() {
        // Registered before the pass: a signal during it starts the next one.
        let written = d.notes_written.clone();
        let mut signalled = std::pin::pin!(written.notified());
        signalled.as_mut().enable();
        let started = tokio::time::Instant::now();
        let (a, now) = (d.clone(), d.clock.now());
        let fanned = store::run(&d.pool, move |conn| fan_out(conn, &a.config, now)).await;
        let more = match fanned {
            Ok((n, created)) => {
                Counters::add(&d.counters.fanned_out, n);
                Counters::add(&d.counters.created, created);
                if created > 0 {
                    made.notify_one();
                }
                n as i64 >= BATCH
            }
            Err(e) => {
                tracing::warn!(error = %e, "fanning out notifications failed");
                false
            }
        };
        if !more {
            let woken = std::pin::pin!(async {
                signalled.await;
                tokio::time::sleep_until(started + FAN_OUT_GAP).await;
            });
            let timer = std::pin::pin!(tokio::time::sleep(every));
            let wait = futures_util::future::select(timer, woken);
            let _ = futures_util::future::select(std::pin::pin!(stop.cancelled()), wait).await;
        }
    }
}

/// One step of the loop: claims what each lane has room for (never for an
/// endpoint that has its share in flight), gives back what it cannot start, and starts
/// the rest on `running`. Returns whether a lane claimed all it had room for (more may
/// be due at once).
async fn claim_and_start(
    d: &Arc<Delivery>,
    flight: &mut InFlight,
    running: &mut Running,
    recorder: &Recorder,
) -> Result<bool, store::RunError> {
    let cfg = &d.config;
    let per_endpoint = cfg.delivery_per_endpoint.max(1);
    let per_account = cfg.delivery_per_account.max(1);
    let mut wants = Vec::new();
    for lane in Lane::ALL {
        let cap = match lane {
            Lane::Http => cfg.delivery_concurrency,
            Lane::Mail => cfg.mail_concurrency,
        };
        let free = cap.saturating_sub(flight.lane(lane)).min(BATCH as usize);
        if free > 0 {
            wants.push((lane, free));
        }
    }
    let (busy, busy_users) = flight.busy(per_endpoint, per_account);
    let now = d.clock.now();
    let until = now + delta(cfg.delivery_lease);
    let a = d.clone();
    let wanted = wants.clone();
    let claimed = store::run(&d.pool, move |conn| {
        let mut out = Vec::new();
        for (lane, free) in wanted {
            let claim = store::deliveries::claim_lane(
                conn,
                lane,
                now,
                until,
                free as i64,
                &busy,
                &busy_users,
            );
            // A digest goes as one mail: every due item of a claimed digest's address
            // comes along, whatever the lane's room.
            let claim = claim.and_then(|mut ids| {
                if lane == Lane::Mail {
                    ids.extend(store::deliveries::claim_digest_rest(
                        conn, &ids, now, until,
                    )?);
                }
                Ok(ids)
            });
            let jobs = claim.and_then(|ids| load_jobs(conn, &a.mail_context(), &ids, until));
            match jobs {
                Ok(jobs) => out.push((lane, free, jobs)),
                Err(e) => tracing::warn!(error = %e, ?lane, "claiming deliveries failed"),
            }
        }
        Ok::<_, store::RunError>(out)
    })
    .await?;
    let mut full = false;
    let mut give_back: Vec<(String, NaiveDateTime)> = Vec::new();
    for (lane, free, jobs) in claimed {
        full |= jobs.len() >= free;
        Counters::add(&d.counters.claimed, jobs.len());
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
        for group in groups {
            let place = Place {
                lane,
                endpoint: group[0].delivery.endpoint.clone(),
                user: group[0].delivery.user_id.clone(),
            };
            let endpoint_full =
                flight.endpoints.get(&place.endpoint).copied().unwrap_or(0) >= per_endpoint;
            let account_full = flight.users.get(&place.user).copied().unwrap_or(0) >= per_account;
            if endpoint_full || account_full {
                // Claimed with others of its endpoint or account, which took their share:
                // back to the queue unattempted, due at once (the next claims leave it out
                // until a place frees).
                for job in &group {
                    give_back.push((job.delivery.id.clone(), job.lease));
                }
                continue;
            }
            flight.take(&place);
            let d = d.clone();
            let leases: Vec<(String, NaiveDateTime)> = group
                .iter()
                .map(|j| (j.delivery.id.clone(), j.lease))
                .collect();
            let task = running.set.spawn(send_group(d, group, recorder.clone()));
            running.places.insert(task.id(), place);
            running.leases.insert(task.id(), leases);
        }
    }
    if !give_back.is_empty() {
        store::run(&d.pool, move |conn| {
            for (id, lease) in &give_back {
                if let Err(e) = store::deliveries::give_back(conn, id, *lease) {
                    tracing::warn!(delivery = %id, error = %e, "giving a delivery back failed");
                }
            }
            Ok::<_, store::RunError>(())
        })
        .await?;
    }
    Ok(full)
}

/// The delivery loop: a continuous stream of attempts under bounds. Each lane (HTTP:
/// webhooks and push; mail) has `DJAMBI_DELIVERY_CONCURRENCY` / `DJAMBI_MAIL_CONCURRENCY`
/// places; each endpoint at most `DJAMBI_DELIVERY_PER_ENDPOINT` of them. Whenever places
/// are free it claims more; each attempt's place is freed as soon as it finishes (its
/// outcome goes to the recorder), so a hung receiver holds its own places only, until its
/// timeout. When nothing is left to claim it sleeps until the next delivery is due (the
/// index on `next_attempt_at`), an attempt finishes, a fan-out batch made deliveries, or
/// `DJAMBI_DELIVERY_INTERVAL` passed.
pub async fn run(d: Arc<Delivery>, stop: CancellationToken) {
    let every = d.config.delivery_interval.max(Duration::from_millis(1));
    let mut flight = InFlight::default();
    let mut running = Running::default();
    let (recorder, outcomes) = tokio::sync::mpsc::unbounded_channel();
    let recording = tokio::spawn(record_outcomes(d.clone(), outcomes));
    let made = Arc::new(tokio::sync::Notify::new());
    let on_pg = store::run(&d.pool, |conn| {
        Ok::<_, store::RunError>(matches!(conn, store::DbConnection::Pg(_)))
    })
    .await
    .unwrap_or(false);
    let mut fanning = JoinSet::new();
    for _ in 0..if on_pg { FAN_OUT_LOOPS } else { 1 } {
        fanning.spawn(fan_out_loop(d.clone(), stop.clone(), made.clone()));
    }
    // A claim round (fan-out, claim, load) for every finished attempt capped a burst at
    // one round's rate (about 530 pushes/s on two cores): while attempts run, places are
    // gathered until an eighth of the HTTP lane is free or GATHER has passed since the
    // first one freed, and claimed together.
    let claim_at = (d.config.delivery_concurrency / 8).max(1);
    let mut freed_at: Option<std::time::Instant> = None;
    while !stop.is_cancelled() {
        let room = d
            .config
            .delivery_concurrency
            .saturating_sub(flight.lane(Lane::Http));
        let gathering = freed_at
            .filter(|_| !running.set.is_empty() && room < claim_at)
            .map(|at| GATHER.saturating_sub(at.elapsed()))
            .filter(|left| !left.is_zero());
        let rest = if let Some(left) = gathering {
            left
        } else {
            freed_at = None;
            let full = match claim_and_start(&d, &mut flight, &mut running, &recorder).await {
                Ok(full) => full,
                Err(e) => {
                    tracing::warn!(error = %e, "delivery round could not run");
                    false
                }
            };
            if full {
                Duration::ZERO
            } else {
                let (now, pool) = (d.clock.now(), d.pool.clone());
                let next = store::run(&pool, move |conn| store::deliveries::next_due(conn, now))
                    .await
                    .ok()
                    .flatten();
                match next {
                    // Due now but not claimed: its endpoint is busy; a finished attempt
                    // wakes us.
                    Some(at) if at <= now => every,
                    Some(at) => (at - now).to_std().unwrap_or(every).min(every),
                    None => every,
                }
            }
        };
        if rest.is_zero() && !running.set.is_empty() {
            // Reap what finished without waiting.
            running.reap(&mut flight);
            continue;
        }
        let wait = std::pin::pin!(tokio::time::sleep(rest.max(Duration::from_millis(1))));
        let stopped = std::pin::pin!(stop.cancelled());
        // New deliveries (a fan-out batch) end the wait too, unless places are gathered.
        let fanned = std::pin::pin!(async {
            if gathering.is_some() {
                std::future::pending::<()>().await;
            }
            made.notified().await;
        });
        let wait = futures_util::future::select(wait, fanned);
        if running.set.is_empty() {
            let _ = futures_util::future::select(stopped, wait).await;
            continue;
        }
        let done = {
            let finished = std::pin::pin!(running.set.join_next_with_id());
            match futures_util::future::select(
                futures_util::future::select(stopped, wait),
                finished,
            )
            .await
            {
                futures_util::future::Either::Right((done, _)) => done,
                futures_util::future::Either::Left(_) => None,
            }
        };
        if let Some(done) = done {
            running.finished(&mut flight, done);
            running.reap(&mut flight);
            freed_at.get_or_insert_with(std::time::Instant::now);
        }
    }
    // Attempts in flight may finish for a moment; the rest are abandoned (a hung receiver
    // must not hold up the shutdown) and given back to the queue unattempted, so the next
    // start (or another instance) tries them at once, not after their lease.
    let _ = tokio::time::timeout(STOP_WAIT, async {
        while let Some(done) = running.set.join_next_with_id().await {
            running.finished(&mut flight, done);
        }
    })
    .await;
    running.set.shutdown().await;
    while fanning.join_next().await.is_some() {}
    // Every attempt is over: the recorder records what they sent, then stops.
    drop(recorder);
    let _ = recording.await;
    let left: Vec<(String, NaiveDateTime)> = running.leases.drain().flat_map(|(_, l)| l).collect();
    if !left.is_empty() {
        let _ = store::run(&d.pool, move |conn| {
            for (id, lease) in &left {
                let _ = store::deliveries::give_back(conn, id, *lease);
            }
            Ok::<_, store::RunError>(())
        })
        .await;
    }
}

/// How long freed places are gathered before they are claimed (see [`run`]).
const GATHER: Duration = Duration::from_millis(2);

/// How long a stopping worker waits for its attempts in flight.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// The attempts running, with the place each holds.
#[derive(Default)]
struct Running {
    set: JoinSet<()>,
    places: HashMap<tokio::task::Id, Place>,
    /// The deliveries (id, lease) each attempt holds.
    leases: HashMap<tokio::task::Id, Vec<(String, NaiveDateTime)>>,
}

impl Running {
    fn finished(
        &mut self,
        flight: &mut InFlight,
        done: Result<(tokio::task::Id, ()), tokio::task::JoinError>,
    ) {
        let id = match done {
            Ok((id, ())) => id,
            Err(e) => {
                // Never expected: the lease runs out and the delivery is tried again.
                tracing::error!(error = %e, "a delivery attempt did not finish");
                e.id()
            }
        };
        if let Some(p) = self.places.remove(&id) {
            flight.free(&p);
        }
        self.leases.remove(&id);
    }

    /// Frees the places of every attempt that finished, without waiting.
    fn reap(&mut self, flight: &mut InFlight) {
        while let Some(done) = self.set.try_join_next_with_id() {
            self.finished(flight, done);
        }
    }
}

/// Starts the delivery worker on the server's runtime.
pub fn spawn(d: Arc<Delivery>, shutdown: &Shutdown) {
    let stop = shutdown.token();
    shutdown.spawn("delivery", run(d, stop));
}
