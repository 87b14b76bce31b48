//! E-mail notifications: one mail per notification, or one daily digest, each with a
//! one-click unsubscribe (RFC 8058). This module composes them; the delivery worker sends
//! them over SMTP ([`crate::workers::email`]).
//!
//! A mail names the game and its players, whose turn it is and the deadline, the last
//! moves, and links to the game page (`{DJAMBI_PUBLIC_URL}/games/{id}`) and its board
//! picture (`/v1/games/{id}/board.svg`); an event's mail (`tournament_*`) names the event
//! and what concerns the reader (the round, its seat and game; its place and points; why
//! the event was cancelled) and links to the event's page (`/tournaments/{id}`) and the
//! round's game. Every mail has
//! `List-Unsubscribe: <{public}/v1/unsubscribe/{token}>` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; a `POST` to that URL (no login:
//! the token is signed, HMAC-SHA256 keyed by the server's signing secret) turns mail off
//! for every kind.
//!
//! The digest: with `email_digest` on, a notification's mail delivery waits until the
//! next midnight (UTC, by the server's clock); the worker then sends the deliveries it
//! claims for one address as one mail.
//!
//! Every mail is in its recipient's language and time zone (the account's preferences;
//! English and UTC when unset): the messages of `locales/<lang>/mail.ftl`, dates as
//! [`i18n::datetime`] writes them.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
use chrono::{NaiveDate, NaiveDateTime};
use hmac::{KeyInit, Mac};
use serde_json::Value;

use crate::auth::tokens;
use crate::i18n::{self, Arg, Lang, TimeZone, t, tr};
use crate::ids::UserId;
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
    /// The language it is written in (its recipient's; `Content-Language`).
    pub lang: Lang,
    /// Its recipient's time zone (the digest's day).
    pub zone: TimeZone,
    /// The mail this one answers, if it is an answer (a reply by mail's).
    pub answers: Option<Answering>,
}

/// What an answer says of the mail it answers (RFC 3834 §3.1.5, RFC 5322 §3.6.4): it
/// threads under it (`In-Reply-To`, `References`) and says `Auto-Submitted: auto-replied`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answering {
    /// The answered mail's Message-ID (without `<>`), when it had a usable one.
    pub in_reply_to: Option<String>,
    /// Its `References` (without `<>`), then its Message-ID.
    pub references: Vec<String>,
}

