//! Conditional moves: a seat's player stores, for one game, the moves they expect from
//! the seats that play before their next turn, each followed by their answer (a *line*);
//! the lines of one seat form a tree. Pure: the checks when a tree is stored, the match
//! of what was played against it, and what is left of it after an answer.
//!
//! # The text of a line
//!
//! A line is a sequence of plies, in the order they would be played from the position
//! the tree was built at, each a seat letter and a move in canonical text:
//!
//! ```text
//! B G8-E6 Y H3-F5 G C2-D3 R C7-D7 B H8-H6 R A7-B6
//! ```
//!
//! The plies of the tree's own seat are its answers. The words `if` and `then` may be
//! used as in a mail (`if B G8-E6 Y H3-F5 G C2-D3 then C7-D7`): after `then` the move
//! needs no seat letter (it is the tree's seat's), and `if` may start a further round.
//!
//! # Checked when stored ([`Tree::check`])
//!
//! - at most [`MAX_LINES`] lines (the tree's leaves) and [`MAX_PLIES`] plies per line;
//! - every ply's seat is the seat to move in the position it would be played in (so the
//!   turn order, rulers' bonus turns and skipped seats are as the rules say), and its
//!   move is legal there under the game's ruleset;
//! - a line starts with a ply of another seat (on its own turn a player plays) and ends
//!   with the seat's answer;
//! - two lines that agree up to one of the seat's turns answer the same there (a line
//!   that is the start of another is merged into it).
//!
//! The first fault names the line and the ply (both counted from 1).
//!
//! # Matched when played ([`Tree::next`])
//!
//! The actions played since the tree's base are compared with the starts of its lines:
//! when they are the start of a line and the seat is to move, the line's next ply is the
//! answer to play; when they are the start of none (a move nobody expected, a
//! resignation or a timeout: the turn order changed) the tree is discarded. After an
//! answer is played, [`Tree::advance`] keeps the continuations of the lines it was on.

use std::fmt::Write as _;

use domain::{Action, Game, Move, Seat};

/// The most plies in one line (the rivals' moves and the seat's answers together).
pub const MAX_PLIES: usize = 12;
/// The most lines (leaves) in one seat's tree.
pub const MAX_LINES: usize = 64;
/// The longest text of one line, in bytes (12 plies take at most about 230).
pub const MAX_LINE_BYTES: usize = 400;

/// One expected or answering move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ply {
    pub seat: Seat,
    pub mv: Move,
}

/// A seat's tree of conditional moves, as its lines (none is the start of another).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Tree {
    seat: Seat,
    lines: Vec<Vec<Ply>>,
}

/// Why a tree is refused: the line and ply (from 1; no ply: the line, or the tree, as a
/// whole) and what is wrong there.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub struct LineError {
    /// The line, counted from 1 (0: the tree as a whole).
    pub line: usize,
    /// The ply in the line, counted from 1.
    pub ply: Option<usize>,
    pub reason: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.ply) {
            (0, _) => write!(f, "{}", self.reason),
            (line, Some(ply)) => write!(f, "line {line}, ply {ply}: {}", self.reason),
            (line, None) => write!(f, "line {line}: {}", self.reason),
        }
    }
}

fn fault(line: usize, ply: Option<usize>, reason: impl Into<String>) -> LineError {
    LineError {
        line,
        ply,
        reason: reason.into(),
    }
}

/// What the tree says to do now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Next {
    /// Play this answer for the seat now.
    Play(Move),
    /// What was played is the start of a line; the seat is not to move yet.
    Wait,
    /// Every line was played to its end: nothing more to do.
    Exhausted,
    /// What was played is the start of no line: the action at this index (of those since
    /// the base) is the first that no line expected.
    Discard { at: usize },
}

