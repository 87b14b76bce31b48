//! Event-sourced games: each game's log of events is its source of truth.
//!
//! - [`events`]: the event kinds and their JSON payloads;
//! - [`state`]: the fold of a log into a [`state::GameState`] (through `domain::Game`);
//! - [`commands`]: the one write path: every command of a player or of the server
//!   (actor), decided on the state and appended with the store's protocol;
//! - [`clock`]: the injected time of commands;
//! - [`timing`]: time controls, the seats' clocks and the deadline of the seat to move;
//! - [`due`]: the worker that runs what the clock makes due (timeouts), on every instance;
//! - [`bots`]: computer players: their moves are due work, played as the server;
//! - [`store`]: the append-only log, the `games`/`game_players` projection written in the
//!   same transaction, optimistic concurrency on the version ([`store::StoreError`]);
//! - [`queries`]: lists, summaries, pages of the log, the projection check;
//! - [`cache`]: recent states and checkpoints in memory, keyed by game and version;
//! - [`idempotency`]: stored answers of `Idempotency-Key` writes;
//! - [`views`]: the JSON bodies.
//!
//! None of these know HTTP: the handlers are in `routes/games` and `routes/my_games.rs`.

pub mod bots;
pub mod commands;
pub mod conditional;
pub mod deadlines;
pub mod player_command;
pub mod positions;
pub mod queries;
pub mod quotas;
pub mod record;
pub mod stats;

/// How many game states the cache keeps (and as many checkpoints).
pub const CACHE_CAPACITY: usize = 10_000;

/// What the game use cases work with: the pool, the states cache and the clock.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    pub pool: &'a crate::store::DbPool,
    pub cache: &'a std::sync::Arc<crate::store::cache::GameCache>,
    pub clock: &'a std::sync::Arc<dyn crate::clock::Clock>,
    /// The quotas of players' writes ([`quotas`]).
    pub quotas: crate::config::Quotas,
}
