//! The newcomer's pages, no login needed (see [`crate::learn`] for their content):
//!
//! | path | page |
//! |---|---|
//! | `/` (signed out) | the welcome page: what Djambi is, a board, public games being played now (live, through each game's event stream), the leaderboard's top, "learn the rules" and "sign up and play against the computer", and the login form; a signed-in player's `/` stays "my games" |
//! | `/rules` | every rule for players, one idea a section, each with a board the engine draws |
//! | `/learn` | the lessons: a position and a task, the move checked by the engine (the analysis board's `POST /v1/positions/play`), a hint after a wrong try, progress kept in the browser (`localStorage`) |
//! | `/rules/pictures/{id}.svg`, `/learn/pictures/{id}.svg` | the pictures of a rule section (after its move, the move highlighted) and of a lesson's position; `?lang=` gives the words of the caption |
//! | `/password-reset`, `/password-reset/{token}` | `308` to the reset pages, `/reset-password[/{token}]` |
//! | `/assets/web/newcomer.js` | the script of these pages, of the "play now" sign-up and of the first game's pointers |
//!
//! The pages are the site's shell (its navigation links `/rules` on every page) around
//! server-rendered HTML whose words are the `welcome-*`, `rules-*` and `lesson-*`
//! messages of `locales/<lang>/pages.ftl`.

use std::sync::OnceLock;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::{Position, SvgOptions};
use serde::Deserialize;

use super::{page, reader};
use crate::i18n::{Arg, Lang, t, tr};
use crate::learn::{self, LESSONS, Lesson, RULE_SECTIONS};
use crate::routes::web::page::{Asset, escape_html, not_found_page};

const WELCOME: &str = include_str!("../../../assets/web/welcome.html");
pub(super) const NEWCOMER_JS: &str = include_str!("../../../assets/web/newcomer.js");

/// The pictures do not change but with a new server.
const A_DAY: &str = "public, max-age=86400";

pub(super) fn newcomer_js() -> &'static Asset {
    static A: OnceLock<Asset> = OnceLock::new();
    A.get_or_init(|| Asset::new(NEWCOMER_JS, "text/javascript; charset=utf-8"))
}

/// Adds the pages to the app.
pub(super) fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/rules").route(web::get().to(rules_page)))
        .service(web::resource("/learn").route(web::get().to(learn_page)))
        .service(web::resource("/rules/pictures/{id}").route(web::get().to(rule_picture)))
        .service(web::resource("/learn/pictures/{id}").route(web::get().to(lesson_picture)))
        .service(web::resource("/password-reset").route(web::get().to(password_reset)))
        .service(web::resource("/password-reset/{token}").route(web::get().to(password_reset)))
        .service(
            web::resource("/assets/web/newcomer.js")
                .route(web::get().to(|req: HttpRequest| async move { newcomer_js().serve(&req) })),
        );
}

/// The welcome page of a visitor who is not signed in (`GET /`).
pub(super) fn welcome(req: &HttpRequest) -> HttpResponse {
    let r = reader(req, None);
    page(
        "welcome",
        &t(r.lang, "welcome-title"),
        WELCOME,
        None,
        "",
        &r,
    )
}

/// The fields "play now" adds to the sign-up form (`/signup?play=1`): the computer
/// players' level; the script then creates the game and opens it.
pub(super) fn play_now_fields(req: &HttpRequest) -> &'static str {
    let play = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .is_ok_and(|q| q.iter().any(|(k, v)| k == "play" && v == "1"));
    if !play {
        return "";
    }
    "<fieldset class=\"play-now\" id=\"play-now\">\n\
     <legend>{{t:playnow-legend}}</legend>\n\
     <p>{{t:playnow-about}}</p>\n\
     <label>{{t:playnow-level}} <select name=\"level\" id=\"playnow-level\">\
     <option value=\"1\">{{t:playnow-level-1}}</option>\
     <option value=\"2\" selected>{{t:playnow-level-2}}</option>\
     <option value=\"3\">{{t:playnow-level-3}}</option>\
     <option value=\"4\">{{t:playnow-level-4}}</option>\
     <option value=\"5\">{{t:playnow-level-5}}</option>\
     </select></label>\n</fieldset>\n"
}

