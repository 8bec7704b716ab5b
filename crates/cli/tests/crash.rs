//! Training that is killed: SIGKILL at random moments, resumed each time, loses and
//! doubles nothing and still learns; and a resumed run trains exactly as one that was
//! never stopped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn command(args: &[&str], dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_zerosum"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the binary to its end and insists that it succeeded; returns its standard output.
fn succeed(args: &[&str], dir: &Path) -> String {
    let output: Output = command(args, dir).output().expect("the binary starts");
    assert!(
        output.status.success(),
        "zerosum {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zerosum-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The value of `key` in table `table` ("" for the top) of a resolved config.toml.
fn setting(config: &str, table: &str, key: &str) -> u64 {
    let mut current = "";
    for line in config.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name;
        } else if let Some((k, v)) = line.split_once('=') {
            if current == table && k.trim() == key {
                return v.trim().parse().unwrap();
            }
        }
    }
    panic!("no {table}.{key} in the config");
}

#[test]
fn a_resumed_run_trains_exactly_as_one_never_stopped() {
    let dir = scratch("exact");
    let quick = [
        "--set",
        "self_play.games_per_generation=32",
        "--set",
        "arena.every=0",
    ];
    let train = |run: &str, generations: &str, resume: bool| {
        let generations = format!("generations={generations}");
        let mut args = vec!["train", "--run", run, "--set", &generations];
        if resume {
            args.push("--resume");
        } else {
            args.extend(["--game", "tictactoe"]);
        }
        args.extend(quick);
        succeed(&args, &dir);
    };
    train("straight", "3", false);
    train("resumed", "2", false);
    train("resumed", "3", true);
    for file in [
        "games/gen-0003/0000.jsonl",
        "checkpoints/gen-0003.safetensors",
        "checkpoints/gen-0003.optimizer.safetensors",
    ] {
        let straight = std::fs::read(dir.join("straight").join(file)).unwrap();
        let resumed = std::fs::read(dir.join("resumed").join(file)).unwrap();
        assert!(
            straight == resumed,
            "{file} differs between the run never stopped and the resumed one"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Starts training (resuming when the run exists) and kills it with SIGKILL after `wait`,
/// unless it ends first; returns whether it ran to its end.
fn train_until_killed(dir: &Path, wait: Duration) -> bool {
    let resume = dir.join("run/run.json").exists();
    let args: &[&str] = if resume {
        &["train", "--run", "run", "--resume"]
    } else {
        // The default tic-tac-toe recipe, longer, so that twelve kills fit in it.
        &[
            "train",
            "--game",
            "tictactoe",
            "--run",
            "run",
            "--set",
            "generations=40",
        ]
    };
    let mut child: Child = command(args, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "training failed after a kill");
            return true;
        }
        // A run is killed only once it exists, so that the next start resumes it.
        if start.elapsed() >= wait && dir.join("run/run.json").exists() {
            child.kill().unwrap();
            child.wait().unwrap();
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The objects in `folder`. The store writes an object to a staging file (`NAME#N`) and
/// links it into place; a kill between the two leaves the staging file, which no reader of
/// the store lists and the next write of the object replaces by a new one.
fn objects(folder: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().contains('#'))
        .collect()
}

#[test]
fn training_killed_at_random_moments_loses_and_doubles_nothing() {
    let dir = scratch("kills");
    let mut rng = SmallRng::seed_from_u64(20261124);
    let mut kills = 0;
    let mut finished = false;
    while kills < 12 && !finished {
        let wait = Duration::from_millis(rng.random_range(300..2500));
        finished = train_until_killed(&dir, wait);
        kills += usize::from(!finished);
    }
    if !finished {
        succeed(&["train", "--run", "run", "--resume"], &dir);
    }
    assert_eq!(kills, 12, "the run ended before it was killed 12 times");
    let run = dir.join("run");
    let config = std::fs::read_to_string(run.join("config.toml")).unwrap();
    let generations = setting(&config, "", "generations");
    let games = setting(&config, "self_play", "games_per_generation");

    // Every generation holds exactly its games, each whole.
    for generation in 1..=generations {
        let folder = run.join(format!("games/gen-{generation:04}"));
        let mut count = 0;
        for path in objects(&folder) {
            let text = std::fs::read_to_string(path).unwrap();
            for line in text.lines() {
                serde_json::from_str::<serde_json::Value>(line).unwrap();
                count += 1;
            }
        }
        assert_eq!(count, games, "generation {generation}: {count} games");
    }

    // Every event once: one line each, naming its generation and kind, and each
    // generation's learning after the one before it.
    let mut learned_to = BTreeMap::new();
    let mut closed = Vec::new();
    for path in objects(&run.join("metrics")) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.trim_end().lines().count(), 1, "{name}: {text}");
        let event: serde_json::Value = serde_json::from_str(&text).unwrap();
        let Some(rest) = name.strip_prefix("gen-") else {
            continue;
        };
        let generation: u64 = rest[..4].parse().unwrap();
        let kind = event["event"].as_str().unwrap();
        assert!(name.ends_with(kind), "{name}: {text}");
        assert_eq!(event["generation"].as_u64(), Some(generation), "{name}");
        match kind {
            "learn" => {
                learned_to.insert(generation, event["step"].as_u64().unwrap());
            }
            "generation" => closed.push(generation),
            _ => {}
        }
    }
    assert_eq!(learned_to.len() as u64, generations);
    // Every generation closed, the last included, even where a kill came between its
    // checkpoint and its event: the resumed run finishes it first. And the last is published.
    closed.sort();
    assert_eq!(closed, (1..=generations).collect::<Vec<_>>());
    let latest = std::fs::read_to_string(run.join("checkpoints/latest")).unwrap();
    let latest: serde_json::Value = serde_json::from_str(&latest).unwrap();
    assert_eq!(latest["generation"].as_u64(), Some(generations));
    let steps: Vec<u64> = learned_to.values().copied().collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{learned_to:?}");

    // Every checkpoint left loads and plays.
    let mut checkpoints = 0;
    for path in objects(&run.join("checkpoints")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(base) = name.strip_suffix(".json") {
            let spec = format!("checkpoint:run/checkpoints/{base}.safetensors");
            succeed(
                &[
                    "arena",
                    &spec,
                    "random",
                    "--game",
                    "tictactoe",
                    "--games",
                    "2",
                ],
                &dir,
            );
            checkpoints += 1;
        }
    }
    assert!(checkpoints >= 2, "{checkpoints} checkpoints");

    // And it learned: no loss to a perfect player.
    let report = succeed(
        &[
            "arena",
            "checkpoint:run/checkpoints/latest",
            "perfect",
            "--game",
            "tictactoe",
            "--games",
            "40",
        ],
        &dir,
    );
    assert!(report.contains(" -0 "), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}
