//! The signals behind the stream fan-out (`crate::live`): which game or user got new
//! rows. A signal names a topic, `g:<game id>` or `u:<user id>`, and says only "read
//! again"; what is new is always read from the tables.
//!
//! The write path notes its topics itself ([`note`]: `store::games::append`, the outbox,
//! reminders), on the writing thread; [`flush`] (called by `store::transaction` once its
//! commit is done and by `store::run` after its closure) hands them to the instance's
//! [`Signals`]: its own hub at once, in process, and on PostgreSQL the instance's
//! [`Publisher`], which tells the other instances with one coalesced `NOTIFY` on a
//! connection of its own. No write transaction sends a `NOTIFY` (PostgreSQL serialises
//! the commits of notifying transactions on one cluster-wide lock). A note of a write
//! that rolled back only causes one needless read.
//!
//! A signal to the other instances can be lost (the instance dies between its commit and
//! its `NOTIFY`): each instance also re-reads, every `DJAMBI_LIVE_RECHECK`, the newest
//! version of the games and users its streams watch (`crate::live::Hub::recheck`).
//!
//! Revoked or deleted credentials (`c:<user id>`, migration `000190`) still signal from
//! triggers: those commits are rare, and on SQLite the trigger calls `djambi_signal`, a
//! function registered on each pooled connection ([`register_sqlite`]).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use diesel::prelude::*;

use super::StoreError;
use crate::ids::{GameId, UserId};

/// The PostgreSQL channel of the signals.
pub const CHANNEL: &str = "djambi_live";

/// The longest payload of one `NOTIFY` (PostgreSQL allows just under 8000 bytes).
const PAYLOAD_MAX: usize = 7900;

type Sink = Arc<Mutex<Option<tokio::sync::mpsc::UnboundedSender<String>>>>;

/// Where an instance's signals go (the hub's inbox, and the publisher to the other
/// instances); set once the hub exists.
#[derive(Clone, Default)]
pub struct Signals {
    sink: Sink,
    others: Arc<Mutex<Option<std::sync::mpsc::Sender<String>>>>,
}

impl std::fmt::Debug for Signals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signals")
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Signals {
    /// Sends every signal from now on to `tx`.
    pub fn connect(&self, tx: tokio::sync::mpsc::UnboundedSender<String>) {
        *lock(&self.sink) = Some(tx);
    }

    /// Also passes the write path's signals to `tx` (the [`Publisher`]'s queue).
    pub fn publish_to(&self, tx: std::sync::mpsc::Sender<String>) {
        *lock(&self.others) = Some(tx);
    }

    /// Passes one signal on (dropped when nothing listens).
    pub fn send(&self, topic: String) {
        if let Some(tx) = &*lock(&self.others) {
            let _ = tx.send(topic.clone());
        }
        if let Some(tx) = &*lock(&self.sink) {
            let _ = tx.send(topic);
        }
    }
}

thread_local! {
    /// The signals of the connection this thread writes with (see [`enter`]).
    static CURRENT: RefCell<Option<Signals>> = const { RefCell::new(None) };
    /// Topics noted on this thread, not yet handed on.
    static PENDING: RefCell<Vec<(Signals, String)>> = const { RefCell::new(Vec::new()) };
}

/// While the returned guard lives, [`note`] on this thread notes for `signals`.
pub fn enter(signals: &Signals) -> Entered {
    let before = CURRENT.with(|c| c.replace(Some(signals.clone())));
    Entered { before }
}

/// See [`enter`].
pub struct Entered {
    before: Option<Signals>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.before.take();
        CURRENT.with(|c| *c.borrow_mut() = before);
    }
}

/// Notes that `topic` got new rows in the write under way on this thread; handed on by
/// [`flush`] after the commit. Nothing happens outside [`enter`] (a command-line tool).
pub fn note(topic: String) {
    let Some(signals) = CURRENT.with(|c| c.borrow().clone()) else {
        return;
    };
    note_for(signals, topic);
}

fn note_for(signals: Signals, topic: String) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if !p.iter().any(|(_, t)| *t == topic) {
            p.push((signals, topic));
        }
    });
}

diesel::define_sql_function! {
    /// Notes a topic for the hub (SQLite only; see the module documentation).
    fn djambi_signal(topic: diesel::sql_types::Text) -> diesel::sql_types::Integer;
}

