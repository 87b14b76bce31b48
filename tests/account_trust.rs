//! Accounts a person can trust (issue 26): the verified address, password reset, login
//! sessions, closing an account and the export, through the real server, a real SMTP
//! sink and both databases.

#[path = "support/games.rs"]
mod games;
#[path = "support/inbound.rs"]
mod inbound;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{Backend, Login, ManualClock, PASSWORD, TestServer, backend_tests, json};
use games::*;
use smtp_sink::{SmtpSink, token_after, verification_token};

fn start(backend: Backend, sink: &SmtpSink, clock: Option<Arc<ManualClock>>) -> TestServer {
    let v = sink.server_settings(&[]);
    match clock {
        Some(c) => TestServer::start_with_clock(backend, &v, c),
        None => TestServer::start_with(backend, &v),
    }
}

/// With moves by mail (token mode, the HTTP endpoint).
fn start_with_mail(backend: Backend, sink: &SmtpSink, clock: Arc<ManualClock>) -> TestServer {
    let v = sink.server_settings(&[
        ("DJAMBI_MAIL_DOMAIN", "play.djambi.example"),
        ("DJAMBI_MAIL_AUTH", "token"),
        ("DJAMBI_INBOUND_MAIL_SECRET", inbound::SECRET),
    ]);
    TestServer::start_with_clock(backend, &v, clock)
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ))
}

fn addr(name: &str) -> String {
    format!("{name}@example.org")
}

fn confirm(srv: &TestServer, token: &str) -> djambi_e2e::Resp {
    srv.post(&format!("/v1/email-verification/{token}"), None, &json!({}))
}

fn verify(srv: &TestServer, sink: &SmtpSink, to: &str) {
    let t = verification_token(sink, to, 1);
    confirm(srv, &t).expect(200);
}

fn me(srv: &TestServer, who: &Login) -> serde_json::Value {
    srv.get("/v1/me", Some(&who.access)).expect(200).clone()
}

