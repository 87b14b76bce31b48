//! OAuth 2.0 for third-party apps (`api/src/accounts/oauth.rs`, `api/src/routes/oauth.rs`,
//! `api/src/routes/web/oauth.rs`), over HTTP on both databases: the consent page, the
//! code's exchange, the token's use and revocation, and every refusal of the RFCs.

#[path = "support/games.rs"]
mod games;

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{TimeDelta, Utc};
use djambi_e2e::{Backend, ManualClock, PASSWORD, Resp, TestServer, backend_tests, send};
use reqwest::blocking::Client;
use reqwest::header::{CONTENT_TYPE, COOKIE, ORIGIN};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const CLIENT: &str = "test-bot";
const REDIRECT: &str = "http://127.0.0.1:9/callback";
const VERIFIER: &str = "a-verifier-of-the-app-that-is-long-enough-0123456789";

/// A client that neither follows redirects nor keeps cookies.
fn raw() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

struct Browser {
    cookie: String,
    csrf: String,
}

/// Signs `username` in through the web client: its cookie and CSRF token.
fn sign_in(s: &TestServer, username: &str) -> Browser {
    let r = send(
        raw()
            .post(s.url("/web/session"))
            .json(&json!({"username": username, "password": PASSWORD})),
    );
    let body = r.expect(201).clone();
    let set_cookie = r.header("set-cookie").expect("a Set-Cookie");
    Browser {
        cookie: set_cookie.split(';').next().unwrap_or_default().to_string(),
        csrf: body["csrf_token"].as_str().unwrap_or_default().to_string(),
    }
}

/// The authorization request's query.
fn query(params: &[(&str, &str)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        q.append_pair(k, v);
    }
    q.finish()
}

fn good_params(state: &str) -> Vec<(&'static str, String)> {
    vec![
        ("response_type", "code".into()),
        ("client_id", CLIENT.into()),
        ("redirect_uri", REDIRECT.into()),
        ("scope", "read play".into()),
        ("state", state.into()),
        ("code_challenge", challenge(VERIFIER)),
        ("code_challenge_method", "S256".into()),
    ]
}

fn as_refs<'a>(p: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    p.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn authorize_get(s: &TestServer, who: Option<&Browser>, params: &[(&str, &str)]) -> Resp {
    let mut rb = raw().get(s.url(&format!("/oauth/authorize?{}", query(params))));
    if let Some(b) = who {
        rb = rb.header(COOKIE, &b.cookie);
    }
    send(rb)
}

fn form_post(s: &TestServer, path: &str, cookie: Option<&str>, fields: &[(&str, &str)]) -> Resp {
    let mut rb = raw()
        .post(s.url(path))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(query(fields));
    if let Some(c) = cookie {
        rb = rb.header(COOKIE, c);
    }
    send(rb)
}

/// The consent form's answer.
fn decide(s: &TestServer, b: &Browser, params: &[(&str, &str)], decision: &str) -> Resp {
    let mut fields = params.to_vec();
    fields.push(("csrf", &b.csrf));
    fields.push(("decision", decision));
    form_post(s, "/oauth/authorize", Some(&b.cookie), &fields)
}

