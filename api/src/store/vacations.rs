//! `vacations`: declared absences (the policy is `crate::notifications::vacation`).

use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;

use super::schema::{games, vacations};
use super::{DbConnection, StoreError};
use crate::ids::UserId;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = vacations)]
pub struct VacationRow {
    pub id: String,
    pub user_id: UserId,
    pub starts_at: NaiveDateTime,
    pub ends_at: NaiveDateTime,
    pub created_at: NaiveDateTime,
}

/// The user's vacations that may still matter for a running turn (ended in the last
/// 120 days, or later), as (start, end).
pub fn pauses(
    conn: &mut DbConnection,
    user: &UserId,
    now: NaiveDateTime,
) -> Result<Vec<(NaiveDateTime, NaiveDateTime)>, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.ge(now - TimeDelta::days(120)))
        .select((vacations::starts_at, vacations::ends_at))
        .load(conn)?)
}

/// The user's vacations overlapping `[from, to)`, as (start, end).
pub fn overlapping(
    conn: &mut DbConnection,
    user: &UserId,
    from: NaiveDateTime,
    to: NaiveDateTime,
) -> Result<Vec<(NaiveDateTime, NaiveDateTime)>, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(from))
        .filter(vacations::starts_at.lt(to))
        .select((vacations::starts_at, vacations::ends_at))
        .load(conn)?)
}

/// How many of the user's vacations overlap `[from, to)`.
pub fn count_overlapping(
    conn: &mut DbConnection,
    user: &UserId,
    from: NaiveDateTime,
    to: NaiveDateTime,
) -> Result<i64, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(from))
        .filter(vacations::starts_at.lt(to))
        .count()
        .get_result::<i64>(conn)?)
}

/// The user's vacations running at `now` or coming, soonest first.
pub fn running_and_coming(
    conn: &mut DbConnection,
    user: &UserId,
    now: NaiveDateTime,
) -> Result<Vec<VacationRow>, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(now))
        .order((vacations::starts_at.asc(), vacations::id.asc()))
        .select(VacationRow::as_select())
        .load(conn)?)
}

/// The user's vacation `id`, if it runs at `now` or is coming.
pub fn running_or_coming(
    conn: &mut DbConnection,
    user: &UserId,
    id: &str,
    now: NaiveDateTime,
) -> Result<Option<VacationRow>, StoreError> {
    Ok(vacations::table
        .filter(vacations::id.eq(id))
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(now))
        .select(VacationRow::as_select())
        .first(conn)
        .optional()?)
}

pub fn insert(conn: &mut DbConnection, row: &VacationRow) -> Result<(), StoreError> {
    diesel::insert_into(vacations::table)
        .values(row)
        .execute(conn)?;
    Ok(())
}

pub fn delete(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    diesel::delete(vacations::table.find(id)).execute(conn)?;
    Ok(())
}

/// Ends a vacation at `at`.
pub fn end_at(conn: &mut DbConnection, id: &str, at: NaiveDateTime) -> Result<(), StoreError> {
    diesel::update(vacations::table.find(id))
        .set(vacations::ends_at.eq(at))
        .execute(conn)?;
    Ok(())
}

/// The deadlines of the user's turns that the due-work worker moved past `now` (for a
/// vacation) come due at `now`, so the worker looks at them again.
pub fn recheck_deadlines(
    conn: &mut DbConnection,
    user: &UserId,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    diesel::update(
        games::table
            .filter(games::to_move_user_id.eq(user))
            .filter(games::due_at.gt(now)),
    )
    .set(games::due_at.eq(Some(now)))
    .execute(conn)?;
    Ok(())
}

/// Every vacation of a user, oldest first (the account export).
pub fn all_of(conn: &mut DbConnection, user_id: &UserId) -> Result<Vec<VacationRow>, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user_id))
        .order((vacations::starts_at.asc(), vacations::id.asc()))
        .select(VacationRow::as_select())
        .load(conn)?)
}