fn registration_mails_a_single_use_link_that_verifies_the_address(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = clock();
    let srv = start(backend, &sink, Some(clock.clone()));
    let alice = srv.user("alice");
    assert_eq!(me(&srv, &alice)["email_verified"], false);

    let m = sink.wait_for_subject(20, &addr("alice"), "Confirm your e-mail address", 1);
    assert_eq!(
        m.header("list-unsubscribe"),
        "",
        "an account mail is not a notification"
    );
    assert_eq!(m.header("mime-version"), "1.0", "{m:?}");
    // Standard MIME: a text part and its HTML alternative (the sink parses it strictly).
    assert!(
        m.header("content-type")
            .starts_with("multipart/alternative"),
        "{m:?}"
    );
    assert!(
        m.raw.contains("Content-Type: text/plain; charset=utf-8"),
        "{m:?}"
    );
    assert!(
        m.body
            .contains("https://djambi.example/v1/email-verification/djv_")
    );
    let token = token_after(&m.body, "/v1/email-verification/");
    assert_eq!(token.len(), 4 + 43);

    // Forged tokens: random, one character changed, another kind's prefix, over-long.
    let mut changed = token.clone().into_bytes();
    let last = changed.len() - 1;
    changed[last] = if changed[last] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    for bad in [
        format!("djv_{}", "A".repeat(43)),
        changed,
        token.replacen("djv_", "djx_", 1),
        format!("{token}{}", "x".repeat(300)),
    ] {
        confirm(&srv, &bad).problem(404, "not-found");
    }
    assert_eq!(me(&srv, &alice)["email_verified"], false);

    // The page a click on the link shows confirms nothing by itself.
    let page = srv.get(&format!("/v1/email-verification/{token}"), None);
    assert_eq!(page.status.as_u16(), 200);
    assert!(page.text.contains("method=\"post\""), "{}", page.text);
    assert_eq!(me(&srv, &alice)["email_verified"], false);

    let ok = confirm(&srv, &token).expect(200).clone();
    assert_eq!(ok["email"], addr("alice"));
    assert_eq!(me(&srv, &alice)["email_verified"], true);
    // Used once.
    let again = confirm(&srv, &token).problem(404, "not-found").clone();
    assert!(again["detail"].as_str().unwrap().contains("already used"));
    srv.post("/v1/me/email-verification", Some(&alice.access), &json!({}))
        .problem(409, "conflict");

    // A new address is unverified until its own link is used; the old one does nothing.
    srv.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": "alice2@example.org", "current_password": PASSWORD}),
    )
    .expect(200);
    assert_eq!(me(&srv, &alice)["email_verified"], false);
    let first = verification_token(&sink, "alice2@example.org", 1);
    // Sending again waits a minute after the last mail.
    let r = srv.post("/v1/me/email-verification", Some(&alice.access), &json!({}));
    r.problem(429, "rate-limited");
    assert!(r.header("retry-after").is_some());
    clock.advance(TimeDelta::minutes(2));
    srv.post("/v1/me/email-verification", Some(&alice.access), &json!({}))
        .expect(202);
    let second = verification_token(&sink, "alice2@example.org", 2);
    assert_ne!(first, second);

    // Another account's token verifies that account only.
    let bob = srv.user("bob");
    let bobs = verification_token(&sink, &addr("bob"), 1);
    confirm(&srv, &bobs).expect(200);
    assert_eq!(me(&srv, &bob)["email_verified"], true);
    assert_eq!(me(&srv, &alice)["email_verified"], false);

    // A link expires after 48 hours (the earlier one, still unused, as well).
    clock.advance(TimeDelta::hours(49));
    let alice = srv.refresh(&alice);
    for link in [&second, &first] {
        let late = confirm(&srv, link).problem(404, "not-found").clone();
        assert!(
            late["detail"].as_str().unwrap().contains("expired"),
            "{late}"
        );
    }
    assert_eq!(me(&srv, &alice)["email_verified"], false);

    // A link for an address the account no longer has does nothing.
    clock.advance(TimeDelta::minutes(2));
    srv.post("/v1/me/email-verification", Some(&alice.access), &json!({}))
        .expect(202);
    let third = verification_token(&sink, "alice2@example.org", 3);
    srv.patch(
        "/v1/me",
        Some(&alice.access),
        &json!({"email": "alice3@example.org", "current_password": PASSWORD}),
    )
    .expect(200);
    confirm(&srv, &third).problem(404, "not-found");
    verify(&srv, &sink, "alice3@example.org");
    assert_eq!(me(&srv, &alice)["email"], "alice3@example.org");
    assert_eq!(me(&srv, &alice)["email_verified"], true);
    // Account mails never reach the feed.
    let feed = srv.get("/v1/me/notifications", Some(&alice.access));
    assert_eq!(
        feed.expect(200)["items"].as_array().unwrap().len(),
        0,
        "{}",
        feed.text
    );
}

fn resends_are_limited_to_five_a_day(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = clock();
    let srv = start(backend, &sink, Some(clock.clone()));
    let carol = srv.user("carol");
    for _ in 0..4 {
        clock.advance(TimeDelta::minutes(2));
        srv.post("/v1/me/email-verification", Some(&carol.access), &json!({}))
            .expect(202);
    }
    clock.advance(TimeDelta::minutes(2));
    let r = srv.post("/v1/me/email-verification", Some(&carol.access), &json!({}));
    r.problem(429, "rate-limited");
    let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!(wait > 23 * 3600, "{wait}");
    // A personal access token cannot ask.
    let (_, pat) = srv.pat(&carol, &["read", "play"]);
    srv.post("/v1/me/email-verification", Some(&pat), &json!({}))
        .problem(403, "forbidden");
    sink.wait_for_subject(20, &addr("carol"), "Confirm", 5);
}

fn notification_mails_wait_for_a_verified_address(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink, None);
    let p: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("gate_{}", s.to_lowercase())))
        .collect();
    // Everyone but Red confirms.
    for who in &p[1..] {
        verify(&srv, &sink, &addr(&who.username));
    }
    let id = create(
        &srv,
        &p[0],
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 86400}}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(&srv, &p[i], &id, seat).expect(200);
    }
    let red = addr(&p[0].username);
    // Red's turn is in its feed, not in its unverified mailbox.
    let feed = srv.get("/v1/me/notifications", Some(&p[0].access));
    let kinds: Vec<&str> = feed.expect(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"your_turn"), "{kinds:?}");
    let v = version(&srv, &id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(&srv, &p[0], &id, mv, v).expect(201);
    // Blue (verified) gets its turn by mail; by then Red's would have gone too.
    sink.wait_for_subject(20, &addr(&p[1].username), "Your turn", 1);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        sink.to_with_subject(&red, "Your turn").is_empty(),
        "{:?}",
        sink.to(&red)
    );
    // Once confirmed, Red's next turn is mailed.
    verify(&srv, &sink, &red);
    for _ in 0..40 {
        let Some(who) = player_to_move(&srv, &id, &p) else {
            break;
        };
        if who.user_id == p[0].user_id {
            break;
        }
        let v = version(&srv, &id);
        let mv = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)["moves"][0]["text"]
            .clone();
        play(&srv, who, &id, mv, v).expect(201);
    }
    sink.wait_for_subject(20, &red, "Your turn", 1);
}

