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
    let token = derive(secret, &note.id);
    let expires_at = match deadline {
        Some(d) => d.max(note.created_at) + AFTER_DEADLINE,
        None => note.created_at + WITHOUT_DEADLINE,
    };
    store::insert_once(
        conn,
        &MailTokenRow {
            token_hash: tokens::hash(&token),
            notification_id: note.id.clone(),
            game_id: game_id.clone(),
            seat: seat.to_string(),
            user_id: note.user_id.clone(),
            version,
            created_at: note.created_at,
            expires_at,
            used_at: None,
            failures: 0,
        },
    )?;
    Ok(Some(format!("{LOCAL_PREFIX}{token}@{domain}")))
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
