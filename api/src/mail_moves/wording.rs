//! The words of the answers to moves by mail: effects, results, refusals, as a person
//! reads them, in the reader's language (`locales/<lang>/mail.ftl`). Pure.

use domain::{Control, Effect, MoveError, Piece, Seat};

use super::grammar::GrammarError;
use crate::games::commands::{Command, DrawAction};
use crate::i18n::{self, Arg, Lang};
use crate::model::events::{GameResult, ResultKind, Status};
use crate::model::game_state::GameState;

/// A seat's colour in the reader's language.
pub fn seat_name(lang: Lang, seat: Seat) -> String {
    i18n::t(lang, &format!("seat-{}", seat.letter()))
}

/// "Red's militant", "Blue's dead reporter".
fn piece(lang: Lang, p: &Piece) -> Arg {
    let id = if p.alive {
        "effect-piece"
    } else {
        "effect-corpse"
    };
    Arg::Text(i18n::tr(
        lang,
        id,
        &[
            ("seat", Arg::Text(seat_name(lang, p.party))),
            (
                "kind",
                Arg::Text(i18n::t(lang, &format!("piece-{}", p.kind.name()))),
            ),
        ],
    ))
}

/// One effect: "Red's militant C7-E9", "kills Blue's reporter on D5".
pub fn effect(lang: Lang, e: &Effect) -> String {
    let sq = |s: &domain::Square| Arg::Text(s.to_string());
    let seat = |s: &Seat| Arg::Text(seat_name(lang, *s));
    match e {
        Effect::Moved { piece: p, from, to } => i18n::tr(
            lang,
            "effect-moved",
            &[
                ("piece", piece(lang, p)),
                ("from", sq(from)),
                ("to", sq(to)),
            ],
        ),
        Effect::Killed { piece: p, square } => i18n::tr(
            lang,
            "effect-killed",
            &[("piece", piece(lang, p)), ("square", sq(square))],
        ),
        Effect::Placed { piece: p, from, to } => i18n::tr(
            lang,
            "effect-placed",
            &[
                ("piece", piece(lang, p)),
                ("from", sq(from)),
                ("to", sq(to)),
            ],
        ),
        Effect::Surrounded { piece: p, square } => i18n::tr(
            lang,
            "effect-surrounded",
            &[("piece", piece(lang, p)), ("square", sq(square))],
        ),
        Effect::ControlChanged { party, to, .. } => match to {
            Control::Seat(s) => i18n::tr(
                lang,
                "effect-control-seat",
                &[("party", seat(party)), ("seat", seat(s))],
            ),
            Control::Hostage => i18n::tr(lang, "effect-control-hostage", &[("party", seat(party))]),
            Control::Orphaned => {
                i18n::tr(lang, "effect-control-orphaned", &[("party", seat(party))])
            }
        },
        Effect::Eliminated { seat: s } => i18n::tr(lang, "effect-eliminated", &[("seat", seat(s))]),
        Effect::Passed { seat: s } => i18n::tr(lang, "effect-passed", &[("seat", seat(s))]),
    }
}

/// The effects of one step on one line: "Red's militant C7-E9, kills Blue's reporter on D5".
pub fn effects(lang: Lang, effects: &[Effect]) -> Option<String> {
    if effects.is_empty() {
        return None;
    }
    let parts: Vec<String> = effects.iter().map(|e| effect(lang, e)).collect();
    Some(i18n::tr(
        lang,
        "move-answer-effects",
        &[("effects", Arg::Text(parts.join(", ")))],
    ))
}

/// A game's result: "Blue wins", "a draw between Red and Green".
pub fn result(lang: Lang, r: &GameResult) -> String {
    let seats = r
        .seats
        .iter()
        .map(|s| seat_name(lang, *s))
        .collect::<Vec<_>>()
        .join(", ");
    let reason = i18n::t(lang, &format!("result-reason-{}", reason_slug(r)));
    let id = match r.kind {
        ResultKind::Win => "result-win",
        ResultKind::Draw => "result-draw",
    };
    i18n::tr(
        lang,
        id,
        &[("seats", Arg::Text(seats)), ("reason", Arg::Text(reason))],
    )
}

