//! What one client can hold, and for how long (issue 27, items 3 and 4):
//!
//! - a request body that trickles in (one byte every few seconds) is answered `408
//!   request-timeout` within `DJAMBI_BODY_TIMEOUT`, or `DJAMBI_BODY_IDLE_TIMEOUT` after its
//!   last byte, and its connection is closed;
//! - connections beyond `DJAMBI_MAX_CONNECTIONS_PER_ADDRESS` from one address are answered
//!   `429` with `Retry-After` and closed at once, and `/healthz` answers all the while;
//! - an open notification stream ends when its personal access token is revoked, or its
//!   login session ends (a password change elsewhere), at once (the database signals it;
//!   the periodic `DJAMBI_STREAM_RECHECK` is left at its 15 minutes), and delivers nothing
//!   after; every stream ends after `DJAMBI_STREAM_MAX_LIFETIME`.

#[path = "support/games.rs"]
mod games;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use djambi_e2e::{
    Backend, Login, PASSWORD, TEST_JWT_SECRET, TestServer, Value, backend_tests, json,
};
use games::*;
use reqwest::Method;

fn addr(srv: &TestServer) -> String {
    srv.url("")
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

/// A client that announces a 1000-byte body and sends one byte every `every`, on its own
/// thread. Its report: the status of the answer (`None`: none came) and how long after
/// the start it came, and whether the server closed the connection after it.
fn trickler(addr: String, every: Duration) -> mpsc::Receiver<(Option<u16>, Duration, bool)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut tcp = TcpStream::connect(&addr).expect("connect");
        write!(
            tcp,
            "POST /v1/sessions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: 1000\r\n\r\n{{"
        )
        .unwrap();
        tcp.set_read_timeout(Some(every)).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        let give_up = started + Duration::from_secs(40);
        let (status, at) = loop {
            match tcp.read(&mut buf) {
                Ok(0) => break (parse_status(&got), started.elapsed()),
                Ok(n) => {
                    got.extend_from_slice(&buf[..n]);
                    if got.windows(4).any(|w| w == b"\r\n\r\n") {
                        break (parse_status(&got), started.elapsed());
                    }
                }
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    if Instant::now() > give_up {
                        break (None, started.elapsed());
                    }
                    // Another byte of the body; a closed connection shows on the next read.
                    let _ = tcp.write_all(b" ");
                }
                Err(_) => break (parse_status(&got), started.elapsed()),
            }
        };
        // After the answer the server closes the connection: reading reaches its end.
        tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let closed = loop {
            match tcp.read(&mut buf) {
                Ok(0) => break true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break true,
                Err(_) => break false,
            }
        };
        let _ = tx.send((status, at, closed));
    });
    rx
}

fn parse_status(head: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(head).ok()?;
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

/// A body sent one byte every 2 s is answered 408 within the total deadline (4 s), and
/// the connection is closed; a body that stops is answered 408 once it paused for the
/// idle deadline.
fn a_trickling_body_gets_408_and_its_connection_closed(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_BODY_TIMEOUT", "4s"),
            ("DJAMBI_BODY_IDLE_TIMEOUT", "3s"),
        ],
    );
    let slow = trickler(addr(&srv), Duration::from_secs(2));
    let (status, at, closed) = slow
        .recv_timeout(Duration::from_secs(30))
        .expect("a report");
    assert_eq!(status, Some(408), "answered after {at:?}");
    assert!(
        at >= Duration::from_millis(3500) && at < Duration::from_secs(7),
        "{at:?}"
    );
    assert!(closed, "the connection is closed after the 408");

    // A body that stops after its first byte: 408 once it paused for 3 s.
    let stalled = trickler(addr(&srv), Duration::from_secs(30));
    let (status, at, closed) = stalled
        .recv_timeout(Duration::from_secs(30))
        .expect("a report");
    assert_eq!(status, Some(408));
    assert!(
        at >= Duration::from_millis(2500) && at < Duration::from_secs(6),
        "{at:?}"
    );
    assert!(closed);

    // The problem itself, through an ordinary client that sends half a body.
    let mut tcp = TcpStream::connect(addr(&srv)).unwrap();
    write!(
        tcp,
        "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"username\":"
    )
    .unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let mut text = String::new();
    let _ = tcp.read_to_string(&mut text);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("application/problem+json"), "{text}");
    assert!(text.contains("/problems/request-timeout"), "{text}");
    assert!(
        text.to_ascii_lowercase().contains("connection: close"),
        "{text}"
    );
    // A whole body in time is answered as ever.
    srv.register("alice");
    srv.login("alice", PASSWORD);
}

