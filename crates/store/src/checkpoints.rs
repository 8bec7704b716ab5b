//! Checkpoints in a run store: written once under their generation's name, published by
//! one pointer, and loaded from whatever a user names (a path, a run, a URL).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use zerosum_games::Game;
use zerosum_nn::{CheckpointBytes, CheckpointMeta, Device, Model};

use crate::error::StoreError;
use crate::names;
use crate::store::{is_url, RunStore};

/// What [`names::LATEST`] holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pointer {
    /// The checkpoint's base name within `checkpoints/` (`gen-0005`).
    pub checkpoint: String,
    /// Its generation.
    pub generation: u64,
    /// The share of the run's budget used when it was published: where self-play with it
    /// stands on the run's schedule (0 in runs from before schedules).
    #[serde(default)]
    pub budget_used: f64,
}

/// Writes `model` as checkpoint `generation`, with the learner's `optimizer` state where
/// given: weights and state first, sidecar last, so that a checkpoint whose sidecar exists
/// is whole. Until the sidecar lands the checkpoint does not exist, so a write cut short
/// earlier is replaced, never mixed with this one; the sidecar itself is written once.
pub fn save(
    store: &RunStore,
    generation: u64,
    model: &Model,
    optimizer: Option<&[u8]>,
) -> Result<(), StoreError> {
    let base = names::checkpoint(generation);
    let bytes = model.to_bytes()?;
    if store.get(&names::sidecar(&base))?.is_some() {
        return Ok(());
    }
    store.replace(&names::weights(&base), &bytes.weights)?;
    if let Some(state) = optimizer {
        store.replace(&names::optimizer(&base), state)?;
    }
    store.put_once(&names::sidecar(&base), &bytes.meta)?;
    Ok(())
}

