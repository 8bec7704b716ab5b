//! What a search says about its root: visit counts, the training target, the value and
//! the move to play.

use rand::Rng;
use zerosum_games::{value_for, Action, Game};

use crate::config::{FinalChoice, SearchConfig};
use crate::tree::{Bound, NodeId, Tree};

/// The summary of a search at its root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// `(action, visits)` for every legal action, in action order.
    pub visits: Vec<(Action, u32)>,
    /// The training target, `(action, probability)`: Gumbel's improved policy; else the
    /// visit shares, with forced playouts pruned after a self-play search that forced them.
    pub policy_target: Vec<(Action, f32)>,
    /// The root's mean value from its mover's view; exact where proven, and at least a
    /// draw where a root move is a proven draw that the search set aside.
    pub root_value: f32,
    /// What is proven about the root.
    pub bound: Bound,
    /// The network's own value of the root position, from its mover's view.
    pub raw_value: f32,
    /// The network's own policy at the root, `(action, prior)` before any root noise.
    pub network_policy: Vec<(Action, f32)>,
}

impl<G: Game> Tree<G> {
    /// The principal variation: `first` (the move chosen) or the most visited root move,
    /// then the most visited child at each node below, as far as visits go.
    pub fn principal_variation(&self, first: Option<Action>) -> Vec<Action> {
        let most_visited = |node: NodeId| {
            self.node(node)
                .children()
                .filter(|&c| self.node(c).visits > 0)
                .max_by_key(|&c| self.node(c).visits)
        };
        let mut node = match first {
            Some(action) => self.child(NodeId::ROOT, action),
            None => most_visited(NodeId::ROOT),
        };
        let mut pv = Vec::new();
        while let Some(id) = node {
            pv.push(self.node(id).action);
            node = most_visited(id);
        }
        if pv.is_empty() {
            pv.extend(first);
        }
        pv
    }

    /// Summarises the root. Empty if the root was never expanded. `config` is the search's
    /// own (its forced playouts decide the target of a self-play search).
    pub fn result(&self, config: &SearchConfig) -> SearchResult {
        let root = self.root();
        let visits: Vec<(Action, u32)> = root
            .children()
            .map(|c| (self.node(c).action, self.node(c).visits))
            .collect();
        let total: u32 = visits.iter().map(|v| v.1).sum();
        // Gumbel: the improved policy; PUCT: visit shares, less forced playouts.
        let improved = crate::gumbel::improved_policy(self);
        let pruned = || {
            crate::puct::forces_playouts(self, config)
                .then(|| crate::puct::pruned_target(self, config))
        };
        let policy_target = improved.or_else(pruned).unwrap_or_else(|| {
            visits
                .iter()
                .map(|&(a, n)| {
                    (
                        a,
                        if total > 0 {
                            n as f32 / total as f32
                        } else {
                            1.0 / visits.len() as f32
                        },
                    )
                })
                .collect()
        });
        let root_value = root.bound.value().unwrap_or_else(|| {
            // A proven draw set aside stops adding to the root's mean, which the open moves
            // alone may pull below the draw the mover can always take.
            let holds_draw =
                self.skips_proven && root.children().any(|c| self.node(c).bound == Bound::Draw);
            let mean = root.mean_value();
            if holds_draw {
                mean.max(0.0)
            } else {
                mean
            }
        });
        SearchResult {
            visits,
            policy_target,
            root_value,
            bound: root.bound,
            raw_value: root.raw_value,
            network_policy: self.network_root_policy(),
        }
    }

    /// The move to play: the quickest proven win if there is one; the slowest proven loss if
    /// every move is one; a proven draw, when proven draws were set aside, unless an open
    /// move is clearly better; otherwise, among moves not proven lost, the most visited when
    /// `temperature` is 0, else one drawn with probability proportional to
    /// `visits^(1/temperature)`. With the Gumbel root, the action Sequential Halving left
    /// standing, whatever the temperature.
    pub fn choose_action(&self, temperature: f32, rng: &mut impl Rng) -> Option<Action> {
        self.choose_action_by(FinalChoice::Visits, temperature, rng)
    }