/// Twelve trickling clients from one address with a cap of eight: the four beyond the cap
/// are answered 429 with Retry-After at once and closed, the eight are answered 408 at
/// the deadline, and /healthz answers all the while (also from that address).
fn connections_per_address_are_capped_and_health_answers(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_BODY_TIMEOUT", "5s"),
            ("DJAMBI_BODY_IDLE_TIMEOUT", "4s"),
            ("DJAMBI_MAX_CONNECTIONS_PER_ADDRESS", "8"),
        ],
    );
    let clients: Vec<_> = (0..12)
        .map(|_| {
            let rx = trickler(addr(&srv), Duration::from_secs(2));
            std::thread::sleep(Duration::from_millis(30));
            rx
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // While they hold their connections, the health check answers, quickly.
    for _ in 0..3 {
        let t = Instant::now();
        let r = srv.get("/healthz", None);
        r.expect(200);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        std::thread::sleep(Duration::from_millis(300));
    }
    // An ordinary request from the address over its cap: 429 with Retry-After.
    let r = srv.get("/v1/games", None);
    r.problem(429, "rate-limited");
    assert!(r.header("retry-after").is_some());

    let reports: Vec<_> = clients
        .iter()
        .map(|rx| rx.recv_timeout(Duration::from_secs(30)).expect("a report"))
        .collect();
    let refused: Vec<_> = reports.iter().filter(|r| r.0 == Some(429)).collect();
    let timed_out: Vec<_> = reports.iter().filter(|r| r.0 == Some(408)).collect();
    assert_eq!(refused.len(), 4, "{reports:?}");
    assert_eq!(timed_out.len(), 8, "{reports:?}");
    for (_, at, closed) in &refused {
        assert!(*at < Duration::from_secs(3), "refused at once: {at:?}");
        assert!(*closed);
    }
    for (_, at, closed) in &timed_out {
        assert!(*at < Duration::from_secs(8), "{at:?}");
        assert!(*closed);
    }
    // Their places are given back: the address is served again.
    std::thread::sleep(Duration::from_millis(300));
    srv.get("/v1/games", None).expect(200);
}

enum Msg {
    Event(String, Value),
    End,
}

/// Opens a stream with `token` and reads it on a thread: each event, then `End` when the
/// server ends the stream.
fn open_stream(srv: &TestServer, path: &str, token: &str) -> mpsc::Receiver<Msg> {
    let res = srv
        .request(Method::GET, path)
        .bearer_auth(token)
        .timeout(Duration::from_secs(120))
        .send()
        .expect("stream");
    assert_eq!(res.status().as_u16(), 200);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut event, mut data) = (String::new(), String::new());
        for line in BufReader::new(res).lines() {
            let Ok(line) = line else { break };
            if let Some(v) = line.strip_prefix("event: ") {
                event = v.into();
            } else if let Some(v) = line.strip_prefix("data: ") {
                data = v.into();
            } else if line.is_empty() && !event.is_empty() {
                let value = serde_json::from_str(&data).unwrap_or(Value::Null);
                let _ = tx.send(Msg::Event(std::mem::take(&mut event), value));
            }
        }
        let _ = tx.send(Msg::End);
    });
    rx
}

