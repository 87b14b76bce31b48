//! The HTTP routes, one module per resource. Handlers are attribute-routed
//! (`#[get(..)]` + `#[utoipa::path(..)]`) and registered through utoipa-actix-web so that the
//! OpenAPI document is collected from the same registration the server uses.
//!
//! To add a resource: write `routes/<name>.rs` with a `configure` function, and call it from
//! [`configure_v1`] (for `/v1/...`) or [`register`].

pub mod account_mail;
pub mod accounts;
pub mod caller;
pub mod fallback;
pub mod games;
pub mod health;
pub mod inbound_mail;
pub mod json_body;
pub mod language;
pub mod me;
pub mod messages;
pub mod metrics;
pub mod mutes;
pub mod my_games;
pub mod notification_settings;
pub mod notifications;
pub mod oauth;
pub mod params;
pub mod players;
pub mod positions;
pub mod push;
pub mod sessions;
pub mod sse;
pub mod tokens;
pub mod tournaments;
pub mod unsubscribe;
pub mod vacations;
pub mod web;
pub mod webhooks;

use actix_web::Error;
use actix_web::dev::{ServiceFactory, ServiceRequest};
use utoipa_actix_web::{UtoipaApp, scope, service_config::ServiceConfig};

/// The id of an account-owned resource from its path (tokens, webhook endpoints,
/// vacations): these ids are UUIDs, so anything else cannot exist and is answered
/// `404 no such <what>` before it reaches the database (PostgreSQL refuses a NUL byte in
/// text, which would otherwise be a 500).
pub(crate) fn uuid_id(raw: String, what: &str) -> Result<String, crate::error::ApiError> {
    match uuid::Uuid::parse_str(&raw) {
        Ok(_) => Ok(raw),
        Err(_) => Err(crate::error::ApiError::NotFound(format!("no such {what}"))),
    }
}

/// Registers every documented route on `app`.
pub fn register<T>(app: UtoipaApp<T>) -> UtoipaApp<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
{
    app.configure(health::configure)
        .configure(oauth::configure)
        .service(scope("/v1").configure(configure_v1))
        .map(web::page::register)
        .map(web::register)
}

/// Everything under `/v1`. Actix tries the routes in the order they are registered, one
/// regular-expression match for each path with a parameter until one fits, so the games'
/// routes (a move is the most frequent write, the state and events the most frequent
/// reads) come first: a move used to try some forty patterns before its own (9% of the
/// server's CPU under the load benchmark, see BENCHMARKS.md).
pub fn configure_v1(cfg: &mut ServiceConfig) {
    games::configure(cfg);
    accounts::configure(cfg);
    account_mail::configure(cfg);
    inbound_mail::configure(cfg);
    sessions::configure(cfg);
    me::configure(cfg);
    tokens::configure(cfg);
    my_games::configure(cfg);
    notifications::configure(cfg);
    notification_settings::configure(cfg);
    webhooks::configure(cfg);
    push::configure(cfg);
    unsubscribe::configure(cfg);
    vacations::configure(cfg);
    messages::configure(cfg);
    mutes::configure(cfg);
    players::configure(cfg);
    positions::configure(cfg);
    tournaments::configure(cfg);
}
