//! Webhooks and the delivery queue, against a real HTTP receiver in the test: Standard
//! Webhooks signatures verified independently of the server, secret rotation, retries
//! with back-off, the dead letter, disabling failing endpoints, deliveries pending across
//! a restart, two instances delivering each notification once, and the settings that
//! choose the channels.

#[path = "support/games.rs"]
mod games;
#[path = "support/receiver.rs"]
mod receiver;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use djambi_e2e::{Backend, FreshDatabase, Login, TestServer, Value, backend_tests, json};
use games::*;
use receiver::{Receiver, verify};

const FAST: [(&str, &str); 4] = [
    ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true"),
    ("DJAMBI_DELIVERY_INTERVAL", "20ms"),
    ("DJAMBI_DELIVERY_BACKOFF", "50ms"),
    ("DJAMBI_WEBHOOK_TIMEOUT", "2s"),
];

fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut v = FAST.to_vec();
    v.extend_from_slice(extra);
    v
}

fn hook(srv: &TestServer, who: &Login, url: &str) -> Value {
    srv.post("/v1/me/webhooks", Some(&who.access), &json!({"url": url}))
        .expect(201)
        .clone()
}

/// Four players (Red first, so it can register a hook before the game starts).
fn players(srv: &TestServer, prefix: &str) -> Vec<Login> {
    SEATS
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{}", s.to_lowercase())))
        .collect()
}

fn start_game(srv: &TestServer, p: &[Login]) -> String {
    let g = create(srv, &p[0], json!({"seats": 4, "seat": "R"}));
    let id = g["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &p[i], &id, seat).expect(200);
    }
    id
}

fn move_now(srv: &TestServer, id: &str, who: &Login) {
    let v = version(srv, id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(srv, who, id, mv, v).expect(201);
}

fn feed_ids(srv: &TestServer, who: &Login) -> Vec<(String, String)> {
    srv.get("/v1/me/notifications?limit=100", Some(&who.access))
        .expect(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn deliveries(srv: &TestServer, who: &Login, hook_id: &str) -> Vec<Value> {
    srv.get(
        &format!("/v1/me/webhooks/{hook_id}/deliveries"),
        Some(&who.access),
    )
    .expect(200)
    .as_array()
    .unwrap()
    .clone()
}

#[track_caller]
fn wait_until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < until, "{what} did not happen in {secs}s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn deliveries_are_signed_and_secrets_rotate(backend: Backend) {
    let rx = Receiver::start();
    let srv = TestServer::start_with(backend, &FAST);
    let p = players(&srv, "sig");
    let h = hook(&srv, &p[0], &rx.url("/hook"));
    let secret = h["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"), "{h}");
    assert_eq!(h["enabled"], true);
    // The secret is shown once.
    let listed = srv
        .get("/v1/me/webhooks", Some(&p[0].access))
        .expect(200)
        .clone();
    assert_eq!(listed[0]["id"], h["id"]);
    assert!(listed[0].get("secret").is_none(), "{listed}");

    let id = start_game(&srv, &p);
    let got = rx.wait_for(20, "two deliveries", |g| g.len() >= 2);
    let feed: HashMap<String, String> = feed_ids(&srv, &p[0]).into_iter().collect();
    for r in &got {
        assert_eq!(r.path, "/hook");
        assert_eq!(r.answered, 200);
        assert!(verify(&secret, r), "bad signature: {r:?}");
        assert!(!verify(&receiver_other_secret(), r));
        let ts: i64 = r.headers["webhook-timestamp"].parse().unwrap();
        assert!((ts - chrono::Utc::now().timestamp()).abs() < 60);
        assert!(r.headers["content-type"].starts_with("application/json"));
        let body: Value = serde_json::from_str(&r.body).unwrap();
        let wid = &r.headers["webhook-id"];
        // webhook-id is the notification's stable id, as in the feed.
        assert_eq!(
            feed.get(wid),
            body["type"].as_str().map(String::from).as_ref()
        );
        assert_eq!(body["data"]["id"], wid.as_str());
        assert_eq!(body["data"]["game_id"], id.as_str());
    }
    let kinds: HashSet<String> = got
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .into()
        })
        .collect();
    assert_eq!(
        kinds,
        HashSet::from(["game_started".into(), "your_turn".into()])
    );
    let hid = h["id"].as_str().unwrap();
    wait_until(10, "deliveries recorded", || {
        let d = deliveries(&srv, &p[0], hid);
        d.len() == 2 && d.iter().all(|d| d["status"] == "delivered")
    });
    let d = deliveries(&srv, &p[0], hid);
    assert_eq!(d[0]["attempts"], 1);
    assert_eq!(d[0]["last_status"], 200);

    // Rotation: the next delivery is signed by both secrets.
    let r = srv
        .post(
            &format!("/v1/me/webhooks/{hid}/secret"),
            Some(&p[0].access),
            &json!({}),
        )
        .expect(200)
        .clone();
    let new_secret = r["secret"].as_str().unwrap().to_string();
    assert_ne!(new_secret, secret);
    assert!(r["previous_secret_until"].is_string());
    move_now(&srv, &id, &p[0]);
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    let got = rx.wait_for(20, "the draw offer", |g| g.len() >= 3);
    let last = &got[2];
    assert!(last.body.contains("draw_offered"));
    assert_eq!(last.headers["webhook-signature"].split(' ').count(), 2);
    assert!(verify(&new_secret, last) && verify(&secret, last));

    // Others cannot see or touch the endpoint; it can be deleted.
    srv.get(
        &format!("/v1/me/webhooks/{hid}/deliveries"),
        Some(&p[1].access),
    )
    .problem(404, "not-found");
    srv.delete(&format!("/v1/me/webhooks/{hid}"), Some(&p[1].access))
        .problem(404, "not-found");
    srv.delete(&format!("/v1/me/webhooks/{hid}"), Some(&p[0].access))
        .expect(204);
    assert_eq!(
        srv.get("/v1/me/webhooks", Some(&p[0].access)).expect(200),
        &json!([])
    );
}

