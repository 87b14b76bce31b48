//! One test (or a few) per rule of RULES.md, on hand-built sparse DFEN positions.
//!
//! Expectations are derived from RULES.md by hand; the reasoning is in the comments.
//! Positions are built with `common::build(&[(square, piece)], turn, parties, ply)`.

mod common;

use common::*;
use djambi::{
    Action, ActionError, Control, Effect, Game, GameSettings, Kind, MoveError, Outcome, Piece,
    Position, ReplayError, ResignError, Seat, SeatSet, Turn,
};

const R: Seat = Seat::Red;
const B: Seat = Seat::Blue;
const Y: Seat = Seat::Yellow;
const G: Seat = Seat::Green;

/// A piece from its DFEN code, e.g. `"BM"` (living) or `"Bm"` (corpse).
fn piece(code: &str) -> Piece {
    let mut chars = code.chars();
    let party = Seat::from_letter(chars.next().unwrap()).unwrap();
    let k = chars.next().unwrap();
    let kind = Kind::from_letter(k.to_ascii_uppercase()).unwrap();
    Piece {
        party,
        kind,
        alive: k.is_ascii_uppercase(),
    }
}

fn seats(letters: &str) -> SeatSet {
    SeatSet::from_letters(letters).unwrap()
}

fn turn_field(p: &Position) -> String {
    p.to_string().split(' ').nth(1).unwrap().to_string()
}

fn parties_field(p: &Position) -> String {
    p.to_string().split(' ').nth(2).unwrap().to_string()
}

fn err(p: &Position, text: &str) -> MoveError {
    match p.play(&mv(text)) {
        Ok(next) => panic!("{text} was accepted in {p}, giving {next}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------------------
// Section 1 and 8: the start, seats in play
// ---------------------------------------------------------------------------------------

#[test]
fn start_position_and_its_thirty_moves() {
    let start = Position::default();
    assert_eq!(start.to_string(), START);
    assert_eq!(start.legal_moves().len(), 30);
    assert_eq!(start.count_legal_moves(), 30);
    assert_eq!(start.to_move(), Some(R));
    assert_eq!(start.turn(), Turn::Regular(R));
    assert_eq!(start.ply(), 0);
    assert_eq!(start.ruler(), None);
    assert_eq!(start.active_seats(), SeatSet::ALL);
    // The layout of section 1, square by square.
    for (party, squares) in [
        (R, ["A9", "B9", "A8", "B8", "C7", "C9", "C8", "A7", "B7"]),
        (B, ["I9", "H9", "I8", "H8", "G7", "G9", "G8", "I7", "H7"]),
        (Y, ["I1", "H1", "I2", "H2", "G3", "G1", "G2", "I3", "H3"]),
        (G, ["A1", "B1", "A2", "B2", "C3", "C1", "C2", "A3", "B3"]),
    ] {
        let kinds = [
            Kind::Chief,
            Kind::Assassin,
            Kind::Reporter,
            Kind::Diplomat,
            Kind::Necromobile,
            Kind::Militant,
            Kind::Militant,
            Kind::Militant,
            Kind::Militant,
        ];
        for (name, kind) in squares.iter().zip(kinds) {
            assert_eq!(
                start.board().get(sq(name)),
                Some(Piece::living(party, kind)),
                "{name}"
            );
        }
    }
    assert_eq!(start.board().pieces().count(), 36);
}

#[test]
fn three_seats_leave_the_empty_seats_party_hostage() {
    let p = Position::start(seats("RBY")).unwrap();
    assert_eq!(parties_field(&p), "RBYh");
    assert_eq!(p.to_move(), Some(R));
    assert_eq!(p.control(G), Control::Hostage);
    // Red's seat empty: Blue moves first.
    let p = Position::start(seats("BYG")).unwrap();
    assert_eq!(parties_field(&p), "hBYG");
    assert_eq!(p.to_move(), Some(B));
    // Hostage pieces never move on their own but are enemies: no seat moves them.
    let p = Position::start(seats("RBG")).unwrap();
    assert_eq!(parties_field(&p), "RBhG");
    assert_eq!(p.to_move(), Some(R));
    // Two seats are not a game.
    assert!(Position::start(seats("RB")).is_err());
}

#[test]
fn three_seat_turns_skip_the_empty_seat() {
    // RBG: Red, Blue, then Green (Yellow's party is hostage).
    let p = Position::start(seats("RBG")).unwrap();
    let p = play(&p, &["C8-D7"]);
    assert_eq!(p.to_move(), Some(B));
    let p = play(&p, &["G8-F7"]);
    assert_eq!(p.to_move(), Some(G));
    let p = play(&p, &["C2-D3"]);
    assert_eq!(p.to_move(), Some(R));
    assert_eq!(p.ply(), 3);
}

// ---------------------------------------------------------------------------------------
// Section 3: movement and blocking
// ---------------------------------------------------------------------------------------

#[test]
fn chief_moves_like_a_queen_and_may_stop_on_the_empty_maze() {
    let p = build(&[("A1", "RC"), ("I9", "BC")], "R", "RBhh", 0);
    // North A2..A9 (8), east B1..I1 (8), north-east B2..H8 (7, the maze E5 included),
    // then the kill on I9 with 79 placements: 79 empty squares + the departure square
    // A1, minus the maze.
    assert_eq!(p.legal_moves().len(), 8 + 8 + 7 + 79);
    assert_eq!(p.count_legal_moves(), 102);
    let list = texts(&p);
    assert!(list.contains(&"A1-E5".to_string()));
    assert!(
        list.contains(&"A1-F6".to_string()),
        "passes over the empty maze"
    );
    assert!(list.contains(&"A1xI9>A1".to_string()));
    assert!(
        !list.contains(&"A1xI9>E5".to_string()),
        "corpse never on the maze"
    );
    assert_eq!(moves_between(&p, "A1", "I9").len(), 79);
}

#[test]
fn militant_moves_one_or_two_squares_and_never_stops_on_the_maze() {
    let p = build(&[("A9", "RC"), ("C3", "RM"), ("I9", "BC")], "R", "RBhh", 0);
    // North-east: D4, then the maze E5, where a militant may not stop (its range ends there).
    assert_eq!(
        texts_from(&p, "C3"),
        [
            "C3-A1", "C3-A3", "C3-A5", "C3-B2", "C3-B3", "C3-B4", "C3-C1", "C3-C2", "C3-C4",
            "C3-C5", "C3-D2", "C3-D3", "C3-D4", "C3-E1", "C3-E3"
        ]
    );
    assert_eq!(
        err(&p, "C3-E5"),
        MoveError::Unreachable {
            from: sq("C3"),
            to: sq("E5")
        }
    );
    assert!(matches!(err(&p, "C3-C6"), MoveError::Unreachable { .. }));
}

#[test]
fn militant_crosses_the_empty_maze_counting_it_as_one_square() {
    let p = build(
        &[("A9", "RC"), ("E4", "RM"), ("E3", "RM"), ("I1", "BC")],
        "R",
        "RBhh",
        0,
    );
    let list = texts_from(&p, "E4");
    // North: E5 is the maze (passed), E6 is the second square.
    assert!(list.contains(&"E4-E6".to_string()));
    assert!(!list.contains(&"E4-E5".to_string()));
    assert!(!list.contains(&"E4-E7".to_string()));
    // From E3 northwards: E4 is taken by a friend, so nothing.
    let list = texts_from(&p, "E3");
    assert!(!list.iter().any(|m| m == "E3-E4" || m == "E3-E5"));
    // Without the E4 militant, E3 reaches E4 but not E6 (the maze is its second square).
    let p = build(&[("A9", "RC"), ("E3", "RM"), ("I1", "BC")], "R", "RBhh", 0);
    let list = texts_from(&p, "E3");
    assert!(list.contains(&"E3-E4".to_string()));
    assert!(
        !list
            .iter()
            .any(|m| m.starts_with("E3-E5") || m.starts_with("E3-E6"))
    );
}

#[test]
fn militant_kills_just_beyond_the_empty_maze() {
    let p = build(
        &[("A9", "RC"), ("D4", "RM"), ("F6", "BM"), ("I1", "BC")],
        "R",
        "RBhh",
        0,
    );
    // 77 empty squares + the departure square D4 - the maze = 77 placements.
    assert_eq!(moves_between(&p, "D4", "F6").len(), 77);
    let (next, effects) = play_effects(&p, "D4xF6>D4");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("D4", "Bm"), ("F6", "RM"), ("I1", "BC")],
            "B",
            "RBhh",
            1
        )
    );
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RM"),
                from: sq("D4"),
                to: sq("F6")
            },
            Effect::Killed {
                piece: piece("BM"),
                square: sq("F6")
            },
            Effect::Placed {
                piece: piece("Bm"),
                from: sq("F6"),
                to: sq("D4")
            },
        ]
    );
    assert!(matches!(
        err(&p, "D4xF6>E5"),
        MoveError::ForbiddenPlacement { square, .. } if square == sq("E5")
    ));
    assert!(matches!(
        err(&p, "D4xF6>I1"),
        MoveError::ForbiddenPlacement { square, .. } if square == sq("I1")
    ));
    assert!(matches!(
        err(&p, "D4xF6"),
        MoveError::MissingPlacement { .. }
    ));
}

