//! A real HTTP receiver for webhook tests: a minimal HTTP/1.1 server on 127.0.0.1 that
//! records every request and answers with the status (and `Retry-After`) the test
//! scripts, keeping connections alive (it counts them), or never answers under a path.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    #[allow(dead_code)]
    pub body: String,
    /// The body's bytes (an encrypted push is not text).
    #[allow(dead_code)]
    pub raw: Vec<u8>,
    /// What the receiver answered (0: nothing, the path hangs).
    pub answered: u16,
    /// When it arrived.
    #[allow(dead_code)]
    pub at: Instant,
}

#[derive(Default)]
struct Inner {
    got: Vec<Received>,
    /// Answers for the next requests, in order (a status and its `Retry-After`); then
    /// `otherwise`.
    script: Vec<(u16, Option<String>)>,
    otherwise: u16,
    /// Requests under these paths get no answer (their connection is held open).
    hang: Vec<String>,
    /// Connections accepted.
    connections: usize,
}

#[derive(Clone)]
pub struct Receiver {
    pub port: u16,
    inner: Arc<Mutex<Inner>>,
}

impl Receiver {
    /// Listens on a free port.
    pub fn start() -> Receiver {
        Receiver::start_on(0)
    }

    /// Listens on `port` (0: any).
    pub fn start_on(port: u16) -> Receiver {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind the receiver");
        let port = listener.local_addr().unwrap().port();
        let inner = Arc::new(Mutex::new(Inner {
            otherwise: 200,
            ..Inner::default()
        }));
        let i = inner.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                i.lock().unwrap().connections += 1;
                let i = i.clone();
                std::thread::spawn(move || serve(stream, &i));
            }
        });
        Receiver { port, inner }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Answers the next requests with these statuses, then `otherwise`.
    pub fn script(&self, statuses: &[u16], otherwise: u16) {
        let mut g = self.inner.lock().unwrap();
        g.script = statuses.iter().map(|s| (*s, None)).collect();
        g.otherwise = otherwise;
    }

    /// Answers the next requests with these statuses and `Retry-After` values, then
    /// `otherwise`.
    #[allow(dead_code)]
    pub fn script_retry_after(&self, answers: &[(u16, &str)], otherwise: u16) {
        let mut g = self.inner.lock().unwrap();
        g.script = answers
            .iter()
            .map(|(s, r)| (*s, Some(r.to_string())))
            .collect();
        g.otherwise = otherwise;
    }

    /// Never answers requests whose path starts with `prefix` (a hung push endpoint).
    #[allow(dead_code)]
    pub fn hang(&self, prefix: &str) {
        self.inner.lock().unwrap().hang.push(prefix.to_string());
    }

    /// How many connections were accepted (kept-alive ones are reused).
    #[allow(dead_code)]
    pub fn connections(&self) -> usize {
        self.inner.lock().unwrap().connections
    }

    pub fn received(&self) -> Vec<Received> {
        self.inner.lock().unwrap().got.clone()
    }

    /// Waits until `f` holds for what was received (panics after `secs`).
    #[track_caller]
    pub fn wait_for(
        &self,
        secs: u64,
        what: &str,
        f: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let until = Instant::now() + Duration::from_secs(secs);
        loop {
            let got = self.received();
            if f(&got) {
                return got;
            }
            assert!(
                Instant::now() < until,
                "receiver: {what} did not happen; got {} requests: {:?}",
                got.len(),
                got.iter()
                    .map(|r| (r.headers.get("webhook-id").cloned(), r.answered))
                    .collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Serves the requests of one connection, one after the other, until the client closes it.
fn serve(stream: TcpStream, inner: &Mutex<Inner>) {
    // Longer than the client keeps an idle connection (90 s): the client closes first.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(120)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut s = stream;
    while let Some((status, retry_after)) = serve_one(&mut reader, inner) {
        if status == 0 {
            // Hung: hold the connection, answer nothing.
            std::thread::sleep(Duration::from_secs(60));
            return;
        }
        let retry = retry_after
            .map(|r| format!("retry-after: {r}\r\n"))
            .unwrap_or_default();
        let written = write!(
            s,
            "HTTP/1.1 {status} X\r\ncontent-length: 2\r\n{retry}\r\nok"
        );
        if written.and_then(|()| s.flush()).is_err() {
            return;
        }
    }
}

/// Reads and records one request; returns the answer (status 0: none), or `None` when
/// the connection closed.
fn serve_one(
    reader: &mut BufReader<TcpStream>,
    inner: &Mutex<Inner>,
) -> Option<(u16, Option<String>)> {
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return None;
    }
    let at = Instant::now();
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    if reader.read_exact(&mut body).is_err() {
        return None;
    }
    let mut g = inner.lock().unwrap();
    let answer = if g.hang.iter().any(|p| path.starts_with(p.as_str())) {
        (0, None)
    } else if g.script.is_empty() {
        (g.otherwise, None)
    } else {
        g.script.remove(0)
    };
    g.got.push(Received {
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
        raw: body,
        answered: answer.0,
        at,
    });
    Some(answer)
}

/// Verifies a Standard Webhooks signature header against one secret, written from the
/// specification: HMAC-SHA256 over `{id}.{timestamp}.{body}` keyed with the base64-decoded
/// secret after `whsec_`; the header holds space-separated `v1,<base64>` signatures.
#[allow(dead_code)]
pub fn verify(secret: &str, r: &Received) -> bool {
    use base64::Engine;
    use hmac::{KeyInit, Mac};
    let b64 = base64::engine::general_purpose::STANDARD;
    let key = b64
        .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
        .expect("base64 secret");
    let id = &r.headers["webhook-id"];
    let ts = &r.headers["webhook-timestamp"];
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{ts}.{}", r.body).as_bytes());
    let expected = b64.encode(mac.finalize().into_bytes());
    r.headers["webhook-signature"]
        .split(' ')
        .filter_map(|s| s.strip_prefix("v1,"))
        .any(|s| s == expected)
}
