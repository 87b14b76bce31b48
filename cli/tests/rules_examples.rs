//! Runs every worked example of `shared/rules-examples.jsonl` through the `batch`
//! protocol, exactly as other programs drive the `djambi` command.

use std::path::PathBuf;

use serde_json::{Value, json};

fn examples_path() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("DJAMBI_RULES_EXAMPLES").map(PathBuf::from),
        Some(manifest.join("../../shared/rules-examples.jsonl")),
        Some(manifest.join("tests/data/rules-examples.jsonl")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.exists())
        .expect("rules-examples.jsonl not found (set DJAMBI_RULES_EXAMPLES)")
}

fn batch(request: &Value) -> Value {
    let mut out = Vec::new();
    let input = format!("{request}\n");
    let status = djambi_cli::run(
        &["batch".to_string()],
        input.as_bytes(),
        &mut out,
        std::io::sink(),
    );
    assert_eq!(status, 0);
    serde_json::from_slice(&out).expect("batch answers one JSON line")
}

#[test]
fn every_worked_example_passes() {
    let text = std::fs::read_to_string(examples_path()).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let example: Value = serde_json::from_str(line).unwrap();
        let name = example["name"].as_str().unwrap_or("?").to_string();
        let mut request = json!({ "op": example["op"], "dfen": example["dfen"] });
        for key in ["moves", "seat"] {
            if let Some(v) = example.get(key) {
                request[key] = v.clone();
            }
        }
        let answer = batch(&request);
        let ok = if let Some(expected) = example.get("expect_moves") {
            answer.get("moves") == Some(expected)
        } else if let Some(expected) = example.get("expect_dfen") {
            answer.get("dfen") == Some(expected)
        } else if example.get("expect_error").is_some() {
            answer.get("error").is_some()
        } else {
            panic!("{name}: example without an expectation");
        };
        if !ok {
            failures.push(format!("{name}: got {answer}"));
        }
        count += 1;
    }
    assert!(count >= 60, "only {count} examples read");
    assert!(
        failures.is_empty(),
        "{} of {count} examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
