//! Gating: a newly trained network generates self-play games only after it beats the best
//! network so far (AlphaGo Zero) — or the two best (CGZero's best1/best2) — by a margin.
//! AlphaZero dropped gating and always plays the newest network; both are configurable.
//!
//! CGZero's self-play opponents go with its gating: besides the best against itself, some
//! games pit the best against the second best, more of them the worse the last candidate
//! did against the second best compared with the best, and a share against a recent older
//! generation, so that the best keeps beating what it already beat.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::Game;
use zerosum_nn::Model;

use crate::error::TrainError;
use crate::reports::GateReport;
use zerosum_config::{derive_seed, stream, RunConfig};
use zerosum_players::arena::play_match_with_openings;

use zerosum_players::players::MctsAgent;
use zerosum_store::names;

/// The networks gating keeps, and whether the last candidate got through.
pub struct Gate {
    /// The network that generates self-play games.
    pub best: Model,
    /// The best before it.
    pub second: Option<Model>,
    /// The last candidate's scores against the best and the second best, once a candidate
    /// played both.
    pub scores: Option<(f64, f64)>,
}

/// How CGZero shares a generation's `games` out: `[best against itself, best against the
/// second best, best against an older generation]`. The older games are `older_share` of
/// all where an older generation exists. The rest go to the first two in proportion to
/// how much the last candidate fell short against each (`1 - score`, scores against the
/// best and the second best): the opponent it did worse against gets more games. Evenly
/// before any candidate played both; all to the first without a second best.
pub fn split(
    games: usize,
    older_share: f64,
    scores: Option<(f64, f64)>,
    has_second: bool,
    has_older: bool,
) -> [usize; 3] {
    let older = if has_older {
        ((games as f64 * older_share).round() as usize).min(games)
    } else {
        0
    };
    let rest = games - older;
    if !has_second {
        return [rest, 0, older];
    }
    let (best, second) = scores.unwrap_or((0.5, 0.5));
    let (short_best, short_second) = ((1.0 - best).max(0.0), (1.0 - second).max(0.0));
    let share = if short_best + short_second > 0.0 {
        short_second / (short_best + short_second)
    } else {
        0.5
    };
    let against_second = (rest as f64 * share).round() as usize;
    [rest - against_second, against_second, older]
}

impl Gate {
    /// Plays `candidate` against the best (and the second best) and promotes it when it
    /// reaches the threshold in every match.
    pub fn decide<G: Game>(
        &mut self,
        initial: &G,
        config: &RunConfig,
        candidate: &Model,
        generation: u64,
    ) -> Result<GateReport, TrainError> {
        let gating = &config.gating;
        let mut rng = SmallRng::seed_from_u64(derive_seed(config.seed, stream::GATE, generation));
        let agent = |model: &Model, name: &str| -> Result<MctsAgent<G>, TrainError> {
            Ok(MctsAgent::with_network(
                name.to_string(),
                model.try_clone()?,
                initial,
                config.search.clone(),
                config.arena.num_simulations,
            ))
        };
        let mut me = agent(candidate, &names::generation_name(generation))?;
        let mut opponents = vec![agent(&self.best, "best")?];
        if gating.best_two {
            if let Some(second) = &self.second {
                opponents.push(agent(second, "second-best")?);
            }
        }
        let mut matches = Vec::new();
        for opponent in &mut opponents {
            matches.push(play_match_with_openings(
                initial,
                &mut me,
                opponent,
                gating.games,
                config.arena.opening_plies,
                &mut rng,
                |_, _| {},
            )?);
        }
        let promoted = matches.iter().all(|m| m.score() >= gating.threshold);
        if let [best, second] = &matches[..] {
            self.scores = Some((best.score(), second.score()));
        }
        if promoted {
            let old = std::mem::replace(&mut self.best, candidate.try_clone()?);
            self.second = Some(old);
        }
        Ok(GateReport { matches, promoted })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_config::GatingConfig;
    use zerosum_games::tic_tac_toe::TicTacToe;
    use zerosum_nn::{Device, Family, ModelConfig};

    fn model(seed: u64) -> Model {
        zerosum_nn::init_torch(seed, 1);
        let config = ModelConfig {
            family: Family::Mlp,
            hidden: 16,
            layers: 1,
            ..Default::default()
        };
        Model::new("tictactoe", &config, [2, 3, 3], 9, Device::Cpu).unwrap()
    }

    fn config(threshold: f64, best_two: bool) -> RunConfig {
        let mut config = RunConfig {
            gating: GatingConfig {
                enabled: true,
                games: 10,
                threshold,
                best_two,
                ..GatingConfig::default()
            },
            ..RunConfig::default()
        };
        config.arena.num_simulations = 8;
        config
    }

    #[test]
    fn a_candidate_no_better_than_the_best_is_kept_out() {
        let best = model(1);
        let candidate = best.try_clone().unwrap();
        let mut gate = Gate {
            best,
            second: None,
            scores: None,
        };
        let report = gate
            .decide(&TicTacToe::new(), &config(0.55, false), &candidate, 1)
            .unwrap();
        // The same network on both sides, colours alternating: exactly even.
        assert_eq!(report.matches[0].score(), 0.5);
        assert!(!report.promoted);
        assert!(gate.second.is_none());
    }

    #[test]
    fn a_candidate_over_the_margin_is_promoted_and_the_old_best_becomes_second() {
        let mut gate = Gate {
            best: model(1),
            second: None,
            scores: None,
        };
        let report = gate
            .decide(&TicTacToe::new(), &config(0.0, false), &model(2), 1)
            .unwrap();
        assert!(report.promoted);
        assert!(gate.second.is_some());
        // With best_two, the next candidate plays both.
        let report = gate
            .decide(&TicTacToe::new(), &config(0.0, true), &model(3), 2)
            .unwrap();
        assert_eq!(report.matches.len(), 2);
        assert_eq!(report.matches[1].opponent, "second-best");
        let scores = gate.scores.expect("the candidate played both");
        assert_eq!(
            scores,
            (report.matches[0].score(), report.matches[1].score())
        );
    }

    #[test]
    fn the_split_gives_more_games_against_the_opponent_the_candidate_did_worse_against() {
        // 0.6 against the best (0.4 short), 0.3 against the second (0.7 short): of the 90
        // games left after the older generation's 10, 7/11 go to the second best.
        assert_eq!(split(100, 0.1, Some((0.6, 0.3)), true, true), [33, 57, 10]);
        assert_eq!(split(100, 0.1, Some((0.3, 0.6)), true, true), [57, 33, 10]);
        // No candidate has played both yet: even; a candidate that won everything: even.
        assert_eq!(split(100, 0.1, None, true, true), [45, 45, 10]);
        assert_eq!(split(100, 0.1, Some((1.0, 1.0)), true, true), [45, 45, 10]);
        // Early in a run: no second best, no older generation.
        assert_eq!(split(64, 0.1, Some((0.6, 0.3)), false, false), [64, 0, 0]);
        assert_eq!(split(64, 0.1, None, true, false), [32, 32, 0]);
        for games in 0..50 {
            let parts = split(games, 0.1, Some((0.55, 0.2)), true, true);
            assert_eq!(parts.iter().sum::<usize>(), games);
        }
    }
}
