//! An in-memory keyed rate limiter (token buckets), used for logins per account and per
//! client address. Each bucket holds `burst` tokens and refills `burst` per `period`,
//! evenly. State is per process: several instances each apply the limit.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::RateSpec;
use crate::error::ApiError;

/// Buckets kept before idle (full) ones are dropped.
const MAX_BUCKETS: usize = 50_000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

#[derive(Debug)]
pub struct RateLimiter {
    burst: f64,
    per_sec: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl RateLimiter {
    pub fn new(spec: RateSpec) -> RateLimiter {
        let burst = f64::from(spec.burst);
        RateLimiter {
            burst,
            per_sec: burst / spec.period.as_secs_f64().max(0.001),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    fn with_bucket<T>(&self, key: &str, f: impl FnOnce(&mut Bucket, f64) -> T) -> T {
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if map.len() >= MAX_BUCKETS && !map.contains_key(key) {
            let (burst, per_sec) = (self.burst, self.per_sec);
            map.retain(|_, b| {
                b.tokens + now.duration_since(b.updated).as_secs_f64() * per_sec < burst
            });
        }
        let bucket = map.entry(key.to_string()).or_insert(Bucket {
            tokens: self.burst,
            updated: now,
        });
        let elapsed = now.duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.per_sec).min(self.burst);
        bucket.updated = now;
        f(bucket, self.per_sec)
    }

    fn retry_after(tokens: f64, per_sec: f64) -> Duration {
        Duration::from_secs_f64(((1.0 - tokens) / per_sec).max(0.0))
    }

    /// Takes a token for `key`, or says how long until one is available.
    pub fn acquire(&self, key: &str) -> Result<(), Duration> {
        self.with_bucket(key, |b, per_sec| {
            if b.tokens >= 1.0 {
                b.tokens -= 1.0;
                Ok(())
            } else {
                Err(Self::retry_after(b.tokens, per_sec))
            }
        })
    }

    /// Gives back a token taken by [`RateLimiter::acquire`] (an attempt that turned out
    /// not to count, such as a successful login).
    pub fn refund(&self, key: &str) {
        let burst = self.burst;
        self.with_bucket(key, |b, _| b.tokens = (b.tokens + 1.0).min(burst));
    }
}

/// The key of a request's client: its TCP peer's address (forwarding headers are not
/// trusted, so behind a reverse proxy every client shares the proxy's bucket).
pub fn client_ip(req: &actix_web::HttpRequest) -> String {
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The 429 problem for a wait, rounded up to whole seconds (at least 1).
pub fn too_many(wait: Duration) -> ApiError {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    ApiError::RateLimited {
        retry_after_secs: secs.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_wait() {
        let l = RateLimiter::new(RateSpec {
            burst: 2,
            period: Duration::from_secs(60),
        });
        assert!(l.acquire("a").is_ok());
        assert!(l.acquire("a").is_ok());
        let wait = l.acquire("a").unwrap_err();
        assert!(
            wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert!(l.acquire("b").is_ok(), "keys are independent");
        l.refund("b");
        l.refund("b");
        assert!(l.acquire("b").is_ok());
        assert!(l.acquire("b").is_ok(), "a refund gives the token back");
        assert!(l.acquire("b").is_err(), "refunds never exceed the burst");
        assert_eq!(
            too_many(Duration::from_millis(1500)).problem().extensions["retry_after"],
            2
        );
    }
}
