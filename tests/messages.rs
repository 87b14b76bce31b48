//! Table talk (issue 21): who sees which message through every read path (the list, the
//! notification feed, webhooks, the record export), before and after the end, for both
//! `press` settings; bad input; mutes, reports, the operator's hide command, rate
//! limits and the eliminated-may-write option. Both databases.

#[path = "support/games.rs"]
mod games;
#[allow(dead_code)]
#[path = "support/receiver.rs"]
mod receiver;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{Backend, Login, ManualClock, TestServer, Value, backend_tests, json};
use games::*;
use receiver::Receiver;
use reqwest::Method;

backend_tests!(
    visibility_matrix_private_press,
    visibility_matrix_revealed_press,
    bad_input_writes_nothing,
    mutes_reports_hiding_and_limits,
    out_players_read_but_may_not_write,
    mail_only_to_recipients_who_ask_for_it,
    concurrent_senders_get_one_sequence,
    a_retried_send_is_one_message,
    lists_carry_the_version_and_are_not_cached,
    the_talk_options_are_shown_before_joining,
    private_messages_stay_with_the_holders_at_their_sending,
    hiding_reaches_former_players_and_queued_deliveries,
);

const FAST: [(&str, &str); 4] = [
    ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true"),
    ("DJAMBI_DELIVERY_INTERVAL", "20ms"),
    ("DJAMBI_DELIVERY_BACKOFF", "50ms"),
    ("DJAMBI_WEBHOOK_TIMEOUT", "2s"),
];

#[track_caller]
fn send(srv: &TestServer, who: &Login, id: &str, text: &str, to: Option<&[&str]>) -> String {
    let mut body = json!({ "text": text });
    if let Some(to) = to {
        body["to"] = json!(to);
    }
    let r = srv.post(
        &format!("/v1/games/{id}/messages"),
        Some(&who.access),
        &body,
    );
    r.expect(201)["id"].as_str().unwrap().to_string()
}

/// The texts of every message `who` (`None`: a spectator) sees, following `next`.
fn texts(srv: &TestServer, id: &str, who: Option<&Login>) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = format!("/v1/games/{id}/messages?limit=1");
    loop {
        let page = srv
            .get(&path, who.map(|w| w.access.as_str()))
            .expect(200)
            .clone();
        for m in page["items"].as_array().unwrap() {
            out.push(m["text"].as_str().unwrap().to_string());
        }
        match page["next"].as_str() {
            Some(n) => path = n.to_string(),
            None => return out,
        }
    }
}

/// The texts of the `message` items of a user's feed.
fn feed_texts(srv: &TestServer, who: &Login) -> BTreeSet<String> {
    let page = srv
        .get("/v1/me/notifications?limit=100", Some(&who.access))
        .expect(200)
        .clone();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "message")
        .map(|i| {
            i["payload"]["text"]
                .as_str()
                .unwrap_or("<hidden>")
                .to_string()
        })
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn resign_until_over(srv: &TestServer, id: &str, players: &[Login]) {
    for p in players {
        if summary(srv, id)["status"] != "active" {
            return;
        }
        let r = srv.post(
            &format!("/v1/games/{id}/resignation"),
            Some(&p.access),
            &json!({}),
        );
        assert!(r.status == 201 || r.status == 409, "{}", r.text);
    }
    assert_eq!(summary(srv, id)["status"], "finished");
}

