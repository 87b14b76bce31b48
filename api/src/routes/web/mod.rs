//! The web client for players, served by the server itself (outside `/v1` and outside the
//! OpenAPI document, like the replay page): small HTML pages and one plain script that
//! calls the same `/v1` JSON API, no build step, every asset built into the binary.
//!
//! | path | page |
//! |---|---|
//! | `/` | my games (whose turn, deadline, soonest first), or the welcome page when signed out (see [`learn`]) |
//! | `/rules`, `/learn` | the rules for players, the lessons (see [`learn`]) |
//! | `/signup`, `/login` | sign up, log in |
//! | `/lobby` | open games, create a game |
//! | `/play/{id}` | the game page: board, players, clocks, moves, click to move |
//! | `/games/{id}` | a game's replay page (see [`page`]) |
//! | `/settings` | notification settings, push notifications on this device, vacation |
//! | `/players/{username}`, `/leaderboard` | a player's rating page with its history chart (SVG drawn by the server), the leaderboard (server-rendered, see [`ratings`]) |
//! | `POST /web/session`, `POST /web/logout` | log in (sets the cookie), log out |
//! | `/oauth/authorize`, `POST /settings/tokens/{id}/revoke` | an app's consent page (OAuth 2.0), revoking an app or token from the settings (see [`oauth`]) |
//! | `/assets/web/{app.js,play.js,talk.js,web.css}` | versioned, immutable when asked with `?v=` |
//! | `/sw.js`, `/manifest.webmanifest`, `/icons/*.png` | the service worker (Web Push), the web app manifest and its icons (see [`install`]) |
//! | `/assets/i18n/{lang}.js` | the script's messages in a language (`window.DjambiMessages`), versioned too |
//!
//! Every page is in its reader's language (the account's preference, else
//! `Accept-Language`, else English): the templates' `{{t:message-id}}` are the messages of
//! `locales/<lang>/pages.ftl`, the script takes its own (`js-*`) from the page's
//! `/assets/i18n/{lang}.js`, and dates follow the account's time zone
//! (`data-time-zone` on `<body>`).
//!
//! The pages authenticate with the session cookie of [`crate::auth::web_session`]; each
//! page carries the session's CSRF token in `<meta name="csrf-token">`, and the script
//! sends it as `X-CSRF-Token` on every write. Pages are served with the strict
//! [`CSP`](page::CSP) (no inline script or style) and `Cache-Control: no-store`,
//! and link the site's icon (`/favicon.ico`, `/favicon.svg`, see [`page`]).

pub mod analysis;
mod chart;
pub mod install;
mod learn;
mod oauth;
pub mod page;
mod ratings;
mod reset;
mod session;
mod tournaments;

use std::sync::OnceLock;

use actix_web::dev::{ServiceFactory, ServiceRequest};
use actix_web::http::{StatusCode, header};
use actix_web::{App, Error, HttpRequest, HttpResponse, web};

use crate::accounts::authenticate;
use crate::auth::web_session;
use crate::error::ApiError;
use crate::games::queries::{self, ReadError};
use crate::i18n::Lang;
use crate::ids::{SessionId, UserId};
use crate::state::AppState;
use page::{Asset, escape_html, html, localize, messages_js, not_found_page};

const SHELL: &str = include_str!("../../../assets/web/page.html");
const LOGIN: &str = include_str!("../../../assets/web/login.html");
const SIGNUP: &str = include_str!("../../../assets/web/signup.html");
const HOME: &str = include_str!("../../../assets/web/home.html");
const LOBBY: &str = include_str!("../../../assets/web/lobby.html");
const PLAY: &str = include_str!("../../../assets/web/play.html");
const SETTINGS: &str = include_str!("../../../assets/web/settings.html");
const APP_JS: &str = include_str!("../../../assets/web/app.js");
const PLAY_JS: &str = include_str!("../../../assets/web/play.js");
const TALK_JS: &str = include_str!("../../../assets/web/talk.js");
const WEB_CSS: &str = include_str!("../../../assets/web/web.css");

fn app_js() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::new(APP_JS, "text/javascript; charset=utf-8"))
}

fn play_js() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::new(PLAY_JS, "text/javascript; charset=utf-8"))
}

fn talk_js() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::new(TALK_JS, "text/javascript; charset=utf-8"))
}

fn web_css() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::new(WEB_CSS, "text/css; charset=utf-8"))
}

