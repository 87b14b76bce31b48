//! Receiving one reply: read it, decide who sent it and for which turn, run the command,
//! queue the answer. Top to bottom:
//!
//! 1. parse (not a mail: dropped); a header section parsers could read differently (a
//!    second `From`, a malformed field name), auto-replies, bounces, reports, list mail:
//!    dropped silently;
//! 2. the Message-ID seen before: dropped (the same message delivered twice is applied
//!    once);
//! 3. the recipient's token: unknown, or a `From` that is not exactly the bound
//!    player's verified address: dropped silently (nothing goes to a forged sender);
//! 4. with `DJAMBI_MAIL_AUTH=aligned`, a reply without an aligned DKIM or SPF pass
//!    ([`super::authenticate`], checked only now, so unknown tokens cost no DNS) is
//!    dropped too. Until here nothing is written: only an authenticated reply's
//!    Message-ID is recorded (`inbound_mails`, pruned after `DJAMBI_TOKEN_RETENTION`);
//! 5. the rate limits (`DJAMBI_MAIL_LIMIT_PER_TOKEN`, `_PER_SEAT`, `_PER_SENDER`), counted
//!    over the authenticated replies: past one, dropped silently;
//! 6. the token used ("already played"), expired, locked, or the game moved on or
//!    ended: an answer saying so (a line of conditional moves alone is read at the
//!    token's version even when the game moved on, if the seat was not to move then);
//! 7. the first line's command, through `games::commands` as the player with the
//!    token's version; a typo or an illegal move counts a failure (the token stays
//!    good); at [`MAX_FAILURES`] it is locked and a fresh turn mail is queued.
//!
//! Answers are outbox rows (`account.mail_move_answer`) to the player's stored address
//! (the answer to a move or to a stored line carries a reply address of its own, bound to
//! the seat at the version after it, for conditional moves),
//! sent by the delivery worker; past `DJAMBI_MAIL_ERROR_REPLY_LIMIT` error answers (all
//! players together) a reply that would get one is dropped silently instead, the token
//! unchanged. Every outcome is logged and counted (`djambi_inbound_mails_total`).

use chrono::{NaiveDateTime, TimeDelta};
use serde_json::json;

use super::authenticate::Pass;
use super::grammar;
use super::message::{self, Inbound};
use super::token;
use super::wording;
use super::{Envelope, MailMovesCtx};
use crate::auth::tokens;
use crate::config::MailAuth;
use crate::games::commands::{self, Actor, Command, CommandError, DrawAction, Write};
use crate::i18n::{self, Arg, Lang, TimeZone};
use crate::model::events::{Event, Status};
use crate::model::game_state::GameState;
use crate::notifications::stable_id;
use crate::store::mail_moves::{self as tokens_store, LimitKey, MailTokenRow};
use crate::store::outbox::{self, NotificationRow, account_mail};
use crate::store::{self, DbConnection, RunError, StoreError};

/// Refused replies (typos, illegal moves) before a token is locked.
pub const MAX_FAILURES: i32 = 3;
/// Legal moves listed in full when there are at most this many.
const LIST_ALL_UP_TO: usize = 30;

/// How the sender was authenticated by this server (never from the mail's own
/// `Authentication-Results`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authenticated {
    /// A DKIM or SPF pass aligned with the `From` domain.
    Aligned(Pass),
    /// Nothing checked (`DJAMBI_MAIL_AUTH=token`), or nothing passed.
    None,
}

