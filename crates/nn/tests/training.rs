//! The learner: its policy losses, legal-move masking in the loss, SGD with momentum and the
//! learning-rate schedule.

mod common;

use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_nn::{Batch, Family, LearnerConfig, Losses, OptimizerKind, PolicyLoss, TrainState};

use common::{
    batch, combination, flat, gradients, new_model, outputs, parameters, policy_bias_name,
    positions, relative_distance, seeded_torch, tiny_config, FAMILIES,
};

/// The mean cross-entropy of the softmax of `logits` over each row's legal actions against
/// the batch's targets, and the targets' mean entropy, both computed by hand in f64.
fn hand_policy_losses(logits: &[f32], batch: &Batch) -> (f64, f64) {
    let actions = batch.mask.len() / batch.size;
    let (mut cross_entropy, mut entropy) = (0.0, 0.0);
    let rows = logits
        .chunks(actions)
        .zip(batch.mask.chunks(actions))
        .zip(batch.policy.chunks(actions));
    for ((row, mask), target) in rows {
        let legal: Vec<usize> = (0..actions).filter(|&a| mask[a] > 0.0).collect();
        let log_total = legal
            .iter()
            .map(|&a| (row[a] as f64).exp())
            .sum::<f64>()
            .ln();
        for &a in &legal {
            let t = target[a] as f64;
            if t > 0.0 {
                cross_entropy -= t * (row[a] as f64 - log_total);
                entropy -= t * t.ln();
            }
        }
    }
    let size = batch.size as f64;
    (cross_entropy / size, entropy / size)
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-5,
        "{what}: {actual} but by hand {expected}"
    );
}

fn with_policy_loss(policy_loss: PolicyLoss) -> LearnerConfig {
    LearnerConfig {
        policy_loss,
        ..LearnerConfig::default()
    }
}

#[test]
fn policy_losses_match_a_hand_computation() {
    let _torch = seeded_torch(7);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 4, 7));
    let model = new_model(&game, &tiny_config(Family::Conv));
    // The training-mode pass a step makes (batch statistics, no dropout): the same logits.
    let (logits, _) = outputs(&model, &batch, true);
    let (cross_entropy, target_entropy) = hand_policy_losses(&logits, &batch);
    assert!(
        target_entropy > 0.5,
        "uneven targets keep the two losses apart"
    );

    let step_with = |loss| {
        let twin = model.try_clone().expect("a copy of the model");
        let mut learner = TrainState::new(twin, &with_policy_loss(loss), 0).expect("an optimizer");
        learner.train_step(&batch)
    };
    let ce = step_with(PolicyLoss::CrossEntropy);
    let kl = step_with(PolicyLoss::Kl);
    assert_close(ce.policy, cross_entropy, "cross-entropy");
    assert_close(ce.target_entropy, target_entropy, "target entropy");
    assert_close(kl.policy, cross_entropy - target_entropy, "KL");
    assert_close(
        ce.policy - kl.policy,
        kl.target_entropy,
        "cross-entropy minus KL",
    );
}

#[test]
fn kl_and_cross_entropy_take_the_same_step() {
    let _torch = seeded_torch(8);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 8));
    let model = new_model(&game, &tiny_config(Family::Resnet));
    // Plain SGD, whose step is proportional to the gradient (Adam's would hide a scale).
    let update_with = |policy_loss| {
        let twin = model.try_clone().expect("a copy of the model");
        let config = LearnerConfig {
            policy_loss,
            ..plain_sgd(0.1)
        };
        let mut learner = TrainState::new(twin, &config, 0).expect("an optimizer");
        step_and_measure(&mut learner, &batch).0
    };
    let cross_entropy_update = update_with(PolicyLoss::CrossEntropy);
    let kl_update = update_with(PolicyLoss::Kl);
    assert!(cross_entropy_update.iter().any(|&u| u != 0.0));
    // The target's entropy is a constant: subtracting it changes no gradient.
    let distance = relative_distance(&kl_update, &combination(&[(1.0, &cross_entropy_update)]));
    assert!(distance < 1e-6, "the steps differ by {distance:.1e}");
}