/// The query parameters of a redirect back to the app.
fn redirect_params(r: &Resp) -> Vec<(String, String)> {
    assert_eq!(r.status.as_u16(), 303, "{}", r.text);
    let location = r.header("location").expect("a Location");
    assert!(location.starts_with(REDIRECT), "{location}");
    url::Url::parse(location)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn param(params: &[(String, String)], name: &str) -> Option<String> {
    params
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// A code for `b`'s account, approved on the consent page.
fn approved_code(s: &TestServer, b: &Browser) -> String {
    let p = good_params("st-1");
    let back = redirect_params(&decide(s, b, &as_refs(&p), "allow"));
    assert_eq!(param(&back, "state").as_deref(), Some("st-1"));
    param(&back, "code").expect("a code")
}

fn exchange(s: &TestServer, code: &str, client: &str, redirect: &str, verifier: &str) -> Resp {
    form_post(
        s,
        "/oauth/token",
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", client),
            ("redirect_uri", redirect),
            ("code_verifier", verifier),
        ],
    )
}

#[track_caller]
fn oauth_error(r: &Resp, error: &str) {
    assert_eq!(r.status.as_u16(), 400, "{}", r.text);
    assert!(
        r.content_type().starts_with("application/json"),
        "{}",
        r.content_type()
    );
    assert_eq!(r.json["error"], error, "{}", r.text);
    assert!(
        r.json["error_description"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
}

fn the_whole_flow_then_a_move(backend: Backend) {
    let s = TestServer::start(backend);
    let (game, players) = games::four_player_game(&s, "of");
    let red = &players[0];
    let b = sign_in(&s, &red.username);

    // The consent page names the app, where it goes back to and what it may do.
    let p = good_params("xyz");
    let page = authorize_get(&s, Some(&b), &as_refs(&p));
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    assert!(page.content_type().starts_with("text/html"));
    assert!(page.text.contains("“test-bot”"), "{}", page.text);
    assert!(page.text.contains("127.0.0.1:9"));
    assert!(page.text.contains("play in your games for you"));
    assert!(page.text.contains("see your games"));
    assert!(
        page.text
            .contains(&format!("name=\"csrf\" value=\"{}\"", b.csrf))
    );
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(
        page.header("content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    // In French too.
    let fr = send(
        raw()
            .get(s.url(&format!("/oauth/authorize?{}", query(&as_refs(&p)))))
            .header(COOKIE, &b.cookie)
            .header("Accept-Language", "fr"),
    );
    assert!(fr.text.contains("jouer vos parties"), "{}", fr.text);

    let back = redirect_params(&decide(&s, &b, &as_refs(&p), "allow"));
    assert_eq!(param(&back, "state").as_deref(), Some("xyz"));
    let code = param(&back, "code").expect("a code");
    assert!(code.starts_with("djc_"));

    let t = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER);
    let body = t.expect(200).clone();
    assert_eq!(t.header("cache-control"), Some("no-store"));
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["scope"], "read play");
    assert_eq!(body["expires_in"], 365 * 86400);
    let token = body["access_token"].as_str().unwrap().to_string();
    assert!(token.starts_with("djo_"));

    // The token plays.
    assert_eq!(
        s.get("/v1/me", Some(&token)).expect(200)["username"],
        red.username.as_str()
    );
    let mv = games::first_legal(&s, &game);
    let as_app = djambi_e2e::Login {
        access: token.clone(),
        ..red.clone()
    };
    let before = games::version(&s, &game);
    games::play(&s, &as_app, &game, json!(mv), before).expect(201);
    assert_eq!(games::version(&s, &game), before + 1);
    // It cannot manage the account.
    s.get("/v1/me/tokens", Some(&token))
        .problem(403, "forbidden");

    // The player sees it among the tokens, with the app's name and last use.
    let list = s
        .get("/v1/me/tokens", Some(&red.access))
        .expect(200)
        .clone();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{list}");
    assert_eq!(items[0]["app"], CLIENT);
    assert_eq!(items[0]["name"], CLIENT);
    assert_eq!(items[0]["scopes"], json!(["read", "play"]));
    assert!(items[0]["last_used_at"].is_string(), "{list}");
    assert!(!list.to_string().contains(&token[4..]));
    // And on the settings page.
    let settings = send(raw().get(s.url("/settings")).header(COOKIE, &b.cookie));
    assert_eq!(settings.status.as_u16(), 200);
    assert!(
        settings.text.contains("id=\"apps-list\""),
        "{}",
        settings.text
    );
    assert!(
        settings.text.contains(">test-bot</th>"),
        "{}",
        settings.text
    );

    // The app revokes it (RFC 7009): it stops working at once.
    let r = form_post(
        &s,
        "/oauth/revoke",
        None,
        &[
            ("token", &token),
            ("token_type_hint", "access_token"),
            ("client_id", CLIENT),
        ],
    );
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    s.get("/v1/me", Some(&token)).problem(401, "unauthorized");
    // Again, and an unknown token: 200 all the same.
    for t in [token.as_str(), "djo_unknown"] {
        let r = form_post(&s, "/oauth/revoke", None, &[("token", t)]);
        assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    }
    assert_eq!(
        s.get("/v1/me/tokens", Some(&red.access)).expect(200)["items"],
        json!([])
    );
}

fn the_player_revokes_from_the_settings(backend: Backend) {
    let s = TestServer::start(backend);
    let alice = s.user("alice");
    let b = sign_in(&s, "alice");
    let code = approved_code(&s, &b);
    let token = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER).expect(200)["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let id = s.get("/v1/me/tokens", Some(&alice.access)).expect(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/settings/tokens/{id}/revoke");
    // Without the form's CSRF token, or from another site: refused, nothing revoked.
    let r = form_post(&s, &path, Some(&b.cookie), &[("csrf", "nope")]);
    assert_eq!(r.status.as_u16(), 403);
    let r = send(
        raw()
            .post(s.url(&path))
            .header(COOKIE, &b.cookie)
            .header(ORIGIN, "https://evil.example")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(query(&[("csrf", &b.csrf)])),
    );
    assert_eq!(r.status.as_u16(), 403);
    s.get("/v1/me", Some(&token)).expect(200);
    // With it: back to the settings, the token ended.
    let r = form_post(&s, &path, Some(&b.cookie), &[("csrf", &b.csrf)]);
    assert_eq!(r.status.as_u16(), 303, "{}", r.text);
    assert_eq!(r.header("location"), Some("/settings#apps"));
    s.get("/v1/me", Some(&token)).problem(401, "unauthorized");
    let settings = send(raw().get(s.url("/settings")).header(COOKIE, &b.cookie));
    assert!(
        settings.text.contains("id=\"apps-none\""),
        "{}",
        settings.text
    );
}

fn a_code_works_once_and_a_replay_revokes_its_token(backend: Backend) {
    let s = TestServer::start(backend);
    s.user("alice");
    let b = sign_in(&s, "alice");
    let code = approved_code(&s, &b);
    let token = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER).expect(200)["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    s.get("/v1/me", Some(&token)).expect(200);
    let again = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER);
    oauth_error(&again, "invalid_grant");
    assert!(
        again.json["error_description"]
            .as_str()
            .unwrap()
            .contains("already used")
    );
    s.get("/v1/me", Some(&token)).problem(401, "unauthorized");

    // A used code presented by another client, or with another verifier: the same.
    for (client, verifier) in [("other-app", VERIFIER), (CLIENT, &*"w".repeat(43))] {
        let code = approved_code(&s, &b);
        let token = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER).expect(200)["access_token"]
            .as_str()
            .unwrap()
            .to_string();
        oauth_error(
            &exchange(&s, &code, client, REDIRECT, verifier),
            "invalid_grant",
        );
        s.get("/v1/me", Some(&token)).problem(401, "unauthorized");
    }
}

