//! The delivery loop's bookkeeping ([`super::run`]): the groups claimed and not yet
//! started, the attempts running, the places each lane has given out, and which endpoints
//! and accounts have their share. Pure: no I/O, no clock but the instants it is handed.
//!
//! - A lane (HTTP: webhooks and pushes; mail) has `cap` places
//!   (`DJAMBI_DELIVERY_CONCURRENCY`, `DJAMBI_MAIL_CONCURRENCY`); a running attempt holds
//!   one.
//! - Claims run ahead of the sending: up to `cap` groups wait *ready* beside the running
//!   ones, so a freed place starts the next attempt at once instead of after a claim's
//!   round trips, and claims come in batches, not one per freed place.
//! - An attempt that has run [`SLOW_AFTER`] gives its place back and goes on as a *slow*
//!   one (at most `cap` of them per lane; beyond, a slow attempt keeps its place): a
//!   receiver that never answers holds its own share (`DJAMBI_DELIVERY_PER_ENDPOINT` per
//!   endpoint, `DJAMBI_DELIVERY_PER_ACCOUNT` per account) until its first-byte timeout,
//!   but the lane's places only for a moment, so everyone else's pushes go on at the
//!   lane's pace.
//! - Endpoints and accounts are counted from the claim (ready or running) to the end of
//!   the attempt; a claim leaves out those that have their share.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use crate::ids::UserId;
use crate::notifications::config::NotifyConfig;
use crate::notifications::delivery::{BATCH, Job, Target};
use crate::store::deliveries::Lane;

/// How long an attempt holds its lane's place before it goes on as a slow one. A push
/// service answers within a few tens of milliseconds, a webhook receiver mostly within a
/// few hundred; an attempt past this is most likely one that will time out.
pub const SLOW_AFTER: Duration = Duration::from_millis(250);

/// The bounds, from the settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub http: usize,
    pub mail: usize,
    pub per_endpoint: usize,
    pub per_account: usize,
}

impl Limits {
    pub fn of(cfg: &NotifyConfig) -> Limits {
        Limits {
            http: cfg.delivery_concurrency.max(1),
            mail: cfg.mail_concurrency.max(1),
            per_endpoint: cfg.delivery_per_endpoint.max(1),
            per_account: cfg.delivery_per_account.max(1),
        }
    }

    fn cap(&self, lane: Lane) -> usize {
        match lane {
            Lane::Http => self.http,
            Lane::Mail => self.mail,
        }
    }
}

/// What one attempt (or one digest mail) counts against: its lane, its endpoint (the
/// `endpoint` value of its rows: a webhook endpoint's id, a push subscription's id, a mail
/// address; what `DJAMBI_DELIVERY_PER_ENDPOINT` counts) and its account.
///
/// A push is counted per subscription, never per push service host: every Chrome user's
/// subscription is on one host, so a bound per host would be a bound on the whole site's
/// pushes, and one hung device would hold up everyone's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub lane: Lane,
    pub endpoint: String,
    pub user: UserId,
}

/// The jobs of one attempt: one job, or every digest item of one address (one mail).
#[derive(Debug)]
pub struct Group {
    pub place: Place,
    pub jobs: Vec<Job>,
}

impl Group {
    /// The deliveries (id, lease) the group holds.
    pub fn leases(&self) -> Vec<(String, NaiveDateTime)> {
        self.jobs
            .iter()
            .map(|j| (j.delivery.id.clone(), j.lease))
            .collect()
    }
}

/// A lane's claimed jobs as groups: digest items one mail per address, everything else
/// one by one, in the claim's order.
pub fn groups(lane: Lane, jobs: Vec<Job>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut digests: HashMap<String, usize> = HashMap::new();
    for job in jobs {
        if let Target::Digest { to, .. } = &job.target {
            if let Some(&i) = digests.get(to) {
                groups[i].jobs.push(job);
                continue;
            }
            digests.insert(to.clone(), groups.len());
        }
        let place = Place {
            lane,
            endpoint: job.delivery.endpoint.clone(),
            user: job.delivery.user_id.clone(),
        };
        groups.push(Group {
            place,
            jobs: vec![job],
        });
    }
    groups
}

#[derive(Debug)]
struct Attempt {
    place: Place,
    leases: Vec<(String, NaiveDateTime)>,
    started: Instant,
    slow: bool,
}

/// The bookkeeping of one instance's delivery loop; `K` names a running attempt (its
/// task's id).
#[derive(Debug)]
pub struct Places<K> {
    /// Per lane: running attempts that hold a place.
    holding: HashMap<Lane, usize>,
    /// Per lane: running attempts past [`SLOW_AFTER`] that gave theirs back.
    slow: HashMap<Lane, usize>,
    /// Per lane: groups claimed, waiting for a place.
    ready: HashMap<Lane, VecDeque<Group>>,
    /// Claimed groups (ready or running) per endpoint and per account.
    endpoints: HashMap<String, usize>,
    users: HashMap<UserId, usize>,
    running: HashMap<K, Attempt>,
}