/// The words of a template that come from no message (for the tests of the pages).
#[cfg(test)]
pub(crate) fn untranslated_text(template: &str) -> Vec<String> {
    tests::untranslated(template)
}

/// Adds the web client to the app.
pub fn register<T>(app: App<T>) -> App<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
{
    install::register(app)
        .configure(reset::register)
        .configure(learn::register)
        .configure(oauth::register)
        .service(web::resource("/").route(web::get().to(home)))
        .service(web::resource("/login").route(web::get().to(login_page)))
        .service(web::resource("/signup").route(web::get().to(signup_page)))
        .service(web::resource("/lobby").route(web::get().to(lobby_page)))
        .service(web::resource("/settings").route(web::get().to(settings_page)))
        .service(web::resource("/play/{id}").route(web::get().to(play_page)))
        .service(web::resource("/players/{username}").route(web::get().to(ratings::player_page)))
        .service(web::resource("/leaderboard").route(web::get().to(ratings::leaderboard_page)))
        .service(web::resource("/tournaments").route(web::get().to(tournaments::list_page)))
        .service(web::resource("/tournaments/{id}").route(web::get().to(tournaments::event_page)))
        .service(web::resource("/web/session").route(web::post().to(session::login)))
        .service(web::resource("/web/logout").route(web::post().to(session::logout)))
        .service(
            web::resource("/assets/web/app.js")
                .route(web::get().to(|req: HttpRequest| async move { app_js().serve(&req) })),
        )
        .service(
            web::resource("/assets/web/play.js")
                .route(web::get().to(|req: HttpRequest| async move { play_js().serve(&req) })),
        )
        .service(
            web::resource("/assets/web/talk.js")
                .route(web::get().to(|req: HttpRequest| async move { talk_js().serve(&req) })),
        )
        .service(
            web::resource("/assets/web/web.css")
                .route(web::get().to(|req: HttpRequest| async move { web_css().serve(&req) })),
        )
}

/// The signed-in player of a page request.
struct Viewer {
    user_id: UserId,
    username: String,
    csrf: String,
    /// The account's preferences (`None`: not set).
    language: Option<String>,
    time_zone: Option<String>,
}

/// Whom a page is written for: the language (the account's preference, else the
/// request's `Accept-Language`, else English) and the time zone (the account's, else
/// UTC) of its text and dates.
pub(crate) struct Reader {
    pub lang: Lang,
    pub zone: crate::i18n::TimeZone,
}

fn reader(req: &HttpRequest, viewer: Option<&Viewer>) -> Reader {
    let lang = super::language::of_request(req, viewer.and_then(|v| v.language.as_deref()));
    let zone = viewer
        .and_then(|v| v.time_zone.as_deref())
        .and_then(crate::i18n::parse_time_zone)
        .unwrap_or(crate::i18n::TimeZone::UTC);
    Reader { lang, zone }
}

/// The `<option>`s of the language choice: "as the browser says", then each language in
/// its own name; `selected` is the account's preference.
pub(crate) fn language_options(lang: Lang, selected: Option<&str>) -> String {
    let mut out = format!(
        "<option value=\"\"{}>{}</option>",
        if selected.is_none() { " selected" } else { "" },
        escape_html(&crate::i18n::t(lang, "page-language-auto"))
    );
    for l in Lang::all() {
        out.push_str(&format!(
            "<option value=\"{}\"{}>{}</option>",
            l.code(),
            if selected == Some(l.code()) {
                " selected"
            } else {
                ""
            },
            escape_html(l.name())
        ));
    }
    out
}

/// The `<option>`s of the time zone list (every IANA name).
fn time_zone_options() -> &'static str {
    static OPTIONS: OnceLock<String> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        chrono_tz::TZ_VARIANTS
            .iter()
            .map(|z| format!("<option value=\"{}\"></option>", z.name()))
            .collect()
    })
}

/// The language of a page request: the signed-in player's preference (the session
/// cookie), else the request's `Accept-Language`, else English.
pub(crate) async fn page_lang(req: &HttpRequest) -> Lang {
    let fallback = || super::language::of_request(req, None);
    let Some(app) = req.app_data::<web::Data<AppState>>() else {
        return fallback();
    };
    match viewer(req, app).await {
        Ok(Some(v)) => reader(req, Some(&v)).lang,
        _ => fallback(),
    }
}

