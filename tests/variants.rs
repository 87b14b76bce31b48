//! Rule variants over the API, end to end on PostgreSQL and SQLite: one game per option
//! of VARIANTS.md, created with that option and played until a move only the option
//! allows is accepted and one it forbids is refused; the summary, the state, the created
//! event and the record show the ruleset, and the record imports again under it. Bad
//! rulesets are refused with the offending option named, and change nothing.
//!
//! The moves are planned with the rules crate: random games are played locally under the
//! variant beside a shadow game under the default rules (the same actions), up to the
//! first position where their legal moves differ; that game is then played through the
//! API, and at that position the variant's own move must be accepted and the default's
//! own move refused.

#[path = "support/games.rs"]
mod games;

use std::time::{Duration, Instant};

use djambi_e2e::{Backend, Login, Rng, TestServer, Value, backend_tests, json};
use domain::{Action, Game, GameSettings, Move, Ruleset, Seat, SeatSet};
use games::*;
use reqwest::Method;

backend_tests!(
    friendly_fire,
    master_moves,
    reporter,
    surround,
    two_seat_bonus,
    corpse_on_maze,
    layout,
    bad_rulesets_are_refused_and_change_nothing,
    a_ruleset_is_read_as_text_or_object,
    bots_play_under_the_game_s_ruleset,
);

fn friendly_fire(backend: Backend) {
    variant_game(backend, "friendly_fire", "own_non_chief", &[]);
}

fn master_moves(backend: Backend) {
    variant_game(backend, "master_moves", "on", &[]);
}

fn reporter(backend: Backend) {
    variant_game(backend, "reporter", "forced", &[]);
}

fn surround(backend: Backend) {
    variant_game(backend, "surround", "kw_throne_access", &[]);
}

/// Two seats resign first, so that two seats are left and a ruler's bonus turn can differ.
fn two_seat_bonus(backend: Backend) {
    variant_game(
        backend,
        "two_seat_bonus",
        "off",
        &[Seat::Yellow, Seat::Green],
    );
}

fn corpse_on_maze(backend: Backend) {
    variant_game(backend, "corpse_on_maze", "on", &[]);
}

fn layout(backend: Backend) {
    variant_game(backend, "layout", "rotational", &[]);
}

/// A planned game: the actions up to the first position where the legal moves under the
/// variant and under the default rules (the same actions replayed) differ.
struct Plan {
    actions: Vec<Action>,
    /// The game under the variant after `actions`.
    variant: Game,
    /// The same actions under the default rules.
    shadow: Game,
    /// Legal under the variant only (at the variant's position).
    only_variant: Option<Move>,
    /// Legal under the default rules only (at the shadow's position).
    only_default: Option<Move>,
}

fn moves_of(game: &Game) -> Vec<Move> {
    if game.is_over() {
        Vec::new()
    } else {
        game.position().legal_moves()
    }
}

/// Random games (seeded) under `ruleset` beside a default-rules shadow, until their legal
/// moves differ; `resign` seats resign before the first move.
fn plan(ruleset: Ruleset, resign: &[Seat]) -> Plan {
    let settings = GameSettings {
        seats: SeatSet::ALL,
        ruleset,
    };
    let default = GameSettings {
        seats: SeatSet::ALL,
        ruleset: Ruleset::DEFAULT,
    };
    for seed in 1..=400u64 {
        let mut rng = Rng::new(0x7a41_0000 + seed);
        let mut variant = Game::new(settings).unwrap();
        let mut shadow = Game::new(default).unwrap();
        let mut actions = Vec::new();
        for &seat in resign {
            let a = Action::Resign(seat);
            variant.apply(&a).unwrap();
            shadow.apply(&a).unwrap();
            actions.push(a);
        }
        for _ in 0..400 {
            let mine = moves_of(&variant);
            let theirs = moves_of(&shadow);
            let only_variant = mine.iter().find(|m| !theirs.contains(m)).copied();
            let only_default = theirs.iter().find(|m| !mine.contains(m)).copied();
            let turns_differ = variant.position().to_move() != shadow.position().to_move();
            if only_variant.is_some() || only_default.is_some() || turns_differ {
                return Plan {
                    actions,
                    variant,
                    shadow,
                    only_variant,
                    only_default,
                };
            }
            if mine.is_empty() {
                break;
            }
            let a = Action::Move(mine[rng.below(mine.len())]);
            variant.apply(&a).unwrap();
            shadow.apply(&a).unwrap();
            actions.push(a);
        }
    }
    panic!("no game of 400 shows {ruleset} apart from the default rules");
}

