//! Exact game values by memoised negamax, for games small enough (tic-tac-toe).

use std::collections::HashMap;

use zerosum_games::{value_for, Action, Game};

/// The exact value of every position it has been asked about, from the mover's view.
pub struct PerfectSolver<G: Game> {
    memo: HashMap<G, i8>,
    /// Positions searched so far; the memo alone would not stop a search that goes deep
    /// (chess) and finishes few positions.
    expanded: usize,
    limit: usize,
}

impl<G: Game> PerfectSolver<G> {
    /// A solver that gives up after searching `limit` positions.
    pub fn new(limit: usize) -> PerfectSolver<G> {
        PerfectSolver {
            memo: HashMap::new(),
            expanded: 0,
            limit,
        }
    }

    /// The value of `position` for its mover: 1 win, 0 draw, -1 loss; `None` if the game
    /// is too large for the limit.
    pub fn value(&mut self, position: &G) -> Option<i8> {
        if let Some(outcome) = position.outcome() {
            return Some(outcome.value_for(position.to_move()) as i8);
        }
        if let Some(&v) = self.memo.get(position) {
            return Some(v);
        }
        if self.expanded >= self.limit {
            return None;
        }
        self.expanded += 1;
        let mover = position.to_move();
        let mut best = -2i8;
        for action in position.legal_action_vec() {
            let mut next = position.clone();
            next.apply(action);
            let v = self.child_value(&next, mover)?;
            best = best.max(v);
            if best == 1 {
                break;
            }
        }
        self.memo.insert(position.clone(), best);
        Some(best)
    }

    fn child_value(&mut self, child: &G, mover: zerosum_games::Player) -> Option<i8> {
        if let Some(outcome) = child.outcome() {
            return Some(outcome.value_for(mover) as i8);
        }
        let v = self.value(child)?;
        Some(value_for(v as f32, child.to_move(), mover) as i8)
    }

    /// The exact value for the mover of each legal action of `position`, in action order;
    /// `None` if the game is too large for the limit.
    pub fn action_values(&mut self, position: &G) -> Option<Vec<(Action, i8)>> {
        let mover = position.to_move();
        let mut scored = Vec::new();
        for action in position.legal_action_vec() {
            let mut next = position.clone();
            next.apply(action);
            scored.push((action, self.child_value(&next, mover)?));
        }
        Some(scored)
    }

    /// The actions that keep the exact value of `position`, and that value.
    pub fn best_actions(&mut self, position: &G) -> Option<(Vec<Action>, i8)> {
        let scored = self.action_values(position)?;
        let best = scored.iter().map(|s| s.1).max()?;
        Some((
            scored
                .into_iter()
                .filter(|s| s.1 == best)
                .map(|s| s.0)
                .collect(),
            best,
        ))
    }
}

#[cfg(test)]
mod tests {
    use zerosum_games::chess::Chess;
    use zerosum_games::tic_tac_toe::TicTacToe;

    use super::*;

    #[test]
    fn tic_tac_toe_is_a_draw_and_chess_is_refused_quickly() {
        let mut solver = PerfectSolver::new(100_000);
        assert_eq!(solver.value(&TicTacToe::new()), Some(0));
        // Chess searches deep and finishes few positions: the limit counts what it searched.
        let mut solver = PerfectSolver::new(10_000);
        assert_eq!(solver.action_values(&Chess::new()), None);
    }
}
