//! The run configuration: one struct per concern, composed by [`RunConfig`].
//!
//! Loading has two stages: raw TOML plus `--set key=value` overrides becomes a
//! [`RunConfig`] (every field typed and checked by serde), which [`RunConfig::resolve`]
//! then checks as a whole, once, into the [`ResolvedConfig`] that every command and role
//! receives.

use serde::{Deserialize, Serialize};
use zerosum_games::Game;
use zerosum_nn::{LearnerConfig, ModelConfig};
use zerosum_search::SearchConfig;

mod defaults;
pub mod schedule;

pub use defaults::default_config;
pub use schedule::{Curve, ScheduleConfig};

/// A config that does not parse or does not make sense, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad config: {0}")]
pub struct ConfigError(pub String);

/// How self-play games are generated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games played per generation.
    pub games_per_generation: usize,
    /// Games searched in lockstep per thread: the network's batch size (B).
    pub batch_games: usize,
    /// Self-play threads, each searching `batch_games` games in lockstep.
    pub threads: usize,
    /// How the threads reach the network: `server` (one copy per device, every thread's
    /// leaves run together in batches of up to `max_batch`: what a GPU needs), `threads`
    /// (each thread its own copy and its own forward pass of `batch_games`: fastest on a
    /// few CPU cores) or `auto` (`server` on CUDA, `threads` on the CPU; docs/results.md
    /// measures both).
    pub inference: Inference,
    /// With the server: the most positions one forward pass takes; 0 picks by device
    /// (1,024 on CUDA, all the threads' games on the CPU).
    pub max_batch: usize,
    /// Move choice samples visits^(1/temperature) for the first `temperature_plies` plies.
    pub temperature: f32,
    /// Plies played with `temperature`; after them the most visited move is played
    /// (AlphaZero: 30 in Go and chess).
    pub temperature_plies: usize,
    /// Search full self-play moves in [`SearchMode::SelfPlay`](zerosum_search::SearchMode):
    /// Dirichlet noise on the root priors (AlphaZero: yes) and, where
    /// `search.forced_playouts_k` is set, forced playouts pruned from the target.
    pub root_noise: bool,
    /// Plies at the start of each game played uniformly at random and not recorded
    /// (CGZero), for opening variety: a number, or a range each game draws its own from.
    pub random_opening_plies: OpeningPlies,
    /// Playout cap randomization (KataGo): the share of moves searched with
    /// `search.num_simulations` and recorded; the rest get `fast_simulations`, no noise,
    /// and are not training samples. 1 turns it off.
    pub playout_cap_fraction: f64,
    /// Simulations of the fast, unrecorded moves (KataGo: 100 against 600).
    pub fast_simulations: usize,
    /// Finished games written together as one batch object (a killed actor loses at most
    /// the batch it was filling; fewer, larger batches mean fewer storage requests).
    pub games_per_batch: usize,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_generation: 200,
            batch_games: 64,
            threads: 1,
            inference: Inference::Auto,
            max_batch: 0,
            temperature: 1.0,
            temperature_plies: 8,
            root_noise: true,
            random_opening_plies: OpeningPlies::fixed(0),
            playout_cap_fraction: 1.0,
            fast_simulations: 32,
            games_per_batch: 16,
        }
    }
}

/// Where self-play's threads get their network evaluations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inference {
    /// `server` on CUDA, `threads` on the CPU.
    #[default]
    Auto,
    /// One shared network per device behind an inference server.
    Server,
    /// One network per thread.
    Threads,
}

/// The narrowest convolutional tower that `precision = "auto"` runs in bf16 on CUDA (any
/// width on a CPU with bf16 instructions).
pub const BF16_MIN_CHANNELS: usize = 64;

/// The largest forward pass a shared server runs on CUDA unless `self_play.max_batch`
/// says otherwise (docs/results.md, "On a GPU").
pub const CUDA_MAX_BATCH: usize = 1024;

impl SelfPlayConfig {
    /// Whether self-play on `device` goes through an inference server.
    pub fn uses_server(&self, device: zerosum_nn::Device) -> bool {
        match self.inference {
            Inference::Auto => device.is_cuda(),
            Inference::Server => true,
            Inference::Threads => false,
        }
    }

    /// The server's largest forward pass on `device` for `threads` threads.
    pub fn server_batch(&self, device: zerosum_nn::Device, threads: usize) -> usize {
        match self.max_batch {
            0 if device.is_cuda() => CUDA_MAX_BATCH,
            0 => self.batch_games * threads,
            set => set,
        }
    }
}

/// How many random plies open a self-play game: `N` (every game) or `[MIN, MAX]` (each game
/// draws its count uniformly), so that a run can train on odd positions without ever
/// leaving out the initial one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PliesSpec", into = "PliesSpec")]
pub struct OpeningPlies {
    /// Fewest random plies.
    pub min: usize,
    /// Most random plies.
    pub max: usize,
}

impl OpeningPlies {
    /// The same count for every game.
    pub fn fixed(plies: usize) -> Self {
        OpeningPlies {
            min: plies,
            max: plies,
        }
    }

    /// One game's count (a fixed count draws nothing, so it leaves the seed's games as
    /// they were).
    pub fn draw(&self, rng: &mut impl rand::Rng) -> usize {
        if self.min == self.max {
            self.min
        } else {
            rng.random_range(self.min..=self.max)
        }
    }
}

/// The TOML forms of [`OpeningPlies`].
#[derive(Serialize, Deserialize)]
#[serde(untagged, expecting = "a number of plies or a range [MIN, MAX]")]
enum PliesSpec {
    Fixed(usize),
    Range([usize; 2]),
}

