//! The layer rules of ARCHITECTURE.md, read off the sources: a request walks down
//! routes → use cases → store, never back up. [`LAYERS`] is ARCHITECTURE.md's list as a
//! table: each layer's files, and the names no layer below it may say; a line that says
//! one fails the test with its file and line.

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

/// One layer of ARCHITECTURE.md: its sources, and the names by which code says it.
struct Layer {
    name: &'static str,
    /// Its sources, relative to api/src: directories (everything under them) or files.
    paths: &'static [&'static str],
    /// What no layer below may name: its modules (`crate::games`), and the crates and
    /// types only it may use (`actix_`, `ApiError`). A name ending in `_` or `::` is a
    /// prefix; any other must stand alone (`crate::model` is not `crate::models`).
    names: &'static [&'static str],
    /// What it may not name besides the layers above: the wiring's modules.
    nor: &'static [&'static str],
}

/// The wiring (no layer: it builds the pool, the `AppState`, the server and the workers,
/// and names everything).
const WIRING: &[&str] = &[
    "lib.rs",
    "main.rs",
    "state.rs",
    "shutdown.rs",
    "telemetry.rs",
];
/// What of the wiring no layer below the routes may name: the `AppState` (the routes take
/// it; below them each takes a narrow context off it) and the telemetry.
const NOT_THE_STATE: &[&str] = &["crate::state", "AppState", "crate::telemetry"];
/// ... nor, below the workers, the `Shutdown` (the workers are spawned on it and watch it).
const NOT_THE_WIRING: &[&str] = &[
    "crate::state",
    "AppState",
    "crate::telemetry",
    "crate::shutdown",
];

/// The layers of ARCHITECTURE.md, from the top down: a file may name what is in its layer
/// or below, never what is above.
const LAYERS: &[Layer] = &[
    Layer {
        name: "routes",
        paths: &[
            "routes",
            "error",
            "auth/web_session.rs",
            "openapi.rs",
            "http_policy.rs",
            "body_limit.rs",
            "conn_limit.rs",
            "pagination.rs",
        ],
        names: &[
            "crate::routes",
            "crate::error",
            "crate::openapi",
            "crate::http_policy",
            "crate::body_limit",
            "crate::conn_limit",
            "crate::pagination",
            "crate::auth::web_session",
            // HTTP lives in the routes only.
            "actix_",
            "utoipa",
            "ApiError",
            "StatusCode",
            "HttpResponse",
            "HttpRequest",
        ],
        nor: &[],
    },
    Layer {
        name: "workers",
        paths: &["workers"],
        names: &["crate::workers"],
        nor: NOT_THE_STATE,
    },
    Layer {
        name: "use cases",
        paths: &[
            "games",
            "accounts",
            "notifications",
            "analysis",
            "messages",
            "ratings",
            "live",
            "mail_moves",
            "tournaments",
            "maintenance.rs",
        ],
        names: &[
            "crate::games",
            "crate::accounts",
            "crate::notifications",
            "crate::analysis",
            "crate::messages",
            "crate::ratings",
            "crate::live",
            "crate::mail_moves",
            "crate::tournaments",
            "crate::maintenance",
        ],
        nor: NOT_THE_WIRING,
    },
    Layer {
        name: "store",
        paths: &["store"],
        names: &[
            "crate::store",
            "DbConnection",
            "DbPool",
            "diesel",
            "schema::",
        ],
        nor: NOT_THE_WIRING,
    },
    Layer {
        name: "model",
        paths: &["model", "ids.rs"],
        names: &["crate::model"],
        nor: NOT_THE_WIRING,
    },
    Layer {
        name: "base",
        paths: &[
            "config",
            "config_reference.rs",
            "clock.rs",
            "validate.rs",
            "validate",
            "quota.rs",
            "rate_limit.rs",
            "i18n",
            "metrics.rs",
            "learn.rs",
            "dev_secret.rs",
            "auth/mod.rs",
            "auth/jwt.rs",
            "auth/passwords.rs",
            "auth/secret.rs",
            "auth/tokens.rs",
        ],
        names: &[],
        nor: NOT_THE_WIRING,
    },
];

