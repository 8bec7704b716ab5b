//! Rules on the evaluations: whether the run still gains against its baselines, and whether
//! its evaluations are large enough to tell.

use zerosum_players::arena::MatchReport;

use super::{finding, latest, percent, Evidence, Finding};

/// How many of the latest evaluations the trend rules read.
pub(super) const EVALUATIONS: usize = 4;

/// Scores against the baselines over the latest `evaluations`: for each baseline the latest
/// evaluation still loses games to, its matches oldest first. (A baseline the run no longer
/// loses to, such as perfect play once it plays perfectly, says nothing more about progress.)
pub(super) fn unsettled_scores(
    evidence: &Evidence,
    evaluations: usize,
) -> Vec<(String, Vec<MatchReport>)> {
    let recent = latest(&evidence.history.evaluations, evaluations);
    let Some(last) = recent.last() else {
        return Vec::new();
    };
    last.report
        .matches
        .iter()
        .filter(|m| m.losses > 0 && !m.opponent.starts_with("gen-"))
        .map(|m| {
            let series = (recent.iter())
                .filter_map(|r| r.report.matches.iter().find(|x| x.opponent == m.opponent))
                .cloned()
                .collect();
            (m.opponent.clone(), series)
        })
        .collect()
}

/// Whether `series` (oldest first) gained: its later half's mean score above its earlier
/// half's by more than two points.
pub(super) fn gained(series: &[MatchReport]) -> bool {
    let half = series.len() / 2;
    let mean = |part: &[MatchReport]| {
        part.iter().map(MatchReport::score).sum::<f64>() / part.len().max(1) as f64
    };
    mean(&series[series.len() - half..]) > mean(&series[..half]) + 0.02
}

/// No gain against the run's baselines over the latest evaluations.
pub(super) fn plateau(evidence: &Evidence) -> Option<Finding> {
    let scores = unsettled_scores(evidence, EVALUATIONS);
    if scores.is_empty() || scores.iter().any(|(_, s)| s.len() < 3 || gained(s)) {
        return None;
    }
    let listed: Vec<String> = scores
        .iter()
        .map(|(opponent, s)| {
            let shown: Vec<String> = s.iter().map(|m| percent(m.score())).collect();
            format!("{opponent} {}", shown.join(", "))
        })
        .collect();
    let config = &evidence.config;
    finding(
        "plateau",
        format!(
            "no gain over the last {} evaluations against the baselines it still loses to \
             ({}).",
            scores[0].1.len(),
            listed.join("; ")
        ),
        format!(
            "What usually helps next: more simulations (search.num_simulations, now {}), a \
             larger network (model: {}), a longer window (replay.window_positions, now {}).",
            config.search.num_simulations,
            config.model.describe(),
            config.replay.window_positions
        ),
    )
}

/// Half the width of a match's 95% interval of the score.
fn half_width(m: &MatchReport) -> f64 {
    let (low, high) = m.score_interval();
    (high - low) / 2.0
}

/// Evaluations too small to tell: an interval wider than any change a run makes between
/// evaluations, or scores that differ but all lie within each other's intervals.
pub(super) fn noisy_evaluation(evidence: &Evidence) -> Option<Finding> {
    let advice = format!(
        "Raise arena.games (now {}; 100 games give about +-10 points), or measure with \
         `zerosum arena`.",
        evidence.config.arena.games
    );
    let last = evidence.history.evaluations.last()?;
    let hopeless = (last.report.matches.iter())
        .find(|m| !m.opponent.starts_with("gen-") && m.games() > 0 && half_width(m) > 0.3);
    if let Some(m) = hopeless {
        return finding(
            "noisy-evaluation",
            format!(
                "the latest evaluation played {} games against {}: its 95% interval is +-{:.0} \
                 points, wider than any change a run makes between evaluations.",
                m.games(),
                m.opponent,
                100.0 * half_width(m)
            ),
            advice,
        );
    }
    let all = unsettled_scores(evidence, evidence.history.evaluations.len());
    let (opponent, series) = all.iter().find(|(_, s)| indistinguishable(s))?;
    let scores = series.iter().map(MatchReport::score);
    let lowest = scores.clone().fold(1.0, f64::min);
    let highest = scores.fold(0.0, f64::max);
    let (low, high) = series.last()?.score_interval();
    finding(
        "noisy-evaluation",
        format!(
            "{} evaluations against {opponent} scored {} to {}, no two of them further \
             apart than chance allows at the 95% level (the latest's interval {} to {}): no \
             difference between them can be told.",
            series.len(),
            percent(lowest),
            percent(highest),
            percent(low),
            percent(high)
        ),
        advice,
    )
}

/// Whether three or more matches, each with an interval wider than +-15 points, scored
/// differently yet no two of them differ by more than chance allows.
fn indistinguishable(series: &[MatchReport]) -> bool {
    let differ = series
        .iter()
        .any(|m| (m.score() - series[0].score()).abs() > 1e-9);
    let told_apart = series
        .iter()
        .enumerate()
        .any(|(i, a)| series[i + 1..].iter().any(|b| significantly_apart(a, b)));
    series.len() >= 3 && differ && !told_apart && series.iter().all(|m| half_width(m) > 0.15)
}

/// Whether two matches' scores differ at the 95% level (a two-proportion z-test, a draw
/// half a win; each score is taken one game toward a draw, so that a match won every time
/// keeps a spread).
fn significantly_apart(a: &MatchReport, b: &MatchReport) -> bool {
    let spread = |m: &MatchReport| {
        let n = m.games() as f64;
        let p = (m.score() * n + 1.0) / (n + 2.0);
        p * (1.0 - p) / n.max(1.0)
    };
    (a.score() - b.score()).abs() > 1.96 * (spread(a) + spread(b)).sqrt()
}