/// `GET /password-reset[/{token}]` (the names of the API's list): the reset pages are
/// `/reset-password[/{token}]`, where the mails link.
async fn password_reset(req: HttpRequest) -> HttpResponse {
    let location = match req.match_info().get("token") {
        Some(token) => format!(
            "/reset-password/{}",
            url::form_urlencoded::byte_serialize(token.as_bytes()).collect::<String>()
        ),
        None => "/reset-password".to_string(),
    };
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

#[derive(Deserialize)]
struct PictureQuery {
    lang: Option<String>,
}

/// The words of the pictures: the reader's language (`?lang=`, else the request's).
fn picture_options(req: &HttpRequest, query: &PictureQuery) -> (Lang, SvgOptions) {
    let lang = query
        .lang
        .as_deref()
        .filter(|c| c.len() <= 8)
        .and_then(Lang::from_code)
        .unwrap_or_else(|| crate::routes::language::of_request(req, None));
    let options = SvgOptions {
        text: crate::routes::games::svg_text(lang).clone(),
        ..SvgOptions::default()
    };
    (lang, options)
}

fn svg_response(lang: Lang, svg: String) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, A_DAY))
        .insert_header((header::VARY, "Accept-Language"))
        .insert_header((header::CONTENT_LANGUAGE, lang.code()))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .content_type("image/svg+xml")
        .body(svg)
}

async fn rule_picture(
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<PictureQuery>,
) -> HttpResponse {
    let (lang, options) = picture_options(&req, &query);
    let drawn = path
        .strip_suffix(".svg")
        .and_then(learn::section)
        .and_then(|s| learn::section_picture(s, &options));
    match drawn {
        Some(svg) => svg_response(lang, svg),
        None => not_found_page(lang, "page-no-such-file"),
    }
}

async fn lesson_picture(
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<PictureQuery>,
) -> HttpResponse {
    let (lang, options) = picture_options(&req, &query);
    let drawn = path
        .strip_suffix(".svg")
        .and_then(learn::lesson)
        .and_then(|l| learn::lesson_picture(l, &options));
    match drawn {
        Some(svg) => svg_response(lang, svg),
        None => not_found_page(lang, "page-no-such-file"),
    }
}

/// The pieces of a position in words, for the text alternative of its picture
/// ("A9 Red chief, D4 Red militant, …"), in `lang`.
fn pieces_in_words(lang: Lang, dfen: &str) -> String {
    let Ok(position) = dfen.parse::<Position>() else {
        return String::new();
    };
    let text = crate::routes::games::svg_text(lang);
    let mut squares: Vec<_> = position.board().pieces().collect();
    // Top rank first, files left to right: the order a reader scans the board.
    squares.sort_by_key(|(sq, _)| (9 - sq.rank(), sq.file()));
    squares
        .iter()
        .map(|(sq, p)| {
            let template = if p.alive {
                &text.piece_short
            } else {
                &text.corpse_short
            };
            let kind = domain::Kind::ALL
                .iter()
                .position(|k| *k == p.kind)
                .unwrap_or(0);
            template
                .replace("{square}", &sq.to_string())
                .replace("{seat}", &text.seats[p.party.index()])
                .replace("{piece}", &text.pieces[kind])
        })
        .collect::<Vec<_>>()
        .join(", ")
}

