//! The JSON forms of the value types, for the `batch` protocol and the service:
//! squares as `"E5"`, seats as `"R"`, moves as in RULES.md section 8.

use serde::de::{self, Deserializer};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::effects::Effect;
use crate::moves::Move;
use crate::piece::{Kind, Piece};
use crate::position::{Control, Turn};
use crate::seat::Seat;
use crate::square::Square;

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(de::Error::custom)
    }
}

impl Serialize for Seat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Seat, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(de::Error::custom)
    }
}

/// The wire shape of a move; absent and null fields are the same.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveJson {
    from: Square,
    to: Square,
    #[serde(default)]
    victim: Option<Square>,
    #[serde(default)]
    exit: Option<Square>,
    #[serde(default)]
    place: Option<Square>,
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        MoveJson {
            from: self.from,
            to: self.to,
            victim: self.victim,
            exit: self.exit,
            place: self.place,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let m = MoveJson::deserialize(d)?;
        Ok(Move {
            from: m.from,
            to: m.to,
            victim: m.victim,
            exit: m.exit,
            place: m.place,
        })
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for Piece {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Piece", 3)?;
        st.serialize_field("party", &self.party)?;
        st.serialize_field("kind", &self.kind)?;
        st.serialize_field("alive", &self.alive)?;
        st.end()
    }
}

impl Serialize for Control {
    /// A seat letter, `"hostage"` or `"orphaned"`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Control::Seat(seat) => seat.serialize(s),
            Control::Hostage => s.serialize_str("hostage"),
            Control::Orphaned => s.serialize_str("orphaned"),
        }
    }
}

impl Serialize for Turn {
    /// `{"seat":"G","bonus_after":"B"}`, `{"seat":"R","bonus_after":null}`, or null when over.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (seat, after) = match *self {
            Turn::Regular(seat) => (seat, None),
            Turn::Bonus { seat, after } => (seat, Some(after)),
            Turn::Over => return s.serialize_none(),
        };
        let mut st = s.serialize_struct("Turn", 2)?;
        st.serialize_field("seat", &seat)?;
        st.serialize_field("bonus_after", &after)?;
        st.end()
    }
}

/// Effects as `{"type":"killed","piece":{...},"square":"D6"}` and so on.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum EffectJson {
    Moved {
        piece: Piece,
        from: Square,
        to: Square,
    },
    Killed {
        piece: Piece,
        square: Square,
    },
    Placed {
        piece: Piece,
        from: Square,
        to: Square,
    },
    Surrounded {
        piece: Piece,
        square: Square,
    },
    ControlChanged {
        party: Seat,
        from: Control,
        to: Control,
    },
    Eliminated {
        seat: Seat,
    },
    Passed {
        seat: Seat,
    },
}

impl Serialize for Effect {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Effect::Moved { piece, from, to } => EffectJson::Moved { piece, from, to },
            Effect::Killed { piece, square } => EffectJson::Killed { piece, square },
            Effect::Placed { piece, from, to } => EffectJson::Placed { piece, from, to },
            Effect::Surrounded { piece, square } => EffectJson::Surrounded { piece, square },
            Effect::ControlChanged { party, from, to } => {
                EffectJson::ControlChanged { party, from, to }
            }
            Effect::Eliminated { seat } => EffectJson::Eliminated { seat },
            Effect::Passed { seat } => EffectJson::Passed { seat },
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_json_round_trip() {
        let mv: Move = "B8xE5/F4>G2".parse().unwrap();
        let json = serde_json::to_string(&mv).unwrap();
        assert_eq!(
            json,
            r#"{"from":"B8","to":"E5","victim":null,"exit":"F4","place":"G2"}"#
        );
        assert_eq!(serde_json::from_str::<Move>(&json).unwrap(), mv);
        let short: Move = serde_json::from_str(r#"{"from":"c8","to":"D6","place":"A5"}"#).unwrap();
        assert_eq!(short, "C8xD6>A5".parse().unwrap());
        assert!(serde_json::from_str::<Move>(r#"{"from":"C8","to":"Z9"}"#).is_err());
        assert!(serde_json::from_str::<Move>(r#"{"from":"C8","to":"D7","bogus":1}"#).is_err());
    }
}
