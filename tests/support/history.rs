//! Helpers for the history tests: random games played through the API (the moves chosen
//! on a local replay, so no `legal-moves` round trip per ply), the position-changing
//! events of a log, record imports. Included with
//! `#[path = "support/history.rs"] mod history;` (after `support/games.rs`).

#![allow(dead_code)]

use djambi_e2e::{Login, Resp, Rng, TestServer, Value, json};
use domain::{Action, Game, GameSettings, Seat, SeatSet};

/// A game played through the API.
pub struct Played {
    pub id: String,
    /// The player of each seat in play.
    pub players: Vec<(Seat, Login)>,
    /// For each move: the `seq` of its `move_played` event and the `effects` of the
    /// move's answer.
    pub moves: Vec<(i64, Value)>,
    /// The game as the client replays it.
    pub game: Game,
    pub version: i64,
}

impl Played {
    pub fn player(&self, seat: Seat) -> &Login {
        &self
            .players
            .iter()
            .find(|(s, _)| *s == seat)
            .expect("a seat in play")
            .1
    }
}

/// A new game with every seat of `seats` (`"RBYG"`, or three letters: the fourth seat is
/// empty and its party hostage) taken by a new player; it has started.
pub fn seated_game(srv: &TestServer, prefix: &str, seats: &str) -> Played {
    let set = SeatSet::from_letters(seats).expect("seat letters");
    let settings = match set.len() {
        4 => GameSettings::four_players(),
        _ => {
            let empty = Seat::ALL
                .into_iter()
                .find(|s| !set.contains(*s))
                .expect("an empty seat");
            GameSettings::three_players(empty)
        }
    };
    let players: Vec<(Seat, Login)> = set
        .iter()
        .map(|seat| {
            let name = format!("{prefix}_{}", seat.letter().to_ascii_lowercase());
            (seat, srv.user(&name))
        })
        .collect();
    let first = players[0].0;
    let mut body = json!({"seats": set.len(), "seat": first.to_string()});
    if set.len() == 3 {
        let empty = Seat::ALL.into_iter().find(|s| !set.contains(*s)).unwrap();
        body["empty_seat"] = json!(empty.to_string());
    }
    let created = srv
        .post("/v1/games", Some(&players[0].1.access), &body)
        .expect(201)
        .clone();
    let id = created["id"].as_str().unwrap().to_string();
    let mut version = 0;
    for (seat, who) in players.iter().skip(1) {
        let r = srv.send(
            srv.request(
                reqwest::Method::POST,
                &format!("/v1/games/{id}/seats/{seat}"),
            )
            .bearer_auth(&who.access),
        );
        version = r.expect(200)["version"].as_i64().unwrap();
    }
    Played {
        id,
        players,
        moves: Vec::new(),
        game: Game::new(settings).unwrap(),
        version,
    }
}

/// Plays up to `plies` random legal moves; before the plies listed in `resign_before`
/// the last active seat that is not to move resigns. Stops when the game is over.
pub fn play_random(
    srv: &TestServer,
    g: &mut Played,
    rng: &mut Rng,
    plies: usize,
    resign_before: &[usize],
) {
    for ply in 0..plies {
        if g.game.is_over() {
            return;
        }
        if resign_before.contains(&ply) {
            let position = g.game.position();
            let to_move = position.to_move();
            if let Some(seat) = position
                .active_seats()
                .iter()
                .filter(|s| Some(*s) != to_move)
                .last()
            {
                resign(srv, g, seat);
                if g.game.is_over() {
                    return;
                }
            }
        }
        let position = g.game.position();
        let seat = position.to_move().expect("a seat to move");
        let moves = position.legal_moves();
        let mv = moves[rng.below(moves.len())];
        let text = position.move_text(&mv).to_string();
        let who = g.player(seat).clone();
        let r = srv.post(
            &format!("/v1/games/{}/moves", g.id),
            Some(&who.access),
            &json!({"move": text, "expected_version": g.version}),
        );
        let b = r.expect(201).clone();
        let seq = b["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["kind"] == "move_played")
            .expect("a move_played event")["seq"]
            .as_i64()
            .unwrap();
        g.moves.push((seq, b["effects"].clone()));
        g.game.apply(&Action::Move(mv)).unwrap();
        assert_eq!(b["dfen"], g.game.position().to_string());
        g.version = b["version"].as_i64().unwrap();
    }
}

/// `seat` resigns (through its player).
pub fn resign(srv: &TestServer, g: &mut Played, seat: Seat) {
    let who = g.player(seat).clone();
    let r = srv.post(
        &format!("/v1/games/{}/resignation", g.id),
        Some(&who.access),
        &json!({}),
    );
    g.version = r.expect(201)["version"].as_i64().unwrap();
    g.game.apply(&Action::Resign(seat)).unwrap();
}

/// Resigns the last active seats until the game is over.
pub fn resign_until_over(srv: &TestServer, g: &mut Played) {
    while !g.game.is_over() {
        let seat = g.game.position().active_seats().iter().last().unwrap();
        resign(srv, g, seat);
    }
}

/// The `seq` of every event that changes the position: moves, resignations, timeouts and
/// an agreed draw.
pub fn action_seqs(events: &[Value]) -> Vec<i64> {
    events
        .iter()
        .filter(|e| {
            matches!(
                e["kind"].as_str(),
                Some("move_played" | "resigned" | "timed_out")
            ) || (e["kind"] == "ended" && e["payload"]["result"]["reason"] == "draw_agreed")
        })
        .map(|e| e["seq"].as_i64().unwrap())
        .collect()
}

/// Imports a record as JSON.
pub fn import_json(srv: &TestServer, who: &Login, body: &Value) -> Resp {
    srv.post("/v1/games/import", Some(&who.access), body)
}

/// Imports a record as `text/plain`.
pub fn import_text(srv: &TestServer, who: &Login, text: &str) -> Resp {
    srv.send(
        srv.request(reqwest::Method::POST, "/v1/games/import")
            .bearer_auth(&who.access)
            .header("content-type", "text/plain; charset=utf-8")
            .body(text.to_string()),
    )
}

/// The record of a game, as served.
pub fn record_of(srv: &TestServer, id: &str) -> String {
    let r = srv.get(&format!("/v1/games/{id}/record"), None);
    assert_eq!(r.status, 200, "{}", r.text);
    r.text
}
