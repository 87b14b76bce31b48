//! The rating model: the Weng-Lin Bayesian approximation (Weng and Lin, "A Bayesian
//! approximation method for online ranking", JMLR 12, 2011) with the Plackett-Luce
//! model, Algorithm 4 of the paper: the model the openskill libraries call
//! `PlackettLuce`, with their defaults (mu 25, sigma 25/3, beta 25/6, kappa 0.0001, the
//! additive dynamics tau = 25/300, gamma = sigma / c).
//!
//! Each player is a team of one; shared places are ties (`A_q`, the number of players
//! sharing `q`'s place, divides each term as in openskill). Pure: the same ratings and
//! ranks in the same order give bit-identical results, which `recompute-ratings` relies
//! on.
//!
//! Why not the `skillratings` crate: its `weng_lin_multi_team` is the Bradley-Terry
//! full-pairing variant (Algorithm 1), not Plackett-Luce. This file is checked against
//! openskill 6.2.0 (Python) on random games in `tests/ratings_openskill.rs`.

/// The prior mean of a new player.
pub const MU: f64 = 25.0;
/// The prior deviation of a new player.
pub const SIGMA: f64 = 25.0 / 3.0;
/// The skill-class width.
pub const BETA: f64 = 25.0 / 6.0;
/// The additive dynamics factor (keeps sigma from collapsing), openskill's default.
pub const TAU: f64 = 25.0 / 300.0;
/// The floor of the variance shrink factor, openskill's default.
pub const KAPPA: f64 = 0.0001;
/// A rating is provisional while its deviation is above this. With the parameters above
/// that takes dozens of games, not a dozen: four players who only play one another get
/// under it after 48 games, three after 39 (`tests/ratings.rs` checks the README's
/// figures); a newcomer among established players takes fewer, among newcomers more.
pub const PROVISIONAL_SIGMA: f64 = 4.0;

/// A player's skill belief.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skill {
    pub mu: f64,
    pub sigma: f64,
}

impl Default for Skill {
    fn default() -> Self {
        Skill {
            mu: MU,
            sigma: SIGMA,
        }
    }
}

impl Skill {
    /// The rating shown: the conservative estimate mu − 3·sigma.
    pub fn display(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// Whether the rating is still provisional (too uncertain to rank on).
    pub fn provisional(&self) -> bool {
        self.sigma > PROVISIONAL_SIGMA
    }
}

/// The new skills of the players of one game, in the order given. `ranks[i]` is player
/// `i`'s place (0 best; equal numbers share a place). Fewer than two players, or
/// mismatched lengths, change nothing.
pub fn rate(players: &[Skill], ranks: &[usize]) -> Vec<Skill> {
    if players.len() < 2 || players.len() != ranks.len() {
        return players.to_vec();
    }
    let n = players.len();
    let tau_sq = TAU * TAU;
    let sigma_sq: Vec<f64> = players.iter().map(|p| p.sigma * p.sigma + tau_sq).collect();
    let beta_sq = BETA * BETA;
    let c = sigma_sq.iter().map(|s| s + beta_sq).sum::<f64>().sqrt();
    let e: Vec<f64> = players.iter().map(|p| (p.mu / c).exp()).collect();
    // sum_q[q]: over the players placed at q's place or below.
    let sum_q: Vec<f64> = (0..n)
        .map(|q| (0..n).filter(|&i| ranks[i] >= ranks[q]).map(|i| e[i]).sum())
        .collect();
    let a: Vec<f64> = (0..n)
        .map(|q| ranks.iter().filter(|&&r| r == ranks[q]).count() as f64)
        .collect();
    (0..n)
        .map(|i| {
            let (mut omega, mut delta) = (0.0, 0.0);
            for q in (0..n).filter(|&q| ranks[q] <= ranks[i]) {
                let x = e[i] / sum_q[q];
                delta += x * (1.0 - x) / a[q];
                if q == i {
                    omega += (1.0 - x) / a[q];
                } else {
                    omega -= x / a[q];
                }
            }
            omega *= sigma_sq[i] / c;
            delta *= sigma_sq[i] / (c * c);
            let gamma = sigma_sq[i].sqrt() / c;
            delta *= gamma;
            // A team of one: sigma_i² / team sigma² is 1.
            let sigma = sigma_sq[i].sqrt() * (1.0 - delta).max(KAPPA).sqrt();
            Skill {
                mu: players[i].mu + omega,
                sigma,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn a_winner_gains_a_loser_loses_and_everyone_grows_surer() {
        let after = rate(&[Skill::default(); 4], &[0, 1, 2, 3]);
        assert!(after[0].mu > 25.0 && after[3].mu < 25.0);
        assert!(after[0].mu > after[1].mu && after[1].mu > after[2].mu);
        assert!(after.iter().all(|s| s.sigma < SIGMA));
        // Reference figures from openskill 6.2.0: PlackettLuce().rate([[r]]*4, ranks=[0,1,2,3]).
        assert!(close(after[0].mu, 27.795252672501135), "{}", after[0].mu);
    }

    #[test]
    fn equal_players_sharing_a_place_move_alike() {
        let after = rate(&[Skill::default(); 3], &[0, 1, 1]);
        assert_eq!(after[1], after[2]);
        let all_tied = rate(&[Skill::default(); 3], &[0, 0, 0]);
        assert!(all_tied.iter().all(|s| close(s.mu, 25.0)));
    }

    #[test]
    fn degenerate_inputs_change_nothing() {
        let one = [Skill::default()];
        assert_eq!(rate(&one, &[0]), one.to_vec());
        assert_eq!(
            rate(&[Skill::default(); 2], &[0]),
            vec![Skill::default(); 2]
        );
    }

    #[test]
    fn the_shown_rating_is_conservative() {
        let s = Skill::default();
        assert!(close(s.display(), 0.0));
        assert!(s.provisional());
    }
}