impl<K> Default for Places<K> {
    fn default() -> Self {
        Places {
            holding: HashMap::new(),
            slow: HashMap::new(),
            ready: HashMap::new(),
            endpoints: HashMap::new(),
            users: HashMap::new(),
            running: HashMap::new(),
        }
    }
}

fn count<Q: Hash + Eq>(m: &HashMap<Q, usize>, k: &Q) -> usize {
    m.get(k).copied().unwrap_or(0)
}

fn less<Q: Hash + Eq>(m: &mut HashMap<Q, usize>, k: &Q) {
    if let Some(n) = m.get_mut(k) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            m.remove(k);
        }
    }
}

impl<K: Hash + Eq + Copy> Places<K> {
    /// Running attempts holding a place of `lane`.
    pub fn holding(&self, lane: Lane) -> usize {
        count(&self.holding, &lane)
    }

    /// Slow attempts of `lane`.
    pub fn slow(&self, lane: Lane) -> usize {
        count(&self.slow, &lane)
    }

    /// Groups of `lane` waiting for a place.
    pub fn ready(&self, lane: Lane) -> usize {
        self.ready.get(&lane).map_or(0, VecDeque::len)
    }

    /// What to claim now, per lane: nothing while more than half a lane is ready; else
    /// enough for a lane running and a lane ready (at most [`BATCH`]).
    pub fn wants(&self, limits: &Limits) -> Vec<(Lane, usize)> {
        Lane::ALL
            .into_iter()
            .filter_map(|lane| {
                let cap = limits.cap(lane);
                let (held, ready) = (self.holding(lane), self.ready(lane));
                let room = (2 * cap).saturating_sub(held + ready).min(BATCH as usize);
                (ready <= cap / 2 && room > 0).then_some((lane, room))
            })
            .collect()
    }

    /// The endpoints, and the accounts, that have their share claimed: a claim leaves
    /// them out.
    pub fn busy(&self, limits: &Limits) -> (Vec<String>, Vec<UserId>) {
        fn full<K: Clone>(m: &HashMap<K, usize>, max: usize) -> Vec<K> {
            m.iter()
                .filter(|(_, n)| **n >= max)
                .map(|(e, _)| e.clone())
                .collect()
        }
        (
            full(&self.endpoints, limits.per_endpoint),
            full(&self.users, limits.per_account),
        )
    }

    /// Takes claimed groups in as ready; gives back (returns) those whose endpoint or
    /// account has its share already (several of one endpoint came in one claim).
    pub fn admit(&mut self, groups: Vec<Group>, limits: &Limits) -> Vec<Group> {
        let mut refused = Vec::new();
        for group in groups {
            let p = &group.place;
            if count(&self.endpoints, &p.endpoint) >= limits.per_endpoint
                || count(&self.users, &p.user) >= limits.per_account
            {
                refused.push(group);
                continue;
            }
            *self.endpoints.entry(p.endpoint.clone()).or_default() += 1;
            *self.users.entry(p.user.clone()).or_default() += 1;
            self.ready.entry(p.lane).or_default().push_back(group);
        }
        refused
    }

    /// The next ready group that a lane has a place for; it holds the place once
    /// [`Places::started`].
    pub fn next_to_start(&mut self, limits: &Limits) -> Option<Group> {
        Lane::ALL.into_iter().find_map(|lane| {
            if self.holding(lane) >= limits.cap(lane) {
                return None;
            }
            self.ready.get_mut(&lane).and_then(VecDeque::pop_front)
        })
    }

    /// The group of `place` holding `leases` (from [`Places::next_to_start`]) runs as
    /// attempt `key` since `at`.
    pub fn started(
        &mut self,
        key: K,
        place: Place,
        leases: Vec<(String, NaiveDateTime)>,
        at: Instant,
    ) {
        *self.holding.entry(place.lane).or_default() += 1;
        self.running.insert(
            key,
            Attempt {
                place,
                leases,
                started: at,
                slow: false,
            },
        );
    }

    /// Attempt `key` is over: its place (or its slow one), its endpoint's and its
    /// account's share are free.
    pub fn finished(&mut self, key: K) {
        let Some(a) = self.running.remove(&key) else {
            return;
        };
        less(
            if a.slow {
                &mut self.slow
            } else {
                &mut self.holding
            },
            &a.place.lane,
        );
        less(&mut self.endpoints, &a.place.endpoint);
        less(&mut self.users, &a.place.user);
    }

