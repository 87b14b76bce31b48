//! History: game records out and in (docs/record-format.md) and board pictures. The
//! `djambi record` / `djambi svg` commands are tested in `cli/tests/history.rs`.

use std::fmt::Write as _;

use djambi::{
    Action, Game, GameSettings, Move, Outcome, Position, RecordErrorKind, Seat, SvgOptions,
    board_svg, read_record, write_record,
};
use proptest::prelude::*;

/// A small deterministic generator (xorshift64*), so that a failing seed replays.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// The settings of a game: four seats, or three with each possible empty seat.
fn settings_of(config: u8) -> GameSettings {
    match config % 5 {
        0 => GameSettings::four_players(),
        n => GameSettings::three_players(Seat::ALL[n as usize - 1]),
    }
}

/// A random game: mostly moves, now and then a resignation or a timeout, sometimes ended
/// by an agreed draw. Returns its actions and every position (the start first).
/// About one action in `leave_one_in` is a seat leaving.
fn random_game(
    settings: GameSettings,
    seed: u64,
    max_plies: usize,
    leave_one_in: usize,
) -> (Vec<Action>, Vec<Position>) {
    let mut rng = Rng::new(seed);
    let mut game = Game::new(settings).unwrap();
    let mut actions = Vec::new();
    let mut positions = vec![game.position().clone()];
    let mut plies = 0;
    while plies < max_plies && !game.is_over() {
        let roll = rng.below(leave_one_in);
        let action = if roll < 2 {
            let active: Vec<Seat> = game.position().active_seats().iter().collect();
            let seat = active[rng.below(active.len())];
            if roll == 0 {
                Action::Resign(seat)
            } else {
                Action::Timeout(seat)
            }
        } else {
            let moves = game.position().legal_moves();
            plies += 1;
            Action::Move(moves[rng.below(moves.len())])
        };
        game.apply(&action).unwrap();
        actions.push(action);
        positions.push(game.position().clone());
    }
    if !game.is_over() && seed % 4 == 0 {
        game.apply(&Action::AgreedDraw).unwrap();
        actions.push(Action::AgreedDraw);
        positions.push(game.position().clone());
    }
    (actions, positions)
}

fn headers_for(settings: GameSettings) -> Vec<(String, String)> {
    let mut headers = vec![
        (
            "Event".to_string(),
            "Djambi correspondence game".to_string(),
        ),
        ("Date".into(), "2026.11.30".into()),
        ("Started".into(), "2026-11-30T12:05:00Z".into()),
        ("TimeControl".into(), "259200".into()),
    ];
    for (i, seat) in settings.seats.iter().enumerate() {
        headers.push((seat.name().into(), format!("player {i} \"the {seat}\"")));
        if i == 1 {
            headers.push((format!("{}Type", seat.name()), "bot".into()));
        }
    }
    headers
}

/// The positions of a replay, the start first.
fn positions_of(settings: GameSettings, actions: &[Action]) -> Vec<Position> {
    let mut game = Game::new(settings).unwrap();
    let mut positions = vec![game.position().clone()];
    for action in actions {
        game.apply(action).unwrap();
        positions.push(game.position().clone());
    }
    positions
}

