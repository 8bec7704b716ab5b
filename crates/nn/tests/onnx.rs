//! The ONNX file of each network family, run by onnxruntime (from PyPI, in the project's
//! .venv, which scripts/setup.sh installs), gives zerosum's policy logits and values within
//! 1e-4 on real positions.

use std::path::{Path, PathBuf};
use std::process::Command;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tch::{Device, Tensor};
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_nn::{onnx_bytes, Family, Model, ModelConfig};

/// Runs the model at `dir/model.onnx` on `dir/obs.bin` with onnxruntime and prints the
/// largest difference from `dir/policy.bin` and `dir/value.bin`, then the game the
/// metadata names.
const CHECK: &str = r#"
import sys
import numpy as np
import onnxruntime as ort
folder, shape = sys.argv[1], [int(n) for n in sys.argv[2].split(",")]
obs = np.fromfile(folder + "/obs.bin", dtype="<f4").reshape(shape)
session = ort.InferenceSession(folder + "/model.onnx", providers=["CPUExecutionProvider"])
policy, value = session.run(["policy", "value"], {"observation": obs})
want_policy = np.fromfile(folder + "/policy.bin", dtype="<f4").reshape(policy.shape)
want_value = np.fromfile(folder + "/value.bin", dtype="<f4").reshape(value.shape)
print(max(abs(policy - want_policy).max(), abs(value - want_value).max()))
print(session.get_modelmeta().custom_metadata_map["game"])
"#;

fn python() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python")
}

/// Observations of `count` positions reached by random play.
fn observations<G: Game>(initial: &G, count: usize, rng: &mut SmallRng) -> Vec<f32> {
    let mut all = Vec::new();
    for _ in 0..count {
        let mut position = initial.clone();
        for _ in 0..rng.random_range(0..6) {
            let legal = position.legal_action_vec();
            if position.is_terminal() || legal.is_empty() {
                break;
            }
            position.apply(legal[rng.random_range(0..legal.len())]);
        }
        let mut obs = vec![0.0; position.obs_len()];
        position.observe(&mut obs);
        all.extend(obs);
    }
    all
}

/// Every weight and batch-norm statistic drawn at random, so that no part of the graph
/// (a running variance left at 1, a bias left at 0) goes untested.
fn scramble(model: &Model, seed: i64) {
    tch::manual_seed(seed);
    let _guard = tch::no_grad_guard();
    for (name, mut tensor) in model.var_store().variables() {
        let noise = Tensor::randn_like(&tensor) * 0.3;
        let value = if name.ends_with("running_var") {
            noise.abs() + 0.5
        } else {
            noise
        };
        tensor.copy_(&value);
    }
}

fn write_f32(path: &Path, values: &[f32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

fn check<G: Game>(initial: &G, family: Family, dir: &Path) {
    let config = ModelConfig {
        family,
        hidden: 24,
        layers: 2,
        channels: 8,
        blocks: 2,
        value_hidden: 8,
        ..Default::default()
    };
    let model = Model::for_game(initial, &config, Device::Cpu).unwrap();
    scramble(&model, 7);
    let batch = 5;
    let obs = observations(initial, batch, &mut SmallRng::seed_from_u64(3));
    let mut logits = vec![0.0; batch * initial.num_actions()];
    let mut values = vec![0.0; batch];
    model.predict(&obs, batch, &mut logits, &mut values);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("model.onnx"), onnx_bytes(&model).unwrap()).unwrap();
    write_f32(&dir.join("obs.bin"), &obs);
    write_f32(&dir.join("policy.bin"), &logits);
    write_f32(&dir.join("value.bin"), &values);
    let [planes, height, width] = initial.obs_shape();
    let shape = format!("{batch},{planes},{height},{width}");
    let output = Command::new(python())
        .args(["-c", CHECK, dir.to_str().unwrap(), &shape])
        .output()
        .expect("the project's .venv has Python (scripts/setup.sh)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "onnxruntime failed on {family:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines = stdout.lines();
    let difference: f64 = lines.next().unwrap().parse().unwrap();
    assert!(
        difference < 1e-4,
        "{} {family:?}: onnxruntime differs by {difference}",
        initial.name()
    );
    assert_eq!(lines.next(), Some(initial.name().as_str()));
}

#[test]
fn every_family_runs_in_onnxruntime_as_in_zerosum() {
    let dir = std::env::temp_dir().join(format!("zerosum-onnx-{}", std::process::id()));
    for family in [Family::Mlp, Family::Conv, Family::Resnet] {
        let name = format!("{family:?}");
        check(&TicTacToe::new(), family, &dir.join(format!("ttt-{name}")));
        check(&ConnectFour::new(), family, &dir.join(format!("c4-{name}")));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
