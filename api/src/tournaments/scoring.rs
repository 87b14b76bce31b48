//! Points by final place, and the order of the standings. Points are counted in
//! half-points (`u32`), so that shared places share exactly: see `docs/tournaments.md`.

use domain::Seat;

/// Half-points for 1st, 2nd, 3rd and 4th place at a table (3, 2, 1, 0 points).
pub const PLACE_HALVES: [u32; 4] = [6, 4, 2, 0];
/// Half-points for a round sat out (the mean of a table: 1.5 points).
pub const BYE_HALVES: u32 = 3;

/// The half-points each seat of a finished game scores, from the game's ranking (places
/// best first, seats sharing a place listed together). Seats sharing a place share the
/// points of the places they cover: two sharing 1st get (3 + 2) / 2 = 2.5 each.
pub fn table_halves(ranking: &[Vec<Seat>]) -> Vec<(Seat, u32)> {
    let mut out = Vec::new();
    let mut place = 0usize;
    for group in ranking {
        if group.is_empty() {
            continue;
        }
        let end = (place + group.len()).min(PLACE_HALVES.len());
        let covered: u32 = PLACE_HALVES[place.min(end)..end].iter().sum();
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
        let r = table_halves(&[vec![Blue], vec![Red], vec![Green], vec![Yellow]]);
        assert_eq!(r, vec![(Blue, 6), (Red, 4), (Green, 2), (Yellow, 0)]);
    }

    #[test]
    fn shared_places_share_their_points() {
        // A draw between two survivors, the others eliminated in turn.
        let r = table_halves(&[vec![Red, Blue], vec![Green], vec![Yellow]]);
        assert_eq!(r, vec![(Red, 5), (Blue, 5), (Green, 2), (Yellow, 0)]);
        let r = table_halves(&[vec![Red], vec![Blue, Yellow, Green]]);
        assert_eq!(r, vec![(Red, 6), (Blue, 2), (Yellow, 2), (Green, 2)]);
        let r = table_halves(&[vec![Red, Blue, Yellow, Green]]);
        assert!(r.iter().all(|&(_, h)| h == 3));
        // Three seats (a table with an empty seat): 3, 2, 1.
        let r = table_halves(&[vec![Red], vec![Blue], vec![Yellow]]);
        assert_eq!(r, vec![(Red, 6), (Blue, 4), (Yellow, 2)]);
    }

    #[test]
    fn points_print_with_halves() {
        assert_eq!(points_text(5), "2.5");
        assert_eq!(points_text(6), "3");
        assert_eq!(points_text(0), "0");
    }
}
