//! Game records: one JSON object per game, moves in design.md notation.

use serde::{Deserialize, Serialize};
use zerosum_games::error::shown;
use zerosum_games::{Action, Game, GameError, Outcome, Player};

/// What the search said at one move of a recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveStats {
    /// The training target: `[action, probability]` over the legal actions.
    pub policy: Vec<(Action, f32)>,
    /// The root's searched value, from the mover's view.
    pub value: f32,
    /// How much the search changed the network's mind: the KL divergence, in nats, of
    /// `policy` from the network's own root policy (KataGo's policy surprise). 0 in records
    /// written before it was kept.
    #[serde(default)]
    pub surprise: f32,
}

impl MoveStats {
    /// The statistics of a finished search, the surprise measured against the network's
    /// root policy.
    pub fn of_search(result: zerosum_search::SearchResult) -> MoveStats {
        MoveStats {
            surprise: kl_divergence(&result.policy_target, &result.network_policy),
            policy: result.policy_target,
            value: result.root_value,
        }
    }
}

/// `KL(target || prior)` over `(action, probability)` lists of the same actions in the
/// same order; a prior of 0 where the target is not counts as 1e-8, so it stays finite.
pub fn kl_divergence(target: &[(Action, f32)], prior: &[(Action, f32)]) -> f32 {
    let kl: f32 = target
        .iter()
        .zip(prior)
        .filter(|(t, _)| t.1 > 0.0)
        .map(|(t, p)| {
            debug_assert_eq!(t.0, p.0, "the same actions in the same order");
            t.1 * (t.1 / p.1.max(1e-8)).ln()
        })
        .sum();
    kl.max(0.0)
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's full registry name.
    pub game: String,
    /// Who played first and second.
    pub players: [String; 2],
    /// Action indices, in order.
    pub actions: Vec<Action>,
    /// The same moves in notation.
    pub moves: Vec<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// The result from the first player's view: 1, 0 or -1.
    pub value_first: f32,
    /// Search statistics per move in self-play: `null` for moves that are not training
    /// samples (random opening plies, fast searches under playout cap randomization).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stats: Vec<Option<MoveStats>>,
}

impl GameRecord {
    /// Builds a record of a finished game from its initial position and its actions.
    pub fn new<G: Game>(
        initial: &G,
        players: [String; 2],
        actions: Vec<Action>,
        stats: Vec<Option<MoveStats>>,
    ) -> GameRecord {
        let mut position = initial.clone();
        let mut moves = Vec::with_capacity(actions.len());
        for &action in &actions {
            moves.push(position.format_action(action));
            position.apply(action);
        }
        let outcome = position.outcome().unwrap_or(Outcome::Draw);
        GameRecord {
            game: initial.name(),
            players,
            actions,
            moves,
            result: outcome.score_string().to_string(),
            value_first: outcome.value_for(Player::FIRST),
            stats,
        }
    }

    /// The positions of the game that are training samples (their moves have search
    /// statistics).
    pub fn samples(&self) -> usize {
        self.stats.iter().flatten().count()
    }

    /// Checks a record that comes from outside this process (another actor's batch, a
    /// file) before it trains or is judged: it is `initial`'s game, every move is legal and
    /// written in notation as it is, every search statistic names legal moves with finite,
    /// non-negative probabilities and a value in [-1, 1], the game is finished, and the
    /// result is the one the moves reach. Says what is wrong, in one line.
    pub fn check<G: Game>(&self, initial: &G) -> Result<(), String> {
        let full_name = || zerosum_games::registry::parse_game(&self.game).map(|game| game.name());
        if self.game != initial.name() && full_name().ok() != Some(initial.name()) {
            return Err(format!(
                "a game of {}, not {}",
                shown(&self.game),
                initial.name()
            ));
        }
        if self.moves.len() != self.actions.len() {
            return Err(format!(
                "{} moves in notation for {} actions",
                self.moves.len(),
                self.actions.len()
            ));
        }
        if self.stats.len() > self.actions.len() {
            return Err(format!(
                "{} search statistics for {} moves",
                self.stats.len(),
                self.actions.len()
            ));
        }
        let mut position = initial.clone();
        for (ply, &action) in self.actions.iter().enumerate() {
            let at = || format!("move {}", ply + 1);
            if let Some(Some(stats)) = self.stats.get(ply) {
                stats
                    .check(&position)
                    .map_err(|e| format!("{}: {e}", at()))?;
            }
            if position.is_legal(action) && position.format_action(action) != self.moves[ply] {
                return Err(format!(
                    "{}: written {}, but action {action} is {}",
                    at(),
                    shown(&self.moves[ply]),
                    position.format_action(action)
                ));
            }
            position
                .try_apply(action)
                .map_err(|e| format!("{}: {e}", at()))?;
        }
        let Some(outcome) = position.outcome() else {
            return Err(format!(
                "the game is not over after its last move (move {})",
                self.actions.len()
            ));
        };
        if outcome.value_for(Player::FIRST) != self.value_first
            || outcome.score_string() != self.result
        {
            return Err(format!(
                "the result {} ({}) is not the one the moves reach, {}",
                shown(&self.result),
                self.value_first,
                outcome.score_string()
            ));
        }
        Ok(())
    }