#[test]
fn each_policy_loss_decreases_on_a_fixed_batch() {
    let _torch = seeded_torch(9);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 8, 9));
    for policy_loss in [PolicyLoss::CrossEntropy, PolicyLoss::Kl] {
        let config = LearnerConfig {
            learning_rate: 1e-2,
            ..with_policy_loss(policy_loss)
        };
        let model = new_model(&game, &tiny_config(Family::Conv));
        let mut learner = TrainState::new(model, &config, 0).expect("an optimizer");
        let losses: Vec<Losses> = (0..30).map(|_| learner.train_step(&batch)).collect();
        // Cross-entropy cannot go below the targets' entropy, KL below 0.
        let floor = match policy_loss {
            PolicyLoss::CrossEntropy => losses[0].target_entropy,
            PolicyLoss::Kl => 0.0,
        };
        let (first, last) = (losses[0].policy - floor, losses[29].policy - floor);
        assert!(
            last < 0.5 * first,
            "{policy_loss:?}: {first} above its floor at the start, still {last} after 30 steps"
        );
        assert!(
            losses.iter().all(|l| l.policy - floor > -1e-5),
            "{policy_loss:?} went below its floor"
        );
    }
}

#[test]
fn illegal_actions_get_no_gradient_from_the_policy_loss() {
    let _torch = seeded_torch(10);
    let game = TicTacToe::new();
    let mut start = game;
    let centre = start.play_notation("b2").unwrap();
    // The centre is taken in every position, so its logit is masked in every row.
    let batch = batch(&positions(&start, 6, 10));
    let config = LearnerConfig {
        l2: 0.0,
        ..plain_sgd(0.1)
    };
    for family in FAMILIES {
        let mut learner = TrainState::new(new_model(&game, &tiny_config(family)), &config, 0)
            .expect("an optimizer");
        let variables = learner.model().var_store().variables();
        let bias = &variables[policy_bias_name(family)];
        let before = flat(std::slice::from_ref(bias));
        learner.train_step(&batch);
        let after = flat(std::slice::from_ref(bias));
        let gradient = flat(&[bias.grad()]);
        assert_eq!(gradient[centre], 0.0, "{family:?}: {gradient:?}");
        assert_eq!(after[centre], before[centre], "{family:?}");
        assert!(
            gradient
                .iter()
                .enumerate()
                .any(|(action, &g)| action != centre && g != 0.0),
            "{family:?}: the legal actions' logits should learn: {gradient:?}"
        );
    }
}

/// SGD without momentum at a constant `learning_rate`.
fn plain_sgd(learning_rate: f64) -> LearnerConfig {
    LearnerConfig {
        optimizer: OptimizerKind::Sgd,
        learning_rate,
        momentum: 0.0,
        ..LearnerConfig::default()
    }
}

/// One step, and what it did: how far each weight moved (before minus after) and the
/// gradient it was moved along.
fn step_and_measure(learner: &mut TrainState, batch: &Batch) -> (Vec<f32>, Vec<f32>) {
    let before = parameters(learner.model());
    learner.train_step(batch);
    let after = parameters(learner.model());
    let update = before.iter().zip(&after).map(|(b, a)| b - a).collect();
    (update, gradients(learner.model()))
}

/// Steps `learner` from step `first_step` on, checking that each step moves the weights by
/// the scheduled rate times the gradient.
fn check_rates(learner: &mut TrainState, batch: &Batch, first_step: u64, rates: &[f64]) {
    for (step, &rate) in (first_step..).zip(rates) {
        assert_eq!(learner.step(), step);
        let (update, gradient) = step_and_measure(learner, batch);
        let distance = relative_distance(&update, &combination(&[(rate, &gradient)]));
        assert!(
            distance < 1e-3,
            "step {step}: the update is not {rate} times the gradient (off by {distance:.1e})"
        );
    }
}

