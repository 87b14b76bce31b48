//! The game model of the service: the events of a game's log ([`events`]), their one
//! fold into a [`game_state::GameState`] (through the rules crate), and time controls
//! ([`timing`]). Pure: no I/O, no HTTP. The store writes and replays these, the use
//! cases decide them, the routes show them; their serde form is the log's JSON, and
//! the same form is what clients read, so they carry their OpenAPI schema (`ToSchema`)
//! as data-only derives: the one place outside `routes/` that names utoipa.

pub mod analysis;
pub mod conditional;
pub mod events;
pub mod game_state;
pub mod talk;
pub mod timing;
