//! The game store: the append-only event log, the `games`/`game_players` projection
//! written in the same transaction, and loading a game's state (through the cache or by
//! replay). It knows diesel, not HTTP: its errors are [`StoreError`].
//!
//! # The append protocol
//!
//! Every write, on both databases, in one transaction:
//!
//! 1. **claim** the version: `UPDATE games SET <projection> WHERE id = ? AND version = v`
//!    (for a new game, `INSERT INTO games`). No row updated means another write got there
//!    first: [`StoreError::VersionMoved`], and the transaction is rolled back;
//! 2. insert the events `v+1..`, then the seat rows they imply;
//! 3. the outbox rows the events cause ([`crate::notifications`]), then the caller's own
//!    rows (an idempotent answer).
//!
//! Every writer locks the game's row before it touches anything else, so two writers of
//! one game wait for each other instead of deadlocking; a writer that waited finds the
//! version moved. On PostgreSQL, an append with no seat change and nothing of the
//! caller's is sent as ONE statement (a data-modifying CTE whose `UPDATE` is the very
//! same diesel changeset as step 1, feeding the `INSERT` of step 2): same protocol, one
//! round trip, no explicit transaction.
//!
//! No code path updates or deletes an event.

use std::sync::Arc;

use chrono::NaiveDateTime;
use diesel::expression::BoxableExpression;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Bool;
use domain::Seat;

use super::cache::GameCache;
use crate::ids::{GameId, SessionId, UserId};
use crate::model::events::Event;
use crate::model::game_state::{FoldError, GameState};
use crate::model::talk::Press;
use crate::store::outbox::NotificationRow;
use crate::store::schema::{game_events, game_players, games, player_ratings, sessions, users};
use crate::store::{DbConnection, StoreError};

/// A row of `game_events`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_events)]
pub struct EventRow {
    pub game_id: GameId,
    pub seq: i64,
    pub kind: String,
    pub payload: String,
    pub actor_id: Option<UserId>,
    pub created_at: NaiveDateTime,
}

impl EventRow {
    pub fn event(&self) -> Result<Event, StoreError> {
        Event::from_parts(&self.kind, &self.payload).map_err(|e| {
            StoreError::Corrupt(format!("game {} event {}: {e}", self.game_id, self.seq))
        })
    }
}

/// A row of the `games` projection. [`GameRow::of`] is its only writer.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = games, treat_none_as_null = true)]
pub struct GameRow {
    pub id: GameId,
    pub status: String,
    pub visibility: String,
    pub invite_code: Option<String>,
    pub ruleset: String,
    pub seats_in_play: String,
    pub hostage_seat: Option<String>,
    pub version: i64,
    pub ply: i32,
    pub to_move_seat: Option<String>,
    pub to_move_user_id: Option<UserId>,
    pub ruler_seat: Option<String>,
    pub result: Option<String>,
    pub created_by: UserId,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// `play` or `study`.
    pub kind: String,
    /// The time control as JSON ([`super::timing::TimeControl`]); `None`: no deadlines.
    pub time_control: Option<String>,
    /// The deadline of the seat to move (active games with a time control), or when a
    /// bot is to move the time of the last event: when the due-work worker
    /// ([`super::due`]) must look at the game.
    pub due_at: Option<NaiveDateTime>,
    /// The order of `/v1/me/games?turn=mine`: the deadline, or for games without one
    /// [`NO_DEADLINE_ORDER`] after the last change (after every deadline, longest waiting
    /// first).
    pub turn_order_at: NaiveDateTime,
    /// When the current turn started, for a seat to move that has a deadline (the log's
    /// deadline is then `turn_order_at`): with the player's vacations the effective
    /// deadline follows from both at read time
    /// ([`crate::model::timing::effective_deadline`]). `None` for rows written before.
    pub turn_started_at: Option<NaiveDateTime>,
    /// The computer players: seat and level, e.g. `B3,G5` ([`bots_column`]);
    /// `None` without bots.
    pub bots: Option<String>,
    /// A rated game (see `crate::ratings`).
    pub rated: bool,
    /// The rating range a player must be in to take a seat, as JSON.
    pub rating_range: Option<String>,
    /// The order in which due games are claimed (then by `due_at`): [`DUE_DEADLINE`],
    /// [`DUE_BOT_WITH_PEOPLE`] or [`DUE_BOTS_ONLY`].
    pub due_priority: i32,
    /// The table-talk options: what becomes of private messages at the end (`private`
    /// or `revealed_at_end`), and whether players out of the game may write.
    pub press: String,
    pub eliminated_may_write: bool,
}

