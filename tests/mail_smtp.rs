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
use std::time::Duration;

use base64::Engine;
use djambi_e2e::{Backend, Login, TestServer, Value, backend_tests, json};
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
    let dns_addr = dns.addr.to_string();
    let mut vars = sink.server_settings(&[
        ("DJAMBI_MAIL_DOMAIN", DOMAIN),
        ("DJAMBI_MAIL_AUTH", "aligned"),
        ("DJAMBI_MAIL_DNS", &dns_addr),
        ("DJAMBI_SMTP_LISTEN", "127.0.0.1:0"),
        ("DJAMBI_INBOUND_MAIL_SECRET", SECRET),
    ]);
    vars.extend_from_slice(extra);
    TestServer::start_with(backend, &vars)
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
    /// Connects from `source` (any 127/8 address is this machine).
    fn connect(to: SocketAddr, source: &str) -> Raw {
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
        assert!(raw.reply().starts_with("220 "));
        raw
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

backend_tests!(
    the_listener_speaks_smtp,
    xforward_names_the_original_client,
    replies_need_dkim_or_spf,
    limits_drop_silently,
    a_whole_game_by_mail,
);