fn check_round_trip(config: u8, seed: u64) -> Result<(), TestCaseError> {
    let settings = settings_of(config);
    let (actions, positions) = random_game(settings, seed, 160, 60);
    let headers = headers_for(settings);
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let text = write_record(settings, &actions, &pairs).unwrap();
    let record = read_record(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(record.settings, settings);
    prop_assert_eq!(&record.actions, &actions);
    prop_assert_eq!(
        positions_of(record.settings, &record.actions),
        positions.clone()
    );
    prop_assert_eq!(record.game.position(), positions.last().unwrap());
    // The headers come back.
    let seats: Vec<Seat> = settings.seats.iter().collect();
    for (i, seat) in seats.iter().enumerate() {
        let name = format!("player {i} 'the {seat}'");
        prop_assert_eq!(record.player(*seat), Some(name.as_str()));
        prop_assert_eq!(record.is_bot(*seat), i == 1);
    }
    prop_assert_eq!(record.time_control(), Some("259200"));
    prop_assert_eq!(record.header("Started"), Some("2026-11-30T12:05:00Z"));
    prop_assert_eq!(
        record.header("Hostage").is_some(),
        settings.seats.len() == 3
    );
    // Each action's line holds what the writer wrote for it.
    let lines: Vec<&str> = text.lines().collect();
    prop_assert_eq!(record.action_lines.len(), actions.len());
    for (action, line) in actions.iter().zip(&record.action_lines) {
        let written = lines[line - 1];
        match action {
            Action::Move(_) => prop_assert!(written.contains(". "), "{}", written),
            Action::Resign(seat) => prop_assert_eq!(written, format!("-- {seat} resigns")),
            Action::Timeout(seat) => prop_assert_eq!(written, format!("-- {seat} timed out")),
            Action::AgreedDraw => prop_assert_eq!(written, "-- draw agreed"),
        }
    }
    // Comments and lower case change nothing.
    let mut annotated = String::new();
    for (i, line) in text.lines().enumerate() {
        if i % 7 == 3 {
            annotated.push_str("; a comment line\n");
        }
        if line.starts_with(|c: char| c.is_ascii_digit()) && i % 3 == 0 {
            let _ = writeln!(
                annotated,
                "  {} {{a note; with a semicolon}} ; and more",
                line.to_lowercase()
            );
        } else {
            let _ = writeln!(annotated, "{line}");
        }
    }
    let again =
        read_record(&annotated).map_err(|e| TestCaseError::fail(format!("{e}\n{annotated}")))?;
    prop_assert_eq!(&again.actions, &actions);
    prop_assert!(!again.comments.is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Write a record, read it back: the same settings, actions, headers and positions at
    /// every ply, with four seats and with three (each empty seat), with resignations,
    /// timeouts and agreed draws.
    #[test]
    fn records_round_trip(config in 0u8..5, seed in any::<u64>()) {
        check_round_trip(config, seed)?;
    }
}

#[test]
fn records_round_trip_with_four_and_three_seats() {
    for seed in 0..12 {
        check_round_trip(0, seed).unwrap();
        check_round_trip(4, seed).unwrap();
    }
}

/// A record of a real game, and its action lines.
fn sample_record(seed: u64) -> (String, Vec<Action>) {
    let settings = GameSettings::four_players();
    let (actions, _) = random_game(settings, seed, 30, 60);
    let text = write_record(settings, &actions, &[("Event", "sample")]).unwrap();
    (text, actions)
}

/// A move text that is illegal in the position.
fn illegal_move_in(position: &Position) -> &'static str {
    ["A5-A6", "I5-I1", "E1-E9", "A1-I9", "B2-B5"]
        .into_iter()
        .find(|text| position.play(&text.parse().unwrap()).is_err())
        .expect("one of them is illegal")
}

#[test]
fn an_illegal_move_is_refused_with_its_line() {
    let (text, actions) = sample_record(7);
    let record = read_record(&text).unwrap();
    let positions = positions_of(record.settings, &actions);
    let moves: Vec<usize> = (0..actions.len())
        .filter(|i| matches!(actions[*i], Action::Move(_)))
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    for index in [moves[0], moves[5], moves[17]] {
        let line = record.action_lines[index];
        let illegal = illegal_move_in(&positions[index]);
        let words: Vec<&str> = lines[line - 1].split_whitespace().collect();
        let mut bad: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        bad[line - 1] = format!("{} {} {illegal}", words[0], words[1]);
        // The rest of the record is left as it was: the reader stops at the first bad line.
        let err = read_record(&bad.join("\n")).unwrap_err();
        assert_eq!(err.line, line, "{err}");
        assert!(err.breaks_rules(), "{err}");
        match &err.kind {
            RecordErrorKind::Illegal { action, why } => {
                assert!(action.ends_with(illegal), "{action}");
                let rules = positions[index]
                    .play(&illegal.parse().unwrap())
                    .unwrap_err()
                    .to_string();
                assert_eq!(why, &rules, "the rules' message");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().starts_with(&format!("line {line}: ")));
    }
}

#[test]
fn wrong_seats_numbers_and_late_actions_name_their_line() {
    let (text, actions) = sample_record(11);
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let line_of = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap();
    // The wrong seat: illegal.
    let first = line_of("1. ");
    let mut bad = lines.clone();
    let words: Vec<&str> = lines[first].split_whitespace().collect();
    let other = if words[1] == "B" { "Y" } else { "B" };
    bad[first] = format!("1. {other} {}", words[2]);
    let err = read_record(&bad.join("\n")).unwrap_err();
    assert_eq!((err.line, err.breaks_rules()), (first + 1, true), "{err}");
    assert!(err.to_string().contains("not the seat to move"), "{err}");
    // A number out of sequence: a syntax error.
    let third = line_of("3. ");
    let mut bad = lines.clone();
    bad[third] = bad[third].replacen("3. ", "4. ", 1);
    let err = read_record(&bad.join("\n")).unwrap_err();
    assert_eq!((err.line, err.breaks_rules()), (third + 1, false), "{err}");
    assert!(err.to_string().contains("move number 4 where 3"), "{err}");
    // An action after the end of the game.
    let mut finished = lines.clone();
    let game = Game::replay(GameSettings::four_players(), &actions)
        .unwrap()
        .0;
    if !game.is_over() {
        finished.push("-- draw agreed".into());
    }
    finished.push("-- R resigns".into());
    let err = read_record(&finished.join("\n")).unwrap_err();
    assert_eq!(err.line, finished.len(), "{err}");
    assert!(err.breaks_rules(), "{err}");
}

#[test]
fn syntax_errors_name_their_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("[Event \"x\"]\n[Seats RBY]\n", 2, "double quotes"),
        (
            "[Event \"x\"]\n\n1. R C8-D7\n2. B G8F7\n",
            4,
            "malformed move",
        ),
        ("1. R C8-D7\n2 B G8-F7\n", 2, "not an action"),
        ("1. R C8-D7\n2. B G8-F7 {unclosed\n", 2, "close with }"),
        ("1. R C8-D7 }\n", 1, "without its {"),
        ("[Event \"a\"]\n[Event \"b\"]\n", 2, "second Event"),
        ("1. R C8-D7\n[Event \"late\"]\n", 2, "before the actions"),
        ("-- Q resigns\n", 1, "unknown seat"),
        ("-- R gives up\n", 1, "not an action"),
        ("[Ruleset \"kw-djambi\"]\n", 1, "unknown ruleset"),
        ("[Seats \"RBYGR\"]\n", 1, "3 or 4"),
        ("[Hostage \"X\"]\n", 1, "one seat letter"),
        ("[Result \"R wins\"]\n", 1, "Result"),
        ("[Red \"a\\q\"]\n", 1, "escapes"),
        ("[Red \"a\"] extra\n", 1, "one header a line"),
    ];
    for (text, line, needle) in cases {
        let err = read_record(text).unwrap_err();
        assert_eq!(err.line, *line, "{text:?}: {err}");
        assert!(!err.breaks_rules(), "{text:?}: {err}");
        assert!(err.to_string().contains(needle), "{text:?}: {err}");
    }
}

