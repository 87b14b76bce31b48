//! The delivery worker: in every server process, loops that fan out new notifications
//! ([`fan_out_loop`]), a loop that claims due deliveries and sends them (webhooks over
//! HTTP, mail over SMTP), and a recorder that records their outcomes, many to a
//! transaction ([`record_outcomes`]). The queue's rules (fan-out, back-off, the dead
//! letter, disabling endpoints) are [`crate::notifications::delivery`].

use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDateTime;

use super::email::{self as smtp, Mailer};
use crate::clock::Clock;
use crate::config::{Config, Secret};
use crate::ids::UserId;
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
use places::{Group, Limits, Places};

mod places;
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
/// stream of moves a pass takes what came meanwhile, not one notification each. At 10 ms
/// the passes (up to 100 a second per loop, each a few statements) cost the moves 6-10%
/// of their rate on PostgreSQL (BENCHMARKS.md); 100 ms is unnoticed in a push or a mail.
const FAN_OUT_GAP: Duration = Duration::from_millis(100);

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

/// What one claim brought: the groups of each lane, whether a lane got all it asked
/// for (more may be due at once), and else when the next delivery not claimed is due.
struct Claimed {
    groups: Vec<Group>,
    full: bool,
    next_due: Option<NaiveDateTime>,
}

/// Claims what `wants` asks for (lane, how many), none to the endpoints `busy` nor of
/// the accounts `busy_users`, and loads the jobs; in one trip to the blocking pool.
async fn claim(
    d: Arc<Delivery>,
    wants: Vec<(Lane, usize)>,
    busy: Vec<String>,
    busy_users: Vec<UserId>,
) -> Result<Claimed, store::RunError> {
    let now = d.clock.now();
    let until = now + delta(d.config.delivery_lease);
    let pool = d.pool.clone();
    store::run(&pool, move |conn| {
        let mut claimed = Claimed {
            groups: Vec::new(),
            full: false,
            next_due: None,
        };
        for (lane, wanted) in wants {
            let ids = store::deliveries::claim_lane(
                conn,
                lane,
                now,
                until,
                wanted as i64,
                &busy,
                &busy_users,
            );
            // A digest goes as one mail: every due item of a claimed digest's address
            // comes along, whatever the lane's room.
            let ids = ids.and_then(|mut ids| {
                if lane == Lane::Mail {
                    ids.extend(store::deliveries::claim_digest_rest(
                        conn, &ids, now, until,
                    )?);
                }
                Ok(ids)
            });
            match ids.and_then(|ids| load_jobs(conn, &d.mail_context(), &ids, until)) {
                Ok(mut jobs) => {
                    claimed.full |= jobs.len() >= wanted;
                    // In the order they fell due (the claim's rows come back in any
                    // order): of one endpoint's, the earliest are admitted first, and
                    // an address reads its mails in the order they were written.
                    jobs.sort_by(|a, b| {
                        (
                            a.delivery.next_attempt_at,
                            a.note.created_at,
                            &a.delivery.id,
                        )
                            .cmp(&(
                                b.delivery.next_attempt_at,
                                b.note.created_at,
                                &b.delivery.id,
                            ))
                    });
                    Counters::add(&d.counters.claimed, jobs.len());
                    claimed.groups.extend(places::groups(lane, jobs));
                }
                Err(e) => tracing::warn!(error = %e, ?lane, "claiming deliveries failed"),
            }
        }
        if !claimed.full {
            claimed.next_due = store::deliveries::next_due(conn, now).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "reading when the next delivery is due failed");
                None
            });
        }
        Ok::<_, store::RunError>(claimed)
    })
    .await
}

/// Gives claimed deliveries back to the queue unattempted, due as they were.
async fn give_back(d: &Delivery, leases: Vec<(String, NaiveDateTime)>) {
    if leases.is_empty() {
        return;
    }
    let given = store::run(&d.pool, move |conn| {
        for (id, lease) in &leases {
            if let Err(e) = store::deliveries::give_back(conn, id, *lease) {
                tracing::warn!(delivery = %id, error = %e, "giving a delivery back failed");
            }
        }
        Ok::<_, store::RunError>(())
    })
    .await;
    if let Err(e) = given {
        // The leases run out and the deliveries are tried again.
        tracing::warn!(error = %e, "giving deliveries back could not run");
    }
}

