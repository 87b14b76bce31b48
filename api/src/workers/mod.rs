//! Background loops, run on the server's runtime until it stops (see `shutdown`). Each
//! takes a narrow context (the pool, the clock, what it sends with), never the whole
//! application state; what they change in a game they change through the same game
//! command as a player.
//!
//! - [`due`]: deadlines and computer players' turns, and (on the same pass) the
//!   [`reminders`] before deadlines;
//! - [`delivery`]: notifications sent on to webhooks and by mail ([`email`]);
//! - [`analysis`]: the engine's analyses of games, after every game's searches;
//! - [`janitor`]: forgets expired idempotent answers;
//! - [`listen`]: the instance's listening PostgreSQL connection, feeding `crate::live`;
//! - [`smtp`]: the SMTP listener for replies to turn mails (`DJAMBI_SMTP_LISTEN`).

pub mod analysis;
pub mod bot_pool;
pub mod delivery;
pub mod due;
pub mod email;
pub mod janitor;
pub mod listen;
pub mod reminders;
pub mod smtp;
pub mod tournaments;