#[test]
fn the_result_header_is_checked() {
    let ongoing = "[Event \"x\"]\n[Result \"B\"]\n\n1. R C8-D7\n";
    let err = read_record(ongoing).unwrap_err();
    assert_eq!(err.line, 2);
    assert!(
        matches!(err.kind, RecordErrorKind::ResultMismatch { .. }),
        "{err}"
    );
    let won = "[Seats \"RBY\"]\n[Result \"Y\"]\n-- R resigns\n-- B timed out\n";
    let record = read_record(won).unwrap();
    assert_eq!(record.outcome(), Some(&Outcome::Win(Seat::Yellow)));
    let drawn = "[Result \"draw GBYR\"]\n1. R C8-D7\n-- draw agreed\n";
    assert!(read_record(drawn).is_ok());
    let star = "[Result \"*\"]\n-- draw agreed\n";
    assert!(read_record(star).unwrap_err().breaks_rules());
}

/// The example of docs/record-format.md reads and ends as the doc says.
#[test]
fn the_documented_example_reads() {
    let doc = include_str!("../../docs/record-format.md");
    let example = doc
        .split("## Example")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("an example block");
    let record = read_record(example).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.outcome(), Some(&Outcome::Win(Seat::Red)));
    assert_eq!(record.settings, GameSettings::three_players(Seat::Green));
    assert!(record.is_bot(Seat::Yellow));
    assert_eq!(record.player(Seat::Blue), Some("bob"));
    assert_eq!(
        record.actions[record.actions.len() - 3..],
        [
            Action::Resign(Seat::Blue),
            Action::Move("F3-E4".parse().unwrap()),
            Action::Timeout(Seat::Yellow)
        ]
    );
}

