//! The live streams: one hub per instance fans new game events and notification rows out
//! to every open Server-Sent Events stream, so an idle stream costs no query.
//!
//! A *topic* is a game (`g:<id>`) or a user (`u:<id>`). A signal says that a topic got
//! new rows: on PostgreSQL a `NOTIFY` read by the instance's one listening connection
//! (`workers::listen`), on SQLite the write path's in-process note (`store::live`). On a
//! signal the hub reads what is new for that topic ONCE (after the newest row it has
//! passed on) and broadcasts it to the topic's streams; a topic nobody watches is not
//! read. Signals arriving together are folded: one read per topic per batch.
//!
//! A stream subscribes to its topic *before* it reads its backlog from the database
//! (`Last-Event-ID` / `?after=`), then passes on only what it has not sent: game events
//! by version (contiguous, so a gap is seen and filled from the database), notifications
//! by id (the feed's [`StreamCursor`]). So there is no gap between backlog and fan-out
//! and no duplicate. A stream that falls behind the broadcast (a slow client) reads from
//! the database again from where it is. When the listening connection comes back after a
//! drop, the hub re-reads every watched topic (signal [`RESYNC`]).
//!
//! Open streams are bounded per account (or, for an anonymous game stream, per client
//! address) and per instance ([`Hub::admit`]).

pub mod limits;

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use tokio::sync::{broadcast, mpsc, watch};

pub use limits::{LiveError, Permit, StreamLimits};

use crate::ids::{GameId, UserId};
use crate::notifications::feed::StreamCursor;
use crate::store::games::EventRow;
use crate::store::outbox::NotificationRow;
use crate::store::{self, DbPool, StoreError};

/// The signal that re-reads every watched topic (the listener reconnected).
pub const RESYNC: &str = "*";

/// Rows read per database read (a backlog is read in pages of this size).
const PAGE: i64 = 100;

/// Batches a topic's broadcast keeps for a slow stream before it must re-read.
const BACKLOG: usize = 16;

/// How often topics nobody watches are forgotten.
const SWEEP: Duration = Duration::from_secs(10);

/// Topics read at once after a batch of signals.
const READS_AT_ONCE: usize = 4;

/// A stream of one topic: batches of rows, in order, each once.
pub type LiveStream<T> = Pin<Box<dyn Stream<Item = Vec<T>> + Send>>;

struct GameTopic {
    tx: broadcast::Sender<Arc<Vec<EventRow>>>,
    /// The newest version passed on.
    last: i64,
}

struct UserTopic {
    tx: broadcast::Sender<Arc<Vec<NotificationRow>>>,
    /// What the hub has passed on.
    cursor: StreamCursor,
}

