//! Every setting, declared once: its doc comment is its help line, its type the parser of
//! its values (with their bounds), then its environment variable, its file key, its default
//! and whether production sets it. `--help`, the README table ([`crate::config_reference`]),
//! the file's accepted keys and the parsing in [`super::Config::from_lookup`] all read these.
//!
//! Adding a setting: declare it here (a test fails until `Config::from_lookup` reads it and
//! until the README table is regenerated), then read it with `src.value(&settings::NAME)`.

#![allow(clippy::identity_op)]

use super::declare::settings;
use super::parse::{
    D, Dur, Flag, H, HostPort, HttpUrl, Int, Key, List, M, MS, Network, OneOf, Origin, Rate, S,
    Text, Token, VapidKey, Verbatim,
};
use super::smtp_url::{SmtpTls, SmtpUrl};
use super::{DbUrl, LogFormat};

settings! {
    /// a TOML file with any of the settings below, under their file keys; the environment wins
    CONFIG: Text {
        env: "DJAMBI_CONFIG",
        production: Optional,
    }
    /// postgres://USER:PASSWORD@HOST/DB or sqlite://PATH; unset = the embedded development default
    DATABASE_URL: DbUrl {
        env: "DATABASE_URL",
        key: "database_url",
        default: "sqlite://./data/djambi.sqlite",
        production: Required,
    }
    /// address:port to listen on (0.0.0.0:8080 in a container)
    LISTEN: HostPort {
        env: "DJAMBI_LISTEN",
        key: "listen",
        default: "127.0.0.1:8080",
        production: Usually,
    }
    /// access-token signing secret, at least 32 bytes (`openssl rand -base64 48`); without
    /// DATABASE_URL a development secret is kept in `jwt-secret` beside the SQLite file
    JWT_SECRET: Key<{ super::MIN_JWT_SECRET_BYTES }> {
        env: "DJAMBI_JWT_SECRET",
        key: "jwt_secret",
        production: Required,
        secret: true,
    }
    /// the URL clients reach the server at (links in answers and notifications)
    PUBLIC_URL: HttpUrl {
        env: "DJAMBI_PUBLIC_URL",
        key: "public_url",
        derived: "http://LISTEN",
        production: Required,
    }
    /// lifetime of access tokens, e.g. 900, 15m
    ACCESS_TOKEN_TTL: Dur<{ 10 * S }, { 24 * H }> {
        env: "DJAMBI_ACCESS_TOKEN_TTL",
        key: "access_token_ttl",
        default: "15m",
        production: Optional,
    }
    /// lifetime of refresh tokens
    REFRESH_TOKEN_TTL: Dur<{ 1 * S }, { 400 * D }> {
        env: "DJAMBI_REFRESH_TOKEN_TTL",
        key: "refresh_token_ttl",
        default: "30d",
        production: Optional,
    }
    /// database connections in the pool (per instance)
    DB_POOL_SIZE: Int<u32, 1, 200> {
        env: "DJAMBI_DB_POOL_SIZE",
        key: "db_pool_size",
        default: "8",
        production: Optional,
    }
    /// how long a request waits for a database connection
    DB_TIMEOUT: Dur<{ 100 * MS }, { 600 * S }> {
        env: "DJAMBI_DB_TIMEOUT",
        key: "db_timeout",
        default: "5s",
        production: Optional,
    }
    /// HTTP worker threads
    WORKERS: Int<usize, 1, 256> {
        env: "DJAMBI_WORKERS",
        key: "workers",
        derived: "one per core",
        production: Optional,
    }
    /// largest accepted request body
    MAX_BODY_BYTES: Int<usize, 1024, { 16 * 1024 * 1024 }> {
        env: "DJAMBI_MAX_BODY_BYTES",
        key: "max_body_bytes",
        default: "65536",
        production: Optional,
    }
    /// failed logins per account from one client address before back-off, and the longest
    /// back-off, as N/DURATION (per instance)
    LOGIN_LIMIT_PER_ACCOUNT: Rate {
        env: "DJAMBI_LOGIN_LIMIT_PER_ACCOUNT",
        key: "login_limit_per_account",
        default: "5/15m",
        production: Optional,
    }
    /// login attempts allowed per client address, as N/DURATION (per instance)
    LOGIN_LIMIT_PER_IP: Rate {
        env: "DJAMBI_LOGIN_LIMIT_PER_IP",
        key: "login_limit_per_ip",
        default: "30/1m",
        production: Optional,
    }
    /// registrations allowed per client address, as N/DURATION (per instance)
    REGISTER_LIMIT_PER_IP: Rate {
        env: "DJAMBI_REGISTER_LIMIT_PER_IP",
        key: "register_limit_per_ip",
        default: "20/1h",
        production: Optional,
    }
    /// password reset requests allowed per client address, as N/DURATION (per instance)
    PASSWORD_RESET_LIMIT_PER_IP: Rate {
        env: "DJAMBI_PASSWORD_RESET_LIMIT_PER_IP",
        key: "password_reset_limit_per_ip",
        default: "10/1h",
        production: Optional,
    }
    /// requests to the analysis board (`/v1/positions/...`, no login) allowed per client
    /// address, as N/DURATION (per instance)
    POSITIONS_LIMIT_PER_IP: Rate {
        env: "DJAMBI_POSITIONS_LIMIT_PER_IP",
        key: "positions_limit_per_ip",
        default: "300/1m",
        production: Optional,
    }
    /// how long an Idempotency-Key's answer is kept
    IDEMPOTENCY_RETENTION: Dur<{ 1 * S }, { 400 * D }> {
        env: "DJAMBI_IDEMPOTENCY_RETENTION",
        key: "idempotency_retention",
        default: "24h",
        production: Optional,
    }
    /// argon2id memory cost in KiB
    ARGON2_MEMORY_KIB: Int<u32, 8, { 4 * 1024 * 1024 }> {
        env: "DJAMBI_ARGON2_MEMORY_KIB",
        key: "argon2_memory_kib",
        default: "19456",
        production: Optional,
    }
    /// argon2id time cost
    ARGON2_ITERATIONS: Int<u32, 1, 100> {
        env: "DJAMBI_ARGON2_ITERATIONS",
        key: "argon2_iterations",
        default: "2",
        production: Optional,
    }
    /// argon2id lanes
    ARGON2_PARALLELISM: Int<u32, 1, 64> {
        env: "DJAMBI_ARGON2_PARALLELISM",
        key: "argon2_parallelism",
        default: "1",
        production: Optional,
    }
    // -- operations (see telemetry.rs, metrics.rs, shutdown.rs) --
    /// log filter, e.g. `info,djambi_api=debug`; `djambi::access=warn` silences the request log
    RUST_LOG: Text {
        env: "RUST_LOG",
        default: "info",
        production: Optional,
    }
    /// `text` (for people) or `json` (one object a line, for log collectors)
    LOG_FORMAT: OneOf<LogFormat> {
        env: "DJAMBI_LOG_FORMAT",
        key: "log_format",
        default: "text",
        production: Usually,
    }
    /// on SIGTERM/SIGINT, how long in-flight requests, then background workers, may take to
    /// finish
    SHUTDOWN_GRACE: Dur<{ 1 * S }, { 1 * H }> {
        env: "DJAMBI_SHUTDOWN_GRACE",
        key: "shutdown_grace",
        default: "30s",
        production: Optional,
    }
    /// `on` serves Prometheus metrics at /metrics, `off` does not
    METRICS: Flag {
        env: "DJAMBI_METRICS",
        key: "metrics",
        default: "on",
        production: Optional,
    }
    /// if set, /metrics requires `Authorization: Bearer <token>` (set it when /metrics is
    /// reachable from outside)
    METRICS_TOKEN: Token<16> {
        env: "DJAMBI_METRICS_TOKEN",
        key: "metrics_token",
        production: Usually,
        secret: true,
    }
    /// how often each instance looks for due games (passed deadlines, computer players'
    /// turns), e.g. 500ms, 5s
    DUE_INTERVAL: Dur<{ 1 * MS }, { 1 * H }> {
        env: "DJAMBI_DUE_INTERVAL",
        key: "due_interval",
        default: "5s",
        production: Optional,
    }
    /// how long an instance holds a due game it claimed before another may take it
    DUE_LEASE: Dur<{ 1 * S }, { 1 * D }> {
        env: "DJAMBI_DUE_LEASE",
        key: "due_lease",
        default: "6s",
        production: Optional,
    }
    /// due games (deadlines, computer players' turns) one instance works on at once; each
    /// claim's lease is renewed every third of DJAMBI_DUE_LEASE while its work runs
    DUE_CONCURRENCY: Int<usize, 1, 1024> {
        env: "DJAMBI_DUE_CONCURRENCY",
        key: "due_concurrency",
        default: "16",
        production: Optional,
    }
    /// threads of computer players' searches (never the request threads); with two or more,
    /// one is kept for games with people in them
    BOT_THREADS: Int<usize, 1, 256> {
        env: "DJAMBI_BOT_THREADS",
        key: "bot_threads",
        derived: "one per core",
        production: Optional,
    }
    /// moves per second at most of a game with only computer players left (it yields to
    /// other games after each move)
    BOT_ONLY_PLIES_PER_SEC: Int<u32, 1, 1000> {
        env: "DJAMBI_BOT_ONLY_PLIES_PER_SEC",
        key: "bot_only_plies_per_sec",
        default: "4",
        production: Optional,
    }
    /// how long a computer player waits after its turn comes before the due-work worker plays
    /// it (none in a game with only bots left)
    BOT_DELAY: Dur<0, { 1 * H }> {
        env: "DJAMBI_BOT_DELAY",
        key: "bot_delay",
        default: "1s",
        production: Optional,
    }
    /// from this ply on, a game whose active seats are all computer players ends as a draw
    /// they agree
    BOT_DRAW_PLIES: Int<u32, 1, 100_000> {
        env: "DJAMBI_BOT_DRAW_PLIES",
        key: "bot_draw_plies",
        default: "600",
        production: Optional,
    }
    /// how often the instance's one listening PostgreSQL connection is read for new
    /// notifications (a socket read, no query; streams never poll the database)
    NOTIFY_POLL: Dur<{ 10 * MS }, { 1 * M }> {
        env: "DJAMBI_NOTIFY_POLL",
        key: "notify_poll",
        default: "50ms",
        production: Optional,
    }
    /// how long an instance on PostgreSQL gathers the games and users its writes changed
    /// before telling the other instances, in one NOTIFY on a connection of its own (no
    /// write transaction notifies; an instance alone on its database sends none)
    SIGNAL_EVERY: Dur<{ 1 * MS }, { 10 * M }> {
        env: "DJAMBI_SIGNAL_EVERY",
        key: "signal_every",
        default: "5ms",
        production: Optional,
    }
    /// how often an instance on PostgreSQL re-reads the newest version of the games and
    /// users its streams watch (two queries, whatever the number of streams), so that an
    /// event whose signal was lost (an instance died between its commit and its NOTIFY)
    /// still arrives within this time
    LIVE_RECHECK: Dur<{ 100 * MS }, { 1 * H }> {
        env: "DJAMBI_LIVE_RECHECK",
        key: "live_recheck",
        default: "2s",
        production: Optional,
    }
    /// event streams (SSE) one account, or one client address without an account, may hold
    /// open at once on an instance; beyond, 429 with Retry-After
    STREAMS_PER_ACCOUNT: Int<usize, 1, 100_000> {
        env: "DJAMBI_STREAMS_PER_ACCOUNT",
        key: "streams_per_account",
        default: "32",
        production: Optional,
    }
    /// event streams (SSE) one instance holds open at once; beyond, 503 with Retry-After
    STREAMS_PER_INSTANCE: Int<usize, 1, 10_000_000> {
        env: "DJAMBI_STREAMS_PER_INSTANCE",
        key: "streams_per_instance",
        default: "20000",
        production: Optional,
    }
    /// the longest an open event stream (SSE) goes without checking that the session or
    /// personal access token it was opened with still holds (one indexed query per token);
    /// a revocation, an ended session or a closed account ends the stream at once anyway
    /// (the database signals it), so this only bounds how long an expired token's stream
    /// stays open
    STREAM_RECHECK: Dur<{ 100 * MS }, { 1 * D }> {
        env: "DJAMBI_STREAM_RECHECK",
        key: "stream_recheck",
        default: "15m",
        production: Optional,
    }
    /// the longest an event stream (SSE) stays open; clients reconnect with Last-Event-ID
    STREAM_MAX_LIFETIME: Dur<{ 1 * S }, { 7 * D }> {
        env: "DJAMBI_STREAM_MAX_LIFETIME",
        key: "stream_max_lifetime",
        default: "1h",
        production: Optional,
    }
    /// the longest a request body may take to arrive, in all; beyond, 408 and the connection
    /// is closed
    BODY_TIMEOUT: Dur<{ 100 * MS }, { 1 * H }> {
        env: "DJAMBI_BODY_TIMEOUT",
        key: "body_timeout",
        default: "10s",
        production: Optional,
    }
    /// the longest a request body may pause between two pieces; beyond, 408 and the
    /// connection is closed
    BODY_IDLE_TIMEOUT: Dur<{ 100 * MS }, { 1 * H }> {
        env: "DJAMBI_BODY_IDLE_TIMEOUT",
        key: "body_idle_timeout",
        default: "5s",
        production: Optional,
    }
    /// open HTTP connections an instance accepts at once (in all, shared out among the
    /// workers); beyond, new connections wait in the listen queue
    MAX_CONNECTIONS: Int<usize, 1, 1_000_000> {
        env: "DJAMBI_MAX_CONNECTIONS",
        key: "max_connections",
        derived: "3/4 of the open-files limit, at most 25000",
        production: Optional,
    }
    /// open HTTP connections one client address may hold at once (reverse proxies in
    /// DJAMBI_TRUSTED_PROXIES are exempt); beyond, 429 with Retry-After and the connection
    /// is closed (/healthz and /readyz are always answered)
    MAX_CONNECTIONS_PER_ADDRESS: Int<usize, 1, 1_000_000> {
        env: "DJAMBI_MAX_CONNECTIONS_PER_ADDRESS",
        key: "max_connections_per_address",
        default: "128",
        production: Optional,
    }
    /// failed logins per account from all addresses before back-off for addresses that never
    /// logged into it, and the longest back-off, as N/DURATION
    LOGIN_LIMIT_ACCOUNT_WIDE: Rate {
        env: "DJAMBI_LOGIN_LIMIT_ACCOUNT_WIDE",
        key: "login_limit_account_wide",
        default: "100/1h",
        production: Optional,
    }
    /// password hashes computed at once
    HASH_CONCURRENCY: Int<usize, 1, 256> {
        env: "DJAMBI_HASH_CONCURRENCY",
        key: "hash_concurrency",
        derived: "one per core",
        production: Optional,
    }
    /// most requests that may wait for a password hash (a request whose expected wait,
    /// the turns ahead × the recent hash time, is over 3 s gets 503 at once anyway);
    /// beyond, 503
    HASH_QUEUE: Int<usize, 0, 10_000> {
        env: "DJAMBI_HASH_QUEUE",
        key: "hash_queue",
        default: "256",
        production: Optional,
    }
    /// comma-separated addresses or CIDR networks of reverse proxies whose X-Forwarded-For is
    /// believed
    TRUSTED_PROXIES: List<Network> {
        env: "DJAMBI_TRUSTED_PROXIES",
        key: "trusted_proxies",
        production: Usually,
    }
    /// comma-separated origins (https://app.example) allowed to call the API from a browser
    CORS_ORIGINS: List<Origin> {
        env: "DJAMBI_CORS_ORIGINS",
        key: "cors_origins",
        production: Optional,
    }
    // -- notification delivery (see `notify`) --
    /// how often each instance looks for deliveries to send (a write's notifications go at once, on its signal; this finds those whose signal was lost)
    DELIVERY_INTERVAL: Dur<{ 1 * MS }, { 1 * H }> {
        env: "DJAMBI_DELIVERY_INTERVAL",
        key: "delivery_interval",
        default: "1s",
        production: Optional,
    }
    /// how long an instance holds a delivery it claimed
    DELIVERY_LEASE: Dur<{ 1 * S }, { 1 * D }> {
        env: "DJAMBI_DELIVERY_LEASE",
        key: "delivery_lease",
        default: "60s",
        production: Optional,
    }
    /// attempts before a delivery is dead-lettered
    DELIVERY_MAX_ATTEMPTS: Int<u32, 1, 100> {
        env: "DJAMBI_DELIVERY_MAX_ATTEMPTS",
        key: "delivery_max_attempts",
        default: "8",
        production: Optional,
    }
    /// wait after the first failed attempt, doubled after each further one
    DELIVERY_BACKOFF: Dur<{ 1 * MS }, { 1 * D }> {
        env: "DJAMBI_DELIVERY_BACKOFF",
        key: "delivery_backoff",
        default: "30s",
        production: Optional,
    }
    /// longest wait between two attempts (a receiver's Retry-After included)
    DELIVERY_BACKOFF_MAX: Dur<{ 1 * MS }, { 7 * D }> {
        env: "DJAMBI_DELIVERY_BACKOFF_MAX",
        key: "delivery_backoff_max",
        default: "6h",
        production: Optional,
    }
    /// time limit of one webhook request, connecting included
    WEBHOOK_TIMEOUT: Dur<{ 10 * MS }, { 120 * S }> {
        env: "DJAMBI_WEBHOOK_TIMEOUT",
        key: "webhook_timeout",
        default: "10s",
        production: Optional,
    }
    /// failed attempts in a row after which an endpoint is disabled
    WEBHOOK_DISABLE_AFTER: Int<u32, 1, 10_000> {
        env: "DJAMBI_WEBHOOK_DISABLE_AFTER",
        key: "webhook_disable_after",
        default: "20",
        production: Optional,
    }
    /// how long the previous secret also signs after a rotation
    WEBHOOK_SECRET_GRACE: Dur<0, { 30 * D }> {
        env: "DJAMBI_WEBHOOK_SECRET_GRACE",
        key: "webhook_secret_grace",
        default: "24h",
        production: Optional,
    }
    /// true: webhooks may target loopback/private/link-local addresses
    WEBHOOK_ALLOW_PRIVATE: Flag {
        env: "DJAMBI_WEBHOOK_ALLOW_PRIVATE",
        key: "webhook_allow_private",
        default: "false",
        production: Optional,
    }
    /// time limit of connecting to a webhook or push endpoint
    WEBHOOK_CONNECT_TIMEOUT: Dur<{ 10 * MS }, { 120 * S }> {
        env: "DJAMBI_WEBHOOK_CONNECT_TIMEOUT",
        key: "webhook_connect_timeout",
        default: "3s",
        production: Optional,
    }
    /// time limit from sending a webhook or push request to the first byte of its answer
    /// (at most DJAMBI_WEBHOOK_TIMEOUT, which bounds the whole request)
    WEBHOOK_FIRST_BYTE_TIMEOUT: Dur<{ 10 * MS }, { 120 * S }> {
        env: "DJAMBI_WEBHOOK_FIRST_BYTE_TIMEOUT",
        key: "webhook_first_byte_timeout",
        default: "5s",
        production: Optional,
    }
    /// webhook and push attempts one instance has in flight at once (a lane of its own:
    /// mail never waits for it)
    DELIVERY_CONCURRENCY: Int<usize, 1, 4096> {
        env: "DJAMBI_DELIVERY_CONCURRENCY",
        key: "delivery_concurrency",
        default: "32",
        production: Optional,
    }
    /// mails one instance sends at once (a lane of its own: webhooks never wait for it)
    MAIL_CONCURRENCY: Int<usize, 1, 1024> {
        env: "DJAMBI_MAIL_CONCURRENCY",
        key: "mail_concurrency",
        default: "4",
        production: Optional,
    }
    /// attempts in flight at once per endpoint on one instance (a webhook endpoint, a push
    /// subscription, a mail address; a push service's host is not limited, since all its
    /// users share it): a hung receiver holds no more than this many places
    DELIVERY_PER_ENDPOINT: Int<usize, 1, 64> {
        env: "DJAMBI_DELIVERY_PER_ENDPOINT",
        key: "delivery_per_endpoint",
        default: "2",
        production: Optional,
    }
    /// attempts in flight at once for one account's deliveries on one instance (all its
    /// endpoints together): one account's hung receivers never hold more places than this
    DELIVERY_PER_ACCOUNT: Int<usize, 1, 4096> {
        env: "DJAMBI_DELIVERY_PER_ACCOUNT",
        key: "delivery_per_account",
        default: "8",
        production: Optional,
    }
    /// Web Push signing key (VAPID, RFC 8292): a P-256 private key, 32 bytes in base64url
    /// (`npx web-push generate-vapid-keys`) or PEM (`openssl ecparam -name prime256v1
    /// -genkey -noout`). Unset: no push, except without DATABASE_URL, where a development key
    /// is kept in `vapid-private-key` beside the SQLite file
    VAPID_PRIVATE_KEY: VapidKey {
        env: "DJAMBI_VAPID_PRIVATE_KEY",
        key: "vapid_private_key",
        production: Usually,
        secret: true,
    }
    /// the contact push services see in the VAPID token: `mailto:you@example.org` or an https URL
    VAPID_SUBJECT: Text {
        env: "DJAMBI_VAPID_SUBJECT",
        key: "vapid_subject",
        derived: "mailto: the address of DJAMBI_MAIL_FROM",
        production: Usually,
    }
    /// push services whose hosts (and their subdomains) subscriptions may name without the
    /// address checks of webhooks (https only); other endpoints follow the webhook rules
    /// (DJAMBI_WEBHOOK_ALLOW_PRIVATE). Empty: every endpoint follows the webhook rules
    PUSH_SERVICE_HOSTS: List<Text> {
        env: "DJAMBI_PUSH_SERVICE_HOSTS",
        key: "push_service_hosts",
        default: "fcm.googleapis.com,updates.push.services.mozilla.com,push.services.mozilla.com,notify.windows.com,push.apple.com",
        production: Optional,
    }
    /// SMTP server for e-mail notifications, as your provider gives it:
    /// `smtp://USER:PASSWORD@HOST:PORT?tls=starttls` (`tls=starttls|tls|none`; user and
    /// password percent-encoded) or `smtps://USER:PASSWORD@HOST` (TLS from the first byte);
    /// the port defaults to 587, 465 for tls, 25 for none. Unset, and no DJAMBI_SMTP_HOST: no
    /// e-mail
    SMTP_URL: SmtpUrl {
        env: "DJAMBI_SMTP_URL",
        key: "smtp_url",
        production: Usually,
        secret: true,
    }
    /// SMTP server host; overrides the host of DJAMBI_SMTP_URL (or names the server without it)
    SMTP_HOST: Text {
        env: "DJAMBI_SMTP_HOST",
        key: "smtp_host",
        derived: "from DJAMBI_SMTP_URL",
        production: Optional,
    }
    /// SMTP port; overrides the port of DJAMBI_SMTP_URL
    SMTP_PORT: Int<u16, 1, 65535> {
        env: "DJAMBI_SMTP_PORT",
        key: "smtp_port",
        derived: "from DJAMBI_SMTP_URL; else 587, 465 for tls, 25 for none",
        production: Optional,
    }
    /// none | starttls | tls; overrides the tls of DJAMBI_SMTP_URL
    SMTP_TLS: OneOf<SmtpTls> {
        env: "DJAMBI_SMTP_TLS",
        key: "smtp_tls",
        derived: "from DJAMBI_SMTP_URL; else starttls",
        production: Optional,
    }
    /// SMTP user (optional); overrides the user of DJAMBI_SMTP_URL
    SMTP_USERNAME: Verbatim {
        env: "DJAMBI_SMTP_USERNAME",
        key: "smtp_username",
        derived: "from DJAMBI_SMTP_URL",
        production: Optional,
    }
    /// SMTP password (optional); overrides the password of DJAMBI_SMTP_URL
    SMTP_PASSWORD: Key<1> {
        env: "DJAMBI_SMTP_PASSWORD",
        key: "smtp_password",
        derived: "from DJAMBI_SMTP_URL",
        production: Optional,
        secret: true,
    }
    /// sender of notification mails
    MAIL_FROM: Text {
        env: "DJAMBI_MAIL_FROM",
        key: "mail_from",
        default: "Djambi <djambi@localhost>",
        production: Usually,
        aliases: [("DJAMBI_SMTP_FROM", Some("smtp_from"))],
    }
    /// the domain of the reply addresses of turn mails (`move+TOKEN@DOMAIN`); unset: turn
    /// mails carry no reply address and moves by mail are off
    MAIL_DOMAIN: Text {
        env: "DJAMBI_MAIL_DOMAIN",
        key: "mail_domain",
        production: Optional,
    }
    /// who may move by mail: `aligned` (the reply token, the player's verified From, and a
    /// DKIM or SPF pass aligned with it) or `token` (token and From alone: development)
    MAIL_AUTH: OneOf<super::MailAuth> {
        env: "DJAMBI_MAIL_AUTH",
        key: "mail_auth",
        derived: "token in the embedded development mode, else aligned",
        production: Optional,
    }
    /// the shared secret of `POST /v1/inbound-mail` (at least 32 bytes); unset: the
    /// endpoint answers 404
    INBOUND_MAIL_SECRET: Key<32> {
        env: "DJAMBI_INBOUND_MAIL_SECRET",
        key: "inbound_mail_secret",
        production: Optional,
        secret: true,
    }
    /// address:port of the server's own SMTP listener for replies to turn mails (meant to
    /// sit behind the site's MTA, which relays `move+*@DJAMBI_MAIL_DOMAIN` to it); unset: no
    /// listener
    SMTP_LISTEN: HostPort {
        env: "DJAMBI_SMTP_LISTEN",
        key: "smtp_listen",
        production: Optional,
    }
    /// the SMTP listener closes a connection silent for this long once a mail has begun
    /// (RFC 5321 asks for at least 5 minutes); a NOOP is not activity
    SMTP_IDLE_TIMEOUT: Dur<{ 100 * MS }, { 1 * H }> {
        env: "DJAMBI_SMTP_IDLE_TIMEOUT",
        key: "smtp_idle_timeout",
        default: "5m",
        production: Optional,
    }
    /// the SMTP listener closes a connection that has not begun a mail (MAIL FROM) this long
    /// after connecting or after its last mail, whatever else it sends (at most
    /// DJAMBI_SMTP_IDLE_TIMEOUT)
    SMTP_IDLE_TIMEOUT_BEFORE_MAIL: Dur<{ 100 * MS }, { 1 * H }> {
        env: "DJAMBI_SMTP_IDLE_TIMEOUT_BEFORE_MAIL",
        key: "smtp_idle_timeout_before_mail",
        default: "30s",
        production: Optional,
    }
    /// connections one client address (an IPv6 /64) may hold open to the SMTP listener at
    /// once (the relays of DJAMBI_SMTP_XFORWARD_FROM are exempt); beyond, 421 and closed
    SMTP_CONNECTIONS_PER_ADDRESS: Int<usize, 1, 64> {
        env: "DJAMBI_SMTP_CONNECTIONS_PER_ADDRESS",
        key: "smtp_connections_per_address",
        default: "8",
        production: Optional,
    }
    /// the SMTP listener closes a connection open this long, whatever it does
    SMTP_SESSION_TIMEOUT: Dur<{ 1 * S }, { 24 * H }> {
        env: "DJAMBI_SMTP_SESSION_TIMEOUT",
        key: "smtp_session_timeout",
        default: "30m",
        production: Optional,
    }
    /// comma-separated addresses or CIDR networks of the MTAs that relay replies to the SMTP
    /// listener and may tell it the original client with Postfix's XFORWARD (its ADDR and
    /// HELO are then what SPF checks); empty: XFORWARD is neither offered nor accepted
    SMTP_XFORWARD_FROM: List<Network> {
        env: "DJAMBI_SMTP_XFORWARD_FROM",
        key: "smtp_xforward_from",
        production: Optional,
    }
    /// DNS servers (ip:port) asked for the DKIM keys and SPF records of replies
    /// (DJAMBI_MAIL_AUTH=aligned); empty: the system's resolver (/etc/resolv.conf)
    MAIL_DNS: List<HostPort> {
        env: "DJAMBI_MAIL_DNS",
        key: "mail_dns",
        production: Optional,
    }
    /// authenticated replies taken per reply token, as N/DURATION; more are dropped silently
    MAIL_LIMIT_PER_TOKEN: Rate {
        env: "DJAMBI_MAIL_LIMIT_PER_TOKEN",
        key: "mail_limit_per_token",
        default: "10/1h",
        production: Optional,
    }
    /// authenticated replies taken per seat of a game (all its turn mails), as N/DURATION
    MAIL_LIMIT_PER_SEAT: Rate {
        env: "DJAMBI_MAIL_LIMIT_PER_SEAT",
        key: "mail_limit_per_seat",
        default: "30/1h",
        production: Optional,
    }
    /// authenticated replies taken per sender address (all games), as N/DURATION
    MAIL_LIMIT_PER_SENDER: Rate {
        env: "DJAMBI_MAIL_LIMIT_PER_SENDER",
        key: "mail_limit_per_sender",
        default: "60/1h",
        production: Optional,
    }
    /// error answers to replies sent, all players together, as N/DURATION; past it replies
    /// that would get one are dropped silently (logged, counted in
    /// `djambi_inbound_mails_total{outcome="dropped:error_cap"}`)
    MAIL_ERROR_REPLY_LIMIT: Rate {
        env: "DJAMBI_MAIL_ERROR_REPLY_LIMIT",
        key: "mail_error_reply_limit",
        default: "500/1h",
        production: Optional,
    }
    /// vacation days each player may take per calendar year
    VACATION_DAYS: Int<u32, 0, 366> {
        env: "DJAMBI_VACATION_DAYS",
        key: "vacation_days",
        default: "30",
        production: Optional,
    }
    // -- retention and quotas (see `workers::janitor`, `quotas`) --
    /// how often the janitor prunes what outlived its retention (in batches of 1,000 rows)
    JANITOR_INTERVAL: Dur<{ 10 * MS }, { 1 * D }> {
        env: "DJAMBI_JANITOR_INTERVAL",
        key: "janitor_interval",
        default: "10m",
        production: Optional,
    }
    /// how long a notification is kept after it was read
    READ_NOTIFICATION_RETENTION: Dur<{ 1 * S }, { 3650 * D }> {
        env: "DJAMBI_READ_NOTIFICATION_RETENTION",
        key: "read_notification_retention",
        default: "90d",
        production: Optional,
    }
    /// how long an unread notification is kept (after it was made)
    UNREAD_NOTIFICATION_RETENTION: Dur<{ 1 * S }, { 3650 * D }> {
        env: "DJAMBI_UNREAD_NOTIFICATION_RETENTION",
        key: "unread_notification_retention",
        default: "365d",
        production: Optional,
    }
    /// how long a finished delivery (delivered or dead) is kept (after it was made)
    DELIVERY_RETENTION: Dur<{ 1 * S }, { 3650 * D }> {
        env: "DJAMBI_DELIVERY_RETENTION",
        key: "delivery_retention",
        default: "30d",
        production: Optional,
    }
    /// how long an ended login session (revoked, or unused for longer than
    /// DJAMBI_REFRESH_TOKEN_TTL) is kept, with its refresh tokens
    SESSION_RETENTION: Dur<{ 1 * S }, { 3650 * D }> {
        env: "DJAMBI_SESSION_RETENTION",
        key: "session_retention",
        default: "30d",
        production: Optional,
    }
    /// how long a used or expired refresh token (and a used or expired e-mail confirmation,
    /// password reset or move-by-mail token) is kept, and the record of a reply by mail (its
    /// Message-ID)
    TOKEN_RETENTION: Dur<{ 1 * S }, { 3650 * D }> {
        env: "DJAMBI_TOKEN_RETENTION",
        key: "token_retention",
        default: "30d",
        production: Optional,
    }
    /// games one account may have created that have not ended (open or being played);
    /// beyond, 409 quota-exceeded
    QUOTA_OPEN_GAMES: Int<u64, 1, 1_000_000> {
        env: "DJAMBI_QUOTA_OPEN_GAMES",
        key: "quota_open_games",
        default: "100",
        production: Optional,
    }
    /// games (imports included) one account may create in 24 hours; beyond, 429
    /// rate-limited with Retry-After
    QUOTA_GAMES_PER_DAY: Int<u64, 1, 1_000_000> {
        env: "DJAMBI_QUOTA_GAMES_PER_DAY",
        key: "quota_games_per_day",
        default: "200",
        production: Optional,
    }
    /// game records one account may import in 24 hours; beyond, 429 rate-limited with
    /// Retry-After
    QUOTA_IMPORTS_PER_DAY: Int<u64, 1, 1_000_000> {
        env: "DJAMBI_QUOTA_IMPORTS_PER_DAY",
        key: "quota_imports_per_day",
        default: "50",
        production: Optional,
    }
    /// webhook endpoints one account may hold; beyond, 409 quota-exceeded
    QUOTA_WEBHOOKS: Int<u64, 1, 10_000> {
        env: "DJAMBI_QUOTA_WEBHOOKS",
        key: "quota_webhooks",
        default: "10",
        production: Optional,
    }
    /// Web Push subscriptions (devices) one account may hold; beyond, 409 quota-exceeded
    QUOTA_PUSH_SUBSCRIPTIONS: Int<u64, 1, 10_000> {
        env: "DJAMBI_QUOTA_PUSH_SUBSCRIPTIONS",
        key: "quota_push_subscriptions",
        default: "20",
        production: Optional,
    }
    /// games of computer players only (no person seated) one account may have going at
    /// once; beyond, 409 quota-exceeded
    BOT_GAMES_PER_ACCOUNT: Int<u64, 0, 10_000> {
        env: "DJAMBI_BOT_GAMES_PER_ACCOUNT",
        key: "bot_games_per_account",
        default: "3",
        production: Optional,
    }
    /// games of computer players only going at once on the whole site; beyond, 409
    /// quota-exceeded
    BOT_GAMES_TOTAL: Int<u64, 0, 1_000_000> {
        env: "DJAMBI_BOT_GAMES_TOTAL",
        key: "bot_games_total",
        default: "50",
        production: Optional,
    }
    // -- the engine's analyses of games (see `analysis`, `workers::analysis`) --
    /// the search level (1 to 5) whose node budget analyses each position of a game;
    /// changing it changes the engine version, and analysed games are analysed again
    ANALYSIS_LEVEL: Int<u8, 1, 5> {
        env: "DJAMBI_ANALYSIS_LEVEL",
        key: "analysis_level",
        default: "3",
        production: Optional,
    }
    /// analyses one instance works on at once (each searches on the computer players'
    /// threads, after every game with people and every game of bots alone)
    ANALYSIS_CONCURRENCY: Int<usize, 1, 64> {
        env: "DJAMBI_ANALYSIS_CONCURRENCY",
        key: "analysis_concurrency",
        default: "2",
        production: Optional,
    }
    /// analyses one account may ask for in 24 hours; beyond, 429 rate-limited with
    /// Retry-After
    ANALYSIS_PER_ACCOUNT_PER_DAY: Int<u64, 0, 1_000_000> {
        env: "DJAMBI_ANALYSIS_PER_ACCOUNT_PER_DAY",
        key: "analysis_per_account_per_day",
        default: "20",
        production: Optional,
    }
    /// analyses that may wait or run at once on the whole site; beyond, 409 quota-exceeded
    ANALYSIS_QUEUE_MAX: Int<u64, 1, 1_000_000> {
        env: "DJAMBI_ANALYSIS_QUEUE_MAX",
        key: "analysis_queue_max",
        default: "200",
        production: Optional,
    }
    /// how long a finished analysis is kept (after it finished)
    ANALYSIS_RETENTION: Dur<{ 1 * S }, { 3650 * D }> {
        env: "DJAMBI_ANALYSIS_RETENTION",
        key: "analysis_retention",
        default: "365d",
        production: Optional,
    }
}
