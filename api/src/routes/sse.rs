//! Server-Sent Events of the live streams (see `crate::live`), shared by the streams of
//! a game's events and of a player's notifications: the stream is fed by the instance's
//! fan-out, never by polling the database.
//!
//! The stream starts with `retry: 2000` (how long a client waits before reconnecting),
//! sends a comment line after [`KEEP_ALIVE`] of silence so proxies keep it open, and ends
//! when the server begins to stop, so a graceful shutdown is not held up by open streams
//! (clients reconnect elsewhere with `Last-Event-ID`).

use std::time::Duration;

use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::Bytes;
use futures_util::future::{Either, select};
use futures_util::{Stream, StreamExt};

use crate::state::AppState;

/// A comment line is sent when nothing else was for this long.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One SSE event: `id:`, `event:` and one `data:` line (`data` must not hold a newline;
/// serde_json's compact output never does).
pub fn event(id: impl std::fmt::Display, kind: &str, data: &str) -> String {
    format!("id: {id}\nevent: {kind}\ndata: {data}\n\n")
}

/// The `200 text/event-stream` answer of a live stream: `texts` gives the text of the
/// events (one item per batch); the stream ends with it or when the server stops.
pub fn live<S>(app: &AppState, texts: S) -> HttpResponse
where
    S: Stream<Item = String> + Unpin + 'static,
{
    let shutdown = app.shutdown.clone();
    let head = futures_util::stream::once(async { Bytes::from_static(b"retry: 2000\n\n") });
    let body =
        futures_util::stream::unfold((texts, shutdown), |(mut texts, shutdown)| async move {
            loop {
                if shutdown.is_draining() {
                    return None;
                }
                let next = std::pin::pin!(actix_web::rt::time::timeout(KEEP_ALIVE, texts.next()));
                let stopped = std::pin::pin!(shutdown.draining().cancelled_owned());
                let got = match select(stopped, next).await {
                    Either::Left(_) => return None,
                    Either::Right((got, _)) => got,
                };
                match got {
                    Ok(Some(text)) if text.is_empty() => continue,
                    Ok(Some(text)) => return Some((Bytes::from(text), (texts, shutdown))),
                    Ok(None) => return None,
                    Err(_) => {
                        let alive = Bytes::from_static(b": keep-alive\n\n");
                        return Some((alive, (texts, shutdown)));
                    }
                }
            }
        });
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(head.chain(body).map(Ok::<_, actix_web::Error>))
}