impl TryFrom<PliesSpec> for OpeningPlies {
    type Error = String;

    fn try_from(spec: PliesSpec) -> Result<Self, String> {
        match spec {
            PliesSpec::Fixed(plies) => Ok(OpeningPlies::fixed(plies)),
            PliesSpec::Range([min, max]) if min <= max => Ok(OpeningPlies { min, max }),
            PliesSpec::Range([min, max]) => Err(format!(
                "a range of plies runs from the fewer to the more, got [{min}, {max}]"
            )),
        }
    }
}

impl From<OpeningPlies> for PliesSpec {
    fn from(plies: OpeningPlies) -> Self {
        if plies.min == plies.max {
            PliesSpec::Fixed(plies.min)
        } else {
            PliesSpec::Range([plies.min, plies.max])
        }
    }
}

/// The window of recent positions the learner draws from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplayConfig {
    /// Most positions kept (AlphaZero: the last 500,000 games).
    pub window_positions: usize,
    /// Fewest generations kept, even when they hold more than the window.
    pub min_generations: usize,
    /// Train on a random board symmetry of each sample.
    pub symmetries: bool,
    /// Merge identical positions in the window, averaging their targets (CGZero).
    pub merge_duplicates: bool,
    /// How a generation's training samples are drawn from the window: `uniform`, or
    /// `count_weighted` (CGZero: merged positions that occurred more often are drawn more,
    /// by tiers of their count; needs `merge_duplicates`).
    pub subset: Subset,
    /// The share of each game's sampling weight given to its positions in proportion to
    /// their policy surprise, the rest spread evenly (KataGo: 0.5); 0 = every position alike.
    pub policy_surprise_weight: f64,
    /// Sampling weight of a generation relative to the next newer one (1 = uniform over
    /// the window; 0.8 weighs each older generation down by a fifth).
    pub generation_decay: f64,
    /// The value target is `k * q + (1 - k) * z`, k rising linearly over the game from 0
    /// to this (CGZero; AlphaPush's note on noisy value targets). 0 = the result z alone.
    pub value_q_mix: f64,
    /// The share of the game's result given to its final score in the value target
    /// (KataGo's score utility): the result z becomes `(1 - w) z + w tanh(score /
    /// value_score_scale)`, so that self-play one colour nearly always wins still tells
    /// good moves from bad ones by the margin. Needs a game that counts a score (Go).
    /// 0 = the result alone.
    pub value_score_weight: f64,
    /// The margin, in the game's points, that earns tanh(1) = 0.76 of the score's share.
    pub value_score_scale: f64,
    /// The most training samples drawn per new position (the
    /// replay-reuse ratio of KataGo and OpenSpiel), so that slow actors do not make the
    /// learner overfit; 0 = no cap (steps follow `learner.epochs` alone).
    pub reuse: f64,
    /// Asynchronous runs: batches played by a checkpoint more than this many generations
    /// older than the newest are not learned from.
    pub max_staleness: u64,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            window_positions: 50_000,
            min_generations: 1,
            symmetries: true,
            merge_duplicates: false,
            subset: Subset::Uniform,
            policy_surprise_weight: 0.0,
            generation_decay: 1.0,
            value_q_mix: 0.0,
            value_score_weight: 0.0,
            value_score_scale: 10.0,
            reuse: 0.0,
            max_staleness: 4,
        }
    }
}

/// How the learner's samples of a generation are drawn from the replay window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subset {
    /// Every sample alike (AlphaZero), up to generation and surprise weights.
    #[default]
    Uniform,
    /// CGZero's: samples ranked by how many positions were merged into them; a fifth of
    /// the draw from the top fifth, a fifth from the top two fifths, and so on.
    CountWeighted,
}

/// The evaluator that plays the newest checkpoint against baselines during training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ArenaConfig {
    /// Evaluate every this many generations; 0 never.
    pub every: usize,
    /// Games against each opponent (colours alternate).
    pub games: usize,
    /// Player specs to measure against (`mcts:N`, `random`, `perfect`).
    pub baselines: Vec<String>,
    /// Also play the previous evaluated checkpoint.
    pub previous: bool,
    /// Simulations per move for the checkpoint's search in evaluation games.
    pub num_simulations: usize,
    /// Random moves that open each pair of games (played once with each colour), so that
    /// deterministic players meet in varied positions; 0 = every game from the start.
    pub opening_plies: usize,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            every: 1,
            games: 20,
            baselines: vec!["mcts:100".to_string()],
            previous: true,
            num_simulations: 100,
            opening_plies: 0,
        }
    }
}

/// The trained agent outside training: the search budget of a `checkpoint:` player in
/// `arena` and `accuracy`, and of the agent in `play`, `gtp` and `serve`, where the command
/// names none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayConfig {
    /// Simulations per move; 0 = the larger of `arena.num_simulations` and
    /// `search.num_simulations`.
    pub num_simulations: usize,
}

/// A precision setting read: `auto` as bf16 where `bf16_faster`, fp32 elsewhere; a named
/// precision as itself (validation has refused any other text already).
fn resolve_precision(setting: &str, bf16_faster: bool) -> zerosum_nn::Precision {
    match setting {
        "auto" if bf16_faster => zerosum_nn::Precision::Bf16,
        "auto" => zerosum_nn::Precision::Fp32,
        text => zerosum_nn::Precision::parse(text).unwrap_or_default(),
    }
}

