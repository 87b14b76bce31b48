//! E-mail notifications through a real SMTP conversation with a sink started by the
//! test: what a mail says, its List-Unsubscribe headers and the one-click POST (no
//! login), and the daily digest driven by the injected clock.

#[path = "support/games.rs"]
mod games;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{Backend, Login, ManualClock, TestServer, backend_tests, json};
use games::*;
use smtp_sink::{SmtpSink, address_of as email};

fn start(backend: Backend, sink: &SmtpSink, clock: Option<Arc<ManualClock>>) -> TestServer {
    let v = sink.server_settings(&[]);
    match clock {
        Some(c) => TestServer::start_with_clock(backend, &v, c),
        None => TestServer::start_with(backend, &v),
    }
}

/// Four players whose addresses are verified; the sink is emptied afterwards.
fn players(srv: &TestServer, sink: &SmtpSink, prefix: &str) -> Vec<Login> {
    let p = smtp_sink::verified_players(srv, sink, prefix);
    sink.clear();
    p
}

fn start_game(srv: &TestServer, p: &[Login], tc: bool) -> String {
    let mut body = json!({"seats": 4, "seat": "R"});
    if tc {
        body["time_control"] = json!({"per_move_secs": 86400});
    }
    let id = create(srv, &p[0], body)["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &p[i], &id, seat).expect(200);
    }
    id
}

fn move_now(srv: &TestServer, id: &str, who: &Login) -> String {
    let v = version(srv, id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(srv, who, id, mv.clone(), v).expect(201);
    mv.as_str().unwrap().to_string()
}

fn mails_name_the_game_and_unsubscribe_in_one_click(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink, None);
    let p = players(&srv, &sink, "mail");
    let id = start_game(&srv, &p, true);
    let red = sink.wait_for(20, &email(&p[0]), 1);
    let m = &red[0];
    assert_eq!(m.from, "games@djambi.example");
    assert!(m.header("subject").contains("Your turn"), "{m:?}");
    // A game is named by its players, not by its id.
    let names: Vec<&str> = p.iter().map(|who| who.username.as_str()).collect();
    assert_eq!(
        m.header("subject"),
        format!("[Djambi] Your turn: {}", names.join(", "))
    );
    for who in &p {
        assert!(m.body.contains(&who.username), "players named: {}", m.body);
    }
    assert!(
        m.body
            .contains(&format!("To move: Red ({})", p[0].username)),
        "{}",
        m.body
    );
    // The deadline in the reader's language and zone (English and UTC by default).
    assert!(
        m.body.contains(", deadline ") && m.body.contains(" UTC (in "),
        "{}",
        m.body
    );
    assert!(
        m.body
            .contains(&format!("https://djambi.example/games/{id}"))
    );
    assert!(
        m.body
            .contains(&format!("https://djambi.example/v1/games/{id}/board.svg"))
    );
    // Standard MIME (every mail the sink gets passes Python's strict parser): a text part
    // and an HTML alternative, UTF-8, the links whole in both.
    assert_eq!(m.header("mime-version"), "1.0");
    assert!(
        m.header("content-type")
            .starts_with("multipart/alternative"),
        "{m:?}"
    );
    let html = m.html.as_deref().expect("an HTML alternative");
    assert!(
        html.contains(&format!(
            "<a href=\"https://djambi.example/games/{id}\">https://djambi.example/games/{id}</a>"
        )),
        "{html}"
    );
    let unsubscribe = m.header("list-unsubscribe").trim_matches(['<', '>']);
    assert!(m.body.contains(unsubscribe), "{}", m.body);
    assert!(
        html.contains(&format!("<a href=\"{unsubscribe}\">")),
        "{html}"
    );
    assert_eq!(
        m.header("list-unsubscribe-post"),
        "List-Unsubscribe=One-Click"
    );
    let lu = m.header("list-unsubscribe");
    let url = lu
        .strip_prefix("<")
        .and_then(|s| s.strip_suffix(">"))
        .unwrap_or_else(|| panic!("List-Unsubscribe {lu:?}"));
    let path = url
        .strip_prefix("https://djambi.example")
        .expect("a link to the public URL");
    assert!(path.starts_with("/v1/unsubscribe/"));
    // Nobody was told by mail that the game started (off by default).
    assert_eq!(sink.to(&email(&p[1])).len(), 0);

    // Red moves: Blue's mail lists the move.
    let mv = move_now(&srv, &id, &p[0]);
    let blue = sink.wait_for(20, &email(&p[1]), 1);
    assert!(
        blue[0].body.contains(&format!("Last moves: Red {mv}")),
        "{}",
        blue[0].body
    );
    assert!(
        blue[0]
            .body
            .contains(&format!("To move: Blue ({})", p[1].username))
    );

    // The one-click unsubscribe works without logging in (RFC 8058's POST).
    let bad = format!("{path}A");
    srv.send(
        srv.request(reqwest::Method::POST, &bad)
            .header("content-type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click"),
    )
    .problem(404, "not-found");
    let r = srv.send(
        srv.request(reqwest::Method::POST, path)
            .header("content-type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click"),
    );
    assert_eq!(r.expect(200)["unsubscribed"], true);
    let s = srv
        .get("/v1/me/notification-settings", Some(&p[0].access))
        .expect(200)
        .clone();
    for (_, ch) in s["kinds"].as_object().unwrap() {
        assert_eq!(ch["email"], false);
        assert_eq!(ch["feed"], true);
    }
    let page = srv.get(path, None);
    assert_eq!(page.status.as_u16(), 200);
    assert!(page.text.contains("method=\"post\""));

    // Red gets no more mail: a new game tells it by feed only.
    start_game(&srv, &p, false);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(sink.to(&email(&p[0])).len(), 1);
}

