//! Failed-password throttling: exponential back-off per account and client address, under
//! a higher account-wide ceiling. A stranger cannot lock an owner out, and successful
//! logins never use up the failure budget.
//!
//! Policy (OWASP Authentication Cheat Sheet, "Account lockout"; NIST SP 800-63B 5.2.2):
//!
//! - **Per account and client address** (`DJAMBI_LOGIN_LIMIT_PER_ACCOUNT`, default `5/15m`):
//!   the first 5 failures cost nothing; after them each further attempt from that address
//!   to that account must wait 1 s after the last failure, then 2 s, 4 s, ... doubling up to
//!   15 minutes. A success from the address clears its count.
//! - **Per account, all addresses** (`DJAMBI_LOGIN_LIMIT_ACCOUNT_WIDE`, default `100/1h`):
//!   after 100 failures from anywhere, attempts from addresses that have not logged into the
//!   account before back off the same way, doubling up to an hour. Addresses the owner
//!   logged in from (the last 8 are remembered) are exempt, so a distributed guesser
//!   cannot shut the owner out.
//! - A count is forgotten 24 hours after its last failure.
//! - A refused attempt (429) is not a failure and changes nothing. Attempts in flight count
//!   as possible failures: when the failures recorded plus those in flight reach the budget,
//!   a further attempt waits (up to 10 s) for one in flight to end instead of being refused,
//!   so parallel guesses cannot slip past the budget and parallel correct logins all pass.
//! - Wrong current passwords in `PATCH /v1/me` count exactly like failed logins.
//!
//! The counts are shared by every instance of one database and survive restarts: each
//! failure and success is written to `login_throttle` (keyed by an HMAC, under the JWT
//! secret, of the login key with the client address (IPv6 by /64), and of the account id;
//! names and addresses are never stored), and an attempt reads the row before its
//! verdict. Two LRU maps of at most 65,536 entries each (about 5 MiB) keep the attempts in
//! flight, which stay per process (a guesser spread over N instances may have N times the
//! free attempts *in flight*, never more recorded failures). Account-wide counts are kept
//! only for accounts that exist; the per-address counts apply to every name alike, so
//! answers do not tell which names exist.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use hmac::{KeyInit, Mac};

use crate::ids::UserId;
use crate::rate_limit::address_key;
use crate::store::{self, DbPool, login_throttle as rows};
use std::time::{Duration, Instant};

use lru::LruCache;
use tokio::sync::Notify;

use crate::config::RateSpec;

/// Entries kept in each map.
const CAPACITY: usize = 65_536;
/// First back-off step.
const BASE: Duration = Duration::from_secs(1);
/// A count is forgotten this long after its last failure.
const FORGET_AFTER: Duration = Duration::from_secs(24 * 3600);
/// How long an attempt waits for attempts in flight before it is refused.
const MAX_WAIT: Duration = Duration::from_secs(10);
/// Addresses remembered per account as the owner's.
const KNOWN_ADDRESSES: usize = 8;

/// Free failures, then back-off up to a ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub free: u32,
    pub max_backoff: Duration,
}