#[test]
fn pieces_and_corpses_block_and_nothing_jumps() {
    let p = build(
        &[
            ("A1", "RC"),
            ("A3", "Gm"),
            ("A5", "BM"),
            ("B1", "BM"),
            ("B2", "RM"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        0,
    );
    let list = texts_from(&p, "A1");
    // North: A2, then the corpse on A3 stops the chief (it cannot act on a corpse).
    // East: the enemy on B1 may be killed, nothing beyond it. North-east: a friend.
    // 75 empty squares + A1 - the maze = 75 placements of the B1 corpse.
    assert_eq!(list.len(), 1 + 75);
    assert_eq!(list[0], "A1-A2");
    assert!(list[1..].iter().all(|m| m.starts_with("A1xB1>")));
    for bad in ["A1-A3", "A1-A4", "A1-A5", "A1-C1", "A1-C3", "A1-E5"] {
        assert!(
            matches!(err(&p, bad), MoveError::Unreachable { .. }),
            "{bad}"
        );
    }
    // The militant on B2 cannot jump the corpse on A3 nor end on it.
    assert!(!texts_from(&p, "B2").iter().any(|m| m.contains("A3")));
}

#[test]
fn a_corpse_on_the_maze_blocks_passage_and_only_a_necromobile_acts_on_it() {
    let p = build(
        &[
            ("A9", "RC"),
            ("E5", "Gm"),
            ("E4", "RM"),
            ("C3", "RA"),
            ("C7", "RD"),
            ("I1", "YC"),
            ("I9", "BC"),
        ],
        "R",
        "RBYh",
        0,
    );
    let list = texts(&p);
    assert!(!list.iter().any(|m| m[3..5] == *"E5"), "{list:?}");
    // Nothing passes the corpse: E4 north, C3 north-east, C7 south-east, A9 is blocked
    // by C7 anyway.
    for beyond in ["E4-E6", "C3-F6", "C7-F4"] {
        assert!(!list.contains(&beyond.to_string()), "{beyond}");
    }
    assert!(list.contains(&"C3-D4".to_string()));
    assert!(list.contains(&"C7-D6".to_string()));
    // Yellow's chief on I1 (north-west ray H2, G3, F4, E5) cannot enter.
    let yellow = pos(&p.to_string().replace(" R RBYh", " Y RBYh"));
    let list = texts_from(&yellow, "I1");
    assert!(list.contains(&"I1-F4".to_string()));
    assert!(!list.iter().any(|m| m.starts_with("I1xE5") || m == "I1-D6"));
}

#[test]
fn militant_never_enters_an_occupied_maze() {
    // A ruling chief, then a hostage chief on the maze: neither can be killed by a
    // militant, and the militant cannot pass.
    for (chief, parties) in [("BC", "RBhh"), ("GC", "RBhh")] {
        let p = build(
            &[
                ("A7", "RC"),
                ("E5", chief),
                ("E4", "RM"),
                ("D4", "RM"),
                ("I1", "BM"),
            ],
            "R",
            parties,
            0,
        );
        assert!(matches!(err(&p, "E4xE5>E3"), MoveError::Unreachable { .. }));
        assert!(matches!(err(&p, "D4xE5>E3"), MoveError::Unreachable { .. }));
        assert!(matches!(err(&p, "E4-E6"), MoveError::Unreachable { .. }));
        assert!(matches!(err(&p, "D4-F6"), MoveError::Unreachable { .. }));
        assert!(
            !p.legal_moves()
                .iter()
                .any(|m| m.to == sq("E5") || m.to == sq("E6") || m.to == sq("F6")),
            "{chief}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// The chief
// ---------------------------------------------------------------------------------------

#[test]
fn chief_enters_the_maze_and_its_seat_rules() {
    let p = build(&[("A1", "RC"), ("I8", "BC"), ("I2", "YC")], "R", "RBYh", 0);
    assert_eq!(p.ruler(), None);
    let p = play(&p, &["A1-E5"]);
    assert_eq!(p.ruler(), Some(R));
    // Red moved on its regular turn and rules itself: next regular turn, Blue.
    assert_eq!(
        p.to_string(),
        dfen(&[("E5", "RC"), ("I8", "BC"), ("I2", "YC")], "B", "RBYh", 1)
    );
    let p = play(&p, &["I8-H8"]);
    assert_eq!(p.turn(), Turn::Bonus { seat: R, after: B });
    assert_eq!(turn_field(&p), "R*B");
}

#[test]
fn chief_kills_on_the_maze_and_stays_there() {
    let p = build(&[("A1", "RC"), ("E5", "BC"), ("I2", "YC")], "R", "RBYh", 0);
    let (next, effects) = play_effects(&p, "A1xE5>B1");
    assert_eq!(
        next.to_string(),
        dfen(&[("B1", "Bc"), ("E5", "RC"), ("I2", "YC")], "Y", "RRYh", 1)
    );
    assert_eq!(next.ruler(), Some(R));
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RC"),
                from: sq("A1"),
                to: sq("E5")
            },
            Effect::Killed {
                piece: piece("BC"),
                square: sq("E5")
            },
            Effect::Placed {
                piece: piece("Bc"),
                from: sq("E5"),
                to: sq("B1")
            },
            Effect::ControlChanged {
                party: B,
                from: Control::Seat(B),
                to: Control::Seat(R)
            },
            Effect::Eliminated { seat: B },
        ]
    );
    assert!(matches!(
        err(&p, "A1xE5>E5"),
        MoveError::ForbiddenPlacement { .. }
    ));
}

// ---------------------------------------------------------------------------------------
// The assassin
// ---------------------------------------------------------------------------------------

#[test]
fn assassin_sends_the_corpse_to_its_departure_square() {
    let p = build(
        &[("A9", "RC"), ("B2", "RA"), ("B5", "BM"), ("I9", "BC")],
        "R",
        "RBhh",
        0,
    );
    assert_eq!(moves_between(&p, "B2", "B5").len(), 1);
    let (next, effects) = play_effects(&p, "B2xB5");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("B2", "Bm"), ("B5", "RA"), ("I9", "BC")],
            "B",
            "RBhh",
            1
        )
    );
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RA"),
                from: sq("B2"),
                to: sq("B5")
            },
            Effect::Killed {
                piece: piece("BM"),
                square: sq("B5")
            },
            Effect::Placed {
                piece: piece("Bm"),
                from: sq("B5"),
                to: sq("B2")
            },
        ]
    );
    assert_eq!(err(&p, "B2xB5>B2"), MoveError::UnexpectedPlacement);
    assert_eq!(err(&p, "B2xB5>C2"), MoveError::UnexpectedPlacement);
}

#[test]
fn assassin_exits_the_maze_but_not_through_its_own_victims_corpse() {
    let p = build(
        &[("A9", "RC"), ("B2", "RA"), ("E5", "BC"), ("I1", "YC")],
        "R",
        "RBYh",
        0,
    );
    // Exits from E5 with the corpse already on B2: N 4, NE 4, E 4, SE 3 (I1 taken),
    // S 4, SW 2 (D4, C3; B2 holds the corpse), W 4, NW 3 (A9 taken) = 28.
    let entries = moves_between(&p, "B2", "E5");
    assert_eq!(entries.len(), 28);
    assert!(
        entries
            .iter()
            .all(|m| m.place.is_none() && m.exit.is_some())
    );
    assert_eq!(err(&p, "B2xE5/B2"), MoveError::ForbiddenExit(sq("B2")));
    assert_eq!(err(&p, "B2xE5/A1"), MoveError::ForbiddenExit(sq("A1")));
    assert_eq!(err(&p, "B2xE5/A9"), MoveError::ForbiddenExit(sq("A9")));
    assert_eq!(err(&p, "B2xE5/B3"), MoveError::ForbiddenExit(sq("B3")));
    assert_eq!(err(&p, "B2xE5"), MoveError::MissingExit);
    assert_eq!(err(&p, "B2xE5/C3>D4"), MoveError::UnexpectedPlacement);
    let (next, effects) = play_effects(&p, "B2xE5/C3");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("B2", "Bc"), ("C3", "RA"), ("I1", "YC")],
            "Y",
            "RRYh",
            1
        )
    );
    assert_eq!(next.ruler(), None);
    assert!(effects.contains(&Effect::Killed {
        piece: piece("BC"),
        square: sq("E5")
    }));
    assert!(effects.contains(&Effect::Placed {
        piece: piece("Bc"),
        from: sq("E5"),
        to: sq("B2")
    }));
    assert!(effects.contains(&Effect::Eliminated { seat: B }));
}

