//! Typed server configuration.
//!
//! Every setting has an environment variable (the names in API.md, plus more with the
//! `DJAMBI_` prefix). An optional TOML file named by `DJAMBI_CONFIG` may hold the same
//! settings under the lower-case name without the prefix (`listen = "0.0.0.0:8080"`,
//! `database_url = "postgres://..."`); the environment wins over the file. Everything is
//! parsed and checked once, at start, and a bad value is one clear line naming the setting.
//!
//! Each setting is declared once, in [`settings`]: its help, parser, bounds, names, default.
//! This module depends on no other module of the crate (the notifications code reads its
//! settings from [`notify`]).

mod declare;
pub mod notify;
pub(crate) mod parse;
pub mod settings;
mod smtp_url;

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use declare::{Alias, Fallback, Production, Setting};
pub use parse::parse_duration;
pub use settings::SETTINGS;

use declare::Sources;
pub use notify::{NotifyConfig, SmtpConfig, SmtpTls};
use parse::Parse;

/// The database URL used when `DATABASE_URL` is not set: the embedded development default.
pub const DEFAULT_DATABASE_URL: &str = settings::DATABASE_URL.setting.default;
/// Where the server listens when `DJAMBI_LISTEN` is not set.
pub const DEFAULT_LISTEN: &str = settings::LISTEN.setting.default;
/// The shortest accepted JWT signing secret, in bytes.
pub const MIN_JWT_SECRET_BYTES: usize = 32;

/// A start-up configuration error: which setting, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The environment variable (or file) at fault.
    pub setting: String,
    /// What is wrong, in one line.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "configuration error: {}: {}", self.setting, self.message)
    }
}

impl std::error::Error for ConfigError {}

fn err(setting: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        setting: setting.to_string(),
        message: message.into(),
    }
}

/// Which database engine a URL selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// Database settings.
#[derive(Debug, Clone)]
pub struct DatabaseConfig {
    /// What diesel connects to: the URL for PostgreSQL, a file path for SQLite.
    pub url: String,
    pub backend: Backend,
    /// True when `DATABASE_URL` was not given and the embedded SQLite default is used.
    pub is_embedded_default: bool,
    pub pool_size: u32,
    pub timeout: Duration,
}

/// A secret that never prints itself.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Where the JWT secret came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretSource {
    Configured,
    /// Generated at start because the server runs the embedded development default.
    GeneratedForDevelopment,
    /// On the embedded default, read from (or first written to) the `jwt-secret` file beside
    /// the SQLite database, so tokens survive restarts (see `dev_secret`).
    StoredForDevelopment,
}

/// A rate: `burst` events, refilled evenly over `period`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateSpec {
    pub burst: u32,
    pub period: Duration,
}

/// Argon2id cost parameters for new password hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Argon2Config {
    pub memory_kib: u32,
    pub iterations: u32,
    pub parallelism: u32,
}

impl Default for Argon2Config {
    /// The declared defaults: OWASP's recommended minimum for argon2id (m=19 MiB, t=2, p=1).
    fn default() -> Self {
        Argon2Config {
            memory_kib: settings::ARGON2_MEMORY_KIB.default_value(),
            iterations: settings::ARGON2_ITERATIONS.default_value(),
            parallelism: settings::ARGON2_PARALLELISM.default_value(),
        }
    }
}

