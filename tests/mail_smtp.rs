//! Moves by mail through the server's own SMTP listener (`DJAMBI_SMTP_LISTEN`) with
//! `DJAMBI_MAIL_AUTH=aligned`: real SMTP clients (lettre, and a raw socket for the
//! protocol's corners), mails signed with DKIM by test keys (mail-auth), whose DNS
//! records (and SPF) a test DNS server answers (`DJAMBI_MAIL_DNS`).

#[path = "support/dns.rs"]
mod dns;
#[path = "support/games.rs"]
mod games;
#[path = "support/inbound.rs"]
mod inbound;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use djambi_e2e::{Backend, Login, ManualClock, TestServer, Value, backend_tests, json};
use dns::TestDns;
use games::*;
use inbound::{SECRET, deliver as deliver_http, reply as raw};
use lettre::Transport;
use lettre::address::Envelope;
use mail_auth::common::crypto::Ed25519Key;
use mail_auth::common::headers::HeaderWriter;
use mail_auth::dkim::DkimSigner;
use smtp_sink::{SmtpSink, address_of as email, verified_players as players};
const DOMAIN: &str = "play.djambi.example";

/// A DKIM key of `example.org` (the players' domain), published by the test DNS.
struct Keys {
    der: Vec<u8>,
}

impl Keys {
    fn new(dns: &TestDns) -> Keys {
        let der = Ed25519Key::generate_pkcs8().unwrap();
        let public = Ed25519Key::from_pkcs8_der(&der).unwrap().public_key();
        let p = base64::engine::general_purpose::STANDARD.encode(public);
        dns.txt(
            "s1._domainkey.example.org",
            &format!("v=DKIM1; k=ed25519; p={p}"),
        );
        // SPF: mail from example.org comes from 127.0.0.1 only.
        dns.txt("example.org", "v=spf1 ip4:127.0.0.1 -all");
        Keys { der }
    }

    /// The message with a DKIM-Signature of example.org in front.
    fn sign(&self, raw: &str) -> String {
        let key = Ed25519Key::from_pkcs8_der(&self.der).unwrap();
        let sig = DkimSigner::from_key(key)
            .domain("example.org")
            .selector("s1")
            .headers(["From", "To", "Subject", "Message-ID", "Content-Type"])
            .sign(raw.as_bytes())
            .unwrap();
        format!("{}{raw}", sig.to_header())
    }
}

fn start(backend: Backend, sink: &SmtpSink, dns: &TestDns, extra: &[(&str, &str)]) -> TestServer {
    start_clocked(backend, sink, dns, extra, None)
}

fn start_clocked(
    backend: Backend,
    sink: &SmtpSink,
    dns: &TestDns,
    extra: &[(&str, &str)],
    clock: Option<Arc<ManualClock>>,
) -> TestServer {
    let dns_addr = dns.addr.to_string();
    let mut vars = sink.server_settings(&[
        ("DJAMBI_MAIL_DOMAIN", DOMAIN),
        ("DJAMBI_MAIL_AUTH", "aligned"),
        ("DJAMBI_MAIL_DNS", &dns_addr),
        ("DJAMBI_SMTP_LISTEN", "127.0.0.1:0"),
        ("DJAMBI_INBOUND_MAIL_SECRET", SECRET),
    ]);
    vars.extend_from_slice(extra);
    match clock {
        Some(c) => TestServer::start_with_clock(backend, &vars, c),
        None => TestServer::start_with(backend, &vars),
    }
}

/// The reply address of the latest turn mail of `who` about game `id` (at least `n`).
fn reply_to(sink: &SmtpSink, who: &Login, id: &str, n: usize) -> String {
    let r = smtp_sink::turn_reply_address(sink, who, id, n);
    assert!(r.ends_with(DOMAIN), "{r}");
    r
}

/// Sends with lettre; the server's last answer (`Ok` text or the error).
fn lettre_send(
    srv: &TestServer,
    mail_from: Option<&str>,
    to: &str,
    message: &str,
) -> Result<String, String> {
    let addr = srv.smtp_addr.expect("the SMTP listener");
    let transport = lettre::SmtpTransport::builder_dangerous(addr.ip().to_string())
        .port(addr.port())
        .timeout(Some(Duration::from_secs(30)))
        .build();
    let envelope = Envelope::new(
        mail_from.map(|f| f.parse().unwrap()),
        vec![to.parse().unwrap()],
    )
    .unwrap();
    transport
        .send_raw(&envelope, message.as_bytes())
        .map(|r| {
            let text = r.message().collect::<Vec<_>>().join(" ");
            text.strip_prefix("2.0.0 ").unwrap_or(&text).to_string()
        })
        .map_err(|e| e.to_string())
}

/// A raw SMTP conversation, line by line.
struct Raw {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Raw {
    /// Connects from `source` (any 127/8 address is this machine), expecting `220`.
    fn connect(to: SocketAddr, source: &str) -> Raw {
        let (raw, greeting) = Raw::open(to, source);
        assert!(greeting.starts_with("220 "), "{greeting}");
        raw
    }

