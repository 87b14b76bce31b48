//! Prometheus metrics, served at `/metrics` (text exposition format) by
//! `metrics-exporter-prometheus`, without an HTTP listener of its own (the endpoint is
//! `crate::routes::metrics`; the database-backed gauges are read by `crate::games::stats`).
//!
//! Each server has its own recorder ([`Metrics`], in `AppState`), so several servers in one
//! process (the tests) count separately. What is measured:
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `djambi_http_requests_total` | counter | `method`, `route` (the route template, e.g. `/v1/games/{id}/moves`; `unmatched` for unknown paths), `status` |
//! | `djambi_http_request_duration_seconds` | histogram | `method`, `route` |
//! | `djambi_http_requests_in_flight` | gauge | |
//! | `djambi_moves_played_total` | counter | (201 answers to `POST /v1/games/{id}/moves`, replays excluded) |
//! | `djambi_games` | gauge | `status` (`open`, `active`, `finished`; read from the database at each scrape, so every instance reports the whole site's numbers) |
//! | `djambi_db_pool_connections` | gauge | `state` (`idle`, `in_use`) |
//! | `djambi_db_pool_max_connections` | gauge | |
//! | `djambi_outbox_backlog` | gauge | (set by the notification workers through [`Metrics::outbox_backlog`]) |
//! | `djambi_outbox_delivery_failures_total` | counter | (through [`Metrics::outbox_delivery_failed`]) |
//! | `djambi_inbound_mails_total` | counter | `outcome` (`played`, `error:<reason>`, `dropped:<reason>`: what became of a reply by mail; `dropped:rate_*` and `dropped:error_cap` are the limits) |
//! | `djambi_smtp_refused_total` | counter | `reason` (`unknown_recipient`, `spent_recipient`, `too_big`, `line_too_long`, `connections_per_address`: refused by the SMTP listener) |
//!
//! `DJAMBI_METRICS=off` removes the endpoint (404); `DJAMBI_METRICS_TOKEN` makes it require
//! `Authorization: Bearer <token>`. It is not part of the public API document.

use std::time::Duration;

use metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

