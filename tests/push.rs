//! Web Push against a push service stand-in on loopback (the webhook tests' receiver):
//! each push is decrypted with the subscription's private key and its VAPID token
//! verified by independent implementations (Python's `http_ece` and `py_vapid`, in the
//! venv of `scripts/push-test-venv.sh`); retries; a 410 deletes the subscription; pushes
//! pending across a restart; the subscription API's answers.

#[path = "support/games.rs"]
mod games;
#[path = "support/receiver.rs"]
mod receiver;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use djambi_e2e::{Backend, FreshDatabase, Login, TestServer, Value, backend_tests, json};
use games::*;
use receiver::{Received, Receiver};

const SUBJECT: &str = "mailto:ops@example.org";

/// The venv's python (made by the script when missing).
fn python() -> std::path::PathBuf {
    let root = djambi_e2e::repo_root();
    let ok = Command::new("sh")
        .arg(root.join("scripts/push-test-venv.sh"))
        .status()
        .expect("run scripts/push-test-venv.sh");
    assert!(ok.success(), "scripts/push-test-venv.sh failed");
    let venv = std::env::var("DJAMBI_PUSH_VENV").unwrap_or_else(|_| {
        format!(
            "{}/.cache/djambi-ci/push-venv",
            std::env::var("HOME").unwrap()
        )
    });
    std::path::PathBuf::from(venv).join("bin/python")
}

