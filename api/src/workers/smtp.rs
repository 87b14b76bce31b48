//! The SMTP listener for replies to turn mails (`DJAMBI_SMTP_LISTEN`): a small RFC 5321
//! server meant to sit behind the site's MTA, which relays `move+*@DJAMBI_MAIL_DOMAIN` to
//! it (it also works as the MX of that domain itself; SPF then sees the sender's own
//! address).
//!
//! A careful minimal state machine rather than a crate: the maintained Rust SMTP server
//! crates either run their own threads outside tokio (`mailin-embedded`) or are
//! unmaintained (`samotop`, `smtpbis`), and all this needs is the one transaction of a
//! relayed reply:
//!
//! - `EHLO`/`HELO`, `MAIL FROM` (with `SIZE=` and `BODY=`), `RCPT TO`, `DATA` (dot-unstuffed),
//!   `RSET`, `NOOP`, `QUIT`; `VRFY` answers 252, `HELP` 214, anything else 500/502;
//! - Postfix's `XFORWARD` (`ADDR`, `HELO`, and `NAME`, `PORT`, `PROTO`, `IDENT`,
//!   `SOURCE` taken and ignored), offered and accepted only from the relays of
//!   `DJAMBI_SMTP_XFORWARD_FROM` (550 from anyone else) and outside a transaction: the
//!   original client's address and `HELO` are then what SPF checks, until the
//!   transaction ends;
//! - `SIZE` is advertised and enforced: a `SIZE=` over it is refused at `MAIL` (552), a
//!   message over it at the end of `DATA` (552, read to its end, nothing kept);
//! - recipients are refused at `RCPT` (550) unless they are `move+TOKEN@DJAMBI_MAIL_DOMAIN`
//!   with a token that exists: nothing is accepted that would have to bounce;
//! - what is accepted is answered `250` whatever it leads to (played, refused with an
//!   answer mail, dropped): the server never bounces, so no delivery status notification
//!   ever goes to a forged sender; a failure of the database is `451` (the MTA retries);
//! - command lines are at most 512 octets, text lines 1000 (RFC 5321 §4.5.3.1);
//! - idle connections are closed with 421: one that has not begun a mail (`MAIL`) within
//!   `DJAMBI_SMTP_IDLE_TIMEOUT_BEFORE_MAIL` of connecting (or of its last mail's end), one
//!   inside a mail silent for `DJAMBI_SMTP_IDLE_TIMEOUT`, any open for
//!   `DJAMBI_SMTP_SESSION_TIMEOUT`. Only what moves a mail on (`MAIL`, `RCPT`, `DATA` and
//!   its lines, the end of a transaction) counts as activity: `NOOP`, `RSET` outside a
//!   mail, `VRFY`, `HELP`, `EHLO` again never keep a connection open;
//! - at most [`MAX_CONNECTIONS`] at once, and `DJAMBI_SMTP_CONNECTIONS_PER_ADDRESS` from one
//!   client address (an IPv6 address counts as its /64; the relays of
//!   `DJAMBI_SMTP_XFORWARD_FROM` are exempt), so one client cannot hold every place;
//!   [`MAX_RECIPIENTS`] recipients a message, [`MAX_ERRORS`] bad commands a connection.
//!
//! The message goes to [`crate::mail_moves::receive::receive`], the same use case as
//! `POST /v1/inbound-mail`, with the envelope: the peer's address, the `EHLO` name and
//! the `MAIL FROM` are what SPF checks.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::{Either, select};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, timeout_at};

use crate::mail_moves::receive::{self, ReceiveError, Recipient};
use crate::mail_moves::{Envelope, MailMovesCtx};
use crate::shutdown::Shutdown;

/// The longest command line, CRLF included (RFC 5321 §4.5.3.1.4).
pub const MAX_COMMAND_LINE: usize = 512;
/// The longest text line of a message, CRLF included (RFC 5321 §4.5.3.1.6).
pub const MAX_TEXT_LINE: usize = 1000;
/// Recipients of one message (RFC 5321 asks for at least 100; a reply has one).
pub const MAX_RECIPIENTS: usize = 10;
/// Connections served at once; more are told 421 and closed.
pub const MAX_CONNECTIONS: usize = 64;
/// Bad commands on one connection before it is closed.
pub const MAX_ERRORS: u32 = 10;