/// Reads a line's text into (seat, move) pairs, without checking legality; `own` is the
/// seat of bare moves after `then`.
fn parse_line(text: &str, own: Seat, line: usize) -> Result<Vec<Ply>, LineError> {
    if text.len() > MAX_LINE_BYTES {
        return Err(fault(
            line,
            None,
            format!("a line is at most {MAX_LINE_BYTES} bytes long"),
        ));
    }
    let mut plies = Vec::new();
    let mut words = text.split_whitespace();
    let mut then = false;
    while let Some(word) = words.next() {
        let n = plies.len() + 1;
        if word.eq_ignore_ascii_case("if") && !then {
            continue;
        }
        if word.eq_ignore_ascii_case("then") && !then {
            then = true;
            continue;
        }
        let (seat, move_text) = if then {
            then = false;
            (own, word)
        } else {
            let seat: Seat = word.parse().map_err(|_| {
                fault(
                    line,
                    Some(n),
                    format!("expected a seat letter (R, B, Y, G), `if` or `then`, found {word:?}"),
                )
            })?;
            let Some(mv) = words.next() else {
                return Err(fault(
                    line,
                    Some(n),
                    format!("a move is missing after {seat}"),
                ));
            };
            (seat, mv)
        };
        let mv: Move = move_text.parse().map_err(|_| {
            fault(
                line,
                Some(n),
                format!("{move_text:?} is not a move (canonical text such as C7-D7)"),
            )
        })?;
        if plies.len() == MAX_PLIES {
            return Err(fault(
                line,
                Some(n),
                format!("a line holds at most {MAX_PLIES} plies"),
            ));
        }
        plies.push(Ply { seat, mv });
    }
    if then {
        return Err(fault(
            line,
            Some(plies.len() + 1),
            "a move is missing after `then`",
        ));
    }
    if plies.is_empty() {
        return Err(fault(line, None, "the line is empty"));
    }
    Ok(plies)
}