// ---------------------------------------------------------------------------------------
// The reporter
// ---------------------------------------------------------------------------------------

#[test]
fn reporter_kill_is_orthogonal_and_optional() {
    let p = build(
        &[("A9", "RC"), ("A4", "RR"), ("D5", "BM"), ("I9", "BC")],
        "R",
        "RBhh",
        0,
    );
    let list = texts_from(&p, "A4");
    // Plain: N A5..A8 (4), NE B5..F9 (5), E B4..I4 (8), SE B3..D1 (3), S A3..A1 (3) = 23.
    // Kills: D5 is orthogonally next to D4 only among reachable squares.
    assert_eq!(list.len(), 24);
    let kills: Vec<&String> = list.iter().filter(|m| m.len() > 5).collect();
    assert_eq!(kills, ["A4-D4xD5"]);
    // Diagonal neighbours are not victims.
    assert_eq!(err(&p, "A4-C4xD5"), MoveError::ForbiddenVictim(sq("D5")));
    assert_eq!(err(&p, "A4-E4xD5"), MoveError::ForbiddenVictim(sq("D5")));
    // Killing is optional: D4 without a kill leaves the militant alive.
    let quiet = play(&p, &["A4-D4"]);
    assert_eq!(quiet.board().get(sq("D5")), Some(piece("BM")));
    // The kill: the corpse stays where it was.
    let (next, effects) = play_effects(&p, "A4-D4xD5");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("D4", "RR"), ("D5", "Bm"), ("I9", "BC")],
            "B",
            "RBhh",
            1
        )
    );
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RR"),
                from: sq("A4"),
                to: sq("D4")
            },
            Effect::Killed {
                piece: piece("BM"),
                square: sq("D5")
            },
        ]
    );
    assert_eq!(err(&p, "A4-D4xD5>A4"), MoveError::UnexpectedPlacement);
}

#[test]
fn reporter_never_stops_on_the_maze_and_kills_nothing_friendly() {
    let p = build(
        &[
            ("A9", "RC"),
            ("E3", "RR"),
            ("F5", "BM"),
            ("D6", "RM"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        0,
    );
    let list = texts_from(&p, "E3");
    // F5 is orthogonally next to F4 and G5, both on the reporter's north-east ray.
    assert!(list.contains(&"E3-F4xF5".to_string()));
    assert!(list.contains(&"E3-G5xF5".to_string()));
    assert!(list.contains(&"E3-E6".to_string()), "passes over the maze");
    assert!(!list.iter().any(|m| m.starts_with("E3-E5")));
    // E6's west neighbour D6 is a friend: never a victim.
    assert_eq!(err(&p, "E3-E6xD6"), MoveError::ForbiddenVictim(sq("D6")));
    // A militant names no victim.
    assert_eq!(err(&p, "D6-D7xD8"), MoveError::UnexpectedVictim);
}

#[test]
fn reporter_kills_the_ruler_on_the_maze_and_the_corpse_blocks_it() {
    let p = build(
        &[("A9", "RC"), ("E2", "RR"), ("E5", "BC"), ("I1", "YC")],
        "R",
        "RBYh",
        0,
    );
    assert_eq!(p.ruler(), Some(B));
    let (next, effects) = play_effects(&p, "E2-E4xE5");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("E4", "RR"), ("E5", "Bc"), ("I1", "YC")],
            "Y",
            "RRYh",
            1
        )
    );
    assert_eq!(next.ruler(), None);
    assert!(effects.contains(&Effect::Eliminated { seat: B }));
    // Nobody may enter the maze now: Yellow's chief stops at F4.
    let list = texts_from(&next, "I1");
    assert!(list.contains(&"I1-F4".to_string()));
    assert!(!list.iter().any(|m| m[3..5] == *"E5" || m[3..5] == *"D6"));
}

#[test]
fn reporter_placed_by_a_diplomat_kills_nothing() {
    let p = build(
        &[
            ("A9", "RC"),
            ("B2", "RD"),
            ("B5", "BR"),
            ("D5", "RM"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        0,
    );
    let (next, effects) = play_effects(&p, "B2xB5>D4");
    assert_eq!(next.board().get(sq("D4")), Some(piece("BR")));
    assert_eq!(next.board().get(sq("D5")), Some(piece("RM")));
    assert_eq!(next.board().get(sq("B5")), Some(piece("RD")));
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RD"),
                from: sq("B2"),
                to: sq("B5")
            },
            Effect::Placed {
                piece: piece("BR"),
                from: sq("B5"),
                to: sq("D4")
            },
        ]
    );
    assert_eq!(next.board().pieces().count(), 5);
    assert_eq!(err(&p, "B2xB5xB4>D4"), MoveError::UnexpectedVictim);
}

// ---------------------------------------------------------------------------------------
// The diplomat
// ---------------------------------------------------------------------------------------

#[test]
fn diplomat_lifts_an_enemy_and_places_it_on_any_empty_square_but_the_maze() {
    let p = build(
        &[("A9", "RC"), ("B2", "RD"), ("B5", "BM"), ("I9", "BC")],
        "R",
        "RBhh",
        0,
    );
    // 77 empty + the departure square - the maze.
    let lifts = moves_between(&p, "B2", "B5");
    assert_eq!(lifts.len(), 77);
    assert!(lifts.iter().any(|m| m.place == Some(sq("B2"))));
    let (next, effects) = play_effects(&p, "B2xB5>B2");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("B2", "BM"), ("B5", "RD"), ("I9", "BC")],
            "B",
            "RBhh",
            1
        )
    );
    assert!(!effects.iter().any(|e| matches!(e, Effect::Killed { .. })));
    assert!(matches!(
        err(&p, "B2xB5>E5"),
        MoveError::ForbiddenPlacement { square, .. } if square == sq("E5")
    ));
    assert!(matches!(
        err(&p, "B2xB5>A9"),
        MoveError::ForbiddenPlacement { square, .. } if square == sq("A9")
    ));
    assert!(matches!(
        err(&p, "B2xB5>B5"),
        MoveError::ForbiddenPlacement { .. }
    ));
    assert!(matches!(
        err(&p, "B2xB5"),
        MoveError::MissingPlacement { .. }
    ));
    // A diplomat never acts on a corpse or a friend.
    let q = build(
        &[
            ("A9", "RC"),
            ("B2", "RD"),
            ("B5", "Bm"),
            ("D2", "RM"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        0,
    );
    assert!(matches!(err(&q, "B2xB5>B2"), MoveError::Unreachable { .. }));
    assert!(matches!(err(&q, "B2xD2>B2"), MoveError::Unreachable { .. }));
}

#[test]
fn diplomat_places_a_rivals_chief_on_the_maze_which_gets_a_bonus_turn_at_once() {
    let p = build(
        &[
            ("A9", "RC"),
            ("B2", "RD"),
            ("B5", "BC"),
            ("H9", "BM"),
            ("I1", "YC"),
        ],
        "R",
        "RBYh",
        0,
    );
    // A lifted chief may go on the empty maze: 76 empty + B2 = 77 placements.
    assert_eq!(moves_between(&p, "B2", "B5").len(), 77);
    let p = play(&p, &["B2xB5>E5"]);
    assert_eq!(p.ruler(), Some(B));
    assert_eq!(p.turn(), Turn::Bonus { seat: B, after: R });
    assert_eq!(p.ply(), 1);
    // Blue's bonus, then Yellow's regular turn (Blue's own regular turn is skipped).
    let p = play(&p, &["H9-H8"]);
    assert_eq!(p.turn(), Turn::Regular(Y));
    let p = play(&p, &["I1-I2"]);
    assert_eq!(turn_field(&p), "B*Y");
}

#[test]
fn diplomat_puts_a_hostage_chief_on_the_maze_where_it_rules_nobody() {
    let p = build(
        &[
            ("A9", "RC"),
            ("B2", "RD"),
            ("B5", "GC"),
            ("I9", "BC"),
            ("I1", "YC"),
        ],
        "R",
        "RBYh",
        0,
    );
    let p = play(&p, &["B2xB5>E5"]);
    assert_eq!(p.board().get(sq("E5")), Some(piece("GC")));
    assert_eq!(p.ruler(), None);
    assert_eq!(p.turn(), Turn::Regular(B), "no bonus turn");
    // Any chief may kill it there; the hostage party passes, nobody is eliminated.
    // 76 empty squares + the departure square I9 (the maze is taken by the chief).
    assert_eq!(moves_between(&p, "I9", "E5").len(), 77);
    let (next, effects) = play_effects(&p, "I9xE5>I9");
    assert_eq!(parties_field(&next), "RBYB");
    assert_eq!(next.ruler(), Some(B));
    assert_eq!(next.active_seats(), seats("RBY"));
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Eliminated { .. }))
    );
    assert!(effects.contains(&Effect::ControlChanged {
        party: G,
        from: Control::Hostage,
        to: Control::Seat(B)
    }));
    // Blue moved on its regular turn and rules: Yellow next.
    assert_eq!(next.turn(), Turn::Regular(Y));
}

