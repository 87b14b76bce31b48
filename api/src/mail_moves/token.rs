//! The reply token of a turn mail: `move+<token>@DJAMBI_MAIL_DOMAIN`.
//!
//! The token is the HMAC-SHA256 (keyed by the server's signing secret) of the
//! notification's id, 160 bits in lowercase hex (an address's local part may be
//! lower-cased on the way). It is derived when the mail is composed; the store keeps its
//! SHA-256 only, with what it is bound to: the game, the seat, the player, the version
//! of the turn, and when it expires (a week after the deadline, or 30 days after the
//! mail without one).

use chrono::{NaiveDateTime, TimeDelta};
use hmac::{KeyInit, Mac};

use crate::auth::tokens;
use crate::ids::{GameId, UserId};
use crate::store::mail_moves::{self as store, MailTokenRow};
use crate::store::outbox::NotificationRow;
use crate::store::{DbConnection, StoreError};

/// The local part's prefix of reply addresses.
pub const LOCAL_PREFIX: &str = "move+";
/// How long after the deadline a token still works (then it answers `expired`).
pub const AFTER_DEADLINE: TimeDelta = TimeDelta::days(7);
/// Without a deadline: how long after the mail.
pub const WITHOUT_DEADLINE: TimeDelta = TimeDelta::days(30);
/// The token's length in hex digits (160 bits).
pub const TOKEN_HEX: usize = 40;

/// The token of the mail of notification `note_id`.
pub fn derive(secret: &str, note_id: &str) -> String {
    let mut mac = hmac::Hmac::<sha2_011::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key");
    mac.update(b"djambi-move-by-mail\0");
    mac.update(note_id.as_bytes());
    hex::encode(&mac.finalize().into_bytes()[..TOKEN_HEX / 2])
}

/// The token in a recipient address (`move+TOKEN@domain`), if it is one of ours.
pub fn from_address(address: &str, domain: &str) -> Option<String> {
    let (local, dom) = address.trim().rsplit_once('@')?;
    if !dom.eq_ignore_ascii_case(domain) {
        return None;
    }
    let token = local
        .get(..LOCAL_PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(LOCAL_PREFIX))
        .map(|_| &local[LOCAL_PREFIX.len()..])?
        .to_ascii_lowercase();
    (token.len() == TOKEN_HEX && token.bytes().all(|b| b.is_ascii_hexdigit())).then_some(token)
}

/// What a reply address is bound to: the mail (a notification) it was sent in, the seat
/// and its player, and the game's version the reply is read at.
#[derive(Debug, Clone)]
pub struct Binding<'a> {
    pub notification_id: &'a str,
    pub game_id: &'a GameId,
    pub seat: domain::Seat,
    pub user_id: &'a UserId,
    pub version: i64,
    pub created_at: NaiveDateTime,
    /// The turn's deadline, if any: the token works until a week after it.
    pub deadline: Option<NaiveDateTime>,
}

/// Mints the token of a turn mail (stores its hash, bound to the turn) and returns the
/// reply address; `None` when the notification names no game, seat or version.
pub fn mint(
    conn: &mut DbConnection,
    secret: &str,
    domain: &str,
    note: &NotificationRow,
    deadline: Option<NaiveDateTime>,
) -> Result<Option<String>, StoreError> {
    let payload: serde_json::Value = serde_json::from_str(&note.payload).unwrap_or_default();
    let seat = payload
        .get("seat")
        .cloned()
        .and_then(|s| serde_json::from_value::<domain::Seat>(s).ok());
    let (Some(game_id), Some(version), Some(seat)) = (&note.game_id, note.version, seat) else {
        return Ok(None);
    };
    let binding = Binding {
        notification_id: &note.id,
        game_id,
        seat,
        user_id: &note.user_id,
        version,
        created_at: note.created_at,
        deadline,
    };
    bind(conn, secret, domain, &binding).map(Some)
}

/// Mints the token of any mail bound to a seat at a version (a turn mail, or an answer
/// whose reply stores conditional moves) and returns the reply address.
pub fn bind(
    conn: &mut DbConnection,
    secret: &str,
    domain: &str,
    binding: &Binding<'_>,
) -> Result<String, StoreError> {
    let token = derive(secret, binding.notification_id);
    let expires_at = match binding.deadline {
        Some(d) => d.max(binding.created_at) + AFTER_DEADLINE,
        None => binding.created_at + WITHOUT_DEADLINE,
    };
    store::insert_once(
        conn,
        &MailTokenRow {
            token_hash: tokens::hash(&token),
            notification_id: binding.notification_id.to_string(),
            game_id: binding.game_id.clone(),
            seat: binding.seat.to_string(),
            user_id: binding.user_id.clone(),
            version: binding.version,
            created_at: binding.created_at,
            expires_at,
            used_at: None,
            failures: 0,
        },
    )?;
    Ok(format!("{LOCAL_PREFIX}{token}@{domain}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gives_back_its_token() {
        let t = derive("secret", "note-1");
        assert_eq!(t.len(), TOKEN_HEX);
        assert_ne!(t, derive("secret", "note-2"));
        assert_ne!(t, derive("other", "note-1"));
        let addr = format!("Move+{}@Mail.Example", t.to_uppercase());
        assert_eq!(from_address(&addr, "mail.example"), Some(t.clone()));
        assert_eq!(
            from_address(&format!("move+{t}@other.example"), "mail.example"),
            None
        );
        assert_eq!(
            from_address(&format!("move+{}@mail.example", &t[1..]), "mail.example"),
            None
        );
        assert_eq!(
            from_address(&format!("moves{t}@mail.example"), "mail.example"),
            None
        );
        assert_eq!(from_address("move+zz@mail.example", "mail.example"), None);
    }
}
