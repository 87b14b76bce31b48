//! Web Push (RFC 8030): the browsers' subscriptions, and what a push carries.
//!
//! A subscription is the browser's `PushSubscription` (its push service's `endpoint`, and
//! the keys `p256dh` and `auth`). A push is a POST to the endpoint whose body is the
//! payload encrypted for that browser with `aes128gcm` (RFC 8291, [`encrypt`]),
//! authorised by a VAPID token (RFC 8292): an ES256 JWT signed with the server's key, its
//! audience the endpoint's origin, `Authorization: vapid t=JWT,k=PUBLIC_KEY` (the form
//! pywebpush sends; RFC 7235 allows the comma without a space).
//!
//! The payload is short JSON (`title`, `body`, `url`: the game's page, or an event's,
//! `tag`, `kind`), in the reader's language; `TTL` and `Urgency` follow the kind (a turn
//! matters for a day, a reminder for an hour).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64URL;
use chrono::NaiveDateTime;
use p256::ecdsa::signature::Signer;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use serde_json::{Value, json};

use super::config::VapidConfig;
use super::webhooks::{MAX_URL_LEN, check_url_resolving};
use super::{NotificationError, Notifications};
use crate::i18n::{self, Lang};
use crate::ids::{GameId, PushSubscriptionId, UserId};
use crate::store::outbox::NotificationRow;
use crate::store::{self, StoreError};

pub use crate::store::push_subscriptions::PushSubscriptionRow;

/// How long a VAPID token is valid (RFC 8292 allows at most 24 h).
pub const VAPID_TOKEN_SECS: i64 = 12 * 3600;
/// Audiences whose tokens are kept (a few push services in practice; endpoints elsewhere
/// could make many).
const MAX_CACHED_TOKENS: usize = 256;

/// The server's VAPID key pair.
#[derive(Clone)]
pub struct VapidKeys {
    signing: p256::ecdsa::SigningKey,
    /// The last token per audience (origin) and its expiry: a push service sees one token
    /// for hours, not an ECDSA signature per push.
    tokens: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, (i64, String)>>>,
    /// The public key as browsers take it (`applicationServerKey`): the uncompressed
    /// point, base64url.
    pub public: String,
    pub subject: String,
}

impl std::fmt::Debug for VapidKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VapidKeys")
            .field("public", &self.public)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

impl VapidKeys {
    /// The key pair of a configuration (its key was checked when parsed).
    pub fn of(cfg: &VapidConfig) -> Result<VapidKeys, String> {
        let bytes = B64URL
            .decode(cfg.private_key.expose())
            .map_err(|_| "the VAPID key is not base64url".to_string())?;
        let secret = p256::SecretKey::from_slice(&bytes)
            .map_err(|_| "the VAPID key is not a P-256 private key".to_string())?;
        let public = secret.public_key().as_affine().to_encoded_point(false);
        Ok(VapidKeys {
            signing: p256::ecdsa::SigningKey::from(secret),
            tokens: Default::default(),
            public: B64URL.encode(public.as_bytes()),
            subject: cfg.subject.clone(),
        })
    }

    /// The `Authorization` header of a push to `endpoint` at `now` (RFC 8292): the
    /// audience's token while it has more than half its life left, else a new one.
    pub fn authorization(&self, endpoint: &url::Url, now: NaiveDateTime) -> String {
        let aud = endpoint.origin().ascii_serialization();
        let at = now.and_utc().timestamp();
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        match tokens.get(&aud) {
            // `exp` at most a full life ahead: a clock set back signs anew.
            Some((exp, header))
                if *exp - at > VAPID_TOKEN_SECS / 2 && *exp - at <= VAPID_TOKEN_SECS =>
            {
                header.clone()
            }
            _ => {
                let header = self.sign(&aud, at + VAPID_TOKEN_SECS);
                if tokens.len() >= MAX_CACHED_TOKENS {
                    tokens.clear();
                }
                tokens.insert(aud, (at + VAPID_TOKEN_SECS, header.clone()));
                header
            }
        }
    }

