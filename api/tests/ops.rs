//! Operations, checked without a Docker engine, on real `djambi-server` processes:
//!
//! - `compose.yaml` and the `Dockerfile`: every setting they name exists, health checks,
//!   a volume, a non-root user;
//! - the development JWT secret survives a restart (embedded SQLite default);
//! - request ids, problem+json `request_id`, JSON logs and `/metrics`;
//! - SIGTERM while clients play: the process drains and exits 0, and every move that was
//!   answered `201` is in the log;
//! - two processes on one PostgreSQL database, playing whole games through both
//!   alternately: no lost or doubled event, every state equal to the replay.
//!
//! The PostgreSQL tests use `DJAMBI_TEST_PG_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`) and create (and drop) their own database.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use diesel::{Connection, PgConnection, RunQueryDsl};
use djambi_api::config::SETTINGS;
use domain::{Action, Game, GameSettings, Move, Ruleset, SeatSet};
use reqwest::blocking::Client;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_djambi-server");
const SECRET: &str = "ops-test-secret-0123456789-abcdefghijklmnop";
const PASSWORD: &str = "correct horse battery";
const SEATS: [&str; 4] = ["R", "B", "Y", "G"];
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

// ---------------------------------------------------------------------------------------
// compose.yaml and the Dockerfile
// ---------------------------------------------------------------------------------------

fn is_setting_name(name: &str) -> bool {
    name.starts_with("DJAMBI_") || name == "DATABASE_URL" || name == "RUST_LOG"
}

/// Every variable that looks like a server setting in `compose.yaml` is one; the services
/// the issue asks for are there, with health checks, a persistent volume and the settings
/// production needs.
#[test]
fn compose_file_names_only_known_settings() {
    let text = std::fs::read_to_string(Path::new(REPO).join("compose.yaml")).unwrap();
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("compose.yaml is YAML");
    let services = doc["services"].as_mapping().expect("services");
    let known: BTreeSet<&str> = SETTINGS.iter().map(|s| s.env).collect();

    let mut named = BTreeSet::new();
    for (name, service) in services {
        let name = name.as_str().unwrap();
        assert!(
            service["healthcheck"]["test"].is_sequence()
                || service["healthcheck"]["test"].is_string(),
            "service {name} has no health check"
        );
        let env = &service["environment"];
        let vars: Vec<String> = match env {
            serde_yaml::Value::Mapping(m) => {
                m.keys().map(|k| k.as_str().unwrap().to_string()).collect()
            }
            serde_yaml::Value::Sequence(s) => s
                .iter()
                .map(|v| v.as_str().unwrap().split('=').next().unwrap().to_string())
                .collect(),
            _ => vec![],
        };
        for var in vars.into_iter().filter(|v| is_setting_name(v)) {
            assert!(
                known.contains(var.as_str()),
                "compose.yaml service {name} sets {var}, which is not a setting of the server"
            );
            named.insert(var);
        }
    }
    // The settings a production deployment must set are all set by the server service.
    let server_env = &doc["services"]["server"]["environment"];
    for s in SETTINGS
        .iter()
        .filter(|s| s.production == djambi_api::config::Production::Required)
    {
        assert!(
            server_env.get(s.env).is_some(),
            "compose.yaml's server does not set {}, which production requires",
            s.env
        );
    }
    assert!(
        server_env["DATABASE_URL"]
            .as_str()
            .unwrap()
            .starts_with("postgres://"),
        "the server runs on PostgreSQL"
    );
    assert_eq!(server_env["DJAMBI_LISTEN"].as_str(), Some("0.0.0.0:8080"));
    // PostgreSQL keeps its data in a named volume; a mail catcher is there.
    let db = &doc["services"]["db"];
    assert!(db["image"].as_str().unwrap().starts_with("postgres:"));
    let volumes: Vec<&str> = db["volumes"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        volumes
            .iter()
            .any(|v| v.ends_with(":/var/lib/postgresql/data")),
        "{volumes:?}"
    );
    let volume_name = volumes[0].split(':').next().unwrap();
    assert!(
        doc["volumes"].get(volume_name).is_some(),
        "volume {volume_name} is declared"
    );
    assert!(services.keys().any(|k| k.as_str() == Some("mail")));
    // The server waits for a healthy database, and has longer than its grace to stop.
    assert_eq!(
        doc["services"]["server"]["depends_on"]["db"]["condition"].as_str(),
        Some("service_healthy")
    );
    assert!(doc["services"]["server"]["stop_grace_period"].is_string());
    assert!(named.contains("DJAMBI_JWT_SECRET"));
}

/// The runtime image runs as a non-root user that owns the data volume.
#[test]
fn dockerfile_runs_as_non_root() {
    let text = std::fs::read_to_string(Path::new(REPO).join("Dockerfile")).unwrap();
    let runtime = text
        .rsplit_once("\nFROM ")
        .map(|(_, last)| last)
        .expect("a multi-stage Dockerfile");
    let user = runtime
        .lines()
        .filter_map(|l| l.trim().strip_prefix("USER "))
        .next_back()
        .expect("the runtime stage sets USER");
    let uid = user.split(':').next().unwrap().trim();
    assert!(
        !["root", "0"].contains(&uid),
        "the runtime image runs as {user}"
    );
    assert!(runtime.contains("VOLUME /data"));
    assert!(
        runtime.contains(&format!("chown {uid}")),
        "/data belongs to {uid}"
    );
    // Every ENV the image sets is a setting.
    for line in runtime
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ENV "))
    {
        let name = line.split('=').next().unwrap().trim();
        assert!(SETTINGS.iter().any(|s| s.env == name), "ENV {name}");
    }
}

