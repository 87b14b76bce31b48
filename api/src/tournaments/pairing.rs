//! Who sits at which table, in which seat: the round-robin schedule of a section and the
//! Swiss pairing by score. Pure and deterministic: the same input gives the same tables
//! on every instance, so two instances pairing the same round decide the same thing
//! (and the event log's version claim lets only one of them write it).
//!
//! Players are indices (`0..n`); a table is `k` players in seat order (Red, Blue, Yellow,
//! Green for four seats; Red, Blue, Yellow for three, Green's party hostage), `k` the
//! event's seats per table. See `docs/tournaments.md` for the choices and the numbers.

use std::collections::HashSet;
use std::sync::OnceLock;

/// Seats per table: an event chooses 3 or 4 (a game needs three seated players).
pub const MIN_SEATS: usize = 3;
pub const MAX_SEATS: usize = 4;
/// The seats per table of an event that does not say (every event before the choice).
pub const DEFAULT_SEATS: usize = 4;
/// The largest round-robin section; the smallest is one table (`k` players).
pub const ROUND_ROBIN_MAX: usize = 16;

/// Whether `k` seats per table is a choice an event may make.
pub fn seats_allowed(k: usize) -> bool {
    (MIN_SEATS..=MAX_SEATS).contains(&k)
}

/// One round: its tables (`k` players each, in seat order) and who sits out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundTables {
    pub tables: Vec<Vec<usize>>,
    pub byes: Vec<usize>,
}

/// The shape of a round-robin section of `n` players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRobinPlan {
    /// Seats per table (`k`).
    pub seats: usize,
    pub players: usize,
    pub tables_per_round: usize,
    /// Players sitting out each round (`n mod k`).
    pub byes_per_round: usize,
    /// Games each player plays: the fewest that are a multiple of `k` (each seat equally
    /// often), enough to meet every opponent half as often again as strictly needed
    /// (`2 (k − 1) · games ≥ 3 (n − 1)`, with `k − 1` opponents a game: slack for the
    /// search; for four seats `2 · games ≥ n − 1`), and such that the rounds come out
    /// whole (`n · games` is a multiple of the seats played per round).
    pub games_per_player: usize,
    pub rounds: usize,
}

/// The smallest round-robin section of `k`-seat tables: one table.
pub fn round_robin_min(k: usize) -> usize {
    k
}

/// The plan for `n` players at `k`-seat tables, `None` outside `k..=16` (or for a `k`
/// not allowed).
pub fn round_robin_plan(k: usize, n: usize) -> Option<RoundRobinPlan> {
    if !seats_allowed(k) || !(round_robin_min(k)..=ROUND_ROBIN_MAX).contains(&n) {
        return None;
    }
    let tables = n / k;
    let per_round = tables * k;
    let mut games = k;
    while 2 * (k - 1) * games < 3 * (n - 1) || (n * games) % per_round != 0 {
        games += k;
    }
    Some(RoundRobinPlan {
        seats: k,
        players: n,
        tables_per_round: tables,
        byes_per_round: n - per_round,
        games_per_player: games,
        rounds: n * games / per_round,
    })
}

/// The round-robin schedule of `n` players at `k`-seat tables (`k..=16`), computed once
/// per size.
pub fn round_robin(k: usize, n: usize) -> Option<&'static [RoundTables]> {
    static CACHE: [[OnceLock<Vec<RoundTables>>; ROUND_ROBIN_MAX + 1]; MAX_SEATS + 1] =
        [const { [const { OnceLock::new() }; ROUND_ROBIN_MAX + 1] }; MAX_SEATS + 1];
    let plan = round_robin_plan(k, n)?;
    Some(
        CACHE[k][n]
            .get_or_init(|| build_round_robin(plan))
            .as_slice(),
    )
}

/// A small deterministic generator (splitmix64): the schedule is the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The search state of the round-robin: each round a permutation of the players, cut
/// into tables of `k`, the last `byes` positions sitting out.
struct Search {
    n: usize,
    k: usize,
    byes: usize,
    games: usize,
    rounds: Vec<Vec<usize>>,
    met: Vec<u32>,
    played: Vec<i64>,
    /// The cost of a pair meeting `c` times (strongly convex around the mean).
    weight: Vec<i64>,
    cost: i64,
}

/// How much a game-count deviation weighs against pair imbalance.
const GAMES_WEIGHT: i64 = 8;
const T0: f64 = 300.0;
const T1: f64 = 5.0;

impl Search {
    fn group(&self, pos: usize) -> usize {
        pos / self.k
    }

    fn is_bye(&self, pos: usize) -> bool {
        pos >= self.n - self.byes
    }

    fn bump(&mut self, a: usize, b: usize, d: i32) {
        let i = a * self.n + b;
        let c = self.met[i];
        let c2 = (i64::from(c) + i64::from(d)) as u32;
        self.cost += self.weight[c2 as usize] - self.weight[c as usize];
        self.met[i] = c2;
        self.met[b * self.n + a] = c2;
    }

    fn bump_played(&mut self, p: usize, d: i64) {
        let g = self.games as i64;
        let before = self.played[p] - g;
        self.played[p] += d;
        let after = self.played[p] - g;
        self.cost += GAMES_WEIGHT * (after * after - before * before);
    }