/// The whole server configuration, validated.
#[derive(Debug, Clone)]
pub struct Config {
    pub database: DatabaseConfig,
    pub listen: SocketAddr,
    pub public_url: url::Url,
    pub jwt_secret: Secret,
    pub jwt_secret_source: SecretSource,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub workers: Option<usize>,
    pub max_body_bytes: usize,
    pub login_limit_per_account: RateSpec,
    pub login_limit_per_ip: RateSpec,
    /// Registrations per client address: each costs a password hash.
    pub register_limit_per_ip: RateSpec,
    pub password_reset_limit_per_ip: RateSpec,
    /// Requests to the analysis board (no login) per client address.
    pub positions_limit_per_ip: RateSpec,
    /// How long the answer stored under an `Idempotency-Key` is kept.
    pub idempotency_retention: Duration,
    /// How often the due-work worker looks for passed deadlines.
    pub due_interval: Duration,
    /// How long a claimed due game is held (see `games::due`).
    pub due_lease: Duration,
    /// Due games worked on at once (see `workers::due`).
    pub due_concurrency: usize,
    /// Threads of bot searches (see `workers::bot_pool`).
    pub bot_threads: usize,
    /// Moves per second at most of a bot-only game.
    pub bot_only_plies_per_sec: u32,
    /// How long a computer player waits before its move is played (see `games::bots`).
    pub bot_delay: Duration,
    /// From this ply on, bots alone in a game agree a draw (see `games::bots`).
    pub bot_draw_plies: u32,
    /// How often the listening PostgreSQL connection is read (see `workers::listen`).
    pub notify_poll: Duration,
    /// How long the write path's signals are gathered before one NOTIFY (see
    /// `workers::listen`).
    pub signal_every: Duration,
    /// How often the hub re-reads its watched topics' newest rows (see `live`).
    pub live_recheck: Duration,
    /// Open streams per account (or client address) on an instance (see `live`).
    pub streams_per_account: usize,
    /// Open streams per instance (see `live`).
    pub streams_per_instance: usize,
    /// How often an open stream re-checks its credentials (see `routes::sse`).
    pub stream_recheck: Duration,
    /// The longest an event stream stays open (see `routes::sse`).
    pub stream_max_lifetime: Duration,
    /// The longest a request body may take in all, and between two pieces (see `body_limit`).
    pub body_timeout: Duration,
    pub body_idle_timeout: Duration,
    /// Open connections per instance, in all.
    pub max_connections: usize,
    /// Open connections per client address (see `conn_limit`).
    pub max_connections_per_address: usize,
    pub argon2: Argon2Config,
    // Accounts and HTTP hardening.
    /// Failed logins from all addresses before back-off for unknown addresses.
    pub login_limit_account_wide: RateSpec,
    /// Password hashes computed at once.
    pub hash_concurrency: usize,
    /// Requests that may wait for a hashing turn.
    pub hash_queue: usize,
    /// Reverse proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Origins allowed by CORS.
    pub cors_origins: Vec<String>,
    // -- operations --
    /// `DJAMBI_LOG_FORMAT`: text or JSON lines.
    pub log_format: LogFormat,
    /// `DJAMBI_SHUTDOWN_GRACE`: how long a graceful stop may take (requests, then workers).
    pub shutdown_grace: Duration,
    /// `DJAMBI_METRICS`: whether `/metrics` is served.
    pub metrics_enabled: bool,
    /// `DJAMBI_METRICS_TOKEN`: the bearer token `/metrics` requires, if any.
    pub metrics_token: Option<Secret>,
    /// Notification delivery (see [`notify`]).
    pub notify: NotifyConfig,
    /// Moves by mail (`DJAMBI_MAIL_DOMAIN`, `DJAMBI_MAIL_AUTH`, `DJAMBI_INBOUND_MAIL_SECRET`).
    pub mail_moves: MailMoves,
    /// How long data is kept (pruned by the janitor).
    pub retention: Retention,
    /// What one account (and the whole site) may hold or create.
    pub quotas: Quotas,
    /// The engine's analyses of games.
    pub analysis: AnalysisConfig,
    /// Deprecated setting names that were used, as warnings (see [`Config::deprecations`]).
    deprecations: Vec<String>,
}

/// Who may move by mail (`DJAMBI_MAIL_AUTH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailAuth {
    /// The token, the player's verified `From`, and a DKIM or SPF pass aligned with it.
    Aligned,
    /// The token and the player's verified `From` (development).
    Token,
}

impl parse::Words for MailAuth {
    const WORDS: &'static [(&'static str, Self)] =
        &[("aligned", MailAuth::Aligned), ("token", MailAuth::Token)];
}