fn reason_slug(r: &GameResult) -> String {
    serde_json::to_value(r.reason)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', "-")))
        .unwrap_or_else(|| "other".into())
}

/// A game's status word ("finished", "en attente de joueurs").
pub fn status(lang: Lang, s: Status) -> String {
    i18n::t(
        lang,
        match s {
            Status::Open => "mail-status-open",
            Status::Active => "mail-status-active",
            Status::Finished => "mail-status-finished",
        },
    )
}

/// What is wrong with the first line.
pub fn grammar_error(lang: Lang, e: &GrammarError) -> String {
    match e {
        GrammarError::TooLong => i18n::tr(
            lang,
            "move-answer-too-long",
            &[("max", Arg::from(super::grammar::MAX_LINE))],
        ),
        GrammarError::NotACommand(line) => i18n::tr(
            lang,
            "move-answer-not-a-command",
            &[("line", Arg::from(line))],
        ),
    }
}

/// Why a move is not legal.
pub fn move_error(lang: Lang, e: &MoveError) -> String {
    let sq = |s: &domain::Square| Arg::Text(s.to_string());
    let what = |w: &str| {
        Arg::Text(i18n::t(
            lang,
            &format!("move-error-what-{}", w.replace(' ', "-")),
        ))
    };
    match e {
        MoveError::GameOver => i18n::t(lang, "move-error-game-over"),
        MoveError::EmptySquare(s) => {
            i18n::tr(lang, "move-error-empty-square", &[("square", sq(s))])
        }
        MoveError::NotYourPiece { square, seat } => i18n::tr(
            lang,
            "move-error-not-your-piece",
            &[
                ("square", sq(square)),
                ("seat", Arg::Text(seat_name(lang, *seat))),
            ],
        ),
        MoveError::Unreachable { from, to } => i18n::tr(
            lang,
            "move-error-unreachable",
            &[("from", sq(from)), ("to", sq(to))],
        ),
        MoveError::MissingPlacement { what: w } => {
            i18n::tr(lang, "move-error-missing-placement", &[("what", what(w))])
        }
        MoveError::ForbiddenPlacement { what: w, square } => i18n::tr(
            lang,
            "move-error-forbidden-placement",
            &[("what", what(w)), ("square", sq(square))],
        ),
        MoveError::UnexpectedPlacement => i18n::t(lang, "move-error-unexpected-placement"),
        MoveError::MissingExit => i18n::t(lang, "move-error-missing-exit"),
        MoveError::ForbiddenExit(s) => {
            i18n::tr(lang, "move-error-forbidden-exit", &[("square", sq(s))])
        }
        MoveError::UnexpectedExit => i18n::t(lang, "move-error-unexpected-exit"),
        MoveError::ForbiddenVictim(s) => {
            i18n::tr(lang, "move-error-forbidden-victim", &[("square", sq(s))])
        }
        MoveError::UnexpectedVictim => i18n::t(lang, "move-error-unexpected-victim"),
        MoveError::MissingVictim(s) => {
            i18n::tr(lang, "move-error-missing-victim", &[("square", sq(s))])
        }
    }
}