/// One whole training run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// The game's registry name (`connect4`, `go:size=9`).
    pub game: String,
    /// Seed for every random choice of the run.
    pub seed: u64,
    /// Generations to train (each: self-play, learn, checkpoint, evaluate).
    pub generations: usize,
    /// Stop after this many minutes of wall time (checked between phases); 0 = no limit.
    pub max_minutes: f64,
    /// `auto`, `cpu`, `cuda` or `cuda:N`.
    pub device: String,
    /// The number format of self-play's network: `fp32`, `bf16`, `fp16` or `auto` (bf16
    /// where it measured faster: [`RunConfig::inference_precision`]). Training's is
    /// `learner.precision` ([`RunConfig::training_precision`]).
    pub precision: String,
    /// Whether networks on CUDA replay their forward passes as recorded CUDA graphs: `on`,
    /// `off`, or `auto` (on where this binary has the shim that records them:
    /// [`RunConfig::uses_cuda_graphs`]). Ignored on the CPU.
    pub cuda_graphs: String,
    /// libtorch's intra-op threads; 0 leaves libtorch's default.
    pub torch_threads: usize,
    /// Keep a numbered checkpoint every this many generations (latest is always kept).
    pub keep_checkpoint_every: usize,
    /// `sync`: generations in turn (self-play, then learning), reproducible from the seed;
    /// `async`: actors play on while the learner trains, each generation made of the games
    /// that arrived (docs/distributed.md).
    pub mode: Mode,
    /// The network.
    pub model: ModelConfig,
    /// The search used in self-play (and by evaluation games).
    pub search: SearchConfig,
    /// Self-play.
    pub self_play: SelfPlayConfig,
    /// The replay window.
    pub replay: ReplayConfig,
    /// The learner.
    pub learner: LearnerConfig,
    /// Evaluation during training.
    pub arena: ArenaConfig,
    /// The agent outside training.
    pub play: PlayConfig,
    /// Whether new networks must beat the best before they generate games.
    pub gating: GatingConfig,
    /// Self-play and learning settings shaped over the run's budget.
    pub schedule: ScheduleConfig,
    /// A checkpoint (a run, `checkpoints/latest`, NAME, or a URL of any) whose weights a new
    /// run starts from instead of a random network (`train --init`): its game and network
    /// shape must be the run's. Empty: a fresh network.
    pub init: String,
}

/// How the roles of a run take turns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Self-play, learning and evaluation one after the other, generation by generation.
    #[default]
    Sync,
    /// Actors never wait for the learner.
    Async,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            game: zerosum_games::tic_tac_toe::TicTacToe::new().name(),
            seed: 1,
            generations: 10,
            max_minutes: 0.0,
            device: "auto".to_string(),
            precision: "auto".to_string(),
            cuda_graphs: "auto".to_string(),
            torch_threads: 0,
            keep_checkpoint_every: 5,
            mode: Mode::Sync,
            model: ModelConfig::default(),
            search: SearchConfig::default(),
            self_play: SelfPlayConfig::default(),
            replay: ReplayConfig::default(),
            init: String::new(),
            learner: LearnerConfig::default(),
            arena: ArenaConfig::default(),
            play: PlayConfig::default(),
            gating: GatingConfig::default(),
            schedule: ScheduleConfig::default(),
        }
    }
}

impl RunConfig {
    /// The precision self-play's network runs in on `device`.
    ///
    /// `auto` is bf16 where it measured faster, fp32 elsewhere. On CUDA: convolutional
    /// towers of [`BF16_MIN_CHANNELS`] channels or more (on an H200 bf16 ran a 128-channel
    /// tower 22% to 27% faster at batch 1,024, and the 32-channel towers of Go 9x9 and
    /// connect four slower, bound by kernel launches and the conversions; docs/results.md,
    /// "On a GPU"). On a CPU with bf16 instructions
    /// ([`zerosum_nn::Precision::cpu_computes_bf16`]): convolutional towers, whose batches of
    /// 32 and more ran 1.8 to 2.3 times faster (docs/results.md, "Precision, the inference
    /// server and leaves on the 2-core machine").
    pub fn inference_precision(&self, device: zerosum_nn::Device) -> zerosum_nn::Precision {
        let convolutional = self.model.family != zerosum_nn::Family::Mlp;
        let bf16_faster = if device.is_cuda() {
            convolutional && self.model.channels >= BF16_MIN_CHANNELS
        } else {
            convolutional && zerosum_nn::Precision::cpu_computes_bf16()
        };
        resolve_precision(&self.precision, bf16_faster)
    }

    /// Whether networks on `device` replay recorded CUDA graphs (`cuda_graphs`): `auto` is
    /// on for CUDA where the shim is there ([`zerosum_nn::cuda_graphs_available`]); `on`
    /// is on for CUDA, and building the model then fails in one line without the shim.
    pub fn uses_cuda_graphs(&self, device: zerosum_nn::Device) -> bool {
        zerosum_nn::cuda_graphs_setting(&self.cuda_graphs, device)
    }

    /// Whether the learner's steps on `device` replay a recorded CUDA graph
    /// (`learner.cuda_graphs`, read as [`RunConfig::uses_cuda_graphs`] reads its own).
    pub fn learner_uses_cuda_graphs(&self, device: zerosum_nn::Device) -> bool {
        zerosum_nn::cuda_graphs_setting(&self.learner.cuda_graphs, device)
    }

