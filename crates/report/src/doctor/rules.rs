//! The doctor's rules: each reads one signal of a run and names one cause when the signal
//! says so. The thresholds are documented in docs/doctor.md; each was set between what
//! healthy runs and runs configured to fail record (docs/doctor.md, "How the rules were set").

use zerosum_players::arena::{wilson_interval, MatchReport};
use zerosum_train::history::Recorded;
use zerosum_train::reports::{LearnerReport, SelfPlayReport};

use super::{Evidence, Finding};

/// A rule: a finding where its signal shows one.
pub(super) type Rule = fn(&Evidence) -> Option<Finding>;

/// Every rule, in the order their findings print.
pub(super) const RULES: [Rule; 11] = [
    lr_too_high,
    lr_too_low,
    value_collapse,
    no_exploration,
    few_simulations,
    memorising,
    starved,
    flooded,
    stale_actors,
    plateau,
    noisy_evaluation,
];

/// How many of the latest generations a rule on a trend reads.
const RECENT: usize = 3;

/// The latest `n` records of `series`.
fn latest<T>(series: &[Recorded<T>], n: usize) -> &[Recorded<T>] {
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

/// The self-play report of generation `generation`.
fn games_of(evidence: &Evidence, generation: u64) -> Option<&SelfPlayReport> {
    let games = &evidence.history.self_play;
    games
        .iter()
        .find(|r| r.generation == generation)
        .map(|r| &r.report)
}

/// What always predicting a draw scores as value loss (mean squared error): the share of
/// decisive games, the outcomes being +1 and -1.
fn draw_guess_loss(games: &SelfPlayReport) -> f64 {
    1.0 - games.draws
}

/// The fewest decisive games for the value loss to be read against [`draw_guess_loss`].
const DECISIVE: f64 = 0.2;

/// The policy loss above its floor, the entropy of the targets: how far the network is from
/// predicting what the search played.
fn policy_gap(losses: &zerosum_nn::Losses) -> f64 {
    losses.policy - losses.target_entropy
}

/// Learning diverges: a non-finite loss, a value worse than always predicting a draw, or a
/// loss that climbs back up.
fn lr_too_high(evidence: &Evidence) -> Option<Finding> {
    let learn = &evidence.history.learn;
    let rate = evidence.config.learner.learning_rate;
    let advice = format!(
        "Lower learner.learning_rate (now {rate}) three- to tenfold, or set \
         learner.grad_clip."
    );
    if let Some(bad) = learn.iter().find(|r| {
        let l = &r.report.losses;
        !(l.total.is_finite() && l.policy.is_finite() && l.value.is_finite())
    }) {
        return finding(
            "lr-too-high",
            format!("generation {}'s loss is not a number.", bad.generation),
            advice,
        );
    }
    let worse_than_guessing = learn.iter().find_map(|r| {
        let games = games_of(evidence, r.generation)?;
        let guess = draw_guess_loss(games);
        (guess >= DECISIVE && r.report.losses.value > 1.5 * guess).then_some((r, guess))
    });
    if let Some((r, guess)) = worse_than_guessing {
        return finding(
            "lr-too-high",
            format!(
                "generation {}'s value loss, {:.3}, is {:.1} times what always predicting a \
                 draw would score ({guess:.3}): the value head's steps overshoot.",
                r.generation,
                r.report.losses.value,
                r.report.losses.value / guess
            ),
            advice,
        );
    }
    let lowest = learn
        .iter()
        .map(|r| r.report.losses.total)
        .fold(f64::INFINITY, f64::min);
    let last = learn.last()?;
    let now = last.report.final_losses.total;
    (learn.len() > RECENT && now > 1.1 * lowest).then(|| Finding {
        name: "lr-too-high",
        evidence: format!(
            "the loss climbed back from {lowest:.3} to {now:.3} by generation {}.",
            last.generation
        ),
        advice,
    })
}

/// Nothing is learnt: the loss of the last generation is where the first began, far above
/// its floor, and the first generation's own steps did not lower it.
fn lr_too_low(evidence: &Evidence) -> Option<Finding> {
    let learn = &evidence.history.learn;
    let (first, last) = (&learn.first()?.report, &learn.last()?.report);
    let flat_start = first.final_losses.total >= 0.98 * first.losses.total;
    let flat_run = last.final_losses.total >= 0.9 * first.losses.total;
    let far_from_floor = policy_gap(&last.final_losses) > 0.2;
    (flat_start && flat_run && far_from_floor).then(|| Finding {
        name: "lr-too-low",
        evidence: format!(
            "the loss went from {:.3} to {:.3} over {} generations, {:.2} above the floor of \
             its policy term: the network is not learning.",
            first.losses.total,
            last.final_losses.total,
            learn.len(),
            policy_gap(&last.final_losses)
        ),
        advice: format!(
            "Raise learner.learning_rate (now {}) tenfold; Adam usually learns at 1e-3 to 3e-3.",
            evidence.config.learner.learning_rate
        ),
    })
}

/// The value head says one thing: every game ends the same way, or the value loss stays
/// where predicting a draw everywhere would put it.
fn value_collapse(evidence: &Evidence) -> Option<Finding> {
    let games = &evidence.history.self_play;
    let one_sided =
        |share: fn(&SelfPlayReport) -> f64| games.iter().all(|r| share(&r.report) >= 0.98);
    let same_end = [
        ("drawn", one_sided(|g| g.draws)),
        ("won by the first player", one_sided(|g| g.first_wins)),
        ("won by the second player", one_sided(|g| g.second_wins)),
    ];
    if let Some((how, _)) = same_end.iter().find(|(_, all)| *all) {
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
    let recent = latest(&evidence.history.learn, RECENT);
    let ratios: Option<Vec<f64>> = recent
        .iter()
        .map(|r| {
            let guess = draw_guess_loss(games_of(evidence, r.generation)?);
            (guess >= DECISIVE).then(|| r.report.final_losses.value / guess)
        })
        .collect();
    let ratios = ratios?;
    let lowest = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    (evidence.history.learn.len() > RECENT && lowest >= 0.75).then(|| Finding {
        name: "value-collapse",
        evidence: format!(
            "over the last {} generations the value loss stayed at {:.0}% or more of what \
             always predicting a draw scores: the value head says the same whatever the \
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

/// Self-play plays the same few games over and over.
fn no_exploration(evidence: &Evidence) -> Option<Finding> {
    let recent = latest(&evidence.history.self_play, RECENT);
    // Runs recorded before distinct games were counted have 0 there.
    if recent.is_empty()
        || recent
            .iter()
            .any(|r| r.report.distinct_games == 0 || r.report.games < 8)
    {
        return None;
    }
    let most = recent
        .iter()
        .map(|r| r.report.distinct_games as f64 / r.report.games as f64)
        .fold(0.0, f64::max);
    let last = &recent.last()?.report;
    let sp = &evidence.config.self_play;
    (most < 0.25).then(|| Finding {
        name: "no-exploration",
        evidence: format!(
            "generation {} played {} in {} ({}), and none of the last {} more than {}: \
             self-play repeats itself, so the network sees few positions.",
            recent.last().map_or(0, |r| r.generation),
            match last.distinct_games {
                1 => "1 distinct game".to_string(),
                n => format!("{n} distinct games"),
            },
            last.games,
            percent(last.distinct_games as f64 / last.games as f64),
            recent.len(),
            percent(most)
        ),
        advice: format!(
            "Explore more: raise self_play.temperature_plies (now {}), keep \
             self_play.root_noise on (now {}) with search.dirichlet_epsilon above 0 (now {}), \
             or set self_play.random_opening_plies (now {}..{}).",
            sp.temperature_plies,
            sp.root_noise,
            evidence.config.search.dirichlet_epsilon,
            sp.random_opening_plies.min,
            sp.random_opening_plies.max
        ),
    })
}

/// The fewest simulations whose targets are worth learning: with fewer, each visit moves
/// a move's share of the target by more than 1/16.
const FEWEST_SIMULATIONS: usize = 16;

/// Too few simulations for the game's number of moves.
fn few_simulations(evidence: &Evidence) -> Option<Finding> {
    let legal = evidence.legal_moves?;
    let sims = evidence.config.search.num_simulations;
    let wanted = (FEWEST_SIMULATIONS as f64).max(legal / 4.0).ceil() as usize;
    (sims < wanted).then(|| Finding {
        name: "few-simulations",
        evidence: format!(
            "search.num_simulations is {sims} for positions with {legal:.1} legal moves on \
             average: the search's targets are too coarse to improve on the network's own \
             policy."
        ),
        advice: format!(
            "Raise search.num_simulations to {wanted} or more (AlphaZero searched 800 for \
             chess's ~35 moves; the shipped configs search 64-128)."
        ),
    })
}

/// Scores against the baselines over the latest evaluations: for each baseline the latest
/// evaluation still loses games to, its scores oldest first.
fn unsettled_scores(evidence: &Evidence, evaluations: usize) -> Vec<(String, Vec<MatchReport>)> {
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
fn gained(series: &[MatchReport]) -> bool {
    let half = series.len() / 2;
    let mean = |part: &[MatchReport]| {
        part.iter().map(MatchReport::score).sum::<f64>() / part.len().max(1) as f64
    };
    mean(&series[series.len() - half..]) > mean(&series[..half]) + 0.02
}

/// The policy reproduces its window while the evaluations stay flat.
fn memorising(evidence: &Evidence) -> Option<Finding> {
    let recent = latest(&evidence.history.learn, RECENT);
    if recent.len() < RECENT {
        return None;
    }
    let gap = recent
        .iter()
        .map(|r| policy_gap(&r.report.final_losses))
        .fold(0.0, f64::max);
    let reuse = recent
        .iter()
        .map(|r| r.report.samples_per_new_position)
        .fold(f64::INFINITY, f64::min);
    let rising = unsettled_scores(evidence, 4)
        .iter()
        .any(|(_, s)| s.len() >= 2 && gained(s));
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

/// The draws per new position the config asks for in generation `r`: `learner.epochs`
/// passes over its window, spread over a full generation's positions, or the cap
/// `replay.reuse`.
fn intended_reuse(evidence: &Evidence, r: &Recorded<LearnerReport>) -> Option<f64> {
    let config = &evidence.config;
    if config.replay.reuse > 0.0 {
        return Some(config.replay.reuse);
    }
    let games = games_of(evidence, r.generation)?;
    let per_game = r.report.new_positions as f64 / games.games.max(1) as f64;
    let expected = config.self_play.games_per_generation as f64 * per_game;
    Some(config.learner.epochs * r.report.window_positions as f64 / expected.max(1.0))
}

/// The learner trains each position many more times than the config intends.
fn starved(evidence: &Evidence) -> Option<Finding> {
    let recent = latest(&evidence.history.learn, RECENT);
    let ratios: Option<Vec<(f64, f64)>> = recent
        .iter()
        .map(|r| {
            Some((
                r.report.samples_per_new_position,
                intended_reuse(evidence, r)?,
            ))
        })
        .collect();
    let ratios = ratios?;
    let over = ratios
        .iter()
        .all(|(drawn, intended)| *drawn > 2.0 * intended);
    let (drawn, intended) = *ratios.last()?;
    (recent.len() == RECENT && over).then(|| Finding {
        name: "starved",
        evidence: format!(
            "each new position was drawn {drawn:.1} times in generation {}, against the \
             {intended:.1} the config asks for, in each of the last {RECENT} generations: the \
             learner trains faster than the actors bring games, and overfits.",
            recent.last().map_or(0, |r| r.generation)
        ),
        advice: format!(
            "Cap the draws with replay.reuse (now {}), or add actors.",
            evidence.config.replay.reuse
        ),
    })
}

/// Positions are thrown away unseen: more arrived than the window holds, or batches were
/// passed over as stale, or most positions are never drawn.
fn flooded(evidence: &Evidence) -> Option<Finding> {
    let learn = latest(&evidence.history.learn, RECENT);
    let games = latest(&evidence.history.self_play, RECENT);
    let discarded: usize = learn.iter().map(|r| r.report.discarded_positions).sum();
    let stale: usize = games.iter().map(|r| r.report.stale_batches).sum();
    let arrived: usize = learn.iter().map(|r| r.report.new_positions).sum();
    let undrawn = learn.len() == RECENT
        && learn
            .iter()
            .all(|r| r.report.samples_per_new_position < 1.0);
    if discarded == 0 && stale == 0 && !undrawn {
        return None;
    }
    let drawn = learn.last()?.report.samples_per_new_position;
    let replay = &evidence.config.replay;
    finding(
        "flooded",
        format!(
            "in the last {} generations {discarded} of {arrived} new positions were dropped \
             untrained (more arrived than the window holds), {stale} batches were passed over \
             as stale, and each new position was drawn {drawn:.2} times: positions are played \
             and thrown away.",
            learn.len()
        ),
        format!(
            "Let the learner keep up: a larger replay.window_positions (now {}), more \
             learner.epochs (now {}) or replay.reuse (now {}), a higher replay.max_staleness \
             (now {}), or fewer actors.",
            replay.window_positions,
            evidence.config.learner.epochs,
            replay.reuse,
            replay.max_staleness
        ),
    )
}

/// Actors play networks several generations old.
fn stale_actors(evidence: &Evidence) -> Option<Finding> {
    let recent = latest(&evidence.history.self_play, RECENT);
    let age =
        recent.iter().map(|r| r.report.checkpoint_age).sum::<f64>() / recent.len().max(1) as f64;
    (recent.len() == RECENT && age >= 2.0).then(|| Finding {
        name: "stale-actors",
        evidence: format!(
            "the games of the last {RECENT} generations were played by checkpoints {age:.1} \
             generations older than the newest, on average: the learner trains on what \
             its networks of long ago played."
        ),
        advice: format!(
            "Let actors reload sooner: fewer self_play.games_per_batch (now {}); pass over \
             older games with a lower replay.max_staleness (now {}); check that every actor \
             can read checkpoints/latest.",
            evidence.config.self_play.games_per_batch, evidence.config.replay.max_staleness
        ),
    })
}

/// No gain against the run's baselines over the latest evaluations.
fn plateau(evidence: &Evidence) -> Option<Finding> {
    const EVALUATIONS: usize = 4;
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

/// Evaluations too small to tell: intervals wider than the differences they report.
fn noisy_evaluation(evidence: &Evidence) -> Option<Finding> {
    let games = evidence.config.arena.games;
    let advice = format!(
        "Raise arena.games (now {games}; 100 games give about +-10 points), or measure with \
         `zerosum arena`."
    );
    let last = evidence.history.evaluations.last()?;
    let half_width = |m: &MatchReport| {
        let (low, high) = m.score_interval();
        (high - low) / 2.0
    };
    if let Some(m) = (last.report.matches.iter())
        .find(|m| !m.opponent.starts_with("gen-") && half_width(m) > 0.3)
    {
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
    let (opponent, series) = all.iter().find(|(_, s)| {
        let (lows, highs): (Vec<f64>, Vec<f64>) = s.iter().map(MatchReport::score_interval).unzip();
        let overlap =
            lows.iter().copied().fold(0.0, f64::max) <= highs.iter().copied().fold(1.0, f64::min);
        let differ = s.iter().any(|m| (m.score() - s[0].score()).abs() > 1e-9);
        s.len() >= 3 && overlap && differ && s.iter().all(|m| half_width(m) > 0.15)
    })?;
    let (lowest, highest) = series
        .iter()
        .map(MatchReport::score)
        .fold((1.0, 0.0), |(lo, hi), s| (f64::min(lo, s), f64::max(hi, s)));
    let (low, high) = wilson_interval(series.last()?.score(), series.last()?.games() as usize);
    finding(
        "noisy-evaluation",
        format!(
            "{} evaluations against {opponent} scored {} to {}, all within each other's 95% \
             intervals (the latest {}-{}): no difference between them can be told.",
            series.len(),
            percent(lowest),
            percent(highest),
            percent(low),
            percent(high)
        ),
        advice,
    )
}

/// The two findings a local run cannot show in seconds, on events written as an
/// asynchronous run records them.
#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_config::RunConfig;
    use zerosum_train::history::RunHistory;

    /// Tic-tac-toe's default config and `generations` of events: each generation's 16 games
    /// (of the 256 the config asks for) with their checkpoints `age` generations old, and
    /// learning that drew each of its 200 new positions `drawn` times.
    fn recorded(games: usize, age: f64, drawn: f64) -> Evidence {
        let mut events = String::new();
        for g in 1..=6 {
            events += &format!(
                "{{\"event\":\"self_play\",\"generation\":{g},\"step\":0,\"games\":{games},\
                 \"distinct_games\":{games},\"draws\":0.5,\"first_wins\":0.3,\
                 \"second_wins\":0.2,\"checkpoint_age\":{age}}}\n\
                 {{\"event\":\"learn\",\"generation\":{g},\"step\":0,\"new_positions\":200,\
                 \"window_positions\":10000,\"samples_per_new_position\":{drawn},\
                 \"losses\":{{\"total\":{t},\"policy\":1.0,\"target_entropy\":0.5,\"value\":0.1}},\
                 \"final_losses\":{{\"total\":{t},\"policy\":1.0,\"target_entropy\":0.5,\
                 \"value\":0.1}}}}\n",
                t = 2.0 - 0.1 * g as f64
            );
        }
        let config = include_str!("../../../../configs/tictactoe.toml");
        Evidence {
            history: RunHistory::parse(&events),
            config: RunConfig::from_toml(config, &["mode=\"async\"".into()]).unwrap(),
            legal_moves: Some(5.0),
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
        // Asked: 4 epochs over 10,000 positions spread over 256 games of 12.5 positions.
        assert_eq!(names(&recorded(16, 0.0, 200.0)), ["starved"]);
        assert_eq!(names(&recorded(256, 0.0, 12.5)), ["healthy"]);
    }

    #[test]
    fn games_played_by_checkpoints_three_generations_old_are_stale() {
        assert_eq!(names(&recorded(256, 3.0, 12.5)), ["stale-actors"]);
        assert_eq!(names(&recorded(256, 1.0, 12.5)), ["healthy"]);
    }
}