    /// Connects from `source`; the connection and the server's first reply.
    fn open(to: SocketAddr, source: &str) -> (Raw, String) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let stream = rt.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
            socket.connect(to).await.unwrap().into_std().unwrap()
        });
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let writer = stream.try_clone().unwrap();
        let mut raw = Raw {
            reader: BufReader::new(stream),
            writer,
        };
        let greeting = raw.reply();
        (raw, greeting)
    }

    /// The next reply (all its lines).
    fn reply(&mut self) -> String {
        let mut all = String::new();
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).unwrap_or(0) == 0 {
                return all;
            }
            all.push_str(&line);
            if line.len() < 4 || line.as_bytes()[3] != b'-' {
                return all;
            }
        }
    }

    fn cmd(&mut self, line: &str) -> String {
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .unwrap();
        self.reply()
    }
}

/// A number the server's own database answers (`SELECT ... AS n`).
fn db_number(srv: &TestServer, sql: &str) -> i64 {
    use diesel::prelude::*;
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let q = diesel::sql_query(sql);
    let rows: Vec<N> = if srv.backend == Backend::Postgres {
        let mut c = diesel::PgConnection::establish(&srv.database_url).unwrap();
        q.load(&mut c).unwrap()
    } else {
        let path = srv.database_url.trim_start_matches("sqlite://");
        let mut c = diesel::SqliteConnection::establish(path).unwrap();
        diesel::sql_query("PRAGMA busy_timeout = 10000")
            .execute(&mut c)
            .unwrap();
        q.load(&mut c).unwrap()
    };
    rows[0].n
}

