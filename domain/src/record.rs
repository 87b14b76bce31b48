//! The game record: a text file of headers and numbered actions that can be read back
//! and replayed (served by the API as `/v1/games/{id}/record`).
//!
//! ```text
//! [Event "Djambi correspondence game"]
//! [Ruleset "djambi-standard-2026"]
//! [Seats "RBYG"]
//! [Result "*"]
//!
//! 1. R C8-D7
//! 2. B G8-F7
//! -- Y resigns
//! 3. G A3-A4
//! ```
//!
//! Each move line holds its ply number, the seat that played it and its canonical text.
//! Resignations and an agreed draw are lines of their own (`-- R resigns`,
//! `-- draw agreed`); they play no ply. Lines starting with `;` are comments. Headers are
//! free, but `Seats` (3 or 4 seat letters, default `RBYG`) and `Ruleset` are read back.

use std::fmt::Write;

use crate::error::ParseError;
use crate::game::{Action, Game, GameSettings, Outcome, Ruleset};
use crate::moves::Move;
use crate::seat::{Seat, SeatSet};

/// A parsed record: its headers, the game's settings and its actions, replayed and legal.
#[derive(Clone, Debug)]
pub struct Record {
    pub headers: Vec<(String, String)>,
    pub settings: GameSettings,
    pub actions: Vec<Action>,
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

/// Writes a record. `headers` come first (quotes in values are replaced by `'`), then
/// `Ruleset`, `Seats` and `Result`, which the record derives itself.
pub fn write_record(
    settings: GameSettings,
    actions: &[Action],
    headers: &[(&str, &str)],
) -> Result<String, crate::game::ReplayError> {
    let mut game = Game::new(settings).map_err(crate::game::ReplayError::Settings)?;
    let mut body = String::new();
    for (index, action) in actions.iter().enumerate() {
        // The line is written from the position before the action (the move's separator
        // and the mover depend on it), and kept only if the action applies.
        let line = match action {
            Action::Move(mv) => {
                let position = game.position();
                let seat = position.to_move().map(|s| s.letter()).unwrap_or('?');
                format!(
                    "{}. {seat} {}\n",
                    position.ply() + 1,
                    position.move_text(mv)
                )
            }
            Action::Resign(seat) => format!("-- {seat} resigns\n"),
            Action::AgreedDraw => "-- draw agreed\n".to_string(),
        };
        game.apply(action)
            .map_err(|error| crate::game::ReplayError::Action { index, error })?;
        body.push_str(&line);
    }
    let mut text = String::new();
    for (key, value) in headers {
        if ["Ruleset", "Seats", "Result"].contains(key) {
            continue;
        }
        let _ = writeln!(
            text,
            "[{} \"{}\"]",
            sanitize_key(key),
            value.replace(['"', '\n', '\r'], "'")
        );
    }
    let _ = writeln!(text, "[Ruleset \"{}\"]", settings.ruleset.id());
    let _ = writeln!(text, "[Seats \"{}\"]", settings.seats);
    let _ = writeln!(text, "[Result \"{}\"]", result_text(game.outcome()));
    text.push('\n');
    text.push_str(&body);
    Ok(text)
}

fn sanitize_key(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Reads a record back and replays it; the error names the line at fault.
pub fn read_record(text: &str) -> Result<Record, ParseError> {
    let bad = |line: usize, why: String| ParseError::Record(format!("line {line}: {why}"));
    let mut headers = Vec::new();
    let mut settings = GameSettings::four_players();
    let mut game: Option<Game> = None;
    let mut actions = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[') {
            if game.is_some() {
                return Err(bad(number, "headers must come before the actions".into()));
            }
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| bad(number, "a header ends with ]".into()))?;
            let (key, value) = inner
                .split_once(' ')
                .ok_or_else(|| bad(number, "a header is [Key \"value\"]".into()))?;
            let value = value
                .trim()
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .ok_or_else(|| bad(number, "a header's value is in double quotes".into()))?;
            match key {
                "Seats" => {
                    settings.seats = SeatSet::from_letters(value)
                        .filter(|s| s.len() >= 3)
                        .ok_or_else(|| {
                            bad(
                                number,
                                format!("Seats {value:?}: give 3 or 4 of R, B, Y, G"),
                            )
                        })?;
                }
                "Ruleset" => {
                    settings.ruleset = Ruleset::from_id(value)
                        .ok_or_else(|| bad(number, format!("unknown ruleset {value:?}")))?;
                }
                _ => {}
            }
            headers.push((key.to_string(), value.to_string()));
            continue;
        }
        let game = match &mut game {
            Some(game) => game,
            None => game.insert(Game::new(settings).map_err(|e| bad(number, e.to_string()))?),
        };
        let action = parse_action_line(line, game).map_err(|why| bad(number, why))?;
        game.apply(&action)
            .map_err(|e| bad(number, e.to_string()))?;
        actions.push(action);
    }
    Ok(Record {
        headers,
        settings,
        actions,
    })
}

fn parse_action_line(line: &str, game: &Game) -> Result<Action, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["--", "draw", "agreed"] => Ok(Action::AgreedDraw),
        ["--", seat, "resigns"] => Ok(Action::Resign(parse_seat(seat)?)),
        [number, seat, text] if number.ends_with('.') => {
            let position = game.position();
            let ply: u32 = number
                .trim_end_matches('.')
                .parse()
                .map_err(|_| format!("{number:?} is not a move number"))?;
            if ply != position.ply() + 1 {
                return Err(format!(
                    "move number {ply} where {} was expected",
                    position.ply() + 1
                ));
            }
            let seat = parse_seat(seat)?;
            if position.to_move() != Some(seat) {
                return Err(format!("{seat} is not the seat to move"));
            }
            let mv: Move = text.parse().map_err(|e: ParseError| e.to_string())?;
            Ok(Action::Move(mv))
        }
        _ => Err(format!(
            "{line:?} is not a move line (\"12. R C8-D7\"), \"-- R resigns\" or \"-- draw agreed\""
        )),
    }
}

fn parse_seat(text: &str) -> Result<Seat, String> {
    let mut chars = text.chars();
    match (chars.next().and_then(Seat::from_letter), chars.next()) {
        (Some(seat), None) => Ok(seat),
        _ => Err(format!("unknown seat {text:?}")),
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
        assert!(text.contains("[Event \"test 'quoted'\"]"), "{text}");
        assert!(text.contains("1. R "), "{text}");
        assert!(text.contains("-- B resigns"), "{text}");
        let record = read_record(&text).unwrap();
        assert_eq!(record.settings, settings);
        assert_eq!(record.actions, actions);
        let (replayed, _) = Game::replay(record.settings, &record.actions).unwrap();
        assert_eq!(replayed.position(), game.position());
    }

    #[test]
    fn bad_records_name_the_line() {
        let cases = [
            ("1. R C8-D6\n", "line 1"),
            ("[Seats \"RB\"]\n", "line 1"),
            ("1. R C8-D7\n3. B G8-F7\n", "line 2"),
            ("1. B C8-D7\n", "line 1"),
            ("1. R C8-D7\n[Event \"x\"]\n", "line 2"),
            ("hello\n", "line 1"),
        ];
        for (text, needle) in cases {
            let err = read_record(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }
}
