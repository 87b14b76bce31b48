//! The rating-history chart of a player page: an SVG drawn by the server (no script
//! library), a pure function of the points.

use std::fmt::Write;

/// The chart's size in user units.
pub const WIDTH: f64 = 600.0;
pub const HEIGHT: f64 = 200.0;
const PAD: f64 = 30.0;

/// An SVG line chart of `ratings` (oldest first), with the lowest and highest values
/// labelled; a note instead of a line with fewer than two points. `label` is the
/// accessible name, `empty` the note (both in the reader's language). Only presentation attributes: no `style`, so the strict CSP holds
/// when it is inlined.
pub fn history_svg(ratings: &[f64], label: &str, empty: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"rating-chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        super::escape_html(label)
    );
    let points: Vec<f64> = ratings.iter().copied().filter(|r| r.is_finite()).collect();
    if points.len() < 2 {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\">{}</text></svg>",
            WIDTH / 2.0,
            HEIGHT / 2.0,
            super::escape_html(empty)
        );
        return s;
    }
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &r| {
            (l.min(r), h.max(r))
        });
    let span = if hi - lo < 1e-9 { 1.0 } else { hi - lo };
    let x = |i: usize| PAD + (WIDTH - 2.0 * PAD) * i as f64 / (points.len() - 1) as f64;
    let y = |r: f64| HEIGHT - PAD - (HEIGHT - 2.0 * PAD) * (r - lo) / span;
    let _ = write!(
        s,
        "<line x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#999\"/>",
        b = HEIGHT - PAD,
        r = WIDTH - PAD
    );
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, &r)| format!("{:.1},{:.1}", x(i), y(r)))
        .collect();
    let _ = write!(
        s,
        "<polyline fill=\"none\" stroke=\"#0b5cad\" stroke-width=\"2\" points=\"{}\"/>",
        path.join(" ")
    );
    let _ = write!(
        s,
        "<text x=\"2\" y=\"{:.1}\" font-size=\"12\">{hi:.1}</text><text x=\"2\" y=\"{:.1}\" font-size=\"12\">{lo:.1}</text></svg>",
        y(hi) + 4.0,
        y(lo) + 4.0
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_is_a_polyline_through_every_point_within_the_box() {
        let svg = history_svg(&[0.0, 1.5, -2.0, 4.0], "Rating of <ann>", "");
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"));
        assert!(svg.contains("aria-label=\"Rating of &lt;ann&gt;\""));
        assert!(!svg.contains("style"));
        let points = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let xy: Vec<(f64, f64)> = points
            .split(' ')
            .map(|p| {
                let (a, b) = p.split_once(',').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        assert_eq!(xy.len(), 4);
        assert!(
            xy.iter()
                .all(|&(x, y)| (0.0..=WIDTH).contains(&x) && (0.0..=HEIGHT).contains(&y))
        );
        // Higher ratings are drawn higher (smaller y); the highest at the top margin.
        assert!(xy[3].1 < xy[1].1 && xy[1].1 < xy[0].1 && xy[0].1 < xy[2].1);
        assert_eq!(xy[3].1, PAD);
        assert_eq!(xy[2].1, HEIGHT - PAD);
        assert!(svg.contains(">4.0<") && svg.contains(">-2.0<"));
    }

    #[test]
    fn short_or_flat_histories_draw_without_dividing_by_zero() {
        assert!(history_svg(&[], "x", "Not enough").contains("Not enough"));
        assert!(history_svg(&[3.0], "x", "Not enough").contains("Not enough"));
        let flat = history_svg(&[2.0, 2.0, 2.0], "x", "Not enough");
        assert!(flat.contains("<polyline") && !flat.contains("NaN"));
        assert!(!history_svg(&[1.0, f64::NAN, 2.0], "x", "Not enough").contains("NaN"));
    }
}
