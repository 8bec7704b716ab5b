//! The fuzz targets: every place zerosum reads input it did not write.
//!
//! | target | what is fed | promise beyond no panic and no hang |
//! |---|---|---|
//! | `uci` | whole UCI sessions to the engine loop | one `readyok` per `isready` |
//! | `gtp` | whole GTP sessions, any game | the loop ends without an I/O error |
//! | `web-api` | sessions of API requests and JSON bodies | a JSON body and a known status |
//! | `http` | raw bytes to the running web server | the server still answers |
//! | `notation` | move text in every game | every legal move reads back as itself |
//! | `fen` | chess positions in FEN | a position read writes a FEN that reads back |
//! | `specs` | game and player specs (`go:size=9`, `mcts:400`) | none |
//! | `config` | config TOML and `--set` values | none |
//! | `records` | game record lines (self-play batches) | a record that passes its check trains |
//! | `checkpoint` | checkpoint files: cut, bit-flipped, reshaped, another game's | an untouched one loads |
//!
//! SGF and PGN are written (`export`, `arena --save`) but never read, so they have no target.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use zerosum_config::default_config;
use zerosum_config::RunConfig;
use zerosum_games::chess::Chess;
use zerosum_games::registry::{parse_game, set_param};
use zerosum_games::{with_game, Game};
use zerosum_nn::{CheckpointBytes, Device, Family, Model, ModelConfig};
use zerosum_players::{MctsAgent, PlayerSpec};
use zerosum_search::{RolloutEvaluator, SearchConfig};
use zerosum_store::record::{GameRecord, MoveStats};
use zerosum_train::replay::{samples_from_record, ValueTarget};

use crate::harness::{Harness, Mutator, Target};
use zerosum_protocols::gtp::{registry_rebuild, GtpEngine};
use zerosum_protocols::uci::{self, Output, Searcher, UciEngine, UciSettings};
use zerosum_protocols::Transcript;
use zerosum_web::api::{Engine, Info};
use zerosum_web::http::Request;
use zerosum_web::pool::{AgentFactory, SearchPool};

/// Inputs per target in the test suite's bounded run.
#[cfg(test)]
pub const QUICK_CASES: u64 = 1000;

/// Game specs the targets play: every game of the table, some with parameters.
const GAMES: &[&str] = &[
    "tictactoe",
    "connect4",
    "connect4:rows=5,cols=6,k=3",
    "gomoku:size=9",
    "oware",
    "go:size=5",
    "go:size=9,komi=7.5",
    "pushfight",
    "chess",
];

/// Every target, in the order `zerosum-fuzz` runs them.
pub fn all() -> Vec<Target> {
    let second = Duration::from_secs(1);
    vec![
        Target {
            name: "uci",
            about: "whole UCI sessions to the engine loop",
            bound: 20 * second,
            build: || Box::new(UciTarget::new()),
        },
        Target {
            name: "gtp",
            about: "whole GTP sessions, any game",
            bound: 20 * second,
            build: || Box::new(GtpTarget::new()),
        },
        Target {
            name: "web-api",
            about: "sessions of web API requests and JSON bodies",
            bound: 20 * second,
            build: || Box::new(WebApiTarget::new()),
        },
        Target {
            name: "http",
            about: "raw bytes to the running web server",
            bound: 20 * second,
            build: || Box::new(HttpTarget::new()),
        },
        Target {
            name: "notation",
            about: "move notation both ways, every game",
            bound: 10 * second,
            build: || Box::new(NotationTarget::new()),
        },
        Target {
            name: "fen",
            about: "chess positions in FEN",
            bound: 10 * second,
            build: || Box::new(FenTarget::new()),
        },
        Target {
            name: "specs",
            about: "game specs and player specs",
            bound: 10 * second,
            build: || Box::new(SpecsTarget::new()),
        },
        Target {
            name: "config",
            about: "config TOML and --set values",
            bound: 10 * second,
            build: || Box::new(ConfigTarget::new()),
        },
        Target {
            name: "records",
            about: "game record lines, checked and turned into training samples",
            bound: 10 * second,
            build: || Box::new(RecordsTarget::new()),
        },
        Target {
            name: "checkpoint",
            about: "checkpoint files: cut, bit-flipped, reshaped, another game's",
            bound: 10 * second,
            build: || Box::new(CheckpointTarget::new()),
        },
    ]
}

