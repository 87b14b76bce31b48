//! The players' languages (issue 23): the preference chosen at sign-up and changed with
//! `PATCH /v1/me`, the time zone, mails in each recipient's language (read with the
//! strict MIME parser of `support/mail_check.py`), problem titles, pages and the board
//! picture by `Accept-Language`.

#[path = "support/games.rs"]
mod games;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use djambi_e2e::{Backend, Login, PASSWORD, TestServer, backend_tests, json};
use games::*;
use smtp_sink::SmtpSink;

fn start(backend: Backend, sink: &SmtpSink) -> TestServer {
    TestServer::start_with(backend, &sink.server_settings(&[]))
}

fn email(name: &str) -> String {
    format!("{name}@example.org")
}

/// Registers `name` with `language` (or none), confirms its address with the link of its
/// verification mail (whose subject is in that language) and logs in.
fn member(srv: &TestServer, sink: &SmtpSink, name: &str, language: Option<&str>) -> Login {
    let mut body = json!({"username": name, "email": email(name), "password": PASSWORD});
    if let Some(l) = language {
        body["language"] = json!(l);
    }
    let profile = srv.post("/v1/accounts", None, &body).expect(201).clone();
    assert_eq!(profile["language"], json!(language));
    let subject = match language {
        Some("fr") => "Confirmez votre adresse e-mail",
        Some("es") => "Confirma tu dirección de correo",
        _ => "Confirm your e-mail address",
    };
    let m = sink.wait_for_subject(20, &email(name), subject, 1);
    assert_eq!(m.header("content-language"), language.unwrap_or("en"));
    let token = smtp_sink::token_after(&m.body, "/v1/email-verification/");
    srv.post(&format!("/v1/email-verification/{token}"), None, &json!({}))
        .expect(200);
    srv.login(name, PASSWORD)
}

/// What no French or Spanish mail may say: the English text of the mail messages.
const ENGLISH: &[&str] = &[
    "Your turn",
    "in game",
    "Players:",
    "To move:",
    "deadline",
    "Last moves:",
    "Open the game:",
    "Board:",
    "Stop these mails",
    "Hello",
    "Red",
    "Blue",
];