fn ask_reset(srv: &TestServer, body: serde_json::Value) -> djambi_e2e::Resp {
    srv.post("/v1/password-resets", None, &body)
}

fn set_password(srv: &TestServer, token: &str, pw: &str) -> djambi_e2e::Resp {
    srv.post(
        &format!("/v1/password-resets/{token}"),
        None,
        &json!({"new_password": pw}),
    )
}

fn reset_token(sink: &SmtpSink, to: &str, n: usize) -> String {
    let m = sink.wait_for_subject(20, to, "Reset your password", n);
    assert_eq!(m.header("list-unsubscribe"), "");
    token_after(&m.body, "/reset-password/")
}

const NEW_PASSWORD: &str = "violet anchor drifting";

fn a_reset_link_sets_a_new_password_once_and_ends_every_session(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = clock();
    let srv = start(backend, &sink, Some(clock.clone()));
    let dave = srv.user("dave");
    verify(&srv, &sink, &addr("dave"));
    let other = srv.login("dave", PASSWORD);
    let (_, pat) = srv.pat(&dave, &["read"]);

    let r = ask_reset(&srv, json!({"username": "DAVE"}));
    r.expect(202);
    let token = reset_token(&sink, &addr("dave"), 1);
    assert!(token.starts_with("djx_"), "{token}");
    // A verification token, a forged one, one for the other purpose: refused.
    set_password(&srv, &format!("djx_{}", "A".repeat(43)), NEW_PASSWORD).problem(404, "not-found");
    set_password(&srv, &token.replacen("djx_", "djv_", 1), NEW_PASSWORD).problem(404, "not-found");
    // A weak password is refused and does not use the link up.
    let weak = set_password(&srv, &token, "password")
        .problem(400, "validation")
        .clone();
    assert!(weak.to_string().contains("new_password"), "{weak}");
    srv.get("/v1/me", Some(&dave.access)).expect(200);

    let done = set_password(&srv, &token, NEW_PASSWORD).expect(200).clone();
    assert_eq!(done["sessions_ended"], 2, "{done}");
    assert_eq!(done["personal_access_tokens_revoked"], 1, "{done}");
    for t in [&dave.access, &other.access, &pat] {
        srv.get("/v1/me", Some(t)).problem(401, "unauthorized");
    }
    srv.post(
        "/v1/sessions",
        None,
        &json!({"username": "dave", "password": PASSWORD}),
    )
    .problem(401, "unauthorized");
    let dave = srv.login("dave", NEW_PASSWORD);
    let notice = sink.wait_for_subject(20, &addr("dave"), "Your password was reset", 1);
    assert!(
        notice.body.contains("If this was not you"),
        "{}",
        notice.body
    );
    // Used once.
    let again = set_password(&srv, &token, "another fine passphrase")
        .problem(404, "not-found")
        .clone();
    assert!(again["detail"].as_str().unwrap().contains("already used"));
    srv.login("dave", NEW_PASSWORD);

    // By address (any case); a link lasts one hour.
    ask_reset(&srv, json!({"email": "  DAVE@example.org "})).expect(202);
    let late = reset_token(&sink, &addr("dave"), 2);
    clock.advance(TimeDelta::minutes(61));
    let r = set_password(&srv, &late, "another fine passphrase")
        .problem(404, "not-found")
        .clone();
    assert!(r["detail"].as_str().unwrap().contains("expired"), "{r}");

    // At most three mails an hour per account; the fourth request looks the same.
    for _ in 0..4 {
        ask_reset(&srv, json!({"username": "dave"})).expect(202);
    }
    // The mails go out in the background: wait for the three allowed, then give a
    // fourth the time to show up if it were (wrongly) sent.
    sink.wait_for_subject(20, &addr("dave"), "Reset your password", 2 + 3);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        sink.to_with_subject(&addr("dave"), "Reset your password")
            .len(),
        2 + 3
    );
    // Exactly one of the two fields.
    ask_reset(&srv, json!({})).problem(400, "validation");
    ask_reset(&srv, json!({"username": "dave", "email": addr("dave")})).problem(400, "validation");
    // What the document bounds is refused.
    ask_reset(&srv, json!({"username": ""})).problem(400, "validation");
    ask_reset(&srv, json!({"username": "d".repeat(129)})).problem(400, "validation");
    ask_reset(&srv, json!({"email": "e".repeat(1017)})).problem(400, "validation");
    ask_reset(&srv, json!({"username": "dave", "extra": 1})).problem(400, "validation");
    // None of it ended the session.
    let dave = srv.refresh(&dave);
    srv.get("/v1/me", Some(&dave.access)).expect(200);
}