/// What the listener needs.
pub struct SmtpListener {
    /// Bound at start-up (so a taken port fails the start).
    pub listener: std::net::TcpListener,
    pub ctx: MailMovesCtx,
    /// The name the listener greets with (the mail domain).
    pub hostname: String,
    /// The largest message (advertised as `SIZE`).
    pub max_bytes: usize,
    /// Silence allowed inside a mail (`DJAMBI_SMTP_IDLE_TIMEOUT`).
    pub idle: Duration,
    /// Time allowed to begin a mail (`DJAMBI_SMTP_IDLE_TIMEOUT_BEFORE_MAIL`).
    pub idle_before_mail: Duration,
    /// Connections one client address may hold (`DJAMBI_SMTP_CONNECTIONS_PER_ADDRESS`).
    pub per_address: usize,
    pub session: Duration,
    /// The relays whose `XFORWARD` is believed (`DJAMBI_SMTP_XFORWARD_FROM`).
    pub xforward_from: Vec<ipnet::IpNet>,
}

struct Conf {
    ctx: MailMovesCtx,
    hostname: String,
    max_bytes: usize,
    idle: Duration,
    idle_before_mail: Duration,
    per_address: usize,
    session: Duration,
    xforward_from: Vec<ipnet::IpNet>,
}

/// The open connections of each client address.
#[derive(Default)]
struct PerAddress {
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// A connection's place among its address's; given back on drop.
struct Place {
    key: IpAddr,
    of: Arc<PerAddress>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self.of.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// What a client address is counted as: itself, an IPv6 address its /64 (one host
/// usually has a whole /64 to pick from).
fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let mut octets = v6.octets();
            octets[8..].fill(0);
            IpAddr::V6(octets.into())
        }
        v4 => v4,
    }
}

impl PerAddress {
    /// A place for one more connection from `ip`, unless it holds `cap` already.
    fn admit(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<Place> {
        let key = client_key(ip);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let n = open.entry(key).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(Place {
            key,
            of: self.clone(),
        })
    }
}

/// Starts accepting connections; it stops accepting at shutdown.
pub fn spawn(l: SmtpListener, shutdown: &Shutdown) {
    let stop = shutdown.token();
    let conf = Arc::new(Conf {
        ctx: l.ctx,
        hostname: l.hostname,
        max_bytes: l.max_bytes,
        idle: l.idle,
        idle_before_mail: l.idle_before_mail.min(l.idle),
        per_address: l.per_address,
        session: l.session,
        xforward_from: l.xforward_from,
    });
    let std_listener = l.listener;
    shutdown.spawn("smtp", async move {
        let listener = match std_listener
            .set_nonblocking(true)
            .and_then(|_| TcpListener::from_std(std_listener))
        {
            Ok(l) => l,
            Err(e) => {
                tracing::error!(error = %e, "the SMTP listener could not start");
                return;
            }
        };
        let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let per_address = Arc::new(PerAddress::default());
        loop {
            let accepted = {
                let stopped = std::pin::pin!(stop.cancelled());
                let accept = std::pin::pin!(listener.accept());
                match select(stopped, accept).await {
                    Either::Left(_) => break,
                    Either::Right((a, _)) => a,
                }
            };
            match accepted {
                Ok((mut stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    let relay = conf
                        .xforward_from
                        .iter()
                        .any(|n| n.contains(&peer.ip().to_canonical()));
                    // `Some(None)`: a relay, not counted; `None`: its address is full.
                    let place = if relay {
                        Some(None)
                    } else {
                        per_address.admit(peer.ip(), conf.per_address).map(Some)
                    };
                    let permit = place
                        .is_some()
                        .then(|| slots.clone().try_acquire_owned().ok())
                        .flatten();
                    let conf = conf.clone();
                    tokio::task::spawn_local(async move {
                        let refusal: &[u8] = match (&place, permit) {
                            (Some(_), Some(_permit)) => {
                                serve(stream, peer, &conf).await;
                                return;
                            }
                            (None, _) => {
                                conf.ctx.metrics.smtp_refused("connections_per_address");
                                b"421 4.7.0 Too many connections from your address, try again later\r\n"
                            }
                            (_, None) => b"421 4.3.2 Too busy, try again later\r\n",
                        };
                        let _ = stream.write_all(refusal).await;
                        drop(place);
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "SMTP accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    });
}

/// A line read from the client.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// The line, its line ending included.
    Ok,
    /// Longer than allowed (read to its end and dropped).
    TooLong,
    /// The connection closed (or ended in the middle of a line).
    Eof,
}

/// Reads one line of at most `max` octets (line ending included) into `out`.
async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    max: usize,
    out: &mut Vec<u8>,
) -> std::io::Result<Line> {
    out.clear();
    let mut too_long = false;
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            return Ok(Line::Eof);
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..=i], true),
            None => (buf, false),
        };
        let n = chunk.len();
        if !too_long {
            if out.len() + n > max {
                too_long = true;
                out.clear();
            } else {
                out.extend_from_slice(chunk);
            }
        }
        r.consume(n);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Ok });
        }
    }
}

