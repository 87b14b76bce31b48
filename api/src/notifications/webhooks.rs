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
//! (not loopback, private, link-local, unique-local, site-local, CGNAT, multicast or
//! unspecified, nor an IPv6 address that carries such an IPv4 address: [`forbidden_ip`]),
//! checked at registration and again at every connection (by the client's resolver, so
//! a DNS change cannot point a registered host inward); `DJAMBI_WEBHOOK_ALLOW_PRIVATE=true`
//! lifts this for development and tests. Redirects are not followed.
//!
//! The use cases of the endpoints (register, list, delete, rotate, deliveries) are
//! [`super::webhook_endpoints`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
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

/// Addresses a webhook may not reach (unless private targets are allowed). An IPv6
/// address that carries an IPv4 one (see [`embedded_ipv4`]) is judged by the IPv4
/// addresses it carries as well: `::127.0.0.1`, `::ffff:0:7f00:1` or `2002:7f00:1::`
/// lead to the loopback as surely as `127.0.0.1`.
pub fn forbidden_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_ipv4(v4),
        IpAddr::V6(v6) => {
            if embedded_ipv4(v6).into_iter().flatten().any(forbidden_ipv4) {
                return true;
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated, still routed inward)
                // NAT64 (RFC 6052, 8215) but the well-known /96 (judged by what it
                // carries, above): a local-use or network-specific prefix of the
                // well-known /32 translates to whatever its operator chose.
                || (s[0] == 0x64 && s[1] == 0xff9b && s[2..6] != [0; 4])
        }
    }
}

