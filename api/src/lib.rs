//! The Djambi correspondence server as a library: [`start`] builds the store, runs the
//! migrations and binds the HTTP server; `main.rs` is a thin wrapper, and the end-to-end
//! tests call [`start`] in-process on `127.0.0.1:0`.
//!
//! Modules: [`config`] (settings), [`db`] (diesel over PostgreSQL/SQLite, pool, migrations),
//! [`schema`], [`error`] (the `ApiError` → problem+json), [`auth`] (passwords, JWTs,
//! tokens, the web session's cookie), [`games`] (the event-sourced games: events,
//! store, cache, commands, idempotency), [`routes`] (one module per resource; the
//! `Authenticated` extractor in `routes::caller`), [`openapi`], [`rate_limit`],
//! [`body_limit`], [`validate`] (field rules, the username and password profiles),
//! [`pagination`], [`state`], [`workers`] (the background loops), [`accounts`] (the
//! account use cases), [`http_policy`] (HEAD, OPTIONS, CORS, Cache-Control),
//! [`notifications`] (the outbox, the feed and its stream), [`ids`] (the typed ids).
//!
//! Operations: [`telemetry`] (logs, request ids), [`metrics`] (`/metrics`), [`shutdown`]
//! (graceful stop on SIGTERM/SIGINT), [`dev_secret`] (the development JWT secret file),
//! [`config_reference`] (`--help` and the README's settings table).

pub mod accounts;
pub mod analysis;
pub mod auth;
pub mod body_limit;
pub mod clock;
pub mod config;
pub mod conn_limit;
pub mod error;
pub mod games;
pub mod http_policy;
pub mod i18n;
pub mod ids;
pub mod learn;
pub mod live;
pub mod mail_moves;
pub mod maintenance;
pub mod messages;
pub mod notifications;
pub mod openapi;
pub mod pagination;
pub mod quota;
pub mod rate_limit;
pub mod ratings;
pub mod routes;
pub mod state;
pub mod store;
pub mod validate;
pub mod workers;
// -- operations --
pub mod config_reference;
pub mod dev_secret;
pub mod metrics;
pub mod model;
pub mod shutdown;
pub mod telemetry;
pub mod tournaments;

use std::net::SocketAddr;

use actix_web::body::MessageBody;
use actix_web::dev::{ServerHandle, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::{Compress, Condition, ErrorHandlerResponse, ErrorHandlers, from_fn};
use actix_web::{App, HttpResponse, HttpServer, ResponseError, web};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::config::{Config, SecretSource};
use crate::error::{ApiError, PROBLEM_JSON};
use crate::state::AppState;
use crate::store::DbSetupError;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error(transparent)]
    Database(#[from] DbSetupError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("{0}")]
    Setup(String),
}

/// A bound, running server.
pub struct RunningServer {
    /// The address actually bound (useful with port 0).
    pub addr: SocketAddr,
    /// The SMTP listener's address actually bound (`DJAMBI_SMTP_LISTEN`), if any.
    pub smtp_addr: Option<SocketAddr>,
    server: actix_web::dev::Server,
    shutdown: shutdown::Shutdown,
    grace: std::time::Duration,
}

impl RunningServer {
    /// A handle to stop the server (`handle.stop(true).await`).
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until stopped (by the handle or a signal), then stops the background
    /// workers (see [`shutdown`]).
    pub async fn wait(self) -> std::io::Result<()> {
        let result = self.server.await;
        self.shutdown.stop_workers(self.grace).await;
        result
    }
}

/// Connects to the database, migrates it, and binds the HTTP server. Must be called inside
/// an actix system (e.g. `actix_web::rt::System::new().block_on(..)`).
pub async fn start(config: Config) -> Result<RunningServer, StartError> {
    start_with_clock(config, std::sync::Arc::new(clock::SystemClock)).await
}

