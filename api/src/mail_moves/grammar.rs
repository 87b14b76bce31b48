//! What a reply may say: its first non-empty line, one of
//!
//! ```text
//! command  = move / "resign" / "draw" sep "offer" / "draw" sep "accept" / "draw" sep "decline"
//! move     = canonical move text, as the API accepts it (any case, "-" or "x"), e.g. C8-D7
//! sep      = one or more of space, tab, "-", "_"
//! ```
//!
//! Surrounding white space and a final `.` or `!` are ignored; nothing else is read.
//!
//! A line may also hold a conditional line ([`conditional`]): `[move] if SEAT MOVE ...
//! then MOVE ...` (README, "Conditional moves"): the move of this turn, if any, then one
//! line of conditional moves stored for the seat after it. Without the move, the reply is
//! refused on the player's turn (where a turn mail's token holds): see `receive.rs`.

use domain::Move;

use crate::games::commands::{Command, DrawAction};

/// The longest first line looked at.
pub const MAX_LINE: usize = 64;

/// The first non-empty line of a text.
pub fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// What is wrong with a line (worded for the player by [`super::wording`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrammarError {
    /// Longer than [`MAX_LINE`].
    TooLong,
    /// Neither a move nor a command word: the line as read.
    NotACommand(String),
}

/// The command of a line, or what is wrong with it.
pub fn parse(line: &str) -> Result<Command, GrammarError> {
    let line = line.trim().trim_end_matches(['.', '!']).trim();
    if line.len() > MAX_LINE {
        return Err(GrammarError::TooLong);
    }
    let words: Vec<String> = line
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["resign"] => return Ok(Command::Resign),
        ["draw", "offer"] => return Ok(Command::Draw(DrawAction::Offer)),
        ["draw", "accept"] => return Ok(Command::Draw(DrawAction::Accept)),
        ["draw", "decline"] => return Ok(Command::Draw(DrawAction::Decline)),
        _ => {}
    }
    line.parse::<Move>()
        .map(Command::Play)
        .map_err(|_| GrammarError::NotACommand(line.to_string()))
}

/// A line with a conditional part, `[move] if SEAT MOVE ... then MOVE ...`: the move of
/// this turn if any, and the tree's one line (from its `if` on, as written). `None` when
/// the line has no word `if`.
pub fn conditional(line: &str) -> Option<Result<(Option<Move>, String), GrammarError>> {
    let line = line.trim().trim_end_matches(['.', '!']).trim();
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("if"))?;
    let mv = match &words[..at] {
        [] => None,
        [one] => match one.parse::<Move>() {
            Ok(mv) => Some(mv),
            Err(_) => return Some(Err(GrammarError::NotACommand(line.to_string()))),
        },
        _ => return Some(Err(GrammarError::NotACommand(line.to_string()))),
    };
    Some(Ok((mv, words[at..].join(" "))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn conditional_lines() {
        assert_eq!(conditional("C8-D7"), None);
        assert_eq!(conditional("resign"), None);
        let Some(Ok((None, tree))) = conditional("if B G8-E6 Y H3-F5 G C2-D3 then C7-D7.") else {
            panic!("a tree");
        };
        assert_eq!(tree, "if B G8-E6 Y H3-F5 G C2-D3 then C7-D7");
        let Some(Ok((Some(mv), tree))) = conditional("c8-d7  IF b g8-e6 then c7-d6") else {
            panic!("a move and a tree");
        };
        assert_eq!(mv, "C8-D7".parse().unwrap());
        assert_eq!(tree, "IF b g8-e6 then c7-d6");
        assert!(matches!(
            conditional("play C8-D7 if B G8-E6 then C7-D7"),
            Some(Err(GrammarError::NotACommand(_)))
        ));
        assert!(matches!(
            conditional("Z9-D7 if B G8-E6 then C7-D7"),
            Some(Err(GrammarError::NotACommand(_)))
        ));
    }

    #[test]
    fn words_and_moves() {
        assert!(matches!(parse("Resign."), Ok(Command::Resign)));
        assert!(matches!(
            parse("  DRAW  offer "),
            Ok(Command::Draw(DrawAction::Offer))
        ));
        assert!(matches!(
            parse("draw-accept"),
            Ok(Command::Draw(DrawAction::Accept))
        ));
        assert!(matches!(
            parse("draw_decline"),
            Ok(Command::Draw(DrawAction::Decline))
        ));
        assert!(matches!(parse("c8-d7"), Ok(Command::Play(_))));
        assert!(matches!(parse("B8xE5/F4>G2"), Ok(Command::Play(_))));
        assert!(parse("draw").is_err());
        assert!(parse("resign now").is_err());
        assert!(parse("hello").is_err());
        assert!(parse(&"a".repeat(65)).is_err());
    }

    #[test]
    fn only_the_first_line_counts() {
        let text = "\n\n  C8-D7  \n> On Monday you wrote:\n> resign\n-- \nMy signature\n";
        assert_eq!(first_line(text), Some("C8-D7"));
        assert_eq!(first_line(" \n\t\n"), None);
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,80}") {
            let _ = parse(&s);
            let _ = first_line(&s);
        }

        #[test]
        fn any_case_of_a_move(from in 0u8..9, to in 0u8..9, r1 in 1u8..10, r2 in 1u8..10, upper: bool) {
            let f = (b'a' + from) as char;
            let t = (b'a' + to) as char;
            let text = format!("{f}{r1}-{t}{r2}");
            let text = if upper { text.to_uppercase() } else { text };
            prop_assert!(matches!(parse(&text), Ok(Command::Play(_))));
        }
    }
}
