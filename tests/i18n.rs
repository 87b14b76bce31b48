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
        m.header("subject").starts_with(&format!(
            "[Djambi] À vous de jouer dans la partie {}",
            &id[..8]
        )),
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
        m.header("subject")
            .starts_with("[Djambi] Te toca jugar en la partida"),
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
        m.header("subject")
            .starts_with("[Djambi] Your turn in game")
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
    // The unsubscribe page a mail links to.
    let r = srv.send(
        srv.request(reqwest::Method::GET, "/v1/email-verification/abc")
            .header("accept-language", "fr"),
    );
    assert!(
        r.text
            .contains("Confirmer que cette adresse est la vôtre ?"),
        "{}",
        r.text
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

backend_tests!(
    mails_speak_their_recipients_language,
    preferences_are_checked_and_change_pages_and_problems,
);
