//! Players: anything that picks moves. One interface serves self-play evaluation, the
//! arena, `play`, and the protocols.

use std::path::PathBuf;
use std::str::FromStr;

use rand::rngs::SmallRng;
use rand::Rng;
use zerosum_games::{Action, Game};
use zerosum_nn::{Model, NetEvaluator};
use zerosum_search::{search_one, EvalCache, Evaluator, RolloutEvaluator, SearchConfig, Tree};

use crate::agent::{Agent, Choice};
use crate::error::PlayError;
use crate::gtp_client::GtpClient;
use crate::perfect::PerfectSolver;
use crate::uci_client::{UciClient, UciSpec};
use zerosum_config::ConfigError;

/// A player named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// A trained network with search:
    /// `checkpoint:PATH[,sims=N][,search.KEY=VALUE...][,precision=P]`.
    Checkpoint {
        /// The checkpoint (see `zerosum_nn::checkpoint_base`).
        path: PathBuf,
        /// Simulations per move; the caller's default when absent.
        sims: Option<usize>,
        /// Its own `[search]` settings and precision, where the spec sets them.
        tuning: Tuning,
    },
    /// The model shipped for the game (`models/`, see [`crate::shipped`]) with search:
    /// `shipped[:sims=N][,search.KEY=VALUE...][,precision=P]`.
    Shipped {
        /// Simulations per move; the model's own (its index entry's) when absent.
        sims: Option<usize>,
        /// Its own `[search]` settings and precision, where the spec sets them.
        tuning: Tuning,
    },
    /// PUCT with uniform priors, one random rollout per leaf and the MCTS-solver:
    /// `mcts:N`.
    Mcts {
        /// Simulations per move.
        sims: usize,
    },
    /// Flat Monte Carlo: `mc:N`, N random playouts spread over the legal moves.
    Mc {
        /// Playouts per move.
        playouts: usize,
    },
    /// UCT: `uct:N[,c=C]`, UCB1 tree search with random playouts and no priors.
    Uct {
        /// Playouts per move.
        playouts: usize,
        /// The UCB1 exploration constant (default `sqrt(2)`).
        c: f32,
    },
    /// Uniformly random legal moves.
    Random,
    /// Exact search (small games only).
    Perfect,
    /// A person at the terminal.
    Human,
    /// Another program over the Go Text Protocol: `gtp:PROGRAM ARGS...` (split at spaces).
    Gtp {
        /// The program and its arguments.
        command: Vec<String>,
    },
    /// A chess engine over the Universal Chess Interface:
    /// `uci:PROGRAM ARGS[;OPTION=VALUE...][;go=LIMITS]`.
    Uci(UciSpec),
}

/// What a network player's spec may set beside its simulations: `search.KEY=VALUE`, any
/// key of the `[search]` config for this player alone (`search.leaves=8`: eight leaves of
/// its search per network call), and `precision=fp32|bf16|fp16`, the number format its
/// network runs in. Unset, the command's settings hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// `[search]` overrides, `KEY=VALUE` each, in the order given.
    pub search: Vec<String>,
    /// The network's precision.
    pub precision: Option<zerosum_nn::Precision>,
}

impl Tuning {
    /// `search` with this player's overrides.
    fn search(&self, search: &SearchConfig) -> Result<SearchConfig, PlayError> {
        if self.search.is_empty() {
            return Ok(search.clone());
        }
        let mut root = toml::Table::new();
        let table = toml::Value::try_from(search).expect("a search config serialises");
        root.insert("search".to_string(), table);
        let text = toml::to_string(&root).expect("a table serialises");
        let overrides: Vec<String> = self.search.iter().map(|o| format!("search.{o}")).collect();
        let config = zerosum_config::RunConfig::from_toml(&text, &overrides)?;
        match config.search.validate().into_iter().next() {
            Some(problem) => Err(ConfigError(problem).into()),
            None => Ok(config.search),
        }
    }