    /// When the next attempt becomes slow (an attempt of a lane whose slow ones are at
    /// their bound keeps its place: none of those).
    pub fn next_slow(&self, limits: &Limits) -> Option<Instant> {
        self.running
            .values()
            .filter(|a| !a.slow && self.slow(a.place.lane) < limits.cap(a.place.lane))
            .map(|a| a.started + SLOW_AFTER)
            .min()
    }

    /// The attempts that have run [`SLOW_AFTER`] by `now` give their places back, oldest
    /// first, as long as their lane may have more slow ones. Returns how many did.
    pub fn mark_slow(&mut self, now: Instant, limits: &Limits) -> usize {
        let mut due: Vec<(Instant, K)> = self
            .running
            .iter()
            .filter(|(_, a)| !a.slow && a.started + SLOW_AFTER <= now)
            .map(|(k, a)| (a.started, *k))
            .collect();
        due.sort_by_key(|(at, _)| *at);
        let mut marked = 0;
        for (_, k) in due {
            let lane = self.running[&k].place.lane;
            if self.slow(lane) >= limits.cap(lane) {
                continue;
            }
            if let Some(a) = self.running.get_mut(&k) {
                a.slow = true;
            }
            less(&mut self.holding, &lane);
            *self.slow.entry(lane).or_default() += 1;
            marked += 1;
        }
        marked
    }