/// A write's notifications are fanned out and sent when the write signals them, not at
/// the next `DJAMBI_DELIVERY_INTERVAL` (an hour here: the poll is only for rows whose
/// signal was lost).
fn a_write_is_delivered_without_waiting_for_the_interval(backend: Backend) {
    let rx = Receiver::start();
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("DJAMBI_DELIVERY_INTERVAL", "1h"),
        ],
    );
    let p = players(&srv, "wake");
    hook(&srv, &p[0], &rx.url("/hook"));
    let started = Instant::now();
    let id = start_game(&srv, &p);
    rx.wait_for(10, "the start's two deliveries", |g| g.len() >= 2);
    move_now(&srv, &id, &p[0]);
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    let got = rx.wait_for(10, "the draw offer", |g| g.len() >= 3);
    assert!(got[2].body.contains("draw_offered"), "{:?}", got[2]);
    assert!(started.elapsed() < Duration::from_secs(20));
}

fn receiver_other_secret() -> String {
    "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".into()
}

fn retries_dead_letter_and_disabling(backend: Backend) {
    let rx = Receiver::start();
    rx.script(&[500, 500], 200);
    let srv = TestServer::start_with(
        backend,
        &with(&[
            ("DJAMBI_DELIVERY_MAX_ATTEMPTS", "3"),
            ("DJAMBI_WEBHOOK_DISABLE_AFTER", "3"),
        ]),
    );
    let p = players(&srv, "retry");
    let h = hook(&srv, &p[0], &rx.url("/hook"));
    let hid = h["id"].as_str().unwrap();
    let id = start_game(&srv, &p);
    // Two failures, then both notifications arrive.
    let got = rx.wait_for(20, "retries", |g| {
        g.iter().filter(|r| r.answered == 200).count() >= 2
    });
    assert_eq!(got.iter().filter(|r| r.answered == 500).count(), 2);
    let ids: HashSet<&String> = got.iter().map(|r| &r.headers["webhook-id"]).collect();
    assert_eq!(ids.len(), 2, "retries keep the webhook-id");
    wait_until(10, "recorded", || {
        deliveries(&srv, &p[0], hid)
            .iter()
            .all(|d| d["status"] == "delivered")
    });
    let d = deliveries(&srv, &p[0], hid);
    let attempts: i64 = d.iter().map(|d| d["attempts"].as_i64().unwrap()).sum();
    assert_eq!(attempts, 4);

    // Now the endpoint only fails: the next delivery is dead after 3 attempts, and the
    // endpoint, 3 failures in a row, is disabled; its owner is told.
    rx.script(&[], 500);
    move_now(&srv, &id, &p[0]);
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    wait_until(20, "dead letter", || {
        deliveries(&srv, &p[0], hid)
            .iter()
            .any(|d| d["status"] == "dead")
    });
    let dead = deliveries(&srv, &p[0], hid)
        .into_iter()
        .find(|d| d["status"] == "dead")
        .unwrap();
    assert_eq!(dead["kind"], "draw_offered");
    assert_eq!(dead["attempts"], 3);
    assert_eq!(dead["last_status"], 500);
    assert!(dead["last_error"].as_str().unwrap().contains("500"));
    wait_until(10, "disabled", || {
        srv.get("/v1/me/webhooks", Some(&p[0].access)).expect(200)[0]["enabled"] == false
    });
    let listed = srv
        .get("/v1/me/webhooks", Some(&p[0].access))
        .expect(200)
        .clone();
    assert!(
        listed[0]["disabled_reason"]
            .as_str()
            .unwrap()
            .contains("3 failed")
    );
    wait_until(10, "the owner is told", || {
        feed_ids(&srv, &p[0])
            .iter()
            .any(|(_, k)| k == "webhook_disabled")
    });
    // A disabled endpoint gets nothing more.
    let before = rx.received().len();
    start_game(&srv, &p);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(rx.received().len(), before);
}