/// The image gets binaries without debug info: the build stage splits it off with
/// objcopy (the same commands, run here on the test build's server binary, which has line
/// tables), and the runtime stage copies the stripped files.
#[test]
fn dockerfile_ships_stripped_binaries() {
    let text = std::fs::read_to_string(Path::new(REPO).join("Dockerfile")).unwrap();
    let (build, runtime) = text
        .rsplit_once("\nFROM ")
        .expect("a multi-stage Dockerfile");
    assert!(build.contains("objcopy --only-keep-debug"), "{build}");
    assert!(build.contains("objcopy --strip-debug"), "{build}");
    assert!(
        build.contains("for b in djambi-server djambi;"),
        "both binaries"
    );
    assert!(
        runtime.contains("COPY --from=build /usr/local/bin/djambi-server /usr/local/bin/djambi")
    );
    let dir = std::env::temp_dir().join(format!("djambi-strip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let debug = dir.join("djambi-server.debug");
    let stripped = dir.join("djambi-server");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new("objcopy")
            .args(args)
            .output()
            .expect("objcopy");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "--only-keep-debug".as_ref(),
        BIN.as_ref(),
        debug.as_os_str(),
    ]);
    let link = format!("--add-gnu-debuglink={}", debug.display());
    run(&[
        "--strip-debug".as_ref(),
        link.as_ref(),
        BIN.as_ref(),
        stripped.as_os_str(),
    ]);
    let sections = |f: &Path| {
        let out = Command::new("readelf")
            .arg("-S")
            .arg(f)
            .output()
            .expect("readelf");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(
        sections(Path::new(BIN)).contains(".debug_line"),
        "the test build has line tables"
    );
    let s = sections(&stripped);
    assert!(
        !s.contains(".debug_line") && s.contains(".gnu_debuglink"),
        "{s}"
    );
    assert!(sections(&debug).contains(".debug_line"));
    let (full, small) = (
        std::fs::metadata(BIN).unwrap().len(),
        std::fs::metadata(&stripped).unwrap().len(),
    );
    assert!(small < full, "{small} < {full}");
    let out = Command::new(&stripped).arg("--help").output().unwrap();
    assert!(out.status.success(), "the stripped binary runs");
    eprintln!("djambi-server (test build): {full} bytes, {small} stripped");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Server processes
// ---------------------------------------------------------------------------------------

/// A fresh PostgreSQL database, dropped at the end.
struct PgDb {
    admin_url: String,
    name: String,
    url: String,
}

impl PgDb {
    fn new() -> PgDb {
        let admin_url = std::env::var("DJAMBI_TEST_PG_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let mut conn = PgConnection::establish(&admin_url).unwrap_or_else(|e| {
            panic!("PostgreSQL is required by this test and is not reachable at {admin_url}: {e}")
        });
        let name = format!("djambi_ops_{}", uuid::Uuid::new_v4().simple());
        diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .unwrap();
        let mut url = url::Url::parse(&admin_url).unwrap();
        url.set_path(&name);
        PgDb {
            admin_url,
            name,
            url: url.to_string(),
        }
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if let Ok(mut conn) = PgConnection::establish(&self.admin_url) {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ))
            .execute(&mut conn);
        }
    }
}

/// A `djambi-server` child process, logging JSON lines (kept for the test to read).
struct Server {
    child: Child,
    base: String,
    log: Arc<Mutex<Vec<Value>>>,
}

impl Server {
    /// Starts the binary with `vars` (plus test defaults unless overridden) in `dir`.
    fn start_in(dir: &Path, vars: &[(&str, &str)]) -> Server {
        let mut env: Vec<(String, String)> = vec![
            ("DJAMBI_LISTEN".into(), "127.0.0.1:0".into()),
            ("DJAMBI_LOG_FORMAT".into(), "json".into()),
            ("RUST_LOG".into(), "info".into()),
            ("DJAMBI_WORKERS".into(), "2".into()),
            ("DJAMBI_DB_POOL_SIZE".into(), "4".into()),
            ("DJAMBI_ARGON2_MEMORY_KIB".into(), "64".into()),
            ("DJAMBI_ARGON2_ITERATIONS".into(), "1".into()),
            ("DJAMBI_REGISTER_LIMIT_PER_IP".into(), "100000/1m".into()),
            ("DJAMBI_LOGIN_LIMIT_PER_IP".into(), "100000/1m".into()),
            ("DJAMBI_MAX_CONNECTIONS_PER_ADDRESS".into(), "100000".into()),
        ];
        for (k, v) in vars {
            env.retain(|(name, _)| name != k);
            env.push((k.to_string(), v.to_string()));
        }
        let mut child = Command::new(BIN)
            .env_clear()
            .envs(env)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start djambi-server");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let value: Value = serde_json::from_str(&line).unwrap_or(json!({"raw": line}));
                if let Some(rest) = value["message"]
                    .as_str()
                    .and_then(|m| m.strip_prefix("listening on "))
                {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
                sink.lock().unwrap().push(value);
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "the server did not start: {:?}",
                    log.lock().unwrap().iter().rev().take(5).collect::<Vec<_>>()
                )
            }
        };
        Server { child, base, log }
    }

    /// A server on `db` (PostgreSQL), with the shared test secret.
    fn start(db: &PgDb, vars: &[(&str, &str)]) -> Server {
        let mut all = vec![
            ("DATABASE_URL", db.url.as_str()),
            ("DJAMBI_JWT_SECRET", SECRET),
        ];
        all.extend_from_slice(vars);
        Server::start_in(&std::env::temp_dir(), &all)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{name}");
    }

    fn wait_exit(&mut self, within: Duration) -> ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit in {within:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn logged(&self, message: &str) -> bool {
        self.log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l["message"].as_str() == Some(message))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An answer, read whole.
struct Resp {
    status: u16,
    headers: reqwest::header::HeaderMap,
    json: Value,
}

impl Resp {
    #[track_caller]
    fn expect(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "{}", self.json);
        &self.json
    }
}