#[test]
fn diplomat_lifts_the_ruler_from_the_maze_exits_and_places_it_elsewhere() {
    let p = build(&[("A9", "RC"), ("B2", "RD"), ("E5", "BC")], "R", "RBhh", 0);
    // Exits with B2 open: SW D4 C3 B2 A1 (4), NW D6 C7 B8 (3, A9 taken), 6 other rays
    // of 4 = 31. Placements: 78 empty + B2 = 79, minus the exit square = 78.
    let entries = moves_between(&p, "B2", "E5");
    assert_eq!(entries.len(), 31 * 78);
    assert!(entries.iter().all(|m| m.place != Some(sq("E5"))));
    // The departure square is empty during the exit: pass over it, or stop on it.
    play(&p, &["B2xE5/A1>B2"]);
    play(&p, &["B2xE5/B2>A1"]);
    play(&p, &["B2xE5/F4>C3"]); // placed on a square the exit did not pass: fine too
    assert!(matches!(
        err(&p, "B2xE5/F4>E5"),
        MoveError::ForbiddenPlacement { square, .. } if square == sq("E5")
    ));
    assert!(matches!(
        err(&p, "B2xE5/F4>F4"),
        MoveError::ForbiddenPlacement { square, .. } if square == sq("F4")
    ));
    assert!(matches!(
        err(&p, "B2xE5/F4"),
        MoveError::MissingPlacement { .. }
    ));
    assert_eq!(err(&p, "B2xE5>F4"), MoveError::MissingExit);
    assert_eq!(err(&p, "B2xE5/A9>B2"), MoveError::ForbiddenExit(sq("A9")));
    assert_eq!(err(&p, "B2xE5/B3>B2"), MoveError::ForbiddenExit(sq("B3")));
    let (next, effects) = play_effects(&p, "B2xE5/F4>G2");
    assert_eq!(
        next.to_string(),
        dfen(&[("A9", "RC"), ("F4", "RD"), ("G2", "BC")], "B", "RBhh", 1)
    );
    assert_eq!(next.ruler(), None);
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RD"),
                from: sq("B2"),
                to: sq("F4")
            },
            Effect::Placed {
                piece: piece("BC"),
                from: sq("E5"),
                to: sq("G2")
            },
        ]
    );
}

#[test]
fn diplomat_drops_an_enemy_chief_into_a_pocket_of_corpses() {
    let p = build(
        &[
            ("A9", "RC"),
            ("C3", "RD"),
            ("C5", "BC"),
            ("A2", "Ym"),
            ("B2", "Gm"),
            ("B1", "Rm"),
            ("I1", "YC"),
        ],
        "R",
        "RBYh",
        0,
    );
    let (next, effects) = play_effects(&p, "C3xC5>A1");
    // Blue's chief dies where it stands; nobody rules, so its party is orphaned.
    assert_eq!(
        next.to_string(),
        dfen(
            &[
                ("A9", "RC"),
                ("C5", "RD"),
                ("A1", "Bc"),
                ("A2", "Ym"),
                ("B2", "Gm"),
                ("B1", "Rm"),
                ("I1", "YC"),
            ],
            "Y",
            "RoYh",
            1
        )
    );
    assert!(effects.contains(&Effect::Surrounded {
        piece: piece("BC"),
        square: sq("A1")
    }));
    assert!(effects.contains(&Effect::Eliminated { seat: B }));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Killed { .. })));
}

// ---------------------------------------------------------------------------------------
// The necromobile
// ---------------------------------------------------------------------------------------

#[test]
fn necromobile_moves_corpses_only() {
    let p = build(
        &[
            ("A9", "RC"),
            ("C3", "RN"),
            ("C5", "Bm"),
            ("E3", "BM"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        0,
    );
    // 76 empty + C3 - the maze.
    assert_eq!(moves_between(&p, "C3", "C5").len(), 76);
    assert!(matches!(err(&p, "C3xE3>C3"), MoveError::Unreachable { .. }));
    assert!(matches!(err(&p, "C3-F3"), MoveError::Unreachable { .. }));
    assert!(matches!(
        err(&p, "C3xC5>E5"),
        MoveError::ForbiddenPlacement { .. }
    ));
    let (next, effects) = play_effects(&p, "C3xC5>H2");
    assert_eq!(
        next.to_string(),
        dfen(
            &[
                ("A9", "RC"),
                ("C5", "RN"),
                ("H2", "Bm"),
                ("E3", "BM"),
                ("I9", "BC"),
            ],
            "B",
            "RBhh",
            1
        )
    );
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RN"),
                from: sq("C3"),
                to: sq("C5")
            },
            Effect::Placed {
                piece: piece("Bm"),
                from: sq("C5"),
                to: sq("H2")
            },
        ]
    );
}

#[test]
fn necromobile_clears_the_maze_with_an_exit_and_a_placement() {
    let p = build(
        &[("A9", "RC"), ("C3", "RN"), ("E5", "Bc"), ("I9", "BC")],
        "R",
        "RBhh",
        0,
    );
    // Exits with C3 open: SW D4 C3 B2 A1 (4), NE F6 G7 H8 (3), NW D6 C7 B8 (3),
    // N E S W SE 4 each = 30. Placements: 77 empty + C3 = 78, minus the exit = 77.
    assert_eq!(moves_between(&p, "C3", "E5").len(), 30 * 77);
    assert!(matches!(
        err(&p, "C3xE5/E6>E5"),
        MoveError::ForbiddenPlacement { .. }
    ));
    assert_eq!(err(&p, "C3xE5>A1"), MoveError::MissingExit);
    let (next, effects) = play_effects(&p, "C3xE5/E6>A1");
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("E6", "RN"), ("A1", "Bc"), ("I9", "BC")],
            "B",
            "RBhh",
            1
        )
    );
    assert_eq!(
        effects,
        [
            Effect::Moved {
                piece: piece("RN"),
                from: sq("C3"),
                to: sq("E6")
            },
            Effect::Placed {
                piece: piece("Bc"),
                from: sq("E5"),
                to: sq("A1")
            },
        ]
    );
    // The maze is open again: Blue's chief can reach it.
    assert!(texts_from(&next, "I9").contains(&"I9-E5".to_string()));
}

#[test]
fn an_entry_into_the_maze_without_a_legal_exit_is_illegal() {
    // Every square around the maze is taken; the assassin's departure square receives
    // the corpse, so it has no exit at all.
    let ring = [
        ("D5", "RM"),
        ("D6", "RM"),
        ("E6", "RM"),
        ("F6", "RM"),
        ("F5", "RM"),
        ("F4", "RM"),
        ("E4", "RM"),
    ];
    let mut pieces = vec![("A9", "RC"), ("E5", "BC"), ("D4", "RA")];
    pieces.extend(ring);
    let p = build(&pieces, "R", "RBhh", 0);
    assert!(moves_between(&p, "D4", "E5").is_empty());
    assert!(p.play(&mv("D4xE5/C3")).is_err());
    assert!(p.play(&mv("D4xE5/D4")).is_err());
    // A diplomat there has an exit: its departure square is empty during the exit.
    // Exits D4 C3 B2 A1 (4); placements 71 empty + D4 = 72, minus the exit = 71.
    pieces[2] = ("D4", "RD");
    let p = build(&pieces, "R", "RBhh", 0);
    assert_eq!(moves_between(&p, "D4", "E5").len(), 4 * 71);
    play(&p, &["D4xE5/D4>C3"]);
    play(&p, &["D4xE5/A1>D4"]);
    // The same for a necromobile and a corpse on the maze.
    pieces[1] = ("E5", "Bc");
    pieces[2] = ("D4", "RN");
    let p = build(&pieces, "R", "RBhh", 0);
    assert_eq!(moves_between(&p, "D4", "E5").len(), 4 * 71);
}

// ---------------------------------------------------------------------------------------
// Section 4.1: chief killed
// ---------------------------------------------------------------------------------------

