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

    /// The language of a code (`"fr"`, `"es"`, …; case-insensitive), if the site speaks it.
    pub fn from_code(code: &str) -> Option<Lang> {
        LANGUAGES
            .iter()
            .position(|l| l.code.eq_ignore_ascii_case(code.trim()))
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

/// The best language for an `Accept-Language` header: negotiated over the site's
/// languages (`fr-CA` finds `fr`; the header's order is the fallback chain), English when
/// nothing matches or there is no header.
pub fn negotiate(accept_language: Option<&str>) -> Lang {
    let Some(header) = accept_language else {
        return Lang::EN;
    };
    let requested = fluent_langneg::accepted_languages::parse(header);
    let available: Vec<fluent_langneg::LanguageIdentifier> = LANGUAGES
        .iter()
        .filter_map(|l| l.code.parse().ok())
        .collect();
    let default: fluent_langneg::LanguageIdentifier = "en".parse().unwrap_or_default();
    let chosen = fluent_langneg::negotiate_languages(
        &requested,
        &available,
        Some(&default),
        fluent_langneg::NegotiationStrategy::Filtering,
    );
    chosen
        .first()
        .and_then(|l| Lang::from_code(&l.to_string()))
        .unwrap_or(Lang::EN)
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
