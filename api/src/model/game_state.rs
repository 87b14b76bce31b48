//! A game's state: the fold of its event log. The same [`GameState::apply`] serves replay
//! (loading a game from its events) and commands (the service folds the events it is about
//! to append onto a copy of the current state), so what is served after a write is by
//! construction what a fresh replay of the log gives.

use chrono::NaiveDateTime;
use domain::{Action, ActionError, Game, GameSettings, Outcome, Ruleset, Seat, SeatSet, Step};

use crate::ids::{GameId, UserId};
use crate::model::events::{
    Event, GameKind, GameResult, RatingRange, ResultKind, ResultReason, Status, Visibility,
};
use crate::model::timing::{SeatClocks, TimeControl};

/// A pending draw offer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawOffer {
    /// The seat that offered.
    pub by: Seat,
    /// The version (event number) of the `draw_offered` event.
    pub offered_at: i64,
    /// Seats that accepted so far (the offering seat included).
    pub accepted: SeatSet,
}

/// Why an event cannot be folded into a state.
#[derive(Debug, thiserror::Error)]
pub enum FoldError {
    /// The rules engine rejects the action.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// The event contradicts the state (a corrupt log or a bug in a command).
    #[error("{0}")]
    Invalid(String),
}

/// Everything known about a game at one version.
#[derive(Clone, Debug)]
pub struct GameState {
    pub id: GameId,
    /// The number of events folded in.
    pub version: i64,
    pub settings: GameSettings,
    pub hostage_seat: Option<Seat>,
    pub visibility: Visibility,
    pub invite_code: Option<String>,
    pub created_by: UserId,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// The user holding each seat (index: [`Seat::index`]).
    pub players: [Option<UserId>; 4],
    /// The level (1 to 5) of the computer player holding each seat, if any.
    pub bots: [Option<u8>; 4],
    pub status: Status,
    pub game: Game,
    /// The domain actions so far, for the game record.
    pub actions: Vec<Action>,
    pub draw_offer: Option<DrawOffer>,
    pub result: Option<GameResult>,
    /// `study` for a game imported from a record.
    pub kind: GameKind,
    /// Study games: the imported record's headers, in order.
    pub record_headers: Vec<(String, String)>,
    /// When the `started` event was written (played games).
    pub started_at: Option<NaiveDateTime>,
    /// When the `ended` event was written.
    pub ended_at: Option<NaiveDateTime>,
    /// The time control; `None`: no deadlines.
    pub time_control: Option<TimeControl>,
    /// A rated game (see [`crate::ratings`]).
    pub rated: bool,
    /// The shown ratings a player must have to take a seat.
    pub rating_range: Option<RatingRange>,
    /// The seats' clocks (only used with a time control).
    pub clocks: SeatClocks,
    /// Table-talk options (from `created`).
    pub talk: crate::model::talk::TalkSettings,
}

fn invalid<T>(msg: impl Into<String>) -> Result<T, FoldError> {
    Err(FoldError::Invalid(msg.into()))
}

impl GameState {
    /// The state after event 1, which must be `created`.
    /// The one fold of a game's log: `event` onto `state` (the first event, `created`,
    /// makes the state). Answers the rules engine's step when the event was an action.
    /// The store's replay, the command layer and the event pages all fold through here.
    pub fn fold(
        state: &mut Option<GameState>,
        id: &GameId,
        event: &Event,
        at: NaiveDateTime,
    ) -> Result<Option<Step>, FoldError> {
        match state {
            None => {
                *state = Some(GameState::created(id, event, at)?);
                Ok(None)
            }
            Some(s) => s.apply(event, at),
        }
    }