fn matrix(backend: Backend, press: &str) {
    let receiver = Receiver::start();
    let srv = TestServer::start_with(backend, &FAST);
    let p: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("{press}_{}", s.to_lowercase())))
        .collect();
    let outsider = srv.user(&format!("{press}_out"));
    for (who, path) in [(&p[1], "/b"), (&p[2], "/y")] {
        srv.post(
            "/v1/me/webhooks",
            Some(&who.access),
            &json!({"url": receiver.url(path)}),
        )
        .expect(201);
    }
    let g = create(
        &srv,
        &p[0],
        json!({"seats": 4, "seat": "R", "press": press}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(&srv, &p[i], &id, seat).expect(200);
    }
    let before = version(&srv, &id);
    let m_table = send(&srv, &p[0], &id, "hello table", None);
    let m_rb = send(&srv, &p[0], &id, "R to B", Some(&["B"]));
    let m_bry = send(&srv, &p[1], &id, "B to R and Y", Some(&["r", "Y"]));
    assert_eq!(version(&srv, &id), before, "a message is not an event");

    let all = vec!["hello table", "R to B", "B to R and Y"];
    let expect_before: [(Option<&Login>, Vec<&str>); 6] = [
        (Some(&p[0]), all.clone()),
        (Some(&p[1]), all.clone()),
        (Some(&p[2]), vec!["hello table", "B to R and Y"]),
        (Some(&p[3]), vec!["hello table"]),
        (Some(&outsider), vec!["hello table"]),
        (None, vec!["hello table"]),
    ];
    for (who, want) in &expect_before {
        assert_eq!(texts(&srv, &id, *who), *want, "list, before the end");
    }
    // The record export with ?messages=true shows the same as the list.
    for (who, want) in &expect_before {
        assert_eq!(
            record_texts(&srv, &id, *who),
            *want,
            "record, before the end"
        );
    }
    // The feed: recipients only, never the sender.
    assert_eq!(feed_texts(&srv, &p[0]), set(&["B to R and Y"]));
    assert_eq!(feed_texts(&srv, &p[1]), set(&["hello table", "R to B"]));
    assert_eq!(
        feed_texts(&srv, &p[2]),
        set(&["hello table", "B to R and Y"])
    );
    assert_eq!(feed_texts(&srv, &p[3]), set(&["hello table"]));
    // Webhooks carry the feed's items: B's endpoint gets m_table and m_rb, Y's m_table
    // and m_bry, and neither the other's private message.
    let got = receiver.wait_for(10, "four message deliveries", |r| {
        r.iter().filter(|r| r.body.contains("\"message\"")).count() >= 4
    });
    let bodies = |path: &str| -> String {
        got.iter()
            .filter(|r| r.path == path)
            .map(|r| r.body.clone())
            .collect()
    };
    let (b, y) = (bodies("/b"), bodies("/y"));
    assert!(
        b.contains(&m_table) && b.contains(&m_rb) && !b.contains(&m_bry),
        "{b}"
    );
    assert!(
        y.contains(&m_table) && y.contains(&m_bry) && !y.contains(&m_rb),
        "{y}"
    );

    resign_until_over(&srv, &id, &p);
    let r = srv.post(
        &format!("/v1/games/{id}/messages"),
        Some(&p[0].access),
        &json!({"text": "too late"}),
    );
    r.problem(409, "game-over");
    for (who, want) in &expect_before {
        let want = if press == "revealed_at_end" {
            all.clone()
        } else {
            want.clone()
        };
        assert_eq!(
            texts(&srv, &id, *who),
            want,
            "list, after the end ({press})"
        );
        assert_eq!(record_texts(&srv, &id, *who), want, "record, after the end");
    }
    // Import accepts a record with its table-talk section (and ignores it).
    let record = srv
        .get(
            &format!("/v1/games/{id}/record?messages=true"),
            Some(&p[0].access),
        )
        .text;
    assert!(record.contains("; message {"), "{record}");
    srv.post(
        "/v1/games/import",
        Some(&p[0].access),
        &json!({"record": record}),
    )
    .expect(201);
    // The replay page shows what a spectator may see.
    let page = srv.get(&format!("/games/{id}"), None);
    assert_eq!(page.status, 200);
    assert!(
        page.text.contains("hello table"),
        "replay page shows the table talk"
    );
    assert_eq!(
        page.text.contains("R to B"),
        press == "revealed_at_end",
        "private messages on the replay page only when revealed"
    );
}

/// The messages of the record export, in order (the texts of its message comments).
fn record_texts(srv: &TestServer, id: &str, who: Option<&Login>) -> Vec<String> {
    let r = srv.get(
        &format!("/v1/games/{id}/record?messages=true"),
        who.map(|w| w.access.as_str()),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    r.text
        .lines()
        .filter_map(|l| l.strip_prefix("; message "))
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap().to_string()
        })
        .collect()
}