/// A random game: the positions on the way (the last one too), the actions and their
/// notation.
struct Playout<G> {
    positions: Vec<G>,
    actions: Vec<zerosum_games::Action>,
    moves: Vec<String>,
}

/// Plays random moves from `game` to its end or `max_plies`.
fn random_game<G: Game>(game: &G, rng: &mut SmallRng, max_plies: usize) -> Playout<G> {
    let mut position = game.clone();
    let mut playout = Playout {
        positions: Vec::new(),
        actions: Vec::new(),
        moves: Vec::new(),
    };
    while !position.is_terminal() && playout.actions.len() < max_plies {
        let legal = position.legal_action_vec();
        let action = legal[rng.random_range(0..legal.len())];
        playout.positions.push(position.clone());
        playout.moves.push(position.format_action(action));
        playout.actions.push(action);
        position.apply(action);
    }
    playout.positions.push(position);
    playout
}

/// Lines of a session: mostly from `templates`, some of the target's words, some mutated.
fn session(rng: &mut SmallRng, mutator: &Mutator, templates: &[String], lines: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.random_range(1..=lines) {
        let line = match rng.random_range(0..10) {
            0..=5 => templates[rng.random_range(0..templates.len())]
                .clone()
                .into_bytes(),
            6 => mutator.line(rng, 6).into_bytes(),
            _ => {
                let template = &templates[rng.random_range(0..templates.len())];
                mutator.mutate(rng, template.as_bytes())
            }
        };
        out.extend(line);
        out.push(b'\n');
    }
    out
}

struct UciTarget {
    mutator: Mutator,
    templates: Vec<String>,
}

impl UciTarget {
    fn new() -> UciTarget {
        let mut rng = SmallRng::seed_from_u64(7);
        let Playout {
            positions, moves, ..
        } = random_game(&Chess::new(), &mut rng, 40);
        let mut templates: Vec<String> = [
            "uci",
            "isready",
            "ucinewgame",
            "debug on",
            "stop",
            "ponderhit",
            "position startpos",
            "go",
            "go nodes 12",
            "go depth 3",
            "go movetime 30",
            "go movetime 1000000000000",
            "go infinite",
            "go ponder",
            "go wtime 300 btime 300 winc 10 binc 10 movestogo 5",
            "go searchmoves e2e4 d2d4 nodes 5",
            "go mate 3",
            "setoption name Nodes value 9",
            "setoption name Hash value 1",
            "setoption name Move Overhead value 10",
            "setoption name UCI_Chess960 value true",
            "register later",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        templates.push(format!("position startpos moves {}", moves.join(" ")));
        for position in positions.iter().step_by(7) {
            templates.push(format!(
                "position fen {} moves {}",
                position.to_fen(),
                moves[0]
            ));
            templates.push(format!("position fen {}", position.to_fen()));
        }
        let mut words: Vec<&str> = uci::COMMANDS.to_vec();
        words.extend([
            "name",
            "value",
            "startpos",
            "fen",
            "moves",
            "nodes",
            "movetime",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "infinite",
            "depth",
            "Hash",
            "Nodes",
            "e2e4",
            "e7e8q",
            "0000",
            "a1a1",
            "-",
            "w",
            "b",
            "KQkq",
        ]);
        words.extend(moves.iter().map(String::as_str));
        UciTarget {
            mutator: Mutator::new(&words),
            templates,
        }
    }
}

impl Harness for UciTarget {
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        session(rng, &self.mutator, &self.templates, 12)
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let captured = Transcript::default();
        let out: Output = Arc::new(Mutex::new(Box::new(captured.clone())));
        let searcher = Searcher::rollouts(1);
        let settings = UciSettings {
            nodes: 16,
            info_interval: Some(Duration::from_millis(5)),
            hash_mib: 16,
            max_search: Duration::from_millis(50),
        };
        let mut engine = UciEngine::new(Chess::new(), searcher, out, settings);
        uci::run_loop(&mut engine, std::io::Cursor::new(input.to_vec()))
            .map_err(|e| format!("the loop failed: {e}"))?;
        drop(engine);
        // Every `isready` before `quit` gets its `readyok`.
        let text = String::from_utf8_lossy(input);
        let mut asked = 0;
        for line in text.split('\n') {
            let words: Vec<&str> = line.split_whitespace().collect();
            match uci::command_at(&words).map(|i| words[i]) {
                Some("isready") => asked += 1,
                Some("quit") => break,
                _ => {}
            }
        }
        let answered = captured.lines().iter().filter(|l| *l == "readyok").count();
        if answered != asked {
            return Err(format!("{asked} isready, {answered} readyok"));
        }
        Ok(())
    }
}

