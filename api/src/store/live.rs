//! The signals behind the stream fan-out (`crate::live`): which game or user got new
//! rows. A signal names a topic, `g:<game id>` or `u:<user id>`, and says only "read
//! again"; what is new is always read from the tables.
//!
//! - PostgreSQL: the triggers of migration `000050_live_signals` `NOTIFY djambi_live` at
//!   commit; each instance holds one connection that `LISTEN`s ([`listen`], [`drain`]).
//! - SQLite (one instance): the same triggers call `djambi_signal(topic)`, a function
//!   registered on each pooled connection ([`register_sqlite`]); it notes the topic on the
//!   writing thread, and [`flush`] (called by `store::transaction` after its commit and by
//!   `store::run` after its closure) hands the notes to the instance's [`Signals`]. A note
//!   of a write that rolled back only causes one needless read.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use diesel::prelude::*;

use super::StoreError;

/// The PostgreSQL channel of the signals.
pub const CHANNEL: &str = "djambi_live";

/// Where an instance's signals go (the hub's inbox); set once the hub exists.
#[derive(Clone, Default)]
pub struct Signals {
    sink: Arc<Mutex<Option<tokio::sync::mpsc::UnboundedSender<String>>>>,
}

impl std::fmt::Debug for Signals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signals")
    }
}

impl Signals {
    /// Sends every signal from now on to `tx`.
    pub fn connect(&self, tx: tokio::sync::mpsc::UnboundedSender<String>) {
        *self.sink.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
    }

    /// Passes one signal on (dropped when nothing listens).
    pub fn send(&self, topic: String) {
        if let Some(tx) = &*self.sink.lock().unwrap_or_else(|p| p.into_inner()) {
            let _ = tx.send(topic);
        }
    }
}

thread_local! {
    /// Topics noted by the SQLite triggers on this thread, not yet handed on.
    static PENDING: RefCell<Vec<(Signals, String)>> = const { RefCell::new(Vec::new()) };
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
        let signals = signals.0.clone();
        PENDING.with(|p| {
            let mut p = p.borrow_mut();
            if !p.iter().any(|(_, t)| *t == topic) {
                p.push((signals, topic));
            }
        });
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

/// A PostgreSQL connection listening on [`CHANNEL`].
pub fn listen(url: &str) -> Result<PgConnection, StoreError> {
    let mut conn = PgConnection::establish(url)
        .map_err(|e| StoreError::Database(format!("listening connection: {e}")))?;
    diesel::sql_query(format!("LISTEN {CHANNEL}")).execute(&mut conn)?;
    Ok(conn)
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