impl Mail {
    /// The HTML alternative of [`Mail::body`]: the same text, escaped, with its links
    /// as links (so a link never depends on how the plain text is wrapped).
    pub fn html(&self) -> String {
        let mut out = format!(
            "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"></head><body>\n\
             <pre style=\"font-family: inherit; white-space: pre-wrap\">",
            self.lang.code()
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

fn unsubscribe_mac(secret: &str, user: &UserId, version: Option<i64>) -> String {
    let mut mac = hmac::Hmac::<sha2_011::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key");
    mac.update(b"djambi-unsubscribe\0");
    mac.update(user.as_str().as_bytes());
    if let Some(v) = version {
        mac.update(format!("\0v{v}").as_bytes());
    }
    B64URL.encode(&mac.finalize().into_bytes()[..18])
}

/// The unsubscribe token of a user at its unsubscribe `version` (see
/// `store::users::unsubscribe_version`): `{user id}.v{version}.{signature}`.
pub fn unsubscribe_token(secret: &str, user: &UserId, version: i64) -> String {
    format!(
        "{user}.v{version}.{}",
        unsubscribe_mac(secret, user, Some(version))
    )
}

/// The user and unsubscribe version a token names, if its signature holds. A token
/// without a version (`{user id}.{signature}`, mailed before versions existed) names
/// version 0.
pub fn check_unsubscribe_token(secret: &str, token: &str) -> Option<(UserId, i64)> {
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
    let user = UserId::new(user);
    let expected = unsubscribe_mac(secret, &user, version);
    // Constant time enough: both are fixed-length encodings of a MAC.
    let same = expected.len() == sig.len()
        && expected
            .bytes()
            .zip(sig.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    same.then_some((user, version.unwrap_or(0)))
}

/// What a kind of notification says ("Your turn"), in the reader's language.
fn subject_of(lang: Lang, kind: &str) -> String {
    let id = format!("mail-kind-{kind}");
    if i18n::has(lang, &id) {
        t(lang, &id)
    } else {
        t(lang, "mail-kind-other")
    }
}

/// The language and time zone of a mail's recipient: the account's preferences (English
/// and UTC when unset).
pub fn reader(conn: &mut DbConnection, user_id: &UserId) -> Result<(Lang, TimeZone), StoreError> {
    let user = crate::store::users::find(conn, user_id)?;
    let lang = Lang::from_pref(user.as_ref().and_then(|u| u.language.as_deref()));
    let zone = user
        .as_ref()
        .and_then(|u| u.time_zone.as_deref())
        .and_then(i18n::parse_time_zone)
        .unwrap_or(TimeZone::UTC);
    Ok((lang, zone))
}

/// A seat's colour in the reader's language.
fn seat_name(lang: Lang, seat: domain::Seat) -> String {
    t(lang, &format!("seat-{}", seat.letter()))
}

/// Composes the mail of one notification, in its recipient's language and time zone.
pub fn compose(
    conn: &mut DbConnection,
    ctx: &MailContext<'_>,
    note: &NotificationRow,
) -> Result<Mail, StoreError> {
    let public = ctx.public_url.trim_end_matches('/').to_string();
    let (lang, zone) = reader(conn, &note.user_id)?;
    let at = |t: NaiveDateTime| i18n::datetime(lang, zone, t);
    if account_mail::is_account_mail(&note.kind) {
        return Ok(account(ctx, &public, note, lang, zone));
    }
    let version = crate::store::users::unsubscribe_version(conn, &note.user_id)?.unwrap_or(0);
    let unsubscribe_url = format!(
        "{public}/v1/unsubscribe/{}",
        unsubscribe_token(ctx.signing_secret, &note.user_id, version)
    );
    let payload: Value = serde_json::from_str(&note.payload).unwrap_or(Value::Null);
    let mut body = String::new();
    let what = subject_of(lang, &note.kind);
    let subject;
    let mut reply_to = None;
    let tournament = note
        .kind
        .starts_with("tournament_")
        .then(|| payload.get("tournament_id").and_then(Value::as_str))
        .flatten();
    if let Some(tournament_id) = tournament {
        let event = EventMail {
            public: &public,
            id: tournament_id,
            payload: &payload,
        };
        subject = event.compose(conn, ctx, note, lang, &what, &mut body)?;
    } else if let Some(game_id) = &note.game_id {
        let state = game_store::current_state(conn, ctx.games, game_id)?;
        let mut names = Vec::new();
        for s in domain::Seat::ALL {
            if let Some(u) = state.player(s) {
                names.push((s, username(conn, u)?));
            }
        }
        let list: Vec<String> = names.iter().map(|(_, n)| n.clone()).collect();
        // A game is known by its players, not by its id.
        subject = tr(
            lang,
            "mail-subject-game",
            &[
                ("what", what.as_str().into()),
                ("players", list.join(", ").into()),
            ],
        );
        body.push_str(&tr(
            lang,
            "mail-intro-game",
            &[("what", what.as_str().into())],
        ));
        body.push_str("\n\n");
        let players = names
            .iter()
            .map(|(s, n)| format!("{} {n}", seat_name(lang, *s)))
            .collect::<Vec<_>>()
            .join(", ");
        body.push_str(&tr(lang, "mail-players", &[("players", players.into())]));
        body.push('\n');
        match (state.to_move(), state.to_move_user()) {
            (Some(seat), Some(u)) => {
                let who = username(conn, u)?;
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
                let mut args: Vec<(&str, Arg)> = vec![
                    ("seat", seat_name(lang, seat).into()),
                    ("player", who.into()),
                ];
                let id = match deadline {
                    Some(d) => {
                        args.push(("deadline", at(d).into()));
                        let left = d - note.created_at;
                        args.push(("left", i18n::duration(lang, left).into()));
                        if left > chrono::TimeDelta::zero() {
                            "mail-to-move-deadline"
                        } else {
                            "mail-to-move-overdue"
                        }
                    }
                    None => "mail-to-move",
                };
                body.push_str(&tr(lang, id, &args));
                body.push('\n');
            }
            _ => {
                let status = match state.status {
                    crate::model::events::Status::Open => "mail-status-open",
                    crate::model::events::Status::Active => "mail-status-active",
                    crate::model::events::Status::Finished => "mail-status-finished",
                };
                body.push_str(&tr(
                    lang,
                    "mail-status",
                    &[("status", t(lang, status).into())],
                ));
                body.push('\n');
            }
        }
        if let (Some(seat), Some(text)) = (
            payload.get("seat").and_then(Value::as_str),
            payload.get("text").and_then(Value::as_str),
        ) {
            let seat_word = |letter: &str| match letter
                .parse::<char>()
                .ok()
                .and_then(domain::Seat::from_letter)
            {
                Some(s) => seat_name(lang, s),
                None => letter.to_string(),
            };
            let line = match payload.get("to").and_then(Value::as_array) {
                Some(seats) => tr(
                    lang,
                    "mail-wrote-private",
                    &[
                        ("seat", seat_word(seat).into()),
                        (
                            "seats",
                            seats
                                .iter()
                                .filter_map(Value::as_str)
                                .map(seat_word)
                                .collect::<Vec<_>>()
                                .join(", ")
                                .into(),
                        ),
                    ],
                ),
                None => tr(
                    lang,
                    "mail-wrote-table",
                    &[("seat", seat_word(seat).into())],
                ),
            };
            body.push_str(&format!("\n{line}\n"));
            for line in text.lines() {
                body.push_str(&format!("> {line}\n"));
            }
            body.push('\n');
        }
        let turn = matches!(note.kind.as_str(), "your_turn" | "reminder");
        // After a conditional answer, a reply stores the next line (`if ... then ...`).
        let lines = note.kind == "conditional_played";
        let active = state.status == crate::model::events::Status::Active;
        if let (true, Some(domain)) = ((turn || lines) && active, ctx.mail_domain) {
            reply_to = crate::mail_moves::token::mint(
                conn,
                ctx.signing_secret,
                domain,
                note,
                state.deadline(),
            )?;
        }
        if let Some(offset) = payload.get("offset_secs").and_then(Value::as_i64) {
            body.push_str(&tr(
                lang,
                "mail-reminder-before",
                &[(
                    "before",
                    i18n::duration(lang, chrono::TimeDelta::seconds(offset)).into(),
                )],
            ));
            body.push('\n');
        }
        let from = (state.version - 30).max(0);
        let moves: Vec<String> = game_store::load_events(conn, game_id, from, state.version, None)?
            .iter()
            .filter_map(|r| match r.event() {
                Ok(Event::MovePlayed { seat, text, .. }) => {
                    Some(format!("{} {text}", seat_name(lang, seat)))
                }
                _ => None,
            })
            .collect();
        if !moves.is_empty() {
            let last = &moves[moves.len().saturating_sub(5)..];
            body.push_str(&tr(
                lang,
                "mail-last-moves",
                &[("moves", last.join("; ").into())],
            ));
            body.push('\n');
        }
        if let Some(address) = &reply_to {
            body.push('\n');
            body.push_str(&tr(
                lang,
                if lines {
                    "mail-line-by-mail"
                } else {
                    "mail-move-by-mail"
                },
                &[("address", address.into())],
            ));
            body.push('\n');
        }
        body.push('\n');
        body.push_str(&tr(
            lang,
            "mail-open-game",
            &[("url", format!("{public}/games/{game_id}").into())],
        ));
        body.push('\n');
        body.push_str(&tr(
            lang,
            "mail-board",
            &[(
                "url",
                format!("{public}/v1/games/{game_id}/board.svg").into(),
            )],
        ));
        body.push('\n');
    } else {
        subject = tr(
            lang,
            "mail-subject-plain",
            &[("what", what.as_str().into())],
        );
        body.push_str(&format!("{what}.\n"));
        if let Some(r) = payload.get("reason").and_then(Value::as_str) {
            let url = payload.get("url").and_then(Value::as_str).unwrap_or("");
            body.push_str(&tr(lang, "mail-endpoint", &[("url", url.into())]));
            body.push('\n');
            body.push_str(&tr(lang, "mail-reason", &[("reason", r.into())]));
            body.push('\n');
        }
    }
    body.push_str("\n-- \n");
    body.push_str(&tr(
        lang,
        "mail-stop",
        &[("url", unsubscribe_url.as_str().into())],
    ));
    body.push('\n');
    body.push_str(&tr(
        lang,
        "mail-note",
        &[
            ("id", note.id.as_str().into()),
            ("at", at(note.created_at).into()),
        ],
    ));
    body.push('\n');
    Ok(Mail {
        subject,
        body,
        unsubscribe_url: Some(unsubscribe_url),
        reply_to,
        lang,
        zone,
        answers: None,
    })
}

/// An event's mail (`tournament_*`, see [`crate::tournaments::notify`]).
struct EventMail<'a> {
    public: &'a str,
    /// The event's id.
    id: &'a str,
    payload: &'a Value,
}

impl EventMail<'_> {
    /// Writes the body (the event; by kind the round, the seat and the players of the
    /// game, the place and points, or why it was cancelled; links to the round's game and
    /// to the event's page) and returns the subject.
    fn compose(
        &self,
        conn: &mut DbConnection,
        ctx: &MailContext<'_>,
        note: &NotificationRow,
        lang: Lang,
        what: &str,
        body: &mut String,
    ) -> Result<String, StoreError> {
        let field = |k: &str| self.payload.get(k).and_then(Value::as_str).unwrap_or("");
        let number = |k: &str| self.payload.get(k).and_then(Value::as_i64);
        let named = [("what", Arg::from(what)), ("name", field("name").into())];
        body.push_str(&tr(lang, "mail-tournament-intro", &named));
        body.push_str("\n\n");
        match note.kind.as_str() {
            "tournament_started" => {
                body.push_str(&t(lang, "mail-tournament-started"));
                body.push('\n');
            }
            "tournament_round" => {
                let seat = field("seat")
                    .parse::<char>()
                    .ok()
                    .and_then(domain::Seat::from_letter)
                    .map_or_else(|| field("seat").to_string(), |s| seat_name(lang, s));
                body.push_str(&tr(
                    lang,
                    "mail-tournament-round",
                    &[
                        ("round", number("round").unwrap_or(0).into()),
                        ("seat", seat.into()),
                    ],
                ));
                body.push('\n');
                // The table's players from the pairing (the round's games are seated
                // just after it: a mail composed meanwhile would name only some);
                // notifications written before the payload carried them read the game.
                let mut table: Option<Vec<Option<UserId>>> = self
                    .payload
                    .get("players")
                    .and_then(|v| serde_json::from_value(v.clone()).ok());
                if let (None, Some(game_id)) = (&table, &note.game_id) {
                    table = match game_store::current_state(conn, ctx.games, game_id) {
                        Ok(state) => Some(
                            domain::Seat::ALL
                                .iter()
                                .map(|s| state.player(*s).cloned())
                                .collect(),
                        ),
                        Err(StoreError::NotFound(_)) => None,
                        Err(e) => return Err(e),
                    };
                }
                if let Some(table) = table {
                    let mut players = Vec::new();
                    for (k, u) in table.iter().enumerate().take(4) {
                        if let Some(u) = u {
                            players.push(format!(
                                "{} {}",
                                seat_name(lang, domain::Seat::from_index(k)),
                                username(conn, u)?
                            ));
                        }
                    }
                    body.push_str(&tr(
                        lang,
                        "mail-players",
                        &[("players", players.join(", ").into())],
                    ));
                    body.push('\n');
                }
            }
            "tournament_finished" => {
                // "7.5": in the reader's way ("7,5"); a whole number without a decimal (a
                // Decimal of no digits would print "12.").
                let halves = (field("points").parse::<f64>().unwrap_or(0.0) * 2.0).round() as i64;
                let points = if halves % 2 == 0 {
                    Arg::Number(halves / 2)
                } else {
                    Arg::Decimal(halves as f64 / 2.0, 1)
                };
                let mut args = vec![
                    ("place", number("place").unwrap_or(0).into()),
                    ("points", points),
                ];
                let id = match number("players") {
                    Some(n) => {
                        args.push(("players", n.into()));
                        "mail-tournament-place-of"
                    }
                    None => "mail-tournament-place",
                };
                body.push_str(&tr(lang, id, &args));
                body.push('\n');
            }
            "tournament_cancelled" => {
                let id = format!("mail-tournament-cancelled-{}", field("reason"));
                let reason = if i18n::has(lang, &id) {
                    t(lang, &id)
                } else {
                    field("reason").to_string()
                };
                body.push_str(&tr(lang, "mail-reason", &[("reason", reason.into())]));
                body.push('\n');
            }
            _ => {}
        }
        body.push('\n');
        if let Some(game_id) = &note.game_id {
            body.push_str(&tr(
                lang,
                "mail-open-game",
                &[("url", format!("{}/games/{game_id}", self.public).into())],
            ));
            body.push('\n');
        }
        body.push_str(&tr(
            lang,
            "mail-open-tournament",
            &[(
                "url",
                format!("{}/tournaments/{}", self.public, self.id).into(),
            )],
        ));
        body.push('\n');
        Ok(tr(lang, "mail-subject-tournament", &named))
    }
}

/// An account mail: the address verification link, the password reset link, the notice
/// of a reset. The link's token is derived again from the row's token id (see
/// `auth::tokens::mailed`).
fn account(
    ctx: &MailContext<'_>,
    public: &str,
    note: &NotificationRow,
    lang: Lang,
    zone: TimeZone,
) -> Mail {
    let payload: Value = serde_json::from_str(&note.payload).unwrap_or(Value::Null);
    let field = |k: &str| payload.get(k).and_then(Value::as_str).unwrap_or("");
    let (name, token_id) = (field("username"), field("token_id"));
    let hello = tr(lang, "mail-hello", &[("name", name.into())]);
    let named = |id: &str| tr(lang, id, &[("name", name.into())]);
    let (subject, body) = match note.kind.as_str() {
        account_mail::VERIFY_EMAIL => {
            let token = tokens::mailed(ctx.signing_secret, tokens::VERIFY_PREFIX, token_id);
            (
                t(lang, "mail-verify-subject"),
                format!(
                    "{hello}\n\n{}\n\n{public}/v1/email-verification/{token}\n\n{}\n{}\n",
                    named("mail-verify-ask"),
                    t(lang, "mail-verify-until"),
                    t(lang, "mail-verify-ignore"),
                ),
            )
        }
        account_mail::PASSWORD_RESET => {
            let token = tokens::mailed(ctx.signing_secret, tokens::RESET_PREFIX, token_id);
            // A page to open, not an API call to make (programs use
            // `POST /v1/password-resets/{token}` with the same token).
            (
                t(lang, "mail-reset-subject"),
                format!(
                    "{hello}\n\n{}\n\n{public}/reset-password/{token}\n\n{}\n",
                    named("mail-reset-ask"),
                    t(lang, "mail-reset-ignore"),
                ),
            )
        }
        account_mail::MAIL_MOVE_ANSWER => (field("subject").to_string(), field("body").to_string()),
        account_mail::PASSWORD_CHANGED => (
            t(lang, "mail-changed-subject"),
            format!(
                "{hello}\n\n{}\n{}\n",
                tr(
                    lang,
                    "mail-changed-body",
                    &[
                        ("name", name.into()),
                        ("at", i18n::datetime(lang, zone, note.created_at).into())
                    ]
                ),
                t(lang, "mail-changed-warn"),
            ),
        ),
        _ => (
            t(lang, "mail-account-subject"),
            format!("{}\n", t(lang, "mail-account-body")),
        ),
    };
    // The payload's ids were checked when the reply was read (`mail_moves::message`).
    let answers = (note.kind == account_mail::MAIL_MOVE_ANSWER).then(|| {
        let ids = |k: &str| -> Vec<String> {
            payload
                .get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        Answering {
            in_reply_to: payload
                .get("in_reply_to")
                .and_then(Value::as_str)
                .map(str::to_string),
            references: ids("references"),
        }
    });
    // An answer to a move by mail may take a reply of its own (conditional moves).
    let reply_to = answers
        .as_ref()
        .and(payload.get("reply_to"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Mail {
        subject,
        body,
        unsubscribe_url: None,
        reply_to,
        lang,
        zone,
        answers,
    }
}

/// The mail collecting several items (the daily digest of `day`, a day of the
/// recipient's zone), in the language of its items (one recipient's).
pub fn digest(mails: &[&Mail], day: NaiveDate) -> Mail {
    let lang = mails.first().map_or(Lang::EN, |m| m.lang);
    let zone = mails.first().map_or(TimeZone::UTC, |m| m.zone);
    let day = i18n::date(lang, day);
    let count = || -> Vec<(&str, Arg)> {
        vec![("day", day.as_str().into()), ("count", mails.len().into())]
    };
    let mut body = tr(lang, "mail-digest-intro", &count());
    body.push('\n');
    for m in mails {
        body.push_str("\n==============================\n");
        body.push_str(&m.subject);
        body.push_str("\n\n");
        let text = m.body.split("\n-- \n").next().unwrap_or("");
        body.push_str(text);
    }
    let unsubscribe_url = mails.iter().find_map(|m| m.unsubscribe_url.clone());
    if let Some(url) = &unsubscribe_url {
        body.push_str("\n-- \n");
        body.push_str(&tr(lang, "mail-stop", &[("url", url.into())]));
        body.push('\n');
    }
    Mail {
        subject: tr(lang, "mail-digest-subject", &count()),
        body,
        unsubscribe_url,
        reply_to: None,
        lang,
        zone,
        answers: None,
    }
}

/// When a digest item made at `now` goes out: the next midnight of the recipient's
/// zone (as a UTC time, as stored). A midnight that a change of clocks skips is the
/// first moment of the day.
pub fn digest_due(now: NaiveDateTime, zone: TimeZone) -> NaiveDateTime {
    use chrono::TimeZone as _;
    let local_day = now.and_utc().with_timezone(&zone).date_naive();
    let next = local_day + chrono::Days::new(1);
    let mut at = next.and_time(chrono::NaiveTime::MIN);
    for _ in 0..48 {
        if let Some(t) = zone.from_local_datetime(&at).earliest() {
            return t.naive_utc();
        }
        at += chrono::TimeDelta::minutes(30);
    }
    (now.date() + chrono::Days::new(1)).and_time(chrono::NaiveTime::MIN)
}

/// The day a digest sent at `due` is about: the recipient's day that ended then.
pub fn digest_day(due: NaiveDateTime, zone: TimeZone) -> NaiveDate {
    (due - chrono::TimeDelta::minutes(1))
        .and_utc()
        .with_timezone(&zone)
        .date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_events_place_and_points_read_in_each_language() {
        let line = |lang, place: i64, points: Arg| {
            tr(
                lang,
                "mail-tournament-place-of",
                &[
                    ("place", place.into()),
                    ("players", 8i64.into()),
                    ("points", points),
                ],
            )
        };
        assert_eq!(
            line(Lang::EN, 1, Arg::Number(1)),
            "You placed 1st of 8 with 1 point."
        );
        assert_eq!(
            line(Lang::EN, 23, Arg::Decimal(7.5, 1)),
            "You placed 23rd of 8 with 7.5 points."
        );
        assert_eq!(
            line(Lang::FR, 1, Arg::Decimal(7.5, 1)),
            "Vous terminez 1er sur 8 avec 7,5 points."
        );
        assert_eq!(
            line(Lang::ES, 2, Arg::Number(1)),
            "Quedaste en el puesto 2.º de 8 con 1 punto."
        );
    }

    #[test]
    fn the_html_alternative_escapes_and_links() {
        let mail = Mail {
            subject: "s".into(),
            body: "To move: Red (<b>&\"bob\")\nOpen the game: https://x.example/games/1?a=1&b=2\n"
                .into(),
            unsubscribe_url: Some("https://x.example/u".into()),
            reply_to: None,
            lang: Lang::EN,
            zone: TimeZone::UTC,
            answers: None,
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
        let t = unsubscribe_token(&secret, &"user-1".into(), 3);
        assert!(t.starts_with("user-1.v3."), "{t}");
        assert_eq!(
            check_unsubscribe_token(&secret, &t),
            Some(("user-1".into(), 3))
        );
        // Another version, user or key does not verify.
        let other = unsubscribe_token(&secret, &"user-1".into(), 4);
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
        let legacy = format!(
            "user-1.{}",
            unsubscribe_mac(&secret, &"user-1".into(), None)
        );
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

    #[test]
    fn the_digest_waits_for_the_readers_midnight() {
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().naive_utc();
        let ny: TimeZone = "America/New_York".parse().unwrap();
        let paris: TimeZone = "Europe/Paris".parse().unwrap();
        // 1 March, 12:00 UTC: 07:00 in New York, the digest at 05:00 UTC on 2 March.
        let due = digest_due(at("2031-03-01T12:00:00Z"), ny);
        assert_eq!(due, at("2031-03-02T05:00:00Z"));
        assert_eq!(
            digest_day(due, ny),
            NaiveDate::from_ymd_opt(2031, 3, 1).unwrap()
        );
        // 23:30 UTC on 1 March is already 2 March in Paris.
        let due = digest_due(at("2031-03-01T23:30:00Z"), paris);
        assert_eq!(due, at("2031-03-02T23:00:00Z"));
        assert_eq!(
            digest_day(due, paris),
            NaiveDate::from_ymd_opt(2031, 3, 2).unwrap()
        );
        assert_eq!(
            digest_due(at("2031-03-01T12:00:00Z"), TimeZone::UTC),
            at("2031-03-02T00:00:00Z")
        );
        // Santiago skips its midnight when the clocks go forward (6 September 2031).
        let santiago: TimeZone = "America/Santiago".parse().unwrap();
        let due = digest_due(at("2031-09-06T12:00:00Z"), santiago);
        assert!(
            due > at("2031-09-06T12:00:00Z") && due < at("2031-09-07T12:00:00Z"),
            "{due}"
        );
    }
}
