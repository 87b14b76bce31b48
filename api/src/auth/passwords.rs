//! Password hashing with argon2id (PHC strings). The cost comes from the configuration;
//! verification reads the cost from each stored hash, so raising it later is safe.
//!
//! Each hash holds `DJAMBI_ARGON2_MEMORY_KIB` (19 MiB by default) while it runs, so the
//! number running at once is bounded: at most `DJAMBI_HASH_CONCURRENCY` (default: one a
//! core) run. A request that finds every turn taken waits if its expected wait fits in
//! [`MAX_QUEUE_WAIT`]: the expected wait is the turns ahead of it (the waiters before it
//! and itself, divided among the concurrent turns) times the recent time of one turn (a
//! moving average of the hashes measured). So a burst the server drains in time is
//! served, and one it cannot is refused at once ([`PasswordError::Busy`]: the API answers
//! 503 `unavailable` with `Retry-After`) rather than after a wait it would lose anyway.
//! `DJAMBI_HASH_QUEUE` (default 256) is a hard bound on the waiters besides. A waiter
//! holds no hashing memory, so memory spent on hashing is at most concurrency × cost.
//!
//! The hashes run on their own threads, one per turn, rather than on the shared blocking
//! pool: each thread reuses the memory it freed, so the allocator does not keep a 19 MiB
//! block in each of the many arenas the blocking threads would spread them over.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::config::Argon2Config;

/// Why a password could not be hashed or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    /// Every hashing turn is taken and the queue is full (or the wait ran out).
    #[error("too many password checks at once; retry in a few seconds")]
    Busy,
    /// A server fault: the hashing threads are gone, or argon2 failed.
    #[error("{0}")]
    Internal(String),
}

/// The longest a request waits in the queue for a hashing turn.
pub const MAX_QUEUE_WAIT: Duration = Duration::from_secs(3);

/// The bound on hashes running at once, the queue before it, and the threads they run on.
#[derive(Debug)]
struct Gate {
    permits: Semaphore,
    waiting: AtomicUsize,
    queue: usize,
    /// The concurrent turns.
    turns: usize,
    /// A moving average of one turn's time (nanoseconds).
    turn_nanos: AtomicU64,
    threads: Threads,
}

type Job = Box<dyn FnOnce() + Send>;

/// The hashing threads; they end when the last `Passwords` clone is dropped.
struct Threads {
    jobs: Mutex<mpsc::Sender<Job>>,
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Threads")
    }
}

impl Threads {
    fn start(n: usize) -> Result<Threads, String> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..n {
            let rx = Arc::clone(&rx);
            std::thread::Builder::new()
                .name(format!("djambi-hash-{i}"))
                .spawn(move || {
                    loop {
                        let job = match rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                })
                .map_err(|e| format!("cannot start a hashing thread: {e}"))?;
        }
        Ok(Threads {
            jobs: Mutex::new(tx),
        })
    }

    /// Runs `f` on a hashing thread (the caller holds a turn, so one is free).
    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, PasswordError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        self.jobs
            .lock()
            .map_err(|_| PasswordError::Internal("hashing threads poisoned".into()))?
            .send(job)
            .map_err(|_| PasswordError::Internal("hashing threads stopped".into()))?;
        rx.await
            .map_err(|_| PasswordError::Internal("a hashing thread failed".into()))
    }
}

/// Hashes and verifies passwords. Cheap to clone.
#[derive(Clone)]
pub struct Passwords {
    argon2: Argon2<'static>,
    /// A hash of a random password, verified against when the user does not exist so that
    /// an unknown user costs the same time as a wrong password.
    dummy_hash: String,
    gate: Arc<Gate>,
}

impl std::fmt::Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passwords")
            .field("running_at_most", &self.gate.permits.available_permits())
            .field("queue", &self.gate.queue)
            .finish_non_exhaustive()
    }
}