struct GtpTarget {
    mutator: Mutator,
    /// For each game of [`GAMES`]: its session lines.
    templates: Vec<Vec<String>>,
}

impl GtpTarget {
    fn new() -> GtpTarget {
        let mut rng = SmallRng::seed_from_u64(8);
        let mut words: Vec<String> = zerosum_protocols::gtp::COMMANDS
            .iter()
            .map(|c| c.to_string())
            .collect();
        words.extend(["b", "w", "black", "white", "pass", "resign", "#", "\t"].map(String::from));
        let mut templates = Vec::new();
        for spec in GAMES {
            let game = parse_game(spec).expect("the fuzz games exist");
            let moves = with_game!(&game, g => random_game(g, &mut rng, 30).moves);
            let mut lines: Vec<String> = zerosum_protocols::gtp::COMMANDS
                .iter()
                .map(|c| c.to_string())
                .collect();
            for (i, m) in moves.iter().enumerate() {
                let colour = if i % 2 == 0 { "b" } else { "w" };
                lines.push(format!("play {colour} {m}"));
                lines.push(format!("{i} play {colour} {m}"));
            }
            lines.extend(
                [
                    "genmove b",
                    "genmove w",
                    "boardsize 7",
                    "boardsize 19",
                    "boardsize 0",
                    "komi 6.5",
                    "komi -1e30",
                    "known_command genmove",
                    "undo",
                ]
                .map(String::from),
            );
            words.extend(moves);
            templates.push(lines);
        }
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        GtpTarget {
            mutator: Mutator::new(&words),
            templates,
        }
    }
}

impl Harness for GtpTarget {
    /// The first line names the game (an index into [`GAMES`]); the rest is the session.
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let game = rng.random_range(0..GAMES.len());
        let mut input = format!("{game}\n").into_bytes();
        input.extend(session(rng, &self.mutator, &self.templates[game], 16));
        input
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let split = input
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(input.len());
        let index: usize = std::str::from_utf8(&input[..split])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
            % GAMES.len();
        let session = input.get(split + 1..).unwrap_or_default().to_vec();
        let game = parse_game(GAMES[index]).expect("the fuzz games exist");
        with_game!(game, g => {
            let agent = MctsAgent::new(
                "mcts:4".into(),
                Box::new(RolloutEvaluator::new(1, 1)),
                SearchConfig::default(),
                4,
            );
            let mut engine = GtpEngine::new(g, Box::new(agent), SmallRng::seed_from_u64(1))
                .with_rebuild(registry_rebuild());
            zerosum_protocols::gtp::run_loop(
                &mut engine,
                std::io::Cursor::new(session),
                std::io::sink(),
            )
            .map_err(|e| format!("the loop failed: {e}"))
        })
    }
}

/// A web engine for connect four with rollout agents on one search thread, resigning lost
/// games.
fn web_engine(sims: usize) -> Engine<zerosum_games::connect_four::ConnectFour> {
    let initial = zerosum_games::connect_four::ConnectFour::new();
    let factory = AgentFactory {
        initial,
        spec: zerosum_players::PlayerSpec::Mcts { sims },
        search: SearchConfig::default(),
        device: Device::Cpu,
        seed: 1,
    };
    let pool = SearchPool::start(1, factory, sims).expect("rollout agents start");
    let info = Info {
        game: initial.name(),
        short_name: "connect4".into(),
        agent: "rollout MCTS".into(),
        default_sims: sims,
        max_sims: 64,
        // Rollout values reach it in lost games, so some sessions end resigned.
        resign_below: Some(-0.5),
    };
    Engine::new(initial, info, pool, 8)
}

/// A request of a session: `{id}` in the path stands for the last game made.
#[derive(serde::Serialize, serde::Deserialize)]
struct ApiRequest {
    method: String,
    path: String,
    body: String,
}

struct WebApiTarget {
    engine: Engine<zerosum_games::connect_four::ConnectFour>,
    mutator: Mutator,
}

