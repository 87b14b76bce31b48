//! Reading events: the list (the projection) and one event (its folded log, the names
//! of its players and the state of its games).

use std::collections::HashMap;

use chrono::NaiveDateTime;

use super::command::{TournamentError, load};
use super::log::Tournament;
use crate::ids::{GameId, TournamentId};
use crate::store::tournaments::{self as tstore, TournamentRow};
use crate::store::{self, DbPool};

/// Lists at most this many events a page.
pub const MAX_PAGE: i64 = 100;

/// One event, read.
#[derive(Debug, Clone)]
pub struct Detail {
    pub tournament: Tournament,
    pub created_at: NaiveDateTime,
    /// Usernames by account id (organiser and entrants).
    pub names: HashMap<String, String>,
    /// Each game's status (`open`, `active`, `finished`) by id; absent: not created yet.
    pub games: HashMap<GameId, String>,
}

impl Detail {
    pub fn name(&self, id: &str) -> String {
        self.names.get(id).cloned().unwrap_or_else(|| "?".into())
    }
}

pub async fn get(pool: &DbPool, id: TournamentId) -> Result<Detail, TournamentError> {
    store::run(pool, move |conn| {
        let (tournament, created_at) = load(conn, &id)?;
        let mut ids: Vec<String> = tournament
            .entrants
            .iter()
            .map(|e| e.player.clone())
            .collect();
        ids.push(tournament.organiser.clone());
        let names = tstore::usernames(conn, &ids)?.into_iter().collect();
        let game_ids: Vec<GameId> = tournament
            .rounds
            .iter()
            .flat_map(|r| r.tables.iter().map(|t| t.game_id.clone()))
            .collect();
        let games = tstore::game_states(conn, &game_ids)?
            .into_iter()
            .map(|(g, s, _)| (g, s))
            .collect();
        Ok::<_, TournamentError>(Detail {
            tournament,
            created_at,
            names,
            games,
        })
    })
    .await
}

/// A page of events, newest first, with the organisers' names.
pub async fn list(
    pool: &DbPool,
    status: Option<&'static str>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<TournamentRow>, HashMap<String, String>), TournamentError> {
    store::run(pool, move |conn| {
        let rows = tstore::list(conn, status, limit.clamp(1, MAX_PAGE), offset.max(0))?;
        let ids: Vec<String> = rows.iter().map(|r| r.organiser_id.clone()).collect();
        let names = tstore::usernames(conn, &ids)?.into_iter().collect();
        Ok::<_, TournamentError>((rows, names))
    })
    .await
}
