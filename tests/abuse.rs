//! Holding under abuse (issue 27): hung webhook receivers delay nobody else's deliveries,
//! games of computer players alone are capped (per account and in all) and due work is
//! claimed deadlines and people first, per-account quotas answer with clear problems, and
//! the janitor prunes what outlived its retention.

#[path = "support/games.rs"]
mod games;
#[path = "support/receiver.rs"]
#[allow(dead_code)]
mod receiver;

use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel::{Connection, QueryableByName, RunQueryDsl};
use djambi_e2e::{
    Backend, FreshDatabase, Login, ManualClock, TestServer, Value, backend_tests, json,
};
use games::*;
use receiver::Receiver;

/// A webhook receiver that accepts every connection and never answers (holding it open).
struct Hung {
    port: u16,
    accepted: Arc<AtomicUsize>,
    _held: Arc<Mutex<Vec<TcpStream>>>,
}

impl Hung {
    fn start() -> Hung {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let held = Arc::new(Mutex::new(Vec::new()));
        let (a, h) = (accepted.clone(), held.clone());
        std::thread::spawn(move || {
            for s in listener.incoming().flatten() {
                a.fetch_add(1, Ordering::SeqCst);
                h.lock().unwrap().push(s);
            }
        });
        Hung {
            port,
            accepted,
            _held: held,
        }
    }

    fn url(&self, i: usize) -> String {
        format!("http://127.0.0.1:{}/hung/{i}", self.port)
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

#[track_caller]
fn wait_until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < until, "{what} did not happen in {secs}s");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn hook(srv: &TestServer, who: &Login, url: &str) -> Value {
    srv.post("/v1/me/webhooks", Some(&who.access), &json!({"url": url}))
        .expect(201)
        .clone()
}

fn bots(seats: &[&str]) -> Value {
    json!(
        seats
            .iter()
            .map(|s| json!({"seat": s, "level": 1}))
            .collect::<Vec<_>>()
    )
}

/// Ten endpoints that accept and never answer, all of one account, while its games make
/// notifications: another account's delivery still arrives at once, well under the
/// webhook timeout; the hung attempts fail after their first-byte timeout and are tried
/// again after their back-off.
fn hung_receivers_delay_nobody_else(backend: Backend) {
    let hung = Hung::start();
    let rx = Receiver::start();
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("DJAMBI_DELIVERY_INTERVAL", "50ms"),
            ("DJAMBI_DELIVERY_BACKOFF", "1s"),
            ("DJAMBI_WEBHOOK_TIMEOUT", "10s"),
            ("DJAMBI_WEBHOOK_FIRST_BYTE_TIMEOUT", "10s"),
            // Only the per-endpoint bound and the stream keep the others going here.
            ("DJAMBI_DELIVERY_PER_ACCOUNT", "64"),
            ("DJAMBI_BOT_DELAY", "100ms"),
        ],
    );
    let mallory = srv.user("mallory");
    let hooks: Vec<String> = (0..10)
        .map(|i| {
            hook(&srv, &mallory, &hung.url(i))["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for _ in 0..2 {
        create(
            &srv,
            &mallory,
            json!({"seats": 4, "seat": "R", "bots": bots(&["B", "Y", "G"])}),
        );
    }
    wait_until(20, "ten hung attempts in flight", || hung.accepted() >= 10);
    std::thread::sleep(Duration::from_millis(300));
    let first_wave = hung.accepted();

    let victim = srv.user("victim");
    hook(&srv, &victim, &rx.url("/victim"));
    let started = Instant::now();
    create(
        &srv,
        &victim,
        json!({"seats": 4, "seat": "R", "bots": bots(&["B", "Y", "G"])}),
    );
    rx.wait_for(10, "the victim's delivery", |g| !g.is_empty());
    let took = started.elapsed();
    eprintln!(
        "victim's delivery after {took:?} with {first_wave} hung attempts in flight (timeout 10 s)"
    );
    assert!(
        took < Duration::from_secs(3),
        "the victim's delivery took {took:?} behind hung receivers"
    );
    // At most DJAMBI_DELIVERY_PER_ENDPOINT (2) attempts per hung endpoint at once.
    assert!(first_wave <= 20, "{first_wave} attempts to 10 endpoints");

    // The hung attempts fail after the first-byte timeout and are tried again later.
    wait_until(25, "a hung attempt failed and is pending again", || {
        let d = srv
            .get(
                &format!("/v1/me/webhooks/{}/deliveries", hooks[0]),
                Some(&mallory.access),
            )
            .expect(200)
            .clone();
        d.as_array().unwrap().iter().any(|d| {
            d["attempts"].as_i64() >= Some(1)
                && d["last_error"].as_str().is_some_and(|e| !e.is_empty())
        })
    });
    wait_until(10, "the hung endpoints tried again", || {
        hung.accepted() > first_wave
    });
}

/// Games of computer players alone: at most DJAMBI_BOT_GAMES_PER_ACCOUNT per account and
/// DJAMBI_BOT_GAMES_TOTAL in all, a 409 `quota-exceeded` beyond; games with a person are
/// not counted.
fn bot_only_games_are_capped(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_BOT_GAMES_PER_ACCOUNT", "2"),
            ("DJAMBI_BOT_GAMES_TOTAL", "3"),
            ("DJAMBI_BOT_ONLY_PLIES_PER_SEC", "1"),
            ("DJAMBI_BOT_DRAW_PLIES", "100000"),
        ],
    );
    let all = bots(&["R", "B", "Y", "G"]);
    let ann = srv.user("ann");
    for _ in 0..2 {
        let g = create(&srv, &ann, json!({"seats": 4, "bots": all}));
        assert_eq!(g["status"], "active", "{g}");
    }
    let r = srv.post(
        "/v1/games",
        Some(&ann.access),
        &json!({"seats": 4, "bots": all}),
    );
    let p = r.problem(409, "quota-exceeded");
    assert_eq!(p["quota"], "bot_games_per_account", "{p}");
    assert_eq!(p["limit"], 2, "{p}");
    assert!(p["detail"].as_str().unwrap().contains("at most 2"), "{p}");
    // A game with a person in it is not capped.
    create(
        &srv,
        &ann,
        json!({"seats": 4, "seat": "R", "bots": bots(&["B", "Y", "G"])}),
    );
    // Seating the last bot of a game where nobody sits is capped too.
    let g = create(
        &srv,
        &ann,
        json!({"seats": 4, "bots": bots(&["R", "B", "Y"])}),
    );
    let id = g["id"].as_str().unwrap();
    srv.post(
        &format!("/v1/games/{id}/seats/G/bot"),
        Some(&ann.access),
        &json!({"level": 1}),
    )
    .problem(409, "quota-exceeded");
    assert_eq!(summary(&srv, id)["status"], "open");
    // The site-wide cap.
    let bob = srv.user("bob");
    create(&srv, &bob, json!({"seats": 4, "bots": all}));
    let carol = srv.user("carol");
    let r = srv.post(
        "/v1/games",
        Some(&carol.access),
        &json!({"seats": 4, "bots": all}),
    );
    assert_eq!(r.problem(409, "quota-exceeded")["quota"], "bot_games_total");
}

