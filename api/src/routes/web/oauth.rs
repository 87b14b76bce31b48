//! The OAuth 2.0 pages of the web client (the rules are [`crate::accounts::oauth`]'s):
//!
//! - `GET /oauth/authorize`: the consent page. A request whose `client_id` or
//!   `redirect_uri` is not valid gets an HTML 400 page and is redirected nowhere; any other
//!   bad request goes back to its (validated) redirect URI with RFC 6749's `error`. A
//!   visitor who is not signed in goes to the login page first, and back here after.
//!   The page names the app (`client_id`), the host it sends the player back to and the
//!   scopes in words, in the reader's language.
//! - `POST /oauth/authorize`: the player's answer (a plain form, no script needed),
//!   CSRF-protected by the session's token in a hidden field and the `Origin` check of
//!   the login: "allow" sends the player back with a code, "deny" with
//!   `error=access_denied`.
//! - The settings page's "Apps and tokens" list (apps by their `client_id`, personal
//!   tokens by name, with the scopes and last use), each with a revoke button:
//!   `POST /settings/tokens/{id}/revoke` (the same CSRF protection).

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};

use super::{Reader, page, reader, to_login, viewer};
use crate::accounts::AccountError;
use crate::accounts::oauth::{
    self as cases, AuthorizationRequest, OAuthError, RawAuthorization, Refusal,
};
use crate::accounts::tokens as token_cases;
use crate::auth::{Scope, web_session};
use crate::error::ApiError;
use crate::i18n::{self, Lang};
use crate::ids::{TokenId, UserId};
use crate::routes::web::page::{escape_html, notice_page};
use crate::state::AppState;

const CONSENT: &str = include_str!("../../../assets/web/oauth.html");
/// The longest form body read.
const MAX_FORM: usize = 8192;
/// The most tokens the settings page lists.
const LISTED: u32 = 100;

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/oauth/authorize")
            .route(web::get().to(consent_page))
            .route(web::post().to(answer)),
    )
    .service(web::resource("/settings/tokens/{id}/revoke").route(web::post().to(revoke_token)));
}

/// Text for a template value: HTML-escaped, and braces too, so that nothing an app sends
/// reads as one of the templates' `{{…}}` placeholders.
fn text(value: &str) -> String {
    escape_html(value)
        .replace('{', "&#123;")
        .replace('}', "&#125;")
}

/// The fields of a query or form, or `None` when one is sent twice (RFC 6749 section
/// 3.1: "parameters MUST NOT be included more than once").
fn pairs(raw: &[u8]) -> Option<Vec<(String, String)>> {
    let fields: Vec<(String, String)> = url::form_urlencoded::parse(raw)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    for (i, (k, _)) in fields.iter().enumerate() {
        if fields[..i].iter().any(|(other, _)| other == k) {
            return None;
        }
    }
    Some(fields)
}

fn get(fields: &[(String, String)], name: &str) -> Option<String> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn raw_request(fields: &[(String, String)]) -> RawAuthorization {
    RawAuthorization {
        response_type: get(fields, "response_type"),
        client_id: get(fields, "client_id"),
        redirect_uri: get(fields, "redirect_uri"),
        scope: get(fields, "scope"),
        state: get(fields, "state"),
        code_challenge: get(fields, "code_challenge"),
        code_challenge_method: get(fields, "code_challenge_method"),
    }
}

/// The HTML 400 page of a request that is redirected nowhere.
fn invalid_page(lang: Lang, reason: &str) -> HttpResponse {
    notice_page(
        lang,
        StatusCode::BAD_REQUEST,
        "oauth-invalid",
        &i18n::t(lang, "oauth-invalid-title"),
        &format!(
            "<p>{}</p>",
            escape_html(&i18n::tr(
                lang,
                "oauth-invalid",
                &[("reason", reason.to_string().into())]
            ))
        ),
    )
}

/// `303 See Other` back to the app.
fn back_to_app(uri: &str, params: &[(&str, &str)]) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, cases::redirect_to(uri, params)))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// The answer to a refused request: the page, or back to the app with the error.
fn refused(lang: Lang, refusal: Refusal) -> HttpResponse {
    match refusal {
        Refusal::NoRedirect(reason) => invalid_page(lang, &reason),
        Refusal::Redirect {
            redirect_uri,
            state,
            error,
            description,
        } => {
            let mut params = vec![
                ("error", error),
                ("error_description", description.as_str()),
            ];
            if let Some(s) = &state {
                params.push(("state", s.as_str()));
            }
            back_to_app(&redirect_uri, &params)
        }
    }
}

/// The request checked, or the answer that refuses it.
#[allow(clippy::result_large_err)]
fn checked(
    app: &AppState,
    lang: Lang,
    fields: Option<Vec<(String, String)>>,
) -> Result<AuthorizationRequest, HttpResponse> {
    let Some(fields) = fields else {
        return Err(invalid_page(lang, "a parameter is sent more than once"));
    };
    cases::check_authorization(&raw_request(&fields), &app.config.public_url)
        .map_err(|r| refused(lang, r))
}

