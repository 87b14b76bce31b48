//! The real `djambi` binary, driven as other programs drive it (RULES.md section 9).

// The rules crate's test helpers, shared rather than copied.
#[path = "../../domain/tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{START, build, dfen, pos};
use serde_json::{Value, json};

struct Output {
    status: i32,
    stdout: String,
    stderr: String,
}

fn djambi(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_djambi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the djambi binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Output {
        status: out.status.code().expect("exited normally"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn ok(args: &[&str]) -> String {
    let out = djambi(args, "");
    assert_eq!(out.status, 0, "{args:?}: {}", out.stderr);
    out.stdout
}

/// Runs a failing command and returns its message; checks the status.
fn fails(args: &[&str], status: i32) -> String {
    let out = djambi(args, "");
    assert_eq!(
        out.status, status,
        "{args:?}: {:?} {:?}",
        out.stdout, out.stderr
    );
    assert!(out.stdout.is_empty(), "{args:?} printed {:?}", out.stdout);
    assert!(!out.stderr.trim().is_empty(), "{args:?}: no message");
    out.stderr
}

const START_RBY: &str = "RCRARM3BMBABC/RRRDRM3BMBDBR/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC R RBYh 0";
const AFTER_C8D7: &str = "RCRARM3BMBABC/RRRD4BMBDBR/RMRMRNRM2BNBMBM/9/9/9/GMGMGN3YNYMYM/GRGDGM3YMYDYR/GCGAGM3YMYAYC B RBYG 1";

#[test]
fn start_prints_the_starting_dfen() {
    assert_eq!(ok(&["start"]), format!("{START}\n"));
    assert_eq!(ok(&["start", "--seats", "RBYG"]), format!("{START}\n"));
}

#[test]
fn start_with_three_seats() {
    // Green's seat empty: Green's party hostage, Red first.
    assert_eq!(ok(&["start", "--seats", "RBY"]), format!("{START_RBY}\n"));
    // Yellow's seat empty: Red first, then Blue, then Green.
    let rbg = ok(&["start", "--seats", "RBG"]);
    assert_eq!(rbg, START.replace(" R RBYG 0", " R RBhG 0") + "\n");
    let after = ok(&["play", rbg.trim(), "C8-D7"]);
    assert!(after.trim().ends_with(" B RBhG 1"), "{after}");
    let after = ok(&["play", rbg.trim(), "C8-D7", "G8-F7"]);
    assert!(
        after.trim().ends_with(" G RBhG 2"),
        "Yellow is skipped: {after}"
    );
    // Red's seat empty: Blue moves first.
    assert_eq!(
        ok(&["start", "--seats", "BYG"]),
        START.replace(" R RBYG 0", " B hBYG 0") + "\n"
    );
    // Any order of letters names the same seats.
    assert_eq!(ok(&["start", "--seats", "YBR"]), format!("{START_RBY}\n"));
}

#[test]
fn start_rejects_bad_seats() {
    for seats in ["RB", "R", "", "RBYX", "RRB", "RBYGR"] {
        fails(&["start", "--seats", seats], 2);
    }
    fails(&["start", "--seats"], 2);
    fails(&["start", "--players", "RBY"], 2);
}

#[test]
fn moves_lists_every_complete_move_sorted_by_byte_value() {
    let out = ok(&["moves", START]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "A7-A5", "A7-A6", "A7-B6", "A7-C5", "B7-A6", "B7-B5", "B7-B6", "B7-C6", "B7-D5",
            "C7-A5", "C7-B6", "C7-C4", "C7-C5", "C7-C6", "C7-D6", "C7-D7", "C7-D8", "C7-E7",
            "C7-E9", "C7-F4", "C7-F7", "C8-D7", "C8-D8", "C8-D9", "C8-E6", "C8-E8", "C9-D8",
            "C9-D9", "C9-E7", "C9-E9"
        ]
    );
    assert!(out.ends_with('\n'));
    // A sparse position with kills, placements and reporter victims: `-` sorts before
    // `x`, and the listing is exactly the library's.
    let sparse = dfen(
        &[
            ("A9", "RC"),
            ("A4", "RR"),
            ("D5", "BM"),
            ("C4", "BM"),
            ("I9", "BC"),
        ],
        "R",
        "RBhh",
        0,
    );
    let out = ok(&["moves", &sparse]);
    let lines: Vec<String> = out.lines().map(String::from).collect();
    let mut sorted = lines.clone();
    sorted.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    assert_eq!(lines, sorted);
    assert_eq!(lines, pos(&sparse).legal_move_texts());
    assert!(lines.contains(&"A4-B4xC4".to_string()));
    assert!(lines.contains(&"A9xI9>A9".to_string()));
}

#[test]
fn moves_of_a_finished_game_print_nothing() {
    let over = dfen(&[("I9", "RC"), ("A9", "Bc")], "-", "RRhh", 1);
    let out = djambi(&["moves", &over], "");
    assert_eq!(out.status, 0);
    assert_eq!(out.stdout, "");
}

#[test]
fn play_prints_the_dfen_after_the_moves() {
    assert_eq!(ok(&["play", START, "C8-D7"]), format!("{AFTER_C8D7}\n"));
    // Lower case and either separator are accepted.
    assert_eq!(ok(&["play", START, "c8xd7"]), format!("{AFTER_C8D7}\n"));
    let out = ok(&["play", START, "C8-D7", "G8-F7", "G2-F3"]);
    assert!(out.trim().ends_with(" G RBYG 3"), "{out}");
    // A kill with a placement.
    let p = dfen(
        &[("A9", "RC"), ("D4", "RM"), ("F6", "BM"), ("I1", "BC")],
        "R",
        "RBhh",
        0,
    );
    let expected = dfen(
        &[("A9", "RC"), ("D4", "Bm"), ("F6", "RM"), ("I1", "BC")],
        "B",
        "RBhh",
        1,
    );
    assert_eq!(ok(&["play", &p, "D4xF6>D4"]), format!("{expected}\n"));
}

#[test]
fn play_names_the_first_illegal_move() {
    let msg = fails(&["play", START, "C8-D7", "D5-D6", "C2-D3"], 1);
    assert!(msg.contains("D5-D6"), "{msg}");
    assert!(!msg.contains("C2-D3"), "{msg}");
    let msg = fails(&["play", START, "C8-D6"], 1);
    assert!(msg.contains("C8-D6"), "{msg}");
    // Blue's piece on Red's turn.
    let msg = fails(&["play", START, "G8-F7"], 1);
    assert!(msg.contains("G8-F7"), "{msg}");
    // A move that does not parse is illegal too.
    let msg = fails(&["play", START, "C8-D7", "Z9-Q1", "G8-F7"], 1);
    assert!(msg.contains("Z9-Q1"), "{msg}");
    let msg = fails(&["play", START, "hello"], 1);
    assert!(msg.contains("hello"), "{msg}");
    // Moving after the end of the game.
    let over = dfen(&[("I9", "RC"), ("A9", "Bc")], "-", "RRhh", 1);
    let msg = fails(&["play", &over, "I9-I8"], 1);
    assert!(msg.contains("I9-I8"), "{msg}");
}

#[test]
fn resign_prints_the_dfen_after_the_resignation() {
    assert_eq!(
        ok(&["resign", START, "B"]),
        START.replace(" R RBYG 0", " R RhYG 0") + "\n"
    );
    assert_eq!(
        ok(&["resign", START, "R"]),
        START.replace(" R RBYG 0", " B hBYG 0") + "\n"
    );
    let two = dfen(&[("A9", "RC"), ("I9", "BC")], "R", "RBhh", 6);
    assert_eq!(
        ok(&["resign", &two, "R"]),
        dfen(&[("A9", "RC"), ("I9", "BC")], "-", "hBhh", 6) + "\n"
    );
    // Not a seat: a bad argument.
    fails(&["resign", START, "X"], 2);
    fails(&["resign", START, "RB"], 2);
    // A seat that is not active cannot resign. RULES.md does not say whether this is a
    // refusal (1) or unusable input (2): only a failure with a message is required here.
    let out = djambi(&["resign", START_RBY, "G"], "");
    assert_ne!(out.status, 0);
    assert!(out.stdout.is_empty());
    assert!(!out.stderr.is_empty());
}

#[test]
fn perft_counts_complete_move_sequences() {
    assert_eq!(ok(&["perft", "0"]), "1\n");
    assert_eq!(ok(&["perft", "1"]), "30\n");
    assert_eq!(ok(&["perft", "2"]), "1205\n");
    assert_eq!(ok(&["perft", "3"]), "49206\n");
    assert_eq!(ok(&["perft", "2", START]), "1205\n");
    // A sparse position: 102 moves for the lone red chief (see tests/rules.rs).
    let p = dfen(&[("A1", "RC"), ("I9", "BC")], "R", "RBhh", 0);
    assert_eq!(ok(&["perft", "1", &p]), "102\n");
    fails(&["perft", "x"], 2);
    fails(&["perft", "-1"], 2);
    fails(&["perft"], 2);
    fails(&["perft", "1", "not a dfen"], 2);
}

#[test]
fn batch_answers_each_line_and_reads_on_after_errors() {
    let p = build(&[("A9", "RC"), ("I9", "BC")], "R", "RBhh", 0);
    let requests = [
        json!({"op": "moves", "dfen": START}).to_string(),
        json!({"op": "play", "dfen": START, "moves": ["C8-D7"]}).to_string(),
        "{this is not json".to_string(),
        json!({"op": "play", "dfen": START, "moves": ["C8-D7", "C8-D6"]}).to_string(),
        json!({"op": "resign", "dfen": START, "seat": "B"}).to_string(),
        json!({"op": "moves", "dfen": "RC8/9 R RBhh 0"}).to_string(),
        json!({"op": "dance", "dfen": START}).to_string(),
        json!({"op": "play", "dfen": START, "moves": ["nonsense"]}).to_string(),
        json!({"op": "resign", "dfen": START, "seat": "Q"}).to_string(),
        json!({"op": "moves", "dfen": p.to_string()}).to_string(),
    ];
    let input = requests.join("\n") + "\n";
    let out = djambi(&["batch"], &input);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let answers: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each answer is one JSON line"))
        .collect();
    assert_eq!(answers.len(), requests.len(), "{}", out.stdout);
    assert_eq!(answers[0]["moves"].as_array().unwrap().len(), 30);
    assert_eq!(answers[0]["moves"][0], "A7-A5");
    assert_eq!(answers[1], json!({ "dfen": AFTER_C8D7 }));
    for i in [2, 3, 5, 6, 7, 8] {
        let error = answers[i]["error"].as_str();
        assert!(
            error.is_some_and(|e| !e.is_empty()),
            "line {i}: {}",
            answers[i]
        );
        assert_eq!(answers[i].as_object().unwrap().len(), 1, "line {i}");
    }
    assert!(answers[3]["error"].as_str().unwrap().contains("C8-D6"));
    assert_eq!(
        answers[4],
        json!({ "dfen": START.replace(" R RBYG 0", " R RhYG 0") })
    );
    assert_eq!(
        answers[9]["moves"].as_array().unwrap().len(),
        p.legal_moves().len()
    );
}

#[test]
fn batch_with_empty_input_prints_nothing() {
    let out = djambi(&["batch"], "");
    assert_eq!(out.status, 0);
    assert_eq!(out.stdout, "");
}

#[test]
fn unusable_input_exits_with_status_two_and_says_why() {
    // No arguments, an unknown command, a malformed DFEN, missing arguments.
    fails(&[], 2);
    fails(&["frobnicate"], 2);
    for bad in [
        "",
        "nonsense",
        "9/9/9/9/9/9/9/9 R RBYG 0",
        "RC8/9/9/9/4RM4/9/9/9/BC8 R RBhh 0",
        &START.replace(" 0", " -3"),
        &START.replace(" R ", " X "),
    ] {
        let msg = fails(&["moves", bad], 2);
        assert!(msg.len() > 10, "{bad:?}: {msg}");
        fails(&["play", bad, "C8-D7"], 2);
        fails(&["resign", bad, "R"], 2);
    }
    fails(&["moves"], 2);
    fails(&["moves", START, "extra"], 2);
    fails(&["resign", START], 2);
    fails(&["start", "extra"], 2);
}

#[test]
fn arena_plays_rotated_games_and_prints_statistics() {
    let args = [
        "arena",
        "--players",
        "level1,random,greedy",
        "--games",
        "3",
        "--seed",
        "5",
        "--max-plies",
        "60",
    ];
    let out = ok(&args);
    assert!(out.starts_with("arena: 3 games, 3 seats"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("game ")).count(), 3);
    // Seats rotate: level1 plays Red, then Yellow, then Blue.
    assert!(out.contains("R=level1") && out.contains("Y=level1") && out.contains("B=level1"));
    for player in ["level1", "random", "greedy"] {
        let row = out
            .lines()
            .find(|l| l.starts_with(player) && l.contains('%'))
            .unwrap_or_else(|| panic!("no row for {player}: {out}"));
        assert!(row.contains(" 3 "), "{player} played 3 seat-games: {row}");
    }
    // A seed replays the same games (the timings differ).
    let games = |text: &str| text.lines().take(4).map(String::from).collect::<Vec<_>>();
    assert_eq!(games(&ok(&args)), games(&out));
    fails(&["arena"], 2);
    fails(&["arena", "--players", "random,random"], 2);
    fails(&["arena", "--players", "random,random,nobody"], 2);
    fails(
        &["arena", "--players", "random,random,random", "--games", "x"],
        2,
    );
}

#[test]
fn help_is_printed_on_stdout_with_status_zero() {
    let out = ok(&["arena", "--help"]);
    for flag in ["--players", "--games", "--seed", "--max-plies"] {
        assert!(out.contains(flag), "arena --help lacks {flag}: {out}");
    }
    for command in ["start", "moves", "play", "perft", "batch", "record", "svg"] {
        let out = djambi(&[command, "--help"], "");
        assert_eq!(out.status, 0, "{command} --help: {}", out.stderr);
        assert!(
            out.stdout.contains("Usage: djambi"),
            "{command}: {}",
            out.stdout
        );
    }
    ok(&["record", "check", "--help"]);
    ok(&["help", "perft"]);
}

#[test]
fn top_level_help_lists_the_commands_one_per_line() {
    let out = ok(&["--help"]);
    let lines: Vec<&str> = out.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_end() == "Commands:")
        .unwrap_or_else(|| panic!("no command list: {out}"));
    let names: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "start",
            "moves",
            "play",
            "resign",
            "perft",
            "batch",
            "record",
            "svg",
            "arena",
            "analyse",
            "completions",
            "help"
        ],
        "{out}"
    );
}

