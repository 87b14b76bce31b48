//! Event-sourced games: each game's log of events is its source of truth.
//!
//! - [`events`]: the event kinds and their JSON payloads;
//! - [`state`]: the fold of a log into a [`state::GameState`] (through `domain::Game`);
//! - [`store`]: the append-only log, the `games`/`game_players` projection written in the
//!   same transaction, optimistic concurrency on the version;
//! - [`cache`]: recently used states in memory, keyed by game and version;
//! - [`idempotency`]: `Idempotency-Key` on writes;
//! - [`service`]: the commands and the write path they share;
//! - [`views`]: the JSON bodies.
//!
//! The HTTP handlers are in `routes/games.rs` and `routes/my_games.rs`.

pub mod cache;
pub mod events;
pub mod idempotency;
pub mod service;
pub mod state;
pub mod store;
pub mod views;

/// How many game states the cache keeps.
pub const CACHE_CAPACITY: usize = 10_000;