/// The route label of requests that matched no route (keeps the label set bounded).
pub const UNMATCHED_ROUTE: &str = "unmatched";
/// The route template of the move endpoint, as `match_pattern()` reports it.
pub const MOVES_ROUTE: &str = "/v1/games/{id}/moves";
/// The game statuses always reported (0 when there are none).
const GAME_STATUSES: [&str; 3] = ["open", "active", "finished"];
/// Latency buckets, in seconds: 1 ms to 10 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// One server's metrics.
pub struct Metrics {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics(..)")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
            .expect("static, non-empty buckets")
            .build_recorder();
        let handle = recorder.handle();
        let m = Metrics { recorder, handle };
        m.with(|| {
            describe_counter!("djambi_http_requests_total", "HTTP requests answered");
            describe_histogram!(
                "djambi_http_request_duration_seconds",
                Unit::Seconds,
                "Time to answer an HTTP request"
            );
            describe_gauge!(
                "djambi_http_requests_in_flight",
                "HTTP requests being handled"
            );
            describe_counter!("djambi_moves_played_total", "Moves played (201 answers)");
            describe_gauge!("djambi_games", "Games by status (whole database)");
            describe_gauge!("djambi_db_pool_connections", "Pooled database connections");
            describe_gauge!(
                "djambi_db_pool_max_connections",
                "The database pool's size (DJAMBI_DB_POOL_SIZE)"
            );
            describe_gauge!(
                "djambi_outbox_backlog",
                "Notifications waiting in the outbox"
            );
            describe_counter!(
                "djambi_outbox_delivery_failures_total",
                "Failed notification delivery attempts"
            );
            describe_counter!(
                "djambi_inbound_mails_total",
                "Replies by mail received, by what became of them"
            );
            describe_counter!(
                "djambi_smtp_refused_total",
                "Recipients and messages refused by the SMTP listener"
            );
            counter!("djambi_moves_played_total").absolute(0);
        });
        m
    }

    fn with<T>(&self, f: impl FnOnce() -> T) -> T {
        metrics::with_local_recorder(&self.recorder, f)
    }

    /// A request started (`djambi_http_requests_in_flight`).
    pub fn request_started(&self) {
        self.with(|| gauge!("djambi_http_requests_in_flight").increment(1.0));
    }

    /// A request was answered.
    pub fn request_finished(&self, method: &str, route: &str, status: u16, took: Duration) {
        self.with(|| {
            gauge!("djambi_http_requests_in_flight").decrement(1.0);
            let (method, route) = (method.to_string(), route.to_string());
            counter!(
                "djambi_http_requests_total",
                "method" => method.clone(),
                "route" => route.clone(),
                "status" => status.to_string()
            )
            .increment(1);
            metrics::histogram!(
                "djambi_http_request_duration_seconds",
                "method" => method,
                "route" => route
            )
            .record(took.as_secs_f64());
        });
    }

    /// A move was played (counted by the request middleware from the move endpoint's 201s).
    pub fn move_played(&self) {
        self.with(|| counter!("djambi_moves_played_total").increment(1));
    }

    /// Hook for the notification workers: how many notifications wait in the outbox.
    pub fn outbox_backlog(&self, waiting: u64) {
        self.with(|| gauge!("djambi_outbox_backlog").set(waiting as f64));
    }

    /// Hook for the notification workers: `n` delivery attempts failed.
    pub fn outbox_delivery_failed(&self, n: u64) {
        self.with(|| counter!("djambi_outbox_delivery_failures_total").increment(n));
    }

    /// A reply by mail was received; what became of it (a bounded set of reasons).
    pub fn inbound_mail(&self, outcome: &str) {
        let outcome = outcome.to_string();
        self.with(|| counter!("djambi_inbound_mails_total", "outcome" => outcome).increment(1));
    }

    /// The SMTP listener refused a recipient or a message.
    pub fn smtp_refused(&self, reason: &'static str) {
        self.with(|| counter!("djambi_smtp_refused_total", "reason" => reason).increment(1));
    }

    /// Sets the gauges read at scrape time.
    pub fn set_pool(&self, connections: u32, idle_connections: u32, max: u32) {
        self.with(|| {
            let idle = f64::from(idle_connections);
            let in_use = f64::from(connections.saturating_sub(idle_connections));
            gauge!("djambi_db_pool_connections", "state" => "idle").set(idle);
            gauge!("djambi_db_pool_connections", "state" => "in_use").set(in_use);
            gauge!("djambi_db_pool_max_connections").set(f64::from(max));
        });
    }

    /// Sets `djambi_games` from `(status, count)` rows.
    pub fn set_games(&self, rows: &[(String, i64)]) {
        self.with(|| {
            for status in GAME_STATUSES {
                let n = rows.iter().find(|(s, _)| s == status).map_or(0, |r| r.1);
                gauge!("djambi_games", "status" => status).set(n as f64);
            }
            for (status, n) in rows
                .iter()
                .filter(|(s, _)| !GAME_STATUSES.contains(&s.as_str()))
            {
                gauge!("djambi_games", "status" => status.clone()).set(*n as f64);
            }
        });
    }

    /// The text exposition of everything recorded.
    pub fn render(&self) -> String {
        self.handle.run_upkeep();
        self.handle.render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_requests_moves_and_games() {
        let m = Metrics::new();
        m.request_started();
        m.request_finished("POST", MOVES_ROUTE, 201, Duration::from_millis(3));
        m.move_played();
        m.set_games(&[("active".into(), 2)]);
        m.outbox_backlog(4);
        let text = m.render();
        for needle in [
            r#"djambi_http_requests_total{method="POST",route="/v1/games/{id}/moves",status="201"} 1"#,
            r#"djambi_http_request_duration_seconds_bucket{method="POST",route="/v1/games/{id}/moves",le="0.005"} 1"#,
            "djambi_moves_played_total 1",
            r#"djambi_games{status="active"} 2"#,
            r#"djambi_games{status="open"} 0"#,
            "djambi_outbox_backlog 4",
            "# TYPE djambi_http_request_duration_seconds histogram",
        ] {
            assert!(text.contains(needle), "missing {needle} in\n{text}");
        }
        // Another server's metrics are its own.
        assert!(
            Metrics::new()
                .render()
                .contains("djambi_moves_played_total 0")
        );
    }
}