#[test]
fn killing_a_chief_hands_every_party_of_its_seat_to_the_mover() {
    // Blue controls Blue and Yellow (Yellow's chief is dead).
    let p = build(
        &[
            ("A9", "RC"),
            ("H7", "RM"),
            ("I8", "BC"),
            ("I1", "YM"),
            ("I2", "Yc"),
            ("A1", "GC"),
        ],
        "R",
        "RBBG",
        0,
    );
    let (next, effects) = play_effects(&p, "H7xI8>H7");
    assert_eq!(parties_field(&next), "RRRG");
    assert_eq!(next.active_seats(), seats("RG"));
    // Blue and Yellow out: Green is next.
    assert_eq!(next.turn(), Turn::Regular(G));
    assert_eq!(
        effects[3..],
        [
            Effect::ControlChanged {
                party: B,
                from: Control::Seat(B),
                to: Control::Seat(R)
            },
            Effect::ControlChanged {
                party: Y,
                from: Control::Seat(B),
                to: Control::Seat(R)
            },
            Effect::Eliminated { seat: B },
        ]
    );
    // The yellow militant is now Red's to move.
    let red = pos(&next.to_string().replace(" G RRRG", " R RRRG"));
    assert!(!texts_from(&red, "I1").is_empty());
}

#[test]
fn killing_a_hostage_chief_hands_over_its_party_and_eliminates_nobody() {
    let p = build(
        &[
            ("A9", "RC"),
            ("C4", "RM"),
            ("C5", "GC"),
            ("C7", "GM"),
            ("I9", "BC"),
            ("I1", "YC"),
        ],
        "R",
        "RBYh",
        0,
    );
    // Hostage pieces are enemies to everyone, and no seat moves them.
    assert!(texts_from(&p, "C7").is_empty());
    let (next, effects) = play_effects(&p, "C4xC5>C4");
    assert_eq!(parties_field(&next), "RBYR");
    assert_eq!(next.active_seats(), seats("RBY"));
    assert_eq!(next.turn(), Turn::Regular(B));
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::Eliminated { .. }))
    );
    assert_eq!(
        effects.last(),
        Some(&Effect::ControlChanged {
            party: G,
            from: Control::Hostage,
            to: Control::Seat(R)
        })
    );
}

#[test]
fn killing_the_last_rival_chief_wins() {
    let p = build(&[("A9", "RC"), ("I9", "BC")], "R", "RBhh", 0);
    let next = play(&p, &["A9xI9>A9"]);
    assert_eq!(
        next.to_string(),
        dfen(&[("A9", "Bc"), ("I9", "RC")], "-", "RRhh", 1)
    );
    assert_eq!(next.to_move(), None);
    assert!(next.legal_moves().is_empty());
    assert_eq!(next.count_legal_moves(), 0);
    assert_eq!(err(&next, "I9-H9"), MoveError::GameOver);
    assert_eq!(next.resign(R), Err(ResignError::GameOver));
}

#[test]
fn a_move_that_leaves_no_active_seat_is_a_draw_among_them() {
    // Red's chief kills Blue's (the last rival) and places the corpse so as to close the
    // ring around itself: Blue is eliminated by the kill, Red by the surround.
    let p = build(
        &[("C1", "RC"), ("A1", "BC"), ("A2", "Ym"), ("B2", "Gm")],
        "R",
        "RBhh",
        0,
    );
    let (next, effects) = play_effects(&p, "C1xA1>B1");
    assert_eq!(next.to_string(), "9/9/9/9/9/9/9/YmGm7/RcBc7 - oohh 1");
    assert!(next.active_seats().is_empty());
    assert!(effects.contains(&Effect::Eliminated { seat: B }));
    assert!(effects.contains(&Effect::Eliminated { seat: R }));
}

// ---------------------------------------------------------------------------------------
// Section 4.2: surrounded chiefs
// ---------------------------------------------------------------------------------------

/// Red's chief in the A1 corner with corpses on A2 and B2, B1 open; Blue, to move, kills
/// the red militant on H6 and places its corpse on B1.
fn corner(extra: &[(&'static str, &'static str)], parties: &str) -> Position {
    let mut pieces = vec![
        ("A1", "RC"),
        ("A2", "Gm"),
        ("B2", "Ym"),
        ("H5", "BM"),
        ("H6", "RM"),
        ("I9", "BC"),
        ("I1", "YC"),
    ];
    pieces.extend_from_slice(extra);
    build(&pieces, "B", parties, 0)
}

#[test]
fn ring_closed_by_a_corpse_and_the_board_edge() {
    let p = corner(&[], "RBYh");
    let (next, effects) = play_effects(&p, "H5xH6>B1");
    assert_eq!(
        next.to_string(),
        dfen(
            &[
                ("A1", "Rc"),
                ("B1", "Rm"),
                ("A2", "Gm"),
                ("B2", "Ym"),
                ("H6", "BM"),
                ("I9", "BC"),
                ("I1", "YC"),
            ],
            "Y",
            "oBYh",
            1
        )
    );
    assert_eq!(
        effects[3..],
        [
            Effect::Surrounded {
                piece: piece("RC"),
                square: sq("A1")
            },
            Effect::ControlChanged {
                party: R,
                from: Control::Seat(R),
                to: Control::Orphaned
            },
            Effect::Eliminated { seat: R },
        ]
    );
    // Elsewhere the ring stays open.
    let next = play(&p, &["H5xH6>C1"]);
    assert_eq!(parties_field(&next), "RBYh");
}

#[test]
fn a_living_enemy_or_hostage_piece_keeps_the_ring_open() {
    // B1 holds a living Yellow piece (then a hostage Green piece): not a wall.
    for (piece_b1, parties) in [("YM", "RBYh"), ("GM", "RBYh")] {
        let p = corner(&[("B1", piece_b1)], parties);
        let next = play(&p, &["H5xH6>H5"]);
        assert_eq!(parties_field(&next), "RBYh", "{piece_b1}");
        assert!(next.board().get(sq("A1")).unwrap().alive);
    }
}

#[test]
fn the_group_is_every_friendly_piece_connected_to_the_chief() {
    // A red militant on B1 extends the group: its neighbours C1 and C2 matter too.
    let p = corner(&[("B1", "RM"), ("C2", "Bm")], "RBYh");
    let open = play(&p, &["H5xH6>H5"]);
    assert_eq!(parties_field(&open), "RBYh");
    let closed = play(&p, &["H5xH6>C1"]);
    assert_eq!(parties_field(&closed), "oBYh");
    assert_eq!(closed.board().get(sq("A1")), Some(piece("Rc")));
    // The other pieces of the group stay alive (orphaned).
    assert_eq!(closed.board().get(sq("B1")), Some(piece("RM")));
}

#[test]
fn ring_closed_by_orphaned_pieces() {
    // A2 is a living orphaned Green militant: a wall.
    let p = build(
        &[
            ("A1", "RC"),
            ("A2", "GM"),
            ("B2", "Ym"),
            ("H5", "BM"),
            ("H6", "RM"),
            ("I9", "BC"),
            ("I1", "YC"),
        ],
        "B",
        "RBYo",
        0,
    );
    let next = play(&p, &["H5xH6>B1"]);
    assert_eq!(parties_field(&next), "oBYo");
    assert_eq!(next.board().get(sq("A1")), Some(piece("Rc")));
    assert_eq!(next.board().get(sq("A2")), Some(piece("GM")));
}

/// Red's chief on A1 walled by corpses on A2 and B2 and a Blue militant on B1; Blue's
/// chief on I9 walled by corpses on H9 and H8, I8 open. Yellow (to move) kills the green
/// militant on D6 and places the corpse on I8.
fn cascade(extra: &[(&'static str, &'static str)]) -> Position {
    let mut pieces = vec![
        ("A1", "RC"),
        ("A2", "Gm"),
        ("B2", "Gm"),
        ("B1", "BM"),
        ("I9", "BC"),
        ("H9", "Ym"),
        ("H8", "Ym"),
        ("D5", "YM"),
        ("D6", "GM"),
        ("I1", "YC"),
        ("A5", "GC"),
    ];
    pieces.extend_from_slice(extra);
    build(&pieces, "Y", "RBYG", 0)
}

#[test]
fn ring_closed_by_the_death_of_another_chief_cascades() {
    let p = cascade(&[]);
    let (next, effects) = play_effects(&p, "D5xD6>I8");
    // Blue's chief dies first; nobody rules, so Blue's militant on B1 is orphaned, a wall,
    // which closes Red's ring in turn.
    assert_eq!(parties_field(&next), "ooYG");
    assert_eq!(next.board().get(sq("I9")), Some(piece("Bc")));
    assert_eq!(next.board().get(sq("A1")), Some(piece("Rc")));
    assert_eq!(next.board().get(sq("B1")), Some(piece("BM")));
    assert_eq!(next.turn(), Turn::Regular(G));
    let deaths: Vec<Seat> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Surrounded { piece, .. } => Some(piece.party),
            _ => None,
        })
        .collect();
    assert_eq!(deaths, [B, R], "the cause dies before the consequence");
}

