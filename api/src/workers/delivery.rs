//! The delivery worker: in every server process, a loop that fans out new notifications,
//! claims due deliveries, sends them (webhooks over HTTP, mail over SMTP) and records each
//! outcome. The queue's rules (fan-out, back-off, the dead letter, disabling endpoints)
//! are [`crate::notifications::delivery`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDateTime;
use futures_util::StreamExt;

use super::email::{self as smtp, Mailer};
use crate::clock::Clock;
use crate::config::{Config, Secret};
use crate::notifications::config::NotifyConfig;
use crate::notifications::delivery::{
    BATCH, CONCURRENCY, Counters, Job, Outcome, Target, delta, fan_out, load_jobs, record,
    webhook_body,
};
use crate::notifications::email::{self, Mail, MailContext};
use crate::notifications::push::{self, PushSubscriptionRow, VapidKeys};
use crate::notifications::stable_id;
use crate::notifications::webhooks::{self, WebhookRow};
use crate::shutdown::{Pace, Shutdown};
use crate::store::cache::GameCache;
use crate::store::{self, DbPool};

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
}

impl Delivery {
    pub fn new(
        config: &Config,
        pool: DbPool,
        clock: Arc<dyn Clock>,
        games: Arc<GameCache>,
    ) -> Result<Delivery, String> {
        let cfg = &config.notify;
        Ok(Delivery {
            client: webhooks::client(cfg.webhook_timeout, cfg.webhook_allow_private)?,
            mailer: cfg.smtp.as_ref().map(smtp::mailer).transpose()?,
            counters: Arc::new(Counters::default()),
            config: cfg.clone(),
            public_url: config.public_url.as_str().to_string(),
            signing_secret: config.jwt_secret.clone(),
            vapid: cfg.vapid.as_ref().map(VapidKeys::of).transpose()?,
            games,
            mail_domain: config.mail_moves.domain.clone(),
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

    /// Sends one job.
    async fn send(&self, job: &Job, now: NaiveDateTime) -> Outcome {
        match &job.target {
            Target::Webhook(hook) => send_webhook(&self.client, hook, &job.note, now).await,
            Target::Email { to, mail } | Target::Digest { to, mail } => {
                self.send_mail(to, mail, &job.delivery.id).await
            }
            Target::Push { sub, payload } => match &self.vapid {
                Some(keys) => {
                    send_push(&self.client, keys, sub, payload, &job.note.kind, now).await
                }
                None => Outcome::Dead("Web Push is not enabled".into()),
            },
            Target::Gone(why) => Outcome::Dead(why.clone()),
        }
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
        Ok(r) if matches!(r.status().as_u16(), 404 | 410) => Outcome::Unsubscribed {
            status: i32::from(r.status().as_u16()),
        },
        other => answer(other),
    }
}

/// The outcome of an HTTP attempt: a 2xx delivers; anything else is tried again.
fn answer(res: Result<reqwest::Response, reqwest::Error>) -> Outcome {
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
    answer(res)
}

/// One round: fan out, claim, send, record. Returns the number of deliveries claimed.
pub async fn round(d: &Arc<Delivery>) -> Result<usize, store::RunError> {
    let now = d.clock.now();
    let until = now + delta(d.config.delivery_lease);
    let a = d.clone();
    let jobs = store::run(&d.pool, move |conn| {
        let cfg = &a.config;
        loop {
            match fan_out(conn, cfg, now) {
                Ok((n, created)) => {
                    Counters::add(&a.counters.fanned_out, n);
                    Counters::add(&a.counters.created, created);
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
        let jobs = store::deliveries::claim(conn, now, until, BATCH)
            .and_then(|ids| load_jobs(conn, &a.mail_context(), &ids, until));
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
    Counters::add(&d.counters.claimed, claimed);
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
                    let mails: Vec<&Mail> = group
                        .iter()
                        .filter_map(|j| match &j.target {
                            Target::Digest { mail, .. } => Some(mail),
                            _ => None,
                        })
                        .collect();
                    let day = group[0].delivery.next_attempt_at.date() - chrono::Days::new(1);
                    let mail = email::digest(&mails, day);
                    let id = stable_id(&["digest", to, &day.to_string()]);
                    d.send_mail(to, &mail, &id).await
                }
                _ => d.send(&group[0], d.clock.now()).await,
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
    let a = d.clone();
    store::run(&d.pool, move |conn| {
        let now = a.clock.now();
        for (job, outcome) in &results {
            if let Err(e) = record(conn, &a.config, &a.counters, job, outcome, now) {
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
pub fn spawn(d: Arc<Delivery>, shutdown: &Shutdown) {
    let every = d.config.delivery_interval.max(Duration::from_millis(1));
    shutdown.spawn_periodic("delivery", every, move || {
        let d = d.clone();
        async move {
            match round(&d).await {
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
