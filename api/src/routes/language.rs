//! The reader's language in HTTP terms: the `Accept-Language` of a request, and the
//! translation of every problem document's `title` (the `type` stays the stable key,
//! `detail` stays English) by [`translate_problems`], a middleware around every route:
//! in the account's language when the request authenticated.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpRequest, web};

use crate::error::PROBLEM_JSON;
use crate::i18n::{self, Lang};
use crate::routes::caller::CallerAccount;
use crate::state::AppState;

/// The request's `Accept-Language`, if readable.
pub fn accept_language(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
}

/// The reader's language: the account's preference, else the request's
/// `Accept-Language`, else English.
pub fn of_request(req: &HttpRequest, preference: Option<&str>) -> Lang {
    i18n::choose(preference, accept_language(req))
}

/// The language preference of the account the request authenticated as, if any (`None`
/// also when the account cannot be read: the answer then follows `Accept-Language`).
async fn account_language(req: &HttpRequest) -> Option<String> {
    let caller = req.extensions().get::<CallerAccount>()?.0.clone();
    let state = req.app_data::<web::Data<AppState>>()?.clone();
    crate::accounts::profile::get(&state.accounts(), caller)
        .await
        .ok()?
        .language
}

/// The message of a problem's title: `problem-<slug>` of its `type`.
pub fn problem_title(lang: Lang, type_uri: &str) -> Option<String> {
    let slug = type_uri.strip_prefix("/problems/")?;
    let id = format!("problem-{slug}");
    i18n::has(lang, &id).then(|| i18n::t(lang, &id))
}

/// Puts the `title` of a problem answer in the reader's language, with
/// `Content-Language`: the account's preference when the request authenticated (read
/// only for problem answers, which are rare), else the request's `Accept-Language`.
/// English answers pass untouched.
pub async fn translate_problems(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let res = next.call(req).await?;
    let problem = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM_JSON));
    if !problem {
        return Ok(res.map_into_boxed_body());
    }
    // Refusals under load (429, 5xx) cost no extra read: they follow Accept-Language.
    let status = res.status();
    let preference = if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        None
    } else {
        account_language(res.request()).await
    };
    let lang = of_request(res.request(), preference.as_deref());
    let (req, res) = res.into_parts();
    let (mut head, body) = res.into_parts();
    // The title follows the reader: caches must not hand one reader's to another.
    let headers = head.headers_mut();
    headers.append(header::VARY, HeaderValue::from_static("Accept-Language"));
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    if lang == Lang::EN {
        headers.insert(header::CONTENT_LANGUAGE, HeaderValue::from_static("en"));
        return Ok(ServiceResponse::new(
            req,
            head.set_body(body).map_into_boxed_body(),
        ));
    }
    let Ok(bytes) = actix_web::body::to_bytes(body).await else {
        return Ok(ServiceResponse::new(req, head.set_body(BoxBody::new(()))));
    };
    let body = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(mut doc) => {
            let title = doc
                .get("type")
                .and_then(|t| t.as_str())
                .and_then(|t| problem_title(lang, t));
            match (title, doc.as_object_mut()) {
                (Some(title), Some(obj)) => {
                    obj.insert("title".into(), title.into());
                    head.headers_mut().insert(
                        header::CONTENT_LANGUAGE,
                        HeaderValue::from_static(lang.code()),
                    );
                    serde_json::to_vec(&doc).unwrap_or_else(|_| bytes.to_vec())
                }
                _ => bytes.to_vec(),
            }
        }
        Err(_) => bytes.to_vec(),
    };
    Ok(ServiceResponse::new(req, head.set_body(BoxBody::new(body))))
}
