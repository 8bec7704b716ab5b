//! A run's metrics read back: its events ([`zerosum_store::events`]) as typed series, for reports
//! and plots.
//!
//! [`RunHistory::read`] only reads. Events it does not know, and fields a line lacks, are
//! skipped. An event that is not JSON at all (an object cut by a crash) is skipped too, and
//! its number kept in [`RunHistory::skipped`] for the reader to report.

use serde_json::Value;

use crate::error::TrainError;
use zerosum_players::arena::MatchReport;
use zerosum_store::store::RunStore;
use zerosum_store::EventKind;

/// Loss terms of the learner (the last tenth of a generation's steps); NaN where the
/// event lacks one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossPoint {
    /// Cross-entropy of the policy against the search's target, in nats.
    pub policy: f64,
    /// Mean squared error of the value (values lie in [-1, 1]).
    pub value: f64,
    /// The sum that was minimised, L2 penalty included.
    pub total: f64,
    /// Entropy of the network's policy, in nats.
    pub policy_entropy: f64,
    /// Entropy of the targets (the floor of the policy loss), in nats.
    pub target_entropy: f64,
}

/// One `self_play` event.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayPoint {
    /// The generation.
    pub generation: u64,
    /// Optimizer steps taken before it.
    pub step: u64,
    /// Games played.
    pub games: f64,
    /// Mean game length in plies.
    pub mean_length: f64,
    /// Shortest game in plies.
    pub min_length: f64,
    /// Longest game in plies.
    pub max_length: f64,
    /// Positions per second of self-play wall time.
    pub positions_per_second: f64,
    /// Network evaluations per second.
    pub evaluations_per_second: f64,
}

/// One `learn` event.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnPoint {
    /// The generation.
    pub generation: u64,
    /// Optimizer steps taken in all at the end of the phase.
    pub step: u64,
    /// Positions in the replay window.
    pub window_positions: f64,
    /// The losses of the last tenth of the phase's steps.
    pub losses: LossPoint,
    /// The learning rate in force at the end.
    pub learning_rate: f64,
}

/// One `evaluate` event: the checkpoint of a generation against each opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalPoint {
    /// The generation evaluated.
    pub generation: u64,
    /// Its optimizer step.
    pub step: u64,
    /// One match per opponent, from the checkpoint's view.
    pub matches: Vec<MatchReport>,
}

/// One `generation` event.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerationPoint {
    /// The generation finished.
    pub generation: u64,
    /// Optimizer steps taken in all.
    pub step: u64,
    /// Training wall time so far, all sessions together, in seconds.
    pub train_seconds: f64,
    /// The training process's resident memory then, in MiB (NaN where not recorded).
    pub memory_mib: f64,
}

/// One `ladder` event: a player's rating from `zerosum ladder`.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderPoint {
    /// Which ladder of the run (1 for the first `zerosum ladder`, and so on).
    pub ladder: u64,
    /// The player (`gen-0012`, `random`, `mcts:100`).
    pub player: String,
    /// The checkpoint's generation; `None` for a fixed anchor.
    pub generation: Option<u64>,
    /// The checkpoint's optimizer step; `None` for a fixed anchor.
    pub step: Option<u64>,
    /// The rating, with `random` at 0.
    pub elo: f64,
    /// The lower end of the 95% interval.
    pub low: f64,
    /// The upper end of the 95% interval.
    pub high: f64,
    /// Games the player played in that ladder.
    pub games: u64,
}

/// Everything a run's metrics say, in the order it happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunHistory {
    /// The game's registry name, from `config.toml`, if it says.
    pub game: Option<String>,
    /// `self_play` events.
    pub self_play: Vec<SelfPlayPoint>,
    /// `learn` events.
    pub learn: Vec<LearnPoint>,
    /// `evaluate` events.
    pub evaluations: Vec<EvalPoint>,
    /// `generation` events.
    pub generations: Vec<GenerationPoint>,
    /// The `ladder` events of the latest ladder, anchors first, then by generation.
    pub ladder: Vec<LadderPoint>,
    /// Whether the last line was incomplete (being written) and was skipped.
    pub incomplete_tail: bool,
    /// The 1-based numbers of complete lines that were not JSON objects, skipped.
    pub skipped: Vec<usize>,
}

impl RunHistory {
    /// Whether the run has recorded nothing to plot yet: no event at all.
    pub fn is_empty(&self) -> bool {
        self.self_play.is_empty()
            && self.learn.is_empty()
            && self.evaluations.is_empty()
            && self.generations.is_empty()
            && self.ladder.is_empty()
    }