/// A direct connection to a test server's database.
enum Db {
    Pg(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

impl Db {
    fn open(backend: Backend, url: &str) -> Db {
        match backend {
            Backend::Postgres => Db::Pg(diesel::PgConnection::establish(url).unwrap()),
            Backend::Sqlite => {
                let mut c =
                    diesel::SqliteConnection::establish(url.trim_start_matches("sqlite://"))
                        .unwrap();
                // The server just stopped may still be finishing a write: wait for it rather
                // than fail with "database is locked".
                diesel::sql_query("PRAGMA busy_timeout = 10000")
                    .execute(&mut c)
                    .unwrap();
                Db::Sqlite(c)
            }
        }
    }

    fn count(&mut self, sql: &str) -> i64 {
        let q = diesel::sql_query(format!("SELECT COUNT(*) AS n FROM {sql}"));
        let rows: Vec<Count> = match self {
            Db::Pg(c) => q.load(c),
            Db::Sqlite(c) => q.load(c),
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
        rows[0].n
    }

    fn exec(&mut self, sql: &str) {
        let q = diesel::sql_query(sql);
        match self {
            Db::Pg(c) => q.execute(c),
            Db::Sqlite(c) => q.execute(c),
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// The due-work claim takes deadlines first, then computer players' turns in games with
/// people, then games of bots alone, each soonest due first, whatever their due times.
fn due_work_claims_deadlines_and_people_first(backend: Backend) {
    let db = FreshDatabase::new(backend);
    let ids: Vec<String> = {
        let srv = TestServer::start_on(&db);
        let ann = srv.user("ann");
        (0..4)
            .map(|_| {
                create(&srv, &ann, json!({"seats": 4, "seat": "R"}))["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let mut c = Db::open(backend, &db.url);
    // ids[0]: bot-only, due longest ago; ids[1]: a bot with people; ids[2]: a deadline,
    // due last; ids[3]: a later bot-only game.
    for (id, priority, ago) in [
        (&ids[0], 2, 40),
        (&ids[1], 1, 30),
        (&ids[2], 0, 10),
        (&ids[3], 2, 20),
    ] {
        c.exec(&format!(
            "UPDATE games SET due_priority = {priority}, due_at = '2020-01-01 00:{:02}:00', \
             due_lease_until = NULL WHERE id = '{id}'",
            60 - ago
        ));
    }
    let (url, backend_kind) = djambi_api::config::parse_database_url(&db.url).unwrap();
    let pool = djambi_api::store::build_pool(&djambi_api::config::DatabaseConfig {
        url,
        backend: backend_kind,
        is_embedded_default: false,
        pool_size: 1,
        timeout: Duration::from_secs(5),
    })
    .unwrap();
    let mut conn = djambi_api::store::checkout(&pool).unwrap();
    let now = chrono::NaiveDate::from_ymd_opt(2020, 1, 2)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap();
    let order: Vec<String> = (0..4)
        .flat_map(|_| {
            djambi_api::store::due::claim(&mut conn, now, chrono::TimeDelta::seconds(60), 1)
                .unwrap()
        })
        .map(|id| id.into_string())
        .collect();
    assert_eq!(
        order,
        [
            ids[2].clone(),
            ids[1].clone(),
            ids[0].clone(),
            ids[3].clone()
        ]
    );
}

const RECORD: &str = "[Red \"alice\"]\n[Blue \"bob\"]\n[Yellow \"carol\"]\n[Green \"dave\"]\n[Result \"*\"]\n\n1. R C8-D7\n2. B G8-F7\n";

/// Per-account quotas: open games and webhooks held (409 `quota-exceeded`), games and
/// imports a day (429 with `Retry-After`), each problem naming its quota and limit.
fn quotas_answer_with_clear_problems(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_QUOTA_OPEN_GAMES", "2"),
            ("DJAMBI_QUOTA_GAMES_PER_DAY", "3"),
            ("DJAMBI_QUOTA_IMPORTS_PER_DAY", "1"),
            ("DJAMBI_QUOTA_WEBHOOKS", "1"),
            ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true"),
        ],
    );
    let ann = srv.user("ann");
    for _ in 0..2 {
        create(&srv, &ann, json!({"seats": 4, "seat": "R"}));
    }
    let r = srv.post(
        "/v1/games",
        Some(&ann.access),
        &json!({"seats": 4, "seat": "R"}),
    );
    let p = r.problem(409, "quota-exceeded");
    assert_eq!(
        (p["quota"].clone(), p["limit"].clone()),
        (json!("open_games"), json!(2))
    );
    assert!(p["detail"].as_str().unwrap().contains("at most 2"), "{p}");

    // Imports: one a day; the third creation of the day is refused too.
    let import = |who: &Login| {
        srv.post(
            "/v1/games/import",
            Some(&who.access),
            &json!({"record": RECORD}),
        )
    };
    import(&ann).expect(201);
    let r = import(&ann);
    let p = r.problem(429, "rate-limited").clone();
    assert_eq!(p["quota"], "games_per_day", "{p}");
    assert_eq!(p["limit"], 3, "{p}");
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!(retry > 0 && retry <= 24 * 3600, "{retry}");

    let bob = srv.user("bob");
    import(&bob).expect(201);
    let r = import(&bob);
    let p = r.problem(429, "rate-limited");
    assert_eq!(p["quota"], "imports_per_day", "{p}");
    assert!(r.header("retry-after").is_some());

    hook(&srv, &bob, "http://127.0.0.1:9/a");
    let r = srv.post(
        "/v1/me/webhooks",
        Some(&bob.access),
        &json!({"url": "http://127.0.0.1:9/b"}),
    );
    let p = r.problem(409, "quota-exceeded");
    assert_eq!(
        (p["quota"].clone(), p["limit"].clone()),
        (json!("webhooks"), json!(1))
    );
    let listed = srv
        .get("/v1/me/webhooks", Some(&bob.access))
        .expect(200)
        .clone();
    assert_eq!(listed.as_array().unwrap().len(), 1, "nothing was written");
}

/// The janitor prunes finished deliveries, ended sessions and used refresh tokens after
/// 30 days, read notifications after 90 and unread ones after 365 (the defaults), and
/// nothing before.
fn the_janitor_prunes_past_retention(backend: Backend) {
    let start = chrono::Utc::now().naive_utc();
    let clock = Arc::new(ManualClock::new(start));
    let rx = Receiver::start();
    let srv = TestServer::start_with_clock(
        backend,
        &[
            ("DJAMBI_JANITOR_INTERVAL", "100ms"),
            ("DJAMBI_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("DJAMBI_DELIVERY_INTERVAL", "20ms"),
        ],
        clock.clone(),
    );
    let p: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("keep_{}", s.to_lowercase())))
        .collect();
    hook(&srv, &p[0], &rx.url("/kept"));
    let g = create(&srv, &p[0], json!({"seats": 4, "seat": "R"}));
    let id = g["id"].as_str().unwrap();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(&srv, &p[i], id, seat).expect(200);
    }
    rx.wait_for(20, "a delivery", |g| !g.is_empty());
    // p[0] reads everything; p[1] logs out; p[2] rotates its refresh token.
    let feed = srv
        .get("/v1/me/notifications", Some(&p[0].access))
        .expect(200)
        .clone();
    let newest = feed["items"][0]["id"].clone();
    srv.post(
        "/v1/me/notifications/read",
        Some(&p[0].access),
        &json!({"up_to": newest}),
    )
    .expect(200);
    assert_eq!(
        srv.delete("/v1/sessions/current", Some(&p[1].access))
            .status,
        204
    );
    srv.post(
        "/v1/sessions/refresh",
        None,
        &json!({"refresh_token": p[2].refresh}),
    )
    .expect(200);

    let mut db = Db::open(backend, &srv.database_url);
    let u0 = &p[0].user_id;
    let read = format!("notifications WHERE user_id = '{u0}' AND read_at IS NOT NULL");
    let unread = "notifications WHERE read_at IS NULL";
    let delivered = "deliveries WHERE status = 'delivered'";
    let revoked = "sessions WHERE revoked_at IS NOT NULL";
    let used = "refresh_tokens WHERE used_at IS NOT NULL";
    wait_until(10, "the delivery is recorded", || db.count(delivered) >= 1);
    let before: Vec<i64> = [&read as &str, unread, delivered, revoked, used, "sessions"]
        .iter()
        .map(|q| db.count(q))
        .collect();
    assert!(before.iter().all(|n| *n >= 1), "{before:?}");
    // Nothing is pruned before its time.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(db.count(delivered), before[2]);
    assert_eq!(db.count(revoked), before[3]);

    clock.advance(chrono::TimeDelta::days(31));
    wait_until(
        10,
        "finished deliveries, ended sessions, used tokens pruned",
        || db.count(delivered) == 0 && db.count(revoked) == 0 && db.count(used) == 0,
    );
    assert_eq!(
        db.count(&read),
        before[0],
        "read notifications are kept 90 days"
    );
    assert_eq!(db.count(unread), before[1]);
    assert!(db.count("sessions") >= 3, "live sessions stay");

    clock.advance(chrono::TimeDelta::days(60));
    wait_until(10, "read notifications pruned", || db.count(&read) == 0);
    assert_eq!(
        db.count(unread),
        before[1],
        "unread notifications are kept 365 days"
    );
    wait_until(10, "sessions unused past their tokens pruned", || {
        db.count("sessions") == 0
    });

    clock.advance(chrono::TimeDelta::days(275));
    wait_until(10, "unread notifications pruned", || db.count(unread) == 0);
}

backend_tests!(
    hung_receivers_delay_nobody_else,
    bot_only_games_are_capped,
    due_work_claims_deadlines_and_people_first,
    quotas_answer_with_clear_problems,
    the_janitor_prunes_past_retention,
);
