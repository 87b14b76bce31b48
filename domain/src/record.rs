//! The game record: a text file of headers and numbered actions that can be read back
//! and replayed (served by the API as `/v1/games/{id}/record`, read back by
//! `POST /v1/games/import` and `djambi record check`). The format is documented in
//! `docs/record-format.md`:
//!
//! ```text
//! [Event "Djambi correspondence game"]
//! [Date "2026.11.30"]
//! [Red "alice"]
//! [Blue "bob"]
//! [Yellow "mirror"]
//! [YellowType "bot"]
//! [Ruleset "djambi-standard-2026"]
//! [Seats "RBY"]
//! [Hostage "G"]
//! [Result "*"]
//!
//! 1. R C8-D7
//! 2. B G8-F7 {the assassins face each other}
//! -- Y timed out
//! ; Red and Blue play on
//! 3. R D7-D6
//! ```
//!
//! One action a line: a move line holds its ply number, the seat that played it and its
//! canonical text; resignations, timeouts and an agreed draw are lines of their own
//! (`-- R resigns`, `-- R timed out`, `-- draw agreed`) and play no ply. `;` starts a
//! comment that runs to the end of the line; `{...}` is a comment within a line. Headers
//! are free, but `Seats`, `Hostage`, `Ruleset` and `Result` are checked.

use std::fmt::{self, Write};

use crate::error::ParseError;
use crate::game::{Action, Game, GameSettings, Outcome, ReplayError};
use crate::moves::Move;
use crate::ruleset::Ruleset;
use crate::seat::{Seat, SeatSet};

/// A parsed record: its headers, the game's settings and its actions, replayed and legal.
#[derive(Clone, Debug)]
pub struct Record {
    /// Every header in the order written, values unescaped.
    pub headers: Vec<(String, String)>,
    pub settings: GameSettings,
    pub actions: Vec<Action>,
    /// The 1-based line of each action, index for index with `actions`.
    pub action_lines: Vec<usize>,
    /// Comments, in the order written.
    pub comments: Vec<Comment>,
    /// The game after the last action.
    pub game: Game,
}

/// A comment of a record (`; ...` or `{...}`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Comment {
    /// Its 1-based line.
    pub line: usize,
    /// How many actions come before it: 0 for a comment in the headers or before the
    /// first action, `n` for one on or after the `n`-th action's line.
    pub after_actions: usize,
    /// The text, trimmed, without the `;` or the braces.
    pub text: String,
}

impl Record {
    /// The first header of that name.
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The player of a seat (`[Red "alice"]`), if named.
    pub fn player(&self, seat: Seat) -> Option<&str> {
        self.header(seat.name())
    }

    /// Whether the seat's player is a computer (`[RedType "bot"]`, or PGN's `"program"`).
    pub fn is_bot(&self, seat: Seat) -> bool {
        matches!(self.header(&player_type_key(seat)), Some("bot" | "program"))
    }

    /// The `TimeControl` header: free text, or a number of seconds per move.
    pub fn time_control(&self) -> Option<&str> {
        self.header("TimeControl")
    }

    /// How the game ended, as replayed (the `Result` header is checked against it).
    pub fn outcome(&self) -> Option<&Outcome> {
        self.game.outcome()
    }
}

/// The header naming whether a seat's player is a person or a bot: `RedType`, ...
pub fn player_type_key(seat: Seat) -> String {
    format!("{}Type", seat.name())
}

/// Why a record cannot be read: the 1-based line at fault and what is wrong with it.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct RecordError {
    pub line: usize,
    pub kind: RecordErrorKind,
}

/// What is wrong with a record's line.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RecordErrorKind {
    /// The line is not well-formed (a header, an action line, a move's text, a move
    /// number out of sequence, a comment left open).
    #[error("{0}")]
    Syntax(String),
    /// A well-formed header with a value that cannot be used (`Seats`, `Hostage`,
    /// `Ruleset`, `Result`).
    #[error("{0}")]
    Header(String),
    /// A well-formed action that the rules refuse: `why` is the rules' message.
    #[error("{action} is illegal: {why}")]
    Illegal { action: String, why: String },
    /// The `Result` header disagrees with the game the actions give.
    #[error("the Result header says {stated:?} but the actions give {actual:?}")]
    ResultMismatch { stated: String, actual: String },
}

impl RecordError {
    /// Whether the record is well-formed but breaks the rules (an illegal action or a
    /// wrong result), as opposed to being unusable input.
    pub fn breaks_rules(&self) -> bool {
        matches!(
            self.kind,
            RecordErrorKind::Illegal { .. } | RecordErrorKind::ResultMismatch { .. }
        )
    }
}

