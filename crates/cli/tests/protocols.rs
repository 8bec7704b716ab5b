//! The binary's protocol and record front ends in real sessions: a golden UCI transcript
//! (`tests/data/uci/`), standard records from `arena --save`, and `export`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn zerosum(args: &[&str], stdin: &str, dir: &Path) -> Output {
    zerosum_with_env(args, stdin, dir, &[])
}

/// [`zerosum`] with environment variables set.
fn zerosum_with_env(args: &[&str], stdin: &str, dir: &Path, env: &[(&str, &Path)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("the binary reads its input");
    child.wait_with_output().expect("the binary ends")
}

/// Runs the binary, insists that it succeeded (showing its errors if not), and returns
/// its standard output.
fn succeed(args: &[&str], dir: &Path) -> String {
    let output = zerosum(args, "", dir);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zerosum-protocols-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The transcript as compared: the version written as `VERSION`, and only the `info` line
/// just before each `bestmove` kept (the ones a long search writes every second depend on
/// the machine's speed).
fn normalise(transcript: &str) -> String {
    let lines: Vec<&str> = transcript.lines().collect();
    let mut kept = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let progress = line.starts_with("info depth ")
            && !lines
                .get(i + 1)
                .is_some_and(|next| next.starts_with("bestmove "));
        if !progress {
            kept.push(line.replace(env!("CARGO_PKG_VERSION"), "VERSION"));
        }
    }
    kept.join("\n") + "\n"
}

/// `zerosum uci` (rollout MCTS, seed 1) answers `tests/data/uci/session.in` with
/// `session.out`. Set `ZEROSUM_BLESS=1` to write the answer as the new golden file. An
/// empty models folder keeps the shipped chess model, which changes as it is trained
/// further, out of the transcript.
#[test]
fn uci_golden_transcript() {
    let dir = scratch("uci");
    let no_models = dir.join("no-models");
    std::fs::create_dir_all(&no_models).unwrap();
    let input = std::fs::read_to_string(data("uci/session.in")).unwrap();
    let output = zerosum_with_env(
        &["uci", "--seed", "1"],
        &input,
        &dir,
        &[("ZEROSUM_MODELS", &no_models)],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let got = normalise(&String::from_utf8_lossy(&output.stdout));
    let golden = data("uci/session.out");
    if std::env::var_os("ZEROSUM_BLESS").is_some() {
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(
        got,
        want,
        "the transcript differs from {}",
        golden.display()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn uci_refuses_games_other_than_chess() {
    let dir = scratch("uci-game");
    // It offers no --game: it plays chess.
    let help = succeed(&["uci", "--help"], &dir);
    assert!(!help.contains("--game"), "{help}");
    let output = zerosum(&["uci", "--game", "go"], "", &dir);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: unexpected argument '--game' found")
            && stderr.trim_end().ends_with("(see zerosum uci --help)"),
        "{stderr}"
    );
    // A config of another game is refused.
    let go = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/go.toml");
    let output = zerosum(&["uci", "--config", go.to_str().unwrap()], "", &dir);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("uci plays chess only"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arena_save_writes_sgf_and_export_writes_pgn() {
    let dir = scratch("records");
    // Go: the arena writes the JSON Lines file and an SGF collection beside it.
    succeed(
        &[
            "arena", "random", "random", "--game", "go", "--games", "3", "--save", "go.jsonl",
        ],
        &dir,
    );
    let sgf = std::fs::read_to_string(dir.join("go.sgf")).unwrap();
    assert_eq!(sgf.matches("(;FF[4]GM[1]").count(), 3, "{sgf}");
    assert!(
        sgf.contains("PB[random]PW[random]") && sgf.contains("RO[3]"),
        "{sgf}"
    );
    // `export` writes the same games from the JSON Lines file.
    succeed(&["export", "go.jsonl", "--out", "again.sgf"], &dir);
    let again = std::fs::read_to_string(dir.join("again.sgf")).unwrap();
    let moves = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with(';'))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(moves(&again), moves(&sgf));

    // Chess: 1. e4 e5 as self-play writes it. Both moves are action 12 * 73 + 1 (from the
    // mover's e2, north by two), since actions are seen from the mover's side.
    let record = r#"{"game":"chess:max_plies=512","players":["a","b"],"actions":[877,877],"moves":["e2e4","e7e5"],"result":"1/2-1/2","value_first":0.0}"#;
    std::fs::write(dir.join("gen-0001.jsonl"), format!("{record}\n{record}\n")).unwrap();
    let stdout = succeed(&["export", "gen-0001.jsonl"], &dir);
    assert!(stdout.contains("wrote 2 games to gen-0001.pgn"));
    let pgn = std::fs::read_to_string(dir.join("gen-0001.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event \"zerosum gen-0001.jsonl\"]").count(), 2);
    assert!(pgn.contains("\n\n1. e4 e5 *\n\n[Event"), "{pgn}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_names_the_file_and_line_of_bad_records() {
    let dir = scratch("export-bad");
    let good = r#"{"game":"go:size=5","players":["a","b"],"actions":[12],"moves":["C3"],"result":"1/2-1/2","value_first":0.0}"#;
    let illegal = good.replace("[12]", "[12,12]");
    let tictactoe = r#"{"game":"tictactoe","players":["a","b"],"actions":[4],"moves":["b2"],"result":"1/2-1/2","value_first":0.0}"#;
    for (name, text, needle) in [
        (
            "garbled.jsonl",
            format!("{good}\nnot json\n{good}\n"),
            "garbled.jsonl line 2",
        ),
        (
            "illegal.jsonl",
            format!("{good}\n{illegal}\n"),
            "illegal.jsonl line 2: illegal move C3",
        ),
        (
            "ttt.jsonl",
            format!("{tictactoe}\n"),
            "ttt.jsonl: tictactoe has no standard record format",
        ),
        (
            "mixed.jsonl",
            format!("{good}\n{tictactoe}\n"),
            "mixed.jsonl line 2: tictactoe has no standard record format",
        ),
        ("empty.jsonl", String::new(), "empty.jsonl: no games"),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        let output = zerosum(&["export", name], "", &dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{name}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].contains(needle), "{name}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gtp:COMMAND` plays another program over GTP; here that program is this binary's own
/// `gtp` front end. The engine starts on 9x9 and must be told the arena's 5x5 board, or
/// its moves would not parse or be legal.
#[test]
fn arena_plays_an_external_gtp_engine() {
    let dir = scratch("gtp-engine");
    let engine = format!(
        "gtp:{} gtp --game go:size=9 --sims 64",
        env!("CARGO_BIN_EXE_zerosum")
    );
    let stdout = succeed(
        &[
            "arena",
            &engine,
            "random",
            "--game",
            "go:size=5",
            "--games",
            "4",
        ],
        &dir,
    );
    assert!(stdout.contains("vs random: 4 games"), "{stdout}");

    let engine = format!(
        "gtp:{} gtp --game tictactoe --sims 400",
        env!("CARGO_BIN_EXE_zerosum")
    );
    let stdout = succeed(
        &[
            "arena",
            &engine,
            "random",
            "--game",
            "tictactoe",
            "--games",
            "10",
        ],
        &dir,
    );
    assert!(
        stdout.contains("-0 "),
        "searching engine never loses: {stdout}"
    );

    let output = zerosum(
        &[
            "arena",
            "gtp:./no-such-engine",
            "random",
            "--game",
            "tictactoe",
        ],
        "",
        &dir,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot start './no-such-engine'"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `uci:COMMAND` plays a chess engine over UCI; here that engine is this binary's own `uci`
/// front end, searching 8 nodes a move. An option the engine does not know is one line.
#[test]
fn arena_plays_an_external_uci_engine() {
    let dir = scratch("uci-engine");
    let engine = format!(
        "uci:{} uci;Hash=16;go=nodes 8",
        env!("CARGO_BIN_EXE_zerosum")
    );
    let stdout = succeed(
        &[
            "arena", &engine, "random", "--game", "chess", "--games", "2", "--sims", "8",
        ],
        &dir,
    );
    assert!(stdout.contains("vs random: 2 games"), "{stdout}");

    let engine = format!("uci:{} uci;Bogus=1", env!("CARGO_BIN_EXE_zerosum"));
    let output = zerosum(&["arena", &engine, "random", "--game", "chess"], "", &dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("Bogus"), "{stderr}");

    let output = zerosum(
        &["arena", "uci:stockfish", "random", "--game", "go"],
        "",
        &dir,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("plays chess"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