fn wait_until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `header` put below the last header line of `message` (after a DKIM signature was made:
/// the signature does not cover it).
fn add_header(message: &str, header: &str) -> String {
    message.replacen("\r\n\r\n", &format!("\r\n{header}\r\n\r\n"), 1)
}

fn metric(srv: &TestServer, needle: &str) -> bool {
    let r = srv.get("/metrics", None);
    r.text.lines().any(|l| l.starts_with(needle))
}

/// The protocol: greeting, EHLO with SIZE, order of commands, unknown recipients refused
/// at RCPT, SIZE enforced at MAIL and after DATA, line limits, RSET, NOOP, QUIT, the idle
/// timeout.
fn the_listener_speaks_smtp(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let srv = start(backend, &sink, &dns, &[]);
    let p = players(&srv, &sink, "sp");
    let id = seat_all(&srv, &p);
    let addr = reply_to(&sink, &p[0], &id, 1);
    let smtp = srv.smtp_addr.unwrap();
    let mut c = Raw::connect(smtp, "127.0.0.1");
    assert!(c.cmd("MAIL FROM:<a@example.org>").starts_with("503 "));
    let ehlo = c.cmd("EHLO client.example");
    assert!(ehlo.starts_with("250-"), "{ehlo}");
    assert!(ehlo.contains("SIZE 1048576"), "{ehlo}");
    assert!(c.cmd("RCPT TO:<x@example.org>").starts_with("503 "));
    assert!(
        c.cmd("MAIL FROM:<a@example.org> SIZE=10485760")
            .starts_with("552 ")
    );
    assert!(
        c.cmd("MAIL FROM:<a@example.org> SIZE=1000")
            .starts_with("250 ")
    );
    // Unknown recipients: another domain, no token, a token that does not exist.
    for to in [
        "someone@example.org".to_string(),
        format!("postmaster@{DOMAIN}"),
        format!("move+{}@{DOMAIN}", "0".repeat(40)),
    ] {
        let r = c.cmd(&format!("RCPT TO:<{to}>"));
        assert!(r.starts_with("550 "), "{to}: {r}");
    }
    assert!(c.cmd("DATA").starts_with("554 "), "no valid recipient yet");
    assert!(c.cmd(&format!("RCPT TO:<{addr}>")).starts_with("250 "));
    assert!(c.cmd("NOOP").starts_with("250 "));
    assert!(c.cmd("RSET").starts_with("250 "));
    assert!(
        c.cmd("DATA").starts_with("503 "),
        "RSET forgot the transaction"
    );
    let long = format!("NOOP {}", "x".repeat(600));
    assert!(c.cmd(&long).starts_with("500 "));
    assert!(c.cmd("STARTTLS").starts_with("502 "));
    assert!(c.cmd("QUIT").starts_with("221 "));

    // Silent too long: 421 and closed (a server of its own, whose idle timeout is short:
    // under load a short one would cut the 10 MB mail below).
    let quick = start(
        backend,
        &sink,
        &dns,
        &[("DJAMBI_SMTP_IDLE_TIMEOUT", "500ms")],
    );
    let mut idle = Raw::connect(quick.smtp_addr.unwrap(), "127.0.0.1");
    let t = std::time::Instant::now();
    let r = idle.reply();
    assert!(r.starts_with("421 "), "{r}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(idle.reply(), "", "closed after 421");
    drop(quick);

    // A 10 MB mail through lettre (which sends no SIZE=): read to its end and refused
    // with 552; a text line over 1000 octets: 500; nothing played.
    let v0 = version(&srv, &id);
    let mv = first_legal(&srv, &id);
    let mut big = raw(&email(&p[0]), &addr, "big1", "", &mv);
    let line = format!("{}\r\n", "a".repeat(76));
    while big.len() < 10 * 1024 * 1024 {
        big.push_str(&line);
    }
    let err = lettre_send(&srv, Some(&email(&p[0])), &addr, &big).unwrap_err();
    assert!(err.contains("552") || err.contains("too big"), "{err}");
    let wide = raw(
        &email(&p[0]),
        &addr,
        "wide1",
        "",
        &format!("{mv}\r\n{}", "b".repeat(1200)),
    );
    let err = lettre_send(&srv, Some(&email(&p[0])), &addr, &wide).unwrap_err();
    assert!(err.contains("500") || err.contains("too long"), "{err}");
    assert_eq!(version(&srv, &id), v0);
    assert!(metric(
        &srv,
        "djambi_smtp_refused_total{reason=\"too_big\"} 1"
    ));
    assert!(metric(
        &srv,
        "djambi_smtp_refused_total{reason=\"unknown_recipient\"}"
    ));
}

/// Who may move with `aligned`: a DKIM signature of the From domain (through SMTP or the
/// HTTP endpoint) or an SPF pass of the SMTP session; forged, unsigned, tampered, bounced,
/// automatic and malformed mails change nothing.
fn replies_need_dkim_or_spf(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let keys = Keys::new(&dns);
    let srv = start(backend, &sink, &dns, &[]);
    let p = players(&srv, &sink, "au");
    let id = seat_all(&srv, &p);
    let (red, blue) = (&p[0], &p[1]);
    let addr = reply_to(&sink, red, &id, 1);
    let v0 = version(&srv, &id);
    let mv = first_legal(&srv, &id);

    // A wrong token is refused at RCPT (lettre sees the 550).
    let wrong = format!("move+{}@{DOMAIN}", "1".repeat(40));
    let err = lettre_send(
        &srv,
        Some(&email(red)),
        &wrong,
        &keys.sign(&raw(&email(red), &wrong, "w1", "", &mv)),
    )
    .unwrap_err();
    assert!(err.contains("550") || err.contains("No such"), "{err}");

    // Forged: the player's From, not signed, from an address SPF does not allow.
    let mut c = Raw::connect(srv.smtp_addr.unwrap(), "127.0.0.2");
    c.cmd("EHLO forger.example");
    assert!(
        c.cmd(&format!("MAIL FROM:<{}>", email(red)))
            .starts_with("250")
    );
    assert!(c.cmd(&format!("RCPT TO:<{addr}>")).starts_with("250"));
    assert!(c.cmd("DATA").starts_with("354"));
    let forged = raw(&email(red), &addr, "forged1", "", &mv);
    let r = c.cmd(&format!("{forged}."));
    assert!(
        r.starts_with("250 ") && r.contains("dropped:not_authenticated"),
        "{r}"
    );
    // A bounce (null sender) and an auto-reply, even signed: dropped.
    assert!(c.cmd("MAIL FROM:<>").starts_with("250"));
    assert!(c.cmd(&format!("RCPT TO:<{addr}>")).starts_with("250"));
    assert!(c.cmd("DATA").starts_with("354"));
    let bounce = keys.sign(&raw(&email(red), &addr, "bounce1", "", "Delivery failed"));
    let r = c.cmd(&format!("{bounce}."));
    assert!(r.contains("dropped:automatic"), "{r}");
    c.cmd("QUIT");
    let auto = keys.sign(&raw(
        &email(red),
        &addr,
        "auto1",
        "Auto-Submitted: auto-replied\r\n",
        "I am away",
    ));
    assert_eq!(
        lettre_send(&srv, Some(&email(red)), &addr, &auto).unwrap(),
        "OK: dropped:automatic"
    );
    // Through HTTP: unsigned, with an Authentication-Results that claims a pass: dropped.
    let claims = raw(
        &email(red),
        &addr,
        "ar1",
        "Authentication-Results: mx.example.org; dkim=pass header.d=example.org; spf=pass\r\n",
        &mv,
    );
    assert_eq!(deliver_http(&srv, &claims), "dropped:not_authenticated");
    // Signed, then changed: the body hash fails.
    let tampered = keys
        .sign(&raw(&email(red), &addr, "tamper1", "", "resign"))
        .replace("resign", &mv);
    assert_eq!(deliver_http(&srv, &tampered), "dropped:not_authenticated");
    assert_eq!(version(&srv, &id), v0, "nothing was played");

    // Malformed MIME, signed: a multipart without its parts has no text: the answer says
    // so and the token stays good.
    let broken = keys.sign(&format!(
        "From: {}\r\nTo: {addr}\r\nSubject: Re\r\nMessage-ID: <mime1@example.org>\r\n\
         Content-Type: multipart/mixed; boundary=\"zz\"\r\n\r\n--zz\r\nContent-Type: text/plain\r\n",
        email(red)
    ));
    assert_eq!(
        lettre_send(&srv, Some("bounces@relay.example"), &addr, &broken).unwrap(),
        "OK: error:empty"
    );
    sink.wait_for_subject(20, &email(red), "Nothing to play", 1);
    assert_eq!(version(&srv, &id), v0);

    // HTML only, DKIM-signed, through SMTP with a MAIL FROM of another domain (so SPF
    // cannot align): DKIM plays it. A line that starts with a dot is stuffed by lettre
    // and unstuffed by the listener, or the signature would fail.
    let html = keys.sign(&format!(
        "From: {}\r\nTo: {addr}\r\nSubject: Re\r\nMessage-ID: <html1@example.org>\r\n\
         Content-Type: text/html; charset=utf-8\r\n\r\n<html><body><p>{mv}</p>\r\n.<p>resign</p>\r\n</body></html>\r\n",
        email(red)
    ));
    assert_eq!(
        lettre_send(&srv, Some("bounces@relay.example"), &addr, &html).unwrap(),
        "OK: played"
    );
    assert_eq!(version(&srv, &id), v0 + 1);
    // The same reply again: already played (an answer, nothing played).
    let again = keys.sign(&raw(&email(red), &addr, "again1", "", "resign"));
    assert_eq!(deliver_http(&srv, &again), "error:used");
    sink.wait_for_subject(20, &email(red), "Already played", 1);

    // Blue: not signed, but SPF passes for example.org from 127.0.0.1: quoted text and a
    // signature below the move are not read.
    let baddr = reply_to(&sink, blue, &id, 1);
    let bmv = first_legal(&srv, &id);
    let body = format!("{bmv}\r\n\r\n> On Monday Djambi wrote:\r\n> resign\r\n-- \r\nBlue\r\n");
    let msg = raw(&email(blue), &baddr, "spf1", "", &body);
    assert_eq!(
        lettre_send(&srv, Some(&email(blue)), &baddr, &msg).unwrap(),
        "OK: played"
    );
    assert_eq!(version(&srv, &id), v0 + 2);
    let ok = sink.wait_for_subject(20, &email(blue), "Played", 1);
    assert!(
        ok.body.contains(&format!("Played: Blue {bmv}")),
        "{}",
        ok.body
    );

    // Yellow's mail goes stale: the game moves on through the API first.
    let yellow = &p[2];
    let yaddr = reply_to(&sink, yellow, &id, 1);
    let ymv = first_legal(&srv, &id);
    play(&srv, yellow, &id, json!(ymv), v0 + 2).expect(201);
    let stale = keys.sign(&raw(&email(yellow), &yaddr, "stale1", "", &ymv));
    assert_eq!(
        lettre_send(&srv, Some(&email(yellow)), &yaddr, &stale).unwrap(),
        "OK: error:stale"
    );
    sink.wait_for_subject(20, &email(yellow), "The game moved on", 1);
    assert_eq!(version(&srv, &id), v0 + 3);
    assert!(metric(
        &srv,
        "djambi_inbound_mails_total{outcome=\"played\"} 2"
    ));
    assert!(metric(
        &srv,
        "djambi_inbound_mails_total{outcome=\"dropped:not_authenticated\"} 3"
    ));
}

/// Behind the site's MTA: a relay of `DJAMBI_SMTP_XFORWARD_FROM` names the original client
/// with `XFORWARD`, and SPF checks that address (here one SPF does not allow, so the
/// unsigned reply is dropped), for one transaction only; anyone else is refused it.
fn xforward_names_the_original_client(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let _keys = Keys::new(&dns);
    let srv = start(
        backend,
        &sink,
        &dns,
        &[("DJAMBI_SMTP_XFORWARD_FROM", "127.0.0.1/32")],
    );
    let p = players(&srv, &sink, "xf");
    let id = seat_all(&srv, &p);
    let red = &p[0];
    let addr = reply_to(&sink, red, &id, 1);
    let v0 = version(&srv, &id);
    let mv = first_legal(&srv, &id);
    let smtp = srv.smtp_addr.unwrap();

    // Not a relay: not offered, refused.
    let mut c = Raw::connect(smtp, "127.0.0.2");
    assert!(!c.cmd("EHLO client.example").contains("XFORWARD"));
    assert!(c.cmd("XFORWARD ADDR=127.0.0.1").starts_with("550 "));
    c.cmd("QUIT");

    // The relay: offered; the original client is one SPF does not allow.
    let mut c = Raw::connect(smtp, "127.0.0.1");
    let ehlo = c.cmd("EHLO relay.example");
    assert!(ehlo.contains("250-XFORWARD NAME ADDR"), "{ehlo}");
    assert!(c.cmd("XFORWARD ADDR=bogus").starts_with("501 "));
    assert!(
        c.cmd("XFORWARD NAME=mx.elsewhere.example ADDR=192.0.2.7 PROTO=ESMTP")
            .starts_with("250 ")
    );
    assert!(
        c.cmd("XFORWARD HELO=mx.elsewhere.example")
            .starts_with("250 ")
    );
    let send = |c: &mut Raw, n: &str| {
        assert!(
            c.cmd(&format!("MAIL FROM:<{}>", email(red)))
                .starts_with("250")
        );
        assert!(c.cmd("XFORWARD ADDR=127.0.0.1").starts_with("503 "));
        assert!(c.cmd(&format!("RCPT TO:<{addr}>")).starts_with("250"));
        assert!(c.cmd("DATA").starts_with("354"));
        c.cmd(&format!("{}.", raw(&email(red), &addr, n, "", &mv)))
    };
    let r = send(&mut c, "xf1");
    assert!(r.contains("dropped:not_authenticated"), "{r}");
    assert_eq!(version(&srv, &id), v0);
    // The next transaction is the relay's own again (127.0.0.1, which SPF allows).
    let r = send(&mut c, "xf2");
    assert!(r.contains("OK: played"), "{r}");
    assert_eq!(version(&srv, &id), v0 + 1);
    c.cmd("QUIT");
}

/// The limits: past the cap of error answers replies are dropped silently (the token
/// unchanged); past the limit per token, even a good move is dropped.
fn limits_drop_silently(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let keys = Keys::new(&dns);
    let srv = start(
        backend,
        &sink,
        &dns,
        &[
            ("DJAMBI_MAIL_ERROR_REPLY_LIMIT", "2/1h"),
            ("DJAMBI_MAIL_LIMIT_PER_TOKEN", "4/1h"),
        ],
    );
    let p = players(&srv, &sink, "li");
    let id = seat_all(&srv, &p);
    let red = &p[0];
    let addr = reply_to(&sink, red, &id, 1);
    let v0 = version(&srv, &id);
    let send =
        |n: &str, body: &str| deliver_http(&srv, &keys.sign(&raw(&email(red), &addr, n, "", body)));
    assert_eq!(send("l1", "please"), "error:grammar");
    assert_eq!(send("l2", "please"), "error:grammar");
    assert_eq!(send("l3", "please"), "dropped:error_cap");
    assert_eq!(send("l4", "please"), "dropped:error_cap");
    // Two typos counted (not three: the token is not locked), so the fifth would play,
    // but it is over the limit of its token.
    let mv = first_legal(&srv, &id);
    assert_eq!(send("l5", &mv), "dropped:rate_token");
    assert_eq!(version(&srv, &id), v0);
    sink.wait_for_subject(20, &email(red), "Not understood", 2);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sink.to_with_subject(&email(red), "Not understood").len(), 2);
    assert_eq!(
        sink.to_with_subject(&email(red), "Your turn").len(),
        1,
        "no fresh turn mail: the token was not locked"
    );
    assert!(metric(
        &srv,
        "djambi_inbound_mails_total{outcome=\"dropped:error_cap\"} 2"
    ));
    assert!(metric(
        &srv,
        "djambi_inbound_mails_total{outcome=\"dropped:rate_token\"} 1"
    ));
}

/// What a game's log says, without times and ids: each event's kind and its move or seat.
fn log_of(srv: &TestServer, id: &str) -> Vec<(String, Value)> {
    all_events(srv, id)
        .iter()
        .map(|e| {
            let kind = e["kind"].as_str().unwrap_or_default().to_string();
            let what = match kind.as_str() {
                "move_played" => json!([e["payload"]["seat"], e["payload"]["text"]]),
                "resigned" => e["payload"]["seat"].clone(),
                "ended" => e["payload"]["result"].clone(),
                "created" => json!([e["payload"]["seats"], e["payload"]["ruleset"]]),
                _ => Value::Null,
            };
            (kind, what)
        })
        .collect()
}

/// Four players play a whole game by mail alone (each answers the Reply-To of their
/// latest turn mail, DKIM-signed, through the SMTP listener): the first legal move for
/// 16 plies, then each player to move resigns until the game ends. The same commands
/// through the API give the same log.
fn a_whole_game_by_mail(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let keys = Keys::new(&dns);
    let srv = start(backend, &sink, &dns, &[]);
    let p = players(&srv, &sink, "wg");
    let id = seat_all(&srv, &p);
    let mut seen = [0usize; 4];
    let mut commands: Vec<(usize, String)> = Vec::new();
    for ply in 0..200 {
        if summary(&srv, &id)["status"] != "active" {
            break;
        }
        let who = player_to_move(&srv, &id, &p).expect("someone to move");
        let i = p.iter().position(|x| x.user_id == who.user_id).unwrap();
        seen[i] += 1;
        let addr = reply_to(&sink, who, &id, seen[i]);
        // Count every turn mail seen so far, so the next wait is for a new one.
        seen[i] = sink
            .to_with_subject(&email(who), "Your turn")
            .iter()
            .filter(|m| m.body.contains(&id))
            .count();
        let command = if ply < 16 {
            first_legal(&srv, &id)
        } else {
            "resign".to_string()
        };
        let v = version(&srv, &id);
        let msg = keys.sign(&raw(&email(who), &addr, &format!("g{ply}"), "", &command));
        assert_eq!(
            lettre_send(&srv, Some(&email(who)), &addr, &msg).unwrap(),
            "OK: played",
            "ply {ply}: {command}"
        );
        assert!(version(&srv, &id) > v);
        commands.push((i, command));
    }
    assert_eq!(summary(&srv, &id)["status"], "finished", "the game ended");
    assert!(commands.len() > 16);

    // The same commands through the API, in a second game of the same players.
    let api = seat_all(&srv, &p);
    for (i, command) in &commands {
        let v = version(&srv, &api);
        if command == "resign" {
            srv.post(
                &format!("/v1/games/{api}/resignation"),
                Some(&p[*i].access),
                &json!({"expected_version": v}),
            )
            .expect(201);
        } else {
            play(&srv, &p[*i], &api, json!(command), v).expect(201);
        }
    }
    assert_eq!(log_of(&srv, &id), log_of(&srv, &api));
    check_log_replays(&srv, &id);
}

/// Issue 32, item 1: Mallory, at the player's own provider, signs a mail with his own
/// `From` (the provider's DKIM key) and adds an unsigned second `From` naming the player
/// below it, in each form parsers read differently: the mail is refused (dropped, no
/// answer to anyone), nothing is played, and the player's genuine reply still plays, even
/// with the Message-ID of a forgery.
fn a_second_from_never_moves_for_the_player(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let keys = Keys::new(&dns);
    let srv = start(backend, &sink, &dns, &[]);
    let p = players(&srv, &sink, "sf");
    let id = seat_all(&srv, &p);
    let red = &p[0];
    let victim = email(red);
    let mallory = "mallory@example.org";
    let addr = reply_to(&sink, red, &id, 1);
    let v0 = version(&srv, &id);
    let mv = first_legal(&srv, &id);
    let mails_to_red = sink.to(&victim).len();

    // His own mail, as signed: not the player's address.
    let own = keys.sign(&raw(mallory, &addr, "own1", "", &mv));
    assert_eq!(
        lettre_send(&srv, Some(mallory), &addr, &own).unwrap(),
        "OK: dropped:from_not_the_player"
    );
    let (local, _) = victim.split_once('@').unwrap();
    let forms = [
        (format!("From: {victim}"), "from_not_single"),
        (format!("From : {victim}"), "malformed"),
        (format!("From\t: {victim}"), "malformed"),
        (format!("From:\r\n {victim}"), "from_not_single"),
        (
            format!("From: =?utf-8?q?Red?= <{victim}>"),
            "from_not_single",
        ),
        (
            format!("From: =?us-ascii?q?{local}=40example.org?="),
            "from_not_single",
        ),
        (format!("FROM: {victim}"), "from_not_single"),
        (format!("from: {victim}"), "from_not_single"),
    ];
    for (n, (extra, why)) in forms.iter().enumerate() {
        let signed = keys.sign(&raw(mallory, &addr, &format!("sf{n}"), "", &mv));
        let forged = add_header(&signed, extra);
        assert_eq!(
            lettre_send(&srv, Some(mallory), &addr, &forged).unwrap(),
            format!("OK: dropped:{why}"),
            "SMTP: {extra:?}"
        );
        let signed = keys.sign(&raw(mallory, &addr, &format!("sfh{n}"), "", &mv));
        assert_eq!(
            deliver_http(&srv, &add_header(&signed, extra)),
            format!("dropped:{why}"),
            "HTTP: {extra:?}"
        );
    }
    // A second From above the signed ones, and a lone From with a space before its colon.
    let above = format!(
        "From: {victim}\r\n{}",
        keys.sign(&raw(mallory, &addr, "above1", "", &mv))
    );
    assert_eq!(deliver_http(&srv, &above), "dropped:from_not_single");
    let lone = keys.sign(&raw(&victim, &addr, "lone1", "", &mv)).replacen(
        &format!("From: {victim}"),
        &format!("From : {victim}"),
        1,
    );
    assert_eq!(deliver_http(&srv, &lone), "dropped:malformed");
    assert_eq!(version(&srv, &id), v0, "nothing was played");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        sink.to(&victim).len(),
        mails_to_red,
        "no answer to the player"
    );
    assert!(sink.to(mallory).is_empty(), "no answer to Mallory");
    assert_eq!(
        db_number(&srv, "SELECT COUNT(*) AS n FROM inbound_mails"),
        0,
        "nothing of the forgeries was recorded"
    );

    // The player's own reply, with the Message-ID of the first forgery: played.
    let genuine = keys.sign(&raw(&victim, &addr, "sf0", "", &mv));
    assert_eq!(
        lettre_send(&srv, Some(&victim), &addr, &genuine).unwrap(),
        "OK: played"
    );
    assert_eq!(version(&srv, &id), v0 + 1);
}