/// The line without its line ending.
fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// One transaction's state.
#[derive(Default)]
struct Transaction {
    mail_from: Option<String>,
    rcpt: Vec<String>,
    /// The original client's address and `HELO` name, from a relay's `XFORWARD`.
    forwarded_addr: Option<IpAddr>,
    forwarded_helo: Option<String>,
}

/// How a read ended when it did not give a line.
enum Stop {
    Timeout,
    Closed,
}

struct Session<'a, S> {
    io: BufReader<S>,
    conf: &'a Conf,
    peer: IpAddr,
    ends_at: Instant,
    /// The last activity (see the module): the idle timeouts count from here.
    active_at: Instant,
    helo: Option<String>,
    tx: Transaction,
    errors: u32,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Session<'_, S> {
    async fn reply(&mut self, text: &str) -> std::io::Result<()> {
        let io = self.io.get_mut();
        io.write_all(text.as_bytes()).await?;
        io.write_all(b"\r\n").await?;
        io.flush().await
    }

    /// Reads a line under the idle and the session timeouts: the idle one counts from the
    /// last activity, not from the last line, so lines that do nothing cannot extend it.
    async fn line(&mut self, max: usize, out: &mut Vec<u8>) -> Result<Line, Stop> {
        let idle = if self.tx.mail_from.is_some() {
            self.conf.idle
        } else {
            self.conf.idle_before_mail
        };
        let deadline = (self.active_at + idle).min(self.ends_at);
        match timeout_at(deadline, read_line(&mut self.io, max, out)).await {
            Err(_) => Err(Stop::Timeout),
            Ok(Err(_)) | Ok(Ok(Line::Eof)) => Err(Stop::Closed),
            Ok(Ok(l)) => Ok(l),
        }
    }

    /// Whether the peer is a relay whose `XFORWARD` is believed.
    fn may_xforward(&self) -> bool {
        self.conf
            .xforward_from
            .iter()
            .any(|n| n.contains(&self.peer))
    }

    /// A bad command: answered; `false` when the connection must close.
    async fn bad(&mut self, text: &str) -> std::io::Result<bool> {
        self.errors += 1;
        if self.errors >= MAX_ERRORS {
            self.reply("421 4.7.0 Too many errors, closing").await?;
            return Ok(false);
        }
        self.reply(text).await?;
        Ok(true)
    }
}

/// Serves one connection to its end.
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(stream: S, peer: SocketAddr, conf: &Conf) {
    let mut s = Session {
        io: BufReader::new(stream),
        conf,
        peer: peer.ip(),
        ends_at: Instant::now() + conf.session,
        active_at: Instant::now(),
        helo: None,
        tx: Transaction::default(),
        errors: 0,
    };
    if let Err(e) = converse(&mut s).await {
        tracing::debug!(error = %e, peer = %peer, "SMTP connection ended");
    }
}