/// The canonical query of a checked request (what the login page comes back to).
fn query_of(r: &AuthorizationRequest) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("response_type", "code")
        .append_pair("client_id", &r.client_id)
        .append_pair("redirect_uri", &r.redirect_uri)
        .append_pair("scope", &Scope::join(&r.scopes))
        .append_pair("code_challenge", &r.code_challenge)
        .append_pair("code_challenge_method", "S256");
    if let Some(s) = &r.state {
        q.append_pair("state", s);
    }
    q.finish()
}

fn scope_words(lang: Lang, scopes: &[Scope]) -> String {
    scopes
        .iter()
        .map(|s| {
            format!(
                "<li>{}</li>",
                text(&i18n::t(lang, &format!("oauth-scope-{}", s.as_str())))
            )
        })
        .collect()
}

fn hidden_fields(r: &AuthorizationRequest) -> String {
    let mut fields = vec![
        ("response_type", "code".to_string()),
        ("client_id", r.client_id.clone()),
        ("redirect_uri", r.redirect_uri.clone()),
        ("scope", Scope::join(&r.scopes)),
        ("code_challenge", r.code_challenge.clone()),
        ("code_challenge_method", "S256".to_string()),
    ];
    if let Some(s) = &r.state {
        fields.push(("state", s.clone()));
    }
    fields
        .iter()
        .map(|(k, v)| format!("<input type=\"hidden\" name=\"{k}\" value=\"{}\">", text(v)))
        .collect::<Vec<_>>()
        .join("\n    ")
}

/// `GET /oauth/authorize`.
async fn consent_page(
    req: HttpRequest,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    let r: Reader = reader(&req, v.as_ref());
    let request = match checked(&app, r.lang, pairs(req.query_string().as_bytes())) {
        Ok(request) => request,
        Err(answer) => return Ok(answer),
    };
    let Some(v) = v else {
        return Ok(to_login(&format!(
            "/oauth/authorize?{}",
            query_of(&request)
        )));
    };
    let main = CONSENT
        .replace(
            "{{app_sentence}}",
            &text(&i18n::tr(
                r.lang,
                "oauth-app",
                &[("client", request.client_id.clone().into())],
            )),
        )
        .replace("{{redirect_host}}", &text(&request.redirect_host))
        .replace("{{scopes}}", &scope_words(r.lang, &request.scopes))
        .replace("{{form_csrf}}", &text(&v.csrf))
        .replace("{{hidden_fields}}", &hidden_fields(&request));
    let mut response = page(
        "oauth",
        &i18n::t(r.lang, "oauth-title"),
        &main,
        Some(&v),
        "",
        &r,
    );
    // The page is the player's own decision: never inside another site's frame (the
    // pages' CSP says `frame-ancestors 'none'`; older browsers read this).
    response.headers_mut().insert(
        header::X_FRAME_OPTIONS,
        header::HeaderValue::from_static("DENY"),
    );
    Ok(response)
}

/// The session id of the request's cookie, if the cookie is valid.
fn session_id(req: &HttpRequest, app: &AppState) -> Option<String> {
    let value = web_session::cookie_value(req)?;
    let now = app.clock.now().and_utc().timestamp();
    web_session::verify(app.config.jwt_secret.expose(), &value, now).map(|(sid, _)| sid)
}

/// Whether a form post carries its session's CSRF token and comes from this site.
fn form_csrf_ok(req: &HttpRequest, app: &AppState, fields: &[(String, String)]) -> bool {
    let Some(sid) = session_id(req, app) else {
        return false;
    };
    let presented = get(fields, "csrf").unwrap_or_default();
    super::session::same_origin(req).is_ok()
        && web_session::csrf_ok(app.config.jwt_secret.expose(), &sid, &presented)
}

fn expired_form(lang: Lang) -> HttpResponse {
    notice_page(
        lang,
        StatusCode::FORBIDDEN,
        "oauth-expired",
        &i18n::t(lang, "oauth-invalid-title"),
        &format!(
            "<p>{}</p>",
            escape_html(&i18n::t(lang, "oauth-form-expired"))
        ),
    )
}

/// `POST /oauth/authorize`: the player's answer.
async fn answer(
    req: HttpRequest,
    app: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let fields = if body.len() > MAX_FORM {
        None
    } else {
        pairs(&body)
    };
    let Some(v) = v else {
        return Ok(expired_form(r.lang));
    };
    if !fields
        .as_deref()
        .is_some_and(|f| form_csrf_ok(&req, &app, f))
    {
        return Ok(expired_form(r.lang));
    }
    let decision = fields
        .as_deref()
        .and_then(|f| get(f, "decision"))
        .unwrap_or_default();
    let request = match checked(&app, r.lang, fields) {
        Ok(request) => request,
        Err(answer) => return Ok(answer),
    };
    let with_state = |mut params: Vec<(&'static str, String)>| {
        if let Some(s) = &request.state {
            params.push(("state", s.clone()));
        }
        params
    };
    let params = match decision.as_str() {
        "allow" => {
            match cases::issue_code(&app.accounts(), v.user_id.clone(), request.clone()).await {
                Ok(code) => with_state(vec![("code", code)]),
                Err(OAuthError::TooManyCodes) => with_state(vec![
                    ("error", "temporarily_unavailable".into()),
                    ("error_description", OAuthError::TooManyCodes.to_string()),
                ]),
                Err(OAuthError::AccountGone) => return Ok(expired_form(r.lang)),
                Err(OAuthError::Store(e)) => return Err(e.into()),
                Err(e) => return Err(ApiError::internal(e.to_string())),
            }
        }
        "deny" => with_state(vec![
            ("error", "access_denied".into()),
            (
                "error_description",
                "the player did not allow the app".into(),
            ),
        ]),
        _ => return Ok(invalid_page(r.lang, "the answer is neither allow nor deny")),
    };
    let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Ok(back_to_app(&request.redirect_uri, &params))
}

