//! Webhook endpoints: registration, secrets and their rotation, signing (Standard
//! Webhooks), and the guard against server-side request forgery.
//!
//! A delivery is `POST <url>` with a JSON body `{"type", "timestamp", "data"}` and:
//!
//! - `webhook-id`: the notification's stable id (the same on every retry and from every
//!   instance: receivers de-duplicate by it);
//! - `webhook-timestamp`: seconds since the Unix epoch;
//! - `webhook-signature`: `v1,<base64 of HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`,
//!   where the key is the base64-decoded part of the secret after `whsec_`. During a
//!   rotation the header carries two signatures separated by a space (new secret first),
//!   so receivers may switch at their own pace.
//!
//! Endpoints may only be `http`/`https` URLs whose host resolves to public addresses
//! (not loopback, private, link-local, unique-local, CGNAT, multicast or unspecified),
//! checked at registration and again at every connection (by the client's resolver, so
//! a DNS change cannot point a registered host inward); `DJAMBI_WEBHOOK_ALLOW_PRIVATE=true`
//! lifts this for development and tests. Redirects are not followed.
//!
//! The use cases of the endpoints (register, list, delete, rotate, deliveries) are
//! [`super::webhook_endpoints`].

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use hmac::{KeyInit, Mac};

pub use super::webhook_endpoints::RECENT_DELIVERIES;
pub use crate::store::deliveries::DeliveryRow;
pub use crate::store::webhooks::WebhookRow;

pub const MAX_URL_LEN: usize = 2000;

/// A new secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> String {
    use rand::RngCore;
    let mut key = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut key);
    format!("whsec_{}", B64.encode(key))
}

/// One signature (`v1,<base64>`), or `None` for a malformed secret.
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let key = B64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .ok()?;
    let mut mac = hmac::Hmac::<sha2_011::Sha256>::new_from_slice(&key).ok()?;
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(format!("v1,{}", B64.encode(mac.finalize().into_bytes())))
}

/// The `webhook-signature` header: one signature per secret, space-separated.
pub fn signature_header(secrets: &[&str], msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .filter_map(|s| sign(s, msg_id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Addresses a webhook may not reach (unless private targets are allowed).
pub fn forbidden_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64) // 100.64.0.0/10
                || (o[0] == 192 && o[1] == 0 && o[2] == 0) // 192.0.0.0/24
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return forbidden_ip(IpAddr::V4(v4));
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] == 0x64 && s[1] == 0xff9b) // NAT64 of anything
        }
    }
}

/// Checks a URL's form (http/https, a host, no credentials) and, when the host is an
/// address literal, the address. Returns the parsed URL.
pub fn check_url(text: &str, allow_private: bool) -> Result<url::Url, String> {
    if text.len() > MAX_URL_LEN {
        return Err(format!("at most {MAX_URL_LEN} characters"));
    }
    let url = url::Url::parse(text.trim()).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("only http:// and https:// URLs".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("no credentials in the URL".into());
    }
    let ip = match url.host() {
        None => return Err("the URL needs a host".into()),
        Some(url::Host::Ipv4(a)) => Some(IpAddr::V4(a)),
        Some(url::Host::Ipv6(a)) => Some(IpAddr::V6(a)),
        Some(url::Host::Domain(d)) => {
            if !allow_private && (d.eq_ignore_ascii_case("localhost") || d.ends_with(".localhost"))
            {
                return Err("the host is local".into());
            }
            None
        }
    };
    if let Some(ip) = ip {
        if !allow_private && forbidden_ip(ip) {
            return Err("the address is loopback, private, link-local or unspecified".into());
        }
    }
    Ok(url)
}

/// [`check_url`], then resolves a named host: every address must be allowed.
pub async fn check_url_resolving(text: &str, allow_private: bool) -> Result<url::Url, String> {
    let url = check_url(text, allow_private)?;
    if let (Some(url::Host::Domain(d)), false) = (url.host(), allow_private) {
        let port = url.port_or_known_default().unwrap_or(443);
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((d, port))
            .await
            .map_err(|e| format!("the host does not resolve ({e})"))?
            .collect();
        if addrs.is_empty() {
            return Err("the host does not resolve".into());
        }
        if addrs.iter().any(|a| forbidden_ip(a.ip())) {
            return Err("the host resolves to a loopback, private or link-local address".into());
        }
    }
    Ok(url)
}

/// The delivery client's resolver: drops forbidden addresses, so a host that resolves
/// only to such addresses cannot be reached.
#[derive(Debug)]
struct GuardedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| allow || !forbidden_ip(a.ip()))
                .collect();
            if addrs.is_empty() {
                return Err(format!("{host} resolves to no allowed address").into());
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The HTTP client deliveries use.
pub fn client(
    timeout: std::time::Duration,
    connect_timeout: std::time::Duration,
    allow_private: bool,
) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .dns_resolver(Arc::new(GuardedResolver { allow_private }))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(connect_timeout.min(timeout))
        .user_agent(concat!("Djambi-Webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("webhook client: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification.
        let s = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(
            s.as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
    }

    #[test]
    fn private_addresses_are_refused() {
        for u in [
            "http://127.0.0.1/x",
            "http://10.1.2.3/",
            "http://192.168.0.1/",
            "http://169.254.169.254/latest",
            "http://[::1]/",
            "http://[fe80::1]/",
            "http://[fd00::1]/",
            "http://0.0.0.0/",
            "http://[::ffff:127.0.0.1]/",
            "http://localhost:8080/",
            "ftp://example.org/",
            "http://user:pw@example.org/",
        ] {
            assert!(check_url(u, false).is_err(), "{u}");
        }
        assert!(check_url("https://93.184.216.34/hook", false).is_ok());
        assert!(check_url("http://127.0.0.1:9/hook", true).is_ok());
    }
}
