//! Open connections per client address (`DJAMBI_MAX_CONNECTIONS_PER_ADDRESS`).
//!
//! Each accepted connection takes a place for its peer address ([`ConnLimits::on_connect`],
//! called by `HttpServer::on_connect`); the place is kept in the connection's data and
//! given back when the connection closes (its data is dropped then). A connection that
//! found its address's places all taken is answered, on its first request, with a 429
//! `rate-limited` problem (`Retry-After`) and closed, before its body is read
//! ([`limit_connections`]). `/healthz` and `/readyz` are answered anyway, so a flood from
//! one address never hides the server's health from a probe on the same host.
//!
//! Reverse proxies (`DJAMBI_TRUSTED_PROXIES`) are not counted: all their clients share
//! their address, and bounding those is the proxy's job. The total of open connections is
//! bounded by actix itself (`DJAMBI_MAX_CONNECTIONS`, shared out among the workers; see
//! [`per_worker`]).

use std::any::Any;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use actix_web::ResponseError;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Extensions, ServiceRequest, ServiceResponse};
use actix_web::http::ConnectionType;
use actix_web::middleware::Next;

use crate::error::ApiError;

/// Paths answered whatever the connection counts (probes).
const ALWAYS_ANSWERED: &[&str] = &["/healthz", "/readyz"];

/// How long a client over its cap is told to wait.
const RETRY_AFTER_SECS: u64 = 1;

/// The per-address cap and the open connections it counts.
#[derive(Debug, Clone)]
pub struct ConnLimits {
    per_address: usize,
    exempt: Vec<ipnet::IpNet>,
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One connection's place, in its connection data; given back on drop.
#[derive(Debug)]
pub struct ConnPlace {
    addr: IpAddr,
    /// The address held more than its cap when this connection was accepted.
    pub over: bool,
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for ConnPlace {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = c.get_mut(&self.addr) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.remove(&self.addr);
            }
        }
    }
}

impl ConnLimits {
    pub fn new(per_address: usize, exempt: Vec<ipnet::IpNet>) -> ConnLimits {
        ConnLimits {
            per_address,
            exempt,
            counts: Arc::default(),
        }
    }

    /// Takes a place for a connection from `addr` (`None` for an exempt address).
    pub fn admit(&self, addr: IpAddr) -> Option<ConnPlace> {
        let addr = addr.to_canonical();
        if self.exempt.iter().any(|n| n.contains(&addr)) {
            return None;
        }
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let n = c.entry(addr).or_insert(0);
        *n += 1;
        Some(ConnPlace {
            addr,
            over: *n > self.per_address,
            counts: self.counts.clone(),
        })
    }

    /// Open connections of `addr`.
    pub fn open(&self, addr: IpAddr) -> usize {
        let c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.get(&addr.to_canonical()).copied().unwrap_or(0)
    }

    /// For `HttpServer::on_connect`: puts the connection's place in its data.
    pub fn on_connect(&self, conn: &dyn Any, data: &mut Extensions) {
        let peer = conn
            .downcast_ref::<actix_web::rt::net::TcpStream>()
            .and_then(|s| s.peer_addr().ok());
        if let Some(place) = peer.and_then(|p| self.admit(p.ip())) {
            data.insert(place);
        }
    }
}

/// Connections per worker for a total of `total` over `workers` workers (actix's
/// `max_connections` counts per worker), at least 1.
pub fn per_worker(total: usize, workers: usize) -> usize {
    total.div_ceil(workers.max(1)).max(1)
}

/// Middleware (use with `actix_web::middleware::from_fn`, outside the body limit): a
/// connection over its address's cap gets 429 and is closed.
pub async fn limit_connections(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let over = req.conn_data::<ConnPlace>().is_some_and(|p| p.over);
    if over && !ALWAYS_ANSWERED.contains(&req.path()) {
        let mut res = ApiError::RateLimited {
            retry_after_secs: RETRY_AFTER_SECS,
        }
        .error_response();
        res.head_mut().set_connection_type(ConnectionType::Close);
        return Ok(req.into_response(res).map_into_right_body());
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_counted_per_address_and_given_back() {
        let limits = ConnLimits::new(2, vec!["10.0.0.0/8".parse().unwrap()]);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let p1 = limits.admit(a).unwrap();
        let p2 = limits.admit(a).unwrap();
        let p3 = limits.admit(a).unwrap();
        assert!(!p1.over && !p2.over && p3.over);
        assert!(
            !limits.admit(b).unwrap().over,
            "another address has its own places"
        );
        assert_eq!(limits.open(b), 0, "given back on drop");
        drop(p3);
        drop(p1);
        assert_eq!(limits.open(a), 1);
        assert!(!limits.admit(a).unwrap().over);
        // The same address written as IPv4-mapped IPv6 shares the places.
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        let _q = limits.admit(mapped).unwrap();
        assert_eq!(limits.open(a), 2);
        // Proxies are not counted.
        let proxy: IpAddr = "10.1.2.3".parse().unwrap();
        assert!(limits.admit(proxy).is_none());
        assert_eq!(limits.open(proxy), 0);
        drop(p2);
    }

    #[test]
    fn the_total_is_shared_out_among_workers() {
        assert_eq!(per_worker(1000, 3), 334);
        assert_eq!(per_worker(1000, 1), 1000);
        assert_eq!(per_worker(1, 4), 1);
        assert_eq!(per_worker(8, 0), 8);
    }
}
