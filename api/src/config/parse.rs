//! The value parsers a setting declares (`ACCESS_TOKEN_TTL: Dur<{ 10 * S }, { 24 * H }>`).
//!
//! A parser is a type: its bounds are const generics, so the declaration in
//! [`super::settings`] names everything about a setting's values, and the same parser reads
//! the environment, the file and the built-in default. A parser's error is one line without
//! the setting's name; the caller adds it ([`super::ConfigError`]).

use std::marker::PhantomData;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use super::{LogFormat, RateSpec, Secret};

/// One millisecond, one second, ... in milliseconds: the units of [`Dur`]'s bounds.
pub const MS: u64 = 1;
pub const S: u64 = 1000;
pub const M: u64 = 60 * S;
pub const H: u64 = 60 * M;
pub const D: u64 = 24 * H;

/// Reads a setting's text as given (not empty; each parser trims what it should).
pub trait Parse {
    type Out;
    fn parse(text: &str) -> Result<Self::Out, String>;
}

/// Parses `90`, `90s`, `15m`, `12h`, `30d`, `500ms` (a bare number is seconds).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: u64 = digits.parse().ok()?;
    let mult = match unit.trim() {
        "ms" => return Some(Duration::from_millis(n)),
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    n.checked_mul(mult).map(Duration::from_secs)
}

/// A duration between `MIN` and `MAX` milliseconds (inclusive).
pub struct Dur<const MIN: u64, const MAX: u64>;

impl<const MIN: u64, const MAX: u64> Parse for Dur<MIN, MAX> {
    type Out = Duration;
    fn parse(text: &str) -> Result<Duration, String> {
        let d = parse_duration(text).ok_or_else(|| {
            format!("`{text}` is not a duration (examples: 90, 90s, 500ms, 15m, 12h, 30d)")
        })?;
        let (min, max) = (Duration::from_millis(MIN), Duration::from_millis(MAX));
        if d < min || d > max {
            return Err(format!("`{text}` is out of range ({min:?}..={max:?})"));
        }
        Ok(d)
    }
}

/// A whole number between `MIN` and `MAX`, as a `T` (which holds `MAX`).
pub struct Int<T, const MIN: u64, const MAX: u64>(PhantomData<T>);

impl<T: TryFrom<u64>, const MIN: u64, const MAX: u64> Parse for Int<T, MIN, MAX> {
    type Out = T;
    fn parse(text: &str) -> Result<T, String> {
        let n: u64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a whole number"))?;
        if n < MIN || n > MAX {
            return Err(format!("{n} is out of range ({MIN}..={MAX})"));
        }
        T::try_from(n).map_err(|_| format!("{n} is too large"))
    }
}

/// `N/DURATION`: `N` events, refilled evenly over `DURATION` (both above zero).
pub struct Rate;

impl Parse for Rate {
    type Out = RateSpec;
    fn parse(text: &str) -> Result<RateSpec, String> {
        let bad = || format!("`{text}` is not a rate N/DURATION (examples: 5/5m, 30/1m)");
        let (n, d) = text.split_once('/').ok_or_else(bad)?;
        let burst: u32 = n.trim().parse().map_err(|_| bad())?;
        let period = parse_duration(d).ok_or_else(bad)?;
        if burst == 0 || period.is_zero() {
            return Err(format!("`{text}`: both parts must be above zero"));
        }
        Ok(RateSpec { burst, period })
    }
}

/// `on`/`true`/`1`/`yes` or `off`/`false`/`0`/`no`, in any case.
pub struct Flag;

impl Parse for Flag {
    type Out = bool;
    fn parse(text: &str) -> Result<bool, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "1" | "yes" => Ok(true),
            "off" | "false" | "0" | "no" => Ok(false),
            _ => Err(format!(
                "`{}` is neither on/true nor off/false",
                text.trim()
            )),
        }
    }
}

/// A closed set of words (in any case), each naming one value of `T`.
pub trait Words: Copy + 'static {
    const WORDS: &'static [(&'static str, Self)];
}

/// One of `T`'s [`Words`].
pub struct OneOf<T>(PhantomData<T>);

impl<T: Words> Parse for OneOf<T> {
    type Out = T;
    fn parse(text: &str) -> Result<T, String> {
        let word = text.trim().to_ascii_lowercase();
        if let Some((_, v)) = T::WORDS.iter().find(|(w, _)| *w == word) {
            return Ok(*v);
        }
        let names: Vec<String> = T::WORDS.iter().map(|(w, _)| format!("`{w}`")).collect();
        let (last, rest) = names.split_last().expect("a choice has words");
        Err(format!(
            "`{}` is not {} or {last}",
            text.trim(),
            rest.join(", ")
        ))
    }
}

impl Words for LogFormat {
    const WORDS: &'static [(&'static str, Self)] =
        &[("text", LogFormat::Text), ("json", LogFormat::Json)];
}

/// Text, surrounding white space removed.
pub struct Text;

impl Parse for Text {
    type Out = String;
    fn parse(text: &str) -> Result<String, String> {
        Ok(text.trim().to_string())
    }
}

/// Text as given (user names, which may have meaningful spaces).
pub struct Verbatim;

impl Parse for Verbatim {
    type Out = String;
    fn parse(text: &str) -> Result<String, String> {
        Ok(text.to_string())
    }
}

/// A secret of at least `MIN` bytes, as given (a signing key is every byte of it).
pub struct Key<const MIN: usize>;

