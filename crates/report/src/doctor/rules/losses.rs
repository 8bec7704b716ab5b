//! Rules on the losses: how the learning rate, the value head and the window show in them.
//! (A loss that turns NaN stops the run with an error of its own, before anything of that
//! generation is recorded.)

use zerosum_train::history::Recorded;
use zerosum_train::reports::{LearnerReport, SelfPlayReport};

use super::evaluations::{gained, unsettled_scores, EVALUATIONS};
use super::{
    finding, latest, learning_rate, policy_gap, silent_value_loss, trained, Evidence, Finding,
    FEWEST_DECISIVE, RECENT,
};

/// Learning overshoots: a value worse than saying 0 everywhere, or a loss that climbs back
/// up.
pub(super) fn lr_too_high(evidence: &Evidence) -> Option<Finding> {
    let learn = trained(evidence);
    let advice = |r: &Recorded<LearnerReport>| {
        format!(
            "Lower learner.learning_rate ({} in generation {}) three- to tenfold, or set \
             learner.grad_clip.",
            r.report.learning_rate, r.generation
        )
    };
    // The end of a generation's steps: its start may still be a fresh head's guesses.
    let worse_than_silent = learn.iter().find_map(|r| {
        let end = &r.report.final_losses;
        let silent = silent_value_loss(evidence, r.generation, end)?;
        (silent >= FEWEST_DECISIVE && end.value > 1.5 * silent).then_some((r, silent))
    });
    if let Some((r, silent)) = worse_than_silent {
        return finding(
            "lr-too-high",
            format!(
                "generation {}'s value loss at the end of its steps, {:.3}, is {:.1} times \
                 what a network saying 0 everywhere would score ({silent:.3}): the value \
                 head's steps overshoot.",
                r.generation,
                r.report.final_losses.value,
                r.report.final_losses.value / silent
            ),
            advice(r),
        );
    }
    // Near convergence the loss above its floor is a few hundredths of a nat, whose noise
    // is tens of percent: a climb must also be a tenth of a nat.
    let above_floor = |l: &zerosum_nn::Losses| l.total - l.policy + policy_gap(evidence, l);
    let lowest = (learn.iter())
        .map(|r| above_floor(&r.report.final_losses))
        .fold(f64::INFINITY, f64::min);
    let last = learn.last()?;
    let now = above_floor(&last.report.final_losses);
    let climbed = now > 1.1 * lowest && now > lowest + 0.1;
    (learn.len() > RECENT && climbed).then(|| Finding {
        name: "lr-too-high",
        evidence: format!(
            "the loss above its floor climbed back from {lowest:.3} to {now:.3} by generation \
             {}.",
            last.generation
        ),
        advice: advice(last),
    })
}

/// Nothing is learnt: the first generation's steps did not lower its loss, the last
/// generation ends where the first began, and the policy is still far from its targets.
pub(super) fn lr_too_low(evidence: &Evidence) -> Option<Finding> {
    let learn = trained(evidence);
    let (first, last) = (&learn.first()?.report, &learn.last()?.report);
    let flat_start = first.final_losses.total >= 0.98 * first.losses.total;
    let flat_run = last.final_losses.total >= 0.9 * first.losses.total;
    let gap = policy_gap(evidence, &last.final_losses);
    (learn.len() >= RECENT && flat_start && flat_run && gap > 0.2).then(|| Finding {
        name: "lr-too-low",
        evidence: format!(
            "the loss went from {:.3} to {:.3} over {} generations, {gap:.2} above the floor \
             of its policy term: the network is not learning.",
            first.losses.total,
            last.final_losses.total,
            learn.len()
        ),
        advice: format!(
            "Raise learner.learning_rate (now {}) tenfold; Adam usually learns at 1e-3 to 3e-3.",
            learning_rate(evidence)
        ),
    })
}

/// The value head says one thing: every game ends the same way, or the value loss stays
/// where a network saying 0 everywhere would have it.
pub(super) fn value_collapse(evidence: &Evidence) -> Option<Finding> {
    let games = &evidence.history.self_play;
    let one_sided =
        |share: fn(&SelfPlayReport) -> f64| games.iter().all(|r| share(&r.report) >= 0.98);
    let same_end = [
        ("drawn", one_sided(|g| g.draws)),
        ("won by the first player", one_sided(|g| g.first_wins)),
        ("won by the second player", one_sided(|g| g.second_wins)),
    ];
    if let Some((how, _)) = same_end.iter().find(|(_, all)| *all && !games.is_empty()) {
        return finding(
            "value-collapse",
            format!(
                "the games of every generation, from the first, were {how}: the value head has \
                 one outcome to learn."
            ),
            format!(
                "The game may be a forced win, or its rules wrong: run `zerosum check-game {}`. \
                 Otherwise explore more (self_play.temperature_plies, \
                 self_play.random_opening_plies).",
                evidence.config.game
            ),
        );
    }
    let learn = trained(evidence);
    let recent = latest(&learn, RECENT);
    let ratios: Option<Vec<f64>> = recent
        .iter()
        .map(|r| {
            let silent = silent_value_loss(evidence, r.generation, &r.report.final_losses)?;
            (silent >= FEWEST_DECISIVE).then(|| r.report.final_losses.value / silent)
        })
        .collect();
    let lowest = ratios?.into_iter().fold(f64::INFINITY, f64::min);
    (learn.len() > RECENT && lowest >= 0.75).then(|| Finding {
        name: "value-collapse",
        evidence: format!(
            "over the last {} generations the value loss stayed at {:.0}% or more of what a \
             network saying 0 everywhere scores: the value head says the same whatever the \
             position.",
            recent.len(),
            100.0 * lowest
        ),
        advice: format!(
            "Check learner.value_weight (now {}) is well above 0; give the value head room \
             (model.value_hidden, now {}); if the losses also jumped, lower \
             learner.learning_rate.",
            evidence.config.learner.value_weight, evidence.config.model.value_hidden
        ),
    })
}

/// The policy reproduces its window while the evaluations stay flat.
pub(super) fn memorising(evidence: &Evidence) -> Option<Finding> {
    let learn = trained(evidence);
    let recent = latest(&learn, RECENT);
    if recent.len() < RECENT {
        return None;
    }
    let gap = (recent.iter())
        .map(|r| policy_gap(evidence, &r.report.final_losses))
        .fold(0.0, f64::max);
    let reuse = (recent.iter())
        .map(|r| r.report.samples_per_new_position)
        .fold(f64::INFINITY, f64::min);
    let rising = (unsettled_scores(evidence, EVALUATIONS).iter())
        .any(|(_, series)| series.len() >= 2 && gained(series));
    let (learner, replay) = (&evidence.config.learner, &evidence.config.replay);
    (gap < 0.1 && reuse >= 100.0 && !rising).then(|| Finding {
        name: "memorising",
        evidence: format!(
            "the policy loss is within {gap:.3} of its floor while each new position is drawn \
             {reuse:.0} times or more, and the evaluations are not rising: the network learns \
             its window by heart."
        ),
        advice: format!(
            "Train less on more: lower learner.epochs (now {}) or set replay.reuse (now {}; \
             4 to 20 is usual), and hold more positions (replay.window_positions, now {}; \
             self_play.games_per_generation, now {}).",
            learner.epochs,
            replay.reuse,
            replay.window_positions,
            evidence.config.self_play.games_per_generation
        ),
    })
}
