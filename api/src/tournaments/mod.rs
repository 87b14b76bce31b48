//! Tournaments: many games, one standing. An event's log is its truth ([`log`]): the
//! organiser's, the players', the clock's and the games' changes all go through one
//! command path ([`command`]) that decides events on the folded state and appends them
//! with a claimed version, like a game's log. The tables come from [`pairing`], the
//! points from [`scoring`]; `docs/tournaments.md` documents the choices and numbers.

pub mod command;
pub mod log;
pub mod notify;
pub mod pairing;
pub mod queries;
pub mod scoring;