fn webpush(mode: &str, input: Option<&Value>) -> Value {
    let mut child = Command::new(python())
        .arg(djambi_e2e::repo_root().join("tests/push/webpush.py"))
        .arg(mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run webpush.py");
    if let Some(v) = input {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(v.to_string().as_bytes())
            .unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "webpush.py {mode}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The server's settings: a VAPID key (made by the independent side too), fast retries.
fn settings(vapid: &str, backoff: &'static str) -> Vec<(&'static str, String)> {
    vec![
        ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true".into()),
        ("DJAMBI_DELIVERY_INTERVAL", "20ms".into()),
        ("DJAMBI_DELIVERY_BACKOFF", backoff.into()),
        ("DJAMBI_WEBHOOK_TIMEOUT", "2s".into()),
        ("DJAMBI_VAPID_PRIVATE_KEY", vapid.into()),
        ("DJAMBI_VAPID_SUBJECT", SUBJECT.into()),
    ]
}

fn start(db: &FreshDatabase, s: &[(&'static str, String)]) -> TestServer {
    let v: Vec<(&str, &str)> = s.iter().map(|(k, v)| (*k, v.as_str())).collect();
    TestServer::start_on_with(db, &v, None)
}

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

fn subscribe(srv: &TestServer, who: &Login, endpoint: &str, device: &Value) -> Value {
    srv.post(
        "/v1/me/push-subscriptions",
        Some(&who.access),
        &json!({"endpoint": endpoint, "keys": {"p256dh": device["p256dh"], "auth": device["auth"]},
                "expirationTime": null}),
    )
    .expect(201)
    .clone()
}

fn subscriptions(srv: &TestServer, who: &Login) -> Vec<Value> {
    srv.get("/v1/me/push-subscriptions", Some(&who.access))
        .expect(200)
        .as_array()
        .unwrap()
        .clone()
}

/// Opens a push as the browser would: decrypts it and checks its VAPID token.
fn open(r: &Received, device: &Value, endpoint: &str) -> (Value, Value, String) {
    let out = webpush(
        "open",
        Some(&json!({
            "private": device["private"],
            "auth": device["auth"],
            "body_b64": base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&r.raw),
            "authorization": r.headers["authorization"],
            "endpoint": endpoint,
        })),
    );
    let plain: Value = serde_json::from_str(out["plain"].as_str().unwrap()).unwrap();
    (
        plain,
        out["claims"].clone(),
        out["k"].as_str().unwrap().to_string(),
    )
}

#[track_caller]
fn wait_until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < until, "{what} did not happen in {secs}s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pushes_are_encrypted_and_signed(backend: Backend) {
    let rx = Receiver::start();
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let srv = start(&db, &settings(vapid["private"].as_str().unwrap(), "50ms"));
    let key = srv.get("/v1/push/vapid-public-key", None).expect(200)["public_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(key.len(), 87, "a base64url P-256 point: {key}");
    let p = players(&srv, "push");
    let phone = webpush("keygen", None);
    let laptop = webpush("keygen", None);
    let (e1, e2) = (rx.url("/push/phone"), rx.url("/push/laptop"));
    let s1 = subscribe(&srv, &p[0], &e1, &phone);
    subscribe(&srv, &p[0], &e2, &laptop);
    assert_eq!(s1["endpoint"], e1.as_str());
    // The same endpoint again: the same subscription, 200.
    let again = srv
        .post(
            "/v1/me/push-subscriptions",
            Some(&p[0].access),
            &json!({"endpoint": e1, "keys": {"p256dh": phone["p256dh"], "auth": phone["auth"]}}),
        )
        .expect(200)
        .clone();
    assert_eq!(again["id"], s1["id"]);
    assert_eq!(subscriptions(&srv, &p[0]).len(), 2);
    assert!(subscriptions(&srv, &p[1]).is_empty());

    let id = start_game(&srv, &p);
    // Red's turn: one push per device (game_started does not push by default).
    rx.wait_for(20, "two pushes", |g| g.len() >= 2);
    std::thread::sleep(Duration::from_millis(300));
    let got: Vec<Received> = rx.received();
    assert_eq!(got.len(), 2, "{got:?}");
    for r in &got {
        let (device, endpoint) = if r.path == "/push/phone" {
            (&phone, &e1)
        } else {
            (&laptop, &e2)
        };
        assert_eq!(r.headers["content-encoding"], "aes128gcm");
        assert_eq!(r.headers["ttl"], "86400");
        assert_eq!(r.headers["urgency"], "high");
        let (plain, claims, k) = open(r, device, endpoint);
        assert_eq!(plain["title"], "Your turn");
        assert_eq!(plain["kind"], "your_turn");
        assert!(
            plain["url"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/play/{id}")),
            "{plain}"
        );
        assert_eq!(claims["aud"], format!("http://127.0.0.1:{}", rx.port));
        assert_eq!(claims["sub"], SUBJECT);
        assert_eq!(k, key);
        // The other device's keys do not open it.
        let other = if r.path == "/push/phone" {
            &laptop
        } else {
            &phone
        };
        let status = Command::new(python())
            .arg(djambi_e2e::repo_root().join("tests/push/webpush.py"))
            .arg("open")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .and_then(|mut c| {
                c.stdin.take().unwrap().write_all(
                    json!({"private": other["private"], "auth": other["auth"],
                           "body_b64": base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&r.raw),
                           "authorization": r.headers["authorization"], "endpoint": endpoint})
                    .to_string()
                    .as_bytes(),
                )?;
                c.wait()
            })
            .unwrap();
        assert!(!status.success(), "another device's keys opened a push");
    }

    // Turning push off for the kind stops them.
    let mut s = srv
        .get("/v1/me/notification-settings", Some(&p[0].access))
        .expect(200)
        .clone();
    assert_eq!(s["kinds"]["your_turn"]["push"], true);
    assert_eq!(s["kinds"]["game_started"]["push"], false);
    s["kinds"]["your_turn"]["push"] = json!(false);
    let put = srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&p[0].access)
            .json(&s),
    );
    put.expect(200);

    // Delete: 204, then 404; bad input: 400, nothing stored.
    let sid = s1["id"].as_str().unwrap();
    srv.delete(
        &format!("/v1/me/push-subscriptions/{sid}"),
        Some(&p[1].access),
    )
    .problem(404, "not-found");
    assert_eq!(
        srv.delete(
            &format!("/v1/me/push-subscriptions/{sid}"),
            Some(&p[0].access)
        )
        .status
        .as_u16(),
        204
    );
    srv.delete(
        &format!("/v1/me/push-subscriptions/{sid}"),
        Some(&p[0].access),
    )
    .problem(404, "not-found");
    for body in [
        json!({"endpoint": "http://127.0.0.1:1/x", "keys": {"p256dh": "AAAA", "auth": phone["auth"]}}),
        json!({"endpoint": "http://127.0.0.1:1/x", "keys": {"p256dh": phone["p256dh"], "auth": "AAAA"}}),
        json!({"endpoint": "ftp://example.org/x", "keys": {"p256dh": phone["p256dh"], "auth": phone["auth"]}}),
    ] {
        let r = srv.post("/v1/me/push-subscriptions", Some(&p[2].access), &body);
        assert_eq!(r.status.as_u16(), 400, "{body}");
    }
    assert!(subscriptions(&srv, &p[2]).is_empty());
}

fn retries_then_a_410_deletes_the_subscription(backend: Backend) {
    let rx = Receiver::start();
    rx.script(&[500], 410);
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let srv = start(&db, &settings(vapid["private"].as_str().unwrap(), "50ms"));
    let p = players(&srv, "gone");
    let phone = webpush("keygen", None);
    let e = rx.url("/push/gone");
    subscribe(&srv, &p[0], &e, &phone);
    start_game(&srv, &p);
    let got = rx.wait_for(20, "a retry", |g| g.len() >= 2);
    assert_eq!((got[0].answered, got[1].answered), (500, 410));
    // The retry is the same push, still readable.
    let (plain, _, _) = open(&got[1], &phone, &e);
    assert_eq!(plain["kind"], "your_turn");
    wait_until(10, "the subscription deleted", || {
        subscriptions(&srv, &p[0]).is_empty()
    });
    // Nothing more goes to it.
    std::thread::sleep(Duration::from_millis(300));
    let after = rx.received();
    assert_eq!(
        after.len(),
        2,
        "{:?}",
        after
            .iter()
            .map(|r| (&r.path, r.answered, r.headers.get("ttl")))
            .collect::<Vec<_>>()
    );
}

fn pending_pushes_survive_a_restart(backend: Backend) {
    // Nobody listens on the port: the push service is down.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}/push/later");
    let vapid = webpush("keygen", None);
    let phone = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let s = settings(vapid["private"].as_str().unwrap(), "200ms");
    {
        let srv = start(&db, &s);
        let p = players(&srv, "later");
        subscribe(&srv, &p[0], &endpoint, &phone);
        start_game(&srv, &p);
        std::thread::sleep(Duration::from_millis(800));
    } // stopped with the push pending
    let rx = Receiver::start_on(port);
    let _srv = start(&db, &s);
    let got = rx.wait_for(20, "the pending push", |g| !g.is_empty());
    let (plain, claims, _) = open(&got[0], &phone, &endpoint);
    assert_eq!(plain["kind"], "your_turn");
    assert_eq!(claims["sub"], SUBJECT);
}

fn push_is_off_without_a_key(backend: Backend) {
    let srv = TestServer::start(backend);
    srv.get("/v1/push/vapid-public-key", None)
        .problem(404, "not-found");
    let p = srv.user("nokey");
    let phone = webpush("keygen", None);
    let r = srv.post(
        "/v1/me/push-subscriptions",
        Some(&p.access),
        &json!({"endpoint": "https://fcm.googleapis.com/fcm/send/x",
                "keys": {"p256dh": phone["p256dh"], "auth": phone["auth"]}}),
    );
    r.problem(404, "not-found");
}

/// The account's rows of `push_subscriptions`, read from the database itself.
fn subscription_rows(srv: &TestServer, user_id: &str) -> i64 {
    use diesel::sql_types::{BigInt, Text};
    use diesel::{Connection, QueryableByName, RunQueryDsl};
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let q = |p: &str| format!("SELECT count(*) AS n FROM push_subscriptions WHERE user_id = {p}");
    let n: N = if srv.backend == Backend::Postgres {
        let mut conn = diesel::PgConnection::establish(&srv.database_url).unwrap();
        diesel::sql_query(q("$1"))
            .bind::<Text, _>(user_id)
            .get_result(&mut conn)
            .unwrap()
    } else {
        let path = srv.database_url.trim_start_matches("sqlite://");
        let mut conn = diesel::SqliteConnection::establish(path).unwrap();
        diesel::sql_query(q("?"))
            .bind::<Text, _>(user_id)
            .get_result(&mut conn)
            .unwrap()
    };
    n.n
}

/// Closing an account (`DELETE /v1/me`) deletes its devices' subscriptions, and only its.
fn closing_the_account_deletes_its_subscriptions(backend: Backend) {
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let srv = start(&db, &settings(vapid["private"].as_str().unwrap(), "50ms"));
    let leaver = srv.user("push_leaver");
    let stayer = srv.user("push_stayer");
    for (who, device) in [(&leaver, "phone"), (&leaver, "laptop"), (&stayer, "phone")] {
        let keys = webpush("keygen", None);
        let endpoint = format!(
            "https://fcm.googleapis.com/fcm/send/{}-{device}",
            who.user_id
        );
        subscribe(&srv, who, &endpoint, &keys);
    }
    assert_eq!(subscriptions(&srv, &leaver).len(), 2);
    assert_eq!(subscription_rows(&srv, &leaver.user_id), 2);
    srv.send(
        srv.request(reqwest::Method::DELETE, "/v1/me")
            .bearer_auth(&leaver.access)
            .json(&json!({"current_password": djambi_e2e::PASSWORD})),
    )
    .expect(200);
    assert_eq!(subscription_rows(&srv, &leaver.user_id), 0);
    assert_eq!(subscription_rows(&srv, &stayer.user_id), 1);
    assert_eq!(subscriptions(&srv, &stayer).len(), 1);
}

/// Issue 33: in-flight attempts are bounded per subscription, not per push service host.
/// Two accounts' devices on one push service (the same host and port); one device never
/// answers and has pushes in flight. The other device's push still arrives at once (it
/// waited for the hung attempts' first-byte timeout when the bound was per host), and
/// opens with its own keys.
fn a_hung_device_delays_no_other_on_its_push_service(backend: Backend) {
    let rx = Receiver::start();
    rx.hang("/push/hung");
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let mut s = settings(vapid["private"].as_str().unwrap(), "1h");
    s.push(("DJAMBI_WEBHOOK_TIMEOUT", "20s".into()));
    s.push(("DJAMBI_WEBHOOK_FIRST_BYTE_TIMEOUT", "20s".into()));
    let srv = start(&db, &s);
    let (mallories, anns) = (players(&srv, "mallory"), players(&srv, "ann"));
    let (mallory, ann) = (&mallories[0], &anns[0]);
    let (hung_device, phone) = (webpush("keygen", None), webpush("keygen", None));
    subscribe(&srv, mallory, &rx.url("/push/hung"), &hung_device);
    let e = rx.url("/push/phone");
    subscribe(&srv, ann, &e, &phone);
    // Red's turn in each: three pushes to the hung device.
    for _ in 0..3 {
        start_game(&srv, &mallories);
    }
    rx.wait_for(20, "the hung device's attempts in flight", |g| {
        g.iter().filter(|r| r.path == "/push/hung").count() >= 2
    });
    let started = Instant::now();
    start_game(&srv, &anns);
    let got = rx.wait_for(15, "ann's push", |g| {
        g.iter().any(|r| r.path == "/push/phone")
    });
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "ann's push took {took:?} behind a hung device on the same push service"
    );
    let r = got.iter().find(|r| r.path == "/push/phone").unwrap();
    let (plain, _, _) = open(r, &phone, &e);
    assert_eq!(plain["kind"], "your_turn");
    // The hung device holds no more than DJAMBI_DELIVERY_PER_ENDPOINT (2) attempts.
    let hung = rx
        .received()
        .iter()
        .filter(|r| r.path == "/push/hung")
        .count();
    assert_eq!(hung, 2, "attempts in flight to the hung device");
}

/// Issue 33: a hung device holds the lane's places only for a moment: with a lane of two
/// places, both taken by attempts to a device that never answers (for a first-byte
/// timeout of 20 s), another account's push still goes within seconds, those attempts
/// going on as slow ones outside the lane.
fn a_hung_device_holds_the_lanes_places_for_a_moment_only(backend: Backend) {
    let rx = Receiver::start();
    rx.hang("/push/hung");
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let mut s = settings(vapid["private"].as_str().unwrap(), "1h");
    s.push(("DJAMBI_WEBHOOK_TIMEOUT", "20s".into()));
    s.push(("DJAMBI_WEBHOOK_FIRST_BYTE_TIMEOUT", "20s".into()));
    s.push(("DJAMBI_DELIVERY_CONCURRENCY", "2".into()));
    let srv = start(&db, &s);
    let (mallories, anns) = (players(&srv, "hold"), players(&srv, "anne"));
    let (hung_device, phone) = (webpush("keygen", None), webpush("keygen", None));
    subscribe(&srv, &mallories[0], &rx.url("/push/hung"), &hung_device);
    let e = rx.url("/push/phone");
    subscribe(&srv, &anns[0], &e, &phone);
    for _ in 0..2 {
        start_game(&srv, &mallories);
    }
    rx.wait_for(
        20,
        "two attempts to the hung device, the lane's two places",
        |g| g.iter().filter(|r| r.path == "/push/hung").count() >= 2,
    );
    let started = Instant::now();
    start_game(&srv, &anns);
    rx.wait_for(15, "anne's push", |g| {
        g.iter().any(|r| r.path == "/push/phone")
    });
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "anne's push took {took:?} while hung attempts held the lane"
    );
}