/// One instance's fan-out (see the module documentation).
pub struct Hub {
    pool: DbPool,
    games: Mutex<HashMap<GameId, GameTopic>>,
    users: Mutex<HashMap<UserId, UserTopic>>,
    limits: StreamLimits,
    /// The last answer of each credential check of open streams (`routes::sse`): the
    /// streams of one token share it, so N streams of a token cost one read per interval.
    /// Keys are `<user id>/<credential>`; a credential signal of the user forgets them.
    checks: Mutex<HashMap<String, (std::time::Instant, bool)>>,
    /// Per user with open streams opened with credentials: bumped when a credential of
    /// the user ended (signal `c:<user id>`), or may have ([`RESYNC`]), so that only
    /// those streams check again (`routes::sse::Guard`): an idle stream costs no read.
    credentials: Mutex<HashMap<String, watch::Sender<u64>>>,
    /// Database reads made for signals (for the tests and the benchmark).
    reads: std::sync::atomic::AtomicU64,
    /// Periodic re-reads of the watched topics ([`Hub::recheck`]).
    rechecks: std::sync::atomic::AtomicU64,
    /// Woken by every game signal (a game changed somewhere): the due-work worker looks
    /// again when its next work is due.
    pub games_changed: Arc<tokio::sync::Notify>,
    /// Woken by every user signal (a notification row was written): the delivery
    /// worker fans it out now, not at its next `DJAMBI_DELIVERY_INTERVAL`.
    pub notes_written: Arc<tokio::sync::Notify>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hub {
    pub fn new(pool: DbPool, limits: StreamLimits) -> Hub {
        Hub {
            pool,
            games: Mutex::new(HashMap::new()),
            users: Mutex::new(HashMap::new()),
            limits,
            checks: Mutex::new(HashMap::new()),
            credentials: Mutex::new(HashMap::new()),
            reads: Default::default(),
            rechecks: Default::default(),
            games_changed: Arc::default(),
            notes_written: Arc::default(),
        }
    }

    /// A place for one more open stream of `who` (an account, or a client address), or
    /// why not.
    pub fn admit(&self, who: &str) -> Result<Permit, LiveError> {
        self.limits.admit(who)
    }

    /// Open streams on this instance.
    pub fn open_streams(&self) -> usize {
        self.limits.open()
    }

    /// Watched topics (games, users).
    pub fn topics(&self) -> (usize, usize) {
        (lock(&self.games).len(), lock(&self.users).len())
    }

    /// Database reads made for signals so far.
    pub fn reads(&self) -> u64 {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Runs the hub: reads `inbox` until `stop`, folding signals that arrive together.
    pub async fn run(
        self: Arc<Self>,
        mut inbox: mpsc::UnboundedReceiver<String>,
        stop: tokio_util::sync::CancellationToken,
    ) {
        let mut swept = std::time::Instant::now();
        loop {
            let got = {
                let stopped = std::pin::pin!(stop.cancelled());
                let next = std::pin::pin!(tokio::time::timeout(SWEEP, inbox.recv()));
                match futures_util::future::select(stopped, next).await {
                    futures_util::future::Either::Left(_) => return,
                    futures_util::future::Either::Right((got, _)) => got,
                }
            };
            if swept.elapsed() >= SWEEP {
                self.sweep();
                swept = std::time::Instant::now();
            }
            let first = match got {
                Ok(Some(s)) => s,
                Ok(None) => return,
                Err(_) => continue,
            };
            let mut batch = HashSet::from([first]);
            while let Ok(s) = inbox.try_recv() {
                batch.insert(s);
            }
            if batch.iter().any(|s| s.starts_with("g:") || s == RESYNC) {
                self.games_changed.notify_one();
            }
            if batch.iter().any(|s| s.starts_with("u:") || s == RESYNC) {
                self.notes_written.notify_waiters();
            }
            if batch.contains(RESYNC) {
                self.credentials_changed(None);
            }
            batch.retain(|s| match s.strip_prefix("c:") {
                Some(user) => {
                    self.credentials_changed(Some(user));
                    false
                }
                None => true,
            });
            let topics: Vec<String> = if batch.contains(RESYNC) {
                let mut all: Vec<String> =
                    lock(&self.games).keys().map(|g| format!("g:{g}")).collect();
                all.extend(lock(&self.users).keys().map(|u| format!("u:{u}")));
                all
            } else {
                batch.into_iter().collect()
            };
            futures_util::stream::iter(topics)
                .for_each_concurrent(READS_AT_ONCE, |t| {
                    let hub = self.clone();
                    async move { hub.refresh(&t).await }
                })
                .await;
        }
    }

    /// Changes whenever a credential of `user` may have ended (see [`Hub::credentials`]).
    pub fn credential_changes(&self, user: &UserId) -> watch::Receiver<u64> {
        lock(&self.credentials)
            .entry(user.to_string())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// A credential of `user` (of everyone: `None`) may have ended: forgets the checks'
    /// answers and wakes the streams that hold them.
    fn credentials_changed(&self, user: Option<&str>) {
        match user {
            Some(user) => {
                let prefix = format!("{user}/");
                lock(&self.checks).retain(|k, _| !k.starts_with(&prefix));
                if let Some(tx) = lock(&self.credentials).get(user) {
                    tx.send_modify(|n| *n += 1);
                }
            }
            None => {
                lock(&self.checks).clear();
                for tx in lock(&self.credentials).values() {
                    tx.send_modify(|n| *n += 1);
                }
            }
        }
    }

    /// The answer of the check `key` if one was recorded within `within`.
    pub fn recent_check(&self, key: &str, within: Duration) -> Option<bool> {
        lock(&self.checks)
            .get(key)
            .filter(|(at, _)| at.elapsed() < within)
            .map(|(_, good)| *good)
    }

    /// Records the answer of the check `key` (see [`Hub::recent_check`]).
    pub fn record_check(&self, key: &str, good: bool) {
        lock(&self.checks).insert(key.to_string(), (std::time::Instant::now(), good));
    }

    /// Forgets the topics nobody watches any more.
    fn sweep(&self) {
        lock(&self.checks).retain(|_, (at, _)| at.elapsed() < Duration::from_secs(15 * 60));
        lock(&self.games).retain(|_, t| t.tx.receiver_count() > 0);
        lock(&self.users).retain(|_, t| t.tx.receiver_count() > 0);
        lock(&self.credentials).retain(|_, tx| tx.receiver_count() > 0);
    }

    /// Reads what is new for one topic and broadcasts it.
    async fn refresh(&self, topic: &str) {
        if let Some(game) = topic.strip_prefix("g:") {
            self.refresh_game(&GameId::new(game)).await;
        } else if let Some(user) = topic.strip_prefix("u:") {
            self.refresh_user(&UserId::new(user)).await;
        }
    }

    async fn refresh_game(&self, game: &GameId) {
        loop {
            let (tx, last) = {
                let games = lock(&self.games);
                match games.get(game) {
                    Some(t) if t.tx.receiver_count() > 0 => (t.tx.clone(), t.last),
                    _ => return,
                }
            };
            self.count_read();
            let id = game.clone();
            let read = store::run(&self.pool, move |conn| {
                store::games::load_events(conn, &id, last, i64::MAX, Some(PAGE))
            })
            .await;
            let rows = match read {
                Ok(rows) if rows.is_empty() => return,
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(error = %e, %game, "live: reading a game's events failed");
                    return;
                }
            };
            let full = rows.len() as i64 == PAGE;
            let newest = rows.last().map_or(last, |r| r.seq);
            if let Some(t) = lock(&self.games).get_mut(game) {
                t.last = t.last.max(newest);
            }
            let _ = tx.send(Arc::new(rows));
            if !full {
                return;
            }
        }
    }

    async fn refresh_user(&self, user: &UserId) {
        loop {
            let (tx, cursor) = {
                let users = lock(&self.users);
                match users.get(user) {
                    Some(t) if t.tx.receiver_count() > 0 => (t.tx.clone(), t.cursor.clone()),
                    _ => return,
                }
            };
            self.count_read();
            let u = user.clone();
            let read = store::run(&self.pool, move |conn| {
                let mut cursor = cursor;
                let rows = cursor.poll(conn, &u, PAGE)?;
                Ok::<_, StoreError>((cursor, rows))
            })
            .await;
            let (cursor, rows) = match read {
                Ok((_, rows)) if rows.is_empty() => return,
                Ok(v) => v,
                Err(e) => {
                    tracing::warn!(error = %e, "live: reading a user's notifications failed");
                    return;
                }
            };
            let full = rows.len() as i64 == PAGE;
            if let Some(t) = lock(&self.users).get_mut(user) {
                t.cursor = cursor;
            }
            let _ = tx.send(Arc::new(rows));
            if !full {
                return;
            }
        }
    }

    /// Every `every` until `stop`, [`Hub::recheck`].
    pub async fn recheck_every(
        self: Arc<Self>,
        every: Duration,
        stop: tokio_util::sync::CancellationToken,
    ) {
        loop {
            let stopped = std::pin::pin!(stop.cancelled());
            let rest = std::pin::pin!(tokio::time::sleep(every));
            if let futures_util::future::Either::Left(_) =
                futures_util::future::select(stopped, rest).await
            {
                return;
            }
            self.recheck().await;
        }
    }

    /// The safety net under the signals of other instances (one may be lost: see
    /// `store::live`): reads the newest version of every watched game and the recent
    /// notifications of every watched user, in one round trip whatever the number of
    /// streams, and reads again the topics that have something their streams lack.
    /// Nothing is read when nothing is watched.
    pub async fn recheck(self: &Arc<Self>) {
        let games: Vec<(GameId, i64)> = lock(&self.games)
            .iter()
            .filter(|(_, t)| t.tx.receiver_count() > 0)
            .map(|(g, t)| (g.clone(), t.last))
            .collect();
        let users: Vec<(UserId, chrono::NaiveDateTime)> = lock(&self.users)
            .iter()
            .filter(|(_, t)| t.tx.receiver_count() > 0)
            .map(|(u, t)| {
                let since = t
                    .cursor
                    .newest
                    .map_or(chrono::DateTime::UNIX_EPOCH.naive_utc(), |n| {
                        n - crate::notifications::feed::LOOK_BACK
                    });
                (u.clone(), since)
            })
            .collect();
        if games.is_empty() && users.is_empty() {
            return;
        }
        self.rechecks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let read = store::run(&self.pool, move |conn| {
            let games = store::live::games_past(conn, &games)?;
            let notes = store::live::notifications_since(conn, &users)?;
            Ok::<_, StoreError>((games, notes))
        })
        .await;
        let (games, notes) = match read {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "live: the periodic re-read failed");
                return;
            }
        };
        let mut topics: HashSet<String> = games.into_iter().map(|g| format!("g:{g}")).collect();
        {
            let users = lock(&self.users);
            for (user, id) in notes {
                if users
                    .get(&user)
                    .is_some_and(|t| !t.cursor.sent.contains_key(&id))
                {
                    topics.insert(format!("u:{user}"));
                }
            }
        }
        if topics.is_empty() {
            return;
        }
        tracing::debug!(
            topics = topics.len(),
            "live: the periodic re-read found news"
        );
        futures_util::stream::iter(topics)
            .for_each_concurrent(READS_AT_ONCE, |t| {
                let hub = self.clone();
                async move { hub.refresh(&t).await }
            })
            .await;
    }