/// The delivery loop: a continuous stream of attempts under the bounds of [`places`]:
/// places per lane, a share per endpoint and per account, slow attempts out of the lane.
/// Claims run ahead of the sending, one at a time, while attempts go on: whenever a lane
/// has places and groups ready, the next attempt starts at once; whenever half a lane or
/// less is ready and more may be due, the next claim goes out. More may be due after a
/// claim that got all it asked for, a fan-out batch that made deliveries, a finished
/// attempt while due deliveries were left out for their endpoint's or account's share,
/// the next delivery's due time (the index on `next_attempt_at`), or
/// `DJAMBI_DELIVERY_INTERVAL` without any of those.
pub async fn run(d: Arc<Delivery>, stop: CancellationToken) {
    use std::future::Future;
    use std::pin::Pin;
    use tokio::time::Instant;

    let every = d.config.delivery_interval.max(Duration::from_millis(1));
    let limits = Limits::of(&d.config);
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

    let mut places: Places<tokio::task::Id> = Places::default();
    let mut attempts: JoinSet<()> = JoinSet::new();
    type Claiming = Pin<Box<dyn Future<Output = Result<Claimed, store::RunError>>>>;
    let mut claiming: Option<Claiming> = None;
    // A claim may find something.
    let mut want = true;
    // Due deliveries were left out for their endpoint's or account's share.
    let mut blocked = false;
    let mut look_at = Instant::now() + every;
    while !stop.is_cancelled() {
        while let Some(group) = places.next_to_start(&limits) {
            let (place, leases) = (group.place.clone(), group.leases());
            let task = attempts.spawn(send_group(d.clone(), group.jobs, recorder.clone()));
            places.started(task.id(), place, leases, Instant::now().into_std());
        }
        if claiming.is_none() && want {
            let wants = places.wants(&limits);
            if !wants.is_empty() {
                want = false;
                let (busy, busy_users) = places.busy(&limits);
                claiming = Some(Box::pin(claim(d.clone(), wants, busy, busy_users)));
            }
        }
        let wake = places
            .next_slow(&limits)
            .map_or(look_at, |at| Instant::from_std(at).min(look_at));
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            Some(done) = attempts.join_next_with_id(), if !attempts.is_empty() => {
                places.finished(attempt_id(done));
                while let Some(done) = attempts.try_join_next_with_id() {
                    places.finished(attempt_id(done));
                }
                want |= blocked;
            }
            claimed = async { claiming.as_mut().expect("a claim runs").await }, if claiming.is_some() => {
                claiming = None;
                match claimed {
                    Ok(c) => {
                        let refused = places.admit(c.groups, &limits);
                        // Due at once again, but left out until their endpoint's or
                        // account's share frees.
                        blocked = !refused.is_empty();
                        give_back(&d, refused.iter().flat_map(Group::leases).collect()).await;
                        if c.full {
                            want = true;
                        } else {
                            let now = d.clock.now();
                            blocked |= c.next_due.is_some_and(|at| at <= now);
                            let wait = match c.next_due {
                                Some(at) if at > now => (at - now).to_std().unwrap_or(every).min(every),
                                _ => every,
                            };
                            look_at = Instant::now() + wait;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "claiming deliveries could not run");
                        look_at = Instant::now() + every;
                    }
                }
            }
            () = made.notified() => want = true,
            () = tokio::time::sleep_until(wake) => {
                let now = Instant::now();
                if now >= look_at {
                    want = true;
                    look_at = now + every;
                }
                places.mark_slow(now.into_std(), &limits);
            }
        }
    }
    // Attempts in flight may finish for a moment; the rest are abandoned (a hung receiver
    // must not hold up the shutdown) and given back to the queue unattempted, so the next
    // start (or another instance) tries them at once, not after their lease. So are the
    // groups ready, and what a claim still running brings.
    let _ = tokio::time::timeout(STOP_WAIT, async {
        while let Some(done) = attempts.join_next_with_id().await {
            places.finished(attempt_id(done));
        }
    })
    .await;
    attempts.shutdown().await;
    let mut left = places.leases_left();
    if let Some(claim) = claiming.take() {
        if let Ok(c) = claim.await {
            left.extend(c.groups.iter().flat_map(Group::leases));
        }
    }
    while fanning.join_next().await.is_some() {}
    // Every attempt is over: the recorder records what they sent, then stops.
    drop(recorder);
    let _ = recording.await;
    give_back(&d, left).await;
}

/// The id of a finished (or failed) attempt's task.
fn attempt_id(done: Result<(tokio::task::Id, ()), tokio::task::JoinError>) -> tokio::task::Id {
    match done {
        Ok((id, ())) => id,
        Err(e) => {
            // Never expected: the lease runs out and the delivery is tried again.
            tracing::error!(error = %e, "a delivery attempt did not finish");
            e.id()
        }
    }
}

/// How long a stopping worker waits for its attempts in flight.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// Starts the delivery worker on the server's runtime.
pub fn spawn(d: Arc<Delivery>, shutdown: &Shutdown) {
    let stop = shutdown.token();
    shutdown.spawn("delivery", run(d, stop));
}
