//! Rate limits per client address (login attempts, registrations), on the `governor`
//! crate (GCRA: a bucket of `burst` cells refilled evenly over `period`), and the client
//! address behind trusted proxies. Plain values: a request's address is read by
//! `routes::caller::client_addr`, a wait answered with `error::too_many` (429).
//!
//! Keys are addresses, never names: IPv4 as is, IPv6 by its /64. Memory is bounded: keys
//! whose bucket has refilled are dropped at most once a minute (`retain_recent`), and past
//! [`MAX_KEYS`] live keys new clients are counted by network (IPv4 /24, IPv6 /48) until the
//! table shrinks again. State is per process: several instances each apply the limit.
//!
//! The client address is the TCP peer's, unless the peer is one of the proxies named in
//! `DJAMBI_TRUSTED_PROXIES`: then it is the right-most address of `X-Forwarded-For` that is
//! not itself a trusted proxy.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use ipnet::IpNet;

use crate::config::RateSpec;

/// Live keys kept before new clients are counted by network.
pub const MAX_KEYS: usize = 100_000;
/// How often keys of refilled buckets are dropped, at most.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// A keyed limiter of requests per client address.
pub struct RateLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
    started: Instant,
    /// Milliseconds after `started` of the last sweep.
    last_sweep_ms: AtomicU64,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("keys", &self.limiter.len())
            .finish_non_exhaustive()
    }
}

impl RateLimiter {
    pub fn new(spec: RateSpec) -> RateLimiter {
        let burst = NonZeroU32::new(spec.burst).unwrap_or(NonZeroU32::MIN);
        let per_cell = (spec.period / burst.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(per_cell)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(burst);
        RateLimiter {
            limiter: DefaultKeyedRateLimiter::keyed(quota),
            clock: DefaultClock::default(),
            started: Instant::now(),
            last_sweep_ms: AtomicU64::new(0),
        }
    }

    /// Takes a cell for `client`, or says how long until one is available.
    pub fn acquire(&self, client: IpAddr) -> Result<(), Duration> {
        self.sweep();
        let mut key = address_key(client);
        if self.limiter.len() >= MAX_KEYS {
            key = network_key(key);
        }
        self.limiter
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    /// Drops the keys of full buckets, at most once a [`SWEEP_EVERY`].
    fn sweep(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        let last = self.last_sweep_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) < SWEEP_EVERY.as_millis() as u64 {
            return;
        }
        if self
            .last_sweep_ms
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
    }

    /// Live keys (for tests and metrics).
    pub fn len(&self) -> usize {
        self.limiter.len()
    }

    pub fn is_empty(&self) -> bool {
        self.limiter.is_empty()
    }
}

/// The key of a client address: IPv4 as is, IPv6 by its /64 (one subscriber's network).
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// The coarser key used when the table is full: IPv4 /24, IPv6 /48.
fn network_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            IpAddr::V4(std::net::Ipv4Addr::new(o[0], o[1], o[2], 0))
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], 0, 0, 0, 0, 0))
        }
    }
}

/// The client's address (`routes::caller::client_addr` reads it off a request): the TCP
/// peer's, or, when `peer` is a trusted proxy, the right-most entry of `headers` (the
/// `X-Forwarded-For` values in order) that is not a trusted proxy.
pub fn forwarded_client<'a>(
    peer: IpAddr,
    headers: impl Iterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|n| n.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers.flat_map(|h| h.split(',')).collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        let Ok(ip) = hop.trim().parse::<IpAddr>() else {
            // A malformed entry ends what can be believed.
            break;
        };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn burst_then_wait() {
        let l = RateLimiter::new(RateSpec {
            burst: 2,
            period: Duration::from_secs(60),
        });
        assert!(l.acquire(ip("10.0.0.1")).is_ok());
        assert!(l.acquire(ip("10.0.0.1")).is_ok());
        let wait = l.acquire(ip("10.0.0.1")).unwrap_err();
        assert!(
            wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert!(l.acquire(ip("10.0.0.2")).is_ok(), "keys are independent");
        // One IPv6 subscriber (/64) is one key.
        assert!(l.acquire(ip("2001:db8:1:2::1")).is_ok());
        assert!(l.acquire(ip("2001:db8:1:2::ffff")).is_ok());
        assert!(l.acquire(ip("2001:db8:1:2:abcd::7")).is_err());
        assert!(l.acquire(ip("2001:db8:1:3::1")).is_ok());
    }

    #[test]
    fn forwarded_for_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let h = ["198.51.100.7, 10.1.2.3"];
        // Not from a trusted proxy: the header is ignored.
        assert_eq!(
            forwarded_client(ip("203.0.113.9"), h.into_iter(), &trusted),
            ip("203.0.113.9")
        );
        // From one: the right-most untrusted hop.
        assert_eq!(
            forwarded_client(ip("10.0.0.1"), h.into_iter(), &trusted),
            ip("198.51.100.7")
        );
        // A client cannot hide behind a forged left-most entry.
        let forged = ["1.1.1.1, 198.51.100.7"];
        assert_eq!(
            forwarded_client(ip("10.0.0.1"), forged.into_iter(), &trusted),
            ip("198.51.100.7")
        );
        // Garbage stops the walk at the last good hop.
        assert_eq!(
            forwarded_client(ip("10.0.0.1"), ["nonsense"].into_iter(), &trusted),
            ip("10.0.0.1")
        );
        assert_eq!(
            forwarded_client(ip("10.0.0.1"), std::iter::empty(), &[]),
            ip("10.0.0.1")
        );
    }
}