async fn converse<S: AsyncRead + AsyncWrite + Unpin>(
    s: &mut Session<'_, S>,
) -> std::io::Result<()> {
    let host = s.conf.hostname.clone();
    s.reply(&format!("220 {host} ESMTP Djambi moves by mail"))
        .await?;
    let mut buf = Vec::with_capacity(MAX_COMMAND_LINE);
    loop {
        match s.line(MAX_COMMAND_LINE, &mut buf).await {
            Err(Stop::Closed) => return Ok(()),
            Err(Stop::Timeout) => {
                return s.reply("421 4.4.2 Timeout, closing").await;
            }
            Ok(Line::TooLong) => {
                if !s.bad("500 5.5.2 Line too long").await? {
                    return Ok(());
                }
                continue;
            }
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(trim_eol(&buf)).into_owned();
        let (verb, arg) = match line.split_once(' ') {
            Some((v, a)) => (v.to_ascii_uppercase(), a.trim().to_string()),
            None => (line.trim().to_ascii_uppercase(), String::new()),
        };
        match verb.as_str() {
            "EHLO" | "HELO" => {
                if arg.is_empty() || arg.contains(char::is_whitespace) {
                    if !s.bad("501 5.5.4 Syntax: EHLO domain").await? {
                        return Ok(());
                    }
                    continue;
                }
                s.helo = Some(arg.clone());
                s.tx = Transaction::default();
                if verb == "EHLO" {
                    let max = s.conf.max_bytes;
                    let xforward = if s.may_xforward() {
                        "250-XFORWARD NAME ADDR PORT PROTO HELO IDENT SOURCE\r\n"
                    } else {
                        ""
                    };
                    s.reply(&format!(
                        "250-{host} greets {arg}\r\n250-SIZE {max}\r\n250-8BITMIME\r\n\
                         {xforward}250-PIPELINING\r\n250-ENHANCEDSTATUSCODES\r\n250 SMTPUTF8"
                    ))
                    .await?;
                } else {
                    s.reply(&format!("250 {host}")).await?;
                }
            }
            "MAIL" => {
                if s.helo.is_none() {
                    if !s.bad("503 5.5.1 EHLO first").await? {
                        return Ok(());
                    }
                    continue;
                }
                if s.tx.mail_from.is_some() {
                    if !s.bad("503 5.5.1 Nested MAIL command").await? {
                        return Ok(());
                    }
                    continue;
                }
                let Some((path, params)) = path_after(&arg, "FROM:") else {
                    if !s.bad("501 5.5.4 Syntax: MAIL FROM:<address>").await? {
                        return Ok(());
                    }
                    continue;
                };
                match check_params(&params, s.conf.max_bytes) {
                    Ok(()) => {}
                    Err(reply) => {
                        s.reply(reply).await?;
                        continue;
                    }
                }
                s.tx.mail_from = Some(path);
                s.active_at = Instant::now();
                s.reply("250 2.1.0 OK").await?;
            }
            "RCPT" => {
                if s.tx.mail_from.is_none() {
                    if !s.bad("503 5.5.1 MAIL first").await? {
                        return Ok(());
                    }
                    continue;
                }
                let Some((path, _)) = path_after(&arg, "TO:") else {
                    if !s.bad("501 5.5.4 Syntax: RCPT TO:<address>").await? {
                        return Ok(());
                    }
                    continue;
                };
                if s.tx.rcpt.len() >= MAX_RECIPIENTS {
                    s.reply("452 4.5.3 Too many recipients").await?;
                    continue;
                }
                match receive::recipient(&s.conf.ctx, &path).await {
                    Ok(Recipient::Live) => {
                        s.tx.rcpt.push(path);
                        s.active_at = Instant::now();
                        s.reply("250 2.1.5 OK").await?;
                    }
                    Ok(Recipient::Spent) => {
                        s.conf.ctx.metrics.smtp_refused("spent_recipient");
                        if !s
                            .bad("550 5.1.1 This reply address is used, expired or locked")
                            .await?
                        {
                            return Ok(());
                        }
                    }
                    Ok(Recipient::Unknown) | Err(ReceiveError::Off) => {
                        s.conf.ctx.metrics.smtp_refused("unknown_recipient");
                        if !s.bad("550 5.1.1 No such reply address").await? {
                            return Ok(());
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "SMTP recipient check failed");
                        s.reply("451 4.3.0 Temporary failure, try again later")
                            .await?;
                    }
                }
            }
            "DATA" => {
                if !arg.is_empty() {
                    if !s.bad("501 5.5.4 DATA takes no argument").await? {
                        return Ok(());
                    }
                    continue;
                }
                if s.tx.mail_from.is_none() {
                    if !s.bad("503 5.5.1 MAIL first").await? {
                        return Ok(());
                    }
                    continue;
                }
                if s.tx.rcpt.is_empty() {
                    if !s.bad("554 5.5.1 No valid recipients").await? {
                        return Ok(());
                    }
                    continue;
                }
                s.active_at = Instant::now();
                s.reply("354 End data with <CR><LF>.<CR><LF>").await?;
                let message = match read_data(s).await {
                    Ok(m) => m,
                    Err(Stop::Closed) => return Ok(()),
                    Err(Stop::Timeout) => {
                        return s.reply("421 4.4.2 Timeout, closing").await;
                    }
                };
                let tx = std::mem::take(&mut s.tx);
                let reply = match message {
                    Data::TooBig => {
                        s.conf.ctx.metrics.smtp_refused("too_big");
                        format!(
                            "552 5.3.4 Message too big (at most {} bytes)",
                            s.conf.max_bytes
                        )
                    }
                    Data::LineTooLong => {
                        s.conf.ctx.metrics.smtp_refused("line_too_long");
                        "500 5.5.2 Line too long (at most 1000 octets)".to_string()
                    }
                    Data::Message(raw) => {
                        let envelope = Envelope {
                            peer: tx.forwarded_addr.unwrap_or(s.peer),
                            helo: tx
                                .forwarded_helo
                                .or_else(|| s.helo.clone())
                                .unwrap_or_default(),
                            mail_from: tx.mail_from.unwrap_or_default(),
                            rcpt: tx.rcpt,
                        };
                        match receive::receive(&s.conf.ctx, raw, Some(envelope)).await {
                            Ok(outcome) => {
                                format!("250 2.0.0 OK: {}", outcome.as_str())
                            }
                            Err(ReceiveError::Off) => {
                                "554 5.3.2 Moves by mail are off".to_string()
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "an inbound mail failed");
                                "451 4.3.0 Temporary failure, try again later".to_string()
                            }
                        }
                    }
                };
                s.reply(&reply).await?;
                // A mail ended: the time to begin the next counts from its answer.
                s.active_at = Instant::now();
            }
            "RSET" => {
                // Ending a mail is activity; an RSET outside one is not.
                if s.tx.mail_from.is_some() {
                    s.active_at = Instant::now();
                }
                s.tx = Transaction::default();
                s.reply("250 2.0.0 OK").await?;
            }
            "XFORWARD" => {
                if !s.may_xforward() {
                    if !s.bad("550 5.7.0 XFORWARD is not allowed from this address").await? {
                        return Ok(());
                    }
                    continue;
                }
                if s.tx.mail_from.is_some() {
                    if !s.bad("503 5.5.1 XFORWARD inside a transaction").await? {
                        return Ok(());
                    }
                    continue;
                }
                match xforward(&arg) {
                    Ok((addr, helo)) => {
                        if addr.is_some() {
                            s.tx.forwarded_addr = addr;
                        }
                        if helo.is_some() {
                            s.tx.forwarded_helo = helo;
                        }
                        s.reply("250 2.0.0 OK").await?;
                    }
                    Err(reply) => {
                        if !s.bad(reply).await? {
                            return Ok(());
                        }
                    }
                }
            }
            "NOOP" => s.reply("250 2.0.0 OK").await?,
            "QUIT" => {
                return s.reply(&format!("221 2.0.0 {host} closing")).await;
            }
            "VRFY" => {
                s.reply("252 2.5.0 Cannot verify, but will take the message")
                    .await?
            }
            "HELP" => {
                s.reply(
                    "214 2.0.0 Reply to a turn mail; commands: EHLO HELO MAIL RCPT DATA RSET NOOP QUIT",
                )
                .await?
            }
            "STARTTLS" | "AUTH" | "BDAT" | "ETRN" | "EXPN" | "TURN" => {
                if !s.bad("502 5.5.1 Not implemented").await? {
                    return Ok(());
                }
            }
            _ => {
                if !s.bad("500 5.5.1 Unknown command").await? {
                    return Ok(());
                }
            }
        }
    }
}