/// Parses the picture as XML and checks its shape against the position.
fn check_svg(svg: &str, position: &Position, last: Option<&Move>) {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    assert!(root.attribute("viewBox").is_some());
    let title = root
        .children()
        .find(|n| n.has_tag_name("title"))
        .and_then(|n| n.text())
        .expect("a title");
    assert!(
        title.contains(&format!("ply {}", position.ply())),
        "{title}"
    );
    let class_count = |class: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .count()
    };
    let pieces = position.board().pieces().filter(|(_, p)| p.alive).count();
    let corpses = position.board().pieces().filter(|(_, p)| !p.alive).count();
    assert_eq!(class_count("piece"), pieces);
    assert_eq!(class_count("corpse"), corpses);
    assert_eq!(class_count("from"), usize::from(last.is_some()));
    let squares = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("squares"))
        .expect("the squares");
    assert_eq!(squares.children().filter(|n| n.is_element()).count(), 81);
    assert!(doc.descendants().any(|n| n.attribute("id") == Some("maze")));
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    for label in ["A", "I", "1", "9"] {
        assert!(texts.contains(&label), "coordinate {label}");
    }
    if position.is_over() {
        assert!(title.contains("Game over"), "{title}");
        let active: Vec<Seat> = position.active_seats().iter().collect();
        if let [winner] = active.as_slice() {
            assert!(
                title.contains(&format!("{} wins", winner.name())),
                "{title}"
            );
        }
    } else {
        let seat = position.to_move().unwrap();
        assert!(
            title.contains(&format!("{} to move", seat.name())),
            "{title}"
        );
    }
}

#[test]
fn every_position_of_random_games_renders_to_well_formed_svg() {
    let mut drawn = 0;
    for seed in 0..16 {
        let settings = settings_of(seed as u8);
        let (actions, positions) = random_game(settings, 1000 + seed, 250, 600);
        for (i, position) in positions.iter().enumerate() {
            let last = match i.checked_sub(1).map(|j| actions[j]) {
                Some(Action::Move(mv)) => Some(mv),
                _ => None,
            };
            let options = SvgOptions {
                width: if i % 2 == 0 { Some(300) } else { None },
                caption: i % 5 != 4,
                ..SvgOptions::default()
            };
            let svg = board_svg(position, last.as_ref(), &options);
            check_svg(&svg, position, last.as_ref());
            assert_eq!(
                svg,
                board_svg(position, last.as_ref(), &options),
                "deterministic"
            );
            drawn += 1;
        }
    }
    assert!(drawn > 400, "{drawn} positions");
}

#[test]
fn a_picture_shows_rulers_bonus_turns_hostages_and_corpses() {
    // Green's chief on the maze, Blue's party hostage, a dead red militant.
    let position: Position = "RC8/9/9/9/4GC4/9/9/2Rm6/BC7YC G*R RhYG 3".parse().unwrap();
    let svg = board_svg(&position, None, &SvgOptions::default());
    check_svg(&svg, &position, None);
    assert!(
        svg.contains("Green to move (bonus turn after Red)"),
        "{svg}"
    );
    assert!(svg.contains("Green rules"), "{svg}");
    assert!(svg.contains("Blue hostage"), "{svg}");
    assert!(svg.contains("Red militant (dead) on C2"), "{svg}");
    assert!(
        svg.contains("stroke-dasharray=\"5 3\""),
        "the hostage chief's rim"
    );
}