impl From<RecordError> for ParseError {
    fn from(error: RecordError) -> ParseError {
        ParseError::Record(error.to_string())
    }
}

/// The `Result` header of a game: `*` while it goes on, `R` for a win, `draw RB` for a
/// draw between those seats.
pub fn result_text(outcome: Option<&Outcome>) -> String {
    match outcome {
        None => "*".into(),
        Some(Outcome::Win(seat)) => seat.to_string(),
        Some(Outcome::Draw(seats)) => format!("draw {seats}"),
    }
}

/// Reads a `Result` header's value: `None` for `*`.
fn parse_result(text: &str) -> Option<Option<Outcome>> {
    let text = text.trim();
    if text == "*" {
        return Some(None);
    }
    if let Some(seats) = text.strip_prefix("draw ") {
        let seats = SeatSet::from_letters(seats.trim())?;
        return (!seats.is_empty()).then_some(Some(Outcome::Draw(seats)));
    }
    text.parse::<Seat>()
        .ok()
        .map(|seat| Some(Outcome::Win(seat)))
}

/// The line that records an action, without its newline (`12. R C8-D7`,
/// `-- R resigns`, `-- R timed out`, `-- draw agreed`), written from the game before it
/// (the move's number, separator and mover depend on it).
pub fn action_line(game: &Game, action: &Action) -> String {
    match action {
        Action::Move(mv) => {
            let position = game.position();
            let seat = position.to_move().map(|s| s.letter()).unwrap_or('?');
            format!("{}. {seat} {}", position.ply() + 1, position.move_text(mv))
        }
        Action::Resign(seat) => format!("-- {seat} resigns"),
        Action::Timeout(seat) => format!("-- {seat} timed out"),
        Action::AgreedDraw => "-- draw agreed".to_string(),
    }
}

/// Headers the writer derives from the settings and the replay; given ones are dropped.
const DERIVED: [&str; 4] = ["Ruleset", "Seats", "Hostage", "Result"];

/// Writes a record. `headers` come first, in the order given (quotes and line breaks in
/// values are replaced by `'`; keys keep only ASCII letters, digits and `_`), then
/// `Ruleset`, `Seats`, `Hostage` (three seats only) and `Result`, which the record
/// derives itself. The service passes `Event`, `Site`, `GameId`, `Date`, `Started`,
/// `Ended`, one header per seat (`Red`, ...) with `RedType "bot"` for bots, and
/// `TimeControl`.
pub fn write_record(
    settings: GameSettings,
    actions: &[Action],
    headers: &[(&str, &str)],
) -> Result<String, ReplayError> {
    let mut game = Game::new(settings).map_err(ReplayError::Settings)?;
    let mut body = String::new();
    for (index, action) in actions.iter().enumerate() {
        // Kept only if the action applies.
        let line = action_line(&game, action);
        game.apply(action)
            .map_err(|error| ReplayError::Action { index, error })?;
        body.push_str(&line);
        body.push('\n');
    }
    let mut text = String::new();
    for (key, value) in headers {
        let key = sanitize_key(key);
        if key.is_empty() || DERIVED.contains(&key.as_str()) {
            continue;
        }
        let _ = writeln!(
            text,
            "[{key} \"{}\"]",
            value.replace(['"', '\n', '\r'], "'")
        );
    }
    let _ = writeln!(text, "[Ruleset \"{}\"]", settings.ruleset.id());
    let _ = writeln!(text, "[Seats \"{}\"]", settings.seats);
    if let Some(hostage) = hostage_of(settings.seats) {
        let _ = writeln!(text, "[Hostage \"{hostage}\"]");
    }
    let _ = writeln!(text, "[Result \"{}\"]", result_text(game.outcome()));
    text.push('\n');
    text.push_str(&body);
    Ok(text)
}

/// The empty seat, whose party is hostage, in a three-seat game.
fn hostage_of(seats: SeatSet) -> Option<Seat> {
    let mut empty = Seat::ALL.into_iter().filter(|s| !seats.contains(*s));
    match (empty.next(), empty.next()) {
        (Some(seat), None) => Some(seat),
        _ => None,
    }
}

fn sanitize_key(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// A header as read, with its line.
struct HeaderLine {
    line: usize,
    key: String,
    value: String,
}

/// Reads a record back and replays it; the error names the first bad line and why.
pub fn read_record(text: &str) -> Result<Record, RecordError> {
    let mut reader = Reader::default();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        last_line = i + 1;
        reader.line(i + 1, raw)?;
    }
    reader.finish(last_line)
}

