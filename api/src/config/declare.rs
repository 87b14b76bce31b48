//! How a setting is declared, and where its value comes from.
//!
//! [`settings!`](crate::config::settings) turns one declaration per setting into a typed
//! constant ([`Decl`], read with [`Sources::value`] or [`Sources::optional`]) and an entry
//! of [`SETTINGS`](super::SETTINGS) (its [`Setting`]: names, default, help), from which
//! `--help`, the README table and the file's accepted keys come.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::marker::PhantomData;
use std::path::Path;

use super::parse::Parse;
use super::{ConfigError, err};

/// Whether a production deployment must set a setting (the README's reference says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Production {
    /// Must be set: the default is only good for development.
    Required,
    /// Usually set (e.g. in a container, or behind a log collector).
    Usually,
    /// The default suits production.
    Optional,
}

/// An older name of a setting, still read (after the current one), documented as deprecated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alias {
    pub env: &'static str,
    pub key: Option<&'static str>,
}

/// What an unset setting is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// This text, read by the setting's parser like a value that was set.
    Value(&'static str),
    /// Nothing (shown as `none`).
    Unset,
    /// Worked out at start from other things (the number of cores, another setting); the
    /// text says how.
    Derived(&'static str),
}

impl Fallback {
    /// The default as shown to people.
    pub const fn shown(self) -> &'static str {
        match self {
            Fallback::Value(text) | Fallback::Derived(text) => text,
            Fallback::Unset => "none",
        }
    }
}

/// One setting, as `--help` and the README show it. [`SETTINGS`](super::SETTINGS) is the
/// list of them; each comes from the setting's declaration in `config/settings.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The environment variable.
    pub env: &'static str,
    /// The key in the `DJAMBI_CONFIG` TOML file (`None`: environment only).
    pub key: Option<&'static str>,
    /// The default, as shown to people.
    pub default: &'static str,
    pub production: Production,
    /// What it is, in one line.
    pub help: &'static str,
    /// Deprecated names still read.
    pub aliases: &'static [Alias],
    /// Its value never appears in an error message.
    pub secret: bool,
}

/// A declared setting: its [`Setting`], its default, and the parser `P` of its values.
pub struct Decl<P> {
    pub setting: Setting,
    pub fallback: Fallback,
    pub parser: PhantomData<P>,
}

impl<P: Parse> Decl<P> {
    /// The declared default, read by the setting's parser. Panics if the declaration has no
    /// [`Fallback::Value`] or it does not parse (a unit test reads every declared default).
    pub fn default_value(&self) -> P::Out {
        match self.fallback {
            Fallback::Value(text) => P::parse(text)
                .unwrap_or_else(|e| panic!("{}: the declared default: {e}", self.setting.env)),
            _ => panic!("{} declares no default value", self.setting.env),
        }
    }
}