/// Why a command other than an illegal move was refused, from the state it met (the
/// command layer's own detail is English, for the API).
pub fn refusal(lang: Lang, state: &GameState, command: &Command, seat: Option<Seat>) -> String {
    if state.status == Status::Finished {
        return i18n::t(lang, "move-answer-game-over");
    }
    if let Some(s) = seat
        && !state.game.position().active_seats().contains(s)
    {
        return i18n::t(lang, "move-answer-seat-out");
    }
    match (command, &state.draw_offer) {
        (Command::Draw(DrawAction::Offer), Some(_)) => i18n::t(lang, "move-answer-draw-pending"),
        (Command::Draw(DrawAction::Accept | DrawAction::Decline), None) => {
            i18n::t(lang, "move-answer-no-draw-offer")
        }
        (Command::Draw(DrawAction::Accept), Some(o))
            if seat.is_some_and(|s| o.accepted.contains(s)) =>
        {
            i18n::t(lang, "move-answer-draw-already-accepted")
        }
        (Command::Play(_), _) if state.to_move() != seat => {
            i18n::t(lang, "move-answer-not-your-turn")
        }
        _ => i18n::t(lang, "move-answer-refused"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{Kind, Square};

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn effects_read_as_sentences_in_every_language() {
        let moved = Effect::Moved {
            piece: Piece::living(Seat::Red, Kind::Militant),
            from: sq("C7"),
            to: sq("E9"),
        };
        let killed = Effect::Killed {
            piece: Piece::living(Seat::Blue, Kind::Reporter),
            square: sq("E9"),
        };
        assert_eq!(
            effects(Lang::EN, &[moved, killed]).unwrap(),
            "What happened: Red's militant C7-E9, kills Blue's reporter on E9"
        );
        let all = [
            moved,
            killed,
            Effect::Placed {
                piece: Piece {
                    party: Seat::Blue,
                    kind: Kind::Reporter,
                    alive: false,
                },
                from: sq("E9"),
                to: sq("A1"),
            },
            Effect::Surrounded {
                piece: Piece::living(Seat::Green, Kind::Chief),
                square: sq("I9"),
            },
            Effect::ControlChanged {
                party: Seat::Green,
                from: Control::Seat(Seat::Green),
                to: Control::Seat(Seat::Red),
            },
            Effect::ControlChanged {
                party: Seat::Green,
                from: Control::Seat(Seat::Green),
                to: Control::Hostage,
            },
            Effect::ControlChanged {
                party: Seat::Green,
                from: Control::Seat(Seat::Green),
                to: Control::Orphaned,
            },
            Effect::Eliminated { seat: Seat::Green },
            Effect::Passed { seat: Seat::Yellow },
        ];
        for lang in Lang::all() {
            let text = effects(lang, &all).unwrap();
            for bad in [
                "Piece", "Square(", "{", "Some(", "Seat(", "effect-", "piece-",
            ] {
                assert!(!text.contains(bad), "{lang:?}: {text}");
            }
            assert!(text.contains("C7-E9"), "{text}");
        }
        assert!(
            effects(Lang::FR, &[moved])
                .unwrap()
                .contains("militant Rouge")
        );
        assert!(
            effects(Lang::ES, &[moved])
                .unwrap()
                .contains("militante Rojo")
        );
    }

    #[test]
    fn move_errors_and_grammar_errors_are_in_the_readers_language() {
        let e = MoveError::Unreachable {
            from: sq("A9"),
            to: sq("A1"),
        };
        assert_eq!(
            move_error(Lang::EN, &e),
            "the piece on A9 cannot reach or act on A1"
        );
        let fr = move_error(Lang::FR, &e);
        assert!(fr.contains("A9") && !fr.contains("cannot"), "{fr}");
        let bad = GrammarError::NotACommand("hello".into());
        for lang in Lang::all() {
            let text = grammar_error(lang, &bad);
            assert!(text.contains("hello"), "{text}");
            if lang != Lang::EN {
                assert!(!text.contains("neither"), "{text}");
            }
        }
    }

    #[test]
    fn tries_left_take_the_plural_rules_of_the_language() {
        let tries =
            |lang, n: i64| i18n::tr(lang, "move-answer-tries-left", &[("left", Arg::Number(n))]);
        assert!(
            tries(Lang::FR, 1).contains("1 essai "),
            "{}",
            tries(Lang::FR, 1)
        );
        assert!(
            tries(Lang::FR, 2).contains("2 essais"),
            "{}",
            tries(Lang::FR, 2)
        );
        assert!(
            tries(Lang::ES, 1).contains("queda 1 intento "),
            "{}",
            tries(Lang::ES, 1)
        );
        assert!(tries(Lang::ES, 2).contains("quedan 2 intentos"));
        assert!(
            tries(Lang::EN, 1).contains("1 more try "),
            "{}",
            tries(Lang::EN, 1)
        );
        assert!(tries(Lang::EN, 2).contains("2 more tries"));
    }
}
