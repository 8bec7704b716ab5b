//! Bradley-Terry ratings by maximum likelihood, with a weak prior and 95% intervals.
//!
//! The model: player `a` scores against `b` with probability
//! `1 / (1 + 10^((r_b - r_a) / 400))`, a draw counting as half a win (the Elo scale). The
//! fit maximises the likelihood of all games plus [`PRIOR_DRAWS`] virtual draws between
//! every pair that met (BayesElo's prior): it keeps an unbeaten player's rating finite and
//! barely moves anyone else. Newton's method with step halving finds the maximum; the
//! inverse of the negative Hessian there (the observed Fisher information) gives each
//! rating's variance, relative to the anchor, whose rating is 0 by definition.

use crate::arena::signed_elo;
use crate::error::PlayError;

/// Virtual draws added to every pair of players that played each other.
pub const PRIOR_DRAWS: f64 = 1.0;

/// Elo points per natural log-odds unit: `400 / ln 10`.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// The games two players played against each other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairResult {
    /// One player (an index into the players).
    pub a: usize,
    /// The other player.
    pub b: usize,
    /// A's points: wins plus half the draws.
    pub score_a: f64,
    /// Games played.
    pub games: f64,
}

/// A fitted rating on the Elo scale, relative to the anchor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The maximum a posteriori rating.
    pub elo: f64,
    /// The lower end of the 95% interval.
    pub low: f64,
    /// The upper end of the 95% interval.
    pub high: f64,
}

/// Fits ratings for `names.len()` players from `results`, with `anchor` fixed at 0.
///
/// Fails if some player is not linked to the anchor by a chain of games (its rating would
/// be arbitrary); `names` serve the error message.
pub fn fit_ratings(
    names: &[String],
    results: &[PairResult],
    anchor: usize,
) -> Result<Vec<Rating>, PlayError> {
    let n = names.len();
    check_connected(names, results, anchor)?;
    // Games and points per ordered pair, prior included.
    let mut pairs: Vec<(usize, usize, f64, f64)> = Vec::new();
    for r in results.iter().filter(|r| r.games > 0.0 && r.a != r.b) {
        match pairs
            .iter_mut()
            .find(|p| (p.0, p.1) == (r.a, r.b) || (p.0, p.1) == (r.b, r.a))
        {
            Some(p) if p.0 == r.a => {
                p.2 += r.score_a;
                p.3 += r.games;
            }
            Some(p) => {
                p.2 += r.games - r.score_a;
                p.3 += r.games;
            }
            None => pairs.push((
                r.a,
                r.b,
                r.score_a + PRIOR_DRAWS / 2.0,
                r.games + PRIOR_DRAWS,
            )),
        }
    }
    // Free variables: every player but the anchor.
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let slot = |player: usize| free.iter().position(|&f| f == player);
    let mut theta = vec![0.0; n];
    for _ in 0..200 {
        let (gradient, information) = derivatives(&theta, &pairs, &free, &slot);
        let Some(step) = solve(&information, &gradient) else {
            break;
        };
        let before = log_likelihood(&theta, &pairs);
        let mut scale = 1.0;
        let mut next = theta.clone();
        loop {
            for (k, &player) in free.iter().enumerate() {
                next[player] = theta[player] + scale * step[k];
            }
            if log_likelihood(&next, &pairs) >= before - 1e-12 || scale < 1e-6 {
                break;
            }
            scale /= 2.0;
        }
        let change = step.iter().fold(0.0f64, |m, s| m.max((scale * s).abs()));
        theta = next;
        if change < 1e-10 {
            break;
        }
    }
    let (_, information) = derivatives(&theta, &pairs, &free, &slot);
    let covariance = invert(&information);
    Ok((0..n)
        .map(|player| {
            let half = match (slot(player), &covariance) {
                (Some(k), Some(cov)) => 1.96 * cov[k][k].max(0.0).sqrt() * ELO_PER_NAT,
                (Some(_), None) => f64::INFINITY,
                (None, _) => 0.0,
            };
            let elo = theta[player] * ELO_PER_NAT;
            Rating {
                elo,
                low: elo - half,
                high: elo + half,
            }
        })
        .collect())
}