    /// What the learner's forward and backward passes compute in on `device`
    /// (`learner.precision`).
    ///
    /// `auto` is bf16, under autocast with the weights in f32, where the learner measured
    /// faster: for convolutional towers on a CPU with bf16 instructions, where connect
    /// four's learner ran 1.9 to 2.5 times as fast (docs/results.md, "Training in mixed
    /// precision"), and on CUDA for towers of [`BF16_MIN_CHANNELS`] channels or more (on an
    /// H200 the 128-channel tower's recorded step ran 1.2 times as fast in bf16, and the
    /// 32-channel towers' 0.8 times; docs/results.md, "On a GPU"); fp32 elsewhere.
    pub fn training_precision(&self, device: zerosum_nn::Device) -> zerosum_nn::Precision {
        let convolutional = self.model.family != zerosum_nn::Family::Mlp;
        let bf16_faster = convolutional
            && zerosum_nn::mixed_precision_available()
            && if device.is_cuda() {
                self.model.channels >= BF16_MIN_CHANNELS
            } else {
                zerosum_nn::Precision::cpu_computes_bf16()
            };
        resolve_precision(&self.learner.precision, bf16_faster)
    }

    /// Parses TOML text, then applies `key=value` overrides (dotted keys such as
    /// `search.num_simulations=50`; values in TOML syntax, bare words taken as strings).
    pub fn from_toml(text: &str, overrides: &[String]) -> Result<RunConfig, ConfigError> {
        let mut value: toml::Value =
            toml::from_str(text).map_err(|e| ConfigError(one_line(&e.to_string())))?;
        for item in overrides {
            apply_override(&mut value, item)?;
        }
        value
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError(one_line(&e.to_string())))
    }

    /// The share of the run's budget spent after `seconds` of training and `generations`
    /// whole generations: of `max_minutes` where it is set, of `generations`, whichever
    /// ends the run first; from 0 to 1.
    pub fn budget_used(&self, seconds: f64, generations: u64) -> f64 {
        let by_time = match self.max_minutes > 0.0 {
            true => seconds / (self.max_minutes * 60.0),
            false => 0.0,
        };
        let by_generations = generations as f64 / self.generations.max(1) as f64;
        by_time.max(by_generations).clamp(0.0, 1.0)
    }

    /// The config with the schedule's multipliers at `used` of the budget applied: what
    /// self-play and learning run with at that point of the run.
    pub fn at(&self, used: f64) -> RunConfig {
        let mut config = self.clone();
        let schedule = &self.schedule;
        let times = |n: usize, curve: &Curve| (n as f64 * curve.at(used)).round() as usize;
        let rate = schedule.learning_rate.at(used);
        config.learner.learning_rate *= rate;
        for (_, later) in &mut config.learner.lr_schedule {
            *later *= rate;
        }
        let window = &schedule.window_positions;
        config.replay.window_positions = times(self.replay.window_positions, window).max(1);
        let simulations = &schedule.num_simulations;
        config.search.num_simulations = times(self.search.num_simulations, simulations).max(1);
        config.self_play.fast_simulations =
            times(self.self_play.fast_simulations, simulations).max(1);
        let plies = &schedule.random_opening_plies;
        config.self_play.random_opening_plies = OpeningPlies {
            min: times(self.self_play.random_opening_plies.min, plies),
            max: times(self.self_play.random_opening_plies.max, plies),
        };
        config
    }

    /// Simulations per move of the trained agent outside training ([`PlayConfig`]).
    pub fn play_simulations(&self) -> usize {
        match self.play.num_simulations {
            0 => self.arena.num_simulations.max(self.search.num_simulations),
            n => n,
        }
    }

    /// The config as TOML (the run directory's `config.toml`), each float that an `f32`
    /// holds written as that `f32`'s shortest decimal (`dirichlet_alpha = 0.3`, not the
    /// widened `0.30000001192092896`), which reads back as the same value.
    pub fn to_toml(&self) -> String {
        let mut value = toml::Value::try_from(self).expect("configs serialise to TOML");
        shorten_floats(&mut value);
        toml::to_string_pretty(&value).expect("configs serialise to TOML")
    }

    /// Checks the config as a whole: the first error that would stop a run before it
    /// starts, else the config with the warnings worth showing.
    pub fn resolve(self) -> Result<ResolvedConfig, ConfigError> {
        let (errors, warnings) = self.problems();
        match errors.into_iter().next() {
            Some(first) => Err(ConfigError(first)),
            None => Ok(ResolvedConfig {
                config: self,
                warnings,
            }),
        }
    }

    /// Errors that stop a run before it starts (one line each) and warnings worth showing.
    /// The groups keep the order of the checks, so that [`RunConfig::resolve`] names the
    /// same first error.
    fn problems(&self) -> (Vec<String>, Vec<String>) {
        let mut errors = self.part_errors();
        errors.extend(self.self_play_errors());
        errors.extend(self.sampling_errors());
        errors.extend(self.gating_errors());
        errors.extend(self.target_errors());
        errors.extend(self.run_errors());
        (errors, self.warnings_worth_showing())
    }

    /// The errors of the game, search, precision, model and learner settings, each read on
    /// its own.
    fn part_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if let Err(e) = zerosum_games::registry::parse_game(&self.game) {
            errors.push(format!("game: {e}"));
        }
        errors.extend(self.search.validate());
        if self.precision != "auto" {
            if let Err(e) = zerosum_nn::Precision::parse(&self.precision) {
                errors.push(format!("precision: {e}"));
            }
        }
        if !zerosum_nn::is_graphs_setting(&self.cuda_graphs) {
            errors.push(format!(
                "cuda_graphs: '{}' is none of auto, on and off",
                self.cuda_graphs
            ));
        }
        errors.extend(self.model.validate());
        errors.extend(self.learner.validate());
        errors.extend(self.schedule.validate());
        errors
    }

    /// The errors of self-play's counts and shares, and of the replay reuse that paces the
    /// learner to it.
    fn self_play_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if self.self_play.games_per_generation == 0 || self.self_play.batch_games == 0 {
            errors.push(
                "self_play.games_per_generation and batch_games must be at least 1".to_string(),
            );
        }
        if !(0.0..=1.0).contains(&self.self_play.playout_cap_fraction)
            || self.self_play.playout_cap_fraction == 0.0
        {
            errors.push(format!(
                "self_play.playout_cap_fraction must be within (0, 1], got {}",
                self.self_play.playout_cap_fraction
            ));
        }
        if self.self_play.games_per_batch == 0 {
            errors.push("self_play.games_per_batch must be at least 1".to_string());
        }
        if self.replay.reuse.is_nan() || self.replay.reuse < 0.0 {
            errors.push(format!(
                "replay.reuse must be at least 0, got {}",
                self.replay.reuse
            ));
        }
        if self.self_play.threads == 0 {
            errors.push("self_play.threads must be at least 1".to_string());
        }
        errors
    }

    /// The errors of how the learner's samples are drawn from the replay window.
    fn sampling_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if !(self.replay.generation_decay > 0.0 && self.replay.generation_decay <= 1.0) {
            errors.push(format!(
                "replay.generation_decay must be within (0, 1], got {}",
                self.replay.generation_decay
            ));
        }
        if self.replay.subset == Subset::CountWeighted && !self.replay.merge_duplicates {
            errors.push(
                "replay.subset = \"count_weighted\" ranks merged positions by count: set replay.merge_duplicates = true".to_string(),
            );
        }
        errors
    }

    /// The errors of the gating settings.
    fn gating_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let gating = &self.gating;
        if gating.opponents && !(gating.enabled && gating.best_two) {
            errors.push(
                "gating.opponents shares games by the candidate's scores against the best and the second best: set gating.enabled and gating.best_two".to_string(),
            );
        }
        if gating.opponents && self.mode == Mode::Async {
            errors.push(
                "gating.opponents needs mode = \"sync\": an asynchronous run's actors play the published network only".to_string(),
            );
        }
        if !(0.0..=1.0).contains(&gating.older_share) {
            errors.push(format!(
                "gating.older_share must be within [0, 1], got {}",
                gating.older_share
            ));
        }
        errors
    }

    /// The errors of the replay window's size and of the weights that shape its samples
    /// and value targets.
    fn target_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if !(0.0..=1.0).contains(&self.replay.policy_surprise_weight) {
            errors.push(format!(
                "replay.policy_surprise_weight must be within [0, 1], got {}",
                self.replay.policy_surprise_weight
            ));
        }
        if !(0.0..=1.0).contains(&self.replay.value_q_mix) {
            errors.push(format!(
                "replay.value_q_mix must be within [0, 1], got {}",
                self.replay.value_q_mix
            ));
        }
        if !(0.0..=1.0).contains(&self.replay.value_score_weight) {
            errors.push(format!(
                "replay.value_score_weight must be within [0, 1], got {}",
                self.replay.value_score_weight
            ));
        }
        if !(self.replay.value_score_scale > 0.0 && self.replay.value_score_scale.is_finite()) {
            errors.push(format!(
                "replay.value_score_scale must be a positive number of points, got {}",
                self.replay.value_score_scale
            ));
        }
        if self.replay.window_positions == 0 {
            errors.push("replay.window_positions must be at least 1".to_string());
        }
        errors
    }

    /// The errors of the arena's budget and the run's length, and of settings that clash
    /// across sections.
    fn run_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        if self.arena.num_simulations == 0 {
            errors.push("arena.num_simulations must be at least 1".to_string());
        }
        if self.model.family == zerosum_nn::Family::Mlp && self.learner.batch_size < 2 {
            errors.push(
                "learner.batch_size must be at least 2 (batch norm needs two samples)".to_string(),
            );
        }
        if self.search.forced_playouts_k > 0.0
            && self.search.algorithm == zerosum_search::Algorithm::Gumbel
        {
            errors.push("search.forced_playouts_k applies to the puct algorithm only; set it to 0 with gumbel".to_string());
        }
        if self.generations == 0 {
            errors.push("generations must be at least 1".to_string());
        }
        errors
    }

    /// Settings that are allowed but likely unintended.
    fn warnings_worth_showing(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.self_play.batch_games > self.self_play.games_per_generation {
            warnings.push(format!(
                "self_play.batch_games ({}) exceeds games_per_generation ({}): batches will not fill",
                self.self_play.batch_games, self.self_play.games_per_generation
            ));
        }
        if self.search.num_simulations < 8 {
            warnings.push(
                "search.num_simulations below 8 gives visit-count targets little to learn from"
                    .to_string(),
            );
        }
        warnings
    }
}