/// [`start`] with another clock (tests drive deadlines with a `ManualClock`).
pub async fn start_with_clock(
    mut config: Config,
    clock: std::sync::Arc<dyn clock::Clock>,
) -> Result<RunningServer, StartError> {
    let db_cfg = config.database.clone();
    let signals = store::live::Signals::default();
    let pool_signals = signals.clone();
    let pool = web::block(move || {
        let pool = store::build_pool_with(&db_cfg, pool_signals)?;
        store::run_migrations(&pool)?;
        if db_cfg.backend == config::Backend::Sqlite {
            // SQLite made `-wal` and `-shm` with the main file's mode (0600); make sure.
            store::sqlite_files::sidecars_owner_only(std::path::Path::new(&db_cfg.url)).map_err(
                |source| DbSetupError::CreateDir {
                    path: db_cfg.url.clone(),
                    source,
                },
            )?;
        }
        Ok::<_, DbSetupError>(pool)
    })
    .await
    .map_err(|e| StartError::Setup(format!("start-up task failed: {e}")))??;
    tracing::info!(
        backend = ?config.database.backend,
        database = %config::redact_url(&config.database.url),
        "database ready"
    );

    dev_secret::apply(&mut config).map_err(StartError::Setup)?;
    dev_secret::apply_vapid(&mut config).map_err(StartError::Setup)?;
    if config.jwt_secret_source != SecretSource::Configured {
        tracing::warn!(
            "DEVELOPMENT MODE: DATABASE_URL is unset, so the embedded SQLite database `{}` is used \
             and access tokens are signed with the development secret in `{}`. Set DATABASE_URL \
             and DJAMBI_JWT_SECRET in production.",
            config.database.url,
            dev_secret::path_for_database(&config.database.url).display()
        );
    }

    let addr = config.listen;
    let workers = config.workers;
    let grace = config.shutdown_grace;
    let (hub, inbox_tx, inbox) = live::hub(
        pool.clone(),
        live::StreamLimits::new(config.streams_per_account, config.streams_per_instance),
    );
    // The write path signals its own hub in process, after its commits; on PostgreSQL
    // the other instances hear of it through the publisher and the listener.
    signals.connect(inbox_tx.clone());
    let instance = uuid::Uuid::new_v4().simple().to_string();
    let listener = match config.database.backend {
        config::Backend::Postgres => {
            let (publish_tx, publish_rx) = std::sync::mpsc::channel();
            signals.publish_to(publish_tx);
            let heard_others = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            Some((
                workers::listen::Listener {
                    url: config.database.url.clone(),
                    every: config.notify_poll,
                    instance: instance.clone(),
                    hub: inbox_tx,
                    heard_others: heard_others.clone(),
                    stop: Default::default(),
                },
                workers::listen::Publisher {
                    url: config.database.url.clone(),
                    every: config.signal_every,
                    instance,
                    topics: publish_rx,
                    heard_others,
                    stop: Default::default(),
                },
            ))
        }
        config::Backend::Sqlite => None,
    };
    let live_recheck = config.live_recheck;
    let mut state = AppState::new(config, pool, hub.clone()).map_err(StartError::Setup)?;
    state.clock = clock;
    let delivery = state.delivery().map_err(StartError::Setup)?;
    let state = web::Data::new(state);
    let _ = openapi::document_json();
    let stop = state.shutdown.token();
    state
        .shutdown
        .spawn("live", hub.clone().run(inbox, stop.clone()));
    if let Some((mut listener, mut publisher)) = listener {
        listener.stop = stop.clone();
        publisher.stop = stop.clone();
        workers::listen::spawn(listener);
        workers::listen::spawn_publisher(publisher);
        state.shutdown.spawn(
            "live-recheck",
            hub.clone().recheck_every(live_recheck, stop),
        );
    }
    workers::janitor::spawn(state.janitor(), &state.shutdown);
    workers::due::spawn(state.due_work(), &state.shutdown);
    workers::tournaments::spawn(
        workers::tournaments::TournamentClock {
            pool: state.pool.clone(),
            cache: state.games.clone(),
            clock: state.clock.clone(),
            every: state.config.due_interval,
        },
        &state.shutdown,
    );
    workers::analysis::spawn(state.analysis_work(), &state.shutdown);
    workers::delivery::spawn(std::sync::Arc::new(delivery), &state.shutdown);
    let smtp_addr = match state.config.mail_moves.smtp_listen {
        Some(smtp) => {
            let listener = std::net::TcpListener::bind(smtp)
                .map_err(|source| StartError::Bind { addr: smtp, source })?;
            let bound = listener.local_addr().unwrap_or(smtp);
            let hostname = state
                .config
                .mail_moves
                .domain
                .clone()
                .unwrap_or_else(|| "localhost".into());
            if state.config.mail_moves.domain.is_none() {
                tracing::warn!(
                    "DJAMBI_SMTP_LISTEN is set but DJAMBI_MAIL_DOMAIN is not: every recipient is refused"
                );
            }
            workers::smtp::spawn(
                workers::smtp::SmtpListener {
                    listener,
                    ctx: state.mail_moves(),
                    hostname,
                    max_bytes: mail_moves::message::MAX_BYTES,
                    idle: state.config.mail_moves.smtp_idle_timeout,
                    idle_before_mail: state.config.mail_moves.smtp_idle_before_mail,
                    per_address: state.config.mail_moves.smtp_per_address,
                    session: state.config.mail_moves.smtp_session_timeout,
                    xforward_from: state.config.mail_moves.smtp_xforward_from.clone(),
                },
                &state.shutdown,
            );
            tracing::info!("SMTP listener for replies on {bound}");
            Some(bound)
        }
        None => None,
    };
    let shutdown = state.shutdown.clone();
    let app_state = state.clone();
    // Connections: per client address (see `conn_limit`) and in all, shared out among the
    // workers (actix counts `max_connections` per worker).
    let conn_limits = conn_limit::ConnLimits::new(
        state.config.max_connections_per_address,
        state.config.trusted_proxies.clone(),
    );
    let worker_count = workers.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let per_worker = conn_limit::per_worker(state.config.max_connections, worker_count);
    let server = HttpServer::new(move || app(app_state.clone()))
        .on_connect(move |conn, data| conn_limits.on_connect(conn, data))
        .max_connections(per_worker)
        .shutdown_timeout(grace.as_secs().max(1))
        .disable_signals()
        .workers(worker_count);
    let server = server
        .bind(addr)
        .map_err(|source| StartError::Bind { addr, source })?;
    let bound = server.addrs().first().copied().unwrap_or(addr);
    tracing::info!("listening on http://{bound} (docs at /docs)");
    let server = server.run();
    shutdown::listen_for_signals(server.handle(), shutdown.clone(), grace);
    Ok(RunningServer {
        addr: bound,
        smtp_addr,
        server,
        shutdown,
        grace,
    })
}