fn pending_deliveries_survive_a_restart(backend: Backend) {
    // A port with nobody listening: the receiver is down.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let db = FreshDatabase::new(backend);
    let settings = with(&[("DJAMBI_DELIVERY_BACKOFF", "200ms")]);
    let (p, hid) = {
        let srv = TestServer::start_on_with(&db, &settings, None);
        let p = players(&srv, "restart");
        let h = hook(&srv, &p[0], &url);
        let hid = h["id"].as_str().unwrap().to_string();
        start_game(&srv, &p);
        wait_until(10, "failed attempts", || {
            let d = deliveries(&srv, &p[0], &hid);
            d.len() == 2
                && d.iter()
                    .all(|d| d["status"] == "pending" && d["attempts"].as_i64() >= Some(1))
        });
        (p, hid)
    }; // the server stops with both deliveries pending
    let rx = Receiver::start_on(port);
    let srv = TestServer::start_on_with(&db, &settings, None);
    let got = rx.wait_for(20, "the pending deliveries", |g| g.len() >= 2);
    let ids: HashSet<&String> = got.iter().map(|r| &r.headers["webhook-id"]).collect();
    assert_eq!(ids.len(), 2);
    let login = srv.login(&p[0].username, djambi_e2e::PASSWORD);
    wait_until(10, "recorded", || {
        deliveries(&srv, &login, &hid)
            .iter()
            .all(|d| d["status"] == "delivered")
    });
    drop(srv);
}

fn settings_choose_the_channels(backend: Backend) {
    let rx = Receiver::start();
    let srv = TestServer::start_with(backend, &FAST);
    let p = players(&srv, "set");
    let s = srv
        .get("/v1/me/notification-settings", Some(&p[0].access))
        .expect(200)
        .clone();
    assert_eq!(
        s["kinds"]["your_turn"],
        json!({"feed": true, "email": true, "webhook": true, "push": true})
    );
    assert_eq!(s["kinds"]["game_started"]["email"], false);
    assert_eq!(s["reminder_offsets_secs"], json!([86400, 3600]));
    assert_eq!(s["email_digest"], false);
    let put = |body: Value| {
        srv.send(
            srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
                .bearer_auth(&p[0].access)
                .json(&body),
        )
    };
    put(json!({"kinds": {"your_turn": {"feed": false, "email": true, "webhook": true}}}))
        .problem(400, "validation");
    put(json!({"kinds": {"nonsense": {"email": true, "webhook": true}}}))
        .problem(400, "validation");
    put(json!({"reminder_offsets_secs": [5]})).problem(400, "validation");
    let saved = put(json!({
        "kinds": {"game_started": {"email": false, "webhook": false}},
        "reminder_offsets_secs": [3600, 7200],
        "email_digest": true
    }));
    let saved = saved.expect(200);
    assert_eq!(saved["reminder_offsets_secs"], json!([7200, 3600]));
    assert_eq!(saved["kinds"]["your_turn"]["webhook"], true);
    assert_eq!(
        &srv.get("/v1/me/notification-settings", Some(&p[0].access))
            .expect(200)
            .clone(),
        saved
    );
    // A personal access token may read, not change them.
    let (_, pat) = srv.pat(&p[0], &["read"]);
    srv.get("/v1/me/notification-settings", Some(&pat))
        .expect(200);
    srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&pat)
            .json(&json!({})),
    )
    .problem(403, "forbidden");

    hook(&srv, &p[0], &rx.url("/h"));
    start_game(&srv, &p);
    let got = rx.wait_for(20, "your_turn", |g| !g.is_empty());
    std::thread::sleep(Duration::from_millis(300));
    let got = if got.len() == 1 { rx.received() } else { got };
    assert_eq!(got.len(), 1, "game_started is not sent to webhooks");
    assert!(got[0].body.contains("your_turn"));
    assert_eq!(feed_ids(&srv, &p[0]).len(), 2, "the feed has everything");
}

