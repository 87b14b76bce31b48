//! The password reset pages, for people (the API's `POST /v1/password-resets` and
//! `POST /v1/password-resets/{token}` stay for programs):
//!
//! - `GET /reset-password`: the form that asks for a link (username or address), linked
//!   from the login page ("Forgot your password?"); `POST /reset-password` sends it and
//!   answers the same page whatever exists (the use case's rule).
//! - `GET /reset-password/{token}`: what the reset mail links to: the form for the new
//!   password (twice), or the HTML 404 page when the link does not work (unknown, used,
//!   expired); `POST /reset-password/{token}` sets it through the same use case as the
//!   API (the same password rules, sessions and tokens ended, the notice mailed) and
//!   answers a page.
//!
//! Plain HTML forms (no script needed). CSRF: the forms carry a token bound to a random
//! cookie of the form (`djambi_form`, `HttpOnly`, `SameSite=Strict`, path
//! `/reset-password`), checked on `POST` with the `Origin`/`Sec-Fetch-Site` check of the
//! login. The pages speak the reader's language; the token page, the account's.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};

use super::{Reader, page, page_lang, reader, viewer};
use crate::accounts::password_reset::{self, ResetFor};
use crate::accounts::{AccountError, MailTokenRejected};
use crate::auth::{SecretString, web_session};
use crate::error::ApiError;
use crate::i18n::{self, Lang};
use crate::routes::caller::client_addr;
use crate::routes::web::page::{escape_html, not_found_page};
use crate::state::AppState;

/// The cookie the forms' CSRF token is bound to.
const FORM_COOKIE: &str = "djambi_form";
/// The longest form body read.
const MAX_FORM: usize = 4096;

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/reset-password")
            .route(web::get().to(ask_page))
            .route(web::post().to(ask)),
    )
    .service(
        web::resource("/reset-password/{token}")
            .route(web::get().to(new_password_page))
            .route(web::post().to(set_password)),
    );
}

