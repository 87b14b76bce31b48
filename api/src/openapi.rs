//! The OpenAPI 3.1 document: the static parts (info, security scheme, tags, problem
//! schemas) are here; the paths are collected by utoipa-actix-web from the same route
//! registration the server uses ([`crate::routes::register`]), then completed by
//! [`complete`] with what operations of a kind share (statuses, headers, bounds that
//! utoipa's attributes cannot state). The document is served at
//! `/openapi.json`, browsed at `/docs` (Swagger UI, vendored: no network needed), and
//! committed as `openapi/openapi.json` (a test fails when they differ; run it with
//! `UPDATE_OPENAPI=1` to rewrite the file).

use std::sync::OnceLock;

use actix_web::App;
use utoipa::openapi::content::Content;
use utoipa::openapi::header::Header;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::response::Response;
use utoipa::openapi::schema::{ObjectBuilder, Ref, Schema, SchemaType, Type};
use utoipa::openapi::security::{
    AuthorizationCode, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityRequirement,
    SecurityScheme,
};
use utoipa::openapi::{RefOr, Required};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use crate::error::{FieldError, PROBLEM_JSON, Problem, ProblemKind};

/// The security "scope" of operations that need a login session (an access token from
/// `POST /v1/sessions`); personal access tokens never have it.
pub const SESSION_ROLE: &str = "session";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Djambi correspondence server",
        description = "Play-by-mail Djambi (four-player chess) over REST.",
        license(name = "MIT")
    ),
    modifiers(&Additions),
    components(schemas(Problem, FieldError)),
    tags(
        (name = "accounts", description = "Registration"),
        (name = "sessions", description = "Log in, refresh, log out"),
        (name = "me", description = "One's own account"),
        (name = "tokens", description = "Personal access tokens for bots and tools"),
        (name = "oauth", description = "OAuth 2.0 for third-party apps: authorization code with PKCE, no registration"),
        (name = "games", description = "Games: create, join, play, read; each game is an event log"),
        (name = "notifications", description = "The in-app feed of what happens in one's games, and its event stream"),
        (name = "messages", description = "Table talk: messages between the players of a game, and mutes"),
        (name = "players", description = "Ratings: player pages and the leaderboard"),
        (name = "positions", description = "An analysis board for any position: its legal moves, a move played on it, its picture"),
        (name = "tournaments", description = "Tournaments: round-robin sections and Swiss events, many games and one standing"),
        (name = "health", description = "Liveness and readiness"),
        (name = "meta", description = "This document")
    )
)]
pub struct ApiDoc;

struct Additions;

impl Modify for Additions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi
            .components
            .get_or_insert_with(utoipa::openapi::Components::new);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "An access token from `POST /v1/sessions` (a JWT, scopes `read` and \
                         `play`), or a personal access token `djp_...` from \
                         `POST /v1/me/tokens` (the scopes it was created with). Each \
                         operation's security requirement names what it needs: the `read` or \
                         `play` scope, or `session`: a login's access token (account \
                         management; personal access tokens are refused with 403).",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(OAUTH2_SCHEME, oauth2_scheme());
        let mut text = String::from(
            "Play-by-mail Djambi (four-player chess) over REST.\n\n\
             Errors are RFC 9457 `application/problem+json` documents whose `type` is one of \
             the stable URIs below (relative to the server); extension members appear \
             beside `type`, `title`, `status` and `detail`.\n\n\
             | type | status | title |\n|---|---|---|\n",
        );
        for kind in ProblemKind::ALL {
            text.push_str(&format!(
                "| `{}` | {} | {} |\n",
                kind.type_uri(),
                kind.status().as_u16(),
                kind.title()
            ));
        }
        openapi.info.description = Some(text);
    }
}

/// The name of the OAuth 2.0 security scheme.
pub const OAUTH2_SCHEME: &str = "oauth2";