    /// `model` in the precision this sets, its forward passes replayed as CUDA graphs where
    /// `cuda_graphs = "auto"` would.
    fn network(&self, model: Model) -> Result<Model, zerosum_nn::NnError> {
        let model = match self.precision {
            Some(precision) => model.for_inference(precision),
            None => model,
        };
        let graphs = zerosum_nn::cuda_graphs_auto(model.device());
        model.with_cuda_graphs(graphs)
    }
}

impl std::fmt::Display for Tuning {
    /// The options as a spec writes them, each after a comma.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for item in &self.search {
            write!(f, ",search.{item}")?;
        }
        if let Some(precision) = self.precision {
            write!(f, ",precision={}", precision.name())?;
        }
        Ok(())
    }
}

impl FromStr for PlayerSpec {
    type Err = PlayError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let bad = |reason: &str| PlayError::BadPlayer {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
        match kind {
            "random" if rest.is_empty() => Ok(PlayerSpec::Random),
            "perfect" if rest.is_empty() => Ok(PlayerSpec::Perfect),
            "human" if rest.is_empty() => Ok(PlayerSpec::Human),
            "mcts" => match positive(rest) {
                Some(sims) => Ok(PlayerSpec::Mcts { sims }),
                None => Err(bad("mcts needs a positive simulation count, like mcts:400")),
            },
            "mc" => match positive(rest) {
                Some(playouts) => Ok(PlayerSpec::Mc { playouts }),
                None => Err(bad("mc needs a positive playout count, like mc:1000")),
            },
            "uct" => {
                let mut parts = rest.split(',');
                let playouts = parts
                    .next()
                    .and_then(positive)
                    .ok_or_else(|| bad("uct needs a positive playout count, like uct:1000"))?;
                let mut c = zerosum_search::UCT_C;
                read_options(parts, &bad, |key, value| {
                    if key != "c" {
                        return Ok(false);
                    }
                    c = value
                        .parse::<f32>()
                        .ok()
                        .filter(|c| c.is_finite() && *c >= 0.0)
                        .ok_or_else(|| bad("c must be a number of at least 0"))?;
                    Ok(true)
                })?;
                Ok(PlayerSpec::Uct { playouts, c })
            }
            "shipped" => {
                let (sims, tuning) =
                    read_network_options(rest.split(',').filter(|o| !o.is_empty()), &bad)?;
                Ok(PlayerSpec::Shipped { sims, tuning })
            }
            "checkpoint" => {
                let mut parts = rest.split(',');
                let path = parts
                    .next()
                    .filter(|p| !p.is_empty())
                    .ok_or_else(|| bad("missing path"))?;
                let (sims, tuning) = read_network_options(parts, &bad)?;
                Ok(PlayerSpec::Checkpoint {
                    path: PathBuf::from(path),
                    sims,
                    tuning,
                })
            }
            "gtp" => {
                let command: Vec<String> = rest.split_whitespace().map(String::from).collect();
                if command.is_empty() {
                    return Err(bad("gtp needs a command, like 'gtp:gnugo --mode gtp'"));
                }
                Ok(PlayerSpec::Gtp { command })
            }
            "uci" => UciSpec::parse(rest)
                .map(PlayerSpec::Uci)
                .map_err(|e| bad(&e)),
            _ => Err(bad("unknown player kind")),
        }
    }
}

/// A whole number of at least 1.
fn positive(text: &str) -> Option<usize> {
    text.parse::<usize>().ok().filter(|&n| n > 0)
}