/// Issue 33: a push service's `429`/`503` with `Retry-After` is tried again when it asks
/// (seconds, or an HTTP-date), not after the back-off (here an hour); and pushes to one
/// push service reuse a kept-alive connection.
fn retry_after_and_kept_alive_connections(backend: Backend) {
    let rx = Receiver::start();
    let in_two_secs = (chrono::Utc::now() + chrono::TimeDelta::seconds(2))
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string();
    rx.script_retry_after(&[(503, "1"), (429, &in_two_secs)], 201);
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let srv = start(&db, &settings(vapid["private"].as_str().unwrap(), "1h"));
    let p = players(&srv, "ra");
    let phone = webpush("keygen", None);
    let e = rx.url("/push/phone");
    subscribe(&srv, &p[0], &e, &phone);
    start_game(&srv, &p);
    let got = rx.wait_for(15, "the push after two Retry-After answers", |g| {
        g.iter().any(|r| r.answered == 201)
    });
    assert_eq!(
        got.iter().map(|r| r.answered).collect::<Vec<_>>(),
        [503, 429, 201]
    );
    let first_wait = got[1].at - got[0].at;
    assert!(
        first_wait >= Duration::from_millis(900) && first_wait < Duration::from_secs(4),
        "Retry-After: 1 was retried after {first_wait:?}"
    );
    assert!(
        got[2].at - got[1].at < Duration::from_secs(5),
        "Retry-After as a date: retried after {:?}",
        got[2].at - got[1].at
    );
    let (plain, _, _) = open(&got[2], &phone, &e);
    assert_eq!(plain["kind"], "your_turn");
    // Three attempts, one connection: each answer's body was read, so the connection went
    // back to the pool.
    assert_eq!(rx.connections(), 1, "connections for three pushes");
}