impl WebApiTarget {
    fn new() -> WebApiTarget {
        WebApiTarget {
            engine: web_engine(8),
            mutator: Mutator::new(&[
                "{",
                "}",
                "[",
                "]",
                "\"",
                ":",
                ",",
                "null",
                "true",
                "\"first\"",
                "\"second\"",
                "\"sims\"",
                "\"human\"",
                "\"move\"",
                "\"d\"",
                "\"a\"",
                "\\u0000",
                "/api",
                "/games",
                "/{id}",
                "/move",
                "/agent",
                "/analyse",
                "/undo",
                "/info",
                "..",
                "%2e",
            ]),
        }
    }

    fn request(&self, rng: &mut SmallRng) -> ApiRequest {
        const ROUTES: &[(&str, &str, &str)] = &[
            ("POST", "/api/games", r#"{"human": "first", "sims": 4}"#),
            ("POST", "/api/games", r#"{"human": "second"}"#),
            ("POST", "/api/games", ""),
            ("GET", "/api/info", ""),
            ("GET", "/api/games/{id}", ""),
            ("POST", "/api/games/{id}/move", r#"{"move": "d"}"#),
            ("POST", "/api/games/{id}/move", r#"{"move": "a"}"#),
            ("POST", "/api/games/{id}/agent", r#"{"sims": 3}"#),
            ("POST", "/api/games/{id}/analyse", "{}"),
            ("POST", "/api/games/{id}/undo", ""),
            ("DELETE", "/api/games/{id}", ""),
            ("GET", "/", ""),
            ("GET", "/app.js", ""),
        ];
        let (method, path, body) = ROUTES[rng.random_range(0..ROUTES.len())];
        let mut request = ApiRequest {
            method: method.into(),
            path: path.into(),
            body: body.into(),
        };
        let mutated = |rng: &mut SmallRng, text: &str| {
            String::from_utf8_lossy(&self.mutator.mutate(rng, text.as_bytes())).into_owned()
        };
        match rng.random_range(0..6) {
            0 => request.body = mutated(rng, &request.body),
            1 => request.path = mutated(rng, &request.path),
            2 => {
                request.method =
                    ["GET", "POST", "PUT", "DELETE", "get", ""][rng.random_range(0..6)].into()
            }
            _ => {}
        }
        request
    }
}

impl Harness for WebApiTarget {
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let mut requests: Vec<ApiRequest> = (0..rng.random_range(1..10))
            .map(|_| self.request(rng))
            .collect();
        // Most sessions make a game first, so that the requests after it reach one.
        if rng.random_bool(0.9) {
            requests.insert(
                0,
                ApiRequest {
                    method: "POST".into(),
                    path: "/api/games".into(),
                    body: r#"{"sims": 2}"#.into(),
                },
            );
        }
        serde_json::to_vec(&requests).expect("requests serialise")
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let requests: Vec<ApiRequest> =
            serde_json::from_slice(input).map_err(|e| format!("a bad session: {e}"))?;
        let mut id = String::from("none");
        for request in requests {
            let path = request.path.replace("{id}", &id);
            let response = self.engine.handle(&Request {
                method: request.method.clone(),
                path: path.clone(),
                body: request.body.into_bytes(),
            });
            let context = || format!("{} {path}: {}", request.method, response.status);
            if !matches!(
                response.status,
                200 | 201 | 400 | 404 | 405 | 409 | 413 | 415 | 503
            ) {
                return Err(format!("status {}", context()));
            }
            if response.content_type == "application/json" {
                let body: serde_json::Value = serde_json::from_slice(&response.body)
                    .map_err(|e| format!("{}: the body is not JSON: {e}", context()))?;
                if let Some(new_id) = body.get("id").and_then(|v| v.as_str()) {
                    id = new_id.to_string();
                }
            } else if !path.split('?').next().unwrap_or("/").starts_with("/api") {
                continue;
            } else {
                return Err(format!("{}: an API answer that is not JSON", context()));
            }
        }
        Ok(())
    }
}

struct HttpTarget {
    address: SocketAddr,
    mutator: Mutator,
}

/// Sends `bytes` as one connection and reads the answer (what arrives within 10 s).
fn exchange(address: SocketAddr, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    // The server may answer and close before it has read everything: that is fine.
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    Ok(answer)
}

const INFO_REQUEST: &[u8] = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

impl HttpTarget {
    fn new() -> HttpTarget {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().expect("a bound address");
        let engine = web_engine(4);
        std::thread::Builder::new()
            .name("fuzz-http-server".into())
            .spawn(move || zerosum_web::serve(listener, engine, Default::default()))
            .expect("the server thread starts");
        HttpTarget {
            address,
            mutator: Mutator::new(&[
                "\r\n",
                "\r\n\r\n",
                "\n",
                " ",
                ":",
                "GET",
                "POST",
                "HTTP/1.1",
                "HTTP/1.0",
                "HTTP/2",
                "Host: 127.0.0.1",
                "Host: evil.example",
                "Host:",
                "Content-Length: ",
                "Content-Length: 5",
                "Content-Length: 99999999999",
                "Content-Length: -1",
                "Transfer-Encoding: chunked",
                "Connection: keep-alive",
                "Expect: 100-continue",
                "/api/games",
                "/api/info",
                "{\"sims\": 2}",
            ]),
        }
    }
}

impl Harness for HttpTarget {
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let templates: [&[u8]; 4] = [
            INFO_REQUEST,
            b"POST /api/games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"sims\": 2}\n",
            b"GET / HTTP/1.1\r\nHost: [::1]:8080\r\nAccept: */*\r\n\r\n",
            b"DELETE /api/games/abc HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n",
        ];
        let template = templates[rng.random_range(0..templates.len())];
        if rng.random_bool(0.1) {
            template.to_vec()
        } else {
            self.mutator.mutate(rng, template)
        }
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let answer = exchange(self.address, input).map_err(|e| format!("cannot connect: {e}"))?;
        if !answer.is_empty() && !answer.starts_with(b"HTTP/1.") {
            return Err(format!(
                "an answer that is not HTTP: {}",
                String::from_utf8_lossy(&answer[..answer.len().min(80)])
            ));
        }
        let health = exchange(self.address, INFO_REQUEST).map_err(|e| e.to_string())?;
        if !health.starts_with(b"HTTP/1.1 200") {
            return Err(format!(
                "the server stopped answering: {}",
                String::from_utf8_lossy(&health[..health.len().min(80)])
            ));
        }
        Ok(())
    }
}

struct NotationTarget {
    mutator: Mutator,
}

impl NotationTarget {
    fn new() -> NotationTarget {
        let mut rng = SmallRng::seed_from_u64(9);
        let mut words: Vec<String> = ["pass", "resign", "x", "-", "=", "O-O", "0000", "@"]
            .map(String::from)
            .to_vec();
        for spec in GAMES {
            let game = parse_game(spec).expect("the fuzz games exist");
            words.extend(with_game!(&game, g => random_game(g, &mut rng, 20).moves));
        }
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        NotationTarget {
            mutator: Mutator::new(&words),
        }
    }
}

/// Checks `text` read in `position`: an action read is in range, and a legal one reads
/// back the same from its own notation (an illegal one is refused by every caller anyway).
fn read_back<G: Game>(position: &G, text: &str) -> Result<(), String> {
    let Ok(action) = position.parse_action(text) else {
        return Ok(());
    };
    if action >= position.num_actions() {
        return Err(format!("'{text}' read as action {action}, out of range"));
    }
    if !position.is_legal(action) {
        return Ok(());
    }
    let written = position.format_action(action);
    match position.parse_action(&written) {
        Ok(again) if again == action => Ok(()),
        other => Err(format!("'{text}' -> {action} -> '{written}' -> {other:?}")),
    }
}

impl Harness for NotationTarget {
    /// A game index, a seed for the random game it is read in, then texts, one a line.
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let mut input = format!(
            "{}\n{}\n",
            rng.random_range(0..GAMES.len()),
            rng.random::<u32>()
        )
        .into_bytes();
        for _ in 0..rng.random_range(1..8) {
            let token = self.mutator.token(rng);
            let text = if rng.random_bool(0.7) {
                self.mutator.mutate(rng, token.as_bytes())
            } else {
                token.into_bytes()
            };
            input.extend(text.iter().filter(|&&b| b != b'\n'));
            input.push(b'\n');
        }
        input
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        let mut lines = text.split('\n');
        let index: usize = lines.next().and_then(|l| l.parse().ok()).unwrap_or(0) % GAMES.len();
        let seed: u64 = lines.next().and_then(|l| l.parse().ok()).unwrap_or(0);
        let texts: Vec<&str> = lines.collect();
        let game = parse_game(GAMES[index]).expect("the fuzz games exist");
        with_game!(&game, g => {
            let mut rng = SmallRng::seed_from_u64(seed);
            let playout = random_game(g, &mut rng, 60);
            for position in playout.positions.iter().step_by(5) {
                for action in position.legal_action_vec() {
                    let written = position.format_action(action);
                    if position.parse_action(&written).ok() != Some(action) {
                        return Err(format!("{} writes action {action} as '{written}', which does not read back", GAMES[index]));
                    }
                }
                for text in &texts {
                    read_back(position, text)?;
                }
            }
            Ok(())
        })
    }
}

struct FenTarget {
    mutator: Mutator,
    fens: Vec<String>,
}

impl FenTarget {
    fn new() -> FenTarget {
        let mut rng = SmallRng::seed_from_u64(10);
        let mut fens = vec![
            zerosum_games::chess::START_FEN.to_string(),
            "8/8/8/8/8/8/8/8 w - - 0 1".into(),
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1".into(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2".into(),
        ];
        for _ in 0..5 {
            let playout = random_game(&Chess::new(), &mut rng, 120);
            fens.extend(playout.positions.iter().step_by(15).map(Chess::to_fen));
        }
        FenTarget {
            mutator: Mutator::new(&[
                "K", "k", "Q", "q", "R", "r", "B", "b", "N", "n", "P", "p", "8", "1", "/", "w",
                "-", "KQkq", "e3", "e6", "a9", " ",
            ]),
            fens,
        }
    }
}

impl Harness for FenTarget {
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let fen = &self.fens[rng.random_range(0..self.fens.len())];
        if rng.random_bool(0.1) {
            fen.clone().into_bytes()
        } else {
            self.mutator.mutate(rng, fen.as_bytes())
        }
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        let Ok(position) = Chess::from_fen(&text) else {
            return Ok(());
        };
        let fen = position.to_fen();
        match Chess::from_fen(&fen) {
            Ok(again) if again.to_fen() == fen => {}
            other => {
                return Err(format!(
                    "'{text}' was read, but its FEN '{fen}' reads as {other:?}"
                ))
            }
        }
        // A position that reads plays: a few random moves from it.
        let mut rng = SmallRng::seed_from_u64(input.len() as u64);
        random_game(&position, &mut rng, 20);
        Ok(())
    }
}

struct SpecsTarget {
    mutator: Mutator,
    specs: Vec<String>,
}

impl SpecsTarget {
    fn new() -> SpecsTarget {
        let mut specs: Vec<String> = GAMES.iter().map(|s| s.to_string()).collect();
        specs.extend(
            [
                "go:size=19,komi=0.5,max_moves=400",
                "oware:repetition=true,max_turns=200",
                "chess:max_plies=300",
                "pushfight:max_plies=100",
                "mcts:400",
                "mc:100",
                "uct:200,c=1.4",
                "random",
                "perfect",
                "human",
                "checkpoint:runs/c4/checkpoints/latest,sims=50",
                "checkpoint:s3://bucket/run",
            ]
            .map(String::from),
        );
        SpecsTarget {
            mutator: Mutator::new(&[
                ":",
                ",",
                "=",
                "size",
                "komi",
                "rows",
                "cols",
                "k",
                "sims",
                "max_moves",
                "c",
                "checkpoint",
                "mcts",
                "gtp",
                "go",
                "connect4",
            ]),
            specs,
        }
    }
}

impl Harness for SpecsTarget {
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let spec = &self.specs[rng.random_range(0..self.specs.len())];
        self.mutator.mutate(rng, spec.as_bytes())
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        if let Ok(game) = parse_game(&text) {
            // A game that builds has a first move (or is over) and a name that reads back.
            let name = game.name();
            with_game!(&game, g => { g.legal_action_vec(); });
            let again = parse_game(&name)
                .map_err(|e| format!("'{text}' made {name}, which does not read back: {e}"))?;
            if again.name() != name {
                return Err(format!(
                    "'{text}' made {name}, which reads back as {}",
                    again.name()
                ));
            }
            let _ = set_param(&name, "size", "9");
        }
        let _ = text.parse::<PlayerSpec>();
        Ok(())
    }
}

