//! The web client for players, served by the server itself (outside `/v1` and outside the
//! OpenAPI document, like the replay page): small HTML pages and one plain script that
//! calls the same `/v1` JSON API, no build step, every asset built into the binary.
//!
//! | path | page |
//! |---|---|
//! | `/` | my games (whose turn, deadline, soonest first), or the login form when signed out |
//! | `/signup`, `/login` | sign up, log in |
//! | `/lobby` | open games, create a game |
//! | `/play/{id}` | the game page: board, players, clocks, moves, click to move |
//! | `/settings` | notification settings, push notifications on this device, vacation |
//! | `/players/{username}`, `/leaderboard` | a player's rating page with its history chart (SVG drawn by the server), the leaderboard (server-rendered, see [`ratings`]) |
//! | `POST /web/session`, `POST /web/logout` | log in (sets the cookie), log out |
//! | `/assets/web/{app.js,play.js,talk.js,web.css}` | versioned, immutable when asked with `?v=` |
//! | `/sw.js`, `/manifest.webmanifest`, `/icons/*.png` | the service worker (Web Push), the web app manifest and its icons (see [`install`]) |
//!
//! The pages authenticate with the session cookie of [`crate::auth::web_session`]; each
//! page carries the session's CSRF token in `<meta name="csrf-token">`, and the script
//! sends it as `X-CSRF-Token` on every write. Pages are served with the strict
//! [`CSP`](super::pages::CSP) (no inline script or style) and `Cache-Control: no-store`,
//! and link the site's icon (`/favicon.ico`, `/favicon.svg`, see [`super::pages`]).

mod chart;
pub mod install;
mod ratings;
mod session;

use std::sync::OnceLock;

use actix_web::dev::{ServiceFactory, ServiceRequest};
use actix_web::http::{StatusCode, header};
use actix_web::{App, Error, HttpRequest, HttpResponse, web};

use super::pages::{Asset, escape_html, html, not_found_page};
use crate::accounts::authenticate;
use crate::auth::web_session;
use crate::error::ApiError;
use crate::games::queries::{self, ReadError};
use crate::state::AppState;

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

/// Adds the web client to the app.
pub fn register<T>(app: App<T>) -> App<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
{
    install::register(app)
        .service(web::resource("/").route(web::get().to(home)))
        .service(web::resource("/login").route(web::get().to(login_page)))
        .service(web::resource("/signup").route(web::get().to(signup_page)))
        .service(web::resource("/lobby").route(web::get().to(lobby_page)))
        .service(web::resource("/settings").route(web::get().to(settings_page)))
        .service(web::resource("/play/{id}").route(web::get().to(play_page)))
        .service(web::resource("/players/{username}").route(web::get().to(ratings::player_page)))
        .service(web::resource("/leaderboard").route(web::get().to(ratings::leaderboard_page)))
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
    user_id: String,
    username: String,
    csrf: String,
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
    let found = authenticate::session_user(&app.accounts(), sid.clone(), uid).await?;
    Ok(found.map(|user| Viewer {
        user_id: user.id,
        username: user.username,
        csrf: web_session::csrf_token(&secret, &sid),
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

/// A page: the shell around `main`, with the page's name, the player and the assets.
fn page(
    name: &str,
    title: &str,
    main: &str,
    viewer: Option<&Viewer>,
    game_id: &str,
) -> HttpResponse {
    let nav = match viewer {
        Some(v) => format!(
            "<a href=\"/\">My games</a> <a href=\"/lobby\">Lobby</a> \
             <a href=\"/leaderboard\">Leaderboard</a> \
             <a href=\"/settings\">Settings</a> <span class=\"who\">{}</span> \
             <button type=\"button\" id=\"logout\">Log out</button>",
            escape_html(&v.username)
        ),
        None => "<a href=\"/leaderboard\">Leaderboard</a> <a href=\"/login\">Log in</a> \
                 <a href=\"/signup\">Sign up</a>"
            .to_string(),
    };
    let body = SHELL
        .replace("{{main}}", main)
        .replace("{{nav}}", &nav)
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
        .replace("{{page}}", name)
        .replace("{{title}}", &escape_html(title))
        .replace("{{game_id}}", &escape_html(game_id))
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
    html(StatusCode::OK, body)
}

async fn home(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match viewer(&req, &app).await? {
        Some(v) => Ok(page("home", "My games", HOME, Some(&v), "")),
        None => Ok(page("login", "Log in", LOGIN, None, "")),
    }
}

async fn login_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    Ok(page("login", "Log in", LOGIN, v.as_ref(), ""))
}

async fn signup_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let v = viewer(&req, &app).await?;
    Ok(page("signup", "Sign up", SIGNUP, v.as_ref(), ""))
}

async fn lobby_page(req: HttpRequest, app: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match viewer(&req, &app).await? {
        Some(v) => Ok(page("lobby", "Lobby", LOBBY, Some(&v), "")),
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
            let main = SETTINGS.replace("{{push}}", push);
            Ok(page("settings", "Settings", &main, Some(&v), ""))
        }
        None => Ok(to_login("/settings")),
    }
}

async fn play_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Ok(id) = super::games::game_id(&path) else {
        return Ok(not_found_page("There is no such game."));
    };
    match queries::current_version(app.game_ctx(), id.clone()).await {
        Ok(_) => {}
        Err(ReadError::NotFound(_)) => return Ok(not_found_page("There is no such game.")),
        Err(e) => return Err(e.into()),
    }
    match viewer(&req, &app).await? {
        Some(v) => {
            let short: String = id.chars().take(8).collect();
            Ok(page("play", &format!("Game {short}"), PLAY, Some(&v), &id))
        }
        None => Ok(to_login(&format!("/play/{id}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
