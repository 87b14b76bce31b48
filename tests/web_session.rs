//! The web client's cookie session (`api/src/auth/web_session.rs`, `api/src/routes/web/`):
//! the cookie's flags, CSRF on every state-changing request, logout, the same
//! authorization as the API, and the pages' security headers.

use djambi_e2e::{Backend, PASSWORD, Resp, TestServer, send};
use reqwest::blocking::Client;
use reqwest::header::{CONTENT_TYPE, COOKIE};
use serde_json::{Value, json};

/// A client that neither follows redirects nor keeps cookies: every header is explicit.
fn raw() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

struct WebLogin {
    cookie: String,
    set_cookie: String,
    csrf: String,
    user_id: String,
}

fn web_login(srv: &TestServer, username: &str) -> WebLogin {
    let r = send(
        raw()
            .post(srv.url("/web/session"))
            .json(&json!({"username": username, "password": PASSWORD})),
    );
    let body = r.expect(201).clone();
    let set_cookie = r.header("set-cookie").expect("a Set-Cookie").to_string();
    let cookie = set_cookie.split(';').next().unwrap_or_default().to_string();
    assert!(cookie.starts_with("djambi_session=v1."), "{set_cookie}");
    WebLogin {
        cookie,
        set_cookie,
        csrf: body["csrf_token"].as_str().expect("csrf_token").to_string(),
        user_id: body["user_id"].as_str().expect("user_id").to_string(),
    }
}

fn get_with(srv: &TestServer, path: &str, cookie: &str) -> Resp {
    send(raw().get(srv.url(path)).header(COOKIE, cookie))
}

fn post_with(srv: &TestServer, path: &str, cookie: &str, csrf: Option<&str>, body: &Value) -> Resp {
    let mut rb = raw()
        .post(srv.url(path))
        .header(COOKIE, cookie)
        .header(CONTENT_TYPE, "application/json")
        .body(body.to_string());
    if let Some(t) = csrf {
        rb = rb.header("X-CSRF-Token", t);
    }
    send(rb)
}

#[test]
fn the_cookie_session_is_http_only_same_site_and_csrf_protected_postgres() {
    cookie_session(Backend::Postgres);
}

#[test]
fn the_cookie_session_is_http_only_same_site_and_csrf_protected_sqlite() {
    cookie_session(Backend::Sqlite);
}

#[test]
fn the_cookie_is_secure_when_the_public_url_is_https() {
    let srv = TestServer::start_with(
        Backend::Postgres,
        &[("DJAMBI_PUBLIC_URL", "https://djambi.example")],
    );
    srv.register("secure");
    let w = web_login(&srv, "secure");
    assert!(w.set_cookie.contains("; Secure"), "{}", w.set_cookie);
    assert!(w.set_cookie.contains("HttpOnly"), "{}", w.set_cookie);
    let out = post_with(&srv, "/web/logout", &w.cookie, Some(&w.csrf), &json!({}));
    assert_eq!(out.status.as_u16(), 204, "{}", out.text);
    assert!(
        out.header("set-cookie")
            .is_some_and(|c| c.contains("; Secure") && c.contains("Max-Age=0"))
    );
}