/// Due work of the first kind claimed: a deadline (a person's turn running out).
pub const DUE_DEADLINE: i32 = 0;
/// Then a computer player's turn (or answer to a draw offer) in a game with people.
pub const DUE_BOT_WITH_PEOPLE: i32 = 1;
/// Last, a game with only computer players left.
pub const DUE_BOTS_ONLY: i32 = 2;

/// What kind of due work a state holds (see [`GameRow::due_priority`]).
pub fn due_priority(state: &GameState) -> i32 {
    if state.bot_to_move().is_none() && state.bot_to_answer_draw().is_none() {
        DUE_DEADLINE
    } else if state.only_bots_active() {
        DUE_BOTS_ONLY
    } else {
        DUE_BOT_WITH_PEOPLE
    }
}

/// How far after its last change a game without a deadline sorts in `turn=mine`.
pub const NO_DEADLINE_ORDER: chrono::TimeDelta = chrono::TimeDelta::days(1000 * 365);

impl GameRow {
    /// The projection of a state.
    pub fn of(state: &GameState) -> GameRow {
        let position = state.game.position();
        GameRow {
            id: state.id.clone(),
            status: state.status.as_str().into(),
            visibility: state.visibility.as_str().into(),
            invite_code: state.invite_code.clone(),
            ruleset: state.settings.ruleset.id(),
            seats_in_play: state.settings.seats.to_string(),
            hostage_seat: state.hostage_seat.map(|s| s.to_string()),
            version: state.version,
            ply: i32::try_from(position.ply()).unwrap_or(i32::MAX),
            to_move_seat: state.to_move().map(|s| s.to_string()),
            to_move_user_id: state.to_move_user().cloned(),
            ruler_seat: position.ruler().map(|s| s.to_string()),
            result: state
                .result
                .as_ref()
                .and_then(|r| serde_json::to_string(r).ok()),
            created_by: state.created_by.clone(),
            created_at: state.created_at,
            updated_at: state.updated_at,
            kind: state.kind.as_str().into(),
            time_control: state
                .time_control
                .as_ref()
                .and_then(|tc| serde_json::to_string(tc).ok()),
            // A bot to move, or a bot owing an answer to a draw offer, is due at once (the
            // worker applies its delay).
            due_at: match (state.deadline(), state.bot_to_answer_draw()) {
                (Some(d), Some(_)) => Some(d.min(state.updated_at)),
                (None, Some(_)) => Some(state.updated_at),
                (d, None) => d.or_else(|| state.bot_to_move().map(|_| state.updated_at)),
            },
            turn_order_at: state
                .deadline()
                .unwrap_or(state.updated_at + NO_DEADLINE_ORDER),
            turn_started_at: state.deadline().and(state.clocks.turn_started),
            bots: bots_column(state),
            rated: state.rated,
            rating_range: state
                .rating_range
                .as_ref()
                .and_then(|r| serde_json::to_string(r).ok()),
            due_priority: due_priority(state),
            press: match state.talk.press {
                Press::Private => "private",
                Press::RevealedAtEnd => "revealed_at_end",
            }
            .into(),
            eliminated_may_write: state.talk.eliminated_may_write,
        }
    }
}

/// A row of `game_players` with the player's username.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerRow {
    pub game_id: GameId,
    pub seat: String,
    pub user_id: UserId,
    pub username: String,
    /// The player's shown rating, if they finished a rated game.
    pub rating: Option<f64>,
}

pub fn find_row(conn: &mut DbConnection, id: &GameId) -> Result<Option<GameRow>, StoreError> {
    Ok(games::table
        .find(id)
        .select(GameRow::as_select())
        .first(conn)
        .optional()?)
}

/// The current version of a game.
pub fn current_version(conn: &mut DbConnection, id: &GameId) -> Result<i64, StoreError> {
    games::table
        .find(id)
        .select(games::version)
        .first::<i64>(conn)
        .optional()?
        .ok_or_else(|| StoreError::NotFound(id.to_string()))
}

