//! The store: one diesel connection type over PostgreSQL and SQLite, its r2d2 pool, the
//! embedded migrations, and [`run`], the way handlers reach the database.
//!
//! Diesel is synchronous, so every database call goes through [`run`], which moves the
//! closure onto the blocking thread pool (`web::block`), takes a pooled connection and maps
//! every failure to an [`ApiError`]. Write transactions use [`transaction`] (on SQLite it
//! takes the write lock up front with `BEGIN IMMEDIATE`, so two writers wait for each other
//! through `busy_timeout` instead of failing with `SQLITE_BUSY`).
//!
//! Migrations live in `migrations/postgres` and `migrations/sqlite` (same names, one SQL
//! dialect each) and run at start-up; on PostgreSQL under an advisory lock, so several
//! instances may start at once.

pub mod account_tokens;
pub mod analyses;
pub mod cache;
pub mod conditional_moves;
pub mod deliveries;
pub mod due;
pub mod erasure;
mod error;
pub mod feed;
pub mod game_lists;
pub mod games;
pub mod idempotency;
pub mod lease;
pub mod live;
pub mod login_throttle;
pub mod mail_moves;
pub mod messages;
pub mod models;
pub mod oauth;
pub mod outbox;
pub mod push_subscriptions;
pub mod quotas;
pub mod ratings;
pub mod recipients;
pub mod reminders;
pub mod retention;
pub mod schema;
pub mod sessions;
pub mod settings;
pub mod sqlite_files;
pub mod stats;
pub mod tokens;
pub mod tournaments;
pub mod users;
pub mod vacations;
pub mod webhooks;
pub mod write_gate;

pub use error::{RunError, StoreError};

use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager};
use diesel::prelude::*;
use diesel::r2d2::{CustomizeConnection, ManageConnection, Pool, PooledConnection, R2D2Connection};
use diesel::sql_types::BigInt;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use std::cell::RefCell;
use std::sync::Arc;

use crate::config::{Backend, DatabaseConfig};

/// One connection type for both backends; the URL picks the variant at run time.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Pg(PgConnection),
    Sqlite(SqliteConnection),
}

pub type DbPool = Pool<DbManager>;
pub type DbPooled = PooledConnection<DbManager>;

/// The r2d2 connection manager. It opens the backend the configuration names (diesel's
/// derived `MultiConnection::establish` would try each backend in turn and hide the real
/// connection error).
#[derive(Debug)]
pub struct DbManager {
    url: String,
    backend: Backend,
    signals: live::Signals,
    /// SQLite: the one-writer-at-a-time queue of the pool's connections, and the longest
    /// wait for a turn.
    gate: Option<(Arc<write_gate::WriteGate>, std::time::Duration)>,
}

/// A pooled connection and whether it was found dead. The pool does not test connections
/// before handing them out (that costs a round trip per request): instead, when a
/// closure given to [`run`] fails, the connection is pinged, and a dead one is marked
/// here and dropped by the pool instead of being handed out again.
pub struct PooledDb {
    conn: DbConnection,
    dead: bool,
    /// Where the writes made with it signal (see [`live`]).
    signals: live::Signals,
    gate: Option<(Arc<write_gate::WriteGate>, std::time::Duration)>,
}

impl ManageConnection for DbManager {
    type Connection = PooledDb;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<PooledDb, Self::Error> {
        let conn = match self.backend {
            Backend::Postgres => PgConnection::establish(&self.url).map(DbConnection::Pg),
            Backend::Sqlite => SqliteConnection::establish(&self.url).map(DbConnection::Sqlite),
        };
        conn.map(|conn| PooledDb {
            conn,
            dead: false,
            signals: self.signals.clone(),
            gate: self.gate.clone(),
        })
        .map_err(diesel::r2d2::Error::ConnectionError)
    }

    fn is_valid(&self, conn: &mut PooledDb) -> Result<(), Self::Error> {
        conn.conn.ping().map_err(diesel::r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut PooledDb) -> bool {
        conn.dead || conn.conn.is_broken()
    }
}

pub const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/postgres");
pub const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");

/// The PostgreSQL advisory lock key held while migrating ("djambi" in ASCII).
const MIGRATION_LOCK_KEY: i64 = 0x0000_646a_616d_6269;

/// Start-up failures of the store.
#[derive(Debug, thiserror::Error)]
pub enum DbSetupError {
    #[error(
        "cannot prepare the SQLite file `{path}` (its directory 0700, the file 0600): {source}"
    )]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot connect to the database: {0}")]
    Connect(String),
    #[error("database migration failed: {0}")]
    Migrate(String),
}

