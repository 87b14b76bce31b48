//! The ruleset of a game in the JSON bodies (VARIANTS.md): read from a request as a text
//! or an object of options, shown as the canonical text and as an object of every option.
//! The option names and values come from the rules crate (`domain::Ruleset`); the document
//! states them through [`text_pattern`] and [`option_values`] (set in `crate::openapi`).

use domain::{
    CorpseOnMaze, FriendlyFire, Layout, MasterMoves, Reporter, Ruleset, RulesetError, Surround,
    TwoSeatBonus,
};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::ApiError;

/// A ruleset as a request gives it: a text (`"master_moves=on,reporter=forced"`,
/// optionally after the version `djambi-standard-2026`; `""` is the default), or an
/// object of options (`{"master_moves": "on"}`; an option left out has its default
/// value). VARIANTS.md names the options.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum RulesetInput {
    /// The text form (VARIANTS.md 2.1): the options as `name=value`, comma-separated,
    /// optionally after the rules version.
    Text(String),
    Options(RulesetChoice),
}

/// Rule options to change; each one left out has its default value (given first in its
/// list). VARIANTS.md section 3 says what each one does.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"master_moves": "on", "reporter": "forced"}))]
#[allow(dead_code)]
pub struct RulesetChoice {
    /// `none` or `own_non_chief` (BGA): militants, chiefs and assassins may kill friendly
    /// pieces that are not chiefs.
    pub friendly_fire: Option<String>,
    /// `off` or `on` (BGA): an assassin's or a diplomat's maze exit may end on an enemy
    /// chief.
    pub master_moves: Option<String>,
    /// `optional` or `forced` (KW, Djambi-N): a reporter that can kill must.
    pub reporter: Option<String>,
    /// `ours` or `kw_throne_access` (KW): a chief is surrounded when no king-step path
    /// leads to the maze.
    pub surround: Option<String>,
    /// `on` or `off` (Djambi-N): no bonus turns once only two seats are active.
    pub two_seat_bonus: Option<String>,
    /// `off` or `on` (KW): a militant or chief may lay a killed chief's corpse on the
    /// empty maze.
    pub corpse_on_maze: Option<String>,
    /// `standard` or `rotational` (KW, Djambi-N): the starting layout.
    pub layout: Option<String>,
}

/// Every rule option of the game and its value (VARIANTS.md section 1; the defaults are
/// RULES.md unchanged).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(example = json!({"friendly_fire": "none", "master_moves": "on", "reporter": "forced",
    "surround": "ours", "two_seat_bonus": "on", "corpse_on_maze": "off", "layout": "standard"}))]
pub struct RulesetOptions {
    /// `none` (default) or `own_non_chief`: friendly non-chiefs may be killed.
    pub friendly_fire: &'static str,
    /// `off` (default) or `on`: master moves (a maze exit onto an enemy chief).
    pub master_moves: &'static str,
    /// `optional` (default) or `forced`: a reporter that can kill must.
    pub reporter: &'static str,
    /// `ours` (default) or `kw_throne_access`: which chiefs are surrounded.
    pub surround: &'static str,
    /// `on` (default) or `off`: bonus turns with two active seats.
    pub two_seat_bonus: &'static str,
    /// `off` (default) or `on`: a killed chief's corpse may be laid on the maze.
    pub corpse_on_maze: &'static str,
    /// `standard` (default) or `rotational`: the starting layout.
    pub layout: &'static str,
}

impl RulesetOptions {
    pub fn of(r: Ruleset) -> RulesetOptions {
        RulesetOptions {
            friendly_fire: r.friendly_fire.as_str(),
            master_moves: r.master_moves.as_str(),
            reporter: r.reporter.as_str(),
            surround: r.surround.as_str(),
            two_seat_bonus: r.two_seat_bonus.as_str(),
            corpse_on_maze: r.corpse_on_maze.as_str(),
            layout: r.layout.as_str(),
        }
    }
}

/// The longest ruleset text a request may give (every option, blanks around commas).
pub const RULESET_TEXT_MAX: usize = 256;

