//! What makes the web client an installable web app that receives pushes:
//!
//! - `GET /sw.js`: the service worker (`api/assets/web/sw.js`), at the root so that its
//!   scope is the whole site (`/`) without `Service-Worker-Allowed`. It shows the Web Push
//!   notifications (see [`crate::notifications::push`]) and opens the game on a click. It
//!   is registered only by the settings page's "Enable notifications on this device"
//!   button, never at page load. `text/javascript`, revalidated with its `ETag` (the
//!   browser checks it for updates by itself), under a CSP of its own.
//! - `GET /manifest.webmanifest` (`application/manifest+json`): the web app manifest
//!   (`api/assets/web/manifest.webmanifest`, its words from the messages of the reader's
//!   language, `Vary: Accept-Language`), linked from every page's `<head>` with the
//!   theme colour.
//! - `GET /icons/{icon-192,icon-512,maskable-192,maskable-512}.png`: the manifest's icons,
//!   made by `api/assets/icons.py` from the favicon's design; cached for a month.

use std::sync::OnceLock;

use actix_web::dev::{ServiceFactory, ServiceRequest};
use actix_web::http::header::{self, HeaderValue};
use actix_web::{App, Error, HttpRequest, HttpResponse, web};

use crate::i18n::Lang;
use crate::routes::web::page::{A_MONTH, Asset, not_found_page};

const SW_JS: &str = include_str!("../../../assets/web/sw.js");
const MANIFEST: &str = include_str!("../../../assets/web/manifest.webmanifest");
const ICON_192: &[u8] = include_bytes!("../../../assets/icons/icon-192.png");
const ICON_512: &[u8] = include_bytes!("../../../assets/icons/icon-512.png");
const MASKABLE_192: &[u8] = include_bytes!("../../../assets/icons/maskable-192.png");
const MASKABLE_512: &[u8] = include_bytes!("../../../assets/icons/maskable-512.png");

/// The colour of the browser's bars around the installed app (the pages' header).
pub const THEME_COLOUR: &str = "#efe8d8";

/// The service worker's own policy: it loads nothing, connects to this server only.
const SW_CSP: &str = "default-src 'self'; script-src 'self'; object-src 'none'";

fn sw_js() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::new(SW_JS, "text/javascript; charset=utf-8"))
}

/// The manifest in `lang`: its `lang`, name, description and shortcuts from the
/// messages (`manifest-*` in `pages.ftl`).
fn manifest(lang: Lang) -> &'static Asset {
    static A: OnceLock<Vec<Asset>> = OnceLock::new();
    let all = A.get_or_init(|| {
        Lang::all()
            .map(|lang| {
                let t = |id: &str| serde_json::Value::from(crate::i18n::t(lang, id));
                let mut m: serde_json::Value = serde_json::from_str(MANIFEST).unwrap_or_default();
                m["lang"] = lang.code().into();
                m["name"] = t("manifest-name");
                m["description"] = t("manifest-description");
                if let Some(shortcuts) = m["shortcuts"].as_array_mut() {
                    for s in shortcuts {
                        let id = match s["url"].as_str() {
                            Some("/lobby") => "manifest-shortcut-lobby",
                            _ => "manifest-shortcut-games",
                        };
                        s["name"] = t(id);
                    }
                }
                let body = serde_json::to_string_pretty(&m).unwrap_or_default();
                Asset::new(
                    Box::leak(body.into_boxed_str()),
                    "application/manifest+json",
                )
            })
            .collect()
    });
    &all[Lang::all().position(|l| l == lang).unwrap_or(0)]
}

/// `GET /manifest.webmanifest`, in the reader's language.
async fn manifest_file(req: HttpRequest) -> HttpResponse {
    let lang = super::page_lang(&req).await;
    let mut response = manifest(lang).serve(&req);
    let headers = response.headers_mut();
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Accept-Language, Cookie"),
    );
    headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(lang.code()),
    );
    response
}

