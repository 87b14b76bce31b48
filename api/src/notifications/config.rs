//! Settings of notification delivery (webhooks, e-mail, the delivery worker, vacations).
//! Parsed with the rest of [`crate::config::Config`], into its `notify` field.

use std::time::Duration;

use crate::config::{ConfigError, parse_duration_setting, parse_int};

// Its settings are listed with the others in `crate::config::SETTINGS`.

/// How mail is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpTls {
    /// Plain SMTP (a local sink or relay only).
    None,
    StartTls,
    /// TLS from the first byte (SMTPS).
    Tls,
}

#[derive(Debug, Clone)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub tls: SmtpTls,
    pub username: Option<String>,
    pub password: Option<crate::config::Secret>,
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
    /// `None`: no e-mail is sent (the channel is off for everyone).
    pub smtp: Option<SmtpConfig>,
    pub vacation_days: u32,
}

fn bad(setting: &str, message: String) -> ConfigError {
    ConfigError {
        setting: setting.into(),
        message,
    }
}

impl NotifyConfig {
    pub fn parse(get: &dyn Fn(&str) -> Option<String>) -> Result<NotifyConfig, ConfigError> {
        let dur = |name: &str, default: u64, min: Duration, max: Duration| {
            parse_duration_setting(name, get(name), Duration::from_secs(default), min, max)
        };
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        let bool_of = |name: &str| -> Result<bool, ConfigError> {
            match get(name).map(|v| v.trim().to_ascii_lowercase()) {
                None => Ok(false),
                Some(v) if v.is_empty() || v == "false" || v == "0" => Ok(false),
                Some(v) if v == "true" || v == "1" => Ok(true),
                Some(v) => Err(bad(name, format!("`{v}` is not true or false"))),
            }
        };
        let smtp = match get("DJAMBI_SMTP_HOST").filter(|h| !h.trim().is_empty()) {
            None => None,
            Some(host) => {
                let tls = match get("DJAMBI_SMTP_TLS")
                    .map(|v| v.trim().to_ascii_lowercase())
                    .as_deref()
                {
                    None | Some("starttls") => SmtpTls::StartTls,
                    Some("tls") => SmtpTls::Tls,
                    Some("none") => SmtpTls::None,
                    Some(v) => {
                        return Err(bad(
                            "DJAMBI_SMTP_TLS",
                            format!("`{v}` is not none, starttls or tls"),
                        ));
                    }
                };
                let default_port = match tls {
                    SmtpTls::None => 25,
                    SmtpTls::StartTls => 587,
                    SmtpTls::Tls => 465,
                };
                let port = parse_int(
                    "DJAMBI_SMTP_PORT",
                    get("DJAMBI_SMTP_PORT"),
                    default_port,
                    1,
                    65535,
                )? as u16;
                Some(SmtpConfig {
                    host: host.trim().to_string(),
                    port,
                    tls,
                    username: get("DJAMBI_SMTP_USERNAME").filter(|u| !u.is_empty()),
                    password: get("DJAMBI_SMTP_PASSWORD")
                        .filter(|p| !p.is_empty())
                        .map(crate::config::Secret::new),
                    from: get("DJAMBI_SMTP_FROM")
                        .filter(|f| !f.trim().is_empty())
                        .unwrap_or_else(|| "Djambi <djambi@localhost>".into()),
                })
            }
        };
        Ok(NotifyConfig {
            delivery_interval: dur("DJAMBI_DELIVERY_INTERVAL", 1, ms(1), s(3600))?,
            delivery_lease: dur("DJAMBI_DELIVERY_LEASE", 60, s(1), s(86_400))?,
            max_attempts: parse_int(
                "DJAMBI_DELIVERY_MAX_ATTEMPTS",
                get("DJAMBI_DELIVERY_MAX_ATTEMPTS"),
                8,
                1,
                100,
            )? as u32,
            backoff: dur("DJAMBI_DELIVERY_BACKOFF", 30, ms(1), s(86_400))?,
            backoff_max: dur(
                "DJAMBI_DELIVERY_BACKOFF_MAX",
                6 * 3600,
                ms(1),
                s(7 * 86_400),
            )?,
            webhook_timeout: dur("DJAMBI_WEBHOOK_TIMEOUT", 10, ms(10), s(120))?,
            webhook_disable_after: parse_int(
                "DJAMBI_WEBHOOK_DISABLE_AFTER",
                get("DJAMBI_WEBHOOK_DISABLE_AFTER"),
                20,
                1,
                10_000,
            )? as u32,
            webhook_secret_grace: dur("DJAMBI_WEBHOOK_SECRET_GRACE", 86_400, s(0), s(30 * 86_400))?,
            webhook_allow_private: bool_of("DJAMBI_WEBHOOK_ALLOW_PRIVATE")?,
            smtp,
            vacation_days: parse_int(
                "DJAMBI_VACATION_DAYS",
                get("DJAMBI_VACATION_DAYS"),
                30,
                0,
                366,
            )? as u32,
        })
    }
}
