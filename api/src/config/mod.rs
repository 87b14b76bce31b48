//! Typed server configuration.
//!
//! Every setting has an environment variable (the names in API.md, plus more with the
//! `DJAMBI_` prefix). An optional TOML file named by `DJAMBI_CONFIG` may hold the same
//! settings under the lower-case name without the prefix (`listen = "0.0.0.0:8080"`,
//! `database_url = "postgres://..."`); the environment wins over the file. Everything is
//! parsed and checked once, at start, and a bad value is one clear line naming the setting.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

/// The database URL used when `DATABASE_URL` is not set: the embedded development default.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://./data/djambi.sqlite";
/// Where the server listens when `DJAMBI_LISTEN` is not set.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// The shortest accepted JWT signing secret, in bytes.
pub const MIN_JWT_SECRET_BYTES: usize = 32;

/// Whether a production deployment must set a setting (the README's reference says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Production {
    /// Must be set: the default is only good for development.
    Required,
    /// Usually set (e.g. in a container, or behind a log collector).
    Usually,
    /// The default suits production.
    Optional,
}

/// One setting. [`SETTINGS`] is the single list that `djambi-server --help`, the TOML file's
/// accepted keys and the README's configuration reference (`djambi-server settings`) come
/// from; a test checks the README against it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The environment variable.
    pub env: &'static str,
    /// The key in the `DJAMBI_CONFIG` TOML file (`None`: environment only).
    pub key: Option<&'static str>,
    /// The default, as shown to people.
    pub default: &'static str,
    pub production: Production,
    /// What it is, in one line.
    pub help: &'static str,
}

