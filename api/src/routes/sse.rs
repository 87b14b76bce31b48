//! Server-Sent Events of the live streams (see `crate::live`), shared by the streams of
//! a game's events and of a player's notifications: the stream is fed by the instance's
//! fan-out, never by polling the database.
//!
//! The stream starts with `retry: 2000` (how long a client waits before reconnecting),
//! sends a comment line after [`KEEP_ALIVE`] of silence so proxies keep it open, and ends
//! when the server begins to stop, so a graceful shutdown is not held up by open streams
//! (clients reconnect elsewhere with `Last-Event-ID`). A stream also ends after
//! `DJAMBI_STREAM_MAX_LIFETIME` (clients reconnect with `Last-Event-ID`), and a stream
//! opened with credentials ends as soon as they stop holding (a [`Guard`]).

use std::time::{Duration, Instant};

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpResponse, web};
use futures_util::future::{Either, LocalBoxFuture, select};
use futures_util::{Stream, StreamExt};

use crate::accounts::authenticate::{self, Credential};
use crate::routes::caller::{AuthVia, Authenticated};
use crate::shutdown::Shutdown;
use crate::state::AppState;

/// A comment line is sent when nothing else was for this long.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One SSE event: `id:`, `event:` and one `data:` line (`data` must not hold a newline;
/// serde_json's compact output never does).
pub fn event(id: impl std::fmt::Display, kind: &str, data: &str) -> String {
    format!("id: {id}\nevent: {kind}\ndata: {data}\n\n")
}

/// What keeps a stream opened with credentials honest: `check(periodic)` answers whether
/// they still admit the caller (see [`authenticate::still_admitted`]). The stream checks
/// when the hub says a credential of its user ended (`changes`: a session or token
/// revoked or deleted, signalled by the database at commit), every
/// `DJAMBI_STREAM_RECHECK` as a safety net (a personal access token's expiry writes
/// nothing), and before each batch it sends. A check other than before sending takes an
/// answer another stream of the same token got within `DJAMBI_STREAM_RECHECK` (the hub
/// keeps it and forgets it on the user's signal), so N streams of one token cost one read
/// per signal; an idle stream costs none between safety-net checks.
pub struct Guard {
    check: Box<dyn Fn(bool) -> LocalBoxFuture<'static, bool>>,
    changes: tokio::sync::watch::Receiver<u64>,
}

impl Guard {
    /// The guard of a stream opened by `auth`: its session or personal access token must
    /// stay good. A failed read keeps the stream (the next check decides).
    pub fn of(app: &web::Data<AppState>, auth: &Authenticated) -> Guard {
        let app = app.clone();
        let user = auth.user_id.clone();
        let credential = match &auth.via {
            AuthVia::Session { session_id } => Credential::Session(session_id.clone()),
            AuthVia::PersonalAccessToken { token_id } => {
                Credential::PersonalToken(token_id.clone())
            }
        };
        let key = format!("{user}/{credential:?}");
        let changes = app.live.credential_changes(&user);
        Guard {
            changes,
            check: Box::new(move |periodic| {
                let (app, user, credential, key) =
                    (app.clone(), user.clone(), credential.clone(), key.clone());
                Box::pin(async move {
                    if periodic
                        && let Some(good) = app.live.recent_check(&key, app.config.stream_recheck)
                    {
                        return good;
                    }
                    match authenticate::still_admitted(&app.accounts(), user, credential).await {
                        Ok(good) => {
                            app.live.record_check(&key, good);
                            good
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "stream: re-checking its credentials failed");
                            true
                        }
                    }
                })
            }),
        }
    }
}

