//! The `djambi record` and `djambi svg` commands: records written by the library are
//! checked and replayed by the command; pictures are well-formed SVG.

use std::io::Write;
use std::process::{Command, Stdio};

use djambi::{Action, Game, GameSettings, Move, Position, Seat, write_record};

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

struct Output {
    status: i32,
    stdout: String,
    stderr: String,
}

fn djambi(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_djambi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the djambi binary runs");
    child.stdin.take().unwrap().write_all(b"").unwrap();
    let out = child.wait_with_output().unwrap();
    Output {
        status: out.status.code().expect("exited normally"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A file under the target directory's temp folder, unique to this test.
fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("djambi-history-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn record_check_and_replay_commands() {
    let settings = GameSettings::three_players(Seat::Red);
    let (actions, positions) = random_game(settings, 5, 40, 60);
    let text = write_record(settings, &actions, &[("Blue", "bob")]).unwrap();
    let file = temp_file("good.djr", &text);

    let out = djambi(&["record", "check", &file]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let moves = actions
        .iter()
        .filter(|a| matches!(a, Action::Move(_)))
        .count();
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    assert!(
        out.stdout
            .starts_with(&format!("{file}: ok, seats BYG, {moves} moves")),
        "{}",
        out.stdout
    );

    let out = djambi(&["record", "replay", &file]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let rows: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), positions.len());
    for (i, (row, position)) in rows.iter().zip(&positions).enumerate() {
        assert_eq!(row[0], i.to_string());
        assert_eq!(row[2], position.to_string(), "row {i}");
    }
    assert_eq!(rows[0][1], "start");
    assert!(rows[1][1].starts_with("1. B "), "{:?}", rows[1]);

    // An illegal move: status 1, the line named.
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("2. ")).unwrap();
    let bad_line = lines[at]
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
        + " I5-A9";
    lines[at] = &bad_line;
    let bad = temp_file("illegal.djr", &lines.join("\n"));
    let out = djambi(&["record", "check", &bad]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("line {}: ", at + 1)),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("I5-A9 is illegal"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    let out = djambi(&["record", "replay", &bad]);
    assert_eq!(out.status, 1, "{}", out.stderr);

    // Syntax: status 2, the line named.
    let syntax = temp_file("syntax.djr", "[Event \"x\"]\n\n1. R C8-D7\nbonjour\n");
    let out = djambi(&["record", "check", &syntax]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(out.stderr.contains("line 4: "), "{}", out.stderr);

    // No such file, a wrong subcommand: status 2.
    let out = djambi(&["record", "check", "/nonexistent/game.djr"]);
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("cannot read"), "{}", out.stderr);
    assert_eq!(djambi(&["record", "show", &file]).status, 2);
    assert_eq!(djambi(&["record", "check"]).status, 2);
}

#[test]
fn svg_command() {
    let start = Position::default().to_string();
    let out = djambi(&["svg", &start]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    check_svg(&out.stdout, &Position::default(), None);

    let after = Position::default().play(&"C8-D7".parse().unwrap()).unwrap();
    let out = djambi(&["svg", &after.to_string(), "--last", "c8-d7"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    check_svg(&out.stdout, &after, Some(&"C8-D7".parse().unwrap()));
    assert!(out.stdout.contains("last move: to D7"));

    for args in [
        vec!["svg", "not a dfen"],
        vec!["svg", &start, "--last", "C8"],
        vec!["svg", &start, "--width", "3"],
        vec!["svg"],
    ] {
        let out = djambi(&args);
        assert_eq!(out.status, 2, "{args:?}");
        assert!(out.stdout.is_empty() && !out.stderr.is_empty(), "{args:?}");
    }
}
