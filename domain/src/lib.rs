//! The rules of Djambi ("Machiavelli's chessboard", 1975) as specified in RULES.md:
//! pure, no I/O.
//!
//! - Value types: [`Square`], [`Seat`], [`Piece`], [`Move`].
//! - [`Ruleset`]: the rule options of VARIANTS.md, with their text form and JSON.
//! - [`Position`]: legal moves ([`Position::legal_moves`]), [`Position::play`],
//!   [`Position::resign`], DFEN parsing (`FromStr`) and formatting (`Display`).
//! - [`Game`]: a whole game replayed from its actions, with each action's [`Effect`]s,
//!   the outcome and the ranking.
//! - [`read_record`] and [`write_record`]: the game record (`docs/record-format.md`).
//! - [`board_svg`]: the board as an SVG picture.
//! - [`perft`]. The `djambi` command is the `djambi-cli` crate (`cli/`).
//! - Computer players in [`search`]: [`choose_move`] at a [`Level`] 1 to 5.

mod bitboard;
mod board;
mod dfen;
mod effects;
mod error;
mod game;
mod json;
mod movegen;
mod moves;
mod notation;
mod perft;
mod piece;
mod position;
mod record;
mod resolve;
mod ruleset;
pub mod search;
mod seat;
mod square;
mod svg;

pub use board::Board;
pub use effects::{Effect, EffectSink};
pub use error::{MoveError, ParseError, ResignError};
pub use game::{Action, ActionError, Game, GameSettings, Outcome, ReplayError, Step};
pub use moves::Move;
pub use notation::MoveText;
pub use perft::perft;
pub use piece::{Kind, Piece};
pub use position::{Control, Position, Turn};
pub use record::{
    Comment, Record, RecordError, RecordErrorKind, action_line, player_type_key, read_record,
    result_text, write_record,
};
pub use ruleset::{
    CorpseOnMaze, FriendlyFire, Layout, MasterMoves, Reporter, Ruleset, RulesetError, Surround,
    TwoSeatBonus,
};
pub use search::{Level, Player, SearchBudget, choose_move};
pub use seat::{Seat, SeatSet};
pub use square::Square;
pub use svg::{SvgOptions, SvgText, board_svg, board_svg_before_start};
