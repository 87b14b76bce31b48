//! The one command path of an event: the organiser's, the players', the clock's and the
//! games' changes are all decided by [`log::decide`] on the folded log and appended with
//! a claimed version ([`tstore::append`]). Two instances deciding the same change at
//! once (pairing the same round, say) both decide on version `v`; one claims `v` and
//! writes, the other's claim changes no row, it folds again, and finds nothing left to
//! do: the round is paired exactly once.
//!
//! What a change causes outside the log (the games of a paired round, the resignations
//! of a withdrawn player, the end of a game counted) is done by [`settle`], which reads
//! what the log says should exist and makes it so: it is idempotent, so the clock's
//! pass ([`tick`]) finishes what a crash interrupted. A round's games have ids derived
//! from the event, the round and the table, so creating one twice is harmless.

use std::sync::Arc;

use chrono::NaiveDateTime;
use domain::{GameSettings, Ruleset, Seat};

use super::log::{
    self, CancelReason, Command, Event, Format, Refusal, Settings, Status, Tournament,
};
use super::pairing;
use crate::clock::Clock;
use crate::games::commands::{self, Actor, CommandError, NewGame, Write};
use crate::ids::{GameId, TournamentId, UserId};
use crate::model::events::{GameResult, Visibility};
use crate::store::cache::GameCache;
use crate::store::tournaments::{self as tstore, Entries, NewEvent, TournamentRow};
use crate::store::{self, DbConnection, DbPool, RunError, StoreError};
use crate::validate::Invalid;

/// How many times a write is tried before it gives up.
pub const MAX_ATTEMPTS: u32 = 8;
/// Events an organiser may have open or running at once.
pub const MAX_LIVE_EVENTS_PER_ORGANISER: i64 = 3;
/// Bounds of the settings.
pub const MAX_NAME_CHARS: usize = 80;
/// A Swiss event takes two tables' worth to 64 players: 8 to 64 at four seats, 6 to 64
/// at three.
pub fn swiss_min(k: usize) -> u32 {
    2 * k.min(pairing::MAX_SEATS) as u32
}
pub const SWISS_MAX: u32 = 64;
pub const SWISS_MAX_ROUNDS: u32 = 9;
pub const MAX_ROUND_DAYS: u32 = 90;
/// How far ahead a start date may be, in days.
pub const MAX_START_DAYS: i64 = 365;

/// What the tournament use cases work with.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    pub pool: &'a DbPool,
    pub cache: &'a Arc<GameCache>,
    pub clock: &'a Arc<dyn Clock>,
}

