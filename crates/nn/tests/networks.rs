//! The network families: output shapes, weight names, what the search sees of a network's
//! policy, checkpoints and dropout.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_nn::{
    Batch, Device, Family, LearnerConfig, Model, ModelConfig, NetEvaluator, TrainState,
};
use zerosum_search::{search_one, EvalCache, SearchConfig, Tree};

use common::{
    batch, flat, new_model, observations, outputs, policy_bias_name, positions, seeded_torch,
    tiny_config, FAMILIES,
};

/// Runs every family on `game` and checks the output shapes, in both modes.
fn check_output_shapes<G: Game>(game: &G, reply_head: bool) {
    let batch = batch(&positions(game, 5, 1));
    let actions = game.num_actions() as i64;
    for family in FAMILIES {
        let config = ModelConfig {
            reply_head,
            ..tiny_config(family)
        };
        let model = new_model(game, &config);
        let _guard = tch::no_grad_guard();
        for train in [false, true] {
            let out = model.forward_t(&observations(&batch), train);
            let context = format!("{family:?} on {} (train: {train})", game.name());
            assert_eq!(out.policy.size(), [5, actions], "policy of {context}");
            assert_eq!(out.value.size(), [5], "value of {context}");
            assert_eq!(
                out.reply.as_ref().map(|reply| reply.size()),
                reply_head.then(|| vec![5, actions]),
                "reply of {context}"
            );
            let values = flat(&[out.value]);
            assert!(
                values.iter().all(|v| v.abs() <= 1.0),
                "values of {context} out of [-1, 1]: {values:?}"
            );
        }
    }
}

#[test]
fn every_family_gives_a_logit_per_action_and_a_value_per_position() {
    let _torch = seeded_torch(1);
    check_output_shapes(&TicTacToe::new(), false);
    // 6x7: a board that is not square catches height and width mixed up.
    check_output_shapes(&ConnectFour::new(), false);
}

#[test]
fn the_reply_head_gives_a_logit_per_action() {
    let _torch = seeded_torch(1);
    check_output_shapes(&ConnectFour::new(), true);
}

/// The weight names of a bias-free convolution at `conv` followed by batch norm at `bn`.
fn conv_bn_names(conv: &str, bn: &str) -> Vec<String> {
    let mut names = vec![format!("{conv}.weight")];
    names.extend(["weight", "bias", "running_mean", "running_var"].map(|n| format!("{bn}.{n}")));
    names
}

fn linear_names(name: &str) -> Vec<String> {
    vec![format!("{name}.weight"), format!("{name}.bias")]
}

/// The names a tower with `blocks` blocks of `block_layers` (conv, batch norm) pairs and the
/// shared heads must have: the ones the PyTorch modules in docs/run-directory.md load.
fn tower_names(block_layers: &[(&str, &str)], blocks: usize, reply_head: bool) -> BTreeSet<String> {
    let mut names = conv_bn_names("trunk.stem", "trunk.stem_bn");
    for block in 0..blocks {
        for (conv, bn) in block_layers {
            let prefix = format!("trunk.blocks.{block}");
            names.extend(conv_bn_names(
                &format!("{prefix}.{conv}"),
                &format!("{prefix}.{bn}"),
            ));
        }
    }
    let logit_heads: &[&str] = if reply_head {
        &["policy", "reply"]
    } else {
        &["policy"]
    };
    for head in logit_heads {
        names.extend(conv_bn_names(
            &format!("heads.{head}_conv"),
            &format!("heads.{head}_bn"),
        ));
        names.extend(linear_names(&format!("heads.{head}_fc")));
    }
    names.extend(conv_bn_names("heads.value_conv", "heads.value_bn"));
    names.extend(linear_names("heads.value_fc1"));
    names.extend(linear_names("heads.value_fc2"));
    names.into_iter().collect()
}

fn weight_names(family: Family, reply_head: bool) -> BTreeSet<String> {
    let config = ModelConfig {
        blocks: 2,
        reply_head,
        ..tiny_config(family)
    };
    let model = new_model(&TicTacToe::new(), &config);
    model.var_store().variables().into_keys().collect()
}

