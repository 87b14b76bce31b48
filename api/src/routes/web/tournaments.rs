//! `/tournaments` (the events, newest first) and `/tournaments/{id}` (an event's
//! standings, crosstable and rounds, with a link to every game): public pages rendered
//! by the server, no script needed.

use std::collections::HashMap;

use actix_web::{HttpRequest, HttpResponse, web};

use super::{page, reader, viewer};
use crate::error::ApiError;
use crate::i18n::{Arg, Lang, t, tr};
use crate::routes::web::page::{escape_html, not_found_page};
use crate::state::AppState;
use crate::tournaments::command::TournamentError;
use crate::tournaments::log::{Format, Status};
use crate::tournaments::queries;

/// Events listed on the page.
const LIST: i64 = 100;

fn points(lang: Lang, halves: u32) -> String {
    crate::i18n::decimal(lang, f64::from(halves) / 2.0, 1)
}

fn player_link(name: &str) -> String {
    let link: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
    format!("<a href=\"/players/{link}\">{}</a>", escape_html(name))
}

pub async fn list_page(
    req: HttpRequest,
    app: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let (rows, names) = queries::list(&app.pool, None, LIST, 0).await?;
    let v = viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let lang = r.lang;
    let esc = |id: &str| escape_html(&t(lang, id));
    let mut main = format!(
        "<h1>{}</h1>\n<p>{}</p>\n",
        esc("page-nav-tournaments"),
        esc("tour-intro")
    );
    if rows.is_empty() {
        main.push_str(&format!("<p>{}</p>", esc("tour-none")));
    } else {
        main.push_str(&format!(
            "<table class=\"tournaments\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
            esc("tour-col-event"),
            esc("tour-col-organiser"),
            esc("tour-col-format"),
            esc("tour-col-status"),
            esc("tour-col-players"),
        ));
        for row in &rows {
            let organiser = names.get(&row.organiser_id).cloned().unwrap_or_default();
            main.push_str(&format!(
                "<tr><td><a href=\"/tournaments/{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{} / {}</td></tr>",
                escape_html(row.id.as_str()),
                escape_html(&row.name),
                escape_html(&organiser),
                esc(&format!("tour-format-{}", row.format)),
                esc(&format!("tour-status-{}", row.status)),
                row.players,
                row.capacity
            ));
        }
        main.push_str("</tbody></table>");
    }
    Ok(page(
        "tournaments",
        &t(lang, "page-nav-tournaments"),
        &main,
        v.as_ref(),
        "",
        &r,
    ))
}

