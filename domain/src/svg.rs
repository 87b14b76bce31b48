//! The board as a picture: a pure function from a position (and the move that led to
//! it) to an SVG document, served as `/v1/games/{id}/board.svg` and printed by
//! `djambi svg`.
//!
//! The 9x9 board with the maze (`E5`) marked, file letters `A`..`I` and rank numbers
//! `1`..`9` on all four edges (`A1` bottom-left, RULES.md section 1), each piece a disc
//! in its party's colour carrying its kind's letter (`C A R D N M`, as in DFEN), corpses
//! light grey and crossed out with a rim of their party's colour, the last move's squares
//! highlighted with an arrow (drawn under the pieces, so it hides none), and a caption
//! saying whose turn it is, who rules, and who controls each party
//! ([`board_svg_before_start`]: that the game waits for its players). The colours are the
//! Okabe-Ito palette, told apart with the common colour-vision deficiencies; the letters
//! carry the kind without colour (a corpse's letter, lower case, is near-black on its
//! light grey disc, over the cross: above 4.5:1 of contrast), and a small mark at each
//! piece's corner, dead or alive, carries the party without colour (Red ▲, Blue ●,
//! Yellow ■, Green ◆, as in the caption and the web pages). The output is deterministic
//! and well-formed XML, with a `<title>` and `<desc>` for screen readers.

use std::fmt::Write;

use crate::moves::Move;
use crate::piece::Piece;
use crate::position::{Control, Position, Turn};
use crate::seat::Seat;
use crate::square::Square;

/// How to draw the picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgOptions {
    /// The `width` attribute in pixels (the height follows the aspect ratio); `None`
    /// leaves the picture to scale to its container (only the `viewBox` is set).
    pub width: Option<u32>,
    /// The caption under the board: whose turn, the ruler, each party's controller.
    pub caption: bool,
    /// The words of the title, the description, the caption and the pieces' titles
    /// (English by default; the server gives the reader's language).
    pub text: SvgText,
}

impl Default for SvgOptions {
    fn default() -> SvgOptions {
        SvgOptions {
            width: None,
            caption: true,
            text: SvgText::default(),
        }
    }
}

/// The words of the picture, in one language. The templates name their parts in braces
/// (`{seat}`, `{piece}`, `{square}`, `{ply}`, `{text}`, `{role}`, `{after}`, `{ruler}`,
/// `{seats}`, `{by}`); squares and moves stay in the canonical notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgText {
    /// Each seat's colour, by [`Seat::index`].
    pub seats: [String; 4],
    /// Each kind of piece, in the order of [`crate::Kind::ALL`].
    pub pieces: [String; 6],
    /// "Djambi board, ply {ply}: {text}".
    pub title: String,
    /// The maze's title: "E5, the maze".
    pub maze: String,
    /// A living piece's title: "{seat} {piece} on {square}".
    pub piece: String,
    /// A corpse's title: "{seat} {piece} (dead) on {square}".
    pub corpse: String,
    /// A piece in the description: "{square} {seat} {piece}".
    pub piece_short: String,
    /// A corpse in the description: "{square} {seat} {piece} corpse".
    pub corpse_short: String,
    /// A highlighted square: "last move: {role} {square}".
    pub last_move: String,
    /// The roles of the highlighted squares: from, to, exit, place, victim.
    pub roles: [String; 5],
    /// The caption of a game waiting for its players.
    pub waiting: String,
    /// "{seat} to move".
    pub to_move: String,
    /// "{seat} to move (bonus turn after {after})".
    pub bonus: String,
    /// "{text} · {ruler} rules".
    pub rules: String,
    /// "Game over: {seat} wins".
    pub won: String,
    /// "Game over: a draw".
    pub draw: String,
    /// "Game over: a draw between {seats}".
    pub draw_between: String,
    /// A party its own seat plays: "{seat}".
    pub own: String,
    /// "{seat} played by {by}".
    pub played_by: String,
    /// "{seat} hostage".
    pub hostage: String,
    /// "{seat} orphaned".
    pub orphaned: String,
}

