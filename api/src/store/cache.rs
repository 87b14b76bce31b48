//! Recently used game states, in memory, so that a move does not replay the whole log.
//!
//! One entry per game: the newest state seen, tagged with its version. A lookup names the
//! version the database says is current; the cache answers only for exactly that version
//! (it is never trusted over the database). A reader that finds an older version folds only
//! the missing events onto it. States enter the cache only after their transaction commits.
//!
//! Bounded: past `capacity` entries, the least recently used tenth is evicted at once
//! (amortised O(1) per insert).
//!
//! Beside the newest state, the cache keeps *checkpoints*: states at every
//! [`CHECKPOINT_EVERY`]th version, left behind by replays, so that reading an old version
//! (`state?at=N`, a page of history) folds at most that many events instead of replaying
//! the log from event 1. States at a version never change, so a checkpoint never goes
//! stale; they are bounded like the newest states.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::ids::GameId;
use crate::model::game_state::GameState;

#[derive(Debug)]
struct Entry {
    state: Arc<GameState>,
    last_used: u64,
}

/// Checkpoints are kept at versions that are multiples of this.
pub const CHECKPOINT_EVERY: i64 = 32;

#[derive(Debug, Default)]
struct Inner {
    map: HashMap<GameId, Entry>,
    checkpoints: HashMap<(GameId, i64), Entry>,
    tick: u64,
}