/// Counts a waiter for as long as it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Gate {
    /// Folds one measured turn into the moving average (weight 1/4).
    fn record(&self, took: Duration) {
        let sample = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        let _ = self
            .turn_nanos
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                Some(if old == 0 {
                    sample
                } else {
                    old - old / 4 + sample / 4
                })
            });
    }

    /// The expected wait of a request with `ahead` waiters before it: the rounds of turns
    /// until its own (all turns are taken), each as long as a recent turn.
    fn expected_wait(&self, ahead: usize) -> Duration {
        let rounds = (ahead / self.turns.max(1) + 1) as u64;
        Duration::from_nanos(
            self.turn_nanos
                .load(Ordering::Relaxed)
                .saturating_mul(rounds),
        )
    }

    async fn enter(&self) -> Result<SemaphorePermit<'_>, PasswordError> {
        if let Ok(p) = self.permits.try_acquire() {
            return Ok(p);
        }
        let ahead = self.waiting.fetch_add(1, Ordering::Relaxed);
        let _waiting = Waiting(&self.waiting);
        if ahead >= self.queue || self.expected_wait(ahead) > MAX_QUEUE_WAIT {
            return Err(PasswordError::Busy);
        }
        match tokio::time::timeout(MAX_QUEUE_WAIT, self.permits.acquire()).await {
            Ok(Ok(p)) => Ok(p),
            _ => Err(PasswordError::Busy),
        }
    }
}

impl Passwords {
    /// `concurrency` hashes run at once at most, `queue` more may wait.
    pub fn new(cfg: &Argon2Config, concurrency: usize, queue: usize) -> Result<Passwords, String> {
        let params = Params::new(cfg.memory_kib, cfg.iterations, cfg.parallelism, None)
            .map_err(|e| format!("invalid argon2 parameters: {e}"))?;
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let mut p = Passwords {
            argon2,
            dummy_hash: String::new(),
            gate: Arc::new(Gate {
                permits: Semaphore::new(concurrency.max(1)),
                waiting: AtomicUsize::new(0),
                queue,
                turns: concurrency.max(1),
                turn_nanos: AtomicU64::new(0),
                threads: Threads::start(concurrency.max(1))?,
            }),
        };
        let started = Instant::now();
        p.dummy_hash = p
            .hash_now(&uuid::Uuid::new_v4().to_string())
            .map_err(|e| e.to_string())?;
        p.gate.record(started.elapsed());
        Ok(p)
    }

    /// Hashes a password when a turn is free ([`PasswordError::Busy`] if none comes soon), off
    /// the async workers.
    pub async fn hash(&self, password: String) -> Result<String, PasswordError> {
        let _turn = self.gate.enter().await?;
        let this = self.clone();
        self.gate
            .threads
            .run(move || {
                let started = Instant::now();
                let hash = this.hash_now(&password);
                this.gate.record(started.elapsed());
                hash
            })
            .await?
    }

    /// Whether any of `candidates` matches `stored` (the dummy hash when `None`, so that an
    /// unknown account costs the same), when a turn is free. Each candidate costs one
    /// verification; give the normalised password first.
    pub async fn verify(
        &self,
        candidates: Vec<String>,
        stored: Option<String>,
    ) -> Result<bool, PasswordError> {
        let _turn = self.gate.enter().await?;
        let this = self.clone();
        self.gate
            .threads
            .run(move || {
                let started = Instant::now();
                let hash = stored.as_deref().unwrap_or(&this.dummy_hash);
                let ok = candidates.iter().any(|c| this.verify_now(c, hash));
                this.gate.record(started.elapsed());
                ok && stored.is_some()
            })
            .await
    }