impl Default for SvgText {
    fn default() -> SvgText {
        let s = |t: &str| t.to_string();
        SvgText {
            seats: Seat::ALL.map(|seat| s(seat.name())),
            pieces: crate::piece::Kind::ALL.map(|k| s(k.name())),
            title: s("Djambi board, ply {ply}: {text}"),
            maze: s("E5, the maze"),
            piece: s("{seat} {piece} on {square}"),
            corpse: s("{seat} {piece} (dead) on {square}"),
            piece_short: s("{square} {seat} {piece}"),
            corpse_short: s("{square} {seat} {piece} corpse"),
            last_move: s("last move: {role} {square}"),
            roles: ["from", "to", "exit", "place", "victim"].map(s),
            waiting: s(WAITING),
            to_move: s("{seat} to move"),
            bonus: s("{seat} to move (bonus turn after {after})"),
            rules: s("{text} \u{b7} {ruler} rules"),
            won: s("Game over: {seat} wins"),
            draw: s("Game over: a draw"),
            draw_between: s("Game over: a draw between {seats}"),
            own: s("{seat}"),
            played_by: s("{seat} played by {by}"),
            hostage: s("{seat} hostage"),
            orphaned: s("{seat} orphaned"),
        }
    }
}

impl SvgText {
    fn seat(&self, seat: Seat) -> &str {
        &self.seats[seat.index()]
    }

    fn piece(&self, kind: crate::piece::Kind) -> &str {
        let i = crate::piece::Kind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(0);
        &self.pieces[i]
    }
}

/// A template with its `{name}`s replaced.
fn fill(template: &str, parts: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (name, value) in parts {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// The side of a square, in user units.
const SQ: i32 = 60;
/// The band around the board holding the coordinates.
const EDGE: i32 = 28;
const BOARD: i32 = 9 * SQ;
/// The caption's height under the board.
const CAPTION: i32 = 84;

/// A party's fill colour and the colour of text drawn on it (Okabe-Ito).
const fn colours(party: Seat) -> (&'static str, &'static str) {
    match party {
        Seat::Red => ("#D55E00", "#000000"),
        Seat::Blue => ("#0072B2", "#FFFFFF"),
        Seat::Yellow => ("#F0E442", "#000000"),
        Seat::Green => ("#009E73", "#000000"),
    }
}

/// The party's mark (▲ ● ■ ◆), so that parties are told apart without colour: a shape
/// of about `2 * r` across, centred on (`x`, `y`), in the party's colour.
fn party_mark(s: &mut String, party: Seat, x: i32, y: i32, r: i32) {
    let (fill, _) = colours(party);
    let stroke = r##"stroke="#1A1A1A" stroke-width="1.5""##;
    let _ = match party {
        Seat::Red => write!(
            s,
            r##"<path class="mark" d="M{x} {}L{} {}L{} {}Z" fill="{fill}" {stroke}/>"##,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r
        ),
        Seat::Blue => write!(
            s,
            r##"<circle class="mark" cx="{x}" cy="{y}" r="{r}" fill="{fill}" {stroke}/>"##
        ),
        Seat::Yellow => write!(
            s,
            r##"<rect class="mark" x="{}" y="{}" width="{}" height="{}" fill="{fill}" {stroke}/>"##,
            x - r,
            y - r,
            2 * r,
            2 * r
        ),
        Seat::Green => write!(
            s,
            r##"<path class="mark" d="M{x} {}L{} {y}L{x} {}L{} {y}Z" fill="{fill}" {stroke}/>"##,
            y - r - 1,
            x + r + 1,
            y + r + 1,
            x - r - 1
        ),
    };
}

/// The picture of a position as an SVG document. `last_move` (the move that led to the
/// position, if any) is highlighted: its departure and arrival squares, its exit from
/// the maze and where it placed a piece.
pub fn board_svg(position: &Position, last_move: Option<&Move>, options: &SvgOptions) -> String {
    draw(
        position,
        last_move,
        options,
        &turn_text(position, &options.text),
    )
}

/// The picture of a game that has not started: its seats are not all taken, so nobody
/// is to move yet, whatever the position says. The caption says so ("Waiting for
/// players: the position before the start") instead of whose turn it would be.
pub fn board_svg_before_start(position: &Position, options: &SvgOptions) -> String {
    draw(position, None, options, &options.text.waiting)
}

/// The caption of a game that waits for its players.
const WAITING: &str = "Waiting for players: the position before the start";

/// The colours of a corpse: its disc, its letter and its cross (the letter is drawn over
/// the cross, with a halo of the disc's colour).
const CORPSE_DISC: &str = "#D9D9D9";
const CORPSE_INK: &str = "#1A1A1A";
const CORPSE_CROSS: &str = "#595959";

fn draw(
    position: &Position,
    last_move: Option<&Move>,
    options: &SvgOptions,
    title: &str,
) -> String {
    let width = 2 * EDGE + BOARD;
    let height = 2 * EDGE + BOARD + if options.caption { CAPTION } else { 0 };
    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}""#
    );
    if let Some(w) = options.width {
        let h = (u64::from(w) * height as u64).div_ceil(width as u64);
        let _ = write!(s, r#" width="{w}" height="{h}""#);
    }
    let _ = writeln!(
        s,
        r#" role="img" aria-labelledby="board-title board-desc" font-family="DejaVu Sans, Verdana, Arial, sans-serif">"#
    );
    let words = &options.text;
    let _ = writeln!(
        s,
        r#"<title id="board-title">{}</title>"#,
        escape(&fill(
            &words.title,
            &[("ply", &position.ply().to_string()), ("text", title)]
        ))
    );
    let _ = writeln!(
        s,
        r#"<desc id="board-desc">DFEN {}; {}</desc>"#,
        escape(&position.to_string()),
        escape(&pieces_text(position, words))
    );
    let _ = writeln!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#FAF7F0"/>"##
    );
    squares(&mut s, words);
    coordinates(&mut s);
    if let Some(mv) = last_move {
        highlight(&mut s, mv, words);
        // Under the pieces: the arrow never hides one.
        arrow(&mut s, mv);
    }
    for (square, piece) in position.board().pieces() {
        piece_svg(&mut s, square, piece, position.control(piece.party), words);
    }
    if options.caption {
        caption(&mut s, position, title, words);
    }
    s.push_str("</svg>\n");
    s
}

