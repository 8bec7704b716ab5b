//! `zerosum doctor`: what is wrong with a run that does not learn, in plain words, with the
//! numbers behind each finding and the setting to change.
//!
//! [`Evidence::read`] gathers what a run recorded (its events, its config, the legal moves of
//! its latest games); [`diagnose`] applies each rule of [`rules`] to it. Each [`Finding`] has
//! a fixed short name that scripts can match; a run with none gets [`HEALTHY`].

mod rules;

use serde::Serialize;
use zerosum_config::RunConfig;
use zerosum_games::registry::parse_game;
use zerosum_games::{with_game, Game};
use zerosum_store::record::GameRecord;
use zerosum_store::{names, RunStore};
use zerosum_train::history::RunHistory;

use crate::error::ReportError;

/// The name of the one finding of a run where no rule found anything wrong.
pub const HEALTHY: &str = "healthy";

/// The name of the one finding of a run too short to read trends from.
pub const TOO_SHORT: &str = "too-short";

/// The fewest generations a diagnosis reads trends from.
pub const FEWEST_GENERATIONS: usize = 3;

/// One thing the doctor found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The fixed short name: `no-exploration`, `lr-too-high`, ..., or `healthy`.
    pub name: &'static str,
    /// What the run recorded that shows it, with the numbers.
    pub evidence: String,
    /// What to change, naming the settings.
    pub advice: String,
}

impl Finding {
    /// The finding as one line: its name first, then the evidence and the advice.
    pub fn line(&self) -> String {
        if self.advice.is_empty() {
            format!("{}: {}", self.name, self.evidence)
        } else {
            format!("{}: {} {}", self.name, self.evidence, self.advice)
        }
    }
}

/// What the doctor reads of a run.
pub struct Evidence {
    /// The run's events.
    pub history: RunHistory,
    /// The run's config, as the run resolved it.
    pub config: RunConfig,
    /// Mean number of legal actions in the positions of the latest generation's games (none
    /// for a game the registry does not know, such as one written in Python).
    pub mean_legal_actions: Option<f64>,
}

impl Evidence {
    /// Reads the run in `store`.
    pub fn read(store: &RunStore) -> Result<Evidence, ReportError> {
        Evidence::of(store, RunHistory::read(store)?)
    }

    /// The evidence of the run in `store` whose events `history` holds: its config and its
    /// latest games are read here.
    pub fn of(store: &RunStore, history: RunHistory) -> Result<Evidence, ReportError> {
        let location = store.location().to_string();
        let text = (store.get_text(names::CONFIG)?).ok_or_else(|| ReportError::NotARun {
            location: location.clone(),
        })?;
        let config = RunConfig::from_toml(&text, &[]).map_err(|e| ReportError::BadConfig {
            location,
            reason: e.to_string(),
        })?;
        let mean_legal_actions = match history.self_play.last() {
            Some(last) => {
                let records = zerosum_train::learner::generation_records(store, last.generation)?;
                mean_legal_actions(&config.game, &records)
            }
            None => None,
        };
        Ok(Evidence {
            history,
            config,
            mean_legal_actions,
        })
    }
}

/// The mean number of legal actions over the positions of `records`, games of `game`.
fn mean_legal_actions(game: &str, records: &[GameRecord]) -> Option<f64> {
    let game = parse_game(game).ok()?;
    let (positions, moves) = with_game!(&game, initial => legal_actions_in(initial, records));
    (positions > 0).then(|| moves as f64 / positions as f64)
}

/// The positions of `records` played from `initial`, and their legal actions in all (a game
/// that breaks the rules is counted up to its first illegal move).
fn legal_actions_in<G: Game>(initial: &G, records: &[GameRecord]) -> (usize, usize) {
    let (mut positions, mut moves) = (0, 0);
    let mut legal = Vec::new();
    for record in records {
        let mut state = initial.clone();
        for &action in &record.actions {
            state.legal_actions(&mut legal);
            if !legal.contains(&action) {
                break;
            }
            positions += 1;
            moves += legal.len();
            state.apply(action);
        }
    }
    (positions, moves)
}

/// Every finding of the rules on `evidence`, or one [`HEALTHY`] finding.
pub fn diagnose(evidence: &Evidence) -> Vec<Finding> {
    let generations = evidence.history.learn.len();
    if generations < FEWEST_GENERATIONS {
        return vec![Finding {
            name: TOO_SHORT,
            evidence: format!(
                "{generations} generation(s) recorded; trends need at least {FEWEST_GENERATIONS}."
            ),
            advice: "Run `zerosum doctor` again once more generations have finished.".into(),
        }];
    }
    let findings: Vec<Finding> = rules::RULES
        .iter()
        .filter_map(|rule| rule(evidence))
        .collect();
    if findings.is_empty() {
        return vec![Finding {
            name: HEALTHY,
            evidence: format!(
                "nothing wrong found in {generations} generations (the rules are listed in \
                 docs/doctor.md)."
            ),
            advice: String::new(),
        }];
    }
    findings
}
