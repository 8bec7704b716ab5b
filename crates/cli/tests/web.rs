//! `zerosum serve` over real HTTP on the loopback, without a browser: the binary is started
//! on a free port (`--port 0`), the URL it prints is parsed, and games are driven through
//! the JSON API with plain `TcpStream`s. Every loop is bounded by a game's length and every
//! socket by a timeout. scripts/browser-test.sh tests the page itself in Chromium.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// A running `zerosum serve`, stopped when dropped.
struct Server {
    child: Child,
    /// `127.0.0.1:PORT`
    address: String,
}

impl Server {
    fn start(game: &str, sims: usize) -> Server {
        Server::start_with(game, sims, &[])
    }

    /// A server with more flags.
    fn start_with(game: &str, sims: usize, flags: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zerosum"))
            .args([
                "serve",
                "--game",
                game,
                "--port",
                "0",
                "--search-threads",
                "1",
            ])
            .args(["--sims", &sims.to_string(), "--max-sims", "1000"])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("the server prints a line");
        let start = line
            .find("http://")
            .unwrap_or_else(|| panic!("no URL in the server's first line: {line:?}"));
        let address = line[start + "http://".len()..]
            .trim()
            .trim_end_matches('/')
            .to_string();
        assert!(address.starts_with("127.0.0.1:"), "{address}");
        Server { child, address }
    }

    /// Sends raw bytes and returns the status and the body.
    fn raw(&self, request: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).expect("the server accepts");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream
            .set_write_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).expect("a whole response");
        let response = String::from_utf8(response).expect("UTF-8 response");
        let (head, body) = response
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no header end in {response:?}"));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {head:?}"));
        (status, body.to_string())
    }

    /// A request with an optional JSON body; returns the status and the parsed body.
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let body = body.unwrap_or("");
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        );
        let (status, text) = self.raw(request.as_bytes());
        let value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text:?}"));
        (status, value)
    }

    /// A request that must succeed.
    fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let (status, value) = self.call(method, path, body.as_deref());
        assert!(
            status == 200 || status == 201,
            "{method} {path}: {status} {value}"
        );
        value
    }

    /// A request that must fail with `status` and a JSON error.
    fn fails(&self, method: &str, path: &str, body: Option<&str>, status: u16) -> String {
        let (got, value) = self.call(method, path, body);
        assert_eq!(got, status, "{method} {path} {body:?}: {value}");
        error_of(&value)
    }

    fn new_game(&self, human: &str) -> Value {
        self.ok("POST", "/api/games", Some(json!({ "human": human })))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_of(value: &Value) -> String {
    let message = value["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message in {value}"));
    assert!(
        !message.is_empty() && !message.contains('\n'),
        "{message:?}"
    );
    message.to_string()
}

fn id_of(state: &Value) -> String {
    state["id"].as_str().expect("a state has an id").to_string()
}

/// The notation of the first legal move.
fn first_legal(state: &Value) -> String {
    state["legal"][0]["notation"]
        .as_str()
        .expect("a legal move")
        .to_string()
}