    pub fn created(id: &GameId, event: &Event, at: NaiveDateTime) -> Result<GameState, FoldError> {
        let Event::Created {
            ruleset,
            seats,
            hostage_seat,
            visibility,
            created_by,
            invite_code,
            kind,
            record_headers,
            time_control,
            talk,
            rated,
            rating_range,
        } = event
        else {
            return invalid(format!("event 1 is `{}`, not `created`", event.kind()));
        };
        // The game replays under the rules it was created with; a text this engine cannot
        // read is never replaced by another ruleset.
        let ruleset = ruleset
            .parse::<Ruleset>()
            .map_err(|e| FoldError::Invalid(format!("unreadable ruleset {ruleset:?}: {e}")))?;
        let seats = SeatSet::from_letters(seats)
            .filter(|s| s.len() >= 3)
            .ok_or_else(|| FoldError::Invalid(format!("bad seats {seats:?}")))?;
        let settings = GameSettings { seats, ruleset };
        let game = Game::new(settings).map_err(|e| FoldError::Invalid(e.to_string()))?;
        Ok(GameState {
            id: id.clone(),
            version: 1,
            settings,
            hostage_seat: *hostage_seat,
            visibility: *visibility,
            invite_code: invite_code.clone(),
            created_by: created_by.clone(),
            created_at: at,
            updated_at: at,
            players: Default::default(),
            bots: Default::default(),
            // A study game has no seats to fill: it is under way from its first event.
            status: match kind {
                GameKind::Play => Status::Open,
                GameKind::Study => Status::Active,
            },
            game,
            actions: Vec::new(),
            draw_offer: None,
            result: None,
            kind: *kind,
            record_headers: record_headers.clone(),
            started_at: None,
            ended_at: None,
            time_control: *time_control,
            rated: *rated,
            rating_range: *rating_range,
            clocks: SeatClocks::default(),
            talk: *talk,
        })
    }

    /// Replays a whole log (`events[0]` is event 1).
    pub fn replay<'a>(
        id: &GameId,
        events: impl IntoIterator<Item = (&'a Event, NaiveDateTime)>,
    ) -> Result<GameState, FoldError> {
        let mut iter = events.into_iter();
        let (first, at) = iter
            .next()
            .ok_or_else(|| FoldError::Invalid("the log is empty".into()))?;
        let mut state = GameState::created(id, first, at)?;
        for (event, at) in iter {
            state.apply(event, at)?;
        }
        Ok(state)
    }

    pub fn seat_of(&self, user_id: &UserId) -> Option<Seat> {
        Seat::ALL
            .into_iter()
            .find(|s| self.players[s.index()].as_ref() == Some(user_id))
    }

    pub fn player(&self, seat: Seat) -> Option<&UserId> {
        self.players[seat.index()].as_ref()
    }

    /// The level of the computer player holding `seat`, if a bot holds it.
    pub fn bot(&self, seat: Seat) -> Option<u8> {
        self.bots[seat.index()]
    }

    /// Whether `seat` is held by nobody: neither a player nor a bot.
    pub fn is_free(&self, seat: Seat) -> bool {
        self.players[seat.index()].is_none() && self.bots[seat.index()].is_none()
    }

    /// The seat to move and its bot's level, when a bot is to move.
    pub fn bot_to_move(&self) -> Option<(Seat, u8)> {
        let seat = self.to_move()?;
        Some((seat, self.bot(seat)?))
    }

    /// The first active bot seat (in seat order) that has not answered the pending draw
    /// offer yet, if any: computer players answer offers (see `games::bots`).
    pub fn bot_to_answer_draw(&self) -> Option<Seat> {
        let offer = self.draw_offer.as_ref()?;
        if self.status != Status::Active {
            return None;
        }
        self.game
            .position()
            .active_seats()
            .iter()
            .find(|s| self.bot(*s).is_some() && !offer.accepted.contains(*s))
    }

    /// Whether the game is being played and every active seat is a bot's (no person is
    /// left in it).
    pub fn only_bots_active(&self) -> bool {
        let active = self.game.position().active_seats();
        self.status == Status::Active
            && !active.is_empty()
            && active.iter().all(|s| self.bot(s).is_some())
    }

    /// The seat to move while the game is active.
    pub fn to_move(&self) -> Option<Seat> {
        match self.status {
            Status::Active => self.game.position().to_move(),
            _ => None,
        }
    }

    /// The user to move while the game is active.
    pub fn to_move_user(&self) -> Option<&UserId> {
        self.to_move().and_then(|s| self.player(s))
    }