struct ConfigTarget {
    mutator: Mutator,
    configs: Vec<String>,
}

impl ConfigTarget {
    fn new() -> ConfigTarget {
        let configs: Vec<String> = GAMES
            .iter()
            .filter_map(|spec| default_config(spec).ok())
            .collect();
        ConfigTarget {
            mutator: Mutator::new(&[
                "=",
                "[",
                "]",
                "[[",
                "]]",
                "\"",
                "'",
                "#",
                "\n",
                "true",
                "false",
                "generations",
                "max_minutes",
                "seed",
                "[model]",
                "family",
                "\"resnet\"",
                "\"mlp\"",
                "channels",
                "blocks",
                "[search]",
                "num_simulations",
                "[self_play]",
                "games_per_generation",
                "[replay]",
                "window_positions",
                "[learner]",
                "learning_rate",
                "lr_schedule",
                "[arena]",
                "baselines",
                "\"perfect\"",
                "mode",
                "\"async\"",
                "game",
                "\"go\"",
            ]),
            configs,
        }
    }
}

impl Harness for ConfigTarget {
    /// A TOML text, then `--set` values after a line `#--set`, one a line.
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let config = &self.configs[rng.random_range(0..self.configs.len())];
        let mut input = if rng.random_bool(0.5) {
            self.mutator.mutate(rng, config.as_bytes())
        } else {
            config.clone().into_bytes()
        };
        input.extend(b"\n#--set\n");
        for _ in 0..rng.random_range(0..4) {
            let set = format!("{}={}", self.mutator.token(rng), self.mutator.token(rng));
            let set = self.mutator.mutate(rng, set.as_bytes());
            input.extend(set.iter().filter(|&&b| b != b'\n'));
            input.push(b'\n');
        }
        input
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        let (toml, sets) = text.split_once("\n#--set\n").unwrap_or((&text, ""));
        let sets: Vec<String> = sets.lines().map(str::to_string).collect();
        if let Ok(config) = RunConfig::from_toml(toml, &sets).and_then(RunConfig::resolve) {
            // A config that resolves names a game that builds.
            parse_game(&config.game).map_err(|e| format!("resolved, but its game fails: {e}"))?;
        }
        Ok(())
    }
}