fn client() -> Client {
    Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

fn send(rb: reqwest::blocking::RequestBuilder) -> Result<Resp, reqwest::Error> {
    let res = rb.send()?;
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let text = res.text()?;
    Ok(Resp {
        status,
        headers,
        json: serde_json::from_str(&text).unwrap_or(Value::Null),
    })
}

fn get(c: &Client, srv: &Server, path: &str) -> Resp {
    send(c.get(srv.url(path))).unwrap()
}

fn post(c: &Client, srv: &Server, path: &str, token: &str, body: Value) -> Resp {
    send(c.post(srv.url(path)).bearer_auth(token).json(&body)).unwrap()
}

#[derive(Clone, Debug)]
struct Player {
    id: String,
    token: String,
}

/// Registers on `on`, logs in on `login_on` (the token works on every instance).
fn player(c: &Client, on: &Server, login_on: &Server, name: &str) -> Player {
    send(c.post(on.url("/v1/accounts")).json(&json!({
        "username": name, "email": format!("{name}@example.org"), "password": PASSWORD
    })))
    .unwrap()
    .expect(201);
    let r = send(
        c.post(login_on.url("/v1/sessions"))
            .json(&json!({"username": name, "password": PASSWORD})),
    )
    .unwrap();
    let b = r.expect(201);
    Player {
        id: b["user"]["id"].as_str().unwrap().into(),
        token: b["access_token"].as_str().unwrap().into(),
    }
}

/// A four-seat game with `players` seated R, B, Y, G; seats taken on alternate servers.
fn seated_game(c: &Client, servers: &[&Server], players: &[Player]) -> String {
    let g = post(
        c,
        servers[0],
        "/v1/games",
        &players[0].token,
        json!({"seats": 4, "seat": "R"}),
    );
    let id = g.expect(201)["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        let srv = servers[i % servers.len()];
        send(
            c.post(srv.url(&format!("/v1/games/{id}/seats/{seat}")))
                .bearer_auth(&players[i].token),
        )
        .unwrap()
        .expect(200);
    }
    id
}

/// xorshift64*, for random moves.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

fn all_events(c: &Client, srv: &Server, id: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = format!("/v1/games/{id}/events?limit=100");
    loop {
        let r = get(c, srv, &path);
        let page = r.expect(200);
        out.extend(page["items"].as_array().cloned().unwrap_or_default());
        match page["next"].as_str() {
            Some(next) => path = next.to_string(),
            None => return out,
        }
    }
}

fn replay(events: &[Value]) -> Game {
    let created = &events[0]["payload"];
    let settings = GameSettings {
        seats: SeatSet::from_letters(created["seats"].as_str().unwrap()).unwrap(),
        ruleset: Ruleset::from_id(created["ruleset"].as_str().unwrap()).unwrap(),
    };
    let mut actions = Vec::new();
    for e in events {
        match e["kind"].as_str().unwrap() {
            "move_played" => actions.push(Action::Move(
                serde_json::from_value(e["payload"]["move"].clone()).unwrap(),
            )),
            "resigned" => actions.push(Action::Resign(
                serde_json::from_value(e["payload"]["seat"].clone()).unwrap(),
            )),
            "ended" if e["payload"]["result"]["reason"] == "draw_agreed" => {
                actions.push(Action::AgreedDraw)
            }
            _ => {}
        }
    }
    Game::replay(settings, &actions).expect("the log replays").0
}

/// The log is numbered 1..=version with no gap or double; the states served at every version
/// (read from the servers in turn) and now equal the replay. Returns the events.
fn check_log(c: &Client, servers: &[&Server], id: &str) -> Vec<Value> {
    let events = all_events(c, servers[0], id);
    for srv in servers {
        assert_eq!(
            all_events(c, srv, id),
            events,
            "every instance serves one log"
        );
    }
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as i64).collect::<Vec<_>>(),
        "numbering of {id}"
    );
    for n in 1..=events.len() {
        let game = replay(&events[..n]);
        let srv = servers[n % servers.len()];
        let state = get(c, srv, &format!("/v1/games/{id}/state?at={n}"));
        assert_eq!(
            state.expect(200)["dfen"],
            game.position().to_string(),
            "state of {id} at {n}"
        );
    }
    let game = replay(&events);
    for srv in servers {
        let state = get(c, srv, &format!("/v1/games/{id}/state"));
        assert_eq!(state.expect(200)["dfen"], game.position().to_string());
        assert_eq!(state.json["version"], events.len() as i64);
        let summary = get(c, srv, &format!("/v1/games/{id}"));
        assert_eq!(summary.expect(200)["version"], events.len() as i64);
        let over = game.is_over();
        assert_eq!(
            summary.json["status"] == "finished",
            over,
            "{}",
            summary.json
        );
    }
    events
}

// ---------------------------------------------------------------------------------------
// The development secret, request ids, logs and metrics
// ---------------------------------------------------------------------------------------

/// `cargo run --release` twice: the second start accepts the first one's tokens.
#[test]
fn development_secret_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("djambi-ops-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = client();
    let token = {
        let mut srv = Server::start_in(&dir, &[]);
        let p = player(&c, &srv, &srv, "dev_alice");
        get(&c, &srv, "/healthz").expect(200);
        srv.signal("INT");
        assert!(srv.wait_exit(Duration::from_secs(20)).success());
        p.token
    };
    let secret: PathBuf = dir.join("data").join("jwt-secret");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", secret.display());
    }
    let srv = Server::start_in(&dir, &[]);
    send(c.get(srv.url("/v1/me")).bearer_auth(&token))
        .unwrap()
        .expect(200);
    drop(srv);
    let _ = std::fs::remove_dir_all(dir);
}