/// Moves by mail: the reply addresses and who may use them.
#[derive(Debug, Clone)]
pub struct MailMoves {
    pub domain: Option<String>,
    pub auth: MailAuth,
    pub inbound_secret: Option<Secret>,
    /// `DJAMBI_SMTP_LISTEN`: the SMTP listener's address, if any.
    pub smtp_listen: Option<std::net::SocketAddr>,
    pub smtp_idle_timeout: Duration,
    /// `DJAMBI_SMTP_IDLE_TIMEOUT_BEFORE_MAIL`.
    pub smtp_idle_before_mail: Duration,
    /// `DJAMBI_SMTP_CONNECTIONS_PER_ADDRESS`.
    pub smtp_per_address: usize,
    pub smtp_session_timeout: Duration,
    /// `DJAMBI_SMTP_XFORWARD_FROM`: the relaying MTAs whose XFORWARD is believed.
    pub smtp_xforward_from: Vec<ipnet::IpNet>,
    /// `DJAMBI_MAIL_DNS`: the DNS servers of DKIM and SPF (empty: the system's).
    pub dns: Vec<std::net::SocketAddr>,
    pub limits: MailLimits,
}

/// The rate limits of replies (counted in the database over a sliding window).
#[derive(Debug, Clone, Copy)]
pub struct MailLimits {
    pub per_token: RateSpec,
    pub per_seat: RateSpec,
    pub per_sender: RateSpec,
    pub error_replies: RateSpec,
}

impl Default for MailLimits {
    /// The declared defaults.
    fn default() -> Self {
        MailLimits {
            per_token: settings::MAIL_LIMIT_PER_TOKEN.default_value(),
            per_seat: settings::MAIL_LIMIT_PER_SEAT.default_value(),
            per_sender: settings::MAIL_LIMIT_PER_SENDER.default_value(),
            error_replies: settings::MAIL_ERROR_REPLY_LIMIT.default_value(),
        }
    }
}

/// How long data is kept before the janitor (`workers::janitor`) deletes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// How often the janitor runs (`DJAMBI_JANITOR_INTERVAL`).
    pub every: Duration,
    /// Read notifications, after they were read.
    pub read_notifications: Duration,
    /// Unread notifications, after they were made.
    pub unread_notifications: Duration,
    /// Delivered or dead deliveries, after they were made.
    pub deliveries: Duration,
    /// Ended sessions (revoked, or unused longer than the refresh tokens live).
    pub sessions: Duration,
    /// Used or expired refresh, account and move-by-mail tokens; the records of replies
    /// by mail.
    pub tokens: Duration,
    /// Finished analyses of games, after they finished.
    pub analyses: Duration,
}

/// Per-account quotas on games, and the site-wide cap on games of bots alone (the
/// quotas on webhooks and push subscriptions are in [`NotifyConfig`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    pub open_games: u64,
    pub games_per_day: u64,
    pub imports_per_day: u64,
    pub bot_games_per_account: u64,
    pub bot_games_total: u64,
}

impl Default for Quotas {
    /// The declared defaults.
    fn default() -> Self {
        Quotas {
            open_games: settings::QUOTA_OPEN_GAMES.default_value(),
            games_per_day: settings::QUOTA_GAMES_PER_DAY.default_value(),
            imports_per_day: settings::QUOTA_IMPORTS_PER_DAY.default_value(),
            bot_games_per_account: settings::BOT_GAMES_PER_ACCOUNT.default_value(),
            bot_games_total: settings::BOT_GAMES_TOTAL.default_value(),
        }
    }
}

/// The engine's analyses of games (`DJAMBI_ANALYSIS_*`; see `analysis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// The level whose node budget analyses each position.
    pub level: domain::Level,
    /// Analyses worked on at once per instance.
    pub concurrency: usize,
    pub per_account_per_day: u64,
    /// Analyses waiting or running at once, site-wide.
    pub queue_max: u64,
}

/// How log lines are written (`DJAMBI_LOG_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

