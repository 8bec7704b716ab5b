//! Search settings.

use serde::{Deserialize, Serialize};

/// How an unvisited child is valued during selection (first-play urgency).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fpu {
    /// The parent's mean value minus this amount (Leela Zero, KataGo).
    Reduction(f32),
    /// This fixed value, from the parent's mover's view (AlphaZero used 0, a draw).
    Absolute(f32),
}

/// How the move to play is picked from a finished search when no temperature applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalChoice {
    /// The most visited move (AlphaZero).
    Visits,
    /// The highest `Q + ln(visits)` among the visited moves (CGZero).
    ValuePlusLogVisits,
}

/// How the root (and the tree below it) chooses where simulations go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// AlphaZero's PUCT everywhere, Dirichlet noise at the root, visit-count targets.
    Puct,
    /// Gumbel AlphaZero: Gumbel-top-k and Sequential Halving at the root, the improved
    /// policy inside the tree and as the training target.
    Gumbel,
}

/// The search: PUCT as in AlphaZero, `argmax Q + c_puct * P * sqrt(N) / (1 + n)` at every
/// node, or the Gumbel root of Danihelka et al.: `m` actions drawn by Gumbel-top-k from
/// the priors, narrowed by Sequential Halving on `g + logits + sigma(q)`, with the improved
/// policy `softmax(logits + sigma(completed q))` choosing the visits below the root.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Simulations per move (AlphaZero: 800).
    pub num_simulations: usize,
    /// Exploration constant of PUCT (AlphaZero's c_init: 1.25).
    pub c_puct: f32,
    /// First-play urgency: the value of a child not yet visited.
    pub fpu: Fpu,
    /// Concentration of the Dirichlet noise added to the root priors in self-play
    /// (AlphaZero: 0.3 chess, 0.15 shogi, 0.03 Go; about 10 / typical number of moves).
    pub dirichlet_alpha: f32,
    /// Weight of that noise in the root priors (AlphaZero: 0.25).
    pub dirichlet_epsilon: f32,
    /// Propagate proven wins and losses up the tree (MCTS-solver) and play them.
    pub solver: bool,
    /// With the solver: on expanding a node, apply each of its actions and mark those that
    /// end the game as proven, so that a win in one is never missed.
    pub terminal_check: bool,
    /// Value a position below the root that repeats an earlier one of the game
    /// ([`Game::is_repetition`](zerosum_games::Game::is_repetition)) as a draw, unexpanded
    /// (Leela Chess Zero): the side ahead looks for progress instead of shuffling into a
    /// threefold repetition. Only games that report repetitions are affected. Off by
    /// default: it did not raise the chess checkpoint's score (docs/results/chess.md).
    pub repetition_draws: bool,
    /// Each ply (one action, whoever makes it) between a position and a value backed up to
    /// it multiplies that value by this, so that a nearer win counts for more and a nearer
    /// loss for worse; training then learns the same discounted result
    /// (`discount^plies_to_end * z`). 1 (the default) discounts nothing. Below 1, a value
    /// stops saturating once a game is won: being a queen up is worth more than a pawn up,
    /// because it wins sooner (docs/decisions.md).
    pub discount: f32,
    /// Keep the subtree under the played move for the next search.
    pub reuse_tree: bool,
    /// Network outputs kept per search driver, keyed by position hash; 0 turns the cache off.
    pub cache_capacity: usize,
    /// `puct` (AlphaZero) or `gumbel` (Gumbel AlphaZero).
    pub algorithm: Algorithm,
    /// Gumbel: actions sampled at the root for Sequential Halving (the paper's m: 16).
    pub gumbel_considered: usize,
    /// Gumbel: scale of the Gumbel noise at the root (1 in self-play; 0 plays greedily).
    pub gumbel_scale: f32,
    /// Gumbel: `c_visit` of `sigma(q) = (c_visit + max N) * c_scale * q` (paper: 50).
    pub gumbel_c_visit: f32,
    /// Gumbel: `c_scale` of sigma, with q rescaled to [0, 1] (mctx: 0.1).
    pub gumbel_c_scale: f32,
    /// How the greedy move is picked: `visits` or `value_plus_log_visits`.
    pub final_choice: FinalChoice,
    /// KataGo's forced playouts at a noised root: a child with fewer than
    /// `sqrt(k * P * N)` visits is searched next; self-play then prunes those visits from
    /// the target. 0 turns them off (KataGo: k = 2).
    pub forced_playouts_k: f32,
    /// Leaves of one search evaluated in each network call, spread over the tree by a
    /// virtual loss on each pending path (lc0, KataGo): what lets one search (`play`,
    /// `gtp`, `uci`, `serve`, the arena) fill a GPU's batch. 1 evaluates one leaf at a time.
    /// Self-play's lockstep batches across games and searches one leaf per tree.
    pub leaves: usize,
    /// Outside self-play: a search whose budget covers every legal root move visits each
    /// once first, the highest prior first, so that no move is left unseen however low the
    /// network's prior for it (a winning capture at prior 0.0004 went unvisited at 2,000
    /// simulations without it). Self-play keeps PUCT's own choice (docs/decisions.md).
    pub visit_every_root_move: bool,
    /// Outside self-play, with the solver: a child proven a draw gets no further
    /// simulations while a sibling is unproven (they cannot change its value); the budget
    /// goes to the unproven moves, and at the root the draw is played unless an open move
    /// is clearly better (docs/decisions.md).
    pub skip_proven: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            num_simulations: 200,
            c_puct: 1.25,
            fpu: Fpu::Reduction(0.25),
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            solver: true,
            terminal_check: true,
            repetition_draws: false,
            discount: 1.0,
            reuse_tree: true,
            cache_capacity: 200_000,
            algorithm: Algorithm::Puct,
            gumbel_considered: 16,
            gumbel_scale: 1.0,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            final_choice: FinalChoice::Visits,
            forced_playouts_k: 0.0,
            leaves: 1,
            visit_every_root_move: true,
            skip_proven: true,
        }
    }
}