impl From<RateSpec> for Budget {
    fn from(r: RateSpec) -> Budget {
        Budget {
            free: r.burst,
            max_backoff: r.period,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Record {
    failures: u32,
    last_failure: Option<Instant>,
    in_flight: u32,
    /// Keyed hashes of addresses that logged in (account records only).
    known: Vec<u64>,
    /// Writes of this record to the shared table not done yet (while any is, the local
    /// record is newer than the row).
    pending: u32,
    /// Local changes so far (a read of the row that began before one is stale).
    changes: u64,
}

enum Verdict {
    Go,
    Wait,
    Refuse(Duration),
}

impl Record {
    fn forget_if_old(&mut self, now: Instant) {
        if self
            .last_failure
            .is_some_and(|t| now.duration_since(t) > FORGET_AFTER)
        {
            self.failures = 0;
            self.last_failure = None;
        }
    }

    fn verdict(&mut self, budget: Budget, now: Instant) -> Verdict {
        self.forget_if_old(now);
        if self.failures < budget.free {
            return if self.failures + self.in_flight < budget.free {
                Verdict::Go
            } else {
                Verdict::Wait
            };
        }
        let ready = self
            .last_failure
            .map_or(now, |t| t + backoff(self.failures - budget.free, budget));
        if now < ready {
            Verdict::Refuse(ready - now)
        } else if self.in_flight == 0 {
            Verdict::Go
        } else {
            Verdict::Wait
        }
    }
}

/// The wait after `extra` failures beyond the free ones: 1 s, 2 s, 4 s, ... up to the
/// budget's ceiling.
fn backoff(extra: u32, budget: Budget) -> Duration {
    BASE.checked_mul(1u32.checked_shl(extra.min(31)).unwrap_or(u32::MAX))
        .unwrap_or(budget.max_backoff)
        .min(budget.max_backoff)
}

struct Maps {
    pairs: LruCache<u64, Record>,
    accounts: LruCache<u64, Record>,
}

/// The throttle; one per server.
pub struct LoginThrottle {
    maps: Arc<Mutex<Maps>>,
    changed: Notify,
    /// The HMAC key of the record keys (the JWT secret when shared, else random).
    secret: Vec<u8>,
    /// The shared table (none: this process only, as in unit tests).
    shared: Option<DbPool>,
    per_address: Budget,
    account_wide: Budget,
}

impl std::fmt::Debug for LoginThrottle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginThrottle")
            .field("per_address", &self.per_address)
            .field("account_wide", &self.account_wide)
            .finish_non_exhaustive()
    }
}

/// Which record an attempt holds a place in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Pair(u64),
    Account(u64),
}

/// A password check in progress. Say how it ended with [`Attempt::succeeded`] or
/// [`Attempt::failed`]; dropped without either (an error, a 503), it counts for nothing.
#[must_use]
pub struct Attempt<'a> {
    throttle: &'a LoginThrottle,
    address: u64,
    account: Option<u64>,
    held: Vec<Slot>,
}

impl LoginThrottle {
    pub fn new(per_address: Budget, account_wide: Budget) -> LoginThrottle {
        let cap = NonZeroUsize::new(CAPACITY).unwrap_or(NonZeroUsize::MIN);
        let r = RandomState::new();
        let secret = [
            r.hash_one(1u8),
            r.hash_one(2u8),
            r.hash_one(3u8),
            r.hash_one(4u8),
        ]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
        LoginThrottle {
            maps: Arc::new(Mutex::new(Maps {
                pairs: LruCache::new(cap),
                accounts: LruCache::new(cap),
            })),
            changed: Notify::new(),
            secret,
            shared: None,
            per_address,
            account_wide,
        }
    }

