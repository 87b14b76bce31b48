//! Vacations: while a player is on vacation, the clocks of its seats do not run.
//!
//! Policy: a vacation starts now or later and ends after it starts; each player may take
//! `DJAMBI_VACATION_DAYS` (default 30) days per calendar year (UTC), counted to the second
//! over the part of each vacation inside that year; one vacation at a time (no overlap).
//! Ending a vacation early (`DELETE /v1/me/vacations/{id}`) gives back the unused part; a vacation that has not
//! started is simply removed. The deadline of a seat to move is its turn's time counted
//! outside its player's vacations ([`crate::games::timing::paused_deadline`]); the
//! due-work worker applies it before timing a seat out.

use chrono::{Datelike, NaiveDate, NaiveDateTime, TimeDelta};
use diesel::prelude::*;

use crate::error::ApiError;
use crate::store::DbConnection;
use crate::store::StoreError;
use crate::store::schema::vacations;

/// The shortest vacation.
pub const MIN_SECS: i64 = 3600;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = vacations)]
pub struct VacationRow {
    pub id: String,
    pub user_id: String,
    pub starts_at: NaiveDateTime,
    pub ends_at: NaiveDateTime,
    pub created_at: NaiveDateTime,
}

/// The user's vacations that may still matter for a running turn (ended in the last
/// 120 days, or later), as (start, end).
pub fn pauses(
    conn: &mut DbConnection,
    user: &str,
    now: NaiveDateTime,
) -> Result<Vec<(NaiveDateTime, NaiveDateTime)>, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.ge(now - TimeDelta::days(120)))
        .select((vacations::starts_at, vacations::ends_at))
        .load(conn)?)
}

fn year_bounds(year: i32) -> (NaiveDateTime, NaiveDateTime) {
    let start = |y| {
        NaiveDate::from_ymd_opt(y, 1, 1)
            .unwrap_or_default()
            .and_time(chrono::NaiveTime::MIN)
    };
    (start(year), start(year + 1))
}

fn overlap(a: (NaiveDateTime, NaiveDateTime), b: (NaiveDateTime, NaiveDateTime)) -> i64 {
    (a.1.min(b.1) - a.0.max(b.0)).num_seconds().max(0)
}

/// Seconds of vacation in calendar year `year`.
pub fn used_secs(conn: &mut DbConnection, user: &str, year: i32) -> Result<i64, StoreError> {
    let y = year_bounds(year);
    let rows: Vec<(NaiveDateTime, NaiveDateTime)> = vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(y.0))
        .filter(vacations::starts_at.lt(y.1))
        .select((vacations::starts_at, vacations::ends_at))
        .load(conn)?;
    Ok(rows.into_iter().map(|v| overlap(v, y)).sum())
}

/// The user's vacations running at `now` or coming, soonest first.
pub fn running_and_coming(
    conn: &mut DbConnection,
    user: &str,
    now: NaiveDateTime,
) -> Result<Vec<VacationRow>, StoreError> {
    Ok(vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(now))
        .order((vacations::starts_at.asc(), vacations::id.asc()))
        .select(VacationRow::as_select())
        .load(conn)?)
}

/// Books a vacation (checks the policy; inside the caller's transaction).
pub fn create(
    conn: &mut DbConnection,
    user: &str,
    starts_at: NaiveDateTime,
    ends_at: NaiveDateTime,
    now: NaiveDateTime,
    allowance_days: u32,
) -> Result<VacationRow, ApiError> {
    if starts_at < now - TimeDelta::minutes(1) {
        return Err(ApiError::field("starts_at", "must not be in the past"));
    }
    if (ends_at - starts_at).num_seconds() < MIN_SECS {
        return Err(ApiError::field(
            "ends_at",
            "must be at least an hour after starts_at",
        ));
    }
    if ends_at > now + TimeDelta::days(400) {
        return Err(ApiError::field("ends_at", "at most 400 days ahead"));
    }
    let clash = vacations::table
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(starts_at))
        .filter(vacations::starts_at.lt(ends_at))
        .count()
        .get_result::<i64>(conn)
        .map_err(StoreError::from)?;
    if clash > 0 {
        return Err(ApiError::Conflict(
            "another vacation overlaps this one; end it first".into(),
        ));
    }
    let allowance = i64::from(allowance_days) * 86_400;
    for year in starts_at.year()..=ends_at.year() {
        let y = year_bounds(year);
        let used = used_secs(conn, user, year)?;
        let wanted = overlap((starts_at, ends_at), y);
        if used + wanted > allowance {
            return Err(ApiError::field(
                "ends_at",
                format!(
                    "the allowance is {allowance_days} days per calendar year; {year} has {:.1} days left",
                    (allowance - used).max(0) as f64 / 86_400.0
                ),
            ));
        }
    }
    let row = VacationRow {
        id: uuid::Uuid::now_v7().to_string(),
        user_id: user.into(),
        starts_at,
        ends_at,
        created_at: now,
    };
    diesel::insert_into(vacations::table)
        .values(&row)
        .execute(conn)
        .map_err(StoreError::from)?;
    Ok(row)
}

/// Ends the user's vacation `id` now if it runs, or removes it if it has not started;
/// `None` if the user has no such running or coming vacation.
pub fn end(
    conn: &mut DbConnection,
    user: &str,
    id: &str,
    now: NaiveDateTime,
) -> Result<Option<VacationRow>, StoreError> {
    let Some(v) = vacations::table
        .filter(vacations::id.eq(id))
        .filter(vacations::user_id.eq(user))
        .filter(vacations::ends_at.gt(now))
        .select(VacationRow::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(None);
    };
    if v.starts_at > now {
        diesel::delete(vacations::table.find(&v.id)).execute(conn)?;
    } else {
        diesel::update(vacations::table.find(&v.id))
            .set(vacations::ends_at.eq(now))
            .execute(conn)?;
        // Deadlines the worker moved for this vacation come back: it looks at them again.
        use crate::store::schema::games;
        diesel::update(
            games::table
                .filter(games::to_move_user_id.eq(user))
                .filter(games::due_at.gt(now)),
        )
        .set(games::due_at.eq(Some(now)))
        .execute(conn)?;
    }
    Ok(Some(VacationRow { ends_at: now, ..v }))
}