/// The player of the request's session cookie, if it is valid and its session live.
async fn viewer(req: &HttpRequest, app: &web::Data<AppState>) -> Result<Option<Viewer>, ApiError> {
    let Some(value) = web_session::cookie_value(req) else {
        return Ok(None);
    };
    let secret = app.config.jwt_secret.expose().to_string();
    let now = app.clock.now().and_utc().timestamp();
    let Some((sid, uid)) = web_session::verify(&secret, &value, now) else {
        return Ok(None);
    };
    let found = authenticate::session_user(
        &app.accounts(),
        SessionId::new(sid.clone()),
        UserId::new(uid),
    )
    .await?;
    Ok(found.map(|user| Viewer {
        user_id: user.id,
        username: user.username,
        csrf: web_session::csrf_token(&secret, &sid),
        language: user.language,
        time_zone: user.time_zone,
    }))
}

/// `303 See Other` to the login page, coming back to `next` afterwards.
fn to_login(next: &str) -> HttpResponse {
    let location = if next == "/" {
        "/login".to_string()
    } else {
        format!(
            "/login?next={}",
            url::form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>()
        )
    };
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

/// A page: the shell around `main` (whose `{{t:…}}` are translated), with the page's
/// name, the player, the assets and the messages of the reader's language.
fn page(
    name: &str,
    title: &str,
    main: &str,
    viewer: Option<&Viewer>,
    game_id: &str,
    reader: &Reader,
) -> HttpResponse {
    let lang = reader.lang;
    let t = |id: &str| escape_html(&crate::i18n::t(lang, id));
    let nav = match viewer {
        Some(v) => format!(
            "<a href=\"/\">{}</a> <a href=\"/lobby\">{}</a> \
             <a href=\"/tournaments\">{}</a> <a href=\"/leaderboard\">{}</a> \
             <a href=\"/rules\">{}</a> <a href=\"/learn\">{}</a> \
             <a href=\"/settings\">{}</a> <span class=\"who\">{}</span> \
             <button type=\"button\" id=\"logout\">{}</button>",
            t("page-nav-home"),
            t("page-nav-lobby"),
            t("page-nav-tournaments"),
            t("page-nav-leaderboard"),
            t("page-nav-rules"),
            t("page-nav-learn"),
            t("page-nav-settings"),
            escape_html(&v.username),
            t("page-nav-logout"),
        ),
        None => format!(
            "<a href=\"/rules\">{}</a> <a href=\"/learn\">{}</a> \
             <a href=\"/tournaments\">{}</a> <a href=\"/leaderboard\">{}</a> \
             <a href=\"/login\">{}</a> <a href=\"/signup\">{}</a>",
            t("page-nav-rules"),
            t("page-nav-learn"),
            t("page-nav-tournaments"),
            t("page-nav-leaderboard"),
            t("page-nav-login"),
            t("page-nav-signup"),
        ),
    };
    let main = localize(main, lang)
        .replace(
            "{{language_options}}",
            &language_options(lang, viewer.and_then(|v| v.language.as_deref())),
        )
        .replace("{{time_zone_options}}", time_zone_options());
    let body = localize(SHELL, lang)
        .replace("{{main}}", &main)
        .replace("{{nav}}", &nav)
        .replace(
            "/assets/i18n/messages.js",
            &messages_js(lang).link(&format!("/assets/i18n/{}.js", lang.code())),
        )
        .replace("/assets/web/app.js", &app_js().link("/assets/web/app.js"))
        .replace(
            "/assets/web/play.js",
            &play_js().link("/assets/web/play.js"),
        )
        .replace(
            "/assets/web/talk.js",
            &talk_js().link("/assets/web/talk.js"),
        )
        .replace(
            "/assets/web/web.css",
            &web_css().link("/assets/web/web.css"),
        )
        .replace(
            "/assets/web/newcomer.js",
            &learn::newcomer_js().link("/assets/web/newcomer.js"),
        )
        .replace("{{lang}}", lang.code())
        .replace("{{page}}", name)
        .replace("{{title}}", &escape_html(title))
        .replace("{{game_id}}", &escape_html(game_id))
        .replace(
            "{{time_zone}}",
            &escape_html(viewer.and_then(|v| v.time_zone.as_deref()).unwrap_or("")),
        )
        .replace(
            "{{csrf}}",
            &escape_html(viewer.map_or("", |v| v.csrf.as_str())),
        )
        .replace(
            "{{user_id}}",
            &escape_html(viewer.map_or("", |v| v.user_id.as_str())),
        )
        .replace(
            "{{username}}",
            &escape_html(viewer.map_or("", |v| v.username.as_str())),
        );
    let mut response = html(StatusCode::OK, body);
    response.headers_mut().insert(
        header::CONTENT_LANGUAGE,
        header::HeaderValue::from_static(lang.code()),
    );
    response
}

/// A page of `template` titled with the message `title`.
fn simple(
    req: &HttpRequest,
    name: &str,
    title: &str,
    template: &str,
    v: Option<&Viewer>,
) -> HttpResponse {
    let r = reader(req, v);
    page(name, &crate::i18n::t(r.lang, title), template, v, "", &r)
}

async fn home(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match viewer(&req, &app).await? {
        Some(v) => Ok(simple(&req, "home", "home-title", HOME, Some(&v))),
        // A visitor: what Djambi is, games to watch, learn, sign up (and the login form).
        None => Ok(learn::welcome(&req)),
    }
}

async fn login_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    Ok(simple(&req, "login", "login-title", LOGIN, v.as_ref()))
}