fn scheduled_sgd() -> LearnerConfig {
    LearnerConfig {
        lr_schedule: vec![(2, 0.05), (4, 0.01)],
        ..plain_sgd(0.1)
    }
}

#[test]
fn sgd_steps_follow_the_learning_rate_schedule() {
    let _torch = seeded_torch(11);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 11));
    let config = scheduled_sgd();
    let model = new_model(&game, &tiny_config(Family::Mlp));
    let mut learner = TrainState::new(model, &config, 0).expect("an optimizer");
    check_rates(&mut learner, &batch, 0, &[0.1, 0.1, 0.05, 0.05, 0.01, 0.01]);
}

#[test]
fn a_learner_resumed_mid_schedule_steps_at_the_rate_in_force() {
    let _torch = seeded_torch(12);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 12));
    let model = new_model(&game, &tiny_config(Family::Mlp));
    let mut learner = TrainState::new(model, &scheduled_sgd(), 3).expect("an optimizer");
    check_rates(&mut learner, &batch, 3, &[0.05, 0.01]);
}

#[test]
fn sgd_momentum_is_nesterov_and_changes_the_second_step() {
    let _torch = seeded_torch(13);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 13));
    let (rate, momentum) = (0.05, 0.9);
    let model = new_model(&game, &tiny_config(Family::Mlp));
    let twin = model.try_clone().expect("a copy of the model");
    let momentum_config = LearnerConfig {
        momentum,
        ..plain_sgd(rate)
    };
    let mut nesterov = TrainState::new(model, &momentum_config, 0).expect("an optimizer");
    let mut plain = TrainState::new(twin, &plain_sgd(rate), 0).expect("an optimizer");

    let (nesterov_update_1, gradient_1) = step_and_measure(&mut nesterov, &batch);
    let (plain_update_1, plain_gradient_1) = step_and_measure(&mut plain, &batch);
    let first_gradient = combination(&[(1.0, &gradient_1)]);
    assert!(
        relative_distance(&plain_gradient_1, &first_gradient) < 1e-6,
        "same weights, same batch: same gradient"
    );
    let nesterov_first = combination(&[(rate * (1.0 + momentum), &gradient_1)]);
    assert!(relative_distance(&nesterov_update_1, &nesterov_first) < 1e-3);
    let plain_step = combination(&[(rate, &gradient_1)]);
    assert!(relative_distance(&plain_update_1, &plain_step) < 1e-3);

    let (nesterov_update_2, gradient_2) = step_and_measure(&mut nesterov, &batch);
    // The momentum buffer is now momentum * g1 + g2, and Nesterov steps along
    // g2 + momentum * buffer.
    let nesterov_second = combination(&[
        (rate * (1.0 + momentum), &gradient_2),
        (rate * momentum * momentum, &gradient_1),
    ]);
    let distance = relative_distance(&nesterov_update_2, &nesterov_second);
    assert!(distance < 1e-3, "off Nesterov's step by {distance:.1e}");
    let plain_second = combination(&[(rate, &gradient_2)]);
    assert!(
        relative_distance(&nesterov_update_2, &plain_second) > 0.5,
        "momentum should move the second step away from plain SGD's"
    );
    let (plain_update_2, plain_gradient_2) = step_and_measure(&mut plain, &batch);
    let plain_expected = combination(&[(rate, &plain_gradient_2)]);
    assert!(relative_distance(&plain_update_2, &plain_expected) < 1e-3);
}