fn visibility_matrix_private_press(backend: Backend) {
    matrix(backend, "private");
}

fn visibility_matrix_revealed_press(backend: Backend) {
    matrix(backend, "revealed_at_end");
}

fn bad_input_writes_nothing(backend: Backend) {
    let srv = TestServer::start(backend);
    let p: Vec<Login> = ["R", "B", "Y"]
        .iter()
        .map(|s| srv.user(&format!("bad_{}", s.to_lowercase())))
        .collect();
    let outsider = srv.user("bad_out");
    let g = create(
        &srv,
        &p[0],
        json!({"seats": 3, "seat": "R", "empty_seat": "G"}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    take_seat(&srv, &p[1], &id, "B").expect(200);
    let path = format!("/v1/games/{id}/messages");
    let post = |who: &Login, body: Value| srv.post(&path, Some(&who.access), &body);
    let cases = [
        (json!({"text": ""}), "text"),
        (json!({"text": "  \n "}), "text"),
        (json!({"text": "x".repeat(1001)}), "text"),
        (json!({"text": "bell\u{7}"}), "text"),
        (json!({"text": "hi", "to": []}), "to"),
        (json!({"text": "hi", "to": ["X"]}), "to"),
        (json!({"text": "hi", "to": ["RB"]}), "to"),
        (json!({"text": "hi", "to": ["G"]}), "to"), // the empty seat: not in this game
        (json!({"text": "hi", "to": ["Y"]}), "to"), // no player yet
        (json!({"text": "hi", "to": ["R"]}), "to"), // one's own
        (json!({"text": "hi", "to": ["B", "b"]}), "to"),
    ];
    for (body, field) in cases {
        let r = post(&p[0], body.clone());
        r.problem(400, "validation");
        assert_eq!(r.error_fields(), vec![field.to_string()], "{body}");
    }
    post(&p[0], json!({"text": "hi", "bogus": 1})).problem(400, "validation");
    post(&p[0], json!({"to": ["B"]})).problem(400, "validation");
    post(&outsider, json!({"text": "let me in"})).problem(403, "forbidden");
    let r = srv.post(&path, None, &json!({"text": "anonymous"}));
    r.problem(401, "unauthorized");
    srv.post(
        "/v1/games/00000000-0000-0000-0000-000000000000/messages",
        Some(&p[0].access),
        &json!({"text": "nowhere"}),
    )
    .problem(404, "not-found");
    srv.get(&format!("{path}?after=x"), None)
        .problem(400, "validation");
    srv.get(&format!("{path}?limit=0"), None)
        .problem(400, "validation");
    assert!(
        texts(&srv, &id, Some(&p[0])).is_empty(),
        "nothing was written"
    );
    // The longest text is fine, and exactly 1000 characters (not bytes) pass.
    send(&srv, &p[0], &id, &"é".repeat(1000), None);
    // A message names the game's version and does not make a move stale.
    take_seat(&srv, &p[2], &id, "Y").expect(200);
    let v = version(&srv, &id);
    let m = srv
        .post(
            &path,
            Some(&p[1].access),
            &json!({"text": "good luck", "to": ["R", "Y"]}),
        )
        .expect(201)
        .clone();
    assert_eq!(m["game_version"], v);
    assert_eq!(m["seat"], "B");
    assert_eq!(m["to"], json!(["R", "Y"]));
    assert_eq!(m["seq"], 2);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(&srv, &p[0], &id, mv, v).expect(201);
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ))
}