/// OAuth 2.0 for third-party apps (`routes/oauth.rs`): the authorization code flow with
/// PKCE, no registration; what `/docs` signs in with.
fn oauth2_scheme() -> SecurityScheme {
    let scopes = Scopes::from_iter([
        ("read", "Read games, positions and one's own data"),
        (
            "play",
            "Act in games: moves, seats, resignations, draw offers",
        ),
    ]);
    SecurityScheme::OAuth2(OAuth2::with_description(
        [Flow::AuthorizationCode(AuthorizationCode::new(
            "/oauth/authorize",
            "/oauth/token",
            scopes,
        ))],
        "OAuth 2.0 authorization code flow with PKCE (`S256` only) for public clients: no \
         registration, any `client_id` of the app's choosing (1 to 64 printable ASCII \
         characters) with a redirect URI that is `https`, or `http` on a loopback address \
         (`127.0.0.1`, `[::1]`, `localhost`, any port). The player approves on the consent \
         page of `/oauth/authorize`; `POST /oauth/token` trades the code (single use, two \
         minutes) for an opaque access token `djo_...` with the granted scopes, valid a year \
         (no refresh token: ask again). The player sees and revokes it with their tokens; \
         the app revokes it with `POST /oauth/revoke`. Metadata: \
         `/.well-known/oauth-authorization-server`.",
    ))
}

/// Operations open to the `read` or `play` scope take an app's OAuth token too: each
/// bearer requirement naming only those scopes gets its OAuth 2.0 twin.
fn add_oauth2_requirements(op: &mut Operation) {
    let Some(requirements) = &mut op.security else {
        return;
    };
    let mut twins = Vec::new();
    for r in requirements.iter() {
        let value = serde_json::to_value(r).unwrap_or_default();
        let Some(scopes) = value.get("bearer").and_then(|s| s.as_array()) else {
            continue;
        };
        let scopes: Vec<String> = scopes
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        if !scopes.is_empty() && scopes.iter().all(|s| s == "read" || s == "play") {
            twins.push(SecurityRequirement::new(OAUTH2_SCHEME, scopes));
        }
    }
    requirements.extend(twins);
}

/// The complete document, built from the route registration, then completed by
/// [`complete`] with what every route of a kind shares.
pub fn document() -> utoipa::openapi::OpenApi {
    let (_, mut doc) =
        crate::routes::register(App::new().into_utoipa_app().openapi(ApiDoc::openapi()))
            .split_for_parts();
    complete(&mut doc);
    doc
}

/// The security roles an operation declares: `None` without security (or when a call
/// without a token is also allowed), else the union of the scopes it names.
fn security_roles(op: &Operation) -> (Option<Vec<String>>, bool) {
    let Some(requirements) = &op.security else {
        return (None, false);
    };
    let mut roles = Vec::new();
    let mut anonymous = false;
    for r in requirements {
        let value = serde_json::to_value(r).unwrap_or_default();
        match value.as_object() {
            Some(map) if !map.is_empty() => {
                for scopes in map.values() {
                    for s in scopes.as_array().into_iter().flatten() {
                        if let Some(s) = s.as_str() {
                            roles.push(s.to_string());
                        }
                    }
                }
            }
            _ => anonymous = true,
        }
    }
    (Some(roles), anonymous)
}

/// A problem response.
fn problem_response(description: String) -> RefOr<Response> {
    let content = Content::new(Some(Ref::from_schema_name("Problem")));
    let mut r = Response::new(description);
    r.content.insert(PROBLEM_JSON.to_string(), content);
    RefOr::T(r)
}

fn header(description: &str, ty: Type) -> Header {
    let mut h = Header::new(ObjectBuilder::new().schema_type(ty));
    h.description = Some(description.to_string());
    h
}

/// `type: [T, "null"]` becomes `type: T` (parameters are absent, never null).
fn strip_null(schema: &mut Schema) {
    if let Schema::Object(o) = schema {
        if let SchemaType::Array(types) = &o.schema_type {
            let kept: Vec<Type> = types
                .iter()
                .filter(|t| **t != Type::Null)
                .cloned()
                .collect();
            if kept.len() == 1 {
                o.schema_type = SchemaType::Type(kept[0].clone());
            } else {
                o.schema_type = SchemaType::Array(kept);
            }
        }
    }
}