fn an_unverified_address_gets_no_reset_mail(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink, None);
    srv.user("frank");
    sink.wait_for_subject(20, &addr("frank"), "Confirm", 1);
    ask_reset(&srv, json!({"username": "frank"})).expect(202);
    ask_reset(&srv, json!({"email": addr("frank")})).expect(202);
    std::thread::sleep(Duration::from_millis(400));
    assert!(sink.to_with_subject(&addr("frank"), "Reset").is_empty());
}

fn one_address_gets_at_most_three_reset_mails_an_hour(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink, None);
    let shared = "family@example.org";
    for name in ["kid_one", "kid_two"] {
        let r = srv.post(
            "/v1/accounts",
            None,
            &json!({"username": name, "email": shared, "password": PASSWORD}),
        );
        r.expect(201);
    }
    for n in 1..=2 {
        let t = verification_token(&sink, shared, n);
        confirm(&srv, &t).expect(200);
    }
    // One request by address: a mail for each account.
    ask_reset(&srv, json!({"email": shared})).expect(202);
    let mails = (1..=2)
        .map(|n| sink.wait_for_subject(20, shared, "Reset your password", n))
        .collect::<Vec<_>>();
    assert!(mails.iter().any(|m| m.body.contains("kid_one")));
    assert!(mails.iter().any(|m| m.body.contains("kid_two")));
    // The address's limit (three an hour) holds across its accounts.
    ask_reset(&srv, json!({"email": shared})).expect(202);
    ask_reset(&srv, json!({"username": "kid_two"})).expect(202);
    sink.wait_for_subject(20, shared, "Reset your password", 3);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(sink.to_with_subject(shared, "Reset your password").len(), 3);
}

fn reset_requests_tell_nothing_about_accounts(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink, None);
    srv.user("erin");
    verify(&srv, &sink, &addr("erin"));
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    let mut answers = std::collections::BTreeSet::new();
    for i in 0..6 {
        for (body, is_known) in [
            (json!({"username": "erin"}), true),
            (json!({"username": format!("nobody{i}")}), false),
            (json!({"email": addr("erin")}), true),
            (json!({"email": format!("nobody{i}@example.org")}), false),
        ] {
            let t0 = std::time::Instant::now();
            let r = ask_reset(&srv, body);
            if is_known { &mut known } else { &mut unknown }.push(t0.elapsed());
            answers.insert((r.status.as_u16(), r.text.clone()));
        }
    }
    assert_eq!(answers.len(), 1, "one answer for all: {answers:?}");
    assert_eq!(answers.iter().next().unwrap().0, 202);
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (k, u) = (median(&mut known), median(&mut unknown));
    assert!(k >= Duration::from_millis(250) && u >= Duration::from_millis(250));
    let gap = k.abs_diff(u);
    assert!(
        gap < Duration::from_millis(40),
        "known {k:?}, unknown {u:?}"
    );
    // Only the known account got mail (three an hour at most).
    sink.wait_for_subject(20, &addr("erin"), "Reset your password", 3);
}