/// Every setting.
pub const SETTINGS: &[Setting] = &[
    Setting {
        env: "DJAMBI_CONFIG",
        key: None,
        default: "none",
        production: Production::Optional,
        help: "a TOML file with any of the settings below, under their file keys; the environment wins",
    },
    Setting {
        env: "DATABASE_URL",
        key: Some("database_url"),
        default: "sqlite://./data/djambi.sqlite",
        production: Production::Required,
        help: "postgres://USER:PASSWORD@HOST/DB or sqlite://PATH; unset = the embedded development default",
    },
    Setting {
        env: "DJAMBI_LISTEN",
        key: Some("listen"),
        default: "127.0.0.1:8080",
        production: Production::Usually,
        help: "address:port to listen on (0.0.0.0:8080 in a container)",
    },
    Setting {
        env: "DJAMBI_JWT_SECRET",
        key: Some("jwt_secret"),
        default: "none",
        production: Production::Required,
        help: "access-token signing secret, at least 32 bytes (`openssl rand -base64 48`); without DATABASE_URL a development secret is kept in `jwt-secret` beside the SQLite file",
    },
    Setting {
        env: "DJAMBI_PUBLIC_URL",
        key: Some("public_url"),
        default: "http://LISTEN",
        production: Production::Required,
        help: "the URL clients reach the server at (links in answers and notifications)",
    },
    Setting {
        env: "DJAMBI_ACCESS_TOKEN_TTL",
        key: Some("access_token_ttl"),
        default: "15m",
        production: Production::Optional,
        help: "lifetime of access tokens, e.g. 900, 15m",
    },
    Setting {
        env: "DJAMBI_REFRESH_TOKEN_TTL",
        key: Some("refresh_token_ttl"),
        default: "30d",
        production: Production::Optional,
        help: "lifetime of refresh tokens",
    },
    Setting {
        env: "DJAMBI_DB_POOL_SIZE",
        key: Some("db_pool_size"),
        default: "8",
        production: Production::Optional,
        help: "database connections in the pool (per instance)",
    },
    Setting {
        env: "DJAMBI_DB_TIMEOUT",
        key: Some("db_timeout"),
        default: "5s",
        production: Production::Optional,
        help: "how long a request waits for a database connection",
    },
    Setting {
        env: "DJAMBI_WORKERS",
        key: Some("workers"),
        default: "one per core",
        production: Production::Optional,
        help: "HTTP worker threads",
    },
    Setting {
        env: "DJAMBI_MAX_BODY_BYTES",
        key: Some("max_body_bytes"),
        default: "65536",
        production: Production::Optional,
        help: "largest accepted request body",
    },
    Setting {
        env: "DJAMBI_LOGIN_LIMIT_PER_ACCOUNT",
        key: Some("login_limit_per_account"),
        default: "5/15m",
        production: Production::Optional,
        help: "failed logins per account from one client address before back-off, and the longest back-off, as N/DURATION (per instance)",
    },
    Setting {
        env: "DJAMBI_LOGIN_LIMIT_PER_IP",
        key: Some("login_limit_per_ip"),
        default: "30/1m",
        production: Production::Optional,
        help: "login attempts allowed per client address, as N/DURATION (per instance)",
    },
    Setting {
        env: "DJAMBI_REGISTER_LIMIT_PER_IP",
        key: Some("register_limit_per_ip"),
        default: "20/1h",
        production: Production::Optional,
        help: "registrations allowed per client address, as N/DURATION (per instance)",
    },
    Setting {
        env: "DJAMBI_IDEMPOTENCY_RETENTION",
        key: Some("idempotency_retention"),
        default: "24h",
        production: Production::Optional,
        help: "how long an Idempotency-Key's answer is kept",
    },
    Setting {
        env: "DJAMBI_ARGON2_MEMORY_KIB",
        key: Some("argon2_memory_kib"),
        default: "19456",
        production: Production::Optional,
        help: "argon2id memory cost in KiB",
    },
    Setting {
        env: "DJAMBI_ARGON2_ITERATIONS",
        key: Some("argon2_iterations"),
        default: "2",
        production: Production::Optional,
        help: "argon2id time cost",
    },
    Setting {
        env: "DJAMBI_ARGON2_PARALLELISM",
        key: Some("argon2_parallelism"),
        default: "1",
        production: Production::Optional,
        help: "argon2id lanes",
    },
    // -- operations (see telemetry.rs, metrics.rs, shutdown.rs) --
    Setting {
        env: "RUST_LOG",
        key: None,
        default: "info",
        production: Production::Optional,
        help: "log filter, e.g. `info,djambi_api=debug`; `djambi::access=warn` silences the request log",
    },
    Setting {
        env: "DJAMBI_LOG_FORMAT",
        key: Some("log_format"),
        default: "text",
        production: Production::Usually,
        help: "`text` (for people) or `json` (one object a line, for log collectors)",
    },
    Setting {
        env: "DJAMBI_SHUTDOWN_GRACE",
        key: Some("shutdown_grace"),
        default: "30s",
        production: Production::Optional,
        help: "on SIGTERM/SIGINT, how long in-flight requests, then background workers, may take to finish",
    },
    Setting {
        env: "DJAMBI_METRICS",
        key: Some("metrics"),
        default: "on",
        production: Production::Optional,
        help: "`on` serves Prometheus metrics at /metrics, `off` does not",
    },
    Setting {
        env: "DJAMBI_METRICS_TOKEN",
        key: Some("metrics_token"),
        default: "none",
        production: Production::Usually,
        help: "if set, /metrics requires `Authorization: Bearer <token>` (set it when /metrics is reachable from outside)",
    },
    Setting {
        env: "DJAMBI_DUE_INTERVAL",
        key: Some("due_interval"),
        default: "5s",
        production: Production::Optional,
        help: "how often each instance looks for due games (passed deadlines, computer players' turns), e.g. 500ms, 5s",
    },
    Setting {
        env: "DJAMBI_DUE_LEASE",
        key: Some("due_lease"),
        default: "60s",
        production: Production::Optional,
        help: "how long an instance holds a due game it claimed before another may take it",
    },
    Setting {
        env: "DJAMBI_BOT_DELAY",
        key: Some("bot_delay"),
        default: "1s",
        production: Production::Optional,
        help: "how long a computer player waits after its turn comes before the due-work worker plays it (none in a game with only bots left)",
    },
    Setting {
        env: "DJAMBI_BOT_DRAW_PLIES",
        key: Some("bot_draw_plies"),
        default: "600",
        production: Production::Optional,
        help: "from this ply on, a game whose active seats are all computer players ends as a draw they agree",
    },
    Setting {
        env: "DJAMBI_NOTIFY_POLL",
        key: Some("notify_poll"),
        default: "1s",
        production: Production::Optional,
        help: "how often a notification stream (SSE) looks for new items",
    },
    Setting {
        env: "DJAMBI_LOGIN_LIMIT_ACCOUNT_WIDE",
        key: Some("login_limit_account_wide"),
        default: "100/1h",
        production: Production::Optional,
        help: "failed logins per account from all addresses before back-off for addresses that never logged into it, and the longest back-off, as N/DURATION",
    },
    Setting {
        env: "DJAMBI_HASH_CONCURRENCY",
        key: Some("hash_concurrency"),
        default: "one per core",
        production: Production::Optional,
        help: "password hashes computed at once",
    },
    Setting {
        env: "DJAMBI_HASH_QUEUE",
        key: Some("hash_queue"),
        default: "16",
        production: Production::Optional,
        help: "requests that may wait for a password hash; beyond, 503",
    },
    Setting {
        env: "DJAMBI_TRUSTED_PROXIES",
        key: Some("trusted_proxies"),
        default: "none",
        production: Production::Usually,
        help: "comma-separated addresses or CIDR networks of reverse proxies whose X-Forwarded-For is believed",
    },
    Setting {
        env: "DJAMBI_CORS_ORIGINS",
        key: Some("cors_origins"),
        default: "none",
        production: Production::Optional,
        help: "comma-separated origins (https://app.example) allowed to call the API from a browser",
    },
    // Notification delivery (see `notifications::config`).
    Setting {
        env: "DJAMBI_DELIVERY_INTERVAL",
        key: Some("delivery_interval"),
        default: "1s",
        production: Production::Optional,
        help: "how often each instance looks for deliveries to send",
    },
    Setting {
        env: "DJAMBI_DELIVERY_LEASE",
        key: Some("delivery_lease"),
        default: "60s",
        production: Production::Optional,
        help: "how long an instance holds a delivery it claimed",
    },
    Setting {
        env: "DJAMBI_DELIVERY_MAX_ATTEMPTS",
        key: Some("delivery_max_attempts"),
        default: "8",
        production: Production::Optional,
        help: "attempts before a delivery is dead-lettered",
    },
    Setting {
        env: "DJAMBI_DELIVERY_BACKOFF",
        key: Some("delivery_backoff"),
        default: "30s",
        production: Production::Optional,
        help: "wait after the first failed attempt, doubled after each further one",
    },
    Setting {
        env: "DJAMBI_DELIVERY_BACKOFF_MAX",
        key: Some("delivery_backoff_max"),
        default: "6h",
        production: Production::Optional,
        help: "longest wait between two attempts",
    },
    Setting {
        env: "DJAMBI_WEBHOOK_TIMEOUT",
        key: Some("webhook_timeout"),
        default: "10s",
        production: Production::Optional,
        help: "time limit of one webhook request, connecting included",
    },
    Setting {
        env: "DJAMBI_WEBHOOK_DISABLE_AFTER",
        key: Some("webhook_disable_after"),
        default: "20",
        production: Production::Optional,
        help: "failed attempts in a row after which an endpoint is disabled",
    },
    Setting {
        env: "DJAMBI_WEBHOOK_SECRET_GRACE",
        key: Some("webhook_secret_grace"),
        default: "24h",
        production: Production::Optional,
        help: "how long the previous secret also signs after a rotation",
    },
    Setting {
        env: "DJAMBI_WEBHOOK_ALLOW_PRIVATE",
        key: Some("webhook_allow_private"),
        default: "false",
        production: Production::Optional,
        help: "true: webhooks may target loopback/private/link-local addresses",
    },
    Setting {
        env: "DJAMBI_SMTP_HOST",
        key: Some("smtp_host"),
        default: "none",
        production: Production::Usually,
        help: "SMTP server for e-mail notifications (unset: no e-mail)",
    },
    Setting {
        env: "DJAMBI_SMTP_PORT",
        key: Some("smtp_port"),
        default: "587; 465 for tls, 25 for none",
        production: Production::Optional,
        help: "SMTP port",
    },
    Setting {
        env: "DJAMBI_SMTP_TLS",
        key: Some("smtp_tls"),
        default: "starttls",
        production: Production::Optional,
        help: "none | starttls | tls",
    },
    Setting {
        env: "DJAMBI_SMTP_USERNAME",
        key: Some("smtp_username"),
        default: "none",
        production: Production::Optional,
        help: "SMTP user (optional)",
    },
    Setting {
        env: "DJAMBI_SMTP_PASSWORD",
        key: Some("smtp_password"),
        default: "none",
        production: Production::Optional,
        help: "SMTP password (optional)",
    },
    Setting {
        env: "DJAMBI_SMTP_FROM",
        key: Some("smtp_from"),
        default: "Djambi <djambi@localhost>",
        production: Production::Usually,
        help: "sender of notification mails",
    },
    Setting {
        env: "DJAMBI_VACATION_DAYS",
        key: Some("vacation_days"),
        default: "30",
        production: Production::Optional,
        help: "vacation days each player may take per calendar year",
    },
];

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
    /// OWASP's recommended minimum for argon2id (m=19 MiB, t=2, p=1).
    fn default() -> Self {
        Argon2Config {
            memory_kib: 19_456,
            iterations: 2,
            parallelism: 1,
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
    /// How long the answer stored under an `Idempotency-Key` is kept.
    pub idempotency_retention: Duration,
    /// How often the due-work worker looks for passed deadlines.
    pub due_interval: Duration,
    /// How long a claimed due game is held (see `games::due`).
    pub due_lease: Duration,
    /// How long a computer player waits before its move is played (see `games::bots`).
    pub bot_delay: Duration,
    /// From this ply on, bots alone in a game agree a draw (see `games::bots`).
    pub bot_draw_plies: u32,
    /// How often a notification stream polls the database.
    pub notify_poll: Duration,
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
    /// Notification delivery (see `notifications::config`).
    pub notify: crate::notifications::config::NotifyConfig,
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
        let file = match lookup("DJAMBI_CONFIG").filter(|p| !p.trim().is_empty()) {
            Some(path) => read_file(&PathBuf::from(path))?,
            None => BTreeMap::new(),
        };
        let get = |env: &str| -> Option<String> {
            if let Some(v) = lookup(env) {
                return Some(v);
            }
            let key = SETTINGS.iter().find(|s| s.env == env).and_then(|s| s.key)?;
            file.get(key).cloned()
        };

        let (database_url, is_embedded_default) = match get("DATABASE_URL") {
            Some(url) if !url.trim().is_empty() => (url.trim().to_string(), false),
            _ => (DEFAULT_DATABASE_URL.to_string(), true),
        };
        let (url, backend) = parse_database_url(&database_url)?;
        let pool_size = parse_int("DJAMBI_DB_POOL_SIZE", get("DJAMBI_DB_POOL_SIZE"), 8, 1, 200)?;
        let timeout = parse_duration_setting(
            "DJAMBI_DB_TIMEOUT",
            get("DJAMBI_DB_TIMEOUT"),
            Duration::from_secs(5),
            Duration::from_millis(100),
            Duration::from_secs(600),
        )?;

        let listen_text = get("DJAMBI_LISTEN").unwrap_or_else(|| DEFAULT_LISTEN.to_string());
        let listen = listen_text
            .trim()
            .to_socket_addrs()
            .map_err(|e| {
                err(
                    "DJAMBI_LISTEN",
                    format!("`{listen_text}` is not host:port ({e})"),
                )
            })?
            .next()
            .ok_or_else(|| {
                err(
                    "DJAMBI_LISTEN",
                    format!("`{listen_text}` resolves to nothing"),
                )
            })?;

        let public_url_text = get("DJAMBI_PUBLIC_URL")
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| format!("http://{listen}"));
        let public_url = url::Url::parse(public_url_text.trim()).map_err(|e| {
            err(
                "DJAMBI_PUBLIC_URL",
                format!("`{public_url_text}` is not a URL ({e})"),
            )
        })?;
        if !matches!(public_url.scheme(), "http" | "https") || public_url.host().is_none() {
            return Err(err(
                "DJAMBI_PUBLIC_URL",
                format!("`{public_url_text}` must be an http:// or https:// URL with a host"),
            ));
        }

        let (jwt_secret, jwt_secret_source) = match get("DJAMBI_JWT_SECRET") {
            Some(s) if !s.is_empty() => {
                if s.len() < MIN_JWT_SECRET_BYTES {
                    return Err(err(
                        "DJAMBI_JWT_SECRET",
                        format!(
                            "too short: {} bytes, at least {MIN_JWT_SECRET_BYTES} are required \
                             (e.g. `openssl rand -base64 48`)",
                            s.len()
                        ),
                    ));
                }
                (Secret::new(s), SecretSource::Configured)
            }
            _ if is_embedded_default => (
                Secret::new(random_secret()),
                SecretSource::GeneratedForDevelopment,
            ),
            _ => {
                return Err(err(
                    "DJAMBI_JWT_SECRET",
                    "is required when DATABASE_URL is set (at least 32 bytes, e.g. \
                     `openssl rand -base64 48`); only the embedded development default \
                     runs without one",
                ));
            }
        };

        let access_token_ttl = parse_duration_setting(
            "DJAMBI_ACCESS_TOKEN_TTL",
            get("DJAMBI_ACCESS_TOKEN_TTL"),
            Duration::from_secs(15 * 60),
            Duration::from_secs(10),
            Duration::from_secs(24 * 3600),
        )?;
        let refresh_token_ttl = parse_duration_setting(
            "DJAMBI_REFRESH_TOKEN_TTL",
            get("DJAMBI_REFRESH_TOKEN_TTL"),
            Duration::from_secs(30 * 24 * 3600),
            Duration::from_secs(1),
            Duration::from_secs(400 * 24 * 3600),
        )?;
        let idempotency_retention = parse_duration_setting(
            "DJAMBI_IDEMPOTENCY_RETENTION",
            get("DJAMBI_IDEMPOTENCY_RETENTION"),
            Duration::from_secs(24 * 3600),
            Duration::from_secs(1),
            Duration::from_secs(400 * 24 * 3600),
        )?;
        let due_interval = parse_duration_setting(
            "DJAMBI_DUE_INTERVAL",
            get("DJAMBI_DUE_INTERVAL"),
            Duration::from_secs(5),
            Duration::from_millis(1),
            Duration::from_secs(3600),
        )?;
        let due_lease = parse_duration_setting(
            "DJAMBI_DUE_LEASE",
            get("DJAMBI_DUE_LEASE"),
            Duration::from_secs(60),
            Duration::from_secs(1),
            Duration::from_secs(86_400),
        )?;
        let bot_delay = parse_duration_setting(
            "DJAMBI_BOT_DELAY",
            get("DJAMBI_BOT_DELAY"),
            Duration::from_secs(1),
            Duration::ZERO,
            Duration::from_secs(3600),
        )?;
        let bot_draw_plies = parse_int(
            "DJAMBI_BOT_DRAW_PLIES",
            get("DJAMBI_BOT_DRAW_PLIES"),
            600,
            1,
            100_000,
        )? as u32;
        let notify_poll = parse_duration_setting(
            "DJAMBI_NOTIFY_POLL",
            get("DJAMBI_NOTIFY_POLL"),
            Duration::from_secs(1),
            Duration::from_millis(10),
            Duration::from_secs(60),
        )?;
        let workers = match get("DJAMBI_WORKERS") {
            None => None,
            some => Some(parse_int("DJAMBI_WORKERS", some, 1, 1, 256)? as usize),
        };
        let max_body_bytes = parse_int(
            "DJAMBI_MAX_BODY_BYTES",
            get("DJAMBI_MAX_BODY_BYTES"),
            64 * 1024,
            1024,
            16 * 1024 * 1024,
        )? as usize;
        let login_limit_per_account = parse_rate(
            "DJAMBI_LOGIN_LIMIT_PER_ACCOUNT",
            get("DJAMBI_LOGIN_LIMIT_PER_ACCOUNT"),
            RateSpec {
                burst: 5,
                period: Duration::from_secs(15 * 60),
            },
        )?;
        let login_limit_per_ip = parse_rate(
            "DJAMBI_LOGIN_LIMIT_PER_IP",
            get("DJAMBI_LOGIN_LIMIT_PER_IP"),
            RateSpec {
                burst: 30,
                period: Duration::from_secs(60),
            },
        )?;
        let register_limit_per_ip = parse_rate(
            "DJAMBI_REGISTER_LIMIT_PER_IP",
            get("DJAMBI_REGISTER_LIMIT_PER_IP"),
            RateSpec {
                burst: 20,
                period: Duration::from_secs(3600),
            },
        )?;
        let d = Argon2Config::default();
        let argon2 = Argon2Config {
            memory_kib: parse_int(
                "DJAMBI_ARGON2_MEMORY_KIB",
                get("DJAMBI_ARGON2_MEMORY_KIB"),
                d.memory_kib.into(),
                8,
                4 * 1024 * 1024,
            )? as u32,
            iterations: parse_int(
                "DJAMBI_ARGON2_ITERATIONS",
                get("DJAMBI_ARGON2_ITERATIONS"),
                d.iterations.into(),
                1,
                100,
            )? as u32,
            parallelism: parse_int(
                "DJAMBI_ARGON2_PARALLELISM",
                get("DJAMBI_ARGON2_PARALLELISM"),
                d.parallelism.into(),
                1,
                64,
            )? as u32,
        };
        if argon2.memory_kib < 8 * argon2.parallelism {
            return Err(err(
                "DJAMBI_ARGON2_MEMORY_KIB",
                "must be at least 8 KiB per lane (DJAMBI_ARGON2_PARALLELISM)",
            ));
        }

        let login_limit_account_wide = parse_rate(
            "DJAMBI_LOGIN_LIMIT_ACCOUNT_WIDE",
            get("DJAMBI_LOGIN_LIMIT_ACCOUNT_WIDE"),
            RateSpec {
                burst: 100,
                period: Duration::from_secs(3600),
            },
        )?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        let hash_concurrency = parse_int(
            "DJAMBI_HASH_CONCURRENCY",
            get("DJAMBI_HASH_CONCURRENCY"),
            cores,
            1,
            256,
        )? as usize;
        let hash_queue =
            parse_int("DJAMBI_HASH_QUEUE", get("DJAMBI_HASH_QUEUE"), 16, 0, 10_000)? as usize;
        let trusted_proxies = parse_list(get("DJAMBI_TRUSTED_PROXIES"))
            .into_iter()
            .map(|item| {
                item.parse::<ipnet::IpNet>()
                    .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                    .map_err(|_| {
                        err(
                            "DJAMBI_TRUSTED_PROXIES",
                            format!("`{item}` is not an address or a CIDR network"),
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let cors_origins = parse_list(get("DJAMBI_CORS_ORIGINS"))
            .into_iter()
            .map(|item| {
                let ok = url::Url::parse(&item).is_ok_and(|u| {
                    matches!(u.scheme(), "http" | "https")
                        && u.host().is_some()
                        && u.path() == "/"
                        && !item.ends_with('/')
                        && u.query().is_none()
                });
                if ok {
                    Ok(item)
                } else {
                    Err(err(
                        "DJAMBI_CORS_ORIGINS",
                        format!("`{item}` is not an origin like https://app.example.org"),
                    ))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let log_format = match get("DJAMBI_LOG_FORMAT").as_deref().map(str::trim) {
            None | Some("" | "text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(err(
                    "DJAMBI_LOG_FORMAT",
                    format!("`{other}` is neither `text` nor `json`"),
                ));
            }
        };
        let shutdown_grace = parse_duration_setting(
            "DJAMBI_SHUTDOWN_GRACE",
            get("DJAMBI_SHUTDOWN_GRACE"),
            Duration::from_secs(30),
            Duration::from_secs(1),
            Duration::from_secs(3600),
        )?;
        let metrics_enabled = match get("DJAMBI_METRICS").as_deref().map(str::trim) {
            None | Some("" | "on" | "true" | "1") => true,
            Some("off" | "false" | "0") => false,
            Some(other) => {
                return Err(err(
                    "DJAMBI_METRICS",
                    format!("`{other}` is neither `on` nor `off`"),
                ));
            }
        };
        let metrics_token = match get("DJAMBI_METRICS_TOKEN") {
            Some(t) if !t.trim().is_empty() => {
                if t.trim().len() < 16 {
                    return Err(err("DJAMBI_METRICS_TOKEN", "too short: at least 16 bytes"));
                }
                Some(Secret::new(t.trim()))
            }
            _ => None,
        };
        let notify = crate::notifications::config::NotifyConfig::parse(&get)?;

        Ok(Config {
            notify,
            database: DatabaseConfig {
                url,
                backend,
                is_embedded_default,
                pool_size: pool_size as u32,
                timeout,
            },
            listen,
            public_url,
            jwt_secret,
            jwt_secret_source,
            access_token_ttl,
            refresh_token_ttl,
            workers,
            max_body_bytes,
            login_limit_per_account,
            login_limit_per_ip,
            register_limit_per_ip,
            idempotency_retention,
            due_interval,
            due_lease,
            bot_delay,
            bot_draw_plies,
            notify_poll,
            argon2,
            login_limit_account_wide,
            hash_concurrency,
            hash_queue,
            trusted_proxies,
            cors_origins,
            log_format,
            shutdown_grace,
            metrics_enabled,
            metrics_token,
        })
    }
}

/// A comma-separated list, items trimmed, empty ones dropped.
fn parse_list(value: Option<String>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn read_file(path: &PathBuf) -> Result<BTreeMap<String, String>, ConfigError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| err("DJAMBI_CONFIG", format!("cannot read `{shown}`: {e}")))?;
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| err("DJAMBI_CONFIG", format!("`{shown}` is not valid TOML: {e}")))?;
    let mut out = BTreeMap::new();
    for (key, value) in table {
        if !SETTINGS.iter().any(|s| s.key == Some(key.as_str())) {
            let known: Vec<&str> = SETTINGS.iter().filter_map(|s| s.key).collect();
            return Err(err(
                "DJAMBI_CONFIG",
                format!(
                    "`{shown}`: unknown setting `{key}` (known: {})",
                    known.join(", ")
                ),
            ));
        }
        let text = match value {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            other => {
                return Err(err(
                    "DJAMBI_CONFIG",
                    format!(
                        "`{shown}`: `{key}` must be a string or an integer, not {}",
                        other.type_str()
                    ),
                ));
            }
        };
        out.insert(key, text);
    }
    Ok(out)
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
        Err(_) => url.chars().take(40).collect(),
    }
}

pub(crate) fn parse_int(
    name: &str,
    value: Option<String>,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, ConfigError> {
    let Some(text) = value else {
        return Ok(default);
    };
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| err(name, format!("`{text}` is not a whole number")))?;
    if n < min || n > max {
        return Err(err(name, format!("{n} is out of range ({min}..={max})")));
    }
    Ok(n)
}

/// Parses `90`, `90s`, `15m`, `12h`, `30d` (a bare number is seconds).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: u64 = digits.parse().ok()?;
    let mult = match unit.trim() {
        "ms" => return Some(Duration::from_millis(n)),
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    n.checked_mul(mult).map(Duration::from_secs)
}

pub(crate) fn parse_duration_setting(
    name: &str,
    value: Option<String>,
    default: Duration,
    min: Duration,
    max: Duration,
) -> Result<Duration, ConfigError> {
    let Some(text) = value else {
        return Ok(default);
    };
    let d = parse_duration(&text).ok_or_else(|| {
        err(
            name,
            format!("`{text}` is not a duration (examples: 90, 90s, 15m, 12h, 30d)"),
        )
    })?;
    if d < min || d > max {
        return Err(err(
            name,
            format!("`{text}` is out of range ({min:?}..={max:?})"),
        ));
    }
    Ok(d)
}

fn parse_rate(
    name: &str,
    value: Option<String>,
    default: RateSpec,
) -> Result<RateSpec, ConfigError> {
    let Some(text) = value else {
        return Ok(default);
    };
    let bad = || {
        err(
            name,
            format!("`{text}` is not a rate N/DURATION (examples: 5/5m, 30/1m)"),
        )
    };
    let (n, d) = text.split_once('/').ok_or_else(bad)?;
    let burst: u32 = n.trim().parse().map_err(|_| bad())?;
    let period = parse_duration(d).ok_or_else(bad)?;
    if burst == 0 || period.is_zero() {
        return Err(err(
            name,
            format!("`{text}`: both parts must be above zero"),
        ));
    }
    Ok(RateSpec { burst, period })
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
        ] {
            let e = cfg(&[(name, value), ("DJAMBI_JWT_SECRET", SECRET)]).unwrap_err();
            assert_eq!(e.setting, name, "{name}={value}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn durations_and_rates_parse() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("15m"), Some(Duration::from_secs(900)));
        assert_eq!(parse_duration("2d"), Some(Duration::from_secs(172_800)));
        assert_eq!(parse_duration("x"), None);
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
        let _ = std::fs::remove_dir_all(dir);
    }
}
