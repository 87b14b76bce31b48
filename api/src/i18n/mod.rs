//! The languages of what a person reads: Project Fluent messages, one file per language
//! and area in `locales/<code>/<area>.ftl` at the repository's root, built into the
//! binary (nothing is read from disk at run time).
//!
//! Plain Rust of the base layer (no HTTP): the routes negotiate the language of a request
//! ([`negotiate`], [`choose`]), the mails take their recipient's preference, and all of
//! them format with [`t`] and [`tr`]. A message missing in a language falls back to
//! English, then to its id; the tests make sure none is missing.
//!
//! Adding a language: a folder `locales/<code>/` with every area's file, and one line in
//! [`languages!`] below (see the README, "Languages").

mod time;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use fluent_syntax::ast;
use unic_langid::LanguageIdentifier;

pub use time::{TimeZone, date, datetime, duration, parse_time_zone};

/// The areas, one `.ftl` file each per language.
pub const AREAS: &[&str] = &["common", "game", "mail", "pages", "problems"];

/// A language the site speaks: its code (BCP 47), its own name, its files.
#[derive(Debug)]
pub struct Language {
    pub code: &'static str,
    /// The language's name in itself (for the choice on the settings page).
    pub name: &'static str,
    /// `(area, source)` of each of [`AREAS`], in that order.
    pub files: [(&'static str, &'static str); 5],
}

/// Each language: its code, its name, and its files built in with `include_str!`.
macro_rules! languages {
    ($($code:literal => $name:literal),* $(,)?) => {
        /// Every language, English first (the fallback of every other).
        pub const LANGUAGES: &[Language] = &[$(Language {
            code: $code,
            name: $name,
            files: [
                ("common", include_str!(concat!("../../../locales/", $code, "/common.ftl"))),
                ("game", include_str!(concat!("../../../locales/", $code, "/game.ftl"))),
                ("mail", include_str!(concat!("../../../locales/", $code, "/mail.ftl"))),
                ("pages", include_str!(concat!("../../../locales/", $code, "/pages.ftl"))),
                ("problems", include_str!(concat!("../../../locales/", $code, "/problems.ftl"))),
            ],
        }),*];
    };
}

languages! {
    "en" => "English",
    "fr" => "Français",
    "es" => "Español",
}

/// One of [`LANGUAGES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lang(usize);

impl Lang {
    /// English: the fallback.
    pub const EN: Lang = Lang(0);
    /// French (the order of [`languages!`]).
    pub const FR: Lang = Lang(1);
    /// Spanish.
    pub const ES: Lang = Lang(2);

    /// The language of a code (`"fr"`, `"es"`, …; case-insensitive), if the site speaks
    /// it; a regional tag falls back to its language (`"fr-CA"` is French).
    pub fn from_code(code: &str) -> Option<Lang> {
        let code = code.trim();
        let mut subtags = code.split('-');
        let primary = subtags.next()?;
        let well_formed = subtags
            .all(|s| (1..=8).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric()));
        if !well_formed {
            return None;
        }
        LANGUAGES
            .iter()
            .position(|l| l.code.eq_ignore_ascii_case(primary))
            .map(Lang)
    }

    /// A stored preference: its language, English when unset or unknown.
    pub fn from_pref(code: Option<&str>) -> Lang {
        code.and_then(Lang::from_code).unwrap_or(Lang::EN)
    }

    pub fn code(self) -> &'static str {
        LANGUAGES[self.0].code
    }

    pub fn name(self) -> &'static str {
        LANGUAGES[self.0].name
    }

    /// Every language.
    pub fn all() -> impl Iterator<Item = Lang> {
        (0..LANGUAGES.len()).map(Lang)
    }
}

/// The codes of every language, for messages ("one of en, fr, es").
pub fn codes() -> Vec<&'static str> {
    LANGUAGES.iter().map(|l| l.code).collect()
}