    /// A new `Authorization` header for the audience `aud`, expiring at `exp`.
    fn sign(&self, aud: &str, exp: i64) -> String {
        let header = B64URL.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims =
            B64URL.encode(json!({"aud": aud, "exp": exp, "sub": self.subject}).to_string());
        let input = format!("{header}.{claims}");
        let sig: p256::ecdsa::Signature = self.signing.sign(input.as_bytes());
        format!(
            "vapid t={input}.{},k={}",
            B64URL.encode(sig.to_bytes()),
            self.public
        )
    }
}

/// `TTL` (seconds the push service keeps an undelivered push) and `Urgency` of a kind.
pub fn ttl_and_urgency(kind: &str) -> (u32, &'static str) {
    match kind {
        "reminder" => (3600, "high"),
        "your_turn" | "timeout" => (86_400, "high"),
        "draw_offered" | "message" | "tournament_round" => (86_400, "normal"),
        "game_ended" | "game_started" | "tournament_finished" | "tournament_cancelled" => {
            (3 * 86_400, "normal")
        }
        "tournament_started" => (3 * 86_400, "low"),
        _ => (86_400, "low"),
    }
}

/// The title of a kind's push, in the reader's language (`push-title-<kind>` of
/// `locales/<lang>/mail.ftl`).
fn title_of(lang: Lang, kind: &str) -> String {
    let id = format!("push-title-{kind}");
    if i18n::has(lang, &id) {
        i18n::t(lang, &id)
    } else {
        i18n::t(lang, "push-title-other")
    }
}

/// The (plain) payload of a push, in the reader's language: short, so it fits the 4 KiB
/// push services take. A game's push links to its page; an event's (`tournament_*`) to
/// the event's page `/tournaments/{id}`, or for a round to the player's game.
pub fn payload(note: &NotificationRow, public_url: &str, lang: Lang) -> String {
    let base = public_url.trim_end_matches('/');
    let data: Value = serde_json::from_str(&note.payload).unwrap_or(Value::Null);
    let tournament = note
        .kind
        .starts_with("tournament_")
        .then(|| data.get("tournament_id").and_then(Value::as_str))
        .flatten();
    let (body, url, tag) = match (tournament, &note.game_id) {
        (Some(t), game) => {
            let name = data.get("name").and_then(Value::as_str).unwrap_or("");
            let round = data.get("round").and_then(Value::as_i64);
            let place = data.get("place").and_then(Value::as_i64);
            let body = match (note.kind.as_str(), round, place) {
                ("tournament_round", Some(r), _) => i18n::tr(
                    lang,
                    "push-body-tournament-round",
                    &[("name", name.into()), ("round", r.into())],
                ),
                ("tournament_finished", _, Some(p)) => i18n::tr(
                    lang,
                    "push-body-tournament-place",
                    &[("name", name.into()), ("place", p.into())],
                ),
                _ => name.to_string(),
            };
            let url = match game {
                Some(g) => format!("{base}/play/{g}"),
                None => format!("{base}/tournaments/{t}"),
            };
            (
                body,
                url,
                game.as_ref()
                    .map_or_else(|| format!("tournament-{t}"), GameId::to_string),
            )
        }
        (None, Some(g)) => (
            i18n::tr(
                lang,
                "push-body-game",
                &[("game", g.as_str()[..g.as_str().len().min(8)].into())],
            ),
            format!("{base}/play/{g}"),
            g.to_string(),
        ),
        (None, None) => (String::new(), format!("{base}/"), note.kind.clone()),
    };
    json!({
        "title": title_of(lang, &note.kind),
        "body": body,
        "url": url,
        "tag": tag,
        "kind": note.kind,
        "id": note.id,
    })
    .to_string()
}