/// Each option's name and its values, the default first (the rules crate's lists).
pub fn option_values() -> [(&'static str, &'static [&'static str]); 7] {
    [
        (FriendlyFire::NAME, FriendlyFire::TEXTS),
        (MasterMoves::NAME, MasterMoves::TEXTS),
        (Reporter::NAME, Reporter::TEXTS),
        (Surround::NAME, Surround::TEXTS),
        (TwoSeatBonus::NAME, TwoSeatBonus::TEXTS),
        (CorpseOnMaze::NAME, CorpseOnMaze::TEXTS),
        (Layout::NAME, Layout::TEXTS),
    ]
}

/// A regular expression of the texts the server reads (`Ruleset::from_str`): blanks at
/// either end and around commas, the version optional, known options and values only (an
/// option given twice matches but is refused).
pub fn text_pattern() -> String {
    let option = option_values()
        .iter()
        .map(|(name, values)| format!("{name}=({})", values.join("|")))
        .collect::<Vec<_>>()
        .join("|");
    let options = format!("({option})(\\s*,\\s*({option}))*");
    format!(
        "^\\s*({version}(\\s+{options})?|{options})?\\s*$",
        version = Ruleset::VERSION
    )
}

/// Reads a request's `ruleset` (`field` names it in the problem): a text, an object of
/// string values, or `null` (the default). The problem names the offending option.
pub fn parse(field: &str, v: &Value) -> Result<Ruleset, ApiError> {
    let refused = |e: RulesetError| {
        let at = match &e {
            RulesetError::UnknownOption(name) => Some(name.as_str()),
            RulesetError::UnknownValue { option, .. } | RulesetError::Duplicate(option) => {
                Some(*option)
            }
            RulesetError::MissingEquals(_) | RulesetError::UnknownVersion(_) => None,
        };
        match at {
            Some(option) if option.len() <= 64 => {
                ApiError::field(format!("{field}.{option}"), e.to_string())
            }
            _ => ApiError::field(field, e.to_string()),
        }
    };
    match v {
        Value::Null => Ok(Ruleset::DEFAULT),
        Value::String(s) if s.len() <= RULESET_TEXT_MAX => s.parse().map_err(refused),
        Value::String(_) => Err(ApiError::field(
            field,
            format!("a ruleset text is at most {RULESET_TEXT_MAX} characters"),
        )),
        Value::Object(map) => {
            let mut pairs = Vec::with_capacity(map.len());
            for (name, value) in map {
                match value {
                    Value::String(value) => pairs.push((name.as_str(), value.as_str())),
                    _ => {
                        return Err(match option_values().iter().find(|(n, _)| n == name) {
                            Some((option, values)) => ApiError::field(
                                format!("{field}.{option}"),
                                format!("a value is a string: give {}", values.join(" or ")),
                            ),
                            None => refused(RulesetError::UnknownOption(name.clone())),
                        });
                    }
                }
            }
            Ruleset::from_pairs(pairs).map_err(refused)
        }
        _ => Err(ApiError::field(
            field,
            "must be a ruleset text (\"master_moves=on\") or an object of options \
             ({\"master_moves\": \"on\"})",
        )),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn every_ruleset() -> Vec<Ruleset> {
        (0..128u32)
            .map(|bits| {
                let mut r = Ruleset::DEFAULT;
                for (i, (name, values)) in option_values().into_iter().enumerate() {
                    r.set(name, values[(bits >> i & 1) as usize]).unwrap();
                }
                r
            })
            .collect()
    }

    #[test]
    fn every_ruleset_reads_as_text_and_as_object() {
        for r in every_ruleset() {
            let options = RulesetOptions::of(r);
            let object = serde_json::to_value(&options).unwrap();
            assert_eq!(parse("ruleset", &object).unwrap(), r);
            assert_eq!(parse("ruleset", &json!(r.to_string())).unwrap(), r);
            let bare = r
                .changed_options()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join(" , ");
            assert_eq!(parse("ruleset", &json!(bare)).unwrap(), r);
            assert_eq!(object.as_object().unwrap().len(), 7);
        }
        for default in [json!(null), json!(""), json!({}), json!(Ruleset::VERSION)] {
            assert_eq!(parse("ruleset", &default).unwrap(), Ruleset::DEFAULT);
        }
    }

    fn field_of(e: ApiError) -> String {
        match e {
            ApiError::Validation { errors, .. } => errors[0].field.clone(),
            other => panic!("not a validation error: {other:?}"),
        }
    }

    #[test]
    fn refusals_name_the_option() {
        for (v, field) in [
            (json!({"master_moves": "yes"}), "ruleset.master_moves"),
            (json!({"reporter": true}), "ruleset.reporter"),
            (json!({"nope": "on"}), "ruleset.nope"),
            (json!({"nope": 3}), "ruleset.nope"),
            (json!("layout=round"), "ruleset.layout"),
            (json!("surround=ours,surround=ours"), "ruleset.surround"),
            (json!("layout"), "ruleset"),
            (json!("v2 layout=rotational"), "ruleset"),
            (json!(1.5), "ruleset"),
            (json!("a".repeat(RULESET_TEXT_MAX + 1)), "ruleset"),
        ] {
            assert_eq!(field_of(parse("ruleset", &v).unwrap_err()), field, "{v}");
        }
        let long = format!("{}=on", "x".repeat(100));
        assert_eq!(
            field_of(parse("ruleset", &json!(long)).unwrap_err()),
            "ruleset"
        );
    }

    proptest! {
        /// Whatever the document's pattern allows, the server reads (a duplicate option,
        /// which no regular expression excludes, is the one refusal).
        #[test]
        fn the_documented_pattern_is_read(
            text in proptest::string::string_regex(
                text_pattern().trim_start_matches('^').trim_end_matches('$')
            ).unwrap()
        ) {
            match text.parse::<Ruleset>() {
                Ok(_) | Err(RulesetError::Duplicate(_)) => {}
                Err(e) => prop_assert!(false, "{text:?}: {e}"),
            }
        }

        /// Any JSON value: a ruleset or a validation problem, never a panic.
        #[test]
        fn any_value_is_read_or_refused(
            pairs in proptest::collection::vec(("[a-z_]{0,16}", "[a-z_]{0,16}"), 0..9),
            text in "\\PC{0,80}",
        ) {
            let object: serde_json::Map<String, Value> =
                pairs.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            for v in [Value::Object(object), Value::String(text)] {
                if let Err(e) = parse("ruleset", &v) {
                    prop_assert!(field_of(e).starts_with("ruleset"));
                }
            }
        }
    }
}