#[derive(Debug)]
struct SqlitePragmas {
    busy_timeout_ms: u128,
}

impl CustomizeConnection<PooledDb, diesel::r2d2::Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut PooledDb) -> Result<(), diesel::r2d2::Error> {
        let signals = conn.signals.clone();
        if let DbConnection::Sqlite(c) = &mut conn.conn {
            c.batch_execute(&format!(
                "PRAGMA busy_timeout = {}; PRAGMA journal_mode = WAL; \
                 PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
                self.busy_timeout_ms
            ))
            .map_err(diesel::r2d2::Error::QueryError)?;
            live::register_sqlite(c, &signals).map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

/// Builds the pool (creating the SQLite file's directory if needed) and checks that a
/// connection can be made.
pub fn build_pool(cfg: &DatabaseConfig) -> Result<DbPool, DbSetupError> {
    build_pool_with(cfg, live::Signals::default())
}

/// [`build_pool`] whose SQLite connections signal writes to `signals` (see [`live`]).
pub fn build_pool_with(
    cfg: &DatabaseConfig,
    signals: live::Signals,
) -> Result<DbPool, DbSetupError> {
    if cfg.backend == Backend::Sqlite {
        // The owner's only: directory 0700, files 0600 (see `sqlite_files`).
        let path = std::path::Path::new(&cfg.url);
        sqlite_files::prepare(path, cfg.is_embedded_default).map_err(|source| {
            DbSetupError::CreateDir {
                path: cfg.url.clone(),
                source,
            }
        })?;
    }
    let manager = DbManager {
        url: cfg.url.clone(),
        backend: cfg.backend,
        signals,
        gate: (cfg.backend == Backend::Sqlite).then(|| {
            (
                Arc::new(write_gate::WriteGate::default()),
                cfg.timeout.max(std::time::Duration::from_secs(1)),
            )
        }),
    };
    Pool::builder()
        .max_size(cfg.pool_size)
        .min_idle(Some(1))
        .connection_timeout(cfg.timeout)
        // No `SELECT 1` before every use (a round trip per request): a connection that
        // died (e.g. PostgreSQL restarted) fails its next query, is reported broken by
        // `has_broken` and dropped, and the write path retries such failures once.
        .test_on_check_out(false)
        .connection_customizer(Box::new(SqlitePragmas {
            busy_timeout_ms: cfg.timeout.as_millis().max(1000),
        }))
        .build(manager)
        .map_err(|e| DbSetupError::Connect(e.to_string().trim().to_string()))
}

/// Runs the pending migrations of the pool's backend. On PostgreSQL this holds a session
/// advisory lock, so concurrent starts migrate one after the other.
pub fn run_migrations(pool: &DbPool) -> Result<(), DbSetupError> {
    let mut conn = pool
        .get()
        .map_err(|e| DbSetupError::Connect(e.to_string().trim().to_string()))?;
    let migrate =
        |e: Box<dyn std::error::Error + Send + Sync>| DbSetupError::Migrate(e.to_string());
    match &mut conn.conn {
        DbConnection::Pg(c) => {
            diesel::sql_query("SELECT pg_advisory_lock($1)")
                .bind::<BigInt, _>(MIGRATION_LOCK_KEY)
                .execute(c)
                .map_err(|e| DbSetupError::Migrate(format!("advisory lock: {e}")))?;
            let result = c.run_pending_migrations(PG_MIGRATIONS).map(|v| v.len());
            let unlock = diesel::sql_query("SELECT pg_advisory_unlock($1)")
                .bind::<BigInt, _>(MIGRATION_LOCK_KEY)
                .execute(c);
            let applied = result.map_err(migrate)?;
            unlock.map_err(|e| DbSetupError::Migrate(format!("advisory unlock: {e}")))?;
            tracing::info!(applied, "PostgreSQL migrations up to date");
        }
        DbConnection::Sqlite(c) => {
            let applied = c
                .run_pending_migrations(SQLITE_MIGRATIONS)
                .map_err(migrate)?
                .len();
            tracing::info!(applied, "SQLite migrations up to date");
        }
    }
    Ok(())
}

/// Runs `f` with a pooled connection on the blocking thread pool. Errors from `f` pass
/// through; a pool timeout or a dead task becomes `E` through [`RunError`].
pub async fn run<F, T, E>(pool: &DbPool, f: F) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: From<RunError> + Send + 'static,
{
    let pool = pool.clone();
    tokio::task::spawn_blocking(move || {
        let mut pooled = pool
            .get()
            .map_err(|e| RunError::NoConnection(e.to_string()))?;
        let entered = live::enter(&pooled.signals);
        let gated = GateScope::enter(pooled.gate.clone());
        let result = f(&mut pooled.conn);
        drop(gated);
        live::flush();
        drop(entered);
        if result.is_err() && pooled.conn.ping().is_err() {
            pooled.dead = true;
        }
        result
    })
    .await
    .map_err(|e| RunError::Blocking(e.to_string()))?
}

/// A connection for a command-line tool (outside the server's runtime).
pub fn checkout(pool: &DbPool) -> Result<DbPooled, RunError> {
    pool.get()
        .map_err(|e| RunError::NoConnection(e.to_string()))
}

impl std::ops::Deref for PooledDb {
    type Target = DbConnection;
    fn deref(&self) -> &DbConnection {
        &self.conn
    }
}

impl std::ops::DerefMut for PooledDb {
    fn deref_mut(&mut self) -> &mut DbConnection {
        &mut self.conn
    }
}

/// Runs `f` in a write transaction: committed if it returns `Ok`, rolled back otherwise.
/// On SQLite the transaction begins with `BEGIN IMMEDIATE`. Inside a transaction already,
/// it is a savepoint. The write's signals ([`live`]) go out after the outermost commit.
pub fn transaction<T, E, F>(conn: &mut DbConnection, f: F) -> Result<T, E>
where
    F: FnOnce(&mut DbConnection) -> Result<T, E>,
    E: From<diesel::result::Error>,
{
    // Inside a transaction already: a savepoint.
    let nested = in_transaction(conn);
    // SQLite: one writer at a time, in the order they came (see `write_gate`).
    let gate = match conn {
        DbConnection::Sqlite(_) if !nested => CURRENT_GATE.with(|g| g.borrow().clone()),
        _ => None,
    };
    let _turn = match &gate {
        Some((gate, within)) => Some(gate.enter(*within).map_err(|waited| {
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::Unknown,
                Box::new(format!(
                    "database is locked: no turn to write within {:?}",
                    waited.0
                )),
            )
        })?),
        None => None,
    };
    match conn {
        DbConnection::Sqlite(c) if !nested => {
            AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE")?
        }
        DbConnection::Pg(c) => AnsiTransactionManager::begin_transaction(c)?,
        DbConnection::Sqlite(c) => AnsiTransactionManager::begin_transaction(c)?,
    }
    type Tm = <DbConnection as Connection>::TransactionManager;
    let noted = live::mark();
    match f(conn) {
        Ok(value) => match Tm::commit_transaction(conn) {
            Ok(()) => {
                // Signals go out once the outermost transaction has committed.
                if !in_transaction(conn) {
                    live::flush();
                }
                Ok(value)
            }
            Err(commit_error) => {
                if Tm::transaction_manager_status_mut(conn)
                    .transaction_depth()
                    .ok()
                    .flatten()
                    .is_some()
                {
                    let _ = Tm::rollback_transaction(conn);
                }
                live::discard_since(noted);
                Err(commit_error.into())
            }
        },
        Err(e) => {
            let _ = Tm::rollback_transaction(conn);
            live::discard_since(noted);
            Err(e)
        }
    }
}

thread_local! {
    /// The write gate of the connection [`run`] lends on this thread (SQLite).
    static CURRENT_GATE: RefCell<Option<(Arc<write_gate::WriteGate>, std::time::Duration)>> =
        const { RefCell::new(None) };
}

/// Sets [`CURRENT_GATE`] for the duration of a [`run`] closure.
struct GateScope {
    before: Option<(Arc<write_gate::WriteGate>, std::time::Duration)>,
}

impl GateScope {
    fn enter(gate: Option<(Arc<write_gate::WriteGate>, std::time::Duration)>) -> GateScope {
        GateScope {
            before: CURRENT_GATE.with(|g| g.replace(gate)),
        }
    }
}

impl Drop for GateScope {
    fn drop(&mut self) {
        let before = self.before.take();
        CURRENT_GATE.with(|g| *g.borrow_mut() = before);
    }
}

/// Whether `conn` is inside a transaction.
fn in_transaction(conn: &mut DbConnection) -> bool {
    type Tm = <DbConnection as Connection>::TransactionManager;
    Tm::transaction_manager_status_mut(conn)
        .transaction_depth()
        .ok()
        .flatten()
        .is_some()
}

/// Checks that the database answers (for `/readyz`); the error says why not.
pub async fn ping(pool: &DbPool) -> Result<(), RunError> {
    run(pool, |conn| {
        conn.batch_execute("SELECT 1")
            .map_err(|e| RunError::NoConnection(format!("database ping failed: {e}")))
    })
    .await
}

#[cfg(test)]
mod writer_tests {
    use super::*;
    use std::time::Duration;