/// Writes a checkpoint's files as `dir/NAME.safetensors` and `dir/NAME.json` (creating
/// `dir`), where `checkpoint:dir/NAME` finds them; returns `dir/NAME`.
pub fn write_files(
    dir: &std::path::Path,
    name: &str,
    weights: &[u8],
    meta: &[u8],
) -> Result<PathBuf, StoreError> {
    let failed = |path: &std::path::Path, e: std::io::Error| StoreError::Location {
        location: path.display().to_string(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
    for (extension, bytes) in [("safetensors", weights), ("json", meta)] {
        let path = dir.join(format!("{name}.{extension}"));
        std::fs::write(&path, bytes).map_err(|e| failed(&path, e))?;
    }
    Ok(dir.join(name))
}

/// Points [`names::LATEST`] at checkpoint `generation` (written before by [`save`]),
/// published at `budget_used` of the run's budget.
pub fn publish(store: &RunStore, generation: u64, budget_used: f64) -> Result<(), StoreError> {
    let pointer = Pointer {
        checkpoint: names::generation_name(generation),
        generation,
        budget_used,
    };
    store.replace(
        names::LATEST,
        &serde_json::to_vec(&pointer).expect("pointers serialise"),
    )
}

/// The published pointer, if any.
pub fn published(store: &RunStore) -> Result<Option<Pointer>, StoreError> {
    let Some(bytes) = store.get(names::LATEST)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| StoreError::Location {
            location: store.display(names::LATEST),
            reason: format!("not a checkpoint pointer: {e}"),
        })
}

/// The generations of the whole checkpoints in the run, oldest first.
pub fn generations(store: &RunStore) -> Result<Vec<u64>, StoreError> {
    let names = store.list(names::CHECKPOINTS)?;
    Ok(names
        .iter()
        .filter_map(|name| names::json_generation(name))
        .filter(|&g| {
            let weights = names::weights(&names::generation_name(g));
            names.binary_search(&weights).is_ok()
        })
        .collect())
}

/// Removes checkpoint `generation`, sidecar first: weights without a sidecar are never
/// taken for a checkpoint.
pub fn remove(store: &RunStore, generation: u64) -> Result<(), StoreError> {
    let base = names::checkpoint(generation);
    store.delete(&names::sidecar(&base))?;
    store.delete(&names::optimizer(&base))?;
    store.delete(&names::weights(&base))
}

/// The bytes of checkpoint `base` (`checkpoints/gen-0005`) in `store`, if whole.
pub fn read(store: &RunStore, base: &str) -> Result<Option<CheckpointBytes>, StoreError> {
    let Some(meta) = store.get(&names::sidecar(base))? else {
        return Ok(None);
    };
    let Some(weights) = store.get(&names::weights(base))? else {
        return Ok(None);
    };
    Ok(Some(CheckpointBytes { weights, meta }))
}

/// Loads checkpoint `generation` of the run for `game`.
pub fn load<G: Game>(
    store: &RunStore,
    generation: u64,
    game: &G,
    device: Device,
) -> Result<Model, StoreError> {
    let base = names::checkpoint(generation);
    let bytes = read(store, &base)?.ok_or_else(|| StoreError::Location {
        location: store.display(&base),
        reason: "no such checkpoint".into(),
    })?;
    Ok(Model::from_bytes(
        &bytes,
        game,
        device,
        &PathBuf::from(store.display(&base)),
    )?)
}

/// A checkpoint named by a user: `X` with `X.safetensors` and `X.json` beside it, either
/// file, a pointer (`.../checkpoints/latest`), or a run (its latest), as a path or a URL.
pub struct Located {
    /// The bytes.
    pub bytes: CheckpointBytes,
    /// Where they were found, for messages.
    pub origin: String,
}

/// Finds and reads the checkpoint `location` names.
pub fn locate(location: &str) -> Result<Located, StoreError> {
    let missing = || {
        StoreError::Location {
        location: location.to_string(),
        reason: "no checkpoint there (expected NAME.safetensors and NAME.json, a checkpoints/latest pointer, or a run)".into(),
    }
    };
    let trimmed = location.trim_end_matches('/');
    let base = trimmed
        .strip_suffix(".safetensors")
        .or_else(|| trimmed.strip_suffix(".json"))
        .unwrap_or(trimmed);
    // A run (or its checkpoints folder) first, when the location is a folder.
    let local_dir = !is_url(base) && std::path::Path::new(base).is_dir();
    if local_dir || is_url(base) {
        let run = RunStore::open(base);
        if let Ok(store) = &run {
            for pointer in [names::LATEST, "latest"] {
                if let Some(found) = through_pointer(store, pointer)? {
                    return Ok(found);
                }
            }
        }
        if local_dir {
            let reason = match &run {
                Ok(store) => what_the_run_lacks(store)?,
                Err(_) => None,
            };
            return Err(reason.map_or_else(missing, |reason| StoreError::Location {
                location: location.to_string(),
                reason,
            }));
        }
    }
    let (parent, name) = base.rsplit_once('/').unwrap_or((".", base));
    let store =
        RunStore::open(if parent.is_empty() { "/" } else { parent }).map_err(|_| missing())?;
    // A pointer first, then the files of a checkpoint of that name.
    if let Some(found) = through_pointer(&store, name)? {
        return Ok(found);
    }
    if let Some(bytes) = read(&store, name)? {
        return Ok(Located {
            bytes,
            origin: store.display(name),
        });
    }
    Err(match half_of(&store, name)? {
        Some(reason) => StoreError::Location {
            location: location.to_string(),
            reason,
        },
        None => missing(),
    })
}

/// Why the run in `store` gave no checkpoint, where it is a run (it has `run.json` or
/// `config.toml`): its `checkpoints/latest` is missing, unreadable, or names a checkpoint
/// that is not whole.
fn what_the_run_lacks(store: &RunStore) -> Result<Option<String>, StoreError> {
    if store.get(names::RUN)?.is_none() && store.get(names::CONFIG)?.is_none() {
        return Ok(None);
    }
    let Some(bytes) = store.get(names::LATEST)? else {
        return Ok(Some(format!(
            "a run with no {} (none published yet); name a checkpoint in {}/",
            names::LATEST,
            names::CHECKPOINTS
        )));
    };
    Ok(Some(match serde_json::from_slice::<Pointer>(&bytes) {
        Err(_) => format!("the run's {} is not a checkpoint pointer", names::LATEST),
        Ok(pointer) => format!(
            "the run's {} names {}, which is not a whole checkpoint ({})",
            names::LATEST,
            pointer.checkpoint,
            half_of(
                store,
                &format!("{}/{}", names::CHECKPOINTS, pointer.checkpoint)
            )?
            .unwrap_or_else(|| "neither file is there".into())
        ),
    }))
}

/// Which file of checkpoint `base` is missing when the other is there.
fn half_of(store: &RunStore, base: &str) -> Result<Option<String>, StoreError> {
    let (sidecar, weights) = (names::sidecar(base), names::weights(base));
    Ok(
        match (
            store.get(&sidecar)?.is_some(),
            store.get(&weights)?.is_some(),
        ) {
            (false, true) => Some(format!("{sidecar} is missing beside {weights}")),
            (true, false) => Some(format!("{weights} is missing beside {sidecar}")),
            _ => None,
        },
    )
}

/// Follows the pointer object `name` in `store` to the checkpoint beside it.
fn through_pointer(store: &RunStore, name: &str) -> Result<Option<Located>, StoreError> {
    let Some(bytes) = store.get(name)? else {
        return Ok(None);
    };
    let Ok(pointer) = serde_json::from_slice::<Pointer>(&bytes) else {
        return Ok(None);
    };
    let folder = name.rsplit_once('/').map_or("", |(folder, _)| folder);
    let base = if folder.is_empty() {
        pointer.checkpoint.clone()
    } else {
        format!("{folder}/{}", pointer.checkpoint)
    };
    Ok(read(store, &base)?.map(|bytes| Located {
        bytes,
        origin: store.display(&base),
    }))
}

/// Loads the checkpoint `location` names for `game`.
pub fn load_location<G: Game>(
    location: &str,
    game: &G,
    device: Device,
) -> Result<Model, StoreError> {
    let found = locate(location)?;
    Ok(Model::from_bytes(
        &found.bytes,
        game,
        device,
        &PathBuf::from(found.origin),
    )?)
}

/// The network of the checkpoint `location` names, on the CPU, as its metadata describes it,
/// without checking it against a game (to export it).
pub fn load_as_written(location: &str) -> Result<Model, StoreError> {
    let found = locate(location)?;
    Ok(Model::from_bytes_as_written(
        &found.bytes,
        Device::Cpu,
        &PathBuf::from(found.origin),
    )?)
}

/// The metadata of the checkpoint `location` names (to learn its game, say).
pub fn meta_at(location: &str) -> Result<CheckpointMeta, StoreError> {
    let found = locate(location)?;
    serde_json::from_slice(&found.bytes.meta).map_err(|e| StoreError::Location {
        location: found.origin,
        reason: format!("not a checkpoint's metadata: {e}"),
    })
}

/// The training time up to `generation` that the run holding the checkpoint at `origin`
/// (`RUN/checkpoints/gen-NNNN`) recorded, where it is in a run and the run recorded one.
pub fn run_train_seconds(origin: &str, generation: u64) -> Option<f64> {
    origin
        .rsplit_once('/')
        .and_then(|(folder, _)| folder.strip_suffix("/checkpoints"))
        .and_then(|run| RunStore::open(run).ok())
        .and_then(|run| {
            crate::events::train_seconds_at(&run, generation)
                .ok()
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A location that holds no checkpoint says what is missing where it can tell.
    #[test]
    fn a_missing_checkpoint_is_explained() {
        let dir = std::env::temp_dir().join(format!("zerosum-locate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("run/checkpoints")).unwrap();
        let run = dir.join("run");
        let reason = |location: &std::path::Path| match locate(location.to_str().unwrap()) {
            Err(StoreError::Location { reason, .. }) => reason,
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("nothing to find"),
        };
        assert!(
            reason(&run).starts_with("no checkpoint there"),
            "not a run yet"
        );
        std::fs::write(run.join("config.toml"), "").unwrap();
        assert!(reason(&run).starts_with("a run with no checkpoints/latest"));
        std::fs::write(run.join("checkpoints/latest"), "gen-0099").unwrap();
        assert_eq!(
            reason(&run),
            "the run's checkpoints/latest is not a checkpoint pointer"
        );
        let pointer = r#"{"checkpoint":"gen-0099","generation":99}"#;
        std::fs::write(run.join("checkpoints/latest"), pointer).unwrap();
        assert_eq!(
            reason(&run),
            "the run's checkpoints/latest names gen-0099, which is not a whole checkpoint \
             (neither file is there)"
        );
        std::fs::write(run.join("checkpoints/gen-0099.json"), "{}").unwrap();
        assert!(reason(&run).ends_with(
            "(checkpoints/gen-0099.safetensors is missing beside checkpoints/gen-0099.json)"
        ));
        assert_eq!(
            reason(&run.join("checkpoints/gen-0099")),
            "gen-0099.safetensors is missing beside gen-0099.json"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