/// Issue 35: a compressed `p256dh` (33 bytes) cannot encrypt for a browser (RFC 8291 takes
/// the 65-byte uncompressed point), and a known push service's host on another port
/// (or over http) is not that push service: both 400, nothing stored.
fn odd_keys_and_ports_are_refused(backend: Backend) {
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(backend);
    let srv = start(&db, &settings(vapid["private"].as_str().unwrap(), "50ms"));
    let ann = srv.user("ann");
    let phone = webpush("keygen", None);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let point = b64.decode(phone["p256dh"].as_str().unwrap()).unwrap();
    assert_eq!(point.len(), 65);
    // SEC1 compressed form: 0x02 or 0x03 (the parity of y), then x.
    let mut compressed = vec![2 + (point[64] & 1)];
    compressed.extend_from_slice(&point[1..33]);
    let compressed = b64.encode(compressed);
    let post = |endpoint: &str, p256dh: &str| {
        srv.post(
            "/v1/me/push-subscriptions",
            Some(&ann.access),
            &json!({"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": phone["auth"]}}),
        )
    };
    let fcm = "https://fcm.googleapis.com/fcm/send/abc";
    let r = post(fcm, &compressed);
    let p = r.problem(400, "validation");
    assert!(p.to_string().contains("65-byte"), "{p}");
    for endpoint in [
        "https://fcm.googleapis.com:22/fcm/send/abc",
        "https://web.push.apple.com:8443/abc",
        "http://fcm.googleapis.com/fcm/send/abc",
    ] {
        let r = post(endpoint, phone["p256dh"].as_str().unwrap());
        let p = r.problem(400, "validation");
        assert!(p.to_string().contains("default port"), "{endpoint}: {p}");
    }
    assert!(subscriptions(&srv, &ann).is_empty());
    // The default port, written out or not, is the push service.
    post(
        "https://fcm.googleapis.com:443/fcm/send/abc",
        phone["p256dh"].as_str().unwrap(),
    )
    .expect(201);
    assert_eq!(subscriptions(&srv, &ann).len(), 1);
}