/// The embedded development default, started in an empty directory: `./data` is 0700 and
/// `djambi.sqlite`, `-wal` and `-shm` are 0600 whatever the umask; and the secret path
/// segments of mailed links (unsubscribe, e-mail verification, password reset tokens)
/// never reach the log, while the route template does.
#[test]
fn development_database_is_the_owners_and_link_tokens_are_not_logged() {
    let dir = std::env::temp_dir().join(format!("djambi-ops-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = client();
    let srv = Server::start_in(&dir, &[]);
    // A write, so the WAL is in use.
    player(&c, &srv, &srv, "perm_alice");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let data = dir.join("data");
        assert_eq!(mode(&data), 0o700, "{}", data.display());
        for name in [
            "djambi.sqlite",
            "djambi.sqlite-wal",
            "djambi.sqlite-shm",
            "jwt-secret",
        ] {
            let f = data.join(name);
            assert!(f.exists(), "{} exists", f.display());
            assert_eq!(mode(&f), 0o600, "{}", f.display());
        }
    }

    let secrets = [
        ("/v1/unsubscribe/", "u1.v0.SeCrEtUnSuBsCrIbE"),
        ("/v1/email-verification/", "SeCrEtVeRiFiCaTiOn"),
        ("/v1/password-resets/", "SeCrEtPaSsWoRdReSeT"),
    ];
    for (i, (path, token)) in secrets.iter().enumerate() {
        let url = srv.url(&format!("{path}{token}"));
        let r = send(c.get(&url).header("x-request-id", format!("secret-{i}"))).unwrap();
        assert!(r.status < 500, "{url}: {}", r.status);
        let r = send(c.post(&url).json(&json!({"new_password": PASSWORD}))).unwrap();
        assert!(r.status < 500, "{url}: {}", r.status);
    }
    std::thread::sleep(Duration::from_millis(300));
    let log = srv.log.lock().unwrap();
    for (i, (path, token)) in secrets.iter().enumerate() {
        for line in log.iter() {
            assert!(
                !line.to_string().contains(token),
                "a token in the log: {line}"
            );
        }
        // The request was logged, with its path redacted.
        let access = log
            .iter()
            .find(|l| {
                l["span"]["request_id"] == format!("secret-{i}") && l["target"] == "djambi::access"
            })
            .unwrap_or_else(|| panic!("no access line of {path}"));
        assert_eq!(
            access["span"]["path"],
            format!("{path}{{token}}"),
            "{access}"
        );
    }
    drop(log);
    drop(srv);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn request_ids_logs_and_metrics_pg() {
    let db = PgDb::new();
    let srv = Server::start(&db, &[("DJAMBI_METRICS_TOKEN", "metrics-token-0123456789")]);
    let c = client();

    // The client's id is echoed, in the header and in the problem.
    let r = send(c.get(srv.url("/nope")).header("x-request-id", "trace-42")).unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.headers["x-request-id"], "trace-42");
    assert_eq!(r.json["request_id"], "trace-42");
    assert_eq!(r.json["type"], "/problems/not-found");
    // Otherwise one is made; every kind of problem carries it.
    let cases = [
        c.post(srv.url("/v1/sessions")).json(&json!({})),
        c.get(srv.url("/v1/me")),
        c.put(srv.url("/v1/accounts")),
        c.post(srv.url("/v1/accounts"))
            .header("content-type", "application/json")
            .body(vec![b' '; 200_000]),
        c.post(srv.url("/v1/sessions"))
            .header("content-type", "text/plain")
            .body("x"),
    ];
    for rb in cases {
        let r = send(rb).unwrap();
        assert!(r.status >= 400, "{}", r.json);
        let id = r.headers["x-request-id"].to_str().unwrap().to_string();
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
        assert_eq!(r.json["request_id"], id, "{}", r.json);
    }
    // Successful answers carry the header, and their bodies are untouched.
    let r = get(&c, &srv, "/healthz");
    assert!(r.headers.contains_key("x-request-id"));
    assert_eq!(r.json, json!({"status": "ok"}));

    // A played move is counted; requests are labelled by route template.
    let players: Vec<Player> = (0..4)
        .map(|i| player(&c, &srv, &srv, &format!("metrics{i}")))
        .collect();
    let id = seated_game(&c, &[&srv], &players);
    let lm = get(&c, &srv, &format!("/v1/games/{id}/legal-moves"));
    let mv = lm.expect(200)["moves"][0]["text"].clone();
    let v = lm.json["version"].as_i64().unwrap();
    let first = players
        .iter()
        .find(|p| {
            get(&c, &srv, &format!("/v1/games/{id}")).json["to_move_user_id"] == p.id.as_str()
        })
        .unwrap();
    let body = json!({"move": mv, "expected_version": v});
    let key = ("Idempotency-Key", "ops-1");
    for _ in 0..2 {
        let r = send(
            c.post(srv.url(&format!("/v1/games/{id}/moves")))
                .bearer_auth(&first.token)
                .header(key.0, key.1)
                .json(&body),
        )
        .unwrap();
        r.expect(201);
    }

    // /metrics needs its token.
    assert_eq!(get(&c, &srv, "/metrics").status, 401);
    let text = c
        .get(srv.url("/metrics"))
        .bearer_auth("metrics-token-0123456789")
        .send()
        .unwrap()
        .text()
        .unwrap();
    for needle in [
        r#"djambi_http_requests_total{method="POST",route="/v1/games/{id}/moves",status="201"} 2"#,
        r#"djambi_http_requests_total{method="GET",route="unmatched",status="404"} 1"#,
        "djambi_moves_played_total 1",
        r#"djambi_games{status="active"} 1"#,
        r#"djambi_games{status="open"} 0"#,
        "djambi_db_pool_max_connections 4",
        r#"djambi_http_request_duration_seconds_bucket{method="GET",route="/v1/games/{id}/legal-moves",le="+Inf"} 1"#,
        "djambi_http_requests_in_flight",
        r#"djambi_db_pool_connections{state="idle"}"#,
    ] {
        assert!(text.contains(needle), "no {needle} in\n{text}");
    }
    assert!(!text.contains(&id), "raw paths are not labels");

    // JSON logs: each request's access line carries its request id.
    std::thread::sleep(Duration::from_millis(200));
    let log = srv.log.lock().unwrap();
    let line = log
        .iter()
        .find(|l| l["span"]["request_id"] == "trace-42" && l["target"] == "djambi::access")
        .unwrap_or_else(|| panic!("no access line for trace-42"));
    assert_eq!(line["status"], 404);
    assert_eq!(line["route"], "unmatched");
    drop(log);

    // Off means off.
    let off = Server::start(&db, &[("DJAMBI_METRICS", "off")]);
    assert_eq!(get(&c, &off, "/metrics").status, 404);
}

/// Reads an event stream on another thread until it ends; sends what it read then.
fn read_stream(c: &Client, url: String, token: Option<String>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let mut rb = c.get(url);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let res = rb.send().expect("open the stream");
    assert_eq!(res.status().as_u16(), 200);
    std::thread::spawn(move || {
        let mut text = String::new();
        let mut reader = BufReader::new(res);
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
            text.push_str(&line);
            line.clear();
        }
        let _ = tx.send(text);
    });
    rx
}