    /// When the seat to move must have acted (active games with a time control). A bot
    /// has none: the server plays its move (see [`super::bots`]) and never times it out.
    pub fn deadline(&self) -> Option<NaiveDateTime> {
        self.time_control?;
        let seat = self.to_move()?;
        if self.bot(seat).is_some() {
            return None;
        }
        self.clocks.deadline(seat)
    }

    /// Folds one more event in (it becomes event `version + 1`). Returns the domain step
    /// for events that are actions. On error the state is unchanged.
    pub fn apply(&mut self, event: &Event, at: NaiveDateTime) -> Result<Option<Step>, FoldError> {
        let to_move_before = self.to_move();
        let step = self.apply_inner(event)?;
        self.version += 1;
        self.updated_at = at;
        match event {
            Event::Started {} => self.started_at = Some(at),
            Event::Ended { .. } => self.ended_at = Some(at),
            _ => {}
        }
        if let Some(tc) = self.time_control {
            self.tick_clocks(&tc, event, to_move_before, at);
        }
        Ok(step)
    }

    /// The clocks after `event` (see [`crate::model::timing`]).
    fn tick_clocks(
        &mut self,
        tc: &TimeControl,
        event: &Event,
        to_move_before: Option<Seat>,
        at: NaiveDateTime,
    ) {
        match event {
            Event::Started {} => self.clocks = SeatClocks::started(tc, at),
            _ if self.status != Status::Active => self.clocks.stop(),
            Event::MovePlayed { seat, .. } => self.clocks.moved(tc, *seat, at),
            _ if self.to_move() != to_move_before => self.clocks.turn_passed(at),
            _ => {}
        }
    }

    fn require_status(&self, status: Status, event: &Event) -> Result<(), FoldError> {
        if self.status == status {
            Ok(())
        } else {
            invalid(format!(
                "`{}` in a game that is {}",
                event.kind(),
                self.status.as_str()
            ))
        }
    }

    fn require_active_seat(&self, seat: Seat, event: &Event) -> Result<(), FoldError> {
        self.require_status(Status::Active, event)?;
        if self.game.position().is_active(seat) {
            Ok(())
        } else {
            invalid(format!(
                "`{}` by seat {seat}, which is not active",
                event.kind()
            ))
        }
    }

    /// The name of a seat's player: the account for a played game (the caller maps it to
    /// a username), the record's header for a study game.
    pub fn study_player(&self, seat: Seat) -> Option<&str> {
        self.record_headers
            .iter()
            .find(|(k, _)| k == seat.name())
            .map(|(_, v)| v.as_str())
    }