/// Issue 32, item 3: forged mails with huge Message-IDs leave nothing in the database,
/// and a genuine reply reusing one of their ids plays; what is recorded is bounded; a
/// used or an expired reply address is refused at RCPT; the records are pruned after
/// `DJAMBI_TOKEN_RETENTION`.
fn forged_mails_are_not_recorded_and_records_are_pruned(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let keys = Keys::new(&dns);
    let clock = Arc::new(ManualClock::new(chrono::Utc::now().naive_utc()));
    let srv = start_clocked(
        backend,
        &sink,
        &dns,
        &[
            ("DJAMBI_TOKEN_RETENTION", "90d"),
            ("DJAMBI_JANITOR_INTERVAL", "100ms"),
        ],
        Some(clock.clone()),
    );
    let p = players(&srv, &sink, "fm");
    let id = seat_all(&srv, &p);
    let (red, blue) = (&p[0], &p[1]);
    let addr = reply_to(&sink, red, &id, 1);
    let v0 = version(&srv, &id);
    let mv = first_legal(&srv, &id);
    let long_id = |n: usize| format!("{n}-{}", "f".repeat(900));

    // 100 forgeries over one connection from an address SPF does not allow, unsigned.
    let mut c = Raw::connect(srv.smtp_addr.unwrap(), "127.0.0.2");
    c.cmd("EHLO forger.example");
    for n in 0..100 {
        assert!(
            c.cmd(&format!("MAIL FROM:<{}>", email(red)))
                .starts_with("250")
        );
        assert!(c.cmd(&format!("RCPT TO:<{addr}>")).starts_with("250"));
        assert!(c.cmd("DATA").starts_with("354"));
        let forged = raw(&email(red), &addr, &long_id(n), "", &mv);
        let r = c.cmd(&format!("{forged}."));
        assert!(r.contains("dropped:not_authenticated"), "{r}");
    }
    c.cmd("QUIT");
    assert_eq!(
        db_number(&srv, "SELECT COUNT(*) AS n FROM inbound_mails"),
        0,
        "no forgery was recorded"
    );
    // The genuine reply with the first forgery's Message-ID: played, its id recorded in
    // a bounded form.
    let genuine = keys.sign(&raw(&email(red), &addr, &long_id(0), "", &mv));
    assert_eq!(deliver_http(&srv, &genuine), "played");
    assert_eq!(version(&srv, &id), v0 + 1);
    assert_eq!(
        db_number(&srv, "SELECT COUNT(*) AS n FROM inbound_mails"),
        1
    );
    assert!(
        db_number(
            &srv,
            "SELECT CAST(MAX(LENGTH(message_id)) AS BIGINT) AS n FROM inbound_mails"
        ) <= 80
    );
    // The same message again: applied once.
    assert_eq!(deliver_http(&srv, &genuine), "dropped:duplicate");

    // A used address is refused at RCPT.
    let smtp = srv.smtp_addr.unwrap();
    let mut c = Raw::connect(smtp, "127.0.0.1");
    c.cmd("EHLO client.example");
    assert!(c.cmd("MAIL FROM:<a@example.org>").starts_with("250"));
    let r = c.cmd(&format!("RCPT TO:<{addr}>"));
    assert!(r.starts_with("550 ") && r.contains("used"), "{r}");
    c.cmd("QUIT");
    // Blue's address, once expired, too.
    let baddr = reply_to(&sink, blue, &id, 1);
    clock.advance(chrono::TimeDelta::days(40));
    let mut c = Raw::connect(smtp, "127.0.0.1");
    c.cmd("EHLO client.example");
    assert!(c.cmd("MAIL FROM:<a@example.org>").starts_with("250"));
    let r = c.cmd(&format!("RCPT TO:<{baddr}>"));
    assert!(r.starts_with("550 ") && r.contains("expired"), "{r}");
    c.cmd("QUIT");
    assert!(metric(
        &srv,
        "djambi_smtp_refused_total{reason=\"spent_recipient\"} 2"
    ));
    // Past the retention the record is pruned.
    assert_eq!(
        db_number(&srv, "SELECT COUNT(*) AS n FROM inbound_mails"),
        1
    );
    clock.advance(chrono::TimeDelta::days(60));
    wait_until(20, "the record of the reply is pruned", || {
        db_number(&srv, "SELECT COUNT(*) AS n FROM inbound_mails") == 0
    });
}

