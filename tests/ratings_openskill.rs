//! The server's rating model (`djambi_api::ratings::model`) against an independent
//! implementation: openskill 6.2.0 for Python, its `PlackettLuce` model, on random three-
//! and four-player games with random priors and shared places. The virtual environment
//! comes from `scripts/openskill-venv.sh` (made once, pinned).

use std::process::Command;

use djambi_api::ratings::model::{Skill, rate};
use serde_json::Value;

const GAMES: usize = 500;
const TOLERANCE: f64 = 1e-9;

#[test]
fn plackett_luce_agrees_with_openskill() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let venv = Command::new(format!("{root}/scripts/openskill-venv.sh"))
        .output()
        .expect("scripts/openskill-venv.sh runs");
    assert!(
        venv.status.success(),
        "could not make the openskill venv: {}",
        String::from_utf8_lossy(&venv.stderr)
    );
    let python = String::from_utf8(venv.stdout).unwrap().trim().to_string();
    let out = Command::new(&python)
        .arg(format!("{root}/tests/ratings/openskill_reference.py"))
        .args(["20261201", &GAMES.to_string()])
        .output()
        .expect("the reference script runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(games.len(), GAMES);
    let pair = |v: &Value| Skill {
        mu: v[0].as_f64().unwrap(),
        sigma: v[1].as_f64().unwrap(),
    };
    let mut worst = 0.0f64;
    let mut ties = 0;
    for (g, game) in games.iter().enumerate() {
        let before: Vec<Skill> = game["before"]
            .as_array()
            .unwrap()
            .iter()
            .map(pair)
            .collect();
        let ranks: Vec<usize> = game["ranks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_u64().unwrap() as usize)
            .collect();
        let mut sorted = ranks.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() < ranks.len() {
            ties += 1;
        }
        let expected: Vec<Skill> = game["after"].as_array().unwrap().iter().map(pair).collect();
        let got = rate(&before, &ranks);
        for (i, (e, o)) in expected.iter().zip(&got).enumerate() {
            let d = (e.mu - o.mu).abs().max((e.sigma - o.sigma).abs());
            worst = worst.max(d);
            assert!(
                d < TOLERANCE,
                "game {g} player {i}: openskill {e:?}, ours {o:?} (ranks {ranks:?})"
            );
        }
    }
    assert!(
        ties > GAMES / 4,
        "the sample should hold shared places: {ties}"
    );
    println!("{GAMES} games ({ties} with shared places): largest difference {worst:e}");
}
