//! An event's notifications through the existing channels, on PostgreSQL and SQLite: a
//! round-robin of four fills and starts; each entrant finds `tournament_started` in its
//! feed and gets a `tournament_round` mail in its language (parsed strictly by
//! `support/mail_check.py`) linking to its game and to the event's page, unless its
//! settings turned that kind off; played to the end, the `tournament_finished` mail says
//! each player's place and points; an organiser's cancel mails the entrants.

#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use djambi_e2e::{Backend, Login, TestServer, Value, backend_tests, json};
use reqwest::Method;
use smtp_sink::{SmtpSink, address_of, verified_players};

backend_tests!(
    an_event_tells_its_players_in_their_language,
    a_cancelled_event_tells_its_entrants,
);

/// As `tests/tournaments.rs`: the tournaments' clock every 30 ms.
const FAST: &[(&str, &str)] = &[("DJAMBI_DUE_INTERVAL", "30ms")];
const PUBLIC: &str = "https://djambi.example";

fn start(backend: Backend, sink: &SmtpSink) -> TestServer {
    TestServer::start_with(backend, &sink.server_settings(FAST))
}

fn put(srv: &TestServer, path: &str, who: &Login, body: &Value) -> Value {
    srv.send(
        srv.request(Method::PUT, path)
            .bearer_auth(&who.access)
            .json(body),
    )
    .expect(200)
    .clone()
}

fn join(srv: &TestServer, id: &str, who: &Login) -> Value {
    srv.send(
        srv.request(Method::PUT, &format!("/v1/tournaments/{id}/players/me"))
            .bearer_auth(&who.access),
    )
    .expect(200)
    .clone()
}

fn event(srv: &TestServer, id: &str) -> Value {
    srv.get(&format!("/v1/tournaments/{id}"), None)
        .expect(200)
        .clone()
}

