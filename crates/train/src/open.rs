//! Opening a run: the one place that decides which config a run trains with. The command
//! line, the Python package and every role that joins a run (actor, evaluator, ladder,
//! distill) come through [`open_run`].

use zerosum_config::{ConfigError, ResolvedConfig, RunConfig};
use zerosum_games::registry::{parse_game, AnyGame};
use zerosum_store::{names, RunStore, StoreError};

use crate::error::TrainError;
use crate::learner::RunIdentity;

/// The config a new run starts from: a config file's text or the game's default, with the
/// caller's own settings (its game, seed, device) as `KEY=VALUE` lines on top.
#[derive(Clone, Debug)]
pub struct NewRun {
    /// TOML text.
    pub text: String,
    /// `KEY=VALUE` settings applied to `text` before the request's overrides.
    pub settings: Vec<String>,
}

impl NewRun {
    /// The config as it stands before the request's overrides, for a caller that needs the
    /// game to name the run's default location.
    pub fn config(&self) -> Result<RunConfig, TrainError> {
        Ok(RunConfig::from_toml(&self.text, &self.settings)?)
    }
}

/// Who opens the run.
#[derive(Clone, Debug)]
pub enum Opening {
    /// The learner: a new run from `new`, or the run that exists when `resume` is set.
    Learner {
        /// The config of a new run; `None` where the caller named neither a game nor a
        /// config, which only a run that exists can do without.
        new: Option<NewRun>,
        /// Continue a run that exists; without it, one that exists is refused.
        resume: bool,
    },
    /// A role that joins a run its learner started, with the run's own config.
    Join,
}

/// What a caller asks of a run.
#[derive(Clone, Debug)]
pub struct OpenRequest {
    /// The run: a directory, or an object store URL.
    pub location: String,
    /// Who opens it.
    pub opening: Opening,
    /// `KEY=VALUE` overrides on top of whichever config the run takes.
    pub overrides: Vec<String>,
    /// The game the caller names, if it names one: a run of another game is refused.
    pub game: Option<String>,
}

/// An open run: its store, its game and the config resolved once, with the warnings the
/// caller prints.
pub struct OpenRun {
    /// The run's objects.
    pub store: RunStore,
    /// The game it trains.
    pub game: AnyGame,
    /// The config, resolved.
    pub config: ResolvedConfig,
    /// What the config does that may not be meant, one line each.
    pub warnings: Vec<String>,
}

/// Opens the run of `request`: reads the run's stored config (refusing a learner that
/// does not resume it), or starts from the new run's; applies the overrides; refuses
/// another game than the run's or the caller's; resolves the config and checks its
/// baselines.
///
/// A learner's refusal leaves no folder behind that it made for the run.
pub fn open_run(request: &OpenRequest) -> Result<OpenRun, TrainError> {
    let store = match request.opening {
        Opening::Learner { .. } => RunStore::create(&request.location)?,
        Opening::Join => RunStore::open(&request.location)?,
    };
    open_in(request, store.clone()).inspect_err(|_| store.remove_if_unused())
}

/// [`open_run`] in `store`, made or opened for it.
fn open_in(request: &OpenRequest, store: RunStore) -> Result<OpenRun, TrainError> {
    let location = &request.location;
    let identity = RunIdentity::check(&store)?;
    let config = run_config(request, &store, identity.is_some())?;
    let game = parse_game(&config.game)?;
    if let Some(asked) = &request.game {
        same_game(location, &game.name(), asked)?;
    }
    if let Some(identity) = identity {
        same_game(location, &identity.game, &game.name())?;
    } else if matches!(request.opening, Opening::Join) {
        return Err(not_a_run(location, false).into());
    }
    let config = config.resolve()?;
    check_baselines(&config)?;
    let warnings = config.warnings().to_vec();
    Ok(OpenRun {
        store,
        game,
        config,
        warnings,
    })
}

/// The config the run takes, before it is resolved: the stored one with the overrides (a
/// learner only when it resumes), or the new run's; refuses a run of a format before
/// `run.json`, and a game the overrides change.
fn run_config(
    request: &OpenRequest,
    store: &RunStore,
    has_identity: bool,
) -> Result<RunConfig, TrainError> {
    let location = &request.location;
    let stored = store.get_text(names::CONFIG)?;
    if stored.is_some() && !has_identity {
        return Err(StoreError::Location {
            location: location.clone(),
            reason: format!(
                "a run without {}, of a format before {}: this build cannot read it",
                names::RUN,
                names::FORMAT
            ),
        }
        .into());
    }
    match (&request.opening, stored) {
        (Opening::Learner { resume: false, .. }, Some(_)) => Err(TrainError::RunExists {
            location: location.clone(),
        }),
        (_, Some(text)) => {
            let run_game = full_name(&RunConfig::from_toml(&text, &[])?.game)?;
            let config = RunConfig::from_toml(&text, &request.overrides)?;
            same_game(location, &run_game, &config.game)?;
            Ok(config)
        }
        (Opening::Learner { new: Some(new), .. }, None) => {
            let settings: Vec<String> = new
                .settings
                .iter()
                .chain(&request.overrides)
                .cloned()
                .collect();
            Ok(RunConfig::from_toml(&new.text, &settings)?)
        }
        (Opening::Learner { new: None, .. }, None) => Err(ConfigError(format!(
            "{location} holds no run, and no game or config was named for a new one"
        ))
        .into()),
        (Opening::Join, None) => Err(not_a_run(location, has_identity).into()),
    }
}

/// Why a role cannot join the run at `location`.
fn not_a_run(location: &str, has_identity: bool) -> StoreError {
    let reason = match has_identity {
        false => format!("not a run yet (no {}); start its learner first", names::RUN),
        true => format!("the run has no {}", names::CONFIG),
    };
    StoreError::Location {
        location: location.to_string(),
        reason,
    }
}

/// The registry's full name of the game `spec` names.
fn full_name(spec: &str) -> Result<String, TrainError> {
    Ok(parse_game(spec)?.name())
}

/// Refuses `asked` unless it names `run_game`, the game of the run at `location`.
fn same_game(location: &str, run_game: &str, asked: &str) -> Result<(), TrainError> {
    if full_name(asked)? == run_game {
        return Ok(());
    }
    Err(TrainError::OtherGame {
        location: location.to_string(),
        run_game: run_game.to_string(),
        asked: asked.to_string(),
    })
}

/// Refuses a config whose baselines name no player: a baseline is played only at the
/// first evaluation, and a bad one must stop the run before it starts.
pub fn check_baselines(config: &RunConfig) -> Result<(), TrainError> {
    for spec in &config.arena.baselines {
        if let Err(e) = spec.parse::<zerosum_players::PlayerSpec>() {
            return Err(ConfigError(format!("arena.baselines: {e}")).into());
        }
    }
    Ok(())
}