#[test]
fn conv_weights_have_stable_dotted_names() {
    let _torch = seeded_torch(2);
    for reply_head in [false, true] {
        assert_eq!(
            weight_names(Family::Conv, reply_head),
            tower_names(&[("conv", "bn")], 2, reply_head)
        );
    }
}

#[test]
fn resnet_weights_keep_their_names() {
    let _torch = seeded_torch(2);
    for reply_head in [false, true] {
        assert_eq!(
            weight_names(Family::Resnet, reply_head),
            tower_names(&[("conv1", "bn1"), ("conv2", "bn2")], 2, reply_head)
        );
    }
}

/// Whether every position of `batch` gets the same outputs (up to float rounding, which
/// differs by row in a batched matrix product) once the convolutions of the model's one
/// block are zeroed: with nothing passed around the block, nothing of the input reaches the
/// heads.
fn blind_with_zeroed_block(family: Family, block_convs: &[&str], batch: &Batch) -> bool {
    let game = TicTacToe::new();
    let model = new_model(&game, &tiny_config(family));
    let variables = model.var_store().variables();
    {
        let _guard = tch::no_grad_guard();
        for conv in block_convs {
            let mut weight = variables[&format!("trunk.blocks.0.{conv}.weight")].shallow_clone();
            let _ = weight.zero_();
        }
    }
    let (policy, values) = outputs(&model, batch, false);
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
    let rows: Vec<&[f32]> = policy.chunks(game.num_actions()).collect();
    rows.iter().all(|row| same(row, rows[0])) && same(&values, &vec![values[0]; values.len()])
}

#[test]
fn conv_blocks_have_no_skip_connection() {
    let _torch = seeded_torch(3);
    let batch = batch(&positions(&TicTacToe::new(), 6, 3));
    assert!(blind_with_zeroed_block(Family::Conv, &["conv"], &batch));
    // The control: resnet's skip connection carries the stem's features past the block.
    assert!(!blind_with_zeroed_block(
        Family::Resnet,
        &["conv1", "conv2"],
        &batch
    ));
}

/// Softmax of `logits` over the `legal` actions, zero elsewhere.
fn softmax_over(logits: &[f32], legal: &[bool]) -> Vec<f64> {
    let exps: Vec<f64> = logits
        .iter()
        .zip(legal)
        .map(|(&l, &ok)| if ok { (l as f64).exp() } else { 0.0 })
        .collect();
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}

#[test]
fn search_priors_from_the_network_are_zero_on_illegal_moves_and_sum_to_one() {
    let _torch = seeded_torch(4);
    let game = TicTacToe::new();
    let mut position = game;
    for mv in ["b2", "a1", "c3"] {
        position.play_notation(mv).unwrap();
    }
    let legal = position.legal_mask();
    let mut obs = vec![0.0; position.obs_len()];
    position.observe(&mut obs);
    for family in FAMILIES {
        let model = new_model(&game, &tiny_config(family));
        // Illegal moves get by far the biggest logits: unmasked, they would take the priors.
        let variables = model.var_store().variables();
        let mut bias = variables[policy_bias_name(family)].shallow_clone();
        let boost: Vec<f32> = legal
            .iter()
            .map(|&ok| if ok { 0.0 } else { 20.0 })
            .collect();
        tch::no_grad(|| {
            let _ = bias.g_add_(&tch::Tensor::from_slice(&boost));
        });
        let (mut logits, mut value) = (vec![0.0; game.num_actions()], [0.0]);
        model.predict(&obs, 1, &mut logits, &mut value);
        let expected = softmax_over(&logits, &legal);

        let mut evaluator = NetEvaluator::new(model, &game);
        let mut tree = Tree::new(position);
        let mut rng = SmallRng::seed_from_u64(4);
        let config = SearchConfig::default();
        search_one(
            &mut tree,
            &mut evaluator,
            &config,
            1,
            &mut EvalCache::new(0),
            &mut rng,
        );
        assert_eq!(
            evaluator.positions, 1,
            "{family:?}: the root went to the network"
        );

        let mut priors = vec![0.0f32; game.num_actions()];
        for child in tree.root().children() {
            priors[tree.node(child).action] = tree.node(child).prior;
        }
        for (action, (&prior, &want)) in priors.iter().zip(&expected).enumerate() {
            assert!(
                (prior as f64 - want).abs() < 1e-5,
                "{family:?}: prior of {} is {prior}, want {want}",
                game.format_action(action)
            );
            if !legal[action] {
                assert_eq!(prior, 0.0, "{family:?}: illegal {action} has a prior");
            }
        }
        let total: f32 = priors.iter().sum();
        assert!(
            (total - 1.0).abs() < 1e-5,
            "{family:?}: priors sum to {total}"
        );
    }
}