/// What `DATA` read.
enum Data {
    Message(Vec<u8>),
    TooBig,
    LineTooLong,
}

/// Reads the message up to the line with a single dot, unstuffing leading dots; past the
/// size limit it reads on to the end but keeps nothing.
async fn read_data<S: AsyncRead + AsyncWrite + Unpin>(
    s: &mut Session<'_, S>,
) -> Result<Data, Stop> {
    let max = s.conf.max_bytes;
    let mut message = Vec::new();
    let mut too_big = false;
    let mut too_long = false;
    let mut line = Vec::with_capacity(MAX_TEXT_LINE);
    loop {
        // Room for a line one octet longer, so a line of 1001 octets is told from one of
        // 1000 whose leading dot is stuffed.
        match s.line(MAX_TEXT_LINE + 1, &mut line).await? {
            Line::TooLong => {
                too_long = true;
                continue;
            }
            Line::Eof => return Err(Stop::Closed),
            Line::Ok => {}
        }
        s.active_at = Instant::now();
        if trim_eol(&line) == b"." {
            break;
        }
        let text = match line.strip_prefix(b".") {
            Some(rest) => rest,
            None => &line[..],
        };
        if text.len() > MAX_TEXT_LINE {
            too_long = true;
            continue;
        }
        if too_big || message.len() + text.len() > max {
            too_big = true;
            message = Vec::new();
            continue;
        }
        message.extend_from_slice(text);
    }
    Ok(if too_big {
        Data::TooBig
    } else if too_long {
        Data::LineTooLong
    } else {
        Data::Message(message)
    })
}