impl Tree {
    /// Reads and checks the lines a player sends for `seat` on the game as it is at the
    /// base (see the module documentation). Nothing of a refused tree is kept.
    pub fn check(base: &Game, seat: Seat, texts: &[String]) -> Result<Tree, LineError> {
        if texts.is_empty() {
            return Err(fault(0, None, "a tree holds at least one line"));
        }
        if texts.len() > MAX_LINES {
            return Err(fault(
                0,
                None,
                format!("a tree holds at most {MAX_LINES} lines"),
            ));
        }
        if base.is_over() {
            return Err(fault(0, None, "the game is over"));
        }
        let mut lines = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            let line = i + 1;
            let plies = parse_line(text, seat, line)?;
            let mut game = base.clone();
            for (j, ply) in plies.iter().enumerate() {
                let n = Some(j + 1);
                let position = game.position();
                let Some(to_move) = position.to_move().filter(|_| !game.is_over()) else {
                    return Err(fault(line, n, "the game is over before this ply"));
                };
                if ply.seat != to_move {
                    return Err(fault(
                        line,
                        n,
                        format!("{to_move} is to move here, not {}", ply.seat),
                    ));
                }
                if j == 0 && ply.seat == seat {
                    return Err(fault(
                        line,
                        n,
                        format!(
                            "{seat} is to move now: a line starts with the moves expected of \
                             the other seats (play this move instead)"
                        ),
                    ));
                }
                if let Err(e) = game.apply(&Action::Move(ply.mv)) {
                    return Err(fault(
                        line,
                        n,
                        format!("{} is illegal here: {e}", ply.mv_text()),
                    ));
                }
            }
            if plies.last().map(|p| p.seat) != Some(seat) {
                return Err(fault(
                    line,
                    Some(plies.len()),
                    format!("a line ends with {seat}'s answer"),
                ));
            }
            lines.push(plies);
        }
        // Two lines agreeing up to one of the seat's turns answer alike; a line that is
        // the start of another is merged into it.
        let mut keep = vec![true; lines.len()];
        for j in 0..lines.len() {
            for i in 0..j {
                let (a, b) = (&lines[i], &lines[j]);
                let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                if common < a.len().min(b.len()) {
                    if b[common].seat == seat {
                        return Err(fault(
                            j + 1,
                            Some(common + 1),
                            format!(
                                "line {} answers {} at the same point",
                                i + 1,
                                a[common].mv_text()
                            ),
                        ));
                    }
                } else if a.len() <= b.len() {
                    keep[i] = false;
                } else {
                    keep[j] = false;
                }
            }
        }
        let lines = lines
            .into_iter()
            .zip(keep)
            .filter_map(|(l, k)| k.then_some(l))
            .collect();
        Ok(Tree { seat, lines })
    }

    /// Reads a tree stored by [`Tree::stored_text`] (checked when it was stored).
    pub fn from_stored(seat: Seat, text: &str) -> Option<Tree> {
        let lines = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| parse_line(l, seat, i + 1).ok())
            .collect::<Option<Vec<_>>>()?;
        (!lines.is_empty()).then_some(Tree { seat, lines })
    }

    /// The stored form: one line of text per line, canonical moves read in `base`.
    pub fn stored_text(&self, base: &Game) -> String {
        self.texts(base).join("\n")
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    pub fn lines(&self) -> &[Vec<Ply>] {
        &self.lines
    }

    /// How many lines (leaves) the tree has.
    pub fn leaves(&self) -> usize {
        self.lines.len()
    }

    /// The lines' canonical text, read in the base position `base` (the separator of a
    /// move depends on its position).
    pub fn texts(&self, base: &Game) -> Vec<String> {
        self.lines
            .iter()
            .map(|line| {
                let mut game = base.clone();
                let mut text = String::new();
                for ply in line {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    let _ = write!(text, "{} {}", ply.seat, game.position().move_text(&ply.mv));
                    let _ = game.apply(&Action::Move(ply.mv));
                }
                text
            })
            .collect()
    }

    /// What to do after `played` (the actions since the base), with `to_move` the seat
    /// to move now (see the module documentation).
    pub fn next(&self, played: &[Action], to_move: Option<Seat>) -> Next {
        let mut best = 0;
        let mut answer: Option<Ply> = None;
        let mut matched = false;
        for line in &self.lines {
            let common = line
                .iter()
                .zip(played)
                .take_while(|(ply, action)| **action == Action::Move(ply.mv))
                .count();
            best = best.max(common);
            if common < played.len() {
                continue;
            }
            matched = true;
            if let Some(ply) = line.get(played.len()) {
                answer = Some(*ply);
            }
        }
        if !matched {
            return Next::Discard { at: best };
        }
        match answer {
            None => Next::Exhausted,
            Some(ply) if ply.seat == self.seat && to_move == Some(self.seat) => Next::Play(ply.mv),
            // The rules disagree with the line's seat (it cannot happen with the same
            // moves from the same base): the line does not match.
            Some(ply) if to_move == Some(self.seat) || ply.seat == self.seat => {
                Next::Discard { at: played.len() }
            }
            Some(_) => Next::Wait,
        }
    }

    /// The continuations of the lines that start with `played` (the actions since the
    /// base, the answer just played included), as a tree based after them; `None` when
    /// none goes on.
    pub fn advance(&self, played: &[Action]) -> Option<Tree> {
        let lines: Vec<Vec<Ply>> = self
            .lines
            .iter()
            .filter(|line| {
                line.len() > played.len()
                    && line
                        .iter()
                        .zip(played)
                        .all(|(ply, action)| *action == Action::Move(ply.mv))
            })
            .map(|line| line[played.len()..].to_vec())
            .collect();
        (!lines.is_empty()).then_some(Tree {
            seat: self.seat,
            lines,
        })
    }
}

impl Ply {
    fn mv_text(&self) -> String {
        let mut t = format!("{}-{}", self.mv.from, self.mv.to);
        if let Some(v) = self.mv.victim {
            let _ = write!(t, "x{v}");
        }
        if let Some(e) = self.mv.exit {
            let _ = write!(t, "/{e}");
        }
        if let Some(p) = self.mv.place {
            let _ = write!(t, ">{p}");
        }
        t
    }
}

/// The first action of `played` that no line expected, as a short text for the
/// "discarded" notification: `Blue played G8-E6`, `Yellow resigned`, ...
pub fn describe(base: &Game, played: &[Action], at: usize) -> String {
    let mut game = base.clone();
    for action in &played[..at.min(played.len())] {
        let _ = game.apply(action);
    }
    match played.get(at) {
        Some(Action::Move(mv)) => {
            let seat = game.position().to_move().map(Seat::name).unwrap_or("?");
            format!("{seat} played {}", game.position().move_text(mv))
        }
        Some(Action::Resign(s)) => format!("{} resigned", s.name()),
        Some(Action::Timeout(s)) => format!("{} timed out", s.name()),
        Some(Action::AgreedDraw) => "the game was drawn".into(),
        None => "the turn order changed".into(),
    }
}

#[cfg(test)]
mod tests;