async fn signup_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    let main = SIGNUP.replace("{{play_now}}", learn::play_now_fields(&req));
    Ok(simple(&req, "signup", "signup-title", &main, v.as_ref()))
}

async fn lobby_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match viewer(&req, &app).await? {
        Some(v) => Ok(simple(&req, "lobby", "lobby-title", LOBBY, Some(&v))),
        None => Ok(to_login("/lobby")),
    }
}

async fn settings_page(
    req: HttpRequest,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    match viewer(&req, &app).await? {
        Some(v) => {
            // Whether the server sends pushes (a VAPID key): the page says so before the
            // player clicks, without a request that would fail.
            let push = if app.notifications().vapid_public_key().is_ok() {
                "on"
            } else {
                "off"
            };
            let apps = oauth::apps_list(&app, &v.user_id, &v.csrf, &reader(&req, Some(&v))).await?;
            let main = SETTINGS
                .replace("{{push}}", push)
                .replace("{{apps}}", &apps);
            Ok(simple(&req, "settings", "settings-title", &main, Some(&v)))
        }
        None => Ok(to_login("/settings")),
    }
}

async fn play_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let lang = page_lang(&req).await;
    let Ok(id) = super::games::game_id(&path) else {
        return Ok(not_found_page(lang, "page-no-such-game"));
    };
    match queries::current_version(app.game_ctx(), id.clone()).await {
        Ok(_) => {}
        Err(ReadError::NotFound(_)) => return Ok(not_found_page(lang, "page-no-such-game")),
        Err(e) => return Err(e.into()),
    }
    match viewer(&req, &app).await? {
        Some(v) => {
            let short: String = id.as_str().chars().take(8).collect();
            let r = reader(&req, Some(&v));
            let title = crate::i18n::tr(r.lang, "play-title", &[("game", short.into())]);
            Ok(page("play", &title, PLAY, Some(&v), id.as_str(), &r))
        }
        None => Ok(to_login(&format!("/play/{id}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a template a reader sees that do not come from a message: its text
    /// between tags and its `title`, `alt`, `placeholder` and `aria-label` values, once
    /// the `{{…}}` placeholders are taken out.
    pub(crate) fn untranslated(template: &str) -> Vec<String> {
        let mut found = Vec::new();
        let words = |text: &str, found: &mut Vec<String>| {
            let mut rest = text.to_string();
            while let Some(a) = rest.find("{{") {
                let b = rest[a..].find("}}").map_or(rest.len(), |b| a + b + 2);
                rest.replace_range(a..b, " ");
            }
            // The brand and entities are not words to translate.
            let rest = rest.replace("Djambi", " ").replace("&amp;", " ");
            if rest.chars().any(|c| c.is_alphabetic()) {
                found.push(rest.trim().to_string());
            }
        };
        let mut rest = template;
        while let Some(open) = rest.find('<') {
            words(&rest[..open], &mut found);
            let close = rest[open..].find('>').map_or(rest.len(), |c| open + c + 1);
            let tag = &rest[open..close];
            for attribute in ["title=\"", "alt=\"", "placeholder=\"", "aria-label=\""] {
                if let Some(i) = tag.find(attribute) {
                    let value = &tag[i + attribute.len()..];
                    let value = &value[..value.find('"').unwrap_or(value.len())];
                    // A move in the canonical notation is no word.
                    if value != "C8-D7" {
                        words(value, &mut found);
                    }
                }
            }
            rest = &rest[close..];
        }
        words(rest, &mut found);
        found
    }

    #[test]
    fn templates_carry_no_untranslated_text() {
        for (name, t) in [
            ("shell", SHELL),
            ("login", LOGIN),
            ("signup", SIGNUP),
            ("home", HOME),
            ("lobby", LOBBY),
            ("play", PLAY),
            ("settings", SETTINGS),
        ] {
            assert_eq!(untranslated(t), Vec::<String>::new(), "{name}");
            // Every message a template names exists.
            let mut rest = t;
            while let Some(i) = rest.find("{{t:") {
                let id = &rest[i + 4..i + 4 + rest[i + 4..].find("}}").unwrap()];
                assert!(crate::i18n::has(Lang::EN, id), "{name}: {id}");
                rest = &rest[i + 4..];
            }
        }
        assert!(!untranslated("<p>Hello {{t:x}}</p>").is_empty());
        assert!(untranslated("<p title=\"{{t:x}}\">{{t:y}} · ‹</p>").is_empty());
    }

    #[test]
    fn scripts_say_nothing_but_messages() {
        // No prose in a string literal of the scripts (two words of letters, outside
        // comments), and every message they name exists.
        for (name, js) in [
            ("app.js", APP_JS),
            ("play.js", PLAY_JS),
            ("talk.js", TALK_JS),
            ("newcomer.js", learn::NEWCOMER_JS),
            ("replay.js", page::REPLAY_JS),
        ] {
            for (n, line) in js.lines().enumerate() {
                let code = match line.trim_start().starts_with("//") {
                    true => "",
                    false => line.split(" // ").next().unwrap_or(""),
                };
                let mut parts = code.split('"');
                parts.next();
                while let (Some(literal), _) = (parts.next(), parts.next()) {
                    let prose = literal
                        .split(' ')
                        .filter(|w| w.len() > 1 && w.chars().all(char::is_alphabetic))
                        .count()
                        >= 2;
                    assert!(
                        !prose || literal == "use strict" || literal.starts_with("player seat-"),
                        "{name}:{}: {literal:?} is not a message",
                        n + 1
                    );
                }
                for call in ["T(\"", "t(\""] {
                    for (i, _) in code.match_indices(call) {
                        let id = code[i + 3..].split('"').next().unwrap_or("");
                        if id.starts_with("js-") && !id.ends_with('-') {
                            assert!(crate::i18n::has(Lang::EN, id), "{name}:{}: {id}", n + 1);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_page_in_french_says_no_english_word_of_its_template() {
        let fr = Lang::from_code("fr").unwrap();
        let page = localize(LOBBY, fr);
        assert!(page.contains("Créer une partie"), "{page}");
        assert!(page.contains(">Rouge<"), "{page}");
        assert!(!page.contains("{{t:"));
        for english in ["Create a game", "Time per move", ">Red<", "Invite only"] {
            assert!(!page.contains(english), "{english}");
        }
        let escaped = localize("<p>{{t:signup-have-account}}</p>", Lang::EN);
        assert_eq!(escaped, "<p>Already have an account?</p>");
    }

    #[test]
    fn templates_have_no_inline_script_or_style() {
        for (name, t) in [
            ("shell", SHELL),
            ("login", LOGIN),
            ("signup", SIGNUP),
            ("home", HOME),
            ("lobby", LOBBY),
            ("play", PLAY),
            ("settings", SETTINGS),
        ] {
            assert!(!t.contains("<script>"), "{name}: inline script");
            assert!(!t.contains("style="), "{name}: inline style");
            assert!(!t.contains("<style"), "{name}: style element");
            for handler in [" onclick", " onsubmit", " onload", " onerror", " oninput"] {
                assert!(!t.contains(handler), "{name}: event handler attribute");
            }
        }
        for needle in [
            "{{main}}",
            "{{csrf}}",
            "/assets/web/app.js",
            "/assets/web/web.css",
            "{{icon}}",
        ] {
            assert!(SHELL.contains(needle), "{needle}");
        }
    }
}