fn the_owner_lists_their_sessions_and_ends_any(backend: Backend) {
    let srv = TestServer::start(backend);
    let gina = srv.user("gina");
    let phone = srv.send(
        srv.request(reqwest::Method::POST, "/v1/sessions")
            .header("user-agent", "PhoneClient/2.0")
            .json(&json!({"username": "gina", "password": PASSWORD})),
    );
    let phone = phone.expect(201).clone();
    let phone_access = phone["access_token"].as_str().unwrap().to_string();
    let phone_id = phone["session_id"].as_str().unwrap().to_string();
    let hal = srv.user("hal");

    let list = srv
        .get("/v1/me/sessions", Some(&gina.access))
        .expect(200)
        .clone();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{list}");
    let mine = items.iter().find(|s| s["id"] == gina.session_id).unwrap();
    assert_eq!(mine["current"], true);
    let p = items.iter().find(|s| s["id"] == phone_id.as_str()).unwrap();
    assert_eq!(p["current"], false);
    assert_eq!(p["user_agent"], "PhoneClient/2.0");
    assert_eq!(p["client_addr"], "127.0.0.1");
    assert!(p["created_at"].is_string() && p["last_used_at"].is_string());
    // Nobody else's sessions are listed or can be ended.
    srv.delete(
        &format!("/v1/me/sessions/{}", hal.session_id),
        Some(&gina.access),
    )
    .problem(404, "not-found");
    srv.delete("/v1/me/sessions/nope", Some(&gina.access))
        .problem(404, "not-found");
    srv.get("/v1/me", Some(&hal.access)).expect(200);
    let (_, pat) = srv.pat(&gina, &["read"]);
    srv.get("/v1/me/sessions", Some(&pat))
        .problem(403, "forbidden");

    // Ending the phone's session: its tokens stop at once, the list drops it.
    srv.delete(&format!("/v1/me/sessions/{phone_id}"), Some(&gina.access))
        .expect(204);
    srv.get("/v1/me", Some(&phone_access))
        .problem(401, "unauthorized");
    srv.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": phone["refresh_token"]}),
    )
    .problem(401, "unauthorized");
    let list = srv
        .get("/v1/me/sessions", Some(&gina.access))
        .expect(200)
        .clone();
    assert_eq!(list["items"].as_array().unwrap().len(), 1, "{list}");
    // Again is fine; ending the current one logs out.
    srv.delete(&format!("/v1/me/sessions/{phone_id}"), Some(&gina.access))
        .expect(204);
    srv.delete(
        &format!("/v1/me/sessions/{}", gina.session_id),
        Some(&gina.access),
    )
    .expect(204);
    srv.get("/v1/me", Some(&gina.access))
        .problem(401, "unauthorized");
}

/// Four new players of a started four-player game (the first is Red, to move).
fn four_players(srv: &TestServer, names: [&str; 4]) -> (String, Vec<Login>) {
    let p: Vec<Login> = names.iter().map(|n| srv.user(n)).collect();
    (seat_all(srv, &p), p)
}

/// Seats `p` in a new game with three strangers and ends it (the strangers resign).
fn finished_game(srv: &TestServer, p: &Login, prefix: &str) -> String {
    let others: Vec<Login> = (1..4).map(|i| srv.user(&format!("{prefix}{i}"))).collect();
    let id = create(srv, p, json!({"seats": 4, "seat": "R"}))["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &others[i - 1], &id, seat).expect(200);
    }
    for o in &others {
        srv.post(
            &format!("/v1/games/{id}/resignation"),
            Some(&o.access),
            &json!({}),
        )
        .expect(201);
    }
    assert_eq!(summary(srv, &id)["status"], "finished");
    id
}

/// Every column of every table holding `needle` (case-insensitively, each value read as
/// text, whatever its type): the tables and columns come from the database's catalogue,
/// so a new table or column cannot be forgotten, on either backend.
fn tables_holding(srv: &TestServer, needle: &str) -> Vec<String> {
    use diesel::sql_types::{BigInt, Text};
    use diesel::{Connection, QueryableByName, RunQueryDsl};
    #[derive(QueryableByName)]
    struct Col {
        #[diesel(sql_type = Text)]
        t: String,
        #[diesel(sql_type = Text)]
        c: String,
    }
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let pattern = format!("%{}%", needle.to_lowercase());
    let mut found = Vec::new();
    macro_rules! scan {
        ($conn:expr, $cols:expr, $count:expr) => {{
            let cols: Vec<Col> = diesel::sql_query($cols).load($conn).unwrap();
            assert!(cols.len() > 20, "the schema query found the columns");
            for col in cols {
                let q = format!($count, t = col.t, c = col.c);
                let n: N = diesel::sql_query(q)
                    .bind::<Text, _>(&pattern)
                    .get_result($conn)
                    .unwrap();
                if n.n > 0 {
                    found.push(format!("{}.{}", col.t, col.c));
                }
            }
        }};
    }
    if srv.backend == Backend::Postgres {
        let mut conn = diesel::PgConnection::establish(&srv.database_url).unwrap();
        scan!(
            &mut conn,
            "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns \
             WHERE table_schema = 'public'",
            "SELECT count(*) AS n FROM \"{t}\" WHERE lower(CAST(\"{c}\" AS TEXT)) LIKE $1"
        );
    } else {
        let path = srv.database_url.trim_start_matches("sqlite://");
        let mut conn = diesel::SqliteConnection::establish(path).unwrap();
        scan!(
            &mut conn,
            "SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table'",
            "SELECT count(*) AS n FROM \"{t}\" WHERE lower(CAST(\"{c}\" AS TEXT)) LIKE ?"
        );
    }
    found
}

