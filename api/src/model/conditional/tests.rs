use domain::{GameSettings, Position};
use proptest::prelude::*;

use super::*;

/// A small deterministic generator (no dependency on the order of a hash map).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn start() -> Game {
    Game::new(GameSettings::four_players()).unwrap()
}

/// Plays `n` random legal moves (fewer if the game ends).
fn random_game(rng: &mut Lcg, n: usize) -> Game {
    let mut game = start();
    for _ in 0..n {
        if play_random(rng, &mut game).is_none() {
            break;
        }
    }
    game
}

fn play_random(rng: &mut Lcg, game: &mut Game) -> Option<Move> {
    if game.is_over() {
        return None;
    }
    let moves = game.position().legal_moves();
    if moves.is_empty() {
        return None;
    }
    let mv = moves[rng.below(moves.len())];
    game.apply(&Action::Move(mv)).unwrap();
    Some(mv)
}

fn text(position: &Position, mv: &Move) -> String {
    position.move_text(mv).to_string()
}

/// Red moves first: after Red's move, a line for Red is Blue, Yellow, Green, then Red.
fn after_red() -> (Game, [Move; 4]) {
    let mut game = start();
    let mut rng = Lcg(7);
    play_random(&mut rng, &mut game).unwrap();
    let mut probe = game.clone();
    let mut moves = [Move::plain("A1".parse().unwrap(), "A1".parse().unwrap()); 4];
    for m in &mut moves {
        *m = play_random(&mut rng, &mut probe).unwrap();
    }
    (game, moves)
}

fn line_text(base: &Game, plies: &[Move]) -> String {
    let mut game = base.clone();
    let mut out = Vec::new();
    for mv in plies {
        let seat = game.position().to_move().unwrap();
        out.push(format!("{seat} {}", text(game.position(), mv)));
        game.apply(&Action::Move(*mv)).unwrap();
    }
    out.join(" ")
}

fn err(base: &Game, seat: Seat, lines: &[String]) -> LineError {
    Tree::check(base, seat, lines).expect_err("refused")
}

#[test]
fn both_notations_read_alike_and_print_canonically() {
    let (base, m) = after_red();
    let flat = line_text(&base, &m);
    let tree = Tree::check(&base, Seat::Red, std::slice::from_ref(&flat)).unwrap();
    assert_eq!(tree.texts(&base), vec![flat.clone()]);
    // The mail form: `if` ... `then` with a bare answer, in lower case.
    let words: Vec<&str> = flat.split(' ').collect();
    let mail = format!(
        "if {} {} {} {} {} {} then {}",
        words[0],
        words[1].to_lowercase(),
        words[2],
        words[3],
        words[4].to_lowercase(),
        words[5],
        words[7]
    );
    let same = Tree::check(&base, Seat::Red, &[mail]).unwrap();
    assert_eq!(same, tree);
    assert_eq!(tree.leaves(), 1);
    let stored = tree.stored_text(&base);
    assert_eq!(Tree::from_stored(Seat::Red, &stored), Some(tree));
}

#[test]
fn bad_lines_are_named_by_line_and_ply() {
    let (base, m) = after_red();
    let good = line_text(&base, &m);
    // A ply of the wrong seat: line 2, ply 2.
    let words: Vec<&str> = good.split(' ').collect();
    let wrong_seat = format!("{} {} G {}", words[0], words[1], words[3]);
    let e = err(&base, Seat::Red, &[good.clone(), wrong_seat]);
    assert_eq!((e.line, e.ply), (2, Some(2)), "{e}");
    assert!(
        e.to_string()
            .starts_with("line 2, ply 2: Y is to move here")
    );
    // An illegal move: line 1, ply 1 (a Blue piece cannot move from an empty square).
    let e = err(&base, Seat::Red, &["B E5-E4 R A7-A6".to_string()]);
    assert_eq!((e.line, e.ply), (1, Some(1)), "{e}");
    assert!(e.reason.contains("illegal"), "{e}");
    // Not a move, not a seat.
    let e = err(&base, Seat::Red, &["B G8".to_string()]);
    assert_eq!((e.line, e.ply), (1, Some(1)));
    let e = err(&base, Seat::Red, &["Q G8-G6".to_string()]);
    assert_eq!((e.line, e.ply), (1, Some(1)));
    assert!(e.reason.contains("seat letter"));
    let e = err(&base, Seat::Red, &[format!("{good} then")]);
    assert_eq!((e.line, e.ply), (1, Some(5)));
    // Ends without Red's answer.
    let partial = words[..6].join(" ");
    let e = err(&base, Seat::Red, &[partial]);
    assert_eq!((e.line, e.ply), (1, Some(3)), "{e}");
    // Starts with Red's own move: on Red's turn it is Blue's line, not Red's.
    let e = err(&base, Seat::Blue, std::slice::from_ref(&good));
    assert_eq!((e.line, e.ply), (1, Some(1)), "{e}");
    // Empty, too many lines, a line too deep.
    assert_eq!(err(&base, Seat::Red, &[]).line, 0);
    assert_eq!(err(&base, Seat::Red, &["   ".into()]).line, 1);
    let many = vec![good.clone(); MAX_LINES + 1];
    assert_eq!(err(&base, Seat::Red, &many).line, 0);
    assert_eq!(
        Tree::check(&base, Seat::Red, &vec![good.clone(); MAX_LINES])
            .unwrap()
            .leaves(),
        1,
        "the same line twice is one leaf"
    );
    let mut rng = Lcg(3);
    let mut probe = base.clone();
    let deep: Vec<Move> = (0..MAX_PLIES + 4)
        .map(|_| play_random(&mut rng, &mut probe).unwrap())
        .collect();
    let deep_text = line_text(&base, &deep);
    let e = err(&base, Seat::Red, &[deep_text]);
    assert_eq!((e.line, e.ply), (1, Some(MAX_PLIES + 1)), "{e}");
    let long = format!("{good}{}", " ".repeat(MAX_LINE_BYTES));
    assert_eq!(err(&base, Seat::Red, &[long]).ply, None);
}