/// The icons by name (`/icons/{name}`).
fn icon(name: &str) -> Option<&'static Asset> {
    static A: OnceLock<Vec<(&'static str, Asset)>> = OnceLock::new();
    let icons = A.get_or_init(|| {
        [
            ("icon-192.png", ICON_192),
            ("icon-512.png", ICON_512),
            ("maskable-192.png", MASKABLE_192),
            ("maskable-512.png", MASKABLE_512),
        ]
        .into_iter()
        .map(|(name, body)| (name, Asset::bytes(body, "image/png", A_MONTH)))
        .collect()
    });
    icons.iter().find(|(n, _)| *n == name).map(|(_, a)| a)
}

/// The manifest's link, the theme colour and the home-screen icon of iOS, for every
/// page's `<head>`.
pub(crate) fn head_links() -> String {
    let touch = icon("icon-192.png").map_or_else(String::new, |a| a.link("/icons/icon-192.png"));
    format!(
        "<link rel=\"manifest\" href=\"/manifest.webmanifest\">\n\
         <meta name=\"theme-color\" content=\"{THEME_COLOUR}\">\n\
         <link rel=\"apple-touch-icon\" href=\"{touch}\">"
    )
}

/// Adds the service worker, the manifest and the icons to the app.
pub fn register<T>(app: App<T>) -> App<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
{
    app.service(web::resource("/sw.js").route(web::get().to(service_worker)))
        .service(web::resource("/manifest.webmanifest").route(web::get().to(manifest_file)))
        .service(web::resource("/icons/{name}").route(web::get().to(icon_file)))
}

async fn service_worker(req: HttpRequest) -> HttpResponse {
    let mut response = sw_js().serve(&req);
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SW_CSP),
    );
    response
}

async fn icon_file(req: HttpRequest, name: web::Path<String>) -> HttpResponse {
    match icon(&name) {
        Some(a) => a.serve(&req),
        None => not_found_page(super::page_lang(&req).await, "page-no-such-file"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manifest names the icons that are served, with their true sizes.
    #[test]
    fn the_manifest_names_the_served_icons_with_their_sizes() {
        let m: serde_json::Value = serde_json::from_str(MANIFEST).expect("the manifest is JSON");
        assert_eq!(m["theme_color"], THEME_COLOUR);
        let icons = m["icons"].as_array().expect("icons");
        assert_eq!(icons.len(), 4);
        for i in icons {
            let src = i["src"].as_str().unwrap();
            let name = src.strip_prefix("/icons/").expect(src);
            let body = icon(name)
                .unwrap_or_else(|| panic!("{src} is not served"))
                .body;
            // The PNG's IHDR: width and height, big-endian, at bytes 16..24.
            assert_eq!(&body[..8], b"\x89PNG\r\n\x1a\n", "{src}");
            let w = u32::from_be_bytes(body[16..20].try_into().unwrap());
            let h = u32::from_be_bytes(body[20..24].try_into().unwrap());
            assert_eq!(i["sizes"], format!("{w}x{h}"), "{src}");
        }
    }

    /// Each language's manifest says its words in that language.
    #[test]
    fn the_manifest_speaks_each_language() {
        for lang in Lang::all() {
            let m: serde_json::Value =
                serde_json::from_slice(manifest(lang).body).expect("the manifest is JSON");
            assert_eq!(m["lang"], lang.code());
            assert_eq!(
                m["description"],
                crate::i18n::t(lang, "manifest-description")
            );
            assert_eq!(
                m["shortcuts"][1]["name"],
                crate::i18n::t(lang, "manifest-shortcut-lobby")
            );
            assert_eq!(m["icons"].as_array().map(Vec::len), Some(4));
        }
        let fr: serde_json::Value = serde_json::from_slice(manifest(Lang::FR).body).unwrap();
        assert_eq!(fr["shortcuts"][0]["name"], "Mes parties");
    }
}