/// The top-left corner of a square, in user units.
const fn corner(square: Square) -> (i32, i32) {
    (
        EDGE + square.file() as i32 * SQ,
        EDGE + (8 - square.rank() as i32) * SQ,
    )
}

const fn centre(square: Square) -> (i32, i32) {
    let (x, y) = corner(square);
    (x + SQ / 2, y + SQ / 2)
}

fn squares(s: &mut String, words: &SvgText) {
    s.push_str(r##"<g id="squares" stroke="#8A7A5C" stroke-width="1">"##);
    s.push('\n');
    for square in Square::all() {
        let (x, y) = corner(square);
        let fill = if square.is_maze() {
            "#5B4A78"
        } else if (square.file() + square.rank()) % 2 == 0 {
            "#E8DCC0"
        } else {
            "#F6EFDF"
        };
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{SQ}" height="{SQ}" fill="{fill}"/>"#
        );
    }
    s.push_str("</g>\n");
    // The maze: nested walls with gaps, on a dark square.
    let (x, y) = corner(Square::MAZE);
    let _ = writeln!(
        s,
        concat!(
            r##"<g id="maze" fill="none" stroke="#E8DCC0" stroke-width="2.5" stroke-linecap="square">"##,
            "<title>{maze}</title>",
            r#"<path d="M{a} {b}H{c}V{c2}H{b2}V{a2}H{a}Z"/>"#,
            r#"<path d="M{d} {e}H{f}V{f2}H{d2}V{e2}"/>"#,
            r#"<path d="M{g} {h}H{i}V{i2}H{g2}"/>"#,
            "</g>"
        ),
        a = x + 31,
        b = y + 6,
        c = x + 54,
        c2 = y + 54,
        b2 = x + 6,
        a2 = y + 6,
        d = x + 24,
        e = y + 15,
        f = x + 45,
        f2 = y + 45,
        d2 = x + 15,
        e2 = y + 22,
        g = x + 30,
        h = y + 24,
        i = x + 36,
        i2 = y + 36,
        g2 = x + 24,
        maze = escape(&words.maze),
    );
    let _ = writeln!(
        s,
        r##"<rect x="{EDGE}" y="{EDGE}" width="{BOARD}" height="{BOARD}" fill="none" stroke="#4A3F2C" stroke-width="2"/>"##
    );
}

