//! Use cases of ratings: the multi-player rating of rated games (see [`model`]), applied
//! in the transaction that ends a game ([`apply`]), replayed by `recompute-ratings`, and
//! read for player pages and the leaderboard.

pub mod model;