#[test]
fn two_answers_at_one_point_conflict() {
    let (base, m) = after_red();
    let mut probe = base.clone();
    for mv in &m[..3] {
        probe.apply(&Action::Move(*mv)).unwrap();
    }
    let other = *probe
        .position()
        .legal_moves()
        .iter()
        .find(|x| **x != m[3])
        .unwrap();
    let a = line_text(&base, &m);
    let b = line_text(&base, &[m[0], m[1], m[2], other]);
    let e = err(&base, Seat::Red, &[a, b]);
    assert_eq!((e.line, e.ply), (2, Some(4)), "{e}");
    assert!(e.reason.starts_with("line 1 answers"), "{e}");
}

#[test]
fn a_line_of_one_round_plays_then_is_used_up() {
    let (base, m) = after_red();
    let tree = Tree::check(&base, Seat::Red, &[line_text(&base, &m)]).unwrap();
    let played: Vec<Action> = m.iter().map(|x| Action::Move(*x)).collect();
    assert_eq!(tree.next(&[], Some(Seat::Blue)), Next::Wait);
    assert_eq!(tree.next(&played[..1], Some(Seat::Yellow)), Next::Wait);
    assert_eq!(tree.next(&played[..3], Some(Seat::Red)), Next::Play(m[3]));
    assert_eq!(tree.advance(&played), None, "nothing goes on");
    assert_eq!(tree.next(&played, Some(Seat::Blue)), Next::Exhausted);
    // A move nobody expected: discarded, naming it.
    let mut probe = base.clone();
    let surprise = *probe
        .position()
        .legal_moves()
        .iter()
        .find(|x| **x != m[0])
        .unwrap();
    let odd = [Action::Move(surprise)];
    assert_eq!(tree.next(&odd, Some(Seat::Yellow)), Next::Discard { at: 0 });
    let said = describe(&base, &odd, 0);
    assert_eq!(
        said,
        format!("Blue played {}", text(probe.position(), &surprise))
    );
    probe.apply(&odd[0]).unwrap();
    // A resignation changes the turn order: no line matches.
    let resigned = [played[0], Action::Resign(Seat::Yellow)];
    assert_eq!(
        tree.next(&resigned, Some(Seat::Green)),
        Next::Discard { at: 1 }
    );
    assert_eq!(describe(&base, &resigned, 1), "Yellow resigned");
    let timed_out = [played[0], played[1], Action::Timeout(Seat::Green)];
    assert_eq!(
        tree.next(&timed_out, Some(Seat::Red)),
        Next::Discard { at: 2 }
    );
}

#[test]
fn lines_of_several_rounds_keep_their_continuation() {
    let (base, _) = after_red();
    let mut rng = Lcg(11);
    let mut probe = base.clone();
    let plies: Vec<Move> = (0..8)
        .map(|_| play_random(&mut rng, &mut probe).unwrap())
        .collect();
    // Two rounds: B Y G R B Y G R.
    let tree = Tree::check(&base, Seat::Red, &[line_text(&base, &plies)]).unwrap();
    let played: Vec<Action> = plies.iter().map(|x| Action::Move(*x)).collect();
    assert_eq!(
        tree.next(&played[..3], Some(Seat::Red)),
        Next::Play(plies[3])
    );
    let rest = tree.advance(&played[..4]).expect("a second round");
    assert_eq!(rest.lines().len(), 1);
    assert_eq!(rest.lines()[0].len(), 4);
    assert_eq!(
        rest.next(&played[4..7], Some(Seat::Red)),
        Next::Play(plies[7])
    );
    assert_eq!(rest.advance(&played[4..]), None);
}