#[test]
fn save_then_load_gives_bit_identical_outputs() {
    let _torch = seeded_torch(5);
    let game = ConnectFour::new();
    let batch = batch(&positions(&game, 6, 5));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("zerosum-nn-save-load");
    std::fs::create_dir_all(&dir).unwrap();
    for family in FAMILIES {
        let config = ModelConfig {
            reply_head: true,
            ..tiny_config(family)
        };
        // A few steps, so that the weights and batch norm's running statistics are no longer
        // where a fresh model starts: a load that skipped either would show.
        let mut learner = TrainState::new(new_model(&game, &config), &LearnerConfig::default(), 0)
            .expect("an optimizer");
        for _ in 0..3 {
            learner.train_step(&batch);
        }
        learner.model_mut().set_progress(3, 1);
        let base = dir.join(family.name());
        learner.model().save(&base).unwrap();

        let loaded = Model::load(&base, &game, Device::Cpu).unwrap();
        assert_eq!(loaded.meta(), learner.model().meta(), "{family:?}");
        let saved_outputs = outputs(learner.model(), &batch, false);
        assert_eq!(outputs(&loaded, &batch, false), saved_outputs, "{family:?}");
        let fresh = new_model(&game, &config);
        assert_ne!(
            outputs(&fresh, &batch, false),
            saved_outputs,
            "{family:?}: the trained model should differ from a fresh one"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A checkpoint as bytes (what a run store keeps) comes back as the same model; bytes that
/// are cut short, name no weight the model has or hold a NaN are refused with a one-line
/// error.
#[test]
fn checkpoint_bytes_round_trip_and_bad_bytes_are_refused() {
    let _torch = seeded_torch(9);
    let game = ConnectFour::new();
    let batch = batch(&positions(&game, 6, 9));
    let origin = std::path::Path::new("memory");
    for family in FAMILIES {
        let model = new_model(&game, &tiny_config(family));
        let bytes = model.to_bytes().unwrap();
        let back = Model::from_bytes(&bytes, &game, Device::Cpu, origin).unwrap();
        assert_eq!(
            outputs(&back, &batch, false),
            outputs(&model, &batch, false)
        );
        assert_eq!(
            back.to_bytes().unwrap(),
            bytes,
            "{family:?}: bytes are stable"
        );
        let cut = zerosum_nn::CheckpointBytes {
            weights: bytes.weights[..bytes.weights.len() / 2].to_vec(),
            ..bytes.clone()
        };
        let other_family = if family == Family::Mlp {
            Family::Resnet
        } else {
            Family::Mlp
        };
        let foreign = zerosum_nn::CheckpointBytes {
            weights: new_model(&game, &tiny_config(other_family))
                .to_bytes()
                .unwrap()
                .weights,
            ..bytes.clone()
        };
        // Not safetensors at all.
        let garbage = zerosum_nn::CheckpointBytes {
            weights: vec![0xff; bytes.weights.len()],
            ..bytes.clone()
        };
        // The last weight of the file, NaN.
        let mut diverged = bytes.clone();
        let end = diverged.weights.len();
        diverged.weights[end - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
        for (bad, why) in [
            (cut, "weights"),
            (foreign, "no weight named"),
            (garbage, "its weights are not a readable safetensors file"),
            (diverged, "NaN or infinite"),
        ] {
            let Err(err) = Model::from_bytes(&bad, &game, Device::Cpu, origin) else {
                panic!("{family:?}: bad bytes were accepted")
            };
            let err = err.to_string();
            assert!(
                err.starts_with("corrupt checkpoint memory") && !err.contains('\n'),
                "{err}"
            );
            assert!(err.contains(why), "{err}");
        }
    }
}

/// Checkpoints written before the weights went through bytes (libtorch's own safetensors
/// writer) still load.
#[test]
fn checkpoints_written_by_libtorch_still_load() {
    let _torch = seeded_torch(10);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 4, 10));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("zerosum-nn-libtorch-writer");
    std::fs::create_dir_all(&dir).unwrap();
    let model = new_model(&game, &tiny_config(Family::Resnet));
    let base = dir.join("old");
    model
        .var_store()
        .save(zerosum_nn::with_extension(&base, "safetensors"))
        .unwrap();
    std::fs::write(
        zerosum_nn::with_extension(&base, "json"),
        serde_json::to_string(model.meta()).unwrap(),
    )
    .unwrap();
    let loaded = Model::load(&base, &game, Device::Cpu).unwrap();
    assert_eq!(
        outputs(&loaded, &batch, false),
        outputs(&model, &batch, false)
    );
}

#[test]
fn dropout_is_active_in_training_only() {
    let _torch = seeded_torch(6);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 6));
    for family in FAMILIES {
        let dropped = new_model(
            &game,
            &ModelConfig {
                dropout: 0.5,
                ..tiny_config(family)
            },
        );
        assert_ne!(
            outputs(&dropped, &batch, true),
            outputs(&dropped, &batch, true),
            "{family:?}: each training pass should draw its own dropout mask"
        );
        assert_eq!(
            outputs(&dropped, &batch, false),
            outputs(&dropped, &batch, false),
            "{family:?}: evaluation should not drop anything"
        );
        // The control: without dropout, training passes agree, so the difference above is
        // dropout's and not batch norm's.
        let plain = new_model(&game, &tiny_config(family));
        assert_eq!(
            outputs(&plain, &batch, true),
            outputs(&plain, &batch, true),
            "{family:?}"
        );
    }
}