fn the_daily_digest_follows_the_clock(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ));
    let srv = start(backend, &sink, Some(clock.clone()));
    let p = players(&srv, &sink, "digest");
    srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&p[0].access)
            .json(&json!({"email_digest": true})),
    )
    .expect(200);
    let id = start_game(&srv, &p, false);
    clock.advance(TimeDelta::minutes(5));
    move_now(&srv, &id, &p[0]);
    clock.advance(TimeDelta::minutes(5));
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    // Blue (no digest) has its mail at once; Red's items wait for the day to end.
    sink.wait_for(20, &email(&p[1]), 1);
    std::thread::sleep(Duration::from_millis(400));
    assert!(sink.to(&email(&p[0])).is_empty(), "nothing before midnight");
    clock.advance(TimeDelta::hours(12));
    let red = sink.wait_for(20, &email(&p[0]), 1);
    std::thread::sleep(Duration::from_millis(300));
    let red = sink
        .to(&email(&p[0]))
        .into_iter()
        .chain(red)
        .take(2)
        .collect::<Vec<_>>();
    assert_eq!(sink.to(&email(&p[0])).len(), 1, "one digest: {red:?}");
    let m = &red[0];
    assert!(
        m.header("subject")
            .contains("digest of 1 March 2031: 2 items"),
        "{}",
        m.header("subject")
    );
    assert!(
        m.body.contains("Your turn") && m.body.contains("A draw is offered"),
        "{}",
        m.body
    );
    assert!(
        m.header("list-unsubscribe")
            .starts_with("<https://djambi.example/v1/unsubscribe/")
    );
}

/// The digest waits for the reader's own midnight (New York here, five hours after
/// UTC's), is dated by the reader's day, and is one mail however few mails go at once.
fn the_digest_comes_at_the_readers_midnight_as_one_mail(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ));
    let v = sink.server_settings(&[("DJAMBI_MAIL_CONCURRENCY", "1")]);
    let srv = TestServer::start_with_clock(backend, &v, clock.clone());
    let p = players(&srv, &sink, "nydigest");
    srv.patch(
        "/v1/me",
        Some(&p[0].access),
        &json!({"time_zone": "America/New_York"}),
    )
    .expect(200);
    srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&p[0].access)
            .json(&json!({"email_digest": true})),
    )
    .expect(200);
    let id = start_game(&srv, &p, false);
    clock.advance(TimeDelta::minutes(5));
    move_now(&srv, &id, &p[0]);
    clock.advance(TimeDelta::minutes(5));
    srv.post(
        &format!("/v1/games/{id}/draw-offer"),
        Some(&p[1].access),
        &json!({"action": "offer"}),
    )
    .expect(200);
    sink.wait_for(20, &email(&p[1]), 1);
    // UTC's midnight is 19:00 in New York: nothing yet.
    clock.advance(TimeDelta::hours(12));
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        sink.to(&email(&p[0])).is_empty(),
        "nothing before New York's midnight"
    );
    clock.advance(TimeDelta::hours(5));
    sink.wait_for(20, &email(&p[0]), 1);
    std::thread::sleep(Duration::from_millis(800));
    let red = sink.to(&email(&p[0]));
    assert_eq!(red.len(), 1, "one digest: {red:?}");
    let m = &red[0];
    assert!(
        m.header("subject").contains("digest of 1 March 2031: "),
        "{}",
        m.header("subject")
    );
    assert!(
        m.body.contains("Your turn") && m.body.contains("A draw is offered"),
        "{}",
        m.body
    );
}

backend_tests!(
    the_digest_comes_at_the_readers_midnight_as_one_mail,
    mails_name_the_game_and_unsubscribe_in_one_click,
    the_daily_digest_follows_the_clock,
);
