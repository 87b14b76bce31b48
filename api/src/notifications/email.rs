//! E-mail notifications: one mail per notification, or one daily digest, each with a
//! one-click unsubscribe (RFC 8058). This module composes them; the delivery worker sends
//! them over SMTP ([`crate::workers::email`]).
//!
//! A mail names the game and its players, whose turn it is and the deadline, the last
//! moves, and links to the game page (`{DJAMBI_PUBLIC_URL}/games/{id}`) and its board
//! picture (`/v1/games/{id}/board.svg`). Every mail has
//! `List-Unsubscribe: <{public}/v1/unsubscribe/{token}>` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; a `POST` to that URL (no login:
//! the token is signed, HMAC-SHA256 keyed by the server's signing secret) turns mail off
//! for every kind.
//!
//! The digest: with `email_digest` on, a notification's mail delivery waits until the
//! next midnight (UTC, by the server's clock); the worker then sends the deliveries it
//! claims for one address as one mail.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
use chrono::NaiveDateTime;
use hmac::{KeyInit, Mac};
use serde_json::Value;

use crate::auth::tokens;
use crate::model::events::Event;
use crate::store::cache::GameCache;
use crate::store::games::{self as game_store};
use crate::store::outbox::{NotificationRow, account_mail};
use crate::store::recipients::username;
use crate::store::{DbConnection, StoreError};

/// What composing a mail needs besides the database.
#[derive(Debug, Clone, Copy)]
pub struct MailContext<'a> {
    /// `DJAMBI_PUBLIC_URL`, the base of the links.
    pub public_url: &'a str,
    /// The key of the unsubscribe tokens (the server's signing secret).
    pub signing_secret: &'a str,
    pub games: &'a GameCache,
    /// `DJAMBI_MAIL_DOMAIN`: turn mails carry a reply address (moves by mail) when set.
    pub mail_domain: Option<&'a str>,
}

/// A mail's contents, composed from the database before sending.
#[derive(Debug, Clone)]
pub struct Mail {
    pub subject: String,
    pub body: String,
    /// The one-click unsubscribe link; `None` for account mails (verification, password
    /// reset), which are not notifications and cannot be turned off.
    pub unsubscribe_url: Option<String>,
    /// `Reply-To`: the move address of a turn mail (`move+TOKEN@DJAMBI_MAIL_DOMAIN`).
    pub reply_to: Option<String>,
}

impl Mail {
    /// The HTML alternative of [`Mail::body`]: the same text, escaped, with its links
    /// as links (so a link never depends on how the plain text is wrapped).
    pub fn html(&self) -> String {
        let mut out = String::from(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n\
             <pre style=\"font-family: inherit; white-space: pre-wrap\">",
        );
        for (i, line) in self.body.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            for (j, word) in line.split(' ').enumerate() {
                if j > 0 {
                    out.push(' ');
                }
                if word.starts_with("https://") || word.starts_with("http://") {
                    let href = escape_html(word);
                    out.push_str(&format!("<a href=\"{href}\">{href}</a>"));
                } else {
                    out.push_str(&escape_html(word));
                }
            }
        }
        out.push_str("</pre>\n</body></html>\n");
        out
    }
}

fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn unsubscribe_mac(secret: &str, user: &str, version: Option<i64>) -> String {
    let mut mac = hmac::Hmac::<sha2_011::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key");
    mac.update(b"djambi-unsubscribe\0");
    mac.update(user.as_bytes());
    if let Some(v) = version {
        mac.update(format!("\0v{v}").as_bytes());
    }
    B64URL.encode(&mac.finalize().into_bytes()[..18])
}

/// The unsubscribe token of a user at its unsubscribe `version` (see
/// `store::users::unsubscribe_version`): `{user id}.v{version}.{signature}`.
pub fn unsubscribe_token(secret: &str, user: &str, version: i64) -> String {
    format!(
        "{user}.v{version}.{}",
        unsubscribe_mac(secret, user, Some(version))
    )
}

