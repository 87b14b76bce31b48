//! The tournament pages: in three languages over HTTP (the list, an event's standings,
//! crosstable and links to every game, the page of an unknown event), then in headless
//! Chromium (`tests/browser/tournaments_test.py`): by keyboard, axe-core clean, no
//! console error. Chromium is installed by `scripts/ensure-chromium.sh` when missing; if
//! it cannot be, this test FAILS.

use std::time::{Duration, Instant};

use djambi_e2e::{Backend, TestServer, json, run_browser_driver};
use reqwest::Method;

fn page(srv: &TestServer, path: &str, lang: &str) -> (u16, String) {
    let r = srv.send(
        srv.request(Method::GET, path)
            .header("Accept-Language", lang),
    );
    (r.status.as_u16(), r.text.clone())
}

#[test]
fn the_tournament_pages_speak_three_languages_and_pass_axe() {
    let root = djambi_e2e::repo_root();
    let srv = TestServer::start_with(Backend::Postgres, &[("DJAMBI_DUE_INTERVAL", "30ms")]);
    let players: Vec<_> = (0..4).map(|i| srv.user(&format!("page{i}"))).collect();
    let created = srv.post(
        "/v1/tournaments",
        Some(&players[0].access),
        &json!({"name": "Section <B>", "format": "round_robin", "capacity": 4,
                "time_control": {"per_move_secs": 259200}}),
    );
    let id = created.expect(201)["id"].as_str().unwrap().to_string();
    for p in &players {
        srv.send(
            srv.request(Method::PUT, &format!("/v1/tournaments/{id}/players/me"))
                .bearer_auth(&p.access),
        )
        .expect(200);
    }
    // Round 1 ends by resignations: Red, then Blue, then Yellow resign.
    let e = srv
        .get(&format!("/v1/tournaments/{id}"), None)
        .expect(200)
        .clone();
    let table = &e["rounds_played"][0]["tables"][0];
    let game = table["game_id"].as_str().unwrap().to_string();
    for seat in &table["seats"].as_array().unwrap()[..3] {
        let who = players
            .iter()
            .find(|p| seat["username"] == p.username.as_str())
            .unwrap();
        srv.post(
            &format!("/v1/games/{game}/resignation"),
            Some(&who.access),
            &json!({}),
        )
        .expect(201);
    }
    let start = Instant::now();
    while srv.get(&format!("/v1/tournaments/{id}"), None).expect(200)["rounds_played"]
        .as_array()
        .unwrap()
        .len()
        < 2
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "round 2 never came"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for (lang, list_title, standings, crosstable, seats) in [
        (
            "en",
            "Tournaments",
            "Standings",
            "Crosstable",
            "4 seats a table",
        ),
        (
            "fr",
            "Tournois",
            "Classement",
            "Grille croisée",
            "4 places par table",
        ),
        (
            "es",
            "Torneos",
            "Clasificación",
            "Tabla cruzada",
            "4 asientos por mesa",
        ),
    ] {
        let (status, html) = page(&srv, "/tournaments", lang);
        assert_eq!(status, 200);
        assert!(
            html.contains(&format!("<h1>{list_title}</h1>")),
            "{lang}: {html}"
        );
        assert!(html.contains(&format!("href=\"/tournaments/{id}\"")));
        // The name is escaped.
        assert!(html.contains("Section &lt;B&gt;") && !html.contains("<B>"));
        let (status, html) = page(&srv, &format!("/tournaments/{id}"), lang);
        assert_eq!(status, 200);
        assert!(
            html.contains(standings) && html.contains(crosstable),
            "{lang}: {html}"
        );
        // The seats per table the organiser chose (4 when it did not say).
        assert!(html.contains(seats), "{lang}: {html}");
        assert!(html.contains(&format!("href=\"/games/{game}\"")));
        assert!(html.contains(&format!("href=\"/games/{id}-r2-t1\"")));
        // The winner of round 1 leads with 3 points.
        let winner = table["seats"][3]["username"].as_str().unwrap();
        let first_row = html.split("<tbody>").nth(1).unwrap();
        assert!(first_row.split("</tr>").next().unwrap().contains(winner));
        let (status, html) = page(&srv, "/tournaments/no-such-event", lang);
        assert_eq!(status, 404, "{html}");
    }
    let outdir = root.join("target/test-artifacts/tournaments");
    let out = run_browser_driver(
        "tournaments_test.py",
        &[&srv.base, &outdir.to_string_lossy()],
    );
    assert!(out.contains("ok: the tournament pages pass axe"), "{out}");
}
