//! A tiny SMTP server for tests: accepts every mail on 127.0.0.1 and keeps it, parsed.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A received mail: envelope, headers (lower-case names, unfolded) and decoded body.
#[derive(Debug, Clone)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    pub headers: HashMap<String, String>,
    /// The text/plain part, as Python's strict parser decodes it.
    pub body: String,
    /// The text/html part, if any, decoded the same way.
    pub html: Option<String>,
    /// The mail as received.
    pub raw: String,
    /// Why the strict check failed, if it did.
    pub strict_error: Option<String>,
}

impl Mail {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or("")
    }
}

#[derive(Clone)]
pub struct SmtpSink {
    pub port: u16,
    /// `port` as text, for [`SmtpSink::server_settings`].
    port_text: String,
    mails: Arc<Mutex<Vec<Mail>>>,
}

impl SmtpSink {
    pub fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the SMTP sink");
        let port = listener.local_addr().unwrap().port();
        let mails = Arc::new(Mutex::new(Vec::new()));
        let m = mails.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let m = m.clone();
                std::thread::spawn(move || {
                    let _ = session(stream, &m);
                });
            }
        });
        SmtpSink {
            port,
            port_text: port.to_string(),
            mails,
        }
    }

    /// The settings of a test server that mails here (plain SMTP, from
    /// `games@djambi.example`, links to `https://djambi.example`, deliveries retried
    /// quickly), then `extra`.
    pub fn server_settings<'a>(&'a self, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut v = vec![
            ("DJAMBI_SMTP_HOST", "127.0.0.1"),
            ("DJAMBI_SMTP_PORT", self.port_text.as_str()),
            ("DJAMBI_SMTP_TLS", "none"),
            ("DJAMBI_SMTP_FROM", "Djambi <games@djambi.example>"),
            ("DJAMBI_PUBLIC_URL", "https://djambi.example"),
            ("DJAMBI_DELIVERY_INTERVAL", "20ms"),
            ("DJAMBI_DELIVERY_BACKOFF", "50ms"),
        ];
        v.extend_from_slice(extra);
        v
    }

    /// Every mail received; each one must have passed the strict check
    /// ([`strict_check`]), or this panics with what was wrong.
    pub fn mails(&self) -> Vec<Mail> {
        let mails = self.mails.lock().unwrap().clone();
        for m in &mails {
            if let Some(e) = &m.strict_error {
                panic!("a mail failed the strict MIME check: {e}\n{}", m.raw);
            }
        }
        mails
    }

    /// The mails to `to`.
    pub fn to(&self, to: &str) -> Vec<Mail> {
        self.mails()
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t == to))
            .collect()
    }

    /// Forgets every mail received so far.
    pub fn clear(&self) {
        self.mails.lock().unwrap().clear();
    }

    /// The mails to `to` whose subject contains `subject`.
    pub fn to_with_subject(&self, to: &str, subject: &str) -> Vec<Mail> {
        self.to(to)
            .into_iter()
            .filter(|m| m.header("subject").contains(subject))
            .collect()
    }

    /// Waits for the `n`-th mail to `to` whose subject contains `subject`; returns it.
    #[track_caller]
    pub fn wait_for_subject(&self, secs: u64, to: &str, subject: &str, n: usize) -> Mail {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let got = self.to_with_subject(to, subject);
            if got.len() >= n {
                return got[n - 1].clone();
            }
            assert!(
                Instant::now() < until,
                "mail {n} `{subject}` to {to} did not arrive; got {:?}",
                self.to(to)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[track_caller]
    pub fn wait_for(&self, secs: u64, to: &str, n: usize) -> Vec<Mail> {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let got = self.to(to);
            if got.len() >= n {
                return got;
            }
            assert!(
                Instant::now() < until,
                "{n} mails to {to} did not arrive; got {got:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn session(stream: std::net::TcpStream, mails: &Mutex<Vec<Mail>>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut out = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    out.write_all(b"220 sink ESMTP\r\n")?;
    let (mut from, mut to) = (String::new(), Vec::new());
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let cmd = line.trim_end().to_string();
        let upper = cmd.to_ascii_uppercase();
        if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            out.write_all(b"250-sink\r\n250 8BITMIME\r\n")?;
        } else if upper.starts_with("MAIL FROM:") {
            from = addr(&cmd[10..]);
            to.clear();
            out.write_all(b"250 OK\r\n")?;
        } else if upper.starts_with("RCPT TO:") {
            to.push(addr(&cmd[8..]));
            out.write_all(b"250 OK\r\n")?;
        } else if upper == "DATA" {
            out.write_all(b"354 go on\r\n")?;
            let mut data = String::new();
            loop {
                let mut l = String::new();
                if r.read_line(&mut l)? == 0 {
                    return Ok(());
                }
                if l == ".\r\n" || l == ".\n" {
                    break;
                }
                data.push_str(
                    l.strip_prefix('.')
                        .filter(|_| l.starts_with(".."))
                        .unwrap_or(&l),
                );
            }
            let (mut headers, _) = parse(&data);
            let (body, html, strict_error) = match strict_parse(&data) {
                Ok(v) => {
                    // The Subject as the strict parser decodes it (RFC 2047 words of a
                    // subject that is not ASCII, as in French or Spanish).
                    if let Some(subject) = v["subject"].as_str() {
                        headers.insert("subject".into(), subject.to_string());
                    }
                    (
                        v["text"].as_str().unwrap_or_default().to_string(),
                        v["html"].as_str().map(String::from),
                        None,
                    )
                }
                Err(e) => (String::new(), None, Some(e)),
            };
            mails.lock().unwrap().push(Mail {
                from: from.clone(),
                to: to.clone(),
                headers,
                body,
                html,
                raw: data.clone(),
                strict_error,
            });
            out.write_all(b"250 OK queued\r\n")?;
        } else if upper == "QUIT" {
            out.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else {
            out.write_all(b"250 OK\r\n")?;
        }
    }
}

/// Parses a raw mail with Python's `email` package under `policy=email.policy.strict`
/// (`tests/support/mail_check.py`): any defect, a missing `MIME-Version` or a text part
/// without a charset fails. Answers the decoded text/plain and text/html parts.
pub fn strict_check(raw: &str) -> Result<(String, Option<String>), String> {
    let v = strict_parse(raw)?;
    Ok((
        v["text"].as_str().unwrap_or_default().to_string(),
        v["html"].as_str().map(String::from),
    ))
}

/// What `mail_check.py` answers: `text`, `html` and the decoded `subject`.
fn strict_parse(raw: &str) -> Result<serde_json::Value, String> {
    use std::process::{Command, Stdio};
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/support/mail_check.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3: {e}"))?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(raw.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("checker output: {e}"))
}

fn addr(s: &str) -> String {
    s.trim()
        .trim_start_matches('<')
        .split('>')
        .next()
        .unwrap_or("")
        .to_string()
}

fn parse(data: &str) -> (HashMap<String, String>, String) {
    let data = data.replace("\r\n", "\n");
    let (head, body) = data.split_once("\n\n").unwrap_or((&data, ""));
    let mut headers: HashMap<String, String> = HashMap::new();
    let mut last = String::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(v) = headers.get_mut(&last) {
                v.push_str(line.trim_start());
            }
        } else if let Some((k, v)) = line.split_once(':') {
            last = k.trim().to_ascii_lowercase();
            headers.insert(last.clone(), v.trim().to_string());
        }
    }
    let body = match headers
        .get("content-transfer-encoding")
        .map(|s| s.to_ascii_lowercase())
    {
        Some(e) if e == "quoted-printable" => quoted_printable(body),
        Some(e) if e == "base64" => {
            use base64::Engine;
            let joined: String = body.split_whitespace().collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(joined)
                .unwrap_or_default();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => body.to_string(),
    };
    (headers, body)
}

fn quoted_printable(s: &str) -> String {
    let s = s.replace("=\n", "");
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'=' && i + 2 < b.len())
            .then(|| u8::from_str_radix(&s[i + 1..i + 3], 16).ok())
            .flatten();
        if let Some(v) = hex {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The token after `marker` in a mail's body (up to the first character outside
/// base64url and `_`).
#[track_caller]
pub fn token_after(body: &str, marker: &str) -> String {
    let at = body
        .find(marker)
        .unwrap_or_else(|| panic!("no `{marker}` in {body}"));
    body[at + marker.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

/// The verification token of the `n`-th verification mail to `to`.
#[track_caller]
pub fn verification_token(sink: &SmtpSink, to: &str, n: usize) -> String {
    let m = sink.wait_for_subject(20, to, "Confirm your e-mail address", n);
    token_after(&m.body, "/v1/email-verification/")
}

/// A test account's address (`TestServer::user` registers `<name>@example.org`).
pub fn address_of(who: &djambi_e2e::Login) -> String {
    format!("{}@example.org", who.username)
}

/// Four new players `<prefix>_r`, `_b`, `_y`, `_g` whose addresses are verified (mails
/// about games go to verified addresses only; moves by mail come from them only).
pub fn verified_players(
    srv: &djambi_e2e::TestServer,
    sink: &SmtpSink,
    prefix: &str,
) -> Vec<djambi_e2e::Login> {
    let p: Vec<djambi_e2e::Login> = ["r", "b", "y", "g"]
        .iter()
        .map(|s| srv.user(&format!("{prefix}_{s}")))
        .collect();
    for who in &p {
        let token = verification_token(sink, &address_of(who), 1);
        srv.post(
            &format!("/v1/email-verification/{token}"),
            None,
            &serde_json::json!({}),
        )
        .expect(200);
    }
    p
}

/// The reply address of the latest turn mail of `who` about game `game`, once there are
/// at least `n` of them (mails of several games may arrive in any order).
#[track_caller]
pub fn turn_reply_address(
    sink: &SmtpSink,
    who: &djambi_e2e::Login,
    game: &str,
    n: usize,
) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mails: Vec<Mail> = sink
            .to_with_subject(&address_of(who), "Your turn")
            .into_iter()
            .filter(|m| m.body.contains(game))
            .collect();
        if let Some(m) = mails
            .get(n.saturating_sub(1)..)
            .and_then(|rest| rest.last())
        {
            let r = m.header("reply-to").to_string();
            assert!(r.starts_with("move+"), "{m:?}");
            return r;
        }
        assert!(
            Instant::now() < deadline,
            "no turn mail {n} of game {game} for {}",
            who.username
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