/// What became of a reply (the endpoint's answer, the log, the tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Played; the confirmation is queued.
    Played,
    /// Dropped without an answer (the reason).
    Dropped(&'static str),
    /// Refused with an answer that says why (the reason).
    Refused(&'static str),
}

impl Outcome {
    pub fn as_str(&self) -> String {
        match self {
            Outcome::Played => "played".into(),
            Outcome::Dropped(r) => format!("dropped:{r}"),
            Outcome::Refused(r) => format!("error:{r}"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReceiveError {
    #[error("moves by mail are off (DJAMBI_MAIL_DOMAIN is not set)")]
    Off,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// What a recipient address is to the SMTP listener's `RCPT` check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipient {
    /// A token that exists and is neither used, expired nor locked.
    Live,
    /// A token that exists but can take no reply any more.
    Spent,
    /// Not a reply address of ours, or no such token.
    Unknown,
}

/// Does the recipient name a live reply address? (The SMTP listener's `RCPT` check.)
pub async fn recipient(ctx: &MailMovesCtx, address: &str) -> Result<Recipient, ReceiveError> {
    let Some(domain) = ctx.domain.clone() else {
        return Err(ReceiveError::Off);
    };
    let Some(t) = token::from_address(address, &domain) else {
        return Ok(Recipient::Unknown);
    };
    let hash = tokens::hash(&t);
    let found = store::run(&ctx.pool, move |conn| {
        Ok::<_, ReceiveError>(tokens_store::find(conn, &hash)?)
    })
    .await?;
    let now = ctx.clock.now();
    Ok(match found {
        None => Recipient::Unknown,
        Some(row)
            if row.used_at.is_none() && now < row.expires_at && row.failures < MAX_FAILURES =>
        {
            Recipient::Live
        }
        Some(_) => Recipient::Spent,
    })
}

/// What the first look at a reply found.
enum Identified {
    Done(Outcome),
    /// The token's row and its player's address; the reply's `From` is that address.
    Player {
        row: Box<MailTokenRow>,
        email: String,
    },
}

/// Receives one raw message: from the SMTP listener with its envelope, from
/// `POST /v1/inbound-mail` without.
pub async fn receive(
    ctx: &MailMovesCtx,
    raw: Vec<u8>,
    envelope: Option<Envelope>,
) -> Result<Outcome, ReceiveError> {
    let Some(domain) = ctx.domain.clone() else {
        return Err(ReceiveError::Off);
    };
    let outcome = receive_inner(ctx, &domain, raw, envelope).await?;
    tracing::info!(outcome = %outcome.as_str(), "inbound mail");
    ctx.metrics.inbound_mail(&outcome.as_str());
    Ok(outcome)
}

async fn receive_inner(
    ctx: &MailMovesCtx,
    domain: &str,
    raw: Vec<u8>,
    envelope: Option<Envelope>,
) -> Result<Outcome, ReceiveError> {
    let sender = envelope.as_ref().map(|e| format!("<{}>", e.mail_from));
    let rcpt = envelope
        .as_ref()
        .map(|e| e.rcpt.clone())
        .unwrap_or_default();
    // Read first: parsers differ on such a header section, so nothing of it is read.
    if let Some(problem) = message::header_problem(&raw) {
        return Ok(Outcome::Dropped(problem));
    }
    let Some(mail) = message::parse(&raw, sender.as_deref(), &rcpt) else {
        return Ok(Outcome::Dropped("malformed"));
    };
    if mail.automatic.is_some() {
        return Ok(Outcome::Dropped("automatic"));
    }
    let mail = std::sync::Arc::new(mail);
    let (domain2, mail2) = (domain.to_string(), mail.clone());
    // Nothing is written before the sender is authenticated: a forger can neither fill
    // the table nor take a Message-ID that a genuine reply then reuses.
    let identified = store::run(&ctx.pool, move |conn| {
        if tokens_store::seen(conn, &mail2.message_id)? {
            return Ok::<_, ReceiveError>(Identified::Done(Outcome::Dropped("duplicate")));
        }
        identify(conn, &domain2, &mail2)
    })
    .await?;
    let (row, email) = match identified {
        Identified::Done(outcome) => return Ok(outcome),
        Identified::Player { row, email } => (row, email),
    };
    let auth = match ctx.auth {
        MailAuth::Token => Authenticated::None,
        MailAuth::Aligned => match ctx
            .authenticator
            .check(&raw, &email, envelope.as_ref())
            .await
        {
            Some(pass) => Authenticated::Aligned(pass),
            None => Authenticated::None,
        },
    };
    if ctx.auth == MailAuth::Aligned && auth == Authenticated::None {
        return Ok(Outcome::Dropped("not_authenticated"));
    }
    let ctx2 = ctx.clone();
    store::run(&ctx.pool, move |conn| {
        let now = ctx2.clock.now();
        if !tokens_store::first_sight(conn, &mail.message_id, now, "received")? {
            return Ok(Outcome::Dropped("duplicate"));
        }
        // Fresh: another reply may have used the token meanwhile.
        let row = tokens_store::find(conn, &row.token_hash)?.unwrap_or(*row);
        let outcome = decide(conn, &ctx2, &mail, &row, &email, now)?;
        tokens_store::set_outcome(conn, &mail.message_id, &outcome.as_str())?;
        Ok(outcome)
    })
    .await
}

/// The token and the player: who the reply claims to be.
fn identify(
    conn: &mut DbConnection,
    domain: &str,
    mail: &Inbound,
) -> Result<Identified, ReceiveError> {
    let done = |r| Ok(Identified::Done(Outcome::Dropped(r)));
    let Some(t) = mail
        .recipients
        .iter()
        .find_map(|r| token::from_address(r, domain))
    else {
        return done("unknown_recipient");
    };
    let hash = tokens::hash(&t);
    let Some(row) = tokens_store::find(conn, &hash)? else {
        return done("unknown_token");
    };
    let Some(user) = store::users::find(conn, &row.user_id)? else {
        return done("no_player");
    };
    let [from] = mail.from.as_slice() else {
        return done("from_not_single");
    };
    if !from.eq_ignore_ascii_case(&user.email) || user.email_verified_at.is_none() {
        return done("from_not_the_player");
    }
    Ok(Identified::Player {
        row: Box::new(row),
        email: user.email,
    })
}

fn decide(
    conn: &mut DbConnection,
    ctx: &MailMovesCtx,
    mail: &Inbound,
    row: &MailTokenRow,
    email: &str,
    now: NaiveDateTime,
) -> Result<Outcome, ReceiveError> {
    // The rate limits count authenticated replies only, so a forger cannot use up a
    // player's.
    let hash = row.token_hash.clone();
    let seat_key = format!("{}:{}", row.game_id, row.seat);
    let sender = email.to_ascii_lowercase();
    tokens_store::set_keys(conn, &mail.message_id, &hash, &seat_key, &sender)?;
    let limits = ctx.limits;
    for (key, spec, reason) in [
        (LimitKey::Token(&hash), limits.per_token, "rate_token"),
        (LimitKey::Seat(&seat_key), limits.per_seat, "rate_seat"),
        (LimitKey::Sender(&sender), limits.per_sender, "rate_sender"),
    ] {
        let since = now - TimeDelta::from_std(spec.period).unwrap_or(TimeDelta::hours(1));
        if tokens_store::count_since(conn, key, since)? > i64::from(spec.burst) {
            tracing::warn!(reason, "a reply by mail over its rate limit was dropped");
            return Ok(Outcome::Dropped(reason));
        }
    }
    // Answers are in the player's language and time zone (the account's preferences).
    let (lang, zone) = crate::notifications::email::reader(conn, &row.user_id)?;
    let t = |id: &str| i18n::t(lang, id);
    let answer = Answer {
        to: email,
        row,
        mail,
        message_id: &mail.message_id,
        now,
        cap: limits.error_replies,
        lang,
    };
    if row.used_at.is_some() {
        return answer.error(conn, "used", "used", &t("move-answer-already-played"));
    }
    if now >= row.expires_at {
        return answer.error(conn, "expired", "expired", &t("move-answer-expired"));
    }
    if row.failures >= MAX_FAILURES {
        return answer.error(conn, "locked", "locked", &t("move-answer-locked"));
    }
    let state = store::games::current_state(conn, &ctx.cache, &row.game_id)?;
    if state.status == Status::Finished {
        let text = format!(
            "{}\n\n{}",
            t("move-answer-game-over"),
            position_text(ctx, &state, lang, zone)
        );
        return answer.error(conn, "game_over", "game-over", &text);
    }
    let seat = row
        .seat
        .parse::<char>()
        .ok()
        .and_then(domain::Seat::from_letter);
    // A line alone (`if ... then ...`) is read at the address's version even when the
    // game has moved on since, if the seat was not to move then (the answer to a move or
    // to a conditional answer): it is matched against what was played since. A move, or
    // a line on a turn since played, is too late.
    let bare_line = mail
        .first_line
        .as_deref()
        .and_then(grammar::conditional)
        .is_some_and(|parsed| matches!(parsed, Ok((None, _))));
    if state.version != row.version {
        let line_fits = bare_line
            && state.version > row.version
            && store::games::state_at(conn, &ctx.cache, &row.game_id, row.version, false)?
                .to_move()
                != seat;
        if !line_fits {
            let text = format!(
                "{}\n\n{}",
                t("move-answer-stale"),
                position_text(ctx, &state, lang, zone)
            );
            return answer.error(conn, "stale", "stale", &text);
        }
    }
    let grammar_help = t("move-answer-grammar");
    let Some(line) = &mail.first_line else {
        let text = format!("{}\n\n{grammar_help}", t("move-answer-empty"));
        return answer.failure(conn, "empty", "empty", &text);
    };
    // `[move] if ... then ...`: a conditional line, after this turn's move if any.
    let (parsed, tree_line) = match grammar::conditional(line) {
        Some(Ok((Some(mv), tree))) => (Ok(Command::Play(mv)), Some(tree)),
        Some(Ok((None, tree))) => {
            // A turn mail's token holds at its turn, where the player is to move: a tree
            // that starts with the rivals' moves has no place before the player's own
            // move. Refused with the form that works (nothing stored, a try counted).
            if seat.is_some() && state.version == row.version && state.to_move() == seat {
                let text = format!(
                    "{}\n\n{grammar_help}",
                    i18n::tr(
                        lang,
                        "move-answer-conditional-move-first",
                        &[("line", Arg::from(line))]
                    )
                );
                return answer.failure(conn, "conditional", "conditional", &text);
            }
            return match tree_by_mail(conn, ctx, row, row.version, &tree, lang, now)? {
                Ok(mut text) => {
                    if state.version != row.version {
                        text.push_str("\n\n");
                        text.push_str(&t("move-answer-conditional-since"));
                    }
                    let reply_to = answer.reply_address(conn, ctx, row.version)?;
                    text.push_str("\n\n");
                    text.push_str(&position_text(ctx, &state, lang, zone));
                    answer.queue(conn, "conditional", &text, reply_to.as_deref())?;
                    Ok(Outcome::Played)
                }
                Err(text) => answer.failure(conn, "conditional", "conditional", &text),
            };
        }
        Some(Err(why)) => (Err(why), None),
        None => (grammar::parse(line), None),
    };
    let command = match parsed {
        Ok(c) => c,
        Err(why) => {
            let text = format!("{}\n\n{grammar_help}", wording::grammar_error(lang, &why));
            return answer.failure(conn, "grammar", "grammar", &text);
        }
    };
    // One reply per turn mail, even if two race: the first to mark the token plays.
    if !tokens_store::mark_used(conn, &hash, now)? {
        return answer.error(conn, "used", "used", &t("move-answer-already-played"));
    }
    let write = Write {
        game_id: row.game_id.clone(),
        command: command.clone(),
        actor: Actor::Player(row.user_id.clone()),
        expected: Some(row.version),
        session: None,
        quotas: None,
    };
    match commands::execute(conn, &ctx.cache, &*ctx.clock, &write) {
        Ok(written) => {
            let mut text = String::new();
            let mut line = |id: &str, args: &[(&str, Arg)]| {
                text.push_str(&i18n::tr(lang, id, args));
                text.push('\n');
            };
            for e in &written.events {
                let seat_of = |seat: &domain::Seat| Arg::Text(seat_name(lang, *seat));
                match e {
                    Event::MovePlayed { seat, text: mv, .. } => line(
                        "move-answer-played",
                        &[("seat", seat_of(seat)), ("move", Arg::from(mv))],
                    ),
                    Event::Resigned { seat } => {
                        line("move-answer-resigned", &[("seat", seat_of(seat))])
                    }
                    Event::DrawOffered { seat } => {
                        line("move-answer-draw-offered", &[("seat", seat_of(seat))])
                    }
                    Event::DrawAccepted { seat } => {
                        line("move-answer-draw-accepted", &[("seat", seat_of(seat))])
                    }
                    Event::DrawDeclined { seat } => {
                        line("move-answer-draw-declined", &[("seat", seat_of(seat))])
                    }
                    Event::Ended { result } => line(
                        "move-answer-ended",
                        &[("result", Arg::Text(wording::result(lang, result)))],
                    ),
                    _ => {}
                }
            }
            for step in &written.steps {
                if let Some(effects) = wording::effects(lang, &step.effects) {
                    text.push_str(&effects);
                    text.push('\n');
                }
            }
            // A draw offer or decline leaves the turn where it was: the same turn mail
            // plays the move (its address follows the game to the new version).
            let turn_stays = matches!(
                command,
                Command::Draw(DrawAction::Offer | DrawAction::Decline)
            ) && written.state.status == Status::Active
                && written.state.to_move().map(|s| s.letter().to_string())
                    == Some(row.seat.clone());
            if turn_stays {
                tokens_store::rearm(conn, &hash, written.state.version)?;
                text.push('\n');
                text.push_str(&t("move-answer-turn-stays"));
                text.push('\n');
            }
            if let Some(tree) = &tree_line {
                let version = written.state.version;
                let said = tree_by_mail(conn, ctx, row, version, tree, lang, now)?;
                text.push('\n');
                text.push_str(&said.unwrap_or_else(|e| e));
                text.push('\n');
            }
            // The answer takes a reply too: conditional moves from the position after
            // the move (not when the game ended or the seat is out).
            let after = &written.state;
            let reply_to = match seat {
                Some(s) if after.status == Status::Active && after.game.position().is_active(s) => {
                    answer.reply_address(conn, ctx, after.version)?
                }
                _ => None,
            };
            text.push('\n');
            text.push_str(&position_text(ctx, after, lang, zone));
            if reply_to.is_some() {
                text.push('\n');
                text.push_str(&t("move-answer-reply-line"));
                text.push('\n');
            }
            answer.queue(conn, "played", &text, reply_to.as_deref())?;
            Ok(Outcome::Played)
        }
        Err(e) => {
            tokens_store::unuse(conn, &hash)?;
            match e {
                CommandError::IllegalMove { detail, .. } => {
                    let moves = legal_moves_hint(&state, &command, lang);
                    // The rules' own reason, worded for the reader.
                    let detail = match &command {
                        Command::Play(mv) => match state.game.position().play(mv) {
                            Err(e) => wording::move_error(lang, &e),
                            Ok(_) => i18n::t(lang, "move-answer-refused"),
                        },
                        _ => {
                            tracing::debug!(%detail, "illegal command by mail");
                            i18n::t(lang, "move-answer-refused")
                        }
                    };
                    let why = i18n::tr(
                        lang,
                        "move-answer-illegal",
                        &[("line", Arg::from(line)), ("detail", Arg::Text(detail))],
                    );
                    answer.failure(conn, "illegal", "illegal", &format!("{why}\n\n{moves}"))
                }
                CommandError::VersionConflict { .. } => {
                    let state = store::games::current_state(conn, &ctx.cache, &row.game_id)?;
                    let text = format!(
                        "{}\n\n{}",
                        t("move-answer-stale"),
                        position_text(ctx, &state, lang, zone)
                    );
                    answer.error(conn, "stale", "stale", &text)
                }
                CommandError::GameOver(_) => {
                    answer.error(conn, "game_over", "game-over", &t("move-answer-game-over"))
                }
                CommandError::Store(e) => Err(e.into()),
                other => {
                    tracing::debug!(error = %other, "a command by mail was refused");
                    let why = wording::refusal(lang, &state, &command, seat);
                    answer.failure(conn, "refused", "refused", &why)
                }
            }
        }
    }
}

use super::wording::seat_name;

/// Stores the one line of conditional moves of a reply for the token's seat, built at
/// `version` (the game may have moved on since: the line is matched against what was
/// played since): `Ok` with the stored line, `Err` with why not, both worded for the
/// reader.
fn tree_by_mail(
    conn: &mut DbConnection,
    ctx: &MailMovesCtx,
    row: &MailTokenRow,
    version: i64,
    tree: &str,
    lang: Lang,
    now: NaiveDateTime,
) -> Result<Result<String, String>, StoreError> {
    use crate::games::conditional::{ConditionalError, store_tree_since};
    let Some(seat) = row
        .seat
        .parse::<char>()
        .ok()
        .and_then(domain::Seat::from_letter)
    else {
        return Ok(Err(i18n::t(lang, "move-answer-refused")));
    };
    let lines = [tree.to_string()];
    let stored = store_tree_since(
        conn,
        &ctx.cache,
        now,
        &row.user_id,
        &row.game_id,
        seat,
        version,
        &lines,
    );
    match stored {
        Ok(view) => Ok(Ok(i18n::tr(
            lang,
            "move-answer-conditional-stored",
            &[("line", Arg::Text(view.lines.join(" / ")))],
        ))),
        Err(ConditionalError::Store(e)) => Err(e),
        Err(e) => Ok(Err(i18n::tr(
            lang,
            "move-answer-conditional-refused",
            &[("detail", Arg::Text(e.to_string()))],
        ))),
    }
}

/// Whose turn, the deadline (in the reader's zone), the links.
fn position_text(ctx: &MailMovesCtx, state: &GameState, lang: Lang, zone: TimeZone) -> String {
    let public = ctx.public_url.trim_end_matches('/');
    let mut t = String::new();
    match state.to_move() {
        Some(seat) if state.status == Status::Active => {
            let seat = Arg::Text(seat_name(lang, seat));
            t.push_str(&match state.deadline() {
                Some(d) => i18n::tr(
                    lang,
                    "move-answer-to-move-deadline",
                    &[
                        ("seat", seat),
                        ("deadline", Arg::Text(i18n::datetime(lang, zone, d))),
                    ],
                ),
                None => i18n::tr(lang, "move-answer-to-move", &[("seat", seat)]),
            });
        }
        _ => t.push_str(&i18n::tr(
            lang,
            "move-answer-status",
            &[("status", Arg::Text(wording::status(lang, state.status)))],
        )),
    }
    t.push('\n');
    let id = &state.id;
    let board = format!("{public}/v1/games/{id}/board.svg");
    let page = format!("{public}/games/{id}");
    t.push_str(&i18n::tr(
        lang,
        "move-answer-board",
        &[("url", Arg::Text(board))],
    ));
    t.push('\n');
    t.push_str(&i18n::tr(
        lang,
        "move-answer-game",
        &[("url", Arg::Text(page))],
    ));
    t.push('\n');
    t
}

/// The legal moves of the piece the move names, or of every piece if they are few.
fn legal_moves_hint(state: &GameState, command: &Command, lang: Lang) -> String {
    let all = state.game.position().legal_move_texts();
    if let Command::Play(mv) = command {
        let from = mv.from.to_string().to_ascii_uppercase();
        let of_piece: Vec<&String> = all
            .iter()
            .filter(|t| t.to_ascii_uppercase().starts_with(&from))
            .collect();
        if !of_piece.is_empty() {
            let moves = of_piece
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            return i18n::tr(
                lang,
                "move-answer-piece-moves",
                &[("square", Arg::Text(from)), ("moves", Arg::Text(moves))],
            );
        }
        if all.len() > LIST_ALL_UP_TO {
            return i18n::tr(
                lang,
                "move-answer-piece-stuck",
                &[
                    ("square", Arg::Text(from)),
                    ("count", Arg::Number(all.len() as i64)),
                ],
            );
        }
    }
    i18n::tr(
        lang,
        "move-answer-all-moves",
        &[("moves", Arg::Text(all.join(", ")))],
    )
}

/// The `References` of an answer to `mail`: its own, then its Message-ID (RFC 5322
/// §3.6.4).
fn references(mail: &Inbound) -> Vec<String> {
    let mut refs = mail.references.clone();
    refs.extend(mail.thread_id.clone());
    refs
}

struct Answer<'a> {
    to: &'a str,
    row: &'a MailTokenRow,
    /// The reply answered (the answer threads under it).
    mail: &'a Inbound,
    message_id: &'a str,
    now: NaiveDateTime,
    /// `DJAMBI_MAIL_ERROR_REPLY_LIMIT`.
    cap: crate::config::RateSpec,
    /// The player's language.
    lang: Lang,
}

impl Answer<'_> {
    /// Whether the error answers of the window are used up.
    fn capped(&self, conn: &mut DbConnection) -> Result<bool, StoreError> {
        let since = self.now - TimeDelta::from_std(self.cap.period).unwrap_or(TimeDelta::hours(1));
        let capped = tokens_store::errors_since(conn, since)? >= i64::from(self.cap.burst);
        if capped {
            tracing::warn!("the cap of error answers is reached: a reply by mail was dropped");
        }
        Ok(capped)
    }

    /// The answer notification's id (its reply token derives from it).
    fn id(&self) -> String {
        stable_id(&["mail-move-answer", self.message_id])
    }

    /// A reply address for this answer, bound to the seat at `version`: a reply to it
    /// stores conditional moves (or plays, if the seat is to move at that version).
    fn reply_address(
        &self,
        conn: &mut DbConnection,
        ctx: &MailMovesCtx,
        version: i64,
    ) -> Result<Option<String>, StoreError> {
        let seat = self
            .row
            .seat
            .parse::<char>()
            .ok()
            .and_then(domain::Seat::from_letter);
        let (Some(domain), Some(seat)) = (&ctx.domain, seat) else {
            return Ok(None);
        };
        let id = self.id();
        let binding = token::Binding {
            notification_id: &id,
            game_id: &self.row.game_id,
            seat,
            user_id: &self.row.user_id,
            version,
            created_at: self.now,
            deadline: None,
        };
        token::bind(conn, &ctx.signing_secret, domain, &binding).map(Some)
    }

    /// Queues the answer mail; `title` names its subject (`move-answer-title-<title>`);
    /// `reply_to`, the address a reply to it goes to.
    fn queue(
        &self,
        conn: &mut DbConnection,
        title: &str,
        text: &str,
        reply_to: Option<&str>,
    ) -> Result<(), StoreError> {
        let lang = self.lang;
        let game = self.row.game_id.as_str();
        let short = &game[..game.len().min(8)];
        let footer = i18n::tr(
            lang,
            "move-answer-footer",
            &[
                ("message", Arg::from(self.message_id)),
                ("game", Arg::from(short)),
                ("seat", Arg::from(&self.row.seat)),
                ("version", Arg::Number(self.row.version)),
            ],
        );
        let body = format!("{text}\n-- \n{footer}\n");
        let subject = i18n::tr(
            lang,
            "move-answer-subject",
            &[
                (
                    "title",
                    Arg::Text(i18n::t(lang, &format!("move-answer-title-{title}"))),
                ),
                ("game", Arg::from(short)),
            ],
        );
        let row = NotificationRow {
            id: self.id(),
            user_id: self.row.user_id.clone(),
            kind: account_mail::MAIL_MOVE_ANSWER.into(),
            game_id: None,
            version: None,
            payload: json!({
                "to": self.to,
                "subject": subject,
                "body": body,
                "in_reply_to": self.mail.thread_id,
                "references": references(self.mail),
                "reply_to": reply_to,
            })
            .to_string(),
            created_at: self.now,
            read_at: None,
        };
        outbox::enqueue(conn, std::slice::from_ref(&row))
    }

    /// An error answer, the token unchanged; past the cap, nothing (dropped).
    fn error(
        &self,
        conn: &mut DbConnection,
        reason: &'static str,
        title: &str,
        text: &str,
    ) -> Result<Outcome, ReceiveError> {
        if self.capped(conn)? {
            return Ok(Outcome::Dropped("error_cap"));
        }
        self.queue(conn, title, text, None)?;
        Ok(Outcome::Refused(reason))
    }

    /// A mistake of the player's: counted; at the limit the token is locked and a fresh
    /// turn mail is queued.
    fn failure(
        &self,
        conn: &mut DbConnection,
        reason: &'static str,
        title: &str,
        text: &str,
    ) -> Result<Outcome, ReceiveError> {
        if self.capped(conn)? {
            return Ok(Outcome::Dropped("error_cap"));
        }
        let failures = tokens_store::add_failure(conn, &self.row.token_hash)?;
        let left = MAX_FAILURES - failures;
        if left > 0 {
            let tries = i18n::tr(
                self.lang,
                "move-answer-tries-left",
                &[("left", Arg::Number(i64::from(left)))],
            );
            return self.error(conn, reason, title, &format!("{text}\n\n{tries}"));
        }
        let fresh = NotificationRow {
            id: stable_id(&["mail-move-fresh", &self.row.token_hash]),
            user_id: self.row.user_id.clone(),
            kind: "your_turn".into(),
            game_id: Some(self.row.game_id.clone()),
            version: Some(self.row.version),
            payload: json!({"seat": self.row.seat, "fresh_reply_address": true}).to_string(),
            created_at: self.now,
            read_at: None,
        };
        outbox::enqueue(conn, std::slice::from_ref(&fresh))?;
        let locked = i18n::t(self.lang, "move-answer-locked");
        self.error(conn, reason, title, &format!("{text}\n\n{locked}"))
    }
}