/// Three players seated in a new four-seat game of `creator`: the fourth seat starts it.
fn three_seated(srv: &TestServer, creator: &Login, others: &[Login]) -> String {
    let game = create(srv, creator, json!({"seats": 4, "seat": "R"}));
    let id = game["id"].as_str().unwrap().to_string();
    for (who, seat) in others.iter().zip(["B", "Y"]) {
        take_seat(srv, who, &id, seat).expect(200);
    }
    id
}

/// The next event, or `End`, within `wait` (`None`: nothing came).
fn next(rx: &mpsc::Receiver<Msg>, wait: Duration) -> Option<Msg> {
    rx.recv_timeout(wait).ok()
}

/// The owner revokes the personal access token a notification stream was opened with:
/// the stream ends at once (no periodic check is due for 15 minutes), and an item written
/// right after the revocation is not delivered.
fn a_stream_ends_when_its_token_is_revoked(backend: Backend) {
    let srv = TestServer::start(backend);
    let alice = srv.user("alice");
    let others: Vec<Login> = ["bob", "carol", "dave"]
        .iter()
        .map(|n| srv.user(n))
        .collect();
    let (token_id, token) = srv.pat(&alice, &["read"]);
    let stream = open_stream(&srv, "/v1/me/notifications/stream", &token);

    // It delivers while the token holds.
    let first = three_seated(&srv, &alice, &others[..2]);
    take_seat(&srv, &others[2], &first, "G").expect(200);
    let delivered = loop {
        match next(&stream, Duration::from_secs(10)) {
            Some(Msg::Event(kind, _)) if kind == "game_started" => break true,
            Some(Msg::Event(..)) => continue,
            _ => break false,
        }
    };
    assert!(delivered, "game_started arrives on the stream");
    while let Some(Msg::Event(..)) = next(&stream, Duration::from_millis(500)) {}

    // Revoked, then a new item for alice at once.
    let second = three_seated(&srv, &alice, &others[..2]);
    srv.delete(&format!("/v1/me/tokens/{token_id}"), Some(&alice.access))
        .expect(204);
    let revoked = Instant::now();
    take_seat(&srv, &others[2], &second, "G").expect(200);
    match next(&stream, Duration::from_secs(5)) {
        Some(Msg::End) => {}
        Some(Msg::Event(kind, data)) => panic!("delivered after the revocation: {kind} {data}"),
        None => panic!("the stream is still open 5 s after the revocation"),
    }
    assert!(
        revoked.elapsed() < Duration::from_secs(2),
        "{:?}",
        revoked.elapsed()
    );
    // The item was written (it is in the feed): the stream withheld it.
    let started_games = || {
        let feed = srv.get("/v1/me/notifications", Some(&alice.access));
        feed.expect(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == "game_started")
            .count()
    };
    let until = Instant::now() + Duration::from_secs(5);
    while started_games() < 2 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        started_games(),
        2,
        "both games' game_started are in the feed"
    );
    // A new stream with the revoked token is refused.
    let r = srv.get("/v1/me/notifications/stream", Some(&token));
    r.problem(401, "unauthorized");
}

/// A stream opened with a login session ends when the session is ended by a password
/// change made from another session; the session that changed it keeps its stream.
fn a_stream_ends_when_its_session_ends(backend: Backend) {
    let srv = TestServer::start(backend);
    let first = srv.user("erin");
    let second = srv.login("erin", PASSWORD);
    let ending = open_stream(&srv, "/v1/me/notifications/stream", &first.access);
    let staying = open_stream(&srv, "/v1/me/notifications/stream", &second.access);
    std::thread::sleep(Duration::from_millis(300));
    srv.patch(
        "/v1/me",
        Some(&second.access),
        &json!({"current_password": PASSWORD, "new_password": "another horse battery staple"}),
    )
    .expect(200);
    let t = Instant::now();
    assert!(
        matches!(next(&ending, Duration::from_secs(5)), Some(Msg::End)),
        "the other session's stream ends"
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let until = Instant::now() + Duration::from_secs(2);
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match next(&staying, left) {
            Some(Msg::End) => panic!("the changing session's stream ended"),
            Some(Msg::Event(..)) => continue,
            None => break,
        }
    }
}