    /// The positions of the group holding position `pos` (empty for the byes).
    fn members(&self, pos: usize) -> std::ops::Range<usize> {
        if self.is_bye(pos) {
            0..0
        } else {
            let g = self.group(pos) * self.k;
            g..g + self.k
        }
    }

    /// Moves the player at `pos` of round `r` out of (`d = -1`) or into (`+1`) its group.
    fn touch(&mut self, r: usize, pos: usize, d: i32) {
        let p = self.rounds[r][pos];
        for q in self.members(pos) {
            if q != pos {
                let other = self.rounds[r][q];
                self.bump(p, other, d);
            }
        }
        if !self.is_bye(pos) {
            self.bump_played(p, i64::from(d));
        }
    }

    fn swap(&mut self, r: usize, i: usize, j: usize) {
        self.touch(r, i, -1);
        self.touch(r, j, -1);
        self.rounds[r].swap(i, j);
        self.touch(r, i, 1);
        self.touch(r, j, 1);
    }
}

fn build_round_robin(plan: RoundRobinPlan) -> Vec<RoundTables> {
    let n = plan.players;
    let k = plan.seats;
    let per_pair = {
        let total = plan.rounds * plan.tables_per_round * k * (k - 1) / 2;
        let pairs = n * (n - 1) / 2;
        (total / pairs, total % pairs)
    };
    // The best conceivable cost: pair meetings as even as the totals allow, every
    // player at exactly `games_per_player` games.
    let (q, extra) = per_pair;
    let pairs = n * (n - 1) / 2;
    let mean = (q as f64) + extra as f64 / pairs as f64;
    // Meetings never exceed the games a player plays.
    let weight: Vec<i64> = (0..=plan.games_per_player + 1)
        .map(|c| (100.0 * (c as f64 - mean).abs().powi(3)).round() as i64)
        .collect();
    let ideal = 2 * ((pairs - extra) as i64 * weight[q] + extra as i64 * weight[q + 1]);
    let mut best: Option<(i64, Vec<Vec<usize>>)> = None;
    for attempt in 0..12u64 {
        let mut rng = Rng(0x00D1_A4B1_u64 + 7919 * attempt + n as u64);
        let mut search = Search {
            n,
            k,
            byes: plan.byes_per_round,
            games: plan.games_per_player,
            rounds: Vec::new(),
            met: vec![0; n * n],
            played: vec![0; n],
            weight: weight.clone(),
            cost: 0,
        };
        for r in 0..plan.rounds {
            // The byes start in turn (each player sits out equally often); the search
            // may move them, the games term brings the counts back to equal.
            let mut order: Vec<usize> = (0..n).collect();
            order.rotate_left((r * plan.byes_per_round) % n);
            order.reverse();
            for i in (1..n - plan.byes_per_round).rev() {
                let j = rng.below(i + 1);
                order.swap(i, j);
            }
            search.rounds.push(order);
        }
        recount(&mut search);
        let steps = 40_000 + 20_000 * n;
        let mut temperature = T0;
        let cooling = (T1 / T0).powf(1.0 / steps as f64);
        for _ in 0..steps {
            if search.cost == ideal {
                break;
            }
            temperature *= cooling;
            let before = search.cost;
            let r = rng.below(plan.rounds);
            let playing = n - plan.byes_per_round;
            if plan.byes_per_round > 0 && rng.below(3) == 0 {
                // A bye traded across two rounds: x sits out r and plays r2, y the
                // other way round; every player keeps its number of games.
                let i = playing + rng.below(plan.byes_per_round);
                let j = rng.below(playing);
                let (x, y) = (search.rounds[r][i], search.rounds[r][j]);
                let r2 = rng.below(plan.rounds);
                let pos = |p: usize| search.rounds[r2].iter().position(|&q| q == p);
                let (Some(xi), Some(yi)) = (pos(x), pos(y)) else {
                    continue;
                };
                if r2 == r || !search.is_bye(yi) || search.is_bye(xi) {
                    continue;
                }
                search.swap(r, i, j);
                search.swap(r2, xi, yi);
                let delta = (search.cost - before) as f64;
                if delta > 0.0 && rng.unit() >= (-delta / temperature).exp() {
                    search.swap(r2, xi, yi);
                    search.swap(r, i, j);
                }
                continue;
            }
            let i = rng.below(playing);
            let j = rng.below(playing);
            if search.group(i) == search.group(j) {
                continue;
            }
            search.swap(r, i, j);
            let delta = (search.cost - before) as f64;
            if delta > 0.0 && rng.unit() >= (-delta / temperature).exp() {
                search.swap(r, i, j);
            }
        }
        let valid = search
            .played
            .iter()
            .all(|&g| g == plan.games_per_player as i64);
        if valid && best.as_ref().is_none_or(|(c, _)| search.cost < *c) {
            best = Some((search.cost, search.rounds.clone()));
            if search.cost == ideal {
                break;
            }
        }
    }
    let rounds = best.map(|(_, r)| r).unwrap_or_else(|| {
        // Not reached for k..=16 (a test runs every size); still a whole schedule.
        (0..plan.rounds)
            .map(|r| {
                let mut o: Vec<usize> = (0..n).collect();
                o.rotate_left((r * plan.byes_per_round) % n);
                o.reverse();
                o
            })
            .collect()
    });
    let cut: Vec<(Vec<Vec<usize>>, Vec<usize>)> = rounds
        .iter()
        .map(|order| {
            let playing = n - plan.byes_per_round;
            let tables = order[..playing].chunks(k).map(<[usize]>::to_vec).collect();
            let mut byes = order[playing..].to_vec();
            byes.sort_unstable();
            (tables, byes)
        })
        .collect();
    seat_balanced(n, k, plan.games_per_player, cut)
}

