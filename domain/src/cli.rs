//! The `djambi` command (RULES.md section 9). Other programs drive it through `batch`,
//! so its input and output are exactly as specified there.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use crate::error::ParseError;
use crate::game::{Action, Game, Outcome};
use crate::moves::Move;
use crate::perft::perft;
use crate::position::Position;
use crate::record::{Record, action_line, read_record};
use crate::seat::{Seat, SeatSet};
use crate::svg::{SvgOptions, board_svg};

const USAGE: &str = "usage: djambi start [--seats RBY] | moves <DFEN> | play <DFEN> <MOVE>... | \
resign <DFEN> <SEAT> | perft <DEPTH> [<DFEN>] | batch | record check <FILE> | \
record replay <FILE> | svg <DFEN> [--last <MOVE>] | \
arena --players P1,P2,P3[,P4] [--games N] [--seed S] [--max-plies P]";

/// Deepest perft the command accepts: depth 6 from the start already takes minutes.
const MAX_PERFT_DEPTH: u32 = 8;

/// What went wrong, with the exit status it maps to.
enum Failure {
    /// Unusable input: status 2.
    Usage(String),
    /// A move or resignation the rules refuse: status 1.
    Rules(String),
}

/// Runs the command with `args` (without the program name); returns the exit status.
pub fn run(
    args: &[String],
    stdin: impl BufRead,
    mut stdout: impl Write,
    mut stderr: impl Write,
) -> i32 {
    let result = match args.first().map(String::as_str) {
        Some("batch") if args.len() == 1 => {
            batch(stdin, &mut stdout).map_err(|e| Failure::Usage(e.to_string()))
        }
        Some("arena") => crate::arena::run(&args[1..], &mut stdout).map_err(Failure::Usage),
        Some(command) => command_output(command, &args[1..])
            .and_then(|out| write!(stdout, "{out}").map_err(|e| Failure::Usage(e.to_string()))),
        None => Err(Failure::Usage(USAGE.to_string())),
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Usage(msg)) => {
            let _ = writeln!(stderr, "djambi: {msg}");
            2
        }
        Err(Failure::Rules(msg)) => {
            let _ = writeln!(stderr, "djambi: {msg}");
            1
        }
    }
}

fn parse_dfen(text: &str) -> Result<Position, Failure> {
    text.parse()
        .map_err(|e: ParseError| Failure::Usage(e.to_string()))
}

fn command_output(command: &str, args: &[String]) -> Result<String, Failure> {
    let usage = || Failure::Usage(USAGE.to_string());
    match (command, args) {
        ("start", []) => Ok(format!("{}\n", Position::default())),
        ("start", [flag, seats]) if flag == "--seats" => {
            let seats = SeatSet::from_letters(seats).ok_or_else(|| {
                Failure::Usage(format!("--seats {seats:?}: give 3 or 4 of R, B, Y, G"))
            })?;
            let position = Position::start(seats).map_err(|e| Failure::Usage(e.to_string()))?;
            Ok(format!("{position}\n"))
        }
        ("moves", [dfen]) => {
            let position = parse_dfen(dfen)?;
            Ok(position
                .legal_move_texts()
                .iter()
                .map(|m| format!("{m}\n"))
                .collect())
        }
        ("play", [dfen, moves @ ..]) if !moves.is_empty() => {
            let position = play_all(parse_dfen(dfen)?, moves.iter().map(String::as_str))?;
            Ok(format!("{position}\n"))
        }
        ("resign", [dfen, seat]) => {
            let position = parse_dfen(dfen)?;
            let seat = parse_seat(seat)?;
            let position = position
                .resign(seat)
                .map_err(|e| Failure::Rules(e.to_string()))?;
            Ok(format!("{position}\n"))
        }
        ("perft", [depth, rest @ ..]) if rest.len() <= 1 => {
            let depth: u32 = depth
                .parse()
                .ok()
                .filter(|d| *d <= MAX_PERFT_DEPTH)
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "depth {depth:?}: give a number from 0 to {MAX_PERFT_DEPTH}"
                    ))
                })?;
            let position = match rest {
                [dfen] => parse_dfen(dfen)?,
                _ => Position::default(),
            };
            Ok(format!("{}\n", perft(&position, depth)))
        }
        ("record", [sub, file]) if sub == "check" => {
            let record = read_record_file(file)?;
            Ok(format!("{file}: {}\n", record_summary(&record)))
        }
        ("record", [sub, file]) if sub == "replay" => replay_lines(&read_record_file(file)?),
        ("svg", [dfen, rest @ ..]) => {
            let position = parse_dfen(dfen)?;
            let last = match rest {
                [] => None,
                [flag, text] if flag == "--last" => Some(
                    text.parse::<Move>()
                        .map_err(|e: ParseError| Failure::Usage(format!("--last {text:?}: {e}")))?,
                ),
                _ => return Err(usage()),
            };
            Ok(board_svg(&position, last.as_ref(), &SvgOptions::default()))
        }
        _ => Err(usage()),
    }
}