/// The players (with usernames) of some games.
pub fn players_of(conn: &mut DbConnection, ids: &[GameId]) -> Result<Vec<PlayerRow>, StoreError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(GameId, String, UserId, String, Option<f64>)> = game_players::table
        .inner_join(users::table)
        .left_join(player_ratings::table.on(player_ratings::user_id.eq(game_players::user_id)))
        .filter(game_players::game_id.eq_any(ids))
        .select((
            game_players::game_id,
            game_players::seat,
            game_players::user_id,
            users::username,
            player_ratings::rating.nullable(),
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(game_id, seat, user_id, username, rating)| PlayerRow {
            game_id,
            seat,
            user_id,
            username,
            rating,
        })
        .collect())
}

/// Events `after+1 ..= upto` of a game, in order, at most `limit`.
pub fn load_events(
    conn: &mut DbConnection,
    id: &GameId,
    after: i64,
    upto: i64,
    limit: Option<i64>,
) -> Result<Vec<EventRow>, StoreError> {
    let mut query = game_events::table
        .filter(game_events::game_id.eq(id))
        .filter(game_events::seq.gt(after))
        .filter(game_events::seq.le(upto))
        .order(game_events::seq.asc())
        .select(EventRow::as_select())
        .into_boxed();
    if let Some(n) = limit {
        query = query.limit(n);
    }
    Ok(query.load(conn)?)
}

/// Folds event rows onto a state (or starts one from event 1), checking their numbering.
/// Each state passed on the way is offered to `visit` (for the cache's checkpoints).
pub fn fold(
    id: &GameId,
    mut state: Option<GameState>,
    rows: &[EventRow],
    mut visit: impl FnMut(&GameState, Option<&domain::Step>),
) -> Result<Option<GameState>, StoreError> {
    for row in rows {
        let expected = state.as_ref().map_or(1, |s| s.version + 1);
        if row.seq != expected {
            return Err(StoreError::Corrupt(format!(
                "game {id}: event {} where {expected} was expected",
                row.seq
            )));
        }
        let event = row.event()?;
        let corrupt =
            |e: FoldError| StoreError::Corrupt(format!("game {id} event {}: {e}", row.seq));
        let step = GameState::fold(&mut state, id, &event, row.created_at).map_err(corrupt)?;
        if let Some(s) = &state {
            visit(s, step.as_ref());
        }
    }
    Ok(state)
}

/// The state of game `id` at `version` (which the caller read from the projection, or
/// was asked for with `?at=`): from the cache when it holds that version, else by folding
/// the missing events onto the nearest older cached state or checkpoint, else by
/// replaying the log from event 1 (leaving checkpoints behind, so the next reader of an
/// old version folds a few events only). `latest` says the version is the game's
/// current one, so it may replace the cached newest state.
pub fn state_at(
    conn: &mut DbConnection,
    cache: &GameCache,
    id: &GameId,
    version: i64,
    latest: bool,
) -> Result<Arc<GameState>, StoreError> {
    let base = cache.get_at_most(id, version);
    if let Some(s) = &base {
        if s.version == version {
            return Ok(s.clone());
        }
    }
    let after = base.as_ref().map_or(0, |s| s.version);
    let rows = load_events(conn, id, after, version, None)?;
    let state = fold(id, base.map(|s| (*s).clone()), &rows, |s, _| {
        cache.offer_checkpoint(s)
    })?
    .filter(|s| s.version == version)
    .ok_or_else(|| {
        if version == 0 || (after == 0 && rows.is_empty()) {
            StoreError::NotFound(id.to_string())
        } else {
            StoreError::Corrupt(format!(
                "game {id}: the log does not reach version {version}"
            ))
        }
    })?;
    let state = Arc::new(state);
    if latest {
        cache.put(state.clone());
    }
    Ok(state)
}

/// The state at the current version (from the projection).
pub fn current_state(
    conn: &mut DbConnection,
    cache: &GameCache,
    id: &GameId,
) -> Result<Arc<GameState>, StoreError> {
    let version = current_version(conn, id)?;
    state_at(conn, cache, id, version, true)
}

/// The log rows of an append.
fn event_rows(
    id: &GameId,
    expected: i64,
    events: &[Event],
    actor_id: Option<&UserId>,
    at: NaiveDateTime,
) -> Vec<EventRow> {
    events
        .iter()
        .zip(expected + 1..)
        .map(|(e, seq)| EventRow {
            game_id: id.clone(),
            seq,
            kind: e.kind().into(),
            payload: e.payload_text(),
            actor_id: actor_id.cloned(),
            created_at: at,
        })
        .collect()
}