fn recount(search: &mut Search) {
    let n = search.n;
    search.met = vec![0; n * n];
    search.played = vec![0; n];
    for order in &search.rounds {
        let playing = n - search.byes;
        for table in order[..playing].chunks(search.k) {
            for (k, &a) in table.iter().enumerate() {
                search.played[a] += 1;
                for &b in &table[k + 1..] {
                    search.met[a * n + b] += 1;
                    search.met[b * n + a] += 1;
                }
            }
        }
    }
    let mut cost = 0i64;
    for a in 0..n {
        for b in 0..n {
            if a != b {
                cost += search.weight[search.met[a * n + b] as usize];
            }
        }
        let d = search.played[a] - search.games as i64;
        cost += GAMES_WEIGHT * d * d;
    }
    search.cost = cost;
}

/// Seats the tables so that every player sits in every seat exactly `games / k` times.
///
/// Each player's games are cut into groups of `k`; the graph joining the tables to
/// these groups is `k`-regular and bipartite, so (König) it splits into `k` perfect
/// matchings: matching `s` gives seat `s`. Each table gets each seat once, each group
/// each seat once, so each player gets each seat `games / k` times.
fn seat_balanced(
    n: usize,
    k: usize,
    games: usize,
    rounds: Vec<(Vec<Vec<usize>>, Vec<usize>)>,
) -> Vec<RoundTables> {
    // Tables, numbered across the event, and for each player its groups of `k`.
    let mut tables: Vec<Vec<usize>> = Vec::new();
    for (ts, _) in &rounds {
        tables.extend(ts.iter().cloned());
    }
    let mut group_of: Vec<Vec<usize>> = vec![Vec::new(); tables.len()]; // table -> groups
    let per_player = games / k;
    let groups = n * per_player;
    let mut seen = vec![0usize; n];
    let first_group: Vec<usize> = (0..n).map(|p| p * per_player).collect();
    for (t, members) in tables.iter().enumerate() {
        for &p in members {
            group_of[t].push(first_group[p] + seen[p] / k);
            seen[p] += 1;
        }
    }
    // Edges: (table, group, player); remaining edges per table.
    let mut edges: Vec<Vec<(usize, usize)>> = tables
        .iter()
        .enumerate()
        .map(|(t, members)| {
            members
                .iter()
                .enumerate()
                .map(|(i, &p)| (group_of[t][i], p))
                .collect()
        })
        .collect();
    // Matching `s` seats each table's seat `s`: pushed in seat order.
    let mut by_seat: Vec<Vec<usize>> = vec![Vec::with_capacity(k); tables.len()];
    for _ in 0..k {
        let matching = perfect_matching(&edges, groups);
        for (t, e) in matching.into_iter().enumerate() {
            let (_, p) = edges[t].remove(e);
            by_seat[t].push(p);
        }
    }
    let seated = by_seat;
    let mut out = Vec::new();
    let mut t = 0;
    for (ts, byes) in rounds {
        let tables = ts.iter().map(|_| {
            t += 1;
            seated[t - 1].clone()
        });
        out.push(RoundTables {
            tables: tables.collect(),
            byes,
        });
    }
    out
}

/// A perfect matching of the tables to the groups (Kuhn's augmenting paths); returns,
/// for each table, the index of its matched edge in `edges[table]`.
fn perfect_matching(edges: &[Vec<(usize, usize)>], groups: usize) -> Vec<usize> {
    fn augment(
        t: usize,
        edges: &[Vec<(usize, usize)>],
        owner: &mut [Option<(usize, usize)>],
        visited: &mut [bool],
    ) -> bool {
        for (e, &(g, _)) in edges[t].iter().enumerate() {
            if visited[g] {
                continue;
            }
            visited[g] = true;
            let free = match owner[g] {
                None => true,
                Some((other, _)) => augment(other, edges, owner, visited),
            };
            if free {
                owner[g] = Some((t, e));
                return true;
            }
        }
        false
    }
    let mut owner: Vec<Option<(usize, usize)>> = vec![None; groups];
    for t in 0..edges.len() {
        let mut visited = vec![false; groups];
        augment(t, edges, &mut owner, &mut visited);
    }
    let mut chosen = vec![0usize; edges.len()];
    for (t, e) in owner.into_iter().flatten() {
        chosen[t] = e;
    }
    chosen
}

/// A player as the Swiss pairing sees it.
#[derive(Clone, Debug)]
pub struct SwissEntrant {
    /// Index of the player (as in `met` pairs).
    pub player: usize,
    /// Games played in each seat so far (the first `k` count).
    pub seats: [u32; MAX_SEATS],
    /// Rounds sat out so far.
    pub byes: u32,
}