    /// Reads the run in `store` (its events and the game of its `config.toml`).
    pub fn read(store: &RunStore) -> Result<RunHistory, TrainError> {
        let text = zerosum_store::events::read_text(store)?;
        let mut history = RunHistory::parse(&text);
        if let Some(config) = store.get_text(zerosum_store::names::CONFIG)? {
            history.game = config
                .parse::<toml::Table>()
                .ok()
                .and_then(|t| t.get("game")?.as_str().map(str::to_string));
        }
        Ok(history)
    }

    /// Parses the event log as JSON Lines text, skipping an incomplete last line and any line
    /// that is not a JSON object.
    pub fn parse(text: &str) -> RunHistory {
        let mut history = RunHistory::default();
        let complete = match text.rfind('\n') {
            Some(end) => &text[..=end],
            None => "",
        };
        history.incomplete_tail = !text[complete.len()..].trim().is_empty();
        let mut ladder = Vec::new();
        for (index, line) in complete.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let Some(value) = serde_json::from_str::<Value>(line)
                .ok()
                .filter(Value::is_object)
            else {
                history.skipped.push(index + 1);
                continue;
            };
            let generation = value["generation"].as_u64();
            let step = value["step"].as_u64();
            match (
                value["event"].as_str().and_then(EventKind::parse),
                generation,
            ) {
                (Some(EventKind::SelfPlay), Some(generation)) => {
                    history.self_play.push(SelfPlayPoint {
                        generation,
                        step: step.unwrap_or(0),
                        games: number(&value["games"]),
                        mean_length: number(&value["mean_length"]),
                        min_length: number(&value["min_length"]),
                        max_length: number(&value["max_length"]),
                        positions_per_second: number(&value["positions_per_second"]),
                        evaluations_per_second: number(&value["evaluations_per_second"]),
                    })
                }
                (Some(EventKind::Learn), Some(generation)) => {
                    let losses = &value["final_losses"];
                    history.learn.push(LearnPoint {
                        generation,
                        step: value["total_steps"].as_u64().or(step).unwrap_or(0),
                        window_positions: number(&value["window_positions"]),
                        losses: LossPoint {
                            policy: number(&losses["policy"]),
                            value: number(&losses["value"]),
                            total: number(&losses["total"]),
                            policy_entropy: number(&losses["policy_entropy"]),
                            target_entropy: number(&losses["target_entropy"]),
                        },
                        learning_rate: number(&value["learning_rate"]),
                    })
                }
                (Some(EventKind::Evaluate), Some(generation)) => {
                    history.evaluations.push(EvalPoint {
                        generation,
                        step: step.unwrap_or(0),
                        matches: value["matches"]
                            .as_array()
                            .map(|matches| {
                                matches
                                    .iter()
                                    .filter_map(|m| serde_json::from_value(m.clone()).ok())
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                }
                (Some(EventKind::Generation), Some(generation)) => {
                    history.generations.push(GenerationPoint {
                        generation,
                        step: step.unwrap_or(0),
                        train_seconds: number(&value["train_seconds"]),
                        memory_mib: number(&value["memory_mib"]),
                    })
                }
                (Some(EventKind::Ladder), _) => {
                    if let (Some(player), Some(elo)) =
                        (value["player"].as_str(), value["elo"].as_f64())
                    {
                        ladder.push(LadderPoint {
                            ladder: value["ladder"].as_u64().unwrap_or(1),
                            player: player.to_string(),
                            generation,
                            step,
                            elo,
                            low: value["low"].as_f64().unwrap_or(elo),
                            high: value["high"].as_f64().unwrap_or(elo),
                            games: value["games"].as_u64().unwrap_or(0),
                        });
                    }
                }
                _ => {}
            }
        }
        let latest = ladder.iter().map(|p| p.ladder).max();
        history.ladder = ladder
            .into_iter()
            .filter(|p| Some(p.ladder) == latest)
            .collect();
        history
            .ladder
            .sort_by_key(|p| (p.generation.is_some(), p.generation));
        history
    }

    /// The number of the next ladder: one more than the latest recorded.
    pub fn next_ladder(&self) -> u64 {
        self.ladder.iter().map(|p| p.ladder).max().unwrap_or(0) + 1
    }

    /// The newest rated checkpoint's line: `generation 12: +840 Elo over random (95%: +790
    /// to +890)`.
    pub fn ladder_headline(&self) -> Option<String> {
        let newest = self.ladder.iter().rfind(|p| p.generation.is_some())?;
        let rating = zerosum_players::ratings::Rating {
            elo: newest.elo,
            low: newest.low,
            high: newest.high,
        };
        Some(zerosum_players::ratings::headline(
            newest.generation?,
            &rating,
        ))
    }

    /// The last generation any event mentions.
    pub fn last_generation(&self) -> Option<u64> {
        let sp = self.self_play.iter().map(|p| p.generation);
        let learn = self.learn.iter().map(|p| p.generation);
        let generations = self.generations.iter().map(|p| p.generation);
        sp.chain(learn).chain(generations).max()
    }
}

fn number(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    const METRICS: &str = r#"{"event":"self_play","generation":1,"step":0,"time":1.0,"games":16,"moves":120,"mean_length":7.5,"min_length":5,"max_length":9,"positions_per_second":3000.0,"evaluations_per_second":9000.0}
{"event":"learn","generation":1,"step":40,"time":2.0,"steps":40,"total_steps":40,"window_positions":120,"losses":{"policy":2.0},"final_losses":{"policy":1.5,"value":0.4,"l2":0.01,"total":1.91,"policy_entropy":1.9,"target_entropy":1.2},"learning_rate":0.003}
{"event":"evaluate","generation":1,"step":40,"time":3.0,"matches":[{"player":"gen-0001","opponent":"random","wins":3,"draws":1,"losses":0,"wins_as_first":2,"wins_as_second":1}],"seconds":0.5}
{"event":"generation","generation":1,"step":40,"time":3.0,"train_seconds":4.5}
{"event":"some_future_event","generation":1}
{"event":"ladder","generation":null,"step":null,"ladder":1,"player":"random","elo":0.0,"low":0.0,"high":0.0,"games":8}
{"event":"ladder","generation":1,"step":40,"ladder":1,"player":"gen-0001","elo":120.0,"low":50.0,"high":190.0,"games":8}
{"event":"ladder","generation":1,"step":40,"ladder":2,"player":"gen-0001","elo":130.0,"low":60.0,"high":200.0,"games":8}
{"event":"ladder","generation":null,"step":null,"ladder":2,"player":"random","elo":0.0,"low":0.0,"high":0.0,"games":8}
{"event":"self_play","generation":2,"step":40,"time":5.0,"games":16,"mean_length":"#;

    #[test]
    fn parses_every_event_and_skips_the_torn_tail() {
        let history = RunHistory::parse(METRICS);
        assert!(history.incomplete_tail);
        assert_eq!(history.self_play.len(), 1);
        assert_eq!(history.self_play[0].mean_length, 7.5);
        assert_eq!(history.self_play[0].positions_per_second, 3000.0);
        assert_eq!(history.learn[0].step, 40);
        assert_eq!(history.learn[0].losses.policy, 1.5);
        assert_eq!(history.learn[0].losses.target_entropy, 1.2);
        assert_eq!(history.learn[0].window_positions, 120.0);
        assert_eq!(history.evaluations[0].matches[0].score(), 0.875);
        assert_eq!(history.generations[0].train_seconds, 4.5);
        assert_eq!(history.last_generation(), Some(1));
        // Only the latest ladder counts, anchors first.
        assert_eq!(history.ladder.len(), 2);
        assert_eq!(history.ladder[0].player, "random");
        assert_eq!(history.ladder[0].generation, None);
        assert_eq!(history.ladder[1].elo, 130.0);
        assert_eq!(history.next_ladder(), 3);
        assert_eq!(
            history.ladder_headline().unwrap(),
            "generation 1: +130 Elo over random (95%: +60 to +200)"
        );
    }

    #[test]
    fn missing_fields_are_nan_and_lines_that_are_not_json_are_skipped() {
        let history = RunHistory::parse("{\"event\":\"learn\",\"generation\":3,\"step\":9}\n");
        assert!(!history.incomplete_tail);
        assert!(history.learn[0].losses.policy.is_nan());
        // A torn line continued by a later append, and a bare number.
        let text =
            "{\"event\":\"learn\",\"generation\":3}\n{\"event\":\"se{\"event\":\"learn\"}\n7\n{}\n";
        let history = RunHistory::parse(text);
        assert_eq!(history.skipped, [2, 3]);
        assert_eq!(history.learn.len(), 1);
        assert_eq!(RunHistory::parse(""), RunHistory::default());
    }
}