/// Polls the event until `done` holds (at most 60 s).
#[track_caller]
fn wait_for(srv: &TestServer, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let e = event(srv, id);
        if done(&e) {
            return e;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited too long for {what}: {e:#}"
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

/// Round `n` is paired and each of its games is running.
fn round_started(e: &Value, n: usize) -> bool {
    let rounds = e["rounds_played"].as_array().unwrap();
    rounds.len() >= n
        && rounds[n - 1]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "active")
}

/// The only table of round `n`: its game and its players' usernames by seat index.
fn table(e: &Value, n: usize) -> (String, Vec<String>) {
    let t = &e["rounds_played"][n - 1]["tables"][0];
    let seats = t["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["username"].as_str().unwrap_or("").to_string())
        .collect();
    (t["game_id"].as_str().unwrap().to_string(), seats)
}

/// `who`'s notifications of kind `kind`, oldest first.
fn feed(srv: &TestServer, who: &Login, kind: &str) -> Vec<Value> {
    let page = srv
        .get("/v1/me/notifications?limit=100", Some(&who.access))
        .expect(200)
        .clone();
    let mut items: Vec<Value> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == kind)
        .cloned()
        .collect();
    items.reverse();
    items
}

/// Waits until `who` has at least `n` notifications of `kind`.
#[track_caller]
fn wait_for_feed(srv: &TestServer, who: &Login, kind: &str, n: usize) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let items = feed(srv, who, kind);
        if items.len() >= n {
            return items;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{} has {} `{kind}` notifications, not {n}",
            who.username,
            items.len()
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

const SEATS: [&str; 4] = ["R", "B", "Y", "G"];

/// What each language calls things.
struct Words {
    lang: &'static str,
    round: &'static str,
    finished: &'static str,
    started: &'static str,
    /// The subject's separator: French puts a space before the colon.
    colon: &'static str,
    seats: [&'static str; 4],
}

const EN: Words = Words {
    lang: "en",
    round: "Your next round is paired",
    finished: "The event is over",
    started: "The event started",
    colon: ":",
    seats: ["Red", "Blue", "Yellow", "Green"],
};
const FR: Words = Words {
    lang: "fr",
    round: "Votre prochaine ronde est appariée",
    finished: "Le tournoi est terminé",
    started: "Le tournoi a commencé",
    colon: " :",
    seats: ["Rouge", "Bleu", "Jaune", "Vert"],
};
const ES: Words = Words {
    lang: "es",
    round: "Tu próxima ronda está emparejada",
    finished: "El torneo ha terminado",
    started: "El torneo ha empezado",
    colon: ":",
    seats: ["Rojo", "Azul", "Amarillo", "Verde"],
};

impl Words {
    fn round_line(&self, round: usize, seat: usize) -> String {
        let s = self.seats[seat];
        match self.lang {
            "fr" => format!("Ronde {round} : vous jouez {s}."),
            "es" => format!("Ronda {round}: juegas con {s}."),
            _ => format!("Round {round}: you play {s}."),
        }
    }
}

fn an_event_tells_its_players_in_their_language(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    // Mails go to verified addresses only.
    let players = verified_players(&srv, &sink, "tn");
    let words = [&EN, &FR, &ES, &EN];
    for (p, w) in players.iter().zip(words) {
        if w.lang != "en" {
            let me = srv
                .patch("/v1/me", Some(&p.access), &json!({"language": w.lang}))
                .expect(200)
                .clone();
            assert_eq!(me["language"], w.lang);
        }
    }
    // The settings list the event's kinds with their defaults.
    let settings = srv
        .get("/v1/me/notification-settings", Some(&players[0].access))
        .expect(200)
        .clone();
    let kinds = settings["kinds"].as_object().unwrap();
    assert_eq!(kinds.len(), 15, "{settings:#}");
    assert_eq!(
        kinds["tournament_started"],
        json!({"feed": true, "email": false, "webhook": true, "push": false})
    );
    for k in [
        "tournament_round",
        "tournament_finished",
        "tournament_cancelled",
    ] {
        assert_eq!(
            kinds[k],
            json!({"feed": true, "email": true, "webhook": true, "push": true}),
            "{k}"
        );
    }
    // The last player wants no mail for a round (its feed still has them).
    let quiet = &players[3];
    let saved = put(
        &srv,
        "/v1/me/notification-settings",
        quiet,
        &json!({"kinds": {"tournament_round": {"email": false, "webhook": true}}}),
    );
    assert_eq!(saved["kinds"]["tournament_round"]["email"], false);
    assert_eq!(saved["kinds"]["tournament_finished"]["email"], true);
    // An unknown kind is still refused, and names the new ones as known.
    let bad = srv.send(
        srv.request(Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&quiet.access)
            .json(&json!({"kinds": {"tournament_paired": {"email": false, "webhook": true}}})),
    );
    let problem = bad.problem(400, "validation").to_string();
    assert!(problem.contains("tournament_round"), "{problem}");

    let name = "Section N";
    let created = srv
        .post(
            "/v1/tournaments",
            Some(&players[0].access),
            &json!({"name": name, "format": "round_robin", "capacity": 4,
                    "time_control": {"per_move_secs": 259200}, "round_days": 28}),
        )
        .expect(201)
        .clone();
    let id = created["id"].as_str().unwrap().to_string();
    for p in &players {
        join(&srv, &id, p);
    }
    let e = wait_for(&srv, &id, "round 1", |e| round_started(e, 1));
    assert_eq!(e["status"], "running");
    let planned = e["planned_rounds"].as_u64().unwrap() as usize;
    assert_eq!(planned, 4, "four players: a round per seat");

    // The feed: the start, then the round with the player's game and seat.
    let (game, seats) = table(&e, 1);
    for p in &players {
        let started = wait_for_feed(&srv, p, "tournament_started", 1);
        assert_eq!(started.len(), 1);
        assert_eq!(started[0]["payload"]["tournament_id"], id.as_str());
        assert_eq!(started[0]["payload"]["name"], name);
        assert!(started[0]["game_id"].is_null(), "{}", started[0]);
        let round = wait_for_feed(&srv, p, "tournament_round", 1);
        assert_eq!(round[0]["game_id"], game.as_str(), "{}", round[0]);
        assert_eq!(round[0]["payload"]["round"], 1);
        let k = seats.iter().position(|s| *s == p.username).unwrap();
        assert_eq!(round[0]["payload"]["seat"], SEATS[k]);
    }

    // The round's mail: in the player's language, with links to the game and the event.
    let by_name: HashMap<&str, &Login> = players.iter().map(|p| (p.username.as_str(), p)).collect();
    let subject = |w: &Words, what: &str| format!("[Djambi] {what}{} {name}", w.colon);
    for (p, w) in players.iter().zip(words).take(3) {
        let m = sink.wait_for_subject(20, &address_of(p), w.round, 1);
        assert_eq!(m.header("subject"), subject(w, w.round), "{m:?}");
        assert_eq!(m.header("content-language"), w.lang);
        assert!(m.header("list-unsubscribe").contains("/v1/unsubscribe/"));
        let k = seats.iter().position(|s| *s == p.username).unwrap();
        assert!(m.body.contains(&w.round_line(1, k)), "{}", m.body);
        // The game's players, by seat.
        for (i, s) in seats.iter().enumerate() {
            let named = format!("{} {s}", w.seats[i]);
            assert!(m.body.contains(&named), "{named}: {}", m.body);
        }
        let game_url = format!("{PUBLIC}/games/{game}");
        let event_url = format!("{PUBLIC}/tournaments/{id}");
        for url in [&game_url, &event_url] {
            assert!(m.body.contains(url.as_str()), "{url}: {}", m.body);
            let html = m.html.as_deref().expect("an HTML alternative");
            assert!(
                html.contains(&format!("<a href=\"{url}\">")),
                "{url}: {html}"
            );
        }
    }
    // No mail of the start (feed and webhooks only by default), none of the round for the
    // player who turned it off: the others' round mails came with the same fan-out.
    std::thread::sleep(Duration::from_millis(300));
    for (p, w) in players.iter().zip(words) {
        assert!(
            sink.to_with_subject(&address_of(p), w.started).is_empty(),
            "{}",
            p.username
        );
    }
    assert!(
        sink.to_with_subject(&address_of(quiet), EN.round)
            .is_empty()
    );

    // Play every round out: in each game the players resign last first, so the first
    // player wins all four games, the second is second in all, and so on.
    for n in 1..=planned {
        let e = wait_for(&srv, &id, "the round", |e| round_started(e, n));
        let (game, seats) = table(&e, n);
        for p in players.iter().rev().take(3) {
            assert!(seats.contains(&p.username), "round {n}: {seats:?}");
            srv.post(
                &format!("/v1/games/{game}/resignation"),
                Some(&by_name[p.username.as_str()].access),
                &json!({}),
            )
            .expect(201);
        }
        // Each round is mailed to the three who want it.
        if n > 1 {
            for (p, w) in players.iter().zip(words).take(3) {
                let m = sink.wait_for_subject(20, &address_of(p), w.round, n);
                let k = seats.iter().position(|s| *s == p.username).unwrap();
                assert!(m.body.contains(&w.round_line(n, k)), "{}", m.body);
                assert!(m.body.contains(&format!("{PUBLIC}/games/{game}")));
            }
        }
    }
    let e = wait_for(&srv, &id, "the end", |e| e["status"] == "finished");
    assert_eq!(e["standings"][0]["username"], players[0].username.as_str());

    // The end: each player's place, of four, and points, in its language.
    let lines = [
        "You placed 1st of 4 with 12 points.",
        "Vous terminez 2e sur 4 avec 8 points.",
        "Quedaste en el puesto 3.º de 4 con 4 puntos.",
        "You placed 4th of 4 with 0 points.",
    ];
    for ((p, w), line) in players.iter().zip(words).zip(lines) {
        let m = sink.wait_for_subject(20, &address_of(p), w.finished, 1);
        assert_eq!(m.header("subject"), subject(w, w.finished), "{m:?}");
        assert!(m.body.contains(line), "{line}: {}", m.body);
        assert!(
            m.body.contains(&format!("{PUBLIC}/tournaments/{id}")),
            "{}",
            m.body
        );
        assert!(!m.body.contains("/games/"), "{}", m.body);
        let done = wait_for_feed(&srv, p, "tournament_finished", 1);
        assert_eq!(done[0]["payload"]["players"], 4);
    }
    // The quiet player's feed has every round, its mailbox none.
    assert_eq!(feed(&srv, quiet, "tournament_round").len(), planned);
    assert!(
        sink.to_with_subject(&address_of(quiet), EN.round)
            .is_empty()
    );
    assert_eq!(
        sink.to_with_subject(&address_of(&players[0]), EN.round)
            .len(),
        planned
    );
}

fn a_cancelled_event_tells_its_entrants(backend: Backend) {
    let sink = SmtpSink::start();
    let srv = start(backend, &sink);
    let players = verified_players(&srv, &sink, "tc");
    srv.patch(
        "/v1/me",
        Some(&players[1].access),
        &json!({"language": "es"}),
    )
    .expect(200);
    let created = srv
        .post(
            "/v1/tournaments",
            Some(&players[0].access),
            &json!({"name": "Never played", "format": "round_robin", "capacity": 6,
                    "time_control": {"per_move_secs": 259200}}),
        )
        .expect(201)
        .clone();
    let id = created["id"].as_str().unwrap().to_string();
    join(&srv, &id, &players[1]);
    join(&srv, &id, &players[2]);
    srv.delete(&format!("/v1/tournaments/{id}"), Some(&players[0].access))
        .expect(204);
    let m = sink.wait_for_subject(20, &address_of(&players[1]), "El torneo se ha cancelado", 1);
    assert_eq!(
        m.header("subject"),
        "[Djambi] El torneo se ha cancelado: Never played"
    );
    assert!(
        m.body.contains("Motivo: el organizador lo canceló"),
        "{}",
        m.body
    );
    assert!(m.body.contains(&format!("{PUBLIC}/tournaments/{id}")));
    let m = sink.wait_for_subject(20, &address_of(&players[2]), "The event was cancelled", 1);
    assert!(
        m.body.contains("Reason: the organiser cancelled it"),
        "{}",
        m.body
    );
    let cancelled = wait_for_feed(&srv, &players[2], "tournament_cancelled", 1);
    assert_eq!(cancelled[0]["payload"]["reason"], "organiser");
    // The organiser did not enter: nothing for it.
    assert!(feed(&srv, &players[0], "tournament_cancelled").is_empty());
}