fn mails_speak_their_recipients_language(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let red = member(&srv, &sink, "amelie", Some("fr"));
    let blue = member(&srv, &sink, "bruno", Some("es"));
    let yellow = member(&srv, &sink, "carla", None);
    let green = member(&srv, &sink, "dario", Some("es"));
    // Amélie reads her dates in Paris time.
    let me = srv
        .patch(
            "/v1/me",
            Some(&red.access),
            &json!({"time_zone": "Europe/Paris"}),
        )
        .expect(200)
        .clone();
    assert_eq!(me["time_zone"], "Europe/Paris");
    assert_eq!(me["language"], "fr");
    sink.clear();

    let id = create(
        &srv,
        &red,
        json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 86400}}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (who, seat) in [(&blue, "B"), (&yellow, "Y"), (&green, "G")] {
        take_seat(&srv, who, &id, seat).expect(200);
    }
    // French, Paris time: "Au trait : Rouge (amelie), délai <jour> <n> <mois> <année> à
    // HH:MM CET (dans 23 heures 59 minutes)".
    let m = &sink.wait_for(20, &email("amelie"), 1)[0];
    assert_eq!(m.header("content-language"), "fr");
    assert!(
        m.header("subject") == "[Djambi] À vous de jouer : amelie, bruno, carla, dario",
        "{m:?}"
    );
    assert!(
        m.body.contains("Au trait : Rouge (amelie), délai "),
        "{}",
        m.body
    );
    assert!(m.body.contains(" à "), "{}", m.body);
    assert!(
        m.body.contains(" CET (dans ") || m.body.contains(" CEST (dans "),
        "{}",
        m.body
    );
    assert!(
        m.body.contains(&format!(
            "Ouvrir la partie : https://djambi.example/games/{id}"
        )),
        "{}",
        m.body
    );
    assert!(m.body.contains("Ne plus recevoir ces mails : "));
    // The unsubscribe page it links to is hers: in French, whatever the browser says.
    let link = m
        .header("list-unsubscribe")
        .trim_matches(['<', '>'])
        .to_string();
    let path = link
        .strip_prefix("https://djambi.example")
        .expect("a link to the public URL");
    let page = srv.send(
        srv.request(reqwest::Method::GET, path)
            .header("accept-language", "en-US,en;q=0.9"),
    );
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    assert_eq!(page.header("content-language"), Some("fr"));
    assert!(
        page.text
            .contains("Ne plus recevoir aucun mail de notification de Djambi ?"),
        "{}",
        page.text
    );
    let html = m.html.as_deref().expect("an HTML alternative");
    assert!(html.contains("<html lang=\"fr\">"), "{html}");
    for english in ENGLISH {
        assert!(!m.body.contains(english), "{english:?} in {}", m.body);
    }

    // Red moves: Blue reads it in Spanish, with the Spanish names of the seats.
    let v = version(&srv, &id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(&srv, &red, &id, mv.clone(), v).expect(201);
    let mv = mv.as_str().unwrap();
    let m = &sink.wait_for(20, &email("bruno"), 1)[0];
    assert_eq!(m.header("content-language"), "es");
    assert!(
        m.header("subject") == "[Djambi] Te toca jugar: amelie, bruno, carla, dario",
        "{m:?}"
    );
    assert!(
        m.body.contains(&format!("Últimas jugadas: Rojo {mv}")),
        "{}",
        m.body
    );
    assert!(m.body.contains("Juega: Azul (bruno), plazo "), "{}", m.body);
    // No zone set: UTC.
    assert!(m.body.contains(" UTC (dentro de "), "{}", m.body);
    assert!(
        m.body
            .contains("Jugadores: Rojo amelie, Azul bruno, Amarillo carla, Verde dario"),
        "{}",
        m.body
    );
    for english in ENGLISH {
        assert!(!m.body.contains(english), "{english:?} in {}", m.body);
    }

    // Blue moves: Yellow, who chose nothing, reads English.
    let v = version(&srv, &id);
    let mv = srv
        .get(&format!("/v1/games/{id}/legal-moves"), None)
        .expect(200)["moves"][0]["text"]
        .clone();
    play(&srv, &blue, &id, mv, v).expect(201);
    let m = &sink.wait_for(20, &email("carla"), 1)[0];
    assert_eq!(m.header("content-language"), "en");
    assert!(
        m.header("subject") == "[Djambi] Your turn: amelie, bruno, carla, dario",
        "{m:?}"
    );
    assert!(
        m.body.contains("To move: Yellow (carla), deadline "),
        "{}",
        m.body
    );
    assert!(m.body.contains(" UTC (in "), "{}", m.body);
}