#[derive(Default)]
struct Reader {
    headers: Vec<HeaderLine>,
    game: Option<Game>,
    actions: Vec<Action>,
    action_lines: Vec<usize>,
    comments: Vec<Comment>,
}

fn syntax(line: usize, why: impl fmt::Display) -> RecordError {
    RecordError {
        line,
        kind: RecordErrorKind::Syntax(why.to_string()),
    }
}

fn header_error(line: usize, why: impl fmt::Display) -> RecordError {
    RecordError {
        line,
        kind: RecordErrorKind::Header(why.to_string()),
    }
}

impl Reader {
    fn line(&mut self, number: usize, raw: &str) -> Result<(), RecordError> {
        let line = raw.trim();
        if line.starts_with('[') {
            if self.game.is_some() {
                return Err(syntax(number, "headers must come before the actions"));
            }
            let (key, value, rest) = parse_header(line).map_err(|why| syntax(number, why))?;
            if self.headers.iter().any(|h| h.key == key) {
                return Err(syntax(number, format!("a second {key} header")));
            }
            self.headers.push(HeaderLine {
                line: number,
                key,
                value,
            });
            let code = self.strip_comments(number, rest)?;
            if !code.trim().is_empty() {
                return Err(syntax(
                    number,
                    format!("{:?} after a header: one header a line", code.trim()),
                ));
            }
            return Ok(());
        }
        let code = self.strip_comments(number, line)?;
        let code = code.trim();
        if code.is_empty() {
            return Ok(());
        }
        if self.game.is_none() {
            let settings = settings_of(&self.headers)?;
            let game = Game::new(settings).map_err(|e| syntax(number, e))?;
            self.game = Some(game);
        }
        let game = self.game.as_mut().expect("just set");
        let action = parse_action_line(code, game, number)?;
        game.apply(&action).map_err(|e| RecordError {
            line: number,
            kind: RecordErrorKind::Illegal {
                action: describe(code),
                why: e.to_string(),
            },
        })?;
        self.actions.push(action);
        self.action_lines.push(number);
        // Comments on an action's line come after it.
        for comment in self.comments.iter_mut().rev() {
            if comment.line != number {
                break;
            }
            comment.after_actions = self.actions.len();
        }
        Ok(())
    }

    /// Takes the comments out of a line: `{...}` anywhere, `;` to the end.
    fn strip_comments(&mut self, number: usize, line: &str) -> Result<String, RecordError> {
        let mut code = String::new();
        let mut rest = line;
        loop {
            let brace = rest.find('{');
            let semicolon = rest.find(';');
            match (brace, semicolon) {
                (Some(b), s) if s.is_none_or(|s| b < s) => {
                    code.push_str(&rest[..b]);
                    code.push(' ');
                    let after = &rest[b + 1..];
                    let end = after.find('}').ok_or_else(|| {
                        syntax(number, "a { comment must close with } on the same line")
                    })?;
                    self.comment(number, &after[..end]);
                    rest = &after[end + 1..];
                }
                (_, Some(s)) => {
                    code.push_str(&rest[..s]);
                    self.comment(number, &rest[s + 1..]);
                    rest = "";
                }
                (None, None) => {
                    if rest.contains('}') {
                        return Err(syntax(number, "a } without its {"));
                    }
                    code.push_str(rest);
                    return Ok(code);
                }
                (Some(_), None) => unreachable!("matched by the first arm"),
            }
        }
    }

    fn comment(&mut self, line: usize, text: &str) {
        self.comments.push(Comment {
            line,
            after_actions: self.actions.len(),
            text: text.trim().to_string(),
        });
    }

    fn finish(self, last_line: usize) -> Result<Record, RecordError> {
        let game = match self.game {
            Some(game) => game,
            None => {
                Game::new(settings_of(&self.headers)?).map_err(|e| syntax(last_line.max(1), e))?
            }
        };
        if let Some(result) = self.headers.iter().find(|h| h.key == "Result") {
            let stated = parse_result(&result.value).ok_or_else(|| {
                header_error(
                    result.line,
                    format!(
                        "Result {:?}: give *, a seat letter or \"draw\" and seat letters",
                        result.value
                    ),
                )
            })?;
            if stated.as_ref() != game.outcome() {
                return Err(RecordError {
                    line: result.line,
                    kind: RecordErrorKind::ResultMismatch {
                        stated: result.value.clone(),
                        actual: result_text(game.outcome()),
                    },
                });
            }
        }
        Ok(Record {
            headers: self.headers.into_iter().map(|h| (h.key, h.value)).collect(),
            settings: game.settings(),
            actions: self.actions,
            action_lines: self.action_lines,
            comments: self.comments,
            game,
        })
    }
}