/// The user and unsubscribe version a token names, if its signature holds. A token
/// without a version (`{user id}.{signature}`, mailed before versions existed) names
/// version 0.
pub fn check_unsubscribe_token(secret: &str, token: &str) -> Option<(String, i64)> {
    let (named, sig) = token.rsplit_once('.')?;
    let (user, version) = match named.rsplit_once('.') {
        Some((user, v)) => {
            let digits = v.strip_prefix('v')?;
            if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            (user, Some(digits.parse::<i64>().ok()?))
        }
        None => (named, None),
    };
    let expected = unsubscribe_mac(secret, user, version);
    // Constant time enough: both are fixed-length encodings of a MAC.
    let same = expected.len() == sig.len()
        && expected
            .bytes()
            .zip(sig.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    same.then(|| (user.to_string(), version.unwrap_or(0)))
}

fn subject_of(kind: &str) -> &'static str {
    match kind {
        "your_turn" => "Your turn",
        "reminder" => "Reminder: your deadline is near",
        "timeout" => "A seat ran out of time",
        "chief_killed" => "Your chief was killed",
        "seat_eliminated" => "You were eliminated",
        "game_started" => "The game started",
        "game_ended" => "The game ended",
        "draw_offered" => "A draw is offered",
        "message" => "A message at the table",
        "webhook_disabled" => "A webhook endpoint was disabled",
        _ => "News from Djambi",
    }
}