/// A value for a message's placeholder.
#[derive(Debug, Clone)]
pub enum Arg {
    Text(String),
    Number(i64),
    /// A decimal number shown with this many fraction digits, in the language's way
    /// ("25.00", "25,00").
    Decimal(f64, usize),
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Arg::Text(s.to_string())
    }
}
impl From<String> for Arg {
    fn from(s: String) -> Self {
        Arg::Text(s)
    }
}
impl From<&String> for Arg {
    fn from(s: &String) -> Self {
        Arg::Text(s.clone())
    }
}
impl From<i64> for Arg {
    fn from(n: i64) -> Self {
        Arg::Number(n)
    }
}
impl From<usize> for Arg {
    fn from(n: usize) -> Self {
        Arg::Number(i64::try_from(n).unwrap_or(i64::MAX))
    }
}
impl From<u32> for Arg {
    fn from(n: u32) -> Self {
        Arg::Number(n.into())
    }
}

type Bundle = FluentBundle<FluentResource>;

/// The languages that write decimals with a comma ("25,00").
const DECIMAL_COMMA: &[&str] = &["fr", "es"];

/// Fluent's number formatting for [`DECIMAL_COMMA`]: the decimal separator a comma.
fn decimal_comma<M>(value: &FluentValue<'_>, _: &M) -> Option<String> {
    match value {
        FluentValue::Number(n) => Some(n.as_string().replace('.', ",")),
        _ => None,
    }
}

/// A decimal number in the reader's language, `digits` after the separator: "25.00",
/// "25,00".
pub fn decimal(lang: Lang, x: f64, digits: usize) -> String {
    tr(lang, "number", &[("n", Arg::Decimal(x, digits))])
}

fn bundles() -> &'static [Bundle] {
    static BUNDLES: OnceLock<Vec<Bundle>> = OnceLock::new();
    BUNDLES.get_or_init(|| {
        LANGUAGES
            .iter()
            .map(|language| {
                let id: LanguageIdentifier = language.code.parse().unwrap_or_default();
                let mut bundle = FluentBundle::new_concurrent(vec![id]);
                // No Unicode isolation marks around placeables: mails and pages are
                // plain left-to-right text, and the marks would show in some readers.
                bundle.set_use_isolating(false);
                // NUMBER(), for ordinals ("21st").
                let _ = bundle.add_builtins();
                if DECIMAL_COMMA.contains(&language.code) {
                    bundle.set_formatter(Some(decimal_comma));
                }
                for (area, source) in language.files {
                    // A file that does not parse keeps the entries it could read (the
                    // tests refuse any parse error).
                    let resource = FluentResource::try_new(source.to_string()).unwrap_or_else(
                        |(resource, errors)| {
                            tracing::error!(language = language.code, area, ?errors, "locale file");
                            resource
                        },
                    );
                    // The same id twice keeps the first (the tests refuse duplicates).
                    bundle.add_resource_overriding(resource);
                }
                bundle
            })
            .collect()
    })
}

fn format(bundle: &Bundle, id: &str, args: Option<&FluentArgs<'_>>) -> Option<String> {
    let (id, attribute) = match id.split_once('.') {
        Some((id, attr)) => (id, Some(attr)),
        None => (id, None),
    };
    let message = bundle.get_message(id)?;
    let pattern = match attribute {
        Some(a) => message.get_attribute(a)?.value(),
        None => message.value()?,
    };
    let mut errors = Vec::new();
    Some(
        bundle
            .format_pattern(pattern, args, &mut errors)
            .into_owned(),
    )
}

