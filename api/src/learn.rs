//! What a newcomer reads and practises: the sections of the rules page (`/rules`) and the
//! lessons (`/learn`), as data over the rules crate. Plain Rust, no HTTP: the pages of
//! `routes/web/learn.rs` render it, their words are the `rules-*` and `lesson-*` messages
//! of `locales/<lang>/pages.ftl`.
//!
//! Each rule section is a position (DFEN) and, most often, a move played on it: its
//! picture is the position after the move, the move's squares highlighted, drawn by the
//! rules crate ([`domain::board_svg`]). Each lesson is a position, the moves that solve
//! its task ([`Answer`]) and what the task asks ([`Goal`]); the page checks the learner's
//! move with the engine (the analysis board's `POST /v1/positions/play`) and against the
//! answer. The tests of this module play every section and every lesson on the rules
//! crate: every move shown is legal, every lesson has a solution and a wrong try, and
//! every legal move its answer accepts does what the task says.

use domain::{Control, Effect, Kind, Move, Position, Seat, Square, SvgOptions};

/// A section of the rules page: its id (`rules-<id>-title`, `rules-<id>-text`), its
/// position and the move its picture shows (none: the position itself).
#[derive(Debug, Clone, Copy)]
pub struct RuleSection {
    pub id: &'static str,
    pub dfen: &'static str,
    pub shown: Option<&'static str>,
}

/// The moves that solve a lesson, field by field of the move text
/// (`from sep to [x victim] [/exit] [>place]`): `""` the part must be absent, `"*"` any
/// square, otherwise the squares allowed, separated by `|`. The separator is not
/// checked (either is accepted, as by the parsers).
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    pub from: &'static str,
    pub to: &'static str,
    pub victim: &'static str,
    pub exit: &'static str,
    pub place: &'static str,
}

