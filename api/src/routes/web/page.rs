//! What every HTML page of [`super`] is made of (the assets, the HTML answers and their
//! headers, escaping, the messages' script, the site's icon), and the replay page. Like
//! every page, outside `/v1`: not part of the JSON API and left out of the OpenAPI
//! document (they are registered on the plain actix app, see [`register`]).
//!
//! - `GET /games/{id}`: the replay page of a game, `api/assets/replay.html` with its
//!   placeholders (`{{game_id}}`, `{{title}}`) replaced by HTML-escaped text, served with a
//!   strict Content-Security-Policy (no inline script or style). An unknown game is an
//!   HTML 404 page.
//! - `GET /assets/replay.js`, `GET /assets/replay.css`: the page's script and style, built
//!   into the binary. The page links them as `?v=<hash of the content>`: asked with that
//!   version they are cached for good; otherwise they revalidate with their `ETag`.
//! - `GET /favicon.svg`, `GET /favicon.ico`: the site's icon (every page links both,
//!   versioned; `/favicon.ico` is also where browsers look unasked), built into the binary
//!   and cached for a month even without the version.
//!
//! Every page (and the HTML 404) is `Cache-Control: no-store`: it may name the player and
//! carries a CSRF token.

use std::sync::OnceLock;

use actix_web::dev::{ServiceFactory, ServiceRequest};
use actix_web::http::{StatusCode, header};
use actix_web::{App, Error, HttpRequest, HttpResponse, web};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::games::queries;
use crate::games::queries::ReadError;
use crate::i18n::{Lang, t, tr};
use crate::model::events::GameKind;
use crate::model::game_state::GameState;
use crate::state::AppState;

/// The Content-Security-Policy of the pages: everything from this server only, no inline
/// script or style, pictures also as `data:` URLs, no plugins, no framing.
pub const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                       script-src 'self'; object-src 'none'; base-uri 'none'; \
                       frame-ancestors 'none'";

const REPLAY_HTML: &str = include_str!("../../../assets/replay.html");
pub(crate) const REPLAY_JS: &str = include_str!("../../../assets/replay.js");
const REPLAY_CSS: &str = include_str!("../../../assets/replay.css");
const FAVICON_SVG: &str = include_str!("../../../assets/favicon.svg");
/// 16 and 32 pixels, PNG inside (made by `api/assets/favicon.py` from the same design as
/// `favicon.svg`).
const FAVICON_ICO: &[u8] = include_bytes!("../../../assets/favicon.ico");

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// The icon asked without its version (browsers ask `/favicon.ico` by themselves).
pub(crate) const A_MONTH: &str = "public, max-age=2592000";

/// Adds the pages to the app (outside the OpenAPI document).
pub fn register<T>(app: App<T>) -> App<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
{
    app.service(web::resource("/games/{id}").route(web::get().to(replay_page)))
        .service(web::resource("/assets/replay.js").route(web::get().to(replay_js)))
        .service(web::resource("/assets/replay.css").route(web::get().to(replay_css)))
        .service(web::resource("/assets/i18n/{lang}").route(web::get().to(messages_script)))
        .service(
            web::resource("/favicon.svg")
                .route(web::get().to(|req: HttpRequest| async move { favicon_svg().serve(&req) })),
        )
        .service(
            web::resource("/favicon.ico")
                .route(web::get().to(|req: HttpRequest| async move { favicon_ico().serve(&req) })),
        )
}

/// A built-in asset: its content, media type and version (a hash of the content).
pub(crate) struct Asset {
    pub(crate) body: &'static [u8],
    media_type: &'static str,
    version: String,
    /// `Cache-Control` when asked without the version.
    unversioned: &'static str,
}

impl Asset {
    pub(crate) fn new(body: &'static str, media_type: &'static str) -> Asset {
        Asset::bytes(body.as_bytes(), media_type, "no-cache")
    }

    pub(crate) fn bytes(
        body: &'static [u8],
        media_type: &'static str,
        unversioned: &'static str,
    ) -> Asset {
        let hash = Sha256::digest(body);
        Asset {
            body,
            media_type,
            version: hex::encode(&hash[..8]),
            unversioned,
        }
    }

    fn etag(&self) -> String {
        format!("\"{}\"", self.version)
    }

    /// The path the page links, with the version.
    pub(crate) fn link(&self, path: &str) -> String {
        format!("{path}?v={}", self.version)
    }

    pub(crate) fn serve(&self, req: &HttpRequest) -> HttpResponse {
        let versioned = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
            .is_ok_and(|q| q.iter().any(|(k, v)| k == "v" && *v == self.version));
        let cache = if versioned {
            IMMUTABLE
        } else {
            self.unversioned
        };
        let etag = self.etag();
        let fresh = req
            .headers()
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
        let mut response = if fresh {
            HttpResponse::NotModified()
        } else {
            HttpResponse::Ok()
        };
        response
            .insert_header((header::ETAG, etag))
            .insert_header((header::CACHE_CONTROL, cache))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
        if fresh {
            response.finish()
        } else {
            response.content_type(self.media_type).body(self.body)
        }
    }
}