fn check_shape(expected: i64, events: &[Event], state: &GameState) -> Result<(), StoreError> {
    if events.is_empty() || state.version != expected + events.len() as i64 {
        return Err(StoreError::Database(format!(
            "append of {} events at version {expected} with a state at {}",
            events.len(),
            state.version
        )));
    }
    Ok(())
}

/// Steps 1 and 2 of the append protocol (see the module documentation): claims version
/// `expected` (0 for a new game), inserts `events` (already folded into `new_state`)
/// and their seat rows. Must run inside a transaction, which the caller rolls back on
/// any error.
pub fn append(
    conn: &mut DbConnection,
    expected: i64,
    events: &[Event],
    actor_id: Option<&UserId>,
    new_state: &GameState,
) -> Result<(), StoreError> {
    check_shape(expected, events, new_state)?;
    let id = &new_state.id;
    let projection = GameRow::of(new_state);
    if expected == 0 {
        diesel::insert_into(games::table)
            .values(&projection)
            .execute(conn)?;
    } else {
        let claimed = diesel::update(
            games::table
                .filter(games::id.eq(id))
                .filter(games::version.eq(expected)),
        )
        .set(&projection)
        .execute(conn)?;
        if claimed != 1 {
            return Err(StoreError::VersionMoved);
        }
    }
    let at = new_state.updated_at;
    super::live::note(format!("g:{id}"));
    // One statement per event: diesel's batch insert does not span both backends.
    for row in event_rows(id, expected, events, actor_id, at) {
        diesel::insert_into(game_events::table)
            .values(&row)
            .execute(conn)?;
    }
    for event in events {
        match event {
            Event::SeatTaken { seat, user_id } => {
                diesel::insert_into(game_players::table)
                    .values((
                        game_players::game_id.eq(id),
                        game_players::seat.eq(seat.to_string()),
                        game_players::user_id.eq(user_id),
                        game_players::joined_at.eq(at),
                    ))
                    .execute(conn)?;
            }
            Event::SeatLeft { seat, .. } => {
                diesel::delete(
                    game_players::table
                        .filter(game_players::game_id.eq(id))
                        .filter(game_players::seat.eq(seat.to_string())),
                )
                .execute(conn)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether [`append_in_one_statement`] can write these events: no new game, no seat row.
pub fn fits_one_statement(expected: i64, events: &[Event]) -> bool {
    expected > 0
        && !events.iter().any(|e| {
            matches!(
                e,
                Event::SeatTaken { .. } | Event::SeatLeft { .. } | Event::Created { .. }
            )
        })
}

/// Whether the login session `session_id` of `user_id` is live (not revoked).
pub fn session_is_live(
    conn: &mut DbConnection,
    session_id: &SessionId,
    user_id: &UserId,
) -> Result<bool, StoreError> {
    Ok(diesel::select(diesel::dsl::exists(live_session(session_id, user_id))).get_result(conn)?)
}

/// `sessions` rows of a live session: `SELECT ... WHERE id = ? AND user_id = ? AND
/// revoked_at IS NULL`.
type LiveSession<'a> = diesel::dsl::Filter<
    diesel::dsl::Filter<
        diesel::dsl::Filter<sessions::table, diesel::dsl::Eq<sessions::id, &'a SessionId>>,
        diesel::dsl::Eq<sessions::user_id, &'a UserId>,
    >,
    diesel::dsl::IsNull<sessions::revoked_at>,
>;

fn live_session<'a>(session_id: &'a SessionId, user_id: &'a UserId) -> LiveSession<'a> {
    sessions::table
        .filter(sessions::id.eq(session_id))
        .filter(sessions::user_id.eq(user_id))
        .filter(sessions::revoked_at.is_null())
}

/// The append protocol in one PostgreSQL statement, for appends that
/// [`fits_one_statement`]: `WITH claim AS (UPDATE games SET <GameRow::of> WHERE id = ?
/// AND version = v [AND the session is live] RETURNING id) INSERT INTO game_events
/// SELECT ... FROM claim, unnest(..)`. Either both happen or neither. `Ok(false)` when
/// nothing was written: the version had moved, or the `session` (session id, user id)
/// has ended.
///
/// `notes` (the outbox rows the events cause, see [`crate::notifications`]) are inserted
/// by a further data-modifying CTE of the same statement, also `FROM claim`: they are
/// written exactly when the events are, but for a `your_turn` to a seat whose player
/// has conditional moves stored (as [`crate::games::conditional::quiet_turn`] drops it
/// on the other path).
pub fn append_in_one_statement(
    conn: &mut diesel::PgConnection,
    expected: i64,
    events: &[Event],
    actor_id: Option<&UserId>,
    new_state: &GameState,
    session: Option<(&SessionId, &UserId)>,
    notes: &[NotificationRow],
) -> Result<bool, StoreError> {
    check_shape(expected, events, new_state)?;
    if !fits_one_statement(expected, events) {
        return Err(StoreError::Database(
            "a one-statement append cannot create a game or change seats".into(),
        ));
    }
    let projection = GameRow::of(new_state);
    type Condition<'a> = Box<dyn BoxableExpression<games::table, Pg, SqlType = Bool> + 'a>;
    let mut claimable: Condition =
        Box::new(games::id.eq(&new_state.id).and(games::version.eq(expected)));
    if let Some((session_id, user_id)) = session {
        claimable = Box::new(claimable.and(diesel::dsl::exists(live_session(session_id, user_id))));
    }
    let claim = Claim {
        set: projection.as_changeset(),
        filter: claimable,
    };
    let rows = event_rows(
        &new_state.id,
        expected,
        events,
        actor_id,
        new_state.updated_at,
    );
    let statement = ClaimThenInsert {
        claim,
        seqs: rows.iter().map(|r| r.seq).collect(),
        kinds: rows.iter().map(|r| r.kind.clone()).collect(),
        payloads: rows.iter().map(|r| r.payload.clone()).collect(),
        actor_id: actor_id.cloned(),
        at: new_state.updated_at,
        notes: Notes {
            ids: notes.iter().map(|n| n.id.clone()).collect(),
            users: notes.iter().map(|n| n.user_id.clone()).collect(),
            kinds: notes.iter().map(|n| n.kind.clone()).collect(),
            versions: notes.iter().map(|n| n.version.unwrap_or(0)).collect(),
            payloads: notes.iter().map(|n| n.payload.clone()).collect(),
            turn_seat: new_state
                .to_move()
                .map_or_else(String::new, |s| s.to_string()),
        },
    };
    match statement.execute(conn)? {
        0 => Ok(false),
        n if n == events.len() => {
            super::live::note(format!("g:{}", new_state.id));
            for n in notes {
                super::live::note(format!("u:{}", n.user_id));
            }
            Ok(true)
        }
        n => Err(StoreError::Database(format!(
            "one-statement append wrote {n} of {} events",
            events.len()
        ))),
    }
}

/// `UPDATE games SET <the projection> WHERE <filter> RETURNING games.id`, written out
/// rather than built by `diesel::update`: diesel marks every `UPDATE` it builds as unsafe
/// to keep prepared (its `SET` list may vary), so the append was parsed and planned
/// afresh by PostgreSQL for every move. This one's text does not vary: the projection
/// sets every column (`treat_none_as_null`).
struct Claim<S, W> {
    set: S,
    filter: W,
}

impl<S: QueryFragment<Pg>, W: QueryFragment<Pg>> QueryFragment<Pg> for Claim<S, W> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("UPDATE games SET ");
        self.set.walk_ast(out.reborrow())?;
        out.push_sql(" WHERE ");
        self.filter.walk_ast(out.reborrow())?;
        out.push_sql(" RETURNING games.id");
        Ok(())
    }
}

/// `WITH claim AS (<claim>) INSERT INTO game_events ... SELECT ... FROM claim CROSS JOIN
/// unnest(seqs, kinds, payloads)`: the claim is the [`Claim`] of the projection. Its text
/// has four shapes (with or without outbox rows, with or without the session guard), so
/// diesel keeps it prepared per connection like any cached query.
struct ClaimThenInsert<C> {
    claim: C,
    seqs: Vec<i64>,
    kinds: Vec<String>,
    payloads: Vec<String>,
    actor_id: Option<UserId>,
    at: NaiveDateTime,
    notes: Notes,
}

/// The outbox rows of a one-statement append, as arrays for `unnest`.
struct Notes {
    ids: Vec<String>,
    users: Vec<UserId>,
    kinds: Vec<String>,
    versions: Vec<i64>,
    payloads: Vec<String>,
    /// The seat to move after the write (empty when none).
    turn_seat: String,
}

impl<C> QueryId for ClaimThenInsert<C> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C: QueryFragment<Pg>> QueryFragment<Pg> for ClaimThenInsert<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        use diesel::sql_types::{Array, BigInt, Nullable, Text, Timestamp};
        out.push_sql("WITH claim AS (");
        self.claim.walk_ast(out.reborrow())?;
        out.push_sql(")");
        if !self.notes.ids.is_empty() {
            out.push_sql(
                ", notified AS (INSERT INTO notifications \
                 (id, user_id, kind, game_id, version, payload, created_at) \
                 SELECT n.id, n.user_id, n.kind, claim.id, n.version, n.payload, ",
            );
            out.push_bind_param::<Timestamp, _>(&self.at)?;
            out.push_sql(" FROM claim CROSS JOIN unnest(");
            out.push_bind_param::<Array<Text>, _>(&self.notes.ids)?;
            out.push_sql(", ");
            out.push_bind_param::<Array<Text>, _>(&self.notes.users)?;
            out.push_sql(", ");
            out.push_bind_param::<Array<Text>, _>(&self.notes.kinds)?;
            out.push_sql(", ");
            out.push_bind_param::<Array<BigInt>, _>(&self.notes.versions)?;
            out.push_sql(", ");
            out.push_bind_param::<Array<Text>, _>(&self.notes.payloads)?;
            out.push_sql(") AS n(id, user_id, kind, version, payload)");
            // The turn goes to a seat with conditional moves: no `your_turn` (see
            // `games::conditional`), decided here so that a move stays one statement.
            out.push_sql(
                " WHERE n.kind <> 'your_turn' OR NOT EXISTS (SELECT 1 FROM conditional_moves c \
                 WHERE c.game_id = claim.id AND c.user_id = n.user_id AND c.seat = ",
            );
            out.push_bind_param::<Text, _>(&self.notes.turn_seat)?;
            out.push_sql("))");
        }
        out.push_sql(
            " INSERT INTO game_events (game_id, seq, kind, payload, actor_id, created_at) \
             SELECT claim.id, e.seq, e.kind, e.payload, ",
        );
        out.push_bind_param::<Nullable<Text>, _>(&self.actor_id)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamp, _>(&self.at)?;
        out.push_sql(" FROM claim CROSS JOIN unnest(");
        out.push_bind_param::<Array<BigInt>, _>(&self.seqs)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.kinds)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.payloads)?;
        out.push_sql(") AS e(seq, kind, payload)");
        Ok(())
    }
}