pub async fn event_page(
    req: HttpRequest,
    app: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let v = viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let lang = r.lang;
    let valid = !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let d = if valid {
        match queries::get(&app.pool, crate::ids::TournamentId::new(id)).await {
            Ok(d) => d,
            Err(TournamentError::NotFound(_)) => {
                return Ok(not_found_page(lang, "page-no-such-tournament"));
            }
            Err(e) => return Err(e.into()),
        }
    } else {
        return Ok(not_found_page(lang, "page-no-such-tournament"));
    };
    let tm = &d.tournament;
    let esc = |id: &str| escape_html(&t(lang, id));
    let esca = |id: &str, args: &[(&str, Arg)]| escape_html(&tr(lang, id, args));
    let format = match tm.settings.format {
        Format::RoundRobin => "round_robin",
        Format::Swiss { .. } => "swiss",
    };
    let organiser = d.name(&tm.organiser);
    let mut main = format!(
        "<h1>{}</h1>\n<p>{} · {} · {} · {} · {}</p>\n",
        escape_html(&tm.settings.name),
        esc(&format!("tour-format-{format}")),
        esca(
            "tour-seats-per-table",
            &[("seats", i64::from(tm.settings.seats_per_table).into())]
        ),
        esc(&format!("tour-status-{}", tm.status.name())),
        esca(
            "tour-players-of",
            &[
                ("players", (tm.entrants.len() as i64).into()),
                ("capacity", i64::from(tm.settings.capacity).into())
            ]
        ),
        esca(
            "tour-organised-by",
            &[("organiser", organiser.as_str().into())]
        ),
    );
    main.push_str(&format!("<h2>{}</h2>\n", esc("tour-standings")));
    let standings = tm.standings();
    if tm.status == Status::Open {
        main.push_str(&format!("<p>{}</p>\n", esc("tour-no-standings")));
        if !tm.entrants.is_empty() {
            main.push_str("<ul class=\"entrants\">");
            for e in &tm.entrants {
                main.push_str(&format!("<li>{}</li>", player_link(&d.name(&e.player))));
            }
            main.push_str("</ul>\n");
        }
    } else {
        main.push_str(&format!(
            "<table class=\"standings\"><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
            esc("tour-col-place"),
            esc("tour-col-player"),
            esc("tour-col-points"),
            esc("tour-col-games"),
            esc("tour-col-wins"),
            esc("tour-col-buchholz"),
        ));
        for s in &standings {
            let withdrawn = if s.withdrawn {
                format!(" {}", esc("tour-withdrawn"))
            } else {
                String::new()
            };
            main.push_str(&format!(
                "<tr><td>{}</td><th scope=\"row\">{}{withdrawn}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                s.place,
                player_link(&d.name(&s.player)),
                points(lang, s.halves),
                s.games,
                s.wins,
                points(lang, s.buchholz_halves)
            ));
        }
        main.push_str("</tbody></table>\n");
        // The crosstable: what each player (row) scored at the tables it shared with
        // each other player (column), in standing order.
        let order: Vec<&str> = standings.iter().map(|s| s.player.as_str()).collect();
        let mut cross: HashMap<(&str, &str), u32> = HashMap::new();
        for tb in tm.rounds.iter().flat_map(|r| r.tables.iter()) {
            let halves = tb.halves();
            for (p, h) in &halves {
                for q in tb.players().filter(|q| q != p) {
                    *cross.entry((p, q)).or_default() += h;
                }
            }
        }
        main.push_str(&format!(
            "<h2>{}</h2>\n<table class=\"crosstable\"><caption>{}</caption><thead><tr><th scope=\"col\">{}</th>",
            esc("tour-crosstable"),
            esc("tour-crosstable-caption"),
            esc("tour-col-player"),
        ));
        for (k, p) in order.iter().enumerate() {
            main.push_str(&format!(
                "<th scope=\"col\"><abbr title=\"{}\">{}</abbr></th>",
                escape_html(&d.name(p)),
                k + 1
            ));
        }
        main.push_str("</tr></thead><tbody>");
        for (k, p) in order.iter().enumerate() {
            main.push_str(&format!(
                "<tr><th scope=\"row\">{}. {}</th>",
                k + 1,
                escape_html(&d.name(p))
            ));
            for q in &order {
                let cell = if p == q {
                    "×".to_string()
                } else {
                    cross
                        .get(&(*p, *q))
                        .map(|h| points(lang, *h))
                        .unwrap_or_default()
                };
                main.push_str(&format!("<td>{cell}</td>"));
            }
            main.push_str("</tr>");
        }
        main.push_str("</tbody></table>\n");
    }
    if !tm.rounds.is_empty() {
        main.push_str(&format!("<h2>{}</h2>\n", esc("tour-rounds")));
    }
    for round in &tm.rounds {
        main.push_str(&format!(
            "<h3>{}</h3>\n<ul class=\"tables\">",
            esca("tour-round", &[("round", i64::from(round.number).into())])
        ));
        for (k, tb) in round.tables.iter().enumerate() {
            let halves = tb.halves();
            let seats: Vec<String> = tb
                .seats
                .iter()
                .enumerate()
                .filter_map(|(s, p)| {
                    let p = p.as_deref()?;
                    let scored = halves
                        .iter()
                        .find(|(q, _)| *q == p)
                        .map(|(_, h)| format!(" ({})", points(lang, *h)))
                        .unwrap_or_default();
                    Some(format!(
                        "{} {}{scored}",
                        domain::Seat::from_index(s).letter(),
                        escape_html(&d.name(p))
                    ))
                })
                .collect();
            main.push_str(&format!(
                "<li><a href=\"/games/{}\">{}</a>: {}</li>",
                escape_html(tb.game_id.as_str()),
                esca("tour-table", &[("table", (k as i64 + 1).into())]),
                seats.join(", ")
            ));
        }
        main.push_str("</ul>\n");
        if !round.byes.is_empty() {
            let names: Vec<String> = round.byes.iter().map(|p| escape_html(&d.name(p))).collect();
            main.push_str(&format!(
                "<p>{} {}</p>\n",
                esc("tour-bye"),
                names.join(", ")
            ));
        }
    }
    main.push_str(&format!(
        "<p><a href=\"/tournaments\">{}</a></p>",
        esc("tour-back")
    ));
    Ok(page(
        "tournament",
        &tm.settings.name,
        &main,
        v.as_ref(),
        "",
        &r,
    ))
}