/// What every operation of a kind can answer, stated once here rather than in each route
/// file (a route's own description of a status wins):
///
/// - a body: `400 validation` (malformed or invalid), `413 payload-too-large`,
///   `415 unsupported-media-type` (not `application/json`);
/// - query parameters: `400 validation`;
/// - a token: `401 unauthorized` (with `WWW-Authenticate`), and `403 forbidden` when the
///   operation needs a scope or a login session;
/// - a path parameter: `404 not-found`;
/// - `If-Match`: `412 version-conflict`; `Idempotency-Key`: `422 idempotency-key-reused`;
/// - anything under `/v1`: `503 unavailable` (database busy or unreachable, with
///   `Retry-After`); every `429` and `503` carries `Retry-After`.
///
/// Optional bodies are documented as such (`required: false`, the schema without `null`:
/// an empty body is the default, a JSON `null` is refused), and parameters never as
/// `null`.
fn complete(doc: &mut utoipa::openapi::OpenApi) {
    use crate::routes::games::{MOVE_TEXT_MAX, MOVE_TEXT_PATTERN};
    // utoipa takes no validation on an untagged enum's variants: move text is set here.
    if let Some(components) = &mut doc.components {
        if let Some(RefOr::T(Schema::OneOf(one))) = components.schemas.get_mut("MoveInput") {
            if let Some(RefOr::T(Schema::Object(text))) = one.items.first_mut() {
                text.max_length = Some(MOVE_TEXT_MAX);
                text.pattern = Some(MOVE_TEXT_PATTERN.to_string());
            }
        }
        constrain_settings(&mut components.schemas);
        constrain_ruleset(&mut components.schemas);
    }
    for (path, item) in doc.paths.paths.iter_mut() {
        let ops = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for (method, op) in ["GET", "PUT", "POST", "DELETE", "PATCH"]
            .into_iter()
            .zip(ops)
        {
            if let Some(op) = op {
                add_oauth2_requirements(op);
                complete_operation(method, path, op);
            }
        }
    }
}

/// Edits a component schema as JSON (for what utoipa's attributes cannot say).
fn edit_schema(
    schemas: &mut std::collections::BTreeMap<String, RefOr<Schema>>,
    name: &str,
    edit: impl FnOnce(&mut serde_json::Value),
) {
    let Some(schema) = schemas.get_mut(name) else {
        return;
    };
    let Ok(mut value) = serde_json::to_value(&*schema) else {
        return;
    };
    edit(&mut value);
    if let Ok(edited) = serde_json::from_value(value) {
        *schema = edited;
    }
}

/// The ruleset as `routes::games::ruleset::parse` reads it and the views show it: the
/// rules crate's options and values as enums, the text form as a pattern.
fn constrain_ruleset(schemas: &mut std::collections::BTreeMap<String, RefOr<Schema>>) {
    use crate::routes::games::ruleset::{RULESET_TEXT_MAX, option_values, text_pattern};
    let options = |required: bool| {
        move |s: &mut serde_json::Value| {
            let Some(props) = s.get_mut("properties").and_then(|p| p.as_object_mut()) else {
                return;
            };
            for (name, values) in option_values() {
                if let Some(p) = props.get_mut(name).and_then(|p| p.as_object_mut()) {
                    p.insert("type".into(), "string".into());
                    p.insert("enum".into(), serde_json::json!(values));
                    if !required {
                        p.insert("default".into(), values[0].into());
                    }
                }
            }
            s["additionalProperties"] = false.into();
            if required {
                s["required"] = serde_json::json!(option_values().map(|(n, _)| n));
            } else if let Some(o) = s.as_object_mut() {
                o.remove("required");
            }
        }
    };
    edit_schema(schemas, "RulesetChoice", options(false));
    edit_schema(schemas, "RulesetOptions", options(true));
    edit_schema(schemas, "RulesetInput", |s| {
        if let Some(text) = s.pointer_mut("/oneOf/0").and_then(|t| t.as_object_mut()) {
            text.insert("pattern".into(), text_pattern().into());
            text.insert("maxLength".into(), RULESET_TEXT_MAX.into());
        }
    });
}

/// The notification settings as `NotificationSettings::checked` takes them: the known
/// kinds only, the feed always on, at most `MAX_REMINDERS` offsets of 60 s to
/// `MAX_REMINDER_OFFSET_SECS`.
fn constrain_settings(schemas: &mut std::collections::BTreeMap<String, RefOr<Schema>>) {
    use crate::notifications::KINDS;
    use crate::notifications::settings::{MAX_REMINDER_OFFSET_SECS, MAX_REMINDERS};
    edit_schema(schemas, "NotificationSettings", |s| {
        let props = &mut s["properties"];
        let kinds: serde_json::Map<String, serde_json::Value> = KINDS
            .iter()
            .map(|k| {
                (
                    k.to_string(),
                    serde_json::json!({"$ref": "#/components/schemas/KindChannels"}),
                )
            })
            .collect();
        props["kinds"]["properties"] = serde_json::Value::Object(kinds);
        props["kinds"]["additionalProperties"] = serde_json::Value::Bool(false);
        let offsets = &mut props["reminder_offsets_secs"];
        offsets["maxItems"] = MAX_REMINDERS.into();
        offsets["items"]["minimum"] = 60.into();
        offsets["items"]["maximum"] = MAX_REMINDER_OFFSET_SECS.into();
    });
    edit_schema(schemas, "KindChannels", |s| {
        s["properties"]["feed"]["enum"] = serde_json::json!([true]);
    });
}