fn check_connected(
    names: &[String],
    results: &[PairResult],
    anchor: usize,
) -> Result<(), PlayError> {
    let mut reached = vec![false; names.len()];
    reached[anchor] = true;
    let mut grew = true;
    while grew {
        grew = false;
        for r in results.iter().filter(|r| r.games > 0.0) {
            if reached[r.a] != reached[r.b] {
                reached[r.a] = true;
                reached[r.b] = true;
                grew = true;
            }
        }
    }
    match reached.iter().position(|&r| !r) {
        Some(player) => Err(PlayError::Unrated {
            player: names[player].clone(),
            anchor: names[anchor].clone(),
        }),
        None => Ok(()),
    }
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn log_likelihood(theta: &[f64], pairs: &[(usize, usize, f64, f64)]) -> f64 {
    pairs
        .iter()
        .map(|&(a, b, score, games)| {
            let d = theta[a] - theta[b];
            // ln sigma(d) = -ln(1 + e^-d), computed stably.
            let ln_win = -softplus(-d);
            let ln_loss = -softplus(d);
            score * ln_win + (games - score) * ln_loss
        })
        .sum()
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// The gradient of the log-likelihood and the negative Hessian, over the free players.
fn derivatives(
    theta: &[f64],
    pairs: &[(usize, usize, f64, f64)],
    free: &[usize],
    slot: &impl Fn(usize) -> Option<usize>,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let m = free.len();
    let mut gradient = vec![0.0; m];
    let mut information = vec![vec![0.0; m]; m];
    for &(a, b, score, games) in pairs {
        let p = logistic(theta[a] - theta[b]);
        let g = score - games * p;
        let w = games * p * (1.0 - p);
        let (sa, sb) = (slot(a), slot(b));
        if let Some(i) = sa {
            gradient[i] += g;
            information[i][i] += w;
        }
        if let Some(j) = sb {
            gradient[j] -= g;
            information[j][j] += w;
        }
        if let (Some(i), Some(j)) = (sa, sb) {
            information[i][j] -= w;
            information[j][i] -= w;
        }
    }
    (gradient, information)
}

/// The Cholesky factor `L` of a symmetric positive definite matrix, or `None`.
fn cholesky(matrix: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = matrix.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            if i == j {
                let d = matrix[i][i] - sum;
                if d <= 0.0 || !d.is_finite() {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (matrix[i][j] - sum) / l[j][j];
            }
        }
    }
    Some(l)
}

fn solve_with(l: &[Vec<f64>], rhs: &[f64]) -> Vec<f64> {
    let n = l.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        y[i] = (rhs[i] - (0..i).map(|k| l[i][k] * y[k]).sum::<f64>()) / l[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        x[i] = (y[i] - (i + 1..n).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
    }
    x
}

fn solve(matrix: &[Vec<f64>], rhs: &[f64]) -> Option<Vec<f64>> {
    cholesky(matrix).map(|l| solve_with(&l, rhs))
}

fn invert(matrix: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let l = cholesky(matrix)?;
    let n = matrix.len();
    let columns: Vec<Vec<f64>> = (0..n)
        .map(|j| {
            let unit: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
            solve_with(&l, &unit)
        })
        .collect();
    Some(
        (0..n)
            .map(|i| (0..n).map(|j| columns[j][i]).collect())
            .collect(),
    )
}

/// `generation 12: +840 Elo over random (95%: +790 to +890)`.
pub fn headline(generation: u64, rating: &Rating) -> String {
    format!(
        "generation {generation}: {} Elo over random (95%: {} to {})",
        signed_elo(rating.elo),
        signed_elo(rating.low),
        signed_elo(rating.high)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("p{i}")).collect()
    }

    fn pair(a: usize, b: usize, wins: f64, draws: f64, losses: f64) -> PairResult {
        PairResult {
            a,
            b,
            score_a: wins + draws / 2.0,
            games: wins + draws + losses,
        }
    }

    #[test]
    fn three_quarters_is_191_elo_with_the_textbook_interval() {
        // 300 wins in 400 games: 400 log10(3) = 190.8; the prior moves it by half a point.
        let ratings = fit_ratings(&names(2), &[pair(1, 0, 300.0, 0.0, 100.0)], 0).unwrap();
        assert_eq!(ratings[0].elo, 0.0);
        assert_eq!((ratings[0].low, ratings[0].high), (0.0, 0.0));
        assert!((ratings[1].elo - 190.8).abs() < 1.0, "{:?}", ratings[1]);
        // Standard error: 1 / sqrt(n p (1 - p)) nats = 20.1 Elo, so 1.96 of them is 39.3.
        let half = (ratings[1].high - ratings[1].low) / 2.0;
        assert!((half - 39.3).abs() < 1.0, "{half}");
    }

    #[test]
    fn the_anchor_may_be_anyone_and_draws_count_half() {
        // 200 wins, 200 draws, 200 losses is an even score.
        let ratings = fit_ratings(&names(2), &[pair(0, 1, 200.0, 200.0, 200.0)], 1).unwrap();
        assert!(ratings[0].elo.abs() < 1e-6);
        // 300 wins, 150 draws and 50 losses score 75% too.
        let ratings = fit_ratings(&names(2), &[pair(0, 1, 300.0, 150.0, 50.0)], 1).unwrap();
        assert!((ratings[0].elo - 190.8).abs() < 1.0, "{:?}", ratings[0]);
    }

    #[test]
    fn a_chain_adds_up() {
        // C (the anchor) < B < A, each step 75%, and A never met C.
        let results = [pair(0, 1, 300.0, 0.0, 100.0), pair(1, 2, 300.0, 0.0, 100.0)];
        let ratings = fit_ratings(&names(3), &results, 2).unwrap();
        assert!((ratings[1].elo - 190.8).abs() < 1.0, "{ratings:?}");
        assert!((ratings[0].elo - 381.6).abs() < 2.0, "{ratings:?}");
        // Two links of uncertainty: A's interval is wider than B's.
        assert!(ratings[0].high - ratings[0].low > ratings[1].high - ratings[1].low);
    }

    #[test]
    fn symmetric_results_give_equal_ratings() {
        let results = [
            pair(0, 1, 40.0, 20.0, 40.0),
            pair(1, 2, 30.0, 40.0, 30.0),
            pair(2, 0, 45.0, 10.0, 45.0),
        ];
        let ratings = fit_ratings(&names(3), &results, 0).unwrap();
        for r in &ratings {
            assert!(r.elo.abs() < 1e-6, "{ratings:?}");
        }
    }

    #[test]
    fn all_wins_give_a_large_but_finite_rating() {
        let ratings = fit_ratings(&names(2), &[pair(1, 0, 20.0, 0.0, 0.0)], 0).unwrap();
        let r = ratings[1];
        assert!(
            r.elo.is_finite() && r.elo > 400.0 && r.elo < 2000.0,
            "{r:?}"
        );
        assert!(
            r.low < r.elo && r.elo < r.high && r.high.is_finite(),
            "{r:?}"
        );
        // Losing every game mirrors it.
        let ratings = fit_ratings(&names(2), &[pair(1, 0, 0.0, 0.0, 20.0)], 0).unwrap();
        assert!((ratings[1].elo + r.elo).abs() < 1e-6);
    }

    #[test]
    fn expected_scores_of_known_ratings_give_those_ratings_back() {
        // Players at 0, 150, 400, 420 and 900 Elo; every pair plays 10,000 games scored
        // at exactly their expected score. The fit must return the truth in order.
        let truth = [0.0, 150.0, 400.0, 420.0, 900.0];
        let mut results = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let p = 1.0 / (1.0 + 10f64.powf((truth[b] - truth[a]) / 400.0));
                results.push(PairResult {
                    a,
                    b,
                    score_a: 10_000.0 * p,
                    games: 10_000.0,
                });
            }
        }
        let ratings = fit_ratings(&names(truth.len()), &results, 0).unwrap();
        for (r, t) in ratings.iter().zip(truth) {
            assert!((r.elo - t).abs() < 3.0, "{ratings:?}");
        }
        assert!(ratings.windows(2).all(|w| w[0].elo < w[1].elo));
    }

    #[test]
    fn a_player_without_games_cannot_be_rated() {
        let err = fit_ratings(&names(3), &[pair(0, 1, 5.0, 0.0, 5.0)], 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "player p2 cannot be rated: no chain of games links it to p0"
        );
    }
}
