//! An event's log and its one fold: the log is the truth, [`Tournament`] what it says
//! now. Every change is decided here (pure, on the folded state and the clock's `now`)
//! and written through the one command path ([`super::command`]).
//!
//! | event | written when |
//! |---|---|
//! | `created` | the organiser creates the event |
//! | `joined` | a player joins before the start |
//! | `left` | a player leaves before the start, or withdraws after it |
//! | `round_paired` | a round's tables are drawn (the first one starts the event) |
//! | `game_ended` | a game of a round ended (its places feed the standings) |
//! | `finished` | the last round is over |
//! | `cancelled` | the organiser cancelled before the start, or too few players came |

use std::collections::HashSet;

use chrono::NaiveDateTime;
use domain::Seat;
use serde::{Deserialize, Serialize};

use super::pairing::{self, MAX_SEATS, RoundTables, SwissEntrant};
use super::scoring;
use crate::ids::{GameId, TournamentId};
use crate::model::events::RatingRange;
use crate::model::timing::TimeControl;

/// How the tables of the rounds are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    /// A section of `k` to 16 players on a fixed schedule (see [`pairing::round_robin`]).
    RoundRobin,
    /// Rounds paired by score (see [`pairing::swiss_round`]).
    Swiss { rounds: u32 },
}

impl Format {
    pub fn name(&self) -> &'static str {
        match self {
            Format::RoundRobin => "round_robin",
            Format::Swiss { .. } => "swiss",
        }
    }
}

/// What the organiser chose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub name: String,
    pub format: Format,
    /// The most players; a round-robin also starts when it is full.
    pub capacity: u32,
    /// The start; `None`: when the event is full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at: Option<NaiveDateTime>,
    /// Days a round-robin round lasts before the next starts regardless.
    pub round_days: u32,
    /// The ruleset's canonical text.
    pub ruleset: String,
    pub time_control: TimeControl,
    #[serde(default)]
    pub rated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_range: Option<RatingRange>,
    /// Seats per table, 3 or 4: every game of the event is played by that many. A log
    /// written before the choice existed says nothing: 4.
    #[serde(default = "default_seats_per_table")]
    pub seats_per_table: u32,
}

fn default_seats_per_table() -> u32 {
    pairing::DEFAULT_SEATS as u32
}

/// A table as paired: its game and who sits where (seat order R, B, Y, G, as many as
/// the event's seats per table; `None`: an empty seat, a withdrawn player's place in a
/// round-robin).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedTable {
    pub game_id: GameId,
    pub seats: Vec<Option<String>>,
}

/// Why an event was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    Organiser,
    TooFewPlayers,
}

/// One event of a tournament's log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "payload", rename_all = "snake_case")]
pub enum Event {
    Created {
        organiser: String,
        settings: Settings,
    },
    Joined {
        player: String,
    },
    Left {
        player: String,
    },
    RoundPaired {
        round: u32,
        at: NaiveDateTime,
        tables: Vec<PairedTable>,
        /// Players sitting the round out (they score [`scoring::bye_halves`]).
        byes: Vec<String>,
    },
    GameEnded {
        game_id: GameId,
        /// The game's places, best first (seats sharing a place together).
        ranking: Vec<Vec<Seat>>,
    },
    Finished {
        at: NaiveDateTime,
    },
    Cancelled {
        reason: CancelReason,
    },
}

impl Event {
    /// The `kind` column.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Created { .. } => "created",
            Event::Joined { .. } => "joined",
            Event::Left { .. } => "left",
            Event::RoundPaired { .. } => "round_paired",
            Event::GameEnded { .. } => "game_ended",
            Event::Finished { .. } => "finished",
            Event::Cancelled { .. } => "cancelled",
        }
    }

    /// The `payload` column.
    pub fn payload_text(&self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut map)) => map
                .remove("payload")
                .unwrap_or(serde_json::Value::Null)
                .to_string(),
            _ => "null".into(),
        }
    }

    /// Reads an event back from its columns.
    pub fn from_parts(kind: &str, payload: &str) -> Result<Event, String> {
        let payload: serde_json::Value =
            serde_json::from_str(payload).map_err(|e| format!("payload is not JSON: {e}"))?;
        serde_json::from_value(serde_json::json!({"kind": kind, "payload": payload}))
            .map_err(|e| format!("unreadable `{kind}` event: {e}"))
    }
}

