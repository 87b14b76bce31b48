//! Server-Sent Events fed by polling the database, shared by the streams of a game's
//! events and of a player's notifications. Polling (every `DJAMBI_NOTIFY_POLL`) rather
//! than an in-process channel, so what any server instance writes arrives.
//!
//! The stream starts with `retry: 2000` (how long a client waits before reconnecting),
//! polls again at once after a poll that found something (catching up a backlog), sends a
//! comment line after [`KEEP_ALIVE`] of silence so proxies keep it open, and ends when the
//! server begins to stop (within a poll interval), so a graceful shutdown is not held up by open streams (clients
//! reconnect elsewhere with `Last-Event-ID`).

use std::future::Future;
use std::time::Duration;

use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::Bytes;
use futures_util::future::{Either, select};

use crate::state::AppState;

/// A comment line is sent when nothing else was for this long.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One SSE event: `id:`, `event:` and one `data:` line (`data` must not hold a newline;
/// serde_json's compact output never does).
pub fn event(id: impl std::fmt::Display, kind: &str, data: &str) -> String {
    format!("id: {id}\nevent: {kind}\ndata: {data}\n\n")
}

/// The `200 text/event-stream` answer of a polled stream. `poll` gets the cursor and
/// returns the next one and the text of the events it found (empty: nothing new).
pub fn polled<C, F, Fut>(app: &AppState, cursor: C, poll: F) -> HttpResponse
where
    C: 'static,
    F: FnMut(C) -> Fut + 'static,
    Fut: Future<Output = (C, String)> + 'static,
{
    struct S<C, F> {
        cursor: Option<C>,
        poll: F,
        first: bool,
        quiet: Duration,
    }
    let every = app.config.notify_poll.max(Duration::from_millis(1));
    let shutdown = app.shutdown.clone();
    let s = S {
        cursor: Some(cursor),
        poll,
        first: true,
        quiet: Duration::ZERO,
    };
    let stream = futures_util::stream::unfold(s, move |mut s| {
        let shutdown = shutdown.clone();
        async move {
            if s.first {
                s.first = false;
                return Some((Ok::<_, actix_web::Error>(Bytes::from("retry: 2000\n\n")), s));
            }
            loop {
                // Draining: the server waits for open answers, so end this one now.
                if shutdown.is_draining() {
                    return None;
                }
                let (cursor, text) = (s.poll)(s.cursor.take()?).await;
                s.cursor = Some(cursor);
                if !text.is_empty() {
                    s.quiet = Duration::ZERO;
                    return Some((Ok(Bytes::from(text)), s));
                }
                let rest = std::pin::pin!(actix_web::rt::time::sleep(every));
                let stopped = std::pin::pin!(shutdown.token().cancelled_owned());
                if let Either::Right(_) = select(rest, stopped).await {
                    return None;
                }
                s.quiet += every;
                if s.quiet >= KEEP_ALIVE {
                    s.quiet = Duration::ZERO;
                    return Some((Ok(Bytes::from(": keep-alive\n\n")), s));
                }
            }
        }
    });
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream)
}
