//! The OpenAPI 3.1 document: the static parts (info, security scheme, tags, problem
//! schemas) are here; the paths are collected by utoipa-actix-web from the same route
//! registration the server uses ([`crate::routes::register`]). The document is served at
//! `/openapi.json`, browsed at `/docs` (Swagger UI, vendored: no network needed), and
//! committed as `openapi/openapi.json` (a test fails when they differ; run it with
//! `UPDATE_OPENAPI=1` to rewrite the file).

use std::sync::OnceLock;

use actix_web::App;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use crate::error::{FieldError, Problem, ProblemKind};

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
        (name = "games", description = "Games: create, join, play, read; each game is an event log"),
        (name = "notifications", description = "The in-app feed of what happens in one's games, and its event stream"),
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
                         `POST /v1/me/tokens` (the scopes it was created with).",
                    ))
                    .build(),
            ),
        );
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

/// The complete document, built from the route registration.
pub fn document() -> utoipa::openapi::OpenApi {
    let (_, doc) = crate::routes::register(App::new().into_utoipa_app().openapi(ApiDoc::openapi()))
        .split_for_parts();
    doc
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
    routes
        .iter()
        .filter(|(def, _)| def.is_match(path))
        .flat_map(|(_, methods)| methods.iter().copied())
        .collect()
}
