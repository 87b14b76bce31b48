//! The shared application state every handler can take as `web::Data<AppState>`.

use crate::auth::jwt::JwtKeys;
use crate::auth::passwords::Passwords;
use crate::config::Config;
use crate::db::DbPool;
use std::sync::Arc;

use crate::games::cache::GameCache;
use crate::games::clock::{Clock, SystemClock};
use crate::rate_limit::RateLimiter;

#[derive(Debug)]
pub struct AppState {
    pub config: Config,
    pub pool: DbPool,
    pub jwt: JwtKeys,
    pub passwords: Passwords,
    /// Login attempts per client address.
    pub login_ip_limiter: RateLimiter,
    /// Failed logins per account name.
    pub login_account_limiter: RateLimiter,
    /// Registrations per client address.
    pub register_ip_limiter: RateLimiter,
    /// Recently used game states (see `games::cache`).
    pub games: GameCache,
    /// The time of every command (tests inject their own).
    pub clock: Arc<dyn Clock>,
    /// Notification delivery: HTTP client, counters (see `notifications::delivery`).
    pub delivery: crate::notifications::delivery::DeliveryState,
}

impl AppState {
    pub fn new(config: Config, pool: DbPool) -> Result<AppState, String> {
        let jwt = JwtKeys::new(
            config.jwt_secret.expose().as_bytes(),
            config.access_token_ttl,
        )?;
        let passwords = Passwords::new(&config.argon2)?;
        Ok(AppState {
            login_ip_limiter: RateLimiter::new(config.login_limit_per_ip),
            register_ip_limiter: RateLimiter::new(config.register_limit_per_ip),
            login_account_limiter: RateLimiter::new(config.login_limit_per_account),
            jwt,
            passwords,
            games: GameCache::new(crate::games::CACHE_CAPACITY),
            clock: Arc::new(SystemClock),
            delivery: crate::notifications::delivery::DeliveryState::new(&config.notify)?,
            pool,
            config,
        })
    }
}