    /// Periodic re-reads made so far ([`Hub::recheck`]).
    pub fn rechecks(&self) -> u64 {
        self.rechecks.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn count_read(&self) {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// `GET /v1/games/{id}/stream` for `who` (an account or a client address): the
    /// events after version `last` (without it, what comes next), then each new one.
    pub async fn open_game(
        self: &Arc<Self>,
        who: &str,
        id: GameId,
        last: Option<i64>,
    ) -> Result<LiveStream<EventRow>, LiveError> {
        let permit = self.admit(who)?;
        let g = id.clone();
        let current = store::run(&self.pool, move |conn| {
            store::games::current_version(conn, &g)
        })
        .await?;
        let after = last.unwrap_or(current).min(current);
        Ok(self.game_stream(id, after, permit))
    }

    /// `GET /v1/me/notifications/stream` for `user`: the items after `last`
    /// (`Last-Event-ID`; without it, what comes next), then each new one.
    pub async fn open_feed(
        self: &Arc<Self>,
        user: &UserId,
        last: Option<String>,
    ) -> Result<LiveStream<NotificationRow>, LiveError> {
        let permit = self.admit(user.as_str())?;
        Ok(self.user_stream(user.clone(), last, permit).await?)
    }

    /// The events of game `id` after version `after`, then each new one as it is written.
    /// `permit` is held as long as the stream is open.
    pub fn game_stream(
        self: &Arc<Self>,
        id: GameId,
        after: i64,
        permit: Permit,
    ) -> LiveStream<EventRow> {
        let rx = {
            let mut games = lock(&self.games);
            let topic = games.entry(id.clone()).or_insert_with(|| GameTopic {
                tx: broadcast::channel(BACKLOG).0,
                last: after,
            });
            topic.tx.subscribe()
        };
        struct S {
            pool: DbPool,
            id: GameId,
            cursor: i64,
            rx: broadcast::Receiver<Arc<Vec<EventRow>>>,
            backlog: bool,
            _permit: Permit,
        }
        let s = S {
            pool: self.pool.clone(),
            id,
            cursor: after,
            rx,
            backlog: true,
            _permit: permit,
        };
        Box::pin(futures_util::stream::unfold(s, |mut s| async move {
            loop {
                if s.backlog {
                    let (id, after) = (s.id.clone(), s.cursor);
                    let read = store::run(&s.pool, move |conn| {
                        store::games::load_events(conn, &id, after, i64::MAX, Some(PAGE))
                    })
                    .await;
                    match read {
                        Ok(rows) if rows.is_empty() => s.backlog = false,
                        Ok(rows) => {
                            s.cursor = rows.last().map_or(s.cursor, |r| r.seq);
                            return Some((rows, s));
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "game stream: reading the backlog failed");
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    }
                    continue;
                }
                match s.rx.recv().await {
                    Ok(batch) => {
                        let rows: Vec<EventRow> =
                            batch.iter().filter(|r| r.seq > s.cursor).cloned().collect();
                        match rows.first() {
                            None => {}
                            // A gap (the hub read from further on): fill it from the log.
                            Some(r) if r.seq != s.cursor + 1 => s.backlog = true,
                            Some(_) => {
                                s.cursor = rows.last().map_or(s.cursor, |r| r.seq);
                                return Some((rows, s));
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => s.backlog = true,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        }))
    }

    /// A user's notifications after `last` (`Last-Event-ID`; without it, what comes
    /// next), then each new one as it is written. Only that user's rows are ever read for
    /// it. `permit` is held as long as the stream is open.
    pub async fn user_stream(
        self: &Arc<Self>,
        user: UserId,
        last: Option<String>,
        permit: Permit,
    ) -> Result<LiveStream<NotificationRow>, StoreError> {
        let known = lock(&self.users).contains_key(&user);
        if !known {
            let u = user.clone();
            let cursor =
                store::run(&self.pool, move |conn| StreamCursor::start(conn, &u, None)).await?;
            lock(&self.users)
                .entry(user.clone())
                .or_insert_with(|| UserTopic {
                    tx: broadcast::channel(BACKLOG).0,
                    cursor,
                });
        }
        let rx = match lock(&self.users).get(&user) {
            Some(t) => t.tx.subscribe(),
            None => {
                return Err(StoreError::Database(
                    "live: the user's topic vanished".into(),
                ));
            }
        };
        let u = user.clone();
        let cursor = store::run(&self.pool, move |conn| {
            StreamCursor::start(conn, &u, last.as_deref())
        })
        .await?;
        struct S {
            pool: DbPool,
            user: UserId,
            cursor: StreamCursor,
            rx: broadcast::Receiver<Arc<Vec<NotificationRow>>>,
            backlog: bool,
            _permit: Permit,
        }
        let s = S {
            pool: self.pool.clone(),
            user,
            cursor,
            rx,
            backlog: true,
            _permit: permit,
        };
        Ok(Box::pin(futures_util::stream::unfold(
            s,
            |mut s| async move {
                loop {
                    if s.backlog {
                        let (cursor, user) = (s.cursor.clone(), s.user.clone());
                        let read = store::run(&s.pool, move |conn| {
                            let mut cursor = cursor;
                            let rows = cursor.poll(conn, &user, PAGE)?;
                            Ok::<_, StoreError>((cursor, rows))
                        })
                        .await;
                        match read {
                            Ok((cursor, rows)) => {
                                s.cursor = cursor;
                                if rows.is_empty() {
                                    s.backlog = false;
                                } else {
                                    return Some((rows, s));
                                }
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "notification stream: reading the backlog failed");
                                tokio::time::sleep(Duration::from_secs(1)).await;
                            }
                        }
                        continue;
                    }
                    match s.rx.recv().await {
                        Ok(batch) => {
                            let mine: Vec<NotificationRow> = batch
                                .iter()
                                .filter(|r| r.user_id == s.user)
                                .cloned()
                                .collect();
                            let fresh = s.cursor.accept(&mine);
                            if !fresh.is_empty() {
                                return Some((fresh, s));
                            }
                        }
                        Err(broadcast::error::RecvError::Lagged(_)) => s.backlog = true,
                        Err(broadcast::error::RecvError::Closed) => return None,
                    }
                }
            },
        )))
    }
}

/// Creates a hub and its inbox (what signals are sent to).
pub fn hub(
    pool: DbPool,
    limits: StreamLimits,
) -> (
    Arc<Hub>,
    mpsc::UnboundedSender<String>,
    mpsc::UnboundedReceiver<String>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Arc::new(Hub::new(pool, limits)), tx, rx)
}