async fn rules_page(
    req: HttpRequest,
    app: web::Data<crate::state::AppState>,
) -> Result<HttpResponse, crate::error::ApiError> {
    let v = super::viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let lang = r.lang;
    let esc = |id: &str| escape_html(&t(lang, id));
    let mut toc = String::new();
    let mut sections = String::new();
    for (n, s) in RULE_SECTIONS.iter().enumerate() {
        let id = s.id;
        toc.push_str(&format!(
            "<li><a href=\"#rule-{id}\">{}</a></li>",
            esc(&format!("rules-{id}-title"))
        ));
        let alt = match s.shown {
            Some(mv) => tr(
                lang,
                "rules-picture-move",
                &[
                    ("move", Arg::Text(mv.to_string())),
                    ("pieces", Arg::Text(pieces_in_words(lang, s.dfen))),
                ],
            ),
            None => tr(
                lang,
                "rules-picture-position",
                &[("pieces", Arg::Text(pieces_in_words(lang, s.dfen)))],
            ),
        };
        let caption = match s.shown {
            Some(mv) => escape_html(&tr(
                lang,
                "rules-picture-caption",
                &[("move", Arg::Text(mv.to_string()))],
            )),
            None => esc("rules-picture-start"),
        };
        sections.push_str(&format!(
            "<section class=\"rule card\" id=\"rule-{id}\" aria-labelledby=\"rule-{id}-title\">\n\
             <h2 id=\"rule-{id}-title\">{}. {}</h2>\n<div class=\"rule-body\">\n<div class=\"rule-text\">{}</div>\n\
             <figure class=\"rule-figure\"><img src=\"/rules/pictures/{id}.svg?lang={}\" width=\"596\" height=\"680\" \
             loading=\"lazy\" alt=\"{}\"><figcaption>{caption}</figcaption></figure>\n</div>\n</section>\n",
            n + 1,
            esc(&format!("rules-{id}-title")),
            paragraphs(&t(lang, &format!("rules-{id}-text"))),
            lang.code(),
            escape_html(&alt),
        ));
    }
    let main = format!(
        "<h1>{}</h1>\n<p class=\"lead\">{}</p>\n<p><a class=\"button\" href=\"/learn\" id=\"rules-to-learn\">{}</a></p>\n\
         <nav class=\"toc card\" aria-labelledby=\"rules-toc-title\"><h2 id=\"rules-toc-title\">{}</h2><ol>{toc}</ol></nav>\n\
         {sections}<p><a class=\"button\" href=\"/learn\">{}</a></p>\n",
        esc("rules-title"),
        esc("rules-intro"),
        esc("rules-to-learn"),
        esc("rules-contents"),
        esc("rules-to-learn"),
    );
    Ok(page(
        "rules",
        &t(lang, "rules-title"),
        &main,
        v.as_ref(),
        "",
        &r,
    ))
}

/// A message's text as paragraphs: one per line of the message, HTML-escaped.
fn paragraphs(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("<p>{}</p>", escape_html(l)))
        .collect()
}

fn lesson_section(lang: Lang, n: usize, l: &Lesson) -> String {
    let id = l.id;
    let esc = |m: &str| escape_html(&t(lang, m));
    let position: Option<Position> = l.dfen.parse().ok();
    let seat = position
        .as_ref()
        .and_then(Position::to_move)
        .map(|s| t(lang, &format!("seat-{}", s.letter())))
        .unwrap_or_default();
    let alt = tr(
        lang,
        "lesson-picture",
        &[
            ("seat", Arg::Text(seat.clone())),
            ("pieces", Arg::Text(pieces_in_words(lang, l.dfen))),
        ],
    );
    let a = l.answer;
    format!(
        "<section class=\"lesson card\" id=\"lesson-{id}\" data-lesson=\"{id}\" data-dfen=\"{}\" \
         data-from=\"{}\" data-to=\"{}\" data-victim=\"{}\" data-exit=\"{}\" data-place=\"{}\" \
         aria-labelledby=\"lesson-{id}-title\">\n\
         <h2 id=\"lesson-{id}-title\">{}. {} <span class=\"lesson-state\" id=\"lesson-{id}-state\"></span></h2>\n\
         <div class=\"lesson-body\">\n<figure class=\"rule-figure\"><img src=\"/learn/pictures/{id}.svg?lang={}\" width=\"596\" height=\"680\" \
         loading=\"lazy\" alt=\"{}\"></figure>\n<div class=\"lesson-work\">\n\
         <p class=\"lesson-task\" id=\"lesson-{id}-task\">{}</p>\n\
         <form class=\"lesson-form form inline\" id=\"lesson-{id}-form\" novalidate>\n\
         <label>{} <input id=\"lesson-{id}-move\" name=\"move\" autocomplete=\"off\" spellcheck=\"false\" maxlength=\"20\" \
         aria-describedby=\"lesson-{id}-task\"></label>\n\
         <button type=\"submit\" id=\"lesson-{id}-check\">{}</button>\n</form>\n\
         <p class=\"lesson-result\" id=\"lesson-{id}-result\" role=\"status\" aria-live=\"polite\"></p>\n\
         <p class=\"lesson-hint\" id=\"lesson-{id}-hint\" hidden>{}</p>\n\
         <p class=\"lesson-done\" id=\"lesson-{id}-done\" hidden>{}</p>\n\
         <p class=\"lesson-more\"><a href=\"/rules#rule-{}\">{}</a></p>\n</div>\n</div>\n</section>\n",
        escape_html(l.dfen),
        a.from,
        a.to,
        a.victim,
        a.exit,
        a.place,
        n + 1,
        esc(&format!("lesson-{id}-title")),
        lang.code(),
        escape_html(&alt),
        escape_html(&tr(
            lang,
            &format!("lesson-{id}-task"),
            &[("seat", Arg::Text(seat))]
        )),
        esc("lesson-your-move"),
        esc("lesson-check"),
        escape_html(&tr(
            lang,
            "lesson-hint",
            &[("hint", Arg::Text(t(lang, &format!("lesson-{id}-hint"))))]
        )),
        esc(&format!("lesson-{id}-done")),
        rule_of(id),
        esc("lesson-read-rule"),
    )
}

