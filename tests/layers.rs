//! The layer rules of ARCHITECTURE.md, read off the sources: a request walks down
//! routes → use cases → store, never back up. Each rule names what a layer may not say;
//! a line that breaks one fails the test with its file and line.

use std::path::{Path, PathBuf};

fn api_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../api/src")
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The code of a file without its comments and its `#[cfg(test)]` module (tests may
/// reach across layers to set things up).
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start() == "#[cfg(test)]" {
            break;
        }
        let code = line.split("//").next().unwrap_or("").to_string();
        if !code.trim().is_empty() {
            lines.push((n + 1, code));
        }
    }
    lines
}

/// Fails with every line under `dirs` (relative to api/src) that names one of `banned`.
fn forbid(layer: &str, dirs: &[&str], banned: &[&str]) {
    let root = api_src();
    let mut broken = Vec::new();
    for dir in dirs {
        let path = root.join(dir);
        let files = if path.is_dir() {
            sources(&path)
        } else {
            vec![path]
        };
        assert!(!files.is_empty(), "no sources under {dir}");
        for file in files {
            for (n, line) in code_lines(&file) {
                for word in banned {
                    if line.contains(word) {
                        let rel = file.strip_prefix(&root).unwrap().display().to_string();
                        broken.push(format!(
                            "api/src/{rel}:{n}: `{word}` in {layer}: {}",
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "layer rules broken:\n{}",
        broken.join("\n")
    );
}

/// HTTP lives in the routes only.
const HTTP: &[&str] = &[
    "actix_web",
    "actix_",
    "ApiError",
    "StatusCode",
    "utoipa",
    "HttpResponse",
    "HttpRequest",
    "crate::routes",
    "crate::error",
];

#[test]
fn use_cases_know_no_http() {
    forbid(
        "a use case",
        &[
            "games",
            "analysis",
            "accounts",
            "notifications",
            "messages",
            "ratings",
            "live",
            "mail_moves",
            "tournaments",
        ],
        HTTP,
    );
}

#[test]
fn the_store_knows_no_http_and_calls_nothing_above_it() {
    let mut banned = HTTP.to_vec();
    banned.extend([
        "crate::games",
        "crate::analysis",
        "crate::notifications",
        "crate::accounts",
        "crate::ratings",
        "crate::workers",
        "crate::state",
        "AppState",
    ]);
    forbid("the store", &["store"], &banned);
}

#[test]
fn routes_reach_the_database_only_through_use_cases() {
    forbid(
        "a route",
        &["routes"],
        &[
            "crate::store",
            "store::",
            "DbConnection",
            "schema::",
            "diesel",
        ],
    );
}

#[test]
fn the_model_is_pure() {
    // Its types carry their OpenAPI schema as data (see `model/mod.rs`); nothing else of
    // HTTP, and nothing of the layers above or of the store.
    let banned: Vec<&str> = HTTP
        .iter()
        .copied()
        .filter(|w| *w != "utoipa")
        .chain([
            "crate::store",
            "crate::games",
            "crate::accounts",
            "crate::notifications",
            "crate::ratings",
            "crate::workers",
            "diesel",
        ])
        .collect();
    forbid("the model", &["model"], &banned);
}

#[test]
fn workers_take_narrow_contexts() {
    let mut banned = HTTP.to_vec();
    banned.extend(["AppState", "crate::state"]);
    forbid("a worker", &["workers"], &banned);
}

#[test]
fn the_base_knows_no_http() {
    // What use cases and routes both take from below: field rules, the clock, settings.
    forbid(
        "the base",
        &["validate.rs", "clock.rs", "config", "i18n"],
        HTTP,
    );
    // The languages know nothing of the database either.
    forbid(
        "the languages",
        &["i18n"],
        &[
            "crate::store",
            "diesel",
            "crate::accounts",
            "crate::notifications",
        ],
    );
}
