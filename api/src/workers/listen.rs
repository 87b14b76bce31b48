//! The instance's one listening PostgreSQL connection (see `crate::live`): `LISTEN
//! djambi_live`, then pass every notification's payload (`g:<game>`, `u:<user>`) to the
//! hub. It runs on a thread of its own; every `DJAMBI_NOTIFY_POLL` it reads what arrived
//! on the socket (no query, no round trip), and every [`PING_EVERY`] of silence it sends
//! one `SELECT 1` to find a connection that died without a word.
//!
//! When the connection drops (the server restarted, the backend was terminated), it
//! connects again (after [`RETRY`] if that fails) and sends [`crate::live::RESYNC`]: the
//! hub re-reads every watched topic, so what was written meanwhile still arrives.

use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::store::live;

/// A round trip after this much silence.
pub const PING_EVERY: Duration = Duration::from_secs(30);

/// The wait before connecting again after a failed attempt.
pub const RETRY: Duration = Duration::from_millis(500);

/// What the listener needs.
#[derive(Debug, Clone)]
pub struct Listener {
    pub url: String,
    pub every: Duration,
    pub hub: UnboundedSender<String>,
    pub stop: CancellationToken,
}

/// Starts the listening thread; it ends when `stop` is cancelled.
pub fn spawn(listener: Listener) {
    let spawned = std::thread::Builder::new()
        .name("djambi-listen".into())
        .spawn(move || run(listener));
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the listening thread; streams get nothing new");
    }
}

fn run(l: Listener) {
    let mut first = true;
    while !l.stop.is_cancelled() {
        let mut conn = match live::listen(&l.url) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "live: cannot listen; trying again");
                std::thread::sleep(RETRY);
                continue;
            }
        };
        if !first {
            tracing::info!("live: listening again; re-reading the watched topics");
        }
        first = false;
        if l.hub.send(crate::live::RESYNC.into()).is_err() {
            return;
        }
        let mut heard = Instant::now();
        loop {
            if l.stop.is_cancelled() {
                return;
            }
            match live::drain(&mut conn) {
                Ok(payloads) if payloads.is_empty() => {}
                Ok(payloads) => {
                    heard = Instant::now();
                    for p in payloads {
                        if l.hub.send(p).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "live: the listening connection dropped");
                    break;
                }
            }
            if heard.elapsed() >= PING_EVERY {
                if let Err(e) = live::ping(&mut conn) {
                    tracing::warn!(error = %e, "live: the listening connection is dead");
                    break;
                }
                heard = Instant::now();
            }
            std::thread::sleep(l.every);
        }
    }
}