/// Loads nothing, starts the server and serves until it stops.
pub async fn run(config: Config) -> Result<(), StartError> {
    let server = start(config).await?;
    server
        .wait()
        .await
        .map_err(|e| StartError::Setup(format!("server error: {e}")))
}

/// The application: routes, extractor configuration, middleware, docs.
pub fn app(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let limit = state.config.max_body_bytes;
    let cors_origins = &state.config.cors_origins;
    let cors = Condition::new(!cors_origins.is_empty(), http_policy::cors(cors_origins));
    let (app, _) = routes::register(App::new().into_utoipa_app()).split_for_parts();
    app.app_data(state)
        .app_data(web::Data::new(routes::health::OpenApiDocument(
            openapi::document_json(),
        )))
        .app_data(error::json_config(limit))
        .app_data(error::path_config())
        .app_data(error::query_config())
        .app_data(web::PayloadConfig::new(limit))
        .service(
            SwaggerUi::new("/docs/{_:.*}")
                .config(
                    utoipa_swagger_ui::Config::new(["/openapi.json"])
                        .validator_url("none")
                        .try_it_out_enabled(true),
                )
                // "Authorize" signs in with the server's own OAuth 2.0 (PKCE).
                .oauth(
                    utoipa_swagger_ui::oauth::Config::new()
                        .client_id("djambi-docs")
                        .app_name("Djambi API documentation")
                        .scopes(vec!["read".into(), "play".into()])
                        .use_pkce_with_authorization_code_grant(true),
                ),
        )
        .route(
            "/docs",
            web::get().to(|| async {
                HttpResponse::PermanentRedirect()
                    .insert_header((header::LOCATION, "/docs/"))
                    .finish()
            }),
        )
        // Prometheus metrics: not part of the public API document (see `metrics`).
        .route("/metrics", web::get().to(routes::metrics::endpoint))
        .default_service(web::to(routes::fallback::not_found))
        .wrap(from_fn(body_limit::limit_body))
        // Connections over their address's cap: 429, closed, before any body is read.
        .wrap(from_fn(conn_limit::limit_connections))
        // HEAD, OPTIONS, Cache-Control; CORS for DJAMBI_CORS_ORIGINS (accounts).
        .wrap(from_fn(http_policy::policy))
        .wrap(cors)
        .wrap(ErrorHandlers::new().default_handler(problem_for_bare_errors))
        // Problem titles in the request's language (Accept-Language).
        .wrap(from_fn(routes::language::translate_problems))
        // Request id, request span and log line, HTTP metrics, draining (see `telemetry`).
        .wrap(from_fn(telemetry::observe))
        .wrap(Compress::default())
}

/// Replaces any error response that is not already problem+json (from actix itself or a
/// library) with the problem of its status, so no client ever sees a bare error page.
fn problem_for_bare_errors<B>(
    res: ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    // Problems pass, and so do the HTML pages' own error pages (routes::web::page).
    let is_problem = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM_JSON) || v.starts_with("text/html"))
        // OAuth 2.0 errors are RFC 6749's JSON (`error`), which clients read.
        || res.request().path().starts_with("/oauth/");
    if is_problem {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let status = res.status();
    let err = match status.as_u16() {
        400 => ApiError::field("request", "the request is malformed"),
        401 => ApiError::unauthenticated("authentication is required"),
        403 => ApiError::Forbidden("not allowed".into()),
        404 => ApiError::NotFound(format!("nothing at {}", res.request().path())),
        405 => ApiError::MethodNotAllowed,
        413 => ApiError::PayloadTooLarge { limit: 0 },
        415 => ApiError::UnsupportedMediaType("unsupported media type".into()),
        429 => ApiError::RateLimited {
            retry_after_secs: 1,
        },
        503 => ApiError::Unavailable("service unavailable".into()),
        _ => ApiError::Internal(format!("unexpected {status} response")),
    };
    let mut response = err.error_response();
    if !status.is_server_error() || status.as_u16() == 503 {
        *response.status_mut() = status;
    }
    let (req, _) = res.into_parts();
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(req, response).map_into_right_body(),
    ))
}
