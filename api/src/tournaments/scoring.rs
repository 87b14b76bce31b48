//! Points by final place, and the order of the standings. Points are counted in
//! half-points (`u32`), so that shared places share exactly: see `docs/tournaments.md`.
//!
//! At a table of `k` seats (the event's seats per table, 3 or 4) 1st place scores
//! `k − 1` points, each place one less, the last nothing: 3, 2, 1, 0 at four seats; 2, 1,
//! 0 at three. A round sat out scores the mean of a table, `(k − 1) / 2`.

use domain::Seat;

/// Half-points for each place at a `k`-seat table, 1st first: `[6, 4, 2, 0]` (3, 2, 1, 0
/// points) for four seats, `[4, 2, 0]` for three.
pub fn place_halves(k: usize) -> Vec<u32> {
    (0..k as u32).rev().map(|p| 2 * p).collect()
}

/// Half-points for a round sat out at `k`-seat tables: the mean of a table (1.5 points
/// for four seats, 1 for three).
pub fn bye_halves(k: usize) -> u32 {
    (k as u32).saturating_sub(1)
}

/// The half-points each seat of a finished game at a `k`-seat table scores, from the
/// game's ranking (places best first, seats sharing a place listed together). Seats
/// sharing a place share the points of the places they cover: two sharing 1st at four
/// seats get (3 + 2) / 2 = 2.5 each. A four-seat table played by three (an empty seat)
/// scores 3, 2, 1.
pub fn table_halves(ranking: &[Vec<Seat>], k: usize) -> Vec<(Seat, u32)> {
    let places = place_halves(k);
    let mut out = Vec::new();
    let mut place = 0usize;
    for group in ranking {
        if group.is_empty() {
            continue;
        }
        let end = (place + group.len()).min(places.len());
        let covered: u32 = places[place.min(end)..end].iter().sum();
        let share = covered / group.len() as u32;
        for &seat in group {
            out.push((seat, share));
        }
        place += group.len();
    }
    out
}

/// Formats half-points as points: `5` -> `"2.5"`, `6` -> `"3"`.
pub fn points_text(halves: u32) -> String {
    if halves % 2 == 0 {
        (halves / 2).to_string()
    } else {
        format!("{}.5", halves / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Seat::*;

    #[test]
    fn places_score_three_two_one_nothing() {
        let r = table_halves(&[vec![Blue], vec![Red], vec![Green], vec![Yellow]], 4);
        assert_eq!(r, vec![(Blue, 6), (Red, 4), (Green, 2), (Yellow, 0)]);
        assert_eq!(place_halves(4), vec![6, 4, 2, 0]);
        assert_eq!(bye_halves(4), 3);
    }

    #[test]
    fn shared_places_share_their_points() {
        // A draw between two survivors, the others eliminated in turn.
        let r = table_halves(&[vec![Red, Blue], vec![Green], vec![Yellow]], 4);
        assert_eq!(r, vec![(Red, 5), (Blue, 5), (Green, 2), (Yellow, 0)]);
        let r = table_halves(&[vec![Red], vec![Blue, Yellow, Green]], 4);
        assert_eq!(r, vec![(Red, 6), (Blue, 2), (Yellow, 2), (Green, 2)]);
        let r = table_halves(&[vec![Red, Blue, Yellow, Green]], 4);
        assert!(r.iter().all(|&(_, h)| h == 3));
        // Three seats (a table with an empty seat): 3, 2, 1.
        let r = table_halves(&[vec![Red], vec![Blue], vec![Yellow]], 4);
        assert_eq!(r, vec![(Red, 6), (Blue, 4), (Yellow, 2)]);
    }

    #[test]
    fn three_seat_tables_score_two_one_nothing() {
        assert_eq!(place_halves(3), vec![4, 2, 0]);
        let r = table_halves(&[vec![Yellow], vec![Red], vec![Blue]], 3);
        assert_eq!(r, vec![(Yellow, 4), (Red, 2), (Blue, 0)]);
        // Two share 1st: (2 + 1) / 2 = 1.5 each; two share 2nd: (1 + 0) / 2.
        let r = table_halves(&[vec![Red, Blue], vec![Yellow]], 3);
        assert_eq!(r, vec![(Red, 3), (Blue, 3), (Yellow, 0)]);
        let r = table_halves(&[vec![Blue], vec![Red, Yellow]], 3);
        assert_eq!(r, vec![(Blue, 4), (Red, 1), (Yellow, 1)]);
        // All three share: 1 each, the mean, which a bye scores too.
        let r = table_halves(&[vec![Red, Blue, Yellow]], 3);
        assert!(r.iter().all(|&(_, h)| h == 2));
        assert_eq!(bye_halves(3), 2);
        // Every share is a whole number of half-points, and a table hands out k (k - 1)
        // half-points whatever its ranking.
        for k in [3usize, 4] {
            let seats: Vec<Seat> = Seat::ALL.into_iter().take(k).collect();
            for cut in 0u32..(1 << (k - 1)) {
                let mut ranking: Vec<Vec<Seat>> = vec![vec![seats[0]]];
                for (i, &s) in seats.iter().enumerate().skip(1) {
                    if cut & (1 << (i - 1)) != 0 {
                        ranking.last_mut().unwrap().push(s);
                    } else {
                        ranking.push(vec![s]);
                    }
                }
                let r = table_halves(&ranking, k);
                let total: u32 = r.iter().map(|&(_, h)| h).sum();
                assert_eq!(total, (k * (k - 1)) as u32, "{ranking:?}");
                assert_eq!(total, k as u32 * bye_halves(k), "a bye is the mean");
            }
        }
    }

    #[test]
    fn points_print_with_halves() {
        assert_eq!(points_text(5), "2.5");
        assert_eq!(points_text(6), "3");
        assert_eq!(points_text(0), "0");
    }
}