    /// [`Tree::choose_action`] with the rule for the greedy choice: the most visited move,
    /// or (CGZero) the highest `Q + ln(visits)` among the visited moves.
    pub fn choose_action_by(
        &self,
        rule: FinalChoice,
        temperature: f32,
        rng: &mut impl Rng,
    ) -> Option<Action> {
        if let Some(action) = crate::gumbel::final_action(self) {
            // Sequential Halving's survivor; the Gumbel draws already explore.
            return Some(action);
        }
        let root = self.root();
        let children: Vec<NodeId> = root.children().collect();
        if children.is_empty() {
            return None;
        }
        if let Some(win) = self.quickest_win(NodeId::ROOT) {
            return Some(self.node(win).action);
        }
        let bound_for_root = |c: NodeId| {
            let n = self.node(c);
            n.bound.seen_by(n.player, root.player)
        };
        let mut candidates: Vec<NodeId> = children
            .iter()
            .copied()
            .filter(|&c| bound_for_root(c) != Bound::Loss)
            .collect();
        if self.skips_proven && candidates.iter().any(|&c| bound_for_root(c) == Bound::Draw) {
            // The draw stopped taking visits once proven, so visits no longer rank it: an
            // open move is preferred to it only where its value beats a draw by more than
            // its visits leave in doubt (a lower confidence bound, `q - 1/sqrt(n)`).
            candidates.retain(|&c| {
                let visits = self.node(c).visits.max(1) as f32;
                bound_for_root(c) == Bound::Draw
                    || self
                        .child_value_for_parent(NodeId::ROOT, c)
                        .is_some_and(|q| q - visits.sqrt().recip() > 0.0)
            });
            let draws_only = candidates.iter().all(|&c| bound_for_root(c) == Bound::Draw);
            if draws_only {
                return Some(self.node(candidates[0]).action);
            }
            candidates.retain(|&c| bound_for_root(c) != Bound::Draw);
        }
        if candidates.is_empty() {
            // Every move loses against best play: hold out longest, for an opponent may err.
            let slowest = children
                .iter()
                .copied()
                .max_by_key(|&c| (self.node(c).proof_plies, self.node(c).visits))?;
            return Some(self.node(slowest).action);
        }
        if temperature <= 0.0 || candidates.len() == 1 {
            return self.greedy_choice(rule, &candidates);
        }
        Some(self.sample_by_visits(&candidates, temperature, rng))
    }

    /// The move of the best of `candidates` (root children) by `rule`; `None` only when
    /// there are none.
    fn greedy_choice(&self, rule: FinalChoice, candidates: &[NodeId]) -> Option<Action> {
        let best = if rule == FinalChoice::ValuePlusLogVisits {
            let score = |c: NodeId| {
                let n = self.node(c);
                let q = self.child_value_for_parent(NodeId::ROOT, c).unwrap_or(-2.0);
                if n.visits == 0 {
                    f32::NEG_INFINITY
                } else {
                    q + (n.visits as f32).ln()
                }
            };
            candidates
                .iter()
                .copied()
                .max_by(|&a, &b| score(a).total_cmp(&score(b)))?
        } else {
            let key = |c: NodeId| {
                let n = self.node(c);
                let q = self.child_value_for_parent(NodeId::ROOT, c).unwrap_or(-2.0);
                (n.visits, q, n.prior)
            };
            candidates.iter().copied().max_by(|&a, &b| {
                key(a)
                    .partial_cmp(&key(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })?
        };
        Some(self.node(best).action)
    }

    /// The move of one of `candidates` (root children, not empty), drawn with probability
    /// proportional to `visits^(1/temperature)`; uniformly if none has a visit.
    fn sample_by_visits(
        &self,
        candidates: &[NodeId],
        temperature: f32,
        rng: &mut impl Rng,
    ) -> Action {
        // Scaled by the largest count so that `visits^(1/temperature)` cannot overflow at low
        // temperatures (it is `inf` from about 2000 visits at temperature 0.01).
        let max_visits = candidates
            .iter()
            .map(|&c| self.node(c).visits)
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let weights: Vec<f64> = candidates
            .iter()
            .map(|&c| (self.node(c).visits as f64 / max_visits).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return self
                .node(candidates[rng.random_range(0..candidates.len())])
                .action;
        }
        let mut draw = rng.random::<f64>() * total;
        for (c, w) in candidates.iter().zip(&weights) {
            if draw < *w {
                return self.node(*c).action;
            }
            draw -= w;
        }
        self.node(*candidates.last().expect("non-empty")).action
    }

    /// Q of each root child from the root mover's view, `(action, q)`, for visited or
    /// proven children.
    pub fn root_q_values(&self) -> Vec<(Action, f32)> {
        self.root()
            .children()
            .filter_map(|c| {
                self.child_value_for_parent(NodeId::ROOT, c)
                    .map(|q| (self.node(c).action, q))
            })
            .collect()
    }
}

/// Converts a value seen by the root's mover to the first player's view (for records).
pub fn value_for_first<G: Game>(position: &G, value: f32) -> f32 {
    value_for(value, position.to_move(), zerosum_games::Player::FIRST)
}

#[cfg(test)]
mod tests {
    use crate::SearchMode;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use zerosum_games::Player;

    use super::*;
    use crate::testutil::{star, Child};

    const FIRST: Player = Player::FIRST;
    const SECOND: Player = Player::SECOND;

    /// Children of the root with these visit counts, all worth 0.
    fn with_visits(visits: &[u32]) -> Vec<Child> {
        visits
            .iter()
            .map(|&n| Child::visited(SECOND, n, 0.0))
            .collect()
    }

    /// How often each action is drawn in `draws` calls.
    fn frequencies(tree: &Tree<impl Game>, temperature: f32, draws: usize) -> Vec<f64> {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut counts = vec![0usize; tree.root().num_children as usize];
        for _ in 0..draws {
            counts[tree.choose_action(temperature, &mut rng).unwrap()] += 1;
        }
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    }

    fn assert_close(got: &[f64], want: &[f64], tolerance: f64) {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < tolerance, "got {got:?}, want {want:?}");
        }
    }