/// The cache; shared by all workers.
#[derive(Debug)]
pub struct GameCache {
    inner: Mutex<Inner>,
    capacity: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl GameCache {
    pub fn new(capacity: usize) -> GameCache {
        GameCache {
            inner: Mutex::new(Inner::default()),
            capacity: capacity.max(1),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map inconsistent (every
        // operation is a single insert/remove), so a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The cached state of game `id` if it is at most `version`: exactly `version` (a hit),
    /// or an older one to fold forward from. `None` if absent or newer.
    pub fn get_at_most(&self, id: &GameId, version: i64) -> Option<Arc<GameState>> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let mut found = inner.map.get_mut(id).and_then(|e| {
            (e.state.version <= version).then(|| {
                e.last_used = tick;
                e.state.clone()
            })
        });
        if found.as_ref().is_none_or(|s| s.version < version) {
            // The newest checkpoint at or below `version`, if better than the newest state.
            let mut at = version - version.rem_euclid(CHECKPOINT_EVERY);
            let floor = found.as_ref().map_or(0, |s| s.version);
            // Bounded: far below `version`, a replay costs little more than the search.
            let mut tries = 64;
            while at > floor && tries > 0 {
                tries -= 1;
                if let Some(e) = inner.checkpoints.get_mut(&(id.clone(), at)) {
                    e.last_used = tick;
                    found = Some(e.state.clone());
                    break;
                }
                at -= CHECKPOINT_EVERY;
            }
        }
        drop(inner);
        if found.as_ref().is_some_and(|s| s.version == version) {
            self.hits.fetch_add(1, Ordering::Relaxed);
        } else {
            self.misses.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// The newest cached state of game `id`, whatever its version.
    pub fn latest(&self, id: &GameId) -> Option<Arc<GameState>> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        inner.map.get_mut(id).map(|e| {
            e.last_used = tick;
            e.state.clone()
        })
    }

    /// Remembers a committed state, unless a newer one of the same game is cached.
    pub fn put(&self, state: Arc<GameState>) {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        match inner.map.get_mut(&state.id) {
            Some(e) if e.state.version > state.version => e.last_used = tick,
            Some(e) => {
                e.state = state;
                e.last_used = tick;
            }
            None => {
                if inner.map.len() >= self.capacity {
                    Self::evict(&mut inner, self.capacity / 10 + 1);
                }
                inner.map.insert(
                    state.id.clone(),
                    Entry {
                        state,
                        last_used: tick,
                    },
                );
            }
        }
    }

    /// Keeps `state` as a checkpoint if its version is a multiple of [`CHECKPOINT_EVERY`].
    pub fn offer_checkpoint(&self, state: &GameState) {
        if state.version % CHECKPOINT_EVERY != 0 {
            return;
        }
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let key = (state.id.clone(), state.version);
        if let Some(e) = inner.checkpoints.get_mut(&key) {
            e.last_used = tick;
            return;
        }
        if inner.checkpoints.len() >= self.capacity {
            let n = self.capacity / 10 + 1;
            evict_oldest(&mut inner.checkpoints, n);
        }
        inner.checkpoints.insert(
            key,
            Entry {
                state: Arc::new(state.clone()),
                last_used: tick,
            },
        );
    }

    /// Forgets a game (e.g. after a write failed in an unexpected way).
    pub fn forget(&self, id: &GameId) {
        self.lock().map.remove(id);
    }

    fn evict(inner: &mut Inner, n: usize) {
        evict_oldest(&mut inner.map, n);
    }

    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (hits, misses) since start.
    pub fn stats(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }
}

/// Drops the `n` least recently used entries of a map.
fn evict_oldest<K: std::hash::Hash + Eq>(map: &mut HashMap<K, Entry>, n: usize) {
    let mut ages: Vec<u64> = map.values().map(|e| e.last_used).collect();
    let n = n.min(ages.len());
    if n == 0 {
        return;
    }
    let (_, cut, _) = ages.select_nth_unstable(n - 1);
    let cut = *cut;
    map.retain(|_, e| e.last_used > cut);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::events::{Event, Visibility};

    fn state(id: &str, version: i64) -> Arc<GameState> {
        let created = Event::Created {
            ruleset: domain::Ruleset::Standard2026.id(),
            seats: "RBYG".into(),
            hostage_seat: None,
            visibility: Visibility::Public,
            created_by: "u".into(),
            invite_code: None,
            kind: crate::model::events::GameKind::Play,
            record_headers: Vec::new(),
            time_control: None,
            talk: Default::default(),
            rated: false,
            rating_range: None,
        };
        let mut s = GameState::created(
            &GameId::new(id),
            &created,
            crate::clock::Clock::now(&crate::clock::SystemClock),
        )
        .unwrap();
        s.version = version;
        Arc::new(s)
    }

    /// The version the cache answers for game `id` asked at `at`.
    fn at_most(c: &GameCache, id: &str, at: i64) -> Option<i64> {
        c.get_at_most(&GameId::new(id), at).map(|s| s.version)
    }

    #[test]
    fn answers_only_for_the_version_asked_or_older() {
        let c = GameCache::new(10);
        c.put(state("a", 5));
        assert_eq!(at_most(&c, "a", 5), Some(5));
        assert_eq!(at_most(&c, "a", 7), Some(5));
        assert_eq!(at_most(&c, "a", 4), None);
        c.put(state("a", 3));
        assert_eq!(at_most(&c, "a", 9), Some(5));
        c.put(state("a", 6));
        assert_eq!(at_most(&c, "a", 6), Some(6));
    }

    #[test]
    fn old_versions_start_from_the_nearest_checkpoint() {
        let c = GameCache::new(10);
        c.put(state("a", 100));
        for v in [32, 64, 65, 96] {
            c.offer_checkpoint(&state("a", v));
        }
        assert_eq!(at_most(&c, "a", 70), Some(64));
        assert_eq!(at_most(&c, "a", 96), Some(96));
        assert_eq!(at_most(&c, "a", 31), None);
        assert_eq!(at_most(&c, "a", 101), Some(100));
        assert_eq!(at_most(&c, "b", 70), None);
    }

    #[test]
    fn stays_bounded_and_keeps_recent_entries() {
        let c = GameCache::new(100);
        for i in 0..1000 {
            c.put(state(&format!("g{i}"), 1));
            assert!(
                c.get_at_most(&GameId::new("g0"), 1).is_some(),
                "the hot entry survives"
            );
        }
        assert!(c.len() <= 100);
    }
}