/// A [`RunConfig`] checked as a whole by [`RunConfig::resolve`]: what training, the
/// arena, play and the front ends receive, so that nothing checks a config twice.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedConfig {
    config: RunConfig,
    warnings: Vec<String>,
}

impl ResolvedConfig {
    /// Warnings about settings that are allowed but likely unintended, one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl std::ops::Deref for ResolvedConfig {
    type Target = RunConfig;

    fn deref(&self) -> &RunConfig {
        &self.config
    }
}

/// Gating settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatingConfig {
    /// Gate the self-play network (AlphaGo Zero); off plays the newest (AlphaZero).
    pub enabled: bool,
    /// Games of each gating match (colours alternate).
    pub games: usize,
    /// Score the candidate needs against the best network (AlphaGo Zero: 0.55).
    pub threshold: f64,
    /// Also require the threshold against the second best (CGZero's best1/best2).
    pub best_two: bool,
    /// CGZero's self-play opponents: the best plays the second best and an older
    /// generation as well as itself (`zerosum_train::gating::split`); needs `best_two`.
    pub opponents: bool,
    /// With `opponents`: the share of each generation's games the best plays against an
    /// older generation (CGZero: 0.1).
    pub older_share: f64,
    /// With `opponents`: the older generation is drawn from this many most recent
    /// promoted networks before the second best.
    pub older_recent: usize,
}

