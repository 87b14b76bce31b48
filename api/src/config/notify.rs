//! Settings of notification delivery (webhooks, e-mail, the delivery worker, vacations),
//! parsed with the rest of [`super::Config`] into its `notify` field. The notifications code
//! reads them as `crate::notifications::config::*` (a re-export of this module).
//!
//! The mail server is `DJAMBI_SMTP_URL` (`smtp://user:pass@host:587?tls=starttls`, as
//! providers print it); `DJAMBI_SMTP_HOST`, `_PORT`, `_TLS`, `_USERNAME` and `_PASSWORD`
//! override its parts, or describe the server without it.

use std::time::Duration;

use super::declare::Sources;

pub use super::smtp_url::{SmtpTls, SmtpUrl};
use super::{ConfigError, Secret, settings};

#[derive(Debug, Clone)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub tls: SmtpTls,
    pub username: Option<String>,
    pub password: Option<Secret>,
    pub from: String,
}

#[derive(Debug, Clone)]
pub struct NotifyConfig {
    pub delivery_interval: Duration,
    pub delivery_lease: Duration,
    pub max_attempts: u32,
    pub backoff: Duration,
    pub backoff_max: Duration,
    pub webhook_timeout: Duration,
    pub webhook_disable_after: u32,
    pub webhook_secret_grace: Duration,
    pub webhook_allow_private: bool,
    /// Connecting to a webhook or push endpoint (`DJAMBI_WEBHOOK_CONNECT_TIMEOUT`).
    pub webhook_connect_timeout: Duration,
    /// From the request to its answer's head (`DJAMBI_WEBHOOK_FIRST_BYTE_TIMEOUT`).
    pub webhook_first_byte_timeout: Duration,
    /// Webhook and push attempts in flight per instance (`DJAMBI_DELIVERY_CONCURRENCY`).
    pub delivery_concurrency: usize,
    /// Mails sent at once per instance (`DJAMBI_MAIL_CONCURRENCY`).
    pub mail_concurrency: usize,
    /// Attempts in flight per endpoint (`DJAMBI_DELIVERY_PER_ENDPOINT`).
    pub delivery_per_endpoint: usize,
    /// Attempts in flight per account (`DJAMBI_DELIVERY_PER_ACCOUNT`).
    pub delivery_per_account: usize,
    /// Webhook endpoints one account may hold (`DJAMBI_QUOTA_WEBHOOKS`).
    pub quota_webhooks: u64,
    /// Push subscriptions one account may hold (`DJAMBI_QUOTA_PUSH_SUBSCRIPTIONS`).
    pub quota_push_subscriptions: u64,
    /// `None`: no e-mail is sent (the channel is off for everyone).
    pub smtp: Option<SmtpConfig>,
    pub vacation_days: u32,
    /// `None`: no Web Push (the channel is off for everyone).
    pub vapid: Option<VapidConfig>,
    /// `DJAMBI_VAPID_SUBJECT` or its default (also the development key's subject).
    pub vapid_subject: String,
    /// Push services trusted without the address checks (host suffixes).
    pub push_service_hosts: Vec<String>,
}

/// The server's Web Push identity.
#[derive(Debug, Clone)]
pub struct VapidConfig {
    /// The P-256 private key, 32 bytes in base64url.
    pub private_key: Secret,
    /// `mailto:` or `https:` (the `sub` claim).
    pub subject: String,
    /// Made for development (kept beside the SQLite file), not configured.
    pub generated: bool,
}

impl NotifyConfig {
    /// These settings alone, from `get` (an environment variable's value by its name).
    pub fn parse(get: &dyn Fn(&str) -> Option<String>) -> Result<NotifyConfig, ConfigError> {
        NotifyConfig::read(&Sources::new(get))
    }

