//! The binary on bad input and in short real sessions: one clear line and a non-zero exit
//! for bad input, never a panic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn zerosum(args: &[&str], stdin: impl AsRef<[u8]>, dir: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_ref())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zerosum-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The standard output of a command that must have succeeded (its stderr shown if not).
fn succeeded(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Fails unless the command failed with exactly one line on stderr that mentions `needle`.
fn assert_one_line_error(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "expected failure, got success; stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {stderr}");
    assert!(
        lines[0].contains(needle),
        "expected '{needle}' in: {}",
        lines[0]
    );
}

#[test]
fn bad_input_gets_one_line_and_a_failing_exit() {
    let dir = scratch("bad");
    std::fs::write(
        dir.join("bad.toml"),
        "game = \"tictactoe\"\n[search]\nnum_simulations = \"lots\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("unknown.toml"),
        "game = \"tictactoe\"\nwarp_speed = 9\n",
    )
    .unwrap();
    std::fs::write(dir.join("broken.safetensors"), "not a tensor file").unwrap();
    std::fs::write(
        dir.join("broken.json"),
        "{\"game\":\"tictactoe\",\"model\":{},\"obs_shape\":[2,3,3],\"num_actions\":9,\"step\":0,\"generation\":0,\"zerosum_version\":\"0\"}",
    )
    .unwrap();
    // As a checkpoint from before a game's observation changed: 8 planes where it has 2.
    std::fs::write(
        dir.join("stale.safetensors"),
        "not read: the shapes differ first",
    )
    .unwrap();
    std::fs::write(
        dir.join("stale.json"),
        "{\"game\":\"tictactoe\",\"model\":{},\"obs_shape\":[8,3,3],\"num_actions\":9,\"step\":0,\"generation\":0,\"zerosum_version\":\"0\"}",
    )
    .unwrap();
    std::fs::write(dir.join("ok.toml"), "game = \"tictactoe\"\n").unwrap();
    std::fs::write(dir.join("garbage.json"), "{").unwrap();
    std::fs::write(dir.join("garbage.safetensors"), "").unwrap();
    let saved = zerosum(
        &[
            "arena",
            "random",
            "random",
            "--game",
            "go:size=5",
            "--games",
            "1",
            "--save",
            "game.jsonl",
        ],
        "",
        &dir,
    );
    succeeded(&saved);
    let cases: &[(&[&str], &str)] = &[
        (&["train", "--game", "chezz"], "unknown game 'chezz'"),
        (&["train", "--game", "connect4:rows=1"], "bad parameter"),
        (&["train", "--config", "bad.toml"], "bad config"),
        (&["train", "--config", "unknown.toml"], "warp_speed"),
        (&["train", "--config", "missing.toml"], "missing.toml"),
        (
            &[
                "train",
                "--game",
                "tictactoe",
                "--set",
                "search.num_simulations=0",
            ],
            "num_simulations",
        ),
        (
            &["arena", "mcts:10", "grandmaster", "--game", "tictactoe"],
            "bad player 'grandmaster'",
        ),
        (
            &["arena", "mcts:x", "random", "--game", "tictactoe"],
            "bad player 'mcts:x'",
        ),
        (
            &[
                "arena",
                "checkpoint:nowhere/latest",
                "random",
                "--game",
                "tictactoe",
            ],
            "no checkpoint",
        ),
        (
            &[
                "arena",
                "checkpoint:broken",
                "random",
                "--game",
                "tictactoe",
            ],
            "corrupt checkpoint",
        ),
        (
            &[
                "arena",
                "checkpoint:garbage",
                "random",
                "--game",
                "tictactoe",
            ],
            "corrupt checkpoint",
        ),
        (
            &["arena", "checkpoint:stale", "random", "--game", "tictactoe"],
            "reads 8x3x3 observations and 9 actions but tictactoe gives 2x3x3",
        ),
        (
            &["play", "--game", "connect4", "--checkpoint", "broken"],
            "for game 'tictactoe', not 'connect4",
        ),
        (
            &["play", "--game", "tictactoe", "--device", "tpu"],
            "device 'tpu'",
        ),
        (
            &["play", "--game", "tictactoe", "--resign-below", "0.5"],
            "0.5 is not a value from -1 (lost) up to 0 (even)",
        ),
        (
            &["gtp", "--game", "go:size=5", "--resign-below", "lots"],
            "'lots' is not a number",
        ),
        (
            &[
                "train",
                "--game",
                "tictactoe",
                "--set",
                "learner.epochs=inf",
            ],
            "learner.epochs must be positive and at most 1000",
        ),
        (
            &[
                "train",
                "--game",
                "tictactoe",
                "--set",
                "model.hidden=99999999999",
            ],
            "model.hidden must be at most 4096",
        ),
        (
            &[
                "arena",
                "random",
                "random",
                "--game",
                "tictactoe",
                "--games",
                "0",
            ],
            "--games",
        ),
        (&["compare", "unknown.toml", "--minutes", "0"], "--minutes"),
        (
            &["train", "--game", "tictactoe", "--run", "/dev/null"],
            "/dev/null: a file, not a folder for a run",
        ),
        (
            &["check-game", "go:size=5,size=7"],
            "bad parameter 'size' for game go: given twice",
        ),
        (
            &[
                "arena",
                "random",
                "random",
                "--game",
                "tictactoe",
                "--save",
                "/dev/full",
            ],
            "cannot write the games to /dev/full (or beside it): No space left",
        ),
        (
            &["serve", "--game", "tictactoe", "--max-sims", "0"],
            "--max-sims",
        ),
        (
            &["serve", "--game", "tictactoe", "--search-threads", "0"],
            "--search-threads",
        ),
        (
            &["compare", "ok.toml", "--variant", "../out:seed=2"],
            "name the recipe with letters",
        ),
        (
            &["uci", "--max-search-seconds", "18446744073709551615"],
            "a year",
        ),
        (
            &["export", "game.jsonl", "--out", "game.jsonl"],
            "names the record file itself",
        ),
        (
            &[
                "accuracy",
                "random",
                "--game",
                "connect4",
                "--save",
                "nowhere/x.jsonl",
            ],
            "cannot write nowhere/x.jsonl",
        ),
        (
            &[
                "train",
                "--game",
                "tictactoe",
                "--set",
                r#"arena.baselines=["mcts:-1"]"#,
            ],
            "arena.baselines: bad player 'mcts:-1'",
        ),
        (&["check-game", "othello"], "unknown game"),
        (
            &["export-onnx", "connect4", "c4.txt"],
            "with the extension .onnx",
        ),
        (
            &["export-onnx", "nowhere", "x.onnx"],
            "nowhere: no checkpoint there",
        ),
        (&["accuracy"], "not provided: <PLAYERS>"),
        (
            &["accuracy", "--games", "g.jsonl", "random"],
            "cannot be used with",
        ),
    ];
    for (args, needle) in cases {
        let output = zerosum(args, "", &dir);
        assert_one_line_error(&output, needle);
    }
    // Solved positions and recorded games that could not have been written.
    let files = [
        (
            "over.jsonl",
            r#"{"stage":"end","moves":["a1","a2","b1","b2","c1"],"values":[["c2",0]]}"#,
            "the game is over there",
        ),
        (
            "valued.jsonl",
            r#"{"stage":"begin","moves":["a1"],"values":[["a1",1]]}"#,
            "a1 is not a legal move there",
        ),
        (
            "stage.jsonl",
            r#"{"stage":"banana","moves":[],"values":[]}"#,
            r#"stage "banana" is not one of end-easy, middle-easy, begin-easy"#,
        ),
        (
            "unfinished.jsonl",
            r#"{"game":"tictactoe","players":["a","b"],"actions":[0],"moves":["a3"],"result":"1-0","value_first":1.0}"#,
            "not over after its last move (move 1)",
        ),
    ];
    // A refused command leaves the positions an earlier --save wrote as they were.
    std::fs::write(dir.join("kept.jsonl"), "earlier\n").unwrap();
    for (name, text, needle) in files {
        std::fs::write(
            dir.join(name),
            format!(
                "{text}
"
            ),
        )
        .unwrap();
        let args: &[&str] = if name == "unfinished.jsonl" {
            &["accuracy", "--games", name, "--save", "kept.jsonl"]
        } else {
            &["accuracy", "random", "--game", "tictactoe", "--load", name]
        };
        assert_one_line_error(&zerosum(args, "", &dir), needle);
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("kept.jsonl")).unwrap(),
        "earlier\n"
    );
    let args = [
        "accuracy",
        "--games",
        "unfinished.jsonl",
        "--save",
        "new.jsonl",
    ];
    assert_one_line_error(&zerosum(&args, "", &dir), "not over");
    assert!(
        !dir.join("new.jsonl").exists(),
        "a refused command leaves no file"
    );
    let args = [
        "accuracy",
        "--games",
        "unfinished.jsonl",
        "--save",
        "unfinished.jsonl",
    ];
    assert_one_line_error(&zerosum(&args, "", &dir), "names the games file itself");
    // A viewer shows such a game, flagged.
    let shown = zerosum(&["replay", "unfinished.jsonl"], "", &dir);
    assert!(succeeded(&shown).contains("a3"));
    let stderr = String::from_utf8_lossy(&shown.stderr);
    let flag = "warning: bad record in unfinished.jsonl line 1: the game is not over";
    assert!(stderr.starts_with(flag), "{stderr}");
    // An error that names its cause is not followed by the cause again.
    let output = zerosum(&["replay", "."], "", &dir);
    let cause = "Is a directory (os error 21)";
    assert_one_line_error(&output, cause);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.matches(cause).count(), 1, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A mistyped subcommand or flag gets clap's suggestion and the help to read, on one line,