/// The original client's address and `HELO` of an `XFORWARD` command's attributes
/// (`NAME=... ADDR=... HELO=...`, values in xtext; `[UNAVAILABLE]` and `[TEMPUNAVAIL]`
/// say nothing), or the reply to a bad one.
fn xforward(arg: &str) -> Result<(Option<IpAddr>, Option<String>), &'static str> {
    if arg.is_empty() {
        return Err("501 5.5.4 Syntax: XFORWARD attribute=value...");
    }
    let (mut addr, mut helo) = (None, None);
    for pair in arg.split_ascii_whitespace() {
        let (name, value) = pair
            .split_once('=')
            .ok_or("501 5.5.4 Syntax: XFORWARD attribute=value...")?;
        let value = xtext(value).ok_or("501 5.5.4 Bad xtext in XFORWARD")?;
        let known = !matches!(value.as_str(), "[UNAVAILABLE]" | "[TEMPUNAVAIL]");
        match name.to_ascii_uppercase().as_str() {
            "ADDR" if known => {
                let text = value
                    .strip_prefix("IPV6:")
                    .or_else(|| value.strip_prefix("ipv6:"))
                    .unwrap_or(&value);
                addr = Some(
                    text.parse()
                        .map_err(|_| "501 5.5.4 XFORWARD ADDR is not an address")?,
                );
            }
            "HELO" if known => {
                if value.is_empty() || value.contains(char::is_whitespace) {
                    return Err("501 5.5.4 XFORWARD HELO is not a name");
                }
                helo = Some(value);
            }
            "ADDR" | "HELO" | "NAME" | "PORT" | "PROTO" | "IDENT" | "SOURCE" => {}
            _ => return Err("501 5.5.4 Unknown XFORWARD attribute"),
        }
    }
    Ok((addr, helo))
}