impl Config {
    /// Reads the process environment (and the file `DJAMBI_CONFIG` names, if any).
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Builds the configuration from any source of variables; `lookup` answers for an
    /// environment variable's name. Tests use this to configure a server in-process.
    pub fn from_lookup<F>(lookup: F) -> Result<Config, ConfigError>
    where
        F: Fn(&str) -> Option<String>,
    {
        let file = Sources::new(&lookup).optional(&settings::CONFIG)?;
        let src = match file {
            Some(path) => Sources::with_file(&lookup, &PathBuf::from(path), SETTINGS)?,
            None => Sources::new(&lookup),
        };
        Config::read(&src)
    }

    /// Warnings about deprecated setting names in use (`DJAMBI_SMTP_FROM`, ...), one line
    /// each, for the log once it is set up.
    pub fn deprecations(&self) -> &[String] {
        &self.deprecations
    }

    fn read(src: &Sources<'_>) -> Result<Config, ConfigError> {
        use settings::*;
        src.optional(&CONFIG)?;
        let (url, backend) = src.value(&DATABASE_URL)?;
        let is_embedded_default = !src.is_set(&DATABASE_URL);
        let listen = src.value(&LISTEN)?;
        let public_url = match src.optional(&PUBLIC_URL)? {
            Some(u) => u,
            None => parse::HttpUrl::parse(&format!("http://{listen}"))
                .map_err(|e| err(PUBLIC_URL.setting.env, e))?,
        };
        let (jwt_secret, jwt_secret_source) = match src.optional(&JWT_SECRET)? {
            Some(secret) => (secret, SecretSource::Configured),
            None if is_embedded_default => (
                Secret::new(random_secret()),
                SecretSource::GeneratedForDevelopment,
            ),
            None => {
                return Err(err(
                    JWT_SECRET.setting.env,
                    "is required when DATABASE_URL is set (at least 32 bytes, e.g. \
                     `openssl rand -base64 48`); only the embedded development default \
                     runs without one",
                ));
            }
        };
        let argon2 = Argon2Config {
            memory_kib: src.value(&ARGON2_MEMORY_KIB)?,
            iterations: src.value(&ARGON2_ITERATIONS)?,
            parallelism: src.value(&ARGON2_PARALLELISM)?,
        };
        if argon2.memory_kib < 8 * argon2.parallelism {
            return Err(err(
                ARGON2_MEMORY_KIB.setting.env,
                "must be at least 8 KiB per lane (DJAMBI_ARGON2_PARALLELISM)",
            ));
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Read by telemetry from the process environment; listed for the reference.
        src.optional(&RUST_LOG)?;

        let config = Config {
            database: DatabaseConfig {
                url,
                backend,
                is_embedded_default,
                pool_size: src.value(&DB_POOL_SIZE)?,
                timeout: src.value(&DB_TIMEOUT)?,
            },
            listen,
            public_url,
            jwt_secret,
            jwt_secret_source,
            access_token_ttl: src.value(&ACCESS_TOKEN_TTL)?,
            refresh_token_ttl: src.value(&REFRESH_TOKEN_TTL)?,
            workers: src.optional(&WORKERS)?,
            max_body_bytes: src.value(&MAX_BODY_BYTES)?,
            login_limit_per_account: src.value(&LOGIN_LIMIT_PER_ACCOUNT)?,
            login_limit_per_ip: src.value(&LOGIN_LIMIT_PER_IP)?,
            register_limit_per_ip: src.value(&REGISTER_LIMIT_PER_IP)?,
            password_reset_limit_per_ip: src.value(&PASSWORD_RESET_LIMIT_PER_IP)?,
            positions_limit_per_ip: src.value(&POSITIONS_LIMIT_PER_IP)?,
            idempotency_retention: src.value(&IDEMPOTENCY_RETENTION)?,
            due_interval: src.value(&DUE_INTERVAL)?,
            due_lease: src.value(&DUE_LEASE)?,
            bot_delay: src.value(&BOT_DELAY)?,
            bot_draw_plies: src.value(&BOT_DRAW_PLIES)?,
            notify_poll: src.value(&NOTIFY_POLL)?,
            signal_every: src.value(&SIGNAL_EVERY)?,
            live_recheck: src.value(&LIVE_RECHECK)?,
            streams_per_account: src.value(&STREAMS_PER_ACCOUNT)?,
            streams_per_instance: src.value(&STREAMS_PER_INSTANCE)?,
            stream_recheck: src.value(&STREAM_RECHECK)?,
            stream_max_lifetime: src.value(&STREAM_MAX_LIFETIME)?,
            body_timeout: src.value(&BODY_TIMEOUT)?,
            body_idle_timeout: src.value(&BODY_IDLE_TIMEOUT)?,
            max_connections: src
                .optional(&MAX_CONNECTIONS)?
                .unwrap_or_else(default_max_connections),
            max_connections_per_address: src.value(&MAX_CONNECTIONS_PER_ADDRESS)?,
            argon2,
            login_limit_account_wide: src.value(&LOGIN_LIMIT_ACCOUNT_WIDE)?,
            hash_concurrency: src.optional(&HASH_CONCURRENCY)?.unwrap_or(cores.min(256)),
            due_concurrency: src.value(&DUE_CONCURRENCY)?,
            bot_threads: src.optional(&BOT_THREADS)?.unwrap_or(cores.min(256)),
            bot_only_plies_per_sec: src.value(&BOT_ONLY_PLIES_PER_SEC)?,
            hash_queue: src.value(&HASH_QUEUE)?,
            trusted_proxies: src.optional(&TRUSTED_PROXIES)?.unwrap_or_default(),
            cors_origins: src.optional(&CORS_ORIGINS)?.unwrap_or_default(),
            log_format: src.value(&LOG_FORMAT)?,
            shutdown_grace: src.value(&SHUTDOWN_GRACE)?,
            metrics_enabled: src.value(&METRICS)?,
            metrics_token: src.optional(&METRICS_TOKEN)?,
            notify: NotifyConfig::read(src)?,
            mail_moves: MailMoves {
                domain: src.optional(&MAIL_DOMAIN)?.filter(|d| !d.is_empty()),
                auth: src.optional(&MAIL_AUTH)?.unwrap_or(if is_embedded_default {
                    MailAuth::Token
                } else {
                    MailAuth::Aligned
                }),
                inbound_secret: src.optional(&INBOUND_MAIL_SECRET)?,
                smtp_listen: src.optional(&SMTP_LISTEN)?,
                smtp_idle_timeout: src.value(&SMTP_IDLE_TIMEOUT)?,
                smtp_idle_before_mail: src.value(&SMTP_IDLE_TIMEOUT_BEFORE_MAIL)?,
                smtp_per_address: src.value(&SMTP_CONNECTIONS_PER_ADDRESS)?,
                smtp_session_timeout: src.value(&SMTP_SESSION_TIMEOUT)?,
                smtp_xforward_from: src.optional(&SMTP_XFORWARD_FROM)?.unwrap_or_default(),
                dns: src.optional(&MAIL_DNS)?.unwrap_or_default(),
                limits: MailLimits {
                    per_token: src.value(&MAIL_LIMIT_PER_TOKEN)?,
                    per_seat: src.value(&MAIL_LIMIT_PER_SEAT)?,
                    per_sender: src.value(&MAIL_LIMIT_PER_SENDER)?,
                    error_replies: src.value(&MAIL_ERROR_REPLY_LIMIT)?,
                },
            },
            retention: Retention {
                every: src.value(&JANITOR_INTERVAL)?,
                read_notifications: src.value(&READ_NOTIFICATION_RETENTION)?,
                unread_notifications: src.value(&UNREAD_NOTIFICATION_RETENTION)?,
                deliveries: src.value(&DELIVERY_RETENTION)?,
                sessions: src.value(&SESSION_RETENTION)?,
                tokens: src.value(&TOKEN_RETENTION)?,
                analyses: src.value(&ANALYSIS_RETENTION)?,
            },
            quotas: Quotas {
                open_games: src.value(&QUOTA_OPEN_GAMES)?,
                games_per_day: src.value(&QUOTA_GAMES_PER_DAY)?,
                imports_per_day: src.value(&QUOTA_IMPORTS_PER_DAY)?,
                bot_games_per_account: src.value(&BOT_GAMES_PER_ACCOUNT)?,
                bot_games_total: src.value(&BOT_GAMES_TOTAL)?,
            },
            analysis: AnalysisConfig {
                level: domain::Level::new(src.value(&ANALYSIS_LEVEL)?)
                    .unwrap_or(domain::search::analysis::DEFAULT_ANALYSIS_LEVEL),
                concurrency: src.value(&ANALYSIS_CONCURRENCY)?,
                per_account_per_day: src.value(&ANALYSIS_PER_ACCOUNT_PER_DAY)?,
                queue_max: src.value(&ANALYSIS_QUEUE_MAX)?,
            },
            deprecations: Vec::new(),
        };
        Ok(Config {
            deprecations: src.deprecations(),
            ..config
        })
    }
}

/// The parser of `DATABASE_URL` (see [`parse_database_url`]).
pub struct DbUrl;

impl Parse for DbUrl {
    type Out = (String, Backend);
    fn parse(text: &str) -> Result<(String, Backend), String> {
        parse_database_url(text.trim()).map_err(|e| e.message)
    }
}

/// Splits a database URL into what diesel connects to and the backend it names.
pub fn parse_database_url(url: &str) -> Result<(String, Backend), ConfigError> {
    const NAME: &str = "DATABASE_URL";
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok((url.to_string(), Backend::Postgres));
    }
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"));
    match path {
        Some(p) if p.trim().is_empty() => Err(err(NAME, "sqlite:// needs a file path")),
        Some(p) if p.contains(":memory:") || p.contains("mode=memory") => Err(err(
            NAME,
            "an in-memory SQLite database is not supported (each pooled connection would \
             see its own); use a file path",
        )),
        Some(p) if p.contains('?') => Err(err(
            NAME,
            "query parameters are not supported on sqlite:// URLs; give a plain file path",
        )),
        Some(p) => Ok((p.to_string(), Backend::Sqlite)),
        None => Err(err(
            NAME,
            format!(
                "`{}` is neither postgres://... nor sqlite://PATH",
                redact_url(url)
            ),
        )),
    }
}