/// Registers `djambi_signal` on a SQLite connection, noting topics for `signals`.
pub fn register_sqlite(
    conn: &mut diesel::SqliteConnection,
    signals: &Signals,
) -> Result<(), diesel::result::Error> {
    let signals = std::panic::AssertUnwindSafe(signals.clone());
    djambi_signal_utils::register_impl(conn, move |topic: String| {
        note_for(signals.0.clone(), topic);
        0
    })
}

/// Hands the topics noted on this thread to their hubs.
pub fn flush() {
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    for (signals, topic) in pending {
        signals.send(topic);
    }
}

/// Where the notes of this thread are now (see [`discard_since`]).
pub fn mark() -> usize {
    PENDING.with(|p| p.borrow().len())
}

/// Forgets the topics noted on this thread since [`mark`] gave `mark` (their write was
/// rolled back).
pub fn discard_since(mark: usize) {
    PENDING.with(|p| p.borrow_mut().truncate(mark));
}
/// The `application_name` of the listening connections: `djambi-live <instance>`, by
/// which a publisher sees whether any other instance listens ([`others_listen`]).
const LISTENER_NAME: &str = "djambi-live";

/// A PostgreSQL connection of `instance` listening on [`CHANNEL`]. It first greets the
/// other instances (an empty payload, `@<instance>`), so that a publisher that thought
/// itself alone signals again at once.
pub fn listen(url: &str, instance: &str) -> Result<PgConnection, StoreError> {
    use diesel::sql_types::Text;
    let mut conn = PgConnection::establish(url)
        .map_err(|e| StoreError::Database(format!("listening connection: {e}")))?;
    diesel::sql_query("SELECT set_config('application_name', $1, false)")
        .bind::<Text, _>(format!("{LISTENER_NAME} {instance}"))
        .execute(&mut conn)?;
    publish(&mut conn, &[format!("@{instance}")])?;
    diesel::sql_query(format!("LISTEN {CHANNEL}")).execute(&mut conn)?;
    Ok(conn)
}

/// Whether an instance other than `instance` listens on this database now (a read of
/// `pg_stat_activity`: no commit). A site of one instance then sends no `NOTIFY` at all.
pub fn others_listen(conn: &mut PgConnection, instance: &str) -> Result<bool, StoreError> {
    use diesel::sql_types::{Bool, Text};
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = Bool)]
        found: bool,
    }
    let row: Found = diesel::sql_query(
        "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() \
         AND application_name LIKE $1 AND application_name <> $2) AS found",
    )
    .bind::<Text, _>(format!("{LISTENER_NAME} %"))
    .bind::<Text, _>(format!("{LISTENER_NAME} {instance}"))
    .get_result(conn)?;
    Ok(row.found)
}

/// The payloads that arrived on a listening connection since the last call (reading the
/// socket, no query); an error when the connection is gone.
pub fn drain(conn: &mut PgConnection) -> Result<Vec<String>, StoreError> {
    let mut out = Vec::new();
    for n in conn.notifications_iter() {
        out.push(n?.payload);
    }
    Ok(out)
}

/// A round trip on the listening connection (to find a connection that died silently).
pub fn ping(conn: &mut PgConnection) -> Result<(), StoreError> {
    use diesel::connection::SimpleConnection;
    conn.batch_execute("SELECT 1")?;
    Ok(())
}

/// The payloads that tell the other instances about `topics`: `@<instance> <topic> ...`,
/// each under PostgreSQL's limit.
pub fn payloads(instance: &str, topics: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = format!("@{instance}");
    for t in topics {
        if current.len() + 1 + t.len() > PAYLOAD_MAX && current.contains(' ') {
            out.push(std::mem::replace(&mut current, format!("@{instance}")));
        }
        current.push(' ');
        current.push_str(t);
    }
    if current.contains(' ') {
        out.push(current);
    }
    out
}

/// The topics of a payload that came from another instance than `instance` (a trigger's
/// payload is one bare topic); none for one's own.
pub fn topics_of<'a>(payload: &'a str, instance: &str) -> Vec<&'a str> {
    let mut words = payload.split_whitespace().peekable();
    if let Some(from) = words.peek().and_then(|w| w.strip_prefix('@')) {
        if from == instance {
            return Vec::new();
        }
        words.next();
    }
    words.collect()
}