struct RecordsTarget {
    mutator: Mutator,
    batches: Vec<String>,
}

impl RecordsTarget {
    fn new() -> RecordsTarget {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut batches = Vec::new();
        for spec in GAMES {
            let game = parse_game(spec).expect("the fuzz games exist");
            let lines: Vec<String> = (0..3)
                .map(|_| {
                    with_game!(&game, g => {
                        let playout = random_game(g, &mut rng, 400);
                        let stats = playout.positions[..playout.actions.len()]
                            .iter()
                            .map(|position| {
                                let legal = position.legal_action_vec();
                                let share = 1.0 / legal.len() as f32;
                                rng.random_bool(0.5).then(|| MoveStats {
                                    policy: legal.iter().map(|&a| (a, share)).collect(),
                                    value: rng.random_range(-1.0..=1.0),
                                    surprise: rng.random_range(0.0..=2.0),
                                })
                            })
                            .collect();
                        let record = GameRecord::new(g, ["a".into(), "b".into()], playout.actions, stats);
                        serde_json::to_string(&record).expect("records serialise")
                    })
                })
                .collect();
            batches.push(lines.join("\n") + "\n");
        }
        RecordsTarget {
            mutator: Mutator::new(&[
                "\"actions\"",
                "\"stats\"",
                "\"policy\"",
                "\"value\"",
                "\"result\"",
                "\"game\"",
                "\"value_first\"",
                "null",
                "[",
                "]",
                "{",
                "}",
                ",",
                ":",
                "\"1-0\"",
                "\"go:size=5\"",
            ]),
            batches,
        }
    }
}