/// Encrypts `plain` for a subscription (RFC 8291, `aes128gcm`): a key pair of our own for
/// this message only, agreed with the browser's `p256dh` on ring's P-256; the key of the
/// content coding derived from that secret and the browser's `auth` (section 3.3); the
/// coding itself (RFC 8188: one record, its key id our public key) by `ece-native`.
pub fn encrypt(sub: &PushSubscriptionRow, plain: &[u8]) -> Result<Vec<u8>, String> {
    use ring::{agreement, hkdf, rand};
    let (browser, auth) = browser_keys(&sub.p256dh, &sub.auth)?;
    let random = rand::SystemRandom::new();
    let ours = agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &random)
        .map_err(|_| "cannot make a key pair".to_string())?;
    let our_public = ours
        .compute_public_key()
        .map_err(|_| "cannot make a key pair".to_string())?;
    let theirs = agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, &browser);
    let ikm = agreement::agree_ephemeral(ours, &theirs, |shared| {
        // IKM = HKDF(salt = auth, shared, "WebPush: info" || 0x00 || ua_public || as_public).
        struct Len32;
        impl hkdf::KeyType for Len32 {
            fn len(&self) -> usize {
                32
            }
        }
        let info: [&[u8]; 3] = [b"WebPush: info\0", &browser, our_public.as_ref()];
        let mut ikm = [0u8; 32];
        hkdf::Salt::new(hkdf::HKDF_SHA256, &auth)
            .extract(shared)
            .expand(&info, Len32)
            .and_then(|okm| okm.fill(&mut ikm))
            .map(|()| ikm)
    })
    .map_err(|_| "keys.p256dh: the key agreement failed".to_string())?
    .map_err(|_| "cannot derive the content key".to_string())?;
    let mut salt = [0u8; 16];
    rand::SecureRandom::fill(&random, &mut salt).map_err(|_| "no random salt".to_string())?;
    // One record holds the whole payload: its length, the delimiter and the tag.
    let record = u32::try_from(plain.len() + 17).map_err(|_| "payload too long".to_string())?;
    ece_native::encrypt(
        ikm,
        salt,
        our_public.as_ref(),
        std::iter::once(plain.to_vec()),
        record,
    )
    .map_err(|e| format!("cannot encrypt: {e:?}"))
}

/// The browser's keys, checked: a P-256 point (uncompressed) and a 16-byte secret.
fn browser_keys(p256dh: &str, auth: &str) -> Result<([u8; 65], [u8; 16]), String> {
    let point = B64URL
        .decode(p256dh.trim_end_matches('='))
        .map_err(|_| "keys.p256dh: not base64url".to_string())?;
    // RFC 8291 (section 3.1) takes the 65-byte uncompressed point; a compressed one
    // (33 bytes) would decode but is not what the browser's key agreement uses.
    let point: [u8; 65] = point
        .try_into()
        .ok()
        .filter(|p: &[u8; 65]| p[0] == 0x04)
        .ok_or("keys.p256dh: must be the 65-byte uncompressed P-256 point")?;
    p256::PublicKey::from_sec1_bytes(&point)
        .map_err(|_| "keys.p256dh: not a P-256 public key".to_string())?;
    let secret: [u8; 16] = B64URL
        .decode(auth.trim_end_matches('='))
        .map_err(|_| "keys.auth: not base64url".to_string())?
        .try_into()
        .map_err(|_| "keys.auth: must be 16 bytes".to_string())?;
    Ok((point, secret))
}

/// Whether an endpoint's host is one of the known push services (or below one), whatever
/// its scheme and port.
fn known_push_host(url: &url::Url, hosts: &[String]) -> bool {
    let Some(url::Host::Domain(d)) = url.host() else {
        return false;
    };
    let d = d.to_ascii_lowercase();
    hosts
        .iter()
        .any(|h| d == *h || d.ends_with(&format!(".{h}")))
}

/// Whether an endpoint is one of the trusted push services: a known host, over https, on
/// the default port (`url` drops an explicit `:443`). Push services listen there only;
/// another port of their host is not what they serve.
pub fn trusted_host(url: &url::Url, hosts: &[String]) -> bool {
    url.scheme() == "https" && url.port().is_none() && known_push_host(url, hosts)
}

