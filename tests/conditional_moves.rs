//! Conditional moves over HTTP on both databases: storing a tree (checks naming the line
//! and the ply, `If-Match`, nothing stored on bad input), the answer played by the
//! server through the one write path (a `move_played` event with `conditional: true`
//! and the player as actor, no `your_turn`, a `conditional_played` notification), lines
//! of one and several rounds, a mismatch discarding the tree, a resignation and a
//! timeout changing the turn order, a race with the player's manual move, privacy
//! through every read path, and a restart between the match and the move.

#[path = "support/games.rs"]
mod games;
#[path = "support/inbound.rs"]
mod inbound;
#[path = "support/smtp_sink.rs"]
mod smtp_sink;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta};
use djambi_e2e::{
    Backend, FreshDatabase, Login, ManualClock, Resp, TestServer, Value, backend_tests, json,
};
use domain::{Action, Game, Move};
use games::*;
use reqwest::Method;

const FAST: (&str, &str) = ("DJAMBI_DUE_INTERVAL", "10ms");

/// Waits up to 20 s for `f` to give something.
#[track_caller]
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn path(id: &str, seat: &str) -> String {
    format!("/v1/games/{id}/seats/{seat}/conditional-moves")
}

#[track_caller]
fn put_tree(
    srv: &TestServer,
    who: &Login,
    id: &str,
    seat: &str,
    at: i64,
    lines: &[String],
) -> Resp {
    srv.send(
        srv.request(Method::PUT, &path(id, seat))
            .bearer_auth(&who.access)
            .header("If-Match", format!("\"{at}\""))
            .json(&json!({ "lines": lines })),
    )
}