/// The `200 text/event-stream` answer of a live stream: `texts` gives the text of the
/// events (one item per batch). The stream ends with it, when the server stops, after
/// `DJAMBI_STREAM_MAX_LIFETIME`, and, with a `guard`, as soon as its credentials no longer
/// hold: they are checked when the hub signals that one of the user's ended, every
/// `DJAMBI_STREAM_RECHECK`, and before each batch is sent, so nothing is sent after a
/// revocation.
pub fn live<S>(app: &AppState, texts: S, guard: Option<Guard>) -> HttpResponse
where
    S: Stream<Item = String> + Unpin + 'static,
{
    let body = body(
        texts,
        app.shutdown.clone(),
        guard,
        app.config.stream_recheck,
        app.config.stream_max_lifetime,
    );
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body.map(Ok::<_, actix_web::Error>))
}

struct Body<S> {
    texts: S,
    shutdown: Shutdown,
    guard: Option<Guard>,
    recheck: Duration,
    /// When the stream ends whatever happens.
    end: Instant,
    next_check: Instant,
    last_sent: Instant,
}

/// The bytes of a stream: `retry:`, then the events, keep-alive comments, the checks.
fn body<S>(
    texts: S,
    shutdown: Shutdown,
    guard: Option<Guard>,
    recheck: Duration,
    lifetime: Duration,
) -> impl Stream<Item = Bytes>
where
    S: Stream<Item = String> + Unpin + 'static,
{
    let now = Instant::now();
    let head = futures_util::stream::once(async { Bytes::from_static(b"retry: 2000\n\n") });
    let state = Body {
        texts,
        shutdown,
        guard,
        recheck,
        end: now + lifetime,
        next_check: now + recheck,
        last_sent: now,
    };
    let rest = futures_util::stream::unfold(state, |mut s| async move {
        loop {
            if s.shutdown.is_draining() {
                return None;
            }
            let now = Instant::now();
            if now >= s.end {
                return None;
            }
            if s.guard.is_some() && now >= s.next_check {
                if !s.still_admitted(true).await {
                    return None;
                }
                continue;
            }
            let mut wake = (s.last_sent + KEEP_ALIVE).min(s.end);
            if s.guard.is_some() {
                wake = wake.min(s.next_check);
            }
            let got = {
                let next = std::pin::pin!(tokio::time::timeout_at(wake.into(), s.texts.next()));
                let stopped = std::pin::pin!(s.shutdown.draining().cancelled_owned());
                let changed = std::pin::pin!(credentials_changed(s.guard.as_mut()));
                match select(stopped, select(changed, next)).await {
                    Either::Left(_) => return None,
                    Either::Right((Either::Left(_), _)) => None,
                    Either::Right((Either::Right((got, _)), _)) => Some(got),
                }
            };
            let Some(got) = got else {
                // A credential of the user ended: check at the top of the loop.
                s.next_check = Instant::now();
                continue;
            };
            match got {
                Ok(Some(text)) if text.is_empty() => continue,
                Ok(Some(text)) => {
                    // Nothing goes out on credentials that no longer hold.
                    if s.guard.is_some() && !s.still_admitted(false).await {
                        return None;
                    }
                    s.last_sent = Instant::now();
                    return Some((Bytes::from(text), s));
                }
                Ok(None) => return None,
                Err(_) if Instant::now() >= s.last_sent + KEEP_ALIVE => {
                    s.last_sent = Instant::now();
                    return Some((Bytes::from_static(b": keep-alive\n\n"), s));
                }
                // A check or the end is due: the top of the loop sees to it.
                Err(_) => continue,
            }
        }
    });
    head.chain(rest)
}

/// Resolves when the hub says a credential of the guard's user may have ended; never
/// without a guard (or once the hub dropped the signal, which it does not while a stream
/// holds it).
async fn credentials_changed(guard: Option<&mut Guard>) {
    if let Some(g) = guard
        && g.changes.changed().await.is_ok()
    {
        return;
    }
    std::future::pending().await
}

impl<S> Body<S> {
    async fn still_admitted(&mut self, periodic: bool) -> bool {
        let Some(guard) = &self.guard else {
            return true;
        };
        let good = (guard.check)(periodic).await;
        self.next_check = Instant::now() + self.recheck;
        good
    }
}