/// The "Apps and tokens" section's list (`{{apps}}` of the settings page).
pub(super) async fn apps_list(
    app: &AppState,
    user_id: &UserId,
    csrf: &str,
    r: &Reader,
) -> Result<String, ApiError> {
    let lang = r.lang;
    let tokens = token_cases::list(&app.accounts(), user_id.clone(), None, LISTED).await?;
    if tokens.items.is_empty() {
        return Ok(format!(
            "<p id=\"apps-none\">{}</p>",
            text(&i18n::t(lang, "settings-apps-none"))
        ));
    }
    let t = |id: &str| text(&i18n::t(lang, id));
    let mut out = format!(
        "<table class=\"apps\" id=\"apps-list\"><thead><tr><th scope=\"col\">{}</th>\
         <th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th>\
         <td></td></tr></thead><tbody>",
        t("settings-apps-name"),
        t("settings-apps-kind"),
        t("settings-apps-scopes"),
        t("settings-apps-last-used"),
    );
    for token in &tokens.items {
        let kind = if token.client_id.is_some() {
            t("settings-apps-app")
        } else {
            t("settings-apps-token")
        };
        let scopes = Scope::parse_list(&token.scopes)
            .iter()
            .map(|s| t(&format!("settings-apps-scope-{}", s.as_str())))
            .collect::<Vec<_>>()
            .join(", ");
        let used = match token.last_used_at {
            Some(at) => text(&i18n::datetime(lang, r.zone, at)),
            None => t("settings-apps-never"),
        };
        let label = text(&i18n::tr(
            lang,
            "settings-apps-revoke-label",
            &[("name", token.name.clone().into())],
        ));
        out.push_str(&format!(
            "<tr data-token-id=\"{id}\"><th scope=\"row\">{name}</th><td>{kind}</td>\
             <td>{scopes}</td><td>{used}</td><td><form method=\"post\" \
             action=\"/settings/tokens/{id}/revoke\"><input type=\"hidden\" name=\"csrf\" \
             value=\"{csrf}\"><button type=\"submit\" class=\"danger\" aria-label=\"{label}\">{revoke}</button>\
             </form></td></tr>",
            id = text(token.id.as_str()),
            name = text(&token.name),
            csrf = text(csrf),
            revoke = t("settings-apps-revoke"),
        ));
    }
    out.push_str("</tbody></table>");
    Ok(out)
}

/// `POST /settings/tokens/{id}/revoke`: revoke from the settings page, back to it.
async fn revoke_token(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let fields = if body.len() > MAX_FORM {
        None
    } else {
        pairs(&body)
    };
    let Some(v) = v else {
        return Ok(to_login("/settings"));
    };
    if !fields
        .as_deref()
        .is_some_and(|f| form_csrf_ok(&req, &app, f))
    {
        return Ok(expired_form(r.lang));
    }
    let id = path.into_inner();
    if uuid::Uuid::parse_str(&id).is_ok() {
        match token_cases::revoke(&app.accounts(), v.user_id.clone(), TokenId::new(id)).await {
            Ok(()) | Err(AccountError::NoSuchToken) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, "/settings#apps"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consent_template_says_nothing_untranslated() {
        assert_eq!(
            super::super::untranslated_text(CONSENT),
            Vec::<String>::new()
        );
        assert!(!CONSENT.contains("<script") && !CONSENT.contains("style="));
        for lang in Lang::all() {
            for id in [
                "oauth-title",
                "oauth-app",
                "oauth-scope-read",
                "oauth-scope-play",
                "oauth-allow",
                "oauth-deny",
                "settings-apps-title",
                "settings-apps-revoke-label",
            ] {
                assert!(i18n::has(lang, id), "{}: {id}", lang.code());
            }
        }
    }

    #[test]
    fn app_text_cannot_open_a_placeholder() {
        assert_eq!(text("{{csrf}}<b>"), "&#123;&#123;csrf&#125;&#125;&lt;b&gt;");
    }

    #[test]
    fn parameters_sent_twice_are_refused() {
        assert!(pairs(b"a=1&b=2").is_some());
        assert!(pairs(b"a=1&a=1").is_none());
    }
}
