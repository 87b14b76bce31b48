//! What a reply may say: its first non-empty line, one of
//!
//! ```text
//! command  = move / "resign" / "draw" sep "offer" / "draw" sep "accept" / "draw" sep "decline"
//! move     = canonical move text, as the API accepts it (any case, "-" or "x"), e.g. C8-D7
//! sep      = one or more of space, tab, "-", "_"
//! ```
//!
//! Surrounding white space and a final `.` or `!` are ignored; nothing else is read.

use domain::Move;

use crate::games::commands::{Command, DrawAction};

/// The longest first line looked at.
pub const MAX_LINE: usize = 64;

/// The first non-empty line of a text.
pub fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// The command of a line, or what is wrong with it.
pub fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim().trim_end_matches(['.', '!']).trim();
    if line.len() > MAX_LINE {
        return Err(format!(
            "the first line is longer than {MAX_LINE} characters"
        ));
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
    line.parse::<Move>().map(Command::Play).map_err(|e| {
        format!("{line:?} is neither a move (like C8-D7) nor resign, draw offer, draw accept, draw decline ({e})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