#[test]
fn parties_of_a_surrounded_chief_go_to_the_ruler_and_are_no_walls() {
    // As above, with Green's chief ruling on the maze instead of standing on A5: Blue's
    // parties pass to Green, so the militant on B1 is a living Green-controlled piece
    // and Red's ring stays open.
    let p = build(
        &[
            ("A1", "RC"),
            ("A2", "Gm"),
            ("B2", "Gm"),
            ("B1", "BM"),
            ("I9", "BC"),
            ("H9", "Ym"),
            ("H8", "Ym"),
            ("D5", "YM"),
            ("D6", "GM"),
            ("I1", "YC"),
            ("E5", "GC"),
        ],
        "Y",
        "RBYG",
        0,
    );
    let (next, effects) = play_effects(&p, "D5xD6>I8");
    assert_eq!(parties_field(&next), "RGYG");
    assert_eq!(next.board().get(sq("A1")), Some(piece("RC")));
    assert_eq!(next.board().get(sq("I9")), Some(piece("Bc")));
    assert!(effects.contains(&Effect::ControlChanged {
        party: B,
        from: Control::Seat(B),
        to: Control::Seat(G)
    }));
    // Yellow moved on its regular turn and Green rules: Green's bonus.
    assert_eq!(next.turn(), Turn::Bonus { seat: G, after: Y });
}

#[test]
fn surrounded_seat_hands_every_party_it_controls_to_the_ruler() {
    // Yellow rules; Red controls Green's party too (Green's chief is dead).
    let p = build(
        &[
            ("A1", "RC"),
            ("A2", "Gm"),
            ("B2", "Ym"),
            ("H5", "BM"),
            ("H6", "RM"),
            ("I9", "BC"),
            ("E5", "YC"),
            ("C7", "GM"),
            ("G1", "Gc"),
        ],
        "B",
        "RBYR",
        0,
    );
    assert_eq!(p.ruler(), Some(Y));
    let (next, effects) = play_effects(&p, "H5xH6>B1");
    assert_eq!(parties_field(&next), "YBYY");
    assert_eq!(next.active_seats(), seats("BY"));
    assert!(effects.contains(&Effect::ControlChanged {
        party: R,
        from: Control::Seat(R),
        to: Control::Seat(Y)
    }));
    assert!(effects.contains(&Effect::ControlChanged {
        party: G,
        from: Control::Seat(R),
        to: Control::Seat(Y)
    }));
    // Blue moved on a regular turn, Yellow rules: Yellow's bonus.
    assert_eq!(next.turn(), Turn::Bonus { seat: Y, after: B });
}

#[test]
fn a_seat_controlling_a_living_necromobile_of_any_party_is_never_surrounded() {
    // Red controls Green's party, whose necromobile lives on E1.
    let p = corner(&[("E1", "GN"), ("G1", "Gc")], "RBYR");
    let next = play(&p, &["H5xH6>B1"]);
    assert_eq!(parties_field(&next), "RBYR");
    assert_eq!(next.board().get(sq("A1")), Some(piece("RC")));
    // A hostage necromobile protects nobody.
    let p = corner(&[("E1", "GN"), ("G1", "Gc")], "RBYh");
    let next = play(&p, &["H5xH6>B1"]);
    assert_eq!(parties_field(&next), "oBYh");
    // Nor does a dead one.
    let p = corner(&[("E1", "Rn")], "RBYh");
    let next = play(&p, &["H5xH6>B1"]);
    assert_eq!(parties_field(&next), "oBYh");
}

#[test]
fn a_chief_on_the_maze_is_never_surrounded() {
    let p = build(
        &[
            ("E5", "RC"),
            ("D4", "Gm"),
            ("D5", "Gm"),
            ("D6", "Gm"),
            ("E6", "Gm"),
            ("F6", "Gm"),
            ("F5", "Gm"),
            ("E4", "Gm"),
            ("H5", "BM"),
            ("H6", "RM"),
            ("A9", "RM"),
            ("I9", "BC"),
            ("I1", "YC"),
        ],
        "B",
        "RBYh",
        0,
    );
    let next = play(&p, &["H5xH6>F4"]);
    assert_eq!(parties_field(&next), "RBYh");
    assert_eq!(next.ruler(), Some(R));
    assert_eq!(next.turn(), Turn::Bonus { seat: R, after: B });
}

// ---------------------------------------------------------------------------------------
// Sections 2 and 6: orphans
// ---------------------------------------------------------------------------------------

#[test]
fn orphaned_pieces_are_immune_walls_that_never_move() {
    let p = build(
        &[
            ("E7", "GM"),
            ("E9", "RA"),
            ("A7", "RD"),
            ("C8", "RR"),
            ("F7", "RM"),
            ("E2", "RC"),
            ("I9", "BC"),
            ("I1", "YC"),
        ],
        "R",
        "RBYo",
        0,
    );
    let list = texts(&p);
    let e7 = sq("E7");
    assert!(
        !p.legal_moves()
            .iter()
            .any(|m| m.to == e7 || m.victim == Some(e7)),
        "{list:?}"
    );
    // Walls: nothing passes E7.
    for beyond in ["E9-E6", "A7-F7", "A7-G7", "E2-E8", "F7-D7"] {
        assert!(!list.contains(&beyond.to_string()), "{beyond}");
    }
    assert!(list.contains(&"A7-D7".to_string()));
    assert!(list.contains(&"E2-E6".to_string()));
    assert!(list.contains(&"C8-E8".to_string()));
    assert!(matches!(err(&p, "E9xE7"), MoveError::Unreachable { .. }));
    assert!(matches!(err(&p, "A7xE7>A7"), MoveError::Unreachable { .. }));
    assert_eq!(err(&p, "C8-E8xE7"), MoveError::ForbiddenVictim(e7));
    assert_eq!(
        err(&p, "E7-E6"),
        MoveError::NotYourPiece {
            square: e7,
            seat: R
        }
    );
    // Nobody moves them, on any seat's turn.
    for turn in ["B", "Y"] {
        let q = pos(&p.to_string().replace(" R RBYo", &format!(" {turn} RBYo")));
        assert!(texts_from(&q, "E7").is_empty(), "{turn}");
    }
}

#[test]
fn orphans_are_taken_by_a_new_ruler_and_kept_after_it_leaves_the_maze() {
    let p = build(
        &[
            ("A1", "RC"),
            ("A5", "GM"),
            ("I9", "BC"),
            ("H9", "BM"),
            ("I1", "YC"),
            ("H1", "YM"),
        ],
        "R",
        "RBYo",
        0,
    );
    assert!(texts_from(&p, "A5").is_empty());
    let (p, effects) = play_effects(&p, "A1-E5");
    assert_eq!(parties_field(&p), "RBYR");
    assert!(effects.contains(&Effect::ControlChanged {
        party: G,
        from: Control::Orphaned,
        to: Control::Seat(R)
    }));
    assert_eq!(p.turn(), Turn::Regular(B));
    let p = play(&p, &["H9-H8"]);
    assert_eq!(p.turn(), Turn::Bonus { seat: R, after: B });
    // Red's bonus turn: the green militant is Red's now.
    assert!(!texts_from(&p, "A5").is_empty());
    // Red's chief leaves the maze: Green's party stays Red's.
    let p = play(&p, &["E5-E6"]);
    assert_eq!(p.ruler(), None);
    assert_eq!(parties_field(&p), "RBYR");
    assert_eq!(p.turn(), Turn::Regular(Y));
    let p = play(&p, &["H1-H2"]);
    assert_eq!(p.turn(), Turn::Regular(R));
    let p = play(&p, &["A5-A6"]);
    assert_eq!(p.board().get(sq("A6")), Some(piece("GM")));
}

#[test]
fn orphans_are_taken_by_any_chief_entering_the_maze() {
    // Red's party was orphaned earlier; Blue's chief enters the maze and takes it.
    let p = build(
        &[
            ("A1", "Rc"),
            ("A2", "RM"),
            ("I9", "BC"),
            ("I1", "YC"),
            ("H1", "YM"),
        ],
        "B",
        "oBYh",
        3,
    );
    let p = play(&p, &["I9-E5"]);
    assert_eq!(parties_field(&p), "BBYh");
    assert_eq!(p.active_seats(), seats("BY"));
    // Two active seats: nothing is skipped, Yellow is next.
    assert_eq!(p.turn(), Turn::Regular(Y));
}

// ---------------------------------------------------------------------------------------
// Section 5: turn order
// ---------------------------------------------------------------------------------------

#[test]
fn four_seats_the_ruler_plays_after_every_other_seat() {
    // The example of section 5: Green's chief enters the maze on Green's turn.
    let mut p = build(
        &[
            ("A9", "RC"),
            ("I9", "BC"),
            ("I1", "YC"),
            ("A1", "GC"),
            ("C1", "GM"),
        ],
        "G",
        "RBYG",
        0,
    );
    let script = [
        ("A1-E5", "R"),
        ("A9-A8", "G*R"),
        ("C1-D1", "B"),
        ("I9-I8", "G*B"),
        ("D1-C1", "Y"),
        ("I1-I2", "G*Y"),
        ("C1-D1", "R"),
        ("A8-A9", "G*R"),
        ("D1-C1", "B"),
    ];
    for (i, (text, turn)) in script.iter().enumerate() {
        p = play(&p, &[text]);
        assert_eq!(turn_field(&p), *turn, "after {text}");
        assert_eq!(p.ply(), i as u32 + 1);
    }
    assert_eq!(p.turn(), Turn::Regular(B));
}

