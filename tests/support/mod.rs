//! The end-to-end test harness: boots the real server in-process on `127.0.0.1:0` against a
//! fresh database and drives it over HTTP with a real client.
//!
//! Every test gets its own database:
//! - PostgreSQL: `CREATE DATABASE djambi_test_<uuid>` on the server `DJAMBI_TEST_PG_URL`
//!   names (default `postgres://postgres@127.0.0.1:5432/postgres`), dropped (`WITH (FORCE)`)
//!   when the test ends. If PostgreSQL is unreachable the test FAILS with a message saying so;
//!   it is never skipped.
//! - SQLite: a file in a fresh temporary directory, removed afterwards.
//!
//! Write a test as `fn name(backend: Backend)` and list it in [`backend_tests!`], which makes
//! `pg::name` and `sqlite::name` variants.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use actix_web::dev::ServerHandle;
use diesel::{Connection, PgConnection, RunQueryDsl};
pub use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder};
use reqwest::header::HeaderMap;
pub use serde_json::{Value, json};

pub use djambi_api::clock::{Clock, ManualClock};

/// The signing secret every test server uses (tests craft tokens with it).
pub const TEST_JWT_SECRET: &str = "djambi-test-secret-0123456789-abcdefghij";
/// The PostgreSQL server used when `DJAMBI_TEST_PG_URL` is unset.
pub const DEFAULT_PG_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";
/// A password that passes the rules.
pub const PASSWORD: &str = "correct horse battery";

