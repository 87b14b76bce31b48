//! `login_throttle`: the failed-password counts every instance of one database shares
//! (see `crate::accounts::throttle`). Keys are keyed hashes, never names or addresses.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text, Timestamp};

use super::schema::login_throttle;
use super::{DbConnection, StoreError};

/// A row: failures since `last_failure`, and (accounts) the owner's addresses.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = login_throttle)]
pub struct ThrottleRow {
    pub failures: i64,
    pub last_failure: Option<NaiveDateTime>,
    pub known: String,
}

pub fn get(conn: &mut DbConnection, key: &str) -> Result<Option<ThrottleRow>, StoreError> {
    Ok(login_throttle::table
        .find(key)
        .select(ThrottleRow::as_select())
        .first(conn)
        .optional()?)
}

/// One more failure at `now` (the count starts again when the last one is older than
/// `forget_before`).
pub fn fail(
    conn: &mut DbConnection,
    key: &str,
    now: NaiveDateTime,
    forget_before: NaiveDateTime,
) -> Result<(), StoreError> {
    let sql = |p: &dyn Fn(u8) -> String| {
        format!(
            "INSERT INTO login_throttle (key, failures, last_failure, known) VALUES ({}, 1, {}, '') \
             ON CONFLICT (key) DO UPDATE SET failures = CASE \
               WHEN login_throttle.last_failure IS NULL OR login_throttle.last_failure < {} THEN 1 \
               ELSE login_throttle.failures + 1 END, last_failure = {}",
            p(1),
            p(2),
            p(3),
            p(2)
        )
    };
    match conn {
        DbConnection::Pg(c) => diesel::sql_query(sql(&|n| format!("${n}")))
            .bind::<Text, _>(key)
            .bind::<Timestamp, _>(now)
            .bind::<Timestamp, _>(forget_before)
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::sql_query(sql(&|n| format!("?{n}")))
            .bind::<Text, _>(key)
            .bind::<Timestamp, _>(now)
            .bind::<Timestamp, _>(forget_before)
            .execute(c)?,
    };
    Ok(())
}

/// Clears the failures (a success from that address).
pub fn clear(conn: &mut DbConnection, key: &str) -> Result<(), StoreError> {
    diesel::update(login_throttle::table.find(key))
        .set((
            login_throttle::failures.eq(0),
            login_throttle::last_failure.eq(None::<NaiveDateTime>),
        ))
        .execute(conn)?;
    Ok(())
}

/// Sets an account's known addresses.
pub fn remember(conn: &mut DbConnection, key: &str, known: &str) -> Result<(), StoreError> {
    let sql = |p: &dyn Fn(u8) -> String| {
        format!(
            "INSERT INTO login_throttle (key, failures, last_failure, known) VALUES ({}, 0, {}, {}) \
             ON CONFLICT (key) DO UPDATE SET known = {}",
            p(1),
            p(3),
            p(2),
            p(2)
        )
    };
    let none: Option<NaiveDateTime> = None;
    match conn {
        DbConnection::Pg(c) => diesel::sql_query(sql(&|n| format!("${n}")))
            .bind::<Text, _>(key)
            .bind::<Text, _>(known)
            .bind::<Nullable<Timestamp>, _>(none)
            .execute(c)?,
        DbConnection::Sqlite(c) => diesel::sql_query(sql(&|n| format!("?{n}")))
            .bind::<Text, _>(key)
            .bind::<Text, _>(known)
            .bind::<Nullable<Timestamp>, _>(none)
            .execute(c)?,
    };
    Ok(())
}