/// The options of a network player: `sims=N` and its [`Tuning`].
fn read_network_options<'a>(
    options: impl Iterator<Item = &'a str>,
    bad: &impl Fn(&str) -> PlayError,
) -> Result<(Option<usize>, Tuning), PlayError> {
    let (mut sims, mut tuning) = (None, Tuning::default());
    read_options(options, bad, |key, value| {
        match key {
            "sims" => {
                sims = Some(positive(value).ok_or_else(|| bad("sims must be a positive integer"))?)
            }
            "precision" => {
                tuning.precision = Some(
                    zerosum_nn::Precision::parse(value)
                        .map_err(|_| bad("precision must be fp32, bf16 or fp16"))?,
                )
            }
            _ => match key.strip_prefix("search.") {
                Some(search_key) => {
                    tuning.search.push(format!("{search_key}={value}"));
                    tuning
                        .search(&SearchConfig::default())
                        .map_err(|e| bad(&format!("{key}: {e}")))?;
                }
                None => return Ok(false),
            },
        }
        Ok(true)
    })?;
    Ok((sims, tuning))
}

/// Hands each `key=value` option of a player spec to `take`, which reads it or answers
/// `false` for a key it does not know; an unknown option, or one without `=`, is an error.
fn read_options<'a>(
    options: impl Iterator<Item = &'a str>,
    bad: &impl Fn(&str) -> PlayError,
    mut take: impl FnMut(&str, &str) -> Result<bool, PlayError>,
) -> Result<(), PlayError> {
    for option in options {
        let known = match option.split_once('=') {
            Some((key, value)) => take(key, value)?,
            None => false,
        };
        if !known {
            return Err(bad(&format!("unknown option '{option}'")));
        }
    }
    Ok(())
}

impl std::fmt::Display for PlayerSpec {
    /// The spec as it is typed (`mcts:400`, `uct:1000`, `uct:1000,c=0.5`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Perfect => write!(f, "perfect"),
            PlayerSpec::Human => write!(f, "human"),
            PlayerSpec::Mcts { sims } => write!(f, "mcts:{sims}"),
            PlayerSpec::Mc { playouts } => write!(f, "mc:{playouts}"),
            PlayerSpec::Uct { playouts, c } if *c == zerosum_search::UCT_C => {
                write!(f, "uct:{playouts}")
            }
            PlayerSpec::Uct { playouts, c } => write!(f, "uct:{playouts},c={c}"),
            PlayerSpec::Checkpoint { path, tuning, .. } => {
                write!(f, "checkpoint:{}{tuning}", path.display())
            }
            PlayerSpec::Shipped { sims: None, tuning } if tuning == &Tuning::default() => {
                write!(f, "shipped")
            }
            PlayerSpec::Shipped { sims: None, tuning } => {
                write!(f, "shipped:{}", &tuning.to_string()[1..])
            }
            PlayerSpec::Shipped {
                sims: Some(sims),
                tuning,
            } => write!(f, "shipped:sims={sims}{tuning}"),
            PlayerSpec::Gtp { command } => write!(f, "gtp:{}", command.join(" ")),
            PlayerSpec::Uci(spec) => write!(f, "{spec}"),
        }
    }
}

impl PlayerSpec {
    /// The same player searching `sims` simulations (or playouts) a move; players that do
    /// not search stay as they are.
    pub fn with_sims(&self, sims: usize) -> PlayerSpec {
        match self.clone() {
            PlayerSpec::Checkpoint { path, tuning, .. } => PlayerSpec::Checkpoint {
                path,
                sims: Some(sims),
                tuning,
            },
            PlayerSpec::Shipped { tuning, .. } => PlayerSpec::Shipped {
                sims: Some(sims),
                tuning,
            },
            PlayerSpec::Mcts { .. } => PlayerSpec::Mcts { sims },
            PlayerSpec::Mc { .. } => PlayerSpec::Mc { playouts: sims },
            PlayerSpec::Uct { c, .. } => PlayerSpec::Uct { playouts: sims, c },
            other => other,
        }
    }
}

/// Uniformly random legal moves.
pub struct RandomAgent;

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose(&mut self, position: &G, rng: &mut SmallRng) -> Result<Choice, PlayError> {
        let legal = position.legal_action_vec();
        Ok(Choice {
            action: legal[rng.random_range(0..legal.len())],
            value: None,
            search: None,
        })
    }
}

