//! Monte Carlo tree search over any [`zerosum_games::Game`].
//!
//! - [`Evaluator`]: the only view of a network (batch of positions in, logits and values
//!   out), with [`UniformEvaluator`] and [`RolloutEvaluator`] so search runs without one.
//! - [`Tree`]: an arena of nodes; [`Tree::advance`] keeps the subtree under a played move.
//! - [`run_simulations`]: select, expand and backup in B trees in lockstep around one
//!   batched evaluator call, with an [`EvalCache`] keyed by position hash.
//! - Selection (PUCT score, first-play urgency, forced playouts) in one module, Dirichlet
//!   root noise in another, the Gumbel root, and the MCTS-solver. A search's
//!   [`SearchMode`] says whether it is a self-play search whose result trains the network.
//! - [`SearchResult`] and [`Tree::choose_action`] (temperature) read the root.
//! - The classic baselines without a network: [`flat_monte_carlo`] and [`uct`].
//!
//! ```
//! use rand::{SeedableRng, rngs::SmallRng};
//! use zerosum_games::{Game, tic_tac_toe::TicTacToe};
//! use zerosum_search::{search_one, EvalCache, RolloutEvaluator, SearchConfig, Tree};
//!
//! let mut game = TicTacToe::new();
//! for mv in ["a1", "b2", "a2"] { game.play_notation(mv).unwrap(); }
//! let mut tree = Tree::new(game.clone());
//! let mut evaluator = RolloutEvaluator::new(1, 1);
//! let mut rng = SmallRng::seed_from_u64(7);
//! search_one(&mut tree, &mut evaluator, &SearchConfig::default(), 400, &mut EvalCache::new(0), &mut rng);
//! let block = tree.choose_action(0.0, &mut rng).unwrap();
//! assert_eq!(game.format_action(block), "a3");
//! ```
#![warn(missing_docs)]

mod classic;
mod config;
mod evaluator;
mod gumbel;
mod noise;
mod puct;
mod result;
mod simulate;
mod solver;
#[cfg(test)]
mod testutil;
mod tree;

pub use classic::{flat_monte_carlo, random_playout, uct, ClassicChoice, UCT_C};
pub use config::{Algorithm, FinalChoice, Fpu, SearchConfig};
pub use evaluator::{Evaluator, RolloutEvaluator, UniformEvaluator};
pub use gumbel::considered_visit_sequence;
pub use noise::add_dirichlet_noise;
pub use result::{value_for_first, SearchResult};
pub use simulate::{run_simulations, search_one, simulate_step, EvalCache, Scratch};
pub use tree::{Bound, Node, NodeId, SearchMode, Tree};