impl Default for GatingConfig {
    fn default() -> Self {
        GatingConfig {
            enabled: false,
            games: 40,
            threshold: 0.55,
            best_two: false,
            opponents: false,
            older_share: 0.1,
            older_recent: 5,
        }
    }
}

/// Independent random streams of a run, each seeded by [`derive_seed`].
pub mod stream {
    /// Self-play and learning of one generation.
    pub const GENERATION: u64 = 1;
    /// Evaluation matches.
    pub const EVALUATE: u64 = 2;
    /// Gating matches.
    pub const GATE: u64 = 3;
    /// Baseline players (rollouts).
    pub const BASELINE: u64 = 4;
    /// Measuring games of `compare`.
    pub const COMPARE: u64 = 5;
    /// Asynchronous actors' games (indexed by actor and batch).
    pub const ACTOR: u64 = 6;
    /// `distill`'s draws and matches.
    pub const DISTILL: u64 = 7;
}

/// The seed of stream `stream`, item `index`, of a run seeded `seed` (SplitMix64 over the
/// three): one place derives every seed, so no two streams share one by accident.
pub fn derive_seed(seed: u64, stream: u64, index: u64) -> u64 {
    let mut z = seed
        .wrapping_add(stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Sets `a.b.c=value` inside a TOML table.
fn apply_override(root: &mut toml::Value, item: &str) -> Result<(), ConfigError> {
    let (key, raw) = item
        .split_once('=')
        .ok_or_else(|| ConfigError(format!("override '{item}' is not key=value")))?;
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut table) => table.remove("v").expect("the key v was just written"),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let mut table = root
        .as_table_mut()
        .ok_or_else(|| ConfigError("config root is not a table".to_string()))?;
    let parts: Vec<&str> = key.trim().split('.').collect();
    for part in &parts[..parts.len() - 1] {
        table = table
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .ok_or_else(|| ConfigError(format!("override '{key}': '{part}' is not a table")))?;
    }
    table.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

/// Writes each float of `value` that is exactly an `f32` as the `f32`'s shortest decimal.
/// A float typed `f64` is almost never exactly an `f32` unless it was one, and if it is,
/// the decimal names the same `f32` again.
fn shorten_floats(value: &mut toml::Value) {
    match value {
        toml::Value::Float(x) if x.is_finite() && f64::from(*x as f32) == *x => {
            *x = (*x as f32)
                .to_string()
                .parse()
                .expect("an f32's decimal reads as an f64");
        }
        toml::Value::Array(items) => items.iter_mut().for_each(shorten_floats),
        toml::Value::Table(table) => table.iter_mut().for_each(|(_, v)| shorten_floats(v)),
        _ => {}
    }
}

/// `text` as a TOML string literal, for a `key=value` override.
pub fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The default config of a game that ships none (one written in Python, say), sized from
/// its observation shape `[C, H, W]` and its action count: an mlp for flat observations
/// (`H = W = 1`), a small resnet for boards; simulations about seven times the action
/// count, and four times that outside training, where a move's search costs little next to
/// a game of self-play and is what settles the endgames a young network misjudges;
/// tic-tac-toe's training budget otherwise (20 generations of 256 games), which learns a
/// game of that size to exact play in a few minutes on two cores.
pub fn generic_config(game: &str, obs_shape: [usize; 3], num_actions: usize) -> String {
    let [_, height, width] = obs_shape;
    let obs_len: usize = obs_shape.iter().product();
    let model = if height == 1 && width == 1 {
        let hidden = (2 * obs_len).next_power_of_two().clamp(64, 256);
        format!("family = \"mlp\"\nhidden = {hidden}\nlayers = 2\nvalue_hidden = 32")
    } else {
        let channels = if height * width <= 49 { 32 } else { 64 };
        format!("family = \"resnet\"\nchannels = {channels}\nblocks = 3\nvalue_hidden = 32")
    };
    let simulations = (7 * num_actions).clamp(64, 256);
    let play_simulations = 4 * simulations;
    let alpha = (10.0 / num_actions as f64).clamp(0.03, 1.0);
    format!(
        r#"# The generic default for a game without a config of its own (see generic_config).
game = "{game}"
seed = 1
generations = 20
device = "cpu"
torch_threads = 1
keep_checkpoint_every = 4

[model]
{model}

[search]
num_simulations = {simulations}
dirichlet_alpha = {alpha:.2}

[self_play]
games_per_generation = 256
batch_games = 64
temperature_plies = 4

[replay]
window_positions = 12000

[learner]
optimizer = "adam"
learning_rate = 0.003
lr_schedule = [[1500, 0.001]]
batch_size = 128
epochs = 4.0
l2 = 0.0001

[arena]
every = 4
games = 20
baselines = ["mcts:50"]
num_simulations = 48

[play]
num_simulations = {play_simulations}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_precision_is_bf16_only_where_it_measured_faster() {
        let config = |family: &str, channels: usize, precision: &str| {
            RunConfig::from_toml(
                "game = \"connect4\"",
                &[
                    format!("model.family={family}"),
                    format!("model.channels={channels}"),
                    format!("precision={precision}"),
                ],
            )
            .unwrap()
        };
        let cpu = zerosum_nn::Device::Cpu;
        let cuda = zerosum_nn::Device::Cuda(0);
        let on_this_cpu = if zerosum_nn::Precision::cpu_computes_bf16() {
            zerosum_nn::Precision::Bf16
        } else {
            zerosum_nn::Precision::Fp32
        };
        assert_eq!(
            config("resnet", 32, "auto").inference_precision(cpu),
            on_this_cpu
        );
        let fp32 = zerosum_nn::Precision::Fp32;
        assert_eq!(config("mlp", 32, "auto").inference_precision(cpu), fp32);
        assert_eq!(config("resnet", 32, "auto").inference_precision(cuda), fp32);
        let bf16 = zerosum_nn::Precision::Bf16;
        assert_eq!(
            config("resnet", 128, "auto").inference_precision(cuda),
            bf16
        );
        assert_eq!(config("resnet", 128, "fp32").inference_precision(cpu), fp32);
        assert_eq!(config("mlp", 32, "bf16").inference_precision(cpu), bf16);
    }

    #[test]
    fn cuda_graphs_are_auto_on_or_off_and_never_on_the_cpu() {
        let config = |setting: &str| {
            RunConfig::from_toml(
                "game = \"connect4\"",
                &[
                    format!("cuda_graphs={setting}"),
                    format!("learner.cuda_graphs={setting}"),
                ],
            )
            .unwrap()
        };
        let (cpu, cuda) = (zerosum_nn::Device::Cpu, zerosum_nn::Device::Cuda(0));
        for setting in ["auto", "on", "off"] {
            let config = config(setting);
            assert!(config.clone().resolve().is_ok(), "{setting}");
            assert!(!config.uses_cuda_graphs(cpu) && !config.learner_uses_cuda_graphs(cpu));
        }
        assert!(config("on").uses_cuda_graphs(cuda) && config("on").learner_uses_cuda_graphs(cuda));
        assert!(!config("off").uses_cuda_graphs(cuda));
        let auto = zerosum_nn::cuda_graphs_available().is_ok();
        assert_eq!(config("auto").learner_uses_cuda_graphs(cuda), auto);
        for key in ["cuda_graphs", "learner.cuda_graphs"] {
            let config = RunConfig::from_toml("", &[format!("{key}=sometimes")]).unwrap();
            let Err(refused) = config.resolve() else {
                panic!("{key} = sometimes was accepted");
            };
            assert!(refused.0.contains(key), "{refused}");
        }
    }

    #[test]
    fn auto_training_precision_is_bf16_only_where_the_learner_measured_faster() {
        let config = |family: &str, precision: &str| {
            RunConfig::from_toml(
                "game = \"connect4\"",
                &[
                    format!("model.family={family}"),
                    format!("learner.precision={precision}"),
                ],
            )
            .unwrap()
        };
        let cpu = zerosum_nn::Device::Cpu;
        let (fp32, bf16) = (zerosum_nn::Precision::Fp32, zerosum_nn::Precision::Bf16);
        let computes_bf16 =
            zerosum_nn::Precision::cpu_computes_bf16() && zerosum_nn::mixed_precision_available();
        let on_this_cpu = if computes_bf16 { bf16 } else { fp32 };
        assert_eq!(
            config("resnet", "auto").training_precision(cpu),
            on_this_cpu
        );
        assert_eq!(config("mlp", "auto").training_precision(cpu), fp32);
        let cuda = zerosum_nn::Device::Cuda(0);
        let mut narrow = config("resnet", "auto");
        narrow.model.channels = 32;
        assert_eq!(narrow.training_precision(cuda), fp32);
        let mut wide = config("resnet", "auto");
        wide.model.channels = 128;
        let wide_on_cuda = if zerosum_nn::mixed_precision_available() {
            bf16
        } else {
            fp32
        };
        assert_eq!(wide.training_precision(cuda), wide_on_cuda);
        assert_eq!(config("resnet", "fp32").training_precision(cpu), fp32);
        assert_eq!(config("mlp", "bf16").training_precision(cuda), bf16);
        let Err(refused) = RunConfig::from_toml("", &["learner.precision=fp16".to_string()])
            .unwrap()
            .resolve()
        else {
            panic!("fp16 training was accepted");
        };
        assert!(refused.0.contains("learner.precision"), "{refused}");
    }

    #[test]
    fn overrides_reach_nested_fields() {
        let config = RunConfig::from_toml(
            "game = \"connect4\"\n[search]\nc_puct = 2.0\n",
            &[
                "search.num_simulations=50".into(),
                "model.family=mlp".into(),
                "seed=9".into(),
            ],
        )
        .unwrap();
        assert_eq!(config.game, "connect4");
        assert_eq!(config.search.num_simulations, 50);
        assert_eq!(config.search.c_puct, 2.0);
        assert_eq!(config.model.family, zerosum_nn::Family::Mlp);
        assert_eq!(config.seed, 9);
    }

    #[test]
    fn random_opening_plies_are_a_number_or_a_range_written_back_as_given() {
        let parse = |value: &str| {
            RunConfig::from_toml("", &[format!("self_play.random_opening_plies={value}")])
                .map(|c| c.self_play.random_opening_plies)
        };
        assert_eq!(parse("6").unwrap(), OpeningPlies::fixed(6));
        let range = parse("[0, 12]").unwrap();
        assert_eq!(range, OpeningPlies { min: 0, max: 12 });
        let error = parse("[12, 0]").unwrap_err().to_string();
        assert!(error.contains("from the fewer to the more"), "{error}");
        for plies in [OpeningPlies::fixed(6), range] {
            let config = RunConfig {
                self_play: SelfPlayConfig {
                    random_opening_plies: plies,
                    ..Default::default()
                },
                ..Default::default()
            };
            let text = toml::to_string(&config).unwrap();
            let back = RunConfig::from_toml(&text, &[]).unwrap();
            assert_eq!(back.self_play.random_opening_plies, plies, "{text}");
        }
    }

    #[test]
    fn the_agent_outside_training_searches_its_own_budget_or_the_larger_of_the_others() {
        let unset = RunConfig::from_toml(
            "[search]\nnum_simulations = 64\n[arena]\nnum_simulations = 128\n",
            &[],
        )
        .unwrap();
        assert_eq!(unset.play_simulations(), 128);
        let unset = RunConfig::from_toml(
            "[search]\nnum_simulations = 64\n",
            &["arena.num_simulations=48".into()],
        )
        .unwrap();
        assert_eq!(unset.play_simulations(), 64);
        let set = RunConfig::from_toml("[play]\nnum_simulations = 400\n", &[]).unwrap();
        assert_eq!(set.play_simulations(), 400);
    }

    #[test]
    fn unknown_keys_and_bad_types_are_one_line_errors() {
        for (text, set) in [
            ("nonsense = 3", vec![]),
            ("[search]\nnum_simulations = \"many\"", vec![]),
            ("", vec!["search.bogus=1".to_string()]),
            ("", vec!["noequals".to_string()]),
            ("[search", vec![]),
        ] {
            let err = RunConfig::from_toml(text, &set).unwrap_err().to_string();
            assert!(!err.contains('\n'), "{err}");
        }
    }

    /// The seeds' options that need another setting say which, in one line.
    #[test]
    fn options_missing_what_they_need_are_refused_in_one_line() {
        for (text, needs) in [
            ("[replay]\nsubset = \"count_weighted\"", "merge_duplicates"),
            ("[replay]\npolicy_surprise_weight = 1.5", "within [0, 1]"),
            ("[gating]\nenabled = true\nopponents = true", "best_two"),
            (
                "mode = \"async\"\n[gating]\nenabled = true\nbest_two = true\nopponents = true",
                "sync",
            ),
            ("[gating]\nolder_share = -0.5", "older_share"),
            ("[replay]\nvalue_score_weight = 2.0", "value_score_weight"),
            ("[replay]\nvalue_score_scale = 0.0", "value_score_scale"),
        ] {
            let err = RunConfig::from_toml(text, &[])
                .and_then(RunConfig::resolve)
                .unwrap_err()
                .to_string();
            assert!(err.contains(needs) && !err.contains('\n'), "{text}: {err}");
        }
        let fine = "[replay]\nmerge_duplicates = true\nsubset = \"count_weighted\"\npolicy_surprise_weight = 0.5\n[gating]\nenabled = true\nbest_two = true\nopponents = true";
        RunConfig::from_toml(fine, &[])
            .and_then(RunConfig::resolve)
            .unwrap();
    }

    #[test]
    fn the_budget_is_the_time_limit_or_the_generations_whichever_ends_the_run_first() {
        let config = |text: &str| RunConfig::from_toml(text, &[]).unwrap();
        let timed = config("max_minutes = 10.0\ngenerations = 1000");
        assert_eq!(timed.budget_used(150.0, 5), 0.25);
        assert_eq!(timed.budget_used(900.0, 5), 1.0);
        let counted = config("generations = 20");
        assert_eq!(counted.budget_used(1e6, 5), 0.25);
        let scheduled = config(
            "[search]\nnum_simulations = 100\n[self_play]\nrandom_opening_plies = [0, 8]\n\
             fast_simulations = 20\n[schedule]\nnum_simulations = [[0, 0.5], [1, 1.5]]\n\
             random_opening_plies = [[0, 1], [1, 0]]\nlearning_rate = [[0, 2]]",
        );
        let late = scheduled.at(0.75);
        assert_eq!(late.search.num_simulations, 125);
        assert_eq!(late.self_play.fast_simulations, 25);
        assert_eq!(
            late.self_play.random_opening_plies,
            OpeningPlies { min: 0, max: 2 }
        );
        assert_eq!(
            late.learner.learning_rate,
            2.0 * scheduled.learner.learning_rate
        );
        assert_eq!(scheduled.at(0.0).search.num_simulations, 50);
        let plain = config("");
        assert_eq!(plain.at(0.6), plain);
    }

    #[test]
    fn round_trips_through_toml() {
        let config = RunConfig::default();
        let again = RunConfig::from_toml(&config.to_toml(), &[]).unwrap();
        assert_eq!(config, again);
    }

    /// Every game's default config, written out, shows each float as typed (no `f32`
    /// widened to `0.10000000149011612`) and reads back as the same config.
    #[test]
    fn written_configs_show_floats_as_typed() {
        let games = [
            "tictactoe",
            "connect4",
            "gomoku",
            "gomoku:size=9",
            "oware",
            "go",
        ];
        for game in games
            .into_iter()
            .chain(["go:size=9,komi=7.5", "pushfight", "chess"])
        {
            let text = default_config(game).unwrap();
            let settings = [
                "search.c_puct=1.1".to_string(),
                "self_play.temperature=0.7".into(),
            ];
            let config = RunConfig::from_toml(&text, &settings).unwrap();
            let written = config.to_toml();
            let long = written.lines().find(|line| {
                let value = line.split_once(" = ").map_or("", |(_, value)| value);
                value.contains("0000000") || value.contains("9999999")
            });
            assert_eq!(long, None, "{game}:\n{written}");
            assert!(written.contains("c_puct = 1.1\n"), "{written}");
            assert!(written.contains("temperature = 0.7\n"), "{written}");
            assert_eq!(
                RunConfig::from_toml(&written, &[]).unwrap(),
                config,
                "{game}"
            );
        }
    }
}