    pub(crate) fn read(src: &Sources<'_>) -> Result<NotifyConfig, ConfigError> {
        use settings::*;
        Ok(NotifyConfig {
            delivery_interval: src.value(&DELIVERY_INTERVAL)?,
            delivery_lease: src.value(&DELIVERY_LEASE)?,
            max_attempts: src.value(&DELIVERY_MAX_ATTEMPTS)?,
            backoff: src.value(&DELIVERY_BACKOFF)?,
            backoff_max: src.value(&DELIVERY_BACKOFF_MAX)?,
            webhook_timeout: src.value(&WEBHOOK_TIMEOUT)?,
            webhook_disable_after: src.value(&WEBHOOK_DISABLE_AFTER)?,
            webhook_secret_grace: src.value(&WEBHOOK_SECRET_GRACE)?,
            webhook_allow_private: src.value(&WEBHOOK_ALLOW_PRIVATE)?,
            webhook_connect_timeout: src.value(&WEBHOOK_CONNECT_TIMEOUT)?,
            webhook_first_byte_timeout: src.value(&WEBHOOK_FIRST_BYTE_TIMEOUT)?,
            delivery_concurrency: src.value(&DELIVERY_CONCURRENCY)?,
            mail_concurrency: src.value(&MAIL_CONCURRENCY)?,
            delivery_per_endpoint: src.value(&DELIVERY_PER_ENDPOINT)?,
            delivery_per_account: src.value(&DELIVERY_PER_ACCOUNT)?,
            quota_webhooks: src.value(&QUOTA_WEBHOOKS)?,
            quota_push_subscriptions: src.value(&QUOTA_PUSH_SUBSCRIPTIONS)?,
            smtp: read_smtp(src)?,
            vacation_days: src.value(&VACATION_DAYS)?,
            vapid: read_vapid(src)?,
            vapid_subject: read_vapid_subject(src)?,
            push_service_hosts: src
                .value(&PUSH_SERVICE_HOSTS)?
                .into_iter()
                .map(|h| h.trim_start_matches('.').to_ascii_lowercase())
                .collect(),
        })
    }
}

/// The VAPID key and subject (the subject defaults to the sender's address).
fn read_vapid(src: &Sources<'_>) -> Result<Option<VapidConfig>, ConfigError> {
    use settings::*;
    let key = src.optional(&VAPID_PRIVATE_KEY)?;
    let subject = read_vapid_subject(src)?;
    Ok(key.map(|private_key| VapidConfig {
        private_key,
        subject,
        generated: false,
    }))
}

fn read_vapid_subject(src: &Sources<'_>) -> Result<String, ConfigError> {
    use settings::*;
    Ok(match src.optional(&VAPID_SUBJECT)? {
        Some(s) => {
            if !(s.starts_with("mailto:") || s.starts_with("https://")) || s.len() < 8 {
                return Err(ConfigError {
                    setting: VAPID_SUBJECT.setting.env.to_string(),
                    message: "must be a mailto: or https:// URL".into(),
                });
            }
            s
        }
        None => default_subject(&src.value(&MAIL_FROM)?),
    })
}

/// `mailto:` and the address of a sender such as `Djambi <djambi@example.org>`.
pub fn default_subject(from: &str) -> String {
    let addr = match (from.rfind('<'), from.rfind('>')) {
        (Some(a), Some(b)) if a < b => &from[a + 1..b],
        _ => from,
    };
    format!("mailto:{}", addr.trim())
}

