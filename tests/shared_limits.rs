//! The login back-off is shared by every instance of one database and survives a
//! restart: failures counted through one instance hold back guesses through another.

use std::time::Duration;

use djambi_e2e::{Backend, FreshDatabase, PASSWORD, TestServer, json};

const LIMITS: [(&str, &str); 2] = [
    // Three free failures per account and address, then 1 s, 2 s, ... up to a minute.
    ("DJAMBI_LOGIN_LIMIT_PER_ACCOUNT", "3/1m"),
    ("DJAMBI_LOGIN_LIMIT_PER_IP", "1000/1m"),
];

fn attempt(srv: &TestServer, username: &str, password: &str) -> u16 {
    srv.post(
        "/v1/sessions",
        None,
        &json!({"username": username, "password": password}),
    )
    .status
    .as_u16()
}

fn the_back_off_is_shared_and_survives_a_restart(backend: Backend) {
    let db = FreshDatabase::new(backend);
    let a = TestServer::start_on_with(&db, &LIMITS, None);
    let b = TestServer::start_on_with(&db, &LIMITS, None);
    a.user("ada");
    // Two failures through A, one through B: the three free ones, together.
    assert_eq!(attempt(&a, "ada", "wrong password one"), 401);
    assert_eq!(attempt(&a, "ada", "wrong password two"), 401);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(attempt(&b, "ada", "wrong password three"), 401);
    std::thread::sleep(Duration::from_millis(200));
    // Both instances now make the next guess wait.
    let r = a.post(
        "/v1/sessions",
        None,
        &json!({"username": "ada", "password": "wrong password four"}),
    );
    r.problem(429, "rate-limited");
    assert!(r.header("retry-after").is_some());
    assert_eq!(
        attempt(&b, "ada", PASSWORD),
        429,
        "even the right password waits"
    );
    // A restarted instance remembers.
    drop(a);
    let c = TestServer::start_on_with(&db, &LIMITS, None);
    assert_eq!(attempt(&c, "ada", "wrong password five"), 429);
    // After the back-off the owner logs in (through C), which clears the count for B too.
    std::thread::sleep(Duration::from_millis(1300));
    assert_eq!(attempt(&c, "ada", PASSWORD), 201);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        attempt(&b, "ada", "wrong password six"),
        401,
        "counting from zero"
    );
    drop((b, c));
}

#[test]
fn pg_the_back_off_is_shared_and_survives_a_restart() {
    the_back_off_is_shared_and_survives_a_restart(Backend::Postgres);
}

/// SQLite runs one instance; the count still survives its restart.
#[test]
fn sqlite_the_back_off_survives_a_restart() {
    let db = FreshDatabase::new(Backend::Sqlite);
    let a = TestServer::start_on_with(&db, &LIMITS, None);
    a.user("bea");
    for n in 0..3 {
        assert_eq!(attempt(&a, "bea", &format!("wrong password {n}")), 401);
    }
    std::thread::sleep(Duration::from_millis(200));
    drop(a);
    let b = TestServer::start_on_with(&db, &LIMITS, None);
    assert_eq!(attempt(&b, "bea", PASSWORD), 429);
    drop(b);
}