#[test]
fn errors_name_the_argument_at_fault() {
    let msg = fails(&["perft", "--frobnicate", "3"], 2);
    assert!(msg.contains("--frobnicate"), "{msg}");
    let msg = fails(
        &["arena", "--players", "random,random,random", "--bogus"],
        2,
    );
    assert!(msg.contains("--bogus"), "{msg}");
    let msg = fails(&["perft", "9"], 2);
    assert!(msg.contains("DEPTH"), "{msg}");
    let msg = fails(&["moves", "nonsense"], 2);
    assert!(msg.contains("DFEN"), "{msg}");
    let msg = fails(&["start", "--seats", "RB"], 2);
    assert!(msg.contains("--seats"), "{msg}");
    let msg = fails(&["arena", "--players", "random,random,nobody"], 2);
    assert!(msg.contains("--players") && msg.contains("nobody"), "{msg}");
    let msg = fails(&["arena", "--players", "random,random"], 2);
    assert!(msg.contains("--players"), "{msg}");
}

#[test]
fn completions_are_generated_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = ok(&["completions", shell]);
        assert!(out.contains("djambi"), "{shell}");
        assert!(
            out.contains("perft"),
            "{shell}: the subcommands are completed"
        );
    }
    let msg = fails(&["completions", "tcsh"], 2);
    assert!(msg.contains("tcsh"), "{msg}");
}