/// The classic searches without a network: flat Monte Carlo (`mc:N`) and UCT (`uct:N`).
pub enum ClassicAgent {
    /// `mc:N`.
    FlatMonteCarlo {
        /// Playouts per move.
        playouts: usize,
    },
    /// `uct:N[,c=C]`.
    Uct {
        /// Playouts per move.
        playouts: usize,
        /// The UCB1 exploration constant.
        c: f32,
    },
}

impl<G: Game> Agent<G> for ClassicAgent {
    fn name(&self) -> String {
        match *self {
            ClassicAgent::FlatMonteCarlo { playouts } => PlayerSpec::Mc { playouts },
            ClassicAgent::Uct { playouts, c } => PlayerSpec::Uct { playouts, c },
        }
        .to_string()
    }

    fn choose(&mut self, position: &G, rng: &mut SmallRng) -> Result<Choice, PlayError> {
        let choice = match *self {
            ClassicAgent::FlatMonteCarlo { playouts } => {
                zerosum_search::flat_monte_carlo(position, playouts, rng)
            }
            ClassicAgent::Uct { playouts, c } => zerosum_search::uct(position, playouts, c, rng),
        };
        Ok(Choice {
            action: choice.action,
            value: Some(choice.value),
            search: None,
        })
    }
}

/// Exact play: a uniformly random move among those that keep the game-theoretic value.
pub struct PerfectAgent<G: Game> {
    solver: PerfectSolver<G>,
}

impl<G: Game> PerfectAgent<G> {
    /// A perfect player; fails later on games with more than `limit` positions.
    pub fn new(limit: usize) -> PerfectAgent<G> {
        PerfectAgent {
            solver: PerfectSolver::new(limit),
        }
    }
}

impl<G: Game> Agent<G> for PerfectAgent<G> {
    fn name(&self) -> String {
        "perfect".to_string()
    }

    fn choose(&mut self, position: &G, rng: &mut SmallRng) -> Result<Choice, PlayError> {
        let (best, value) =
            self.solver
                .best_actions(position)
                .ok_or_else(|| PlayError::PlayerStopped {
                    player: "perfect".to_string(),
                    reason: "the game is too large to solve exactly".to_string(),
                })?;
        Ok(Choice {
            action: best[rng.random_range(0..best.len())],
            value: Some(value as f32),
            search: None,
        })
    }
}

/// Search with any evaluator: a network (`checkpoint:`) or random rollouts (`mcts:N`).
pub struct MctsAgent<G: Game> {
    name: String,
    evaluator: Box<dyn Evaluator<G>>,
    config: SearchConfig,
    num_simulations: usize,
    tree: Option<Tree<G>>,
    cache: EvalCache,
}

impl<G: Game> MctsAgent<G> {
    /// An agent that searches `num_simulations` per move with `config`.
    pub fn new(
        name: String,
        evaluator: Box<dyn Evaluator<G>>,
        config: SearchConfig,
        num_simulations: usize,
    ) -> Self {
        let cache = EvalCache::new(config.cache_capacity);
        // A search of no simulations would leave nothing to choose from.
        let num_simulations = num_simulations.max(1);
        MctsAgent {
            name,
            evaluator,
            config,
            num_simulations,
            tree: None,
            cache,
        }
    }

    /// An agent that searches with `model` as its evaluator.
    pub fn with_network(
        name: String,
        model: Model,
        game: &G,
        config: SearchConfig,
        num_simulations: usize,
    ) -> Self {
        MctsAgent::new(
            name,
            Box::new(NetEvaluator::new(model, game)),
            config,
            num_simulations,
        )
    }

    /// The tree of the last search, if any.
    pub fn tree(&self) -> Option<&Tree<G>> {
        self.tree.as_ref()
    }
}