#[test]
fn adam_steps_as_pytorch_defines_it() {
    let _torch = seeded_torch(14);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 14));
    let config = LearnerConfig {
        optimizer: OptimizerKind::Adam,
        learning_rate: 0.01,
        ..LearnerConfig::default()
    };
    let mut learner = TrainState::new(new_model(&game, &tiny_config(Family::Mlp)), &config, 0)
        .expect("an optimizer");
    let (eps, b1, b2, lr) = (1e-8, 0.9, 0.999, 0.01);
    let (update_1, g1) = step_and_measure(&mut learner, &batch);
    let (update_2, g2) = step_and_measure(&mut learner, &batch);
    // By hand in f64: moments, bias corrections, and the step lr * m_hat / (sqrt(v_hat) + eps).
    let expected = |t: i32, m: &[f64], v: &[f64]| -> Vec<f64> {
        m.iter()
            .zip(v)
            .map(|(m, v)| {
                let m_hat = m / (1.0 - f64::powi(b1, t));
                let v_hat = v / (1.0 - f64::powi(b2, t));
                lr * m_hat / (v_hat.sqrt() + eps)
            })
            .collect()
    };
    let m1: Vec<f64> = g1.iter().map(|&g| (1.0 - b1) * g as f64).collect();
    let v1: Vec<f64> = g1
        .iter()
        .map(|&g| (1.0 - b2) * (g as f64).powi(2))
        .collect();
    assert!(relative_distance(&update_1, &expected(1, &m1, &v1)) < 1e-3);
    let m2: Vec<f64> = m1
        .iter()
        .zip(&g2)
        .map(|(m, &g)| b1 * m + (1.0 - b1) * g as f64)
        .collect();
    let v2: Vec<f64> = v1
        .iter()
        .zip(&g2)
        .map(|(v, &g)| b2 * v + (1.0 - b2) * (g as f64).powi(2))
        .collect();
    let distance = relative_distance(&update_2, &expected(2, &m2, &v2));
    assert!(distance < 1e-3, "off Adam's second step by {distance:.1e}");
}

/// A learner rebuilt from a checkpoint and its optimizer state takes the very step the
/// original would have; rebuilt from the checkpoint alone, it does not.
#[test]
fn optimizer_state_saved_and_restored_continues_the_same_steps() {
    let _torch = seeded_torch(15);
    let game = TicTacToe::new();
    let batch = batch(&positions(&game, 6, 15));
    for optimizer in [OptimizerKind::Adam, OptimizerKind::Sgd] {
        let config = LearnerConfig {
            optimizer,
            learning_rate: 0.01,
            ..LearnerConfig::default()
        };
        let mut original = TrainState::new(new_model(&game, &tiny_config(Family::Mlp)), &config, 0)
            .expect("an optimizer");
        for _ in 0..3 {
            original.train_step(&batch);
        }
        let weights = original.model().to_bytes().expect("weights");
        let state = original.optimizer_state().expect("state");
        let reload = || {
            let model = zerosum_nn::Model::from_bytes(
                &weights,
                &game,
                zerosum_nn::Device::Cpu,
                std::path::Path::new("memory"),
            )
            .expect("the checkpoint loads");
            TrainState::new(model, &config, 3).expect("an optimizer")
        };
        let mut resumed = reload();
        resumed.restore_optimizer(&state).expect("the state fits");
        let mut forgetful = reload();
        original.train_step(&batch);
        resumed.train_step(&batch);
        forgetful.train_step(&batch);
        let after = parameters(original.model());
        let same: Vec<f64> = after.iter().map(|&w| w as f64).collect();
        assert!(
            relative_distance(&parameters(resumed.model()), &same) < 1e-6,
            "{optimizer:?}: the resumed learner stepped elsewhere"
        );
        assert!(
            relative_distance(&parameters(forgetful.model()), &same) > 1e-5,
            "{optimizer:?}: without its state the step should differ"
        );
    }
    // State for another optimizer is refused.
    let sgd = LearnerConfig {
        optimizer: OptimizerKind::Sgd,
        ..LearnerConfig::default()
    };
    let adam = TrainState::new(
        new_model(&game, &tiny_config(Family::Mlp)),
        &LearnerConfig::default(),
        0,
    )
    .expect("an optimizer");
    let mut other = TrainState::new(new_model(&game, &tiny_config(Family::Mlp)), &sgd, 0)
        .expect("an optimizer");
    assert!(other
        .restore_optimizer(&adam.optimizer_state().unwrap())
        .is_err());
}