const ROTATIONAL: &str = "RCRARM3BMBRBC/RRRDRM3BMBDBA/RMRMRN3BNBMBM/9/9/9/GMGMGN3YNYMYM/GAGDGM3YMYDYR/GCGRGM3YMYAYC R RBYG 0";
const R1: &str = "RC7BC/9/9/9/RR2RM5/2BM6/9/9/GC7YC R RBYG 0";

#[test]
fn the_ruleset_goes_before_or_right_after_the_command() {
    assert_eq!(
        ok(&["--ruleset", "layout=rotational", "start"]),
        format!("{ROTATIONAL}\n")
    );
    assert_eq!(
        ok(&["start", "--ruleset=layout=rotational", "--seats", "RBY"]),
        ROTATIONAL.replace(" RBYG 0", " RBYh 0") + "\n"
    );
    assert_eq!(
        ok(&[
            "--ruleset",
            "djambi-standard-2026 layout=rotational",
            "perft",
            "2"
        ]),
        "1205\n"
    );
    // R1 of VARIANTS.md: 272 moves by default, 268 with a forced reporter.
    assert_eq!(ok(&["moves", R1]).lines().count(), 272);
    assert_eq!(
        ok(&["--ruleset", "reporter=forced", "moves", R1])
            .lines()
            .count(),
        268
    );
    assert_eq!(
        ok(&["moves", "--ruleset", "reporter=forced", R1])
            .lines()
            .count(),
        268
    );
    let msg = fails(&["play", "--ruleset", "reporter=forced", R1, "A5-C5"], 1);
    assert!(msg.contains("A5-C5"), "{msg}");
    ok(&["play", "--ruleset", "reporter=forced", R1, "A5-C5xC4"]);
    ok(&["play", R1, "A5-C5"]);
    // The default ruleset, written or not, is the same.
    for text in ["", "djambi-standard-2026", "reporter=optional"] {
        assert_eq!(ok(&["--ruleset", text, "moves", R1]), ok(&["moves", R1]));
    }
    assert_eq!(
        ok(&["resign", "--ruleset", "two_seat_bonus=off", START, "B"]),
        ok(&["resign", START, "B"])
    );
}