    fn sqlite_pool(signals: live::Signals) -> (DbPool, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "djambi-writer-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        let path = dir.join("t.sqlite3");
        let cfg = DatabaseConfig {
            url: path.to_string_lossy().into_owned(),
            backend: Backend::Sqlite,
            is_embedded_default: false,
            pool_size: 8,
            timeout: Duration::from_secs(5),
        };
        let pool = build_pool_with(&cfg, signals).unwrap();
        let mut conn = checkout(&pool).unwrap();
        conn.batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)")
            .unwrap();
        (pool, dir)
    }

    /// Sixteen writers at once on SQLite: each is its own transaction, taking its turn at
    /// the pool's gate; the ones that fail roll back alone and answer their own error,
    /// every other write is there, and only committed writes signal (after their commit).
    #[test]
    fn concurrent_sqlite_writes_each_answer_their_own_result_and_lose_nothing() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(16)
            .enable_all()
            .build()
            .unwrap();
        let signals = live::Signals::default();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        signals.connect(tx);
        let (pool, dir) = sqlite_pool(signals);
        let results: Vec<Result<i64, StoreError>> = rt.block_on(async {
            let writes = (0..16i64).map(|i| {
                let pool = pool.clone();
                async move {
                    run(&pool, move |conn| {
                        transaction(conn, |conn| {
                            diesel::sql_query(format!(
                                "INSERT INTO t (id, who) VALUES ({i}, 'w{i}')"
                            ))
                            .execute(conn)?;
                            live::note(format!("g:{i}"));
                            // Hold the turn a little: the others queue behind.
                            std::thread::sleep(Duration::from_millis(2));
                            if i % 4 == 3 {
                                return Err(StoreError::Database(format!("write {i} refused")));
                            }
                            Ok(i)
                        })
                    })
                    .await
                }
            });
            futures_util::future::join_all(writes).await
        });
        for (i, r) in results.iter().enumerate() {
            match r {
                Ok(v) => assert_eq!(*v, i as i64),
                Err(StoreError::Database(m)) => {
                    assert_eq!(i % 4, 3);
                    assert_eq!(m, &format!("write {i} refused"));
                }
                Err(e) => panic!("write {i}: {e}"),
            }
        }
        let mut conn = checkout(&pool).unwrap();
        #[derive(QueryableByName)]
        struct Id {
            #[diesel(sql_type = BigInt)]
            id: i64,
        }
        let ids: Vec<i64> = diesel::sql_query("SELECT id FROM t ORDER BY id")
            .load::<Id>(&mut **conn)
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        let committed: Vec<i64> = (0..16).filter(|i| i % 4 != 3).collect();
        assert_eq!(ids, committed);
        let mut signalled = Vec::new();
        while let Ok(t) = rx.try_recv() {
            signalled.push(t);
        }
        signalled.sort();
        let mut expected: Vec<String> = committed.iter().map(|i| format!("g:{i}")).collect();
        expected.sort();
        assert_eq!(signalled, expected, "only committed writes signal");
        let gate = &conn.gate.as_ref().unwrap().0;
        assert_eq!(gate.turns(), 16, "every write took its turn at the gate");
        drop(conn);
        drop(pool);
        let _ = std::fs::remove_dir_all(dir);
    }
}