    /// Replays the record from `initial`, checking every move; returns the positions before
    /// each move.
    pub fn replay<G: Game>(&self, initial: &G) -> Result<Vec<G>, GameError> {
        let mut position = initial.clone();
        let mut positions = Vec::with_capacity(self.actions.len());
        for &action in &self.actions {
            positions.push(position.clone());
            position.try_apply(action)?;
        }
        Ok(positions)
    }
}

impl MoveStats {
    /// Checks the statistics of a move searched in `position`: a value in [-1, 1], a
    /// finite non-negative surprise, and a policy over legal moves with finite,
    /// non-negative shares.
    fn check<G: Game>(&self, position: &G) -> Result<(), String> {
        if !(self.value.is_finite() && self.value.abs() <= 1.0) {
            return Err(format!("value {} is not in [-1, 1]", self.value));
        }
        if !(self.surprise.is_finite() && self.surprise >= 0.0) {
            return Err(format!("surprise {}", self.surprise));
        }
        for &(target, share) in &self.policy {
            if !position.is_legal(target) || !share.is_finite() || share < 0.0 {
                return Err(format!("policy entry [{target}, {share}]"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerosum_games::tic_tac_toe::TicTacToe;

    #[test]
    fn check_refuses_what_the_rules_or_the_search_could_not_have_written() {
        let game = TicTacToe::new();
        // X takes the top row.
        let stats = Some(MoveStats {
            policy: vec![(0, 0.5), (4, 0.5)],
            value: 0.1,
            surprise: 0.2,
        });
        let good = GameRecord::new(
            &game,
            ["a".into(), "b".into()],
            vec![0, 3, 1, 4, 2],
            vec![stats.clone()],
        );
        assert_eq!(good.check(&game), Ok(()));
        let broken = |change: fn(&mut GameRecord)| {
            let mut record = good.clone();
            change(&mut record);
            record.check(&game).unwrap_err()
        };
        assert!(broken(|r| r.actions[1] = 0).starts_with("move 2"));
        let after_the_end = |r: &mut GameRecord| {
            r.actions.push(5);
            r.moves.push("c2".into());
        };
        assert!(broken(after_the_end).starts_with("move 6"));
        assert!(broken(|r| r.actions[0] = 99).starts_with("move 1"));
        assert!(broken(|r| r.value_first = -1.0).contains("result"));
        assert!(broken(|r| r.game = "connect4".into()).contains("a game of connect4"));
        assert!(broken(|r| r.result = "0-1".into()).contains("result 0-1"));
        assert!(broken(|r| r.moves[2] = "a1".into()).starts_with("move 3: written a1"));
        assert!(
            broken(|r| r.moves[2] = "\u{1b}[2J".into()).starts_with("move 3: written \\u{1b}[2J"),
            "a terminal code is shown escaped"
        );
        assert!(broken(|r| drop(r.moves.pop())).contains("4 moves in notation"));
        let unfinished = |r: &mut GameRecord| {
            r.actions.pop();
            r.moves.pop();
        };
        assert!(broken(unfinished).contains("not over after its last move (move 4)"));
        let bad_stats: [fn(&mut GameRecord); 5] = [
            |r| r.stats[0].as_mut().unwrap().policy[0].0 = 9,
            |r| r.stats[0].as_mut().unwrap().policy[0].1 = f32::NAN,
            |r| r.stats[0].as_mut().unwrap().value = 2.0,
            |r| r.stats[0].as_mut().unwrap().surprise = -1.0,
            |r| r.stats = vec![None; 6],
        ];
        for change in bad_stats {
            broken(change);
        }
    }

    #[test]
    fn surprise_is_the_kl_divergence_of_the_target_from_the_prior() {
        let prior = [(0, 0.5), (4, 0.5)];
        assert_eq!(kl_divergence(&prior, &prior), 0.0);
        let target = [(0, 1.0), (4, 0.0)];
        assert!((kl_divergence(&target, &prior) - 2f32.ln()).abs() < 1e-6);
        // A move the network ruled out that the search found: large, but finite.
        let blind = [(0, 1.0), (4, 0.0)];
        let found = [(0, 0.0), (4, 1.0)];
        let kl = kl_divergence(&found, &blind);
        assert!(kl.is_finite() && kl > 18.0, "{kl}");
    }
}
