//! Reminders before a deadline, driven by the injected clock: the default 24 h and 1 h,
//! once per turn and offset, per-user offsets, and two instances that never double one.

#[path = "support/games.rs"]
mod games;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{
    Backend, Clock, FreshDatabase, Login, ManualClock, TestServer, Value, backend_tests, json,
};
use games::*;

const FAST: [(&str, &str); 1] = [("DJAMBI_DUE_INTERVAL", "10ms")];

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(
        DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
            .unwrap()
            .naive_utc(),
    ))
}

fn game(srv: &TestServer, p: &[Login]) -> String {
    let g = create(
        srv,
        &p[0],
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 172800}}),
    );
    let id = g["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(srv, &p[i], &id, seat).expect(200);
    }
    id
}

fn players(srv: &TestServer, prefix: &str) -> Vec<Login> {
    SEATS
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{}", s.to_lowercase())))
        .collect()
}

fn reminders(srv: &TestServer, who: &Login) -> Vec<Value> {
    srv.get("/v1/me/notifications?limit=100", Some(&who.access))
        .expect(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "reminder")
        .cloned()
        .collect()
}

fn wait_reminders(srv: &TestServer, who: &Login, n: usize) -> Vec<Value> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let r = reminders(srv, who);
        if r.len() >= n {
            std::thread::sleep(Duration::from_millis(200));
            return reminders(srv, who);
        }
        assert!(Instant::now() < until, "{n} reminders did not come: {r:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn reminders_come_before_the_deadline(backend: Backend) {
    let clock = clock();
    let srv = TestServer::start_with_clock(backend, &FAST, clock.clone());
    let p = players(&srv, "rem");
    // Blue wants one reminder, 6 h before.
    srv.send(
        srv.request(reqwest::Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&p[1].access)
            .json(&json!({"reminder_offsets_secs": [21600]})),
    )
    .expect(200);
    let id = game(&srv, &p);
    std::thread::sleep(Duration::from_millis(200));
    assert!(reminders(&srv, &p[0]).is_empty(), "nothing yet");
    // 24 h before Red's deadline (48 h turn). (An access token lasts 15 minutes of the
    // server's clock: the players refresh after each step.)
    clock.advance(TimeDelta::hours(24) + TimeDelta::seconds(1));
    let p = srv.refresh_all(&p);
    let r = wait_reminders(&srv, &p[0], 1);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["payload"]["offset_secs"], 86400);
    assert_eq!(r[0]["game_id"], id.as_str());
    assert_eq!(r[0]["payload"]["deadline"], summary(&srv, &id)["deadline"]);
    // 1 h before.
    clock.advance(TimeDelta::hours(23));
    let p = srv.refresh_all(&p);
    let r = wait_reminders(&srv, &p[0], 2);
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(r[0]["payload"]["offset_secs"], 3600);
    // Red moves: Blue's turn, one reminder 6 h before its deadline.
    let v = version(&srv, &id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(&srv, &p[0], &id, mv, v).expect(201);
    clock.advance(TimeDelta::hours(41) + TimeDelta::seconds(1));
    let p = srv.refresh_all(&p);
    std::thread::sleep(Duration::from_millis(200));
    assert!(reminders(&srv, &p[1]).is_empty(), "not 24 h before");
    clock.advance(TimeDelta::hours(1));
    let p = srv.refresh_all(&p);
    let b = wait_reminders(&srv, &p[1], 1);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0]["payload"]["offset_secs"], 21600);
    assert_eq!(reminders(&srv, &p[0]).len(), 2, "Red's stay as they were");
}

backend_tests!(reminders_come_before_the_deadline);

/// Two instances on one database write each reminder once.
#[test]
fn two_instances_never_double_a_reminder() {
    let db = FreshDatabase::new(Backend::Postgres);
    let clock = clock();
    let a = TestServer::start_on_with(&db, &FAST, Some(clock.clone() as Arc<dyn Clock>));
    let b = TestServer::start_on_with(&db, &FAST, Some(clock.clone() as Arc<dyn Clock>));
    let p = players(&a, "remtwo");
    let ids: Vec<String> = (0..4)
        .map(|i| game(if i % 2 == 0 { &a } else { &b }, &p))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    clock.advance(TimeDelta::hours(47) + TimeDelta::seconds(1));
    // Both reminders of every game are due at once now. (An access token lasts 15 minutes
    // of the server's clock: the players refresh.)
    let p = a.refresh_all(&p);
    let r = wait_reminders(&a, &p[0], 8);
    std::thread::sleep(Duration::from_millis(300));
    let r2 = reminders(&b, &p[0]);
    assert_eq!(r.len(), 8, "{r:?}");
    assert_eq!(r2.len(), 8);
    for id in &ids {
        assert_eq!(r.iter().filter(|x| x["game_id"] == id.as_str()).count(), 2);
    }
    drop((a, b));
}