/// The operations whose `201` carries a `Location` header, and where it points.
const LOCATIONS: &[(&str, &str, &str)] = &[
    ("POST", "/v1/accounts", "`/v1/me`"),
    (
        "POST",
        "/v1/me/tokens",
        "The new token, `/v1/me/tokens/{id}`",
    ),
    ("POST", "/v1/games", "The new game, `/v1/games/{id}`"),
    ("POST", "/v1/games/import", "The new game, `/v1/games/{id}`"),
    (
        "POST",
        "/v1/games/{id}/moves",
        "The position after the move, `/v1/games/{id}/state?at={version}`",
    ),
];

/// The `If-Match` header: a game version as an ETag (the quotes may be left out).
pub const IF_MATCH_PATTERN: &str = "^(\"[0-9]{1,18}\"|[0-9]{1,18})$";

fn string_schema(min: usize, max: usize, pattern: &str) -> RefOr<Schema> {
    RefOr::T(Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(min))
            .max_length(Some(max))
            .pattern(Some(pattern))
            .build(),
    ))
}

fn complete_operation(method: &str, path: &str, op: &mut Operation) {
    let (roles, anonymous) = security_roles(op);
    let mut has_query = false;
    for p in op.parameters.iter_mut().flatten() {
        has_query |= p.parameter_in == ParameterIn::Query;
        if let Some(RefOr::T(schema)) = &mut p.schema {
            strip_null(schema);
        }
        if p.parameter_in == ParameterIn::Header {
            match p.name.as_str() {
                "Idempotency-Key" => {
                    p.schema = Some(string_schema(
                        1,
                        crate::routes::games::write::MAX_KEY_LEN,
                        "^[\\x21-\\x7e]+$",
                    ));
                }
                "If-Match" => p.schema = Some(string_schema(1, 20, IF_MATCH_PATTERN)),
                _ => {}
            }
        }
    }
    if let Some(body) = &mut op.request_body {
        for content in body.content.values_mut() {
            if let Some(RefOr::T(Schema::OneOf(one))) = &content.schema {
                let not_null: Vec<&RefOr<Schema>> = one
                    .items
                    .iter()
                    .filter(|i| {
                        !matches!(i, RefOr::T(Schema::Object(o))
                            if o.schema_type == SchemaType::Type(Type::Null))
                    })
                    .collect();
                if not_null.len() == 1 && one.items.len() == 2 {
                    content.schema = Some(not_null[0].clone());
                    body.required = Some(Required::False);
                }
            }
        }
    }
    let has_body = op.request_body.is_some();
    let header_param = |name: &str| {
        op.parameters
            .iter()
            .flatten()
            .any(|p| p.parameter_in == ParameterIn::Header && p.name == name)
    };
    let (idempotent, conditional) = (header_param("Idempotency-Key"), header_param("If-Match"));
    let responses = &mut op.responses.responses;
    let mut ensure = |status: u16, description: String| {
        responses
            .entry(status.to_string())
            .or_insert_with(|| problem_response(description));
    };
    if has_body || has_query {
        ensure(
            400,
            "`validation`: a parameter or the body is invalid (`errors` names the fields)".into(),
        );
    }
    if let Some(roles) = &roles {
        ensure(
            401,
            "`unauthorized`: the token is missing, malformed, expired or revoked".into(),
        );
        if !anonymous && !roles.is_empty() {
            let why = if roles.iter().any(|r| r == SESSION_ROLE) {
                "`forbidden`: this needs a login session (an access token from \
                 `POST /v1/sessions`), not a personal access token"
                    .to_string()
            } else {
                format!(
                    "`forbidden`: the token lacks the {} scope",
                    roles
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            };
            ensure(403, why);
        }
    }
    if path.contains('{') {
        ensure(404, "`not-found`: no such resource".into());
    }
    if has_body {
        ensure(
            413,
            "`payload-too-large`: the body is larger than the server accepts".into(),
        );
        ensure(
            415,
            "`unsupported-media-type`: the body is not `application/json`".into(),
        );
    }
    if conditional {
        ensure(
            412,
            "`version-conflict` (with `current_version`): the game is not at the version \
             `If-Match` or `expected_version` names, or they name two versions"
                .into(),
        );
    }
    if idempotent {
        ensure(
            422,
            "`idempotency-key-reused`: the `Idempotency-Key` was used for another request".into(),
        );
    }
    if path.starts_with("/v1/") {
        ensure(
            503,
            "`unavailable`: the database is busy or unreachable; retry after `Retry-After`".into(),
        );
    }
    let versioned = path.starts_with("/v1/games/") || (method == "POST" && path == "/v1/games");
    let location = LOCATIONS
        .iter()
        .find(|(m, p, _)| *m == method && *p == path)
        .map(|(_, _, what)| *what);
    for (status, response) in responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if versioned && (status.starts_with('2') || status == "304") {
            response.headers.entry("ETag".into()).or_insert_with(|| {
                header(
                    "The game's version, quoted (`\"12\"`): send it back as `If-Match` or `If-None-Match`",
                    Type::String,
                )
            });
        }
        if let (Some(what), "201") = (location, status.as_str()) {
            response
                .headers
                .entry("Location".into())
                .or_insert_with(|| header(what, Type::String));
        }
        match status.as_str() {
            "401" => {
                response
                    .headers
                    .entry("WWW-Authenticate".into())
                    .or_insert_with(|| header("`Bearer realm=\"djambi\"`, with `error=\"invalid_token\"` when a token was sent", Type::String));
            }
            "429" | "503" => {
                response
                    .headers
                    .entry("Retry-After".into())
                    .or_insert_with(|| header("Seconds to wait before retrying", Type::Integer));
            }
            _ => {}
        }
    }
}

