//! The `djambi-server` binary: bad configuration is one clear line and a non-zero exit.

use std::process::Command;

fn server() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_djambi-server"));
    for (k, _) in std::env::vars() {
        if k.starts_with("DJAMBI_") || k == "DATABASE_URL" {
            c.env_remove(k);
        }
    }
    c
}

#[test]
fn refuses_to_start_without_a_secret_outside_development() {
    let out = server()
        .env(
            "DATABASE_URL",
            "postgres://postgres@127.0.0.1:5432/postgres",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("DJAMBI_JWT_SECRET"), "{err}");
}

#[test]
fn bad_values_are_named() {
    for (k, v) in [
        ("DJAMBI_LISTEN", "not-an-address"),
        ("DATABASE_URL", "mysql://localhost/x"),
        ("DJAMBI_JWT_SECRET", "short"),
    ] {
        let out = server().env(k, v).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{k}={v}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(k) && !err.contains("panicked"),
            "{k}={v}: {err}"
        );
    }
}

#[test]
fn prints_the_openapi_document() {
    let out = server().arg("openapi").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        djambi_api::openapi::document_json()
    );
}

/// The subcommands `djambi-server --help` lists.
fn subcommands() -> Vec<String> {
    let out = server().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let commands = help
        .split("Commands:")
        .nth(1)
        .unwrap_or_else(|| panic!("no command list: {help}"));
    commands
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Every subcommand answers `--help` with its usage and does nothing else: no database
/// is opened or created (without `DATABASE_URL`, `./data` would be).
#[test]
fn every_subcommand_has_help_that_does_nothing_else() {
    let commands = subcommands();
    for expected in [
        "openapi",
        "check-projections",
        "hide-message",
        "recompute-ratings",
        "settings",
    ] {
        assert!(commands.iter().any(|c| c == expected), "{commands:?}");
    }
    for command in &commands {
        for flag in ["--help", "-h"] {
            let dir = std::env::temp_dir().join(format!(
                "djambi-cli-help-{}-{command}{flag}",
                std::process::id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            let out = server()
                .current_dir(&dir)
                .args([command.as_str(), flag])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{command} {flag}: {text}");
            assert!(
                text.contains(&format!("Usage: djambi-server {command}")),
                "{command} {flag}: {text}"
            );
            let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
            assert!(left.is_empty(), "{command} {flag} wrote {left:?}");
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    // A stray argument is refused, not ignored.
    let out = server()
        .args(["recompute-ratings", "--now"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