    /// The deliveries still held, ready or running (given back when the loop stops).
    pub fn leases_left(&mut self) -> Vec<(String, NaiveDateTime)> {
        let mut left: Vec<(String, NaiveDateTime)> = self
            .ready
            .drain()
            .flat_map(|(_, q)| q.into_iter().flat_map(|g| g.leases()))
            .collect();
        left.extend(self.running.drain().flat_map(|(_, a)| a.leases));
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::deliveries::DeliveryRow;
    use crate::store::outbox::NotificationRow;

    const LIMITS: Limits = Limits {
        http: 4,
        mail: 2,
        per_endpoint: 2,
        per_account: 3,
    };

    fn job(id: &str, endpoint: &str, user: &str) -> Job {
        let at = NaiveDateTime::default();
        Job {
            delivery: DeliveryRow {
                id: id.into(),
                notification_id: format!("n-{id}"),
                user_id: user.into(),
                channel: "push".into(),
                endpoint: endpoint.into(),
                status: "pending".into(),
                attempts: 0,
                next_attempt_at: at,
                lease_until: Some(at),
                last_error: None,
                last_status: None,
                created_at: at,
                delivered_at: None,
            },
            note: NotificationRow {
                id: format!("n-{id}"),
                user_id: user.into(),
                kind: "your_turn".into(),
                game_id: None,
                version: None,
                payload: "{}".into(),
                created_at: at,
                read_at: None,
            },
            target: Target::Gone("test".into()),
            lease: at,
        }
    }

    fn http(jobs: &[(&str, &str, &str)]) -> Vec<Group> {
        groups(
            Lane::Http,
            jobs.iter().map(|(i, e, u)| job(i, e, u)).collect(),
        )
    }

    /// Starts every group that has a place; their keys in order from `first`.
    fn start_all(p: &mut Places<u32>, first: u32, at: Instant) -> Vec<u32> {
        let mut keys = Vec::new();
        let mut k = first;
        while let Some(g) = p.next_to_start(&LIMITS) {
            p.started(k, g.place.clone(), g.leases(), at);
            keys.push(k);
            k += 1;
        }
        keys
    }

    #[test]
    fn claims_run_a_lane_ahead_and_only_when_half_of_it_is_left() {
        let mut p: Places<u32> = Places::default();
        assert_eq!(p.wants(&LIMITS), vec![(Lane::Http, 8), (Lane::Mail, 4)]);
        let jobs: Vec<(String, String, String)> = (0..8)
            .map(|i| (format!("d{i}"), format!("e{i}"), format!("u{i}")))
            .collect();
        let refs: Vec<(&str, &str, &str)> = jobs
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
            .collect();
        assert!(p.admit(http(&refs), &LIMITS).is_empty());
        let now = Instant::now();
        assert_eq!(start_all(&mut p, 0, now).len(), 4, "four places");
        assert_eq!((p.holding(Lane::Http), p.ready(Lane::Http)), (4, 4));
        // Four ready, more than half the lane: no claim for it.
        assert_eq!(p.wants(&LIMITS), vec![(Lane::Mail, 4)]);
        p.finished(0);
        p.finished(1);
        assert_eq!(start_all(&mut p, 10, now).len(), 2);
        assert_eq!(p.ready(Lane::Http), 2);
        // Two ready (half): claim what fills two lanes again.
        assert_eq!(p.wants(&LIMITS)[0], (Lane::Http, 2));
    }

    #[test]
    fn an_endpoint_and_an_account_get_their_share_only() {
        let mut p: Places<u32> = Places::default();
        let refused = p.admit(
            http(&[
                ("a", "e1", "u1"),
                ("b", "e1", "u1"),
                ("c", "e1", "u2"),
                ("d", "e2", "u1"),
                ("e", "e3", "u1"),
            ]),
            &LIMITS,
        );
        let ids: Vec<&str> = refused
            .iter()
            .map(|g| g.jobs[0].delivery.id.as_str())
            .collect();
        // e1 has two (c refused); u1 has three (e refused).
        assert_eq!(ids, ["c", "e"]);
        let (endpoints, users) = p.busy(&LIMITS);
        assert_eq!(
            (endpoints, users),
            (vec!["e1".to_string()], vec![UserId::new("u1")])
        );
        start_all(&mut p, 0, Instant::now());
        p.finished(0);
        assert_eq!(p.busy(&LIMITS), (vec![], vec![]));
    }

    #[test]
    fn a_slow_attempt_gives_its_place_back_but_keeps_its_share() {
        let mut p: Places<u32> = Places::default();
        let t0 = Instant::now();
        p.admit(
            http(&[
                ("a", "hung", "u1"),
                ("b", "hung", "u1"),
                ("c", "e2", "u2"),
                ("d", "e3", "u3"),
            ]),
            &LIMITS,
        );
        start_all(&mut p, 0, t0);
        assert_eq!(p.holding(Lane::Http), 4);
        assert_eq!(p.next_slow(&LIMITS), Some(t0 + SLOW_AFTER));
        // c and d answered; a and b hang.
        p.finished(2);
        p.finished(3);
        assert_eq!(p.mark_slow(t0 + SLOW_AFTER / 2, &LIMITS), 0);
        assert_eq!(p.mark_slow(t0 + SLOW_AFTER, &LIMITS), 2);
        assert_eq!((p.holding(Lane::Http), p.slow(Lane::Http)), (0, 2));
        assert_eq!(p.next_slow(&LIMITS), None);
        // The lane's places are free for others; the hung endpoint still has its share.
        assert_eq!(p.busy(&LIMITS).0, vec!["hung".to_string()]);
        p.admit(http(&[("e", "hung", "u9")]), &LIMITS);
        assert_eq!(
            p.ready(Lane::Http),
            0,
            "the hung endpoint gets nothing more"
        );
        p.finished(0);
        assert_eq!((p.slow(Lane::Http), p.busy(&LIMITS).0.len()), (1, 0));
    }

    #[test]
    fn slow_attempts_are_bounded_per_lane() {
        let mut p: Places<u32> = Places::default();
        let t0 = Instant::now();
        let jobs: Vec<(String, String, String)> = (0..8)
            .map(|i| (format!("d{i}"), format!("e{i}"), format!("u{i}")))
            .collect();
        let refs: Vec<(&str, &str, &str)> = jobs
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
            .collect();
        p.admit(http(&refs), &LIMITS);
        start_all(&mut p, 0, t0);
        assert_eq!(p.mark_slow(t0 + SLOW_AFTER, &LIMITS), 4);
        start_all(&mut p, 4, t0 + SLOW_AFTER);
        // Four slow already (the lane's bound): the next four keep their places.
        assert_eq!(p.next_slow(&LIMITS), None);
        assert_eq!(p.mark_slow(t0 + 4 * SLOW_AFTER, &LIMITS), 0);
        assert_eq!((p.holding(Lane::Http), p.slow(Lane::Http)), (4, 4));
        p.finished(1);
        assert_eq!(p.next_slow(&LIMITS), Some(t0 + 2 * SLOW_AFTER));
        assert_eq!(p.mark_slow(t0 + 4 * SLOW_AFTER, &LIMITS), 1);
        assert_eq!(p.leases_left().len(), 7);
    }

    #[test]
    fn a_digest_is_one_group_per_address() {
        let mut a = job("a", "x@example.org", "u1");
        let mut b = job("b", "y@example.org", "u2");
        let mut c = job("c", "x@example.org", "u1");
        for j in [&mut a, &mut b, &mut c] {
            j.target = Target::Digest {
                to: j.delivery.endpoint.clone(),
                mail: crate::notifications::email::Mail {
                    subject: String::new(),
                    body: String::new(),
                    unsubscribe_url: None,
                    reply_to: None,
                    lang: crate::i18n::Lang::EN,
                    zone: crate::i18n::TimeZone::UTC,
                    answers: None,
                },
            };
        }
        let g = groups(Lane::Mail, vec![a, b, c]);
        let sizes: Vec<usize> = g.iter().map(|g| g.jobs.len()).collect();
        assert_eq!(sizes, [2, 1]);
        assert_eq!(g[0].leases().len(), 2);
    }
}
