//! Reads of ratings: a player's page ([`player`]) and the leaderboard ([`leaderboard`]).

use chrono::{NaiveDateTime, TimeDelta};

use super::model::Skill;
use crate::ids::{GameId, UserId};
use crate::store::ratings as rating_store;
pub use crate::store::ratings::{PlayerRatingRow, RatingChangeRow};
use crate::store::{self, DbPool, RunError, StoreError};

/// The most recent games a player page lists.
pub const RECENT_GAMES: i64 = 20;
/// The most games the rating history covers (the latest ones).
pub const HISTORY_GAMES: i64 = 200;

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum RatingReadError {
    #[error("no player {0:?}")]
    NoPlayer(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<RunError> for RatingReadError {
    fn from(e: RunError) -> Self {
        RatingReadError::Store(e.into())
    }
}

/// A player's rating page.
#[derive(Debug, Clone)]
pub struct PlayerPage {
    pub user_id: UserId,
    pub username: String,
    /// The current rating (the prior for a player without rated games).
    pub rating: PlayerRatingRow,
    /// (place, how many times), 1 first.
    pub places: Vec<(i32, i64)>,
    /// Newest first.
    pub recent: Vec<RatingChangeRow>,
    /// Oldest first: the player's changes in the covered games.
    pub history: Vec<RatingChangeRow>,
    /// The games of `recent` and `history` the reader may not know of: invite-only
    /// games the reader did not play. Their id opens them, so they are shown without it
    /// ([`PlayerPage::shown_id`]).
    pub unlisted: std::collections::HashSet<GameId>,
}

impl PlayerPage {
    /// The id of `game_id` as this page may show it to its reader: `None` for an
    /// invite-only game the reader did not play.
    pub fn shown_id<'a>(&self, game_id: &'a GameId) -> Option<&'a GameId> {
        (!self.unlisted.contains(game_id)).then_some(game_id)
    }
}

/// Whether a rating is provisional (see [`super::model::PROVISIONAL_SIGMA`]).
pub fn provisional(row: &PlayerRatingRow) -> bool {
    Skill {
        mu: row.mu,
        sigma: row.sigma,
    }
    .provisional()
}

/// The page of `username` (found by its login key: the name in ASCII lower case), as
/// `reader` (`None`: nobody signed in) may see it.
pub async fn player(
    pool: &DbPool,
    username: String,
    reader: Option<UserId>,
) -> Result<PlayerPage, RatingReadError> {
    store::run(pool, move |conn| {
        let key = crate::validate::names::login_key(&username)
            .ok_or_else(|| RatingReadError::NoPlayer(username.clone()))?;
        let user = store::users::find_by_login_key(conn, &key)?
            .ok_or_else(|| RatingReadError::NoPlayer(username.clone()))?;
        let rating = rating_store::get(conn, &user.id)?
            .unwrap_or_else(|| super::fresh(&user.id, user.created_at));
        let places = rating_store::places_of(conn, &user.id)?;
        let mut history = rating_store::changes_of(conn, &user.id, HISTORY_GAMES)?;
        let recent: Vec<RatingChangeRow> = history
            .iter()
            .take(RECENT_GAMES as usize)
            .cloned()
            .collect();
        history.reverse();
        let ids: Vec<GameId> = history.iter().map(|c| c.game_id.clone()).collect();
        let unlisted = store::game_lists::unlisted_for(conn, &ids, reader.as_ref())?;
        Ok(PlayerPage {
            user_id: user.id,
            username: user.username,
            rating,
            places,
            recent,
            history,
            unlisted,
        })
    })
    .await
}

/// A leaderboard cursor: the rating's bits (hex) and the user id, so a page boundary is
/// exact whatever the float.
pub fn encode_cursor(rating: f64, user_id: &UserId) -> String {
    format!("{:016x}_{user_id}", rating.to_bits())
}

/// Reads a cursor made by [`encode_cursor`]; `None` when it is not one.
pub fn decode_cursor(cursor: &str) -> Option<(f64, String)> {
    let (bits, id) = cursor.split_once('_')?;
    if bits.len() != 16
        || id.is_empty()
        || id.len() > 64
        || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return None;
    }
    // Any bits: a cursor no page handed out (an infinity, a NaN) just pages from there.
    let rating = f64::from_bits(u64::from_str_radix(bits, 16).ok()?);
    Some((rating, id.to_string()))
}

/// Up to `limit` rated players after `after`, best first; with `active_days`, only
/// those whose last rated game ended in the last so many days before `now`.
pub async fn leaderboard(
    pool: &DbPool,
    after: Option<(f64, String)>,
    active_days: Option<u32>,
    now: NaiveDateTime,
    limit: i64,
) -> Result<Vec<(PlayerRatingRow, String)>, RatingReadError> {
    let since = active_days.map(|d| now - TimeDelta::days(i64::from(d)));
    store::run(pool, move |conn| {
        Ok(rating_store::board(conn, after, since, limit)?)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_exactly_and_refuse_strangers() {
        for r in [0.0, -3.25, 17.123456789012345, f64::MIN_POSITIVE] {
            let c = encode_cursor(r, &"abc-1".into());
            let (back, id) = decode_cursor(&c).unwrap();
            assert_eq!(back.to_bits(), r.to_bits());
            assert_eq!(id, "abc-1");
        }
        for bad in [
            "",
            "_",
            "12_x",
            "zzzzzzzzzzzzzzzz_a",
            "0000000000000000_a b",
        ] {
            assert!(decode_cursor(bad).is_none(), "{bad}");
        }
    }
}
