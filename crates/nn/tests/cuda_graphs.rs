//! CUDA graphs: the shim that records them loads against this libtorch and has its
//! functions; asking for graphs changes nothing where there is no CUDA device; and where
//! there is one, recorded forward passes and learner steps give what unrecorded ones give.

mod common;

use std::path::PathBuf;
use std::sync::Once;

use zerosum_games::connect_four::ConnectFour;
use zerosum_nn::{
    Device, Family, LearnerConfig, Model, ModelConfig, TrainState, GRAPH_LIBRARY, GRAPH_LIBRARY_VAR,
};

use common::{batch, new_model, parameters, positions, seeded_torch};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether the libtorch the tests run on has a CUDA half (a PyPI wheel on Linux does).
fn libtorch_has_cuda() -> bool {
    repository()
        .join(".venv/torch/lib/libtorch_cuda.so")
        .exists()
}

/// Points this process at the shim scripts/setup.sh builds beside the binary: test
/// executables do not live beside it.
fn use_built_shim() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let shim = repository().join("target/release").join(GRAPH_LIBRARY);
        std::env::set_var(GRAPH_LIBRARY_VAR, shim);
    });
}

fn tower() -> ModelConfig {
    ModelConfig {
        family: Family::Resnet,
        channels: 8,
        blocks: 2,
        value_hidden: 8,
        ..ModelConfig::default()
    }
}

/// Two learners of `model` with the default settings: one as steps run, one asked to
/// record its steps as a CUDA graph.
fn twin_learners(model: Model) -> (TrainState, TrainState) {
    let config = LearnerConfig::default();
    let plain = TrainState::new(model.try_clone().unwrap(), &config, 0).unwrap();
    let graphed = TrainState::new(model, &config, 0)
        .unwrap()
        .with_cuda_graphs(true)
        .unwrap();
    (plain, graphed)
}

#[test]
fn the_shim_loads_against_this_libtorch_where_setup_built_it() {
    if !libtorch_has_cuda() {
        eprintln!("skipped: this libtorch has no CUDA, so no shim is built for it");
        return;
    }
    use_built_shim();
    let shim = repository().join("target/release").join(GRAPH_LIBRARY);
    assert!(
        shim.exists(),
        "{} is missing: scripts/setup.sh builds it",
        shim.display()
    );
    zerosum_nn::cuda_graphs_available().expect("the shim loads and has all its functions");
    assert!(!zerosum_nn::cuda_graphs_auto(Device::Cpu));
}

#[test]
fn asking_for_graphs_changes_nothing_on_the_cpu() {
    use_built_shim();
    let _torch = seeded_torch(3);
    let game = ConnectFour::new();
    let model = new_model(&game, &tower());
    let graphed = model
        .try_clone()
        .unwrap()
        .with_cuda_graphs(true)
        .expect("on the CPU graphs are ignored, never refused");
    assert!(!graphed.uses_cuda_graphs());
    let samples = batch(&positions(&game, 12, 5));
    let (mut logits, mut values) = (vec![0.0; 12 * 7], vec![0.0; 12]);
    let (mut logits2, mut values2) = (logits.clone(), values.clone());
    model.predict(&samples.obs, 12, &mut logits, &mut values);
    graphed.predict(&samples.obs, 12, &mut logits2, &mut values2);
    assert_eq!((logits, values), (logits2, values2));

    let (mut plain, mut asked) = twin_learners(model);
    for _ in 0..3 {
        assert_eq!(plain.train_step(&samples), asked.train_step(&samples));
    }
    assert_eq!(parameters(plain.model()), parameters(asked.model()));
}

/// Where a GPU is present: a recorded forward pass reads each new batch, at every size up
/// to a power of two, and gives the unrecorded pass's outputs; a recorded learner step
/// gives the unrecorded step's weights and losses.
#[test]
fn recorded_passes_and_steps_match_unrecorded_ones_on_a_gpu() {
    use_built_shim();
    if !zerosum_nn::cuda_available() || zerosum_nn::cuda_graphs_available().is_err() {
        eprintln!("skipped: no GPU, or no shim to record graphs with");
        return;
    }
    let _torch = seeded_torch(4);
    let game = ConnectFour::new();
    let model = Model::for_game(&game, &tower(), Device::Cuda(0)).unwrap();
    let graphed = model.try_clone().unwrap().with_cuda_graphs(true).unwrap();
    assert!(graphed.uses_cuda_graphs());
    for (size, seed) in [(1, 1), (3, 2), (8, 3), (3, 4), (100, 5)] {
        let samples = batch(&positions(&game, size, seed));
        let (mut logits, mut values) = (vec![0.0; size * 7], vec![0.0; size]);
        let (mut logits2, mut values2) = (vec![f32::NAN; size * 7], vec![f32::NAN; size]);
        model.predict(&samples.obs, size, &mut logits, &mut values);
        graphed.predict(&samples.obs, size, &mut logits2, &mut values2);
        let apart = logits
            .iter()
            .chain(&values)
            .zip(logits2.iter().chain(&values2))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(apart < 1e-4, "batch {size}: outputs {apart} apart");
    }

    let samples: Vec<_> = (0..4)
        .map(|seed| batch(&positions(&game, 64, 10 + seed)))
        .collect();
    let (mut plain, mut recorded) = twin_learners(model);
    for step in 0..8 {
        let a = plain.train_step(&samples[step % 4]);
        let b = recorded.train_step(&samples[step % 4]);
        assert!(
            (a.total - b.total).abs() < 1e-4,
            "step {step}: {a:?} against {b:?}"
        );
    }
    let drift = plain.model().weight_drift(recorded.model());
    assert!(drift < 1e-4, "weights {drift} apart after 8 steps");
}
