//! The instance's one listening PostgreSQL connection (see `crate::live`): `LISTEN
//! djambi_live`, then pass every notification's payload (`g:<game>`, `u:<user>`) to the
//! hub. It runs on a thread of its own; every `DJAMBI_NOTIFY_POLL` it reads what arrived
//! on the socket (no query, no round trip), and every [`PING_EVERY`] of silence it sends
//! one `SELECT 1` to find a connection that died without a word.
//!
//! When the connection drops (the server restarted, the backend was terminated), it
//! connects again (after [`RETRY`] if that fails) and sends [`crate::live::RESYNC`]: the
//! hub re-reads every watched topic, so what was written meanwhile still arrives.
//!
//! The other way, [`spawn_publisher`]: the topics this instance's writes changed (its own
//! hub already has them, in process) are gathered for `DJAMBI_SIGNAL_EVERY` and sent to
//! the other instances in one `NOTIFY` (`@<instance> g:.. u:..`), on a connection of its
//! own and after the writes' commits. A payload of one's own instance is skipped.

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
    /// This instance (its own payloads are skipped).
    pub instance: String,
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
                        for topic in live::topics_of(&p, &l.instance) {
                            if l.hub.send(topic.to_string()).is_err() {
                                return;
                            }
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

/// What the publisher needs.
#[derive(Debug)]
pub struct Publisher {
    pub url: String,
    /// How long topics are gathered before one `NOTIFY`.
    pub every: Duration,
    pub instance: String,
    pub topics: std::sync::mpsc::Receiver<String>,
    pub stop: CancellationToken,
}

/// Starts the publishing thread; it ends when `stop` is cancelled (sending what it holds).
pub fn spawn_publisher(publisher: Publisher) {
    let spawned = std::thread::Builder::new()
        .name("djambi-signal".into())
        .spawn(move || publish_loop(publisher));
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the signalling thread; other instances learn of writes by their periodic re-read");
    }
}

fn publish_loop(p: Publisher) {
    use std::sync::mpsc::RecvTimeoutError;
    let mut conn: Option<diesel::PgConnection> = None;
    loop {
        let first = match p.topics.recv_timeout(Duration::from_millis(200)) {
            Ok(t) => t,
            Err(RecvTimeoutError::Timeout) if p.stop.is_cancelled() => return,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        // Gather what the next few milliseconds write (ends early when stopping).
        let until = Instant::now() + p.every;
        while !p.stop.is_cancelled() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(100)));
        }
        let mut topics = std::collections::BTreeSet::from([first]);
        while let Ok(t) = p.topics.try_recv() {
            topics.insert(t);
        }
        // c: signals come from triggers; only games and users are told here.
        topics.retain(|t| t.starts_with("g:") || t.starts_with("u:"));
        let payloads = live::payloads(&p.instance, &topics);
        if payloads.is_empty() {
            continue;
        }
        // One attempt, and one more on a fresh connection; a signal lost here is made
        // up by the other instances' periodic re-read.
        for attempt in 0..2 {
            if conn.is_none() {
                match live::publisher_connection(&p.url) {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        tracing::warn!(error = %e, "live: cannot signal the other instances");
                        break;
                    }
                }
            }
            let Some(c) = conn.as_mut() else { break };
            match live::publish(c, &payloads) {
                Ok(()) => break,
                Err(e) => {
                    conn = None;
                    if attempt == 1 {
                        tracing::warn!(error = %e, topics = topics.len(), "live: signalling the other instances failed");
                    }
                }
            }
        }
    }
}