/// Plays a whole game, the person always taking the first legal move, and checks each
/// state on the way; returns the final state.
fn play_out(server: &Server, mut state: Value, max_moves: usize) -> Value {
    let id = id_of(&state);
    for _ in 0..=max_moves {
        match state["status"].as_str().unwrap() {
            "over" => break,
            "human_to_move" => {
                let ply = state["ply"].as_u64().unwrap();
                let notation = first_legal(&state);
                state = server.ok(
                    "POST",
                    &format!("/api/games/{id}/move"),
                    Some(json!({ "move": notation })),
                );
                assert_eq!(state["ply"].as_u64().unwrap(), ply + 1);
                assert_eq!(
                    state["moves"].as_array().unwrap().last().unwrap(),
                    &notation
                );
            }
            "agent_to_move" => {
                let ply = state["ply"].as_u64().unwrap();
                state = server.ok("POST", &format!("/api/games/{id}/agent"), None);
                assert_eq!(state["ply"].as_u64().unwrap(), ply + 1);
                let analysis = &state["analysis"];
                assert_eq!(analysis["ply"].as_u64().unwrap(), ply);
                assert_eq!(
                    &analysis["played"],
                    state["moves"].as_array().unwrap().last().unwrap()
                );
                let shares: f64 = analysis["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["share"].as_f64().unwrap())
                    .sum();
                assert!((shares - 1.0).abs() < 1e-3, "shares sum to {shares}");
                let value = analysis["value"].as_f64().unwrap();
                assert!((-1.0..=1.0).contains(&value));
                assert_eq!(
                    analysis["value_for_human"].as_f64().unwrap(),
                    -value,
                    "the agent moved, so the person sees the opposite value"
                );
            }
            other => panic!("unknown status {other}"),
        }
    }
    assert_eq!(
        state["status"], "over",
        "the game ended within {max_moves} moves"
    );
    state
}

/// Checks a finished game's result against its board and moves.
fn check_finished(state: &Value) {
    let ply = state["ply"].as_u64().unwrap() as usize;
    assert_eq!(state["moves"].as_array().unwrap().len(), ply);
    assert!(state["legal"].as_array().unwrap().is_empty());
    assert_eq!(state["to_move"], Value::Null);
    let pieces = state["board"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c.is_null())
        .count();
    assert_eq!(pieces, ply, "one piece per move");
    let result = &state["result"];
    let human = state["human"].as_u64().unwrap();
    let (for_human, score) = match result["winner"].as_u64() {
        None => ("draw", "1/2-1/2"),
        Some(w) => (
            if w == human { "win" } else { "loss" },
            if w == 0 { "1-0" } else { "0-1" },
        ),
    };
    assert_eq!(result["for_human"], for_human, "{result}");
    assert_eq!(result["score"], score, "{result}");
}

#[test]
fn whole_games_through_the_api() {
    let connect4 = Server::start("connect4", 20);
    let state = connect4.new_game("first");
    assert_eq!(state["status"], "human_to_move");
    assert_eq!(state["board"]["rows"], 6);
    assert_eq!(state["board"]["cols"], 7);
    assert_eq!(state["legal"].as_array().unwrap().len(), 7);
    let last = play_out(&connect4, state, 42);
    check_finished(&last);
    // The game stays readable after it ends, and refuses more moves.
    let id = id_of(&last);
    let again = connect4.ok("GET", &format!("/api/games/{id}"), None);
    assert_eq!(again["moves"], last["moves"]);
    connect4.fails(
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "a"}"#),
        409,
    );
    connect4.fails("POST", &format!("/api/games/{id}/agent"), None, 409);

    let tictactoe = Server::start("tictactoe", 50);
    let state = tictactoe.new_game("second");
    assert_eq!(state["status"], "agent_to_move");
    let last = play_out(&tictactoe, state, 9);
    check_finished(&last);
}

#[test]
fn undo_and_hint() {
    let server = Server::start("tictactoe", 30);
    let state = server.new_game("first");
    let id = id_of(&state);
    server.fails("POST", &format!("/api/games/{id}/undo"), None, 409);
    server.ok(
        "POST",
        &format!("/api/games/{id}/move"),
        Some(json!({ "move": "b2" })),
    );
    server.ok("POST", &format!("/api/games/{id}/agent"), None);
    let hint = server.ok(
        "POST",
        &format!("/api/games/{id}/analyse"),
        Some(json!({ "sims": 40 })),
    );
    assert_eq!(hint["ply"], 2, "a hint plays nothing");
    assert_eq!(hint["analysis"]["ply"], 2);
    assert_eq!(hint["analysis"]["sims"], 40);
    assert_eq!(hint["analysis"]["played"], Value::Null);
    assert_eq!(hint["analysis"]["moves"].as_array().unwrap().len(), 7);
    let undone = server.ok("POST", &format!("/api/games/{id}/undo"), None);
    assert_eq!(undone["ply"], 0);
    assert_eq!(undone["status"], "human_to_move");
    assert_eq!(
        undone["analysis"],
        Value::Null,
        "the hint was about a later position"
    );
}