/// The document as served and committed: pretty-printed JSON with a trailing newline.
pub fn document_json() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| match document().to_pretty_json() {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(e) => format!("{{\"error\": \"cannot render the OpenAPI document: {e}\"}}\n"),
    })
}

/// The methods the document lists for a concrete request path (`/v1/games/abc`), in a
/// fixed order; empty when no documented path template matches it.
pub fn methods_of(path: &str) -> Vec<&'static str> {
    static ROUTES: OnceLock<Vec<(actix_web::dev::ResourceDef, Vec<&'static str>)>> =
        OnceLock::new();
    let routes = ROUTES.get_or_init(|| {
        document()
            .paths
            .paths
            .iter()
            .map(|(template, item)| {
                let methods = [
                    ("GET", item.get.is_some()),
                    ("POST", item.post.is_some()),
                    ("PUT", item.put.is_some()),
                    ("PATCH", item.patch.is_some()),
                    ("DELETE", item.delete.is_some()),
                ]
                .into_iter()
                .filter_map(|(name, present)| present.then_some(name))
                .collect();
                (actix_web::dev::ResourceDef::new(template.as_str()), methods)
            })
            .collect()
    });
    let matching: Vec<_> = routes
        .iter()
        .filter(|(def, _)| def.is_match(path))
        .collect();
    // A static path (`/v1/games/import`) is that route's alone, not also `/v1/games/{id}`'s.
    let exact: Vec<_> = matching
        .iter()
        .filter(|(def, _)| !def.pattern().is_some_and(|p| p.contains('{')))
        .collect();
    let chosen: Vec<_> = if exact.is_empty() {
        matching.iter().collect()
    } else {
        exact
    };
    chosen
        .into_iter()
        .flat_map(|(_, methods)| methods.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::pagination::{MAX_CURSOR_LEN, MAX_LIMIT};
    use crate::routes::games::write::MAX_KEY_LEN;
    use crate::validate::{EMAIL_MAX, TOKEN_NAME_MAX};
    use crate::validate::{names, password_policy};

    fn doc() -> Value {
        serde_json::from_str(document_json()).expect("the document is JSON")
    }

    fn operation<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
        let op = &doc["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is not documented");
        op
    }

    fn param<'a>(doc: &'a Value, method: &str, path: &str, name: &str) -> &'a Value {
        operation(doc, method, path)["parameters"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["name"] == name))
            .map(|p| &p["schema"])
            .unwrap_or_else(|| panic!("{method} {path} has no parameter {name}"))
    }

    fn property<'a>(doc: &'a Value, schema: &str, name: &str) -> &'a Value {
        let p = &doc["components"]["schemas"][schema]["properties"][name];
        assert!(p.is_object(), "{schema}.{name} is not documented");
        p
    }

    /// The limits the server checks are the limits the document states: each number
    /// below is the Rust constant the handlers use.
    #[test]
    fn limits_are_the_constants_the_server_checks() {
        let doc = doc();
        for (method, path) in [
            ("get", "/v1/games"),
            ("get", "/v1/me/games"),
            ("get", "/v1/me/tokens"),
            ("get", "/v1/me/notifications"),
            ("get", "/v1/games/{id}/events"),
        ] {
            let limit = param(&doc, method, path, "limit");
            assert_eq!(limit["minimum"], 1, "{path}");
            assert_eq!(limit["maximum"], MAX_LIMIT, "{path}");
            let after = param(&doc, method, path, "after");
            assert!(
                after["maxLength"].as_u64().unwrap() as usize <= MAX_CURSOR_LEN,
                "{path}"
            );
        }
        let legal = param(&doc, "get", "/v1/games/{id}/legal-moves", "limit");
        assert_eq!(
            legal["maximum"],
            crate::routes::games::LEGAL_MOVES_MAX_LIMIT as u64
        );
        let key = param(&doc, "post", "/v1/games/{id}/moves", "Idempotency-Key");
        assert_eq!(key["maxLength"], MAX_KEY_LEN);
        let username = property(&doc, "RegisterRequest", "username");
        assert_eq!(username["minLength"], names::MIN_CHARS);
        assert_eq!(username["maxLength"], names::MAX_CHARS);
        let password = property(&doc, "RegisterRequest", "password");
        assert_eq!(password["minLength"], password_policy::MIN_CHARS);
        assert_eq!(password["maxLength"], password_policy::MAX_CHARS);
        assert_eq!(
            property(&doc, "RegisterRequest", "email")["maxLength"],
            EMAIL_MAX
        );
        assert_eq!(
            property(&doc, "CreateTokenRequest", "name")["maxLength"],
            TOKEN_NAME_MAX
        );
        let days = property(&doc, "CreateTokenRequest", "expires_in_days");
        assert_eq!(days["maximum"], crate::routes::tokens::MAX_TOKEN_DAYS);
        let level = property(&doc, "SeatBotRequest", "level");
        assert_eq!(level["minimum"], 1);
        assert_eq!(level["minimum"], domain::Level::MIN.number());
        assert_eq!(level["maximum"], domain::Level::MAX.number());
        assert!(domain::Level::new(0).is_none() && domain::Level::new(6).is_none());
    }

    /// Every status an operation can answer is documented, errors as problem+json.
    #[test]
    fn shared_statuses_are_documented_everywhere() {
        let doc = doc();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let responses = op["responses"].as_object().unwrap();
                let has = |s: &str| responses.contains_key(s);
                let secured = op["security"].as_array().is_some_and(|reqs| {
                    reqs.iter()
                        .any(|r| r.as_object().is_some_and(|o| !o.is_empty()))
                });
                if secured {
                    assert!(has("401"), "{method} {path}: 401");
                    let www = &responses["401"]["headers"]["WWW-Authenticate"];
                    assert!(www.is_object(), "{method} {path}: WWW-Authenticate");
                }
                if op["requestBody"].is_object() {
                    for s in ["400", "413", "415"] {
                        assert!(has(s), "{method} {path}: {s}");
                    }
                }
                if path.contains('{') {
                    assert!(has("404"), "{method} {path}: 404");
                }
                if path.starts_with("/v1/") {
                    assert!(has("503"), "{method} {path}: 503");
                }
                for (status, r) in responses {
                    // OAuth 2.0's own errors are RFC 6749's JSON, which its clients read.
                    if path.starts_with("/oauth/") && status == "400" {
                        assert!(
                            r["content"]["application/json"]["schema"].is_object(),
                            "{method} {path}: {status}"
                        );
                        continue;
                    }
                    if status.starts_with('4') || status.starts_with('5') {
                        assert!(
                            r["content"][PROBLEM_JSON]["schema"].is_object(),
                            "{method} {path}: {status} is not a problem"
                        );
                    }
                    if status == "429" || status == "503" {
                        assert!(
                            r["headers"]["Retry-After"].is_object(),
                            "{method} {path}: {status}"
                        );
                    }
                }
            }
        }
        let create = operation(&doc, "post", "/v1/games");
        assert_eq!(create["requestBody"]["required"], false);
        assert!(create["requestBody"]["content"]["application/json"]["schema"]["$ref"].is_string());
        assert!(create["responses"]["201"]["headers"]["Location"].is_object());
        assert!(create["responses"]["201"]["headers"]["ETag"].is_object());
        let me = operation(&doc, "patch", "/v1/me");
        assert_eq!(me["security"][0]["bearer"][0], SESSION_ROLE);
    }
}
