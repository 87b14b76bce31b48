//! Vacations: a player's clocks stop while it is away (the due worker does not time it
//! out), within a yearly allowance; ending early gives the clock back.

#[path = "support/games.rs"]
mod games;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{Backend, Clock, Login, ManualClock, TestServer, backend_tests, json};
use games::*;

const FAST: [(&str, &str); 1] = [("DJAMBI_DUE_INTERVAL", "10ms")];

fn game(srv: &TestServer, prefix: &str) -> (String, Vec<Login>) {
    let p: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{}", s.to_lowercase())))
        .collect();
    let g = create(
        srv,
        &p[0],
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 86400}}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &p[i], &id, seat).expect(200);
    }
    (id, p)
}

fn to_move(srv: &TestServer, id: &str) -> String {
    summary(srv, id)["to_move"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn wait_to_move(srv: &TestServer, id: &str, seat: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while to_move(srv, id) != seat {
        assert!(Instant::now() < until, "{seat} never came to move");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn vacation_stops_the_clock(backend: Backend) {
    let clock = Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ));
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let (id, p) = game(&srv, "vac");
    let red = &p[0];
    // Red goes away for two days, from now.
    let r = srv.post(
        "/v1/me/vacations",
        Some(&red.access),
        &json!({"ends_at": "2031-03-03T12:00:00Z"}),
    );
    let v = r.expect(201).clone();
    assert_eq!(v["running"], true);
    assert_eq!(v["starts_at"], "2031-03-01T12:00:00Z");
    let location = r.header("location").expect("Location of the vacation");
    assert_eq!(
        location,
        format!("/v1/me/vacations/{}", v["id"].as_str().unwrap())
    );
    let list = srv
        .get("/v1/me/vacations", Some(&red.access))
        .expect(200)
        .clone();
    assert_eq!(list["on_vacation"], true);
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    assert_eq!(list["items"][0]["id"], v["id"]);
    assert_eq!(list["used_secs_this_year"], 2 * 86400);
    assert_eq!(list["left_secs_this_year"], 28 * 86400);
    assert_eq!(list["allowance_days"], 30);
    // Overlaps and the allowance are refused.
    srv.post(
        "/v1/me/vacations",
        Some(&red.access),
        &json!({"starts_at": "2031-03-02T12:00:00Z", "ends_at": "2031-03-04T12:00:00Z"}),
    )
    .problem(409, "conflict");
    srv.post(
        "/v1/me/vacations",
        Some(&red.access),
        &json!({"starts_at": "2031-05-01T00:00:00Z", "ends_at": "2031-06-01T00:00:00Z"}),
    )
    .problem(400, "validation");
    srv.post(
        "/v1/me/vacations",
        Some(&red.access),
        &json!({"starts_at": "2031-01-01T00:00:00Z", "ends_at": "2031-01-03T00:00:00Z"}),
    )
    .problem(400, "validation");

    // A day and more passes: no timeout while Red is away.
    clock.advance(TimeDelta::days(1) + TimeDelta::hours(1));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(to_move(&srv, &id), "R", "no timeout on vacation");
    // Back after two days: Red still has its full day.
    clock.advance(TimeDelta::days(1) + TimeDelta::hours(1)); // 2031-03-03T14:00
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(to_move(&srv, &id), "R", "the day starts after the vacation");
    clock.advance(TimeDelta::hours(22) + TimeDelta::seconds(1)); // past 03-04T12:00
    wait_to_move(&srv, &id, "B");
    // An access token lasts 15 minutes of the server's clock: the players refresh.
    let p = srv.refresh_all(&p);

    // Blue goes away and comes back early: its clock runs again from then. A coming
    // vacation can be cancelled; nobody else can end Blue's.
    let blue = &p[1];
    let coming = srv
        .post(
            "/v1/me/vacations",
            Some(&blue.access),
            &json!({"starts_at": "2031-04-01T00:00:00Z", "ends_at": "2031-04-02T00:00:00Z"}),
        )
        .expect(201)
        .clone();
    assert_eq!(coming["running"], false);
    let away = srv
        .post(
            "/v1/me/vacations",
            Some(&blue.access),
            &json!({"ends_at": "2031-03-14T12:00:00Z"}),
        )
        .expect(201)
        .clone();
    let ids: Vec<_> = srv.get("/v1/me/vacations", Some(&blue.access)).expect(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [away["id"].clone(), coming["id"].clone()],
        "soonest first"
    );
    clock.advance(TimeDelta::days(2));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(to_move(&srv, &id), "B");
    let p = srv.refresh_all(&p);
    let (red, blue) = (&p[0], &p[1]);
    let away_url = format!("/v1/me/vacations/{}", away["id"].as_str().unwrap());
    srv.delete(&away_url, Some(&red.access))
        .problem(404, "not-found");
    srv.delete(&away_url, Some(&blue.access)).expect(204);
    srv.delete(&away_url, Some(&blue.access))
        .problem(404, "not-found");
    let coming_url = format!("/v1/me/vacations/{}", coming["id"].as_str().unwrap());
    srv.delete(&coming_url, Some(&blue.access)).expect(204);
    let list = srv
        .get("/v1/me/vacations", Some(&blue.access))
        .expect(200)
        .clone();
    assert_eq!(list["on_vacation"], false);
    assert_eq!(list["items"], json!([]));
    assert_eq!(
        list["used_secs_this_year"],
        2 * 86400,
        "the unused part is given back"
    );
    // Blue had used no clock before leaving: a day from now.
    clock.advance(TimeDelta::hours(23));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(to_move(&srv, &id), "B");
    clock.advance(TimeDelta::hours(1) + TimeDelta::seconds(1));
    wait_to_move(&srv, &id, "Y");
}

/// Account resources are found by UUID; an id that cannot be one (a NUL byte, which
/// PostgreSQL refuses in text, or any other string) is simply not found, like an unknown
/// UUID, and never a server error.
fn ids_that_cannot_exist_are_not_found(backend: Backend) {
    let srv = TestServer::start(backend);
    let me = srv.user("ids");
    let token = Some(me.access.as_str());
    for id in [
        "a%00b",
        "not-a-uuid",
        "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11",
    ] {
        srv.delete(&format!("/v1/me/vacations/{id}"), token)
            .problem(404, "not-found");
        srv.delete(&format!("/v1/me/tokens/{id}"), token)
            .problem(404, "not-found");
        srv.delete(&format!("/v1/me/webhooks/{id}"), token)
            .problem(404, "not-found");
        srv.post(&format!("/v1/me/webhooks/{id}/secret"), token, &json!({}))
            .problem(404, "not-found");
        srv.get(&format!("/v1/me/webhooks/{id}/deliveries"), token)
            .problem(404, "not-found");
    }
}

fn move_now(srv: &TestServer, id: &str, who: &Login) {
    let v = version(srv, id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(srv, who, id, mv, v).expect(201);
}

fn iso(t: chrono::NaiveDateTime) -> String {
    t.and_utc()
        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// One effective deadline everywhere, computed when read: the summary, the state, the
/// `your_turn` payload and `turn=mine` (its order too) agree while a player is away, and
/// right after an early end, without waiting for the due-work worker.
fn one_effective_deadline_everywhere(backend: Backend) {
    let t0 = DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
        .unwrap()
        .naive_utc();
    let clock = Arc::new(ManualClock::new(t0));
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let (g1, p) = game(&srv, "eff");
    let blue = &p[1];
    // G1: Blue's turn starts at t0 with a day.
    move_now(&srv, &g1, &p[0]);
    // Blue is away from t0+1h to t0+3d.
    srv.post(
        "/v1/me/vacations",
        Some(&blue.access),
        &json!({"starts_at": iso(t0 + TimeDelta::hours(1)), "ends_at": iso(t0 + TimeDelta::days(3))}),
    )
    .expect(201);
    let deadline_of = |id: &str| {
        let s = summary(&srv, id)["deadline"].clone();
        let st = srv.get(&format!("/v1/games/{id}/state"), None).expect(200)["deadline"].clone();
        assert_eq!(s, st, "summary and state agree");
        s
    };
    // 1 h before the vacation, 23 h after it.
    let e1 = t0 + TimeDelta::days(3) + TimeDelta::hours(23);
    assert_eq!(deadline_of(&g1), iso(e1));
    // Two days later (the log's deadline passed while away: no timeout), G2 starts and
    // Red moves at once: Blue's turn of an hour starts during the vacation.
    clock.advance(TimeDelta::days(2));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(to_move(&srv, &g1), "B");
    // An access token lasts 15 minutes of the server's clock: the players refresh.
    let p = srv.refresh_all(&p);
    let blue = &p[1];
    let g2 = create(
        &srv,
        &p[0],
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 3600}}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(&srv, &p[i], &g2, seat).expect(200);
    }
    move_now(&srv, &g2, &p[0]);
    let e2 = t0 + TimeDelta::days(3) + TimeDelta::hours(1);
    assert_eq!(deadline_of(&g2), iso(e2));
    // The your_turn item says the same.
    let feed = srv
        .get("/v1/me/notifications?limit=100", Some(&blue.access))
        .expect(200)
        .clone();
    let turn = feed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "your_turn" && i["game_id"] == g2.as_str())
        .expect("Blue's turn in G2")
        .clone();
    assert_eq!(turn["payload"]["deadline"], iso(e2));
    // turn=mine: G2 comes first (the log's order would put G1 first).
    let mine = srv
        .get("/v1/me/games?turn=mine", Some(&blue.access))
        .expect(200)
        .clone();
    let order: Vec<(&str, &str)> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["id"].as_str().unwrap(), g["deadline"].as_str().unwrap()))
        .collect();
    assert_eq!(
        order,
        [
            (g2.as_str(), iso(e2).as_str()),
            (g1.as_str(), iso(e1).as_str())
        ]
    );
    // Paged one at a time, the same order.
    let first = srv
        .get("/v1/me/games?turn=mine&limit=1", Some(&blue.access))
        .expect(200)
        .clone();
    assert_eq!(first["items"][0]["id"], g2.as_str());
    let next = srv
        .get(
            first["next"].as_str().expect("a next page"),
            Some(&blue.access),
        )
        .expect(200)
        .clone();
    assert_eq!(next["items"][0]["id"], g1.as_str());
    assert_eq!(next["items"].as_array().unwrap().len(), 1);

    // Blue comes back early, now (t0+2d): G2's hour runs from now, G1 has its 23 h left.
    let id = srv.get("/v1/me/vacations", Some(&blue.access)).expect(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    srv.delete(&format!("/v1/me/vacations/{id}"), Some(&blue.access))
        .expect(204);
    let now = clock.now();
    assert_eq!(deadline_of(&g2), iso(now + TimeDelta::hours(1)));
    assert_eq!(deadline_of(&g1), iso(now + TimeDelta::hours(23)));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        deadline_of(&g1),
        iso(now + TimeDelta::hours(23)),
        "after a due pass too"
    );
}

backend_tests!(
    one_effective_deadline_everywhere,
    vacation_stops_the_clock,
    ids_that_cannot_exist_are_not_found
);
