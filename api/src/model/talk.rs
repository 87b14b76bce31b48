//! The table-talk options of a game, chosen at its creation and kept in its `created`
//! event (under `talk`; absent in older logs, which so replay with the defaults).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What happens to private messages when the game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Press {
    /// Private messages stay private for ever (the default).
    #[default]
    Private,
    /// After the end, every message becomes visible to everyone who can see the game.
    RevealedAtEnd,
}

/// A game's table-talk options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TalkSettings {
    #[serde(default)]
    pub press: Press,
    /// Whether a player whose seats are all out (resigned, timed out, eliminated) may
    /// still write; they always keep reading.
    #[serde(default = "yes")]
    pub eliminated_may_write: bool,
}

fn yes() -> bool {
    true
}

impl Default for TalkSettings {
    fn default() -> Self {
        TalkSettings {
            press: Press::Private,
            eliminated_may_write: true,
        }
    }
}

impl TalkSettings {
    pub fn is_default(&self) -> bool {
        *self == TalkSettings::default()
    }
}