/// Why a tournament command was not written (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("no tournament {0}")]
    NotFound(String),
    #[error("{0}")]
    Refused(#[from] Refusal),
    #[error("invalid input")]
    Invalid(Vec<Invalid>),
    #[error("{}", .0.detail)]
    Quota(crate::quota::Exceeded),
    #[error("the tournament is busy: try again")]
    Busy,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<diesel::result::Error> for TournamentError {
    fn from(e: diesel::result::Error) -> Self {
        TournamentError::Store(e.into())
    }
}

impl From<RunError> for TournamentError {
    fn from(e: RunError) -> Self {
        TournamentError::Store(e.into())
    }
}

/// The organiser's choices, as sent (checked by [`create`]).
#[derive(Debug, Clone)]
pub struct NewTournament {
    pub name: String,
    pub format: Format,
    pub capacity: u32,
    pub starts_at: Option<NaiveDateTime>,
    pub round_days: u32,
    pub ruleset: Option<String>,
    pub time_control: crate::model::timing::TimeControl,
    pub rated: bool,
    pub rating_range: Option<crate::model::events::RatingRange>,
    /// Seats per table (3 or 4).
    pub seats_per_table: u32,
}

fn invalid(field: &str, message: impl Into<String>) -> Invalid {
    Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// Checks the organiser's choices; the settings to store.
pub fn check(new: &NewTournament, now: NaiveDateTime) -> Result<Settings, TournamentError> {
    let mut bad = Vec::new();
    let name = new.name.trim();
    if name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name.chars().any(char::is_control)
    {
        bad.push(invalid(
            "name",
            format!("1 to {MAX_NAME_CHARS} characters, no control characters"),
        ));
    }
    let k = new.seats_per_table as usize;
    let seats_ok = pairing::seats_allowed(k);
    if !seats_ok {
        bad.push(invalid(
            "seats_per_table",
            format!(
                "{} or {} seats per table (a game needs three players)",
                pairing::MIN_SEATS,
                pairing::MAX_SEATS
            ),
        ));
    }
    match new.format {
        Format::RoundRobin => {
            let (lo, hi) = (pairing::round_robin_min(k), pairing::ROUND_ROBIN_MAX);
            if seats_ok && !(lo..=hi).contains(&(new.capacity as usize)) {
                bad.push(invalid(
                    "capacity",
                    format!("a round-robin of {k}-seat tables takes {lo} to {hi} players"),
                ));
            }
        }
        Format::Swiss { rounds } => {
            let lo = swiss_min(k);
            if seats_ok && !(lo..=SWISS_MAX).contains(&new.capacity) {
                bad.push(invalid(
                    "capacity",
                    format!("a Swiss event of {k}-seat tables takes {lo} to {SWISS_MAX} players"),
                ));
            }
            if !(2..=SWISS_MAX_ROUNDS).contains(&rounds) {
                bad.push(invalid(
                    "format.rounds",
                    format!("2 to {SWISS_MAX_ROUNDS} rounds"),
                ));
            }
        }
    }
    if !(1..=MAX_ROUND_DAYS).contains(&new.round_days) {
        bad.push(invalid("round_days", format!("1 to {MAX_ROUND_DAYS} days")));
    }
    if let Some(at) = new.starts_at
        && (at <= now || at > now + chrono::Duration::days(MAX_START_DAYS))
    {
        bad.push(invalid(
            "starts_at",
            format!("a time in the next {MAX_START_DAYS} days"),
        ));
    }
    if let Err((field, message)) = new.time_control.check() {
        bad.push(invalid(field, message));
    }
    if let Some(r) = new.rating_range {
        let ok = |v: Option<i32>| v.is_none_or(|v| (-100..=100).contains(&v));
        if !ok(r.min) || !ok(r.max) || matches!((r.min, r.max), (Some(a), Some(b)) if a > b) {
            bad.push(invalid("rating_range", "-100 to 100, min not above max"));
        }
    }
    let ruleset = match new.ruleset.as_deref() {
        None | Some("") => Ruleset::default(),
        Some(text) => match Ruleset::from_id(text) {
            Some(r) => r,
            None => {
                bad.push(invalid("ruleset", "not a ruleset (see VARIANTS.md)"));
                Ruleset::default()
            }
        },
    };
    if !bad.is_empty() {
        return Err(TournamentError::Invalid(bad));
    }
    Ok(Settings {
        name: name.to_string(),
        format: new.format,
        capacity: new.capacity,
        starts_at: new.starts_at,
        round_days: new.round_days,
        ruleset: ruleset.id(),
        time_control: new.time_control,
        rated: new.rated,
        rating_range: new.rating_range,
        seats_per_table: new.seats_per_table,
    })
}

fn projection(t: &Tournament, created_at: NaiveDateTime, now: NaiveDateTime) -> TournamentRow {
    TournamentRow {
        id: t.id.clone(),
        name: t.settings.name.clone(),
        organiser_id: t.organiser.clone(),
        format: t.settings.format.name().into(),
        status: t.status.name().into(),
        capacity: t.settings.capacity as i32,
        players: t.entrants.len() as i32,
        rounds_paired: t.rounds.len() as i32,
        starts_at: t.settings.starts_at,
        version: t.version,
        created_at,
        updated_at: now,
    }
}

fn new_event(e: &Event) -> NewEvent {
    NewEvent {
        kind: e.kind().into(),
        payload: e.payload_text(),
    }
}

/// Creates an event (blocking). The organiser's quota is checked in the write.
pub fn create(
    conn: &mut DbConnection,
    clock: &dyn Clock,
    organiser: &str,
    new: &NewTournament,
) -> Result<Tournament, TournamentError> {
    let now = clock.now();
    let settings = check(new, now)?;
    let id = TournamentId::new(uuid::Uuid::new_v4().to_string());
    let created = Event::Created {
        organiser: organiser.to_string(),
        settings,
    };
    let t = Tournament::fold(&id, std::slice::from_ref(&created))
        .map_err(|e| TournamentError::Store(StoreError::Corrupt(e)))?;
    let row = projection(&t, now, now);
    store::transaction(conn, |c| {
        if tstore::live_count_of(c, organiser)? >= MAX_LIVE_EVENTS_PER_ORGANISER {
            return Err(TournamentError::Quota(crate::quota::Exceeded::held(
                "live_tournaments",
                MAX_LIVE_EVENTS_PER_ORGANISER as u64,
                format!(
                    "an organiser may have {MAX_LIVE_EVENTS_PER_ORGANISER} events open or \
                     running at once"
                ),
            )));
        }
        tstore::append(
            c,
            0,
            &row,
            &[new_event(&created)],
            Some(organiser),
            &Entries::default(),
        )?;
        Ok(())
    })?;
    Ok(t)
}

/// Reads and folds an event's log.
pub fn load(
    conn: &mut DbConnection,
    id: &TournamentId,
) -> Result<(Tournament, NaiveDateTime), TournamentError> {
    let rows = tstore::load_events(conn, id)?;
    let Some(first) = rows.first() else {
        return Err(TournamentError::NotFound(id.to_string()));
    };
    let created_at = first.created_at;
    let events = rows
        .iter()
        .map(|r| Event::from_parts(&r.kind, &r.payload))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| StoreError::Corrupt(format!("tournament {id}: {e}")))?;
    let t = Tournament::fold(id, &events).map_err(StoreError::Corrupt)?;
    Ok((t, created_at))
}

/// What a command wrote: the state after, and the new events (empty: nothing to do).
#[derive(Debug, Clone)]
pub struct Done {
    pub before: Tournament,
    pub state: Tournament,
    pub events: Vec<Event>,
}

/// Decides `command` on the current log and appends its events, retrying on a moved
/// version (blocking). Does not [`settle`].
pub fn execute(
    conn: &mut DbConnection,
    clock: &dyn Clock,
    id: &TournamentId,
    actor: Option<&str>,
    command: &Command,
) -> Result<Done, TournamentError> {
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(5 << attempt.min(5)));
        }
        let (before, created_at) = load(conn, id)?;
        let now = clock.now();
        let events = log::decide(&before, command, now)?;
        if events.is_empty() {
            return Ok(Done {
                state: before.clone(),
                before,
                events,
            });
        }
        let mut state = before.clone();
        for e in &events {
            state.apply(e).map_err(StoreError::Corrupt)?;
        }
        let mut entries = Entries::default();
        for e in &events {
            match e {
                Event::Joined { player } => entries.joined.push(player.clone()),
                Event::Left { player } if before.status == Status::Open => {
                    entries.left.push(player.clone())
                }
                _ => {}
            }
        }
        let row = projection(&state, created_at, now);
        let rows: Vec<NewEvent> = events.iter().map(new_event).collect();
        let notes = super::notify::plan(&before, &state, &events, now);
        match store::transaction(conn, |c| {
            tstore::append(c, before.version, &row, &rows, actor, &entries)?;
            crate::store::outbox::enqueue(c, &notes)
        }) {
            Ok(()) => {
                return Ok(Done {
                    before,
                    state,
                    events,
                });
            }
            Err(StoreError::VersionMoved | StoreError::Transient(_)) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(TournamentError::Busy)
}

