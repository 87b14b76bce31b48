//! Use cases of ratings: the multi-player rating of rated games ([`model`]: Weng-Lin
//! with Plackett-Luce), applied in the transaction that writes a rated game's `ended`
//! event ([`apply_ended`], called by the game command's append), replayed and checked by
//! `djambi-server recompute-ratings` ([`recompute`]), and read for player pages and the
//! leaderboard ([`read`]).
//!
//! Policy: a rated game has a time control and people in every seat (computer players
//! make a game casual: they are not rated). The ranking is the one the rules give in
//! the `ended` event (a resignation or a timeout places the seat by when it left);
//! players sharing a place tie.

pub mod model;
pub mod read;
pub mod recompute;

use chrono::NaiveDateTime;

use crate::ids::{GameId, UserId};
use crate::model::events::RatingRange;
use crate::model::game_state::GameState;
use crate::store::ratings::{self as rating_store, PlayerRatingRow, RatingChangeRow};
use crate::store::{DbConnection, StoreError};
use model::Skill;

/// The widest rating range a game may ask for (shown ratings stay well inside it).
pub const RANGE_LIMIT: i32 = 100;

/// Checks the rating settings of a new game: `Err((field, message))`.
pub fn check_new_game(
    rated: bool,
    has_time_control: bool,
    has_bots: bool,
    range: Option<&RatingRange>,
) -> Result<(), (&'static str, String)> {
    if rated && !has_time_control {
        return Err(("rated", "a rated game needs a time_control".into()));
    }
    if rated && has_bots {
        return Err((
            "rated",
            "a rated game is played by people only: no bots".into(),
        ));
    }
    if let Some(r) = range {
        for v in [r.min, r.max].into_iter().flatten() {
            if !(-RANGE_LIMIT..=RANGE_LIMIT).contains(&v) {
                return Err((
                    "rating_range",
                    format!("bounds are -{RANGE_LIMIT} to {RANGE_LIMIT}"),
                ));
            }
        }
        if let (Some(min), Some(max)) = (r.min, r.max) {
            if min > max {
                return Err(("rating_range", "min is above max".into()));
            }
        }
    }
    Ok(())
}

/// Whether a player with shown rating `rating` (`None`: never rated, so the prior's
/// shown rating, 0) may take a seat in a game asking for `range`; `Err(why)` if not.
pub fn admit(range: &RatingRange, rating: Option<f64>) -> Result<(), String> {
    let r = rating.unwrap_or_else(|| Skill::default().display());
    if range.admits(r) {
        return Ok(());
    }
    let want = match (range.min, range.max) {
        (Some(min), Some(max)) => format!("from {min} to {max}"),
        (Some(min), None) => format!("at least {min}"),
        (None, Some(max)) => format!("at most {max}"),
        (None, None) => "any".into(),
    };
    Err(format!(
        "this game asks for a rating {want}; yours is {r:.1}"
    ))
}

/// A finished rated game's players and their places (0 best, shared places share it),
/// in the ranking's order. `None` for a game that is not rated, not over, or has a seat
/// without a person.
pub fn placings(state: &GameState) -> Option<Vec<(UserId, usize)>> {
    if !state.rated {
        return None;
    }
    let result = state.result.as_ref()?;
    let mut out = Vec::new();
    for (place, group) in result.ranking.iter().enumerate() {
        for seat in group {
            out.push((state.player(*seat)?.clone(), place));
        }
    }
    (out.len() >= 2).then_some(out)
}

/// A new player's row.
pub fn fresh(user_id: &UserId, at: NaiveDateTime) -> PlayerRatingRow {
    let s = Skill::default();
    PlayerRatingRow {
        user_id: user_id.clone(),
        mu: s.mu,
        sigma: s.sigma,
        rating: s.display(),
        games: 0,
        wins: 0,
        last_game_at: at,
    }
}

/// One game's rating update (pure): the change rows and the players' new rows, from
/// their current rows (`current`, any order, one per player).
pub fn update(
    game_id: &GameId,
    ended_at: NaiveDateTime,
    seq: i64,
    placings: &[(UserId, usize)],
    current: &[PlayerRatingRow],
) -> (Vec<RatingChangeRow>, Vec<PlayerRatingRow>) {
    let row_of = |id: &UserId| {
        current
            .iter()
            .find(|r| r.user_id == id)
            .cloned()
            .unwrap_or_else(|| fresh(id, ended_at))
    };
    let before: Vec<PlayerRatingRow> = placings.iter().map(|(id, _)| row_of(id)).collect();
    let skills: Vec<Skill> = before
        .iter()
        .map(|r| Skill {
            mu: r.mu,
            sigma: r.sigma,
        })
        .collect();
    let ranks: Vec<usize> = placings.iter().map(|(_, p)| *p).collect();
    let after = model::rate(&skills, &ranks);
    let players = placings.len() as i32;
    let mut changes = Vec::with_capacity(placings.len());
    let mut rows = Vec::with_capacity(placings.len());
    for ((row, skill), &place) in before.iter().zip(&after).zip(&ranks) {
        let sole_first = place == 0 && ranks.iter().filter(|&&r| r == 0).count() == 1;
        changes.push(RatingChangeRow {
            game_id: game_id.clone(),
            user_id: row.user_id.clone(),
            applied_seq: seq,
            place: place as i32 + 1,
            players,
            mu_before: row.mu,
            sigma_before: row.sigma,
            mu_after: skill.mu,
            sigma_after: skill.sigma,
            ended_at,
        });
        rows.push(PlayerRatingRow {
            user_id: row.user_id.clone(),
            mu: skill.mu,
            sigma: skill.sigma,
            rating: skill.display(),
            games: row.games + 1,
            wins: row.wins + i64::from(sole_first),
            last_game_at: ended_at,
        });
    }
    (changes, rows)
}

/// Locks the rating rows of a rated game's seated players (see [`rating_store::lock`])
/// before a write that ends it reads the time: its `ended_at` is then stamped in the
/// same serialised step that numbers its changes, so two games of one player ending at
/// once end in the order their ratings changed.
pub fn lock_players(
    conn: &mut DbConnection,
    state: &GameState,
    at: NaiveDateTime,
) -> Result<(), StoreError> {
    let ids: Vec<UserId> = domain::Seat::ALL
        .into_iter()
        .filter_map(|s| state.player(s).cloned())
        .collect();
    rating_store::lock(conn, &ids, |id| fresh(id, at))?;
    Ok(())
}

/// Applies a rated game's result to its players' ratings, inside the transaction that
/// writes its `ended` event (so exactly once: the event is written once). Locks the
/// players' rows first (see [`rating_store::lock`]). Does nothing for another game.
pub fn apply_ended(conn: &mut DbConnection, state: &GameState) -> Result<(), StoreError> {
    let Some(placings) = placings(state) else {
        return Ok(());
    };
    let ended_at = state.ended_at.unwrap_or(state.updated_at);
    let ids: Vec<UserId> = placings.iter().map(|(id, _)| id.clone()).collect();
    let current = rating_store::lock(conn, &ids, |id| fresh(id, ended_at))?;
    let seq = rating_store::next_seq(conn)?;
    let (changes, rows) = update(&state.id, ended_at, seq, &placings, &current);
    rating_store::record(conn, &changes, &rows)
}

/// The shown rating of `user_id`, if they have one (for a game's rating range).
pub fn shown_rating(conn: &mut DbConnection, user_id: &UserId) -> Result<Option<f64>, StoreError> {
    Ok(rating_store::get(conn, user_id)?.map(|r| r.rating))
}