#[track_caller]
fn tree_lines(srv: &TestServer, who: &Login, id: &str, seat: &str) -> Vec<String> {
    srv.get(&path(id, seat), Some(&who.access)).expect(200)["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

/// The game as the log says, replayed by the rules, and its version.
fn game_now(srv: &TestServer, id: &str) -> (Game, i64) {
    let events = all_events(srv, id);
    let (settings, actions) = actions_of(&events);
    let (game, _) = Game::replay(settings, &actions).unwrap();
    (game, events.len() as i64)
}

/// The `n`-th legal move (wrapping) of the seat to move.
fn nth(game: &Game, n: usize) -> Move {
    let moves = game.position().legal_moves();
    moves[n % moves.len()]
}

/// Plays `plies` on a copy of `game` and writes them as a line's text.
fn line_of(game: &Game, plies: &[Move]) -> String {
    let mut g = game.clone();
    let mut words = Vec::new();
    for mv in plies {
        let seat = g.position().to_move().unwrap();
        words.push(format!("{seat} {}", g.position().move_text(mv)));
        g.apply(&Action::Move(*mv)).unwrap();
    }
    words.join(" ")
}

/// `count` plies from `game`, the `pick`-th legal move each time.
fn plies(game: &Game, count: usize, pick: usize) -> Vec<Move> {
    let mut g = game.clone();
    (0..count)
        .map(|i| {
            let mv = nth(&g, pick + i);
            g.apply(&Action::Move(mv)).unwrap();
            mv
        })
        .collect()
}

fn text_of(game: &Game, mv: &Move) -> String {
    game.position().move_text(mv).to_string()
}

/// Plays one move as the player of the seat to move; returns the new version.
#[track_caller]
fn play_one(srv: &TestServer, id: &str, players: &[Login], mv: &Move) -> i64 {
    let (game, v) = game_now(srv, id);
    let seat = game.position().to_move().unwrap();
    let who = &players[seat.index()];
    play(srv, who, id, json!(text_of(&game, mv)), v).expect(201)["version"]
        .as_i64()
        .unwrap()
}

fn feed(srv: &TestServer, who: &Login) -> Vec<Value> {
    srv.get("/v1/me/notifications?limit=100", Some(&who.access))
        .expect(200)["items"]
        .as_array()
        .unwrap()
        .clone()
}

fn kinds(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A started game with Red's first move played: Blue to move.
fn after_reds_move(srv: &TestServer, prefix: &str) -> (String, Vec<Login>) {
    let (id, p) = four_player_game(srv, prefix);
    let (game, _) = game_now(srv, &id);
    play_one(srv, &id, &p, &nth(&game, 3));
    (id, p)
}

/// One round: Red stores Blue, Yellow, Green's expected moves and its answer; when they
/// are played the answer is played at once through the write path, with Red as actor
/// and `conditional: true`; Red gets `conditional_played` instead of `your_turn`; the
/// tree is used up.
fn a_line_of_one_round_is_played(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c1");
    let (base, v) = game_now(&srv, &id);
    let line = plies(&base, 4, 1);
    let text = line_of(&base, &line);
    let stored = put_tree(&srv, &p[0], &id, "R", v, std::slice::from_ref(&text));
    let body = stored.expect(200);
    assert_eq!(body["lines"], json!([text]));
    assert_eq!(body["base_version"], v);
    assert_eq!(body["leaves"], 1);
    assert_eq!(tree_lines(&srv, &p[0], &id, "R"), vec![text.clone()]);
    for mv in &line[..3] {
        play_one(&srv, &id, &p, mv);
    }
    let v3 = v + 3;
    let events = wait_for("the conditional answer", || {
        let e = all_events(&srv, &id);
        (e.len() as i64 > v3).then_some(e)
    });
    let answer = &events[v3 as usize];
    assert_eq!(answer["kind"], "move_played");
    assert_eq!(answer["payload"]["seat"], "R");
    assert_eq!(answer["payload"]["conditional"], true);
    assert_eq!(answer["actor_id"], p[0].user_id.as_str());
    let words: Vec<&str> = text.split(' ').collect();
    assert_eq!(answer["payload"]["text"], words[7]);
    // Ordinary moves do not carry the mark.
    assert!(
        events[..v3 as usize]
            .iter()
            .all(|e| e["payload"].get("conditional").is_none())
    );
    check_log_replays(&srv, &id);
    assert_eq!(summary(&srv, &id)["to_move"], "B");
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty(), "used up");
    let red = wait_for("Red's notification", || {
        let f = feed(&srv, &p[0]);
        kinds(&f)
            .contains(&"conditional_played".into())
            .then_some(f)
    });
    let played = red
        .iter()
        .find(|i| i["kind"] == "conditional_played")
        .unwrap();
    assert_eq!(played["payload"]["move"], words[7]);
    // No `your_turn` for the turn the answer took: Red's only one is from the start.
    let turns = red.iter().filter(|i| i["kind"] == "your_turn").count();
    assert_eq!(turns, 1, "{:?}", kinds(&red));
    // Blue was told it is its turn after Red's answer.
    assert!(
        feed(&srv, &p[1])
            .iter()
            .any(|i| i["kind"] == "your_turn" && i["payload"]["version"] == v3 + 1)
    );
}

/// Two rounds: after the first answer the tree keeps the continuation, based after it;
/// the second answer follows.
fn a_line_of_two_rounds_keeps_its_continuation(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c2");
    let (base, v) = game_now(&srv, &id);
    let line = plies(&base, 8, 2);
    let text = line_of(&base, &line);
    put_tree(&srv, &p[0], &id, "R", v, std::slice::from_ref(&text)).expect(200);
    for mv in &line[..3] {
        play_one(&srv, &id, &p, mv);
    }
    wait_for("the first answer", || {
        (version(&srv, &id) == v + 4).then_some(())
    });
    let rest = srv
        .get(&path(&id, "R"), Some(&p[0].access))
        .expect(200)
        .clone();
    assert_eq!(rest["base_version"], v + 4);
    let words: Vec<&str> = text.split(' ').collect();
    assert_eq!(rest["lines"], json!([words[8..].join(" ")]));
    for mv in &line[4..7] {
        play_one(&srv, &id, &p, mv);
    }
    wait_for("the second answer", || {
        (version(&srv, &id) == v + 8).then_some(())
    });
    let events = all_events(&srv, &id);
    for i in [v + 4, v + 8] {
        assert_eq!(events[(i - 1) as usize]["payload"]["conditional"], true);
    }
    let (settings, actions) = actions_of(&events);
    let (after, _) = Game::replay(settings, &actions).unwrap();
    let mut expected = base.clone();
    for mv in &line {
        expected.apply(&Action::Move(*mv)).unwrap();
    }
    assert_eq!(after.position(), expected.position());
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
}

/// A move no line expected discards the tree, tells the player why, and leaves them
/// their ordinary turn.
fn a_mismatch_discards_the_tree(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c3");
    let (base, v) = game_now(&srv, &id);
    let a = plies(&base, 4, 1);
    let b = plies(&base, 4, 5);
    assert_ne!(a[0], b[0]);
    let lines = [line_of(&base, &a), line_of(&base, &b)];
    put_tree(&srv, &p[0], &id, "R", v, &lines).expect(200);
    let surprise = base
        .position()
        .legal_moves()
        .into_iter()
        .find(|m| *m != a[0] && *m != b[0])
        .unwrap();
    let said = format!("Blue played {}", text_of(&base, &surprise));
    play_one(&srv, &id, &p, &surprise);
    let note = wait_for("the discard", || {
        feed(&srv, &p[0])
            .into_iter()
            .find(|i| i["kind"] == "conditional_discarded")
    });
    assert_eq!(note["payload"]["because"], said.as_str());
    assert_eq!(note["payload"]["seat"], "R");
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
    // Yellow and Green play: Red gets its turn as usual, and nothing is played for it.
    let (g, _) = game_now(&srv, &id);
    let two = plies(&g, 2, 0);
    for mv in &two {
        play_one(&srv, &id, &p, mv);
    }
    let at = v + 3;
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(version(&srv, &id), at);
    assert!(
        feed(&srv, &p[0])
            .iter()
            .any(|i| i["kind"] == "your_turn" && i["payload"]["version"] == at)
    );
}

/// The last rival before Red's turn plays a move no line expected: the write that hands
/// Red the turn holds its `your_turn` back (Red has a tree), the pass discards the tree
/// and sends that `your_turn` once, and plays nothing.
fn a_mismatch_on_the_turn_sends_the_turn_once(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c9");
    let (base, v) = game_now(&srv, &id);
    let a = plies(&base, 4, 1);
    put_tree(&srv, &p[0], &id, "R", v, &[line_of(&base, &a)]).expect(200);
    play_one(&srv, &id, &p, &a[0]);
    play_one(&srv, &id, &p, &a[1]);
    let (g, _) = game_now(&srv, &id);
    let surprise = g
        .position()
        .legal_moves()
        .into_iter()
        .find(|m| *m != a[2])
        .unwrap();
    let at = play_one(&srv, &id, &p, &surprise);
    let note = wait_for("the discard", || {
        feed(&srv, &p[0])
            .into_iter()
            .find(|i| i["kind"] == "conditional_discarded")
    });
    assert_eq!(note["payload"]["version"], at);
    let turns = |srv: &TestServer| {
        feed(srv, &p[0])
            .iter()
            .filter(|i| i["kind"] == "your_turn" && i["payload"]["version"] == at)
            .cloned()
            .collect::<Vec<_>>()
    };
    let told = wait_for("Red's turn", || turns(&srv).pop());
    assert_eq!(told["payload"]["seat"], "R");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(turns(&srv).len(), 1);
    assert_eq!(version(&srv, &id), at);
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
}

/// A resignation inside a line changes the turn order: no line matches, the tree is
/// discarded; a timeout likewise.
fn a_resignation_or_a_timeout_changes_the_turn_order(backend: Backend) {
    let start = DateTime::parse_from_rfc3339("2031-03-01T12:00:00Z")
        .unwrap()
        .naive_utc();
    let clock = Arc::new(ManualClock::new(start));
    let srv = TestServer::start_with_clock(backend, &[FAST], clock.clone());
    let mut p: Vec<Login> = SEATS
        .iter()
        .map(|s| srv.user(&format!("c4_{}", s.to_lowercase())))
        .collect();
    for round in 0..2 {
        let game = create(
            &srv,
            &p[0],
            json!({"seats": 4, "seat": "R", "time_control": {"per_move_secs": 3600}}),
        );
        let id = game["id"].as_str().unwrap().to_string();
        for (i, seat) in SEATS.iter().enumerate().skip(1) {
            take_seat(&srv, &p[i], &id, seat).expect(200);
        }
        let (g, _) = game_now(&srv, &id);
        play_one(&srv, &id, &p, &nth(&g, 3));
        let (base, v) = game_now(&srv, &id);
        let line = plies(&base, 4, 1);
        put_tree(&srv, &p[0], &id, "R", v, &[line_of(&base, &line)]).expect(200);
        play_one(&srv, &id, &p, &line[0]);
        let because = if round == 0 {
            srv.post(
                &format!("/v1/games/{id}/resignation"),
                Some(&p[2].access),
                &json!({}),
            )
            .expect(201);
            "Yellow resigned"
        } else {
            clock.advance(TimeDelta::seconds(3601));
            // Access tokens age with the server's clock: an hour on, they have expired.
            p = srv.refresh_all(&p);
            wait_for("Yellow's timeout", || {
                all_events(&srv, &id)
                    .iter()
                    .any(|e| e["kind"] == "timed_out")
                    .then_some(())
            });
            "Yellow timed out"
        };
        let note = wait_for("the discard", || {
            feed(&srv, &p[0]).into_iter().find(|i| {
                i["kind"] == "conditional_discarded" && i["payload"]["game_id"] == id.as_str()
            })
        });
        assert_eq!(note["payload"]["because"], because);
        assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
        // Green plays the line's move anyway: Red is to move, nothing is played for it.
        let (now, _) = game_now(&srv, &id);
        assert_eq!(now.position().to_move(), Some(domain::Seat::Green));
        let v_now = play_one(&srv, &id, &p, &nth(&now, 0));
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(version(&srv, &id), v_now);
    }
}

/// The answer and the player's own move at the same version: exactly one is written,
/// every round.
fn a_race_with_a_manual_move_has_one_winner(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c5");
    let mut wins = (0, 0);
    for _ in 0..4 {
        let (base, v) = game_now(&srv, &id);
        assert_eq!(base.position().to_move(), Some(domain::Seat::Blue));
        let line = plies(&base, 4, 1);
        put_tree(&srv, &p[0], &id, "R", v, &[line_of(&base, &line)]).expect(200);
        for mv in &line[..3] {
            play_one(&srv, &id, &p, mv);
        }
        // Red's own, other move, at once, at the version of Red's turn.
        let at = v + 3;
        let mut g = base.clone();
        for mv in &line[..3] {
            g.apply(&Action::Move(*mv)).unwrap();
        }
        let own = g
            .position()
            .legal_moves()
            .into_iter()
            .find(|m| *m != line[3])
            .unwrap();
        let manual = play(&srv, &p[0], &id, json!(text_of(&g, &own)), at);
        wait_for("Red's move", || (version(&srv, &id) > at).then_some(()));
        std::thread::sleep(Duration::from_millis(200));
        let events = all_events(&srv, &id);
        assert_eq!(events.len() as i64, at + 1, "exactly one move for Red");
        let red = &events[at as usize];
        if manual.status == 201 {
            assert!(red["payload"].get("conditional").is_none());
            assert_eq!(red["payload"]["text"], text_of(&g, &own).as_str());
            wins.0 += 1;
        } else {
            manual.problem(412, "version-conflict");
            assert_eq!(red["payload"]["conditional"], true);
            wins.1 += 1;
        }
        // Used up, or discarded by Red's own other move.
        wait_for("no tree left", || {
            tree_lines(&srv, &p[0], &id, "R").is_empty().then_some(())
        });
        // Red's move made; back to Blue.
        check_log_replays(&srv, &id);
        let (g, _) = game_now(&srv, &id);
        if g.position().to_move() != Some(domain::Seat::Blue) {
            break;
        }
    }
    assert!(wins.0 + wins.1 >= 1);
}

/// Refused trees store nothing: each fault names the line and the ply; a stale or
/// missing version, another's seat, a game not started.
fn bad_trees_are_refused_and_nothing_is_stored(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c6");
    let (base, v) = game_now(&srv, &id);
    let good = line_of(&base, &plies(&base, 4, 1));
    let words: Vec<&str> = good.split(' ').collect();
    let cases = [
        // Green where Yellow is to move: line 2, ply 2.
        (
            vec![
                good.clone(),
                format!("{} {} G {}", words[0], words[1], words[5]),
            ],
            "lines[1]",
            "line 2, ply 2: Y is to move here",
        ),
        (
            vec!["B E5-E4 R C7-C6".to_string()],
            "lines[0]",
            "line 1, ply 1: E5-E4 is illegal here",
        ),
        (
            vec![words[..6].join(" ")],
            "lines[0]",
            "line 1, ply 3: a line ends with R's answer",
        ),
        (
            vec!["B".to_string()],
            "lines[0]",
            "line 1, ply 1: a move is missing",
        ),
        (vec![], "lines", "a tree holds at least one line"),
    ];
    for (lines, field, detail) in cases {
        let r = put_tree(&srv, &p[0], &id, "R", v, &lines);
        let problem = r.problem(400, "validation");
        assert!(
            problem["detail"].as_str().unwrap().starts_with(detail),
            "{problem}"
        );
        assert_eq!(r.error_fields(), vec![field.to_string()]);
        assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
    }
    let too_deep = line_of(&base, &plies(&base, 13, 0));
    let r = put_tree(&srv, &p[0], &id, "R", v, &[too_deep]);
    assert!(
        r.problem(400, "validation")["detail"]
            .as_str()
            .unwrap()
            .starts_with("line 1, ply 13:")
    );
    let many = vec![good.clone(); 65];
    put_tree(&srv, &p[0], &id, "R", v, &many).problem(400, "validation");
    // Stale and missing versions.
    put_tree(&srv, &p[0], &id, "R", v - 1, std::slice::from_ref(&good))
        .problem(412, "version-conflict");
    srv.send(
        srv.request(Method::PUT, &path(&id, "R"))
            .bearer_auth(&p[0].access)
            .json(&json!({ "lines": [good] })),
    )
    .problem(428, "precondition-required");
    // Another player's seat, on every method.
    put_tree(&srv, &p[1], &id, "R", v, std::slice::from_ref(&good)).problem(403, "forbidden");
    srv.get(&path(&id, "R"), Some(&p[1].access))
        .problem(403, "forbidden");
    srv.delete(&path(&id, "R"), Some(&p[1].access))
        .problem(403, "forbidden");
    srv.get(&path(&id, "R"), None).expect(401);
    // Blue is to move: its own tree must start with the others' moves.
    let blue = line_of(&base, &plies(&base, 5, 0));
    put_tree(&srv, &p[1], &id, "B", v, &[blue]).problem(400, "validation");
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
    // A good tree is stored, replaced, deleted.
    put_tree(&srv, &p[0], &id, "R", v, std::slice::from_ref(&good)).expect(200);
    let other = line_of(&base, &plies(&base, 4, 6));
    put_tree(&srv, &p[0], &id, "R", v, std::slice::from_ref(&other)).expect(200);
    assert_eq!(tree_lines(&srv, &p[0], &id, "R"), vec![other]);
    srv.delete(&path(&id, "R"), Some(&p[0].access)).expect(204);
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty());
    srv.delete(&path(&id, "R"), Some(&p[0].access)).expect(204);
    // The mail form is read too.
    let stored = put_tree(&srv, &p[0], &id, "R", v, &[mail_form(&good)]);
    assert_eq!(stored.expect(200)["lines"], json!([good]));
    // Not started.
    let open = create(&srv, &p[0], json!({"seats": 4, "seat": "R"}));
    let oid = open["id"].as_str().unwrap();
    put_tree(&srv, &p[0], oid, "R", 2, std::slice::from_ref(&good))
        .problem(409, "game-not-started");
}

/// Nobody but the seat's player sees the tree: not the other players, not spectators,
/// not the game's views, log, record or board; before the answer is played nothing of
/// the tree shows anywhere.
fn the_tree_is_private_on_every_read_path(backend: Backend) {
    let srv = TestServer::start_with(backend, &[FAST]);
    let (id, p) = after_reds_move(&srv, "c7");
    let (base, v) = game_now(&srv, &id);
    let line = plies(&base, 4, 1);
    let text = line_of(&base, &line);
    let before: Vec<String> = read_paths(&srv, &id, &p);
    put_tree(&srv, &p[0], &id, "R", v, std::slice::from_ref(&text)).expect(200);
    let after: Vec<String> = read_paths(&srv, &id, &p);
    assert_eq!(before, after, "storing a tree changes no read path");
    for page in &after {
        assert!(!page.contains("conditional"), "{page}");
    }
    for who in &p[1..] {
        srv.get(&path(&id, "R"), Some(&who.access))
            .problem(403, "forbidden");
        let feed = feed(&srv, who);
        assert!(!kinds(&feed).iter().any(|k| k.starts_with("conditional")));
    }
    // Red's own data export does not leak it to anyone else either; Red reads it.
    assert_eq!(tree_lines(&srv, &p[0], &id, "R"), vec![text]);
}

/// What a reader sees of a game: summary, state, events, record, board, legal moves,
/// the lobby, as a spectator and as each player.
fn read_paths(srv: &TestServer, id: &str, p: &[Login]) -> Vec<String> {
    let mut out = Vec::new();
    let paths = [
        format!("/v1/games/{id}"),
        format!("/v1/games/{id}/state"),
        format!("/v1/games/{id}/events?limit=100"),
        format!("/v1/games/{id}/record"),
        format!("/v1/games/{id}/board.svg"),
        format!("/v1/games/{id}/legal-moves"),
    ];
    for path in &paths {
        out.push(srv.get(path, None).text.clone());
        for who in p {
            out.push(srv.get(path, Some(&who.access)).text.clone());
        }
    }
    for who in p {
        out.push(srv.get("/v1/me/games", Some(&who.access)).text.clone());
    }
    out
}

/// The match is in the database: a tree whose line was played while no server ran
/// (stored here as the server stores it) is answered by the first server to start.
fn a_restart_between_the_match_and_the_move_loses_nothing(backend: Backend) {
    let db = FreshDatabase::new(backend);
    let (id, p, base, v, line) = {
        let srv = TestServer::start_on_with(&db, &[FAST], None);
        let (id, p) = after_reds_move(&srv, "c8");
        let (base, v) = game_now(&srv, &id);
        let line = plies(&base, 4, 1);
        for mv in &line[..3] {
            play_one(&srv, &id, &p, mv);
        }
        (id, p, base, v, line)
    };
    // While no server runs: the tree, built at `v`, as `PUT` would have stored it.
    let text = line_of(&base, &line);
    let actions = v - 6; // created, 4 seats, started
    exec(
        &db,
        &format!(
            "INSERT INTO conditional_moves (game_id, seat, user_id, base_version, base_actions, \
         checked_version, lines, revision, updated_at) VALUES ('{id}', 'R', '{}', {v}, \
         {actions}, {v}, '{text}', 1, '2030-01-01 00:00:00')",
            p[0].user_id
        ),
    );
    let srv = TestServer::start_on_with(&db, &[FAST], None);
    wait_for("the answer after the restart", || {
        (version(&srv, &id) == v + 4).then_some(())
    });
    let events = all_events(&srv, &id);
    assert_eq!(events[(v + 3) as usize]["payload"]["conditional"], true);
    assert_eq!(
        events[(v + 3) as usize]["payload"]["text"],
        text_of(
            &{
                let mut g = base.clone();
                for mv in &line[..3] {
                    g.apply(&Action::Move(*mv)).unwrap();
                }
                g
            },
            &line[3]
        )
        .as_str()
    );
    check_log_replays(&srv, &id);
}

/// A line of three rivals' plies and an answer (`B m Y m G m R m`, as [`line_of`] writes
/// it) in the mail's form: `if B m Y m G m then m`.
fn mail_form(line: &str) -> String {
    let w: Vec<&str> = line.split(' ').collect();
    format!(
        "if {} {} {} {} {} {} then {}",
        w[0], w[1], w[2], w[3], w[4], w[5], w[7]
    )
}

/// A game of four players verified by mail, Red's turn mail received: its reply address,
/// the game then, Red's move `own`, the position after it and a line of the rivals' four
/// plies from there (`line`, and `tree`, its mail form).
struct MailGame {
    sink: smtp_sink::SmtpSink,
    srv: TestServer,
    p: Vec<Login>,
    id: String,
    addr: String,
    start: Game,
    v: i64,
    own: Move,
    after: Game,
    line: Vec<Move>,
    /// The line in the mail's form: `if B G8-E6 Y H3-F5 G C2-D3 then C7-D7`.
    tree: String,
}

impl MailGame {
    /// Red replies to its turn mail with its move alone (`message`: the reply's id): played;
    /// the answer mail, which carries a reply address of its own.
    #[track_caller]
    fn play_own_by_mail(&self, message: &str) -> smtp_sink::Mail {
        let red = smtp_sink::address_of(&self.p[0]);
        let body = format!("{}\r\n", text_of(&self.start, &self.own));
        let reply = inbound::reply(&red, &self.addr, message, "", &body);
        assert_eq!(inbound::deliver(&self.srv, &reply), "played");
        self.sink.wait_for_subject(20, &red, "Played", 1)
    }
}

fn mail_game(backend: Backend, prefix: &str) -> MailGame {
    mail_game_every(backend, prefix, FAST.1)
}

/// [`mail_game`] with the due worker's pass every `interval` (and on game changes).
fn mail_game_every(backend: Backend, prefix: &str, interval: &'static str) -> MailGame {
    use smtp_sink::{SmtpSink, address_of as email};
    let sink = SmtpSink::start();
    let mut vars = sink.server_settings(&[
        ("DJAMBI_MAIL_DOMAIN", "play.djambi.example"),
        ("DJAMBI_MAIL_AUTH", "token"),
        ("DJAMBI_INBOUND_MAIL_SECRET", inbound::SECRET),
    ]);
    vars.push(("DJAMBI_DUE_INTERVAL", interval));
    let srv = TestServer::start_with(backend, &vars);
    let p = smtp_sink::verified_players(&srv, &sink, prefix);
    sink.clear();
    let id = seat_all(&srv, &p);
    let turn = sink.wait_for_subject(20, &email(&p[0]), "Your turn", 1);
    let addr = turn.header("reply-to").to_string();
    let (start, v) = game_now(&srv, &id);
    let own = nth(&start, 3);
    let mut after = start.clone();
    after.apply(&Action::Move(own)).unwrap();
    let line = plies(&after, 4, 1);
    let tree = mail_form(&line_of(&after, &line));
    MailGame {
        sink,
        srv,
        p,
        id,
        addr,
        start,
        v,
        own,
        after,
        line,
        tree,
    }
}

/// By mail: a reply to a turn mail whose first line is this turn's move and a line of
/// conditional moves plays the move, then stores the line (the answer mail says so) and
/// the line is answered like any tree; a line that does not hold is refused with its
/// ply named, and the move stands.
fn a_reply_by_mail_stores_a_line(backend: Backend) {
    use smtp_sink::address_of as email;
    let MailGame {
        sink,
        srv,
        p,
        id,
        addr,
        start,
        v,
        own,
        after,
        line,
        tree,
    } = mail_game(backend, "cm");
    let first = format!("{} {tree}", text_of(&start, &own).to_lowercase());
    let body = format!("{first}\r\n\r\n> quoted text of the turn mail");
    let outcome = inbound::deliver(&srv, &inbound::reply(&email(&p[0]), &addr, "c1", "", &body));
    assert_eq!(outcome, "played");
    assert_eq!(version(&srv, &id), v + 1);
    assert_eq!(
        tree_lines(&srv, &p[0], &id, "R"),
        vec![line_of(&after, &line)]
    );
    let answer = sink.wait_for_subject(20, &email(&p[0]), "Played", 1);
    assert!(
        answer.body.contains("Conditional moves stored: "),
        "{}",
        answer.body
    );
    for mv in &line[..3] {
        play_one(&srv, &id, &p, mv);
    }
    wait_for("the answer stored by mail", || {
        (version(&srv, &id) == v + 5).then_some(())
    });
    let events = all_events(&srv, &id);
    assert_eq!(events[(v + 4) as usize]["payload"]["conditional"], true);
    assert_eq!(events[(v + 4) as usize]["actor_id"], p[0].user_id.as_str());

    // Blue's turn mail: a move, and a line whose second ply names the wrong seat.
    let blue_turn = sink.wait_for_subject(20, &email(&p[1]), "Your turn", 2);
    let blue_addr = blue_turn.header("reply-to").to_string();
    let (g, v) = game_now(&srv, &id);
    let blue_move = nth(&g, 0);
    let mut after = g.clone();
    after.apply(&Action::Move(blue_move)).unwrap();
    let yellow = nth(&after, 0);
    let bad = format!(
        "{} if Y {} Y {} then {}",
        text_of(&g, &blue_move),
        text_of(&after, &yellow),
        text_of(&after, &yellow),
        text_of(&after, &yellow)
    );
    let outcome = inbound::deliver(
        &srv,
        &inbound::reply(&email(&p[1]), &blue_addr, "c2", "", &bad),
    );
    assert_eq!(outcome, "played", "the move stands");
    assert_eq!(version(&srv, &id), v + 1);
    assert!(tree_lines(&srv, &p[1], &id, "B").is_empty());
    let answer = sink.wait_for_subject(20, &email(&p[1]), "Played", 1);
    assert!(
        answer.body.contains(
            "Your conditional moves were not stored: line 1, ply 2: G is to move here, not Y"
        ),
        "{}",
        answer.body
    );
}

/// A reply of conditional moves only (`if B ... then ...`, no move first) answers a turn
/// mail, whose token holds only on the player's turn: a line starting with the rivals'
/// moves cannot start there. Refused with the form that works; nothing is played or
/// stored, a try is counted and the same address then plays a move and its line.
fn a_bare_line_by_mail_on_the_turn_is_refused(backend: Backend) {
    use smtp_sink::address_of as email;
    let MailGame {
        sink,
        srv,
        p,
        id,
        addr,
        start,
        v,
        own,
        after,
        line,
        tree,
    } = mail_game(backend, "cb");

    let outcome = inbound::deliver(
        &srv,
        &inbound::reply(&email(&p[0]), &addr, "b1", "", &format!("{tree}\r\n")),
    );
    assert_eq!(outcome, "error:conditional");
    assert_eq!(version(&srv, &id), v, "nothing played");
    assert!(
        tree_lines(&srv, &p[0], &id, "R").is_empty(),
        "nothing stored"
    );
    let answer = sink.wait_for_subject(20, &email(&p[0]), "Conditional moves", 1);
    for words in [
        format!("\u{201c}{tree}\u{201d} holds conditional moves only, but it is your turn"),
        "Write your move first, then the line, like C8-D7 if B".to_string(),
        "Nothing was played or stored.".to_string(),
        "answer the turn mail again".to_string(),
    ] {
        assert!(answer.body.contains(&words), "{words:?} in {}", answer.body);
    }

    // The same address then plays a move with that line after it.
    let body = format!("{} {tree}\r\n", text_of(&start, &own));
    let outcome = inbound::deliver(&srv, &inbound::reply(&email(&p[0]), &addr, "b2", "", &body));
    assert_eq!(outcome, "played");
    assert_eq!(version(&srv, &id), v + 1);
    assert_eq!(
        tree_lines(&srv, &p[0], &id, "R"),
        vec![line_of(&after, &line)]
    );
}

/// By mail, off the turn: the answer to a move by mail takes a reply, and a line alone
/// (`if ... then ...`) sent to it is stored from the position after the move, even when a
/// rival has moved since (matched against what was played since); the answer is played
/// when the line comes true, and the mail saying so takes a reply of its own. A line the
/// moves since contradict is refused at once, with the move that contradicts it.
fn a_line_by_mail_answers_the_played_mail(backend: Backend) {
    use smtp_sink::address_of as email;
    let g = mail_game(backend, "ca");
    let played = g.play_own_by_mail("a1");
    let MailGame {
        sink,
        srv,
        p,
        id,
        addr,
        v,
        after,
        line,
        tree,
        ..
    } = g;
    let red = email(&p[0]);
    // Red's conditional answers come by mail too.
    srv.send(
        srv.request(Method::PUT, "/v1/me/notification-settings")
            .bearer_auth(&p[0].access)
            .json(&json!({"kinds": {"conditional_played":
                {"feed": true, "email": true, "webhook": true, "push": false}}})),
    )
    .expect(200);
    let answer_addr = played.header("reply-to").to_string();
    assert!(answer_addr.starts_with("move+"), "{answer_addr:?}");
    assert_ne!(answer_addr, addr, "a reply address of its own");
    assert!(
        played
            .body
            .contains("To store conditional moves, reply to this mail"),
        "{}",
        played.body
    );

    // Blue moves as the line expects before Red's reply arrives.
    play_one(&srv, &id, &p, &line[0]);
    let outcome = inbound::deliver(
        &srv,
        &inbound::reply(&red, &answer_addr, "a2", "", &format!("{tree}\r\n")),
    );
    assert_eq!(outcome, "played", "stored");
    assert_eq!(version(&srv, &id), v + 2, "nothing played by the reply");
    assert_eq!(
        tree_lines(&srv, &p[0], &id, "R"),
        vec![line_of(&after, &line)]
    );
    let stored = sink.wait_for_subject(20, &red, "Conditional moves", 1);
    for words in [
        "Conditional moves stored: ",
        "The game has moved on since the mail you answered",
    ] {
        assert!(stored.body.contains(words), "{words:?} in {}", stored.body);
    }
    for mv in &line[1..3] {
        play_one(&srv, &id, &p, mv);
    }
    wait_for("the answer stored by a reply to the answer", || {
        (version(&srv, &id) == v + 5).then_some(())
    });
    let events = all_events(&srv, &id);
    assert_eq!(events[(v + 4) as usize]["payload"]["conditional"], true);
    assert_eq!(events[(v + 4) as usize]["actor_id"], p[0].user_id.as_str());
    assert!(tree_lines(&srv, &p[0], &id, "R").is_empty(), "used up");

    // The mail of the answer played takes a line too; Blue then moves against it.
    let told = sink.wait_for_subject(20, &red, "Your conditional move was played", 1);
    let told_addr = told.header("reply-to").to_string();
    assert!(told_addr.starts_with("move+"), "{told_addr:?}");
    assert!(
        told.body.contains("Conditional moves by mail: reply to"),
        "{}",
        told.body
    );
    let (now, _) = game_now(&srv, &id);
    let expected = plies(&now, 4, 1);
    let other = plies(&now, 1, 2)[0];
    assert_ne!(other, expected[0]);
    play_one(&srv, &id, &p, &other);
    let late = mail_form(&line_of(&now, &expected));
    let outcome = inbound::deliver(
        &srv,
        &inbound::reply(&red, &told_addr, "a3", "", &format!("{late}\r\n")),
    );
    assert_eq!(outcome, "error:conditional");
    assert!(
        tree_lines(&srv, &p[0], &id, "R").is_empty(),
        "nothing stored"
    );
    let refused = sink.wait_for_subject(20, &red, "Conditional moves", 2);
    let blue_move = format!("Blue played {}", text_of(&now, &other));
    assert!(
        refused.body.contains(&blue_move) && refused.body.contains("which no line expected"),
        "{blue_move:?} in {}",
        refused.body
    );
}

/// A line by mail reaching a turn already told: the rivals played the whole line before
/// Red's reply stored it, so Red's `your_turn` went out with no tree to hold it back.
/// Deleting the tree before the pass answers it leaves that turn told once (the deletion
/// sends the turn a tree held back, and this one was not), and nothing is played.
fn a_line_by_mail_on_a_turn_already_told_is_told_once(backend: Backend) {
    use smtp_sink::address_of as email;
    let g = mail_game_every(backend, "ct", "1h");
    let played = g.play_own_by_mail("t1");
    let MailGame {
        srv,
        p,
        id,
        v,
        line,
        tree,
        ..
    } = g;
    let red = email(&p[0]);
    let answer_addr = played.header("reply-to").to_string();
    for mv in &line[..3] {
        play_one(&srv, &id, &p, mv);
    }
    let turns = |items: &[Value]| {
        items
            .iter()
            .filter(|i| i["kind"] == "your_turn" && i["payload"]["version"] == v + 4)
            .count()
    };
    wait_for("Red's turn told", || {
        (turns(&feed(&srv, &p[0])) == 1).then_some(())
    });
    // The passes the rivals' moves woke are over (one at most every 100 ms); storing a
    // tree wakes none, and the next on the clock is an hour away.
    std::thread::sleep(Duration::from_millis(500));
    let outcome = inbound::deliver(
        &srv,
        &inbound::reply(&red, &answer_addr, "t2", "", &format!("{tree}\r\n")),
    );
    assert_eq!(outcome, "played", "stored");
    assert_eq!(tree_lines(&srv, &p[0], &id, "R").len(), 1);
    srv.delete(&path(&id, "R"), Some(&p[0].access)).expect(204);
    assert_eq!(version(&srv, &id), v + 4, "nothing played");
    assert_eq!(turns(&feed(&srv, &p[0])), 1, "the turn told once");
}

/// Runs one statement on the test database (no server running).
fn exec(db: &FreshDatabase, sql: &str) {
    use diesel::{Connection, RunQueryDsl};
    match db.backend {
        Backend::Postgres => {
            let mut c = diesel::PgConnection::establish(&db.url).unwrap();
            diesel::sql_query(sql).execute(&mut c).unwrap();
        }
        Backend::Sqlite => {
            let mut c = diesel::SqliteConnection::establish(db.url.trim_start_matches("sqlite://"))
                .unwrap();
            diesel::sql_query("PRAGMA busy_timeout = 10000")
                .execute(&mut c)
                .unwrap();
            diesel::sql_query(sql).execute(&mut c).unwrap();
        }
    }
}

backend_tests!(
    a_line_of_one_round_is_played,
    a_line_of_two_rounds_keeps_its_continuation,
    a_mismatch_discards_the_tree,
    a_mismatch_on_the_turn_sends_the_turn_once,
    a_resignation_or_a_timeout_changes_the_turn_order,
    a_race_with_a_manual_move_has_one_winner,
    bad_trees_are_refused_and_nothing_is_stored,
    the_tree_is_private_on_every_read_path,
    a_restart_between_the_match_and_the_move_loses_nothing,
    a_reply_by_mail_stores_a_line,
    a_bare_line_by_mail_on_the_turn_is_refused,
    a_line_by_mail_answers_the_played_mail,
    a_line_by_mail_on_a_turn_already_told_is_told_once,
);