/// Runs a command and then settles the event: what the command causes (a start, a new
/// round, a withdrawal's resignations) happens before the answer (blocking).
pub fn execute_and_settle(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    id: &TournamentId,
    actor: Option<&str>,
    command: &Command,
) -> Result<Tournament, TournamentError> {
    execute(conn, clock, id, actor, command)?;
    settle(conn, cache, clock, id)
}

/// Makes the world match the log, then lets the clock advance it, until nothing is left
/// to do: creates the games of paired tables that do not exist yet, resigns a withdrawn
/// player's running games, counts ended games, starts, pairs and finishes (blocking,
/// idempotent).
pub fn settle(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    id: &TournamentId,
) -> Result<Tournament, TournamentError> {
    let (mut t, _) = load(conn, id)?;
    // A few passes: a game end may finish a round, whose pairing creates games…
    for _ in 0..6 {
        let mut wrote = false;
        let ids: Vec<GameId> = t.running_tables().map(|tb| tb.game_id.clone()).collect();
        let games = tstore::game_states(conn, &ids)?;
        for table in t.running_tables() {
            match games.iter().find(|(g, _, _)| g == &table.game_id) {
                None => start_game(conn, cache, clock, &t, table)?,
                Some((_, status, result)) if status == "finished" => {
                    let ranking = result
                        .as_deref()
                        .and_then(|r| serde_json::from_str::<GameResult>(r).ok())
                        .map(|r| r.ranking)
                        .unwrap_or_default();
                    let command = Command::GameEnded {
                        game_id: table.game_id.clone(),
                        ranking,
                    };
                    let done = execute(conn, clock, id, None, &command)?;
                    wrote |= !done.events.is_empty();
                }
                Some(_) => {
                    for (k, p) in table.seats.iter().enumerate() {
                        if let Some(p) = p
                            && t.entrant(p).is_some_and(|e| e.withdrawn)
                        {
                            resign(conn, cache, clock, &table.game_id, p, Seat::from_index(k))?;
                        }
                    }
                }
            }
        }
        let done = execute(conn, clock, id, None, &Command::Advance)?;
        wrote |= !done.events.is_empty();
        t = done.state;
        if !wrote {
            break;
        }
    }
    Ok(t)
}