fn preferences_are_checked_and_change_pages_and_problems(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let who = srv.user("lucia");
    // Bad values: a validation problem naming each field, nothing changed.
    let bad = srv.patch(
        "/v1/me",
        Some(&who.access),
        &json!({"language": "klingon", "time_zone": "Mars/Olympus"}),
    );
    let p = bad.problem(400, "validation");
    let fields: Vec<&str> = p["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["language", "time_zone"], "{p}");
    let me = srv.get("/v1/me", Some(&who.access)).expect(200).clone();
    assert_eq!(me["language"], json!(null));
    assert_eq!(me["time_zone"], json!(null));
    srv.post(
        "/v1/accounts",
        None,
        &json!({"username": "pablo", "email": "pablo@example.org", "password": PASSWORD, "language": "xx"}),
    )
    .problem(400, "validation");

    // No current password needed for preferences; the canonical names are kept.
    let me = srv
        .patch(
            "/v1/me",
            Some(&who.access),
            &json!({"language": "ES", "time_zone": "America/Mexico_City"}),
        )
        .expect(200)
        .clone();
    assert_eq!(me["language"], "es");
    assert_eq!(me["time_zone"], "America/Mexico_City");
    let me = srv
        .patch("/v1/me", Some(&who.access), &json!({"time_zone": ""}))
        .expect(200)
        .clone();
    assert_eq!(me["time_zone"], json!(null));
    assert_eq!(me["language"], "es");

    // Problems: the title in the language of Accept-Language, the type unchanged.
    let r = srv.send(
        srv.request(
            reqwest::Method::GET,
            "/v1/games/00000000-0000-7000-8000-000000000000",
        )
        .header("accept-language", "fr-CA, fr;q=0.9, en;q=0.5"),
    );
    let p = r.problem(404, "not-found");
    assert_eq!(p["title"], "Introuvable");
    assert_eq!(r.header("content-language"), Some("fr"));
    let r = srv.send(
        srv.request(reqwest::Method::POST, "/v1/accounts")
            .header("accept-language", "es")
            .json(&json!({"username": "x"})),
    );
    assert_eq!(
        r.problem(400, "validation")["title"],
        "La petición no es válida"
    );
    let r = srv.get("/v1/games/00000000-0000-7000-8000-000000000000", None);
    assert_eq!(r.problem(404, "not-found")["title"], "Not found");
    // A signed-in caller reads problems in the account's language (Spanish here), over
    // the browser's.
    let r = srv.send(
        srv.request(reqwest::Method::PATCH, "/v1/me")
            .bearer_auth(&who.access)
            .header("accept-language", "fr")
            .json(&json!({"language": "klingon"})),
    );
    let p = r.problem(400, "validation");
    assert_eq!(p["title"], "La petición no es válida", "{p}");
    assert_eq!(r.header("content-language"), Some("es"));

    // Pages: Accept-Language when signed out.
    let r = srv.send(
        srv.request(reqwest::Method::GET, "/login")
            .header("accept-language", "es-MX,es;q=0.9"),
    );
    assert_eq!(r.status.as_u16(), 200);
    assert!(r.text.contains("<html lang=\"es\">"), "{}", r.text);
    assert!(r.text.contains("Iniciar sesión"), "{}", r.text);
    assert!(r.text.contains("/assets/i18n/es.js?v="), "{}", r.text);
    assert!(!r.text.contains("{{"), "{}", r.text);
    let r = srv.send(
        srv.request(reqwest::Method::GET, "/assets/i18n/fr.js")
            .header("accept-language", "es"),
    );
    assert_eq!(r.status.as_u16(), 200);
    assert!(r.text.contains("window.DjambiMessages"), "{}", r.text);
    assert!(r.text.contains("Partie terminée."), "{}", r.text);
    assert!(r.text.contains("\"seat-G\":\"Vert\""), "{}", r.text);
    assert_eq!(srv.get("/assets/i18n/xx.js", None).status.as_u16(), 404);
    // A confirmation link that is no link: to a browser, a 404 page in the reader's
    // language; to a program (no `text/html` asked for), the documented problem.
    let r = srv.send(
        srv.request(reqwest::Method::GET, "/v1/email-verification/djv_abc")
            .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            .header("accept-language", "fr"),
    );
    assert_eq!(r.status.as_u16(), 404, "{}", r.text);
    assert_eq!(r.header("content-language"), Some("fr"));
    assert!(r.text.contains("Ce lien ne fonctionne pas"), "{}", r.text);
    assert!(!r.text.contains("<form"), "{}", r.text);
    let r = srv.send(
        srv.request(reqwest::Method::GET, "/v1/email-verification/djv_abc")
            .header("accept", "*/*"),
    );
    assert_eq!(r.status.as_u16(), 404, "{}", r.text);
    assert!(
        r.content_type().starts_with("application/problem+json"),
        "{}",
        r.content_type()
    );

    // The board picture: its words in the reader's language, the notation canonical.
    let (id, _) = four_player_game(&srv, "svg");
    let svg = |lang: &str| {
        srv.send(
            srv.request(reqwest::Method::GET, &format!("/v1/games/{id}/board.svg"))
                .header("accept-language", lang),
        )
    };
    let r = svg("fr");
    assert_eq!(r.header("vary"), Some("Accept-Language"));
    assert_eq!(r.header("content-language"), Some("fr"));
    assert!(
        r.text
            .contains("Plateau de Djambi, demi-coup 0 : Rouge au trait"),
        "{}",
        r.text
    );
    assert!(r.text.contains("<title>E5, le labyrinthe</title>"));
    assert!(
        r.text.contains("<title>chef Rouge en A9</title>"),
        "{}",
        r.text
    );
    let r = svg("es");
    assert!(
        r.text.contains("<title>líder Rojo en A9</title>"),
        "{}",
        r.text
    );
    assert!(r.text.contains("E5, la presidencia"));
    let r = svg("en");
    assert!(r.text.contains("Red chief on A9"), "{}", r.text);
}

/// Whether a `Vary` header of the answer names `Accept-Language`.
fn varies_by_language(r: &djambi_e2e::Resp) -> bool {
    r.headers
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.to_ascii_lowercase().contains("accept-language"))
}