#[test]
fn four_seats_nobody_plays_twice_in_a_row_when_the_ruler_leaves() {
    // Green's bonus after Yellow: Green leaves the maze. The next regular turn after
    // Yellow's would be Green's, but Green just moved: Red.
    let p = build(
        &[("A9", "RC"), ("I9", "BC"), ("I1", "YC"), ("E5", "GC")],
        "G*Y",
        "RBYG",
        7,
    );
    let p = play(&p, &["E5-E6"]);
    assert_eq!(p.turn(), Turn::Regular(R));
    // Red's bonus after Green: Red leaves the maze; Red's regular turn would be next but
    // Red just moved: Blue.
    let p = build(
        &[("E5", "RC"), ("I9", "BC"), ("I1", "YC"), ("A1", "GC")],
        "R*G",
        "RBYG",
        7,
    );
    let p = play(&p, &["E5-E6"]);
    assert_eq!(p.turn(), Turn::Regular(B));
    // No ruler, a plain regular move: the next seat in order.
    let p = play(&p, &["I9-I8"]);
    assert_eq!(p.turn(), Turn::Regular(Y));
}

#[test]
fn three_seats_bonus_turns() {
    // Green's party is hostage; Blue's chief enters the maze on Blue's turn.
    let mut p = build(
        &[("A9", "RC"), ("I9", "BC"), ("H9", "BM"), ("I1", "YC")],
        "B",
        "RBYh",
        0,
    );
    for (text, turn) in [
        ("I9-E5", "Y"),
        ("I1-I2", "B*Y"),
        ("H9-H8", "R"),
        ("A9-A8", "B*R"),
        ("H8-H9", "Y"),
        ("I2-I1", "B*Y"),
    ] {
        p = play(&p, &[text]);
        assert_eq!(turn_field(&p), turn, "after {text}");
    }
}

#[test]
fn two_seats_the_ruler_plays_twice_in_a_row() {
    let mut p = build(&[("A1", "RC"), ("A9", "RM"), ("H9", "BC")], "R", "RBhh", 0);
    for (text, turn) in [
        ("A1-E5", "B"),
        ("H9-H8", "R*B"),
        ("A9-A8", "R"),
        ("A8-A9", "B"),
        ("H8-H9", "R*B"),
        ("A9-A8", "R"),
    ] {
        p = play(&p, &[text]);
        assert_eq!(turn_field(&p), turn, "after {text}");
    }
}

/// Blue's chief, two militants and necromobile boxed in the I9 corner by orphaned
/// Green militants: Blue has no legal move, and its necromobile saves it from the
/// surround rule.
const BLUE_BOX: [(&str, &str); 9] = [
    ("I9", "BC"),
    ("H9", "BM"),
    ("I8", "BM"),
    ("H8", "BN"),
    ("G9", "GM"),
    ("G8", "GM"),
    ("G7", "GM"),
    ("H7", "GM"),
    ("I7", "GM"),
];

#[test]
fn a_seat_without_a_legal_move_passes_automatically() {
    let mut pieces = BLUE_BOX.to_vec();
    pieces.extend([("A1", "RC"), ("C1", "RM"), ("A9", "YC"), ("C9", "YM")]);
    let p = build(&pieces, "R", "RBYo", 0);
    assert!(!p.has_legal_move(B));
    assert!(p.has_legal_move(R));
    let (p, effects) = play_effects(&p, "C1-D1");
    assert_eq!(p.turn(), Turn::Regular(Y));
    assert_eq!(p.ply(), 1, "passes do not count");
    assert_eq!(effects.last(), Some(&Effect::Passed { seat: B }));
    assert_eq!(p.active_seats(), seats("RBY"), "passing is not elimination");
    let p = play(&p, &["C9-D9"]);
    assert_eq!(p.turn(), Turn::Regular(R));
    let p = play(&p, &["D1-C1"]);
    assert_eq!(p.turn(), Turn::Regular(Y));
    assert_eq!(p.ply(), 3);
}

#[test]
fn a_ruler_without_a_legal_move_passes_its_bonus_turns() {
    // Red's chief rules from a maze walled by corpses and Red has nothing else.
    let p = build(
        &[
            ("E5", "RC"),
            ("D4", "Gm"),
            ("D5", "Gm"),
            ("D6", "Gm"),
            ("E6", "Gm"),
            ("F6", "Gm"),
            ("F5", "Gm"),
            ("F4", "Gm"),
            ("E4", "Gm"),
            ("I9", "BC"),
            ("H9", "BM"),
            ("I1", "YC"),
            ("H1", "YM"),
        ],
        "B",
        "RBYh",
        0,
    );
    let (p, effects) = play_effects(&p, "H9-H8");
    assert_eq!(effects.last(), Some(&Effect::Passed { seat: R }));
    // The pass counts as Red's bonus turn: next regular after Blue, skipping the ruler.
    assert_eq!(p.turn(), Turn::Regular(Y));
    let p = play(&p, &["H1-H2"]);
    assert_eq!(p.turn(), Turn::Regular(B));
    assert_eq!(p.ply(), 2);
}

#[test]
fn when_no_active_seat_can_move_the_game_is_drawn() {
    // Red's militant kills the hostage militant on B2 and leaves the corpse on C3: every
    // red piece is then stuck (walls of orphaned Green militants), and Blue is boxed too.
    let mut pieces = BLUE_BOX.to_vec();
    pieces.extend([
        ("A1", "RC"),
        ("B1", "RN"),
        ("C3", "RM"),
        ("B2", "YM"),
        ("A2", "GM"),
        ("C1", "GM"),
        ("C2", "GM"),
        ("A3", "GM"),
        ("B3", "GM"),
    ]);
    let p = build(&pieces, "R", "RBho", 0);
    let (next, effects) = play_effects(&p, "C3xB2>C3");
    assert!(next.is_over());
    assert_eq!(turn_field(&next), "-");
    assert_eq!(
        next.active_seats(),
        seats("RB"),
        "a draw among the active seats"
    );
    assert_eq!(next.ply(), 1);
    assert!(effects.contains(&Effect::Passed { seat: B }));
    assert!(next.legal_moves().is_empty());
}

// ---------------------------------------------------------------------------------------
// Section 7: resignation, end, ranking
// ---------------------------------------------------------------------------------------

#[test]
fn resignation_of_a_seat_not_to_move() {
    let p = Position::default();
    let next = p.resign(B).unwrap();
    assert_eq!(
        next.to_string(),
        START.replace(" R RBYG 0", " R RhYG 0"),
        "parties hostage, turn and ply unchanged"
    );
    // Blue's pieces are enemies to everyone now and nobody moves them.
    let blue_turn = pos(&next.to_string().replace(" R RhYG", " Y RhYG"));
    assert!(texts_from(&blue_turn, "G8").is_empty());
    assert_eq!(next.resign(B), Err(ResignError::NotActive(B)));
}

#[test]
fn resignation_of_the_seat_to_move_passes_the_turn() {
    let p = Position::default();
    let mut effects = Vec::new();
    let mut next = p.clone();
    next.resign_in_place(R, &mut effects).unwrap();
    assert_eq!(next.to_string(), START.replace(" R RBYG 0", " B hBYG 0"));
    assert!(effects.contains(&Effect::ControlChanged {
        party: R,
        from: Control::Seat(R),
        to: Control::Hostage
    }));
    assert!(effects.contains(&Effect::Eliminated { seat: R }));
}

#[test]
fn a_resigning_ruler_leaves_a_hostage_chief_on_the_maze() {
    let p = build(
        &[("A9", "RC"), ("I9", "BC"), ("I1", "YC"), ("E5", "GC")],
        "G*R",
        "RBYG",
        5,
    );
    let next = p.resign(G).unwrap();
    assert_eq!(
        next.to_string(),
        dfen(
            &[("A9", "RC"), ("I9", "BC"), ("I1", "YC"), ("E5", "GC")],
            "B",
            "RBYh",
            5
        )
    );
    assert_eq!(next.ruler(), None);
    // Blue's chief may now kill the hostage chief on the maze.
    assert!(!moves_between(&next, "I9", "E5").is_empty());
    // The ruler resigning while another seat is to move: that seat keeps its turn.
    let p = build(
        &[("A9", "RC"), ("I9", "BC"), ("I1", "YC"), ("E5", "GC")],
        "Y",
        "RBYG",
        5,
    );
    let next = p.resign(G).unwrap();
    assert_eq!(turn_field(&next), "Y");
    assert_eq!(next.ruler(), None);
    let next = play(&next, &["I1-I2"]);
    assert_eq!(next.turn(), Turn::Regular(R), "no bonus turn any more");
}

