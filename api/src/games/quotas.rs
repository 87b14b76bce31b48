//! The quotas of a player's game writes (settings `DJAMBI_QUOTA_*`, `DJAMBI_BOT_GAMES_*`),
//! checked inside the write's transaction, after the command was decided and before it is
//! appended, with the account's row locked (so concurrent requests cannot both take the
//! last place; the site-wide cap on bot-only games is not serialised across accounts and
//! may be passed by the writes of that instant):
//!
//! - creating a game: at most `games_per_day` games (imports included) in 24 hours (429
//!   with `Retry-After`), and at most `open_games` games created and not ended (409);
//! - importing a record: at most `imports_per_day` in 24 hours (429);
//! - a write that leaves a game to computer players alone (creating it full of bots,
//!   seating the last bot of a game where nobody sits): at most `bot_games_per_account`
//!   such games of the creator being played, and `bot_games_total` on the site (409).

use chrono::{NaiveDateTime, TimeDelta};

use super::commands::{Command, CommandError};
use crate::config::Quotas;
use crate::ids::UserId;
use crate::model::game_state::GameState;
use crate::quota::Exceeded;
use crate::store::{DbConnection, quotas as count};

/// The period of the per-day quotas.
const DAY: TimeDelta = TimeDelta::hours(24);

/// Checks the write of `user` that turns `before` into `after`.
pub fn check(
    conn: &mut DbConnection,
    q: &Quotas,
    command: &Command,
    before: Option<&GameState>,
    after: &GameState,
    user: &UserId,
    now: NaiveDateTime,
) -> Result<(), CommandError> {
    let creates = command.creates_game();
    let to_bots = matches!(command, Command::Create(_) | Command::SeatBot { .. })
        && after.only_bots_active()
        && !before.is_some_and(GameState::only_bots_active);
    if !creates && !to_bots {
        return Ok(());
    }
    count::lock_account(conn, user)?;
    if creates {
        per_day(
            conn,
            user,
            None,
            q.games_per_day,
            "games_per_day",
            now,
            |n| {
                format!(
                    "an account may create at most {n} games (imports included) in 24 hours \
                 (DJAMBI_QUOTA_GAMES_PER_DAY)"
                )
            },
        )?;
    }
    match command {
        Command::Create(_) => {
            let open = count::open_games_created(conn, user, "play")? as u64;
            if open >= q.open_games {
                return Err(CommandError::Quota(Exceeded::held(
                    "open_games",
                    q.open_games,
                    format!(
                        "an account may have at most {} games it created that have not \
                         ended (DJAMBI_QUOTA_OPEN_GAMES); finish or leave one first",
                        q.open_games
                    ),
                )));
            }
        }
        Command::Import(_) => {
            per_day(
                conn,
                user,
                Some("study"),
                q.imports_per_day,
                "imports_per_day",
                now,
                |n| {
                    format!(
                        "an account may import at most {n} game records in 24 hours \
                         (DJAMBI_QUOTA_IMPORTS_PER_DAY)"
                    )
                },
            )?;
        }
        _ => {}
    }
    if to_bots {
        let creator = after.created_by.as_str();
        let mine = count::bots_only_games(conn, Some(creator))? as u64;
        if mine >= q.bot_games_per_account {
            return Err(CommandError::Quota(Exceeded::held(
                "bot_games_per_account",
                q.bot_games_per_account,
                format!(
                    "an account may have at most {} games of computer players alone being \
                     played (DJAMBI_BOT_GAMES_PER_ACCOUNT); wait until one ends",
                    q.bot_games_per_account
                ),
            )));
        }
        let all = count::bots_only_games(conn, None)? as u64;
        if all >= q.bot_games_total {
            return Err(CommandError::Quota(Exceeded::held(
                "bot_games_total",
                q.bot_games_total,
                format!(
                    "the site plays at most {} games of computer players alone at once \
                     (DJAMBI_BOT_GAMES_TOTAL); try again when one has ended",
                    q.bot_games_total
                ),
            )));
        }
    }
    Ok(())
}

/// A quota over the last 24 hours: refused with the time until the oldest counted
/// creation leaves the period.
fn per_day(
    conn: &mut DbConnection,
    user: &UserId,
    kind: Option<&str>,
    limit: u64,
    quota: &'static str,
    now: NaiveDateTime,
    detail: impl Fn(u64) -> String,
) -> Result<(), CommandError> {
    let (n, oldest) = count::created_since(conn, user, kind, now - DAY)?;
    if (n as u64) < limit {
        return Ok(());
    }
    let free_at = oldest.unwrap_or(now) + DAY;
    let secs = (free_at - now).num_seconds().max(1) as u64;
    Err(CommandError::Quota(Exceeded::per_period(
        quota,
        limit,
        secs,
        detail(limit),
    )))
}