/// `Accept-Language` by RFC 9110: q-values, `q=0`, white space; for pages, problems and
/// the HTML 404 pages, which say their language and what they vary by.
fn q_values_decide_and_every_answer_says_how_it_varies(backend: Backend) {
    let srv = TestServer::start(backend);
    let page = |path: &str, accept_language: &str| {
        srv.send(
            srv.request(reqwest::Method::GET, path)
                .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
                .header("accept-language", accept_language),
        )
    };
    for (header, lang) in [
        ("en;q=0.2, es;q=0.8", "es"),
        ("fr;q=0", "en"),
        ("es ; q=0.9", "es"),
        ("de, fr;q=0.5, es;q=0.4", "fr"),
    ] {
        let r = page("/login", header);
        assert_eq!(r.header("content-language"), Some(lang), "{header}");
        assert!(
            r.text.contains(&format!("<html lang=\"{lang}\">")),
            "{header}"
        );
    }
    let unknown_game = "/v1/games/00000000-0000-7000-8000-000000000000";
    let r = srv.send(
        srv.request(reqwest::Method::GET, unknown_game)
            .header("accept-language", "en;q=0.2, fr;q=0.8"),
    );
    assert_eq!(r.problem(404, "not-found")["title"], "Introuvable");
    // Problems vary by language, in English too, and are not stored.
    for r in [
        srv.get(unknown_game, None),
        srv.send(srv.request(reqwest::Method::DELETE, "/v1/accounts")),
    ] {
        assert!(varies_by_language(&r), "{:?}", r.headers);
        assert_eq!(r.header("cache-control"), Some("no-store"));
        assert_eq!(r.header("content-language"), Some("en"));
    }
    // A browser asking for an unknown page gets the HTML 404 page; a program, a problem.
    let r = page("/no/such/page", "es");
    assert_eq!(r.status.as_u16(), 404);
    assert!(
        r.content_type().starts_with("text/html"),
        "{}",
        r.content_type()
    );
    assert_eq!(r.header("content-language"), Some("es"));
    assert!(varies_by_language(&r), "{:?}", r.headers);
    assert!(r.text.contains("Esta página no existe."), "{}", r.text);
    srv.get("/no/such/page", None).problem(404, "not-found");
    let r = page("/v1/no/such/resource", "es");
    r.problem(404, "not-found");
    // The HTML 404 of a page route.
    let r = page("/games/not-a-game", "fr");
    assert_eq!(r.status.as_u16(), 404);
    assert_eq!(r.header("content-language"), Some("fr"));
    assert!(varies_by_language(&r), "{:?}", r.headers);
    // The web app manifest speaks the reader's language.
    let r = page("/manifest.webmanifest", "fr-CA");
    assert_eq!(r.status.as_u16(), 200);
    assert!(varies_by_language(&r), "{:?}", r.headers);
    let m: serde_json::Value = serde_json::from_str(&r.text).unwrap();
    assert_eq!(m["lang"], "fr");
    assert_eq!(m["shortcuts"][0]["name"], "Mes parties");
    assert!(m["description"].as_str().unwrap().contains("Jouez"), "{m}");
    // A player's page in French: French plurals and decimal commas.
    srv.user("pierre");
    let r = page("/players/pierre", "fr");
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert!(
        r.text.contains("0 partie classée · 0 victoire"),
        "{}",
        r.text
    );
    assert!(r.text.contains("(μ 25,00, σ 8,33)"), "{}", r.text);
    assert!(!r.text.contains("25.00"), "{}", r.text);
}

