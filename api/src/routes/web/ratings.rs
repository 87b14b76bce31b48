//! `/players/{username}` (a player's rating, places, recent rated games and the rating
//! history chart) and `/leaderboard` (players by rating, `?after=` paged,
//! `?active_days=`): public pages rendered by the server, no script needed.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::chart::history_svg;
use super::{page, viewer};
use crate::error::ApiError;
use crate::ratings::read::{self, RatingReadError, decode_cursor, encode_cursor, provisional};
use crate::routes::pages::{escape_html, not_found_page};
use crate::routes::players::{PlayerView, RatingView};
use crate::state::AppState;

/// Players listed per leaderboard page.
const BOARD_PAGE: i64 = 50;

fn rating_text(r: &RatingView) -> String {
    if r.provisional {
        format!("{:.1}?", r.rating)
    } else {
        format!("{:.1}", r.rating)
    }
}

pub async fn player_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let found = if name.is_empty() || name.len() > 64 {
        Err(RatingReadError::NoPlayer(name))
    } else {
        read::player(&app.pool, name).await
    };
    let p = match found {
        Ok(p) => PlayerView::of(&p),
        Err(RatingReadError::NoPlayer(_)) => return Ok(not_found_page("There is no such player.")),
        Err(e) => return Err(e.into()),
    };
    let v = viewer(&req, &app).await?;
    let user = escape_html(&p.username);
    let mut main = format!(
        "<h1>{user}</h1>\n<p class=\"rating-line\">Rating <strong>{}</strong> (μ {:.2}, σ {:.2}){} · {} rated games · {} wins</p>\n",
        rating_text(&p.rating),
        p.rating.mu,
        p.rating.sigma,
        if p.rating.provisional {
            " — provisional"
        } else {
            ""
        },
        p.games,
        p.wins
    );
    let history: Vec<f64> = p.rating_history.iter().map(|h| h.rating).collect();
    main.push_str("<figure class=\"rating-history\">");
    main.push_str(&history_svg(
        &history,
        &format!("Rating history of {}", p.username),
    ));
    main.push_str("<figcaption>Rating after each rated game</figcaption></figure>\n");
    if !p.places.is_empty() {
        main.push_str("<h2>Places</h2><ul class=\"places\">");
        for pl in &p.places {
            main.push_str(&format!(
                "<li>{}: {} games</li>",
                ordinal(pl.place),
                pl.games
            ));
        }
        main.push_str("</ul>\n");
    }
    main.push_str("<h2>Recent rated games</h2>");
    if p.recent_games.is_empty() {
        main.push_str("<p>No rated game finished yet.</p>");
    } else {
        main.push_str("<table class=\"rated-games\"><thead><tr><th>Game</th><th>Ended</th><th>Place</th><th>Rating</th></tr></thead><tbody>");
        for g in &p.recent_games {
            let id = escape_html(&g.game_id);
            let short: String = g.game_id.chars().take(8).collect();
            main.push_str(&format!(
                "<tr><td><a href=\"/games/{id}\">{}</a></td><td>{}</td><td>{} of {}</td><td>{:.1} → {:.1}</td></tr>",
                escape_html(&short),
                g.ended_at.format("%Y-%m-%d"),
                ordinal(g.place),
                g.players,
                g.rating_before,
                g.rating_after
            ));
        }
        main.push_str("</tbody></table>");
    }
    main.push_str("\n<p><a href=\"/leaderboard\">The leaderboard</a></p>");
    Ok(page("player", &p.username, &main, v.as_ref(), ""))
}

fn ordinal(n: i32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

pub async fn leaderboard_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    query: web::Query<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let active_days = q
        .active_days
        .and_then(|d| d.parse::<u32>().ok())
        .filter(|d| (1..=crate::routes::players::MAX_ACTIVE_DAYS).contains(d));
    let after = q.after.as_deref().and_then(decode_cursor);
    let now = app.clock.now();
    let mut rows = read::leaderboard(&app.pool, after, active_days, now, BOARD_PAGE + 1).await?;
    let more = rows.len() > BOARD_PAGE as usize;
    rows.truncate(BOARD_PAGE as usize);
    let v = viewer(&req, &app).await?;
    let days = active_days
        .map(|d| format!("&amp;active_days={d}"))
        .unwrap_or_default();
    let mut main = String::from(
        "<h1>Leaderboard</h1>\n<p>Rated games only; the rating is μ − 3σ, a “?” marks a provisional one. Show players active in the last <a href=\"/leaderboard?active_days=30\">30 days</a>, <a href=\"/leaderboard?active_days=365\">year</a>, or <a href=\"/leaderboard\">all</a>.</p>\n",
    );
    if rows.is_empty() {
        main.push_str("<p>No rated players yet.</p>");
    } else {
        main.push_str("<table class=\"leaderboard\"><thead><tr><th>Player</th><th>Rating</th><th>Games</th><th>Wins</th></tr></thead><tbody>");
        for (row, username) in &rows {
            let r = RatingView {
                rating: row.rating,
                mu: row.mu,
                sigma: row.sigma,
                provisional: provisional(row),
            };
            let name = escape_html(username);
            let link: String = url::form_urlencoded::byte_serialize(username.as_bytes()).collect();
            main.push_str(&format!(
                "<tr><td><a href=\"/players/{link}\">{name}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                rating_text(&r),
                row.games,
                row.wins
            ));
        }
        main.push_str("</tbody></table>");
    }
    if more {
        if let Some((row, _)) = rows.last() {
            main.push_str(&format!(
                "<p><a rel=\"next\" href=\"/leaderboard?after={}{days}\">Next page</a></p>",
                encode_cursor(row.rating, &row.user_id)
            ));
        }
    }
    Ok(page("leaderboard", "Leaderboard", &main, v.as_ref(), ""))
}

/// The leaderboard page's query: as the API's, but a bad value is ignored.
#[derive(Debug, Deserialize)]
pub struct BoardQuery {
    pub active_days: Option<String>,
    pub after: Option<String>,
}
