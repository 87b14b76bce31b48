//! The `djambi` command (RULES.md section 9). Other programs drive it through `batch`,
//! so its input and output are exactly as specified there.
//!
//! Exit status: 0 on success (and for `--help`), 1 when the rules refuse a move, a
//! resignation or a record's action, 2 for unusable input (a malformed DFEN, a bad or
//! unknown argument); the message on stderr names the argument or move at fault.

mod analyse;
pub mod arena;

use std::ffi::OsString;
use std::io::{BufRead, Write};

use clap::{CommandFactory, Parser, Subcommand};
use serde_json::{Value, json};

use djambi::{
    Action, Game, Level, Move, Outcome, ParseError, Position, Record, Ruleset, RulesetError, Seat,
    SeatSet, SvgOptions, action_line, board_svg, perft, read_record,
};

/// Deepest perft the command accepts: depth 6 from the start already takes minutes.
const MAX_PERFT_DEPTH: u32 = 8;

/// The rules of Djambi, for players, tools and tests (RULES.md section 9).
#[derive(Parser, Debug)]
#[command(
    name = "djambi",
    version,
    about = "The rules of Djambi (Machiavelli's chessboard): positions, moves, perft, records.",
    after_help = "Exit status: 0 on success, 1 when the rules refuse a move, 2 for unusable input."
)]
struct Cli {
    /// The ruleset (shared/VARIANTS.md): options such as `master_moves=on,reporter=forced`,
    /// optionally after the version `djambi-standard-2026`. Default: RULES.md unchanged.
    /// For `batch`, the ruleset of requests without a `ruleset` field.
    #[arg(long, global = true, value_name = "TEXT", value_parser = parse_ruleset)]
    ruleset: Option<Ruleset>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the starting DFEN for the seats in play.
    Start {
        /// The seats in play: 3 or 4 of R, B, Y, G (default all four); with three the
        /// empty seat's party is hostage.
        #[arg(long, value_name = "SEATS", value_parser = parse_seats)]
        seats: Option<SeatSet>,
    },
    /// Print every complete legal move, canonical, one per line, sorted by byte value.
    Moves {
        /// The position.
        #[arg(value_name = "DFEN", value_parser = parse_dfen)]
        dfen: Position,
    },
    /// Print the DFEN after the moves; status 1 names the first illegal move.
    Play {
        /// The position.
        #[arg(value_name = "DFEN", value_parser = parse_dfen)]
        dfen: Position,
        /// The moves, in order (a move that does not parse is illegal too).
        #[arg(value_name = "MOVE", required = true)]
        moves: Vec<String>,
    },
    /// Print the DFEN after a seat resigns.
    Resign {
        /// The position.
        #[arg(value_name = "DFEN", value_parser = parse_dfen)]
        dfen: Position,
        /// The resigning seat: R, B, Y or G.
        #[arg(value_name = "SEAT", value_parser = parse_seat)]
        seat: Seat,
    },
    /// Print the number of complete-move sequences of that length.
    Perft {
        /// The length, 0 to 8.
        #[arg(value_name = "DEPTH", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_PERFT_DEPTH)))]
        depth: u32,
        /// The position (default: the start).
        #[arg(value_name = "DFEN", value_parser = parse_dfen)]
        dfen: Option<Position>,
    },
    /// Read JSON requests on stdin, one a line, and answer each with one JSON line.
    Batch,
    /// Check or replay a game record file (docs/record-format.md).
    #[command(subcommand)]
    Record(RecordCommand),
    /// Print the board as an SVG picture.
    Svg {
        /// The position.
        #[arg(value_name = "DFEN", value_parser = parse_dfen)]
        dfen: Position,
        /// The move that led to it, to highlight.
        #[arg(long, value_name = "MOVE", value_parser = parse_move)]
        last: Option<Move>,
    },
    /// Play computer players against each other and print how they fared.
    Arena(arena::Options),
    /// Analyse a game's moves with the engine (a record file, or a random game): per move
    /// the preferred move, what the move played lost and the judgement, then the time.
    Analyse {
        /// The record file; without it, a random game of --plies moves.
        #[arg(value_name = "FILE")]
        file: Option<String>,
        /// The level whose node budget analyses each position (1 to 5).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=5))]
        level: u8,
        /// Without FILE: the length of the random game (the first seed from --seed on
        /// whose game lasts that long).
        #[arg(long, default_value_t = 200)]
        plies: usize,
        /// Without FILE: the first seed tried.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print a shell completion script for `djambi`.
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

#[derive(Subcommand, Debug)]
enum RecordCommand {
    /// Read and replay a record; print a one-line summary.
    Check {
        /// The record file.
        #[arg(value_name = "FILE")]
        file: String,
    },
    /// Print the start and, for each action, its number, record line and the DFEN after it.
    Replay {
        /// The record file.
        #[arg(value_name = "FILE")]
        file: String,
    },
}

fn parse_ruleset(text: &str) -> Result<Ruleset, RulesetError> {
    text.parse()
}

fn parse_dfen(text: &str) -> Result<Position, ParseError> {
    text.parse()
}

fn parse_seat(text: &str) -> Result<Seat, ParseError> {
    text.parse()
}

fn parse_move(text: &str) -> Result<Move, ParseError> {
    text.parse()
}

fn parse_seats(text: &str) -> Result<SeatSet, String> {
    SeatSet::from_letters(text)
        .filter(|seats| seats.len() >= 3)
        .ok_or_else(|| format!("{text:?}: give 3 or 4 of R, B, Y, G"))
}

/// What went wrong, with the exit status it maps to.
enum Failure {
    /// Unusable input: status 2.
    Usage(String),
    /// A move or resignation the rules refuse: status 1.
    Rules(String),
}

/// Runs the command with `args` (without the program name); returns the exit status.
pub fn run<S: Into<OsString> + Clone>(
    args: &[S],
    stdin: impl BufRead,
    mut stdout: impl Write,
    mut stderr: impl Write,
) -> i32 {
    let argv =
        std::iter::once(OsString::from("djambi")).chain(args.iter().cloned().map(Into::into));
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` print to stdout and succeed; the rest is unusable
            // input, with clap's message naming the argument.
            let text = e.render().to_string();
            let status = e.exit_code();
            let _ = if e.use_stderr() {
                write!(stderr, "{text}")
            } else {
                write!(stdout, "{text}")
            };
            let _ = stdout.flush();
            return status;
        }
    };
    let result = execute(cli.command, cli.ruleset, stdin, &mut stdout);
    let _ = stdout.flush();
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

fn execute(
    command: Command,
    ruleset: Option<Ruleset>,
    stdin: impl BufRead,
    stdout: &mut impl Write,
) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::Usage(e.to_string());
    let rules = ruleset.unwrap_or_default();
    let out = match command {
        Command::Batch => return batch(stdin, stdout, rules).map_err(io),
        Command::Arena(options) => {
            return arena::run(&options, rules, stdout).map_err(Failure::Usage);
        }
        Command::Analyse {
            file,
            level,
            plies,
            seed,
        } => {
            let (settings, actions) = match file {
                Some(file) => {
                    let record = read_record_file(&file, ruleset)?;
                    (record.settings, record.actions)
                }
                None => analyse::random_game(rules, plies, seed),
            };
            let level = Level::new(level).unwrap_or(Level::MAX);
            return analyse::run(settings, &actions, level, stdout).map_err(Failure::Usage);
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "djambi", stdout);
            return Ok(());
        }
        Command::Start { seats } => {
            let position = Position::start_with(seats.unwrap_or(SeatSet::ALL), rules)
                .map_err(|e| Failure::Usage(format!("--seats: {e}")))?;
            format!("{position}\n")
        }
        Command::Moves { dfen } => dfen
            .with_ruleset(rules)
            .legal_move_texts()
            .iter()
            .map(|m| format!("{m}\n"))
            .collect(),
        Command::Play { dfen, moves } => {
            let position = play_all(dfen.with_ruleset(rules), moves.iter().map(String::as_str))?;
            format!("{position}\n")
        }
        Command::Resign { dfen, seat } => {
            let position = dfen
                .with_ruleset(rules)
                .resign(seat)
                .map_err(|e| Failure::Rules(e.to_string()))?;
            format!("{position}\n")
        }
        Command::Perft { depth, dfen } => {
            let position = match dfen {
                Some(position) => position.with_ruleset(rules),
                None => Position::start_with(SeatSet::ALL, rules)
                    .map_err(|e| Failure::Usage(e.to_string()))?,
            };
            format!("{}\n", perft(&position, depth))
        }
        Command::Record(RecordCommand::Check { file }) => {
            let record = read_record_file(&file, ruleset)?;
            format!("{file}: {}\n", record_summary(&record))
        }
        Command::Record(RecordCommand::Replay { file }) => {
            replay_lines(&read_record_file(&file, ruleset)?)?
        }
        Command::Svg { dfen, last } => board_svg(
            &dfen.with_ruleset(rules),
            last.as_ref(),
            &SvgOptions::default(),
        ),
    };
    write!(stdout, "{out}").map_err(io)
}

/// Reads and replays a record file under its `Ruleset` header: status 1 when an action
/// breaks the rules, 2 when the file cannot be read or is malformed; the message names the
/// line. A `--ruleset` must be the record's own (a record is never replayed under other
/// rules than it says).
fn read_record_file(file: &str, ruleset: Option<Ruleset>) -> Result<Record, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Usage(format!("cannot read {file}: {e}")))?;
    let record = read_record(&text).map_err(|e| {
        let msg = format!("{file}: {e}");
        if e.breaks_rules() {
            Failure::Rules(msg)
        } else {
            Failure::Usage(msg)
        }
    })?;
    match ruleset {
        Some(given) if given != record.settings.ruleset => Err(Failure::Usage(format!(
            "{file}: the record is played under \"{}\", not --ruleset \"{given}\"",
            record.settings.ruleset
        ))),
        _ => Ok(record),
    }
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
    let ruleset = match record.settings.ruleset {
        r if r.is_default() => String::new(),
        r => format!(", ruleset {r}"),
    };
    format!(
        "ok, seats {}, {moves} moves, {others} other actions, {result}{ruleset}",
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

fn seat_of(text: &str) -> Result<Seat, Failure> {
    parse_seat(text).map_err(|e| Failure::Usage(e.to_string()))
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

/// One request line of `batch` to its answer; `rules` is for requests without a
/// `ruleset` field.
fn batch_answer(line: &str, rules: Ruleset) -> Value {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({ "error": format!("malformed JSON: {e}") }),
    };
    let field = |name: &str| request.get(name).and_then(Value::as_str);
    // VARIANTS.md 2.3: an object, a text, or null / {} / "" for the default.
    let rules = match request.get("ruleset") {
        None => rules,
        Some(value) => match serde_json::from_value::<Ruleset>(value.clone()) {
            Ok(rules) => rules,
            Err(e) => return json!({ "error": format!("\"ruleset\": {e}") }),
        },
    };
    if field("op") == Some("start") {
        let seats = match request.get("seats") {
            None | Some(Value::Null) => Ok(SeatSet::ALL),
            Some(Value::String(text)) => parse_seats(text),
            Some(_) => Err("\"seats\" must be a string such as \"RBY\"".into()),
        };
        return match seats.map(|seats| Position::start_with(seats, rules)) {
            Ok(Ok(position)) => json!({ "dfen": position.to_string() }),
            Ok(Err(e)) => json!({ "error": e.to_string() }),
            Err(e) => json!({ "error": format!("\"seats\" {e}") }),
        };
    }
    let dfen = match field("dfen").map(|text| Position::from_dfen(text, rules)) {
        Some(Ok(position)) => position,
        Some(Err(e)) => return json!({ "error": e.to_string() }),
        None => return json!({ "error": "missing \"dfen\" string" }),
    };
    let result = match field("op") {
        Some("moves") => return json!({ "moves": dfen.legal_move_texts() }),
        Some("perft") => {
            return match request.get("depth").and_then(Value::as_u64) {
                Some(depth) if depth <= u64::from(MAX_PERFT_DEPTH) => {
                    json!({ "count": perft(&dfen, depth as u32) })
                }
                _ => json!({
                    "error": format!("\"depth\" must be a number from 0 to {MAX_PERFT_DEPTH}")
                }),
            };
        }
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
            Some(seat) => seat_of(seat)
                .and_then(|seat| dfen.resign(seat).map_err(|e| Failure::Rules(e.to_string()))),
            None => Err(Failure::Usage("missing \"seat\"".into())),
        },
        Some(op) => Err(Failure::Usage(format!(
            "unknown op {op:?}: moves, play, resign, start or perft"
        ))),
        None => Err(Failure::Usage("missing \"op\"".into())),
    };
    match result {
        Ok(position) => json!({ "dfen": position.to_string() }),
        Err(Failure::Usage(msg) | Failure::Rules(msg)) => json!({ "error": msg }),
    }
}

/// Reads JSON lines and answers each with one line; blank lines are skipped.
fn batch(stdin: impl BufRead, stdout: &mut impl Write, rules: Ruleset) -> std::io::Result<()> {
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(stdout, "{}", batch_answer(&line, rules))?;
        stdout.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
