//! The doctor's rules: each reads one signal of a run and names one cause when the signal
//! says so, by the kind of signal it reads: the losses, the flow of games from self-play to
//! the learner, and the evaluations. Their thresholds are documented in docs/doctor.md; each
//! was set between what healthy runs and runs configured to fail record (docs/doctor.md,
//! "How the rules were set").

mod evaluations;
mod flow;
mod losses;

use zerosum_nn::{Losses, PolicyLoss};
use zerosum_train::history::Recorded;
use zerosum_train::reports::{LearnerReport, SelfPlayReport};

use super::{Evidence, Finding};

/// A rule: a finding where its signal shows one.
pub(super) type Rule = fn(&Evidence) -> Option<Finding>;

/// Every rule, in the order their findings print.
pub(super) const RULES: [Rule; 11] = [
    losses::lr_too_high,
    losses::lr_too_low,
    losses::value_collapse,
    flow::no_exploration,
    flow::few_simulations,
    losses::memorising,
    flow::starved,
    flow::flooded,
    flow::stale_actors,
    evaluations::plateau,
    evaluations::noisy_evaluation,
];

/// How many of the latest generations a rule on a trend reads.
const RECENT: usize = 3;

/// The latest `n` records of `series`.
fn latest<T>(series: &[T], n: usize) -> &[T] {
    &series[series.len().saturating_sub(n)..]
}

fn percent(share: f64) -> String {
    format!("{:.0}%", 100.0 * share)
}

fn finding(name: &'static str, evidence: String, advice: String) -> Option<Finding> {
    Some(Finding {
        name,
        evidence,
        advice,
    })
}

/// The generations that took gradient steps: one without any (a `replay.reuse` cap that
/// rounded to none) reports zeros, not losses.
fn trained(evidence: &Evidence) -> Vec<&Recorded<LearnerReport>> {
    let learn = &evidence.history.learn;
    learn.iter().filter(|r| r.report.steps > 0).collect()
}

/// The self-play report of generation `generation`.
fn games_of(evidence: &Evidence, generation: u64) -> Option<&SelfPlayReport> {
    let games = &evidence.history.self_play;
    games
        .iter()
        .find(|r| r.generation == generation)
        .map(|r| &r.report)
}

/// What a network that says 0 everywhere scores as value loss (mean squared error): the
/// mean square of the value targets where the run recorded it, else the share of decisive
/// games (outcomes of +1 and -1), in generation `generation`.
fn silent_value_loss(evidence: &Evidence, generation: u64, losses: &Losses) -> Option<f64> {
    if losses.value_target > 0.0 {
        return Some(losses.value_target);
    }
    games_of(evidence, generation).map(|games| 1.0 - games.draws)
}

/// The least [`silent_value_loss`] that the value loss is read against: below it, the
/// targets hardly vary (most games drawn) and the ratio says nothing.
const FEWEST_DECISIVE: f64 = 0.2;

/// How far the network's policy is from the search's targets: the policy loss above its
/// floor, the entropy of the targets, which moves with the window and which the network
/// cannot go below (a KL loss has the floor taken off already).
fn policy_gap(evidence: &Evidence, losses: &Losses) -> f64 {
    match evidence.config.learner.policy_loss {
        PolicyLoss::CrossEntropy => losses.policy - losses.target_entropy,
        PolicyLoss::Kl => losses.policy,
    }
}

/// The learning rate the run's latest generation trained at (a schedule changes it).
fn learning_rate(evidence: &Evidence) -> f64 {
    let learn = &evidence.history.learn;
    (learn.last()).map_or(evidence.config.learner.learning_rate, |r| {
        r.report.learning_rate
    })
}

/// The two findings a local run cannot show in seconds, on events written as an
/// asynchronous run records them.
#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_config::RunConfig;
    use zerosum_train::history::RunHistory;

    /// Tic-tac-toe's default config and six generations of events: each generation's
    /// `games` (of the 256 the config asks for) with their checkpoints `age` generations
    /// old, and learning that drew each of its 200 new positions `drawn` times.
    fn recorded(games: usize, age: f64, drawn: f64) -> Evidence {
        let mut events = String::new();
        for g in 1..=6 {
            events += &format!(
                "{{\"event\":\"self_play\",\"generation\":{g},\"step\":0,\"games\":{games},\
                 \"distinct_games\":{games},\"draws\":0.5,\"first_wins\":0.3,\
                 \"second_wins\":0.2,\"checkpoint_age\":{age}}}\n\
                 {{\"event\":\"learn\",\"generation\":{g},\"step\":0,\"steps\":100,\
                 \"new_positions\":200,\"window_positions\":10000,\
                 \"samples_per_new_position\":{drawn},\"learning_rate\":0.003,\
                 \"losses\":{{\"total\":{t},\"policy\":1.0,\"target_entropy\":0.5,\"value\":0.1}},\
                 \"final_losses\":{{\"total\":{t},\"policy\":1.0,\"target_entropy\":0.5,\
                 \"value\":0.1}}}}\n",
                t = 2.0 - 0.1 * g as f64
            );
        }
        let config = include_str!("../../../../../configs/tictactoe.toml");
        Evidence {
            history: RunHistory::parse(&events),
            config: RunConfig::from_toml(config, &["mode=\"async\"".into()]).unwrap(),
            mean_legal_actions: Some(5.0),
        }
    }

    fn names(evidence: &Evidence) -> Vec<&'static str> {
        super::super::diagnose(evidence)
            .iter()
            .map(|f| f.name)
            .collect()
    }

    #[test]
    fn a_learner_drawing_each_position_far_more_than_asked_is_starved() {
        // Asked: 4 epochs over 10,000 positions, spread over the 256 games' 3,200 positions.
        assert_eq!(names(&recorded(16, 0.0, 200.0)), ["starved"]);
        assert_eq!(names(&recorded(256, 0.0, 12.5)), ["healthy"]);
    }

    #[test]
    fn games_played_by_checkpoints_three_generations_old_are_stale() {
        assert_eq!(names(&recorded(256, 3.0, 12.5)), ["stale-actors"]);
        assert_eq!(names(&recorded(256, 1.0, 12.5)), ["healthy"]);
    }
}