/// Creates a paired table's game and seats its players, through the game command. The
/// first seated player creates it (so the game's creator is one of its players); it is
/// invite-only, the code known to the server alone, so nobody else takes a seat.
fn start_game(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    t: &Tournament,
    table: &log::Table,
) -> Result<(), TournamentError> {
    let seated: Vec<(Seat, &str)> = table
        .seats
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.as_deref().map(|p| (Seat::from_index(k), p)))
        .collect();
    let Some(&(first_seat, creator)) = seated.first() else {
        return Ok(());
    };
    // The seats in play: the table's seated ones (a four-seat table may have an empty
    // seat, a three-seat table never has Green). With three, the one left is hostage.
    let empty = Seat::ALL
        .into_iter()
        .find(|s| seated.iter().all(|&(taken, _)| taken != *s));
    let ruleset = Ruleset::from_id(&t.settings.ruleset).unwrap_or_default();
    let mut settings = match (seated.len(), empty) {
        (3, Some(seat)) => GameSettings::three_players(seat),
        (4, _) => GameSettings::four_players(),
        // Not reached: a table is paired with three or four players.
        _ => {
            tracing::warn!(game = %table.game_id, seated = seated.len(), "a tournament table cannot be played");
            return Ok(());
        }
    };
    settings.ruleset = ruleset;
    let code = format!("t{}", uuid::Uuid::new_v4().simple());
    let create = Write {
        game_id: table.game_id.clone(),
        command: commands::Command::Create(NewGame {
            settings,
            hostage_seat: empty,
            visibility: Visibility::Invite,
            creator_seat: Some(first_seat),
            invite_code: Some(code.clone()),
            time_control: Some(t.settings.time_control),
            bots: Vec::new(),
            talk: Default::default(),
            rated: t.settings.rated,
            rating_range: None,
        }),
        actor: Actor::Player(UserId::new(creator)),
        expected: None,
        session: None,
        quotas: None,
    };
    match commands::execute(conn, cache, clock, &create) {
        Ok(_) => {}
        // Another instance created it first: it seats the players.
        Err(CommandError::Store(StoreError::VersionMoved)) => return Ok(()),
        Err(CommandError::Store(e)) => return Err(e.into()),
        Err(e) => {
            tracing::warn!(game = %table.game_id, error = %e, "a tournament game could not be created");
            return Ok(());
        }
    }
    for &(seat, player) in &seated[1..] {
        let take = Write {
            game_id: table.game_id.clone(),
            command: commands::Command::TakeSeat {
                seat,
                invite_code: Some(code.clone()),
                rating: None,
            },
            actor: Actor::Player(UserId::new(player)),
            expected: None,
            session: None,
            quotas: None,
        };
        match commands::execute(conn, cache, clock, &take) {
            Ok(_) => {}
            Err(CommandError::Store(e)) => return Err(e.into()),
            Err(e) => {
                tracing::warn!(game = %table.game_id, error = %e, "a tournament seat could not be taken")
            }
        }
    }
    Ok(())
}