impl<G: Game> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, position: &G, rng: &mut SmallRng) -> Result<Choice, PlayError> {
        let reuse = self.config.keeps_subtree()
            && self
                .tree
                .as_ref()
                .is_some_and(|t| t.root_position() == position);
        if !reuse {
            self.tree = Some(Tree::new(position.clone()));
        }
        let tree = self.tree.as_mut().expect("set just above");
        search_one(
            tree,
            self.evaluator.as_mut(),
            &self.config,
            self.num_simulations,
            &mut self.cache,
            rng,
        );
        let action = tree
            .choose_action_by(self.config.final_choice, 0.0, rng)
            .expect("a position that is not finished has moves");
        let result = tree.result(&self.config);
        Ok(Choice {
            action,
            value: Some(result.root_value),
            search: Some(result),
        })
    }

    fn observe(&mut self, position: &G, action: Action) {
        match &mut self.tree {
            Some(tree) if tree.root_position() == position => {
                tree.advance(action, self.config.keeps_subtree())
            }
            _ => self.tree = None,
        }
    }

    fn reset(&mut self) {
        self.tree = None;
    }
}

/// Simulations per move of the rollout MCTS that stands in when no checkpoint is given.
pub const DEFAULT_ROLLOUT_SIMS: usize = 1000;

/// `mcts:N`, one fixed player whatever the run's settings, so that results against it
/// compare across runs and recipes: PUCT with the default constants and the solver,
/// uniform priors, one random rollout per leaf.
pub fn rollout_agent<G: Game>(sims: usize, seed: u64) -> MctsAgent<G> {
    MctsAgent::new(
        format!("mcts:{sims}"),
        Box::new(RolloutEvaluator::new(seed, 1)),
        rollout_search(),
        sims,
    )
}

/// The search of `mcts:N`. The terminal check, repetition draws and the play-time rules
/// for the root and proven moves came later and stay off, so that this is the player every
/// earlier result met.
pub fn rollout_search() -> SearchConfig {
    SearchConfig {
        terminal_check: false,
        repetition_draws: false,
        visit_every_root_move: false,
        skip_proven: false,
        ..SearchConfig::default()
    }
}