/// Whether `payload` was sent by another instance than `instance` (a signal or a
/// greeting; a trigger's bare topic is nobody's).
pub fn is_from_another(payload: &str, instance: &str) -> bool {
    payload
        .split_whitespace()
        .next()
        .and_then(|w| w.strip_prefix('@'))
        .is_some_and(|from| from != instance)
}

/// Sends `payloads` on `conn` in one statement (one commit, outside any write).
pub fn publish(conn: &mut PgConnection, payloads: &[String]) -> Result<(), StoreError> {
    use diesel::sql_types::{Array, Text};
    diesel::sql_query(format!(
        "SELECT pg_notify('{CHANNEL}', p) FROM unnest($1::text[]) WITH ORDINALITY AS u(p, n) ORDER BY n"
    ))
    .bind::<Array<Text>, _>(payloads)
    .execute(conn)?;
    Ok(())
}

/// A connection for [`publish`].
pub fn publisher_connection(url: &str) -> Result<PgConnection, StoreError> {
    PgConnection::establish(url)
        .map_err(|e| StoreError::Database(format!("signalling connection: {e}")))
}

/// The versions of the watched games that are past the version their streams were given
/// (`watched`: game id, newest version passed on), as (game id, version).
pub fn games_past(
    conn: &mut super::DbConnection,
    watched: &[(GameId, i64)],
) -> Result<Vec<GameId>, StoreError> {
    use super::schema::games;
    let mut moved = Vec::new();
    for chunk in watched.chunks(1000) {
        let ids: Vec<&GameId> = chunk.iter().map(|(id, _)| id).collect();
        let now: Vec<(GameId, i64)> = games::table
            .filter(games::id.eq_any(&ids))
            .select((games::id, games::version))
            .load(conn)?;
        let passed: std::collections::HashMap<&GameId, i64> =
            chunk.iter().map(|(id, v)| (id, *v)).collect();
        moved.extend(
            now.into_iter()
                .filter(|(id, v)| passed.get(id).is_some_and(|p| v > p))
                .map(|(id, _)| id),
        );
    }
    Ok(moved)
}

/// The notification ids of the watched users written at or after each user's `since`
/// (`watched`: user id, since), as (user id, notification id): the rows a stream of the
/// user may not have been given yet (account mails are never streamed).
pub fn notifications_since(
    conn: &mut super::DbConnection,
    watched: &[(UserId, chrono::NaiveDateTime)],
) -> Result<Vec<(UserId, String)>, StoreError> {
    use super::schema::notifications;
    let mut out = Vec::new();
    for chunk in watched.chunks(1000) {
        let Some(oldest) = chunk.iter().map(|(_, t)| *t).min() else {
            continue;
        };
        let ids: Vec<&UserId> = chunk.iter().map(|(id, _)| id).collect();
        let since: std::collections::HashMap<&UserId, chrono::NaiveDateTime> =
            chunk.iter().map(|(id, t)| (id, *t)).collect();
        let rows: Vec<(UserId, String, chrono::NaiveDateTime)> = notifications::table
            .filter(notifications::user_id.eq_any(&ids))
            .filter(notifications::created_at.ge(oldest))
            .filter(notifications::kind.not_like(super::feed::ACCOUNT_MAILS))
            .select((
                notifications::user_id,
                notifications::id,
                notifications::created_at,
            ))
            .load(conn)?;
        out.extend(
            rows.into_iter()
                .filter(|(u, _, at)| since.get(u).is_some_and(|s| at >= s))
                .map(|(u, id, _)| (u, id)),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_stay_under_the_limit_and_carry_every_topic() {
        let topics: BTreeSet<String> = (0..1000).map(|i| format!("g:{i:036}")).collect();
        let out = payloads("me", &topics);
        assert!(out.len() > 1);
        let mut back = BTreeSet::new();
        for p in &out {
            assert!(p.len() <= PAYLOAD_MAX, "{}", p.len());
            assert!(
                topics_of(p, "me").is_empty(),
                "one's own payload is skipped"
            );
            back.extend(topics_of(p, "other").into_iter().map(str::to_string));
        }
        assert_eq!(back, topics);
        assert_eq!(topics_of("c:u1", "me"), vec!["c:u1"]);
        assert!(payloads("me", &BTreeSet::new()).is_empty());
    }
}