/// Decodes RFC 3461's xtext (`+XX` for a byte in hexadecimal).
fn xtext(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'+' {
            let hex = value.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `FROM:<path> params` / `TO:<path> params`: the path (without brackets) and the params.
fn path_after(arg: &str, keyword: &str) -> Option<(String, String)> {
    let head = arg.get(..keyword.len())?;
    if !head.eq_ignore_ascii_case(keyword) {
        return None;
    }
    let rest = arg[keyword.len()..].trim_start();
    let (path, params) = if let Some(inner) = rest.strip_prefix('<') {
        let end = inner.find('>')?;
        (&inner[..end], inner[end + 1..].trim())
    } else {
        match rest.split_once(' ') {
            Some((p, q)) => (p, q.trim()),
            None => (rest, ""),
        }
    };
    // A source route (`@a,@b:user@c`) names only its last part.
    let path = path.rsplit_once(':').map_or(path, |(_, p)| p);
    if path.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    Some((path.to_string(), params.to_string()))
}

/// The `MAIL` parameters: `SIZE=` within the limit, `BODY=7BIT|8BITMIME`, `SMTPUTF8`.
fn check_params(params: &str, max: usize) -> Result<(), &'static str> {
    for p in params.split_whitespace() {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        match k.to_ascii_uppercase().as_str() {
            "SIZE" => match v.parse::<u64>() {
                Ok(n) if n > max as u64 => {
                    return Err("552 5.3.4 Message size exceeds the fixed maximum");
                }
                Ok(_) => {}
                Err(_) => return Err("501 5.5.4 Bad SIZE"),
            },
            "BODY" if v.eq_ignore_ascii_case("7BIT") || v.eq_ignore_ascii_case("8BITMIME") => {}
            "SMTPUTF8" if v.is_empty() => {}
            _ => return Err("555 5.5.4 Unsupported parameter"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xforward_attributes() {
        assert_eq!(
            xforward("NAME=mx.example.org ADDR=192.0.2.7 PROTO=ESMTP HELO=mx.example.org"),
            Ok((
                Some("192.0.2.7".parse().unwrap()),
                Some("mx.example.org".to_string())
            ))
        );
        assert_eq!(
            xforward("addr=IPV6:2001:db8::1 helo=[UNAVAILABLE]"),
            Ok((Some("2001:db8::1".parse().unwrap()), None))
        );
        assert_eq!(xforward("HELO=a+2Bb"), Ok((None, Some("a+b".to_string()))));
        assert_eq!(
            xforward("ADDR=[TEMPUNAVAIL] SOURCE=REMOTE"),
            Ok((None, None))
        );
        assert!(xforward("").is_err());
        assert!(xforward("ADDR=not-an-ip").is_err());
        assert!(xforward("COLOUR=red").is_err());
        assert!(xforward("ADDR").is_err());
        assert!(xforward("HELO=a+zz").is_err());
        assert!(xforward("HELO=a+2").is_err());
    }

    #[test]
    fn paths_and_parameters() {
        assert_eq!(
            path_after("FROM:<a@b.example> SIZE=10", "FROM:"),
            Some(("a@b.example".into(), "SIZE=10".into()))
        );
        assert_eq!(
            path_after("from: <>", "FROM:"),
            Some((String::new(), String::new()))
        );
        assert_eq!(
            path_after("TO:<@relay.example:move+x@d.example>", "TO:"),
            Some(("move+x@d.example".into(), String::new()))
        );
        assert_eq!(path_after("TO:<unclosed", "TO:"), None);
        assert_eq!(path_after("FROX:<a@b>", "FROM:"), None);
        assert_eq!(check_params("SIZE=100 BODY=8BITMIME", 100), Ok(()));
        assert!(
            check_params("SIZE=101", 100)
                .unwrap_err()
                .starts_with("552")
        );
        assert!(check_params("SIZE=x", 100).unwrap_err().starts_with("501"));
        assert!(
            check_params("RET=FULL", 100)
                .unwrap_err()
                .starts_with("555")
        );
    }

    #[test]
    fn an_ipv6_client_counts_as_its_64_and_places_are_given_back() {
        let places = Arc::new(PerAddress::default());
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::7".parse().unwrap();
        let first = places.admit(a, 2).unwrap();
        let _second = places.admit(b, 2).unwrap();
        assert!(places.admit(a, 2).is_none(), "the /64 is full");
        assert!(
            places
                .admit("2001:db8:1:3::1".parse().unwrap(), 2)
                .is_some()
        );
        let _mapped = places
            .admit("::ffff:192.0.2.1".parse().unwrap(), 1)
            .unwrap();
        assert!(
            places.admit("192.0.2.1".parse().unwrap(), 1).is_none(),
            "a mapped IPv4 address is that address"
        );
        drop(first);
        assert!(places.admit(b, 2).is_some(), "a place given back");
    }

    #[actix_web::test]
    async fn lines_are_limited_and_read_to_their_end() {
        let input: &[u8] = b"short\r\nthis one is much too long\r\nok\n";
        let mut r = BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        assert_eq!(read_line(&mut r, 10, &mut out).await.unwrap(), Line::Ok);
        assert_eq!(out, b"short\r\n");
        assert_eq!(
            read_line(&mut r, 10, &mut out).await.unwrap(),
            Line::TooLong
        );
        assert_eq!(read_line(&mut r, 10, &mut out).await.unwrap(), Line::Ok);
        assert_eq!(trim_eol(&out), b"ok");
        assert_eq!(read_line(&mut r, 10, &mut out).await.unwrap(), Line::Eof);
    }
}
