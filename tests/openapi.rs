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

/// Every string of the document, with where it is.
fn strings<'a>(v: &'a Value, at: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((at, s)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                strings(item, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

/// The settings a description names are settings of the server (the table of
/// `djambi-server settings`), so a description cannot point a client at a setting that
/// does not exist; and seating a bot says how a game of bots alone is paced.
#[test]
fn descriptions_name_only_real_settings() {
    let doc: Value = serde_json::from_str(djambi_api::openapi::document_json()).unwrap();
    let mut all = Vec::new();
    strings(&doc, String::new(), &mut all);
    let mut named = 0;
    for (at, text) in &all {
        let mut rest = *text;
        while let Some(i) = rest.find("DJAMBI_") {
            let name: String = rest[i..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            let Some(setting) = djambi_api::config::SETTINGS.iter().find(|s| s.env == name) else {
                panic!("{at} names {name}, no such setting");
            };
            named += 1;
            rest = &rest[i + name.len()..];
            // "`DJAMBI_X` (1 h)" or "(default 24 h)": the figure is the setting's default.
            if let Some(said) = rest.strip_prefix("` (").and_then(|r| r.split(')').next()) {
                let said = said.trim_start_matches("default ").replace(' ', "");
                if said.starts_with(|c: char| c.is_ascii_digit()) {
                    assert_eq!(
                        said,
                        setting.default.replace(' ', ""),
                        "{at}: {name}'s default"
                    );
                }
            }
        }
    }
    assert!(named > 10, "{named}");
    let bot = doc["paths"]["/v1/games/{id}/seats/{seat}/bot"]["post"]["description"]
        .as_str()
        .unwrap();
    assert!(bot.contains("DJAMBI_BOT_ONLY_PLIES_PER_SEC"), "{bot}");
    assert!(!bot.contains("at once"), "{bot}");
}

/// The kinds of notification the server writes are the ones the document lists: in
/// `NotificationView.kind` and in the settings' example.
#[test]
fn notification_kinds_are_documented() {
    let doc: Value = serde_json::from_str(djambi_api::openapi::document_json()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let kind = schemas["NotificationView"]["properties"]["kind"]["description"]
        .as_str()
        .unwrap();
    let example = schemas["NotificationSettings"]["example"]["kinds"]
        .as_object()
        .unwrap();
    for k in djambi_api::notifications::KINDS {
        assert!(
            kind.contains(k),
            "NotificationView.kind does not list {k}: {kind}"
        );
        assert!(example.contains_key(k), "the settings example has no {k}");
    }
    assert!(kind.contains("webhook_disabled"), "{kind}");
}