impl Notifications<'_> {
    /// `GET /v1/push/vapid-public-key`: the key browsers subscribe with.
    pub fn vapid_public_key(&self) -> Result<String, NotificationError> {
        let cfg = self.config.vapid.as_ref().ok_or_else(push_off)?;
        VapidKeys::of(cfg)
            .map(|k| k.public)
            .map_err(NotificationError::Conflict)
    }

    /// `POST /v1/me/push-subscriptions`: registers a browser (or renews its keys; an
    /// endpoint another account had moves to this one). `true` when it was new.
    pub async fn subscribe_push(
        &self,
        user: &UserId,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
    ) -> Result<(PushSubscriptionRow, bool), NotificationError> {
        if self.config.vapid.is_none() {
            return Err(push_off());
        }
        let mut errors = Vec::new();
        if let Err(m) = browser_keys(p256dh, auth) {
            let (f, m) = m.split_once(": ").unwrap_or(("keys", &m));
            errors.push((f.to_string(), m.to_string()));
        }
        let url = if endpoint.len() > MAX_URL_LEN {
            Err(format!("at most {MAX_URL_LEN} characters"))
        } else {
            let hosts = &self.config.push_service_hosts;
            match url::Url::parse(endpoint.trim()) {
                Ok(u) if trusted_host(&u, hosts) => Ok(u),
                // A known push service's host otherwise (another port, plain http) would
                // pass the address rules (its addresses are public) and reach something
                // the push service does not serve there.
                Ok(u) if known_push_host(&u, hosts) => {
                    Err("a known push service's endpoint must be https on the default port".into())
                }
                _ => check_url_resolving(endpoint, self.config.webhook_allow_private).await,
            }
        };
        let url = match url {
            Ok(u) => Some(u),
            Err(m) => {
                errors.push(("endpoint".into(), m));
                None
            }
        };
        let Some(url) = url.filter(|_| errors.is_empty()) else {
            return Err(NotificationError::Invalid(errors));
        };
        let row = PushSubscriptionRow {
            id: PushSubscriptionId::new(uuid::Uuid::now_v7().to_string()),
            user_id: user.clone(),
            endpoint: url.to_string(),
            p256dh: p256dh.trim_end_matches('=').to_string(),
            auth: auth.trim_end_matches('=').to_string(),
            created_at: self.clock.now(),
        };
        let limit = self.config.quota_push_subscriptions;
        store::run(self.pool, move |conn| {
            // The same endpoint sent at once by two accounts: the second insert meets the
            // first's unique endpoint; once more, it finds it (and moves or renews it).
            let mut tries = 0;
            loop {
                tries += 1;
                match store_subscription(conn, &row, limit) {
                    Err(NotificationError::Store(StoreError::VersionMoved)) if tries < 3 => {}
                    other => return other,
                }
            }
        })
        .await
    }
    /// `GET /v1/me/push-subscriptions`: the user's devices, oldest first.
    pub async fn push_subscriptions(
        &self,
        user: &UserId,
    ) -> Result<Vec<PushSubscriptionRow>, NotificationError> {
        let user = user.clone();
        Ok(store::run(self.pool, move |conn| {
            store::push_subscriptions::list(conn, &user)
        })
        .await?)
    }

    /// `DELETE /v1/me/push-subscriptions/{id}`.
    pub async fn delete_push_subscription(
        &self,
        user: &UserId,
        id: &PushSubscriptionId,
    ) -> Result<(), NotificationError> {
        let (u, i) = (user.clone(), id.clone());
        let found = store::run(self.pool, move |conn| {
            store::push_subscriptions::delete(conn, Some(&u), &i)
        })
        .await
        .map_err(|e: StoreError| NotificationError::from(e))?;
        if !found {
            return Err(NotificationError::NotFound(format!(
                "no push subscription {id}"
            )));
        }
        Ok(())
    }
}

/// Stores a subscription in one transaction: renews the caller's own endpoint, moves
/// another account's, or inserts within the quota. The account's row is locked first
/// (PostgreSQL; SQLite serialises writers), so one account's concurrent requests take
/// turns: the quota holds, and the same endpoint sent at once is one insert, then renewals.
fn store_subscription(
    conn: &mut store::DbConnection,
    row: &PushSubscriptionRow,
    limit: u64,
) -> Result<(PushSubscriptionRow, bool), NotificationError> {
    store::transaction(conn, |conn| {
        use crate::store::push_subscriptions as subs;
        store::quotas::lock_account(conn, &row.user_id)?;
        if let Some(old) = subs::by_endpoint(conn, &row.endpoint)? {
            if old.user_id == row.user_id {
                subs::set_keys(conn, &old.id, &row.p256dh, &row.auth)?;
                let again = subs::find(conn, &old.id)?.unwrap_or(old);
                return Ok((again, false));
            }
            subs::delete_in(conn, None, &old.id)?;
        }
        if subs::count(conn, &row.user_id)? as u64 >= limit {
            return Err(NotificationError::Quota(crate::quota::Exceeded::held(
                "push_subscriptions",
                limit,
                format!(
                    "an account may hold at most {limit} push subscriptions \
                     (DJAMBI_QUOTA_PUSH_SUBSCRIPTIONS); delete one first"
                ),
            )));
        }
        subs::insert(conn, row)?;
        Ok((row.clone(), true))
    })
}