/// The signed-in reader's preference wins over `Accept-Language` wherever the reader is
/// known: pages and HTML 404 pages of a cookie session, the move path's problems.
fn the_signed_in_preference_wins(backend: Backend) {
    let srv = TestServer::start(backend);
    let (id, p) = four_player_game(&srv, "pref");
    for who in &p {
        srv.patch("/v1/me", Some(&who.access), &json!({"language": "es"}))
            .expect(200);
    }
    // A regional tag at sign-up is the language.
    let made = srv
        .post(
            "/v1/accounts",
            None,
            &json!({"username": "quebec", "email": "quebec@example.org", "password": PASSWORD, "language": "fr-CA"}),
        )
        .expect(201)
        .clone();
    assert_eq!(made["language"], "fr");

    // The move path: not your turn, in Spanish although the browser says French.
    let blue = &p[1];
    let v = version(&srv, &id);
    let mv = first_legal(&srv, &id);
    let r = srv.send(
        srv.request(reqwest::Method::POST, &format!("/v1/games/{id}/moves"))
            .bearer_auth(&blue.access)
            .header("accept-language", "fr")
            .header("if-match", format!("\"{v}\""))
            .json(&json!({"move": mv})),
    );
    let problem = r.problem(409, "not-your-turn");
    assert_eq!(r.header("content-language"), Some("es"), "{problem}");
    let es_title = problem["title"].as_str().unwrap().to_string();
    let fr = srv.send(
        srv.request(reqwest::Method::GET, "/v1/no/such/resource")
            .header("accept-language", "fr"),
    );
    assert_ne!(fr.problem(404, "not-found")["title"], json!(es_title));

    // Pages of a cookie session.
    let login = srv.send(
        srv.request(reqwest::Method::POST, "/web/session")
            .json(&json!({"username": p[0].username, "password": PASSWORD})),
    );
    login.expect(201);
    let cookie = login
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let page = |path: &str| {
        srv.send(
            srv.request(reqwest::Method::GET, path)
                .header("cookie", &cookie)
                .header("accept", "text/html")
                .header("accept-language", "fr"),
        )
    };
    for path in [
        format!("/games/{id}"),
        "/games/00000000-0000-7000-8000-000000000000".to_string(),
        "/no/such/page".to_string(),
        "/players/nobody-at-all".to_string(),
    ] {
        let r = page(&path);
        assert_eq!(
            r.header("content-language"),
            Some("es"),
            "{path}: {}",
            r.text
        );
        assert!(r.text.contains("<html lang=\"es\">"), "{path}");
    }
}

/// The `name=value` of a `Set-Cookie`, and the value of the hidden `csrf` field.
fn form_session(r: &djambi_e2e::Resp) -> (String, String) {
    let cookie = r
        .header("set-cookie")
        .expect("the form's cookie")
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert!(cookie.starts_with("djambi_form="), "{cookie}");
    let marker = "name=\"csrf\" value=\"";
    let at = r.text.find(marker).expect("a csrf field") + marker.len();
    let csrf = r.text[at..].split('"').next().unwrap().to_string();
    (cookie, csrf)
}

