//! Posting a raw message to the inbound mail endpoint (`POST /v1/inbound-mail`), as an
//! MTA pipe or a provider's webhook would. Included with
//! `#[path = "support/inbound.rs"] mod inbound;`.

#![allow(dead_code)]

use djambi_e2e::TestServer;

/// The inbound mail secret the tests' servers are started with
/// (`DJAMBI_INBOUND_MAIL_SECRET`).
pub const SECRET: &str = "inbound-secret-inbound-secret-inbound-secret";

/// Delivers `message` (RFC 5322 text); returns the `outcome` the server reports.
#[track_caller]
pub fn deliver(srv: &TestServer, message: &str) -> String {
    let r = srv.send(
        srv.request(reqwest::Method::POST, "/v1/inbound-mail")
            .header("authorization", format!("Bearer {SECRET}"))
            .header("content-type", "message/rfc822")
            .body(message.to_string()),
    );
    r.expect(200)["outcome"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A plain-text reply from `from` to `to` with Message-ID `<id@example.org>`, the headers
/// `extra` (each ending in CRLF) and `body`.
pub fn reply(from: &str, to: &str, id: &str, extra: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: Your turn\r\nMessage-ID: <{id}@example.org>\r\n\
         {extra}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}
