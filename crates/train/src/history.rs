//! A run's history read back: its events ([`zerosum_store::events`]) as the reports they
//! were written from, for reports and plots.
//!
//! [`RunHistory::read`] only reads. Events it does not know are skipped, and a field an
//! event lacks takes its default. An event that is not JSON at all (an object cut by a
//! crash) is skipped too, and its number kept in [`RunHistory::skipped`] for the reader to
//! report.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use zerosum_store::{EventKind, RunStore};

use crate::error::TrainError;
use crate::reports::{EvalReport, GenerationReport, LadderRating, LearnerReport, SelfPlayReport};

/// A report read back from the event log, with the moment it belongs to.
#[derive(Clone, Debug)]
pub struct Recorded<T> {
    /// The generation.
    pub generation: u64,
    /// Optimizer steps taken in all when it was recorded.
    pub step: u64,
    /// The report as its role wrote it.
    pub report: T,
}

/// One `ladder` event: a player's rating from `zerosum ladder`.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderPoint {
    /// The checkpoint's generation; `None` for a fixed anchor.
    pub generation: Option<u64>,
    /// The checkpoint's optimizer step; `None` for a fixed anchor.
    pub step: Option<u64>,
    /// The rating as recorded.
    pub rating: LadderRating,
}

/// Everything a run's events say, in the order it happened.
#[derive(Clone, Debug, Default)]
pub struct RunHistory {
    /// The game's registry name, from `config.toml`, if it says.
    pub game: Option<String>,
    /// `self_play` events.
    pub self_play: Vec<Recorded<SelfPlayReport>>,
    /// `learn` events.
    pub learn: Vec<Recorded<LearnerReport>>,
    /// `evaluate` events.
    pub evaluations: Vec<Recorded<EvalReport>>,
    /// `generation` events.
    pub generations: Vec<Recorded<GenerationReport>>,
    /// The `ladder` events of the latest ladder, anchors first, then by generation.
    pub ladder: Vec<LadderPoint>,
    /// The 1-based numbers of events that were not JSON objects, skipped.
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

    /// Parses the event log as JSON Lines text, each event into the report it was written
    /// from, skipping any line that is not a JSON object.
    pub fn parse(text: &str) -> RunHistory {
        let mut history = RunHistory::default();
        let mut ladder = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let Some(event) = serde_json::from_str::<Value>(line)
                .ok()
                .filter(Value::is_object)
            else {
                history.skipped.push(index + 1);
                continue;
            };
            let kind = event["event"].as_str().and_then(EventKind::parse);
            match kind {
                Some(EventKind::SelfPlay) => history.self_play.extend(recorded(&event)),
                Some(EventKind::Learn) => history.learn.extend(recorded(&event)),
                Some(EventKind::Evaluate) => history.evaluations.extend(recorded(&event)),
                Some(EventKind::Generation) => history.generations.extend(recorded(&event)),
                Some(EventKind::Ladder) => ladder.extend(ladder_point(&event)),
                Some(EventKind::Gate) | None => {}
            }
        }
        history.ladder = latest_ladder(ladder);
        history
    }

    /// The number of the next ladder: one more than the latest recorded.
    pub fn next_ladder(&self) -> u64 {
        self.ladder
            .iter()
            .map(|p| p.rating.ladder)
            .max()
            .unwrap_or(0)
            + 1
    }

    /// The newest rated checkpoint's line: `generation 12: +840 Elo over random (95%: +790
    /// to +890)`.
    pub fn ladder_headline(&self) -> Option<String> {
        let newest = self.ladder.iter().rfind(|p| p.generation.is_some())?;
        let rating = zerosum_players::ratings::Rating {
            elo: newest.rating.elo,
            low: newest.rating.low,
            high: newest.rating.high,
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

/// The report of a generation's event, with its moment; `None` for an event without a
/// generation or whose fields do not read as the report.
fn recorded<T: DeserializeOwned>(event: &Value) -> Option<Recorded<T>> {
    Some(Recorded {
        generation: event["generation"].as_u64()?,
        step: event["step"].as_u64().unwrap_or(0),
        report: T::deserialize(event).ok()?,
    })
}

/// A `ladder` event's rating; `None` where its fields do not read as one.
fn ladder_point(event: &Value) -> Option<LadderPoint> {
    Some(LadderPoint {
        generation: event["generation"].as_u64(),
        step: event["step"].as_u64(),
        rating: LadderRating::deserialize(event).ok()?,
    })
}

/// The points of the newest ladder, anchors first, then by generation.
fn latest_ladder(points: Vec<LadderPoint>) -> Vec<LadderPoint> {
    let latest = points.iter().map(|p| p.rating.ladder).max();
    let mut ladder: Vec<LadderPoint> = points
        .into_iter()
        .filter(|p| Some(p.rating.ladder) == latest)
        .collect();
    ladder.sort_by_key(|p| (p.generation.is_some(), p.generation));
    ladder
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
    fn reads_every_event_as_its_report() {
        let history = RunHistory::parse(METRICS);
        assert_eq!(history.self_play.len(), 1);
        assert_eq!(history.self_play[0].report.mean_length, 7.5);
        assert_eq!(history.self_play[0].report.positions_per_second, 3000.0);
        assert_eq!(history.learn[0].report.total_steps, 40);
        assert_eq!(history.learn[0].report.final_losses.policy, 1.5);
        assert_eq!(history.learn[0].report.final_losses.target_entropy, 1.2);
        assert_eq!(history.learn[0].report.window_positions, 120);
        assert_eq!(history.evaluations[0].report.matches[0].score(), 0.875);
        assert_eq!(history.generations[0].report.train_seconds, 4.5);
        assert_eq!(history.last_generation(), Some(1));
        // Only the latest ladder counts, anchors first.
        assert_eq!(history.ladder.len(), 2);
        assert_eq!(history.ladder[0].rating.player, "random");
        assert_eq!(history.ladder[0].generation, None);
        assert_eq!(history.ladder[1].rating.elo, 130.0);
        assert_eq!(history.next_ladder(), 3);
        assert_eq!(
            history.ladder_headline().unwrap(),
            "generation 1: +130 Elo over random (95%: +60 to +200)"
        );
        // The cut last event is no JSON object.
        assert_eq!(history.skipped, [10]);
    }

    #[test]
    fn missing_fields_take_defaults_and_lines_that_are_not_json_are_skipped() {
        let history = RunHistory::parse("{\"event\":\"learn\",\"generation\":3,\"step\":9}\n");
        assert_eq!(history.learn[0].step, 9);
        assert_eq!(history.learn[0].report.final_losses.policy, 0.0);
        // A cut event, and a bare number.
        let text =
            "{\"event\":\"learn\",\"generation\":3}\n{\"event\":\"se{\"event\":\"learn\"}\n7\n{}\n";
        let history = RunHistory::parse(text);
        assert_eq!(history.skipped, [2, 3]);
        assert_eq!(history.learn.len(), 1);
        assert!(RunHistory::parse("").is_empty());
    }
}
