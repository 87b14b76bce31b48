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

/// Issue 34, item 4: the answers to a reply thread under it (`In-Reply-To` its
/// Message-ID, `References` its own then its Message-ID) and say
/// `Auto-Submitted: auto-replied` (RFC 3834 §3.1.5, §5); turn mails stay
/// `auto-generated`.
fn answers_thread_under_the_reply(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let (id, p) = setup(&srv, &sink, "th");
    let red = &p[0];
    let addr = reply_to(&sink, red, 1);
    let mv = first_legal(&srv, &id);
    let msg = raw(
        &email(red),
        &addr,
        "th1",
        "In-Reply-To: <turn@djambi>\r\nReferences: <first@example.org> <turn@djambi>\r\n",
        &mv,
    );
    assert_eq!(deliver(&srv, &msg), "played");
    let ok = sink.wait_for_subject(20, &email(red), "Played", 1);
    assert_eq!(ok.header("in-reply-to"), "<th1@example.org>");
    assert_eq!(
        ok.header("references"),
        "<first@example.org> <turn@djambi> <th1@example.org>"
    );
    assert_eq!(ok.header("auto-submitted"), "auto-replied");
    // The answer to a move takes a reply (conditional moves), at an address of its own.
    assert!(ok.header("reply-to").starts_with("move+"), "{ok:?}");
    assert_ne!(ok.header("reply-to"), addr);
    // An error answer to a reply without References.
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "th2", "", "resign")),
        "error:used"
    );
    let used = sink.wait_for_subject(20, &email(red), "Already played", 1);
    assert_eq!(used.header("in-reply-to"), "<th2@example.org>");
    assert_eq!(used.header("references"), "<th2@example.org>");
    assert_eq!(used.header("auto-submitted"), "auto-replied");
    assert_eq!(
        used.header("reply-to"),
        "",
        "an error answer takes no reply"
    );
    // The next turn mail is no answer.
    let blue = sink.wait_for_subject(20, &email(&p[1]), "Your turn", 1);
    assert_eq!(blue.header("auto-submitted"), "auto-generated");
    assert_eq!(blue.header("in-reply-to"), "");
}