fn mutes_reports_hiding_and_limits(backend: Backend) {
    let clock = clock();
    let srv = TestServer::start_with_clock(backend, &[], clock.clone());
    let (id, p) = four_player_game(&srv, "safe");
    let user_b = srv.get("/v1/me", Some(&p[1].access)).expect(200)["username"]
        .as_str()
        .unwrap()
        .to_string();
    // Y mutes B: B's messages are neither shown nor notified to Y.
    let put = |who: &Login, name: &str| {
        srv.send(
            srv.request(Method::PUT, &format!("/v1/me/mutes/{name}"))
                .bearer_auth(&who.access),
        )
    };
    assert_eq!(put(&p[2], &user_b).status, 204);
    assert_eq!(put(&p[2], &user_b).status, 204, "idempotent");
    put(&p[2], "nobody_here").problem(404, "not-found");
    let me_y = srv.get("/v1/me", Some(&p[2].access)).expect(200)["username"]
        .as_str()
        .unwrap()
        .to_string();
    put(&p[2], &me_y).problem(400, "validation");
    let mutes = srv
        .get("/v1/me/mutes", Some(&p[2].access))
        .expect(200)
        .clone();
    assert_eq!(mutes["items"][0]["username"], json!(user_b));
    let m = send(&srv, &p[1], &id, "B talks", None);
    assert_eq!(texts(&srv, &id, Some(&p[2])), Vec::<String>::new());
    assert!(
        feed_texts(&srv, &p[2]).is_empty(),
        "no notification to the muter"
    );
    assert_eq!(feed_texts(&srv, &p[3]), set(&["B talks"]));
    assert_eq!(texts(&srv, &id, Some(&p[3])), vec!["B talks"]);
    srv.delete(&format!("/v1/me/mutes/{user_b}"), Some(&p[2].access));
    assert_eq!(texts(&srv, &id, Some(&p[2])), vec!["B talks"], "unmuted");
    srv.delete(&format!("/v1/me/mutes/{user_b}"), Some(&p[2].access))
        .problem(404, "not-found");

    // Reports: a reader of the message reports it (again: 200, nothing more); one who
    // cannot see a message cannot report it.
    let report = |who: &Login, mid: &str| {
        srv.post(
            &format!("/v1/games/{id}/messages/{mid}/report"),
            Some(&who.access),
            &json!({"reason": "rude"}),
        )
    };
    assert_eq!(report(&p[3], &m).status, 201);
    assert_eq!(report(&p[3], &m).status, 200);
    let private = send(&srv, &p[0], &id, "R to B only", Some(&["B"]));
    report(&p[3], &private).problem(404, "not-found");
    report(&p[3], "not-a-uuid").problem(404, "not-found");
    srv.post(
        &format!("/v1/games/{id}/messages/{m}/report"),
        Some(&p[3].access),
        &json!({"reason": "x".repeat(501)}),
    )
    .problem(400, "validation");

    // The operator hides a message: gone from the list and from the feed's text.
    let config = djambi_api::config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some(srv.database_url.clone()),
        "DJAMBI_JWT_SECRET" => Some(djambi_e2e::TEST_JWT_SECRET.to_string()),
        _ => None,
    })
    .unwrap();
    let mut out = Vec::new();
    djambi_api::messages::hide::hide_command(&config, &m, &*clock, &mut out).unwrap();
    assert!(String::from_utf8(out).unwrap().contains("hidden"));
    assert!(
        djambi_api::messages::hide::hide_command(&config, "nope", &*clock, &mut Vec::new())
            .is_err()
    );
    for who in [&p[0], &p[2], &p[3]] {
        assert!(!texts(&srv, &id, Some(who)).contains(&"B talks".to_string()));
    }
    assert_eq!(feed_texts(&srv, &p[3]), set(&["<hidden>"]));

    // Rate limits: 20 a minute per player; the clock moves on, the player writes again.
    for i in 0..20 {
        send(&srv, &p[3], &id, &format!("spam {i}"), None);
    }
    let r = srv.post(
        &format!("/v1/games/{id}/messages"),
        Some(&p[3].access),
        &json!({"text": "one more"}),
    );
    r.problem(429, "rate-limited");
    assert!(r.header("retry-after").is_some());
    clock.advance(TimeDelta::seconds(61));
    send(&srv, &p[3], &id, "after a minute", None);
}