#[test]
fn open_event_streams_end_when_the_server_stops_pg() {
    let db = PgDb::new();
    let mut srv = Server::start(&db, &[("DJAMBI_SHUTDOWN_GRACE", "30s")]);
    let c = Client::builder().no_proxy().build().unwrap();
    let players: Vec<Player> = (0..4)
        .map(|i| player(&c, &srv, &srv, &format!("sse{i}")))
        .collect();
    let game = seated_game(&c, &[&srv], &players);
    let events = read_stream(
        &c,
        srv.url(&format!("/v1/games/{game}/stream?after=0")),
        None,
    );
    let feed = read_stream(
        &c,
        srv.url("/v1/me/notifications/stream"),
        Some(players[0].token.clone()),
    );
    std::thread::sleep(Duration::from_millis(500));
    let signalled = Instant::now();
    srv.signal("TERM");
    let status = srv.wait_exit(Duration::from_secs(25));
    let took = signalled.elapsed();
    assert!(status.success(), "exit status {status}");
    // The streams end with the drain instead of holding the stop for the whole grace.
    assert!(took < Duration::from_secs(10), "the stop took {took:?}");
    let events = events
        .recv_timeout(Duration::from_secs(5))
        .expect("the game stream ended");
    assert!(events.starts_with("retry: 2000"), "{events}");
    assert!(events.contains("event: created"), "{events}");
    assert!(events.contains("event: seat_taken"), "{events}");
    let feed = feed
        .recv_timeout(Duration::from_secs(5))
        .expect("the notification stream ended");
    assert!(feed.starts_with("retry: 2000"), "{feed}");
}

// ---------------------------------------------------------------------------------------
// SIGTERM under load
// ---------------------------------------------------------------------------------------

/// One HTTP/1.1 answer read off a raw connection: status, headers (names in lower case) and
/// the body as JSON (`Null` when it is not).
fn read_raw_answer(reader: &mut BufReader<std::net::TcpStream>) -> Resp {
    use std::io::Read;
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status: u16 = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("status line {line:?}"));
    let mut headers = reqwest::header::HeaderMap::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (name, value) = l.split_once(':').unwrap_or_else(|| panic!("header {l:?}"));
        headers.append(
            reqwest::header::HeaderName::from_bytes(name.trim().to_ascii_lowercase().as_bytes())
                .unwrap(),
            value.trim().parse().unwrap(),
        );
    }
    let len: usize = headers
        .get("content-length")
        .map_or(0, |v| v.to_str().unwrap().parse().unwrap());
    let mut body = vec![0; len];
    reader.read_exact(&mut body).unwrap();
    Resp {
        status,
        headers,
        json: serde_json::from_slice(&body).unwrap_or(Value::Null),
    }
}

/// A move answered 201: the game, the sequence number of its event, the move.
type Acked = (String, i64, Value, Instant);