/// Sends `bodies` as one account's subscriptions all at once (released together).
fn subscribe_at_once(srv: &TestServer, who: &Login, bodies: &[Value]) -> Vec<u16> {
    let barrier = std::sync::Barrier::new(bodies.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = bodies
            .iter()
            .map(|b| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    srv.post("/v1/me/push-subscriptions", Some(&who.access), b)
                        .status
                        .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Issue 35, on PostgreSQL (SQLite serialises writers): concurrent subscriptions of one
/// account never pass its quota, and the same subscription sent at once is one `201`
/// and `200`s (never `409`), one row.
#[test]
fn concurrent_subscriptions_keep_the_quota_and_one_row() {
    let vapid = webpush("keygen", None);
    let db = FreshDatabase::new(Backend::Postgres);
    let mut s = settings(vapid["private"].as_str().unwrap(), "50ms");
    s.push(("DJAMBI_QUOTA_PUSH_SUBSCRIPTIONS", "5".into()));
    let srv = start(&db, &s);
    let phone = webpush("keygen", None);
    let keys = json!({"p256dh": phone["p256dh"], "auth": phone["auth"]});
    for round in 0..4 {
        let who = srv.user(&format!("racer{round}"));
        let bodies: Vec<Value> = (0..12)
            .map(|i| {
                json!({"endpoint": format!("https://fcm.googleapis.com/fcm/send/{round}-{i}"),
                       "keys": keys})
            })
            .collect();
        let mut got = subscribe_at_once(&srv, &who, &bodies);
        got.sort_unstable();
        assert_eq!(
            got,
            [[201; 5].as_slice(), &[409; 7]].concat(),
            "round {round}"
        );
        assert_eq!(subscription_rows(&srv, &who.user_id), 5, "round {round}");

        let same = json!({"endpoint": format!("https://fcm.googleapis.com/fcm/send/same-{round}"),
                          "keys": keys});
        let other = srv.user(&format!("twin{round}"));
        let bodies: Vec<Value> = std::iter::repeat_n(same, 8).collect();
        let mut got = subscribe_at_once(&srv, &other, &bodies);
        got.sort_unstable();
        assert_eq!(got, [[200; 7].as_slice(), &[201]].concat(), "round {round}");
        assert_eq!(subscription_rows(&srv, &other.user_id), 1, "round {round}");
    }
}

backend_tests!(
    a_hung_device_delays_no_other_on_its_push_service,
    a_hung_device_holds_the_lanes_places_for_a_moment_only,
    retry_after_and_kept_alive_connections,
    odd_keys_and_ports_are_refused,
    closing_the_account_deletes_its_subscriptions,
    pushes_are_encrypted_and_signed,
    retries_then_a_410_deletes_the_subscription,
    pending_pushes_survive_a_restart,
    push_is_off_without_a_key,
);
