//! Computer players ("bots") in games.
//!
//! A player seats a bot of a level (1 to 5, [`domain::Level`]) when creating a game or
//! in an open seat (`bot_seated` in the log); it holds the seat for the whole game. Its
//! moves are **due work** ([`super::due`]): while a bot is to move, the projection's
//! `due_at` is the time of the game's last event ([`crate::store::games::GameRow::of`]), so the
//! due-work worker of some instance claims the game (`FOR UPDATE SKIP LOCKED` and a
//! lease, like a timeout), runs [`bot_command`] on the state and appends the move through
//! the one write path ([`super::commands::execute`]) as [`super::commands::Actor::System`]
//! with the version it decided at. Two instances never double a move: one holds the claim,
//! and a write decided at a stale version is a version conflict that writes nothing. The
//! search runs on the worker's blocking thread, never on a request's.
//!
//! - The move is [`domain::choose_move`] on the position, the bot's level and a seed
//!   derived from the game id and the version ([`seed`]): the same state always gives the
//!   same move, whichever instance plays it.
//! - While a person is still active in the game, the bot waits [`BotSettings::delay`]
//!   (`DJAMBI_BOT_DELAY`, default 1 s) after its turn comes (the worker passes every
//!   `DJAMBI_DUE_INTERVAL`).
//! - A game with **only bots left** (no active seat held by a person) is played out by
//!   the server at once: no delay, and one claim plays several moves in a row (up to
//!   [`RUN_MOVES`] moves or [`RUN_BUDGET`]; then the next pass goes on, every
//!   `DJAMBI_DUE_INTERVAL`). Djambi has no draw by repetition, so such a game could go on for
//!   ever: from ply [`BotSettings::draw_plies`] on (`DJAMBI_BOT_DRAW_PLIES`, default 600)
//!   the bots agree a draw instead of moving (`draw_offered` by the bot to move,
//!   `draw_accepted` by the others, `ended` with `draw_agreed`: RULES.md section 7's
//!   agreed draw, every active seat accepting).
//! - Bots answer a draw offer: while one is pending, each active bot that has not
//!   accepted it answers after [`BotSettings::delay`] (so within a due pass or two), one
//!   at a time in seat order, before any bot move: it accepts when the search's
//!   evaluation of the position for its seat ([`domain::search::evaluation`]) is not
//!   positive (it does not stand better than the field), and declines otherwise (a
//!   decline ends the offer, as anyone's). The projection makes such a game due at once
//!   ([`crate::model::game_state::GameState::bot_to_answer_draw`]).
//! - Bots never time out (they have no deadline), never offer a draw with people in the
//!   game, and never resign.

use std::time::Duration;

use chrono::{NaiveDateTime, TimeDelta};
use domain::Level;
#[cfg(test)]
use domain::Seat;
use domain::search::derive_seed;

use super::commands::Command;
use crate::config::Config;
use crate::ids::GameId;
use crate::model::game_state::GameState;

/// How long one claim of a game may go on playing bot moves in a row...
pub const RUN_BUDGET: Duration = Duration::from_secs(2);
/// ... and how many moves at most; then the claim is released (another instance, or the
/// next pass, goes on), so one long game neither holds a worker nor starves other games.
pub const RUN_MOVES: usize = 32;

/// The settings of computer players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotSettings {
    /// How long a bot waits after its turn comes while a person is in the game.
    pub delay: Duration,
    /// From this ply on, a game with only bots active ends as an agreed draw.
    pub draw_plies: u32,
}

impl BotSettings {
    pub fn of(config: &Config) -> BotSettings {
        BotSettings {
            delay: config.bot_delay,
            draw_plies: config.bot_draw_plies,
        }
    }
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings {
            delay: Duration::from_secs(1),
            draw_plies: 600,
        }
    }
}

/// The seed of a bot's search in game `id` at `version`: FNV-1a of the id, mixed with
/// the version.
pub fn seed(id: &GameId, version: i64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.as_str().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    derive_seed(h, version as u64)
}