/// `[Key "value"]` to the key, the value (with `\"` and `\\` unescaped) and what follows.
fn parse_header(line: &str) -> Result<(String, String, &str), String> {
    const SHAPE: &str = "a header is [Key \"value\"]";
    let inner = line.strip_prefix('[').ok_or(SHAPE)?;
    let key_end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .ok_or(SHAPE)?;
    let (key, after) = inner.split_at(key_end);
    if key.is_empty() {
        return Err(format!("{SHAPE}: the key is letters, digits and _"));
    }
    let after = after.trim_start();
    let quoted = after
        .strip_prefix('"')
        .ok_or_else(|| format!("the value of {key} is in double quotes"))?;
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    let rest = loop {
        match chars.next() {
            None => return Err(format!("the value of {key} lacks its closing quote")),
            Some((i, '"')) => break &quoted[i + 1..],
            Some((_, '\\')) => match chars.next() {
                Some((_, c @ ('"' | '\\'))) => value.push(c),
                _ => return Err(format!("in {key}'s value, \\ escapes only \" and \\")),
            },
            Some((_, c)) => value.push(c),
        }
    };
    let rest = rest
        .trim_start()
        .strip_prefix(']')
        .ok_or_else(|| format!("the {key} header ends with ] after its value"))?;
    Ok((key.to_string(), value, rest))
}

/// The settings the headers give: `Seats` (default all four), `Hostage` (the empty seat
/// of a three-seat game; alone it gives the seats, with `Seats` it must agree) and
/// `Ruleset` (VARIANTS.md 2.2: the canonical text, or the bare option list; default the
/// default ruleset).
fn settings_of(headers: &[HeaderLine]) -> Result<GameSettings, RecordError> {
    let mut settings = GameSettings::four_players();
    let find = |key: &str| headers.iter().find(|h| h.key == key);
    let seats = find("Seats");
    if let Some(h) = seats {
        settings.seats = SeatSet::from_letters(h.value.trim())
            .filter(|s| s.len() >= 3)
            .ok_or_else(|| {
                header_error(
                    h.line,
                    format!("Seats {:?}: give 3 or 4 of R, B, Y, G", h.value),
                )
            })?;
    }
    if let Some(h) = find("Hostage") {
        let value = h.value.trim();
        let hostage = if value == "-" || value.is_empty() {
            None
        } else {
            Some(value.parse::<Seat>().map_err(|_| {
                header_error(
                    h.line,
                    format!("Hostage {value:?}: give one seat letter, or - for none"),
                )
            })?)
        };
        match (seats, hostage) {
            (None, Some(seat)) => settings = GameSettings::three_players(seat),
            (None, None) => {}
            (Some(_), _) if hostage_of(settings.seats) == hostage => {}
            (Some(s), _) => {
                return Err(header_error(
                    h.line,
                    format!(
                        "Hostage {value:?} does not match Seats {:?} (line {})",
                        s.value, s.line
                    ),
                ));
            }
        }
    }
    if let Some(h) = find("Ruleset") {
        settings.ruleset = h
            .value
            .parse::<Ruleset>()
            .map_err(|e| header_error(h.line, format!("unknown ruleset {:?}: {e}", h.value)))?;
    }
    Ok(settings)
}

