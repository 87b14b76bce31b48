//! The ruleset a game is played under: one value for each rule option of VARIANTS.md.
//!
//! The default value of every option is RULES.md unchanged, so `Ruleset::default()` is
//! the rules as they were before options existed. Any combination of values is a valid
//! ruleset. Its text form (VARIANTS.md section 2.1) is what records, the `djambi` command
//! and the service's settings carry:
//!
//! ```text
//! djambi-standard-2026                                   the default ruleset
//! djambi-standard-2026 master_moves=on,reporter=forced   canonical: sorted, non-defaults only
//! master_moves=on, reporter=forced                       also read: no version, blanks around ','
//! ```

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Declares a rule option: an enum whose first variant is the default, its name and the
/// text of each value.
macro_rules! rule_option {
    (
        $(#[$meta:meta])*
        $ty:ident = $name:literal {
            $(#[$dmeta:meta])* $default:ident = $dtext:literal,
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
        #[repr(u8)]
        pub enum $ty {
            $(#[$dmeta])*
            #[default]
            $default,
            $( $(#[$vmeta])* $variant, )+
        }

        impl $ty {
            /// The option's name in the text form.
            pub const NAME: &'static str = $name;
            /// Every value, the default first.
            pub const ALL: &'static [$ty] = &[$ty::$default, $( $ty::$variant, )+];
            /// The values' texts, the default first.
            pub const TEXTS: &'static [&'static str] = &[$dtext, $( $text, )+];

            /// The value's text (`"on"`, `"own_non_chief"`, ...).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $ty::$default => $dtext,
                    $( $ty::$variant => $text, )+
                }
            }

            /// Reads a value's text: lower case, exactly as written by [`Self::as_str`].
            pub fn from_text(text: &str) -> Option<$ty> {
                match text {
                    $dtext => Some($ty::$default),
                    $( $text => Some($ty::$variant), )+
                    _ => None,
                }
            }

            fn parse_value(text: &str) -> Result<$ty, RulesetError> {
                $ty::from_text(text).ok_or_else(|| RulesetError::UnknownValue {
                    option: $name,
                    value: text.to_string(),
                    expected: $ty::TEXTS,
                })
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

rule_option! {
    /// VARIANTS.md 3.1: may a piece kill friendly non-chiefs?
    FriendlyFire = "friendly_fire" {
        /// RULES.md: no piece kills a friendly piece.
        None = "none",
        /// BGA: militants, chiefs and assassins may kill friendly pieces that are not chiefs.
        OwnNonChief = "own_non_chief",
    }
}

rule_option! {
    /// VARIANTS.md 3.2: may an assassin's or diplomat's maze exit end on an enemy chief?
    MasterMoves = "master_moves" {
        /// RULES.md: the exit acts on nothing.
        Off = "off",
        /// BGA: the exit may end on a living enemy chief (killed, or put on the maze).
        On = "on",
    }
}

rule_option! {
    /// VARIANTS.md 3.3: must a reporter that can kill do so?
    Reporter = "reporter" {
        /// RULES.md: the kill is optional.
        Optional = "optional",
        /// KW `pravda`, Djambi-N: a reporter with a victim next to its destination must kill.
        Forced = "forced",
    }
}

rule_option! {
    /// VARIANTS.md 3.4: which chiefs are surrounded.
    Surround = "surround" {
        /// RULES.md 4.2: only corpses, orphans and the edge touch the chief's group.
        Ours = "ours",
        /// KW: no king-step path to the maze through empty squares and living non-orphans.
        KwThroneAccess = "kw_throne_access",
    }
}

rule_option! {
    /// VARIANTS.md 3.5: bonus turns when only two seats are active.
    TwoSeatBonus = "two_seat_bonus" {
        /// RULES.md 5: the ruler plays bonus turns whatever the number of seats.
        On = "on",
        /// Djambi-N: no bonus turn with two active seats.
        Off = "off",
    }
}

rule_option! {
    /// VARIANTS.md 3.6: may a killed chief's corpse be laid on the maze?
    CorpseOnMaze = "corpse_on_maze" {
        /// RULES.md 3: no corpse is placed on the maze.
        Off = "off",
        /// KW `extended`: a militant or chief may lay a killed chief's corpse on the empty maze.
        On = "on",
    }
}

rule_option! {
    /// VARIANTS.md 3.7: the starting layout.
    Layout = "layout" {
        /// RULES.md 1: mirror-symmetric, assassins face assassins.
        Standard = "standard",
        /// KW, Djambi-N: every block is Red's turned about the maze.
        Rotational = "rotational",
    }
}

/// The rules a game is played under: one value per option of VARIANTS.md. Every
/// combination is a valid ruleset; the default is RULES.md unchanged.
///
/// Its text form is [`fmt::Display`] (canonical) and [`FromStr`]; in JSON it is written as
/// the canonical text and read from a text, an object `{"option": "value"}` or `null`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Ruleset {
    pub corpse_on_maze: CorpseOnMaze,
    pub friendly_fire: FriendlyFire,
    pub layout: Layout,
    pub master_moves: MasterMoves,
    pub reporter: Reporter,
    pub surround: Surround,
    pub two_seat_bonus: TwoSeatBonus,
}

/// Why a ruleset text (or JSON object) cannot be read. Nothing is ever ignored: a game
/// must not be replayed under rules it was not played under.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RulesetError {
    #[error("unknown rule option {0:?}: the options are {options}", options = Ruleset::OPTIONS.join(", "))]
    UnknownOption(String),
    #[error("unknown value {value:?} for rule option {option}: give {}", expected.join(" or "))]
    UnknownValue {
        option: &'static str,
        value: String,
        expected: &'static [&'static str],
    },
    #[error("rule option {0} is given twice")]
    Duplicate(&'static str),
    #[error("rule option {0:?} has no value: write name=value")]
    MissingEquals(String),
    #[error("unknown rules version {0:?}: the version is {version}", version = Ruleset::VERSION)]
    UnknownVersion(String),
}

impl Ruleset {
    /// The rules version every ruleset of this engine belongs to (the word records have
    /// always carried in their `Ruleset` header).
    pub const VERSION: &'static str = "djambi-standard-2026";

    /// The default ruleset: RULES.md unchanged.
    pub const DEFAULT: Ruleset = Ruleset {
        corpse_on_maze: CorpseOnMaze::Off,
        friendly_fire: FriendlyFire::None,
        layout: Layout::Standard,
        master_moves: MasterMoves::Off,
        reporter: Reporter::Optional,
        surround: Surround::Ours,
        two_seat_bonus: TwoSeatBonus::On,
    };

    /// The name the only ruleset had before rule options existed; the same as
    /// [`Ruleset::DEFAULT`].
    #[allow(non_upper_case_globals)]
    pub const Standard2026: Ruleset = Ruleset::DEFAULT;

    /// The option names, sorted (byte order): the order of the canonical text.
    pub const OPTIONS: [&'static str; 7] = [
        CorpseOnMaze::NAME,
        FriendlyFire::NAME,
        Layout::NAME,
        MasterMoves::NAME,
        Reporter::NAME,
        Surround::NAME,
        TwoSeatBonus::NAME,
    ];

    /// Whether every option has its default value.
    pub fn is_default(self) -> bool {
        self == Ruleset::DEFAULT
    }

    /// Whether an option changes the legal moves of a position (the others change what a
    /// move does, the turn order or the start).
    #[inline]
    pub(crate) fn changes_moves(self) -> bool {
        // Every default value is its enum's first variant, 0: one test, no branches.
        (self.friendly_fire as u8
            | self.master_moves as u8
            | self.reporter as u8
            | self.corpse_on_maze as u8)
            != 0
    }

    /// Every option's name and value, sorted by name.
    pub fn options(self) -> [(&'static str, &'static str); 7] {
        [
            (CorpseOnMaze::NAME, self.corpse_on_maze.as_str()),
            (FriendlyFire::NAME, self.friendly_fire.as_str()),
            (Layout::NAME, self.layout.as_str()),
            (MasterMoves::NAME, self.master_moves.as_str()),
            (Reporter::NAME, self.reporter.as_str()),
            (Surround::NAME, self.surround.as_str()),
            (TwoSeatBonus::NAME, self.two_seat_bonus.as_str()),
        ]
    }

    /// The options that differ from their default, sorted by name.
    pub fn changed_options(self) -> impl Iterator<Item = (&'static str, &'static str)> {
        let default = Ruleset::DEFAULT.options();
        self.options()
            .into_iter()
            .zip(default)
            .filter(|(mine, default)| mine.1 != default.1)
            .map(|(mine, _)| mine)
    }

    /// Sets one option from its name and value text. Returns the option's index in
    /// [`Ruleset::OPTIONS`], for duplicate checks.
    pub fn set(&mut self, name: &str, value: &str) -> Result<usize, RulesetError> {
        let index = Ruleset::OPTIONS
            .iter()
            .position(|n| *n == name)
            .ok_or_else(|| RulesetError::UnknownOption(name.to_string()))?;
        match index {
            0 => self.corpse_on_maze = CorpseOnMaze::parse_value(value)?,
            1 => self.friendly_fire = FriendlyFire::parse_value(value)?,
            2 => self.layout = Layout::parse_value(value)?,
            3 => self.master_moves = MasterMoves::parse_value(value)?,
            4 => self.reporter = Reporter::parse_value(value)?,
            5 => self.surround = Surround::parse_value(value)?,
            _ => self.two_seat_bonus = TwoSeatBonus::parse_value(value)?,
        }
        Ok(index)
    }

    /// The canonical text (the same as `to_string()`): the version, then the options that
    /// differ from their default, sorted, comma-separated. Stored with each game, so that
    /// it replays under the rules it was played under.
    pub fn id(self) -> String {
        self.to_string()
    }

    /// Reads a ruleset text, `None` if it is not one; [`FromStr`] says why.
    pub fn from_id(text: &str) -> Option<Ruleset> {
        text.parse().ok()
    }

    /// Reads name/value pairs (the JSON object form), refusing duplicates.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Ruleset, RulesetError> {
        let mut ruleset = Ruleset::DEFAULT;
        let mut seen = [false; 7];
        for (name, value) in pairs {
            let index = ruleset.set(name, value)?;
            if std::mem::replace(&mut seen[index], true) {
                return Err(RulesetError::Duplicate(Ruleset::OPTIONS[index]));
            }
        }
        Ok(ruleset)
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Ruleset::VERSION)?;
        for (i, (name, value)) in self.changed_options().enumerate() {
            f.write_str(if i == 0 { " " } else { "," })?;
            write!(f, "{name}={value}")?;
        }
        Ok(())
    }
}

impl FromStr for Ruleset {
    type Err = RulesetError;

    /// Reads `version [" " options] | options | ""` (VARIANTS.md 2.1), with blanks
    /// allowed around the commas and at either end.
    fn from_str(text: &str) -> Result<Ruleset, RulesetError> {
        let text = text.trim();
        let first_end = text.find(char::is_whitespace).unwrap_or(text.len());
        let (first, rest) = text.split_at(first_end);
        let options = if first.is_empty() || first.contains(['=', ',']) {
            text
        } else if rest.trim_start().starts_with(',') {
            // `name ,...`: an option without its value, not a version.
            text
        } else if first == Ruleset::VERSION {
            rest.trim_start()
        } else if Ruleset::OPTIONS.contains(&first) {
            return Err(RulesetError::MissingEquals(first.to_string()));
        } else {
            return Err(RulesetError::UnknownVersion(first.to_string()));
        };
        if options.is_empty() {
            return Ok(Ruleset::DEFAULT);
        }
        let mut pairs = Vec::with_capacity(7);
        for item in options.split(',').map(str::trim) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| RulesetError::MissingEquals(item.to_string()))?;
            pairs.push((name, value));
        }
        Ruleset::from_pairs(pairs)
    }
}

impl Serialize for Ruleset {
    /// The canonical text.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Ruleset {
    /// A text (VARIANTS.md 2.1), an object `{"option": "value"}` (values are strings), or
    /// `null`; `null`, `{}` and `""` are the default ruleset.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ruleset, D::Error> {
        struct RulesetVisitor;

        impl<'de> Visitor<'de> for RulesetVisitor {
            type Value = Ruleset;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a ruleset: a text such as \"master_moves=on\", an object {\"option\": \"value\"} or null")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Ruleset, E> {
                text.parse().map_err(E::custom)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Ruleset, E> {
                Ok(Ruleset::DEFAULT)
            }

            fn visit_none<E: de::Error>(self) -> Result<Ruleset, E> {
                Ok(Ruleset::DEFAULT)
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Ruleset, D::Error> {
                d.deserialize_any(self)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ruleset, A::Error> {
                let mut ruleset = Ruleset::DEFAULT;
                let mut seen = [false; 7];
                while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let value = map.next_value::<std::borrow::Cow<'de, str>>()?;
                    let index = ruleset.set(&name, &value).map_err(de::Error::custom)?;
                    if std::mem::replace(&mut seen[index], true) {
                        return Err(de::Error::custom(RulesetError::Duplicate(
                            Ruleset::OPTIONS[index],
                        )));
                    }
                }
                Ok(ruleset)
            }
        }

        d.deserialize_any(RulesetVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Ruleset, RulesetError> {
        text.parse()
    }

    #[test]
    fn the_default_is_the_version_alone() {
        assert_eq!(Ruleset::default(), Ruleset::DEFAULT);
        assert_eq!(Ruleset::default().to_string(), "djambi-standard-2026");
        assert_eq!(Ruleset::Standard2026.id(), "djambi-standard-2026");
        for text in ["", "  ", "djambi-standard-2026", "reporter=optional"] {
            assert_eq!(parse(text), Ok(Ruleset::DEFAULT), "{text:?}");
        }
    }

    #[test]
    fn canonical_form_sorts_and_drops_defaults() {
        let r = parse("reporter=forced, master_moves=on,layout=standard").unwrap();
        assert_eq!(r.master_moves, MasterMoves::On);
        assert_eq!(r.reporter, Reporter::Forced);
        assert_eq!(
            r.to_string(),
            "djambi-standard-2026 master_moves=on,reporter=forced"
        );
        assert_eq!(parse(&r.to_string()), Ok(r));
        assert_eq!(
            parse("djambi-standard-2026 reporter=forced , master_moves=on"),
            Ok(r)
        );
        let all = parse(
            "two_seat_bonus=off,surround=kw_throne_access,reporter=forced,master_moves=on,\
             layout=rotational,friendly_fire=own_non_chief,corpse_on_maze=on",
        )
        .unwrap();
        assert_eq!(
            all.to_string(),
            "djambi-standard-2026 corpse_on_maze=on,friendly_fire=own_non_chief,\
             layout=rotational,master_moves=on,reporter=forced,surround=kw_throne_access,\
             two_seat_bonus=off"
        );
        assert_eq!(parse(&all.to_string()), Ok(all));
    }

    #[test]
    fn errors_are_typed() {
        use RulesetError::*;
        assert!(matches!(parse("bogus=on"), Err(UnknownOption(o)) if o == "bogus"));
        assert!(matches!(
            parse("master_moves=yes"),
            Err(UnknownValue { option: "master_moves", value, .. }) if value == "yes"
        ));
        assert!(matches!(parse("master_moves=ON"), Err(UnknownValue { .. })));
        assert_eq!(
            parse("master_moves=on,master_moves=off"),
            Err(Duplicate("master_moves"))
        );
        assert_eq!(
            parse("master_moves=on,reporter"),
            Err(MissingEquals("reporter".into()))
        );
        assert_eq!(
            parse("master_moves"),
            Err(MissingEquals("master_moves".into()))
        );
        assert_eq!(
            parse("master_moves , reporter=forced"),
            Err(MissingEquals("master_moves".into()))
        );
        assert_eq!(parse("master_moves=on,"), Err(MissingEquals(String::new())));
        assert_eq!(
            parse("djambi-standard-2027 master_moves=on"),
            Err(UnknownVersion("djambi-standard-2027".into()))
        );
        assert_eq!(
            parse("djambi-standard-2027"),
            Err(UnknownVersion("djambi-standard-2027".into()))
        );
        assert!(matches!(
            parse("master_moves = on"),
            Err(UnknownOption(_) | UnknownVersion(_) | MissingEquals(_) | UnknownValue { .. })
        ));
        let message = parse("master_moves=yes").unwrap_err().to_string();
        assert!(message.contains("off or on"), "{message}");
    }

    #[test]
    fn json_is_a_text_or_an_object() {
        let r: Ruleset = serde_json::from_str(r#"{"master_moves":"on"}"#).unwrap();
        assert_eq!(r.master_moves, MasterMoves::On);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#""djambi-standard-2026 master_moves=on""#
        );
        let r2: Ruleset = serde_json::from_str(r#""master_moves=on""#).unwrap();
        assert_eq!(r, r2);
        for default in ["null", "{}", r#""""#] {
            assert_eq!(
                serde_json::from_str::<Ruleset>(default).unwrap(),
                Ruleset::DEFAULT
            );
        }
        for bad in [
            r#"{"master_moves":"yes"}"#,
            r#"{"bogus":"on"}"#,
            r#"{"master_moves":true}"#,
            r#"{"master_moves":"on","master_moves":"on"}"#,
            r#""master_moves=maybe""#,
            "3",
            "[]",
        ] {
            assert!(serde_json::from_str::<Ruleset>(bad).is_err(), "{bad}");
        }
    }
}