fn a_code_is_bound_to_its_client_redirect_and_verifier(backend: Backend) {
    let s = TestServer::start(backend);
    s.user("alice");
    let b = sign_in(&s, "alice");
    let wrong_verifier = "x".repeat(43);
    let cases: [(&str, &str, &str); 4] = [
        ("other-app", REDIRECT, VERIFIER),
        (CLIENT, "http://127.0.0.1:9/other", VERIFIER),
        (CLIENT, REDIRECT, &wrong_verifier),
        (CLIENT, REDIRECT, "short"),
    ];
    for (client, redirect, verifier) in cases {
        let code = approved_code(&s, &b);
        let r = exchange(&s, &code, client, redirect, verifier);
        oauth_error(&r, "invalid_grant");
        // The code is used up by the wrong presentation: the right one fails after it.
        oauth_error(
            &exchange(&s, &code, CLIENT, REDIRECT, VERIFIER),
            "invalid_grant",
        );
    }
    let unknown = exchange(&s, "djc_nothing", CLIENT, REDIRECT, VERIFIER);
    oauth_error(&unknown, "invalid_grant");
    let alice = s.login("alice", PASSWORD);
    assert_eq!(
        s.get("/v1/me/tokens", Some(&alice.access)).expect(200)["items"],
        json!([])
    );
}

