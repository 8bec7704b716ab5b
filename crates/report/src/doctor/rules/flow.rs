//! Rules on the flow of games: what self-play plays, and how its positions reach the
//! learner.

use zerosum_search::Algorithm;
use zerosum_train::history::Recorded;
use zerosum_train::reports::{LearnerReport, SelfPlayReport};

use super::{finding, games_of, latest, percent, trained, Evidence, Finding, RECENT};

/// Self-play plays the same few games over and over.
pub(super) fn no_exploration(evidence: &Evidence) -> Option<Finding> {
    let recent = latest(&evidence.history.self_play, RECENT);
    // Runs recorded before distinct games were counted have 0 there.
    let counted = |r: &Recorded<SelfPlayReport>| r.report.distinct_games > 0 && r.report.games >= 8;
    if recent.len() < RECENT || !recent.iter().all(counted) {
        return None;
    }
    let share =
        |r: &Recorded<SelfPlayReport>| r.report.distinct_games as f64 / r.report.games as f64;
    let most = recent.iter().map(share).fold(0.0, f64::max);
    let last = recent.last()?;
    let self_play = &evidence.config.self_play;
    (most < 0.25).then(|| Finding {
        name: "no-exploration",
        evidence: format!(
            "generation {} played {} in {} ({}), and none of the last {} more than {}: \
             self-play repeats itself, so the network sees few positions.",
            last.generation,
            match last.report.distinct_games {
                1 => "1 distinct game".to_string(),
                n => format!("{n} distinct games"),
            },
            last.report.games,
            percent(share(last)),
            recent.len(),
            percent(most)
        ),
        advice: format!(
            "Explore more: raise self_play.temperature_plies (now {}), keep \
             self_play.root_noise on (now {}) with search.dirichlet_epsilon above 0 (now {}), \
             or set self_play.random_opening_plies (now {}..{}).",
            self_play.temperature_plies,
            self_play.root_noise,
            evidence.config.search.dirichlet_epsilon,
            self_play.random_opening_plies.min,
            self_play.random_opening_plies.max
        ),
    })
}

/// The fewest simulations whose targets are worth learning: with fewer, each visit moves
/// a move's share of the target by more than 1/16.
const FEWEST_SIMULATIONS: usize = 16;

/// Too few simulations for the game's number of moves (PUCT; Gumbel's root is made for a
/// few).
pub(super) fn few_simulations(evidence: &Evidence) -> Option<Finding> {
    let search = &evidence.config.search;
    let legal = evidence.mean_legal_actions?;
    let wanted = (FEWEST_SIMULATIONS as f64).max(legal / 4.0).ceil() as usize;
    let simulations = search.num_simulations;
    (matches!(search.algorithm, Algorithm::Puct) && simulations < wanted).then(|| Finding {
        name: "few-simulations",
        evidence: format!(
            "search.num_simulations is {simulations} for positions with {legal:.1} legal moves \
             on average: the search's targets are too coarse to improve on the network's own \
             policy."
        ),
        advice: format!(
            "Raise search.num_simulations to {wanted} or more (AlphaZero searched 800 for \
             chess's ~35 moves; the shipped PUCT configs search 64 to 128), or search with \
             search.algorithm = \"gumbel\", made for a few simulations."
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
pub(super) fn starved(evidence: &Evidence) -> Option<Finding> {
    let learn = trained(evidence);
    let recent = latest(&learn, RECENT);
    let reuse: Option<Vec<(f64, f64)>> = recent
        .iter()
        .map(|r| {
            Some((
                r.report.samples_per_new_position,
                intended_reuse(evidence, r)?,
            ))
        })
        .collect();
    let reuse = reuse?;
    let over = reuse
        .iter()
        .all(|(drawn, intended)| *drawn > 2.0 * intended);
    let (drawn, intended) = *reuse.last()?;
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

/// The least share of new positions dropped untrained that counts as a flood.
const FLOOD: f64 = 0.05;

/// Positions are thrown away unseen: more arrived than the window holds, batches were
/// passed over as stale in every recent generation, or most positions are never drawn.
pub(super) fn flooded(evidence: &Evidence) -> Option<Finding> {
    let learn = latest(&evidence.history.learn, RECENT);
    let games = latest(&evidence.history.self_play, RECENT);
    if learn.len() < RECENT || games.len() < RECENT {
        return None;
    }
    let discarded: usize = learn.iter().map(|r| r.report.discarded_positions).sum();
    let arrived: usize = learn.iter().map(|r| r.report.new_positions).sum();
    let stale: usize = games.iter().map(|r| r.report.stale_batches).sum();
    let dropped = discarded as f64 >= FLOOD * arrived.max(1) as f64;
    let always_stale = games.iter().all(|r| r.report.stale_batches > 0);
    let undrawn = learn
        .iter()
        .all(|r| r.report.samples_per_new_position < 1.0);
    if !(dropped || always_stale || undrawn) {
        return None;
    }
    let drawn = learn.last()?.report.samples_per_new_position;
    let replay = &evidence.config.replay;
    finding(
        "flooded",
        format!(
            "in the last {RECENT} generations {discarded} of {arrived} new positions were \
             dropped untrained (more arrived than the window holds), {stale} batches were \
             passed over as stale, and each new position was drawn {drawn:.2} times: \
             positions are played and thrown away."
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
pub(super) fn stale_actors(evidence: &Evidence) -> Option<Finding> {
    let recent = latest(&evidence.history.self_play, RECENT);
    let age = recent.iter().map(|r| r.report.checkpoint_age).sum::<f64>() / RECENT as f64;
    (recent.len() == RECENT && age >= 2.0).then(|| Finding {
        name: "stale-actors",
        evidence: format!(
            "the games of the last {RECENT} generations were played by checkpoints {age:.1} \
             generations older than the one published, on average: the learner trains on \
             what its networks of long ago played."
        ),
        advice: format!(
            "Let actors reload sooner: fewer self_play.games_per_batch (now {}); pass over \
             older games with a lower replay.max_staleness (now {}); check that every actor \
             can read checkpoints/latest.",
            evidence.config.self_play.games_per_batch, evidence.config.replay.max_staleness
        ),
    })
}
