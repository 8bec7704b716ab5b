//! The inference server: many threads' leaves in shared batches, each answer the one its
//! position gets alone, batches bounded by the configured maximum, and no thread left
//! waiting when others finish or the server goes.

mod common;

use std::sync::Barrier;

use zerosum_games::connect_four::ConnectFour;
use zerosum_games::Game;
use zerosum_nn::{Family, InferenceServer, Model, NetEvaluator, Precision};
use zerosum_search::Evaluator;

use common::{new_model, positions, seeded_torch, tiny_config};

fn evaluate<E: Evaluator<ConnectFour>>(
    evaluator: &mut E,
    positions: &[ConnectFour],
) -> (Vec<f32>, Vec<f32>) {
    let mut logits = vec![0.0; positions.len() * ConnectFour::new().num_actions()];
    let mut values = vec![0.0; positions.len()];
    evaluator.evaluate(positions, &mut logits, &mut values);
    (logits, values)
}

fn model() -> Model {
    new_model(&ConnectFour::new(), &tiny_config(Family::Resnet))
}

#[test]
fn every_thread_gets_the_answers_its_positions_get_alone() {
    let _torch = seeded_torch(11);
    let model = model();
    let mut alone = NetEvaluator::new(model.try_clone().unwrap(), &ConnectFour::new());
    let server = InferenceServer::start(model, 48).unwrap();
    let threads = 8;
    let start = Barrier::new(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let mut evaluator = server.evaluator::<ConnectFour>();
                let start = &start;
                scope.spawn(move || {
                    start.wait();
                    (0..20)
                        .map(|round| {
                            let batch = positions(
                                &ConnectFour::new(),
                                1 + (t + round) % 9,
                                (t * 100 + round) as u64,
                            );
                            let answer = evaluate(&mut evaluator, &batch);
                            (batch, answer)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            for (batch, (logits, values)) in handle.join().unwrap() {
                let actions = ConnectFour::new().num_actions();
                for (i, position) in batch.iter().enumerate() {
                    let (one_logits, one_value) =
                        evaluate(&mut alone, std::slice::from_ref(position));
                    let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * (1.0 + b.abs());
                    assert!(
                        close(values[i], one_value[0]),
                        "{} vs {}",
                        values[i],
                        one_value[0]
                    );
                    for (a, b) in logits[i * actions..(i + 1) * actions]
                        .iter()
                        .zip(&one_logits)
                    {
                        assert!(close(*a, *b), "{a} vs {b}");
                    }
                }
            }
        }
    });
    let counters = server.counters();
    let asked: u64 = (0..threads)
        .flat_map(|t| (0..20).map(move |r| 1 + (t + r) % 9))
        .sum::<usize>() as u64;
    assert_eq!(counters.positions, asked);
    // Eight threads waiting at once share forward passes.
    assert!(counters.calls < 8 * 20, "{counters:?}");
}

#[test]
fn batches_stay_within_the_maximum_and_a_larger_request_runs_alone() {
    let _torch = seeded_torch(12);
    let server = InferenceServer::start(model(), 16).unwrap();
    std::thread::scope(|scope| {
        for t in 0..6 {
            let mut evaluator = server.evaluator::<ConnectFour>();
            scope.spawn(move || {
                for round in 0..30 {
                    evaluate(
                        &mut evaluator,
                        &positions(&ConnectFour::new(), 5, (t * 50 + round) as u64),
                    );
                }
            });
        }
    });
    let counters = server.counters();
    assert_eq!(counters.positions, 6 * 30 * 5);
    // Requests of 5 fit three to a batch of 16: never more than 15 positions a pass.
    assert!(counters.calls >= 6 * 30 / 3, "{counters:?}");
    let mut evaluator = server.evaluator::<ConnectFour>();
    let (logits, values) = evaluate(&mut evaluator, &positions(&ConnectFour::new(), 40, 3));
    assert_eq!((logits.len(), values.len()), (40 * 7, 40));
    assert_eq!(server.counters().calls, counters.calls + 1);
}

#[test]
fn threads_that_finish_early_leave_the_others_served() {
    let _torch = seeded_torch(13);
    let server = InferenceServer::start(model(), 64).unwrap();
    std::thread::scope(|scope| {
        for t in 0..6usize {
            let mut evaluator = server.evaluator::<ConnectFour>();
            // Thread t stops after 5 * t calls, and drops its evaluator with it.
            scope.spawn(move || {
                for round in 0..5 * t {
                    evaluate(
                        &mut evaluator,
                        &positions(&ConnectFour::new(), 3, round as u64),
                    );
                }
            });
        }
    });
    assert_eq!(server.counters().positions, 3 * 5 * (0..6).sum::<u64>());
    drop(server);
}

#[test]
fn a_half_precision_copy_stays_close_to_fp32() {
    let _torch = seeded_torch(14);
    let model = model();
    let half = model.try_clone().unwrap().for_inference(Precision::Bf16);
    assert_eq!(half.precision(), Precision::Bf16);
    assert_eq!(model.precision(), Precision::Fp32);
    let batch = positions(&ConnectFour::new(), 64, 5);
    let (logits, values) = evaluate(&mut NetEvaluator::new(model, &ConnectFour::new()), &batch);
    let (half_logits, half_values) =
        evaluate(&mut NetEvaluator::new(half, &ConnectFour::new()), &batch);
    let worst = |a: &[f32], b: &[f32]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    };
    assert!(
        worst(&values, &half_values) < 0.05,
        "{}",
        worst(&values, &half_values)
    );
    assert!(
        worst(&logits, &half_logits) < 0.1,
        "{}",
        worst(&logits, &half_logits)
    );
    assert!(half_values.iter().all(|v| v.is_finite() && v.abs() <= 1.0));
}
