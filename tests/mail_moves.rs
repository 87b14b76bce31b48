//! Moves by mail: the reply address of turn mails, replies posted as raw messages to
//! `POST /v1/inbound-mail` (token mode), the answers, and what is dropped.

#[path = "support/games.rs"]
mod games;
#[path = "support/inbound.rs"]
mod inbound;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use djambi_e2e::{Backend, Login, TestServer, backend_tests, json};
use games::*;
use inbound::{SECRET, deliver, reply as raw};
use smtp_sink::{SmtpSink, address_of as email};

fn start(backend: Backend, sink: &SmtpSink) -> TestServer {
    start_with(backend, sink, &[])
}

fn start_with(backend: Backend, sink: &SmtpSink, extra: &[(&str, &str)]) -> TestServer {
    let mut vars = sink.server_settings(&[
        ("DJAMBI_MAIL_DOMAIN", "play.djambi.example"),
        ("DJAMBI_MAIL_AUTH", "token"),
        ("DJAMBI_INBOUND_MAIL_SECRET", SECRET),
    ]);
    vars.extend_from_slice(extra);
    TestServer::start_with(backend, &vars)
}

fn setup(srv: &TestServer, sink: &SmtpSink, prefix: &str) -> (String, Vec<Login>) {
    let p = smtp_sink::verified_players(srv, sink, prefix);
    sink.clear();
    (seat_all(srv, &p), p)
}

/// The n-th turn mail of a player: its reply address.
fn reply_to(sink: &SmtpSink, who: &Login, n: usize) -> String {
    let m = sink.wait_for_subject(20, &email(who), "Your turn", n);
    let r = m.header("reply-to").to_string();
    assert!(
        r.starts_with("move+") && r.ends_with("@play.djambi.example"),
        "{m:?}"
    );
    assert_eq!(m.header("auto-submitted"), "auto-generated");
    assert!(
        m.body.contains(&format!("Move by mail: reply to {r}")),
        "{}",
        m.body
    );
    r
}

fn a_reply_plays_once_and_the_rest_is_refused_or_dropped(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let (id, p) = setup(&srv, &sink, "mm");
    let red = &p[0];
    let addr = reply_to(&sink, red, 1);
    let v0 = version(&srv, &id);

    // Dropped silently, nothing changes: a forged From, a wrong token, an auto-reply, a
    // bounce, list mail, garbage.
    let mv = first_legal(&srv, &id);
    let wrong = format!("move+{}@play.djambi.example", "0".repeat(40));
    for (msg, want) in [
        (
            raw("mallory@evil.example", &addr, "f1", "", &mv),
            "dropped:from_not_the_player",
        ),
        (
            raw(&email(&p[1]), &addr, "f2", "", &mv),
            "dropped:from_not_the_player",
        ),
        (
            raw(&email(red), &wrong, "f3", "", &mv),
            "dropped:unknown_token",
        ),
        (
            raw(&email(red), "someone@play.djambi.example", "f4", "", &mv),
            "dropped:unknown_recipient",
        ),
        (
            raw(
                &email(red),
                &addr,
                "f5",
                "Auto-Submitted: auto-replied\r\n",
                "I am away",
            ),
            "dropped:automatic",
        ),
        (
            raw(&email(red), &addr, "f6", "Return-Path: <>\r\n", &mv),
            "dropped:automatic",
        ),
        (
            raw(&email(red), &addr, "f7", "Precedence: bulk\r\n", &mv),
            "dropped:automatic",
        ),
        (
            raw(&email(red), &addr, "f8", "List-Id: <x.example>\r\n", &mv),
            "dropped:automatic",
        ),
        ("\u{0}\u{1}garbage".to_string(), "dropped:malformed"),
    ] {
        assert_eq!(deliver(&srv, &msg), want, "{msg}");
    }
    assert_eq!(version(&srv, &id), v0, "nothing was played");

    // A typo: an answer that explains; the token stays good.
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "t1", "", "pleas play C8-D7")),
        "error:grammar"
    );
    let err = sink.wait_for_subject(20, &email(red), "Not understood", 1);
    assert!(err.body.contains("resign, draw offer"), "{}", err.body);
    // An illegal move: the legal moves of that piece or of all.
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "t2", "", "A1-I9")),
        "error:illegal"
    );
    let err = sink.wait_for_subject(20, &email(red), "Illegal move", 1);
    assert!(
        err.body.contains("Legal moves") || err.body.contains("legal moves"),
        "{}",
        err.body
    );
    assert_eq!(version(&srv, &id), v0);

    // The move, with a quoted previous message and a signature below it.
    let body = format!(
        "\r\n  {}  \r\n\r\n> On Monday Djambi wrote:\r\n> resign\r\n-- \r\nRed\r\n",
        mv.to_lowercase()
    );
    let played = raw(
        &email(red),
        &addr
            .to_uppercase()
            .replace("@PLAY.DJAMBI.EXAMPLE", "@play.djambi.example"),
        "ok1",
        "",
        &body,
    );
    assert_eq!(deliver(&srv, &played), "played");
    assert_eq!(version(&srv, &id), v0 + 1);
    let ok = sink.wait_for_subject(20, &email(red), "Played", 1);
    assert!(
        ok.body.contains(&format!("Played: Red {mv}")),
        "{}",
        ok.body
    );
    assert!(ok.body.contains("To move now: Blue"), "{}", ok.body);
    assert!(ok.body.contains(&format!("/v1/games/{id}/board.svg")));
    // The same message again: applied once. Another reply: already played.
    assert_eq!(deliver(&srv, &played), "dropped:duplicate");
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "ok2", "", "resign")),
        "error:used"
    );
    sink.wait_for_subject(20, &email(red), "Already played", 1);
    assert_eq!(version(&srv, &id), v0 + 1);

    // Blue's turn mail came as usual; an HTML-only reply plays.
    let blue = &p[1];
    let baddr = reply_to(&sink, blue, 1);
    let mv = first_legal(&srv, &id);
    let html = format!(
        "From: {}\r\nTo: {baddr}\r\nMessage-ID: <h1@example.org>\r\nContent-Type: text/html\r\n\r\n\
         <html><body><p>{mv}</p><blockquote><p>resign</p></blockquote></body></html>\r\n",
        email(blue)
    );
    assert_eq!(deliver(&srv, &html), "played");
    assert_eq!(version(&srv, &id), v0 + 2);

    // Yellow: the game moves on through the API first, the mail is then stale.
    let yellow = &p[2];
    let yaddr = reply_to(&sink, yellow, 1);
    let mv = first_legal(&srv, &id);
    play(&srv, yellow, &id, json!(mv), v0 + 2).expect(201);
    let green_mv = first_legal(&srv, &id);
    assert_eq!(
        deliver(&srv, &raw(&email(yellow), &yaddr, "s1", "", &green_mv)),
        "error:stale"
    );
    let stale = sink.wait_for_subject(20, &email(yellow), "The game moved on", 1);
    assert!(stale.body.contains("To move now: Green"), "{}", stale.body);
    assert_eq!(version(&srv, &id), v0 + 3);
}