/// The declaration's doc comment, as one line: `///` lines joined, the leading space dropped.
#[doc(hidden)]
pub const fn help_text(joined: &'static str) -> &'static str {
    joined.trim_ascii()
}

/// Declares the settings: each becomes a `pub const NAME: Decl<Parser>`, and `SETTINGS`
/// lists their [`Setting`]s in declaration order. A declaration:
///
/// ```text
/// /// lifetime of access tokens, e.g. 900, 15m        <- the help line
/// ACCESS_TOKEN_TTL: Dur<{ 10 * S }, { 24 * H }> {    <- the parser and its bounds
///     env: "DJAMBI_ACCESS_TOKEN_TTL",
///     key: "access_token_ttl",                       <- optional: environment only
///     default: "15m",                                <- or `derived: "how"`, or neither
///     production: Optional,
///     aliases: [("DJAMBI_OLD", "old")],              <- optional (`None` for no file key)
///     secret: true,                                  <- optional
/// }
/// ```
macro_rules! settings {
    (@fallback $default:literal ; ) => { $crate::config::declare::Fallback::Value($default) };
    (@fallback ; $derived:literal) => { $crate::config::declare::Fallback::Derived($derived) };
    (@fallback ; ) => { $crate::config::declare::Fallback::Unset };
    (@opt $key:literal) => { Some($key) };
    (@opt) => { None };
    (@flag $value:literal) => { $value };
    (@flag) => { false };
    ($(
        $(#[doc = $doc:literal])+
        $id:ident: $parser:ty {
            env: $env:literal,
            $(key: $key:literal,)?
            $(default: $default:literal,)?
            $(derived: $derived:literal,)?
            production: $prod:ident,
            $(aliases: [$(($alias_env:literal, $alias_key:expr)),* $(,)?],)?
            $(secret: $secret:literal,)?
        }
    )*) => {
        $(
            $(#[doc = $doc])+
            pub const $id: $crate::config::declare::Decl<$parser> = {
                let fallback = $crate::config::declare::settings!(@fallback $($default)? ; $($derived)?);
                $crate::config::declare::Decl {
                    setting: $crate::config::declare::Setting {
                        env: $env,
                        key: $crate::config::declare::settings!(@opt $($key)?),
                        default: fallback.shown(),
                        production: $crate::config::declare::Production::$prod,
                        help: $crate::config::declare::help_text(concat!($($doc),+)),
                        aliases: &[$($($crate::config::declare::Alias {
                            env: $alias_env,
                            key: $alias_key,
                        }),*)?],
                        secret: $crate::config::declare::settings!(@flag $($secret)?),
                    },
                    fallback,
                    parser: ::std::marker::PhantomData,
                }
            };
        )*

        /// Every setting, in the order `--help` and the README list them.
        pub const SETTINGS: &[$crate::config::declare::Setting] = &[$($id.setting),*];

        /// Each declared default, read by its setting's parser (`Err`: the declaration is
        /// wrong). A unit test runs it.
        #[cfg(test)]
        pub(crate) fn check_defaults() -> Vec<(&'static str, Result<(), String>)> {
            let mut out = Vec::new();
            $(
                if let $crate::config::declare::Fallback::Value(text) = $id.fallback {
                    out.push((
                        $env,
                        <$parser as $crate::config::parse::Parse>::parse(text).map(drop),
                    ));
                }
            )*
            out
        }
    };
}
pub(crate) use settings;

/// Where the value was found, for the error message.
enum Origin {
    Env(&'static str),
    File(&'static str),
}

/// The environment (any lookup) over the `DJAMBI_CONFIG` file: reads declared settings,
/// keeps which were read and which deprecated names were used.
pub(crate) struct Sources<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    file: BTreeMap<String, String>,
    read: RefCell<BTreeSet<&'static str>>,
    deprecated: RefCell<Vec<String>>,
}

impl<'a> Sources<'a> {
    /// The lookup alone (no file).
    pub fn new(lookup: &'a dyn Fn(&str) -> Option<String>) -> Self {
        Sources {
            lookup,
            file: BTreeMap::new(),
            read: RefCell::default(),
            deprecated: RefCell::default(),
        }
    }

    /// The lookup over the settings in `file` (a TOML file of the keys in `settings`).
    pub fn with_file(
        lookup: &'a dyn Fn(&str) -> Option<String>,
        file: &Path,
        settings: &[Setting],
    ) -> Result<Self, ConfigError> {
        let mut sources = Sources::new(lookup);
        sources.file = read_file(file, settings)?;
        Ok(sources)
    }

    /// The text of a setting, and where it came from: the environment (the current name,
    /// then the deprecated ones) wins over the file; empty text is unset.
    fn raw(&self, s: &Setting) -> Option<(String, Origin)> {
        self.read.borrow_mut().insert(s.env);
        let from_env = std::iter::once(s.env)
            .chain(s.aliases.iter().map(|a| a.env))
            .find_map(|name| Some(((self.lookup)(name)?, Origin::Env(name))));
        let found = from_env.or_else(|| {
            s.key
                .into_iter()
                .chain(s.aliases.iter().filter_map(|a| a.key))
                .find_map(|key| Some((self.file.get(key)?.clone(), Origin::File(key))))
        });
        let (text, origin) = found?;
        if text.trim().is_empty() {
            return None;
        }
        let name = match origin {
            Origin::Env(name) | Origin::File(name) => name,
        };
        if s.aliases
            .iter()
            .any(|a| a.env == name || a.key == Some(name))
        {
            let current = match origin {
                Origin::Env(_) => s.env,
                Origin::File(_) => s.key.unwrap_or(s.env),
            };
            let warning = format!("`{name}` is deprecated: use `{current}`");
            let mut deprecated = self.deprecated.borrow_mut();
            if !deprecated.contains(&warning) {
                deprecated.push(warning);
            }
        }
        Some((text, origin))
    }

    /// The setting's value, `None` if it is unset.
    pub fn optional<P: Parse>(&self, d: &Decl<P>) -> Result<Option<P::Out>, ConfigError> {
        let Some((text, origin)) = self.raw(&d.setting) else {
            return Ok(None);
        };
        P::parse(&text).map(Some).map_err(|message| {
            // Parsers quote the values they complain about: not a secret's.
            let message = if d.setting.secret {
                message
                    .replace(&format!("`{text}`"), "`****`")
                    .replace(&format!("`{}`", text.trim()), "`****`")
            } else {
                message
            };
            let message = match origin {
                Origin::Env(name) if name != d.setting.env => {
                    format!("{message} (read from {name})")
                }
                Origin::Env(_) => message,
                Origin::File(key) => {
                    format!("{message} (read from `{key}` in the DJAMBI_CONFIG file)")
                }
            };
            err(d.setting.env, message)
        })
    }

    /// The setting's value, or its declared default.
    pub fn value<P: Parse>(&self, d: &Decl<P>) -> Result<P::Out, ConfigError> {
        if let Some(v) = self.optional(d)? {
            return Ok(v);
        }
        match d.fallback {
            Fallback::Value(text) => P::parse(text)
                .map_err(|e| err(d.setting.env, format!("the built-in default is wrong: {e}"))),
            Fallback::Unset | Fallback::Derived(_) => Err(err(
                d.setting.env,
                "is required (it has no built-in default)",
            )),
        }
    }

    /// Whether the setting is set (to something not empty).
    pub fn is_set<P>(&self, d: &Decl<P>) -> bool {
        self.raw(&d.setting).is_some()
    }

    /// The deprecated names that were read, as warnings.
    pub fn deprecations(&self) -> Vec<String> {
        self.deprecated.borrow().clone()
    }

    /// The settings read so far (tests check that every declared one is).
    #[cfg(test)]
    pub fn read(&self) -> BTreeSet<&'static str> {
        self.read.borrow().clone()
    }
}

/// The TOML file's settings as text, each under its file key; unknown keys are an error.
fn read_file(path: &Path, settings: &[Setting]) -> Result<BTreeMap<String, String>, ConfigError> {
    const NAME: &str = "DJAMBI_CONFIG";
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| err(NAME, format!("cannot read `{shown}`: {e}")))?;
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| err(NAME, format!("`{shown}` is not valid TOML: {e}")))?;
    let known: Vec<&str> = settings
        .iter()
        .flat_map(|s| {
            s.key
                .into_iter()
                .chain(s.aliases.iter().filter_map(|a| a.key))
        })
        .collect();
    let mut out = BTreeMap::new();
    for (key, value) in table {
        if !known.contains(&key.as_str()) {
            return Err(err(
                NAME,
                format!(
                    "`{shown}`: unknown setting `{key}` (known: {})",
                    known.join(", ")
                ),
            ));
        }
        let text = match value {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                return Err(err(
                    NAME,
                    format!(
                        "`{shown}`: `{key}` must be a string, an integer or a boolean, not {}",
                        other.type_str()
                    ),
                ));
            }
        };
        out.insert(key, text);
    }
    Ok(out)
}