/// The mailed links open pages for people, in the recipient's language: the address
/// confirmation (404 for a link that does not work, a page after the button) and the
/// password reset (the page the mail links to, its form, its rules, the login page's
/// link to it).
fn mailed_links_open_pages_in_the_recipients_language(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    // The confirmation: the page in the account's language, whatever the browser says.
    srv.post(
        "/v1/accounts",
        None,
        &json!({"username": "sofia", "email": email("sofia"), "password": PASSWORD, "language": "es"}),
    )
    .expect(201);
    let m = sink.wait_for_subject(20, &email("sofia"), "Confirma tu dirección", 1);
    let token = smtp_sink::token_after(&m.body, "/v1/email-verification/");
    let path = format!("/v1/email-verification/{token}");
    let get = || {
        srv.send(
            srv.request(reqwest::Method::GET, &path)
                .header("accept-language", "fr"),
        )
    };
    let r = get();
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert_eq!(r.header("content-language"), Some("es"));
    assert!(
        r.text.contains("¿Confirmar que esta dirección es tuya?"),
        "{}",
        r.text
    );
    // The page's button: a form post, answered with a page.
    let r = srv.send(
        srv.request(reqwest::Method::POST, &path)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept-language", "fr")
            .body(""),
    );
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert!(
        r.content_type().starts_with("text/html"),
        "{}",
        r.content_type()
    );
    assert!(r.text.contains("está confirmada"), "{}", r.text);
    assert!(!r.text.contains("email_verified"), "{}", r.text);
    // Used: the link is a 404 page now.
    assert_eq!(get().status.as_u16(), 404);

    // The reset: the login page links to the page that asks for a link.
    let login = srv.send(
        srv.request(reqwest::Method::GET, "/login")
            .header("accept-language", "es"),
    );
    assert!(
        login.text.contains("href=\"/reset-password\""),
        "{}",
        login.text
    );
    assert!(
        login.text.contains("¿Olvidaste tu contraseña?"),
        "{}",
        login.text
    );
    let ask = srv.send(
        srv.request(reqwest::Method::GET, "/reset-password")
            .header("accept-language", "es"),
    );
    assert_eq!(ask.status.as_u16(), 200, "{}", ask.text);
    let (cookie, csrf) = form_session(&ask);
    let post_form = |path: &str, cookie: &str, body: String| {
        srv.send(
            srv.request(reqwest::Method::POST, path)
                .header("content-type", "application/x-www-form-urlencoded")
                .header("cookie", cookie)
                .header("accept-language", "es")
                .body(body),
        )
    };
    // Without the form's token: refused, nothing sent.
    let r = post_form("/reset-password", &cookie, "who=sofia&csrf=forged".into());
    assert_eq!(r.status.as_u16(), 403, "{}", r.text);
    let r = post_form("/reset-password", &cookie, format!("who=sofia&csrf={csrf}"));
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert!(r.text.contains("va en camino un correo"), "{}", r.text);
    let m = sink.wait_for_subject(20, &email("sofia"), "Restablece tu contraseña", 1);
    assert!(!m.body.contains("POST"), "{}", m.body);
    // Account mails are `multipart/alternative` like every mail, as the README says.
    assert!(
        m.header("content-type")
            .starts_with("multipart/alternative"),
        "{m:?}"
    );
    assert!(
        m.html
            .as_deref()
            .is_some_and(|h| h.contains("<a href=\"https://djambi.example/reset-password/djx_")),
        "{m:?}"
    );
    assert!(
        m.body
            .contains("https://djambi.example/reset-password/djx_"),
        "{}",
        m.body
    );
    let token = smtp_sink::token_after(&m.body, "/reset-password/");
    let path = format!("/reset-password/{token}");
    // The page the mail links to: the form, in Sofía's Spanish.
    let r = srv.send(
        srv.request(reqwest::Method::GET, &path)
            .header("accept-language", "fr"),
    );
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert_eq!(r.header("content-language"), Some("es"));
    assert_eq!(r.header("referrer-policy"), Some("same-origin"));
    assert!(
        r.text.contains("autocomplete=\"new-password\""),
        "{}",
        r.text
    );
    let (cookie, csrf) = form_session(&r);
    let new = "a much better passphrase";
    // The two fields differ; then a password the rules refuse: the form again.
    let r = post_form(
        &path,
        &cookie,
        format!("csrf={csrf}&new_password=one+long+phrase&repeat=other"),
    );
    assert_eq!(r.status.as_u16(), 400, "{}", r.text);
    assert!(
        r.text.contains("Las dos contraseñas no coinciden."),
        "{}",
        r.text
    );
    let r = post_form(
        &path,
        &cookie,
        format!("csrf={csrf}&new_password=password&repeat=password"),
    );
    assert_eq!(r.status.as_u16(), 400, "{}", r.text);
    assert!(
        r.text.contains("Esta contraseña no se acepta"),
        "{}",
        r.text
    );
    srv.login("sofia", PASSWORD);
    let r = post_form(
        &path,
        &cookie,
        format!(
            "csrf={csrf}&new_password={}&repeat={}",
            new.replace(' ', "+"),
            new.replace(' ', "+")
        ),
    );
    assert_eq!(r.status.as_u16(), 200, "{}", r.text);
    assert!(
        r.text.contains("Tu contraseña está guardada."),
        "{}",
        r.text
    );
    srv.login("sofia", new);
    // Used: the link is a 404 page (in the browser's language: it names no one now).
    let r = srv.send(
        srv.request(reqwest::Method::GET, &path)
            .header("accept-language", "es"),
    );
    assert_eq!(r.status.as_u16(), 404, "{}", r.text);
    assert!(r.text.contains("Este enlace no funciona"), "{}", r.text);
    assert_eq!(
        srv.get("/reset-password/djx_nothing", None).status.as_u16(),
        404
    );
}

backend_tests!(
    mailed_links_open_pages_in_the_recipients_language,
    mails_speak_their_recipients_language,
    preferences_are_checked_and_change_pages_and_problems,
    q_values_decide_and_every_answer_says_how_it_varies,
    the_signed_in_preference_wins,
);