fn cookie_session(backend: Backend) {
    let srv = TestServer::start(backend);
    srv.register("webby");
    let w = web_login(&srv, "webby");

    // Flags: HttpOnly, SameSite=Lax, Path=/, a lifetime; not Secure over plain http.
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(w.set_cookie.contains(flag), "{flag} in {}", w.set_cookie);
    }
    assert!(!w.set_cookie.contains("Secure"), "{}", w.set_cookie);

    // Reading with the cookie works like a login's access token.
    let me = get_with(&srv, "/v1/me", &w.cookie);
    assert_eq!(me.expect(200)["id"], w.user_id.as_str());

    // A write without the CSRF token, or with a wrong one, is refused and writes nothing.
    let create = json!({"seats": 4, "seat": "R"});
    post_with(&srv, "/v1/games", &w.cookie, None, &create).problem(403, "forbidden");
    post_with(
        &srv,
        "/v1/games",
        &w.cookie,
        Some("bm90IHRoZSB0b2tlbg"),
        &create,
    )
    .problem(403, "forbidden");
    let other = {
        srv.register("other");
        web_login(&srv, "other")
    };
    // Another session's token does not fit this session.
    post_with(&srv, "/v1/games", &w.cookie, Some(&other.csrf), &create).problem(403, "forbidden");
    let mine = get_with(&srv, "/v1/me/games", &w.cookie);
    assert_eq!(mine.expect(200)["items"].as_array().map(Vec::len), Some(0));

    // With the token, the same write goes through, as the cookie's user.
    let game = post_with(&srv, "/v1/games", &w.cookie, Some(&w.csrf), &create);
    let game = game.expect(201).clone();
    let id = game["id"].as_str().expect("id").to_string();
    assert_eq!(game["created_by"], w.user_id.as_str());

    // The same authorization as the API: "other" cannot leave webby's seat.
    post_with(
        &srv,
        &format!("/v1/games/{id}/seats/B"),
        &other.cookie,
        Some(&other.csrf),
        &json!({}),
    )
    .expect(200);
    let leave = send(
        raw()
            .delete(srv.url(&format!("/v1/games/{id}/seats/R")))
            .header(COOKIE, &other.cookie)
            .header("X-CSRF-Token", &other.csrf),
    );
    assert!(
        leave.status.is_client_error(),
        "another player left webby's seat: {} {}",
        leave.status,
        leave.text
    );
    // DELETE needs the token too.
    let leave = send(
        raw()
            .delete(srv.url(&format!("/v1/games/{id}/seats/B")))
            .header(COOKIE, &other.cookie),
    );
    leave.problem(403, "forbidden");

    // A tampered cookie is a 401.
    let tampered = w.cookie.replace(&w.user_id, &other.user_id);
    get_with(&srv, "/v1/me", &tampered).problem(401, "unauthorized");

    // An Authorization header wins over the cookie (and is checked as usual).
    let r = send(
        raw()
            .get(srv.url("/v1/me"))
            .header(COOKIE, &w.cookie)
            .bearer_auth("not-a-token"),
    );
    r.problem(401, "unauthorized");

    // Logout needs the token, revokes the session and removes the cookie.
    post_with(&srv, "/web/logout", &w.cookie, None, &json!({})).problem(403, "forbidden");
    let out = post_with(&srv, "/web/logout", &w.cookie, Some(&w.csrf), &json!({}));
    assert_eq!(out.status.as_u16(), 204, "{}", out.text);
    let cleared = out.header("set-cookie").unwrap_or_default();
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    get_with(&srv, "/v1/me", &w.cookie).problem(401, "unauthorized");
    // The pages see it too: back to the login form.
    let lobby = get_with(&srv, "/lobby", &w.cookie);
    assert_eq!(lobby.status.as_u16(), 303);
    assert_eq!(lobby.header("location"), Some("/login?next=%2Flobby"));

    // Bad credentials: the API's answer, and no cookie.
    let bad = send(
        raw()
            .post(srv.url("/web/session"))
            .json(&json!({"username": "webby", "password": "wrong wrong wrong"})),
    );
    bad.problem(401, "unauthorized");
    assert!(bad.header("set-cookie").is_none());

    // A cross-site login (login CSRF) is refused.
    let cross = send(
        raw()
            .post(srv.url("/web/session"))
            .header("Origin", "https://evil.example")
            .json(&json!({"username": "webby", "password": PASSWORD})),
    );
    cross.problem(403, "forbidden");
    assert!(cross.header("set-cookie").is_none());
}