/// Every stream ends after DJAMBI_STREAM_MAX_LIFETIME (clients reconnect with
/// Last-Event-ID); the anonymous game stream too.
fn streams_end_after_their_lifetime(backend: Backend) {
    let srv = TestServer::start_with(backend, &[("DJAMBI_STREAM_MAX_LIFETIME", "2s")]);
    let frank = srv.user("frank");
    let game = create(&srv, &frank, json!({"seats": 4, "seat": "R"}));
    let id = game["id"].as_str().unwrap();
    let started = Instant::now();
    let feed = open_stream(&srv, "/v1/me/notifications/stream", &frank.access);
    let res = srv
        .request(Method::GET, &format!("/v1/games/{id}/stream"))
        .send()
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert!(matches!(
        next(&feed, Duration::from_secs(10)),
        Some(Msg::End)
    ));
    let body = res.text().expect("the game stream ends");
    assert!(body.starts_with("retry: 2000"), "{body}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1800) && took < Duration::from_secs(6),
        "{took:?}"
    );
}

/// The unsubscribe link mailed before versions existed (`{user}.{mac}`), as the server
/// signed it then.
fn legacy_unsubscribe_token(user: &str) -> String {
    use base64::Engine;
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(TEST_JWT_SECRET.as_bytes()).unwrap();
    mac.update(b"djambi-unsubscribe\0");
    mac.update(user.as_bytes());
    let sig =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&mac.finalize().into_bytes()[..18]);
    format!("{user}.{sig}")
}

/// Unsubscribe links carry a version: the current one works (and links mailed before
/// versions, as version 0), a password change bumps it and the older links stop working
/// (404) while a link of the new version works.
fn unsubscribe_links_are_revoked_by_a_password_change(backend: Backend) {
    use djambi_api::notifications::email::unsubscribe_token;
    let srv = TestServer::start(backend);
    let gina = srv.user("gina");
    let v0 = unsubscribe_token(TEST_JWT_SECRET, &gina.user_id.as_str().into(), 0);
    let legacy = legacy_unsubscribe_token(&gina.user_id);
    for t in [&v0, &legacy] {
        let r = srv.get(&format!("/v1/unsubscribe/{t}"), None);
        assert_eq!(r.status.as_u16(), 200, "{t}: {}", r.text);
    }
    // A forged version does not verify.
    let forged = v0.replacen(".v0.", ".v1.", 1);
    srv.get(&format!("/v1/unsubscribe/{forged}"), None)
        .problem(404, "not-found");

    srv.patch(
        "/v1/me",
        Some(&gina.access),
        &json!({"current_password": PASSWORD, "new_password": "another horse battery staple"}),
    )
    .expect(200);
    for t in [&v0, &legacy] {
        srv.get(&format!("/v1/unsubscribe/{t}"), None)
            .problem(404, "not-found");
        srv.post(&format!("/v1/unsubscribe/{t}"), None, &json!({}))
            .problem(404, "not-found");
    }
    let v1 = unsubscribe_token(TEST_JWT_SECRET, &gina.user_id.as_str().into(), 1);
    let r = srv.post(&format!("/v1/unsubscribe/{v1}"), None, &json!({}));
    assert_eq!(r.expect(200)["unsubscribed"], true);
}

backend_tests!(
    unsubscribe_links_are_revoked_by_a_password_change,
    a_trickling_body_gets_408_and_its_connection_closed,
    connections_per_address_are_capped_and_health_answers,
    a_stream_ends_when_its_token_is_revoked,
    a_stream_ends_when_its_session_ends,
    streams_end_after_their_lifetime,
);