    /// The same throttle, its counts shared through `pool`'s `login_throttle` table by
    /// every instance that has the same `secret`.
    pub fn shared(mut self, pool: DbPool, secret: &[u8]) -> LoginThrottle {
        self.secret = secret.to_vec();
        self.shared = Some(pool);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Maps> {
        lock_maps(&self.maps)
    }

    /// The keyed hash of `text`.
    fn key(&self, text: &str) -> u64 {
        let mut mac = <hmac::Hmac<sha2_011::Sha256> as KeyInit>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(text.as_bytes());
        let out = mac.finalize().into_bytes();
        let mut first = [0u8; 8];
        first.copy_from_slice(&out[..8]);
        u64::from_le_bytes(first)
    }

    /// Reads the slot's shared row into the local record (unless a local write of it is
    /// still under way). A failed read leaves the local record as it is.
    async fn load(&self, slot: Slot) {
        let Some(pool) = &self.shared else { return };
        let key = row_key(slot);
        // The local changes, and whether a write of them was under way, when the read
        // began: a read that began while a write was pending may not see it (a reader's
        // snapshot), even if the write has ended by the time the read returns.
        let before = {
            let mut maps = self.lock();
            let record = match slot {
                Slot::Pair(k) => maps.pairs.get_or_insert_mut(k, Record::default),
                Slot::Account(k) => maps.accounts.get_or_insert_mut(k, Record::default),
            };
            (record.changes, record.pending)
        };
        let read = store::run(pool, move |conn| rows::get(conn, &key)).await;
        let row = match read {
            Ok(row) => row,
            Err(e) => {
                tracing::warn!(error = %e, "reading the shared login throttle failed");
                return;
            }
        };
        let mut maps = self.lock();
        let record = match slot {
            Slot::Pair(k) => maps.pairs.get_or_insert_mut(k, Record::default),
            Slot::Account(k) => maps.accounts.get_or_insert_mut(k, Record::default),
        };
        if record.pending > 0 || before.1 > 0 || record.changes != before.0 {
            return;
        }
        let row = row.unwrap_or(rows::ThrottleRow {
            failures: 0,
            last_failure: None,
            known: String::new(),
        });
        record.failures = u32::try_from(row.failures).unwrap_or(u32::MAX);
        record.last_failure = row.last_failure.and_then(instant_of);
        if let Slot::Account(_) = slot {
            record.known = row
                .known
                .split(',')
                .filter_map(|h| u64::from_str_radix(h, 16).ok())
                .collect();
        }
    }

    /// Writes a change of the slot's record to the shared table, in the background (the
    /// local record counts at once; the row follows within a round trip).
    fn store(&self, slot: Slot, change: Change) {
        let Some(pool) = self.shared.clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        {
            let mut maps = self.lock();
            let record = match slot {
                Slot::Pair(k) => maps.pairs.get_or_insert_mut(k, Record::default),
                Slot::Account(k) => maps.accounts.get_or_insert_mut(k, Record::default),
            };
            record.pending += 1;
            record.changes += 1;
        }
        let maps = self.maps.clone();
        let key = row_key(slot);
        runtime.spawn(async move {
            let now = crate::clock::Clock::now(&crate::clock::SystemClock);
            let forget = now - chrono::TimeDelta::seconds(FORGET_AFTER.as_secs() as i64);
            let written = store::run(&pool, move |conn| match change {
                Change::Failed => rows::fail(conn, &key, now, forget),
                Change::Cleared => rows::clear(conn, &key),
                Change::Known(known) => rows::remember(conn, &key, &known),
            })
            .await;
            if let Err(e) = written {
                tracing::warn!(error = %e, "writing the shared login throttle failed");
            }
            let mut maps = lock_maps(&maps);
            let record = match slot {
                Slot::Pair(k) => maps.pairs.get_mut(&k),
                Slot::Account(k) => maps.accounts.get_mut(&k),
            };
            if let Some(r) = record {
                r.pending = r.pending.saturating_sub(1);
            }
        });
    }

    /// Takes a place for a password check of the account named `login_name` (as typed,
    /// compared in lower case) from `client`. `Err` is the wait before trying again.
    pub async fn begin(&self, login_name: &str, client: IpAddr) -> Result<Attempt<'_>, Duration> {
        let address = self.key(&format!("address|{}", address_key(client)));
        let pair = self.key(&format!(
            "pair|{}|{}",
            login_name.to_lowercase(),
            address_key(client)
        ));
        let mut attempt = Attempt {
            throttle: self,
            address,
            account: None,
            held: Vec::new(),
        };
        self.take(Slot::Pair(pair), self.per_address).await?;
        attempt.held.push(Slot::Pair(pair));
        Ok(attempt)
    }

