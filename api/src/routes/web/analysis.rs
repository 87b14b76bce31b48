//! The engine's analysis on the replay page: the evaluation curve of the seats, an SVG
//! drawn by the server (each seat its own line style and party mark, so it reads without
//! colour), and the judged moves with the move the engine preferred.

use std::fmt::Write;

use crate::analysis::{Analysis, Progress};
use crate::i18n::{Lang, t, tr};

/// The chart's size in user units.
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 240.0;
const PAD: f64 = 36.0;
/// The curve is drawn between these values (hundredths of a militant); forced results
/// sit on the edges.
const SPAN: f64 = 3000.0;

/// Per seat: its colour, its line's dash pattern and its party mark (as on the board).
const SEATS: [(char, &str, &str, &str); 4] = [
    ('R', "#b3261e", "", "▲"),
    ('B', "#0b5cad", "8 4", "●"),
    ('Y', "#7a5d00", "2 3", "■"),
    ('G', "#1b6e20", "10 3 2 3", "◆"),
];

/// Each seat's value before each move, then after the last: `points[k][seat]`.
fn points(a: &Analysis) -> Vec<[Option<i32>; 4]> {
    let mut out: Vec<[Option<i32>; 4]> = a.moves.iter().map(|m| m.before.to_array()).collect();
    if let Some(last) = a.last {
        out.push(last.to_array());
    }
    out
}

/// The evaluation curve as inline SVG (presentation attributes only: no `style`).
pub fn curve_svg(a: &Analysis, lang: Lang) -> String {
    let points = points(a);
    let mut s = String::new();
    let label = t(lang, "analysis-curve-label");
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"analysis-curve\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-labelledby=\"analysis-curve-title\"><title id=\"analysis-curve-title\">{}</title>",
        super::escape_html(&label)
    );
    let n = points.len().max(2) - 1;
    let x = |k: usize| PAD + (WIDTH - 2.0 * PAD) * k as f64 / n as f64;
    let y = |v: i32| {
        let v = (f64::from(v)).clamp(-SPAN, SPAN);
        HEIGHT / 2.0 - (HEIGHT / 2.0 - PAD / 2.0) * v / SPAN
    };
    // The zero line and the edges.
    let _ = write!(
        s,
        "<line x1=\"{PAD}\" y1=\"{z}\" x2=\"{r}\" y2=\"{z}\" stroke=\"#777\"/><text x=\"2\" y=\"{z:.1}\" font-size=\"11\">0</text><text x=\"2\" y=\"{t:.1}\" font-size=\"11\">+{m}</text><text x=\"2\" y=\"{b:.1}\" font-size=\"11\">-{m}</text>",
        z = HEIGHT / 2.0,
        r = WIDTH - PAD,
        t = y(SPAN as i32) + 4.0,
        b = y(-SPAN as i32) + 4.0,
        m = SPAN as i32 / 100,
    );
    for (i, (letter, colour, dash, mark)) in SEATS.iter().enumerate() {
        let line: Vec<(usize, i32)> = points
            .iter()
            .enumerate()
            .filter_map(|(k, p)| p[i].map(|v| (k, v)))
            .collect();
        if line.is_empty() {
            continue;
        }
        let path: Vec<String> = line
            .iter()
            .map(|&(k, v)| format!("{:.1},{:.1}", x(k), y(v)))
            .collect();
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{dash}\"")
        };
        let _ = write!(
            s,
            "<polyline class=\"seat-{letter}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
            path.join(" ")
        );
        // The party mark at every tenth point and at the end.
        let every = (line.len() / 10).max(1);
        for (j, &(k, v)) in line.iter().enumerate() {
            if j % every == 0 || j + 1 == line.len() {
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\" fill=\"{colour}\">{mark}</text>",
                    x(k),
                    y(v) + 4.0
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// The analysis section of the replay page (empty when there is none to show).
pub fn section(a: Option<&Analysis>, lang: Lang) -> String {
    let Some(a) = a else {
        return String::new();
    };
    let esc = super::escape_html;
    let mut out = format!(
        "      <section class=\"analysis\" aria-labelledby=\"analysis-title\">\n        <h2 id=\"analysis-title\">{}</h2>\n",
        esc(&t(lang, "analysis-title"))
    );
    if a.progress != Progress::Done {
        let _ = writeln!(
            out,
            "        <p>{}</p>\n      </section>",
            esc(&tr(
                lang,
                "analysis-pending",
                &[
                    ("done", (a.plies_done.max(0) as u32).into()),
                    ("plies", (a.plies.max(0) as u32).into())
                ]
            ))
        );
        return out;
    }
    let _ = writeln!(
        out,
        "        <figure class=\"analysis-figure\">{}",
        curve_svg(a, lang)
    );
    // The legend: each seat's mark and line, in words.
    out.push_str("          <figcaption><ul class=\"analysis-legend\">");
    for (letter, _, _, mark) in SEATS {
        let style = t(lang, &format!("analysis-line-{letter}"));
        let _ = write!(
            out,
            "<li><span aria-hidden=\"true\">{mark}</span> {}: {}</li>",
            esc(&t(lang, &format!("seat-{letter}"))),
            esc(&style)
        );
    }
    let _ = writeln!(
        out,
        "</ul><p>{}</p></figcaption>\n        </figure>",
        esc(&t(lang, "analysis-scale"))
    );
    let judged: Vec<_> = a.moves.iter().filter(|m| m.judgement.is_some()).collect();
    if judged.is_empty() {
        let _ = writeln!(
            out,
            "        <p>{}</p>",
            esc(&t(lang, "analysis-none-judged"))
        );
    } else {
        out.push_str("        <ol id=\"analysis-judged\" class=\"analysis-judged\">\n");
        for m in judged {
            let j = m.judgement.map_or("", |j| j.as_str());
            let _ = writeln!(
                out,
                "          <li data-ply=\"{}\" data-judgement=\"{j}\" class=\"judged-{j}\">{}</li>",
                m.ply,
                esc(&tr(
                    lang,
                    "analysis-judged-move",
                    &[
                        ("ply", m.ply.into()),
                        ("seat", t(lang, &format!("seat-{}", m.seat)).into()),
                        ("move", m.played.clone().into()),
                        ("judgement", t(lang, &format!("analysis-{j}")).into()),
                        ("best", m.best.clone().into()),
                    ]
                ))
            );
        }
        out.push_str("        </ol>\n");
    }
    let _ = writeln!(
        out,
        "        <p class=\"analysis-engine\">{}</p>\n      </section>",
        esc(&tr(
            lang,
            "analysis-engine",
            &[("engine", a.engine_version.clone().into())]
        ))
    );
    out
}