/// Builds any player but `human` (which needs a terminal, and lives in the binary).
///
/// `search` is used for `checkpoint:` and `mcts:` players; `default_sims` is the
/// checkpoint's simulation count when the spec gives none.
pub fn build_agent<G: Game>(
    spec: &PlayerSpec,
    game: &G,
    search: &SearchConfig,
    default_sims: usize,
    device: zerosum_nn::Device,
    seed: u64,
) -> Result<Box<dyn Agent<G>>, PlayError> {
    Ok(match spec {
        PlayerSpec::Random => Box::new(RandomAgent),
        PlayerSpec::Perfect => Box::new(PerfectAgent::new(2_000_000)),
        PlayerSpec::Mcts { sims } => Box::new(rollout_agent(*sims, seed)),
        PlayerSpec::Mc { playouts } => Box::new(ClassicAgent::FlatMonteCarlo {
            playouts: *playouts,
        }),
        PlayerSpec::Uct { playouts, c } => Box::new(ClassicAgent::Uct {
            playouts: *playouts,
            c: *c,
        }),
        PlayerSpec::Checkpoint { path, sims, tuning } => {
            let model =
                zerosum_store::checkpoints::load_location(&path.to_string_lossy(), game, device)?;
            Box::new(MctsAgent::with_network(
                format!("checkpoint:{}", path.display()),
                tuning.network(model)?,
                game,
                tuning.search(search)?,
                sims.unwrap_or(default_sims),
            ))
        }
        PlayerSpec::Shipped { sims, tuning } => {
            let Some((model, network)) = crate::shipped::load_for(game, device)? else {
                return Err(PlayError::BadPlayer {
                    spec: spec.to_string(),
                    reason: crate::shipped::none_for(&game.name()),
                });
            };
            Box::new(MctsAgent::with_network(
                model.player_name(),
                tuning.network(network)?,
                game,
                tuning.search(search)?,
                sims.unwrap_or(model.sims),
            ))
        }
        PlayerSpec::Gtp { command } => Box::new(GtpClient::start(command, game)?),
        PlayerSpec::Uci(engine) => Box::new(UciClient::start(engine, game)?),
        PlayerSpec::Human => {
            return Err(PlayError::BadPlayer {
                spec: "human".to_string(),
                reason: "a human player needs the terminal front end".to_string(),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random);
        for (text, spec) in [
            (
                "shipped",
                PlayerSpec::Shipped {
                    sims: None,
                    tuning: Tuning::default(),
                },
            ),
            (
                "shipped:sims=50",
                PlayerSpec::Shipped {
                    sims: Some(50),
                    tuning: Tuning::default(),
                },
            ),
            (
                "shipped:search.leaves=8",
                PlayerSpec::Shipped {
                    sims: None,
                    tuning: Tuning {
                        search: vec!["leaves=8".to_string()],
                        precision: None,
                    },
                },
            ),
            (
                "shipped:sims=50,search.leaves=8,search.skip_proven=false,precision=bf16",
                PlayerSpec::Shipped {
                    sims: Some(50),
                    tuning: Tuning {
                        search: vec!["leaves=8".to_string(), "skip_proven=false".to_string()],
                        precision: Some(zerosum_nn::Precision::Bf16),
                    },
                },
            ),
        ] {
            assert_eq!(text.parse::<PlayerSpec>().unwrap(), spec);
            assert_eq!(spec.to_string(), text);
        }
        assert!("shipped:sims=0".parse::<PlayerSpec>().is_err());
        assert!("shipped:search.leaves=0".parse::<PlayerSpec>().is_err());
        assert!("shipped:search.depth=3".parse::<PlayerSpec>().is_err());
        assert!("shipped:leaves=8".parse::<PlayerSpec>().is_err());
        assert!("shipped:precision=fp8".parse::<PlayerSpec>().is_err());
        assert!("shipped:50".parse::<PlayerSpec>().is_err());
        let uci = "uci:stockfish;Skill Level=3".parse::<PlayerSpec>().unwrap();
        assert_eq!(uci.to_string(), "uci:stockfish;Skill Level=3");
        assert!("uci:".parse::<PlayerSpec>().is_err());
        assert_eq!(
            "gtp:gnugo --mode gtp".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Gtp {
                command: vec!["gnugo".into(), "--mode".into(), "gtp".into()]
            }
        );
        assert_eq!(
            "mcts:400".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Mcts { sims: 400 }
        );
        assert_eq!(
            "mc:1000".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Mc { playouts: 1000 }
        );
        let uct = "uct:1000".parse::<PlayerSpec>().unwrap();
        assert_eq!(
            uct,
            PlayerSpec::Uct {
                playouts: 1000,
                c: zerosum_search::UCT_C
            }
        );
        assert_eq!(uct.to_string(), "uct:1000");
        let narrow = "uct:50,c=0.5".parse::<PlayerSpec>().unwrap();
        assert_eq!(
            narrow,
            PlayerSpec::Uct {
                playouts: 50,
                c: 0.5
            }
        );
        assert_eq!(narrow.to_string().parse::<PlayerSpec>().unwrap(), narrow);
        assert_eq!(
            "checkpoint:runs/a/latest,sims=50"
                .parse::<PlayerSpec>()
                .unwrap(),
            PlayerSpec::Checkpoint {
                path: "runs/a/latest".into(),
                sims: Some(50),
                tuning: Tuning::default(),
            }
        );
        for bad in [
            "mcts",
            "mcts:0",
            "mcts:x",
            "checkpoint:",
            "checkpoint:a,depth=3",
            "gnugo",
            "gtp:",
            "gtp:  ",
            "random:3",
            "mc:0",
            "mc:",
            "uct",
            "uct:10,c=-1",
            "uct:10,depth=2",
            "uct:10,",
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(!err.contains('\n') && err.contains(bad), "{err}");
        }
    }
}
