//! Graceful shutdown: SIGTERM or SIGINT stops the server in three steps.
//!
//! 1. **Drain.** The listeners close (no new connections), `/readyz` answers 503 (a load
//!    balancer stops sending work), and every answer still sent on an open connection
//!    carries `Connection: close`, so keep-alive clients move to another instance.
//! 2. **Finish.** Requests in flight run to completion within `DJAMBI_SHUTDOWN_GRACE`
//!    (default 30 s): a move that was answered `201` is committed. After the grace period
//!    the remaining connections are dropped (their clients got no answer, so nothing
//!    acknowledged is lost).
//! 3. **Stop the workers.** Background tasks spawned with [`Shutdown::spawn`] see
//!    [`Shutdown::token`] cancelled, finish what they are doing, and are awaited (again
//!    within the grace period). Work they had not started stays in the database for the
//!    next start (e.g. outbox rows).
//!
//! A second signal during the drain stops at once. The in-process test servers stop through
//! [`actix_web::dev::ServerHandle`] instead and go through steps 2 and 3 the same way.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use actix_web::dev::ServerHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The shutdown state shared by the server, its middleware and its background workers.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    draining: AtomicBool,
    /// Cancelled when draining begins (open event streams end on it).
    drain: CancellationToken,
    workers: CancellationToken,
    tracker: TaskTracker,
}

impl Shutdown {
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    /// True once a stop has begun: `/readyz` fails and connections are closed after their
    /// current answer.
    pub fn is_draining(&self) -> bool {
        self.inner.draining.load(Ordering::Relaxed)
    }

    /// Enters the draining state (step 1).
    pub fn begin_draining(&self) {
        self.inner.draining.store(true, Ordering::Relaxed);
        self.inner.drain.cancel();
    }

    /// Cancelled when the server begins to stop: what holds a connection open (an event
    /// stream) ends on it, so the drain is not held up for the whole grace.
    pub fn draining(&self) -> CancellationToken {
        self.inner.drain.clone()
    }

    /// Cancelled when background workers must stop (after the HTTP server has stopped).
    /// A worker checks it between units of work, e.g. with
    /// `futures_util::future::select(token.cancelled(), tick)`.
    pub fn token(&self) -> CancellationToken {
        self.inner.workers.clone()
    }

    /// Spawns a background worker on the current actix runtime; [`Shutdown::stop_workers`]
    /// waits for it. The worker should return soon after [`Shutdown::token`] is cancelled.
    pub fn spawn<F>(&self, name: &'static str, worker: F)
    where
        F: Future<Output = ()> + 'static,
    {
        tracing::debug!(worker = name, "background worker started");
        let tracked = self.inner.tracker.track_future(async move {
            worker.await;
            tracing::debug!(worker = name, "background worker stopped");
        });
        actix_web::rt::spawn(tracked);
    }

    /// Spawns a worker that runs `pass` until shutdown: after a pass that answers
    /// [`Pace::Rest`] it waits `every`, after [`Pace::Again`] (a full batch: more work is
    /// waiting) it runs again at once. Cancellation is seen between passes and during the
    /// rest, never in the middle of a pass, so a unit of work is finished or not begun.
    pub fn spawn_periodic<F, Fut>(&self, name: &'static str, every: Duration, mut pass: F)
    where
        F: FnMut() -> Fut + 'static,
        Fut: Future<Output = Pace> + 'static,
    {
        let stop = self.token();
        self.spawn(name, async move {
            while !stop.is_cancelled() {
                if pass().await == Pace::Again {
                    continue;
                }
                let rest = std::pin::pin!(actix_web::rt::time::sleep(every));
                let stopped = std::pin::pin!(stop.cancelled());
                if let futures_util::future::Either::Left(_) =
                    futures_util::future::select(stopped, rest).await
                {
                    break;
                }
            }
        });
    }

    /// Step 3: cancels the workers and waits up to `within` for them. Returns false if some
    /// were still running when the time was up.
    pub async fn stop_workers(&self, within: Duration) -> bool {
        self.begin_draining();
        self.inner.workers.cancel();
        self.inner.tracker.close();
        let done = actix_web::rt::time::timeout(within, self.inner.tracker.wait())
            .await
            .is_ok();
        if done {
            tracing::info!("background workers stopped");
        } else {
            tracing::warn!(
                still_running = self.inner.tracker.len(),
                "background workers did not stop within the grace period"
            );
        }
        done
    }
}

/// What a periodic worker does after a pass (see [`Shutdown::spawn_periodic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Wait the worker's interval before the next pass.
    Rest,
    /// Run the next pass at once: the last one stopped at its batch size.
    Again,
}

/// Listens for SIGTERM and SIGINT (Ctrl-C): the first starts a graceful stop, a second one
/// stops at once. Replaces actix's own handling, which stops at once on SIGINT.
pub fn listen_for_signals(server: ServerHandle, shutdown: Shutdown, grace: Duration) {
    actix_web::rt::spawn(async move {
        let Some(first) = next_signal().await else {
            return;
        };
        tracing::info!(
            signal = first,
            grace_secs = grace.as_secs(),
            "stopping: no new connections, finishing requests in flight"
        );
        shutdown.begin_draining();
        let graceful = server.clone();
        actix_web::rt::spawn(async move { graceful.stop(true).await });
        if let Some(second) = next_signal().await {
            tracing::warn!(signal = second, "second signal: stopping now");
            server.stop(false).await;
        }
    });
}

/// The next SIGTERM or SIGINT, by name (`None` if signals cannot be listened to).
#[cfg(unix)]
async fn next_signal() -> Option<&'static str> {
    use actix_web::rt::signal::unix::{SignalKind, signal};
    use futures_util::future::{Either, select};
    let (mut term, mut int) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(t), Ok(i)) => (t, i),
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!(error = %e, "cannot listen for SIGTERM/SIGINT");
            return None;
        }
    };
    let term = Box::pin(term.recv());
    let int = Box::pin(int.recv());
    match select(term, int).await {
        Either::Left(_) => Some("SIGTERM"),
        Either::Right(_) => Some("SIGINT"),
    }
}

#[cfg(not(unix))]
async fn next_signal() -> Option<&'static str> {
    actix_web::rt::signal::ctrl_c()
        .await
        .ok()
        .map(|()| "Ctrl-C")
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    #[actix_web::test]
    async fn a_periodic_worker_runs_at_once_after_a_full_batch_and_stops_on_shutdown() {
        let shutdown = Shutdown::new();
        let passes = Rc::new(Cell::new(0u32));
        let counted = passes.clone();
        // Three full batches, then rests of an hour: only a stop can end the rest.
        shutdown.spawn_periodic("test", Duration::from_secs(3600), move || {
            let counted = counted.clone();
            async move {
                counted.set(counted.get() + 1);
                if counted.get() <= 3 {
                    Pace::Again
                } else {
                    Pace::Rest
                }
            }
        });
        for _ in 0..50 {
            actix_web::rt::task::yield_now().await;
        }
        assert_eq!(
            passes.get(),
            4,
            "three batches run back to back, then a rest"
        );
        assert!(shutdown.stop_workers(Duration::from_secs(5)).await);
        assert_eq!(passes.get(), 4, "no pass after the stop");
    }
}