fn a_code_expires_after_two_minutes(backend: Backend) {
    let clock = Arc::new(ManualClock::new(Utc::now().naive_utc()));
    let s = TestServer::start_with_clock(backend, &[], clock.clone());
    s.user("alice");
    let b = sign_in(&s, "alice");
    let code = approved_code(&s, &b);
    clock.advance(TimeDelta::seconds(121));
    let r = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER);
    oauth_error(&r, "invalid_grant");
    assert!(
        r.json["error_description"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
    // Within the two minutes, it works.
    let code = approved_code(&s, &b);
    clock.advance(TimeDelta::seconds(119));
    exchange(&s, &code, CLIENT, REDIRECT, VERIFIER).expect(200);
}

fn the_authorization_endpoint_refuses_without_open_redirects(backend: Backend) {
    let s = TestServer::start(backend);
    s.user("alice");
    let b = sign_in(&s, "alice");
    let good = good_params("s1");
    let with = |name: &str, value: Option<&str>| -> Vec<(&'static str, String)> {
        let mut p: Vec<(&'static str, String)> =
            good.iter().filter(|(k, _)| *k != name).cloned().collect();
        if let Some(v) = value {
            let key = good.iter().find(|(k, _)| *k == name).unwrap().0;
            p.push((key, v.to_string()));
        }
        p
    };

    // A bad client or redirect URI: a page, never a redirect.
    for p in [
        with("client_id", None),
        with("client_id", Some(&"c".repeat(65))),
        with("redirect_uri", None),
        with("redirect_uri", Some("http://evil.example/cb")),
        with("redirect_uri", Some("https://evil.example/cb#x")),
        with("redirect_uri", Some("javascript:alert(1)")),
    ] {
        let r = authorize_get(&s, Some(&b), &as_refs(&p));
        assert_eq!(r.status.as_u16(), 400, "{p:?}: {}", r.text);
        assert!(r.header("location").is_none());
        assert!(r.content_type().starts_with("text/html"));
        // Even with a bad response type as well.
        let mut p = p.clone();
        p.retain(|(k, _)| *k != "response_type");
        p.push(("response_type", "token".into()));
        let r = authorize_get(&s, Some(&b), &as_refs(&p));
        assert_eq!(r.status.as_u16(), 400);
        assert!(r.header("location").is_none());
    }
    // A parameter sent twice: no redirect either.
    let mut twice = as_refs(&good);
    twice.push(("redirect_uri", "https://evil.example/cb"));
    let r = authorize_get(&s, Some(&b), &twice);
    assert_eq!(r.status.as_u16(), 400);
    assert!(r.header("location").is_none());

    // Anything else goes back to the app, with the error and the state.
    for (p, error) in [
        (
            with("response_type", Some("token")),
            "unsupported_response_type",
        ),
        (with("response_type", None), "invalid_request"),
        (with("code_challenge", None), "invalid_request"),
        (with("code_challenge_method", None), "invalid_request"),
        (
            with("code_challenge_method", Some("plain")),
            "invalid_request",
        ),
        (with("scope", Some("read admin")), "invalid_scope"),
    ] {
        // Signed in or not: the request is checked first.
        for who in [Some(&b), None] {
            let back = redirect_params(&authorize_get(&s, who, &as_refs(&p)));
            assert_eq!(param(&back, "error").as_deref(), Some(error), "{p:?}");
            assert_eq!(param(&back, "state").as_deref(), Some("s1"));
            assert!(param(&back, "code").is_none());
        }
    }

    // Not signed in: the login page first, coming back to the same request.
    let r = authorize_get(&s, None, &as_refs(&good));
    assert_eq!(r.status.as_u16(), 303);
    let location = r.header("location").unwrap();
    assert!(
        location.starts_with("/login?next=%2Foauth%2Fauthorize%3F"),
        "{location}"
    );

    // The player says no.
    let back = redirect_params(&decide(&s, &b, &as_refs(&good), "deny"));
    assert_eq!(param(&back, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&back, "state").as_deref(), Some("s1"));
    assert!(param(&back, "code").is_none());

    // The answer needs the session's CSRF token, and this site as its origin.
    let mut fields = as_refs(&good);
    fields.push(("decision", "allow"));
    let r = form_post(&s, "/oauth/authorize", Some(&b.cookie), &fields);
    assert_eq!(r.status.as_u16(), 403, "{}", r.text);
    assert!(r.header("location").is_none());
    fields.push(("csrf", &b.csrf));
    let r = send(
        raw()
            .post(s.url("/oauth/authorize"))
            .header(COOKIE, &b.cookie)
            .header(ORIGIN, "https://evil.example")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(query(&fields)),
    );
    assert_eq!(r.status.as_u16(), 403);
    assert!(r.header("location").is_none());
    // Without a session: refused too.
    let r = form_post(&s, "/oauth/authorize", None, &fields);
    assert_eq!(r.status.as_u16(), 403);
    // A forged form cannot change the redirect URI to an unchecked one.
    let evil = with("redirect_uri", Some("http://evil.example/"));
    let mut forged = as_refs(&evil);
    forged.push(("csrf", &b.csrf));
    forged.push(("decision", "allow"));
    let r = form_post(&s, "/oauth/authorize", Some(&b.cookie), &forged);
    assert_eq!(r.status.as_u16(), 400);
    assert!(r.header("location").is_none());
    let alice = s.login("alice", PASSWORD);
    assert_eq!(
        s.get("/v1/me/tokens", Some(&alice.access)).expect(200)["items"],
        json!([])
    );
}

fn the_token_endpoint_refuses_bad_requests(backend: Backend) {
    let s = TestServer::start(backend);
    s.user("alice");
    let b = sign_in(&s, "alice");
    let code = approved_code(&s, &b);
    // Not a form.
    let r = send(
        raw()
            .post(s.url("/oauth/token"))
            .json(&json!({"grant_type": "authorization_code", "code": code})),
    );
    oauth_error(&r, "invalid_request");
    // No grant type, another grant type.
    oauth_error(
        &form_post(&s, "/oauth/token", None, &[("code", &code)]),
        "invalid_request",
    );
    oauth_error(
        &form_post(
            &s,
            "/oauth/token",
            None,
            &[("grant_type", "password"), ("username", "alice")],
        ),
        "unsupported_grant_type",
    );
    // A field missing, or sent twice.
    oauth_error(
        &form_post(
            &s,
            "/oauth/token",
            None,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("client_id", CLIENT),
            ],
        ),
        "invalid_request",
    );
    let r = form_post(
        &s,
        "/oauth/token",
        None,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", CLIENT),
            ("client_id", "other"),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
        ],
    );
    oauth_error(&r, "invalid_request");
    assert_eq!(r.header("cache-control"), Some("no-store"));
    // None of these used the code up.
    exchange(&s, &code, CLIENT, REDIRECT, VERIFIER).expect(200);

    // Revocation: the token is required; another app's token is refused.
    oauth_error(
        &form_post(&s, "/oauth/revoke", None, &[("client_id", CLIENT)]),
        "invalid_request",
    );
    oauth_error(
        &form_post(&s, "/oauth/revoke", None, &[("token", &"0".repeat(257))]),
        "invalid_request",
    );
    let code = approved_code(&s, &b);
    let token = exchange(&s, &code, CLIENT, REDIRECT, VERIFIER).expect(200)["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    oauth_error(
        &form_post(
            &s,
            "/oauth/revoke",
            None,
            &[("token", &token), ("client_id", "other-app")],
        ),
        "invalid_client",
    );
    s.get("/v1/me", Some(&token)).expect(200);
}