/// The value of the form cookie, if sent and well formed (64 hex digits).
fn form_cookie(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == FORM_COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The form's nonce: the cookie's, or a fresh one (then set with the page).
fn nonce(req: &HttpRequest) -> (String, bool) {
    match form_cookie(req) {
        Some(v) => (v, false),
        None => (crate::auth::tokens::random_id(), true),
    }
}

fn csrf_for(app: &AppState, nonce: &str) -> String {
    web_session::csrf_token(app.config.jwt_secret.expose(), &format!("form:{nonce}"))
}

/// Whether a form post carries the token of its cookie and comes from this site.
fn csrf_ok(req: &HttpRequest, app: &AppState, presented: &str) -> bool {
    let Some(cookie) = form_cookie(req) else {
        return false;
    };

    super::session::same_origin(req).is_ok()
        && web_session::csrf_ok(
            app.config.jwt_secret.expose(),
            &format!("form:{cookie}"),
            presented,
        )
}

/// The fields of a form body (`application/x-www-form-urlencoded`).
fn fields(body: &[u8]) -> Vec<(String, String)> {
    if body.len() > MAX_FORM {
        return Vec::new();
    }
    url::form_urlencoded::parse(body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// A page of this module, with the form cookie when it is new.
fn respond(
    req: &HttpRequest,
    app: &AppState,
    status: StatusCode,
    title: &str,
    main: &str,
    r: &Reader,
    fresh_nonce: Option<&str>,
) -> HttpResponse {
    let mut response = page("reset", &i18n::t(r.lang, title), main, None, "", r);
    *response.status_mut() = status;
    // `Referrer-Policy: same-origin` (the pages' own) keeps the link's token out of any
    // other site's `Referer`; `no-referrer` would make the form's `Origin` null.
    if let Some(n) = fresh_nonce {
        let secure = web_session::secure(req, &app.config.public_url);
        let cookie = format!(
            "{FORM_COOKIE}={n}; Path=/reset-password; Max-Age=7200; HttpOnly; SameSite=Strict{}",
            if secure { "; Secure" } else { "" }
        );
        if let Ok(v) = header::HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    response
}

fn error_line(lang: Lang, id: Option<&str>) -> String {
    match id {
        Some(id) => format!(
            "<p class=\"error\" id=\"form-error\" role=\"alert\">{}</p>",
            escape_html(&i18n::t(lang, id))
        ),
        None => String::new(),
    }
}

fn ask_form(lang: Lang, csrf: &str, error: Option<&str>) -> String {
    format!(
        "<h1>{{{{t:reset-title}}}}</h1>\n<p>{{{{t:reset-ask}}}}</p>\n\
         <form class=\"card form\" method=\"post\" action=\"/reset-password\">\n\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\n\
         <label>{{{{t:reset-who}}}} <input name=\"who\" id=\"reset-who\" autocomplete=\"username\" required maxlength=\"254\"></label>\n\
         <button type=\"submit\" id=\"reset-send\">{{{{t:reset-send}}}}</button>\n{}\n</form>\n\
         <p><a href=\"/login\">{{{{t:reset-to-login}}}}</a></p>\n",
        escape_html(csrf),
        error_line(lang, error),
    )
}

/// `GET /reset-password`.
async fn ask_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let (n, fresh) = nonce(&req);
    let main = ask_form(r.lang, &csrf_for(&app, &n), None);
    Ok(respond(
        &req,
        &app,
        StatusCode::OK,
        "reset-title",
        &main,
        &r,
        fresh.then_some(n.as_str()),
    ))
}

/// `POST /reset-password`: asks for the link (the same answer whatever exists).
async fn ask(
    req: HttpRequest,
    app: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let form = fields(&body);
    let (n, fresh) = nonce(&req);
    let again = |status, error| {
        let main = ask_form(r.lang, &csrf_for(&app, &n), Some(error));
        respond(
            &req,
            &app,
            status,
            "reset-title",
            &main,
            &r,
            fresh.then_some(n.as_str()),
        )
    };
    if !csrf_ok(&req, &app, field(&form, "csrf")) {
        return Ok(again(StatusCode::FORBIDDEN, "reset-forbidden"));
    }
    let who = field(&form, "who").trim();
    if who.is_empty() || who.len() > crate::validate::EMAIL_MAX * 4 {
        return Ok(again(StatusCode::BAD_REQUEST, "reset-who-missing"));
    }
    if app
        .reset_ip_limiter
        .acquire(client_addr(&req, &app.config.trusted_proxies))
        .is_err()
    {
        return Ok(again(StatusCode::TOO_MANY_REQUESTS, "reset-too-many"));
    }
    let who = if who.contains('@') {
        ResetFor::Email(who.to_string())
    } else {
        ResetFor::Username(who.to_string())
    };
    password_reset::request(&app.accounts(), who).await?;
    let main = "<h1>{{t:reset-title}}</h1>\n<p role=\"status\">{{t:reset-sent}}</p>\n\
                <p><a href=\"/login\">{{t:reset-to-login}}</a></p>\n";
    Ok(respond(
        &req,
        &app,
        StatusCode::OK,
        "reset-title",
        main,
        &r,
        None,
    ))
}

/// The token of the path, if it has the shape of one (anything else is unknown).
fn path_token(raw: &str) -> Option<String> {
    let ok = raw.len() <= 200
        && raw.starts_with(crate::auth::tokens::RESET_PREFIX)
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then(|| raw.to_string())
}

fn new_password_form(lang: Lang, token: &str, csrf: &str, error: Option<&str>) -> String {
    format!(
        "<h1>{{{{t:reset-new-title}}}}</h1>\n\
         <form class=\"card form\" method=\"post\" action=\"/reset-password/{}\">\n\
         <input type=\"hidden\" name=\"csrf\" value=\"{}\">\n\
         <label>{{{{t:reset-new-password}}}} <input name=\"new_password\" id=\"reset-new-password\" type=\"password\" autocomplete=\"new-password\" required minlength=\"8\" maxlength=\"1024\" aria-describedby=\"reset-rules\"></label>\n\
         <label>{{{{t:reset-new-repeat}}}} <input name=\"repeat\" id=\"reset-repeat\" type=\"password\" autocomplete=\"new-password\" required minlength=\"8\" maxlength=\"1024\"></label>\n\
         <p id=\"reset-rules\">{{{{t:reset-new-rules}}}}</p>\n\
         <button type=\"submit\" id=\"reset-submit\">{{{{t:reset-new-submit}}}}</button>\n{}\n</form>\n",
        escape_html(token),
        escape_html(csrf),
        error_line(lang, error),
    )
}

/// The page's language: the account's preference (the link names the account), else the
/// reader's.
fn token_reader(req: &HttpRequest, preference: Option<&str>) -> Reader {
    Reader {
        lang: crate::routes::language::of_request(req, preference),
        zone: crate::i18n::TimeZone::UTC,
    }
}

fn invalid_link(lang: Lang) -> HttpResponse {
    let mut response = not_found_page(lang, "reset-invalid");
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `GET /reset-password/{token}`.
async fn new_password_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Some(token) = path_token(&path) else {
        return Ok(invalid_link(page_lang(&req).await));
    };
    let preference = match password_reset::check_link(
        &app.accounts(),
        SecretString::from(token.clone()),
    )
    .await
    {
        Ok(p) => p,
        Err(AccountError::MailToken(_) | AccountError::AccountGone) => {
            return Ok(invalid_link(page_lang(&req).await));
        }
        Err(e) => return Err(e.into()),
    };
    let r = token_reader(&req, preference.as_deref());
    let (n, fresh) = nonce(&req);
    let main = new_password_form(r.lang, &token, &csrf_for(&app, &n), None);
    Ok(respond(
        &req,
        &app,
        StatusCode::OK,
        "reset-new-title",
        &main,
        &r,
        fresh.then_some(n.as_str()),
    ))
}

/// `POST /reset-password/{token}`: sets the password (the API's use case and rules).
async fn set_password(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let Some(token) = path_token(&path) else {
        return Ok(invalid_link(page_lang(&req).await));
    };
    let preference = match password_reset::check_link(
        &app.accounts(),
        SecretString::from(token.clone()),
    )
    .await
    {
        Ok(p) => p,
        Err(AccountError::MailToken(_) | AccountError::AccountGone) => {
            return Ok(invalid_link(page_lang(&req).await));
        }
        Err(e) => return Err(e.into()),
    };
    let r = token_reader(&req, preference.as_deref());
    let form = fields(&body);
    let (n, fresh) = nonce(&req);
    let again = |status, error| {
        let main = new_password_form(r.lang, &token, &csrf_for(&app, &n), Some(error));
        respond(
            &req,
            &app,
            status,
            "reset-new-title",
            &main,
            &r,
            fresh.then_some(n.as_str()),
        )
    };
    if !csrf_ok(&req, &app, field(&form, "csrf")) {
        return Ok(again(StatusCode::FORBIDDEN, "reset-forbidden"));
    }
    let password = field(&form, "new_password");
    if password != field(&form, "repeat") {
        return Ok(again(StatusCode::BAD_REQUEST, "reset-mismatch"));
    }
    match password_reset::reset(
        &app.accounts(),
        SecretString::from(token.clone()),
        SecretString::from(password.to_string()),
    )
    .await
    {
        Ok(_) => {
            let main = "<h1>{{t:reset-new-title}}</h1>\n<p role=\"status\">{{t:reset-done}}</p>\n\
                        <p><a href=\"/login\">{{t:reset-to-login}}</a></p>\n";
            Ok(respond(
                &req,
                &app,
                StatusCode::OK,
                "reset-new-title",
                main,
                &r,
                None,
            ))
        }
        Err(AccountError::Invalid(_)) => Ok(again(StatusCode::BAD_REQUEST, "reset-weak")),
        Err(AccountError::MailToken(
            MailTokenRejected::Unknown | MailTokenRejected::Used | MailTokenRejected::Expired,
        )) => Ok(invalid_link(r.lang)),
        Err(AccountError::Passwords(_)) => Ok(again(StatusCode::SERVICE_UNAVAILABLE, "reset-busy")),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_say_nothing_but_messages_and_name_existing_ones() {
        for (name, html) in [
            ("ask", ask_form(Lang::EN, "c", None)),
            ("new", new_password_form(Lang::EN, "djx_abc", "c", None)),
        ] {
            assert_eq!(
                super::super::untranslated_text(&html),
                Vec::<String>::new(),
                "{name}"
            );
            let mut rest = html.as_str();
            while let Some(i) = rest.find("{{t:") {
                let id = &rest[i + 4..i + 4 + rest[i + 4..].find("}}").unwrap()];
                for lang in Lang::all() {
                    assert!(crate::i18n::has(lang, id), "{name}: {id}");
                }
                rest = &rest[i + 4..];
            }
        }
    }

    #[test]
    fn only_reset_tokens_are_read_from_the_path() {
        assert_eq!(path_token("djx_abc-_1").as_deref(), Some("djx_abc-_1"));
        for bad in ["djv_abc", "djx_<x>", "", "djx_{{t:x}}", &"djx_a".repeat(60)] {
            assert_eq!(path_token(bad), None, "{bad}");
        }
    }
}