#[test]
fn sigterm_under_load_loses_no_acknowledged_move_pg() {
    let db = PgDb::new();
    let mut srv = Server::start(&db, &[("DJAMBI_SHUTDOWN_GRACE", "10s")]);
    let c = client();
    let players: Vec<Player> = (0..4)
        .map(|i| player(&c, &srv, &srv, &format!("load{i}")))
        .collect();
    let games: Vec<String> = (0..4).map(|_| seated_game(&c, &[&srv], &players)).collect();
    // One more game, for a move whose request is in flight when SIGTERM arrives.
    let slow_game = seated_game(&c, &[&srv], &players);

    let acked: Arc<Mutex<Vec<Acked>>> = Arc::default();
    let failures = Arc::new(Mutex::new(Vec::<(Instant, String)>::new()));
    let give_up = Arc::new(AtomicBool::new(false));
    let base = srv.base.clone();
    let clients: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(n, id)| {
            let (id, base, players) = (id.clone(), base.clone(), players.clone());
            let (acked, failures, give_up) = (acked.clone(), failures.clone(), give_up.clone());
            std::thread::spawn(move || {
                let c = client();
                let mut rng = Rng(0x5eed + n as u64);
                // Any failure to reach the server ends this client (its request was not
                // acknowledged, so it may or may not have been written).
                let fail = |e: reqwest::Error| {
                    failures
                        .lock()
                        .unwrap()
                        .push((Instant::now(), format!("{e:?}")));
                };
                while !give_up.load(Ordering::Relaxed) {
                    let s = match send(c.get(format!("{base}/v1/games/{id}"))) {
                        Ok(s) if s.status == 200 => s.json,
                        Ok(s) if s.status == 503 => continue,
                        Ok(s) => panic!("summary: {} {}", s.status, s.json),
                        Err(e) => return fail(e),
                    };
                    if s["status"] != "active" {
                        return;
                    }
                    let v = s["version"].as_i64().unwrap();
                    let who = players
                        .iter()
                        .find(|p| s["to_move_user_id"] == p.id.as_str());
                    let lm =
                        match send(c.get(format!("{base}/v1/games/{id}/legal-moves?limit=2000"))) {
                            Ok(r) if r.status == 200 => r.json,
                            Ok(r) if r.status == 503 => continue,
                            Ok(r) => panic!("legal moves: {} {}", r.status, r.json),
                            Err(e) => return fail(e),
                        };
                    let moves = lm["moves"].as_array().unwrap();
                    let pick = moves[rng.below(moves.len())]["move"].clone();
                    let r = send(
                        c.post(format!("{base}/v1/games/{id}/moves"))
                            .bearer_auth(&who.unwrap().token)
                            .json(&json!({"move": pick, "expected_version": v})),
                    );
                    match r {
                        Ok(r) if r.status == 201 => {
                            acked
                                .lock()
                                .unwrap()
                                .push((id.clone(), v + 1, pick, Instant::now()));
                        }
                        Ok(r) if r.status == 503 => {}
                        Ok(r) => panic!("move: {} {}", r.status, r.json),
                        Err(e) => return fail(e),
                    }
                }
            })
        })
        .collect();

    // Let the load build up, then SIGTERM.
    let deadline = Instant::now() + Duration::from_secs(60);
    while acked.lock().unwrap().len() < 40 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = acked.lock().unwrap().len();
    assert!(before >= 40, "only {before} moves in a minute");

    // A move whose body is still arriving when the signal comes: it must be answered.
    let s = get(&c, &srv, &format!("/v1/games/{slow_game}"));
    let v = s.expect(200)["version"].as_i64().unwrap();
    let who = players
        .iter()
        .find(|p| s.json["to_move_user_id"] == p.id.as_str())
        .unwrap()
        .clone();
    let lm = get(&c, &srv, &format!("/v1/games/{slow_game}/legal-moves"));
    let slow_move = lm.expect(200)["moves"][0]["move"].clone();
    let body = serde_json::to_vec(&json!({"move": slow_move, "expected_version": v})).unwrap();
    // On a raw connection the server has already answered once (so it was accepted before
    // the signal, however loaded the machine): the head and ten bytes of the body, a pause,
    // then the rest.
    let conn = std::net::TcpStream::connect(srv.base.trim_start_matches("http://")).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut writer = conn;
    let host = srv.base.trim_start_matches("http://").to_string();
    write!(writer, "GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    assert_eq!(read_raw_answer(&mut reader).status, 200);
    write!(
        writer,
        "POST /v1/games/{slow_game}/moves HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        who.token,
        body.len()
    )
    .unwrap();
    writer.write_all(&body[..10]).unwrap();
    writer.flush().unwrap();
    let slow = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(2));
        writer.write_all(&body[10..]).unwrap();
        writer.flush().unwrap();
        read_raw_answer(&mut reader)
    });
    std::thread::sleep(Duration::from_millis(300));

    let signalled = Instant::now();
    srv.signal("TERM");
    let slow = slow.join().expect("the request in flight is answered");
    assert_eq!(slow.status, 201, "{}", slow.json);
    assert!(
        signalled.elapsed() > Duration::from_secs(1),
        "it was in flight"
    );
    assert_eq!(
        slow.headers.get("connection").map(|v| v.to_str().unwrap()),
        Some("close"),
        "answers sent while draining close their connection"
    );
    let status = srv.wait_exit(Duration::from_secs(20));
    let took = signalled.elapsed();
    give_up.store(true, Ordering::Relaxed);
    for t in clients {
        t.join().expect("a client panicked");
    }
    assert!(status.success(), "exit status {status}");
    assert!(took < Duration::from_secs(10), "the drain took {took:?}");
    assert!(srv.logged("background workers stopped"));
    // Before the signal, nothing failed.
    let failures = failures.lock().unwrap().clone();
    assert!(
        failures.iter().all(|(at, _)| *at > signalled),
        "{failures:?}"
    );

    // Every acknowledged move is in the log, where its answer said.
    let acked = acked.lock().unwrap().clone();
    let after = acked.iter().filter(|a| a.3 > signalled).count();
    eprintln!(
        "{} moves acknowledged ({after} after SIGTERM); the server stopped in {took:?}",
        acked.len()
    );
    let srv = Server::start(&db, &[]);
    let events = check_log(&c, &[&srv], &slow_game);
    assert_eq!(
        events.len() as i64,
        v + 1,
        "the slow move is the last event"
    );
    let logged: Move =
        serde_json::from_value(events[v as usize]["payload"]["move"].clone()).unwrap();
    assert_eq!(logged, serde_json::from_value::<Move>(slow_move).unwrap());
    for id in &games {
        let events = check_log(&c, &[&srv], id);
        for (_, seq, mv, _) in acked.iter().filter(|a| &a.0 == id) {
            let e = &events[*seq as usize - 1];
            assert_eq!(e["kind"], "move_played", "{e}");
            let logged: Move = serde_json::from_value(e["payload"]["move"].clone()).unwrap();
            let sent: Move = serde_json::from_value(mv.clone()).unwrap();
            assert_eq!(logged, sent, "event {seq} of {id}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Two instances on one database
// ---------------------------------------------------------------------------------------

/// Plies after which a game is finished by resignations.
const MAX_PLIES: usize = 300;

#[test]
fn two_instances_play_whole_games_alternately_pg() {
    let db = PgDb::new();
    // Both start (and migrate) at once.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| Server::start(&db, &[]));
        let b = s.spawn(|| Server::start(&db, &[]));
        (a.join().unwrap(), b.join().unwrap())
    });
    let servers = [&a, &b];
    let c = client();
    // Registered on one, logged in on the other.
    let players: Vec<Player> = (0..4)
        .map(|i| player(&c, servers[i % 2], servers[(i + 1) % 2], &format!("two{i}")))
        .collect();
    let mut rng = Rng(0x2_1257);
    let mut races = 0;
    for g in 0..2 {
        let id = seated_game(&c, &[servers[g % 2], servers[(g + 1) % 2]], &players);
        let mut ply = 0;
        loop {
            // Read on one instance, move on the other (turn by turn).
            let reader = servers[ply % 2];
            let writer = servers[(ply + 1) % 2];
            let s = get(&c, reader, &format!("/v1/games/{id}"));
            let s = s.expect(200).clone();
            if s["status"] != "active" {
                break;
            }
            let v = s["version"].as_i64().unwrap();
            if ply >= MAX_PLIES {
                // Long game: the seats resign, alternately on each instance.
                for (i, p) in players.iter().enumerate() {
                    let r = post(
                        &c,
                        servers[i % 2],
                        &format!("/v1/games/{id}/resignation"),
                        &p.token,
                        json!({}),
                    );
                    assert!(r.status == 201 || r.status == 409, "{}", r.json);
                }
                let s = get(&c, servers[ply % 2], &format!("/v1/games/{id}"));
                assert_eq!(s.expect(200)["status"], "finished");
                break;
            }
            let who = players
                .iter()
                .find(|p| s["to_move_user_id"] == p.id.as_str())
                .unwrap();
            let lm = get(
                &c,
                reader,
                &format!("/v1/games/{id}/legal-moves?limit=2000"),
            );
            assert_eq!(lm.expect(200)["version"], v, "the reader is up to date");
            let moves = lm.json["moves"].as_array().unwrap();
            let pick = moves[rng.below(moves.len())]["move"].clone();
            let path = format!("/v1/games/{id}/moves");
            let body = json!({"move": pick, "expected_version": v});
            if ply % 5 == 4 {
                // The same move sent to both instances at once: one event, one 412.
                races += 1;
                let statuses: Vec<u16> = std::thread::scope(|s| {
                    let hs: Vec<_> = servers
                        .iter()
                        .map(|srv| {
                            let (c, body, path) = (&c, body.clone(), path.clone());
                            s.spawn(move || post(c, srv, &path, &who.token, body).status)
                        })
                        .collect();
                    hs.into_iter().map(|h| h.join().unwrap()).collect()
                });
                // One is written; the other finds the game moved on (or, rarely, busy).
                assert_eq!(
                    statuses.iter().filter(|s| **s == 201).count(),
                    1,
                    "{statuses:?}"
                );
                assert!(
                    statuses.iter().all(|s| [201, 412, 503].contains(s)),
                    "{statuses:?}"
                );
            } else {
                let r = post(&c, writer, &path, &who.token, body);
                let b = r.expect(201);
                assert!(b["version"].as_i64().unwrap() > v);
            }
            // The other instance sees the move at once.
            let after = get(&c, reader, &format!("/v1/games/{id}/state"));
            assert!(after.expect(200)["version"].as_i64().unwrap() > v);
            ply += 1;
        }
        let events = check_log(&c, &servers, &id);
        eprintln!(
            "game {g}: {ply} plies, {} events, replayed on both instances",
            events.len()
        );
    }
    assert!(races > 0);
}

/// The `due_lease_until` of a game, read straight from the database (`None`: not claimed).
fn due_lease(db: &PgDb, id: &str) -> Option<chrono::NaiveDateTime> {
    #[derive(diesel::QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamp>)]
        due_lease_until: Option<chrono::NaiveDateTime>,
    }
    let mut conn = PgConnection::establish(&db.url).unwrap();
    diesel::sql_query("SELECT due_lease_until FROM games WHERE id = $1")
        .bind::<diesel::sql_types::Text, _>(id)
        .get_result::<Row>(&mut conn)
        .unwrap()
        .due_lease_until
}