/// A ruler's bonus turn inside a line: random games until a chief rules the maze, then
/// a line through its bonus turns is accepted with the seats the rules give, and a line
/// that skips the bonus turn is refused at that ply.
#[test]
fn a_rulers_bonus_turn_is_a_ply_of_the_line() {
    for seed in 0..4000u64 {
        let mut rng = Lcg(seed);
        let mut game = start();
        let mut found = None;
        for _ in 0..120 {
            if play_random(&mut rng, &mut game).is_none() {
                break;
            }
            let p = game.position();
            if let Some(ruler) = p.ruler() {
                if p.active_seats().len() == 4 && p.to_move().is_some_and(|s| s != ruler) {
                    found = Some(ruler);
                    break;
                }
            }
        }
        let Some(ruler) = found else { continue };
        // The seat that answers: the first one to move after the ruler's next bonus that
        // is neither the ruler nor the seat to move now.
        let base = game.clone();
        let mover = base.position().to_move().unwrap();
        let mut probe = base.clone();
        let mut plies = Vec::new();
        let mut seats = Vec::new();
        while plies.len() < 8 && !probe.is_over() {
            seats.push(probe.position().to_move().unwrap());
            plies.push(play_random(&mut rng, &mut probe).unwrap());
        }
        if probe.position().ruler() != Some(ruler) {
            continue;
        }
        // The rules put the ruler after every other seat's regular turn.
        let Some(bonus) = seats
            .iter()
            .skip(1)
            .position(|s| *s == ruler)
            .map(|i| i + 1)
        else {
            continue;
        };
        let Some(answer_at) = seats
            .iter()
            .enumerate()
            .skip(bonus + 1)
            .find(|(_, s)| **s != ruler && **s != mover)
            .map(|(i, _)| i)
        else {
            continue;
        };
        let who = seats[answer_at];
        if seats[..answer_at].contains(&who) {
            continue;
        }
        let line = line_text(&base, &plies[..=answer_at]);
        let tree = Tree::check(&base, who, std::slice::from_ref(&line)).unwrap();
        let played: Vec<Action> = plies[..answer_at]
            .iter()
            .map(|m| Action::Move(*m))
            .collect();
        assert_eq!(tree.next(&played, Some(who)), Next::Play(plies[answer_at]));
        // Leave the bonus ply out: the next ply's seat is not the one to move there.
        let mut without: Vec<&str> = line.split(' ').collect();
        without.drain(bonus * 2..bonus * 2 + 2);
        let e = err(&base, who, &[without.join(" ")]);
        assert_eq!(e.ply, Some(bonus + 1), "{e}");
        return;
    }
    panic!("no random game reached a ruler");
}