impl<C: QueryFragment<Pg>> RunQueryDsl<diesel::PgConnection> for ClaimThenInsert<C> {}

/// Parses a seat letter as stored in the projection.
pub fn seat_of(text: &str) -> Option<Seat> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Seat::from_letter(c),
        _ => None,
    }
}

/// Every game id, in a stable order, `limit` at a time after `after` (for the projection
/// check).
pub fn game_ids_after(
    conn: &mut DbConnection,
    after: &str,
    limit: i64,
) -> Result<Vec<GameId>, StoreError> {
    Ok(games::table
        .filter(games::id.gt(after))
        .order(games::id.asc())
        .limit(limit)
        .select(games::id)
        .load(conn)?)
}

/// The seat rows of one game, as stored: (seat, user id).
pub fn seat_rows(
    conn: &mut DbConnection,
    id: &GameId,
) -> Result<Vec<(String, UserId)>, StoreError> {
    Ok(game_players::table
        .filter(game_players::game_id.eq(id))
        .order(game_players::seat.asc())
        .select((game_players::seat, game_players::user_id))
        .load(conn)?)
}

/// without bots.
pub fn bots_column(state: &GameState) -> Option<String> {
    let parts: Vec<String> = Seat::ALL
        .into_iter()
        .filter_map(|s| state.bot(s).map(|level| format!("{s}{level}")))
        .collect();
    (!parts.is_empty()).then(|| parts.join(","))
}

/// Reads the `bots` column back: (seat, level) pairs.
pub fn parse_bots_column(text: Option<&str>) -> Vec<(Seat, u8)> {
    text.unwrap_or_default()
        .split(',')
        .filter_map(|part| {
            let mut chars = part.trim().chars();
            let seat = Seat::from_letter(chars.next()?)?;
            let level: u8 = chars.as_str().parse().ok()?;
            Some((seat, level))
        })
        .collect()
}