impl SearchConfig {
    /// Whether the tree under a played move is kept: Sequential Halving plans a fresh
    /// budget from an empty root, so the Gumbel root starts afresh every move.
    pub fn keeps_subtree(&self) -> bool {
        self.reuse_tree && self.algorithm == Algorithm::Puct
    }

    /// The search self-play runs: PUCT's own choices everywhere, so that the visit targets
    /// are the search's, unchanged by the rules made for playing a game out.
    pub fn for_self_play(&self) -> SearchConfig {
        SearchConfig {
            visit_every_root_move: false,
            skip_proven: false,
            ..self.clone()
        }
    }

    /// Problems that make the search meaningless, as one-line messages.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if self.num_simulations == 0 {
            errors.push("search.num_simulations must be at least 1".to_string());
        }
        if self.c_puct.is_nan() || self.c_puct <= 0.0 {
            errors.push(format!(
                "search.c_puct must be positive, got {}",
                self.c_puct
            ));
        }
        if self.dirichlet_alpha.is_nan() || self.dirichlet_alpha <= 0.0 {
            errors.push(format!(
                "search.dirichlet_alpha must be positive, got {}",
                self.dirichlet_alpha
            ));
        }
        if !(0.0..=1.0).contains(&self.dirichlet_epsilon) {
            errors.push(format!(
                "search.dirichlet_epsilon must be within [0, 1], got {}",
                self.dirichlet_epsilon
            ));
        }
        if self.leaves == 0 {
            errors.push("search.leaves must be at least 1".to_string());
        }
        if !(self.discount > 0.0 && self.discount <= 1.0) {
            errors.push(format!(
                "search.discount must be within (0, 1], got {}",
                self.discount
            ));
        }
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert!(SearchConfig::default().validate().is_empty());
    }

    #[test]
    fn validate_rejects_zero_negative_and_nan_settings() {
        for bad in [0.0, -1.0, f32::NAN] {
            let config = SearchConfig {
                c_puct: bad,
                dirichlet_alpha: bad,
                ..SearchConfig::default()
            };
            assert_eq!(config.validate().len(), 2, "{bad}");
        }
        let config = SearchConfig {
            num_simulations: 0,
            dirichlet_epsilon: 1.5,
            ..SearchConfig::default()
        };
        assert_eq!(config.validate().len(), 2);
        for bad in [0.0, 1.01, f32::NAN] {
            let config = SearchConfig {
                discount: bad,
                ..SearchConfig::default()
            };
            assert_eq!(config.validate().len(), 1, "{bad}");
        }
    }
}