/// For a random game, a random seat and a random tree of lines from the position, and
/// random continuations that follow a line or leave it: whenever the seat is to move and
/// what was played since the base starts a line, the answer is that line's next move,
/// legal, and the position after it is the one the rules give for the line's text
/// replayed from the base; when it starts none, the tree is discarded. The continuation
/// after an answer goes on the same way.
fn check_random(seed: u64, opening: usize, n_lines: usize, follow: u8) -> (usize, usize) {
    let mut answers = 0;
    let mut rng = Lcg(seed);
    let base = random_game(&mut rng, opening);
    if base.is_over() {
        return (answers, 0);
    }
    let to_move = base.position().to_move().unwrap();
    let others: Vec<Seat> = base
        .position()
        .active_seats()
        .iter()
        .filter(|s| *s != to_move)
        .collect();
    if others.is_empty() {
        return (answers, 0);
    }
    let seat = others[rng.below(others.len())];
    // Random lines: random legal plies until the seat's turn, its random answer, maybe
    // another round; lines that would answer differently at a shared point are left out.
    let mut texts = Vec::new();
    for _ in 0..n_lines {
        let mut probe = base.clone();
        let mut plies = Vec::new();
        let rounds = 1 + rng.below(2);
        let mut answered = 0;
        while plies.len() < MAX_PLIES && answered < rounds {
            let Some(mover) = probe.position().to_move().filter(|_| !probe.is_over()) else {
                break;
            };
            let Some(mv) = play_random(&mut rng, &mut probe) else {
                break;
            };
            plies.push(mv);
            if mover == seat {
                answered += 1;
            }
        }
        if answered == 0 {
            continue;
        }
        // Cut after the last answer.
        let mut g = base.clone();
        let mut last = 0;
        for (i, mv) in plies.iter().enumerate() {
            if g.position().to_move() == Some(seat) {
                last = i + 1;
            }
            g.apply(&Action::Move(*mv)).unwrap();
        }
        let text = line_text(&base, &plies[..last]);
        let mut candidate = texts.clone();
        candidate.push(text);
        if Tree::check(&base, seat, &candidate).is_ok() {
            texts = candidate;
        }
    }
    if texts.is_empty() {
        return (answers, 0);
    }
    let mut tree = Tree::check(&base, seat, &texts).unwrap();
    // The reference: the lines as texts, replayed by the rules from the base.
    let reference: Vec<Vec<(Seat, String)>> = texts
        .iter()
        .map(|t| {
            let w: Vec<&str> = t.split(' ').collect();
            w.chunks(2)
                .map(|c| (c[0].parse().unwrap(), c[1].to_string()))
                .collect()
        })
        .collect();
    let mut game = base.clone();
    let mut tree_base = 0;
    let mut all: Vec<Action> = Vec::new();
    let mut chosen = rng.below(reference.len());
    for _ in 0..30 {
        let Some(mover) = game.position().to_move().filter(|_| !game.is_over()) else {
            return (answers, 0);
        };
        let played = &all[tree_base..];
        let next = tree.next(played, Some(mover));
        // The reference lines that start with everything played since the first base.
        let matching: Vec<&Vec<(Seat, String)>> = reference
            .iter()
            .filter(|line| {
                let mut g = base.clone();
                line.len() >= all.len()
                    && line.iter().zip(&all).all(|((_, t), a)| {
                        g.apply(&Action::Move(t.parse().unwrap())).is_ok()
                            && *a == Action::Move(t.parse().unwrap())
                    })
            })
            .collect();
        if matching.is_empty() {
            assert!(matches!(next, Next::Discard { .. }), "{next:?}");
            return (answers, 1);
        }
        if mover == seat {
            let Next::Play(mv) = next else {
                if matching.iter().all(|l| l.len() == all.len()) {
                    assert_eq!(next, Next::Exhausted);
                    return (answers, 0);
                }
                panic!("expected an answer, got {next:?}");
            };
            let line = matching.iter().find(|l| l.len() > all.len()).unwrap();
            let (s, t) = &line[all.len()];
            assert_eq!(*s, seat);
            // The answer is the line's text read in the position, and legal there.
            assert_eq!(text(game.position(), &mv), *t);
            let mut reference_game = base.clone();
            for (_, t) in &line[..=all.len()] {
                reference_game
                    .apply(&Action::Move(t.parse().unwrap()))
                    .unwrap();
            }
            game.apply(&Action::Move(mv)).expect("a legal answer");
            answers += 1;
            assert_eq!(game.position(), reference_game.position());
            all.push(Action::Move(mv));
            match tree.advance(&all[tree_base..]) {
                Some(rest) => {
                    tree = rest;
                    tree_base = all.len();
                }
                None => return (answers, 0),
            }
            continue;
        }
        assert!(
            matches!(next, Next::Wait | Next::Exhausted),
            "{mover} to move: {next:?}"
        );
        // A rival's move: the chosen line's next ply, or (sometimes) a random move.
        let line = matching
            .iter()
            .find(|l| l.len() > all.len())
            .copied()
            .unwrap_or(&reference[chosen]);
        let planned = line
            .get(all.len())
            .filter(|_| rng.below(100) < usize::from(follow));
        let mv = match planned {
            Some((_, t)) => {
                let mv: Move = t.parse().unwrap();
                game.apply(&Action::Move(mv)).unwrap();
                mv
            }
            None => {
                chosen = rng.below(reference.len());
                match play_random(&mut rng, &mut game) {
                    Some(mv) => mv,
                    None => return (answers, 0),
                }
            }
        };
        all.push(Action::Move(mv));
    }
    (answers, 0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn what_is_played_is_the_matched_lines_move(
        seed in any::<u64>(),
        opening in 0usize..60,
        n_lines in 1usize..12,
        follow in 60u8..100,
    ) {
        check_random(seed, opening, n_lines, follow);
    }
}

/// The random cases do reach both outcomes: answers played (through several rounds) and
/// trees discarded.
#[test]
fn random_trees_are_answered_and_discarded() {
    let (mut answers, mut discards) = (0, 0);
    for seed in 0..300u64 {
        let (a, d) = check_random(seed, (seed % 50) as usize, 1 + (seed % 8) as usize, 85);
        answers += a;
        discards += d;
    }
    assert!(answers > 100, "{answers} answers");
    assert!(discards > 30, "{discards} discards");
}