/// The rules section a lesson practises.
fn rule_of(lesson: &str) -> &'static str {
    match lesson {
        "militant" => "militant",
        "chief" | "twice" => "ruler",
        "assassin" => "assassin",
        "reporter" => "reporter",
        "diplomat" => "diplomat",
        "necromobile" => "necromobile",
        "corpses" => "corpses",
        "maze" => "maze-act",
        "surround" => "surround",
        _ => "hostages",
    }
}

async fn learn_page(
    req: HttpRequest,
    app: web::Data<crate::state::AppState>,
) -> Result<HttpResponse, crate::error::ApiError> {
    let v = super::viewer(&req, &app).await?;
    let r = reader(&req, v.as_ref());
    let lang = r.lang;
    let esc = |id: &str| escape_html(&t(lang, id));
    let lessons: String = LESSONS
        .iter()
        .enumerate()
        .map(|(n, l)| lesson_section(lang, n, l))
        .collect();
    let main = format!(
        "<h1>{}</h1>\n<div class=\"lead\">{}</div>\n\
         <p id=\"learn-progress\" class=\"progress\" role=\"status\" aria-live=\"polite\" data-total=\"{}\"></p>\n\
         <p><button type=\"button\" id=\"learn-reset\">{}</button> <a href=\"/rules\">{}</a></p>\n\
         {lessons}\
         <section class=\"card\" id=\"learn-next\" aria-labelledby=\"learn-next-title\"><h2 id=\"learn-next-title\">{}</h2>\n\
         <p>{}</p><p><a class=\"button\" href=\"/signup?play=1\" id=\"learn-play\">{}</a></p></section>\n",
        esc("lesson-page-title"),
        paragraphs(&t(lang, "lesson-intro")),
        LESSONS.len(),
        esc("lesson-reset"),
        esc("lesson-to-rules"),
        esc("lesson-next-title"),
        esc("lesson-next-text"),
        esc("welcome-play"),
    );
    Ok(page(
        "learn",
        &t(lang, "lesson-page-title"),
        &main,
        v.as_ref(),
        "",
        &r,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_and_lesson_has_its_words_in_every_language() {
        for lang in Lang::all() {
            for id in ["rules-title", "rules-intro", "lesson-intro", "welcome-lead"] {
                assert!(crate::i18n::has(lang, id), "{id}");
            }
            for s in RULE_SECTIONS {
                for part in ["title", "text"] {
                    let id = format!("rules-{}-{part}", s.id);
                    assert!(crate::i18n::has(lang, &id), "{}: {id}", lang.code());
                }
            }
            for l in LESSONS {
                for part in ["title", "task", "hint", "done"] {
                    let id = format!("lesson-{}-{part}", l.id);
                    assert!(crate::i18n::has(lang, &id), "{}: {id}", lang.code());
                }
            }
        }
        let words = pieces_in_words(Lang::EN, learn::LESSONS[0].dfen);
        assert!(words.starts_with("A9 Red chief"), "{words}");
        assert!(words.contains("D4 Red militant"), "{words}");
    }

    #[test]
    fn the_welcome_template_is_translated_and_has_no_inline_script() {
        assert_eq!(
            crate::routes::web::untranslated_text(WELCOME),
            Vec::<String>::new()
        );
        assert!(!WELCOME.contains("<script"));
        assert!(!WELCOME.contains("style="));
        assert!(WELCOME.contains("id=\"login-form\""));
    }
}