/// Where an event stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Running,
    Finished,
    Cancelled,
}

impl Status {
    pub fn name(&self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Running => "running",
            Status::Finished => "finished",
            Status::Cancelled => "cancelled",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    pub player: String,
    pub withdrawn: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub game_id: GameId,
    pub seats: Vec<Option<String>>,
    pub ranking: Option<Vec<Vec<Seat>>>,
}

impl Table {
    pub fn players(&self) -> impl Iterator<Item = &str> {
        self.seats.iter().flatten().map(String::as_str)
    }

    /// Half-points of each seated player, once the game is over (places scored as at a
    /// table of as many seats as it has: the event's seats per table).
    pub fn halves(&self) -> Vec<(&str, u32)> {
        let Some(ranking) = &self.ranking else {
            return Vec::new();
        };
        scoring::table_halves(ranking, self.seats.len())
            .into_iter()
            .filter_map(|(seat, h)| {
                self.seats
                    .get(seat.index())
                    .and_then(|p| p.as_deref())
                    .map(|p| (p, h))
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub number: u32,
    pub paired_at: NaiveDateTime,
    pub tables: Vec<Table>,
    pub byes: Vec<String>,
}

impl Round {
    pub fn is_over(&self) -> bool {
        self.tables.iter().all(|t| t.ranking.is_some())
    }
}

/// What an event's log says now.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    pub id: TournamentId,
    pub organiser: String,
    pub settings: Settings,
    pub status: Status,
    /// In joining order (a player who left before the start is gone).
    pub entrants: Vec<Entrant>,
    pub rounds: Vec<Round>,
    pub finished_at: Option<NaiveDateTime>,
    pub cancelled: Option<CancelReason>,
    /// The number of events folded.
    pub version: i64,
}

/// The log does not fold: a bug or a damaged row.
pub type FoldError = String;

impl Tournament {
    /// Folds a whole log.
    pub fn fold(id: &TournamentId, events: &[Event]) -> Result<Tournament, FoldError> {
        let mut it = events.iter();
        let Some(Event::Created {
            organiser,
            settings,
        }) = it.next()
        else {
            return Err(format!(
                "tournament {id}: the log does not start with `created`"
            ));
        };
        if !pairing::seats_allowed(settings.seats_per_table as usize) {
            return Err(format!(
                "tournament {id}: {} seats per table",
                settings.seats_per_table
            ));
        }
        let mut t = Tournament {
            id: id.clone(),
            organiser: organiser.clone(),
            settings: settings.clone(),
            status: Status::Open,
            entrants: Vec::new(),
            rounds: Vec::new(),
            finished_at: None,
            cancelled: None,
            version: 1,
        };
        for e in it {
            t.apply(e)?;
        }
        Ok(t)
    }

    /// Folds one more event.
    pub fn apply(&mut self, event: &Event) -> Result<(), FoldError> {
        match event {
            Event::Created { .. } => return Err("a second `created`".into()),
            Event::Joined { player } => {
                if self.status != Status::Open || self.entrant(player).is_some() {
                    return Err(format!("`joined` of {player} does not apply"));
                }
                self.entrants.push(Entrant {
                    player: player.clone(),
                    withdrawn: false,
                });
            }
            Event::Left { player } => match self.status {
                Status::Open => self.entrants.retain(|e| &e.player != player),
                Status::Running => match self.entrants.iter_mut().find(|e| &e.player == player) {
                    Some(e) => e.withdrawn = true,
                    None => return Err(format!("`left` of a stranger {player}")),
                },
                _ => return Err("`left` after the end".into()),
            },
            Event::RoundPaired {
                round,
                at,
                tables,
                byes,
            } => {
                if *round as usize != self.rounds.len() + 1
                    || !matches!(self.status, Status::Open | Status::Running)
                {
                    return Err(format!("`round_paired` {round} out of order"));
                }
                self.status = Status::Running;
                self.rounds.push(Round {
                    number: *round,
                    paired_at: *at,
                    tables: tables
                        .iter()
                        .map(|t| Table {
                            game_id: t.game_id.clone(),
                            seats: t.seats.clone(),
                            ranking: None,
                        })
                        .collect(),
                    byes: byes.clone(),
                });
            }
            Event::GameEnded { game_id, ranking } => {
                let table = self
                    .rounds
                    .iter_mut()
                    .flat_map(|r| r.tables.iter_mut())
                    .find(|t| t.game_id == game_id)
                    .ok_or_else(|| format!("`game_ended` of a stranger game {game_id}"))?;
                table.ranking = Some(ranking.clone());
            }
            Event::Finished { at } => {
                self.status = Status::Finished;
                self.finished_at = Some(*at);
            }
            Event::Cancelled { reason } => {
                self.status = Status::Cancelled;
                self.cancelled = Some(*reason);
            }
        }
        self.version += 1;
        Ok(())
    }

    pub fn entrant(&self, player: &str) -> Option<&Entrant> {
        self.entrants.iter().find(|e| e.player == player)
    }

    /// Seats per table (3 or 4: checked by the fold).
    pub fn seats(&self) -> usize {
        self.settings.seats_per_table as usize
    }

    /// Active (not withdrawn) entrants.
    pub fn active(&self) -> usize {
        self.entrants.iter().filter(|e| !e.withdrawn).count()
    }

    /// The number of rounds the event plays (known once it started, for a round-robin).
    pub fn planned_rounds(&self) -> u32 {
        match self.settings.format {
            Format::Swiss { rounds } => rounds,
            Format::RoundRobin => pairing::round_robin_plan(self.seats(), self.entrants.len())
                .map_or(0, |p| p.rounds as u32),
        }
    }

    /// The tables of games not yet over.
    pub fn running_tables(&self) -> impl Iterator<Item = &Table> {
        self.rounds
            .iter()
            .flat_map(|r| r.tables.iter())
            .filter(|t| t.ranking.is_none())
    }

    /// The standings now: every entrant (withdrawn ones too), best first.
    pub fn standings(&self) -> Vec<Standing> {
        let mut rows: Vec<Standing> = self
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| Standing {
                player: e.player.clone(),
                entry: i,
                withdrawn: e.withdrawn,
                place: 0,
                halves: 0,
                games: 0,
                wins: 0,
                byes: 0,
                buchholz_halves: 0,
            })
            .collect();
        let index = |rows: &[Standing], p: &str| rows.iter().position(|r| r.player == p);
        let bye = scoring::bye_halves(self.seats());
        for round in &self.rounds {
            for b in &round.byes {
                if let Some(i) = index(&rows, b) {
                    rows[i].halves += bye;
                    rows[i].byes += 1;
                }
            }
            for t in &round.tables {
                let Some(ranking) = &t.ranking else { continue };
                let sole_winner = ranking.first().filter(|g| g.len() == 1).map(|g| g[0]);
                for (p, h) in t.halves() {
                    if let Some(i) = index(&rows, p) {
                        rows[i].halves += h;
                        rows[i].games += 1;
                    }
                }
                if let Some(w) = sole_winner
                    && let Some(Some(p)) = t.seats.get(w.index())
                    && let Some(i) = index(&rows, p)
                {
                    rows[i].wins += 1;
                }
            }
        }
        // Buchholz: the points of every opponent met at a finished table.
        let totals: Vec<(String, u32)> =
            rows.iter().map(|r| (r.player.clone(), r.halves)).collect();
        let total_of = |p: &str| totals.iter().find(|(q, _)| q == p).map_or(0, |(_, h)| *h);
        for round in &self.rounds {
            for t in round.tables.iter().filter(|t| t.ranking.is_some()) {
                for p in t.players() {
                    let b: u32 = t.players().filter(|q| *q != p).map(total_of).sum();
                    if let Some(i) = index(&rows, p) {
                        rows[i].buchholz_halves += b;
                    }
                }
            }
        }
        rows.sort_by(|a, b| {
            b.halves
                .cmp(&a.halves)
                .then(b.buchholz_halves.cmp(&a.buchholz_halves))
                .then(b.wins.cmp(&a.wins))
                .then(a.entry.cmp(&b.entry))
        });
        for (k, r) in rows.iter_mut().enumerate() {
            r.place = k as u32 + 1;
        }
        rows
    }

    /// Pairs round `number` (pure): the round-robin's schedule for it, or the Swiss
    /// pairing of the active players by the standings now.
    pub fn pair(&self, number: u32) -> Option<(Vec<PairedTable>, Vec<String>)> {
        let game_id = |k: usize| GameId::new(format!("{}-r{number}-t{}", self.id, k + 1));
        match self.settings.format {
            Format::RoundRobin => {
                let schedule = pairing::round_robin(self.seats(), self.entrants.len())?;
                let round = schedule.get(number as usize - 1)?;
                // A withdrawn player sits out no round (a bye scores).
                let mut byes: Vec<String> = round
                    .byes
                    .iter()
                    .map(|&i| &self.entrants[i])
                    .filter(|e| !e.withdrawn)
                    .map(|e| e.player.clone())
                    .collect();
                let mut tables = Vec::new();
                for t in &round.tables {
                    let seats: Vec<Option<String>> = t
                        .iter()
                        .map(|&i| {
                            Some(&self.entrants[i])
                                .filter(|e| !e.withdrawn)
                                .map(|e| e.player.clone())
                        })
                        .collect();
                    // A game needs three players: a three-seat table with an empty
                    // seat is not played.
                    if seats.iter().flatten().count() >= 3 {
                        tables.push(PairedTable {
                            game_id: game_id(tables.len()),
                            seats,
                        });
                    } else {
                        // Too few left to play: those left sit the round out.
                        byes.extend(seats.into_iter().flatten());
                    }
                }
                Some((tables, byes))
            }
            Format::Swiss { .. } => {
                let standings = self.standings();
                let active: Vec<&Standing> = standings.iter().filter(|s| !s.withdrawn).collect();
                let idx = |p: &str| self.entrants.iter().position(|e| e.player == p);
                let mut seats = vec![[0u32; MAX_SEATS]; self.entrants.len()];
                let mut met = HashSet::new();
                for t in self.rounds.iter().flat_map(|r| r.tables.iter()) {
                    let ids: Vec<Option<usize>> =
                        t.seats.iter().map(|p| p.as_deref().and_then(idx)).collect();
                    for (s, a) in ids.iter().enumerate() {
                        let Some(a) = *a else { continue };
                        if let Some(c) = seats[a].get_mut(s) {
                            *c += 1;
                        }
                        for b in ids[s + 1..].iter().flatten() {
                            met.insert((a.min(*b), a.max(*b)));
                        }
                    }
                }
                let ranked: Vec<SwissEntrant> = active
                    .iter()
                    .filter_map(|s| idx(&s.player))
                    .map(|i| SwissEntrant {
                        player: i,
                        seats: seats[i],
                        byes: standings
                            .iter()
                            .find(|s| s.player == self.entrants[i].player)
                            .map_or(0, |s| s.byes),
                    })
                    .collect();
                let RoundTables { tables, byes } =
                    pairing::swiss_round(self.seats(), &ranked, &met);
                let name = |i: usize| self.entrants[i].player.clone();
                Some((
                    tables
                        .iter()
                        .enumerate()
                        .map(|(k, t)| PairedTable {
                            game_id: game_id(k),
                            seats: t.iter().map(|&i| Some(name(i))).collect(),
                        })
                        .collect(),
                    byes.into_iter().map(name).collect(),
                ))
            }
        }
    }
}

/// One line of the standings. Points are in half-points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub player: String,
    /// Joining order (0 first): the last tie-break.
    pub entry: usize,
    pub withdrawn: bool,
    pub place: u32,
    pub halves: u32,
    pub games: u32,
    /// Games won outright (sole first place).
    pub wins: u32,
    pub byes: u32,
    /// The sum of the points of every opponent met (per table), in half-points.
    pub buchholz_halves: u32,
}

/// The fewest players an event of `k`-seat tables starts with (or goes on with): one
/// table.
pub fn min_players(k: usize) -> usize {
    k
}

/// What a command asks of an event.
#[derive(Clone, Debug)]
pub enum Command {
    Join {
        player: String,
    },
    Leave {
        player: String,
    },
    Cancel {
        by: String,
    },
    GameEnded {
        game_id: GameId,
        ranking: Vec<Vec<Seat>>,
    },
    /// The clock: start when due or full, pair the next round when due, finish.
    Advance,
}

/// Why a command was refused (nothing written).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the event is {0}: nobody joins or leaves now")]
    NotOpen(&'static str),
    #[error("the event is full")]
    Full,
    #[error("already entered")]
    AlreadyIn,
    #[error("not entered")]
    NotIn,
    #[error("only the organiser may cancel the event")]
    NotOrganiser,
    #[error("the event has started: it can no longer be cancelled")]
    Started,
    #[error("your rating is outside the event's rating range")]
    RatingOutOfRange,
}

/// Decides the events of `command` on the current state at `now`. An empty answer:
/// nothing to do (an `Advance` with nothing due, a game end already counted).
pub fn decide(
    t: &Tournament,
    command: &Command,
    now: NaiveDateTime,
) -> Result<Vec<Event>, Refusal> {
    match command {
        Command::Join { player } => {
            if t.status != Status::Open {
                return Err(Refusal::NotOpen(t.status.name()));
            }
            if t.entrant(player).is_some() {
                return Err(Refusal::AlreadyIn);
            }
            if t.entrants.len() >= t.settings.capacity as usize {
                return Err(Refusal::Full);
            }
            Ok(vec![Event::Joined {
                player: player.clone(),
            }])
        }
        Command::Leave { player } => match t.status {
            Status::Open | Status::Running => match t.entrant(player) {
                Some(e) if !e.withdrawn => Ok(vec![Event::Left {
                    player: player.clone(),
                }]),
                _ => Err(Refusal::NotIn),
            },
            s => Err(Refusal::NotOpen(s.name())),
        },
        Command::Cancel { by } => {
            if by != &t.organiser {
                return Err(Refusal::NotOrganiser);
            }
            if t.status != Status::Open {
                return Err(Refusal::Started);
            }
            Ok(vec![Event::Cancelled {
                reason: CancelReason::Organiser,
            }])
        }
        Command::GameEnded { game_id, ranking } => {
            let open = t.running_tables().any(|tb| tb.game_id == game_id);
            Ok(if open {
                vec![Event::GameEnded {
                    game_id: game_id.clone(),
                    ranking: ranking.clone(),
                }]
            } else {
                Vec::new()
            })
        }
        Command::Advance => Ok(advance(t, now)),
    }
}

/// What the clock does to an event at `now` (possibly nothing).
pub fn advance(t: &Tournament, now: NaiveDateTime) -> Vec<Event> {
    match t.status {
        Status::Open => {
            let full = t.entrants.len() >= t.settings.capacity as usize;
            let due = t.settings.starts_at.is_some_and(|at| now >= at);
            if !full && !due {
                return Vec::new();
            }
            let n = t.entrants.len();
            let fits = match t.settings.format {
                Format::RoundRobin => pairing::round_robin_plan(t.seats(), n).is_some(),
                Format::Swiss { .. } => n >= min_players(t.seats()),
            };
            if !fits {
                return vec![Event::Cancelled {
                    reason: CancelReason::TooFewPlayers,
                }];
            }
            pair_event(t, 1, now)
        }
        Status::Running => {
            let Some(last) = t.rounds.last() else {
                return Vec::new();
            };
            let planned = t.planned_rounds();
            let over = last.is_over();
            if last.number >= planned || (t.active() < min_players(t.seats()) && over) {
                return if t.rounds.iter().all(Round::is_over) {
                    vec![Event::Finished { at: now }]
                } else {
                    Vec::new()
                };
            }
            // A round-robin's schedule is fixed: the next round starts when this one is
            // over or its days are up. A Swiss round needs the scores: it waits.
            let days_up = matches!(t.settings.format, Format::RoundRobin)
                && now >= last.paired_at + chrono::Duration::days(i64::from(t.settings.round_days));
            if over || days_up {
                pair_event(t, last.number + 1, now)
            } else {
                Vec::new()
            }
        }
        Status::Finished | Status::Cancelled => Vec::new(),
    }
}

fn pair_event(t: &Tournament, number: u32, now: NaiveDateTime) -> Vec<Event> {
    match t.pair(number) {
        Some((tables, byes)) => vec![Event::RoundPaired {
            round: number,
            at: now,
            tables,
            byes,
        }],
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created(seats: Option<u32>) -> Event {
        let mut settings = serde_json::json!({
            "name": "Old", "format": {"kind": "round_robin"}, "capacity": 6,
            "round_days": 14, "ruleset": "djambi-2026",
            "time_control": {"per_move_secs": 259200}
        });
        if let Some(k) = seats {
            settings["seats_per_table"] = k.into();
        }
        let payload = serde_json::json!({"organiser": "u1", "settings": settings});
        Event::from_parts("created", &payload.to_string()).unwrap()
    }

    #[test]
    fn a_log_before_the_choice_reads_as_four_seats() {
        let t = Tournament::fold(&TournamentId::new("t"), &[created(None)]).unwrap();
        assert_eq!((t.settings.seats_per_table, t.seats()), (4, 4));
        let t = Tournament::fold(&TournamentId::new("t"), &[created(Some(3))]).unwrap();
        assert_eq!(t.seats(), 3);
        // Written back, the choice is in the payload.
        let Event::Created { settings, .. } = created(Some(3)) else {
            unreachable!()
        };
        let again = Event::Created {
            organiser: "u1".into(),
            settings,
        };
        assert!(again.payload_text().contains("\"seats_per_table\":3"));
        // A log naming seats no event may choose does not fold.
        assert!(Tournament::fold(&TournamentId::new("t"), &[created(Some(2))]).is_err());
    }

    #[test]
    fn three_seat_events_pair_tables_of_three_and_score_by_them() {
        let mut t = Tournament::fold(&TournamentId::new("t"), &[created(Some(3))]).unwrap();
        for p in ["a", "b", "c", "d", "e", "f", "g"] {
            t.apply(&Event::Joined { player: p.into() }).unwrap();
        }
        let now = chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        let (tables, byes) = t.pair(1).unwrap();
        assert_eq!(tables.len(), 2);
        assert!(tables.iter().all(|tb| tb.seats.len() == 3));
        assert_eq!(byes.len(), 1);
        t.apply(&Event::RoundPaired {
            round: 1,
            at: now,
            tables: tables.clone(),
            byes: byes.clone(),
        })
        .unwrap();
        assert_eq!(t.planned_rounds(), 7);
        t.apply(&Event::GameEnded {
            game_id: tables[0].game_id.clone(),
            ranking: vec![vec![Seat::Yellow], vec![Seat::Red], vec![Seat::Blue]],
        })
        .unwrap();
        let s = t.standings();
        let of = |p: &Option<String>| s.iter().find(|r| Some(&r.player) == p.as_ref()).unwrap();
        assert_eq!(of(&tables[0].seats[2]).halves, 4, "1st: 2 points");
        assert_eq!(of(&tables[0].seats[0]).halves, 2, "2nd: 1 point");
        assert_eq!(of(&tables[0].seats[1]).halves, 0, "3rd: nothing");
        assert_eq!(of(&Some(byes[0].clone())).halves, 2, "a bye: 1 point");
        // Too few to go on: fewer than three active players end the event.
        assert_eq!(min_players(3), 3);
    }

    #[test]
    fn a_three_seat_table_missing_a_withdrawn_player_is_not_played() {
        let mut t = Tournament::fold(&TournamentId::new("t"), &[created(Some(3))]).unwrap();
        let names: Vec<String> = (0..6).map(|i| format!("p{i}")).collect();
        for p in &names {
            t.apply(&Event::Joined { player: p.clone() }).unwrap();
        }
        let at = chrono::NaiveDate::from_ymd_opt(2026, 12, 1)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        let (tables, byes) = t.pair(1).unwrap();
        t.apply(&Event::RoundPaired {
            round: 1,
            at,
            tables,
            byes,
        })
        .unwrap();
        // Round 2's first table loses a player: the two left sit the round out.
        let schedule = pairing::round_robin(3, 6).unwrap();
        let due = &schedule[1].tables[0];
        let quitter = names[due[0]].clone();
        t.apply(&Event::Left {
            player: quitter.clone(),
        })
        .unwrap();
        let (tables, byes) = t.pair(2).unwrap();
        assert_eq!(tables.len(), 1);
        let mut left: Vec<String> = due[1..].iter().map(|&i| names[i].clone()).collect();
        left.sort();
        let mut got = byes.clone();
        got.sort();
        assert_eq!(got, left);
        assert!(tables[0].seats.iter().flatten().all(|p| *p != quitter));
        t.apply(&Event::RoundPaired {
            round: 2,
            at,
            tables,
            byes,
        })
        .unwrap();
        let s = t.standings();
        for p in &left {
            assert_eq!(s.iter().find(|r| &r.player == p).unwrap().halves, 2);
        }
    }
}
