//! `report`, `ladder`, `replay` and `doctor` on small real tic-tac-toe runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs the binary in `dir` with stdin closed (as from a pipe or CI).
fn zerosum(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the binary starts")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zerosum-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn succeed(args: &[&str], dir: &Path) -> String {
    let output = zerosum(args, dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?} failed: {stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The run's ladder events: one object each in run/metrics/, in name order.
fn ladder_lines(dir: &Path) -> Vec<serde_json::Value> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join("run/metrics"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .map(|l| serde_json::from_str::<serde_json::Value>(&l).unwrap())
        .filter(|v| v["event"] == "ladder")
        .collect()
}

#[test]
fn report_ladder_and_replay_on_a_tiny_run() {
    let dir = scratch("report");
    succeed(
        &[
            "train",
            "--game",
            "tictactoe",
            "--run",
            "run",
            "--set",
            "generations=2",
            "--set",
            "self_play.games_per_generation=16",
            "--set",
            "arena.every=1",
            "--set",
            "arena.games=4",
        ],
        &dir,
    );

    // The report: eight plots as PNG and SVG, and a page that needs nothing else.
    let stdout = succeed(&["report", "run"], &dir);
    assert!(stdout.contains("index.html"), "{stdout}");
    let report = dir.join("run/report");
    for name in [
        "losses",
        "entropy",
        "win_rates",
        "elo",
        "speed",
        "game_lengths",
        "replay_window",
        "memory",
    ] {
        let png = std::fs::read(report.join(format!("{name}.png"))).unwrap();
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 5_000,
            "{name}.png"
        );
        let svg = std::fs::read_to_string(report.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.len() > 5_000, "{name}.svg");
        assert!(!svg.contains("no data yet"), "{name}.svg has no data");
    }
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "external references"
    );
    assert!(!page.contains(" src="), "the page loads nothing");
    assert_eq!(page.matches("<svg").count(), 8);
    assert!(page.contains("game tictactoe · generation 2"));
    assert!(page.contains("Latest evaluation (generation 2)"));
    // Two generations are too few for trends: the doctor says so at the top.
    assert!(page.contains("<ul class=\"doctor\">\n<li><code>too-short</code> 2 generation(s)"));
    assert!(!page.contains("Elo ladder"), "no ladder yet");

    // The ladder: the same seed plays the same games and gives the same ratings.
    let ladder = [
        "ladder",
        "run",
        "--games",
        "4",
        "--anchors",
        "random,mcts:16",
        "--seed",
        "3",
    ];
    let stdout = succeed(&ladder, &dir);
    assert!(stdout.contains("generation 2: "), "{stdout}");
    assert!(stdout.contains("Elo over random"), "{stdout}");
    let first = ladder_lines(&dir);
    // random, mcts:16 and every checkpoint kept: with arena.every=1, each generation's
    // stays for an evaluator that follows the run.
    let players: Vec<&str> = first
        .iter()
        .map(|v| v["player"].as_str().unwrap())
        .collect();
    assert_eq!(
        players,
        ["random", "mcts:16", "gen-0000", "gen-0001", "gen-0002"]
    );
    assert_eq!(first[0]["elo"], 0.0);
    assert_eq!(first[4]["generation"], 2);
    assert_eq!(first[4]["checkpoint"], "checkpoints/gen-0002");
    for v in &first {
        let (low, elo, high) = (
            v["low"].as_f64().unwrap(),
            v["elo"].as_f64().unwrap(),
            v["high"].as_f64().unwrap(),
        );
        assert!(low <= elo && elo <= high, "{v}");
    }
    succeed(&ladder, &dir);
    let both = ladder_lines(&dir);
    assert_eq!(both.len(), 10);
    for (a, b) in both[..5].iter().zip(&both[5..]) {
        assert_eq!(
            (a["player"].clone(), a["elo"].clone(), a["low"].clone()),
            (b["player"].clone(), b["elo"].clone(), b["low"].clone())
        );
        assert_eq!(
            (a["ladder"].as_u64(), b["ladder"].as_u64()),
            (Some(1), Some(2))
        );
    }

    // The report now plots the ladder, to another folder.
    let stdout = succeed(&["report", "run", "--out", "elsewhere"], &dir);
    assert!(stdout.contains("Elo over random"), "{stdout}");
    let page = std::fs::read_to_string(dir.join("elsewhere/index.html")).unwrap();
    assert!(page.contains("Elo ladder") && page.contains("gen-0002"));
    assert!(page.contains("Elo rating per generation (ladder)"));
    assert!(page.contains("Elo over random"));

    // Replay with stdin closed prints every position of the game and exits.
    let stdout = succeed(
        &[
            "replay",
            "run/games/gen-0001/0000.jsonl",
            "--game-index",
            "3",
        ],
        &dir,
    );
    assert!(
        stdout.contains("line 4 (game index 3 of 16 games): tictactoe"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ply 0/") && stdout.contains("the end, result"),
        "{stdout}"
    );
    assert!(
        stdout.contains("search value") && stdout.contains("policy "),
        "{stdout}"
    );
    assert!(stdout.contains("  a b c"), "the board is drawn: {stdout}");

    // Bad input: one line naming the file (and line).
    let other = dir.join("other-build");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(dir.join("run/config.toml"), other.join("config.toml")).unwrap();
    let identity = std::fs::read_to_string(dir.join("run/run.json")).unwrap();
    let version = format!("\"{}\"", env!("CARGO_PKG_VERSION"));
    let foreign = identity.replace(&version, "\"0.0.1-other\"");
    assert_ne!(foreign, identity);
    std::fs::write(other.join("run.json"), foreign).unwrap();
    std::fs::write(dir.join("bad.jsonl"), "{\"game\":\"tictactoe\"}\n").unwrap();
    let fresh = dir.join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    std::fs::copy(dir.join("run/config.toml"), fresh.join("config.toml")).unwrap();
    for (args, needle) in [
        (
            vec!["replay", "bad.jsonl"],
            "bad record in bad.jsonl line 1",
        ),
        (vec!["replay", "missing.jsonl"], "missing.jsonl"),
        (
            vec![
                "replay",
                "run/games/gen-0001/0000.jsonl",
                "--game-index",
                "16",
            ],
            "out of range",
        ),
        (vec!["report", "nowhere"], "nowhere: no such directory"),
        (vec!["report", "fresh"], "fresh: nothing is recorded yet"),
        (
            vec!["ladder", "run", "--anchors", "human"],
            "an anchor must be",
        ),
        (
            vec!["ladder", "other-build"],
            "run made by zerosum 0.0.1-other",
        ),
    ] {
        let output = zerosum(&args, &dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // A config's warnings come first, each on its own line; then the one error.
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("warning: "))
            .collect();
        assert!(
            !output.status.success() && lines.len() == 1,
            "{args:?}: {stderr}"
        );
        assert!(lines[0].contains(needle), "{args:?}: {stderr}");
    }
    assert!(
        !dir.join("nowhere").exists(),
        "report creates no run directory"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// `zerosum doctor` on short tic-tac-toe runs, each configured to show one way a run fails to
// learn, and on the default run, which learns. (`starved` and `stale-actors` cannot be caused
// by a local run in seconds: the report crate's tests feed their rules recorded events.)

/// Trains tic-tac-toe's default config for `generations`, with `settings` changed, and
/// returns the names of the doctor's findings (from `--json`) and its lines.
fn doctor(name: &str, generations: usize, settings: &[&str]) -> (Vec<String>, String) {
    let dir = scratch(&format!("doctor-{name}"));
    let generations = format!("generations={generations}");
    let mut args = vec![
        "train",
        "--game",
        "tictactoe",
        "--run",
        "run",
        "--set",
        &generations,
    ];
    for setting in settings {
        args.extend(["--set", setting]);
    }
    succeed(&args, &dir);
    let json: serde_json::Value =
        serde_json::from_str(&succeed(&["doctor", "run", "--json"], &dir)).unwrap();
    let names = (json.as_array().unwrap().iter())
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    let lines = succeed(&["doctor", "run"], &dir);
    let _ = std::fs::remove_dir_all(&dir);
    (names, lines)
}

/// Asserts that the doctor names `name` on the run that `settings` make, with a line that
/// starts with the name and mentions `setting`, the key to change.
fn names(name: &str, settings: &[&str], setting: &str) {
    let (found, lines) = doctor(name, 8, settings);
    assert!(
        found.iter().any(|f| f == name),
        "{name} not found in {found:?}:\n{lines}"
    );
    let line = lines
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap();
    assert!(line.contains(setting), "{line}");
}

#[test]
fn the_default_run_gets_a_clean_bill() {
    let (found, lines) = doctor("healthy", 20, &[]);
    assert_eq!(found, ["healthy"], "{lines}");
    assert!(
        lines.starts_with("healthy: nothing wrong found in 20 generations"),
        "{lines}"
    );
}

#[test]
fn self_play_without_temperature_or_noise_explores_nothing() {
    let settings = [
        "self_play.temperature_plies=0",
        "self_play.root_noise=false",
    ];
    names(
        "no-exploration",
        &settings,
        "self_play.temperature_plies (now 0)",
    );
}

#[test]
fn an_untrained_value_head_collapses() {
    names(
        "value-collapse",
        &["learner.value_weight=0"],
        "learner.value_weight (now 0)",
    );
}

#[test]
fn a_learning_rate_of_a_half_is_too_high() {
    names(
        "lr-too-high",
        &["learner.learning_rate=0.5"],
        "learner.learning_rate (0.5 in generation 1)",
    );
}

#[test]
fn a_learning_rate_of_ten_to_the_minus_seven_is_too_low() {
    let settings = ["learner.learning_rate=1e-7", "learner.lr_schedule=[]"];
    names("lr-too-low", &settings, "learner.learning_rate");
}

#[test]
fn two_hundred_passes_over_a_tiny_window_memorise_it() {
    let settings = [
        "self_play.games_per_generation=8",
        "replay.window_positions=150",
        "learner.epochs=200",
        "learner.lr_schedule=[]",
        "model.hidden=256",
        "arena.every=1",
    ];
    names("memorising", &settings, "learner.epochs (now 200)");
}

#[test]
fn a_window_smaller_than_a_generation_floods() {
    names(
        "flooded",
        &["replay.window_positions=500"],
        "replay.window_positions (now 500)",
    );
}

#[test]
fn two_simulations_are_too_few() {
    names(
        "few-simulations",
        &["search.num_simulations=2"],
        "search.num_simulations",
    );
}

#[test]
fn a_two_unit_network_plateaus() {
    let settings = ["model.hidden=2", "model.value_hidden=2", "arena.every=1"];
    names("plateau", &settings, "search.num_simulations, now 64");
}

#[test]
fn two_game_evaluations_are_noise() {
    names(
        "noisy-evaluation",
        &["arena.games=2", "arena.every=1"],
        "arena.games (now 2;",
    );
}

#[test]
fn a_folder_that_is_not_a_run_is_one_line_of_error() {
    let dir = scratch("doctor-not-a-run");
    std::fs::create_dir(dir.join("empty")).unwrap();
    for (folder, error) in [("empty", "not a run"), ("missing", "no such directory")] {
        let output = zerosum(&["doctor", folder], &dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success());
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(error), "{stderr}");
    }
}