    #[test]
    fn temperature_zero_picks_the_most_visited() {
        let mut rng = SmallRng::seed_from_u64(1);
        for visits in [[10, 50, 40], [50, 10, 40], [10, 40, 50]] {
            let tree = star(&with_visits(&visits));
            let best = visits.iter().position(|&v| v == 50).unwrap();
            assert_eq!(tree.choose_action(0.0, &mut rng), Some(best));
        }
    }

    #[test]
    fn temperature_zero_breaks_visit_ties_by_value() {
        let children = [
            Child::visited(SECOND, 20, 0.1),
            Child::visited(SECOND, 20, -0.3),
            Child::visited(SECOND, 5, -0.9),
        ];
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(star(&children).choose_action(0.0, &mut rng), Some(1));
    }

    #[test]
    fn temperature_one_follows_visit_frequencies() {
        let tree = star(&with_visits(&[10, 30, 60]));
        assert_close(&frequencies(&tree, 1.0, 20_000), &[0.1, 0.3, 0.6], 0.02);
    }

    #[test]
    fn temperature_half_squares_visit_counts() {
        let tree = star(&with_visits(&[10, 30, 60]));
        let want = [100.0 / 4600.0, 900.0 / 4600.0, 3600.0 / 4600.0];
        assert_close(&frequencies(&tree, 0.5, 20_000), &want, 0.02);
    }

    #[test]
    fn choose_action_low_temperature_overflow() {
        // Regression: `visits^(1/temperature)` overflowed to infinity and the draw fell
        // through to the last candidate, the less visited one here.
        let tree = star(&with_visits(&[2000, 1500]));
        assert_eq!(frequencies(&tree, 0.01, 100), vec![1.0, 0.0]);
    }

    #[test]
    fn unvisited_children_are_never_drawn_at_positive_temperature() {
        let mut children = with_visits(&[0, 7, 3]);
        children[0] = Child::unvisited(0.9);
        let tree = star(&children);
        assert_eq!(frequencies(&tree, 1.0, 2000)[0], 0.0);
    }

    #[test]
    fn proven_wins_are_preferred_at_any_temperature() {
        // A rarely visited child won for the root's mover beats the most visited one,
        // whether the opponent moves next (and is lost) or the root's mover moves again.
        for won in [
            Child::visited(SECOND, 2, -1.0).proven(Bound::Loss),
            Child::visited(FIRST, 2, 1.0).proven(Bound::Win),
        ] {
            let tree = star(&[Child::visited(SECOND, 90, 0.2), won]);
            assert_eq!(frequencies(&tree, 1.0, 500), vec![0.0, 1.0]);
            assert_eq!(frequencies(&tree, 0.0, 10), vec![0.0, 1.0]);
        }
    }

