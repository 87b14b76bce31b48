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
//! own and after the writes' commits. A payload of one's own instance is skipped. An
//! instance alone on its database (no other listening connection, asked at most every
//! [`OTHERS_ASKED_EVERY`]) sends nothing: on a site of one instance a move costs no
//! `NOTIFY`. An instance that starts listening greets the others ([`live::listen`]), so
//! that they signal again at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::store::live;

/// A round trip after this much silence.
pub const PING_EVERY: Duration = Duration::from_secs(30);

/// The wait before connecting again after a failed attempt.
pub const RETRY: Duration = Duration::from_millis(500);

/// How long the publisher trusts its last look at whether other instances listen
/// ([`live::others_listen`]). An instance that starts listening is told of writes at most
/// this much later, and its streams re-read every `DJAMBI_LIVE_RECHECK` meanwhile.
pub const OTHERS_ASKED_EVERY: Duration = Duration::from_secs(1);

/// What the listener needs.
#[derive(Debug, Clone)]
pub struct Listener {
    pub url: String,
    pub every: Duration,
    /// This instance (its own payloads are skipped).
    pub instance: String,
    pub hub: UnboundedSender<String>,
    /// Set when a payload of another instance arrives (see [`Publisher::heard_others`]).
    pub heard_others: Arc<AtomicBool>,
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
        let mut conn = match live::listen(&l.url, &l.instance) {
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
                        if live::is_from_another(&p, &l.instance) {
                            l.heard_others.store(true, Ordering::Relaxed);
                        }
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
    /// Set by this instance's listener when another instance spoke (it greets on
    /// listening): the publisher then knows it is not alone without asking.
    pub heard_others: Arc<AtomicBool>,
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
    // Whether another instance listened when last asked, and when that was.
    let mut others: Option<(Instant, bool)> = None;
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
            // Alone on the database: nobody to tell (a commit and the notification
            // queue's cluster-wide lock saved per window). An instance that starts
            // meanwhile is told from the next ask on, and re-reads before that.
            if p.heard_others.swap(false, Ordering::Relaxed) {
                others = Some((Instant::now(), true));
            }
            let fresh = others.filter(|(at, _)| at.elapsed() < OTHERS_ASKED_EVERY);
            let listening = match fresh {
                Some((_, listening)) => listening,
                None => {
                    // Unknown (the read failed): tell, as if someone listened.
                    let listening = live::others_listen(c, &p.instance).unwrap_or(true);
                    others = Some((Instant::now(), listening));
                    listening
                }
            };
            if !listening {
                break;
            }
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