/// `--resign-below`: the shipped 5x5 model as White knows the game lost after Black's C3
/// (5x5 Go is a win for Black) and resigns its third move at -0.9; the game is then over,
/// won by the person, until an undo takes the last move back.
#[test]
fn the_agent_resigns_a_lost_game_when_asked() {
    let server = Server::start_with("go:size=5", 400, &["--resign-below", "-0.9"]);
    let id = id_of(&server.new_game("first"));
    let mut state = Value::Null;
    for human in ["c3", "d3", "b2"] {
        let path = format!("/api/games/{id}/move");
        server.ok("POST", &path, Some(json!({ "move": human })));
        state = server.ok("POST", &format!("/api/games/{id}/agent"), None);
    }
    assert_eq!(state["status"], "over", "{state}");
    assert_eq!(state["ply"], 5, "the resignation plays nothing");
    assert_eq!(state["to_move"], Value::Null);
    assert_eq!(state["result"]["resigned"], true);
    assert_eq!(state["result"]["for_human"], "win");
    assert_eq!(state["result"]["winner"], 0);
    assert!(
        state["analysis"]["value"].as_f64().unwrap() <= -0.9,
        "{state}"
    );
    assert_eq!(state["analysis"]["played"], Value::Null);
    assert_eq!(state["legal"], json!([]), "nothing is legal once over");
    let over = server.fails(
        "POST",
        &format!("/api/games/{id}/move"),
        Some(r#"{"move": "a1"}"#),
        409,
    );
    assert!(over.contains("the game is over"), "{over}");
    server.fails("POST", &format!("/api/games/{id}/agent"), None, 409);
    let undone = server.ok("POST", &format!("/api/games/{id}/undo"), None);
    assert_eq!(undone["status"], "human_to_move");
    assert_eq!(undone["ply"], 4);
    assert_eq!(undone["result"], Value::Null);
    assert!(!undone["legal"].as_array().unwrap().is_empty());
}

#[test]
fn bad_requests_get_4xx_and_a_json_error() {
    let server = Server::start("tictactoe", 10);
    let state = server.new_game("first");
    let id = id_of(&state);
    let play = format!("/api/games/{id}/move");

    let message = server.fails("GET", "/api/games/0123456789abcdef", None, 404);
    assert!(message.contains("0123456789abcdef"), "{message}");
    server.fails(
        "POST",
        "/api/games/nope/move",
        Some(r#"{"move":"a1"}"#),
        404,
    );
    server.fails("GET", "/no/such/path", None, 404);
    server.fails("GET", &format!("/api/games/{id}/resign"), None, 405);
    server.fails("POST", &format!("/api/games/{id}/resign"), None, 404);
    server.fails("PUT", "/api/games", None, 405);
    server.fails("POST", "/api/info", None, 405);

    let message = server.fails("POST", &play, Some(r#"{"move": "#), 400);
    assert!(message.contains("malformed JSON"), "{message}");
    server.fails("POST", &play, Some("[1, 2]"), 400);
    server.fails("POST", &play, Some(r#"{"move": "a1", "extra": 1}"#), 400);
    server.fails("POST", &play, None, 400);
    server.fails("POST", &play, Some(r#"{"move": "z9"}"#), 400);
    server.fails("POST", "/api/games", Some(r#"{"human": "both"}"#), 400);
    server.fails("POST", "/api/games", Some(r#"{"sims": 0}"#), 400);
    server.fails("POST", "/api/games", Some(r#"{"sims": 1001}"#), 400);
    server.fails("POST", &format!("/api/games/{id}/agent"), None, 409);

    server.ok("POST", &play, Some(json!({ "move": "b2" })));
    server.ok("POST", &format!("/api/games/{id}/agent"), None);
    let message = server.fails("POST", &play, Some(r#"{"move": "b2"}"#), 400);
    assert!(message.contains("illegal"), "{message}");

    // Requests the HTTP layer refuses: too large, chunked, not for the loopback, garbage.
    let big = format!(
        "POST {play} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n",
        server.address,
        1 << 20
    );
    let (status, body) = server.raw(big.as_bytes());
    assert_eq!(status, 413, "{body}");
    error_of(&serde_json::from_str(&body).unwrap());
    let chunked = format!(
        "POST {play} HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        server.address
    );
    assert_eq!(server.raw(chunked.as_bytes()).0, 411);
    let (status, _) = server.raw(b"GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n");
    assert_eq!(status, 400);
    // Not HTTP at all: hyper's own bare 400.
    let (status, _) = server.raw(b"hello there\r\n\r\n");
    assert_eq!(status, 400);

    // After all that, the game is as it was.
    let state = server.ok("GET", &format!("/api/games/{id}"), None);
    assert_eq!(state["ply"], 2);
}

#[test]
fn sessions_are_independent() {
    let server = Server::start("tictactoe", 20);
    let a = id_of(&server.new_game("first"));
    let b = id_of(&server.new_game("first"));
    assert_ne!(a, b);
    server.ok(
        "POST",
        &format!("/api/games/{a}/move"),
        Some(json!({ "move": "a1" })),
    );
    let state_b = server.ok("GET", &format!("/api/games/{b}"), None);
    assert_eq!(state_b["ply"], 0, "a move in one game shows in no other");
    server.ok(
        "POST",
        &format!("/api/games/{b}/move"),
        Some(json!({ "move": "c3" })),
    );
    let state_a = server.ok("GET", &format!("/api/games/{a}"), None);
    assert_eq!(state_a["moves"], json!(["a1"]));

    // Four games played at once from four threads, each to its end.
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let server = &server;
                scope.spawn(move || {
                    let side = if i % 2 == 0 { "first" } else { "second" };
                    let state = server.new_game(side);
                    let last = play_out(server, state, 9);
                    check_finished(&last);
                    (id_of(&last), last["moves"].clone())
                })
            })
            .collect();
        for handle in handles {
            let (id, moves) = handle.join().expect("a game thread finished");
            let state = server.ok("GET", &format!("/api/games/{id}"), None);
            assert_eq!(state["moves"], moves);
        }
    });
    server.ok("DELETE", &format!("/api/games/{a}"), None);
    server.fails("GET", &format!("/api/games/{a}"), None, 404);
    assert_eq!(server.ok("GET", &format!("/api/games/{b}"), None)["ply"], 1);
}

#[test]
fn the_page_is_served_by_the_binary() {
    let server = Server::start("connect4", 10);
    for (path, content_type) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        let mut stream = TcpStream::connect(&server.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{path}");
        // Header names are case-insensitive; hyper writes them in lower case.
        assert!(
            response
                .to_ascii_lowercase()
                .contains(&format!("content-type: {content_type}")),
            "{path}"
        );
        if path != "/favicon.svg" {
            assert!(
                !response.contains("http://") && !response.contains("https://"),
                "{path} refers to nothing outside the server"
            );
        }
    }
    let info = server.ok("GET", "/api/info", None);
    assert_eq!(info["short_name"], "connect4");
    assert_eq!(info["default_sims"], 10);
}

/// Every game of the registry can be played on the page: a drawn grid or, for games
/// without a layout yet, the text board and move buttons.
#[test]
fn every_registry_game_is_served() {
    for name in zerosum_games::registry::game_names() {
        let name = name.as_str();
        let server = Server::start(name, 2);
        let state = server.new_game("first");
        let id = id_of(&state);
        let board = &state["board"];
        let cells = board["rows"].as_u64().unwrap() * board["cols"].as_u64().unwrap();
        assert_eq!(
            board["cells"].as_array().unwrap().len() as u64,
            cells,
            "{name}"
        );
        assert!(!board["text"].as_str().unwrap().is_empty(), "{name}");
        assert!(!state["legal"].as_array().unwrap().is_empty(), "{name}");
        let notation = first_legal(&state);
        let state = server.ok(
            "POST",
            &format!("/api/games/{id}/move"),
            Some(json!({ "move": notation })),
        );
        if state["status"] == "agent_to_move" {
            let state = server.ok("POST", &format!("/api/games/{id}/agent"), None);
            assert_eq!(state["ply"], 2, "{name}");
        }
    }
}