/// Issue 33: a receiver's `429`/`503` with `Retry-After` sets the next attempt (instead of
/// the back-off, here 50 ms), bounded by `DJAMBI_DELIVERY_BACKOFF_MAX`: a day asked for is
/// an hour; a few seconds asked for are those seconds.
fn retry_after_sets_the_next_attempt(backend: Backend) {
    let rx = Receiver::start();
    rx.script_retry_after(&[(429, "86400"), (503, "30")], 200);
    let srv = TestServer::start_with(backend, &with(&[("DJAMBI_DELIVERY_BACKOFF_MAX", "1h")]));
    let p = players(&srv, "ra");
    let h = hook(&srv, &p[0], &rx.url("/hook"));
    let hook_id = h["id"].as_str().unwrap();
    let before = chrono::Utc::now();
    start_game(&srv, &p);
    rx.wait_for(20, "both answers with Retry-After", |g| g.len() >= 2);
    std::thread::sleep(Duration::from_millis(300));
    let pending: Vec<Value> = deliveries(&srv, &p[0], hook_id)
        .into_iter()
        .filter(|d| d["status"] == "pending" && d["attempts"].as_i64() >= Some(1))
        .collect();
    let after = chrono::Utc::now();
    let wait_of = |status: i64| {
        let d = pending
            .iter()
            .find(|d| d["last_status"] == status)
            .unwrap_or_else(|| panic!("no pending delivery answered {status}: {pending:?}"));
        let at: chrono::DateTime<chrono::Utc> =
            d["next_attempt_at"].as_str().unwrap().parse().unwrap();
        (at - before, at - after)
    };
    let (most, least) = wait_of(429);
    assert!(
        least >= chrono::TimeDelta::minutes(59) && most <= chrono::TimeDelta::minutes(61),
        "Retry-After: 86400, at most an hour: next attempt in {least} to {most}"
    );
    let (most, least) = wait_of(503);
    assert!(
        least >= chrono::TimeDelta::seconds(25) && most <= chrono::TimeDelta::seconds(31),
        "Retry-After: 30: next attempt in {least} to {most}"
    );
    assert_eq!(pending.len(), 2, "{pending:?}");
}

backend_tests!(
    retry_after_sets_the_next_attempt,
    a_write_is_delivered_without_waiting_for_the_interval,
    deliveries_are_signed_and_secrets_rotate,
    retries_dead_letter_and_disabling,
    pending_deliveries_survive_a_restart,
    settings_choose_the_channels,
    addresses_carrying_an_inward_ipv4_are_refused,
    a_stored_inward_address_literal_is_never_called,
);

/// Without `DJAMBI_WEBHOOK_ALLOW_PRIVATE`, inward and non-http URLs are refused.
#[test]
fn private_and_odd_urls_are_refused() {
    let srv = TestServer::start(Backend::Sqlite);
    let u = srv.user("ssrf");
    for url in [
        "http://127.0.0.1:9/x",
        "http://localhost/x",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "file:///etc/passwd",
        "gopher://example.org/",
        "not a url",
    ] {
        let r = srv.post("/v1/me/webhooks", Some(&u.access), &json!({"url": url}));
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), ["url"], "{url}");
    }
}

