//! `POST /v1/inbound-mail`: a raw reply (`message/rfc822`) from the site's MTA (a pipe)
//! or a mail provider's inbound webhook, authenticated by
//! `Authorization: Bearer <DJAMBI_INBOUND_MAIL_SECRET>`. The message is handed to
//! [`crate::mail_moves::receive`]; whatever it leads to (played, refused with an answer
//! mail, dropped) the answer is 200 with the outcome, so the MTA never bounces anything.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, Problem};
use crate::mail_moves::receive::{self, ReceiveError};
use crate::state::AppState;

pub const PATH: &str = "/v1/inbound-mail";
const PROBLEM: &str = "application/problem+json";

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(inbound_mail);
}

/// What became of the message.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"outcome": "played"}))]
pub struct InboundOutcome {
    /// `played`, `error:<reason>` (an answer mail says what was wrong) or
    /// `dropped:<reason>` (no answer: an auto-reply, a duplicate, an unknown address, a
    /// sender that is not the player).
    pub outcome: String,
}

/// Receive a reply to a turn mail.
///
/// The body is the raw message (at most 1 MiB). The token of the recipient address
/// (`move+TOKEN@DJAMBI_MAIL_DOMAIN`, read from `To`, `Cc`, `Delivered-To` or
/// `X-Original-To`) and the `From` (the player's verified address) say who moves; the
/// first non-empty line of the text says what. With `DJAMBI_MAIL_AUTH=aligned` a reply
/// through this endpoint needs a DKIM signature aligned with its `From` (it has no SMTP
/// session, so no SPF; `Authentication-Results` and `Received` headers are not trusted).
#[utoipa::path(
    tag = "mail",
    request_body(content = String, content_type = "message/rfc822",
        description = "The raw message"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Received; what became of it", body = InboundOutcome),
        (status = 401, description = "Missing or wrong secret", body = Problem, content_type = PROBLEM),
        (status = 404, description = "Moves by mail are off (no DJAMBI_MAIL_DOMAIN or no \
            DJAMBI_INBOUND_MAIL_SECRET)", body = Problem, content_type = PROBLEM),
        (status = 413, description = "Larger than 1 MiB", body = Problem, content_type = PROBLEM),
        (status = 415, description = "Not `message/rfc822`", body = Problem, content_type = PROBLEM)
    )
)]
#[post("/inbound-mail")]
pub async fn inbound_mail(
    app: web::Data<AppState>,
    req: HttpRequest,
    mut payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    // A request without credentials is 401 whether or not the feature is on; one with
    // credentials learns that it is off.
    if given.is_empty() {
        return Err(ApiError::Unauthorized {
            detail: "the inbound mail secret is missing".into(),
            invalid_token: false,
        });
    }
    let off = || ApiError::NotFound("moves by mail are off on this server".into());
    let Some(secret) = &app.config.mail_moves.inbound_secret else {
        return Err(off());
    };
    let (a, b) = (
        crate::auth::tokens::hash(given),
        crate::auth::tokens::hash(secret.expose()),
    );
    if a != b {
        return Err(ApiError::Unauthorized {
            detail: "the inbound mail secret is missing or wrong".into(),
            invalid_token: !given.is_empty(),
        });
    }
    let mime = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = mime.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("message/rfc822") {
        return Err(ApiError::UnsupportedMediaType(
            "the body must be the raw message, Content-Type: message/rfc822".into(),
        ));
    }
    let mut body = Vec::new();
    while let Some(chunk) = futures_util::StreamExt::next(&mut payload).await {
        let chunk = chunk.map_err(|_| ApiError::PayloadTooLarge {
            limit: crate::mail_moves::message::MAX_BYTES,
        })?;
        if body.len() + chunk.len() > crate::mail_moves::message::MAX_BYTES {
            return Err(ApiError::PayloadTooLarge {
                limit: crate::mail_moves::message::MAX_BYTES,
            });
        }
        body.extend_from_slice(&chunk);
    }
    let ctx = app.mail_moves();
    match receive::receive(&ctx, body, None).await {
        Ok(o) => Ok(HttpResponse::Ok().json(InboundOutcome {
            outcome: o.as_str(),
        })),
        Err(ReceiveError::Off) => Err(off()),
        Err(e) => Err(ApiError::internal(e)),
    }
}