/// The `n`-th mail to `who` with a reply address (a turn mail, in any language).
fn nth_reply_to(sink: &SmtpSink, who: &Login, n: usize) -> String {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let with: Vec<String> = sink
            .to(&email(who))
            .iter()
            // Answers carry a reply address too; they thread under a reply.
            .filter(|m| m.header("in-reply-to").is_empty())
            .map(|m| m.header("reply-to").to_string())
            .filter(|r| r.starts_with("move+"))
            .collect();
        if let Some(r) = with.get(n - 1) {
            return r.clone();
        }
        assert!(
            std::time::Instant::now() < until,
            "no turn mail {n} for {}",
            who.username
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// What no answer may carry: the Rust `Debug` form of the rules' values.
const DEBUG_FORMS: &[&str] = &[
    "Piece {",
    "Square(",
    "Moved {",
    "party:",
    "Some(",
    "Win,",
    "LastSeatStanding",
];

/// Answers are in the player's language (French, Spanish with `tú`), with French and
/// Spanish plurals, and the effects of a move read as sentences.
fn answers_speak_the_players_language(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let p = smtp_sink::verified_players(&srv, &sink, "lang");
    for (who, lang) in [(&p[0], "fr"), (&p[1], "es")] {
        srv.patch("/v1/me", Some(&who.access), &json!({ "language": lang }))
            .expect(200);
    }
    sink.clear();
    let id = seat_all(&srv, &p);
    let red = &p[0];
    let addr = nth_reply_to(&sink, red, 1);
    let french = |n: usize| {
        let mut all = sink.wait_for(20, &email(red), n + 1);
        all.retain(|m| !m.header("in-reply-to").is_empty());
        all
    };
    // A typo: the reason in French, one try left in the singular after two.
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "fr1", "", "bonjour")),
        "error:grammar"
    );
    let m = french(1).pop().unwrap();
    assert_eq!(m.header("content-language"), "fr");
    assert!(
        m.body.contains("« bonjour » n'est ni un coup"),
        "{}",
        m.body
    );
    assert!(m.body.contains("encore 2 essais"), "{}", m.body);
    for english in ["neither", "is not legal", "cannot reach", "tries"] {
        assert!(!m.body.contains(english), "{english:?} in {}", m.body);
    }
    // An illegal move: the rules' reason in French.
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "fr2", "", "A9-A1")),
        "error:illegal"
    );
    let m = french(2).pop().unwrap();
    assert!(
        m.body.contains("« A9-A1 » n'est pas légal ici : "),
        "{}",
        m.body
    );
    assert!(m.body.contains("encore 1 essai "), "{}", m.body);
    for english in ["the piece on", "cannot", "is empty", "is not"] {
        assert!(!m.body.contains(english), "{english:?} in {}", m.body);
    }
    // The move: its effects as a sentence, no Debug dump.
    let mv = first_legal(&srv, &id);
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "fr3", "", &mv)),
        "played"
    );
    let m = french(3).pop().unwrap();
    assert!(m.body.contains(&format!("Joué : Rouge {mv}")), "{}", m.body);
    assert!(m.body.contains("Ce qui s'est passé : "), "{}", m.body);
    assert!(m.body.contains(" Rouge "), "{}", m.body);
    for debug in DEBUG_FORMS {
        assert!(!m.body.contains(debug), "{debug:?} in {}", m.body);
    }

    // Blue reads Spanish, with `tú` only.
    let blue = &p[1];
    let baddr = nth_reply_to(&sink, blue, 1);
    let turn = sink
        .to(&email(blue))
        .into_iter()
        .find(|m| !m.header("reply-to").is_empty() && m.header("in-reply-to").is_empty())
        .unwrap();
    assert!(turn.body.contains("responde a "), "{}", turn.body);
    assert_eq!(
        deliver(&srv, &raw(&email(blue), &baddr, "es1", "", "hola")),
        "error:grammar"
    );
    let m = sink
        .wait_for(20, &email(blue), 2)
        .into_iter()
        .find(|m| !m.header("in-reply-to").is_empty())
        .unwrap();
    assert_eq!(m.header("content-language"), "es");
    assert!(
        m.body.contains("Responde al correo de tu turno"),
        "{}",
        m.body
    );
    assert!(m.body.contains("quedan 2 intentos"), "{}", m.body);
    for usted in ["Responda", " su respuesta", " su turno", "Espere", "Juegue"] {
        assert!(!m.body.contains(usted), "{usted:?} in {}", m.body);
    }
}

/// A draw offer by mail leaves the turn with the player: the same turn mail then plays
/// the move.
fn a_draw_offer_by_mail_leaves_the_turn_to_play(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let (id, p) = setup(&srv, &sink, "dr");
    let red = &p[0];
    let addr = reply_to(&sink, red, 1);
    let v0 = version(&srv, &id);
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "d1", "", "draw offer")),
        "played"
    );
    assert_eq!(version(&srv, &id), v0 + 1);
    let m = sink.wait_for_subject(20, &email(red), "Played", 1);
    assert!(m.body.contains("Red offers a draw."), "{}", m.body);
    assert!(m.body.contains("It is still your turn"), "{}", m.body);
    assert!(m.body.contains("To move now: Red"), "{}", m.body);
    // The same address plays the move.
    let mv = first_legal(&srv, &id);
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "d2", "", &mv)),
        "played"
    );
    assert_eq!(version(&srv, &id), v0 + 2);
    let m = sink.wait_for_subject(20, &email(red), "Played", 2);
    assert!(m.body.contains(&format!("Played: Red {mv}")), "{}", m.body);
    // And once only.
    assert_eq!(
        deliver(&srv, &raw(&email(red), &addr, "d3", "", "resign")),
        "error:used"
    );
    // A refused command by mail says why in words (the move ended the offer).
    let blue = &p[1];
    let baddr = reply_to(&sink, blue, 1);
    assert_eq!(
        deliver(&srv, &raw(&email(blue), &baddr, "d4", "", "draw accept")),
        "error:refused"
    );
    let m = sink.wait_for_subject(20, &email(blue), "Not possible", 1);
    assert!(m.body.contains("No draw offer is pending."), "{}", m.body);
}

backend_tests!(
    answers_thread_under_the_reply,
    limits_per_seat_and_per_sender_drop_silently,
    a_reply_plays_once_and_the_rest_is_refused_or_dropped,
    the_endpoint_wants_its_secret_and_a_small_message,
    four_players_play_rounds_by_mail,
    answers_speak_the_players_language,
    a_draw_offer_by_mail_leaves_the_turn_to_play,
);