/// Issue 32: IPv6 addresses that carry an inward IPv4 address (IPv4-compatible,
/// IPv4-translated, 6to4, Teredo, NAT64) and site-local ones are refused as webhook URLs
/// and as push endpoints, as the plain forms are; nothing is stored.
fn addresses_carrying_an_inward_ipv4_are_refused(backend: Backend) {
    // Any P-256 scalar will do: push is on, so the endpoint is checked.
    let vapid = format!("{}AQE", "AQEB".repeat(10));
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_VAPID_PRIVATE_KEY", vapid.as_str()),
            ("DJAMBI_VAPID_SUBJECT", "mailto:ops@example.org"),
        ],
    );
    let u = srv.user("carried");
    for host in [
        "[::127.0.0.1]",
        "[::a9fe:a9fe]",
        "[::ffff:0:7f00:1]",
        "[2002:7f00:1::]",
        "[2002:a9fe:a9fe::1]",
        "[fec0::1]",
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
        "[64:ff9b::a9fe:a9fe]",
        "[64:ff9b:1::1]",
        // and the forms refused before
        "127.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[fd00::1]",
    ] {
        let url = format!("http://{host}:9/x");
        let r = srv.post("/v1/me/webhooks", Some(&u.access), &json!({"url": url}));
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), ["url"], "{url}");
        let r = srv.post(
            "/v1/me/push-subscriptions",
            Some(&u.access),
            &json!({"endpoint": url, "keys": {"p256dh": "AAAA", "auth": "AAAA"}}),
        );
        r.problem(400, "validation");
        assert!(
            r.error_fields().contains(&"endpoint".to_string()),
            "{url}: {}",
            r.text
        );
    }
    let hooks = srv
        .get("/v1/me/webhooks", Some(&u.access))
        .expect(200)
        .clone();
    assert_eq!(hooks, json!([]));
    let subs = srv
        .get("/v1/me/push-subscriptions", Some(&u.access))
        .expect(200)
        .clone();
    assert_eq!(subs, json!([]));
}

/// An endpoint stored while inward addresses were allowed (or before a form was known to
/// be inward) is checked again at each attempt: an address literal never reaches the
/// client's guarded resolver, so without that check it would still be called.
fn a_stored_inward_address_literal_is_never_called(backend: Backend) {
    let rx = Receiver::start();
    let db = FreshDatabase::new(backend);
    let p;
    let hid;
    {
        let open = TestServer::start_on_with(&db, &FAST, None);
        p = players(&open, "literal");
        // The receiver, reached through an IPv4-mapped IPv6 literal.
        let url = rx.url("/hook").replace("127.0.0.1", "[::ffff:127.0.0.1]");
        hid = hook(&open, &p[0], &url)["id"].as_str().unwrap().to_string();
    }
    let strict = TestServer::start_on_with(&db, &FAST[1..], None);
    start_game(&strict, &p);
    wait_until(20, "the deliveries die", || {
        let d = deliveries(&strict, &p[0], &hid);
        !d.is_empty() && d.iter().all(|d| d["status"] == "dead")
    });
    assert!(rx.received().is_empty(), "{:?}", rx.received().len());
}

/// Two instances on one PostgreSQL database: each notification reaches the endpoint
/// once (by webhook-id).
#[test]
fn two_instances_deliver_each_notification_once() {
    let rx = Receiver::start();
    let db = FreshDatabase::new(Backend::Postgres);
    let a = TestServer::start_on_with(&db, &FAST, None);
    let b = TestServer::start_on_with(&db, &FAST, None);
    let p = players(&a, "two");
    hook(&a, &p[0], &rx.url("/h"));
    // Several games, started on both instances, each telling Red twice.
    let mut expected = 0;
    for i in 0..4 {
        let srv = if i % 2 == 0 { &a } else { &b };
        start_game(srv, &p);
        expected += 2;
    }
    let got = rx.wait_for(30, "every notification", |g| g.len() >= expected);
    std::thread::sleep(Duration::from_millis(500));
    let got = rx.received().len().max(got.len());
    let ids: HashSet<String> = rx
        .received()
        .iter()
        .map(|r| r.headers["webhook-id"].clone())
        .collect();
    assert_eq!(ids.len(), expected);
    assert_eq!(got, expected, "no notification twice");
    drop((a, b));
}