impl Harness for RecordsTarget {
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let batch = &self.batches[rng.random_range(0..self.batches.len())];
        if rng.random_bool(0.05) {
            batch.clone().into_bytes()
        } else {
            self.mutator.mutate(rng, batch.as_bytes())
        }
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(input);
        let _ = zerosum_store::playback::parse_records(&text, Path::new("fuzz.jsonl"));
        let Ok(records) = zerosum_train::actor::parse_batch(&text, "fuzz") else {
            return Ok(());
        };
        for record in records {
            let Ok(game) = parse_game(&record.game) else {
                continue;
            };
            with_game!(&game, g => {
                if record.check(g).is_ok() {
                    // A record that passes its check replays and trains.
                    record.replay(g).map_err(|e| format!("checked, but does not replay: {e}"))?;
                    samples_from_record(g, &record, ValueTarget::RESULT, 1);
                    let score = ValueTarget {
                        score_weight: 0.5,
                        ..ValueTarget::RESULT
                    };
                    samples_from_record(g, &record, score, 1);
                }
            });
        }
        Ok(())
    }
}

struct CheckpointTarget {
    mutator: Mutator,
    /// A checkpoint of tic-tac-toe (mlp) and one of connect four (resnet).
    originals: [CheckpointBytes; 2],
}