/// How an error names an action line: its words, normalised.
fn describe(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn parse_action_line(code: &str, game: &Game, number: usize) -> Result<Action, RecordError> {
    let words: Vec<&str> = code.split_whitespace().collect();
    let seat_of = |text: &str| text.parse::<Seat>().map_err(|e| syntax(number, e));
    let illegal = |why: String| RecordError {
        line: number,
        kind: RecordErrorKind::Illegal {
            action: describe(code),
            why,
        },
    };
    match words.as_slice() {
        ["--", "draw", "agreed"] => Ok(Action::AgreedDraw),
        ["--", seat, "resigns" | "resigned"] => Ok(Action::Resign(seat_of(seat)?)),
        ["--", seat, "timed" | "times", "out"] => Ok(Action::Timeout(seat_of(seat)?)),
        [number_word, seat, text] if number_word.ends_with('.') => {
            let position = game.position();
            let ply: u32 = number_word
                .trim_end_matches('.')
                .parse()
                .map_err(|_| syntax(number, format!("{number_word:?} is not a move number")))?;
            let seat = seat_of(seat)?;
            let mv: Move = text.parse().map_err(|e| syntax(number, e))?;
            if game.is_over() {
                return Err(illegal("the game is over".into()));
            }
            if ply != position.ply() + 1 {
                return Err(syntax(
                    number,
                    format!(
                        "move number {ply} where {} was expected",
                        position.ply() + 1
                    ),
                ));
            }
            if position.to_move() != Some(seat) {
                return Err(illegal(match position.to_move() {
                    Some(to_move) => format!("{seat} is not the seat to move, {to_move} is"),
                    None => "the game is over".into(),
                }));
            }
            Ok(Action::Move(mv))
        }
        _ => Err(syntax(
            number,
            format!(
                "{:?} is not an action: \"12. R C8-D7\", \"-- R resigns\", \
                 \"-- R timed out\" or \"-- draw agreed\"",
                describe(code)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_to_the_same_game() {
        let settings = GameSettings::three_players(Seat::Green);
        let mut game = Game::new(settings).unwrap();
        let mut actions = Vec::new();
        for _ in 0..12 {
            let mv = game.position().legal_moves()[0];
            game.apply(&Action::Move(mv)).unwrap();
            actions.push(Action::Move(mv));
        }
        actions.push(Action::Resign(Seat::Blue));
        game.apply(&Action::Resign(Seat::Blue)).unwrap();
        let text = write_record(
            settings,
            &actions,
            &[("Event", "test \"quoted\""), ("Seats", "ignored")],
        )
        .unwrap();
        assert!(text.contains("[Seats \"RBY\"]"), "{text}");
        assert!(text.contains("[Hostage \"G\"]"), "{text}");
        assert!(text.contains("[Event \"test 'quoted'\"]"), "{text}");
        assert!(text.contains("1. R "), "{text}");
        assert!(text.contains("-- B resigns"), "{text}");
        let record = read_record(&text).unwrap();
        assert_eq!(record.settings, settings);
        assert_eq!(record.actions, actions);
        assert_eq!(record.game.position(), game.position());
        let (replayed, _) = Game::replay(record.settings, &record.actions).unwrap();
        assert_eq!(replayed.position(), game.position());
    }

    #[test]
    fn bad_records_name_the_line() {
        let cases = [
            ("1. R C8-D6\n", 1, true),
            ("[Seats \"RB\"]\n", 1, false),
            ("1. R C8-D7\n3. B G8-F7\n", 2, false),
            ("1. B C8-D7\n", 1, true),
            ("1. R C8-D7\n[Event \"x\"]\n", 2, false),
            ("hello\n", 1, false),
            (
                "; a comment\n\n1. R C8-D7 {fine}\n2. B G8-F7 {open\n",
                4,
                false,
            ),
            ("[Seats \"RBY\"]\n[Hostage \"Y\"]\n", 2, false),
            ("[Result \"R\"]\n1. R C8-D7\n", 1, true),
            ("[Event \"x]\n", 1, false),
        ];
        for (text, line, rules) in cases {
            let err = read_record(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert_eq!(err.breaks_rules(), rules, "{text:?}: {err}");
            assert!(err.to_string().starts_with(&format!("line {line}: ")));
        }
    }

    #[test]
    fn comments_timeouts_and_hostage_alone() {
        let text = "; exported by hand\n[Hostage \"R\"] ; Red's seat empty\n\
                    [BlueType \"bot\"]\n\n1. B G8-F7 {Blue opens} ; and so on\n\
                    -- Y timed out\n-- G times out\n";
        let record = read_record(text).unwrap();
        assert_eq!(record.settings, GameSettings::three_players(Seat::Red));
        assert!(record.is_bot(Seat::Blue));
        assert!(!record.is_bot(Seat::Yellow));
        assert_eq!(
            record.actions[1..],
            [Action::Timeout(Seat::Yellow), Action::Timeout(Seat::Green)]
        );
        assert_eq!(record.action_lines, [5, 6, 7]);
        assert_eq!(record.outcome(), Some(&Outcome::Win(Seat::Blue)));
        let texts: Vec<(usize, usize, &str)> = record
            .comments
            .iter()
            .map(|c| (c.line, c.after_actions, c.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                (1, 0, "exported by hand"),
                (2, 0, "Red's seat empty"),
                (5, 1, "Blue opens"),
                (5, 1, "and so on"),
            ]
        );
    }
}