fn out_players_read_but_may_not_write(backend: Backend) {
    let srv = TestServer::start(backend);
    let p: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("out_{}", s.to_lowercase())))
        .collect();
    let g = create(
        &srv,
        &p[0],
        json!({"seats": 4, "seat": "R", "eliminated_may_write": false}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(&srv, &p[i], &id, seat).expect(200);
    }
    srv.post(
        &format!("/v1/games/{id}/resignation"),
        Some(&p[0].access),
        &json!({}),
    )
    .expect(201);
    srv.post(
        &format!("/v1/games/{id}/messages"),
        Some(&p[0].access),
        &json!({"text": "from the grave"}),
    )
    .problem(403, "forbidden");
    send(&srv, &p[1], &id, "to R, who reads", Some(&["R"]));
    assert_eq!(texts(&srv, &id, Some(&p[0])), vec!["to R, who reads"]);
    // The default lets them write.
    let (id2, q) = four_player_game(&srv, "out2");
    srv.post(
        &format!("/v1/games/{id2}/resignation"),
        Some(&q[0].access),
        &json!({}),
    )
    .expect(201);
    send(&srv, &q[0], &id2, "still here", None);
}

fn mail_only_to_recipients_who_ask_for_it(backend: Backend) {
    let sink = smtp_sink::SmtpSink::start();
    let srv = TestServer::start_with(backend, &sink.server_settings(&[]));
    let (id, p) = four_player_game(&srv, "mail");
    let email = |who: &Login| format!("{}@example.org", who.username);
    // Notification mails go to verified addresses only.
    for who in &p {
        let token = smtp_sink::verification_token(&sink, &email(who), 1);
        srv.post(&format!("/v1/email-verification/{token}"), None, &json!({}))
            .expect(200);
    }
    sink.clear();
    // E-mail is off by default for messages; Blue and Green turn it on.
    let kinds = srv
        .get("/v1/me/notification-settings", Some(&p[1].access))
        .expect(200)["kinds"]["message"]
        .clone();
    assert_eq!(
        kinds,
        json!({"feed": true, "email": false, "webhook": true, "push": true})
    );
    for who in [&p[1], &p[3]] {
        srv.send(
            srv.request(Method::PUT, "/v1/me/notification-settings")
                .bearer_auth(&who.access)
                .json(&json!({"kinds": {"message": {"email": true, "webhook": false}}})),
        )
        .expect(200);
    }
    send(
        &srv,
        &p[0],
        &id,
        "meet me at E5\nbring the diplomat",
        Some(&["B"]),
    );
    send(&srv, &p[0], &id, "hello all", None);
    let talk_mails = |who: &Login| -> Vec<smtp_sink::Mail> {
        sink.to(&email(who))
            .into_iter()
            .filter(|m| m.header("subject").contains("A message at the table"))
            .collect()
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while talk_mails(&p[1]).len() < 2 || talk_mails(&p[3]).is_empty() {
        assert!(
            std::time::Instant::now() < until,
            "the message mails did not arrive"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Whatever else is still on its way has had time to arrive.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let blue = talk_mails(&p[1]);
    assert_eq!(blue.len(), 2, "{blue:?}");
    let private = blue
        .iter()
        .find(|m| m.body.contains("privately"))
        .expect("the private one");
    assert!(private.body.contains("> meet me at E5"), "{}", private.body);
    assert!(
        private.body.contains("> bring the diplomat"),
        "{}",
        private.body
    );
    assert!(
        private
            .body
            .contains(&format!("https://djambi.example/games/{id}"))
    );
    // Green asked for mail but was not a recipient of the private message: one mail.
    let green = talk_mails(&p[3]);
    assert_eq!(green.len(), 1, "{green:?}");
    assert!(green[0].body.contains("> hello all") && !green[0].body.contains("E5"));
    // Yellow left mail off, and Red sent them: no message mail.
    assert!(talk_mails(&p[2]).is_empty());
    assert!(talk_mails(&p[0]).is_empty());
}

/// Twenty messages sent at once by four players: every one is written, numbered 1 to 20
/// without a gap or a repeat, and the game's version does not move.
fn concurrent_senders_get_one_sequence(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "race");
    let before = version(&srv, &id);
    let barrier = std::sync::Barrier::new(20);
    let seqs: Vec<i64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let (srv, id, who, barrier) = (&srv, &id, &p[i % 4], &barrier);
                s.spawn(move || {
                    barrier.wait();
                    let r = srv.post(
                        &format!("/v1/games/{id}/messages"),
                        Some(&who.access),
                        &json!({"text": format!("message {i}")}),
                    );
                    r.expect(201)["seq"].as_i64().unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let got: BTreeSet<i64> = seqs.into_iter().collect();
    assert_eq!(got, (1..=20).collect::<BTreeSet<i64>>());
    assert_eq!(texts(&srv, &id, Some(&p[2])).len(), 20);
    assert_eq!(version(&srv, &id), before);
}

fn keyed_send(
    srv: &TestServer,
    who: &Login,
    id: &str,
    key: &str,
    body: &Value,
) -> djambi_e2e::Resp {
    srv.send(
        srv.request(Method::POST, &format!("/v1/games/{id}/messages"))
            .bearer_auth(&who.access)
            .header("Idempotency-Key", key)
            .json(body),
    )
}

/// `POST /messages` honours `Idempotency-Key` like every write: the same request again
/// (also at once, from two threads) is one message and the first answer; the key with
/// another body is `422` and writes nothing.
fn a_retried_send_is_one_message(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "idem");
    let body = json!({"text": "Truce?", "to": ["B"]});
    let first = keyed_send(&srv, &p[0], &id, "send-1", &body);
    let first_id = first.expect(201)["id"].clone();
    assert_eq!(
        first.header("etag"),
        Some(format!("\"{}\"", version(&srv, &id)).as_str())
    );
    assert_eq!(first.header("idempotent-replayed"), None);
    let again = keyed_send(&srv, &p[0], &id, "send-1", &body);
    assert_eq!(again.expect(201)["id"], first_id);
    assert_eq!(again.json, first.json);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.header("etag"), first.header("etag"));
    keyed_send(
        &srv,
        &p[0],
        &id,
        "send-1",
        &json!({"text": "Something else"}),
    )
    .problem(422, "idempotency-key-reused");
    assert_eq!(texts(&srv, &id, Some(&p[0])), ["Truce?"]);
    assert_eq!(texts(&srv, &id, Some(&p[1])), ["Truce?"]);
    // A malformed key is a 400 and sends nothing.
    keyed_send(&srv, &p[0], &id, "bad key", &body).problem(400, "validation");

    // Twins at once: one message, one answer.
    let twin = json!({"text": "Twins"});
    let answers: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let (srv, who, id, twin) = (&srv, &p[1], &id, &twin);
                scope.spawn(move || keyed_send(srv, who, id, "twin", twin).expect(201).clone())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(answers[0]["id"], answers[1]["id"]);
    assert_eq!(texts(&srv, &id, Some(&p[1])), ["Truce?", "Twins"]);
}

/// Both message routes answer with the game's version as `ETag`, as the document says;
/// a signed-in reader's list (private messages) is never cached.
fn lists_carry_the_version_and_are_not_cached(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "etag");
    send(&srv, &p[0], &id, "Just us", Some(&["B"]));
    let tag = format!("\"{}\"", version(&srv, &id));
    let mine = srv.get(&format!("/v1/games/{id}/messages"), Some(&p[1].access));
    mine.expect(200);
    assert_eq!(mine.header("etag"), Some(tag.as_str()));
    let cache = mine.header("cache-control").unwrap_or_default();
    assert!(
        cache.contains("private") && cache.contains("no-store"),
        "{cache}"
    );
    let public = srv.get(&format!("/v1/games/{id}/messages"), None);
    public.expect(200);
    assert_eq!(public.header("etag"), Some(tag.as_str()));
    assert_eq!(public.header("cache-control"), Some("no-cache"));
    let sent = srv.post(
        &format!("/v1/games/{id}/messages"),
        Some(&p[2].access),
        &json!({"text": "Hello"}),
    );
    sent.expect(201);
    assert_eq!(sent.header("etag"), Some(tag.as_str()));
}

/// A game's table-talk options are in its summary and its lobby entry, and the game page
/// has their place, so a player knows before joining that private messages will be shown.
fn the_talk_options_are_shown_before_joining(backend: Backend) {
    let srv = TestServer::start(backend);
    let a = srv.user("opts_a");
    let game = create(
        &srv,
        &a,
        json!({"seats": 4, "seat": "R", "press": "revealed_at_end", "eliminated_may_write": false}),
    );
    let id = game["id"].as_str().unwrap().to_string();
    assert_eq!(game["press"], "revealed_at_end", "{game}");
    assert_eq!(game["eliminated_may_write"], false);
    let s = summary(&srv, &id);
    assert_eq!(s["press"], "revealed_at_end");
    assert_eq!(s["eliminated_may_write"], false);
    let lobby = srv.get("/v1/games?status=open", None).expect(200).clone();
    let entry = lobby["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{lobby}"));
    assert_eq!(entry["press"], "revealed_at_end");
    assert_eq!(entry["eliminated_may_write"], false);
    let plain = create(&srv, &a, json!({"seats": 4, "seat": "R"}));
    assert_eq!(plain["press"], "private");
    assert_eq!(plain["eliminated_may_write"], true);
    let script = srv.get("/assets/web/app.js", None).text;
    assert!(
        script.contains("js-talk-revealed"),
        "the lobby says the press"
    );
    let play = srv.get("/assets/web/play.js", None).text;
    assert!(play.contains("talk-rules"), "the game page says the press");
    // The projection replays from the log.
    let url = srv.database_url.clone();
    let config = djambi_api::config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some(url.clone()),
        "DJAMBI_JWT_SECRET" => Some(djambi_e2e::TEST_JWT_SECRET.into()),
        _ => None,
    })
    .unwrap();
    let mut out = Vec::new();
    let bad = djambi_api::maintenance::check_projections(&config, &mut out).unwrap();
    assert_eq!(bad, 0, "{}", String::from_utf8_lossy(&out));
}