/// The URL without its password, for messages and logs.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("****"));
            u.to_string()
        }
        Ok(u) => u.to_string(),
        // Not a URL: whatever precedes the last `@` may be a password.
        Err(_) => match url.rfind('@') {
            Some(at) => format!("****{}", &url[at..]).chars().take(40).collect(),
            None => url.chars().take(40).collect(),
        },
    }
}

/// `DJAMBI_MAX_CONNECTIONS` when unset: three quarters of the process's open-files limit
/// (the rest is for the database, files and the listener), at least 64, at most 25 000.
fn default_max_connections() -> usize {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct it is given and reads nothing else.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
        if ok && lim.rlim_cur != libc::RLIM_INFINITY {
            let quarter = (lim.rlim_cur / 4) as usize;
            return (lim.rlim_cur as usize - quarter).clamp(64, 25_000);
        }
    }
    25_000
}

fn random_secret() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 48];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn embedded_default_runs_without_a_secret() {
        let c = cfg(&[]).expect("defaults are valid");
        assert!(c.database.is_embedded_default);
        assert_eq!(c.database.backend, Backend::Sqlite);
        assert_eq!(c.database.url, "./data/djambi.sqlite");
        assert_eq!(c.jwt_secret_source, SecretSource::GeneratedForDevelopment);
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.public_url.as_str(), "http://127.0.0.1:8080/");
        assert_eq!(c.argon2, Argon2Config::default());
    }

    #[test]
    fn explicit_database_requires_a_secret() {
        let e = cfg(&[("DATABASE_URL", "postgres://x@localhost/db")]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_JWT_SECRET");
        let e = cfg(&[("DATABASE_URL", "sqlite://x.db")]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_JWT_SECRET");
        let c = cfg(&[
            ("DATABASE_URL", "postgres://x@localhost/db"),
            ("DJAMBI_JWT_SECRET", SECRET),
        ])
        .unwrap();
        assert_eq!(c.database.backend, Backend::Postgres);
        assert_eq!(c.jwt_secret_source, SecretSource::Configured);
    }

    #[test]
    fn short_secret_is_rejected_even_in_development() {
        let e = cfg(&[("DJAMBI_JWT_SECRET", "short")]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_JWT_SECRET");
        assert!(e.to_string().contains("too short"), "{e}");
    }

    #[test]
    fn bad_values_name_their_setting() {
        for (name, value) in [
            ("DATABASE_URL", "mysql://x"),
            ("DATABASE_URL", "sqlite://:memory:"),
            ("DJAMBI_LISTEN", "nonsense"),
            ("DJAMBI_PUBLIC_URL", "ftp://x"),
            ("DJAMBI_ACCESS_TOKEN_TTL", "soon"),
            ("DJAMBI_ACCESS_TOKEN_TTL", "2s"),
            ("DJAMBI_DB_POOL_SIZE", "0"),
            ("DJAMBI_DB_POOL_SIZE", "-3"),
            ("DJAMBI_LOGIN_LIMIT_PER_IP", "5"),
            ("DJAMBI_LOGIN_LIMIT_PER_IP", "0/1m"),
            ("DJAMBI_MAX_BODY_BYTES", "10"),
            ("DJAMBI_TRUSTED_PROXIES", "10.0.0.0/33"),
            ("DJAMBI_CORS_ORIGINS", "app.example.org"),
            ("DJAMBI_CORS_ORIGINS", "https://app.example.org/path"),
            ("DJAMBI_HASH_CONCURRENCY", "0"),
            ("DJAMBI_LOG_FORMAT", "xml"),
            ("DJAMBI_METRICS", "maybe"),
            ("DJAMBI_METRICS_TOKEN", "short"),
            ("DJAMBI_WORKERS", "many"),
            ("DJAMBI_ARGON2_MEMORY_KIB", "4"),
            ("DJAMBI_DELIVERY_MAX_ATTEMPTS", "0"),
            ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "perhaps"),
            ("DJAMBI_SMTP_URL", "smtp://u:p@host?tls=ssl"),
            ("DJAMBI_SMTP_PORT", "0"),
            ("DJAMBI_VACATION_DAYS", "400"),
        ] {
            let e = cfg(&[(name, value), ("DJAMBI_JWT_SECRET", SECRET)]).unwrap_err();
            assert_eq!(e.setting, name, "{name}={value}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn durations_and_rates_parse() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        let c = cfg(&[("DJAMBI_LOGIN_LIMIT_PER_ACCOUNT", "3/10s")]).unwrap();
        assert_eq!(
            c.login_limit_per_account,
            RateSpec {
                burst: 3,
                period: Duration::from_secs(10)
            }
        );
    }

    #[test]
    fn hardening_settings_parse() {
        let c = cfg(&[]).unwrap();
        assert!(c.trusted_proxies.is_empty() && c.cors_origins.is_empty());
        assert!(c.hash_concurrency >= 1);
        assert_eq!(c.login_limit_account_wide.burst, 100);
        let c = cfg(&[
            ("DJAMBI_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1,::1"),
            (
                "DJAMBI_CORS_ORIGINS",
                "https://app.example.org,http://localhost:3000",
            ),
            ("DJAMBI_HASH_CONCURRENCY", "3"),
        ])
        .unwrap();
        assert_eq!(c.trusted_proxies.len(), 3);
        assert!(c.trusted_proxies[1].contains(&"192.0.2.1".parse::<std::net::IpAddr>().unwrap()));
        assert_eq!(c.cors_origins.len(), 2);
        assert_eq!(c.hash_concurrency, 3);
    }

    #[test]
    fn file_settings_apply_and_env_wins() {
        let dir = std::env::temp_dir().join(format!("djambi-cfg-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("djambi.toml");
        std::fs::write(
            &path,
            format!(
                "database_url = \"postgres://a@b/c\"\njwt_secret = \"{SECRET}\"\n\
                 listen = \"127.0.0.1:9000\"\ndb_pool_size = 3\n"
            ),
        )
        .unwrap();
        let p = path.to_string_lossy().to_string();
        let c = cfg(&[("DJAMBI_CONFIG", &p), ("DJAMBI_LISTEN", "127.0.0.1:9001")]).unwrap();
        assert_eq!(c.database.backend, Backend::Postgres);
        assert_eq!(c.database.pool_size, 3);
        assert_eq!(c.listen.port(), 9001);

        std::fs::write(&path, "colour = \"blue\"\n").unwrap();
        let e = cfg(&[("DJAMBI_CONFIG", &p)]).unwrap_err();
        assert!(e.message.contains("unknown setting `colour`"), "{e}");
        let e = cfg(&[("DJAMBI_CONFIG", "/nonexistent/djambi.toml")]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_CONFIG");

        // A bad value in the file names the setting and says where it was read.
        std::fs::write(&path, "db_pool_size = 0\nwebhook_allow_private = true\n").unwrap();
        let e = cfg(&[("DJAMBI_CONFIG", &p)]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_DB_POOL_SIZE");
        assert!(
            e.message
                .contains("`db_pool_size` in the DJAMBI_CONFIG file"),
            "{e}"
        );

        // The deprecated key still reads, and is reported.
        std::fs::write(
            &path,
            "smtp_url = \"smtp://mail\"\nsmtp_from = \"A <a@b.c>\"\n",
        )
        .unwrap();
        let c = cfg(&[("DJAMBI_CONFIG", &p)]).unwrap();
        assert_eq!(c.notify.smtp.as_ref().unwrap().from, "A <a@b.c>");
        assert_eq!(
            c.deprecations(),
            ["`smtp_from` is deprecated: use `mail_from`"]
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Every declared default reads with its setting's parser, and the defaults make a
    /// configuration whose values are those defaults.
    #[test]
    fn every_default_parses() {
        for (env, result) in settings::check_defaults() {
            assert!(result.is_ok(), "{env}: {result:?}");
        }
        let c = cfg(&[]).unwrap();
        assert_eq!(c.access_token_ttl, Duration::from_secs(15 * 60));
        assert_eq!(c.database.pool_size, 8);
        assert_eq!(c.max_body_bytes, 64 * 1024);
        assert_eq!(
            c.register_limit_per_ip,
            RateSpec {
                burst: 20,
                period: Duration::from_secs(3600)
            }
        );
        assert_eq!(c.log_format, LogFormat::Text);
        assert!(c.metrics_enabled && c.metrics_token.is_none() && c.workers.is_none());
        assert_eq!(c.notify.max_attempts, 8);
        assert!(!c.notify.webhook_allow_private && c.notify.smtp.is_none());
        assert!(c.deprecations().is_empty());
    }

    /// `Config::from_lookup` reads every declared setting: no declaration without a use.
    #[test]
    fn every_declared_setting_is_read() {
        let lookup = |name: &str| (name == "DJAMBI_SMTP_HOST").then(|| "mail".to_string());
        let src = Sources::new(&lookup);
        Config::read(&src).unwrap();
        let read = src.read();
        for s in SETTINGS {
            assert!(read.contains(s.env), "{} is declared but never read", s.env);
        }
    }

    #[test]
    fn empty_is_unset() {
        let c = cfg(&[
            ("DJAMBI_WORKERS", " "),
            ("DJAMBI_LOG_FORMAT", ""),
            ("DATABASE_URL", ""),
        ])
        .unwrap();
        assert!(c.workers.is_none() && c.database.is_embedded_default);
    }

    #[test]
    fn secrets_stay_out_of_errors() {
        let e = cfg(&[("DJAMBI_METRICS_TOKEN", "tiny-secret")]).unwrap_err();
        assert!(!e.to_string().contains("tiny-secret"), "{e}");
        let e = cfg(&[("DATABASE_URL", "postgres//user:hunter2@db/x")]).unwrap_err();
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert_eq!(redact_url("postgres://u:pw@h/db"), "postgres://u:****@h/db");
    }
}