/// The URL's parts, each overridden by its own setting; `None` without a host.
fn read_smtp(src: &Sources<'_>) -> Result<Option<SmtpConfig>, ConfigError> {
    use settings::*;
    // Every part is read (and checked) even when mail is off.
    let url = src.optional(&SMTP_URL)?;
    let host = src.optional(&SMTP_HOST)?;
    let port = src.optional(&SMTP_PORT)?;
    let tls = src.optional(&SMTP_TLS)?;
    let username = src.optional(&SMTP_USERNAME)?;
    let password = src.optional(&SMTP_PASSWORD)?;
    let from = src.value(&MAIL_FROM)?;
    let url = url.unwrap_or_default();
    let Some(host) = host.or(url.host) else {
        return Ok(None);
    };
    let tls = tls.or(url.tls).unwrap_or(SmtpTls::StartTls);
    Ok(Some(SmtpConfig {
        host,
        port: port.or(url.port).unwrap_or_else(|| tls.default_port()),
        tls,
        username: username.or(url.username),
        password: password.or(url.password),
        from,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse::Parse;
    use std::collections::HashMap;

    fn notify(vars: &[(&str, &str)]) -> Result<NotifyConfig, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        NotifyConfig::parse(&|k| map.get(k).cloned())
    }

    fn smtp(vars: &[(&str, &str)]) -> SmtpConfig {
        notify(vars).unwrap().smtp.expect("mail is on")
    }

    #[test]
    fn no_host_no_mail() {
        assert!(notify(&[]).unwrap().smtp.is_none());
        assert!(
            notify(&[("DJAMBI_SMTP_USERNAME", "u")])
                .unwrap()
                .smtp
                .is_none()
        );
    }

    #[test]
    fn the_parts_alone_as_before() {
        let s = smtp(&[
            ("DJAMBI_SMTP_HOST", "mail"),
            ("DJAMBI_SMTP_TLS", "none"),
            ("DJAMBI_SMTP_USERNAME", "u"),
            ("DJAMBI_SMTP_PASSWORD", "p w"),
        ]);
        assert_eq!(
            (s.host.as_str(), s.port, s.tls),
            ("mail", 25, SmtpTls::None)
        );
        assert_eq!(s.username.as_deref(), Some("u"));
        assert_eq!(s.password.as_ref().map(Secret::expose), Some("p w"));
        assert_eq!(s.from, "Djambi <djambi@localhost>");
        let s = smtp(&[("DJAMBI_SMTP_HOST", "mail")]);
        assert_eq!((s.port, s.tls), (587, SmtpTls::StartTls));
    }

    #[test]
    fn the_url_form() {
        let s = smtp(&[(
            "DJAMBI_SMTP_URL",
            "smtp://apikey:s%3Acr%40t%2F@smtp.example.org:2525?tls=starttls",
        )]);
        assert_eq!(s.host, "smtp.example.org");
        assert_eq!((s.port, s.tls), (2525, SmtpTls::StartTls));
        assert_eq!(s.username.as_deref(), Some("apikey"));
        assert_eq!(s.password.as_ref().map(Secret::expose), Some("s:cr@t/"));
        assert!(!format!("{s:?}").contains("s:cr@t/"));

        // Default ports and modes.
        for (url, port, tls) in [
            ("smtp://mail.example.org", 587, SmtpTls::StartTls),
            ("smtp://mail.example.org?tls=none", 25, SmtpTls::None),
            ("smtp://mail.example.org/?tls=TLS", 465, SmtpTls::Tls),
            ("smtps://u:p@mail.example.org", 465, SmtpTls::Tls),
            ("smtps://mail.example.org:2465?tls=tls", 2465, SmtpTls::Tls),
            ("smtp://[::1]:1025?tls=none", 1025, SmtpTls::None),
        ] {
            let s = smtp(&[("DJAMBI_SMTP_URL", url)]);
            assert_eq!((s.port, s.tls), (port, tls), "{url}");
        }
    }

    #[test]
    fn the_parts_override_the_url() {
        let s = smtp(&[
            ("DJAMBI_SMTP_URL", "smtp://user:secret@relay.example.org"),
            ("DJAMBI_SMTP_HOST", "other.example.org"),
            ("DJAMBI_SMTP_TLS", "tls"),
            ("DJAMBI_SMTP_PASSWORD", "rotated"),
        ]);
        assert_eq!(s.host, "other.example.org");
        // No port anywhere: the one of the final mode.
        assert_eq!((s.port, s.tls), (465, SmtpTls::Tls));
        assert_eq!(s.username.as_deref(), Some("user"));
        assert_eq!(s.password.as_ref().map(Secret::expose), Some("rotated"));
        let s = smtp(&[
            ("DJAMBI_SMTP_URL", "smtp://relay.example.org:2525"),
            ("DJAMBI_SMTP_TLS", "none"),
        ]);
        assert_eq!(s.port, 2525, "the URL's port stays");
        let s = smtp(&[
            ("DJAMBI_SMTP_URL", "smtp://relay.example.org:2525"),
            ("DJAMBI_SMTP_PORT", "26"),
        ]);
        assert_eq!(s.port, 26);
    }

    #[test]
    fn mail_from_and_its_old_name() {
        let s = smtp(&[
            ("DJAMBI_SMTP_HOST", "mail"),
            ("DJAMBI_SMTP_FROM", "Old <old@example.org>"),
        ]);
        assert_eq!(s.from, "Old <old@example.org>");
        let s = smtp(&[
            ("DJAMBI_SMTP_HOST", "mail"),
            ("DJAMBI_SMTP_FROM", "Old <old@example.org>"),
            ("DJAMBI_MAIL_FROM", "New <new@example.org>"),
        ]);
        assert_eq!(s.from, "New <new@example.org>");
    }

    #[test]
    fn bad_urls_name_the_setting_and_hide_the_password() {
        for url in [
            "mailto:someone@example.org",
            "http://u:hunter2@example.org",
            "smtp://u:hunter2@",
            "smtp://u:hunter2@host:99999",
            "smtp://u:hunter2@host:0",
            "smtp://u:hunter2@host/path",
            "smtp://u:hunter2@host?tls=maybe",
            "smtp://u:hunter2@host?tls=none&tls=tls",
            "smtp://u:hunter2@host?starttls=1",
            "smtp://u:hun#ter2@host",
            "smtps://u:hunter2@host?tls=none",
            "smtp://u:%FF%FEhunter2@host",
            "hunter2",
        ] {
            let e = notify(&[("DJAMBI_SMTP_URL", url)]).unwrap_err();
            assert_eq!(e.setting, "DJAMBI_SMTP_URL", "{url}: {e}");
            assert!(!e.to_string().contains("hunter2"), "{url}: {e}");
            assert!(!e.to_string().contains('\n'), "{url}: {e}");
        }
        let e = notify(&[("DJAMBI_SMTP_PASSWORD", "x"), ("DJAMBI_SMTP_PORT", "x")]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_SMTP_PORT");
        let e = notify(&[("DJAMBI_SMTP_TLS", "ssl")]).unwrap_err();
        assert_eq!(e.setting, "DJAMBI_SMTP_TLS");
    }

    mod properties {
        use super::*;
        use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
        use proptest::prelude::*;

        fn host() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-z][a-z0-9-]{0,10}(\\.[a-z][a-z0-9]{0,8}){0,3}",
                (any::<u8>(), any::<u8>(), any::<u8>(), 1u8..255)
                    .prop_map(|(a, b, c, d)| format!("{a}.{b}.{c}.{d}")),
            ]
        }

        fn tls() -> impl Strategy<Value = Option<SmtpTls>> {
            prop_oneof![
                Just(None),
                Just(Some(SmtpTls::None)),
                Just(Some(SmtpTls::StartTls)),
                Just(Some(SmtpTls::Tls)),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

            /// Whatever the text, the parser answers (no panic), and never with the text.
            #[test]
            fn never_panics(text in "\\PC*", password in "[A-Za-z0-9]{12}") {
                let _ = SmtpUrl::parse(&text);
                let with_password = format!("smtp://u:{password}@{text}");
                if let Err(e) = SmtpUrl::parse(&with_password) {
                    prop_assert!(!e.contains(&password), "{}", e);
                }
            }

            /// A URL made of any parts reads back as those parts.
            #[test]
            fn round_trip(
                host in host(),
                port in proptest::option::of(1u16..),
                tls in tls(),
                smtps in any::<bool>(),
                username in proptest::option::of("\\PC{1,16}"),
                password in proptest::option::of("\\PC{1,16}"),
            ) {
                let smtps = smtps && matches!(tls, None | Some(SmtpTls::Tls));
                let mut url = String::from(if smtps { "smtps://" } else { "smtp://" });
                let enc = |s: &str| utf8_percent_encode(s, NON_ALPHANUMERIC).to_string();
                if username.is_some() || password.is_some() {
                    url += &enc(username.as_deref().unwrap_or(""));
                    if let Some(p) = &password {
                        url += ":";
                        url += &enc(p);
                    }
                    url += "@";
                }
                url += &host;
                if let Some(p) = port {
                    url += &format!(":{p}");
                }
                let word = |t: SmtpTls| match t {
                    SmtpTls::None => "none",
                    SmtpTls::StartTls => "starttls",
                    SmtpTls::Tls => "tls",
                };
                if let Some(t) = tls {
                    url += &format!("?tls={}", word(t));
                }
                let parts = SmtpUrl::parse(&url).map_err(|e| TestCaseError::fail(format!("{url}: {e}")))?;
                prop_assert_eq!(parts.host.as_deref(), Some(host.as_str()));
                prop_assert_eq!(parts.port, port);
                prop_assert_eq!(parts.tls, if smtps { Some(SmtpTls::Tls) } else { tls });
                prop_assert_eq!(parts.username, username);
                prop_assert_eq!(parts.password.as_ref().map(Secret::expose), password.as_deref());
            }
        }
    }
}