#[test]
fn revoking_the_session_elsewhere_ends_the_cookie() {
    let srv = TestServer::start(Backend::Postgres);
    srv.register("revo");
    let w = web_login(&srv, "revo");
    get_with(&srv, "/v1/me", &w.cookie).expect(200);
    // Logging out every session through the API (a password change) ends the cookie's.
    let api = srv.login("revo", PASSWORD);
    let r = srv.patch(
        "/v1/me",
        Some(&api.access),
        &json!({"current_password": PASSWORD, "new_password": "a brand new passphrase 42 zebra"}),
    );
    r.expect(200);
    get_with(&srv, "/v1/me", &w.cookie).problem(401, "unauthorized");
    let page = get_with(&srv, "/settings", &w.cookie);
    assert_eq!(page.status.as_u16(), 303);
}

/// The page links the icon, as an ICO and as SVG, each versioned and served for good.
#[track_caller]
fn assert_icon_linked(srv: &TestServer, path: &str, html: &str) {
    for (file, media) in [
        ("/favicon.ico", "image/x-icon"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let prefix = "<link rel=\"icon\" href=\"";
        let start = html
            .find(&format!("{prefix}{file}?v="))
            .unwrap_or_else(|| panic!("{path}: no icon link to {file}:\n{html}"));
        let link: String = html[start + prefix.len()..]
            .chars()
            .take_while(|c| *c != '"')
            .collect();
        let r = send(raw().get(srv.url(&link)));
        assert_eq!(r.status.as_u16(), 200, "{path}: {link}");
        assert_eq!(r.content_type(), media, "{path}: {link}");
        assert_eq!(
            r.header("cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{path}: {link}"
        );
    }
}

#[test]
fn every_page_has_the_strict_csp_and_no_store() {
    let srv = TestServer::start(Backend::Postgres);
    srv.register("pager");
    let w = web_login(&srv, "pager");
    let game = post_with(
        &srv,
        "/v1/games",
        &w.cookie,
        Some(&w.csrf),
        &json!({"seats": 4, "seat": "R"}),
    );
    let id = game.expect(201)["id"].as_str().expect("id").to_string();
    let play = format!("/play/{id}");
    let replay = format!("/games/{id}");
    for path in [
        "/",
        "/login",
        "/signup",
        "/lobby",
        "/settings",
        play.as_str(),
        replay.as_str(),
    ] {
        let r = get_with(&srv, path, &w.cookie);
        assert_eq!(r.status.as_u16(), 200, "{path}: {}", r.text);
        assert!(r.content_type().starts_with("text/html"), "{path}");
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert_eq!(r.header("cache-control"), Some("no-store"), "{path}");
        assert_eq!(
            r.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert!(!r.text.contains("<script>"), "{path}: inline script");
        assert_icon_linked(&srv, path, &r.text);
        assert!(
            r.text
                .contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"),
            "{path}: no manifest link"
        );
        assert!(
            r.text.contains("<meta name=\"theme-color\""),
            "{path}: no theme colour"
        );
        if path != replay {
            assert!(
                r.text.contains(&format!("content=\"{}\"", w.csrf)),
                "{path}: CSRF meta"
            );
        }
    }
    // Signed out: the private pages send to the login form; the home page is the form.
    for (path, to) in [
        ("/lobby", "/login?next=%2Flobby"),
        ("/settings", "/login?next=%2Fsettings"),
    ] {
        let r = send(raw().get(srv.url(path)));
        assert_eq!(r.status.as_u16(), 303, "{path}");
        assert_eq!(r.header("location"), Some(to), "{path}");
    }
    let r = send(raw().get(srv.url(&play)));
    assert_eq!(r.status.as_u16(), 303);
    // An unknown game is an HTML 404 page, under the same policy.
    for path in [
        "/play/00000000-0000-0000-0000-000000000000",
        "/play/not%20an%20id",
    ] {
        let r = get_with(&srv, path, &w.cookie);
        assert_eq!(r.status.as_u16(), 404, "{path}");
        assert!(r.content_type().starts_with("text/html"), "{path}");
        assert!(r.header("content-security-policy").is_some(), "{path}");
        assert_eq!(r.header("cache-control"), Some("no-store"), "{path}");
        assert_icon_linked(&srv, path, &r.text);
    }
    // The service worker at the root (its scope: the whole site), the manifest and its
    // icons, each with its media type.
    let sw = send(raw().get(srv.url("/sw.js")));
    assert_eq!(sw.status.as_u16(), 200);
    assert_eq!(sw.content_type(), "text/javascript; charset=utf-8");
    assert_eq!(sw.header("cache-control"), Some("no-cache"));
    assert!(sw.header("etag").is_some());
    assert!(sw.text.contains("notificationclick"), "{}", sw.text);
    let manifest = send(raw().get(srv.url("/manifest.webmanifest")));
    assert_eq!(manifest.status.as_u16(), 200);
    assert_eq!(manifest.content_type(), "application/manifest+json");
    let m: Value = serde_json::from_str(&manifest.text).expect("the manifest is JSON");
    assert_eq!(m["display"], "standalone");
    assert_eq!(m["start_url"], "/");
    for icon in m["icons"].as_array().expect("icons") {
        let src = icon["src"].as_str().unwrap();
        let r = send(raw().get(srv.url(src)));
        assert_eq!(r.status.as_u16(), 200, "{src}");
        assert_eq!(r.content_type(), "image/png", "{src}");
    }
    let none = send(raw().get(srv.url("/icons/nothing.png")));
    assert_eq!(none.status.as_u16(), 404);
    // The icon where browsers look for it unasked: an ICO, cached for long.
    let ico = send(raw().get(srv.url("/favicon.ico")));
    assert_eq!(ico.status.as_u16(), 200);
    assert_eq!(ico.content_type(), "image/x-icon");
    assert_eq!(ico.header("cache-control"), Some("public, max-age=2592000"));
    let svg = send(raw().get(srv.url("/favicon.svg")));
    assert_eq!(svg.status.as_u16(), 200);
    assert_eq!(svg.content_type(), "image/svg+xml");
    assert!(svg.text.starts_with("<svg "), "{}", svg.text);
    let home = send(raw().get(srv.url("/")));
    assert_eq!(home.status.as_u16(), 200);
    assert!(home.text.contains("id=\"login-form\""));
    assert!(
        home.text.contains("content=\"\""),
        "no CSRF token without a session"
    );
    // The assets are versioned and immutable when asked with their version.
    let link = home
        .text
        .split("/assets/web/app.js?v=")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .expect("a versioned link");
    let js = send(raw().get(srv.url(&format!("/assets/web/app.js?v={link}"))));
    assert_eq!(js.status.as_u16(), 200);
    assert!(js.content_type().starts_with("text/javascript"));
    assert!(
        js.header("cache-control")
            .unwrap_or_default()
            .contains("immutable")
    );

    // The game stream: SSE of the game's events.
    let mut res = raw()
        .get(srv.url(&format!("/v1/games/{id}/stream")))
        .header("Last-Event-ID", "0")
        .send()
        .expect("stream");
    assert_eq!(res.status().as_u16(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .starts_with("text/event-stream")
    );
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        use std::io::Read;
        let n = res.read(&mut chunk).expect("read the stream");
        buf.extend_from_slice(&chunk[..n]);
        if String::from_utf8_lossy(&buf).contains("event: seat_taken") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf);
    assert!(text.contains("id: 1\nevent: created"), "{text}");
    assert!(text.contains("event: seat_taken"), "{text}");
    send(raw().get(srv.url("/v1/games/nope/stream"))).problem(404, "not-found");
    // A version that is not one is refused, not silently read as "from now".
    for bad in ["-1", "x", "1.5"] {
        send(raw().get(srv.url(&format!("/v1/games/{id}/stream?after={bad}"))))
            .problem(400, "validation");
        send(
            raw()
                .get(srv.url(&format!("/v1/games/{id}/stream")))
                .header("Last-Event-ID", bad),
        )
        .problem(400, "validation");
    }
}