/// with clap's usage exit status.
#[test]
fn usage_errors_suggest_a_name_and_point_to_the_subcommand_help() {
    let dir = scratch("usage");
    for (args, needles) in [
        (
            &["modles"][..],
            &[
                "a similar subcommand exists: 'models'",
                "(see zerosum --help)",
            ][..],
        ),
        (
            &["train", "--gmae", "x"],
            &[
                "a similar argument exists: '--game'",
                "(see zerosum train --help)",
            ],
        ),
        (&["actor", "--batches"], &["(see zerosum actor --help)"]),
    ] {
        let output = zerosum(args, "", &dir);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        for needle in needles {
            assert_one_line_error(&output, needle);
        }
    }
    // `--batches` says its default once: until stopped, when absent.
    let help = succeeded(&zerosum(&["actor", "--help"], "", &dir));
    assert!(help.contains("until stopped"), "{help}");
    assert!(!help.contains("[default: 0]"), "{help}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A device that is no device is named as such with the ones there are; a GPU that is not
/// there is said to be missing.
#[test]
fn devices_are_refused_in_words_that_say_why() {
    let dir = scratch("device");
    let output = zerosum(
        &["bench", "--game", "tictactoe", "--device", "gpu"],
        "",
        &dir,
    );
    assert_one_line_error(
        &output,
        "unknown device 'gpu' (use auto, cpu, cuda or cuda:N)",
    );
    let args = [
        "arena",
        "random",
        "random",
        "--game",
        "tictactoe",
        "--games",
        "1",
        "--device",
        "cuda:99",
    ];
    assert_one_line_error(&zerosum(&args, "", &dir), "device 'cuda:99': ");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The arena's line: a zero Elo is `+0`, one of anything is singular, and both times a
/// move carry their unit.
#[test]
fn arena_lines_read_as_written_by_hand() {
    let dir = scratch("arena-line");
    let arena = |games: &str| {
        let args = [
            "arena",
            "perfect",
            "perfect",
            "--game",
            "tictactoe",
            "--games",
            games,
        ];
        succeeded(&zerosum(&args, "", &dir))
    };
    let line = arena("2");
    assert!(
        line.contains(": 2 games, +0 =2 -0 (as first: 0 wins"),
        "{line}"
    );
    assert!(line.contains("Elo +0 ["), "{line}");
    let times = line.split(", ").last().unwrap().trim();
    let words: Vec<&str> = times.split(' ').collect();
    assert_eq!(words.len(), 7, "{line}");
    assert_eq!(words[1], words[6], "one unit for both: {line}");
    assert!(["s", "ms", "\u{b5}s"].contains(&words[1]), "{line}");
    let line = arena("1");
    assert!(line.contains(": 1 game, +0 =1 -0"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `zerosum models` lists one line a model within 80 columns; --verbose keeps all the rest.
#[test]
fn models_fit_eighty_columns() {
    let dir = scratch("models");
    let listing = succeeded(&zerosum(&["models"], "", &dir));
    let models_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let models_dir = models_dir.canonicalize().unwrap();
    for line in listing.lines() {
        // The folder's path is as long as it is.
        let line = line.replace(&models_dir.display().to_string(), "MODELS");
        assert!(line.chars().count() <= 80, "{} columns: {line}", line.len());
    }
    assert!(listing.contains("connect4 "), "{listing}");
    let verbose = succeeded(&zerosum(&["models", "--verbose"], "", &dir));
    for kept in [
        "game: connect4:rows=6,cols=7,k=4, 371 generations",
        "strength: 99.7% optimal moves on 300 solved positions",
        "network: resnet",
        "run 2: ",
    ] {
        assert!(verbose.contains(kept), "{kept}: {verbose}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A train refused before it wrote anything leaves no folder it made behind, and never
/// takes away one that was there.
#[test]
fn a_refused_train_leaves_no_empty_run_folder() {
    let dir = scratch("refused");
    for (run, setting, needle) in [
        ("a", "search.num_simulations=0", "search.num_simulations"),
        ("b/c/d", "search.nope=1", "unknown field"),
        ("e", "device=\"gpu\"", "unknown device"),
    ] {
        let args = [
            "train",
            "--game",
            "tictactoe",
            "--run",
            run,
            "--set",
            setting,
        ];
        assert_one_line_error(&zerosum(&args, "", &dir), needle);
        let top = run.split('/').next().unwrap();
        assert!(!dir.join(top).exists(), "{run} was left behind");
    }
    std::fs::create_dir(dir.join("kept")).unwrap();
    let args = [
        "train",
        "--game",
        "tictactoe",
        "--run",
        "kept/run",
        "--set",
        "search.num_simulations=0",
    ];
    assert_one_line_error(&zerosum(&args, "", &dir), "search.num_simulations");
    assert!(dir.join("kept").is_dir() && !dir.join("kept/run").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn play_reprompts_on_bad_moves_and_finishes_the_game() {
    let dir = scratch("play");
    // Connect four against rollout MCTS: junk, an out-of-range column and an ambiguous
    // word get messages, as does a line that is not UTF-8; then the human keeps dropping
    // into column a until the game ends (a full column is refused too).
    let mut input = String::from("zz\nh\nhelp\n");
    for column in ["a", "b", "c", "d", "e", "f", "g"] {
        for _ in 0..6 {
            input.push_str(column);
            input.push('\n');
        }
    }
    let mut input = input.into_bytes();
    input.splice(0..0, b"\xff\xfe\n".iter().copied());
    let output = zerosum(
        &["play", "--game", "connect4", "--sims", "50"],
        &input,
        &dir,
    );
    let stdout = succeeded(&output);
    assert!(stdout.contains("'zz' is not a move here"), "{stdout}");
    assert!(
        stdout.contains("'\u{fffd}\u{fffd}' is not a move here"),
        "{stdout}"
    );
    assert!(stdout.contains("legal moves: a b c d e f g"), "{stdout}");
    assert!(stdout.contains("agent plays"), "{stdout}");
    assert!(stdout.contains("game over"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--resign-below`: the shipped 5x5 model as White knows the game lost after Black's
/// C3 (5x5 Go is a win for Black) and resigns on its third move at -0.9, a lost value each
/// time; without the flag it plays on.
#[test]
fn play_resigns_a_lost_game_when_asked() {
    let dir = scratch("resign");
    let moves = "c3\nd3\nb2\nquit\n";
    let args = ["play", "--game", "go:size=5", "--resign-below", "-0.9"];
    let stdout = succeeded(&zerosum(&args, moves.as_bytes(), &dir));
    assert_eq!(stdout.matches("agent plays").count(), 2, "{stdout}");
    assert!(
        stdout.contains(
            "its third move in a row at -0.90 or less\ngame over: 1-0 (the agent resigns; you win)"
        ),
        "{stdout}"
    );
    let stdout = succeeded(&zerosum(&args[..3], moves.as_bytes(), &dir));
    assert_eq!(stdout.matches("agent plays").count(), 3, "{stdout}");
    assert!(!stdout.contains("resigns"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The arena's score, then its saved games judged move by move: perfect play never errs,
/// so every game random loses follows an error of its own.
#[test]
fn arena_reports_a_score_and_its_saved_games_are_judged() {
    let dir = scratch("arena");
    let output = zerosum(
        &[
            "arena",
            "perfect",
            "random",
            "--game",
            "tictactoe",
            "--games",
            "20",
            "--save",
            "games.jsonl",
        ],
        "",
        &dir,
    );
    let stdout = succeeded(&output);
    assert!(stdout.contains("perfect vs random: 20 games"), "{stdout}");
    assert!(stdout.contains("-0 "), "perfect play never loses: {stdout}");
    assert!(stdout.contains("Elo +"), "{stdout}");
    let output = zerosum(
        &[
            "accuracy",
            "--games",
            "games.jsonl",
            "--min-plies",
            "0",
            "--save",
            "erred.jsonl",
        ],
        "",
        &dir,
    );
    let stdout = succeeded(&output);
    assert!(stdout.contains("20 games of tictactoe"), "{stdout}");
    let row = |name: &str| -> Vec<String> {
        stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {stdout}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let perfect = row("perfect ");
    assert_eq!(perfect[1], "20", "{stdout}");
    assert_eq!(perfect[4], "-0", "{stdout}");
    assert_eq!(perfect[6], "100.0%", "{stdout}");
    // The Wilson interval is asymmetric, and shown as one.
    assert!(
        perfect[7].starts_with('[') && perfect[8].ends_with(']'),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{b1}'), "{stdout}");
    assert_eq!(perfect[perfect.len() - 3..], ["0", "0", "0"], "{stdout}");
    let random = row("random ");
    let lost: usize = random[4].trim_start_matches('-').parse().unwrap();
    assert!(lost > 0, "random lost no game to perfect play: {stdout}");
    let errors: usize = random[random.len() - 3..]
        .iter()
        .map(|e| e.parse::<usize>().unwrap())
        .sum();
    assert!(errors >= lost, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "random lost {lost}: {lost} after an error of its own, 0 without one"
        )),
        "{stdout}"
    );
    // The positions where random erred, saved, are a benchmark perfect play aces.
    let erred = std::fs::read_to_string(dir.join("erred.jsonl")).unwrap();
    assert!(erred.lines().count() > 0 && erred.lines().count() <= errors);
    let output = zerosum(
        &[
            "accuracy",
            "perfect",
            "--game",
            "tictactoe",
            "--load",
            "erred.jsonl",
        ],
        "",
        &dir,
    );
    let scored = succeeded(&output);
    assert!(
        scored.contains(&format!("100.0% of {}", erred.lines().count())),
        "{scored}"
    );
    // Pons's six sets by difficulty, saved and loaded again: perfect play makes no outcome
    // error in any of them.
    for args in [
        &[
            "--by-difficulty",
            "--positions",
            "3",
            "--save",
            "sets.jsonl",
        ][..],
        &["--load", "sets.jsonl"],
    ] {
        let mut all = vec!["accuracy", "perfect", "--game", "tictactoe"];
        all.extend(args);
        let stdout = succeeded(&zerosum(&all, "", &dir));
        let errors = stdout
            .lines()
            .skip_while(|l| !l.starts_with("outcome errors"))
            .collect::<Vec<_>>();
        assert!(errors[0].ends_with("begin-medium              begin-hard               all"));
        assert!(errors[1].starts_with("perfect ") && errors[1].ends_with("0.0% of 18"));
    }
    assert_one_line_error(
        &zerosum(&["accuracy", "--games", "missing.jsonl"], "", &dir),
        "missing.jsonl",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_then_resume_then_play_from_the_checkpoint() {
    let dir = scratch("train");
    let quick = [
        "--set",
        "generations=2",
        "--set",
        "self_play.games_per_generation=16",
        "--set",
        "arena.every=0",
    ];
    let mut args = vec!["train", "--game", "tictactoe", "--run", "run"];
    args.extend(quick);
    let output = zerosum(&args, "", &dir);
    succeeded(&output);
    for file in [
        "run.json",
        "config.toml",
        "metrics/gen-0002-2-learn.json",
        "games/gen-0001/0000.jsonl",
        "games/gen-0002/0000.jsonl",
        "checkpoints/latest",
        "checkpoints/gen-0002.safetensors",
        "checkpoints/gen-0002.json",
    ] {
        assert!(dir.join("run").join(file).exists(), "missing {file}");
    }
    // Training into a used run directory without --resume is refused.
    let output = zerosum(&args, "", &dir);
    assert_one_line_error(&output, "--resume");
    // A resume keeps the run's game and network: another is refused, and the config stays.
    // (The run's config warns of its batches first, once resolved.)
    let refused = |output: &Output, needle: &str| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success() && !stderr.contains("panicked"),
            "{stderr}"
        );
        let last = stderr.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("error: ") && last.contains(needle),
            "{stderr}"
        );
    };
    let config = std::fs::read_to_string(dir.join("run/config.toml")).unwrap();
    // Floats as typed: no f32 widened to 0.10000000149011612.
    assert!(config.contains("c_puct = 1.25\n"), "{config}");
    assert!(!config.contains("0000000"), "{config}");
    let resume = ["train", "--run", "run", "--resume"];
    for (extra, needle) in [
        (["--game", "connect4"], "not connect4"),
        (
            ["--set", "model.hidden=33"],
            "a run's network cannot change",
        ),
    ] {
        refused(
            &zerosum(&[&resume[..], &extra[..]].concat(), "", &dir),
            needle,
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("run/config.toml")).unwrap(),
        config
    );
    // Nor does a config.toml edited by hand, or emptied, change the network.
    let narrower = config.replace("\nhidden = 64\n", "\nhidden = 33\n");
    assert_ne!(narrower, config);
    for edited in [narrower, String::new()] {
        std::fs::write(dir.join("run/config.toml"), &edited).unwrap();
        refused(&zerosum(&resume, "", &dir), "a run's network cannot change");
        let left = std::fs::read_to_string(dir.join("run/config.toml")).unwrap();
        assert_eq!(left, edited, "a refused resume writes nothing");
    }
    std::fs::write(dir.join("run/config.toml"), &config).unwrap();
    // Resume with more generations: it continues at generation 3.
    let output = zerosum(
        &[
            "train",
            "--run",
            "run",
            "--resume",
            "--set",
            "generations=3",
        ],
        "",
        &dir,
    );
    succeeded(&output);
    // Sixteen games in batches of self_play.games_per_batch (16).
    let games = std::fs::read_to_string(dir.join("run/games/gen-0003/0000.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 16);
    assert!(!dir.join("run/games/gen-0004").exists());
    // The checkpoint plays, without naming the game (it is in the checkpoint).
    let output = zerosum(
        &[
            "play",
            "--checkpoint",
            "run/checkpoints/latest",
            "--first",
            "agent",
        ],
        "quit\n",
        &dir,
    );
    assert!(succeeded(&output).contains("agent plays"));
    // A wider network distilled through the run's three generations, then measured.
    let output = zerosum(
        &[
            "distill",
            "run",
            "--out",
            "distilled",
            "--set",
            "model.hidden=48",
            "--games",
            "4",
            "--sims",
            "8",
        ],
        "",
        &dir,
    );
    let printed = succeeded(&output);
    assert!(
        printed.contains("| curriculum | generations 1 to 3"),
        "{printed}"
    );
    assert!(printed.contains("| window |"), "{printed}");
    for file in ["curriculum.safetensors", "window.json", "distill.md"] {
        assert!(dir.join("distilled").join(file).exists(), "missing {file}");
    }
    let output = zerosum(
        &[
            "arena",
            "checkpoint:distilled/curriculum",
            "random",
            "--games",
            "2",
        ],
        "",
        &dir,
    );
    succeeded(&output);
    let output = zerosum(&["distill", "nowhere", "--out", "x"], "", &dir);
    assert_one_line_error(&output, "nowhere");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The generation of a run's `checkpoints/latest`, once it exists.
fn latest_generation(run: &Path) -> Option<u64> {
    let store = zerosum_store::RunStore::open(run.to_str()?).ok()?;
    let pointer = zerosum_store::checkpoints::published(&store).ok()??;
    Some(pointer.generation)
}

#[test]
fn ctrl_c_stops_training_once_the_generation_under_way_is_saved() {
    let dir = scratch("interrupt");
    let child = Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(["train", "--game", "tictactoe", "--run", "run"])
        .args(["--set", "generations=500", "--set", "arena.every=0"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let start = std::time::Instant::now();
    while latest_generation(&dir.join("run")).is_none() {
        assert!(
            start.elapsed().as_secs() < 120,
            "no generation in 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = child.wait_with_output().unwrap();
    let stdout = succeeded(&output);
    let saved = latest_generation(&dir.join("run")).unwrap();
    assert!(saved < 500, "the run stopped early");
    let said = format!(
        "stopped with generation {saved} saved: `zerosum train --run run --resume` goes on"
    );
    assert!(stdout.contains(&said), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("note: stopping once generation"),
        "{stderr}"
    );
    // Nothing finished is lost: the run goes on from there.
    let more = format!("generations={}", saved + 1);
    let args = ["train", "--run", "run", "--resume", "--set", &more];
    let stdout = succeeded(&zerosum(&args, "", &dir));
    assert!(
        stdout.contains(&format!("done: generation {}", saved + 1)),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gtp_transcript() {
    let dir = scratch("gtp");
    let script = "1 protocol_version\n2 name\nlist_commands\nboardsize 3\nboardsize 19\nplay b b2\nplay b a1\nplay w b2\nplay w a1\ngogui-rules_legal_moves\ngogui-rules_side_to_move\nshowboard\nundo\ngogui-rules_side_to_move\nplay x a1\ngenmove b\nfoo\ngogui-rules_game_id\nquit\n";
    let output = zerosum(
        &["gtp", "--game", "tictactoe", "--sims", "30"],
        script,
        &dir,
    );
    let stdout = succeeded(&output);
    let replies: Vec<&str> = stdout.split("\n\n").collect();
    assert_eq!(replies[0], "=1 2");
    assert_eq!(replies[1], "=2 zerosum");
    assert!(
        replies[2].starts_with("= protocol_version\n")
            && replies[2].contains("gogui-rules_final_result")
    );
    assert_eq!(replies[3], "=");
    assert!(replies[4].starts_with("? unacceptable size"));
    assert_eq!(replies[5], "=");
    assert!(replies[6].starts_with("? it is not b's turn"));
    assert!(
        replies[7].starts_with("? illegal move b2"),
        "{}",
        replies[7]
    );
    assert_eq!(replies[8], "=");
    assert_eq!(replies[9], "= a3 b3 c3 a2 c2 b1 c1");
    assert_eq!(replies[10], "= black");
    assert!(replies[11].starts_with("=\n"));
    assert_eq!(replies[12], "=");
    assert_eq!(replies[13], "= white");
    assert!(replies[14].starts_with("? invalid color"));
    assert!(replies[15].starts_with("? it is not b's turn"));
    assert!(replies[16].starts_with("? unknown command"));
    assert_eq!(replies[17], "= tictactoe");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An actor joins only a run it can play: one line, a failing exit, otherwise.
#[test]
fn an_actor_refuses_what_it_cannot_join() {
    let dir = scratch("actor");
    let train = |run: &str, extra: &[&str]| {
        let mut args = vec![
            "train",
            "--game",
            "tictactoe",
            "--run",
            run,
            "--set",
            "generations=1",
            "--set",
            "self_play.games_per_generation=4",
            "--set",
            "self_play.batch_games=4",
            "--set",
            "arena.every=0",
        ];
        args.extend(extra);
        succeeded(&zerosum(&args, "", &dir));
    };
    train("sync", &[]);
    train("async", &["--actors", "1"]);
    let actor = |run: &str| zerosum(&["actor", "--run", run, "--batches", "1"], "", &dir);
    assert_one_line_error(&actor("nowhere"), "nowhere: no such directory");
    assert_one_line_error(&actor("ftp://host/run"), "unknown scheme ftp://");
    assert_one_line_error(&actor("s3://"), "s3://: the URL names no bucket");
    assert_one_line_error(&actor("sync"), "synchronous");
    // A run made by another build of zerosum.
    let identity = dir.join("async/run.json");
    let text = std::fs::read_to_string(&identity).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    std::fs::write(&identity, text.replace(version, "0.0.1-other")).unwrap();
    assert_one_line_error(&actor("async"), "run made by zerosum 0.0.1-other");
    std::fs::write(&identity, text).unwrap();
    // The run complete, an actor has nothing to do and says so.
    let output = actor("async");
    assert!(succeeded(&output).contains("the run has trained its last generation"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without a checkpoint the front ends play the game's shipped model and say so on one
/// line; a game no model fits falls back to rollout MCTS with a note; any player can be
/// named instead. The shipped tic-tac-toe model never loses to the perfect player.
#[test]
fn front_ends_play_the_shipped_models_by_default() {
    let dir = scratch("shipped");
    let listing = succeeded(&zerosum(&["models", "--verbose"], "", &dir));
    for name in ["tictactoe", "connect4"] {
        assert!(listing.contains(name), "{listing}");
    }
    assert!(listing.contains("run 1:"), "{listing}");

    let notes = |args: &[&str]| {
        let output = zerosum(args, "quit\n", &dir);
        succeeded(&output);
        String::from_utf8_lossy(&output.stderr).to_string()
    };
    let stderr = notes(&["play", "--game", "tictactoe", "--first", "agent"]);
    assert!(
        stderr.contains("the shipped model tictactoe plays tictactoe"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let stderr = notes(&["play", "--game", "connect4:rows=5", "--sims", "20"]);
    assert!(
        stderr.contains("no model is shipped for connect4:rows=5"),
        "{stderr}"
    );
    let stderr = notes(&["play", "--game", "tictactoe", "--agent", "mcts:20"]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_one_line_error(
        &zerosum(
            &["arena", "shipped", "random", "--game", "go:size=7"],
            "",
            &dir,
        ),
        "no model is shipped for go:size=7",
    );

    // GTP's `boardsize` and `komi` bring the new board's model: 9x9 at komi 0.5 has none of
    // its own, so the 9x9 one (trained at 7.5) plays it and then its own komi, unchanged;
    // 7x7 has none, so rollout MCTS plays, and 5x5 (still at komi 7.5) gets its model back.
    let script = "boardsize 9\nkomi 7.5\ngenmove b\nboardsize 7\ngenmove b\nboardsize 5\nquit\n";
    let output = zerosum(&["gtp", "--game", "go", "--sims", "8"], script, &dir);
    let stdout = succeeded(&output);
    assert_eq!(
        stdout.matches("= ").count() + stdout.matches("=\n").count(),
        7,
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let notes: Vec<&str> = stderr.lines().collect();
    assert_eq!(notes.len(), 4, "{stderr}");
    assert!(
        notes[0].contains("the shipped model go-5x5 plays go:size=5"),
        "{stderr}"
    );
    assert!(
        notes[1].contains("the shipped model go-9x9 (trained on go:size=9,komi=7.5"),
        "{stderr}"
    );
    assert!(
        notes[2].contains("no model is shipped for go:size=7"),
        "{stderr}"
    );
    assert!(
        notes[3].contains(
            "go-5x5 (trained on go:size=5,komi=0.5,max_moves=50) plays go:size=5,komi=7.5"
        ),
        "{stderr}"
    );
    // A user's `--agent shipped` refuses a board without a model.
    let output = zerosum(
        &["gtp", "--game", "go", "--agent", "shipped", "--sims", "8"],
        "boardsize 7\nboardsize 9\n",
        &dir,
    );
    let stdout = succeeded(&output);
    assert!(
        stdout.starts_with("? no model is shipped for go:size=7"),
        "{stdout}"
    );
    assert!(stdout.ends_with("=\n\n"), "{stdout}");

    let stdout = succeeded(&zerosum(
        &[
            "arena",
            "shipped",
            "perfect",
            "--game",
            "tictactoe",
            "--games",
            "10",
        ],
        "",
        &dir,
    ));
    assert!(
        stdout.contains("shipped:tictactoe vs perfect: 10 games"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" -0 "),
        "the shipped model lost a game: {stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Output that cannot be written ends the command with one line (a full disk) or quietly
/// (a reader that has gone, as `| head` leaves it), never with a panic; a UCI engine whose
/// GUI cannot hear it ends too.
#[test]
fn output_that_cannot_be_written_ends_the_command_without_a_panic() {
    let dir = scratch("output");
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let run = |args: &[&str], stdin: &[u8], stdout: Stdio| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zerosum"))
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    let record = [
        "arena",
        "random",
        "random",
        "--game",
        "tictactoe",
        "--games",
        "1",
    ];
    succeeded(&run(
        &[&record[..], &["--save", "g.jsonl"]].concat(),
        b"",
        Stdio::null(),
    ));
    let to_full = run(&["replay", "g.jsonl"], b"", full().into());
    assert_one_line_error(&to_full, "cannot write to standard output: No space left");
    let to_full = run(&["models"], b"", full().into());
    assert_one_line_error(&to_full, "No space left on device");
    // After the line that names the model it plays.
    let uci = run(&["uci"], b"uci\ngo nodes 3\n", full().into());
    let stderr = String::from_utf8_lossy(&uci.stderr);
    assert!(!uci.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("error: cannot write to standard output: No space left on device (os error 28)"),
        "{stderr}"
    );

    // A reader that closed the pipe before the first line: `models` had said all it had
    // to, the replay had more.
    for (args, success) in [(&["models"][..], true), (&["replay", "g.jsonl"], false)] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let gone = run(args, b"", writer.into());
        let stderr = String::from_utf8_lossy(&gone.stderr);
        assert_eq!(gone.status.success(), success, "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
