//! The effective deadline: the one every view, payload, mail and the `turn=mine` order
//! show. The log gives a turn's deadline; while the player to move is away
//! (`notifications::vacation`) its clock does not run, so the deadline moves
//! ([`crate::model::timing::effective_deadline`]). It is computed when read, from the
//! turn's start and the log's deadline (both in the projection) and the player's
//! vacations, so it is right at once when a vacation starts or ends early, without
//! waiting for the due-work worker.

use std::collections::HashMap;

use chrono::NaiveDateTime;

use crate::ids::UserId;
use crate::model::game_state::GameState;
use crate::model::timing::effective_deadline;
use crate::store::games::GameRow;
use crate::store::{DbConnection, StoreError};

type Pauses = Vec<(NaiveDateTime, NaiveDateTime)>;

/// The vacations of the players read so far (one query per player per read).
pub struct Vacations<'c> {
    conn: &'c mut DbConnection,
    now: NaiveDateTime,
    of: HashMap<UserId, Pauses>,
}

impl<'c> Vacations<'c> {
    pub fn new(conn: &'c mut DbConnection, now: NaiveDateTime) -> Vacations<'c> {
        Vacations {
            conn,
            now,
            of: HashMap::new(),
        }
    }

    pub fn of(&mut self, user: &UserId) -> Result<&Pauses, StoreError> {
        if !self.of.contains_key(user) {
            let p = crate::store::vacations::pauses(self.conn, user, self.now)?;
            self.of.insert(user.clone(), p);
        }
        Ok(&self.of[user])
    }

    /// The effective deadline of a row's turn, if it has one (a person to move in a
    /// timed game). Rows written before `turn_started_at` existed keep `due_at`, never
    /// before the log's deadline.
    pub fn of_row(&mut self, row: &GameRow) -> Result<Option<NaiveDateTime>, StoreError> {
        let (Some(_), Some(user), Some(_)) = (&row.time_control, &row.to_move_user_id, row.due_at)
        else {
            return Ok(None);
        };
        let Some(started) = row.turn_started_at else {
            return Ok(row.due_at.map(|d| d.max(row.turn_order_at)));
        };
        let pauses = self.of(user)?;
        Ok(Some(effective_deadline(started, row.turn_order_at, pauses)))
    }

    /// The effective deadline of a state's turn, if it has one.
    pub fn of_state(&mut self, state: &GameState) -> Result<Option<NaiveDateTime>, StoreError> {
        let (Some(deadline), Some(started), Some(user)) = (
            state.deadline(),
            state.clocks.turn_started,
            state.to_move_user(),
        ) else {
            return Ok(None);
        };
        let pauses = self.of(user)?;
        Ok(Some(effective_deadline(started, deadline, pauses)))
    }
}

/// Puts the effective deadline into each row's `due_at` (the read model the views show:
/// `due_at` of a row read through here is the deadline to show, not the worker's time).
pub fn show_effective(
    conn: &mut DbConnection,
    now: NaiveDateTime,
    rows: &mut [GameRow],
) -> Result<(), StoreError> {
    let mut v = Vacations::new(conn, now);
    for row in rows.iter_mut() {
        if let Some(d) = v.of_row(row)? {
            row.due_at = Some(d);
        }
    }
    Ok(())
}