    /// Waits for a place in a record, or refuses.
    async fn take(&self, slot: Slot, budget: Budget) -> Result<(), Duration> {
        self.load(slot).await;
        let deadline = Instant::now() + MAX_WAIT;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut maps = self.lock();
                let now = Instant::now();
                let record = match slot {
                    Slot::Pair(k) => maps.pairs.get_or_insert_mut(k, Record::default),
                    Slot::Account(k) => maps.accounts.get_or_insert_mut(k, Record::default),
                };
                match record.verdict(budget, now) {
                    Verdict::Go => {
                        record.in_flight += 1;
                        return Ok(());
                    }
                    Verdict::Refuse(wait) => return Err(wait),
                    Verdict::Wait => {}
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, notified).await.is_err() {
                return Err(BASE);
            }
        }
    }

    fn release(&self, slot: Slot, outcome: Option<bool>) {
        let mut maps = self.lock();
        let now = Instant::now();
        let record = match slot {
            Slot::Pair(k) => maps.pairs.get_mut(&k),
            Slot::Account(k) => maps.accounts.get_mut(&k),
        };
        let mut change = None;
        if let Some(r) = record {
            r.in_flight = r.in_flight.saturating_sub(1);
            match outcome {
                Some(false) => {
                    r.forget_if_old(now);
                    r.failures = r.failures.saturating_add(1);
                    r.last_failure = Some(now);
                    change = Some(Change::Failed);
                }
                Some(true) => {
                    if let Slot::Pair(_) = slot {
                        r.failures = 0;
                        r.last_failure = None;
                        change = Some(Change::Cleared);
                    }
                }
                None => {}
            }
        }
        drop(maps);
        if let Some(change) = change {
            self.store(slot, change);
        }
        self.changed.notify_waiters();
    }
}

impl Attempt<'_> {
    /// Also takes a place in the account-wide record of `user_id` (an existing account),
    /// unless the client address has logged into it before.
    pub async fn account(&mut self, user_id: &UserId) -> Result<(), Duration> {
        let t = self.throttle;
        let key = t.key(&format!("account|{user_id}"));
        self.account = Some(key);
        t.load(Slot::Account(key)).await;
        let known = t
            .lock()
            .accounts
            .peek(&key)
            .is_some_and(|r| r.known.contains(&self.address));
        if known {
            return Ok(());
        }
        t.take(Slot::Account(key), t.account_wide).await?;
        self.held.push(Slot::Account(key));
        Ok(())
    }

    /// The password was right: the address's count for the account is cleared and the
    /// address is remembered as the owner's.
    pub fn succeeded(mut self) {
        self.finish(true);
    }

    /// The password was wrong: one failure for the account from this address, and one for
    /// the account.
    pub fn failed(mut self) {
        self.finish(false);
    }

    fn finish(&mut self, ok: bool) {
        let t = self.throttle;
        let held = std::mem::take(&mut self.held);
        let held_account = held.iter().any(|s| matches!(s, Slot::Account(_)));
        for slot in held {
            t.release(slot, Some(ok));
        }
        let Some(key) = self.account.take() else {
            return;
        };
        let mut maps = t.lock();
        let record = maps.accounts.get_or_insert_mut(key, Record::default);
        if ok {
            record.known.retain(|a| *a != self.address);
            record.known.push(self.address);
            if record.known.len() > KNOWN_ADDRESSES {
                record.known.remove(0);
            }
            let known = record
                .known
                .iter()
                .map(|h| format!("{h:x}"))
                .collect::<Vec<_>>()
                .join(",");
            drop(maps);
            t.store(Slot::Account(key), Change::Known(known));
        } else if !held_account {
            // A known address holds no place in the account-wide record, but its failures
            // still count towards the ceiling.
            let now = Instant::now();
            record.forget_if_old(now);
            record.failures = record.failures.saturating_add(1);
            record.last_failure = Some(now);
            drop(maps);
            t.store(Slot::Account(key), Change::Failed);
        }
    }
}

/// A change written to the shared table.
#[derive(Debug, Clone)]
enum Change {
    Failed,
    Cleared,
    Known(String),
}

/// The shared row's key of a slot.
fn row_key(slot: Slot) -> String {
    match slot {
        Slot::Pair(k) => format!("p{k:016x}"),
        Slot::Account(k) => format!("a{k:016x}"),
    }
}

