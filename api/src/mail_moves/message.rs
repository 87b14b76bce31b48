//! An inbound mail as the use case reads it: parsed by `mail-parser` into the few facts
//! it looks at. `Authentication-Results` headers are never read.

use mail_parser::{HeaderValue, MessageParser, MimeHeaders};

/// The largest message accepted (HTTP body and SMTP `DATA`).
pub const MAX_BYTES: usize = 1024 * 1024;
/// The longest Message-ID kept as it is; a longer one is kept as its SHA-256.
pub const MAX_MESSAGE_ID: usize = 200;
/// The Message-IDs of `References` carried over to an answer, at most (the latest).
const MAX_REFERENCES: usize = 10;

/// What is read of an inbound mail.
#[derive(Debug, Clone, Default)]
pub struct Inbound {
    /// `Message-ID` (without `<>`), its SHA-256 when longer than [`MAX_MESSAGE_ID`], or the
    /// SHA-256 of the raw message without one.
    pub message_id: String,
    /// The `Message-ID` an answer threads under (`In-Reply-To`), when the mail has a
    /// usable one.
    pub thread_id: Option<String>,
    /// The mail's own `References` (else its `In-Reply-To`), bounded: an answer's
    /// `References` are these and [`Inbound::thread_id`] (RFC 5322 §3.6.4).
    pub references: Vec<String>,
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
    let usable = |id: &str| {
        let id = id.trim();
        (!id.is_empty()
            && id.len() <= MAX_MESSAGE_ID
            && id
                .bytes()
                .all(|b| b.is_ascii_graphic() && b != b'<' && b != b'>'))
        .then(|| id.to_string())
    };
    let thread_id = msg.message_id().and_then(usable);
    let message_id = match (&thread_id, msg.message_id()) {
        (Some(id), _) => id.clone(),
        // Bounded: whatever its length, a stored id is at most 71 characters.
        (None, Some(id)) if !id.trim().is_empty() => {
            format!("sha256:{}", crate::auth::tokens::hash(id.trim()))
        }
        _ => format!(
            "sha256:{}",
            crate::auth::tokens::hash(&String::from_utf8_lossy(raw))
        ),
    };
    let mut references: Vec<String> = match msg.references().as_text_list() {
        Some(ids) => ids.iter().filter_map(|id| usable(id.as_ref())).collect(),
        None => msg
            .in_reply_to()
            .as_text_list()
            .map(|ids| ids.iter().filter_map(|id| usable(id.as_ref())).collect())
            .unwrap_or_default(),
    };
    if references.len() > MAX_REFERENCES {
        references.drain(..references.len() - MAX_REFERENCES);
    }
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
    let daemon = |address: &str| {
        let local = address
            .trim()
            .trim_matches(['<', '>', ' '])
            .rsplit_once('@')
            .map_or("", |(l, _)| l)
            .to_ascii_lowercase();
        local == "mailer-daemon" || local == "postmaster"
    };
    let report = msg.content_type().is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case("multipart")
            && ct
                .subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
    });
    let automatic = if let Some(v) = raw_header("Auto-Submitted").filter(|v| !v.starts_with("no")) {
        Some(format!("Auto-Submitted: {v}"))
    } else if return_path
        .as_deref()
        .is_some_and(|p| p.trim_matches(['<', '>', ' ']).is_empty())
    {
        Some("null sender".into())
    } else if return_path.as_deref().is_some_and(daemon) {
        Some("mailer-daemon sender".into())
    } else if report {
        // A delivery or read report (RFC 6522), whoever it claims to come from.
        Some("multipart/report".into())
    } else if let Some(p) =
        raw_header("Precedence").filter(|p| matches!(p.as_str(), "bulk" | "junk" | "list"))
    {
        Some(format!("Precedence: {p}"))
    } else if msg.header_raw("List-Id").is_some() {
        Some("List-Id".into())
    } else if from.iter().any(|f| daemon(f.as_str())) {
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
        thread_id,
        references,
        from,
        recipients,
        automatic,
        first_line,
    })
}

/// What is wrong with the header section, if anything: a field name that is not one
/// (RFC 5322 §3.6.8: printable ASCII but `:`, so no `From :`), a line that is neither a
/// field nor its continuation, or more than one `From` (§3.6: exactly one). Parsers differ
/// on such mails (one reads the first `From`, another the last, a DKIM verifier the one
/// it signed), so none of it is read at all.
pub fn header_problem(raw: &[u8]) -> Option<&'static str> {
    let mut froms = 0;
    let mut first = true;
    for line in raw.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            if first {
                return Some("malformed");
            }
            continue;
        }
        first = false;
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Some("malformed");
        };
        let name = &line[..colon];
        if name.is_empty() || !name.iter().all(|b| (33..=126).contains(b)) {
            return Some("malformed");
        }
        if name.eq_ignore_ascii_case(b"from") {
            froms += 1;
            if froms > 1 {
                return Some("from_not_single");
            }
        }
    }
    None
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

    #[test]
    fn a_second_from_or_a_malformed_field_name_is_a_problem() {
        let ok = b"DKIM-Signature: v=1;\r\n b=x\r\nFrom: a@b.example\r\nSubject: x\r\n\r\nFrom: body\r\n";
        assert_eq!(header_problem(ok), None);
        for (raw, why) in [
            (
                &b"From: a@b.example\r\nFrom: v@b.example\r\n\r\nx"[..],
                "from_not_single",
            ),
            (
                b"From: a@b.example\r\nFROM: v@b.example\r\n\r\nx",
                "from_not_single",
            ),
            (
                b"From: a@b.example\r\nfrom:\r\n v@b.example\r\n\r\nx",
                "from_not_single",
            ),
            (
                b"From: a@b.example\r\nFrom : v@b.example\r\n\r\nx",
                "malformed",
            ),
            (
                b"From: a@b.example\r\nFrom\t: v@b.example\r\n\r\nx",
                "malformed",
            ),
            (b"From: a@b.example\r\nno colon here\r\n\r\nx", "malformed"),
            (b" From: a@b.example\r\n\r\nx", "malformed"),
            (b"From: a@b.example\r\nX-\xc3\xa9: v\r\n\r\nx", "malformed"),
        ] {
            assert_eq!(
                header_problem(raw),
                Some(why),
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn reports_and_daemon_senders_are_automatic_and_ids_are_bounded() {
        let report = parse(
            b"From: a@b.example\r\nContent-Type: multipart/report; report-type=delivery-status;\r\n boundary=\"zz\"\r\n\r\n\
              --zz\r\nContent-Type: text/plain\r\n\r\nC8-D7\r\n--zz--\r\n",
            None,
            &[],
        )
        .unwrap();
        assert_eq!(report.automatic.as_deref(), Some("multipart/report"));
        let daemon = parse(
            b"From: a@b.example\r\n\r\nC8-D7\r\n",
            Some("<MAILER-DAEMON@relay.example>"),
            &[],
        )
        .unwrap();
        assert!(daemon.automatic.is_some());
        let long = format!(
            "From: a@b.example\r\nMessage-ID: <{}@b>\r\nReferences: <r1@b> <r2@b>\r\n\r\nx\r\n",
            "x".repeat(1000)
        );
        let m = parse(long.as_bytes(), None, &[]).unwrap();
        assert!(m.message_id.starts_with("sha256:") && m.message_id.len() < 80);
        assert_eq!(m.thread_id, None);
        assert_eq!(m.references, vec!["r1@b", "r2@b"]);
    }

    proptest! {
        #[test]
        fn never_panics(raw in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = parse(&raw, None, &[]);
        }
    }
}