impl CheckpointTarget {
    fn new() -> CheckpointTarget {
        let tiny = |family, game: &dyn Fn(&ModelConfig) -> Model| {
            let config = ModelConfig {
                family,
                hidden: 16,
                layers: 2,
                channels: 8,
                blocks: 1,
                value_hidden: 8,
                ..ModelConfig::default()
            };
            game(&config).to_bytes().expect("a checkpoint writes")
        };
        let ttt = zerosum_games::tic_tac_toe::TicTacToe::new();
        let c4 = zerosum_games::connect_four::ConnectFour::new();
        CheckpointTarget {
            mutator: Mutator::new(&[
                "\"game\"",
                "\"obs_shape\"",
                "\"num_actions\"",
                "\"channels\"",
                "\"blocks\"",
                "\"hidden\"",
                "\"family\"",
                "\"conv\"",
                "\"mlp\"",
                "F32",
                "F16",
                "I64",
                "\"dtype\"",
                "\"shape\"",
                "\"data_offsets\"",
                "[3,3,3]",
                "connect4",
                "tictactoe",
            ]),
            originals: [
                tiny(Family::Mlp, &|c| {
                    Model::for_game(&ttt, c, Device::Cpu).expect("a model")
                }),
                tiny(Family::Resnet, &|c| {
                    Model::for_game(&c4, c, Device::Cpu).expect("a model")
                }),
            ],
        }
    }
}

impl Harness for CheckpointTarget {
    /// Byte 0: the game to load into; byte 1: the checkpoint the bytes came from; then
    /// the sidecar's length (4 bytes), the sidecar and the weights.
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
        let (load, source) = (rng.random_range(0..2u8), rng.random_range(0..2u8));
        let original = &self.originals[source as usize];
        let (mut meta, mut weights) = (original.meta.clone(), original.weights.clone());
        match rng.random_range(0..5) {
            0 => meta = self.mutator.mutate(rng, &meta),
            1 => {
                // Flip bits in the weights' header or their data.
                for _ in 0..rng.random_range(1..8) {
                    let i = if rng.random_bool(0.5) {
                        rng.random_range(0..weights.len().min(400))
                    } else {
                        rng.random_range(0..weights.len())
                    };
                    weights[i] ^= 1 << rng.random_range(0..8);
                }
            }
            2 => weights.truncate(rng.random_range(0..weights.len())),
            3 => weights = self.mutator.mutate(rng, &weights[..weights.len().min(600)]),
            _ => {}
        }
        let mut input = vec![load, source];
        input.extend((meta.len() as u32).to_le_bytes());
        input.extend(meta);
        input.extend(weights);
        input
    }

    fn feed(&mut self, input: &[u8]) -> Result<(), String> {
        let (Some(&load), Some(length)) = (input.first(), input.get(2..6)) else {
            return Ok(());
        };
        let length = u32::from_le_bytes(length.try_into().expect("four bytes")) as usize;
        let meta = input.get(6..6 + length).unwrap_or_default().to_vec();
        let weights = input
            .get((6 + length).min(input.len())..)
            .unwrap_or_default()
            .to_vec();
        let bytes = CheckpointBytes { weights, meta };
        let origin = Path::new("fuzz");
        let loaded = if load % 2 == 0 {
            Model::from_bytes(
                &bytes,
                &zerosum_games::tic_tac_toe::TicTacToe::new(),
                Device::Cpu,
                origin,
            )
            .map(|_| ())
        } else {
            Model::from_bytes(
                &bytes,
                &zerosum_games::connect_four::ConnectFour::new(),
                Device::Cpu,
                origin,
            )
            .map(|_| ())
        };
        let untouched = self.originals.get(load as usize % 2) == Some(&bytes);
        match loaded {
            Err(e) if untouched => Err(format!("an untouched checkpoint does not load: {e}")),
            _ => Ok(()),
        }
    }
}