    fn apply_inner(&mut self, event: &Event) -> Result<Option<Step>, FoldError> {
        if self.kind == GameKind::Study
            && matches!(
                event,
                Event::SeatTaken { .. }
                    | Event::SeatLeft { .. }
                    | Event::BotSeated { .. }
                    | Event::Started {}
            )
        {
            return invalid(format!("`{}` in a study game", event.kind()));
        }
        match event {
            Event::Created { .. } => invalid("`created` after the start of the log"),
            Event::SeatTaken { seat, user_id } => {
                self.require_status(Status::Open, event)?;
                if !self.settings.seats.contains(*seat) {
                    return invalid(format!("seat {seat} is not in play"));
                }
                if !self.is_free(*seat) {
                    return invalid(format!("seat {seat} is taken"));
                }
                if self.seat_of(user_id).is_some() {
                    return invalid(format!("user {user_id} already holds a seat"));
                }
                self.players[seat.index()] = Some(user_id.clone());
                Ok(None)
            }
            Event::SeatLeft { seat, user_id } => {
                self.require_status(Status::Open, event)?;
                if self.players[seat.index()].as_ref() != Some(user_id) {
                    return invalid(format!("user {user_id} does not hold seat {seat}"));
                }
                self.players[seat.index()] = None;
                Ok(None)
            }
            Event::BotSeated { seat, level } => {
                self.require_status(Status::Open, event)?;
                if !self.settings.seats.contains(*seat) {
                    return invalid(format!("seat {seat} is not in play"));
                }
                if !self.is_free(*seat) {
                    return invalid(format!("seat {seat} is taken"));
                }
                if domain::Level::new(*level).is_none() {
                    return invalid(format!("bot level {level} is not 1 to 5"));
                }
                self.bots[seat.index()] = Some(*level);
                Ok(None)
            }
            Event::Started {} => {
                self.require_status(Status::Open, event)?;
                if self.settings.seats.iter().any(|s| self.is_free(s)) {
                    return invalid("`started` with free seats");
                }
                self.status = Status::Active;
                Ok(None)
            }
            Event::MovePlayed { seat, mv, .. } => {
                self.require_status(Status::Active, event)?;
                if self.game.position().to_move() != Some(*seat) {
                    return invalid(format!("a move by {seat}, who is not to move"));
                }
                let step = self.game.apply(&Action::Move(*mv))?;
                self.actions.push(Action::Move(*mv));
                self.draw_offer = None;
                Ok(Some(step))
            }
            Event::Resigned { seat } => {
                self.require_active_seat(*seat, event)?;
                let step = self.game.apply(&Action::Resign(*seat))?;
                self.actions.push(Action::Resign(*seat));
                self.draw_offer = None;
                Ok(Some(step))
            }
            Event::TimedOut { seat } => {
                // Live play times out only the seat to move (`due::due_command`); an
                // imported record may say otherwise, and the rules allow it.
                self.require_active_seat(*seat, event)?;
                let step = self.game.apply(&Action::Timeout(*seat))?;
                self.actions.push(Action::Timeout(*seat));
                self.draw_offer = None;
                Ok(Some(step))
            }
            Event::DrawOffered { seat } => {
                self.require_active_seat(*seat, event)?;
                if self.draw_offer.is_some() {
                    return invalid("a draw offer while one is pending");
                }
                self.draw_offer = Some(DrawOffer {
                    by: *seat,
                    offered_at: self.version + 1,
                    accepted: std::iter::once(*seat).collect(),
                });
                Ok(None)
            }
            Event::DrawAccepted { seat } => {
                self.require_active_seat(*seat, event)?;
                match &mut self.draw_offer {
                    Some(offer) if !offer.accepted.contains(*seat) => {
                        offer.accepted.insert(*seat);
                        Ok(None)
                    }
                    Some(_) => invalid(format!("seat {seat} accepts twice")),
                    None => invalid("an acceptance with no pending offer"),
                }
            }
            Event::DrawDeclined { seat } => {
                self.require_active_seat(*seat, event)?;
                if self.draw_offer.take().is_none() {
                    return invalid("a decline with no pending offer");
                }
                Ok(None)
            }
            Event::Ended { result } => {
                self.require_status(Status::Active, event)?;
                let mut step = None;
                if result.reason == ResultReason::DrawAgreed {
                    let active = self.game.position().active_seats();
                    // A study game records the agreement, not the offers.
                    let agreed = self.kind == GameKind::Study
                        || self
                            .draw_offer
                            .as_ref()
                            .is_some_and(|o| active.iter().all(|s| o.accepted.contains(s)));
                    if !agreed {
                        return invalid("an agreed draw that not every active seat accepted");
                    }
                    step = Some(self.game.apply(&Action::AgreedDraw)?);
                    self.actions.push(Action::AgreedDraw);
                    self.draw_offer = None;
                }
                let Some(last) = self.actions.last() else {
                    return invalid("`ended` before any action");
                };
                let expected = result_of(&self.game, last)
                    .ok_or_else(|| FoldError::Invalid("`ended` but the game goes on".into()))?;
                if &expected != result {
                    return invalid(format!(
                        "`ended` says {result:?}, the replay says {expected:?}"
                    ));
                }
                self.status = Status::Finished;
                self.result = Some(expected);
                Ok(step)
            }
        }
    }
}

