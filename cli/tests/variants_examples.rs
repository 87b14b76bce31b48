//! Runs every worked example of `shared/variants-examples.jsonl` through the `batch`
//! protocol, each request carrying its example's `ruleset`, exactly as other programs
//! drive the `djambi` command.

use std::path::PathBuf;

use serde_json::{Value, json};

fn examples_path() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("DJAMBI_VARIANTS_EXAMPLES").map(PathBuf::from),
        Some(manifest.join("../../shared/variants-examples.jsonl")),
        Some(manifest.join("tests/data/variants-examples.jsonl")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.exists())
        .expect("variants-examples.jsonl not found (set DJAMBI_VARIANTS_EXAMPLES)")
}

/// Answers every request in one `batch` run, in order.
fn batch(requests: &[Value], args: &[&str]) -> Vec<Value> {
    let mut out = Vec::new();
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    argv.push("batch".into());
    let status = djambi_cli::run(&argv, input.as_bytes(), &mut out, std::io::sink());
    assert_eq!(status, 0);
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("batch answers JSON lines"))
        .collect()
}

fn examples() -> Vec<Value> {
    let text = std::fs::read_to_string(examples_path()).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn request_of(example: &Value) -> Value {
    let mut request = json!({ "op": example["op"], "dfen": example["dfen"] });
    for key in ["moves", "seat", "seats", "depth", "ruleset"] {
        if let Some(v) = example.get(key) {
            request[key] = v.clone();
        }
    }
    request
}

/// Checks the answers against the examples' expectations; returns the failures.
fn failures(examples: &[Value], answers: &[Value]) -> Vec<String> {
    assert_eq!(answers.len(), examples.len());
    let mut failures = Vec::new();
    for (example, answer) in examples.iter().zip(answers) {
        let name = example["name"].as_str().unwrap_or("?");
        let ok = if let Some(expected) = example.get("expect_moves") {
            answer.get("moves") == Some(expected)
        } else if let Some(expected) = example.get("expect_dfen") {
            answer.get("dfen") == Some(expected)
        } else if let Some(expected) = example.get("expect_count") {
            answer.get("count") == Some(expected)
        } else if example.get("expect_error").is_some() {
            answer.get("error").is_some()
        } else {
            panic!("{name}: example without an expectation");
        };
        if !ok {
            let answer = answer.to_string();
            let short: String = answer.chars().take(300).collect();
            failures.push(format!("{name}: got {short}"));
        }
    }
    failures
}

#[test]
fn every_worked_example_passes() {
    let examples = examples();
    assert!(
        examples.len() >= 190,
        "only {} examples read",
        examples.len()
    );
    let requests: Vec<Value> = examples.iter().map(request_of).collect();
    let answers = batch(&requests, &[]);
    let failures = failures(&examples, &answers);
    assert!(
        failures.is_empty(),
        "{} of {} examples fail:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

/// The same examples with the ruleset as text, and through `--ruleset` instead of the
/// request field: the three forms are one ruleset.
#[test]
fn every_worked_example_passes_with_the_ruleset_as_text_or_flag() {
    let examples = examples();
    let text_of = |example: &Value| -> String {
        let pairs: Vec<String> = example["ruleset"]
            .as_object()
            .expect("the examples write rulesets as objects")
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
            .collect();
        pairs.join(",")
    };
    let requests: Vec<Value> = examples
        .iter()
        .map(|e| {
            let mut r = request_of(e);
            r["ruleset"] = Value::String(text_of(e));
            r
        })
        .collect();
    let failed = failures(&examples, &batch(&requests, &[]));
    assert!(failed.is_empty(), "as text:\n{}", failed.join("\n"));

    // Grouped by ruleset: one `--ruleset` run per group, requests without the field.
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for example in &examples {
        let text = text_of(example);
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, list)) => list.push(example.clone()),
            None => groups.push((text, vec![example.clone()])),
        }
    }
    for (text, group) in groups {
        let requests: Vec<Value> = group
            .iter()
            .map(|e| {
                let mut r = request_of(e);
                r.as_object_mut().unwrap().remove("ruleset");
                r
            })
            .collect();
        let flag = format!("--ruleset={text}");
        let failed = failures(&group, &batch(&requests, &[&flag]));
        assert!(failed.is_empty(), "{flag}:\n{}", failed.join("\n"));
    }
}