fn push_off() -> NotificationError {
    NotificationError::NotFound("Web Push is not enabled on this server".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusted_hosts_match_by_suffix_over_https_only() {
        let hosts = vec![
            "push.apple.com".to_string(),
            "fcm.googleapis.com".to_string(),
        ];
        let t = |u: &str| trusted_host(&url::Url::parse(u).unwrap(), &hosts);
        assert!(t("https://web.push.apple.com/abc"));
        assert!(t("https://fcm.googleapis.com/fcm/send/x"));
        assert!(!t("http://fcm.googleapis.com/fcm/send/x"));
        assert!(!t("https://evilpush.apple.com.example/x"));
        assert!(!t("https://xpush.apple.com/x"));
        assert!(!t("https://127.0.0.1/x"));
        assert!(t("https://fcm.googleapis.com:443/fcm/send/x"));
        assert!(!t("https://fcm.googleapis.com:22/fcm/send/x"));
        assert!(!t("https://web.push.apple.com:8443/abc"));
    }

    #[test]
    fn the_vapid_token_names_the_origin_and_verifies() {
        use p256::ecdsa::signature::Verifier;
        let cfg = VapidConfig {
            private_key: crate::config::Secret::new(
                B64URL.encode(p256::SecretKey::random(&mut rand::rngs::OsRng).to_bytes()),
            ),
            subject: "mailto:ops@example.org".into(),
            generated: false,
        };
        let keys = VapidKeys::of(&cfg).unwrap();
        let now = chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc();
        let url = url::Url::parse("https://push.example.net:8443/p/abc?x=1").unwrap();
        let h = keys.authorization(&url, now);
        let (t, k) = h
            .strip_prefix("vapid t=")
            .unwrap()
            .split_once(",k=")
            .unwrap();
        assert_eq!(k, keys.public);
        let parts: Vec<&str> = t.split('.').collect();
        let claims: serde_json::Value =
            serde_json::from_slice(&B64URL.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["aud"], "https://push.example.net:8443");
        assert_eq!(claims["exp"], 1_800_000_000 + VAPID_TOKEN_SECS);
        assert_eq!(claims["sub"], "mailto:ops@example.org");
        let vk = p256::ecdsa::VerifyingKey::from_sec1_bytes(&B64URL.decode(k).unwrap()).unwrap();
        let sig = p256::ecdsa::Signature::from_slice(&B64URL.decode(parts[2]).unwrap()).unwrap();
        vk.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
            .unwrap();
    }

    #[test]
    fn a_token_serves_its_audience_for_half_its_life() {
        let cfg = VapidConfig {
            private_key: crate::config::Secret::new(
                B64URL.encode(p256::SecretKey::random(&mut rand::rngs::OsRng).to_bytes()),
            ),
            subject: "mailto:ops@example.org".into(),
            generated: false,
        };
        let keys = VapidKeys::of(&cfg).unwrap();
        let at = |secs: i64| {
            chrono::DateTime::from_timestamp(1_800_000_000 + secs, 0)
                .unwrap()
                .naive_utc()
        };
        let fcm = url::Url::parse("https://fcm.googleapis.com/fcm/send/a").unwrap();
        let other = url::Url::parse("https://fcm.googleapis.com/fcm/send/b").unwrap();
        let apple = url::Url::parse("https://web.push.apple.com/x").unwrap();
        let first = keys.authorization(&fcm, at(0));
        assert_eq!(keys.authorization(&other, at(3600)), first);
        assert_ne!(keys.authorization(&apple, at(3600)), first);
        assert_ne!(
            keys.authorization(&fcm, at(VAPID_TOKEN_SECS / 2 + 1)),
            first
        );
        // A clock set back gets a token valid from then.
        let back = keys.authorization(&fcm, at(-VAPID_TOKEN_SECS));
        assert_ne!(back, first);
    }

    #[test]
    fn a_push_decrypts_with_another_implementation_of_rfc_8291() {
        let browser = p256::SecretKey::random(&mut rand::rngs::OsRng);
        let auth = [9u8; 16];
        let sub = PushSubscriptionRow {
            id: "s1".into(),
            user_id: "u1".into(),
            endpoint: "https://push.example/x".into(),
            p256dh: B64URL.encode(browser.public_key().as_affine().to_encoded_point(false)),
            auth: B64URL.encode(auth),
            created_at: chrono::NaiveDateTime::default(),
        };
        let plain = br#"{"title":"Your turn","body":"Game g-1"}"#;
        let body = encrypt(&sub, plain).unwrap();
        // Each message has a key pair and a salt of its own.
        assert_ne!(encrypt(&sub, plain).unwrap(), body);
        let read = web_push_native::decrypt(
            body.clone(),
            &browser,
            web_push_native::Auth::from_slice(&auth),
        )
        .unwrap();
        assert_eq!(read, plain);
        // Another browser's key cannot read it.
        let other = p256::SecretKey::random(&mut rand::rngs::OsRng);
        assert!(
            web_push_native::decrypt(body, &other, web_push_native::Auth::from_slice(&auth))
                .is_err()
        );
    }

    #[test]
    fn bad_browser_keys_are_refused() {
        assert!(browser_keys("AAAA", "AAAAAAAAAAAAAAAAAAAAAA").is_err());
        let pk = p256::SecretKey::random(&mut rand::rngs::OsRng).public_key();
        let p = B64URL.encode(pk.as_affine().to_encoded_point(false).as_bytes());
        assert!(browser_keys(&p, "AAAAAAAAAAAAAAAAAAAAAA").is_ok());
        assert!(browser_keys(&p, "AAAA").is_err());
        // The compressed form of the same point (33 bytes) is refused.
        let compressed = B64URL.encode(pk.as_affine().to_encoded_point(true).as_bytes());
        assert!(browser_keys(&compressed, "AAAAAAAAAAAAAAAAAAAAAA").is_err());
    }

    #[test]
    fn an_events_pushes_speak_the_readers_language_and_link_the_event() {
        let at = chrono::DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc();
        let row = |kind: &str, game: Option<&str>, payload: serde_json::Value| NotificationRow {
            id: "n1".into(),
            user_id: "u1".into(),
            kind: kind.into(),
            game_id: game.map(GameId::new),
            version: None,
            payload: payload.to_string(),
            created_at: at,
            read_at: None,
        };
        let fr = Lang::from_code("fr").unwrap();
        let round = row(
            "tournament_round",
            Some("g-123456789"),
            json!({"tournament_id": "t1", "name": "Open", "round": 2, "seat": "B"}),
        );
        let p: Value = serde_json::from_str(&payload(&round, "https://x.example/", fr)).unwrap();
        assert_eq!(p["title"], "Votre prochaine ronde est appariée");
        assert_eq!(p["body"], "Open : ronde 2");
        assert_eq!(p["url"], "https://x.example/play/g-123456789");
        assert_eq!(p["kind"], "tournament_round");
        let done = row(
            "tournament_finished",
            None,
            json!({"tournament_id": "t1", "name": "Open", "place": 2, "points": "7.5"}),
        );
        let p: Value =
            serde_json::from_str(&payload(&done, "https://x.example", Lang::EN)).unwrap();
        assert_eq!(p["title"], "The event is over");
        assert_eq!(p["body"], "Open: you placed 2nd");
        assert_eq!(p["url"], "https://x.example/tournaments/t1");
        assert_eq!(p["tag"], "tournament-t1");
        let es = Lang::from_code("es").unwrap();
        let p: Value = serde_json::from_str(&payload(&done, "https://x.example", es)).unwrap();
        assert_eq!(p["body"], "Open: quedaste en el puesto 2.º");
        // A game's push is as before, in English by default.
        let turn = row("your_turn", Some("g-123456789"), json!({"seat": "R"}));
        let p: Value =
            serde_json::from_str(&payload(&turn, "https://x.example", Lang::EN)).unwrap();
        assert_eq!(p["title"], "Your turn");
        assert_eq!(p["body"], "Game g-123456");
        assert_eq!(p["tag"], "g-123456789");
    }
}
