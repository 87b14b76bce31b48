//! Vacations: while a player is on vacation, the clocks of its seats do not run.
//!
//! Policy: a vacation starts now or later and ends after it starts; each player may take
//! `DJAMBI_VACATION_DAYS` (default 30) days per calendar year (UTC), counted to the second
//! over the part of each vacation inside that year; one vacation at a time (no overlap).
//! Ending a vacation early (`DELETE /v1/me/vacations/{id}`) gives back the unused part; a vacation that has not
//! started is simply removed. The deadline of a seat to move is its turn's time counted
//! outside its player's vacations ([`crate::model::timing::paused_deadline`]); the
//! due-work worker applies it before timing a seat out.

use chrono::{Datelike, NaiveDate, NaiveDateTime, TimeDelta};

use super::{NotificationError, Notifications};
use crate::ids::UserId;
use crate::model::game_state::GameState;
use crate::store::{self, DbConnection, StoreError};

pub use crate::store::vacations::VacationRow;

/// The shortest vacation.
pub const MIN_SECS: i64 = 3600;

/// The user's vacations that may still matter for a running turn (ended in the last
/// 120 days, or later), as (start, end).
pub fn pauses(
    conn: &mut DbConnection,
    user: &UserId,
    now: NaiveDateTime,
) -> Result<Vec<(NaiveDateTime, NaiveDateTime)>, StoreError> {
    store::vacations::pauses(conn, user, now)
}

/// The deadline of the seat to move with its player's vacations (`pauses`): its clock
/// does not run during them ([`crate::model::timing::paused_deadline`]).
pub fn paused_deadline_of(
    state: &GameState,
    pauses: &[(NaiveDateTime, NaiveDateTime)],
) -> Option<NaiveDateTime> {
    let seat = state.to_move()?;
    state.deadline()?;
    let start = state.clocks.turn_started?;
    Some(crate::model::timing::paused_deadline(
        start,
        state.clocks.time_secs[seat.index()],
        pauses,
    ))
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
pub fn used_secs(conn: &mut DbConnection, user: &UserId, year: i32) -> Result<i64, StoreError> {
    let y = year_bounds(year);
    let rows = store::vacations::overlapping(conn, user, y.0, y.1)?;
    Ok(rows.into_iter().map(|v| overlap(v, y)).sum())
}

/// Books a vacation (checks the policy; inside the caller's transaction).
pub fn create(
    conn: &mut DbConnection,
    user: &UserId,
    starts_at: NaiveDateTime,
    ends_at: NaiveDateTime,
    now: NaiveDateTime,
    allowance_days: u32,
) -> Result<VacationRow, NotificationError> {
    if starts_at < now - TimeDelta::minutes(1) {
        return Err(NotificationError::field(
            "starts_at",
            "must not be in the past",
        ));
    }
    if (ends_at - starts_at).num_seconds() < MIN_SECS {
        return Err(NotificationError::field(
            "ends_at",
            "must be at least an hour after starts_at",
        ));
    }
    if ends_at > now + TimeDelta::days(400) {
        return Err(NotificationError::field(
            "ends_at",
            "at most 400 days ahead",
        ));
    }
    if store::vacations::count_overlapping(conn, user, starts_at, ends_at)? > 0 {
        return Err(NotificationError::Conflict(
            "another vacation overlaps this one; end it first".into(),
        ));
    }
    let allowance = i64::from(allowance_days) * 86_400;
    for year in starts_at.year()..=ends_at.year() {
        let y = year_bounds(year);
        let used = used_secs(conn, user, year)?;
        let wanted = overlap((starts_at, ends_at), y);
        if used + wanted > allowance {
            return Err(NotificationError::field(
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
        user_id: user.clone(),
        starts_at,
        ends_at,
        created_at: now,
    };
    store::vacations::insert(conn, &row)?;
    Ok(row)
}

/// Ends the user's vacation `id` now if it runs, or removes it if it has not started;
/// `None` if the user has no such running or coming vacation.
pub fn end(
    conn: &mut DbConnection,
    user: &UserId,
    id: &str,
    now: NaiveDateTime,
) -> Result<Option<VacationRow>, StoreError> {
    let Some(v) = store::vacations::running_or_coming(conn, user, id, now)? else {
        return Ok(None);
    };
    if v.starts_at > now {
        store::vacations::delete(conn, &v.id)?;
    } else {
        store::vacations::end_at(conn, &v.id, now)?;
        // Deadlines the worker moved for this vacation come back: it looks at them again.
        store::vacations::recheck_deadlines(conn, user, now)?;
    }
    Ok(Some(VacationRow { ends_at: now, ..v }))
}

/// A user's running and coming vacations and this year's allowance.
#[derive(Debug, Clone)]
pub struct VacationList {
    /// Soonest first.
    pub items: Vec<VacationRow>,
    pub now: NaiveDateTime,
    pub allowance_days: u32,
    pub used_secs_this_year: i64,
}

impl VacationList {
    pub fn on_vacation(&self) -> bool {
        self.items.iter().any(|v| v.starts_at <= self.now)
    }

    pub fn left_secs_this_year(&self) -> i64 {
        (i64::from(self.allowance_days) * 86_400 - self.used_secs_this_year).max(0)
    }
}

impl Notifications<'_> {
    /// `GET /v1/me/vacations`.
    pub async fn vacations(&self, user: &UserId) -> Result<VacationList, NotificationError> {
        let now = self.clock.now();
        let allowance_days = self.config.vacation_days;
        let user = user.clone();
        Ok(store::run(self.pool, move |conn| {
            let items = store::vacations::running_and_coming(conn, &user, now)?;
            let used = used_secs(conn, &user, now.year())?;
            Ok::<_, StoreError>(VacationList {
                items,
                now,
                allowance_days,
                used_secs_this_year: used,
            })
        })
        .await?)
    }

    /// `POST /v1/me/vacations`: books a vacation from `starts_at` (default: now) to
    /// `ends_at`; answers it and the time it was booked at.
    pub async fn declare_vacation(
        &self,
        user: &UserId,
        starts_at: Option<NaiveDateTime>,
        ends_at: NaiveDateTime,
    ) -> Result<(VacationRow, NaiveDateTime), NotificationError> {
        let now = self.clock.now();
        let starts = starts_at.unwrap_or(now);
        let user = user.clone();
        let days = self.config.vacation_days;
        let row = store::run(self.pool, move |conn| {
            store::transaction(conn, |conn| create(conn, &user, starts, ends_at, now, days))
        })
        .await?;
        Ok((row, now))
    }

    /// `DELETE /v1/me/vacations/{id}`: ends a running vacation now, or cancels a coming
    /// one.
    pub async fn end_vacation(&self, user: &UserId, id: &str) -> Result<(), NotificationError> {
        let now = self.clock.now();
        let (user, id) = (user.clone(), id.to_string());
        let ended = store::run(self.pool, move |conn| {
            store::transaction(conn, |conn| end(conn, &user, &id, now))
        })
        .await?;
        ended.map(|_| ()).ok_or_else(|| {
            NotificationError::NotFound("no running or coming vacation of yours has this id".into())
        })
    }
}
