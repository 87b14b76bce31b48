//! The committed `openapi/openapi.json` must equal what the code generates. Run with
//! `UPDATE_OPENAPI=1` to rewrite the file after changing the API.

use std::path::PathBuf;

use serde_json::Value;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../openapi/openapi.json")
}

#[test]
fn committed_document_matches_the_code() {
    let generated = djambi_api::openapi::document_json();
    let path = committed_path();
    if std::env::var_os("UPDATE_OPENAPI").is_some_and(|v| v == "1") {
        std::fs::write(&path, generated).expect("write openapi/openapi.json");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json differs from the document the code generates; \
         rerun with UPDATE_OPENAPI=1 to update it and commit the result"
    );
}

#[test]
fn document_describes_every_account_endpoint() {
    let doc: Value = serde_json::from_str(djambi_api::openapi::document_json()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "Djambi correspondence server");
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    for (path, method) in [
        ("/v1/accounts", "post"),
        ("/v1/sessions", "post"),
        ("/v1/sessions/refresh", "post"),
        ("/v1/sessions/current", "delete"),
        ("/v1/me", "get"),
        ("/v1/me", "patch"),
        ("/v1/me/tokens", "post"),
        ("/v1/me/tokens", "get"),
        ("/v1/me/tokens/{id}", "delete"),
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/openapi.json", "get"),
    ] {
        let op = &doc["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is not documented");
        assert!(
            op["responses"].is_object(),
            "{method} {path} has no responses"
        );
    }
    // Authenticated operations declare the bearer scheme.
    assert!(doc["paths"]["/v1/me"]["get"]["security"][0]["bearer"].is_array());
    // Errors are documented as problem+json with the Problem schema.
    let unauthorized = &doc["paths"]["/v1/me"]["get"]["responses"]["401"]["content"];
    assert!(unauthorized["application/problem+json"]["schema"].is_object());
    for schema in [
        "Problem",
        "RegisterRequest",
        "TokenResponse",
        "Profile",
        "CreatedToken",
    ] {
        let s = &doc["components"]["schemas"][schema];
        assert!(s.is_object(), "schema {schema} missing");
    }
    assert!(doc["components"]["schemas"]["RegisterRequest"]["example"].is_object());
    // The problem types are listed for client authors.
    let description = doc["info"]["description"].as_str().unwrap();
    for slug in [
        "validation",
        "unauthorized",
        "illegal-move",
        "version-conflict",
        "rate-limited",
    ] {
        assert!(description.contains(&format!("/problems/{slug}")), "{slug}");
    }
}