/// An instance killed (SIGKILL) while it holds a game's lease and searches its bot move:
/// another instance takes the game over once the short lease has run out, within a few
/// seconds, and the log goes on with no gap or double.
#[test]
fn a_crashed_instances_claimed_game_is_taken_over_within_seconds_pg() {
    let db = PgDb::new();
    let lease = Duration::from_secs(3);
    let vars = [
        ("DJAMBI_DUE_LEASE", "3s"),
        ("DJAMBI_DUE_INTERVAL", "200ms"),
        ("DJAMBI_BOT_ONLY_PLIES_PER_SEC", "1000"),
        ("DJAMBI_BOT_DELAY", "0s"),
        ("DJAMBI_BOT_DRAW_PLIES", "100000"),
    ];
    let mut a = Server::start(&db, &vars);
    let c = client();
    let ann = player(&c, &a, &a, "crash0");
    // Four level-5 bots: each reply is a search of up to two seconds, during which the
    // instance holds (and renews) the game's lease.
    let g = post(
        &c,
        &a,
        "/v1/games",
        &ann.token,
        json!({"seats": 4, "bots": [
            {"seat": "R", "level": 5}, {"seat": "B", "level": 5},
            {"seat": "Y", "level": 5}, {"seat": "G", "level": 5}]}),
    );
    let id = g.expect(201)["id"].as_str().unwrap().to_string();
    let version = |srv: &Server| get(&c, srv, &format!("/v1/games/{id}")).json["version"].as_i64();

    // Wait until the bots play and the lease is held at this moment, then kill.
    let deadline = Instant::now() + Duration::from_secs(60);
    let killed_at = loop {
        assert!(Instant::now() < deadline, "the bots never held the lease");
        let now = chrono::Utc::now().naive_utc();
        if version(&a).unwrap_or(0) >= 3 && due_lease(&db, &id).is_some_and(|l| l > now) {
            a.child.kill().unwrap();
            a.child.wait().unwrap();
            break Instant::now();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let held_until = due_lease(&db, &id).expect("the dead instance's lease is still there");

    let b = Server::start(&db, &vars);
    let v_killed = version(&b).unwrap();
    // The game moves on through the second instance: after the lease ran out, within the
    // lease, one search and the due interval.
    let deadline = killed_at + lease + Duration::from_secs(2) + Duration::from_secs(4);
    let taken_over = loop {
        if version(&b).unwrap() > v_killed {
            break Instant::now();
        }
        assert!(
            Instant::now() < deadline,
            "no move {:?} after the crash (version {v_killed})",
            killed_at.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let after = taken_over - killed_at;
    eprintln!(
        "taken over {after:?} after the crash (lease held until {held_until}, version {v_killed})"
    );
    assert!(
        chrono::Utc::now().naive_utc() >= held_until,
        "nobody claims a lease that is still held"
    );
    // A few more plies, then the log is whole.
    let until = Instant::now() + Duration::from_secs(20);
    while version(&b).unwrap() < v_killed + 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
    }
    let events = check_log(&c, &[&b], &id);
    assert!(events.len() as i64 > v_killed);
}

/// Reads an event stream on another thread and sends each `id: ` line as it comes.
fn stream_ids(c: &Client, url: String, token: Option<String>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let mut rb = c.get(url);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let res = rb.send().expect("open the stream");
    assert_eq!(res.status().as_u16(), 200);
    std::thread::spawn(move || {
        for line in BufReader::new(res).lines().map_while(Result::ok) {
            if let Some(id) = line.strip_prefix("id: ") {
                if tx.send(id.to_string()).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// An instance killed (SIGKILL) between a move's commit and its signal to the other
/// instances (held back here by a long `DJAMBI_SIGNAL_EVERY`): streams on another
/// instance still get the move and its notification, from their instance's periodic
/// re-read, within `DJAMBI_LIVE_RECHECK`; once, in order.
#[test]
fn a_signal_lost_with_its_instance_is_made_up_by_the_recheck_pg() {
    let db = PgDb::new();
    let mut a = Server::start(&db, &[("DJAMBI_SIGNAL_EVERY", "10m")]);
    let b = Server::start(&db, &[("DJAMBI_LIVE_RECHECK", "1s")]);
    let c = client();
    let players: Vec<Player> = (0..4)
        .map(|i| player(&c, &a, &a, &format!("lost{i}")))
        .collect();
    let id = seated_game(&c, &[&a], &players);
    let lm = get(&c, &a, &format!("/v1/games/{id}/legal-moves"));
    let mv = lm.expect(200)["moves"][0]["text"].clone();
    let v = lm.json["version"].as_i64().unwrap();
    let state = get(&c, &a, &format!("/v1/games/{id}")).json;
    let first = players
        .iter()
        .position(|p| state["to_move_user_id"] == p.id.as_str())
        .unwrap();
    let game_on_b = stream_ids(&c, b.url(&format!("/v1/games/{id}/stream")), None);
    // The others' notification streams: the move tells the next player it is their turn.
    let feeds_on_b: Vec<_> = (0..4)
        .filter(|i| *i != first)
        .map(|i| {
            stream_ids(
                &c,
                b.url("/v1/me/notifications/stream"),
                Some(players[i].token.clone()),
            )
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));

    post(
        &c,
        &a,
        &format!("/v1/games/{id}/moves"),
        &players[first].token,
        json!({"move": mv, "expected_version": v}),
    )
    .expect(201);
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let killed = Instant::now();

    // The bound: the re-read interval, plus a read and the test's own slack.
    let bound = Duration::from_secs(1) + Duration::from_secs(2);
    let got = game_on_b
        .recv_timeout(bound)
        .expect("the move reached the stream on the other instance");
    assert_eq!(got, (v + 1).to_string());
    let mut notes = 0;
    while notes == 0 && killed.elapsed() < bound + Duration::from_millis(500) {
        notes += feeds_on_b.iter().filter(|f| f.try_recv().is_ok()).count();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        notes, 1,
        "the next player's notification reached the other instance"
    );
    eprintln!("arrived {:?} after the kill", killed.elapsed());
    // Once: nothing more arrives with the next re-reads.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(game_on_b.try_recv().is_err());
    assert!(feeds_on_b.iter().all(|f| f.try_recv().is_err()));
}
