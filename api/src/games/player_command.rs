//! The write use case: one command of a player, run through the command layer once.
//!
//! Every write a player sends over HTTP comes here with the request already parsed (the
//! caller, the command, the expected version, the `Idempotency-Key` and the hash of the
//! request). From here down nothing climbs back: the command layer checks the session,
//! looks up and stores the idempotent answer and retries in its own transaction; the
//! answer is a pure function of what was written, given by the caller as a [`Render`].

use serde_json::Value;

use super::Ctx;
use super::commands::{self, Command, CommandError, Done, Idempotent, Write, Written};
use crate::ids::UserId;
use crate::store::games::{self as game_store, GameRow, PlayerRow};
use crate::store::idempotency::{self, Lookup};
use crate::store::{self, DbConnection, StoreError};

/// An `Idempotency-Key` as the caller sent it, and the hash of the request it came with.
#[derive(Debug, Clone)]
pub struct IdempotencyKey {
    pub key: String,
    pub request_hash: String,
}

/// A player's write, parsed.
#[derive(Debug, Clone)]
pub struct GameWrite {
    pub write: Write,
    pub key: Option<IdempotencyKey>,
    /// `If-Match`'s version when it differs from the body's `expected_version`: the two
    /// preconditions cannot both hold, so the write is refused as a version conflict.
    pub contradicting: Option<i64>,
}

/// How an answer is rendered: a pure function of what was written.
#[derive(Clone, Copy)]
pub enum Render {
    /// The game's summary (creating a game, seats): the row and its players as the
    /// viewer (the caller) sees them.
    Summary(fn(&GameRow, &[PlayerRow], &UserId) -> Value),
    /// What the action did (moves, resignations, draw offers).
    Action(fn(&Written) -> Value),
}

impl Render {
    /// The answer of `written` for `viewer` (a summary reads the players' names).
    fn answer(
        self,
        conn: &mut DbConnection,
        written: &Written,
        viewer: &UserId,
    ) -> Result<Value, StoreError> {
        Ok(match self {
            Render::Summary(render) => {
                let row = GameRow::of(&written.state);
                let players = game_store::players_of(conn, std::slice::from_ref(&row.id))?;
                render(&row, &players, viewer)
            }
            Render::Action(render) => render(written),
        })
    }
}

/// An answer: fresh, or the one stored for the same request.
#[derive(Debug, Clone)]
pub struct Answer {
    pub body: Value,
    pub replayed: bool,
}

/// Runs the write and renders its answer.
pub async fn execute(
    ctx: Ctx<'_>,
    request: GameWrite,
    render: Render,
) -> Result<Answer, CommandError> {
    let cache = ctx.cache.clone();
    let clock = ctx.clock.clone();
    let quotas = ctx.quotas;
    store::run(ctx.pool, move |conn| {
        let GameWrite {
            mut write,
            key,
            contradicting,
        } = request;
        write.quotas = Some(quotas);
        // A seat in a game that asks for a rating range: the joiner's rating, read here.
        let account = write.actor.account().cloned();
        if let (Command::TakeSeat { rating, .. }, Some(user)) =
            (&mut write.command, account.as_ref())
        {
            *rating = crate::ratings::shown_rating(conn, user)?;
        }
        if let Some(claimed) = contradicting {
            let current_version = match game_store::current_version(conn, &write.game_id) {
                Ok(v) => v,
                Err(StoreError::NotFound(_)) if write.command.creates_game() => 0,
                Err(e) => return Err(e.into()),
            };
            return Err(CommandError::VersionConflict {
                expected: claimed,
                current_version,
            });
        }
        // A player's command: the actor is an account (an empty id, as before, matches
        // no stored answer otherwise).
        let viewer = write
            .actor
            .account()
            .cloned()
            .unwrap_or_else(|| UserId::new(""));
        let Some(key) = key else {
            let written = commands::execute(conn, &cache, &*clock, &write)?;
            let body = render.answer(conn, &written, &viewer)?;
            return Ok(Answer {
                body,
                replayed: false,
            });
        };
        let render_in_tx = |conn: &mut DbConnection, w: &Written| render.answer(conn, w, &viewer);
        let idempotent = Idempotent {
            user_id: &viewer,
            key: &key.key,
            request_hash: &key.request_hash,
            render: &render_in_tx,
        };
        match commands::execute_idempotent(conn, &cache, &*clock, &write, &idempotent) {
            Ok(Done::Wrote(_, body)) => Ok(Answer {
                body,
                replayed: false,
            }),
            Ok(Done::Replayed(body)) => Ok(Answer {
                body,
                replayed: true,
            }),
            // The first attempt of this very request may have committed meanwhile (a
            // retry racing it): its stored answer wins over any error.
            Err(error @ CommandError::SessionEnded) => Err(error),
            Err(error) => match idempotency::lookup(conn, &viewer, &key.key, &key.request_hash)? {
                Lookup::Replay(body) => Ok(Answer {
                    body,
                    replayed: true,
                }),
                Lookup::Reused => Err(CommandError::IdempotencyKeyReused(key.key.clone())),
                Lookup::New => Err(error),
            },
        }
    })
    .await
}
