//! Sending notification mails over SMTP (lettre). What a mail says is
//! [`crate::notifications::email`]; every notification mail carries `List-Unsubscribe` and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::notifications::config::{SmtpConfig, SmtpTls};
use crate::notifications::delivery::Outcome;
use crate::notifications::email::Mail;

pub type Mailer = AsyncSmtpTransport<Tokio1Executor>;

/// The SMTP transport the settings describe.
pub fn mailer(cfg: &SmtpConfig) -> Result<Mailer, String> {
    use lettre::transport::smtp::authentication::Credentials;
    use lettre::transport::smtp::client::{Tls, TlsParameters};
    let tls = |host: &str| TlsParameters::new(host.into()).map_err(|e| format!("SMTP TLS: {e}"));
    let mut b = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(cfg.host.as_str())
        .port(cfg.port)
        .timeout(Some(std::time::Duration::from_secs(20)));
    b = match cfg.tls {
        SmtpTls::None => b.tls(Tls::None),
        SmtpTls::StartTls => b.tls(Tls::Required(tls(&cfg.host)?)),
        SmtpTls::Tls => b.tls(Tls::Wrapper(tls(&cfg.host)?)),
    };
    if let (Some(u), Some(p)) = (&cfg.username, &cfg.password) {
        b = b.credentials(Credentials::new(u.clone(), p.expose().to_string()));
    }
    Ok(b.build())
}

/// Sends one mail; `id` becomes its Message-ID.
pub async fn send(
    mailer: Option<&Mailer>,
    smtp: Option<&SmtpConfig>,
    to: &str,
    mail: &Mail,
    id: &str,
) -> Outcome {
    let (Some(mailer), Some(cfg)) = (mailer, smtp) else {
        return Outcome::Dead("no SMTP server is configured".into());
    };
    let (from, to_box) = match (cfg.from.parse(), to.parse()) {
        (Ok(f), Ok(t)) => (f, t),
        _ => return Outcome::Dead(format!("bad address: {to} or {}", cfg.from)),
    };
    let mut message = Message::builder()
        .from(from)
        .to(to_box)
        .subject(&mail.subject)
        .message_id(Some(format!("<{id}@djambi>")));
    if let Some(url) = &mail.unsubscribe_url {
        message = message
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe"),
                format!("<{url}>"),
            ))
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                "List-Unsubscribe=One-Click".into(),
            ));
    }
    if let Some(reply_to) = mail.reply_to.as_deref().and_then(|r| r.parse().ok()) {
        message = message.reply_to(reply_to);
    }
    // An answer threads under the mail it answers (RFC 3834 §3.1.5).
    if let Some(answering) = &mail.answers {
        if let Some(id) = &answering.in_reply_to {
            message = message.in_reply_to(format!("<{id}>"));
        }
        if !answering.references.is_empty() {
            let ids: Vec<String> = answering
                .references
                .iter()
                .map(|r| format!("<{r}>"))
                .collect();
            message = message.references(ids.join(" "));
        }
    }
    let auto_submitted = if mail.answers.is_some() {
        "auto-replied"
    } else {
        "auto-generated"
    };
    let message = message
        // RFC 3834: no auto-responder answers these (and ours never answer them).
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            auto_submitted.into(),
        ))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Djambi-Delivery"),
            id.to_string(),
        ))
        // RFC 3282: the recipient's language, which the mail is written in.
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Content-Language"),
            mail.lang.code().to_string(),
        ))
        // MIME: text/plain and an HTML alternative, UTF-8 (lettre adds MIME-Version and
        // each part's Content-Type and Content-Transfer-Encoding).
        .multipart(lettre::message::MultiPart::alternative_plain_html(
            mail.body.clone(),
            mail.html(),
        ));
    let message = match message {
        Ok(m) => m,
        Err(e) => return Outcome::Dead(format!("cannot build the mail: {e}")),
    };
    match mailer.send(message).await {
        Ok(r) => Outcome::Delivered {
            status: r.code().to_string().parse().ok(),
        },
        Err(e) => Outcome::Failed {
            status: e.status().and_then(|c| c.to_string().parse().ok()),
            error: format!("SMTP: {e}"),
            retry_after: None,
        },
    }
}