fn closing_ends_everything_resigns_and_erases_the_personal_data(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = clock();
    let srv = start_with_mail(backend, &sink, clock.clone());
    let (active, p) = four_players(&srv, ["zed_closer", "c_blue", "c_yellow", "c_green"]);
    let zed = p[0].clone();
    verify(&srv, &sink, &addr("zed_closer"));
    // A move by mail, in a second game (its turn mail goes to the verified address).
    let mailed = seat_all(&srv, &p);
    let reply_address = smtp_sink::turn_reply_address(&sink, &zed, &mailed, 1);
    let reply = inbound::reply(
        &addr("zed_closer"),
        &reply_address,
        "zed1",
        "",
        &first_legal(&srv, &mailed),
    );
    assert_eq!(inbound::deliver(&srv, &reply), "played");
    let finished = finished_game(&srv, &zed, "fin");
    let before = all_events(&srv, &finished);
    let open = create(&srv, &zed, json!({"seats": 4, "seat": "R"}))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let phone = srv.send(
        srv.request(reqwest::Method::POST, "/v1/sessions")
            .header("user-agent", "ZedPhone/1.0")
            .json(&json!({"username": "zed_closer", "password": PASSWORD})),
    );
    let phone = phone.expect(201)["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, pat) = srv.pat(&zed, &["read", "play"]);
    srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&zed.access)
            .json(&json!({"email_digest": true})),
    )
    .expect(200);
    assert!(
        !tables_holding(&srv, "zed_closer").is_empty(),
        "the scan sees the name"
    );
    assert!(!tables_holding(&srv, "ZedPhone").is_empty());
    assert!(
        tables_holding(&srv, "zed_closer@example.org").contains(&"inbound_mails.sender".into()),
        "the scan sees the address the mail move left"
    );

    srv.send(
        srv.request(reqwest::Method::DELETE, "/v1/me")
            .bearer_auth(&pat)
            .json(&json!({"current_password": PASSWORD})),
    )
    .problem(403, "forbidden");
    srv.send(
        srv.request(reqwest::Method::DELETE, "/v1/me")
            .bearer_auth(&zed.access)
            .json(&json!({"current_password": "not the password"})),
    )
    .problem(400, "validation");
    let closed = srv.send(
        srv.request(reqwest::Method::DELETE, "/v1/me")
            .bearer_auth(&zed.access)
            .json(&json!({"current_password": PASSWORD})),
    );
    let closed = closed.expect(200).clone();
    assert_eq!(closed["games_resigned"], 2, "{closed}");
    assert_eq!(closed["seats_left"], 1, "{closed}");

    // Nothing of the account works any more.
    for t in [&zed.access, &phone, &pat] {
        srv.get("/v1/me", Some(t)).problem(401, "unauthorized");
    }
    srv.post(
        "/v1/sessions",
        None,
        &json!({"username": "zed_closer", "password": PASSWORD}),
    )
    .problem(401, "unauthorized");
    // The game in progress: Red resigned through the game's own command, as a deleted
    // player; the log replays.
    let events = all_events(&srv, &active);
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "resigned", "{last}");
    assert_eq!(last["actor_id"], zed.user_id.as_str());
    check_log_replays(&srv, &active);
    let s = summary(&srv, &active);
    let red = s["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["seat"] == "R")
        .unwrap()
        .clone();
    assert_eq!(red["username"], "[deleted]", "{s}");
    // The finished game's log is as it was.
    assert_eq!(all_events(&srv, &finished), before);
    check_log_replays(&srv, &finished);
    // The open game's seat was left.
    let o = summary(&srv, &open);
    assert!(
        o["seats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["user_id"] != zed.user_id.as_str()),
        "{o}"
    );
    // No table holds the name, the address or the session's user agent.
    for needle in ["zed_closer", "zed_closer@example.org", "ZedPhone"] {
        assert_eq!(
            tables_holding(&srv, needle),
            Vec::<String>::new(),
            "{needle}"
        );
    }
    // The name, and names like it, stay taken for a while.
    for name in ["zed_closer", "Zed-closer", "zed_cl0ser"] {
        srv.post(
            "/v1/accounts",
            None,
            &json!({"username": name, "email": "new@example.org", "password": PASSWORD}),
        )
        .problem(409, "conflict");
    }
    // The others play on.
    let b = player_to_move(&srv, &active, &p).expect("a seat to move");
    assert_ne!(b.user_id, zed.user_id);
    // After the hold the name is free again.
    clock.advance(TimeDelta::days(181));
    srv.post(
        "/v1/accounts",
        None,
        &json!({"username": "zed_closer", "email": "new@example.org", "password": PASSWORD}),
    )
    .expect(201);
}

/// A move of the player to move races the closing of its account: whichever wins, the
/// seat ends resigned, nothing of that player follows its resignation, and the log
/// replays.
fn a_move_racing_the_closing_leaves_a_consistent_log(backend: Backend) {
    let srv = start(backend, &SmtpSink::start(), None);
    for round in 0..4 {
        let names = [
            format!("race{round}_r"),
            format!("race{round}_b"),
            format!("race{round}_y"),
            format!("race{round}_g"),
        ];
        let (id, p) = four_players(&srv, [&names[0], &names[1], &names[2], &names[3]]);
        let red = p[0].clone();
        let v = version(&srv, &id);
        let mv = srv
            .get(&format!("/v1/games/{id}/legal-moves"), None)
            .expect(200)["moves"][0]["text"]
            .clone();
        let (move_status, close_status) = std::thread::scope(|s| {
            let mover = s.spawn(|| play(&srv, &red, &id, mv.clone(), v).status.as_u16());
            let closer = s.spawn(|| {
                srv.send(
                    srv.request(reqwest::Method::DELETE, "/v1/me")
                        .bearer_auth(&red.access)
                        .json(&json!({"current_password": PASSWORD})),
                )
                .status
                .as_u16()
            });
            (mover.join().unwrap(), closer.join().unwrap())
        });
        assert_eq!(close_status, 200);
        assert!([201, 401, 409].contains(&move_status), "{move_status}");
        let events = all_events(&srv, &id);
        let resigned = events
            .iter()
            .position(|e| e["kind"] == "resigned" && e["actor_id"] == red.user_id.as_str())
            .expect("Red resigned");
        assert!(
            events[resigned + 1..]
                .iter()
                .all(|e| e["actor_id"] != red.user_id.as_str()),
            "nothing of Red after its resignation"
        );
        let moved = events
            .iter()
            .any(|e| e["kind"] == "move_played" && e["actor_id"] == red.user_id.as_str());
        assert_eq!(
            moved,
            move_status == 201,
            "the move is in the log iff it was accepted"
        );
        check_log_replays(&srv, &id);
    }
}

fn the_export_holds_the_account_its_games_and_notifications(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink, None);
    let (active, p) = four_players(&srv, ["exp_r", "exp_b", "exp_y", "exp_g"]);
    let ida = p[0].clone();
    verify(&srv, &sink, &addr("exp_r"));
    let finished = finished_game(&srv, &ida, "expfin");
    let (_, pat) = srv.pat(&ida, &["read"]);
    srv.get("/v1/me/export", Some(&pat))
        .problem(403, "forbidden");

    let r = srv.get("/v1/me/export", Some(&ida.access));
    let doc = r.expect(200).clone();
    assert!(
        r.header("content-disposition")
            .unwrap()
            .contains("attachment; filename=\"djambi-export-exp_r.json\"")
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(doc["format"], "djambi-account-export/1");
    assert_eq!(doc["account"]["username"], "exp_r");
    assert_eq!(doc["account"]["email"], addr("exp_r"));
    assert_eq!(doc["account"]["email_verified"], true);
    assert_eq!(doc["messages"], json!([]));
    assert_eq!(doc["personal_access_tokens"].as_array().unwrap().len(), 1);
    assert_eq!(doc["sessions"].as_array().unwrap().len(), 1);
    let games = doc["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{doc}");
    for id in [&active, &finished] {
        let g = games
            .iter()
            .find(|g| g["id"] == id.as_str())
            .expect("the game");
        assert_eq!(g["my_seats"], json!(["R"]));
        let record = srv.get(&format!("/v1/games/{id}/record"), None);
        assert_eq!(g["record"], record.text.as_str(), "the record of {id}");
    }
    let f = games.iter().find(|g| g["id"] == finished.as_str()).unwrap();
    assert_eq!(f["status"], "finished");
    let kinds: Vec<&str> = doc["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"your_turn") && kinds.contains(&"game_ended"),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().all(|k| !k.starts_with("account.")),
        "{kinds:?}"
    );
    // No secret is in it.
    let text = doc.to_string();
    for secret in ["$argon2", &pat, "token_hash", "password_hash", "\"secret\""] {
        assert!(!text.contains(secret), "the export holds {secret}");
    }
}

backend_tests!(
    earlier_links_stay_good_until_one_is_used,
    the_export_holds_the_account_its_games_and_notifications,
    closing_ends_everything_resigns_and_erases_the_personal_data,
    a_move_racing_the_closing_leaves_a_consistent_log,
    the_owner_lists_their_sessions_and_ends_any,
    a_reset_link_sets_a_new_password_once_and_ends_every_session,
    an_unverified_address_gets_no_reset_mail,
    reset_requests_tell_nothing_about_accounts,
    one_address_gets_at_most_three_reset_mails_an_hour,
    registration_mails_a_single_use_link_that_verifies_the_address,
    resends_are_limited_to_five_a_day,
    notification_mails_wait_for_a_verified_address,
);

/// Issue 32: asking for a mail again (anyone may ask for a reset in the owner's name)
/// leaves the links already mailed good until one of them is used or they expire; using
/// one retires the others. At most five are live at once.
fn earlier_links_stay_good_until_one_is_used(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = clock();
    let srv = start(backend, &sink, Some(clock.clone()));
    let erin = srv.user("erin");
    let v1 = verification_token(&sink, &addr("erin"), 1);
    clock.advance(TimeDelta::minutes(2));
    srv.post("/v1/me/email-verification", Some(&erin.access), &json!({}))
        .expect(202);
    let v2 = verification_token(&sink, &addr("erin"), 2);
    confirm(&srv, &v1).expect(200);
    let used = confirm(&srv, &v2).problem(404, "not-found").clone();
    assert!(
        used["detail"].as_str().unwrap().contains("already used"),
        "{used}"
    );

    // The owner asks for a reset; a stranger asks again in the owner's name.
    ask_reset(&srv, json!({"username": "erin"})).expect(202);
    let owners = reset_token(&sink, &addr("erin"), 1);
    ask_reset(&srv, json!({"username": "erin"})).expect(202);
    let strangers = reset_token(&sink, &addr("erin"), 2);
    set_password(&srv, &owners, NEW_PASSWORD).expect(200);
    let used = set_password(&srv, &strangers, "another fine passphrase")
        .problem(404, "not-found")
        .clone();
    assert!(
        used["detail"].as_str().unwrap().contains("already used"),
        "{used}"
    );
    srv.login("erin", NEW_PASSWORD);

    // Five live links at most: the sixth retires the oldest.
    let mut fay = srv.user("fay");
    let mut links = vec![verification_token(&sink, &addr("fay"), 1)];
    for n in 2..=6 {
        // Five mails a day; each link is good for two.
        if n == 6 {
            clock.advance(TimeDelta::hours(24));
            fay = srv.login("fay", PASSWORD);
        } else {
            clock.advance(TimeDelta::minutes(2));
        }
        srv.post("/v1/me/email-verification", Some(&fay.access), &json!({}))
            .expect(202);
        links.push(verification_token(&sink, &addr("fay"), n));
    }
    let retired = confirm(&srv, &links[0]).problem(404, "not-found").clone();
    assert!(
        retired["detail"].as_str().unwrap().contains("already used"),
        "{retired}"
    );
    confirm(&srv, &links[1]).expect(200);
}