#[test]
fn a_bad_ruleset_is_unusable_input_naming_the_option() {
    for (text, named) in [
        ("master_moves=yes", "yes"),
        ("bogus=on", "bogus"),
        ("master_moves=on,master_moves=on", "twice"),
        ("master_moves", "master_moves"),
        ("djambi-standard-1999", "djambi-standard-1999"),
        ("Master_Moves=on", "Master_Moves"),
    ] {
        for args in [
            vec!["--ruleset", text, "moves", START],
            vec!["perft", "--ruleset", text, "1"],
            vec!["start", "--ruleset", text],
            vec!["batch", "--ruleset", text],
            vec![
                "arena",
                "--ruleset",
                text,
                "--players",
                "random,random,random",
            ],
        ] {
            let msg = fails(&args, 2);
            assert!(msg.contains("--ruleset"), "{args:?}: {msg}");
            assert!(msg.contains(named), "{args:?}: {msg}");
        }
    }
}

#[test]
fn batch_requests_carry_their_own_ruleset() {
    let requests = [
        json!({"op": "moves", "dfen": R1, "ruleset": {"reporter": "forced"}}),
        json!({"op": "moves", "dfen": R1, "ruleset": "reporter=forced"}),
        json!({"op": "moves", "dfen": R1}),
        json!({"op": "moves", "dfen": R1, "ruleset": null}),
        json!({"op": "moves", "dfen": R1, "ruleset": {}}),
        json!({"op": "moves", "dfen": R1, "ruleset": ""}),
        json!({"op": "moves", "dfen": R1, "ruleset": {"reporter": "sometimes"}}),
        json!({"op": "moves", "dfen": R1, "ruleset": {"reporter": true}}),
        json!({"op": "moves", "dfen": R1, "ruleset": 3}),
        json!({"op": "start", "ruleset": {"layout": "rotational"}}),
        json!({"op": "start", "seats": "RBY", "ruleset": {"layout": "rotational"}}),
        json!({"op": "start", "seats": "RB"}),
        json!({"op": "perft", "dfen": ROTATIONAL, "depth": 3, "ruleset": {"layout": "rotational"}}),
        json!({"op": "perft", "dfen": START, "depth": 99}),
        json!({"op": "play", "dfen": R1, "moves": ["A5-C5"], "ruleset": "reporter=forced"}),
        json!({"op": "resign", "dfen": R1, "seat": "B", "ruleset": {"two_seat_bonus": "off"}}),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let run = |args: &[&str]| -> Vec<Value> {
        let out = djambi(args, &input);
        assert_eq!(out.status, 0, "{}", out.stderr);
        out.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let answers = run(&["batch"]);
    let count = |a: &Value| a["moves"].as_array().map(Vec::len);
    assert_eq!(count(&answers[0]), Some(268));
    assert_eq!(answers[1], answers[0]);
    for (i, answer) in answers.iter().enumerate().take(6).skip(2) {
        assert_eq!(count(answer), Some(272), "request {i}");
    }
    for i in [6, 7, 8, 11, 13, 14] {
        assert!(
            answers[i]["error"].is_string(),
            "request {i}: {}",
            answers[i]
        );
    }
    assert!(answers[6]["error"].as_str().unwrap().contains("sometimes"));
    assert_eq!(answers[9], json!({ "dfen": ROTATIONAL }));
    assert_eq!(
        answers[10],
        json!({ "dfen": ROTATIONAL.replace(" RBYG 0", " RBYh 0") })
    );
    assert_eq!(answers[12], json!({ "count": 49206 }));
    assert!(answers[15]["dfen"].is_string());
    // `--ruleset` is the default of requests without the field, and only of them.
    let forced = run(&["batch", "--ruleset", "reporter=forced"]);
    assert_eq!(count(&forced[2]), Some(268));
    for i in [3, 4, 5] {
        assert_eq!(count(&forced[i]), Some(272), "request {i}");
    }
    assert_eq!(forced[0], answers[0]);
}

#[test]
fn records_replay_under_their_own_ruleset() {
    use djambi::{Action, GameSettings, Ruleset, SeatSet, write_record};
    let ruleset: Ruleset = "layout=rotational,friendly_fire=own_non_chief"
        .parse()
        .unwrap();
    let settings = GameSettings {
        seats: SeatSet::ALL,
        ruleset,
    };
    // A friendly kill from the rotational start: legal only under this ruleset.
    let actions: Vec<Action> = ["C8xB8>E4", "G8-F7"]
        .iter()
        .map(|m| Action::Move(m.parse().unwrap()))
        .collect();
    let text = write_record(settings, &actions, &[]).unwrap();
    assert!(text.contains(
        "[Ruleset \"djambi-standard-2026 friendly_fire=own_non_chief,layout=rotational\"]"
    ));
    let dir = std::env::temp_dir().join(format!("djambi-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("variant.djr");
    std::fs::write(&file, &text).unwrap();
    let file = file.to_str().unwrap();
    let out = ok(&["record", "check", file]);
    assert!(
        out.trim_end().ends_with(
            "2 moves, 0 other actions, in progress, ruleset djambi-standard-2026 friendly_fire=own_non_chief,layout=rotational"
        ),
        "{out}"
    );
    let replay = ok(&["record", "replay", file]);
    assert!(
        replay.starts_with(&format!("0\tstart\t{ROTATIONAL}\n")),
        "{replay}"
    );
    assert_eq!(replay.lines().count(), 3);
    // The same ruleset given again is fine; another one is refused.
    ok(&[
        "--ruleset",
        "friendly_fire=own_non_chief,layout=rotational",
        "record",
        "check",
        file,
    ]);
    let msg = fails(
        &["--ruleset", "layout=rotational", "record", "check", file],
        2,
    );
    assert!(msg.contains("--ruleset"), "{msg}");
    // Without its header the record is replayed under the default rules: illegal.
    let bare = dir.join("bare.djr");
    std::fs::write(
        &bare,
        text.lines()
            .filter(|l| !l.starts_with("[Ruleset"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let msg = fails(&["record", "check", bare.to_str().unwrap()], 1);
    assert!(msg.contains("C8xB8>E4"), "{msg}");
    let unknown = dir.join("unknown.djr");
    std::fs::write(
        &unknown,
        text.replace("layout=rotational", "layout=hexagonal"),
    )
    .unwrap();
    let msg = fails(&["record", "check", unknown.to_str().unwrap()], 2);
    assert!(msg.contains("hexagonal"), "{msg}");
}

#[test]
fn the_arena_plays_under_a_ruleset() {
    let args = [
        "--ruleset",
        "master_moves=on,reporter=forced",
        "arena",
        "--players",
        "level1,random,greedy",
        "--games",
        "3",
        "--seed",
        "11",
        "--max-plies",
        "80",
    ];
    let out = ok(&args);
    assert!(
        out.starts_with(
            "arena: 3 games, 3 seats, players level1,random,greedy, seed 11, max plies 80, ruleset djambi-standard-2026 master_moves=on,reporter=forced"
        ),
        "{out}"
    );
    assert_eq!(out.lines().filter(|l| l.starts_with("game ")).count(), 3);
    let games = |text: &str| text.lines().take(4).map(String::from).collect::<Vec<_>>();
    assert_eq!(games(&ok(&args)), games(&out));
    // Two other options, and the rotational layout, with four players.
    let out = ok(&[
        "arena",
        "--ruleset",
        "friendly_fire=own_non_chief,layout=rotational",
        "--players",
        "random,greedy,random,level1",
        "--games",
        "2",
        "--max-plies",
        "60",
    ]);
    assert!(
        out.contains("ruleset djambi-standard-2026 friendly_fire=own_non_chief,layout=rotational"),
        "{out}"
    );
}