fn fluent_args<'a>(args: &'a [(&'a str, Arg)]) -> FluentArgs<'a> {
    let mut out = FluentArgs::new();
    for (name, value) in args {
        match value {
            Arg::Text(s) => out.set(*name, FluentValue::from(s.as_str())),
            Arg::Number(n) => out.set(*name, FluentValue::from(*n)),
            Arg::Decimal(x, digits) => {
                let mut number = fluent_bundle::types::FluentNumber::from(*x);
                number.options.minimum_fraction_digits = Some(*digits);
                number.options.maximum_fraction_digits = Some(*digits);
                // FluentNumber pads to the minimum but does not round to the maximum.
                let factor = 10f64.powi(i32::try_from(*digits).unwrap_or(0));
                number.value = (x * factor).round() / factor;
                out.set(*name, FluentValue::Number(number))
            }
        }
    }
    out
}

/// The message `id` (or `id.attribute`) in `lang`, with its placeholders filled from
/// `args`; English when `lang` lacks it, the id itself when English lacks it too.
pub fn tr(lang: Lang, id: &str, args: &[(&str, Arg)]) -> String {
    let args = fluent_args(args);
    let all = bundles();
    format(&all[lang.0], id, Some(&args))
        .or_else(|| format(&all[Lang::EN.0], id, Some(&args)))
        .unwrap_or_else(|| id.to_string())
}

/// The message `id` without placeholders.
pub fn t(lang: Lang, id: &str) -> String {
    tr(lang, id, &[])
}

/// Whether `lang` (or English) has the message.
pub fn has(lang: Lang, id: &str) -> bool {
    let all = bundles();
    let id = id.split_once('.').map_or(id, |(m, _)| m);
    all[lang.0].has_message(id) || all[Lang::EN.0].has_message(id)
}

/// One language range of an `Accept-Language` header and its weight in thousandths
/// (RFC 9110, 12.5.4: `range *( OWS ";" OWS "q=" qvalue )`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageRange {
    /// Lower case: `fr`, `fr-ca`, `*`.
    pub range: String,
    /// 0 to 1000; 0: "not acceptable".
    pub weight: u16,
}

/// The most ranges read from one header (the rest is ignored).
const MAX_RANGES: usize = 32;

/// Parses an `Accept-Language` header into its ranges, highest weight first (equal
/// weights keep the header's order). Malformed members are skipped.
pub fn parse_accept_language(header: &str) -> Vec<LanguageRange> {
    let mut out: Vec<LanguageRange> = header
        .split(',')
        .filter_map(|member| {
            let mut parts = member.split(';');
            let range = parts.next()?.trim().to_ascii_lowercase();
            let valid_range = range == "*"
                || (!range.is_empty()
                    && range.split('-').enumerate().all(|(i, sub)| {
                        (1..=8).contains(&sub.len())
                            && if i == 0 {
                                sub.bytes().all(|b| b.is_ascii_alphabetic())
                            } else {
                                sub.bytes().all(|b| b.is_ascii_alphanumeric())
                            }
                    }));
            if !valid_range {
                return None;
            }
            let mut weight = 1000;
            for param in parts {
                let (name, value) = param.split_once('=')?;
                if name.trim().eq_ignore_ascii_case("q") {
                    weight = qvalue(value.trim())?;
                }
            }
            Some(LanguageRange { range, weight })
        })
        .take(MAX_RANGES)
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.weight));
    out
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
fn qvalue(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The best language for an `Accept-Language` header, by RFC 9110 (12.5.4): the ranges
/// by weight, a range matching a language of the site or a more specific tag of it
/// (`fr-CA` finds `fr`), `*` any language not refused; `q=0` refuses a language. English
/// when nothing matches (or the first language not refused, when English is).
pub fn negotiate(accept_language: Option<&str>) -> Lang {
    let Some(header) = accept_language else {
        return Lang::EN;
    };
    let ranges = parse_accept_language(header);
    let refused = |lang: Lang| {
        ranges
            .iter()
            .any(|r| r.weight == 0 && r.range == lang.code())
    };
    let primary = |r: &LanguageRange| r.range.split('-').next().map(str::to_string);
    for r in ranges.iter().filter(|r| r.weight > 0) {
        if r.range == "*" {
            if let Some(lang) = Lang::all().find(|l| !refused(*l)) {
                return lang;
            }
            continue;
        }
        if let Some(lang) = primary(r).as_deref().and_then(Lang::from_code)
            && !refused(lang)
        {
            return lang;
        }
    }
    Lang::all().find(|l| !refused(*l)).unwrap_or(Lang::EN)
}

/// The reader's language: the account's preference, else the request's
/// `Accept-Language`, else English.
pub fn choose(preference: Option<&str>, accept_language: Option<&str>) -> Lang {
    preference
        .and_then(Lang::from_code)
        .unwrap_or_else(|| negotiate(accept_language))
}

/// The variables a pattern names (`{ $name }`, selectors included), recursively.
fn variables(pattern: &ast::Pattern<&str>, out: &mut BTreeSet<String>) {
    fn inline(e: &ast::InlineExpression<&str>, out: &mut BTreeSet<String>) {
        match e {
            ast::InlineExpression::VariableReference { id } => {
                out.insert(id.name.to_string());
            }
            ast::InlineExpression::Placeable { expression } => expr(expression, out),
            ast::InlineExpression::FunctionReference { arguments, .. }
            | ast::InlineExpression::TermReference {
                arguments: Some(arguments),
                ..
            } => {
                for a in &arguments.positional {
                    inline(a, out);
                }
                for a in &arguments.named {
                    inline(&a.value, out);
                }
            }
            _ => {}
        }
    }
    fn expr(e: &ast::Expression<&str>, out: &mut BTreeSet<String>) {
        match e {
            ast::Expression::Inline(i) => inline(i, out),
            ast::Expression::Select { selector, variants } => {
                inline(selector, out);
                for v in variants {
                    variables(&v.value, out);
                }
            }
        }
    }
    for element in &pattern.elements {
        if let ast::PatternElement::Placeable { expression } = element {
            expr(expression, out);
        }
    }
}

/// Every message of `lang` whose id starts with one of `prefixes`, formatted with each
/// placeholder left as `{$name}` (for the web client's script, which fills them; a
/// selector takes its default variant, so these messages have none).
pub fn catalogue(lang: Lang, prefixes: &[&str]) -> Vec<(String, String)> {
    let language = &LANGUAGES[lang.0];
    let mut out = Vec::new();
    for (_, source) in language.files {
        let resource = match FluentResource::try_new(source.to_string()) {
            Ok(r) => r,
            Err((r, _)) => r,
        };
        for entry in resource.entries() {
            if let ast::Entry::Message(m) = entry {
                if !prefixes.iter().any(|p| m.id.name.starts_with(p)) {
                    continue;
                }
                let mut names = BTreeSet::new();
                if let Some(p) = &m.value {
                    variables(p, &mut names);
                }
                let args: Vec<(String, Arg)> = names
                    .iter()
                    .map(|n| (n.clone(), Arg::Text(format!("{{${n}}}"))))
                    .collect();
                let args: Vec<(&str, Arg)> =
                    args.iter().map(|(n, a)| (n.as_str(), a.clone())).collect();
                out.push((m.id.name.to_string(), tr(lang, m.id.name, &args)));
            }
        }
    }
    out
}

/// The variables of every message and attribute of a source, by id (`id` or
/// `id.attribute`); for the tests of the translations.
pub fn placeholders_of(source: &str) -> Vec<(String, BTreeSet<String>)> {
    let resource = match FluentResource::try_new(source.to_string()) {
        Ok(r) => r,
        Err((r, _)) => r,
    };
    let mut out = Vec::new();
    for entry in resource.entries() {
        let (id, value, attributes) = match entry {
            ast::Entry::Message(m) => (m.id.name.to_string(), m.value.as_ref(), &m.attributes),
            ast::Entry::Term(t) => (format!("-{}", t.id.name), Some(&t.value), &t.attributes),
            _ => continue,
        };
        let mut names = BTreeSet::new();
        if let Some(p) = value {
            variables(p, &mut names);
        }
        out.push((id.clone(), names));
        for a in attributes {
            let mut names = BTreeSet::new();
            variables(&a.value, &mut names);
            out.push((format!("{id}.{}", a.id.name), names));
        }
    }
    out
}

/// The parse errors of a source (none, in a good file).
pub fn parse_errors(source: &str) -> Vec<String> {
    match FluentResource::try_new(source.to_string()) {
        Ok(_) => Vec::new(),
        Err((_, errors)) => errors.iter().map(|e| format!("{e:?}")).collect(),
    }
}

#[cfg(test)]
mod tests;
