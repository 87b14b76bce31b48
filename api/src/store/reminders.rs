//! `reminder_schedule`: per game, the version its reminders were computed for and when
//! the next one is due (the worker is `crate::workers::reminders`); and the `reminder`
//! notifications, inserted at most once per turn and offset.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};

use super::lease::Queue;
use super::{DbConnection, StoreError};
use crate::ids::{GameId, UserId};

/// Games claimed by one statement.
pub const BATCH: i64 = 100;

/// Sets when the next reminder of `game` at `version` is due (`None`: none), unless the
/// schedule is already for a later version.
pub fn upsert(
    conn: &mut DbConnection,
    game: &GameId,
    version: i64,
    at: Option<NaiveDateTime>,
) -> Result<(), StoreError> {
    let sql = "INSERT INTO reminder_schedule (game_id, version, remind_at, lease_until) \
               VALUES ($1, $2, $3, NULL) ON CONFLICT (game_id) DO UPDATE SET \
               version = excluded.version, remind_at = excluded.remind_at, lease_until = NULL \
               WHERE reminder_schedule.version <= excluded.version";
    match conn {
        DbConnection::Pg(c) => diesel::sql_query(sql)
            .bind::<Text, _>(game)
            .bind::<BigInt, _>(version)
            .bind::<Nullable<Timestamp>, _>(at)
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::sql_query(sql.replace('$', "?"))
            .bind::<Text, _>(game)
            .bind::<BigInt, _>(version)
            .bind::<Nullable<Timestamp>, _>(at)
            .execute(c)?,
    };
    Ok(())
}

/// A `reminder` notification (nothing if its id exists): how many rows were inserted.
pub struct Reminder<'a> {
    pub id: &'a str,
    pub user: &'a UserId,
    pub game: &'a GameId,
    pub version: i64,
    pub payload: &'a str,
    pub at: NaiveDateTime,
}

pub fn insert_reminder(conn: &mut DbConnection, r: &Reminder<'_>) -> Result<usize, StoreError> {
    let sql = "INSERT INTO notifications (id, user_id, kind, game_id, version, payload, created_at) \
               VALUES ($1, $2, 'reminder', $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING";
    macro_rules! run {
        ($c:expr, $sql:expr) => {
            diesel::sql_query($sql)
                .bind::<Text, _>(r.id)
                .bind::<Text, _>(r.user)
                .bind::<Text, _>(r.game)
                .bind::<BigInt, _>(r.version)
                .bind::<Text, _>(r.payload)
                .bind::<Timestamp, _>(r.at)
                .execute($c)?
        };
    }
    let inserted = match conn {
        DbConnection::Pg(c) => run!(c, sql),
        DbConnection::Sqlite(c) => run!(c, sql.replace('$', "?")),
    };
    if inserted > 0 {
        super::live::note(format!("u:{}", r.user));
    }
    Ok(inserted)
}

#[derive(QueryableByName)]
struct Pending {
    #[diesel(sql_type = Text)]
    id: GameId,
}

/// Games whose schedule is missing or older than their version.
pub fn unscheduled(conn: &mut DbConnection) -> Result<Vec<GameId>, StoreError> {
    let sql = "SELECT g.id FROM games g LEFT JOIN reminder_schedule r ON r.game_id = g.id \
               WHERE g.due_at IS NOT NULL AND (r.game_id IS NULL OR r.version < g.version) \
               LIMIT 100";
    let rows: Vec<Pending> = match conn {
        DbConnection::Pg(c) => diesel::sql_query(sql).load(c)?,
        DbConnection::Sqlite(c) => diesel::sql_query(sql).load(c)?,
    };
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// The games whose next reminder is due.
const DUE_REMINDERS: Queue = Queue {
    table: "reminder_schedule",
    id: "game_id",
    due: "remind_at",
    lease: "lease_until",
    only: "",
    order: "",
};

/// Claims up to [`BATCH`] games whose next reminder is due, until `until`.
pub fn claim(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    until: NaiveDateTime,
) -> Result<Vec<GameId>, StoreError> {
    let ids = DUE_REMINDERS.claim(conn, now, until, BATCH)?;
    Ok(ids.into_iter().map(GameId::from).collect())
}
