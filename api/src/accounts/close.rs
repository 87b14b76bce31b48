//! Closing an account, with the current password. In this order:
//!
//! 1. **ends** at once, in one transaction, everything that lets the account act or be
//!    reached: sessions and refresh tokens, personal access tokens, mailed links, the
//!    reply addresses of turn mails (moves by mail),
//!    webhooks, Web Push subscriptions, notification settings, vacations, the feed and
//!    the queued mails and pushes (a move the account sends after this fails its session
//!    check inside its own write);
//! 2. **leaves its games** through the game commands, as the player would: each seat of a
//!    game in progress resigns ([`Command::Resign`]), each seat of a game still open is
//!    left ([`Command::LeaveSeat`]). Finished games keep their logs as they are;
//! 3. **erases** the personal data: the name shows as `[deleted]`, the address and the
//!    password hash are gone (the address also from the records of replies by mail), and
//!    the name cannot be registered again for
//!    [`NAME_HOLD`] (only a hash of its look-alike skeleton is kept, until then).
//!
//! Step 2 runs again after step 3, for a seat taken by a write that raced step 1.

use chrono::TimeDelta;

use super::{AccountError, Accounts};
use crate::auth::SecretString;
use crate::games::Ctx as GameCtx;
use crate::games::commands::{self, Actor, Command, CommandError, Write};
use crate::ids::UserId;
use crate::store::{self, DbConnection, StoreError};
use crate::validate::{Checks, PASSWORD_MAX, password_policy};

/// How long the name of a closed account cannot be registered again.
pub const NAME_HOLD: TimeDelta = TimeDelta::days(180);

/// A closing asked for by the owner of `user_id`.
#[derive(Debug)]
pub struct Closing {
    pub user_id: UserId,
    pub current_password: SecretString,
    /// The client address, for the login limits the password counts against.
    pub client: std::net::IpAddr,
}

/// What the closing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Closed {
    /// Seats of games in progress resigned.
    pub resigned: usize,
    /// Seats of open games left.
    pub left: usize,
}

/// Closes the account (see the module).
pub async fn close(
    ctx: &Accounts<'_>,
    games: GameCtx<'_>,
    closing: Closing,
) -> Result<Closed, AccountError> {
    let mut checks = Checks::new();
    checks.max_len(
        "current_password",
        closing.current_password.expose(),
        PASSWORD_MAX,
    );
    checks.finish()?;
    let user_id = closing.user_id.clone();
    let user = store::run(ctx.pool, move |conn| {
        store::users::find(conn, &user_id)?.ok_or(AccountError::AccountGone)
    })
    .await?;
    if user.closed_at.is_some() {
        return Err(AccountError::AccountGone);
    }
    let mut attempt = ctx
        .throttle
        .begin(&user.username, closing.client)
        .await
        .map_err(AccountError::Throttled)?;
    attempt
        .account(&user.id)
        .await
        .map_err(AccountError::Throttled)?;
    let candidates = password_policy::candidates(closing.current_password.expose());
    if !ctx
        .passwords
        .verify(candidates, Some(user.password_hash.clone()))
        .await?
    {
        attempt.failed();
        return Err(AccountError::WrongCurrentPassword);
    }
    attempt.succeeded();

    let now = ctx.clock.now();
    let user_id = user.id.clone();
    store::run(ctx.pool, move |conn| {
        store::transaction(conn, |conn| {
            if !store::users::lock(conn, &user_id)? {
                return Ok(false);
            }
            store::erasure::end_everything(conn, &user_id)?;
            Ok::<_, StoreError>(true)
        })?
        .then_some(())
        .ok_or(AccountError::AccountGone)
    })
    .await?;
    tracing::info!(user_id = %user.id, "account closing: sessions, tokens, webhooks and mails ended");

    let cache = games.cache.clone();
    let clock = games.clock.clone();
    let (user_id, username, skeleton, email) = (
        user.id.clone(),
        user.username.clone(),
        user.username_skeleton.clone(),
        user.email.clone(),
    );
    let closed = store::run(ctx.pool, move |conn| {
        // A closed account withdraws from its tournaments (their games are resigned
        // through the game command, as the player).
        if let Err(e) =
            crate::tournaments::command::withdraw_everywhere(conn, &cache, &*clock, &user_id)
        {
            tracing::warn!(error = %e, "closing: a tournament withdrawal failed");
        }
        let mut closed = leave_games(conn, &cache, &*clock, &user_id)?;
        store::transaction(conn, |conn| {
            store::erasure::erase_user(conn, &user_id, &username, now)?;
            store::mail_moves::erase_sender(conn, &email)?;
            let hash = store::erasure::skeleton_hash(&skeleton);
            store::erasure::hold_name(conn, &hash, now + NAME_HOLD)
        })?;
        // A seat taken by a write that passed its checks before step 1 committed.
        let late = leave_games(conn, &cache, &*clock, &user_id)?;
        closed.resigned += late.resigned;
        closed.left += late.left;
        Ok::<_, AccountError>(closed)
    })
    .await?;
    tracing::info!(
        user_id = %user.id,
        resigned = closed.resigned,
        left = closed.left,
        "account closed; personal data erased"
    );
    Ok(closed)
}

/// Resigns every seat of the account in games in progress and leaves every seat in open
/// games, each through the game commands as the player.
fn leave_games(
    conn: &mut DbConnection,
    cache: &crate::store::cache::GameCache,
    clock: &dyn crate::clock::Clock,
    user_id: &UserId,
) -> Result<Closed, AccountError> {
    let mut closed = Closed::default();
    for (game_id, seat, status) in store::erasure::seats_in_play(conn, user_id)? {
        let command = if status == "open" {
            match seat.parse() {
                Ok(seat) => Command::LeaveSeat { seat },
                Err(_) => continue,
            }
        } else {
            Command::Resign
        };
        let write = Write {
            game_id: game_id.clone(),
            command,
            actor: Actor::Player(user_id.clone()),
            expected: None,
            session: None,
            quotas: None,
        };
        match commands::execute(conn, cache, clock, &write) {
            Ok(_) if status == "open" => closed.left += 1,
            Ok(_) => closed.resigned += 1,
            // Already out, the game ended meanwhile, or the seat was left: nothing to do.
            Err(
                CommandError::Conflict(_)
                | CommandError::GameOver(_)
                | CommandError::Forbidden(_)
                | CommandError::GameNotStarted(_)
                | CommandError::NotFound(_),
            ) => {}
            Err(CommandError::Store(e)) => return Err(e.into()),
            Err(e) => {
                tracing::warn!(game = %game_id, error = %e, "closing: a seat could not be given up");
            }
        }
    }
    Ok(closed)
}
