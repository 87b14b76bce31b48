//! The engine's analysis of one move, as stored (`game_analysis_moves.body`) and as served
//! by `GET /v1/games/{id}/analysis`. The scale, the level and the thresholds are those of
//! the rules crate's `search::analysis`: values in hundredths of a militant, from each
//! seat's side, forced results capped at ±10,000.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A value per seat (`null`: the seat is out of the game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"R": 40, "B": -12, "Y": -10, "G": -18}))]
pub struct SeatValues {
    #[serde(rename = "R")]
    pub red: Option<i32>,
    #[serde(rename = "B")]
    pub blue: Option<i32>,
    #[serde(rename = "Y")]
    pub yellow: Option<i32>,
    #[serde(rename = "G")]
    pub green: Option<i32>,
}

impl SeatValues {
    pub fn from_array(values: [Option<i32>; 4]) -> SeatValues {
        SeatValues {
            red: values[0],
            blue: values[1],
            yellow: values[2],
            green: values[3],
        }
    }

    pub fn to_array(self) -> [Option<i32>; 4] {
        [self.red, self.blue, self.yellow, self.green]
    }
}

/// How bad a move was (by what it lost for its player; see the analysis's thresholds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    pub fn of(j: domain::search::analysis::Judgement) -> Judgement {
        use domain::search::analysis::Judgement as J;
        match j {
            J::Inaccuracy => Judgement::Inaccuracy,
            J::Mistake => Judgement::Mistake,
            J::Blunder => Judgement::Blunder,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }
}

/// The analysis of one move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "ply": 7, "seat": "Y", "move": "H1xE4>F4", "best": "G3-F4",
    "best_score": 35, "played_score": -420, "loss": 455, "judgement": "mistake",
    "chief_left_en_prise": false,
    "before": {"R": 12, "B": -8, "Y": 35, "G": -30}, "depth": 3, "nodes": 12250
}))]
pub struct MoveAnalysis {
    /// The move's number (1 for the first move of the game).
    pub ply: u32,
    /// The seat that played it.
    pub seat: String,
    /// The move played, canonical text.
    #[serde(rename = "move")]
    pub played: String,
    /// The move the engine prefers (the move played when none was better).
    pub best: String,
    /// The player's value after the best move and after the move played.
    pub best_score: i32,
    pub played_score: i32,
    /// `best_score - played_score`: what the move lost for its player (never negative).
    pub loss: i32,
    /// `inaccuracy` (loss 150 or more), `mistake` (400), `blunder` (1,000, or the chief
    /// left to the next rival when another move kept it safe); `null`: none.
    pub judgement: Option<Judgement>,
    /// After the move played the next rival could kill the player's chief, and another
    /// move avoided that.
    pub chief_left_en_prise: bool,
    /// Each seat's value of the position before the move.
    pub before: SeatValues,
    /// The depth (plies) the player's search completed.
    pub depth: u32,
    /// Positions the searches of this move visited.
    pub nodes: u64,
}
