//! Root noise: Dirichlet noise mixed into the root's priors of a self-play search
//! (AlphaZero), so that self-play keeps trying moves the network rates low. Gumbel's root
//! draws its own noise ([`crate::gumbel`]).

use rand::Rng;
use rand_distr::{Distribution, Gamma};
use zerosum_games::{Action, Game};

use crate::config::{Algorithm, SearchConfig};
use crate::tree::{NodeId, SearchMode, Tree};

/// Mixes Dirichlet(alpha) noise into priors with weight `epsilon`.
pub fn add_dirichlet_noise(
    priors: &mut [(Action, f32)],
    alpha: f32,
    epsilon: f32,
    rng: &mut impl Rng,
) {
    if priors.len() < 2 || epsilon <= 0.0 {
        return;
    }
    let gamma = Gamma::new(alpha, 1.0).expect("alpha was validated positive");
    let noise: Vec<f32> = priors.iter().map(|_| gamma.sample(rng)).collect();
    let total: f32 = noise.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return;
    }
    for (p, n) in priors.iter_mut().zip(noise) {
        p.1 = (1.0 - epsilon) * p.1 + epsilon * n / total;
    }
}

/// The search's own noise (`search.dirichlet_alpha`, `search.dirichlet_epsilon`) on `priors`.
fn add_configured_noise(priors: &mut [(Action, f32)], config: &SearchConfig, rng: &mut impl Rng) {
    add_dirichlet_noise(
        priors,
        config.dirichlet_alpha,
        config.dirichlet_epsilon,
        rng,
    );
}

/// Whether the root of `tree` gets noise: a self-play search with PUCT.
fn noised<G: Game>(tree: &Tree<G>, config: &SearchConfig) -> bool {
    tree.mode == SearchMode::SelfPlay && config.algorithm == Algorithm::Puct
}

/// Noise for the priors of `leaf`, about to be expanded with them: only the root's.
pub(crate) fn noise_new_root<G: Game>(
    tree: &mut Tree<G>,
    leaf: NodeId,
    priors: &mut [(Action, f32)],
    config: &SearchConfig,
    rng: &mut impl Rng,
) {
    if leaf == NodeId::ROOT && noised(tree, config) {
        tree.network_root_priors = Some(priors.iter().map(|p| p.1).collect());
        add_configured_noise(priors, config, rng);
    }
}

impl<G: Game> Tree<G> {
    /// Starts a search of the root in `mode`, which holds until the next call. A
    /// self-play search noises the root's priors now if the root was expanded by an earlier
    /// search (tree reuse), else when it is expanded.
    pub fn begin_search(&mut self, mode: SearchMode, config: &SearchConfig, rng: &mut impl Rng) {
        self.mode = mode;
        noise_expanded_root(self, config, rng);
    }
}

/// Fresh noise for a root that an earlier search expanded (tree reuse), as a search
/// begins.
fn noise_expanded_root<G: Game>(tree: &mut Tree<G>, config: &SearchConfig, rng: &mut impl Rng) {
    if !(tree.root().expanded && noised(tree, config)) {
        return;
    }
    let ids: Vec<NodeId> = tree.root().children().collect();
    let mut priors: Vec<(Action, f32)> = ids
        .iter()
        .map(|&c| (tree.node(c).action, tree.node(c).prior))
        .collect();
    // A root noised by an earlier search keeps the network's priors from then.
    if tree.network_root_priors.is_none() {
        tree.network_root_priors = Some(priors.iter().map(|p| p.1).collect());
    }
    add_configured_noise(&mut priors, config, rng);
    for (id, (_, p)) in ids.into_iter().zip(priors) {
        tree.node_mut(id).prior = p;
    }
}

#[cfg(test)]
mod tests {
    use rand::{rngs::SmallRng, SeedableRng};

    use super::*;

    #[test]
    fn dirichlet_noise_keeps_a_distribution_and_changes_it() {
        let mut rng = SmallRng::seed_from_u64(3);
        let original = vec![(0, 0.7), (4, 0.2), (8, 0.1)];
        let mut priors = original.clone();
        add_dirichlet_noise(&mut priors, 0.3, 0.25, &mut rng);
        let total: f32 = priors.iter().map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-5, "{priors:?}");
        assert!(priors.iter().zip(&original).all(|(p, o)| p.0 == o.0));
        assert!(priors
            .iter()
            .zip(&original)
            .any(|(p, o)| (p.1 - o.1).abs() > 1e-3));
        let mut untouched = original.clone();
        add_dirichlet_noise(&mut untouched, 0.3, 0.0, &mut rng);
        assert_eq!(untouched, original);
    }

    /// The tree keeps the network's root priors under the noise, on a fresh root and on a
    /// root an earlier move's search expanded.
    #[test]
    fn the_network_root_policy_is_the_priors_before_noise() {
        use crate::simulate::{search_one, EvalCache};
        use crate::UniformEvaluator;
        use zerosum_games::tic_tac_toe::TicTacToe;

        let config = SearchConfig::default();
        let mut rng = SmallRng::seed_from_u64(5);
        let mut cache = EvalCache::new(0);
        let mut tree = Tree::new(TicTacToe::new());
        for _ in 0..2 {
            tree.begin_search(SearchMode::SelfPlay, &config, &mut rng);
            search_one(
                &mut tree,
                &mut UniformEvaluator,
                &config,
                200,
                &mut cache,
                &mut rng,
            );
            let network = tree.network_root_policy();
            let uniform = 1.0 / network.len() as f32;
            assert!(
                network.iter().all(|p| (p.1 - uniform).abs() < 1e-6),
                "{network:?}"
            );
            let noised: Vec<f32> = tree.root().children().map(|c| tree.node(c).prior).collect();
            assert!(
                noised.iter().any(|p| (p - uniform).abs() > 1e-3),
                "{noised:?}"
            );
            let action = tree.choose_action(0.0, &mut rng).unwrap();
            tree.advance(action, true);
        }
        // Without noise the network's priors are the children's own.
        tree.begin_search(SearchMode::Play, &config, &mut rng);
        search_one(
            &mut tree,
            &mut UniformEvaluator,
            &config,
            50,
            &mut cache,
            &mut rng,
        );
        let children: Vec<(Action, f32)> = tree
            .root()
            .children()
            .map(|c| (tree.node(c).action, tree.node(c).prior))
            .collect();
        assert_eq!(tree.network_root_policy(), children);
    }
}