#[test]
fn the_last_active_seat_after_a_resignation_wins() {
    let p = build(&[("A9", "RC"), ("I9", "BC")], "R", "RBhh", 4);
    let next = p.resign(B).unwrap();
    assert_eq!(
        next.to_string(),
        dfen(&[("A9", "RC"), ("I9", "BC")], "-", "Rhhh", 4)
    );
    let next = p.resign(R).unwrap();
    assert_eq!(turn_field(&next), "-");
    assert_eq!(next.active_seats(), seats("B"));
    // Not active: Yellow and Green are hostage parties.
    assert_eq!(p.resign(Y), Err(ResignError::NotActive(Y)));
}

#[test]
fn game_ranking_after_resignations() {
    let mut game = Game::new(GameSettings::four_players()).unwrap();
    let step = game.apply(&Action::Resign(B)).unwrap();
    assert_eq!(step.eliminated, seats("B"));
    assert_eq!(step.outcome, None);
    assert_eq!(step.turn, Turn::Regular(R));
    assert_eq!(game.ranking(), None);
    game.apply(&Action::Move(mv("C8-D7"))).unwrap();
    // Blue is out: Yellow after Red.
    assert_eq!(game.position().to_move(), Some(Y));
    game.apply(&Action::Resign(Y)).unwrap();
    assert_eq!(game.position().to_move(), Some(G));
    let step = game.apply(&Action::Resign(R)).unwrap();
    assert_eq!(step.outcome, Some(Outcome::Win(G)));
    assert!(game.is_over());
    assert_eq!(
        game.ranking(),
        Some(vec![seats("G"), seats("R"), seats("Y"), seats("B")])
    );
    assert_eq!(
        game.apply(&Action::Move(mv("C2-D3"))),
        Err(ActionError::GameOver)
    );
    assert_eq!(game.apply(&Action::Resign(G)), Err(ActionError::GameOver));
}

#[test]
fn game_ranking_with_three_seats_ranks_only_seated_players() {
    let (game, steps) = Game::replay(
        GameSettings::three_players(G),
        &[Action::Resign(Y), Action::Resign(B)],
    )
    .unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(game.outcome(), Some(&Outcome::Win(R)));
    assert_eq!(
        game.ranking(),
        Some(vec![seats("R"), seats("B"), seats("Y")])
    );
}

#[test]
fn game_agreed_draw_ranks_the_drawing_seats_first() {
    let (game, _) = Game::replay(
        GameSettings::four_players(),
        &[Action::Resign(Y), Action::AgreedDraw],
    )
    .unwrap();
    assert_eq!(game.outcome(), Some(&Outcome::Draw(seats("RBG"))));
    assert_eq!(game.ranking(), Some(vec![seats("RBG"), seats("Y")]));
    assert!(game.position().is_over());
}

#[test]
fn game_replay_reports_effects_and_the_first_bad_action() {
    let actions = [
        Action::Move(mv("C8-D7")),
        Action::Move(mv("G8-F7")),
        Action::Move(mv("D5-D6")),
        Action::Move(mv("G2-F3")),
    ];
    match Game::replay(GameSettings::four_players(), &actions) {
        Err(ReplayError::Action { index, error }) => {
            assert_eq!(index, 2);
            assert_eq!(error, ActionError::Move(MoveError::EmptySquare(sq("D5"))));
        }
        other => panic!("expected a replay error, got {other:?}"),
    }
    let (game, steps) = Game::replay(GameSettings::four_players(), &actions[..2]).unwrap();
    assert_eq!(
        steps[0].effects,
        [Effect::Moved {
            piece: piece("RM"),
            from: sq("C8"),
            to: sq("D7")
        }]
    );
    assert_eq!(steps[0].turn, Turn::Regular(B));
    assert_eq!(steps[1].turn, Turn::Regular(Y));
    assert_eq!(steps[1].ruler, None);
    assert!(steps[1].eliminated.is_empty());
    assert_eq!(game.position().ply(), 2);
    assert_eq!(
        *game.position(),
        play(&Position::default(), &["C8-D7", "G8-F7"])
    );
    // A resignation of a seat that is not active is a bad action too.
    match Game::replay(
        GameSettings::three_players(G),
        &[Action::Move(mv("C8-D7")), Action::Resign(G)],
    ) {
        Err(ReplayError::Action { index: 1, error }) => {
            assert_eq!(error, ActionError::Resign(ResignError::NotActive(G)))
        }
        other => panic!("expected a replay error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Typed errors and notation
// ---------------------------------------------------------------------------------------

#[test]
fn typed_errors_from_the_start() {
    let p = Position::default();
    assert_eq!(err(&p, "D5-D6"), MoveError::EmptySquare(sq("D5")));
    assert_eq!(
        err(&p, "G8-F7"),
        MoveError::NotYourPiece {
            square: sq("G8"),
            seat: R
        }
    );
    assert_eq!(
        err(&p, "C8-D6"),
        MoveError::Unreachable {
            from: sq("C8"),
            to: sq("D6")
        }
    );
    assert_eq!(
        err(&p, "C8-C8"),
        MoveError::Unreachable {
            from: sq("C8"),
            to: sq("C8")
        }
    );
    assert_eq!(err(&p, "C8-D7>A5"), MoveError::UnexpectedPlacement);
    assert_eq!(err(&p, "C8-D7/E5"), MoveError::UnexpectedExit);
    assert_eq!(err(&p, "C8-D7xD8"), MoveError::UnexpectedVictim);
    // Friendly pieces are never targets.
    assert!(matches!(err(&p, "A9xB9>D5"), MoveError::Unreachable { .. }));
    // A corpse belongs to no one, even of one's own colour.
    let q = build(&[("A9", "RC"), ("C5", "Rm"), ("I9", "BC")], "R", "RBhh", 0);
    assert_eq!(
        err(&q, "C5-C6"),
        MoveError::NotYourPiece {
            square: sq("C5"),
            seat: R
        }
    );
    // Errors leave the position unchanged.
    let mut r = p.clone();
    let mut effects = Vec::new();
    assert!(r.play_in_place(&mv("C8-D6"), &mut effects).is_err());
    assert_eq!(r, p);
    assert!(effects.is_empty());
}

#[test]
fn move_text_is_canonical_and_parsing_is_lenient() {
    let p = Position::default();
    assert_eq!(mv("c8-d7"), mv("C8-D7"));
    assert_eq!(mv("C8xD7"), mv("C8-D7"), "either separator");
    assert_eq!(p.move_text(&mv("c8xd7")).to_string(), "C8-D7");
    // The separator of a kill is x, whatever was typed.
    let q = build(
        &[("A9", "RC"), ("D4", "RM"), ("F6", "BM"), ("I1", "BC")],
        "R",
        "RBhh",
        0,
    );
    assert_eq!(q.move_text(&mv("d4-f6>d4")).to_string(), "D4xF6>D4");
    let next = q.play(&mv("d4-f6>d4")).unwrap();
    assert_eq!(next, play(&q, &["D4xF6>D4"]));
    // The listing is sorted by byte value.
    let list = texts(&q);
    let mut sorted = list.clone();
    sorted.sort();
    assert_eq!(list, sorted);
    assert_eq!(list.len(), q.legal_moves().len());
}

#[test]
fn dfen_rejects_invalid_positions() {
    let bad = [
        // A living non-chief on the maze.
        dfen(&[("E5", "RM"), ("A9", "RC"), ("I9", "BC")], "R", "RBhh", 0),
        // A party controlled by a seat that is not active.
        dfen(&[("A9", "RC"), ("I9", "BC")], "R", "RBhY", 0),
        // The seat to move is not active.
        dfen(&[("A9", "RC"), ("I9", "BC")], "Y", "RBhh", 0),
        // Fewer than two active seats while the game goes on.
        dfen(&[("A9", "RC"), ("I9", "BC")], "R", "Rhhh", 0),
        dfen(&[("A9", "RC"), ("I9", "BC")], "R*B", "Rhhh", 0),
    ];
    for text in bad {
        assert!(text.parse::<Position>().is_err(), "accepted {text}");
    }
    // A corpse or a hostage chief on the maze is fine; so is a finished game with none active.
    for good in [
        dfen(&[("E5", "Rm"), ("A9", "RC"), ("I9", "BC")], "R", "RBhh", 0),
        dfen(
            &[("E5", "GC"), ("A9", "RC"), ("I9", "BC")],
            "B*R",
            "RBhh",
            0,
        ),
        "9/9/9/9/9/9/9/YmGm7/RcBc7 - oohh 1".to_string(),
    ] {
        let p = pos(&good);
        assert_eq!(p.to_string(), good);
    }
}