/// What a lesson's task asks of the move.
#[derive(Debug, Clone, Copy)]
pub enum Goal {
    /// A piece standing on this square is killed.
    Kill(&'static str),
    /// The mover's chief ends on the maze: the mover rules.
    Rule,
    /// The piece on this square (alive or dead) is lifted and placed elsewhere.
    Lift(&'static str),
    /// The chief on this square dies surrounded.
    Surround(&'static str),
    /// This party passes to the mover.
    Take(Seat),
    /// No move of the next seat ends on this square (the piece there is safe).
    Protect(&'static str),
    /// A piece standing on this square is killed and the mover still rules after it (a
    /// ruler's bonus turn that keeps the maze).
    KillAndRule(&'static str),
}

/// A lesson: its id (`lesson-<id>-title`, `lesson-<id>-task`, `lesson-<id>-hint`,
/// `lesson-<id>-done`), the position, the answer, the goal; `example` is one move that
/// solves it and `wrong` a legal move that does not (for the tests and the browser test).
#[derive(Debug, Clone, Copy)]
pub struct Lesson {
    pub id: &'static str,
    pub dfen: &'static str,
    pub answer: Answer,
    pub goal: Goal,
    pub example: &'static str,
    pub wrong: &'static str,
}

const START: &str = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYG 0";
const MILITANT: &str = "RC7BC/9/9/3BM5/9/3RM5/9/9/GC7YC R RBYG 0";
const RULER: &str = "8BC/9/9/9/9/9/9/4RC4/GC7YC R RBYG 0";
const ASSASSIN: &str = "RC8/9/9/9/1RA3BC3/9/9/9/GC7YC R RBYG 0";
const REPORTER: &str = "RC7BC/9/9/9/3BM5/1RR7/9/9/GC7YC R RBYG 0";
const DIPLOMAT: &str = "RC7BC/9/9/5BM3/9/9/2RD6/9/GC7YC R RBYG 0";
const NECROMOBILE: &str = "RC7BC/9/9/9/9/4Bm4/9/2RN6/GC7YC R RBYG 0";
const CORPSES: &str = "8BC/9/2RM6/2BM6/RC7BA/9/9/9/GC7YC R RBYG 0";
const MAZE_ACT: &str = "RC8/9/9/9/1RA2BC4/9/9/9/GC7YC R RBYG 0";
const SURROUND: &str = "RC6RmBC/8Rm/9/3BM5/9/3RM5/9/9/GC7YC R RBYG 0";
const HOSTAGE: &str = "RC7BC/9/9/9/9/9/RM8/9/GC7YC R RBYh 0";
const MAZE_PASS: &str = "RC7BC/9/9/5BM3/9/3RM5/9/9/GC7YC R RBYG 0";
const CHIEF: &str = "8BC/9/9/9/9/4BM4/9/4RC4/GC7YC R RBYG 0";
const CHIEF_KILLED: &str = "RC7BC/9/6RM2/9/9/9/9/9/GC7YC R RBYG 0";
const ORPHANS: &str = "8Bc/9/6BM2/9/9/9/9/4RC4/GC7YC R RoYG 0";
/// Red's chief takes the maze (`E2-E5`), Blue answers (`G8-G7`): the position of
/// [`TWICE`] (checked by the tests).
#[cfg(test)]
const TWICE_BEFORE: &str = "8BC/6BM2/9/9/9/9/9/4RC1RA2/GC7YC R RBYG 0";
/// Red rules and plays its bonus turn after Blue's (`R*B`), before Yellow.
const TWICE: &str = "8BC/9/6BM2/9/4RC4/9/9/6RA2/GC7YC R*B RBYG 2";
const END: &str = "RC7BC/9/6RM2/9/9/9/9/9/Gc7Yc R RBRR 0";

/// The rules page, in its order: every rule of RULES.md, one idea a section.
pub const RULE_SECTIONS: &[RuleSection] = &[
    RuleSection {
        id: "board",
        dfen: START,
        shown: None,
    },
    RuleSection {
        id: "turns",
        dfen: START,
        shown: Some("C8-D7"),
    },
    RuleSection {
        id: "moving",
        dfen: DIPLOMAT,
        shown: Some("C3-C7"),
    },
    RuleSection {
        id: "militant",
        dfen: MILITANT,
        shown: Some("D4xD6>A5"),
    },
    RuleSection {
        id: "chief",
        dfen: CHIEF,
        shown: Some("E2xE4>A5"),
    },
    RuleSection {
        id: "assassin",
        dfen: ASSASSIN,
        shown: Some("B5xF5"),
    },
    RuleSection {
        id: "reporter",
        dfen: REPORTER,
        shown: Some("B4-D4xD5"),
    },
    RuleSection {
        id: "diplomat",
        dfen: DIPLOMAT,
        shown: Some("C3xF6>H2"),
    },
    RuleSection {
        id: "necromobile",
        dfen: NECROMOBILE,
        shown: Some("C2xE4>G6"),
    },
    RuleSection {
        id: "corpses",
        dfen: CORPSES,
        shown: Some("C7xC6>C5"),
    },
    RuleSection {
        id: "maze",
        dfen: MAZE_PASS,
        shown: Some("D4xF6>A5"),
    },
    RuleSection {
        id: "ruler",
        dfen: RULER,
        shown: Some("E2-E5"),
    },
    RuleSection {
        id: "maze-act",
        dfen: MAZE_ACT,
        shown: Some("B5xE5/E8"),
    },
    RuleSection {
        id: "chief-killed",
        dfen: CHIEF_KILLED,
        shown: Some("G7xI9>A5"),
    },
    RuleSection {
        id: "surround",
        dfen: SURROUND,
        shown: Some("D4xD6>H8"),
    },
    RuleSection {
        id: "orphans",
        dfen: ORPHANS,
        shown: Some("E2-E5"),
    },
    RuleSection {
        id: "hostages",
        dfen: HOSTAGE,
        shown: Some("A3xA1>E3"),
    },
    RuleSection {
        id: "end",
        dfen: END,
        shown: Some("G7xI9>A5"),
    },
    RuleSection {
        id: "notation",
        dfen: REPORTER,
        shown: Some("B4-D4xD5"),
    },
];

const fn answer(
    from: &'static str,
    to: &'static str,
    victim: &'static str,
    exit: &'static str,
    place: &'static str,
) -> Answer {
    Answer {
        from,
        to,
        victim,
        exit,
        place,
    }
}

/// The lessons, in their order: at least one per piece and per special rule.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "militant",
        dfen: MILITANT,
        answer: answer("D4", "D6", "", "", "*"),
        goal: Goal::Kill("D6"),
        example: "D4xD6>A5",
        wrong: "D4-D5",
    },
    Lesson {
        id: "chief",
        dfen: RULER,
        answer: answer("E2", "E5", "", "", ""),
        goal: Goal::Rule,
        example: "E2-E5",
        wrong: "E2-E4",
    },
    Lesson {
        id: "twice",
        dfen: TWICE,
        answer: answer("G2", "G7", "", "", ""),
        goal: Goal::KillAndRule("G7"),
        example: "G2xG7",
        wrong: "E5xG7>A5",
    },
    Lesson {
        id: "assassin",
        dfen: ASSASSIN,
        answer: answer("B5", "F5", "", "", ""),
        goal: Goal::Kill("F5"),
        example: "B5xF5",
        wrong: "B5-D5",
    },
    Lesson {
        id: "reporter",
        dfen: REPORTER,
        answer: answer("B4", "*", "D5", "", ""),
        goal: Goal::Kill("D5"),
        example: "B4-D4xD5",
        wrong: "B4-D4",
    },
    Lesson {
        id: "diplomat",
        dfen: DIPLOMAT,
        answer: answer("C3", "F6", "", "", "*"),
        goal: Goal::Lift("F6"),
        example: "C3xF6>H2",
        wrong: "C3-D4",
    },
    Lesson {
        id: "necromobile",
        dfen: NECROMOBILE,
        answer: answer("C2", "E4", "", "", "*"),
        goal: Goal::Lift("E4"),
        example: "C2xE4>G6",
        wrong: "C2-D3",
    },
    Lesson {
        id: "corpses",
        dfen: CORPSES,
        answer: answer("C7", "C6", "", "", "B5|C5|D5|F5|G5|H5"),
        goal: Goal::Protect("A5"),
        example: "C7xC6>D5",
        wrong: "C7xC6>C7",
    },
    Lesson {
        id: "maze",
        dfen: MAZE_ACT,
        answer: answer("B5", "E5", "", "*", ""),
        goal: Goal::Kill("E5"),
        example: "B5xE5/E8",
        wrong: "B5-D5",
    },
    Lesson {
        id: "surround",
        dfen: SURROUND,
        answer: answer("D4", "D6", "", "", "H8"),
        goal: Goal::Surround("I9"),
        example: "D4xD6>H8",
        wrong: "D4xD6>A5",
    },
    Lesson {
        id: "hostages",
        dfen: HOSTAGE,
        answer: answer("A3", "A1", "", "", "*"),
        goal: Goal::Take(Seat::Green),
        example: "A3xA1>E3",
        wrong: "A3-A2",
    },
];

/// The section of the rules page named `id`.
pub fn section(id: &str) -> Option<&'static RuleSection> {
    RULE_SECTIONS.iter().find(|s| s.id == id)
}

/// The lesson named `id`.
pub fn lesson(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

/// A position of this module (its DFENs are checked by the tests).
fn position(dfen: &str) -> Option<Position> {
    dfen.parse().ok()
}

/// The picture of a rule section: the position after its move, the move highlighted
/// (none: the position as it is).
pub fn section_picture(section: &RuleSection, options: &SvgOptions) -> Option<String> {
    let before = position(section.dfen)?;
    match section.shown {
        None => Some(domain::board_svg(&before, None, options)),
        Some(text) => {
            let mv: Move = text.parse().ok()?;
            let after = before.play(&mv).ok()?;
            Some(domain::board_svg(&after, Some(&mv), options))
        }
    }
}

/// The picture of a lesson's position, before the learner's move.
pub fn lesson_picture(lesson: &Lesson, options: &SvgOptions) -> Option<String> {
    position(lesson.dfen).map(|p| domain::board_svg(&p, None, options))
}

impl Answer {
    /// Whether a move's text (either case, either separator) is one the answer accepts.
    pub fn accepts(&self, text: &str) -> bool {
        let Ok(mv) = text.parse::<Move>() else {
            return false;
        };
        let fits = |rule: &str, square: Option<Square>| match (rule, square) {
            ("", None) => true,
            ("", Some(_)) | (_, None) => false,
            ("*", Some(_)) => true,
            (allowed, Some(sq)) => allowed.split('|').any(|a| a == sq.to_string()),
        };
        fits(self.from, Some(mv.from))
            && fits(self.to, Some(mv.to))
            && fits(self.victim, mv.victim)
            && fits(self.exit, mv.exit)
            && fits(self.place, mv.place)
    }
}

impl Lesson {
    /// Whether `mv`, played on the lesson's position, does what the task says (`None`:
    /// the move is illegal there).
    pub fn achieved_by(&self, mv: &Move) -> Option<bool> {
        let mut after = position(self.dfen)?;
        let mover = after.to_move()?;
        let mut effects: Vec<Effect> = Vec::new();
        after.play_in_place(mv, &mut effects).ok()?;
        let square = |s: &str| s.parse::<Square>().ok();
        Some(match self.goal {
            Goal::Kill(at) => killed(&effects, square(at)),
            Goal::KillAndRule(at) => killed(&effects, square(at)) && after.ruler() == Some(mover),
            Goal::Rule => after.ruler() == Some(mover),
            Goal::Lift(at) => effects.iter().any(|e| match e {
                Effect::Placed { from, .. } => Some(*from) == square(at),
                _ => false,
            }),
            Goal::Surround(at) => effects.iter().any(|e| match e {
                Effect::Surrounded { piece, square: sq } => {
                    Some(*sq) == square(at) && piece.kind == Kind::Chief
                }
                _ => false,
            }),
            Goal::Take(party) => after.control(party) == Control::Seat(mover),
            Goal::Protect(at) => {
                let Some(target) = square(at) else {
                    return Some(false);
                };
                after.board().get(target).is_some_and(|p| p.alive)
                    && after.legal_moves().iter().all(|m| m.to != target)
            }
        })
    }
}

fn killed(effects: &[Effect], at: Option<Square>) -> bool {
    effects.iter().any(|e| match e {
        Effect::Killed { square, .. } => Some(*square) == at,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal_texts(p: &Position) -> Vec<(Move, String)> {
        p.legal_moves()
            .into_iter()
            .map(|m| {
                let text = p.move_text(&m).to_string();
                (m, text)
            })
            .collect()
    }

    #[test]
    fn every_rule_section_shows_a_legal_move_in_a_valid_position() {
        let mut ids = std::collections::HashSet::new();
        for s in RULE_SECTIONS {
            assert!(ids.insert(s.id), "{} twice", s.id);
            let p: Position = s.dfen.parse().unwrap_or_else(|e| panic!("{}: {e}", s.id));
            if let Some(text) = s.shown {
                let legal = legal_texts(&p);
                assert!(
                    legal.iter().any(|(_, t)| t == text),
                    "{}: {text} is not a legal move (canonical) of {}",
                    s.id,
                    s.dfen
                );
            }
            let svg = section_picture(s, &SvgOptions::default()).expect("a picture");
            assert!(svg.starts_with("<svg"), "{}", s.id);
        }
    }

    #[test]
    fn the_pictures_show_what_the_sections_say() {
        let after = |id: &str| {
            let s = section(id).unwrap();
            let p: Position = s.dfen.parse().unwrap();
            p.play(&s.shown.unwrap().parse().unwrap()).unwrap()
        };
        assert_eq!(after("ruler").ruler(), Some(Seat::Red));
        // The ruler takes the orphans.
        assert_eq!(
            after("orphans").control(Seat::Blue),
            Control::Seat(Seat::Red)
        );
        assert_eq!(
            after("chief-killed").control(Seat::Blue),
            Control::Seat(Seat::Red)
        );
        assert!(!after("chief-killed").is_active(Seat::Blue));
        assert!(after("end").is_over());
        assert_eq!(after("surround").control(Seat::Blue), Control::Orphaned);
        assert_eq!(
            after("hostages").control(Seat::Green),
            Control::Seat(Seat::Red)
        );
        // The militant killed beyond the empty maze; the assassin left its victim's corpse
        // on its departure square.
        let maze = after("maze");
        assert!(
            maze.board()
                .get("F6".parse().unwrap())
                .is_some_and(|p| p.alive && p.party == Seat::Red)
        );
        let act = after("maze-act");
        assert!(
            act.board()
                .get("B5".parse().unwrap())
                .is_some_and(|p| !p.alive && p.kind == Kind::Chief)
        );
        assert!(act.board().is_empty(Square::MAZE));
    }

    #[test]
    fn every_lesson_has_a_solution_a_wrong_try_and_only_right_answers() {
        let mut ids = std::collections::HashSet::new();
        for l in LESSONS {
            assert!(ids.insert(l.id), "{} twice", l.id);
            let p: Position = l.dfen.parse().unwrap_or_else(|e| panic!("{}: {e}", l.id));
            let legal = legal_texts(&p);
            let accepted: Vec<&(Move, String)> =
                legal.iter().filter(|(_, t)| l.answer.accepts(t)).collect();
            assert!(!accepted.is_empty(), "{}: no legal move is accepted", l.id);
            // Every legal move the answer accepts does what the task says.
            for (m, t) in &accepted {
                assert_eq!(
                    l.achieved_by(m),
                    Some(true),
                    "{}: {t} is accepted but does not do the task",
                    l.id
                );
            }
            // The example is legal and accepted (canonical text), the wrong try legal and not.
            assert!(
                accepted.iter().any(|(_, t)| t == l.example),
                "{}: the example {} is not an accepted legal move",
                l.id,
                l.example
            );
            let wrong = legal
                .iter()
                .find(|(_, t)| t == l.wrong)
                .unwrap_or_else(|| panic!("{}: the wrong try {} is not legal", l.id, l.wrong));
            assert!(!l.answer.accepts(&wrong.1), "{}", l.id);
            assert_eq!(l.achieved_by(&wrong.0), Some(false), "{}", l.id);
            assert!(lesson_picture(l, &SvgOptions::default()).is_some());
        }
    }

    #[test]
    fn there_is_a_lesson_per_piece_and_per_special_rule() {
        for id in [
            "militant",
            "chief",
            "assassin",
            "reporter",
            "diplomat",
            "necromobile",
            "corpses",
            "twice",
            "maze",
            "surround",
            "hostages",
        ] {
            assert!(lesson(id).is_some(), "{id}");
        }
        // The hostage lesson is a three-seat game: Green's seat is empty.
        let p: Position = lesson("hostages").unwrap().dfen.parse().unwrap();
        assert_eq!(p.control(Seat::Green), Control::Hostage);
        assert_eq!(p.active_seats().len(), 3);
    }

    /// "Take the maze and play twice": the lesson's position is the chief's entry into
    /// the maze and Blue's answer, and it is Red's bonus turn, Yellow's regular turn after.
    #[test]
    fn the_ruler_plays_again_after_each_rival() {
        let mut p: Position = TWICE_BEFORE.parse().unwrap();
        for m in ["E2-E5", "G8-G7"] {
            p = p.play(&m.parse().unwrap()).unwrap();
        }
        assert_eq!(p.to_string(), TWICE);
        assert_eq!(p.ruler(), Some(Seat::Red));
        assert_eq!(p.to_move(), Some(Seat::Red));
        let after = p.play(&"G2xG7".parse().unwrap()).unwrap();
        assert_eq!(after.to_move(), Some(Seat::Yellow));
        assert_eq!(after.ruler(), Some(Seat::Red));
        // The chief kills too, but leaves the maze: no longer the ruler.
        let chief = p.play(&"E5xG7>A5".parse().unwrap()).unwrap();
        assert_eq!(chief.ruler(), None);
    }

    #[test]
    fn answers_match_field_by_field() {
        let a = answer("B4", "*", "D5", "", "");
        assert!(a.accepts("B4-D4xD5"));
        assert!(a.accepts("b4xc5xd5"));
        assert!(!a.accepts("B4-D4"));
        assert!(!a.accepts("B4-D4xD5>A1"));
        assert!(!a.accepts("nonsense"));
        let b = answer("C7", "C6", "", "", "B5|C5");
        assert!(b.accepts("C7xC6>C5"));
        assert!(!b.accepts("C7xC6>D5"));
        assert!(!b.accepts("C7xC6"));
    }
}