fn the_endpoint_wants_its_secret_and_a_small_message(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let post = |auth: &str, ct: &str, body: Vec<u8>| {
        srv.send(
            srv.request(reqwest::Method::POST, "/v1/inbound-mail")
                .header("authorization", auth)
                .header("content-type", ct)
                .body(body),
        )
    };
    post(
        "Bearer wrong",
        "message/rfc822",
        b"From: a@b\r\n\r\nx".to_vec(),
    )
    .expect(401);
    post("", "message/rfc822", b"From: a@b\r\n\r\nx".to_vec()).expect(401);
    let auth = format!("Bearer {SECRET}");
    post(&auth, "text/plain", b"From: a@b\r\n\r\nx".to_vec()).expect(415);
    let mut big = b"From: a@b.example\r\nTo: move+x@play.djambi.example\r\n\r\n".to_vec();
    big.resize(10 * 1024 * 1024, b'a');
    let r = post(&auth, "message/rfc822", big);
    assert_eq!(r.status.as_u16(), 413, "{}", r.text);
}

/// Four players play by mail alone for three full rounds; the log is the same as the
/// moves' texts played.
fn four_players_play_rounds_by_mail(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let (id, p) = setup(&srv, &sink, "mr");
    let mut played = Vec::new();
    for round in 1..=3 {
        for who in &p {
            if player_to_move(&srv, &id, &p).map(|l| l.username.as_str())
                != Some(who.username.as_str())
            {
                continue;
            }
            let addr = reply_to(&sink, who, round);
            let mv = first_legal(&srv, &id);
            let msg = raw(
                &email(who),
                &addr,
                &format!("r{round}{}", who.username),
                "",
                &mv,
            );
            assert_eq!(deliver(&srv, &msg), "played");
            played.push(mv);
        }
    }
    let texts: Vec<String> = all_events(&srv, &id)
        .iter()
        .filter(|e| e["kind"] == "move_played")
        .map(|e| {
            e["payload"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(texts, played);
    check_log_replays(&srv, &id);
}

/// The limits per seat (all the turn mails of one seat of a game) and per sender (all
/// games): past them a reply is dropped silently, even a legal move, and nothing changes;
/// the limit of one seat leaves the player's other games alone.
fn limits_per_seat_and_per_sender_drop_silently(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start_with(
        backend,
        &sink,
        &[
            ("DJAMBI_MAIL_LIMIT_PER_SEAT", "2/1h"),
            ("DJAMBI_MAIL_LIMIT_PER_SENDER", "4/1h"),
        ],
    );
    let (first, p) = setup(&srv, &sink, "lim");
    let red = &p[0];
    let second = seat_all(&srv, &p);
    let third = seat_all(&srv, &p);
    // Red's turn mails: one per game.
    let addrs: Vec<String> = [&first, &second, &third]
        .iter()
        .map(|g| smtp_sink::turn_reply_address(&sink, red, g, 1))
        .collect();
    let v = [&first, &second, &third].map(|g| version(&srv, g));
    let send = |to: &str, n: &str, body: &str| deliver(&srv, &raw(&email(red), to, n, "", body));

    // The seat of the first game: two replies, then even its legal move is dropped.
    assert_eq!(send(&addrs[0], "s1", "please"), "error:grammar");
    assert_eq!(send(&addrs[0], "s2", "please"), "error:grammar");
    let mv = first_legal(&srv, &first);
    assert_eq!(send(&addrs[0], "s3", &mv), "dropped:rate_seat");
    assert_eq!(version(&srv, &first), v[0]);
    // Another game's seat has its own count: its move plays (the sender's fourth reply).
    let mv = first_legal(&srv, &second);
    assert_eq!(send(&addrs[1], "s4", &mv), "played");
    assert_eq!(version(&srv, &second), v[1] + 1);
    // The sender's fifth reply, in a third game, is over the sender's limit.
    let mv = first_legal(&srv, &third);
    assert_eq!(send(&addrs[2], "s5", &mv), "dropped:rate_sender");
    assert_eq!(version(&srv, &third), v[2]);
}

backend_tests!(
    limits_per_seat_and_per_sender_drop_silently,
    a_reply_plays_once_and_the_rest_is_refused_or_dropped,
    the_endpoint_wants_its_secret_and_a_small_message,
    four_players_play_rounds_by_mail,
);