fn forbidden_ipv4(v4: Ipv4Addr) -> bool {
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

/// The IPv4 addresses an IPv6 address carries, which a relay or a translator on the way
/// may turn it into (at most two: a Teredo address names its server and its client):
///
/// - IPv4-compatible `::a.b.c.d` (`::/96`, deprecated) and IPv4-mapped `::ffff:a.b.c.d`;
/// - SIIT's IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765);
/// - NAT64's well-known prefix `64:ff9b::a.b.c.d` (RFC 6052);
/// - 6to4 `2002:AABB:CCDD::/48` (RFC 3056), the address in bits 16 to 47;
/// - Teredo `2001:0::/32` (RFC 4380): the server in bits 32 to 63, the client in the last
///   32 bits with every bit flipped.
pub fn embedded_ipv4(v6: Ipv6Addr) -> [Option<Ipv4Addr>; 2] {
    let s = v6.segments();
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    let last = v4(s[6], s[7]);
    match s {
        [0, 0, 0, 0, 0, 0, ..] // compatible
        | [0, 0, 0, 0, 0, 0xffff, ..] // mapped
        | [0, 0, 0, 0, 0xffff, 0, ..] // translated
        | [0x64, 0xff9b, 0, 0, 0, 0, ..] => [Some(last), None], // NAT64
        [0x2002, hi, lo, ..] => [Some(v4(hi, lo)), None],
        [0x2001, 0, hi, lo, ..] => [Some(v4(hi, lo)), Some(v4(!s[6], !s[7]))],
        _ => [None, None],
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

/// How long an idle connection to a receiver is kept for the next attempt.
const IDLE_CONNECTION: std::time::Duration = std::time::Duration::from_secs(90);

/// The HTTP client deliveries use. One client for every attempt, so connections are
/// pooled and reused: pushes to one push service ride a few kept-alive connections (one
/// multiplexed HTTP/2 connection where the service offers h2 by ALPN) instead of a TCP and
/// TLS handshake per push.
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
        .pool_idle_timeout(IDLE_CONNECTION)
        .tcp_keepalive(IDLE_CONNECTION / 3)
        .http2_keep_alive_interval(IDLE_CONNECTION / 3)
        .http2_keep_alive_timeout(connect_timeout.max(std::time::Duration::from_secs(5)))
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

    /// Every form of an inward address, each refused by itself (the URL's host is the
    /// address, so the check needs no resolver).
    const REFUSED: &[&str] = &[
        // IPv4
        "http://127.0.0.1/x",
        "http://127.1.2.3/",
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://172.31.255.255/",
        "http://192.168.0.1/",
        "http://169.254.169.254/latest",
        "http://0.0.0.0/",
        "http://0.1.2.3/",
        "http://100.64.0.1/",
        "http://100.127.255.255/",
        "http://192.0.0.1/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://255.255.255.255/",
        "http://2130706433/", // 127.0.0.1 as one number
        "http://0x7f.1/",     // and in hexadecimal
        // IPv6
        "http://[::1]/",
        "http://[::]/",
        "http://[fe80::1]/",
        "http://[febf::1]/",
        "http://[fc00::1]/",
        "http://[fd00::1]/",
        "http://[ff02::1]/",
        "http://[fec0::1]/", // site-local
        "http://[feff::1]/", // site-local, its last /16
        // IPv6 carrying an inward IPv4 address
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[::127.0.0.1]/", // IPv4-compatible
        "http://[::10.0.0.1]/",
        "http://[::a9fe:a9fe]/",                          // ::169.254.169.254
        "http://[::ffff:0:7f00:1]/",                      // IPv4-translated (SIIT) 127.0.0.1
        "http://[::ffff:0:c0a8:1]/",                      // ... 192.168.0.1
        "http://[64:ff9b::7f00:1]/",                      // NAT64 of 127.0.0.1
        "http://[64:ff9b::a9fe:a9fe]/",                   // NAT64 of 169.254.169.254
        "http://[64:ff9b:1::1]/",                         // NAT64, local-use prefix
        "http://[2002:7f00:1::]/",                        // 6to4 of 127.0.0.1
        "http://[2002:a00:1::1]/",                        // 6to4 of 10.0.0.1
        "http://[2002:c0a8:101:1::1]/",                   // 6to4 of 192.168.1.1
        "http://[2002:a9fe:a9fe::]/",                     // 6to4 of 169.254.169.254
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", // Teredo, client 127.0.0.1
        "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/", // Teredo, client 10.0.0.1
        "http://[2001:0:a00:1:8000:63bf:a247:27dd]/",     // Teredo, server 10.0.0.1
        // Not a public http(s) URL
        "http://localhost:8080/",
        "http://foo.localhost/",
        "ftp://example.org/",
        "file:///etc/passwd",
        "gopher://example.org/",
        "http://user:pw@example.org/",
        "not a url",
    ];

    /// Public addresses, plain and carried: reachable.
    const ALLOWED: &[&str] = &[
        "https://93.184.216.34/hook",
        "https://[2606:2800:220:1:248:1893:25c8:1946]/hook",
        "https://[::ffff:93.184.216.34]/hook",
        "https://[::ffff:0:5db8:d822]/hook",
        "https://[64:ff9b::5db8:d822]/hook",
        "https://[2002:5db8:d822::1]/hook",
        "https://[2001:0:4136:e378:8000:63bf:a247:27dd]/hook",
        "https://example.org/hook",
    ];

    #[test]
    fn inward_addresses_in_every_form_are_refused() {
        for u in REFUSED {
            assert!(check_url(u, false).is_err(), "{u} must be refused");
        }
        for u in ALLOWED {
            assert!(check_url(u, false).is_ok(), "{u} must be allowed");
        }
        assert!(check_url("http://127.0.0.1:9/hook", true).is_ok());
        assert!(check_url("http://[::ffff:0:7f00:1]:9/hook", true).is_ok());
    }

    /// At delivery, a named host's addresses go through the same check (so a DNS change
    /// cannot point a registered host inward): `localhost` resolves to loopback only.
    #[actix_web::test]
    async fn the_delivery_resolver_drops_inward_addresses() {
        use reqwest::dns::Resolve;
        use std::str::FromStr;
        let localhost = || reqwest::dns::Name::from_str("localhost").unwrap();
        let guarded = GuardedResolver {
            allow_private: false,
        };
        assert!(guarded.resolve(localhost()).await.is_err());
        let open = GuardedResolver {
            allow_private: true,
        };
        assert!(open.resolve(localhost()).await.unwrap().count() > 0);
    }

    #[test]
    fn the_carried_address_is_decoded() {
        let v4 = |s: &str| Some(s.parse::<Ipv4Addr>().unwrap());
        let carried = |s: &str| embedded_ipv4(s.parse().unwrap());
        assert_eq!(carried("::1.2.3.4"), [v4("1.2.3.4"), None]);
        assert_eq!(carried("::ffff:1.2.3.4"), [v4("1.2.3.4"), None]);
        assert_eq!(carried("::ffff:0:102:304"), [v4("1.2.3.4"), None]);
        assert_eq!(carried("64:ff9b::102:304"), [v4("1.2.3.4"), None]);
        assert_eq!(carried("2002:102:304:5::6"), [v4("1.2.3.4"), None]);
        // RFC 4380's example: server 65.54.227.120, client 192.0.2.45.
        assert_eq!(
            carried("2001:0:4136:e378:8000:63bf:3fff:fdd2"),
            [v4("65.54.227.120"), v4("192.0.2.45")]
        );
        assert_eq!(carried("2606:2800:220:1::1"), [None, None]);
        assert_eq!(carried("64:ff9b:1::102:304"), [None, None]);
    }

    fn v6(segments: [u16; 8]) -> IpAddr {
        IpAddr::V6(Ipv6Addr::from(segments))
    }

    proptest::proptest! {
        /// An IPv4 address, carried in any of the IPv6 forms that lead to it, is refused
        /// exactly when it is refused by itself.
        #[test]
        fn a_carried_address_is_judged_as_itself(
            bits in proptest::prelude::any::<u32>(),
            subnet in proptest::prelude::any::<[u16; 5]>(),
            flags in proptest::prelude::any::<u16>(),
            port in proptest::prelude::any::<u16>(),
        ) {
            let a = Ipv4Addr::from(bits);
            let (hi, lo) = ((bits >> 16) as u16, bits as u16);
            let forms = [
                v6([0, 0, 0, 0, 0, 0, hi, lo]),
                v6([0, 0, 0, 0, 0, 0xffff, hi, lo]),
                v6([0, 0, 0, 0, 0xffff, 0, hi, lo]),
                v6([0x64, 0xff9b, 0, 0, 0, 0, hi, lo]),
                v6([0x2002, hi, lo, subnet[0], subnet[1], subnet[2], subnet[3], subnet[4]]),
                // Teredo through a public server (65.54.227.120), the client obfuscated.
                v6([0x2001, 0, 0x4136, 0xe378, flags, port, !hi, !lo]),
            ];
            for ip in forms {
                proptest::prop_assert_eq!(forbidden_ip(ip), forbidden_ip(IpAddr::V4(a)), "{}", ip);
            }
        }

        /// Site-local addresses, and NAT64 prefixes other than the well-known /96, are
        /// refused whatever follows.
        #[test]
        fn whole_ranges_are_refused(rest in proptest::prelude::any::<[u16; 7]>()) {
            let mut site = [0u16; 8];
            site[0] = 0xfec0 | (rest[0] & 0x3f);
            site[1..].copy_from_slice(&rest);
            proptest::prop_assert!(forbidden_ip(v6(site)));
            let mut nat64 = [0x64, 0xff9b, rest[1], rest[2], rest[3], rest[4], rest[5], rest[6]];
            if nat64[2..6] == [0; 4] {
                nat64[2] = 1;
            }
            proptest::prop_assert!(forbidden_ip(v6(nat64)));
        }
    }
}
