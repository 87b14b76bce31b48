//! Background housekeeping, every `DJAMBI_JANITOR_INTERVAL`: forgets the answers stored
//! under `Idempotency-Key`s once they are older than their retention, releases the held
//! names of closed accounts, and prunes what outlived its retention period (settings,
//! [`crate::config::Retention`]): read and unread notifications, finished deliveries,
//! ended sessions, used or expired tokens, the records of replies by mail, finished analyses
//! of games. Each prune deletes at most [`PRUNE_BATCH`] rows
//! per statement and pauses [`PRUNE_PAUSE`] between statements, so a large backlog never
//! holds the database for long. It stops when the server shuts down (see `shutdown`),
//! after the statement it is running, if any.

use std::sync::Arc;
use std::time::Duration;

use chrono::{NaiveDateTime, TimeDelta};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::Retention;
use crate::shutdown::{Pace, Shutdown};
use crate::store::{self, DbConnection, DbPool, StoreError, idempotency, retention};

/// Rows deleted by one statement at most.
pub const PRUNE_BATCH: i64 = 1000;
/// The pause between two statements of a prune.
pub const PRUNE_PAUSE: Duration = Duration::from_millis(50);

/// What the janitor needs.
#[derive(Debug, Clone)]
pub struct Janitor {
    pub pool: DbPool,
    pub clock: Arc<dyn Clock>,
    /// How long an idempotent answer is kept (`DJAMBI_IDEMPOTENCY_RETENTION`).
    pub retention: Duration,
    /// The retention periods of the rest, and how often the janitor runs.
    pub periods: Retention,
    /// `DJAMBI_REFRESH_TOKEN_TTL`: a session unused for longer has ended.
    pub refresh_token_ttl: Duration,
}

fn td(d: Duration) -> TimeDelta {
    TimeDelta::from_std(d).unwrap_or(TimeDelta::MAX)
}

/// `now - d`, or the earliest time (nothing is that old).
fn before(now: NaiveDateTime, d: Duration) -> NaiveDateTime {
    now.checked_sub_signed(td(d)).unwrap_or(NaiveDateTime::MIN)
}

/// One kind of data to prune: its name (the log's) and one bounded statement.
type Prune = (
    &'static str,
    fn(&mut DbConnection, &Janitor, NaiveDateTime, i64) -> Result<usize, StoreError>,
);

/// Every prune, in order (deliveries before the notifications they belong to).
fn prunes() -> [Prune; 7] {
    [
        ("deliveries", |c, j, now, n| {
            retention::deliveries(c, before(now, j.periods.deliveries), n)
        }),
        ("notifications", |c, j, now, n| {
            retention::notifications(
                c,
                before(now, j.periods.read_notifications),
                before(now, j.periods.unread_notifications),
                n,
            )
        }),
        ("sessions", |c, j, now, n| {
            let idle = before(now, j.periods.sessions.saturating_add(j.refresh_token_ttl));
            retention::sessions(c, before(now, j.periods.sessions), idle, n)
        }),
        ("refresh tokens", |c, j, now, n| {
            retention::refresh_tokens(c, before(now, j.periods.tokens), n)
        }),
        ("account and mail tokens", |c, j, now, n| {
            retention::account_tokens(c, before(now, j.periods.tokens), n)
        }),
        ("inbound mails", |c, j, now, n| {
            retention::inbound_mails(c, before(now, j.periods.tokens), n)
        }),
        ("analyses of games", |c, j, now, n| {
            store::analyses::prune(c, before(now, j.periods.analyses), n)
        }),
    ]
}

/// Prunes everything that outlived its retention at `now`, `batch` rows per statement;
/// returns how many rows of each kind were deleted.
pub async fn prune(
    janitor: &Janitor,
    now: NaiveDateTime,
    batch: i64,
    stop: &CancellationToken,
) -> Vec<(&'static str, usize)> {
    let mut done = Vec::new();
    for (name, statement) in prunes() {
        let mut total = 0;
        while !stop.is_cancelled() {
            let j = janitor.clone();
            let deleted =
                store::run(&janitor.pool, move |conn| statement(conn, &j, now, batch)).await;
            match deleted {
                Ok(n) => {
                    total += n;
                    if (n as i64) < batch {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, what = name, "pruning failed");
                    break;
                }
            }
            tokio::time::sleep(PRUNE_PAUSE).await;
        }
        if total > 0 {
            tracing::info!(pruned = total, what = name, "pruned past their retention");
        }
        done.push((name, total));
    }
    done
}

/// Starts the periodic clean-up; it stops at shutdown.
pub fn spawn(janitor: Janitor, shutdown: &Shutdown) {
    let Ok(retention) = chrono::TimeDelta::from_std(janitor.retention) else {
        return;
    };
    // A retention of idempotency keys shorter than the interval is honoured too.
    let every = janitor
        .periods
        .every
        .min(janitor.retention)
        .max(Duration::from_millis(10));
    let stop = shutdown.token();
    shutdown.spawn_periodic("janitor", every, move || {
        let (janitor, stop) = (janitor.clone(), stop.clone());
        async move {
            let now = janitor.clock.now();
            let cutoff = now - retention;
            let purged = store::run(&janitor.pool, move |conn| {
                let names = store::erasure::purge_held_names(conn, now)?;
                if names > 0 {
                    tracing::info!(purged = names, "held names of closed accounts released");
                }
                idempotency::purge_before(conn, cutoff)
            })
            .await;
            match purged {
                Ok(0) => {}
                Ok(n) => tracing::info!(purged = n, "expired idempotency keys forgotten"),
                Err(e) => tracing::warn!(error = %e, "purging idempotency keys failed"),
            }
            prune(&janitor, now, PRUNE_BATCH, &stop).await;
            Pace::Rest
        }
    });
}
