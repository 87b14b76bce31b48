//! `djambi-server recompute-ratings`: replays every finished rated game from its log, in
//! the order the ratings were applied, from the prior, and compares bit for bit with what
//! is stored (each game's changes and every player's rating).
//!
//! The order: the stored application number (`applied_seq`), then the game's end time
//! and id. Games that share no player commute, so any order of theirs gives the same
//! figures; games that share one were applied one after the other under the players'
//! row locks, and their numbers say in which order.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDateTime;

use super::{placings, update};
use crate::ids::{GameId, UserId};
use crate::store::games as game_store;
use crate::store::ratings::{self as rating_store, PlayerRatingRow, RatingChangeRow};
use crate::store::{DbConnection, StoreError};

/// A finished rated game from its log: id, end, the players' places.
type FinishedGame = (GameId, NaiveDateTime, Vec<(UserId, usize)>);

/// What a recompute found.
#[derive(Debug, Default)]
pub struct Report {
    /// Finished rated games replayed.
    pub games: usize,
    /// Players with a rating after the replay.
    pub players: usize,
    /// Every difference, one line each (empty: the stored ratings are reproduced).
    pub differences: Vec<String>,
}

/// Replays and compares (see the module documentation). Reads only.
pub fn recompute(conn: &mut DbConnection) -> Result<Report, StoreError> {
    // The finished rated games, from their logs.
    let mut games: Vec<FinishedGame> = Vec::new();
    let mut after = String::new();
    loop {
        let ids = game_store::game_ids_after(conn, &after, 500)?;
        let Some(last) = ids.last() else { break };
        after = last.to_string();
        for id in &ids {
            let rows = game_store::load_events(conn, id, 0, i64::MAX, None)?;
            let Some(state) = game_store::fold(id, None, &rows, |_, _| {})? else {
                continue;
            };
            if let Some(p) = placings(&state) {
                let ended = state.ended_at.unwrap_or(state.updated_at);
                games.push((id.clone(), ended, p));
            }
        }
    }
    let stored = rating_store::all_changes(conn)?;
    let mut stored_by_game: HashMap<GameId, Vec<RatingChangeRow>> = HashMap::new();
    for row in stored {
        stored_by_game
            .entry(row.game_id.clone())
            .or_default()
            .push(row);
    }
    let seqs: HashMap<GameId, i64> = stored_by_game
        .iter()
        .filter_map(|(id, rows)| Some((id.clone(), rows.first()?.applied_seq)))
        .collect();
    let seq_of = |id: &GameId| seqs.get(id).copied().unwrap_or(i64::MAX);
    games.sort_by(|a, b| (seq_of(&a.0), a.1, &a.0).cmp(&(seq_of(&b.0), b.1, &b.0)));
    let mut report = Report {
        games: games.len(),
        ..Report::default()
    };
    let mut ratings: BTreeMap<UserId, PlayerRatingRow> = BTreeMap::new();
    for (id, ended_at, placings) in &games {
        let current: Vec<PlayerRatingRow> = placings
            .iter()
            .filter_map(|(u, _)| ratings.get(u).cloned())
            .collect();
        let (changes, rows) = update(id, *ended_at, seq_of(id), placings, &current);
        match stored_by_game.remove(id) {
            None => report.differences.push(format!(
                "game {id}: rated and finished, but no rating changes are stored"
            )),
            Some(mut got) => {
                got.sort_by(|a, b| a.user_id.cmp(&b.user_id));
                let mut want = changes;
                want.sort_by(|a, b| a.user_id.cmp(&b.user_id));
                if !same_changes(&want, &got) {
                    report.differences.push(format!(
                        "game {id}: stored changes {} differ from the replay's {}",
                        describe(&got),
                        describe(&want)
                    ));
                }
            }
        }
        for row in rows {
            ratings.insert(row.user_id.clone(), row);
        }
    }
    for id in stored_by_game.keys() {
        report.differences.push(format!(
            "game {id}: rating changes are stored, but the log has no finished rated game"
        ));
    }
    let stored_ratings = rating_store::all_ratings(conn)?;
    report.players = ratings.len();
    for row in &stored_ratings {
        match ratings.remove(&row.user_id) {
            None if row.games == 0 => {}
            None => report.differences.push(format!(
                "player {}: a stored rating, but no rated game",
                row.user_id
            )),
            Some(want) if !same_rating(&want, row) => report.differences.push(format!(
                "player {}: stored mu {:?} sigma {:?} games {} wins {}, replay mu {:?} sigma {:?} games {} wins {}",
                row.user_id, row.mu, row.sigma, row.games, row.wins, want.mu, want.sigma, want.games, want.wins
            )),
            Some(_) => {}
        }
    }
    for id in ratings.keys() {
        report
            .differences
            .push(format!("player {id}: rated games, but no stored rating"));
    }
    Ok(report)
}

fn same_changes(a: &[RatingChangeRow], b: &[RatingChangeRow]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.user_id == y.user_id
                && x.place == y.place
                && x.players == y.players
                && x.mu_before.to_bits() == y.mu_before.to_bits()
                && x.sigma_before.to_bits() == y.sigma_before.to_bits()
                && x.mu_after.to_bits() == y.mu_after.to_bits()
                && x.sigma_after.to_bits() == y.sigma_after.to_bits()
        })
}

fn same_rating(a: &PlayerRatingRow, b: &PlayerRatingRow) -> bool {
    a.mu.to_bits() == b.mu.to_bits()
        && a.sigma.to_bits() == b.sigma.to_bits()
        && a.rating.to_bits() == b.rating.to_bits()
        && a.games == b.games
        && a.wins == b.wins
}

fn describe(rows: &[RatingChangeRow]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "{} place {} ({:?}, {:?}) -> ({:?}, {:?})",
                r.user_id, r.place, r.mu_before, r.sigma_before, r.mu_after, r.sigma_after
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