fn coordinates(s: &mut String) {
    s.push_str(
        r##"<g id="coordinates" font-size="17" font-weight="bold" fill="#4A3F2C" text-anchor="middle" dominant-baseline="central">"##,
    );
    s.push('\n');
    for i in 0..9 {
        let file = (b'A' + i as u8) as char;
        let x = EDGE + i * SQ + SQ / 2;
        for y in [EDGE / 2, 2 * EDGE + BOARD - EDGE / 2] {
            let _ = writeln!(s, r#"<text x="{x}" y="{y}">{file}</text>"#);
        }
        let rank = 9 - i;
        let y = EDGE + i * SQ + SQ / 2;
        for x in [EDGE / 2, 2 * EDGE + BOARD - EDGE / 2] {
            let _ = writeln!(s, r#"<text x="{x}" y="{y}">{rank}</text>"#);
        }
    }
    s.push_str("</g>\n");
}

fn highlight(s: &mut String, mv: &Move, words: &SvgText) {
    s.push_str(r#"<g id="last-move">"#);
    s.push('\n');
    let mut marks = vec![(mv.from, "from"), (mv.to, "to")];
    if let Some(exit) = mv.exit {
        marks.push((exit, "exit"));
    }
    if let Some(place) = mv.place {
        marks.push((place, "place"));
    }
    if let Some(victim) = mv.victim {
        marks.push((victim, "victim"));
    }
    for (square, role) in marks {
        let (x, y) = corner(square);
        let (colour, dash) = match role {
            "from" => ("#FFE9A8", r#" stroke-dasharray="6 4""#),
            _ => ("#FFD966", ""),
        };
        let index = ["from", "to", "exit", "place", "victim"]
            .iter()
            .position(|r| *r == role)
            .unwrap_or(0);
        let name = fill(
            &words.last_move,
            &[
                ("role", &words.roles[index]),
                ("square", &square.to_string()),
            ],
        );
        let _ = writeln!(
            s,
            r##"<rect class="{role}" x="{}" y="{}" width="{}" height="{}" fill="{colour}" fill-opacity="0.85" stroke="#7A5200" stroke-width="3"{dash}><title>{}</title></rect>"##,
            x + 2,
            y + 2,
            SQ - 4,
            SQ - 4,
            escape(&name),
        );
    }
    s.push_str("</g>\n");
}

fn arrow(s: &mut String, mv: &Move) {
    let mut points = vec![centre(mv.from), centre(mv.to)];
    if let Some(exit) = mv.exit {
        points.push(centre(exit));
    }
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (x, y))| format!("{}{x} {y}", if i == 0 { 'M' } else { 'L' }))
        .collect();
    let _ = writeln!(
        s,
        concat!(
            r#"<g id="last-move-arrow" opacity="0.75" pointer-events="none">"#,
            r##"<path d="{}" fill="none" stroke="#3B2A00" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>"##,
            r##"<circle cx="{}" cy="{}" r="6" fill="#3B2A00"/>"##,
            "</g>"
        ),
        path.join(""),
        points.last().expect("two points").0,
        points.last().expect("two points").1,
    );
}

fn piece_svg(s: &mut String, square: Square, piece: Piece, control: Control, words: &SvgText) {
    let (cx, cy) = centre(square);
    let (fill, ink) = colours(piece.party);
    let name = escape(&self::fill(
        if piece.alive {
            &words.piece
        } else {
            &words.corpse
        },
        &[
            ("seat", words.seat(piece.party)),
            ("piece", words.piece(piece.kind)),
            ("square", &square.to_string()),
        ],
    ));
    let letter = piece.kind.letter();
    if piece.alive {
        // Inert parties (hostage, orphaned) get a dashed rim.
        let dash = match control {
            Control::Seat(_) => "",
            Control::Hostage | Control::Orphaned => r#" stroke-dasharray="5 3""#,
        };
        let _ = write!(
            s,
            r##"<g class="piece"><title>{name}</title><circle cx="{cx}" cy="{cy}" r="24" fill="{fill}" stroke="#1A1A1A" stroke-width="2.5"{dash}/>"##
        );
        if piece.is_living_chief() {
            // A second ring: the chief stands out even before its letter is read.
            let _ = write!(
                s,
                r##"<circle cx="{cx}" cy="{cy}" r="19" fill="none" stroke="{ink}" stroke-width="1.5"/>"##
            );
        }
        let _ = write!(
            s,
            r#"<text x="{cx}" y="{cy}" font-size="24" font-weight="bold" fill="{ink}" text-anchor="middle" dominant-baseline="central">{letter}</text>"#
        );
        // In the square's top-right corner, clear of the disc.
        party_mark(s, piece.party, cx + 22, cy - 22, 5);
        s.push_str("</g>\n");
    } else {
        let (a, b) = (cx - 16, cx + 16);
        let (c, d) = (cy - 16, cy + 16);
        // The cross first, then the letter over it with a halo of the disc's colour, so
        // that the letter stays legible; the party's mark as on a living piece.
        let _ = write!(
            s,
            concat!(
                r##"<g class="corpse"><title>{name}</title>"##,
                r##"<circle cx="{cx}" cy="{cy}" r="23" fill="{disc}" stroke="{fill}" stroke-width="4"/>"##,
                r##"<path d="M{a} {c}L{b} {d}M{b} {c}L{a} {d}" stroke="{cross}" stroke-width="3" stroke-linecap="round"/>"##,
                r##"<text x="{cx}" y="{cy}" font-size="21" font-weight="bold" fill="{ink}" stroke="{disc}" stroke-width="5" stroke-linejoin="round" paint-order="stroke" text-anchor="middle" dominant-baseline="central">{letter}</text>"##,
            ),
            name = name,
            cx = cx,
            cy = cy,
            disc = CORPSE_DISC,
            fill = fill,
            cross = CORPSE_CROSS,
            ink = CORPSE_INK,
            letter = letter.to_ascii_lowercase(),
            a = a,
            b = b,
            c = c,
            d = d,
        );
        party_mark(s, piece.party, cx + 22, cy - 22, 5);
        s.push_str("</g>\n");
    }
}

fn caption(s: &mut String, position: &Position, title: &str, words: &SvgText) {
    let top = 2 * EDGE + BOARD;
    let _ = writeln!(
        s,
        r##"<g id="caption" fill="#1A1A1A"><text x="{EDGE}" y="{}" font-size="17" font-weight="bold">{}</text>"##,
        top + 22,
        escape(title)
    );
    // Two columns of two: the longest label ("Yellow played by Green") fits either.
    for party in Seat::ALL {
        let name = words.seat(party);
        let label = match position.control(party) {
            Control::Seat(seat) if seat == party => fill(&words.own, &[("seat", name)]),
            Control::Seat(seat) => fill(
                &words.played_by,
                &[("seat", name), ("by", words.seat(seat))],
            ),
            Control::Hostage => fill(&words.hostage, &[("seat", name)]),
            Control::Orphaned => fill(&words.orphaned, &[("seat", name)]),
        };
        let x = EDGE + (party.index() as i32 % 2) * BOARD / 2;
        let y = top + 44 + (party.index() as i32 / 2) * 24;
        party_mark(s, party, x + 8, y, 7);
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="15">{}</text>"##,
            x + 22,
            y + 5,
            escape(&label)
        );
    }
    s.push_str("</g>\n");
}

/// "Red to move", "Green to move (bonus turn after Blue) · Green rules",
/// "Game over: Red wins".
fn turn_text(position: &Position, words: &SvgText) -> String {
    let text = match position.turn() {
        Turn::Regular(seat) => fill(&words.to_move, &[("seat", words.seat(seat))]),
        Turn::Bonus { seat, after } => fill(
            &words.bonus,
            &[("seat", words.seat(seat)), ("after", words.seat(after))],
        ),
        Turn::Over => {
            let active = position.active_seats();
            match active.iter().collect::<Vec<_>>().as_slice() {
                [winner] => fill(&words.won, &[("seat", words.seat(*winner))]),
                [] => words.draw.clone(),
                seats => {
                    let names: Vec<&str> = seats.iter().map(|s| words.seat(*s)).collect();
                    fill(&words.draw_between, &[("seats", &names.join(", "))])
                }
            }
        }
    };
    match position.ruler() {
        Some(ruler) => fill(
            &words.rules,
            &[("text", &text), ("ruler", words.seat(ruler))],
        ),
        None => text,
    }
}

/// Every piece in words, for screen readers.
fn pieces_text(position: &Position, words: &SvgText) -> String {
    let list: Vec<String> = position
        .board()
        .pieces()
        .map(|(square, piece)| {
            fill(
                if piece.alive {
                    &words.piece_short
                } else {
                    &words.corpse_short
                },
                &[
                    ("square", &square.to_string()),
                    ("seat", words.seat(piece.party)),
                    ("piece", words.piece(piece.kind)),
                ],
            )
        })
        .collect();
    list.join(", ")
}

/// Text made safe for XML content and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_drawn_the_same_every_time() {
        let position = Position::default();
        let a = board_svg(&position, None, &SvgOptions::default());
        let b = board_svg(&position, None, &SvgOptions::default());
        assert_eq!(a, b);
        assert!(a.starts_with("<svg "), "{a}");
        assert!(a.contains("Red to move"));
        assert_eq!(a.matches(r#"class="piece""#).count(), 36);
        assert!(!a.contains("last-move"));
        // Every living piece and each caption entry carries its party's mark.
        assert_eq!(a.matches(r#"class="mark""#).count(), 36 + 4);
        assert_eq!(a.matches(r#"<path class="mark""#).count(), 2 * 9 + 2);
    }

    #[test]
    fn the_last_move_and_the_size() {
        let position = Position::default();
        let mv: Move = "C8-D7".parse().unwrap();
        let after = position.play(&mv).unwrap();
        let svg = board_svg(
            &after,
            Some(&mv),
            &SvgOptions {
                width: Some(300),
                caption: true,
                ..SvgOptions::default()
            },
        );
        assert!(svg.contains(r#"width="300" height="343""#), "{svg}");
        assert!(svg.contains("last move: from C8"));
        assert!(svg.contains("last move: to D7"));
        assert!(svg.contains("Blue to move"));
    }

    /// The relative luminance of `#RRGGBB` (WCAG 2.1).
    fn luminance(colour: &str) -> f64 {
        let hex = colour.strip_prefix('#').expect("#RRGGBB");
        assert_eq!(hex.len(), 6, "{colour}");
        let channel = |i: usize| {
            let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
    }

    /// The contrast ratio of two colours (WCAG 2.1), 1 to 21.
    fn contrast(a: &str, b: &str) -> f64 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    #[test]
    fn contrast_is_computed_as_wcag_says() {
        assert!((contrast("#000000", "#FFFFFF") - 21.0).abs() < 1e-9);
        // The old corpse letter on the old corpse disc: 3.76:1.
        assert!((contrast("#555555", "#B8B8B8") - 3.76).abs() < 0.01);
    }

    /// One corpse of each party (lower-case kinds are dead), and living pieces.
    fn with_corpses() -> Position {
        "RC8/9/9/9/4GC4/9/Ba1Yr1Gd4/2Rm6/BC7YC R RBYG 3"
            .parse()
            .expect("a DFEN with corpses")
    }

    #[test]
    fn corpses_are_legible_and_carry_their_party_mark() {
        let position = with_corpses();
        let svg = board_svg(&position, None, &SvgOptions::default());
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        let corpses: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("corpse"))
            .collect();
        assert_eq!(corpses.len(), 4, "{svg}");
        let shapes = [
            (Seat::Red, "path"),
            (Seat::Blue, "circle"),
            (Seat::Yellow, "rect"),
            (Seat::Green, "path"),
        ];
        for corpse in corpses {
            let title = corpse
                .children()
                .find(|n| n.has_tag_name("title"))
                .and_then(|n| n.text())
                .expect("a title");
            let disc = corpse
                .children()
                .find(|n| n.has_tag_name("circle"))
                .expect("the disc");
            let letter = corpse
                .children()
                .find(|n| n.has_tag_name("text"))
                .expect("the letter");
            let back = disc.attribute("fill").expect("the disc's fill");
            let ink = letter.attribute("fill").expect("the letter's fill");
            let ratio = contrast(ink, back);
            assert!(ratio >= 4.5, "{title}: {ink} on {back} is {ratio:.2}:1");
            // The halo round the letter is the disc's colour: the cross under the letter
            // does not lower its contrast.
            assert_eq!(letter.attribute("stroke"), Some(back), "{title}");
            assert_eq!(letter.attribute("paint-order"), Some("stroke"), "{title}");
            let cross = corpse
                .children()
                .find(|n| n.has_tag_name("path") && n.attribute("class").is_none())
                .expect("the cross");
            assert!(
                cross.range().start < letter.range().start,
                "{title}: the cross is drawn under the letter"
            );
            let cross_ratio = contrast(cross.attribute("stroke").expect("stroke"), back);
            assert!(
                cross_ratio >= 3.0,
                "{title}: the cross at {cross_ratio:.2}:1"
            );
            // The party, without colour: the same mark as a living piece's.
            let (party, shape) = shapes
                .iter()
                .find(|(seat, _)| title.starts_with(seat.name()))
                .expect("a party in the title");
            let marks: Vec<_> = corpse
                .children()
                .filter(|n| n.attribute("class") == Some("mark"))
                .collect();
            assert_eq!(marks.len(), 1, "{title}");
            assert!(marks[0].has_tag_name(*shape), "{title}: {party:?}");
            assert_eq!(
                marks[0].attribute("fill"),
                Some(colours(*party).0),
                "{title}"
            );
        }
    }

    #[test]
    fn the_last_move_arrow_is_drawn_under_the_pieces() {
        let position = Position::default();
        let mv: Move = "C8-D7".parse().unwrap();
        let after = position.play(&mv).unwrap();
        let svg = board_svg(&after, Some(&mv), &SvgOptions::default());
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        let order: Vec<&str> = doc
            .root_element()
            .children()
            .filter_map(|n| n.attribute("id").or(n.attribute("class")))
            .collect();
        let at = |what: &str| order.iter().position(|o| *o == what);
        let arrow = at("last-move-arrow").expect("the arrow");
        assert!(at("last-move").expect("the highlight") < arrow, "{order:?}");
        assert!(arrow < at("piece").expect("a piece"), "{order:?}");
        assert!(
            !order[arrow..].contains(&"squares"),
            "the arrow is over the board: {order:?}"
        );
        // The moved piece, on D7, is drawn after (over) the arrow.
        let d7 = doc
            .descendants()
            .find(|n| {
                n.attribute("class") == Some("piece")
                    && n.children().any(|t| {
                        t.has_tag_name("title") && t.text().is_some_and(|t| t.ends_with("on D7"))
                    })
            })
            .expect("the piece on D7");
        let arrow_node = doc
            .descendants()
            .find(|n| n.attribute("id") == Some("last-move-arrow"))
            .unwrap();
        assert!(arrow_node.range().end <= d7.range().start);
    }

    #[test]
    fn a_game_waiting_for_players_says_so_not_whose_turn() {
        let position = Position::default();
        let svg = board_svg_before_start(&position, &SvgOptions::default());
        assert!(!svg.contains("to move"), "{svg}");
        assert!(
            svg.contains("Djambi board, ply 0: Waiting for players: the position before the start"),
            "{svg}"
        );
        assert!(
            svg.contains(r#"font-weight="bold">Waiting for players"#),
            "the caption: {svg}"
        );
        assert_eq!(svg.matches(r#"class="piece""#).count(), 36);
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
    }
}