/// Resigns a withdrawn player's seat through the game command.
fn resign(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    game_id: &GameId,
    player: &str,
    seat: Seat,
) -> Result<(), TournamentError> {
    let write = Write {
        game_id: game_id.clone(),
        command: commands::Command::Resign,
        actor: Actor::Player(UserId::new(player)),
        expected: None,
        session: None,
        quotas: None,
    };
    match commands::execute(conn, cache, clock, &write) {
        Ok(_) => Ok(()),
        // Already out of the game (eliminated, resigned, the game over).
        Err(CommandError::Store(e)) => Err(e.into()),
        Err(e) => {
            tracing::debug!(game = %game_id, %seat, error = %e, "no resignation needed");
            Ok(())
        }
    }
}

/// The clock's pass: settles every open or running event (a start date, a round's
/// days, games ended by any path). Returns how many events were looked at.
pub fn tick(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
) -> Result<usize, TournamentError> {
    let ids = tstore::live_ids(conn, 200)?;
    for id in &ids {
        if let Err(e) = settle(conn, cache, clock, id) {
            tracing::warn!(tournament = %id, error = %e, "settling a tournament failed");
        }
    }
    Ok(ids.len())
}

/// A player joins (blocking): the event's rating range is checked against the
/// player's shown rating (a player without one counts as 0).
pub fn join(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    id: &TournamentId,
    user: &str,
) -> Result<Tournament, TournamentError> {
    let (t, _) = load(conn, id)?;
    if let Some(range) = t.settings.rating_range {
        let rating = crate::ratings::shown_rating(conn, &UserId::new(user))?.unwrap_or(0.0);
        if !range.admits(rating) {
            return Err(Refusal::RatingOutOfRange.into());
        }
    }
    let command = Command::Join {
        player: user.to_string(),
    };
    execute_and_settle(conn, cache, clock, id, Some(user), &command)
}

/// A closed account withdraws from every event it is entered in (blocking).
pub fn withdraw_everywhere(
    conn: &mut DbConnection,
    cache: &GameCache,
    clock: &dyn Clock,
    user: &UserId,
) -> Result<usize, TournamentError> {
    let ids = tstore::live_ids_of_player(conn, user)?;
    for id in &ids {
        let leave = Command::Leave {
            player: user.to_string(),
        };
        match execute_and_settle(conn, cache, clock, id, Some(user.as_str()), &leave) {
            Ok(_) | Err(TournamentError::Refused(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(ids.len())
}

/// Why an event ended early, for the views.
pub fn cancel_reason_name(r: CancelReason) -> &'static str {
    match r {
        CancelReason::Organiser => "organiser",
        CancelReason::TooFewPlayers => "too_few_players",
    }
}

/// [`create`] on a blocking thread.
pub async fn create_event(
    ctx: Ctx<'_>,
    organiser: String,
    new: NewTournament,
) -> Result<Tournament, TournamentError> {
    let clock = ctx.clock.clone();
    store::run(ctx.pool, move |conn| {
        create(conn, &*clock, &organiser, &new)
    })
    .await
}

/// What a player or the organiser asks of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    Join,
    Leave,
    Cancel,
}

/// Runs a player's or the organiser's command on a blocking thread, settling after.
pub async fn ask(
    ctx: Ctx<'_>,
    id: TournamentId,
    user: String,
    what: Ask,
) -> Result<Tournament, TournamentError> {
    let (cache, clock) = (ctx.cache.clone(), ctx.clock.clone());
    store::run(ctx.pool, move |conn| match what {
        Ask::Join => join(conn, &cache, &*clock, &id, &user),
        Ask::Leave => {
            let c = Command::Leave {
                player: user.clone(),
            };
            execute_and_settle(conn, &cache, &*clock, &id, Some(&user), &c)
        }
        Ask::Cancel => {
            let c = Command::Cancel { by: user.clone() };
            execute_and_settle(conn, &cache, &*clock, &id, Some(&user), &c)
        }
    })
    .await
}
