//! Play by mail: a player answers the turn mail with a move, and the server plays it
//! through the same game command as the API ([`crate::games::commands`], actor the
//! player, expected version the token's).
//!
//! - [`token`]: the reply address of each turn and reminder mail (`move+TOKEN@DOMAIN`).
//! - [`message`]: what is read of an inbound mail (mail-parser).
//! - [`grammar`]: the first non-empty line and the commands it may say.
//! - [`authenticate`]: DKIM and SPF, aligned with `From` (`DJAMBI_MAIL_AUTH=aligned`).
//! - [`receive`]: the use case: who may move, the command, the answer mail.
//!
//! Two callers hand it mail: `POST /v1/inbound-mail` and the SMTP listener
//! (`crate::workers::smtp`).

pub mod authenticate;
pub mod grammar;
pub mod message;
pub mod receive;
pub mod token;
pub mod wording;

use std::net::IpAddr;
use std::sync::Arc;

use crate::clock::Clock;
use crate::config::{MailAuth, MailLimits};
use crate::metrics::Metrics;
use crate::store::DbPool;
use crate::store::cache::GameCache;

/// What receiving a reply needs.
#[derive(Clone)]
pub struct MailMovesCtx {
    pub pool: DbPool,
    pub cache: Arc<GameCache>,
    pub clock: Arc<dyn Clock>,
    /// Keys the reply tokens (the server's signing secret).
    pub signing_secret: String,
    /// `DJAMBI_MAIL_DOMAIN`; `None`: moves by mail are off.
    pub domain: Option<String>,
    pub auth: MailAuth,
    /// `DJAMBI_PUBLIC_URL` (links in the answers).
    pub public_url: String,
    pub limits: MailLimits,
    /// DKIM and SPF (shared: its resolver is made once).
    pub authenticator: Arc<authenticate::Authenticator>,
    pub metrics: Arc<Metrics>,
}

/// The SMTP envelope of a mail the listener received (SPF checks it).
#[derive(Debug, Clone)]
pub struct Envelope {
    /// The connecting peer's address.
    pub peer: IpAddr,
    /// The `EHLO`/`HELO` name.
    pub helo: String,
    /// The `MAIL FROM` path (empty: the null sender).
    pub mail_from: String,
    /// The `RCPT TO` paths.
    pub rcpt: Vec<String>,
}