/// Names a file may say although a layer above owns them: types that derive their OpenAPI
/// schema as data (`model/mod.rs`; `Scope`, a token's scope), and the typed ids, which
/// carry their column (diesel) and schema (utoipa) impls with them.
const ALLOWED: &[(&str, &str)] = &[
    ("model", "utoipa"),
    ("auth/mod.rs", "utoipa"),
    ("ids.rs", "utoipa"),
    ("ids.rs", "diesel"),
];

/// Every source under `path` (relative to api/src), a directory or a file.
fn files_of(path: &str) -> Vec<PathBuf> {
    let full = api_src().join(path);
    let files = if full.is_dir() {
        sources(&full)
    } else {
        vec![full]
    };
    assert!(
        files.iter().all(|f| f.is_file()) && !files.is_empty(),
        "no sources under api/src/{path}"
    );
    files
}

fn rel(file: &Path) -> String {
    file.strip_prefix(api_src()).unwrap().display().to_string()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `line` names `word` (see [`Layer::names`]).
fn names(line: &str, word: &str) -> bool {
    let prefix = word.ends_with('_') || word.ends_with("::");
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && (prefix || !after.is_some_and(is_ident))
    })
}

/// Every line of `files` that names one of `banned`, as `file:line: why`.
fn breaches(layer: &str, files: &[PathBuf], banned: &[&str]) -> Vec<String> {
    let mut broken = Vec::new();
    for file in files {
        let rel = rel(file);
        for (n, line) in code_lines(file) {
            for word in banned {
                let allowed = ALLOWED.iter().any(|(path, w)| {
                    w == word && (rel == *path || rel.starts_with(&format!("{path}/")))
                });
                if !allowed && names(&line, word) {
                    broken.push(format!(
                        "api/src/{rel}:{n}: `{word}` in {layer}: {}",
                        line.trim()
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn no_file_reaches_above_its_layer() {
    let mut broken = Vec::new();
    for (i, layer) in LAYERS.iter().enumerate() {
        let mut banned: Vec<&str> = LAYERS[..i]
            .iter()
            .flat_map(|above| above.names.iter().copied())
            .collect();
        banned.extend(layer.nor);
        let files: Vec<PathBuf> = layer.paths.iter().flat_map(|p| files_of(p)).collect();
        broken.extend(breaches(layer.name, &files, &banned));
    }
    assert!(
        broken.is_empty(),
        "layer rules broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_source_is_in_one_layer() {
    // A new file or directory goes into the table above (and ARCHITECTURE.md's list).
    let mut placed: Vec<(PathBuf, &str)> = Vec::new();
    for layer in LAYERS {
        for path in layer.paths {
            placed.extend(files_of(path).into_iter().map(|f| (f, layer.name)));
        }
    }
    placed.extend(
        WIRING
            .iter()
            .flat_map(|p| files_of(p))
            .map(|f| (f, "wiring")),
    );
    let mut unplaced = Vec::new();
    let mut twice = Vec::new();
    for file in sources(&api_src()) {
        let layers: Vec<&str> = placed
            .iter()
            .filter(|(f, _)| *f == file)
            .map(|(_, l)| *l)
            .collect();
        match layers.len() {
            0 => unplaced.push(rel(&file)),
            1 => {}
            _ => twice.push(format!("{} ({})", rel(&file), layers.join(", "))),
        }
    }
    assert!(unplaced.is_empty(), "in no layer: {unplaced:?}");
    assert!(twice.is_empty(), "in several layers: {twice:?}");
}

#[test]
fn routes_reach_the_database_only_through_use_cases() {
    // Not upwards but past a layer: a route calls a use case, never the store.
    let files: Vec<PathBuf> = files_of("routes");
    let broken = breaches(
        "a route",
        &files,
        &[
            "crate::store",
            "store::",
            "DbConnection",
            "schema::",
            "diesel",
        ],
    );
    assert!(
        broken.is_empty(),
        "layer rules broken:\n{}",
        broken.join("\n")
    );
}