/// How many search steps the Swiss pairing spends looking for a round without a
/// repeated pair before it settles for the fewest repeats.
const SWISS_BUDGET: usize = 20_000;

/// Pairs one Swiss round at `k`-seat tables. `ranked` holds the players still in the
/// event, best standing first; `met` the pairs (smaller index first) that already shared
/// a table.
///
/// 1. Byes: `n mod k` players sit out, those with the fewest byes, the lowest ranked
///    among them.
/// 2. Tables: from the top of the standings, the best unpaired player's table is filled
///    with the next players in standing order that it and each other have not met
///    (a depth-first search, so a round without repeated pairs is found when one exists
///    within the search budget); failing that, the tables that repeat fewest pairs.
/// 3. Seats: at each table the seating (of the `k!`) that leaves the players' seat counts
///    most even (the least sum of squared counts), so seats even out over the event.
pub fn swiss_round(
    k: usize,
    ranked: &[SwissEntrant],
    met: &HashSet<(usize, usize)>,
) -> RoundTables {
    let k = k.clamp(MIN_SEATS, MAX_SEATS);
    let n = ranked.len();
    let bye_count = n % k;
    let mut order: Vec<usize> = (0..n).collect();
    // Byes: fewest byes first, then lowest standing first.
    let mut by_bye: Vec<usize> = (0..n).collect();
    by_bye.sort_by_key(|&i| (ranked[i].byes, std::cmp::Reverse(i)));
    let bye_idx: Vec<usize> = by_bye[..bye_count].to_vec();
    order.retain(|i| !bye_idx.contains(i));
    let players: Vec<usize> = order.iter().map(|&i| ranked[i].player).collect();
    let meets = |a: usize, b: usize| met.contains(&(a.min(b), a.max(b)));

    let mut budget = SWISS_BUDGET;
    let mut used = vec![false; players.len()];
    let mut tables: Vec<Vec<usize>> = Vec::new();
    if !dfs(&players, &meets, k, &mut used, &mut tables, &mut budget) {
        tables = mended(&players, &meets, k);
    }
    let seats_of = |p: usize| {
        ranked
            .iter()
            .find(|e| e.player == p)
            .map(|e| e.seats)
            .unwrap_or_default()
    };
    let tables = tables
        .into_iter()
        .map(|t| {
            let counts: Vec<[u32; MAX_SEATS]> = t.iter().map(|&p| seats_of(p)).collect();
            let mut best: (Vec<usize>, u64) = ((0..k).collect(), u64::MAX);
            permutations(k, &mut |perm| {
                // perm[i] = the seat of the table's i-th player.
                let cost: u64 = (0..k)
                    .map(|i| {
                        let c = u64::from(counts[i][perm[i]]) + 1;
                        c * c
                    })
                    .sum();
                if cost < best.1 {
                    best = (perm.to_vec(), cost);
                }
            });
            let mut seated = vec![0usize; k];
            for i in 0..k {
                seated[best.0[i]] = t[i];
            }
            seated
        })
        .collect();
    let mut byes: Vec<usize> = bye_idx.iter().map(|&i| ranked[i].player).collect();
    byes.sort_unstable();
    RoundTables { tables, byes }
}

/// How many standing orders [`mended`] tries, each a little shuffled, when the first
/// leaves a repeated pair.
const SWISS_RESTARTS: u64 = 400;

/// [`greedy_and_repair`] on the standing order, then (while a pair still repeats) on
/// orders where each player moved at most a few places, from a fixed seed so that the
/// same standings always pair the same way: swaps alone can stall in a local minimum
/// where another start finds a round with no repeat. The tables with fewest repeats win.
fn mended(players: &[usize], meets: &dyn Fn(usize, usize) -> bool, k: usize) -> Vec<Vec<usize>> {
    let total = |tables: &[Vec<usize>]| tables.iter().map(|t| repeats(t, meets)).sum::<usize>();
    let mut best = greedy_and_repair(players, meets, k);
    let mut best_repeats = total(&best);
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ players.len() as u64;
    let mut next = move || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for attempt in 0..SWISS_RESTARTS {
        if best_repeats == 0 {
            break;
        }
        // Swaps within a window that widens with the attempts (2 to 8 places).
        let window = 2 + (attempt / 60) as usize;
        let mut order = players.to_vec();
        for i in 0..order.len() {
            let j = (i + (next() as usize % window)).min(order.len() - 1);
            order.swap(i, j);
        }
        let tables = greedy_and_repair(&order, meets, k);
        let r = total(&tables);
        if r < best_repeats {
            best = tables;
            best_repeats = r;
        }
    }
    best
}

/// Repeated pairs at a table.
fn repeats(table: &[usize], meets: &dyn Fn(usize, usize) -> bool) -> usize {
    let mut r = 0;
    for (k, &a) in table.iter().enumerate() {
        r += table[k + 1..].iter().filter(|&&b| meets(a, b)).count();
    }
    r
}