/// Issue 32: a private message is addressed to the accounts that held its seats when it
/// was sent. A seat left (or left by closing the account) and taken by someone else does
/// not hand the message over: not in the list, the record, the feed or a report; the one
/// who held the seat still reads it, before and after the end.
fn private_messages_stay_with_the_holders_at_their_sending(backend: Backend) {
    let srv = TestServer::start(backend);
    let [red, bob, carol, dave, erin, gus] =
        ["red", "bob", "carol", "dave", "erin", "gus"].map(|n| srv.user(&format!("held_{n}")));
    let g = create(&srv, &red, json!({"seats": 4, "seat": "R"}));
    let id = g["id"].as_str().unwrap().to_string();
    take_seat(&srv, &bob, &id, "B").expect(200);
    take_seat(&srv, &dave, &id, "Y").expect(200);
    send(&srv, &red, &id, "hello table", None);
    let to_b = send(&srv, &red, &id, "R to B", Some(&["B"]));
    send(&srv, &red, &id, "R to B and Y", Some(&["B", "Y"]));
    let everything = vec!["hello table", "R to B", "R to B and Y"];

    // Bob leaves his seat; Dave closes his account (which leaves his seat too).
    srv.send(
        srv.request(Method::DELETE, &format!("/v1/games/{id}/seats/B"))
            .bearer_auth(&bob.access),
    )
    .expect(200);
    srv.send(
        srv.request(Method::DELETE, "/v1/me")
            .bearer_auth(&dave.access)
            .json(&json!({"current_password": djambi_e2e::PASSWORD})),
    )
    .expect(200);
    take_seat(&srv, &carol, &id, "B").expect(200);
    take_seat(&srv, &erin, &id, "Y").expect(200);
    take_seat(&srv, &gus, &id, "G").expect(200);
    assert_eq!(summary(&srv, &id)["status"], "active");

    for who in [&carol, &erin, &gus] {
        assert_eq!(texts(&srv, &id, Some(who)), vec!["hello table"], "list");
        assert_eq!(
            record_texts(&srv, &id, Some(who)),
            vec!["hello table"],
            "record"
        );
    }
    assert!(feed_texts(&srv, &carol).is_empty());
    assert!(feed_texts(&srv, &erin).is_empty());
    srv.post(
        &format!("/v1/games/{id}/messages/{to_b}/report"),
        Some(&carol.access),
        &json!({}),
    )
    .problem(404, "not-found");
    // The one who held the seat keeps reading what was said to them; so does the sender.
    for who in [&red, &bob] {
        assert_eq!(texts(&srv, &id, Some(who)), everything);
        assert_eq!(record_texts(&srv, &id, Some(who)), everything);
    }
    assert_eq!(
        feed_texts(&srv, &bob),
        set(&["hello table", "R to B", "R to B and Y"])
    );

    // What is said to the seat now reaches its new holder, not the old one.
    send(&srv, &red, &id, "R to the new B", Some(&["B"]));
    assert_eq!(
        texts(&srv, &id, Some(&carol)),
        vec!["hello table", "R to the new B"]
    );
    assert!(!texts(&srv, &id, Some(&bob)).contains(&"R to the new B".to_string()));

    // Resignations change nothing; neither does the end (`press: private`).
    resign_until_over(
        &srv,
        &id,
        &[carol.clone(), red.clone(), erin.clone(), gus.clone()],
    );
    assert_eq!(
        texts(&srv, &id, Some(&carol)),
        vec!["hello table", "R to the new B"]
    );
    assert_eq!(texts(&srv, &id, Some(&erin)), vec!["hello table"]);
    assert_eq!(texts(&srv, &id, Some(&bob)), everything);
}

