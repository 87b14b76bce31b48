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