fn js() -> &'static Asset {
    static JS: OnceLock<Asset> = OnceLock::new();
    JS.get_or_init(|| Asset::new(REPLAY_JS, "text/javascript; charset=utf-8"))
}

fn css() -> &'static Asset {
    static CSS: OnceLock<Asset> = OnceLock::new();
    CSS.get_or_init(|| Asset::new(REPLAY_CSS, "text/css; charset=utf-8"))
}

fn favicon_svg() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::bytes(FAVICON_SVG.as_bytes(), "image/svg+xml", A_MONTH))
}

fn favicon_ico() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::bytes(FAVICON_ICO, "image/x-icon", A_MONTH))
}

/// The `<link>`s of the icon, for every page's `<head>`; with the web app manifest, its
/// theme colour and the home-screen icon of iOS (see [`super::install`]).
pub(crate) fn icon_links() -> String {
    format!(
        "<link rel=\"icon\" href=\"{}\" sizes=\"16x16 32x32\">\n\
         <link rel=\"icon\" href=\"{}\" type=\"image/svg+xml\">\n\
         {}",
        favicon_ico().link("/favicon.ico"),
        favicon_svg().link("/favicon.svg"),
        super::install::head_links()
    )
}

async fn replay_js(req: HttpRequest) -> HttpResponse {
    js().serve(&req)
}

async fn replay_css(req: HttpRequest) -> HttpResponse {
    css().serve(&req)
}

/// Text for HTML content and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An HTML page with the pages' security headers, never stored by caches, and the icon
/// linked in place of the first `{{icon}}` (in the `<head>`, before any text of the page).
pub(crate) fn html(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body.replacen("{{icon}}", &icon_links(), 1))
}

/// The HTML 404 page, saying the message `what` in `lang`.
pub(crate) fn not_found_page(lang: Lang, what: &str) -> HttpResponse {
    notice_page(
        lang,
        StatusCode::NOT_FOUND,
        "not-found",
        &t(lang, "page-not-found"),
        &format!("<p>{}</p>", escape_html(&t(lang, what))),
    )
}

/// A small page of the server (no script): a heading and `content` (HTML, its text
/// escaped by the caller), in `lang`, with `Content-Language` and `Vary`.
pub(crate) fn notice_page(
    lang: Lang,
    status: StatusCode,
    id: &str,
    heading: &str,
    content: &str,
) -> HttpResponse {
    let body = format!(
        "<!doctype html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         {{{{icon}}}}\n<title>{} · Djambi</title>\n<link rel=\"stylesheet\" href=\"{}\">\n</head>\n\
         <body>\n<main id=\"{id}\">\n<h1>{}</h1>\n{content}\n</main>\n</body>\n</html>\n",
        lang.code(),
        escape_html(heading),
        css().link("/assets/replay.css"),
        escape_html(heading),
    );
    let mut response = html(status, body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_LANGUAGE,
        header::HeaderValue::from_static(lang.code()),
    );
    headers.insert(
        header::VARY,
        header::HeaderValue::from_static("Accept-Language, Cookie"),
    );
    response
}

/// The page's title: the players of the seats in play (usernames, or the record's names
/// for a study game).
fn title_of(lang: Lang, state: &GameState, usernames: &[(String, String)]) -> String {
    let names: Vec<String> = state
        .settings
        .seats
        .iter()
        .map(|seat| {
            let name = match state.kind {
                GameKind::Study => state.study_player(seat).map(str::to_string),
                GameKind::Play => usernames
                    .iter()
                    .find(|(s, _)| crate::games::queries::seat_of(s) == Some(seat))
                    .map(|(_, u)| u.clone()),
            };
            name.filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| t(lang, &format!("seat-{}", seat.letter())))
        })
        .collect();
    let short: String = state.id.as_str().chars().take(8).collect();
    let kind = match state.kind {
        GameKind::Study => "replay-study-title",
        GameKind::Play => "replay-game-title",
    };
    tr(
        lang,
        kind,
        &[("game", short.into()), ("players", names.join(", ").into())],
    )
}