/// The bound a checkpoint is held to before its network is built never exceeds the
/// network, and a sidecar that declares a network larger than its weights is refused.
#[test]
fn min_weights_is_a_lower_bound_and_oversized_declarations_are_refused() {
    let _torch = seeded_torch(21);
    let game = ConnectFour::new();
    for family in FAMILIES {
        for (hidden, layers, channels, blocks) in [(8, 1, 4, 1), (32, 3, 16, 3)] {
            let config = ModelConfig {
                hidden,
                layers,
                channels,
                blocks,
                ..tiny_config(family)
            };
            let model = new_model(&game, &config);
            let weights: u128 = model
                .var_store()
                .variables()
                .values()
                .map(|t| t.numel() as u128)
                .sum();
            let bound = config.min_weights(game.obs_shape(), game.num_actions());
            assert!(bound <= weights, "{family:?}: {bound} > {weights}");
            assert!(bound > 0);
        }
    }
    // A network within the config's limits but far larger than its file, and one past them.
    let model = new_model(&game, &tiny_config(Family::Resnet));
    for (channels, refusal) in [
        (4096u64, "declares at least"),
        (1_000_000_000, "model.channels must be at most 4096"),
    ] {
        let mut bytes = model.to_bytes().unwrap();
        let mut meta: serde_json::Value = serde_json::from_slice(&bytes.meta).unwrap();
        meta["model"]["channels"] = serde_json::json!(channels);
        meta["model"]["blocks"] = serde_json::json!(64);
        bytes.meta = serde_json::to_vec(&meta).unwrap();
        let error = Model::from_bytes(&bytes, &game, Device::Cpu, &PathBuf::from("huge"))
            .err()
            .expect("refused")
            .to_string();
        assert!(error.contains(refusal), "{error}");
    }
}