fn post_move(srv: &TestServer, who: &Login, id: &str, text: &str) -> djambi_e2e::Resp {
    let v = version(srv, id);
    play(srv, who, id, json!(text), v)
}

fn player_of(players: &[Login], seat: Seat) -> &Login {
    &players[Seat::ALL.iter().position(|s| *s == seat).unwrap()]
}

fn variant_game(backend: Backend, option: &str, value: &str, resign: &[Seat]) {
    let ruleset: Ruleset = format!("{option}={value}").parse().unwrap();
    let canonical = format!("djambi-standard-2026 {option}={value}");
    assert_eq!(ruleset.to_string(), canonical);
    let plan = plan(ruleset, resign);

    let srv = TestServer::start(backend);
    let players: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("var_{}", s.to_lowercase())))
        .collect();
    // The object form here; the text form in `a_ruleset_is_read_as_text_or_object`.
    let created = create(
        &srv,
        &players[0],
        json!({"seats": 4, "seat": "R", "ruleset": {option: value}}),
    );
    assert_eq!(created["ruleset"], canonical);
    assert_eq!(created["ruleset_options"][option], value);
    let id = created["id"].as_str().unwrap().to_string();
    for (i, seat) in SEATS.iter().enumerate().skip(1) {
        take_seat(&srv, &players[i], &id, seat).expect(200);
    }
    let state = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    let start = Game::new(GameSettings {
        seats: SeatSet::ALL,
        ruleset,
    })
    .unwrap();
    assert_eq!(
        state["dfen"],
        start.position().to_string(),
        "the variant's start"
    );
    assert_eq!(state["ruleset"], canonical);

    // The planned actions, each one accepted.
    let mut replay = start;
    for action in &plan.actions {
        match action {
            Action::Move(mv) => {
                let seat = replay.position().to_move().unwrap();
                let text = replay.position().move_text(mv).to_string();
                post_move(&srv, player_of(&players, seat), &id, &text).expect(201);
            }
            Action::Resign(seat) => {
                srv.post(
                    &format!("/v1/games/{id}/resignation"),
                    Some(&player_of(&players, *seat).access),
                    &json!({}),
                )
                .expect(201);
            }
            _ => unreachable!("the plan has moves and resignations"),
        }
        replay.apply(action).unwrap();
    }
    let state = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(state["dfen"], plan.variant.position().to_string());
    if plan.variant.position().to_string() != plan.shadow.position().to_string() {
        eprintln!(
            "{option}: after {} actions the positions differ: {} (variant) vs {} (default)",
            plan.actions.len(),
            plan.variant.position(),
            plan.shadow.position()
        );
    }

    // Where the rules differ: the default's own move is refused ...
    if let Some(mv) = plan.only_default {
        let pos = plan.shadow.position();
        let seat = pos.to_move().unwrap();
        let text = pos.move_text(&mv).to_string();
        let r = post_move(&srv, player_of(&players, seat), &id, &text);
        if plan.variant.position().to_move() == Some(seat) {
            r.problem(422, "illegal-move");
        } else {
            assert!(r.status.is_client_error(), "{text}: {}", r.text);
        }
        eprintln!("{option}: refused {text} (legal under the default rules only)");
    }
    // ... and the variant's own move (or, when only the turn differs, the variant's
    // seat's move) is accepted; unless the option ended the game (a chief surrounded).
    let mut variant = plan.variant;
    let mut default_refuses = false;
    if variant.is_over() {
        let s = summary(&srv, &id);
        assert_eq!(s["status"], "finished", "{s}");
        assert!(!plan.shadow.is_over(), "the default rules go on");
        eprintln!("{option}: the game ended where the default rules go on");
    } else {
        let pos = variant.position();
        let mv = plan
            .only_variant
            .or_else(|| moves_of(&variant).first().copied())
            .expect("the variant's seat has a move");
        let seat = pos.to_move().unwrap();
        let text = pos.move_text(&mv).to_string();
        let b = post_move(&srv, player_of(&players, seat), &id, &text)
            .expect(201)
            .clone();
        assert_eq!(b["move"]["text"], text);
        default_refuses = !(plan.shadow.position().to_move() == Some(seat)
            && moves_of(&plan.shadow).contains(&mv));
        eprintln!(
            "{option}: accepted {text} by {seat} after {} actions (refused by the default: {default_refuses})",
            plan.actions.len(),
        );
        variant.apply(&Action::Move(mv)).unwrap();
    }

    // Every view shows the ruleset; the state is the variant's.
    let s = summary(&srv, &id);
    assert_eq!(s["ruleset"], canonical);
    assert_eq!(s["ruleset_options"][option], value);
    for (name, v) in Ruleset::DEFAULT.options() {
        if name != option {
            assert_eq!(s["ruleset_options"][name], v, "{name}");
        }
    }
    let state = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(state["dfen"], variant.position().to_string());
    assert_eq!(state["ruleset_options"], s["ruleset_options"]);
    let status = s["status"].as_str().unwrap();
    let lobby = srv
        .get(&format!("/v1/games?status={status}&limit=10"), None)
        .expect(200)
        .clone();
    let listed = lobby["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .expect("listed in the lobby")
        .clone();
    assert_eq!(listed["ruleset"], canonical);
    let events = all_events(&srv, &id);
    assert_eq!(events[0]["kind"], "created");
    assert_eq!(events[0]["payload"]["ruleset"], canonical);
    let (settings, actions) = actions_of(&events);
    assert_eq!(settings.ruleset, ruleset);
    let (replayed, _) = Game::replay(settings, &actions).expect("the log replays under it");
    assert_eq!(
        replayed.position().to_string(),
        variant.position().to_string()
    );

    // The record carries it, and imports again under it.
    let record = srv.get(&format!("/v1/games/{id}/record"), None);
    assert_eq!(record.status, 200, "{}", record.text);
    assert!(
        record.text.contains(&format!("[Ruleset \"{canonical}\"]")),
        "{}",
        record.text
    );
    let imported = srv
        .send(
            srv.request(Method::POST, "/v1/games/import")
                .bearer_auth(&players[1].access)
                .header("content-type", "text/plain")
                .body(record.text.clone()),
        )
        .expect(201)
        .clone();
    assert_eq!(imported["ruleset"], canonical);
    assert_eq!(imported["kind"], "study");
    let study = imported["id"].as_str().unwrap();
    let st = srv
        .get(&format!("/v1/games/{study}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(st["dfen"], variant.position().to_string());
    // The same record under the default rules holds a move they refuse.
    if default_refuses {
        let as_default = record.text.replace(
            &format!("[Ruleset \"{canonical}\"]"),
            "[Ruleset \"djambi-standard-2026\"]",
        );
        srv.send(
            srv.request(Method::POST, "/v1/games/import")
                .bearer_auth(&players[1].access)
                .header("content-type", "text/plain")
                .body(as_default),
        )
        .problem(422, "invalid-record");
    }
}

fn bad_rulesets_are_refused_and_change_nothing(backend: Backend) {
    let srv = TestServer::start(backend);
    let alice = srv.user("bad_alice");
    let cases: Vec<(Value, &str)> = vec![
        (json!({"master_moves": "yes"}), "ruleset.master_moves"),
        (json!({"bogus": "on"}), "ruleset.bogus"),
        (json!({"reporter": 1}), "ruleset.reporter"),
        (json!({"layout": null}), "ruleset.layout"),
        (json!("master_moves=yes"), "ruleset.master_moves"),
        (json!("reporter=forced,reporter=forced"), "ruleset.reporter"),
        (json!("bogus=on"), "ruleset.bogus"),
        (json!("djambi-standard-2099 master_moves=on"), "ruleset"),
        (json!("master_moves"), "ruleset"),
        (json!("master_moves=on,"), "ruleset"),
        (json!(7), "ruleset"),
        (json!(["master_moves=on"]), "ruleset"),
        (json!("x".repeat(300)), "ruleset"),
    ];
    for (ruleset, field) in cases {
        let r = srv.post(
            "/v1/games",
            Some(&alice.access),
            &json!({"seat": "R", "ruleset": ruleset}),
        );
        r.problem(400, "validation");
        assert_eq!(
            r.error_fields(),
            vec![field.to_string()],
            "{ruleset}: {}",
            r.text
        );
        if field != "ruleset" {
            let option = field.trim_start_matches("ruleset.");
            assert!(
                r.json["detail"].as_str().unwrap().contains(option),
                "{}",
                r.text
            );
        }
    }
    let mine = srv.get("/v1/games?limit=10", None).expect(200).clone();
    assert_eq!(
        mine["items"].as_array().unwrap().len(),
        0,
        "no game was created"
    );
}

fn a_ruleset_is_read_as_text_or_object(backend: Backend) {
    let srv = TestServer::start(backend);
    let alice = srv.user("txt_alice");
    let canonical = "djambi-standard-2026 master_moves=on,reporter=forced";
    for ruleset in [
        json!("reporter=forced, master_moves=on"),
        json!("djambi-standard-2026 reporter=forced,master_moves=on,layout=standard"),
        json!({"reporter": "forced", "master_moves": "on", "surround": "ours"}),
        json!(canonical),
    ] {
        let g = create(&srv, &alice, json!({"ruleset": ruleset}));
        assert_eq!(g["ruleset"], canonical, "{ruleset}");
        assert_eq!(g["ruleset_options"]["reporter"], "forced");
        assert_eq!(g["ruleset_options"]["master_moves"], "on");
        assert_eq!(g["ruleset_options"]["layout"], "standard");
    }
    for ruleset in [
        json!(null),
        json!(""),
        json!({}),
        json!("djambi-standard-2026"),
    ] {
        let g = create(&srv, &alice, json!({"ruleset": ruleset}));
        assert_eq!(g["ruleset"], "djambi-standard-2026", "{ruleset}");
        assert_eq!(g["ruleset_options"]["friendly_fire"], "none");
    }
    let g = create(&srv, &alice, json!({}));
    assert_eq!(g["ruleset"], "djambi-standard-2026");
}

/// A bot-only game under `layout=rotational,reporter=forced`: the server's bots play it
/// (from the rotational start, never a reporter move that leaves a victim) until they
/// agree a draw; every bot move is legal under the ruleset where it was played, and the
/// log replays under it.
fn bots_play_under_the_game_s_ruleset(backend: Backend) {
    let srv = TestServer::start_with(
        backend,
        &[
            ("DJAMBI_DUE_INTERVAL", "10ms"),
            ("DJAMBI_BOT_DELAY", "0"),
            ("DJAMBI_BOT_DRAW_PLIES", "40"),
        ],
    );
    let alice = srv.user("bots_alice");
    let ruleset: Ruleset = "layout=rotational,reporter=forced".parse().unwrap();
    let g = create(
        &srv,
        &alice,
        json!({"ruleset": "reporter=forced,layout=rotational", "bots": [
            {"seat": "R", "level": 1}, {"seat": "B", "level": 2},
            {"seat": "Y", "level": 1}, {"seat": "G", "level": 2}]}),
    );
    assert_eq!(g["ruleset"], ruleset.to_string());
    let id = g["id"].as_str().unwrap().to_string();
    let until = Instant::now() + Duration::from_secs(120);
    while summary(&srv, &id)["status"] != "finished" {
        assert!(
            Instant::now() < until,
            "the bots did not finish: {}",
            summary(&srv, &id)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let events = all_events(&srv, &id);
    let (settings, actions) = actions_of(&events);
    assert_eq!(settings.ruleset, ruleset);
    let mut game = Game::new(settings).unwrap();
    let mut moves = 0;
    for action in &actions {
        if let Action::Move(mv) = action {
            assert!(
                game.position().legal_moves().contains(mv),
                "a bot move legal under the ruleset"
            );
            moves += 1;
        }
        game.apply(action).unwrap();
    }
    assert!(moves >= 1, "the bots moved");
    let state = srv
        .get(&format!("/v1/games/{id}/state"), None)
        .expect(200)
        .clone();
    assert_eq!(state["dfen"], game.position().to_string());
    // Under the default rules the same moves do not make this game.
    let default = GameSettings {
        ruleset: Ruleset::DEFAULT,
        ..settings
    };
    let replayed = Game::replay(default, &actions).map(|(g, _)| g.position().to_string());
    assert_ne!(replayed.ok(), Some(game.position().to_string()));
    eprintln!("{backend:?}: the bots played {moves} moves under {ruleset}");
}
