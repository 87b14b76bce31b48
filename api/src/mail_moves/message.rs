//! An inbound mail as the use case reads it: parsed by `mail-parser` into the few facts
//! it looks at. `Authentication-Results` headers are never read.

use mail_parser::{HeaderValue, MessageParser};

/// The largest message accepted (HTTP body and SMTP `DATA`).
pub const MAX_BYTES: usize = 1024 * 1024;

/// What is read of an inbound mail.
#[derive(Debug, Clone, Default)]
pub struct Inbound {
    /// `Message-ID`, or the SHA-256 of the raw message without one.
    pub message_id: String,
    /// Every `From` address (a reply must have exactly one).
    pub from: Vec<String>,
    /// The recipients: the envelope's (SMTP `RCPT`), else `To`, `Cc`, `Delivered-To`,
    /// `X-Original-To`.
    pub recipients: Vec<String>,
    /// An auto-reply, a bounce or list traffic (RFC 3834): dropped without an answer.
    pub automatic: Option<String>,
    /// The first non-empty line of the text (HTML turned into text).
    pub first_line: Option<String>,
}

/// Parses a raw message; `None` when it is not a mail at all.
pub fn parse(
    raw: &[u8],
    envelope_sender: Option<&str>,
    envelope_rcpt: &[String],
) -> Option<Inbound> {
    let msg = MessageParser::default().parse(raw)?;
    // Not a mail: no header, or no From at all.
    if msg.headers().is_empty() || msg.from().is_none() {
        return None;
    }
    let message_id = match msg.message_id() {
        Some(id) if !id.trim().is_empty() => id.trim().to_string(),
        _ => format!(
            "sha256:{}",
            crate::auth::tokens::hash(&String::from_utf8_lossy(raw))
        ),
    };
    let addresses = |v: Option<&mail_parser::Address<'_>>| -> Vec<String> {
        v.map(|a| {
            a.iter()
                .filter_map(|x| x.address())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
    };
    let from = addresses(msg.from());
    let mut recipients: Vec<String> = envelope_rcpt.to_vec();
    if recipients.is_empty() {
        recipients.extend(addresses(msg.to()));
        recipients.extend(addresses(msg.cc()));
        for name in ["Delivered-To", "X-Original-To"] {
            for v in msg.header_values(name) {
                if let HeaderValue::Text(t) = v {
                    recipients.push(t.trim().trim_matches(['<', '>']).to_string());
                }
            }
        }
    }
    let raw_header = |name: &str| msg.header_raw(name).map(|v| v.trim().to_ascii_lowercase());
    let return_path = envelope_sender
        .map(str::to_string)
        .or_else(|| raw_header("Return-Path"));
    let automatic = if let Some(v) = raw_header("Auto-Submitted").filter(|v| !v.starts_with("no")) {
        Some(format!("Auto-Submitted: {v}"))
    } else if return_path
        .as_deref()
        .is_some_and(|p| p.trim_matches(['<', '>', ' ']).is_empty())
    {
        Some("null sender".into())
    } else if let Some(p) =
        raw_header("Precedence").filter(|p| matches!(p.as_str(), "bulk" | "junk" | "list"))
    {
        Some(format!("Precedence: {p}"))
    } else if msg.header_raw("List-Id").is_some() {
        Some("List-Id".into())
    } else if from.iter().any(|f| {
        let local = f.split('@').next().unwrap_or("").to_ascii_lowercase();
        local == "mailer-daemon" || local == "postmaster"
    }) {
        Some("mailer-daemon".into())
    } else if msg.header_raw("X-Autoreply").is_some() || msg.header_raw("X-Autorespond").is_some() {
        Some("X-Autoreply".into())
    } else {
        None
    };
    let first_line = msg
        .body_text(0)
        .and_then(|t| super::grammar::first_line(&t).map(|l| l.chars().take(200).collect()));
    Some(Inbound {
        message_id,
        from,
        recipients,
        automatic,
        first_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_first_line_of_html_and_drops_auto_replies() {
        let m = parse(
            b"From: a@b.example\r\nTo: move+x@m.example\r\nMessage-ID: <1@b>\r\n\
              Content-Type: text/html\r\n\r\n<html><body><p>C8-D7</p><p>thanks</p></body></html>\r\n",
            None,
            &[],
        )
        .unwrap();
        assert_eq!(m.first_line.as_deref(), Some("C8-D7"));
        assert_eq!(m.message_id, "1@b");
        assert_eq!(m.from, vec!["a@b.example"]);
        assert!(m.automatic.is_none());
        let auto = parse(
            b"From: a@b.example\r\nAuto-Submitted: auto-replied\r\n\r\nI am away\r\n",
            None,
            &[],
        )
        .unwrap();
        assert!(auto.automatic.is_some());
        let bounce = parse(
            b"From: MAILER-DAEMON@b.example\r\n\r\nfailed\r\n",
            None,
            &[],
        )
        .unwrap();
        assert!(bounce.automatic.is_some());
        let null = parse(b"From: a@b.example\r\n\r\nx\r\n", Some("<>"), &[]).unwrap();
        assert!(null.automatic.is_some());
    }

    proptest! {
        #[test]
        fn never_panics(raw in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = parse(&raw, None, &[]);
        }
    }
}
