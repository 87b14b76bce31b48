//! Property tests of the `djambi` command: arbitrary arguments and `batch` lines never
//! panic, and every answer has the documented shape.

// The rules crate's test helpers, shared rather than copied.
#[path = "../../domain/tests/common/mod.rs"]
mod common;

use common::START;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Words the `djambi` command fuzzing builds its arguments from.
fn arg_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "start",
            "moves",
            "play",
            "resign",
            "perft",
            "batch",
            "--seats",
            "RBY",
            "RBYG",
            "RB",
            "RRB",
            "BYG",
            "R",
            "b",
            "Q",
            "",
            "0",
            "1",
            "2",
            "-1",
            "x",
            "99",
            "C8-D7",
            "c8xd7",
            "C8-D6",
            "G8-F7",
            "zz",
            START,
            "--ruleset",
            "master_moves=on",
            "layout=rotational",
            "reporter=forced,friendly_fire=own_non_chief",
            "bogus=1",
            "--help",
            "completions",
        ])
        .prop_map(String::from),
        "\\PC{0,20}".prop_map(|s| s.replace(|c: char| c.is_ascii_digit(), "")),
        "[RBYGCADNMrbygcadnm1-9/ ]{0,40}",
    ]
}

fn batch_line_strategy() -> impl Strategy<Value = String> {
    let dfen = prop_oneof![
        Just(START.to_string()),
        Just("RC8/9/9/9/9/9/9/9/BC8 R RBhh 0".to_string()),
        Just("RC8/9/9/9/9/9/9/9/BC8 - RBhh 0".to_string()),
        "[RBYGCADNMrbygcadnm1-9/ ]{0,40}",
    ];
    let op = prop::sample::select(vec!["moves", "play", "resign", "bogus", ""]);
    let moves = prop::collection::vec(
        prop::sample::select(vec!["C8-D7", "G8-F7", "A9-A8", "x", "", "C8xD6>A5"]),
        0..4,
    );
    let seat = prop::sample::select(vec!["R", "B", "y", "G", "Q", "RB", ""]);
    prop_oneof![
        (op, dfen, moves, seat).prop_map(|(op, dfen, moves, seat)| {
            serde_json::json!({ "op": op, "dfen": dfen, "moves": moves, "seat": seat }).to_string()
        }),
        "[^\\n\\r]{0,60}",
        Just("{\"op\":\"play\",\"dfen\":1,\"moves\":[1]}".to_string()),
        Just("{\"op\":\"play\",\"moves\":[\"C8-D7\"]}".to_string()),
        Just("[1,2]".to_string()),
        Just("null".to_string()),
    ]
}

proptest! {
    #![proptest_config(Config { cases: 400, ..Config::default() })]

    /// The command never panics on arbitrary arguments, and its status is 0, 1 or 2.
    #[test]
    fn cli_never_panics_on_arbitrary_args(args in prop::collection::vec(arg_strategy(), 0..5)) {
        let mut args = args;
        if args.first().map(String::as_str) == Some("batch") {
            args.truncate(1);
            args.push("extra".into()); // batch with arguments is a usage error, not a read
        }
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = djambi_cli::run(&args, &b""[..], &mut out, &mut err);
        prop_assert!(matches!(status, 0..=2), "{:?} gave {}", args, status);
        if status != 0 {
            prop_assert!(!err.is_empty(), "{:?}: no message", args);
        }
    }

    /// `batch` answers every non-blank line with one JSON object and reads on.
    #[test]
    fn cli_batch_answers_every_line(lines in prop::collection::vec(batch_line_strategy(), 0..8)) {
        let input = lines.join("\n");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = djambi_cli::run(&["batch".to_string()], input.as_bytes(), &mut out, &mut err);
        prop_assert_eq!(status, 0);
        let out = String::from_utf8(out).unwrap();
        let answers: Vec<&str> = out.lines().collect();
        let expected = lines.iter().filter(|l| !l.trim().is_empty()).count();
        prop_assert_eq!(answers.len(), expected, "{:?}", lines);
        for answer in answers {
            let value: serde_json::Value = serde_json::from_str(answer).unwrap();
            let object = value.as_object().unwrap();
            prop_assert_eq!(object.len(), 1);
            let key = object.keys().next().unwrap().as_str();
            prop_assert!(matches!(key, "moves" | "dfen" | "error"), "{}", answer);
        }
    }

    /// The default ruleset, written in any form, answers as no ruleset does.
    #[test]
    fn cli_batch_default_ruleset_is_no_ruleset(
        lines in prop::collection::vec(batch_line_strategy(), 1..6),
        form in 0usize..5,
    ) {
        let forms = [
            serde_json::Value::Null,
            serde_json::json!({}),
            serde_json::json!(""),
            serde_json::json!("djambi-standard-2026"),
            serde_json::json!({"layout": "standard", "reporter": "optional"}),
        ];
        let with: Vec<String> = lines
            .iter()
            .map(|line| match serde_json::from_str::<serde_json::Value>(line) {
                Ok(serde_json::Value::Object(mut request)) => {
                    request.insert("ruleset".into(), forms[form].clone());
                    serde_json::Value::Object(request).to_string()
                }
                _ => line.clone(),
            })
            .collect();
        let answer = |input: &[String]| {
            let mut out = Vec::new();
            let status = djambi_cli::run(&["batch"], input.join("\n").as_bytes(), &mut out, std::io::sink());
            assert_eq!(status, 0);
            String::from_utf8(out).unwrap()
        };
        prop_assert_eq!(answer(&with), answer(&lines));
    }
}