    /// A new PHC string (`$argon2id$v=19$m=...`) with a fresh random salt, at once, on this
    /// thread. CPU- and memory-heavy: handlers use [`Passwords::hash`].
    pub fn hash_now(&self, password: &str) -> Result<String, PasswordError> {
        let salt = SaltString::generate(&mut OsRng);
        self.argon2
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| PasswordError::Internal(format!("password hashing failed: {e}")))
    }

    /// Whether `password` matches `hash`, at once, on this thread. A malformed stored hash
    /// never matches.
    pub fn verify_now(&self, password: &str, hash: &str) -> bool {
        match PasswordHash::new(hash) {
            Ok(parsed) => self
                .argon2
                .verify_password(password.as_bytes(), &parsed)
                .is_ok(),
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_and_verify() {
        let p = Passwords::new(
            &Argon2Config {
                memory_kib: 64,
                iterations: 1,
                parallelism: 1,
            },
            1,
            0,
        )
        .unwrap();
        let h = p.hash_now("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(p.verify_now("correct horse", &h));
        assert!(!p.verify_now("wrong horse", &h));
        assert!(!p.verify_now("correct horse", "not a hash"));
    }

    #[actix_web::test]
    async fn the_queue_is_bounded() {
        let p = Passwords::new(
            &Argon2Config {
                memory_kib: 64,
                iterations: 1,
                parallelism: 1,
            },
            1,
            1,
        )
        .unwrap();
        let h = p.hash("correct horse".into()).await.unwrap();
        assert!(
            p.verify(vec!["correct horse".into()], Some(h.clone()))
                .await
                .unwrap()
        );
        assert!(!p.verify(vec!["correct horse".into()], None).await.unwrap());
        // One turn taken and one waiter queued: a third request is refused at once.
        let turn = p.gate.enter().await.unwrap();
        let waiter = p.gate.enter();
        let mut waiter = Box::pin(waiter);
        assert!(futures_util::FutureExt::now_or_never(waiter.as_mut()).is_none());
        let e = p.gate.enter().await.unwrap_err();
        assert_eq!(e, PasswordError::Busy);
        drop(turn);
        assert!(waiter.await.is_ok());
    }

    fn gate_of(concurrency: usize, queue: usize) -> Passwords {
        Passwords::new(
            &Argon2Config {
                memory_kib: 64,
                iterations: 1,
                parallelism: 1,
            },
            concurrency,
            queue,
        )
        .unwrap()
    }

    /// Admission by the expected wait: with a recent turn of 50 ms, 30 waiters behind one
    /// running turn all fit in the allowed wait; with 500 ms, the 7th would wait 3.5 s and
    /// is refused at once.
    #[actix_web::test]
    async fn waiters_are_admitted_by_their_expected_wait() {
        let p = gate_of(1, 10_000);
        p.gate.turn_nanos.store(50_000_000, Ordering::Relaxed);
        let turn = p.gate.enter().await.unwrap();
        let mut waiters: Vec<_> = (0..30).map(|_| Box::pin(p.gate.enter())).collect();
        for w in &mut waiters {
            assert!(
                futures_util::FutureExt::now_or_never(w.as_mut()).is_none(),
                "admitted"
            );
        }
        assert_eq!(p.gate.waiting.load(Ordering::Relaxed), 30);
        drop(waiters);
        p.gate.turn_nanos.store(500_000_000, Ordering::Relaxed);
        let mut waiters: Vec<_> = (0..6).map(|_| Box::pin(p.gate.enter())).collect();
        for w in &mut waiters {
            assert!(futures_util::FutureExt::now_or_never(w.as_mut()).is_none());
        }
        assert_eq!(p.gate.enter().await.unwrap_err(), PasswordError::Busy);
        drop(turn);
        // Two concurrent turns halve the rounds: 12 waiters of 500 ms fit in 3 s.
        let p = gate_of(2, 10_000);
        p.gate.turn_nanos.store(500_000_000, Ordering::Relaxed);
        let _turns = (p.gate.enter().await.unwrap(), p.gate.enter().await.unwrap());
        let mut waiters: Vec<_> = (0..12).map(|_| Box::pin(p.gate.enter())).collect();
        for w in &mut waiters {
            assert!(futures_util::FutureExt::now_or_never(w.as_mut()).is_none());
        }
        assert_eq!(p.gate.enter().await.unwrap_err(), PasswordError::Busy);
    }

    #[test]
    fn the_average_follows_measured_turns() {
        let p = gate_of(1, 1);
        p.gate.turn_nanos.store(0, Ordering::Relaxed);
        p.gate.record(Duration::from_millis(100));
        assert_eq!(p.gate.expected_wait(0), Duration::from_millis(100));
        p.gate.record(Duration::from_millis(20));
        assert_eq!(p.gate.expected_wait(0), Duration::from_millis(80));
        assert_eq!(p.gate.expected_wait(3), Duration::from_millis(320));
    }
}