/// Issue 32, item 2: one client address holds at most
/// `DJAMBI_SMTP_CONNECTIONS_PER_ADDRESS` connections (others still get in), and a
/// connection that begins no mail is closed after `DJAMBI_SMTP_IDLE_TIMEOUT_BEFORE_MAIL`
/// however many NOOPs it sends; inside a mail the longer idle timeout holds.
fn one_client_cannot_hold_the_listener(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let srv = start(
        backend,
        &sink,
        &dns,
        &[
            ("DJAMBI_SMTP_CONNECTIONS_PER_ADDRESS", "2"),
            ("DJAMBI_SMTP_IDLE_TIMEOUT_BEFORE_MAIL", "1s"),
            ("DJAMBI_SMTP_IDLE_TIMEOUT", "20s"),
        ],
    );
    let smtp = srv.smtp_addr.unwrap();
    let silent: Vec<Raw> = (0..2).map(|_| Raw::connect(smtp, "127.0.0.2")).collect();
    let (mut third, greeting) = Raw::open(smtp, "127.0.0.2");
    assert!(greeting.starts_with("421 "), "{greeting}");
    assert_eq!(third.reply(), "", "closed after 421");
    assert!(metric(
        &srv,
        "djambi_smtp_refused_total{reason=\"connections_per_address\"} 1"
    ));
    // Another address gets in; its NOOPs do not keep it open.
    let mut other = Raw::connect(smtp, "127.0.0.3");
    let t = Instant::now();
    assert!(other.cmd("EHLO client.example").starts_with("250"));
    let closed = loop {
        let r = other.cmd("NOOP");
        if !r.starts_with("250") || t.elapsed() > Duration::from_secs(15) {
            break r;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(closed.starts_with("421 "), "{closed}");
    assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());
    // The silent ones were closed too: their address gets its places back.
    for mut s in silent {
        assert!(s.reply().starts_with("421 "));
    }
    let mut back = None;
    wait_until(10, "the places are given back", || {
        let (raw, greeting) = Raw::open(smtp, "127.0.0.2");
        back = Some(raw);
        greeting.starts_with("220 ")
    });
    // Inside a mail, a pause longer than the time to begin one is fine.
    let mut m = back.unwrap();
    assert!(m.cmd("EHLO client.example").starts_with("250"));
    assert!(m.cmd("MAIL FROM:<a@example.org>").starts_with("250"));
    std::thread::sleep(Duration::from_millis(1600));
    assert!(m.cmd("RSET").starts_with("250"));
    m.cmd("QUIT");
}

/// Issue 34, item 3: a delivery report (`multipart/report`) from the player's own address
/// and a mail whose envelope sender is `MAILER-DAEMON@...`, both DKIM-signed and saying a
/// legal move first, are dropped as automatic: nothing is played, nothing answered.
fn reports_and_daemon_senders_are_never_played(backend: Backend) {
    let sink = SmtpSink::start();
    let dns = TestDns::start();
    let keys = Keys::new(&dns);
    let srv = start(backend, &sink, &dns, &[]);
    let p = players(&srv, &sink, "rp");
    let id = seat_all(&srv, &p);
    let red = &p[0];
    let addr = reply_to(&sink, red, &id, 1);
    let v0 = version(&srv, &id);
    let mv = first_legal(&srv, &id);
    let report = keys.sign(&format!(
        "From: {}\r\nTo: {addr}\r\nSubject: Delivery Status Notification\r\n\
         Message-ID: <report1@example.org>\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"zz\"\r\n\r\n\
         --zz\r\nContent-Type: text/plain\r\n\r\n{mv}\r\n\
         --zz\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\
         --zz--\r\n",
        email(red)
    ));
    assert_eq!(deliver_http(&srv, &report), "dropped:automatic");
    assert_eq!(
        lettre_send(&srv, Some(&email(red)), &addr, &report).unwrap(),
        "OK: dropped:automatic"
    );
    let bounced = keys.sign(&raw(&email(red), &addr, "daemon1", "", &mv));
    assert_eq!(
        lettre_send(&srv, Some("MAILER-DAEMON@example.org"), &addr, &bounced).unwrap(),
        "OK: dropped:automatic"
    );
    let returned = keys.sign(&raw(
        &email(red),
        &addr,
        "daemon2",
        "Return-Path: <mailer-daemon@example.org>\r\n",
        &mv,
    ));
    assert_eq!(deliver_http(&srv, &returned), "dropped:automatic");
    assert_eq!(version(&srv, &id), v0, "nothing was played");
}

backend_tests!(
    a_second_from_never_moves_for_the_player,
    forged_mails_are_not_recorded_and_records_are_pruned,
    one_client_cannot_hold_the_listener,
    reports_and_daemon_senders_are_never_played,
    the_listener_speaks_smtp,
    xforward_names_the_original_client,
    replies_need_dkim_or_spf,
    limits_drop_silently,
    a_whole_game_by_mail,
);