/// Reads and replays a record file: status 1 when an action breaks the rules, 2 when
/// the file cannot be read or is malformed; the message names the line.
fn read_record_file(file: &str) -> Result<Record, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Usage(format!("cannot read {file}: {e}")))?;
    read_record(&text).map_err(|e| {
        let msg = format!("{file}: {e}");
        if e.breaks_rules() {
            Failure::Rules(msg)
        } else {
            Failure::Usage(msg)
        }
    })
}

/// `record check`'s line: seats, moves, other actions, the result.
fn record_summary(record: &Record) -> String {
    let moves = record
        .actions
        .iter()
        .filter(|a| matches!(a, Action::Move(_)))
        .count();
    let others = record.actions.len() - moves;
    let result = match record.outcome() {
        None => "in progress".to_string(),
        Some(Outcome::Win(seat)) => format!("{} wins", seat.name()),
        Some(Outcome::Draw(seats)) => format!("draw {seats}"),
    };
    format!(
        "ok, seats {}, {moves} moves, {others} other actions, {result}",
        record.settings.seats
    )
}

/// `record replay`: the start and then one line per action, tab-separated: the action's
/// number (0 for the start), its record line, the DFEN after it.
fn replay_lines(record: &Record) -> Result<String, Failure> {
    let mut game = Game::new(record.settings).map_err(|e| Failure::Usage(e.to_string()))?;
    let mut out = format!("0\tstart\t{}\n", game.position());
    for (i, action) in record.actions.iter().enumerate() {
        let line = action_line(&game, action);
        game.apply(action)
            .map_err(|e| Failure::Rules(format!("action {}: {e}", i + 1)))?;
        out.push_str(&format!("{}\t{line}\t{}\n", i + 1, game.position()));
    }
    Ok(out)
}

fn parse_seat(text: &str) -> Result<Seat, Failure> {
    text.parse()
        .map_err(|e: ParseError| Failure::Usage(e.to_string()))
}

/// Plays moves in order; the error names the first one that does not parse or is illegal.
fn play_all<'a>(
    mut position: Position,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<Position, Failure> {
    for (i, text) in moves.into_iter().enumerate() {
        let illegal =
            |why: String| Failure::Rules(format!("move {} {text:?} is illegal: {why}", i + 1));
        let mv: Move = text
            .parse()
            .map_err(|e: ParseError| illegal(e.to_string()))?;
        position
            .play_in_place(&mv, &mut ())
            .map_err(|e| illegal(e.to_string()))?;
    }
    Ok(position)
}

/// One request line of `batch` to its answer.
fn batch_answer(line: &str) -> Value {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({ "error": format!("malformed JSON: {e}") }),
    };
    let field = |name: &str| request.get(name).and_then(Value::as_str);
    let dfen = match field("dfen").map(str::parse::<Position>) {
        Some(Ok(position)) => position,
        Some(Err(e)) => return json!({ "error": e.to_string() }),
        None => return json!({ "error": "missing \"dfen\" string" }),
    };
    let result = match field("op") {
        Some("moves") => return json!({ "moves": dfen.legal_move_texts() }),
        Some("play") => match request.get("moves").and_then(Value::as_array) {
            Some(moves) => match moves
                .iter()
                .map(Value::as_str)
                .collect::<Option<Vec<&str>>>()
            {
                Some(moves) => play_all(dfen, moves),
                None => Err(Failure::Usage(
                    "\"moves\" must be an array of strings".into(),
                )),
            },
            None => Err(Failure::Usage("missing \"moves\" array".into())),
        },
        Some("resign") => match field("seat") {
            Some(seat) => parse_seat(seat)
                .and_then(|seat| dfen.resign(seat).map_err(|e| Failure::Rules(e.to_string()))),
            None => Err(Failure::Usage("missing \"seat\"".into())),
        },
        Some(op) => Err(Failure::Usage(format!(
            "unknown op {op:?}: moves, play or resign"
        ))),
        None => Err(Failure::Usage("missing \"op\"".into())),
    };
    match result {
        Ok(position) => json!({ "dfen": position.to_string() }),
        Err(Failure::Usage(msg) | Failure::Rules(msg)) => json!({ "error": msg }),
    }
}

/// Reads JSON lines and answers each with one line; blank lines are skipped.
fn batch(stdin: impl BufRead, stdout: &mut impl Write) -> std::io::Result<()> {
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(stdout, "{}", batch_answer(&line))?;
        stdout.flush()?;
    }
    Ok(())
}