/// Generates a `pg::` and an `sqlite::` test for each `fn name(backend: Backend)`.
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod pg {
            $( #[test] fn $name() { super::$name($crate::Backend::Postgres) } )*
        }
        mod sqlite {
            $( #[test] fn $name() { super::$name($crate::Backend::Sqlite) } )*
        }
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

enum TestDb {
    Pg {
        admin_url: String,
        name: String,
    },
    Sqlite {
        dir: PathBuf,
    },
    /// Owned by someone else (a [`FreshDatabase`]).
    Borrowed,
}

impl TestDb {
    fn create(backend: Backend) -> (TestDb, String) {
        match backend {
            Backend::Postgres => {
                let admin_url =
                    std::env::var("DJAMBI_TEST_PG_URL").unwrap_or_else(|_| DEFAULT_PG_URL.into());
                let mut conn = pg_admin(&admin_url);
                let name = format!("djambi_test_{}", uuid::Uuid::new_v4().simple());
                diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
                    .execute(&mut conn)
                    .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
                let mut url = url::Url::parse(&admin_url)
                    .unwrap_or_else(|e| panic!("DJAMBI_TEST_PG_URL `{admin_url}`: {e}"));
                url.set_path(&name);
                (TestDb::Pg { admin_url, name }, url.to_string())
            }
            Backend::Sqlite => {
                let dir = std::env::temp_dir()
                    .join(format!("djambi-test-{}", uuid::Uuid::new_v4().simple()));
                std::fs::create_dir_all(&dir)
                    .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
                let url = format!("sqlite://{}", dir.join("test.sqlite").display());
                (TestDb::Sqlite { dir }, url)
            }
        }
    }

    /// Makes the database unreachable for the running server (PostgreSQL: drops it).
    fn destroy(&self) {
        match self {
            TestDb::Pg { admin_url, name } => {
                if let Ok(mut conn) = PgConnection::establish(admin_url) {
                    let _ = diesel::sql_query(format!(
                        "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                    ))
                    .execute(&mut conn);
                }
            }
            TestDb::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            TestDb::Borrowed => {}
        }
    }
}

/// A fresh, empty database several servers can share; removed when dropped (drop the
/// servers first).
pub struct FreshDatabase {
    db: TestDb,
    pub backend: Backend,
    pub url: String,
}

impl FreshDatabase {
    pub fn new(backend: Backend) -> FreshDatabase {
        let (db, url) = TestDb::create(backend);
        FreshDatabase { db, backend, url }
    }
}

impl Drop for FreshDatabase {
    fn drop(&mut self) {
        self.db.destroy();
    }
}

fn pg_admin(admin_url: &str) -> PgConnection {
    PgConnection::establish(admin_url).unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is required by the tests and is not reachable at `{admin_url}`: {e}\n\
             Start it (see DEVELOPERS.md: pg_ctlcluster 15 main start) or point \
             DJAMBI_TEST_PG_URL at a server where this user may CREATE DATABASE."
        )
    })
}

/// A server running in-process on its own thread, with its own database.
pub struct TestServer {
    pub base: String,
    /// The SMTP listener's address (`DJAMBI_SMTP_LISTEN`), if it has one.
    pub smtp_addr: Option<std::net::SocketAddr>,
    pub backend: Backend,
    pub database_url: String,
    client: Client,
    handle: Option<ServerHandle>,
    thread: Option<JoinHandle<()>>,
    db: TestDb,
}

/// A response, read eagerly.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
    /// The body as JSON (`Null` if it is not JSON).
    pub json: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    /// Asserts the status and returns the JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "expected {status}, got {}: {}",
            self.status,
            self.text
        );
        &self.json
    }

    /// Asserts an RFC 9457 problem of the given status and `type` slug; returns the body.
    #[track_caller]
    pub fn problem(&self, status: u16, slug: &str) -> &Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "expected a {status} {slug} problem, got {}: {}",
            self.status,
            self.text
        );
        assert!(
            self.content_type().starts_with("application/problem+json"),
            "content-type {:?} is not problem+json: {}",
            self.content_type(),
            self.text
        );
        assert_eq!(
            self.json["type"],
            format!("/problems/{slug}"),
            "{}",
            self.text
        );
        assert_eq!(self.json["status"], status, "{}", self.text);
        assert!(self.json["title"].is_string(), "{}", self.text);
        assert!(
            self.json["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{}",
            self.text
        );
        &self.json
    }

    /// The `field`s of a validation problem's `errors`.
    pub fn error_fields(&self) -> Vec<String> {
        self.json["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["field"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A logged-in user.
#[derive(Debug, Clone)]
pub struct Login {
    pub user_id: String,
    pub username: String,
    pub access: String,
    pub refresh: String,
    pub session_id: String,
}

impl TestServer {
    /// A server with the test defaults.
    pub fn start(backend: Backend) -> TestServer {
        TestServer::start_with(backend, &[])
    }

    /// A server with some settings changed (environment-variable names and values).
    pub fn start_with(backend: Backend, overrides: &[(&str, &str)]) -> TestServer {
        let (db, database_url) = TestDb::create(backend);
        TestServer::boot(backend, db, database_url, overrides, None)
    }

    /// A server whose commands and workers take their time from `clock`.
    pub fn start_with_clock(
        backend: Backend,
        overrides: &[(&str, &str)],
        clock: Arc<dyn Clock>,
    ) -> TestServer {
        let (db, database_url) = TestDb::create(backend);
        TestServer::boot(backend, db, database_url, overrides, Some(clock))
    }

    /// A server on a database it does not own (several may share one).
    pub fn start_on(db: &FreshDatabase) -> TestServer {
        TestServer::boot(db.backend, TestDb::Borrowed, db.url.clone(), &[], None)
    }

    /// [`TestServer::start_on`] with settings and, optionally, a clock.
    pub fn start_on_with(
        db: &FreshDatabase,
        overrides: &[(&str, &str)],
        clock: Option<Arc<dyn Clock>>,
    ) -> TestServer {
        TestServer::boot(
            db.backend,
            TestDb::Borrowed,
            db.url.clone(),
            overrides,
            clock,
        )
    }

    fn boot(
        backend: Backend,
        db: TestDb,
        database_url: String,
        overrides: &[(&str, &str)],
        clock: Option<Arc<dyn Clock>>,
    ) -> TestServer {
        let mut vars: Vec<(String, String)> = vec![
            ("DATABASE_URL".into(), database_url.clone()),
            ("DJAMBI_LISTEN".into(), "127.0.0.1:0".into()),
            ("DJAMBI_JWT_SECRET".into(), TEST_JWT_SECRET.into()),
            ("DJAMBI_WORKERS".into(), "2".into()),
            ("DJAMBI_DB_POOL_SIZE".into(), "3".into()),
            ("DJAMBI_DB_TIMEOUT".into(), "3s".into()),
            // Cheap hashes for tests only; production keeps the argon2id defaults.
            ("DJAMBI_ARGON2_MEMORY_KIB".into(), "64".into()),
            ("DJAMBI_ARGON2_ITERATIONS".into(), "1".into()),
            // Every test client is 127.0.0.1; tests of the limit set their own.
            ("DJAMBI_REGISTER_LIMIT_PER_IP".into(), "100000/1m".into()),
            ("DJAMBI_MAX_CONNECTIONS_PER_ADDRESS".into(), "100000".into()),
            (
                "DJAMBI_PASSWORD_RESET_LIMIT_PER_IP".into(),
                "100000/1m".into(),
            ),
        ];
        for (k, v) in overrides {
            vars.retain(|(name, _)| name != k);
            vars.push((k.to_string(), v.to_string()));
        }
        let config = djambi_api::config::Config::from_lookup(|name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
        .unwrap_or_else(|e| panic!("test configuration: {e}"));

        let (tx, rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let system = actix_web::rt::System::new();
            system.block_on(async move {
                let started = match clock {
                    Some(clock) => djambi_api::start_with_clock(config, clock).await,
                    None => djambi_api::start(config).await,
                };
                match started {
                    Ok(server) => {
                        let _ = tx.send(Ok((server.addr, server.smtp_addr, server.handle())));
                        let _ = server.wait().await;
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                    }
                }
            });
        });
        let (addr, smtp_addr, handle) = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                db.destroy();
                panic!("the server did not start: {e}")
            }
            Err(e) => {
                db.destroy();
                panic!("the server did not start in time: {e}")
            }
        };
        let client = Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("HTTP client");
        TestServer {
            base: format!("http://{addr}"),
            smtp_addr,
            backend,
            database_url,
            client,
            handle: Some(handle),
            thread: Some(thread),
            db,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request builder for anything the helpers do not cover.
    pub fn request(&self, method: reqwest::Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// Sends a request and reads the whole response.
    #[track_caller]
    pub fn send(&self, rb: RequestBuilder) -> Resp {
        send(rb)
    }

    fn with_token(rb: RequestBuilder, token: Option<&str>) -> RequestBuilder {
        match token {
            Some(t) => rb.bearer_auth(t),
            None => rb,
        }
    }

    #[track_caller]
    pub fn get(&self, path: &str, token: Option<&str>) -> Resp {
        self.send(Self::with_token(
            self.request(reqwest::Method::GET, path),
            token,
        ))
    }

    #[track_caller]
    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Resp {
        self.send(Self::with_token(self.request(reqwest::Method::POST, path), token).json(body))
    }

    #[track_caller]
    pub fn patch(&self, path: &str, token: Option<&str>, body: &Value) -> Resp {
        self.send(Self::with_token(self.request(reqwest::Method::PATCH, path), token).json(body))
    }

    #[track_caller]
    pub fn delete(&self, path: &str, token: Option<&str>) -> Resp {
        self.send(Self::with_token(
            self.request(reqwest::Method::DELETE, path),
            token,
        ))
    }

    /// Registers `username` with [`PASSWORD`]; returns the profile.
    #[track_caller]
    pub fn register(&self, username: &str) -> Value {
        self.post(
            "/v1/accounts",
            None,
            &json!({"username": username, "email": format!("{username}@example.org"), "password": PASSWORD}),
        )
        .expect(201)
        .clone()
    }

    /// Logs in; panics unless it succeeds.
    #[track_caller]
    pub fn login(&self, username: &str, password: &str) -> Login {
        let r = self.post(
            "/v1/sessions",
            None,
            &json!({"username": username, "password": password}),
        );
        let b = r.expect(201);
        Login {
            user_id: b["user"]["id"].as_str().unwrap_or_default().into(),
            username: b["user"]["username"].as_str().unwrap_or_default().into(),
            access: b["access_token"].as_str().unwrap_or_default().into(),
            refresh: b["refresh_token"].as_str().unwrap_or_default().into(),
            session_id: b["session_id"].as_str().unwrap_or_default().into(),
        }
    }

    /// `who` with the tokens of a refresh of its session (`POST /v1/sessions/refresh`). An
    /// access token lasts 15 minutes of the server's clock: a test that moves a
    /// `ManualClock` on by more refreshes its logins, as their clients would.
    #[track_caller]
    pub fn refresh(&self, who: &Login) -> Login {
        let r = self.post(
            "/v1/sessions/refresh",
            None,
            &json!({"refresh_token": who.refresh}),
        );
        let b = r.expect(200);
        Login {
            access: b["access_token"].as_str().unwrap_or_default().into(),
            refresh: b["refresh_token"].as_str().unwrap_or_default().into(),
            ..who.clone()
        }
    }

    /// [`TestServer::refresh`] of every login.
    #[track_caller]
    pub fn refresh_all(&self, who: &[Login]) -> Vec<Login> {
        who.iter().map(|w| self.refresh(w)).collect()
    }

    /// Registers and logs in a user.
    #[track_caller]
    pub fn user(&self, username: &str) -> Login {
        self.register(username);
        self.login(username, PASSWORD)
    }

    /// Creates a personal access token with the given scopes; returns (id, token).
    #[track_caller]
    pub fn pat(&self, login: &Login, scopes: &[&str]) -> (String, String) {
        let r = self.post(
            "/v1/me/tokens",
            Some(&login.access),
            &json!({"name": "test token", "scopes": scopes}),
        );
        let b = r.expect(201);
        (
            b["id"].as_str().unwrap_or_default().into(),
            b["token"].as_str().unwrap_or_default().into(),
        )
    }

    /// Drops the database under the running server (PostgreSQL) to test readiness.
    pub fn break_database(&self) {
        self.db.destroy();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            actix_web::rt::System::new().block_on(handle.stop(false));
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.db.destroy();
    }
}

/// A small deterministic random source (xorshift64*), for random games in the tests and
/// the load generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// The workspace root (the browser drivers and scripts are found from it).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Runs a browser driver, `python3 tests/browser/<script> <args> --chromium PATH
/// --timeout 30`, in headless Chromium (installed by `scripts/ensure-chromium.sh` when
/// missing; if it cannot be, the test FAILS). Asserts the driver passed and returns
/// what it printed.
pub fn run_browser_driver(script: &str, args: &[&str]) -> String {
    use std::process::Command;
    let root = repo_root();
    let ensure = Command::new("bash")
        .arg(root.join("scripts/ensure-chromium.sh"))
        .current_dir(&root)
        .output()
        .expect("run scripts/ensure-chromium.sh");
    assert!(
        ensure.status.success(),
        "Chromium is required by this test and could not be installed by \
         scripts/ensure-chromium.sh ({}):\n{}",
        ensure.status,
        String::from_utf8_lossy(&ensure.stderr)
    );
    let chromium = String::from_utf8_lossy(&ensure.stdout).trim().to_string();
    assert!(!chromium.is_empty(), "ensure-chromium.sh printed no path");
    let run = Command::new("python3")
        .arg(root.join("tests/browser").join(script))
        .args(args)
        .args(["--chromium", &chromium, "--timeout", "30"])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("run python3 tests/browser/{script}: {e}"));
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "the browser test {script} failed ({}):\n{stdout}\n{stderr}",
        run.status
    );
    assert!(stdout.contains("ok: "), "{stdout}");
    stdout
}

/// Sends a request (with whatever client built it) and reads the whole response.
#[track_caller]
pub fn send(rb: RequestBuilder) -> Resp {
    let res = rb.send().unwrap_or_else(|e| panic!("request failed: {e}"));
    let status = res.status();
    let headers = res.headers().clone();
    let text = res.text().unwrap_or_default();
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Resp {
        status,
        headers,
        text,
        json,
    }
}
