//! The shared application state every handler can take as `web::Data<AppState>`.

use crate::accounts::throttle::LoginThrottle;
use crate::auth::jwt::JwtKeys;
use crate::auth::passwords::Passwords;
use crate::config::Config;
use crate::store::DbPool;
use std::sync::Arc;

use crate::clock::{Clock, SystemClock};
use crate::rate_limit::RateLimiter;
use crate::store::cache::GameCache;

#[derive(Debug)]
pub struct AppState {
    pub config: Config,
    pub pool: DbPool,
    pub jwt: JwtKeys,
    pub passwords: Passwords,
    /// Login attempts per client address.
    pub login_ip_limiter: RateLimiter,
    /// Failed password checks per account and address, and per account (back-off).
    pub login_throttle: LoginThrottle,
    /// Registrations per client address.
    pub register_ip_limiter: RateLimiter,
    /// Password reset requests per client address.
    pub reset_ip_limiter: RateLimiter,
    /// Analysis-board requests per client address.
    pub positions_ip_limiter: RateLimiter,
    /// Recently used game states (see `games::cache`).
    pub games: Arc<GameCache>,
    /// The time of every command (tests inject their own).
    pub clock: Arc<dyn Clock>,
    // -- operations --
    /// Prometheus metrics (see `metrics`).
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Draining state and the background workers' stop signal (see `shutdown`).
    pub shutdown: crate::shutdown::Shutdown,
    /// The stream fan-out (see `live`).
    pub live: Arc<crate::live::Hub>,
    /// The computer players' search threads (see `workers::bot_pool`).
    pub bot_searches: Arc<crate::workers::bot_pool::BotPool>,
    /// DKIM and SPF of replies by mail (see `mail_moves::authenticate`).
    pub mail_authenticator: Arc<crate::mail_moves::authenticate::Authenticator>,
}

impl AppState {
    /// What the game use cases need of the state.
    pub fn game_ctx(&self) -> crate::games::Ctx<'_> {
        crate::games::Ctx {
            pool: &self.pool,
            cache: &self.games,
            clock: &self.clock,
            quotas: self.config.quotas,
        }
    }

    pub fn new(
        config: Config,
        pool: DbPool,
        live: Arc<crate::live::Hub>,
    ) -> Result<AppState, String> {
        let jwt = JwtKeys::new(
            config.jwt_secret.expose().as_bytes(),
            config.access_token_ttl,
        )?;
        let passwords = Passwords::new(&config.argon2, config.hash_concurrency, config.hash_queue)?;
        Ok(AppState {
            login_ip_limiter: RateLimiter::new(config.login_limit_per_ip),
            register_ip_limiter: RateLimiter::new(config.register_limit_per_ip),
            reset_ip_limiter: RateLimiter::new(config.password_reset_limit_per_ip),
            positions_ip_limiter: RateLimiter::new(config.positions_limit_per_ip),
            login_throttle: LoginThrottle::new(
                config.login_limit_per_account.into(),
                config.login_limit_account_wide.into(),
            )
            .shared(pool.clone(), config.jwt_secret.expose().as_bytes()),
            jwt,
            passwords,
            games: Arc::new(GameCache::new(crate::games::CACHE_CAPACITY)),
            clock: Arc::new(SystemClock),
            metrics: Arc::new(crate::metrics::Metrics::new()),
            shutdown: crate::shutdown::Shutdown::new(),
            live,
            bot_searches: crate::workers::bot_pool::BotPool::new(config.bot_threads),
            mail_authenticator: Arc::new(crate::mail_moves::authenticate::Authenticator::new(
                config.mail_moves.dns.clone(),
            )),
            pool,
            config,
        })
    }

    /// The context of the account use cases (`accounts::*`).
    pub fn accounts(&self) -> crate::accounts::Accounts<'_> {
        crate::accounts::Accounts {
            pool: &self.pool,
            clock: &*self.clock,
            passwords: &self.passwords,
            jwt: &self.jwt,
            throttle: &self.login_throttle,
            refresh_ttl: chrono::TimeDelta::from_std(self.config.refresh_token_ttl)
                .unwrap_or(chrono::TimeDelta::days(30)),
            mail_secret: self.config.jwt_secret.expose(),
        }
    }
}

impl AppState {
    /// The contexts of the background workers (see `workers`).
    pub fn janitor(&self) -> crate::workers::janitor::Janitor {
        crate::workers::janitor::Janitor {
            pool: self.pool.clone(),
            clock: self.clock.clone(),
            retention: self.config.idempotency_retention,
            periods: self.config.retention,
            refresh_token_ttl: self.config.refresh_token_ttl,
        }
    }

    /// What the analysis use cases need of the state.
    pub fn analysis_ctx(&self) -> crate::analysis::Ctx<'_> {
        crate::analysis::Ctx {
            pool: &self.pool,
            cache: &self.games,
            clock: &self.clock,
            config: &self.config.analysis,
        }
    }

    pub fn analysis_work(&self) -> crate::workers::analysis::AnalysisWork {
        crate::workers::analysis::AnalysisWork {
            pool: self.pool.clone(),
            clock: self.clock.clone(),
            games: self.games.clone(),
            searches: self.bot_searches.clone(),
            config: self.config.analysis,
            lease: self.config.due_lease,
            every: self.config.due_interval,
        }
    }

    pub fn due_work(&self) -> crate::workers::due::DueWork {
        crate::workers::due::DueWork {
            pool: self.pool.clone(),
            clock: self.clock.clone(),
            games: self.games.clone(),
            bots: crate::games::bots::BotSettings::of(&self.config),
            every: self.config.due_interval,
            lease: self.config.due_lease,
            concurrency: self.config.due_concurrency,
            searches: self.bot_searches.clone(),
            bot_only_gap: std::time::Duration::from_secs(1)
                / self.config.bot_only_plies_per_sec.max(1),
            wake: self.live.games_changed.clone(),
        }
    }

    pub fn delivery(&self) -> Result<crate::workers::delivery::Delivery, String> {
        crate::workers::delivery::Delivery::new(
            &self.config,
            self.pool.clone(),
            self.clock.clone(),
            self.games.clone(),
            self.live.notes_written.clone(),
        )
    }

    /// The context of the notification use cases.
    /// What receiving a move by mail needs.
    pub fn mail_moves(&self) -> crate::mail_moves::MailMovesCtx {
        crate::mail_moves::MailMovesCtx {
            pool: self.pool.clone(),
            cache: self.games.clone(),
            clock: self.clock.clone(),
            signing_secret: self.config.jwt_secret.expose().to_string(),
            domain: self.config.mail_moves.domain.clone(),
            auth: self.config.mail_moves.auth,
            public_url: self.config.public_url.as_str().to_string(),
            limits: self.config.mail_moves.limits,
            authenticator: self.mail_authenticator.clone(),
            metrics: self.metrics.clone(),
        }
    }

    pub fn notifications(&self) -> crate::notifications::Notifications<'_> {
        crate::notifications::Notifications {
            pool: &self.pool,
            clock: &*self.clock,
            config: &self.config.notify,
            signing_secret: self.config.jwt_secret.expose(),
        }
    }
}