    #[test]
    fn proven_losses_are_avoided_unless_all_are_lost() {
        let lost = Child::visited(SECOND, 90, 1.0).proven(Bound::Win);
        let lost_again = Child::visited(FIRST, 60, -1.0).proven(Bound::Loss);
        let open = Child::visited(SECOND, 5, 0.5);
        let tree = star(&[lost, open, lost_again]);
        assert_eq!(frequencies(&tree, 1.0, 500), vec![0.0, 1.0, 0.0]);
        assert_eq!(frequencies(&tree, 0.0, 10), vec![0.0, 1.0, 0.0]);
        // With nothing but losses it still plays, the most visited at temperature 0.
        let tree = star(&[lost_again, lost]);
        assert_eq!(frequencies(&tree, 0.0, 10), vec![0.0, 1.0]);
    }

    #[test]
    fn a_set_aside_draw_is_played_unless_an_open_move_is_clearly_better() {
        // From the root's view: a proven draw (its visits frozen when it was proven) beside
        // open moves worth +0.2 after 9 and after 100 visits.
        let choose = |open: Child| {
            let mut tree = star(&[Child::visited(SECOND, 5, 0.0).proven(Bound::Draw), open]);
            tree.skips_proven = true;
            tree.choose_action(0.0, &mut SmallRng::seed_from_u64(0))
        };
        assert_eq!(choose(Child::visited(SECOND, 9, -0.2)), Some(0));
        assert_eq!(choose(Child::visited(SECOND, 100, -0.2)), Some(1));
        assert_eq!(choose(Child::visited(SECOND, 100, 0.2)), Some(0));
    }

    #[test]
    fn the_quickest_win_and_the_slowest_loss_are_played() {
        // Two proven wins for the root's mover: the most visited ends the game in 5 plies,
        // the other in 1.
        let slow = Child::visited(SECOND, 80, -1.0).proven_in(Bound::Loss, 4);
        let quick = Child::visited(FIRST, 3, 1.0).proven_in(Bound::Win, 0);
        let tree = star(&[slow, Child::visited(SECOND, 10, 0.0), quick]);
        assert_eq!(frequencies(&tree, 1.0, 200), vec![0.0, 0.0, 1.0]);
        assert_eq!(frequencies(&tree, 0.0, 10), vec![0.0, 0.0, 1.0]);
        // Every move lost: the one the opponent needs longest to win.
        let soon = Child::visited(SECOND, 90, 1.0).proven_in(Bound::Win, 0);
        let late = Child::visited(SECOND, 5, 1.0).proven_in(Bound::Win, 6);
        let tree = star(&[soon, late]);
        assert_eq!(frequencies(&tree, 1.0, 200), vec![0.0, 1.0]);
    }

    #[test]
    fn an_unexpanded_root_has_no_action() {
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(star(&[]).choose_action(1.0, &mut rng), None);
    }

    #[test]
    fn result_normalises_visits_and_reads_the_proof() {
        let mut tree = star(&with_visits(&[1, 3, 0, 4]));
        let result = tree.result(&SearchConfig::default());
        assert_eq!(result.visits, vec![(0, 1), (1, 3), (2, 0), (3, 4)]);
        let target: Vec<f32> = result.policy_target.iter().map(|p| p.1).collect();
        assert_eq!(target, vec![0.125, 0.375, 0.0, 0.5]);
        assert_eq!(result.bound, Bound::Unknown);
        tree.node_mut(NodeId::ROOT).bound = Bound::Loss;
        assert_eq!(tree.result(&SearchConfig::default()).root_value, -1.0);
    }

    #[test]
    fn root_q_values_are_from_the_root_movers_view() {
        let tree = star(&[
            Child::visited(SECOND, 4, 0.5),
            Child::unvisited(0.5),
            Child::visited(FIRST, 2, 0.25),
            Child::visited(SECOND, 1, 0.0).proven(Bound::Loss),
        ]);
        assert_eq!(tree.root_q_values(), vec![(0, -0.5), (2, 0.25), (3, 1.0)]);
    }

    #[test]
    fn value_for_first_converts_from_the_mover() {
        let mut game = zerosum_games::tic_tac_toe::TicTacToe::new();
        assert_eq!(value_for_first(&game, 0.5), 0.5);
        game.apply(4);
        assert_eq!(value_for_first(&game, 0.5), -0.5);
    }

