//! Who is calling: passwords, access tokens (JWT), opaque tokens, the web session's
//! cookie; the extractor handlers take to require a caller is
//! `routes::caller::Authenticated`.
//!
//! Two kinds of bearer token are accepted:
//! - a JWT access token from a login (`POST /v1/sessions`): both scopes, tied to a session
//!   that logout or refresh-token reuse revokes;
//! - a personal access token `djp_...` (`POST /v1/me/tokens`): the scopes it was made with,
//!   revocable, never able to manage the account (that needs a login session).

pub mod jwt;
pub mod passwords;
pub mod secret;
pub mod tokens;
pub mod web_session;

pub use secret::SecretString;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a token may do. `read`: read games, state and one's own data. `play`: act in games
/// (moves, seats, resignations, draw offers). A login has both.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Read,
    Play,
}

impl Scope {
    pub const ALL: [Scope; 2] = [Scope::Read, Scope::Play];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Play => "play",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "read" => Some(Scope::Read),
            "play" => Some(Scope::Play),
            _ => None,
        }
    }

    /// Parses a space-separated list, ignoring unknown names.
    pub fn parse_list(s: &str) -> Vec<Scope> {
        let mut v: Vec<Scope> = s.split_whitespace().filter_map(Scope::parse).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The space-separated form.
    pub fn join(scopes: &[Scope]) -> String {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}