/// Issue 32: hiding a message takes its text out of every notification that carried it,
/// a former player's too, and out of the deliveries still queued for them.
fn hiding_reaches_former_players_and_queued_deliveries(backend: Backend) {
    let rx = Receiver::start();
    // Every attempt fails until the message is hidden; retries wait for the (manual) clock.
    rx.script(&[], 503);
    let clock = clock();
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let [red, bob, carol] = ["red", "bob", "carol"].map(|n| srv.user(&format!("hide_{n}")));
    srv.post(
        "/v1/me/webhooks",
        Some(&bob.access),
        &json!({"url": rx.url("/bob")}),
    )
    .expect(201);
    let g = create(&srv, &red, json!({"seats": 4, "seat": "R"}));
    let id = g["id"].as_str().unwrap().to_string();
    take_seat(&srv, &bob, &id, "B").expect(200);
    let m = send(&srv, &red, &id, "secret plans", None);
    let carries = |r: &receiver::Received| r.path == "/bob" && r.body.contains(&m);
    rx.wait_for(10, "the first attempt", |got| {
        got.iter().any(|r| carries(r) && r.answered == 503)
    });
    assert_eq!(feed_texts(&srv, &bob), set(&["secret plans"]));

    // Bob leaves; Carol takes his seat; the operator hides the message.
    srv.send(
        srv.request(Method::DELETE, &format!("/v1/games/{id}/seats/B"))
            .bearer_auth(&bob.access),
    )
    .expect(200);
    take_seat(&srv, &carol, &id, "B").expect(200);
    let config = djambi_api::config::Config::from_lookup(|name| match name {
        "DATABASE_URL" => Some(srv.database_url.clone()),
        "DJAMBI_JWT_SECRET" => Some(djambi_e2e::TEST_JWT_SECRET.to_string()),
        _ => None,
    })
    .unwrap();
    djambi_api::messages::hide::hide_command(&config, &m, &*clock, &mut Vec::new()).unwrap();
    assert_eq!(feed_texts(&srv, &bob), set(&["<hidden>"]));
    let feed = srv
        .get("/v1/me/notifications?limit=100", Some(&bob.access))
        .text;
    assert!(!feed.contains("secret plans"), "{feed}");

    // The queued retry goes out without the text.
    rx.script(&[], 200);
    clock.advance(TimeDelta::minutes(5));
    let got = rx.wait_for(10, "the retry", |got| {
        got.iter().any(|r| carries(r) && r.answered == 200)
    });
    let retry = got
        .iter()
        .find(|r| carries(r) && r.answered == 200)
        .unwrap();
    assert!(!retry.body.contains("secret plans"), "{}", retry.body);
    assert!(retry.body.contains("\"hidden\":true"), "{}", retry.body);
}