    #[test]
    fn root_noise_keeps_priors_a_distribution_and_changes_them() {
        let priors = [0.4, 0.3, 0.2, 0.1];
        let mut tree = star(&priors.map(Child::unvisited));
        let mut rng = SmallRng::seed_from_u64(5);
        let config = |epsilon| SearchConfig {
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: epsilon,
            ..SearchConfig::default()
        };
        tree.begin_search(SearchMode::Play, &config(0.25), &mut rng);
        let plain: Vec<f32> = tree.root().children().map(|c| tree.node(c).prior).collect();
        assert_eq!(plain, priors, "a search for a move to play adds no noise");
        tree.begin_search(SearchMode::SelfPlay, &config(0.25), &mut rng);
        let noisy: Vec<f32> = tree.root().children().map(|c| tree.node(c).prior).collect();
        assert!((noisy.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{noisy:?}");
        assert!(noisy.iter().all(|&p| p >= 0.0));
        assert!(noisy.iter().zip(&priors).any(|(n, p)| (n - p).abs() > 1e-3));
        // Each prior keeps at least (1 - epsilon) of its old weight.
        for (n, p) in noisy.iter().zip(&priors) {
            assert!(*n >= 0.75 * p - 1e-6, "{noisy:?}");
        }
        // No weight for the noise changes nothing.
        let before: Vec<f32> = noisy.clone();
        tree.begin_search(SearchMode::SelfPlay, &config(0.0), &mut rng);
        let after: Vec<f32> = tree.root().children().map(|c| tree.node(c).prior).collect();
        assert_eq!(after, before);
    }
}

#[cfg(test)]
mod katago_and_cgzero_tests {
    use rand::{rngs::SmallRng, SeedableRng};
    use zerosum_games::Player;

    use crate::config::{FinalChoice, SearchConfig};
    use crate::testutil::{star, Child};
    use crate::tree::SearchMode;

    #[test]
    fn forced_playouts_are_pruned_from_the_target() {
        // The best child has 60 visits at Q +0.5; a low-prior child got 10 visits at Q -0.2,
        // which PUCT would not have given it; a third, good child earned its 30.
        let second = Player::SECOND;
        let tree = star(&[
            Child::visited(second, 60, -0.5).with_prior(0.5),
            Child::visited(second, 10, 0.2).with_prior(0.05),
            Child::visited(second, 30, -0.45).with_prior(0.45),
        ]);
        let config = SearchConfig {
            forced_playouts_k: 2.0,
            dirichlet_epsilon: 0.0,
            ..SearchConfig::default()
        };
        let mut rng = SmallRng::seed_from_u64(3);
        let mut tree = tree;
        let plain = tree.result(&config).policy_target;
        tree.begin_search(SearchMode::SelfPlay, &config, &mut rng);
        let pruned = tree.result(&config).policy_target;
        assert!((pruned.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-6);
        // sqrt(2 * 0.05 * 100) = 3.2: at most 4 visits are taken back from the weak child.
        let weak = pruned[1].1 * 100.0 / (pruned.iter().map(|p| p.1).sum::<f32>());
        assert!(pruned[1].1 < plain[1].1, "{pruned:?} vs {plain:?}");
        assert!(
            weak > 0.0,
            "a child with several visits left stays in the target"
        );
        assert!(pruned[0].1 > plain[0].1, "the best child's share grows");
        // A child with a single visit drops out entirely.
        let mut tree = star(&[
            Child::visited(second, 50, -0.5).with_prior(0.9),
            Child::visited(second, 1, 0.9).with_prior(0.1),
        ]);
        tree.begin_search(SearchMode::SelfPlay, &config, &mut rng);
        assert_eq!(tree.result(&config).policy_target[1].1, 0.0);
        // A search for a move to play keeps every visit in the target.
        tree.begin_search(SearchMode::Play, &config, &mut rng);
        assert_eq!(tree.result(&config).policy_target[1].1, 1.0 / 51.0);
    }

    #[test]
    fn value_plus_log_visits_can_overrule_the_most_visited() {
        let second = Player::SECOND;
        // 40 visits at Q 0.0 against 30 visits at Q +0.6 for the root's mover.
        let tree = star(&[
            Child::visited(second, 40, 0.0),
            Child::visited(second, 30, -0.6),
        ]);
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(
            tree.choose_action_by(FinalChoice::Visits, 0.0, &mut rng),
            Some(0)
        );
        // ln 40 + 0 = 3.69 < ln 30 + 0.6 = 4.0
        assert_eq!(
            tree.choose_action_by(FinalChoice::ValuePlusLogVisits, 0.0, &mut rng),
            Some(1)
        );
    }
}