/// The instant of a stored time (a time in the future counts as now).
fn instant_of(at: chrono::NaiveDateTime) -> Option<Instant> {
    let age = (crate::clock::Clock::now(&crate::clock::SystemClock) - at)
        .to_std()
        .unwrap_or(Duration::ZERO);
    Instant::now().checked_sub(age)
}

fn lock_maps(maps: &Mutex<Maps>) -> std::sync::MutexGuard<'_, Maps> {
    maps.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        let t = self.throttle;
        for slot in std::mem::take(&mut self.held) {
            t.release(slot, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throttle(free: u32, wide: u32) -> LoginThrottle {
        LoginThrottle::new(
            Budget {
                free,
                max_backoff: Duration::from_secs(900),
            },
            Budget {
                free: wide,
                max_backoff: Duration::from_secs(3600),
            },
        )
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn backoff_doubles_up_to_the_ceiling() {
        let b = Budget {
            free: 5,
            max_backoff: Duration::from_secs(900),
        };
        let steps: Vec<u64> = (0..12).map(|k| backoff(k, b).as_secs()).collect();
        assert_eq!(steps, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
        assert_eq!(backoff(200, b).as_secs(), 900);
    }

    #[actix_web::test]
    async fn failures_per_address_then_back_off() {
        let t = throttle(2, 100);
        for _ in 0..2 {
            t.begin("alice", ip("10.0.0.1")).await.unwrap().failed();
        }
        let wait = t.begin("ALICE", ip("10.0.0.1")).await.err().unwrap();
        assert!(wait <= Duration::from_secs(1) && wait > Duration::ZERO);
        // Another address, another account: unaffected.
        t.begin("alice", ip("10.0.0.2")).await.unwrap().succeeded();
        t.begin("bob", ip("10.0.0.1")).await.unwrap().failed();
        // One IPv6 subscriber is one address.
        for _ in 0..2 {
            t.begin("carol", ip("2001:db8::1")).await.unwrap().failed();
        }
        assert!(t.begin("carol", ip("2001:db8::2")).await.is_err());
        assert!(t.begin("carol", ip("2001:db8:0:1::2")).await.is_ok());
    }

    #[actix_web::test]
    async fn dropped_attempts_count_for_nothing() {
        let t = throttle(1, 100);
        for _ in 0..5 {
            let a = t.begin("alice", ip("10.0.0.1")).await.unwrap();
            drop(a);
        }
        t.begin("alice", ip("10.0.0.1")).await.unwrap().succeeded();
    }

    #[actix_web::test]
    async fn in_flight_attempts_wait_for_each_other() {
        let t = throttle(1, 100);
        let first = t.begin("alice", ip("10.0.0.1")).await.unwrap();
        let mut second = Box::pin(t.begin("alice", ip("10.0.0.1")));
        assert!(futures_util::FutureExt::now_or_never(second.as_mut()).is_none());
        first.succeeded();
        second.await.unwrap().failed();
        assert!(t.begin("alice", ip("10.0.0.1")).await.is_err());
    }

    #[actix_web::test]
    async fn account_wide_ceiling_spares_known_addresses() {
        let t = throttle(100, 2);
        let mut a = t.begin("alice", ip("192.0.2.1")).await.unwrap();
        a.account(&"u1".into()).await.unwrap();
        a.succeeded();
        for i in 0..2 {
            let mut a = t.begin("alice", ip(&format!("10.0.0.{i}"))).await.unwrap();
            a.account(&"u1".into()).await.unwrap();
            a.failed();
        }
        let mut stranger = t.begin("alice", ip("10.0.0.9")).await.unwrap();
        assert!(stranger.account(&"u1".into()).await.is_err());
        drop(stranger);
        let mut owner = t.begin("alice", ip("192.0.2.1")).await.unwrap();
        owner.account(&"u1".into()).await.unwrap();
        owner.succeeded();
    }
}
