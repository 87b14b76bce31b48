//! The types of the SMTP settings: the TLS mode and `DJAMBI_SMTP_URL`'s parser, below
//! both the declarations (`settings`) and the mail configuration (`notify`).

use percent_encoding::percent_decode_str;

use super::Secret;
use super::parse::{Parse, Words};

/// How mail is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// Plain SMTP (a local sink or relay only).
    None,
    StartTls,
    /// TLS from the first byte (SMTPS).
    Tls,
}

impl SmtpTls {
    /// The port this way of sending uses unless another is given.
    pub fn default_port(self) -> u16 {
        match self {
            SmtpTls::None => 25,
            SmtpTls::StartTls => 587,
            SmtpTls::Tls => 465,
        }
    }
}

impl Words for SmtpTls {
    const WORDS: &'static [(&'static str, Self)] = &[
        ("none", SmtpTls::None),
        ("starttls", SmtpTls::StartTls),
        ("tls", SmtpTls::Tls),
    ];
}

/// What a `DJAMBI_SMTP_URL` says; the parts it leaves out are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SmtpUrlParts {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub tls: Option<SmtpTls>,
    pub username: Option<String>,
    pub password: Option<Secret>,
}

/// The parser of `DJAMBI_SMTP_URL`: `smtp://[USER[:PASSWORD]@]HOST[:PORT][?tls=MODE]` or
/// `smtps://...` (TLS from the first byte). Its errors never repeat the URL: it may hold a
/// password.
pub struct SmtpUrl;

impl Parse for SmtpUrl {
    type Out = SmtpUrlParts;
    fn parse(text: &str) -> Result<SmtpUrlParts, String> {
        let u = url::Url::parse(text.trim())
            .map_err(|e| format!("is not a URL like smtp://user:password@host:587 ({e})"))?;
        let mut tls = match u.scheme() {
            "smtp" => None,
            "smtps" => Some(SmtpTls::Tls),
            _ => return Err("must start with smtp:// or smtps://".into()),
        };
        let host = match u.host_str() {
            Some(h) if !h.is_empty() => h.to_string(),
            _ => return Err("has no host (smtp://host or smtp://user:password@host)".into()),
        };
        if u.port() == Some(0) {
            return Err("port 0 is not a port".into());
        }
        if !matches!(u.path(), "" | "/") {
            return Err("has a path; only smtp://user:password@host:port?tls=... is read".into());
        }
        if u.fragment().is_some() {
            return Err("has a #fragment (a `#` in the password must be written %23)".into());
        }
        for (name, value) in u.query_pairs() {
            if name != "tls" {
                return Err(format!("unknown parameter `{name}` (only tls= is read)"));
            }
            let mode =
                super::parse::OneOf::<SmtpTls>::parse(&value).map_err(|e| format!("tls={e}"))?;
            match tls {
                Some(SmtpTls::Tls) if u.scheme() == "smtps" && mode != SmtpTls::Tls => {
                    return Err(format!(
                        "smtps:// is TLS from the first byte; tls={value} contradicts it"
                    ));
                }
                Some(_) if u.scheme() == "smtp" => return Err("tls= is given twice".into()),
                _ => tls = Some(mode),
            }
        }
        let decode = |part: &str, what: &str| -> Result<Option<String>, String> {
            let text = percent_decode_str(part)
                .decode_utf8()
                .map_err(|_| format!("the {what} is not UTF-8 once percent-decoded"))?;
            Ok((!text.is_empty()).then(|| text.into_owned()))
        };
        Ok(SmtpUrlParts {
            host: Some(host),
            port: u.port(),
            tls,
            username: decode(u.username(), "user name")?,
            password: decode(u.password().unwrap_or(""), "password")?.map(Secret::new),
        })
    }
}