/// A template's `{{t:message-id}}` (or `{{t:id.attribute}}`) in the reader's language,
/// HTML-escaped.
pub(crate) fn localize(template: &str, lang: Lang) -> String {
    let mut out = String::with_capacity(template.len() + template.len() / 4);
    let mut rest = template;
    while let Some(start) = rest.find("{{t:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 4..];
        match after.find("}}") {
            Some(end) => {
                out.push_str(&escape_html(&crate::i18n::t(lang, &after[..end])));
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The script that gives the web client its messages in `lang`: `window.DjambiMessages`
/// (the `js-*` messages of `pages.ftl` and the names of seats and pieces, placeholders
/// left as `{$name}`) and
/// `window.DjambiLanguage`.
pub(crate) fn messages_js(lang: Lang) -> &'static Asset {
    static ALL: OnceLock<Vec<Asset>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        Lang::all()
            .map(|l| {
                let messages: serde_json::Map<String, serde_json::Value> =
                    crate::i18n::catalogue(l, &["js-", "seat-", "piece-"])
                        .into_iter()
                        .map(|(id, text)| (id, serde_json::Value::String(text)))
                        .collect();
                let body = format!(
                    "// The web client's messages in {} (locales/{}/pages.ftl), made by the server.\n\
                     window.DjambiLanguage = {};\nwindow.DjambiMessages = {};\n",
                    l.name(),
                    l.code(),
                    serde_json::Value::String(l.code().into()),
                    serde_json::Value::Object(messages)
                );
                // Built once per language and kept for the life of the process.
                Asset::new(
                    Box::leak(body.into_boxed_str()),
                    "text/javascript; charset=utf-8",
                )
            })
            .collect()
    });
    &all[Lang::all().position(|l| l == lang).unwrap_or(0)]
}

/// `GET /assets/i18n/{lang}.js`.
async fn messages_script(req: HttpRequest, path: web::Path<String>) -> HttpResponse {
    let code = path.trim_end_matches(".js");
    match Lang::from_code(code) {
        Some(lang) if lang.code() == code => messages_js(lang).serve(&req),
        _ => not_found_page(
            crate::routes::web::page_lang(&req).await,
            "page-no-such-file",
        ),
    }
}

/// `GET /games/{id}`: the replay page.
async fn replay_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    // No login needed; a signed-in reader's preference still wins.
    let lang = crate::routes::web::page_lang(&req).await;
    let Ok(id) = crate::routes::games::game_id(&path) else {
        return Ok(not_found_page(lang, "page-no-such-game"));
    };
    let (state, usernames) = match queries::state_with_players(app.game_ctx(), id).await {
        Ok((state, players)) => {
            let usernames: Vec<(String, String)> =
                players.into_iter().map(|p| (p.seat, p.username)).collect();
            (state, usernames)
        }
        Err(ReadError::NotFound(_)) => return Ok(not_found_page(lang, "page-no-such-game")),
        Err(e) => return Err(e.into()),
    };
    let page = localize(REPLAY_HTML, lang)
        .replace(
            "/assets/i18n/messages.js",
            &messages_js(lang).link(&format!("/assets/i18n/{}.js", lang.code())),
        )
        .replace("{{lang}}", lang.code())
        .replace("/assets/replay.js", &js().link("/assets/replay.js"))
        .replace("/assets/replay.css", &css().link("/assets/replay.css"))
        .replace("{{game_id}}", &escape_html(state.id.as_str()))
        .replace(
            "{{title}}",
            &escape_html(&title_of(lang, &state, &usernames)),
        );
    // Table talk as a spectator may see it (the visibility rule of `crate::messages`).
    let talk = crate::messages::list::all_visible(app.game_ctx(), state.id.clone(), None).await?;
    let page = page.replace(
        "{{table_talk}}",
        &crate::routes::messages::talk_section(&talk, lang),
    );
    // The engine's analysis, as anyone may read it (a public game's).
    let analysis = match crate::analysis::read(app.analysis_ctx(), state.id.clone(), None).await {
        Ok(a) => Some(a),
        Err(crate::analysis::AnalysisError::Store(e)) => return Err(e.into()),
        Err(_) => None,
    };
    let page = page.replace(
        "{{analysis}}",
        &super::analysis::section(analysis.as_ref(), lang),
    );
    let mut response = html(StatusCode::OK, page);
    response.headers_mut().insert(
        header::CONTENT_LANGUAGE,
        header::HeaderValue::from_static(lang.code()),
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_html(r#"<a href="x">O'Neil & co</a>"#),
            "&lt;a href=&quot;x&quot;&gt;O&#39;Neil &amp; co&lt;/a&gt;"
        );
    }

    #[test]
    fn the_template_has_its_placeholders_and_assets() {
        for needle in [
            "{{game_id}}",
            "{{title}}",
            "/assets/replay.js",
            "/assets/replay.css",
            "{{icon}}",
        ] {
            assert!(REPLAY_HTML.contains(needle), "{needle}");
        }
        assert!(!REPLAY_HTML.contains("<script>"), "no inline script");
        assert_eq!(
            crate::routes::web::untranslated_text(REPLAY_HTML),
            Vec::<String>::new()
        );
        assert!(!REPLAY_HTML.contains("style="), "no inline style");
    }
}