/// The result of a finished game, `last` being the action that ended it.
pub fn result_of(game: &Game, last: &Action) -> Option<GameResult> {
    let outcome = game.outcome()?;
    let ranking = game
        .ranking()
        .unwrap_or_default()
        .into_iter()
        .map(|place| place.iter().collect())
        .collect();
    let (kind, seats, reason) = match (outcome, last) {
        (Outcome::Win(seat), Action::Resign(_)) => {
            (ResultKind::Win, vec![*seat], ResultReason::Resignation)
        }
        (Outcome::Win(seat), Action::Timeout(_)) => {
            (ResultKind::Win, vec![*seat], ResultReason::Timeout)
        }
        (Outcome::Win(seat), _) => (ResultKind::Win, vec![*seat], ResultReason::LastSeatStanding),
        (Outcome::Draw(seats), Action::AgreedDraw) => (
            ResultKind::Draw,
            seats.iter().collect(),
            ResultReason::DrawAgreed,
        ),
        (Outcome::Draw(seats), _) => {
            let reason = if game.position().active_seats().is_empty() {
                ResultReason::MutualElimination
            } else {
                ResultReason::NoLegalMoves
            };
            (ResultKind::Draw, seats.iter().collect(), reason)
        }
    };
    Some(GameResult {
        kind,
        seats,
        reason,
        ranking,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> NaiveDateTime {
        crate::clock::Clock::now(&crate::clock::SystemClock)
    }

    fn new_game(seats: &str) -> GameState {
        new_game_under(seats, &Ruleset::Standard2026.id())
    }

    fn created_event(seats: &str, ruleset: &str) -> Event {
        Event::Created {
            ruleset: ruleset.into(),
            seats: seats.into(),
            hostage_seat: None,
            visibility: Visibility::Public,
            created_by: "u0".into(),
            invite_code: None,
            kind: GameKind::Play,
            record_headers: Vec::new(),
            time_control: None,
            talk: Default::default(),
            rated: false,
            rating_range: None,
        }
    }

    fn new_game_under(seats: &str, ruleset: &str) -> GameState {
        let created = Event::Created {
            ruleset: ruleset.into(),
            seats: seats.into(),
            hostage_seat: None,
            visibility: Visibility::Public,
            created_by: "u0".into(),
            invite_code: None,
            kind: GameKind::Play,
            record_headers: Vec::new(),
            time_control: None,
            talk: Default::default(),
            rated: false,
            rating_range: None,
        };
        let mut s = GameState::created(&GameId::new("g"), &created, t()).unwrap();
        for (i, seat) in s.settings.seats.iter().enumerate() {
            s.apply(
                &Event::SeatTaken {
                    seat,
                    user_id: format!("u{i}").into(),
                },
                t(),
            )
            .unwrap();
        }
        s.apply(&Event::Started {}, t()).unwrap();
        s
    }

    #[test]
    fn the_created_ruleset_is_the_game_s_and_replays() {
        let s = new_game_under(
            "RBYG",
            "djambi-standard-2026 layout=rotational,master_moves=on",
        );
        let ruleset = s.settings.ruleset;
        assert_eq!(ruleset.layout, domain::Layout::Rotational);
        assert_eq!(ruleset.master_moves, domain::MasterMoves::On);
        assert_eq!(s.game.position().ruleset(), ruleset);
        assert_eq!(
            s.game.position().to_string(),
            domain::Position::start_with(SeatSet::ALL, ruleset)
                .unwrap()
                .to_string()
        );
        assert_ne!(
            s.game.position().to_string(),
            domain::Position::start(SeatSet::ALL).unwrap().to_string(),
            "the rotational start differs from the standard one"
        );
        // The bare option list is read too; the text is never replaced by another ruleset.
        let bare = GameState::created(
            &GameId::new("g"),
            &created_event("RBYG", "reporter=forced"),
            t(),
        )
        .unwrap();
        assert_eq!(bare.settings.ruleset.reporter, domain::Reporter::Forced);
        for bad in [
            "reporter=maybe",
            "djambi-2099",
            "bogus=on",
            "reporter=forced,reporter=forced",
        ] {
            let err = GameState::created(&GameId::new("g"), &created_event("RBYG", bad), t())
                .unwrap_err();
            assert!(
                matches!(&err, FoldError::Invalid(m) if m.contains("unreadable ruleset")),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn a_folded_game_equals_the_domain_replay() {
        let mut s = new_game("RBYG");
        let mut rng = 12345u64;
        while s.status == Status::Active && s.actions.len() < 300 {
            let moves = s.game.position().legal_moves();
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mv = moves[(rng >> 33) as usize % moves.len()];
            let seat = s.game.position().to_move().unwrap();
            let text = s.game.position().move_text(&mv).to_string();
            s.apply(
                &Event::MovePlayed {
                    seat,
                    mv,
                    text,
                    conditional: false,
                },
                t(),
            )
            .unwrap();
            if let Some(r) = result_of(&s.game, s.actions.last().unwrap()) {
                s.apply(&Event::Ended { result: r }, t()).unwrap();
            }
        }
        let (replayed, _) = Game::replay(s.settings, &s.actions).unwrap();
        assert_eq!(replayed.position(), s.game.position());
    }

    #[test]
    fn draws_need_every_active_seat_and_moves_cancel_offers() {
        let mut s = new_game("RBY");
        s.apply(&Event::DrawOffered { seat: Seat::Blue }, t())
            .unwrap();
        s.apply(&Event::DrawAccepted { seat: Seat::Red }, t())
            .unwrap();
        let early = GameResult {
            kind: ResultKind::Draw,
            seats: vec![Seat::Red, Seat::Blue, Seat::Yellow],
            reason: ResultReason::DrawAgreed,
            ranking: vec![vec![Seat::Red, Seat::Blue, Seat::Yellow]],
        };
        assert!(
            s.apply(
                &Event::Ended {
                    result: early.clone()
                },
                t()
            )
            .is_err()
        );
        let mv = s.game.position().legal_moves()[0];
        s.apply(
            &Event::MovePlayed {
                seat: Seat::Red,
                mv,
                text: String::new(),
                conditional: false,
            },
            t(),
        )
        .unwrap();
        assert!(s.draw_offer.is_none());
        assert!(
            s.apply(&Event::DrawAccepted { seat: Seat::Red }, t())
                .is_err()
        );
        s.apply(&Event::DrawOffered { seat: Seat::Red }, t())
            .unwrap();
        s.apply(&Event::DrawAccepted { seat: Seat::Blue }, t())
            .unwrap();
        s.apply(&Event::DrawAccepted { seat: Seat::Yellow }, t())
            .unwrap();
        s.apply(&Event::Ended { result: early }, t()).unwrap();
        assert_eq!(s.status, Status::Finished);
        assert_eq!(s.actions.last(), Some(&Action::AgreedDraw));
    }

    #[test]
    fn study_games_have_no_seats_and_record_timeouts_and_draws() {
        let created = Event::Created {
            ruleset: Ruleset::Standard2026.id(),
            seats: "RBY".into(),
            hostage_seat: Some(Seat::Green),
            visibility: Visibility::Invite,
            created_by: "u0".into(),
            invite_code: None,
            kind: GameKind::Study,
            record_headers: vec![("Red".into(), "ann".into())],
            time_control: None,
            talk: Default::default(),
            rated: false,
            rating_range: None,
        };
        let mut s = GameState::created(&GameId::new("g"), &created, t()).unwrap();
        assert_eq!(s.status, Status::Active);
        assert_eq!(s.study_player(Seat::Red), Some("ann"));
        assert_eq!(s.study_player(Seat::Blue), None);
        let seat = Event::SeatTaken {
            seat: Seat::Red,
            user_id: "u1".into(),
        };
        assert!(s.apply(&seat, t()).is_err());
        assert!(s.apply(&Event::Started {}, t()).is_err());
        let step = s
            .apply(&Event::TimedOut { seat: Seat::Yellow }, t())
            .unwrap();
        assert!(step.is_some());
        assert_eq!(s.actions, [Action::Timeout(Seat::Yellow)]);
        // A study records the agreement, not the offers.
        let mut drawn = s.clone();
        let mut game = drawn.game.clone();
        game.apply(&Action::AgreedDraw).unwrap();
        let result = result_of(&game, &Action::AgreedDraw).unwrap();
        drawn.apply(&Event::Ended { result }, t()).unwrap();
        assert_eq!(drawn.status, Status::Finished);
        assert!(drawn.ended_at.is_some());
        // A timeout that leaves one seat wins by timeout.
        s.apply(&Event::TimedOut { seat: Seat::Blue }, t()).unwrap();
        let result = result_of(&s.game, s.actions.last().unwrap()).unwrap();
        assert_eq!(result.reason, ResultReason::Timeout);
        assert_eq!(result.seats, [Seat::Red]);
    }
}
