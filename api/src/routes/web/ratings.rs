//! `/players/{username}` (a player's rating, places, recent rated games and the rating
//! history chart) and `/leaderboard` (players by rating, `?after=` paged,
//! `?active_days=`): public pages rendered by the server, no script needed.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::chart::history_svg;
use super::{page, reader, viewer};
use crate::error::ApiError;
use crate::i18n::{Arg, Lang, t, tr};
use crate::ratings::read::{self, RatingReadError, decode_cursor, encode_cursor, provisional};
use crate::routes::players::{PlayerView, RatingView};
use crate::routes::web::page::{escape_html, not_found_page};
use crate::state::AppState;

/// Players listed per leaderboard page.
const BOARD_PAGE: i64 = 50;

fn rating_text(lang: Lang, r: &RatingView) -> String {
    let shown = crate::i18n::decimal(lang, r.rating, 1);
    if r.provisional {
        format!("{shown}?")
    } else {
        shown
    }
}

pub async fn player_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let v = viewer(&req, &app).await?;
    let found = if name.is_empty() || name.len() > 64 {
        Err(RatingReadError::NoPlayer(name))
    } else {
        read::player(&app.pool, name, v.as_ref().map(|v| v.user_id.clone())).await
    };
    let r = reader(&req, v.as_ref());
    let lang = r.lang;
    let p = match found {
        Ok(p) => PlayerView::of(&p),
        Err(RatingReadError::NoPlayer(_)) => {
            return Ok(not_found_page(lang, "page-no-such-player"));
        }
        Err(e) => return Err(e.into()),
    };
    let esc = |id: &str, args: &[(&str, Arg)]| escape_html(&tr(lang, id, args));
    let user = escape_html(&p.username);
    let line = esc(
        if p.rating.provisional {
            "rating-line-provisional"
        } else {
            "rating-line"
        },
        &[
            ("mu", Arg::Decimal(p.rating.mu, 2)),
            ("sigma", Arg::Decimal(p.rating.sigma, 2)),
            ("games", p.games.into()),
            ("wins", p.wins.into()),
        ],
    );
    let mut main = format!(
        "<h1>{user}</h1>\n<p class=\"rating-line\">{} <strong>{}</strong> {line}</p>\n",
        esc("rating-rating", &[]),
        rating_text(lang, &p.rating),
    );
    let history: Vec<f64> = p.rating_history.iter().map(|h| h.rating).collect();
    main.push_str("<figure class=\"rating-history\">");
    main.push_str(&history_svg(
        &history,
        &tr(
            lang,
            "rating-history",
            &[("player", p.username.as_str().into())],
        ),
        &t(lang, "rating-chart-empty"),
    ));
    main.push_str(&format!(
        "<figcaption>{}</figcaption></figure>\n",
        esc("rating-history-caption", &[])
    ));
    if !p.places.is_empty() {
        main.push_str(&format!(
            "<h2>{}</h2><ul class=\"places\">",
            esc("rating-places", &[])
        ));
        for pl in &p.places {
            main.push_str(&format!(
                "<li>{}</li>",
                esc(
                    "rating-place-games",
                    &[
                        ("place", i64::from(pl.place).into()),
                        ("games", pl.games.into())
                    ]
                )
            ));
        }
        main.push_str("</ul>\n");
    }
    main.push_str(&format!("<h2>{}</h2>", esc("rating-recent", &[])));
    if p.recent_games.is_empty() {
        main.push_str(&format!("<p>{}</p>", esc("rating-no-games", &[])));
    } else {
        main.push_str(&format!(
            "<table class=\"rated-games\"><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
            esc("rating-col-game", &[]),
            esc("rating-col-ended", &[]),
            esc("rating-col-place", &[]),
            esc("rating-rating", &[]),
        ));
        for g in &p.recent_games {
            // An invite-only game the reader did not play: listed, but neither named
            // nor linked (its id opens it).
            let game = match &g.game_id {
                Some(id) => {
                    let short: String = id.as_str().chars().take(8).collect();
                    format!(
                        "<a href=\"/games/{}\">{}</a>",
                        escape_html(id.as_str()),
                        escape_html(&short)
                    )
                }
                None => esc("rating-unlisted-game", &[]),
            };
            main.push_str(&format!(
                "<tr><td>{game}</td><td>{}</td><td>{}</td><td>{} → {}</td></tr>",
                escape_html(&crate::i18n::date(
                    lang,
                    g.ended_at.with_timezone(&r.zone).date_naive()
                )),
                esc(
                    "rating-place-of",
                    &[
                        ("place", i64::from(g.place).into()),
                        ("players", i64::from(g.players).into())
                    ]
                ),
                crate::i18n::decimal(lang, g.rating_before, 1),
                crate::i18n::decimal(lang, g.rating_after, 1)
            ));
        }
        main.push_str("</tbody></table>");
    }
    main.push_str(&format!(
        "\n<p><a href=\"/leaderboard\">{}</a></p>",
        esc("rating-to-leaderboard", &[])
    ));
    Ok(page("player", &p.username, &main, v.as_ref(), "", &r))
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
    let r = reader(&req, v.as_ref());
    let lang = r.lang;
    let days = active_days
        .map(|d| format!("&amp;active_days={d}"))
        .unwrap_or_default();
    let esc = |id: &str| escape_html(&t(lang, id));
    let mut main = format!(
        "<h1>{}</h1>\n<p>{} <a href=\"/leaderboard?active_days=30\">{}</a>, <a href=\"/leaderboard?active_days=365\">{}</a>, <a href=\"/leaderboard\">{}</a>.</p>\n",
        esc("page-nav-leaderboard"),
        esc("board-intro"),
        esc("board-30-days"),
        esc("board-year"),
        esc("board-all"),
    );
    if rows.is_empty() {
        main.push_str(&format!("<p>{}</p>", esc("board-empty")));
    } else {
        main.push_str(&format!(
            "<table class=\"leaderboard\"><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
            esc("board-col-player"),
            esc("rating-rating"),
            esc("board-col-games"),
            esc("board-col-wins"),
        ));
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
                rating_text(lang, &r),
                row.games,
                row.wins
            ));
        }
        main.push_str("</tbody></table>");
    }
    if more {
        if let Some((row, _)) = rows.last() {
            main.push_str(&format!(
                "<p><a rel=\"next\" href=\"/leaderboard?after={}{days}\">{}</a></p>",
                encode_cursor(row.rating, &row.user_id),
                esc("board-next")
            ));
        }
    }
    Ok(page(
        "leaderboard",
        &t(lang, "page-nav-leaderboard"),
        &main,
        v.as_ref(),
        "",
        &r,
    ))
}

/// The leaderboard page's query: as the API's, but a bad value is ignored.
#[derive(Debug, Deserialize)]
pub struct BoardQuery {
    pub active_days: Option<String>,
    pub after: Option<String>,
}