/// What a bot does in this state at `now`, if a bot is to move and its time has come:
/// its move, or with only bots left from ply `draw_plies` on, the bots' agreed draw.
/// Pure (the search is deterministic); it may think for up to a second at level 5.
pub fn bot_command(
    state: &GameState,
    now: NaiveDateTime,
    settings: &BotSettings,
) -> Option<Command> {
    let waited = || {
        let delay = TimeDelta::from_std(settings.delay).unwrap_or(TimeDelta::MAX);
        state
            .updated_at
            .checked_add_signed(delay)
            .is_some_and(|at| at <= now)
    };
    if let Some(seat) = state.bot_to_answer_draw() {
        if !waited() {
            return None;
        }
        let accept = domain::search::evaluation(state.game.position(), seat) <= 0;
        return Some(Command::BotAnswerDraw { seat, accept });
    }
    let (seat, level) = state.bot_to_move()?;
    let only_bots = state.only_bots_active();
    if !only_bots && !waited() {
        return None;
    }
    let position = state.game.position();
    if only_bots && position.ply() >= settings.draw_plies && state.draw_offer.is_none() {
        return Some(Command::BotsAgreeDraw);
    }
    let mv = domain::choose_move(position, Level::new(level)?, seed(&state.id, state.version))?;
    Some(Command::BotMove { seat, mv })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::events::{Event, GameKind, Status, Visibility};
    use domain::Ruleset;

    fn t(secs: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_800_000_000 + secs, 0)
            .unwrap()
            .naive_utc()
    }

    /// A four-seat game: a person at Red, bots of level 1 elsewhere.
    fn game() -> GameState {
        let created = Event::Created {
            ruleset: Ruleset::Standard2026.id(),
            seats: "RBYG".into(),
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
        let mut s = GameState::created(&GameId::new("g1"), &created, t(0)).unwrap();
        let red = Event::SeatTaken {
            seat: Seat::Red,
            user_id: "u0".into(),
        };
        s.apply(&red, t(0)).unwrap();
        for seat in [Seat::Blue, Seat::Yellow, Seat::Green] {
            s.apply(&Event::BotSeated { seat, level: 1 }, t(0)).unwrap();
        }
        assert!(!s.is_free(Seat::Red));
        s.apply(&Event::Started {}, t(0)).unwrap();
        s
    }

    #[test]
    fn bots_wait_their_delay_then_play_legal_deterministic_moves() {
        let settings = BotSettings::default();
        let mut s = game();
        assert_eq!(s.status, Status::Active);
        assert!(
            bot_command(&s, t(10), &settings).is_none(),
            "Red is a person"
        );
        let mv = s.game.position().legal_moves()[0];
        let text = s.game.position().move_text(&mv).to_string();
        s.apply(
            &Event::MovePlayed {
                seat: Seat::Red,
                mv,
                text,
                conditional: false,
            },
            t(20),
        )
        .unwrap();
        assert_eq!(s.to_move_user(), None);
        assert_eq!(s.bot_to_move(), Some((Seat::Blue, 1)));
        assert!(bot_command(&s, t(20), &settings).is_none(), "the delay");
        let Some(Command::BotMove { seat, mv }) = bot_command(&s, t(21), &settings) else {
            panic!("a bot move is due");
        };
        assert_eq!(seat, Seat::Blue);
        assert!(s.game.position().legal_moves().contains(&mv));
        let again = bot_command(&s, t(99), &settings);
        assert!(matches!(again, Some(Command::BotMove { mv: m, .. }) if m == mv));
        // A resignation leaves only bots: no delay, and the draw from `draw_plies` on.
        s.apply(&Event::Resigned { seat: Seat::Red }, t(30))
            .unwrap();
        assert!(s.only_bots_active());
        assert!(matches!(
            bot_command(&s, t(30), &settings),
            Some(Command::BotMove { .. })
        ));
        let short = BotSettings {
            draw_plies: 1,
            ..settings
        };
        assert!(matches!(
            bot_command(&s, t(30), &short),
            Some(Command::BotsAgreeDraw)
        ));
    }

    /// Bots answer a pending offer after their delay, one at a time in seat order and
    /// before any move: accepting unless the evaluation puts them ahead of the field.
    #[test]
    fn bots_answer_draw_offers_by_their_evaluation() {
        let settings = BotSettings::default();
        let mut s = game();
        s.apply(&Event::DrawOffered { seat: Seat::Red }, t(10))
            .unwrap();
        assert_eq!(s.bot_to_answer_draw(), Some(Seat::Blue));
        assert!(bot_command(&s, t(10), &settings).is_none(), "the delay");
        // At the start nobody stands better: Blue accepts, then Yellow.
        assert!(matches!(
            bot_command(&s, t(11), &settings),
            Some(Command::BotAnswerDraw {
                seat: Seat::Blue,
                accept: true
            })
        ));
        s.apply(&Event::DrawAccepted { seat: Seat::Blue }, t(11))
            .unwrap();
        assert_eq!(s.bot_to_answer_draw(), Some(Seat::Yellow));
        assert!(matches!(
            bot_command(&s, t(12), &settings),
            Some(Command::BotAnswerDraw {
                seat: Seat::Yellow,
                ..
            })
        ));
        s.apply(&Event::DrawDeclined { seat: Seat::Yellow }, t(12))
            .unwrap();
        assert_eq!(s.bot_to_answer_draw(), None, "a decline ends the offer");

        // Play on until some bot stands better than the field: it declines.
        let mut at = 20;
        let ahead = loop {
            let position = s.game.position();
            let seat = position.to_move().expect("the game goes on");
            let ahead = [Seat::Blue, Seat::Yellow, Seat::Green]
                .into_iter()
                .find(|b| {
                    position.active_seats().contains(*b)
                        && domain::search::evaluation(position, *b) > 0
                });
            if let Some(b) = ahead {
                break b;
            }
            let moves = position.legal_moves();
            let mv = moves[(at as usize * 7) % moves.len()];
            let text = position.move_text(&mv).to_string();
            s.apply(
                &Event::MovePlayed {
                    seat,
                    mv,
                    text,
                    conditional: false,
                },
                t(at),
            )
            .unwrap();
            at += 1;
            assert!(at < 400, "no bot ever stood better");
        };
        let offerer = s
            .game
            .position()
            .active_seats()
            .iter()
            .find(|x| *x != ahead)
            .unwrap();
        s.apply(&Event::DrawOffered { seat: offerer }, t(at))
            .unwrap();
        // Answer in seat order until `ahead` answers: it declines.
        loop {
            let Some(Command::BotAnswerDraw { seat, accept }) =
                bot_command(&s, t(at + 5), &settings)
            else {
                panic!("a bot owes an answer");
            };
            let expected = domain::search::evaluation(s.game.position(), seat) <= 0;
            assert_eq!(accept, expected);
            if seat == ahead {
                assert!(!accept, "a bot that stands better declines");
                break;
            }
            s.apply(&Event::DrawAccepted { seat }, t(at)).unwrap();
        }
    }

    /// Property-style: bot-only games with different ids and levels, played by
    /// [`bot_command`] alone, fold every move (the rules engine accepts it) until the game
    /// ends or the bots agree a draw; the projection makes each bot turn due at once.
    #[test]
    fn bot_moves_are_always_legal() {
        let settings = BotSettings {
            delay: Duration::ZERO,
            draw_plies: 150,
        };
        for n in 0..6u8 {
            let created = Event::Created {
                ruleset: Ruleset::Standard2026.id(),
                seats: if n % 2 == 0 { "RBYG" } else { "RBY" }.into(),
                hostage_seat: (n % 2 == 1).then_some(Seat::Green),
                visibility: Visibility::Public,
                created_by: "u0".into(),
                invite_code: None,
                kind: GameKind::Play,
                record_headers: Vec::new(),
                time_control: Some(crate::model::timing::TimeControl {
                    per_move_secs: 86_400,
                    max_bank_secs: None,
                }),
                talk: Default::default(),
                rated: false,
                rating_range: None,
            };
            let mut s =
                GameState::created(&GameId::new(format!("game-{n}")), &created, t(0)).unwrap();
            for (i, seat) in s.settings.seats.iter().enumerate() {
                let level = 1 + ((i + n as usize) % 2) as u8;
                s.apply(&Event::BotSeated { seat, level }, t(0)).unwrap();
            }
            s.apply(&Event::Started {}, t(0)).unwrap();
            let mut at = 1;
            loop {
                let row = crate::store::games::GameRow::of(&s);
                if s.status == Status::Finished {
                    assert_eq!(row.due_at, None);
                    break;
                }
                assert_eq!(s.deadline(), None, "a bot has no deadline");
                assert_eq!(row.due_at, Some(s.updated_at));
                assert_eq!(row.to_move_user_id, None);
                match bot_command(&s, t(at), &settings).expect("a bot is to move") {
                    Command::BotMove { seat, mv } => {
                        assert!(s.game.position().legal_moves().contains(&mv));
                        let text = s.game.position().move_text(&mv).to_string();
                        s.apply(
                            &Event::MovePlayed {
                                seat,
                                mv,
                                text,
                                conditional: false,
                            },
                            t(at),
                        )
                        .unwrap();
                        if let Some(result) =
                            crate::model::game_state::result_of(&s.game, s.actions.last().unwrap())
                        {
                            s.apply(&Event::Ended { result }, t(at)).unwrap();
                        }
                    }
                    Command::BotsAgreeDraw => {
                        assert!(s.game.position().ply() >= 150);
                        break;
                    }
                    other => panic!("{other:?}"),
                }
                at += 1;
            }
        }
    }

    #[test]
    fn the_column_round_trips() {
        let s = game();
        assert_eq!(
            crate::store::games::bots_column(&s).as_deref(),
            Some("B1,Y1,G1")
        );
        assert_eq!(
            crate::store::games::parse_bots_column(Some("B3,G5")),
            [(Seat::Blue, 3), (Seat::Green, 5)]
        );
        assert!(crate::store::games::parse_bots_column(None).is_empty());
        let (a, b) = (GameId::new("a"), GameId::new("b"));
        assert_ne!(seed(&a, 1), seed(&a, 2));
        assert_ne!(seed(&a, 1), seed(&b, 1));
    }
}