impl<const MIN: usize> Parse for Key<MIN> {
    type Out = Secret;
    fn parse(text: &str) -> Result<Secret, String> {
        check_len::<MIN>(text)?;
        Ok(Secret::new(text))
    }
}

/// A VAPID signing key (RFC 8292): a P-256 private key as 32 bytes in base64url (what
/// `npx web-push generate-vapid-keys` prints as the private key) or a PEM (`openssl ecparam
/// -name prime256v1 -genkey`: SEC1 or PKCS#8). Out: the 32 bytes in base64url.
pub struct VapidKey;

impl Parse for VapidKey {
    type Out = Secret;
    fn parse(text: &str) -> Result<Secret, String> {
        use base64::Engine;
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let t = text.trim();
        let key = if t.starts_with("-----BEGIN") {
            p256::SecretKey::from_sec1_pem(t)
                .or_else(|_| p256::pkcs8::DecodePrivateKey::from_pkcs8_pem(t))
                .map_err(|_| "not a P-256 private key in PEM (SEC1 or PKCS#8)".to_string())?
        } else {
            let bytes = URL_SAFE_NO_PAD
                .decode(t.trim_end_matches('='))
                .map_err(|_| "not base64url (or a PEM)".to_string())?;
            p256::SecretKey::from_slice(&bytes)
                .map_err(|_| "not a P-256 private key (32 bytes in base64url)".to_string())?
        };
        Ok(Secret::new(URL_SAFE_NO_PAD.encode(key.to_bytes())))
    }
}

/// A bearer token of at least `MIN` bytes, surrounding white space removed.
pub struct Token<const MIN: usize>;

impl<const MIN: usize> Parse for Token<MIN> {
    type Out = Secret;
    fn parse(text: &str) -> Result<Secret, String> {
        check_len::<MIN>(text.trim())?;
        Ok(Secret::new(text.trim()))
    }
}

fn check_len<const MIN: usize>(text: &str) -> Result<(), String> {
    if text.len() < MIN {
        return Err(format!(
            "too short: {} bytes, at least {MIN} are required (e.g. `openssl rand -base64 48`)",
            text.len()
        ));
    }
    Ok(())
}

/// `host:port`, resolved once at start.
pub struct HostPort;

impl Parse for HostPort {
    type Out = SocketAddr;
    fn parse(text: &str) -> Result<SocketAddr, String> {
        text.trim()
            .to_socket_addrs()
            .map_err(|e| format!("`{text}` is not host:port ({e})"))?
            .next()
            .ok_or_else(|| format!("`{text}` resolves to nothing"))
    }
}

/// An `http://` or `https://` URL with a host.
pub struct HttpUrl;

impl Parse for HttpUrl {
    type Out = url::Url;
    fn parse(text: &str) -> Result<url::Url, String> {
        let u = url::Url::parse(text.trim()).map_err(|e| format!("`{text}` is not a URL ({e})"))?;
        if !matches!(u.scheme(), "http" | "https") || u.host().is_none() {
            return Err(format!(
                "`{text}` must be an http:// or https:// URL with a host"
            ));
        }
        Ok(u)
    }
}

/// An origin as browsers send it: `https://app.example.org` (no path, no trailing slash).
pub struct Origin;

impl Parse for Origin {
    type Out = String;
    fn parse(item: &str) -> Result<String, String> {
        let ok = url::Url::parse(item).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.host().is_some()
                && u.path() == "/"
                && !item.ends_with('/')
                && u.query().is_none()
        });
        if ok {
            Ok(item.to_string())
        } else {
            Err(format!(
                "`{item}` is not an origin like https://app.example.org"
            ))
        }
    }
}

/// An IP address (a one-address network) or a CIDR network.
pub struct Network;

impl Parse for Network {
    type Out = ipnet::IpNet;
    fn parse(item: &str) -> Result<ipnet::IpNet, String> {
        item.parse::<ipnet::IpNet>()
            .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
            .map_err(|_| format!("`{item}` is not an address or a CIDR network"))
    }
}

/// A comma-separated list of `P`, items trimmed, empty ones dropped.
pub struct List<P>(PhantomData<P>);

impl<P: Parse> Parse for List<P> {
    type Out = Vec<P::Out>;
    fn parse(text: &str) -> Result<Vec<P::Out>, String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(P::parse)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("15m"), Some(Duration::from_secs(900)));
        assert_eq!(parse_duration("2d"), Some(Duration::from_secs(172_800)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("99999999999999999999d"), None);
        assert!(
            Dur::<S, { 2 * S }>::parse("3")
                .unwrap_err()
                .contains("out of range")
        );
    }

    #[test]
    fn words_and_flags() {
        assert_eq!(OneOf::<LogFormat>::parse(" JSON "), Ok(LogFormat::Json));
        assert_eq!(
            OneOf::<LogFormat>::parse("xml").unwrap_err(),
            "`xml` is not `text` or `json`"
        );
        assert_eq!(Flag::parse("Off"), Ok(false));
        assert_eq!(Flag::parse("1"), Ok(true));
        assert!(Flag::parse("maybe").is_err());
    }

    #[test]
    fn ints_check_their_range() {
        assert_eq!(Int::<u16, 1, 65535>::parse(" 25 "), Ok(25));
        assert!(Int::<u16, 1, 65535>::parse("0").is_err());
        assert!(Int::<u16, 1, 65535>::parse("-3").is_err());
        assert!(Int::<u16, 1, 65535>::parse("70000").is_err());
    }
}
