//! The web client's game page in a real browser: the server on PostgreSQL, then headless
//! Chromium (`tests/browser/play_test.py`, see `tests/browser/README.md`) with four
//! isolated sessions that sign up, create and join a game in the lobby and play it by
//! clicking, through the choice dialogs, the text box and a stale page, to the end by
//! resignations clicked in the page; every page is checked with axe-core (no WCAG 2.1 A or
//! AA violation), for errors in its console, and the board in Chromium's accessibility
//! tree. Chromium is installed by `scripts/ensure-chromium.sh` when missing (axe-core by
//! `scripts/ensure-axe.sh`); if it cannot be, this test FAILS.
//!
//! The moves are planned here with the rules crate: random play from the start, steered
//! (a chief goes to the maze when it can; an exit from the maze or a placement is taken
//! when one is legal) until the plan holds a placement move and a maze move. The page has
//! to play each of them through its dialogs. The game is created with a rule variant ticked
//! in the lobby (`two_seat_bonus=off`); the game page must name it.

use djambi_e2e::{Backend, Rng, TestServer, run_browser_driver};
use domain::{Kind, Position, Ruleset, SeatSet, Square};

/// A sequence of legal moves from the four-seat start that includes a placement and an
/// exit from the maze, as canonical texts; `None` when this seed does not get there.
fn plan(seed: u64, max_plies: usize) -> Option<Vec<String>> {
    let maze: Square = "E5".parse().ok()?;
    // The lobby creates the game with `two_seat_bonus=off` (the page names the variant).
    let ruleset: Ruleset = "two_seat_bonus=off".parse().ok()?;
    let mut pos = Position::start_with(SeatSet::ALL, ruleset).ok()?;
    let mut rng = Rng::new(seed);
    let (mut placed, mut exited) = (false, false);
    let mut texts = Vec::new();
    for _ in 0..max_plies {
        if pos.is_over() {
            return None;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let exits: Vec<_> = moves.iter().filter(|m| m.exit.is_some()).collect();
        let places: Vec<_> = moves
            .iter()
            .filter(|m| m.place.is_some() && m.exit.is_none())
            .collect();
        let to_maze: Vec<_> = moves
            .iter()
            .filter(|m| {
                m.to == maze
                    && pos
                        .board()
                        .get(m.from)
                        .is_some_and(|p| p.kind == Kind::Chief)
            })
            .collect();
        let mv = if !exits.is_empty() && !exited {
            exited = true;
            *exits[rng.below(exits.len())]
        } else if !places.is_empty() && !placed && rng.below(2) == 0 {
            placed = true;
            *places[rng.below(places.len())]
        } else if !to_maze.is_empty() && !exited {
            *to_maze[rng.below(to_maze.len())]
        } else {
            // No placements by chance: the dialogs are tried on purpose above.
            let plain: Vec<_> = moves
                .iter()
                .filter(|m| m.place.is_none() && m.exit.is_none())
                .collect();
            if plain.is_empty() {
                moves[rng.below(moves.len())]
            } else {
                *plain[rng.below(plain.len())]
            }
        };
        if mv.place.is_some() {
            placed = true;
        }
        texts.push(pos.move_text(&mv).to_string());
        pos = pos.play(&mv).ok()?;
        if placed && exited {
            return Some(texts);
        }
    }
    None
}

#[test]
fn four_players_play_a_game_by_clicking_in_chromium() {
    play_in("en", "play");
}

/// The same game in French: the players choose French at sign-up, every page they see
/// speaks it (the texts the driver waits for are French), and one of them changes to
/// Spanish and Madrid time on the settings page.
#[test]
fn four_players_play_a_game_in_french() {
    play_in("fr", "play-fr");
}

fn play_in(lang: &str, artifacts: &str) {
    let root = djambi_e2e::repo_root();
    let moves = (0..3000u64)
        .filter_map(|seed| plan(seed, 40))
        .min_by_key(Vec::len)
        .expect("a plan with a placement and a maze exit within 40 plies");
    eprintln!("plan ({} moves): {}", moves.len(), moves.join(" "));

    let srv = TestServer::start_with(Backend::Postgres, &[("DJAMBI_NOTIFY_POLL", "200ms")]);
    let outdir = root.join("target/test-artifacts").join(artifacts);
    let moves = moves.join(",");
    let outdir_text = outdir.to_string_lossy();
    let stdout = run_browser_driver(
        "play_test.py",
        &[&srv.base, &outdir_text, "--moves", &moves, "--lang", lang],
    );
    for shot in [
        "play.png",
        "play-dialog.png",
        "play-stale.png",
        "play-phone.png",
        "play-end.png",
        "lobby-phone.png",
    ] {
        assert!(outdir.join(shot).is_file(), "{shot}");
    }
    eprintln!("{stdout}");
}