fn at(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// Composes the mail of one notification.
pub fn compose(
    conn: &mut DbConnection,
    ctx: &MailContext<'_>,
    note: &NotificationRow,
) -> Result<Mail, StoreError> {
    let public = ctx.public_url.trim_end_matches('/').to_string();
    if account_mail::is_account_mail(&note.kind) {
        return Ok(account(ctx, &public, note));
    }
    let version = crate::store::users::unsubscribe_version(conn, &note.user_id)?.unwrap_or(0);
    let unsubscribe_url = format!(
        "{public}/v1/unsubscribe/{}",
        unsubscribe_token(ctx.signing_secret, &note.user_id, version)
    );
    let payload: Value = serde_json::from_str(&note.payload).unwrap_or(Value::Null);
    let mut body = String::new();
    let mut subject = subject_of(&note.kind).to_string();
    let mut reply_to = None;
    if let Some(game_id) = &note.game_id {
        let state = game_store::current_state(conn, ctx.games, game_id)?;
        let short = &game_id[..game_id.len().min(8)];
        let mut names = Vec::new();
        for s in domain::Seat::ALL {
            if let Some(u) = state.player(s) {
                names.push((s, username(conn, u)?));
            }
        }
        let list: Vec<String> = names.iter().map(|(_, n)| n.clone()).collect();
        subject = format!("[Djambi] {subject} in game {short} ({})", list.join(", "));
        body.push_str(&format!("{} in game {short}.\n\n", subject_of(&note.kind)));
        body.push_str("Players: ");
        body.push_str(
            &names
                .iter()
                .map(|(s, n)| format!("{s:?} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        body.push('\n');
        match (state.to_move(), state.to_move_user()) {
            (Some(seat), Some(u)) => {
                let who = username(conn, u)?;
                body.push_str(&format!("To move: {seat:?} ({who})"));
                // The effective deadline: the player's vacations move it.
                let deadline = match (state.deadline(), state.clocks.turn_started) {
                    (Some(d), Some(started)) => {
                        let pauses = crate::store::vacations::pauses(conn, u, note.created_at)?;
                        Some(crate::model::timing::effective_deadline(
                            started, d, &pauses,
                        ))
                    }
                    (d, _) => d,
                };
                if let Some(d) = deadline {
                    body.push_str(&format!(", deadline {}", at(d)));
                }
                body.push('\n');
            }
            _ => body.push_str(&format!("Status: {:?}\n", state.status).to_lowercase()),
        }
        if let (Some(seat), Some(text)) = (
            payload.get("seat").and_then(Value::as_str),
            payload.get("text").and_then(Value::as_str),
        ) {
            let to = match payload.get("to").and_then(Value::as_array) {
                Some(seats) => format!(
                    "privately to {}",
                    seats
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "to the table".to_string(),
            };
            body.push_str(&format!("\n{seat} wrote {to}:\n"));
            for line in text.lines() {
                body.push_str(&format!("> {line}\n"));
            }
            body.push('\n');
        }
        let turn = matches!(note.kind.as_str(), "your_turn" | "reminder")
            && state.status == crate::model::events::Status::Active;
        if let (true, Some(domain)) = (turn, ctx.mail_domain) {
            reply_to = crate::mail_moves::token::mint(
                conn,
                ctx.signing_secret,
                domain,
                note,
                state.deadline(),
            )?;
        }
        if let Some(offset) = payload.get("offset_secs").and_then(Value::as_i64) {
            body.push_str(&format!(
                "This reminder comes {} h before the deadline.\n",
                offset / 3600
            ));
        }
        let from = (state.version - 30).max(0);
        let moves: Vec<String> = game_store::load_events(conn, game_id, from, state.version, None)?
            .iter()
            .filter_map(|r| match r.event() {
                Ok(Event::MovePlayed { seat, text, .. }) => Some(format!("{seat:?} {text}")),
                _ => None,
            })
            .collect();
        if !moves.is_empty() {
            let last = &moves[moves.len().saturating_sub(5)..];
            body.push_str(&format!("Last moves: {}\n", last.join("; ")));
        }
        if let Some(address) = &reply_to {
            body.push_str(&format!(
                "\nMove by mail: reply to {address} with your move (e.g. C8-D7), resign, \
                 draw offer, draw accept or draw decline on the first line.\n"
            ));
        }
        body.push_str(&format!(
            "\nOpen the game: {public}/games/{game_id}\nBoard: {public}/v1/games/{game_id}/board.svg\n"
        ));
    } else {
        subject = format!("[Djambi] {subject}");
        body.push_str(&format!("{}.\n", subject_of(&note.kind)));
        if let Some(r) = payload.get("reason").and_then(Value::as_str) {
            let url = payload.get("url").and_then(Value::as_str).unwrap_or("");
            body.push_str(&format!("Endpoint: {url}\nReason: {r}\n"));
        }
    }
    body.push_str(&format!(
        "\n-- \nStop these mails: {unsubscribe_url}\n(Notification {} at {})\n",
        note.id,
        at(note.created_at)
    ));
    Ok(Mail {
        subject,
        body,
        unsubscribe_url: Some(unsubscribe_url),
        reply_to,
    })
}

/// An account mail: the address verification link, the password reset link, the notice
/// of a reset. The link's token is derived again from the row's token id (see
/// `auth::tokens::mailed`).
fn account(ctx: &MailContext<'_>, public: &str, note: &NotificationRow) -> Mail {
    let payload: Value = serde_json::from_str(&note.payload).unwrap_or(Value::Null);
    let field = |k: &str| payload.get(k).and_then(Value::as_str).unwrap_or("");
    let (name, token_id) = (field("username"), field("token_id"));
    let (subject, body) = match note.kind.as_str() {
        account_mail::VERIFY_EMAIL => {
            let token = tokens::mailed(ctx.signing_secret, tokens::VERIFY_PREFIX, token_id);
            (
                "[Djambi] Confirm your e-mail address".to_string(),
                format!(
                    "Hello {name},\n\nPlease confirm that this is the address of your Djambi account \
                     {name}: open this link and press the button (it works once, for 48 hours):\n\n\
                     {public}/v1/email-verification/{token}\n\n\
                     Until then no notification mail is sent here, and moves by mail are refused.\n\
                     If you did not register, ignore this mail: nothing will be sent to you.\n"
                ),
            )
        }
        account_mail::PASSWORD_RESET => {
            let token = tokens::mailed(ctx.signing_secret, tokens::RESET_PREFIX, token_id);
            (
                "[Djambi] Reset your password".to_string(),
                format!(
                    "Hello {name},\n\nSomeone (you, we hope) asked to reset the password of the Djambi \
                     account {name}. This token works once, for one hour:\n\n{token}\n\n\
                     Set a new password with it: POST {public}/v1/password-resets/{token}\n\
                     with {{\"new_password\": \"...\"}}. Every session and personal access token of \
                     the account then ends.\n\
                     If you did not ask for this, ignore this mail: your password stays as it is.\n"
                ),
            )
        }
        account_mail::MAIL_MOVE_ANSWER => (field("subject").to_string(), field("body").to_string()),
        account_mail::PASSWORD_CHANGED => (
            "[Djambi] Your password was reset".to_string(),
            format!(
                "Hello {name},\n\nThe password of your Djambi account {name} was reset at {} with a \
                 link sent to this address. Every session and personal access token of the account \
                 has ended.\nIf this was not you, reset the password again at once and check the \
                 address of your account.\n",
                at(note.created_at)
            ),
        ),
        _ => (
            "[Djambi] About your account".to_string(),
            "News about your Djambi account.\n".to_string(),
        ),
    };
    Mail {
        subject,
        body,
        unsubscribe_url: None,
        reply_to: None,
    }
}

/// The mail collecting several items (the daily digest).
pub fn digest(mails: &[&Mail], day: &str) -> Mail {
    let mut body = format!(
        "Your Djambi notifications of {day} ({} items).\n",
        mails.len()
    );
    for m in mails {
        body.push_str("\n==============================\n");
        body.push_str(&m.subject);
        body.push_str("\n\n");
        let text = m.body.split("\n-- \n").next().unwrap_or("");
        body.push_str(text);
    }
    let unsubscribe_url = mails.iter().find_map(|m| m.unsubscribe_url.clone());
    if let Some(url) = &unsubscribe_url {
        body.push_str(&format!("\n-- \nStop these mails: {url}\n"));
    }
    Mail {
        subject: format!("[Djambi] Your daily digest of {day}: {} items", mails.len()),
        body,
        unsubscribe_url,
        reply_to: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_html_alternative_escapes_and_links() {
        let mail = Mail {
            subject: "s".into(),
            body: "To move: Red (<b>&\"bob\")\nOpen the game: https://x.example/games/1?a=1&b=2\n"
                .into(),
            unsubscribe_url: Some("https://x.example/u".into()),
            reply_to: None,
        };
        let html = mail.html();
        assert!(
            html.contains("Red (&lt;b&gt;&amp;&quot;bob&quot;)"),
            "{html}"
        );
        assert!(
            html.contains(
                "<a href=\"https://x.example/games/1?a=1&amp;b=2\">https://x.example/games/1?a=1&amp;b=2</a>"
            ),
            "{html}"
        );
        assert!(!html.contains("<b>"));
    }

    #[test]
    fn unsubscribe_tokens_name_a_version_and_old_ones_version_zero() {
        let secret = "k".repeat(40);
        let t = unsubscribe_token(&secret, "user-1", 3);
        assert!(t.starts_with("user-1.v3."), "{t}");
        assert_eq!(
            check_unsubscribe_token(&secret, &t),
            Some(("user-1".into(), 3))
        );
        // Another version, user or key does not verify.
        let other = unsubscribe_token(&secret, "user-1", 4);
        let (_, sig) = other.rsplit_once('.').unwrap();
        assert_eq!(
            check_unsubscribe_token(&secret, &format!("user-1.v3.{sig}")),
            None
        );
        assert_eq!(check_unsubscribe_token(&"j".repeat(40), &t), None);
        assert_eq!(
            check_unsubscribe_token(&secret, &t.replace("user-1", "user-2")),
            None
        );
        // A link mailed before versions: `{user}.{mac}`, version 0.
        let legacy = format!("user-1.{}", unsubscribe_mac(&secret, "user-1", None));
        assert_eq!(
            check_unsubscribe_token(&secret, &legacy),
            Some(("user-1".into(), 0))
        );
        for bad in [
            "",
            ".",
            "a.b",
            "user-1.v.x",
            "user-1.vx1.abc",
            "user-1.v99999999999999999999.a",
        ] {
            assert_eq!(check_unsubscribe_token(&secret, bad), None, "{bad}");
        }
    }
}
