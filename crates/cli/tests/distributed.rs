//! One tic-tac-toe run over a real S3 server (SeaweedFS on 127.0.0.1, started by
//! scripts/s3-server.sh from the project's .venv): a learner, an evaluator and two actor
//! processes, through an actor SIGKILLed and restarted, the server down for a few seconds
//! and the learner SIGKILLed and resumed. It must end with a player that never loses to
//! perfect play, every batch learned from at most once, and every event recorded once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_nn::{Device, NetEvaluator};
use zerosum_players::players::PerfectAgent;
use zerosum_players::{play_match, MctsAgent};
use zerosum_search::SearchConfig;
use zerosum_store::{names, RunStore};
use zerosum_train::learner::Manifest;

const ACCESS: [(&str, &str); 4] = [
    ("AWS_ACCESS_KEY_ID", "zerosum"),
    ("AWS_SECRET_ACCESS_KEY", "zerosum-secret"),
    ("AWS_REGION", "us-east-1"),
    ("AWS_ALLOW_HTTP", "true"),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The S3 server, stopped when dropped.
struct Server {
    dir: PathBuf,
    port: u16,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = Server {
            dir: dir.to_path_buf(),
            port,
        };
        server.command("start");
        server
    }

    fn command(&self, verb: &str) {
        let script = repo().join("scripts/s3-server.sh");
        let mut command = Command::new(&script);
        command.arg(verb).arg(&self.dir);
        if verb == "start" {
            command.arg(self.port.to_string());
        }
        let output = command.output().expect("scripts/s3-server.sh runs");
        assert!(
            output.status.success(),
            "s3-server.sh {verb} failed (is .venv/bin/weed installed? run scripts/setup.sh): {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let script = repo().join("scripts/s3-server.sh");
        let _ = Command::new(script).arg("kill").arg(&self.dir).output();
    }
}

/// A process of the run, killed when dropped (a failing test leaves none behind).
struct Role(Child);

impl Drop for Role {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A zerosum process of the run, its output in `dir/NAME.log`.
fn spawn(dir: &Path, server: &Server, name: &str, args: &[&str]) -> Role {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(args)
        .current_dir(dir)
        .envs(ACCESS)
        .env("AWS_ENDPOINT_URL", server.endpoint())
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .map(Role)
        .expect("the binary starts")
}

fn wait(role: &mut Role, name: &str, dir: &Path, limit: Duration) {
    let child = &mut role.0;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap();
            assert!(status.success(), "{name} failed: {log}");
            return;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap();
            panic!("{name} did not finish in {limit:?}: {log}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn kill(role: &mut Role) {
    role.0.kill().unwrap();
    role.0.wait().unwrap();
}

/// Waits until the run's newest whole checkpoint reaches `generation`.
fn wait_for_generation(store: &RunStore, generation: u64, limit: Duration) {
    let start = Instant::now();
    while zerosum_store::checkpoints::generations(store)
        .ok()
        .and_then(|g| g.last().copied())
        .unwrap_or(0)
        < generation
    {
        assert!(
            start.elapsed() < limit,
            "no generation {generation} in {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn tic_tac_toe_learned_by_roles_over_s3_through_faults() {
    let dir = std::env::temp_dir().join(format!("zerosum-distributed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = Server::start(&dir.join("s3"));
    for (key, value) in ACCESS {
        std::env::set_var(key, value);
    }
    std::env::set_var("AWS_ENDPOINT_URL", server.endpoint());
    let run = "s3://zerosum/ttt";
    let store = RunStore::open(run).expect("the bucket answers");
    // A missing bucket and refused credentials: one line naming the location, at once.
    for (location, secret) in [
        ("s3://no-such-bucket/ttt", "zerosum-secret"),
        (run, "wrong-secret"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_zerosum"))
            .args(["actor", "--run", location])
            .envs(ACCESS)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .env("AWS_ENDPOINT_URL", server.endpoint())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{location}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(location), "{stderr}");
    }
    let minutes = Duration::from_secs(60);

    let learner_args = [
        "train",
        "--game",
        "tictactoe",
        "--run",
        run,
        "--resume",
        "--actors",
        "0",
        "--no-evaluate",
    ];
    let mut learner = spawn(&dir, &server, "learner", &learner_args);
    let actor = |name: &str, outbox: &str| {
        spawn(
            &dir,
            &server,
            name,
            &["actor", "--run", run, "--id", name, "--outbox", outbox],
        )
    };
    // An actor refuses a run that does not exist yet; wait for the learner to make it.
    let start = Instant::now();
    while store.get(names::LATEST).unwrap().is_none() {
        assert!(start.elapsed() < minutes, "the learner made no run");
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut first = actor("a1", "outbox-1");
    let mut second = actor("a2", "outbox-2");
    let mut evaluator = spawn(
        &dir,
        &server,
        "evaluator",
        &["evaluate", "--run", run, "--follow"],
    );

    // Faults, each once the run is under way: an actor killed and restarted (the restart
    // uploads what its outbox kept), the server down for a few seconds, the learner killed
    // and resumed.
    wait_for_generation(&store, 3, 3 * minutes);
    kill(&mut first);
    let mut restarted = actor("a1-again", "outbox-1");
    wait_for_generation(&store, 6, 3 * minutes);
    server.command("kill");
    std::thread::sleep(Duration::from_secs(4));
    server.command("start");
    // Killed as soon as generation 10's checkpoint is listed, often before that generation
    // is published and its event written: the resumed learner finishes it first.
    wait_for_generation(&store, 10, 3 * minutes);
    kill(&mut learner);
    let mut resumed = spawn(&dir, &server, "learner-again", &learner_args);

    wait(&mut resumed, "learner-again", &dir, 10 * minutes);
    for (child, name) in [
        (&mut second, "a2"),
        (&mut restarted, "a1-again"),
        (&mut evaluator, "evaluator"),
    ] {
        wait(child, name, &dir, 3 * minutes);
    }

    // Every batch learned from at most once, every named batch there.
    let generations = 20;
    let mut seen = HashSet::new();
    for generation in 1..=generations {
        let bytes = store.get(&names::ingested(generation)).unwrap().unwrap();
        let manifest: Manifest = serde_json::from_slice(&bytes).unwrap();
        for batch in manifest.batches.iter().chain(&manifest.stale) {
            // A batch uploaded again under a later stamp is the same batch.
            let identity = names::batch_identity(batch).expect("an actor batch's name");
            assert!(seen.insert(identity.to_string()), "{batch} counted twice");
            assert!(store.get(batch).unwrap().is_some(), "{batch} is not there");
        }
    }
    assert!(
        seen.iter().any(|b| b.starts_with("a1-again.")),
        "the restarted actor's batches were used"
    );
    // The killed actor's finished batches were uploaded by its successor (a batch it was
    // still writing, a `.tmp`, was never finished).
    let outbox = dir.join("outbox-1");
    let left: Vec<PathBuf> = std::fs::read_dir(&outbox)
        .unwrap()
        .flatten()
        .flat_map(|run| std::fs::read_dir(run.path()).unwrap().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert!(left.is_empty(), "batches left in the outbox: {left:?}");
    // One event of each kind per generation, the evaluations included.
    let events = zerosum_store::events::read(&store).unwrap();
    for kind in ["self_play", "learn", "generation"] {
        let recorded: Vec<u64> = events
            .iter()
            .filter(|e| e["event"] == kind)
            .map(|e| e["generation"].as_u64().unwrap())
            .collect();
        assert_eq!(recorded, (1..=generations).collect::<Vec<_>>(), "{kind}");
    }
    let evaluated = events.iter().filter(|e| e["event"] == "evaluate").count();
    assert_eq!(evaluated, 5, "every fourth generation evaluated once");

    // The result never loses to perfect play, as the checkpoint a front end would load.
    let game = TicTacToe::new();
    let model = zerosum_store::checkpoints::load_location(
        &format!("{run}/checkpoints/latest"),
        &game,
        Device::Cpu,
    )
    .unwrap();
    assert_eq!(model.meta().generation, generations);
    let search = SearchConfig {
        num_simulations: 48,
        ..SearchConfig::default()
    };
    let mut agent = MctsAgent::new(
        "trained".into(),
        Box::new(NetEvaluator::new(model, &game)),
        search,
        48,
    );
    let mut perfect = PerfectAgent::new(100_000);
    let mut rng = SmallRng::seed_from_u64(5);
    let report = play_match(&game, &mut agent, &mut perfect, 100, &mut rng, |_, _| {}).unwrap();
    assert_eq!(report.losses, 0, "{report}");

    // GTP plays from the checkpoint in object storage.
    let latest = format!("{run}/checkpoints/latest");
    let mut gtp = Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(["gtp", "--checkpoint", &latest, "--sims", "16"])
        .envs(ACCESS)
        .env("AWS_ENDPOINT_URL", server.endpoint())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    gtp.stdin
        .take()
        .unwrap()
        .write_all(b"1 genmove b\nquit\n")
        .unwrap();
    let output = gtp.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("=1 "),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // The doctor reads the run where it lies.
    let doctor = Command::new(env!("CARGO_BIN_EXE_zerosum"))
        .args(["doctor", run])
        .envs(ACCESS)
        .env("AWS_ENDPOINT_URL", server.endpoint())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        doctor.status.success(),
        "{}",
        String::from_utf8_lossy(&doctor.stderr)
    );
    // A run that learnt perfect play has none of the learning's faults; how fast its actors
    // flood the learner (found here: 40% of positions dropped) depends on the machine.
    let names: Vec<&str> = (stdout.lines())
        .map(|line| line.split_once(": ").map_or(line, |(name, _)| name))
        .collect();
    assert!(!names.is_empty(), "the doctor printed nothing");
    for name in names {
        assert!(
            name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{stdout}"
        );
        let faults = [
            "lr-too-high",
            "lr-too-low",
            "value-collapse",
            "no-exploration",
        ];
        assert!(!faults.contains(&name), "{stdout}");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