/// Tables filled in standing order with the nearest player meeting nobody at the table
/// (or the fewest), then mended by swapping players between tables while a swap lowers
/// the repeats (nearest tables first, so players stay near their scores).
fn greedy_and_repair(
    players: &[usize],
    meets: &dyn Fn(usize, usize) -> bool,
    k: usize,
) -> Vec<Vec<usize>> {
    let mut used = vec![false; players.len()];
    let mut tables: Vec<Vec<usize>> = Vec::new();
    while let Some(first) = used.iter().position(|u| !u) {
        used[first] = true;
        let mut table = vec![players[first]];
        for _ in 1..k {
            let Some(pick) = (0..players.len()).filter(|&i| !used[i]).min_by_key(|&i| {
                let r = table.iter().filter(|&&q| meets(q, players[i])).count();
                (r, i)
            }) else {
                break;
            };
            used[pick] = true;
            table.push(players[pick]);
        }
        if table.len() == k {
            tables.push(table);
        }
    }
    for _ in 0..8 {
        let mut improved = false;
        for t in 0..tables.len() {
            if repeats(&tables[t], meets) == 0 {
                continue;
            }
            let mut others: Vec<usize> = (0..tables.len()).filter(|&u| u != t).collect();
            others.sort_by_key(|&u| u.abs_diff(t));
            'search: for u in others {
                for i in 0..k {
                    for j in 0..k {
                        let before = repeats(&tables[t], meets) + repeats(&tables[u], meets);
                        let (x, y) = (tables[t][i], tables[u][j]);
                        tables[t][i] = y;
                        tables[u][j] = x;
                        let after = repeats(&tables[t], meets) + repeats(&tables[u], meets);
                        if after < before {
                            improved = true;
                            if repeats(&tables[t], meets) == 0 {
                                break 'search;
                            }
                        } else {
                            tables[t][i] = x;
                            tables[u][j] = y;
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
    tables
}

/// Fills the tables from the best unpaired player down, each with the next players in
/// standing order that nobody at the table has met; `false` when no round without a
/// repeated pair was found within `budget` (the last seat of a table tried costs one).
fn dfs(
    players: &[usize],
    meets: &dyn Fn(usize, usize) -> bool,
    k: usize,
    used: &mut [bool],
    tables: &mut Vec<Vec<usize>>,
    budget: &mut usize,
) -> bool {
    let Some(a) = used.iter().position(|u| !u) else {
        return true;
    };
    used[a] = true;
    let free: Vec<usize> = (a + 1..players.len())
        .filter(|&i| !used[i] && !meets(players[a], players[i]))
        .collect();
    let mut table = vec![a];
    let search = Fill {
        players,
        meets,
        k,
        free: &free,
    };
    if search.fill(0, &mut table, used, tables, budget) == Step::Found {
        return true;
    }
    used[a] = false;
    false
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Found,
    Failed,
    OutOfBudget,
}

/// The rest of one table of [`dfs`]: its first player chosen, `free` the players after
/// it that it has not met.
struct Fill<'a> {
    players: &'a [usize],
    meets: &'a dyn Fn(usize, usize) -> bool,
    k: usize,
    free: &'a [usize],
}

impl Fill<'_> {
    fn fill(
        &self,
        from: usize,
        table: &mut Vec<usize>,
        used: &mut [bool],
        tables: &mut Vec<Vec<usize>>,
        budget: &mut usize,
    ) -> Step {
        let (players, meets) = (self.players, self.meets);
        let last = table.len() + 1 == self.k;
        for (x, &c) in self.free.iter().enumerate().skip(from) {
            if last {
                if *budget == 0 {
                    return Step::OutOfBudget;
                }
                *budget -= 1;
            }
            if table[1..].iter().any(|&m| meets(players[m], players[c])) {
                continue;
            }
            table.push(c);
            if last {
                for &m in &table[1..] {
                    used[m] = true;
                }
                tables.push(table.iter().map(|&i| players[i]).collect());
                if dfs(players, meets, self.k, used, tables, budget) {
                    return Step::Found;
                }
                tables.pop();
                for &m in &table[1..] {
                    used[m] = false;
                }
            } else {
                match self.fill(x + 1, table, used, tables, budget) {
                    Step::Failed => {}
                    done => return done,
                }
            }
            table.pop();
        }
        Step::Failed
    }
}

/// Calls `f` with each of the `k!` orders of `0..k`, in lexicographic order.
fn permutations(k: usize, f: &mut dyn FnMut(&[usize])) {
    fn go(k: usize, perm: &mut Vec<usize>, seen: &mut [bool], f: &mut dyn FnMut(&[usize])) {
        if perm.len() == k {
            f(perm);
            return;
        }
        for x in 0..k {
            if !seen[x] {
                seen[x] = true;
                perm.push(x);
                go(k, perm, seen, f);
                perm.pop();
                seen[x] = false;
            }
        }
    }
    go(k, &mut Vec::with_capacity(k), &mut vec![false; k], f);
}

/// Figures of a schedule, for the documentation and the tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Balance {
    pub games_min: usize,
    pub games_max: usize,
    pub meet_min: u32,
    pub meet_max: u32,
    /// Over every player and seat: the fewest and most games in that seat.
    pub seat_min: u32,
    pub seat_max: u32,
}

/// Counts games, meetings and seats of `rounds` for `n` players at `k`-seat tables.
pub fn balance(n: usize, k: usize, rounds: &[RoundTables]) -> Balance {
    let mut games = vec![0usize; n];
    let mut met = vec![0u32; n * n];
    let mut seats = vec![vec![0u32; k]; n];
    for round in rounds {
        for t in &round.tables {
            for (s, &a) in t.iter().enumerate() {
                games[a] += 1;
                if let Some(c) = seats[a].get_mut(s) {
                    *c += 1;
                }
                for &b in &t[s + 1..] {
                    met[a * n + b] += 1;
                    met[b * n + a] += 1;
                }
            }
        }
    }
    let pairs = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b)));
    let meets: Vec<u32> = pairs.map(|(a, b)| met[a * n + b]).collect();
    let seat_counts = seats.iter().flat_map(|s| s.iter().copied());
    Balance {
        games_min: games.iter().copied().min().unwrap_or(0),
        games_max: games.iter().copied().max().unwrap_or(0),
        meet_min: meets.iter().copied().min().unwrap_or(0),
        meet_max: meets.iter().copied().max().unwrap_or(0),
        seat_min: seat_counts.clone().min().unwrap_or(0),
        seat_max: seat_counts.max().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The figures of `docs/tournaments.md`: (n, rounds, games per player, fewest and
    /// most meetings of a pair).
    const DOCUMENTED: [Documented; 13] = [
        (4, 4, 4, 4, 4),
        (5, 5, 4, 3, 3),
        (6, 6, 4, 2, 3),
        (7, 7, 4, 2, 2),
        (8, 4, 4, 1, 3),
        (9, 9, 8, 3, 3),
        (10, 10, 8, 2, 3),
        (11, 11, 8, 2, 3),
        (12, 8, 8, 2, 3),
        (13, 13, 12, 2, 4),
        (14, 14, 12, 2, 3),
        (15, 10, 8, 1, 2),
        (16, 8, 8, 1, 2),
    ];

    type Documented = (usize, usize, usize, u32, u32);

    /// The three-seat figures of `docs/tournaments.md`, as [`DOCUMENTED`].
    const DOCUMENTED_3: [Documented; 14] = [
        (3, 3, 3, 3, 3),
        (4, 4, 3, 2, 2),
        (5, 5, 3, 1, 2),
        (6, 6, 6, 1, 4),
        (7, 7, 6, 2, 2),
        (8, 8, 6, 1, 2),
        (9, 6, 6, 1, 2),
        (10, 10, 9, 2, 2),
        (11, 11, 9, 1, 2),
        (12, 9, 9, 1, 2),
        (13, 13, 12, 1, 3),
        (14, 14, 12, 1, 2),
        (15, 12, 12, 1, 2),
        (16, 16, 15, 1, 3),
    ];

    #[test]
    fn six_players_at_three_seats_cannot_meet_two_or_three_times_each() {
        // A round of six at three seats splits them into two threes: 10 ways (the three
        // holding player 0). Six rounds, chosen with repeats among the 10: no choice has
        // every pair meet 2 or 3 times; the best spread is 2 to 4.
        let mut splits: Vec<[u8; 6]> = Vec::new(); // splits[s][p]: p's three (0 or 1)
        for a in 1..6 {
            for b in a + 1..6 {
                let mut side = [1u8; 6];
                side[0] = 0;
                side[a] = 0;
                side[b] = 0;
                splits.push(side);
            }
        }
        let mut best_spread = u32::MAX;
        let mut choice = [0usize; 6];
        loop {
            let mut met = [[0u32; 6]; 6];
            for &s in &choice {
                for p in 0..6 {
                    for q in p + 1..6 {
                        if splits[s][p] == splits[s][q] {
                            met[p][q] += 1;
                        }
                    }
                }
            }
            let counts: Vec<u32> = (0..6)
                .flat_map(|p| (p + 1..6).map(move |q| (p, q)))
                .map(|(p, q)| met[p][q])
                .collect();
            let (lo, hi) = (*counts.iter().min().unwrap(), *counts.iter().max().unwrap());
            assert!(
                !(lo >= 2 && hi <= 3),
                "six rounds with every pair 2 or 3 times"
            );
            best_spread = best_spread.min(hi - lo);
            // Next non-decreasing choice (a multiset of 6 of the 10 splits).
            let Some(i) = (0..6).rev().find(|&i| choice[i] < 9) else {
                break;
            };
            let v = choice[i] + 1;
            for c in &mut choice[i..] {
                *c = v;
            }
        }
        assert_eq!(best_spread, 2);
    }

    /// Checks a size of `k`-seat tables against its documented figures.
    fn check_documented(k: usize, (n, rounds, games, meet_min, meet_max): Documented) {
        let plan = round_robin_plan(k, n).unwrap();
        let schedule = round_robin(k, n).unwrap();
        assert_eq!(
            (plan.rounds, plan.games_per_player),
            (rounds, games),
            "k = {k}, n = {n}"
        );
        assert_eq!(schedule.len(), rounds, "k = {k}, n = {n}");
        let b = balance(n, k, schedule);
        // Every player plays the same number of games, in each seat equally often.
        assert_eq!(
            (b.games_min, b.games_max),
            (games, games),
            "k = {k}, n = {n}"
        );
        let each = (games / k) as u32;
        assert_eq!((b.seat_min, b.seat_max), (each, each), "k = {k}, n = {n}");
        // Every pair meets, as evenly as documented.
        assert_eq!(
            (b.meet_min, b.meet_max),
            (meet_min, meet_max),
            "k = {k}, n = {n}"
        );
        for round in schedule {
            let mut seen: Vec<usize> = round.tables.iter().flatten().copied().collect();
            seen.extend(&round.byes);
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "each player once a round");
            assert_eq!(round.byes.len(), n % k);
            assert!(round.tables.iter().all(|t| t.len() == k));
        }
    }

    #[test]
    fn every_round_robin_size_is_balanced_as_documented() {
        for (n, rounds, games, meet_min, meet_max) in DOCUMENTED {
            let plan = round_robin_plan(4, n).unwrap();
            let schedule = round_robin(4, n).unwrap();
            assert_eq!(
                (plan.rounds, plan.games_per_player),
                (rounds, games),
                "n = {n}"
            );
            assert_eq!(schedule.len(), rounds, "n = {n}");
            let b = balance(n, 4, schedule);
            // Every player plays the same number of games, in each seat equally often.
            assert_eq!((b.games_min, b.games_max), (games, games), "n = {n}");
            assert_eq!(
                (b.seat_min, b.seat_max),
                (games as u32 / 4, games as u32 / 4),
                "n = {n}"
            );
            // Every pair meets, as evenly as documented.
            assert_eq!((b.meet_min, b.meet_max), (meet_min, meet_max), "n = {n}");
            for round in schedule {
                let mut seen: Vec<usize> = round.tables.iter().flatten().copied().collect();
                seen.extend(&round.byes);
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "each player once a round");
                assert_eq!(round.byes.len(), n % 4);
            }
        }
        assert!(round_robin_plan(4, 3).is_none() && round_robin_plan(4, 17).is_none());
    }

    #[test]
    fn every_three_seat_round_robin_size_is_balanced_as_documented() {
        for d in DOCUMENTED_3 {
            check_documented(3, d);
        }
        assert!(round_robin_plan(3, 2).is_none() && round_robin_plan(3, 17).is_none());
        // Two seats or five: no game.
        assert!(round_robin_plan(2, 6).is_none() && round_robin_plan(5, 10).is_none());
        assert!(round_robin(2, 6).is_none());
    }

    #[test]
    fn eight_players_cannot_do_better_than_one_to_three_meetings() {
        // Each player's four rounds are a word over {table 1, table 2}; two players
        // meet as often as their words agree. Eight words of length 4 with every pair
        // agreeing once or twice would be a code of distance 2 or 3 and size 8: such a
        // code is a parity code, which holds complementary words (distance 4). Checked
        // here by brute force over every set of 8 words of the 16.
        let words: Vec<u32> = (0..16).collect();
        let mut found = false;
        for mask in 0u32..(1 << 16) {
            if mask.count_ones() != 8 {
                continue;
            }
            let set: Vec<u32> = words
                .iter()
                .copied()
                .filter(|w| mask & (1 << w) != 0)
                .collect();
            let ok = set.iter().enumerate().all(|(i, a)| {
                set[i + 1..].iter().all(|b| {
                    let agree = 4 - (a ^ b).count_ones();
                    (1..=2).contains(&agree)
                })
            });
            found |= ok;
        }
        assert!(
            !found,
            "a schedule of 8 with every pair meeting once or twice exists"
        );
    }

    /// A Swiss event of `k`-seat tables played to the end with random places.
    fn play_swiss(
        k: usize,
        n: usize,
        rounds: usize,
        seed: u64,
    ) -> (Vec<RoundTables>, Vec<[u32; MAX_SEATS]>) {
        let mut rng = Rng(seed);
        let mut score = vec![0u32; n];
        let mut seats = vec![[0u32; MAX_SEATS]; n];
        let mut byes = vec![0u32; n];
        let mut met = HashSet::new();
        let mut out = Vec::new();
        for _ in 0..rounds {
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by_key(|&p| (std::cmp::Reverse(score[p]), p));
            let ranked: Vec<SwissEntrant> = idx
                .iter()
                .map(|&p| SwissEntrant {
                    player: p,
                    seats: seats[p],
                    byes: byes[p],
                })
                .collect();
            let round = swiss_round(k, &ranked, &met);
            for t in &round.tables {
                for (s, &a) in t.iter().enumerate() {
                    seats[a][s] += 1;
                    score[a] += rng.below(k) as u32;
                    for &b in &t[s + 1..] {
                        met.insert((a.min(b), a.max(b)));
                    }
                }
            }
            for &b in &round.byes {
                byes[b] += 1;
            }
            out.push(round);
        }
        (out, seats)
    }

    /// Three seats: from this many players on, `three_no_repeat_rounds(n)` rounds
    /// repeat no pair (docs/tournaments.md).
    const THREE_NO_REPEAT_MIN: usize = 10;

    fn three_no_repeat_rounds(n: usize) -> usize {
        (n / 6 + 1).min(9)
    }

    /// Plays a Swiss event of `n` players at `k`-seat tables and checks it: each round
    /// seats every player once (or gives a bye), tables of `k`, `n mod k` byes; with
    /// `no_repeats` no pair meets twice; byes go round (nobody sits out twice before
    /// everyone sat out once); every player's seats stay within `seat_spread`.
    fn check_swiss(
        k: usize,
        n: usize,
        rounds: usize,
        no_repeats: bool,
        seat_spread: u32,
        seed: u64,
    ) -> Result<(), TestCaseError> {
        let (played, seats) = play_swiss(k, n, rounds, seed);
        let mut met = HashSet::new();
        let mut bye_count = vec![0u32; n];
        for round in &played {
            let mut seen: Vec<usize> = round.tables.iter().flatten().copied().collect();
            seen.extend(&round.byes);
            seen.sort_unstable();
            prop_assert_eq!(&seen, &(0..n).collect::<Vec<_>>());
            prop_assert_eq!(round.byes.len(), n % k);
            for t in &round.tables {
                prop_assert_eq!(t.len(), k);
                for (i, &a) in t.iter().enumerate() {
                    for &b in &t[i + 1..] {
                        let new = met.insert((a.min(b), a.max(b)));
                        prop_assert!(new || !no_repeats, "{a} and {b} met twice");
                    }
                }
            }
            for &b in &round.byes {
                bye_count[b] += 1;
            }
            let (lo, hi) = (
                bye_count.iter().min().unwrap(),
                bye_count.iter().max().unwrap(),
            );
            prop_assert!(hi - lo <= 1);
        }
        for s in &seats {
            let s = &s[..k];
            let spread = s.iter().max().unwrap() - s.iter().min().unwrap();
            prop_assert!(spread <= seat_spread, "seats {s:?}");
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Four seats: with 16 players or more and rounds up to n / 8 + 1 no pair meets
        /// twice (with three tables or fewer a second round cannot avoid it: four seats,
        /// three tables of the round before).
        #[test]
        fn swiss_rounds_keep_their_invariants(n in 8usize..72, seed in any::<u64>()) {
            let rounds = if n < 16 { 4 } else { n / 8 + 1 };
            check_swiss(4, n, rounds, n >= 16, 2, seed)?;
        }

        /// Three seats: with 10 players or more and rounds up to n / 6 + 1 (at most 9)
        /// no pair meets twice (with two tables a second round cannot avoid it: three
        /// seats, two tables of the round before); seats within 3.
        #[test]
        fn three_seat_swiss_rounds_keep_their_invariants(n in 6usize..72, seed in any::<u64>()) {
            let no_repeats = n >= THREE_NO_REPEAT_MIN;
            let rounds = if no_repeats { three_no_repeat_rounds(n) } else { 4 };
            check_swiss(3, n, rounds, no_repeats, 3, seed)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// A Swiss event of 9 rounds (the most) at three seats keeps its byes and seats.
        #[test]
        fn three_seat_swiss_of_nine_rounds(n in 6usize..40, seed in any::<u64>()) {
            check_swiss(3, n, 9, false, 3, seed)?;
        }
    }

    /// FNV-1a over the tables and byes of `rounds`.
    fn fingerprint(hash: &mut u64, rounds: &[RoundTables]) {
        let mut eat = |x: usize| {
            *hash ^= x as u64;
            *hash = hash.wrapping_mul(0x0100_0000_01b3);
        };
        for r in rounds {
            for t in &r.tables {
                t.iter().for_each(|&p| eat(p));
                eat(usize::MAX);
            }
            r.byes.iter().for_each(|&p| eat(p));
            eat(usize::MAX - 1);
        }
    }

    /// The four-seat schedules and Swiss pairings are those from before the seats per
    /// table were a choice (checked, when the choice came, against the code before it
    /// over every round-robin size and 4,800 Swiss rounds): a running event pairs its
    /// next round as it would have.
    #[test]
    fn four_seat_pairings_are_those_before_the_choice() {
        let mut rr = 0xcbf2_9ce4_8422_2325u64;
        for n in 4..=16 {
            fingerprint(&mut rr, round_robin(4, n).unwrap());
        }
        let mut sw = 0xcbf2_9ce4_8422_2325u64;
        for (n, seed) in [(8, 1), (11, 2), (16, 3), (24, 4), (37, 5)] {
            fingerprint(&mut sw, &play_swiss(4, n, 5, seed).0);
        }
        // The same sums of the code before the choice (its tables were `[usize; 4]`).
        assert_eq!(
            (rr, sw),
            (0x7521_4ad2_14a3_e230, 0xca7a_97d1_bebf_68d3),
            "{rr:#x} {sw:#x}"
        );
    }

    /// A round-robin schedule depends on nothing but its size (every instance pairs
    /// the same tables).
    #[test]
    fn round_robin_is_deterministic() {
        for (k, n) in [(4, 6), (4, 8), (4, 13), (3, 7), (3, 12)] {
            let a = round_robin(k, n).unwrap().to_vec();
            let b = build_round_robin(round_robin_plan(k, n).unwrap());
            assert_eq!(a, b);
        }
    }
}
