//! Gating: a newly trained network generates self-play games only after it beats the best
//! network so far (AlphaGo Zero) — or the two best (CGZero's best1/best2) — by a margin.
//! AlphaZero dropped gating and always plays the newest network; both are configurable.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use zerosum_games::Game;
use zerosum_nn::Model;

use crate::arena::{play_match_with_openings, MatchReport};
use crate::config::{derive_seed, stream, RunConfig};
use crate::error::TrainError;
use crate::players::MctsAgent;

/// Gating settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatingConfig {
    /// Gate the self-play network (AlphaGo Zero); off plays the newest (AlphaZero).
    pub enabled: bool,
    /// Games of each gating match (colours alternate).
    pub games: usize,
    /// Score the candidate needs against the best network (AlphaGo Zero: 0.55).
    pub threshold: f64,
    /// Also require the threshold against the second best (CGZero's best1/best2).
    pub best_two: bool,
}

impl Default for GatingConfig {
    fn default() -> Self {
        GatingConfig {
            enabled: false,
            games: 40,
            threshold: 0.55,
            best_two: false,
        }
    }
}

/// The networks gating keeps, and whether the last candidate got through.
pub struct Gate {
    /// The network that generates self-play games.
    pub best: Model,
    /// The best before it.
    pub second: Option<Model>,
}

/// What one gating decision saw.
#[derive(Clone, Debug, Serialize)]
pub struct GateReport {
    /// The candidate's matches: against the best, then the second best.
    pub matches: Vec<MatchReport>,
    /// Whether the candidate became the best.
    pub promoted: bool,
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
        let mut me = agent(candidate, &format!("gen-{generation:04}"))?;
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
        let mut gate = Gate { best, second: None };
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
    }
}