fn metadata_names_the_endpoints(backend: Backend) {
    let s = TestServer::start(backend);
    let m = s
        .get("/.well-known/oauth-authorization-server", None)
        .expect(200)
        .clone();
    let issuer = m["issuer"].as_str().unwrap();
    assert!(!issuer.ends_with('/'));
    for (key, path) in [
        ("authorization_endpoint", "/oauth/authorize"),
        ("token_endpoint", "/oauth/token"),
        ("revocation_endpoint", "/oauth/revoke"),
    ] {
        assert_eq!(m[key], format!("{issuer}{path}"));
    }
    assert_eq!(m["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(m["response_types_supported"], json!(["code"]));
    assert_eq!(m["grant_types_supported"], json!(["authorization_code"]));
    assert_eq!(m["token_endpoint_auth_methods_supported"], json!(["none"]));
    assert_eq!(m["scopes_supported"], json!(["read", "play"]));
    // The OpenAPI document's scheme points at the same endpoints.
    let doc: Value = s.get("/openapi.json", None).expect(200).clone();
    let flow = &doc["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"];
    assert_eq!(flow["authorizationUrl"], "/oauth/authorize");
    assert_eq!(flow["tokenUrl"], "/oauth/token");
    assert!(flow["scopes"]["play"].is_string());
    let moves = &doc["paths"]["/v1/games/{id}/moves"]["post"]["security"];
    assert!(
        moves
            .as_array()
            .unwrap()
            .contains(&json!({"oauth2": ["play"]})),
        "{moves}"
    );
    // `/docs` signs in with it: Swagger UI with PKCE, its redirect page served.
    let init = s.get("/docs/swagger-initializer.js", None);
    assert_eq!(init.status.as_u16(), 200);
    assert!(init.text.contains("djambi-docs"), "{}", init.text);
    assert!(
        init.text.contains("usePkceWithAuthorizationCodeGrant"),
        "{}",
        init.text
    );
    let redirect = s.get("/docs/oauth2-redirect.html", None);
    assert_eq!(redirect.status.as_u16(), 200);
}

backend_tests!(
    the_whole_flow_then_a_move,
    the_player_revokes_from_the_settings,
    a_code_works_once_and_a_replay_revokes_its_token,
    a_code_is_bound_to_its_client_redirect_and_verifier,
    a_code_expires_after_two_minutes,
    the_authorization_endpoint_refuses_without_open_redirects,
    the_token_endpoint_refuses_bad_requests,
    metadata_names_the_endpoints,
);
