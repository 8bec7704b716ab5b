//! The engine behind the page: the assets, the JSON API and its routing.
//!
//! | request | body | answer |
//! |---|---|---|
//! | `GET /`, `/app.js`, `/style.css`, `/favicon.svg` | | the page, built into the binary |
//! | `GET /api/info` | | the game, the agent, the default and largest simulation counts, the resignation threshold |
//! | `POST /api/games` | `{"human": "first"\|"second", "sims": N}` (both optional) | 201, a new game's state |
//! | `GET /api/games/ID` | | the game's state |
//! | `POST /api/games/ID/move` | `{"move": "d"}` (design.md notation) | the state after the person's move |
//! | `POST /api/games/ID/agent` | `{"sims": N}` (optional) | the state after the agent's move or its resignation (`--resign-below`), with its search |
//! | `POST /api/games/ID/analyse` | `{"sims": N}` (optional) | the state with a search of the current position (a hint) |
//! | `POST /api/games/ID/undo` | | the state back at the person's previous turn |
//! | `DELETE /api/games/ID` | | `{"deleted": ID}` |
//!
//! A state carries the board as data ([`super::board`]), the legal moves with the cells
//! they involve, the moves played, whose turn it is, the result, and the last search:
//! each move's visits and share of the search (the heat map) and the value. Errors are
//! `{"error": "..."}` with 400 (malformed JSON, an illegal move), 404 (an unknown path or
//! game), 405 (a known path, another method), 409 (not now: the agent is thinking, it is
//! not that side's turn, the game is over) or 503 (every game slot is busy).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use zerosum_games::{value_for, Game, Outcome, Player};

use super::board::{describe_board, describe_move, describe_moves, BoardView, MoveView};
use super::http::{Request, Response};
use super::pool::SearchPool;
use super::session::{lock, Analysis, Session, SessionTable};
use crate::error::ApiError;
use zerosum_players::resign::Resignation;

/// What the server was started with.
#[derive(Clone, Debug, Serialize)]
pub struct Info {
    /// The full registry name of the game.
    pub game: String,
    /// Its short registry name (`connect4`).
    pub short_name: String,
    /// The agent: `the shipped model NAME`, `checkpoint PATH`, `rollout MCTS` or a spec.
    pub agent: String,
    /// Simulations per agent move unless a game asks for another count.
    pub default_sims: usize,
    /// The largest count a game may ask for.
    pub max_sims: usize,
    /// The agent resigns at values at or below this (`--resign-below`); never without.
    pub resign_below: Option<f32>,
}

/// The engine: the initial position, every session, and the agents' pool.
pub struct Engine<G: Game> {
    initial: G,
    info: Info,
    sessions: SessionTable<G>,
    pool: SearchPool<G>,
}

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");
const FAVICON_SVG: &str = include_str!("assets/favicon.svg");

impl<G: Game> Engine<G> {
    /// An engine for games from `initial`, keeping at most `max_sessions` games.
    pub fn new(initial: G, info: Info, pool: SearchPool<G>, max_sessions: usize) -> Self {
        Engine {
            initial,
            info,
            sessions: SessionTable::new(max_sessions),
            pool,
        }
    }

    /// Forgets games left untouched for `idle`.
    pub fn forget_after(mut self, idle: std::time::Duration) -> Self {
        self.sessions.set_idle_limit(idle);
        self
    }

    /// Answers one request.
    pub fn handle(&self, request: &Request) -> Response {
        match self.route(request) {
            Ok(response) => response,
            Err(e) => e.response(),
        }
    }

    fn route(&self, request: &Request) -> Result<Response, ApiError> {
        let method = request.method.as_str();
        let segments: Vec<&str> = request.path.split('/').filter(|s| !s.is_empty()).collect();
        let allow = |methods: &[&str]| -> Result<(), ApiError> {
            if methods.contains(&method) {
                Ok(())
            } else {
                Err(ApiError::new(
                    405,
                    &format!("{} takes {}", request.path, methods.join(" or ")),
                ))
            }
        };
        let asset = |content_type, text| {
            allow(&["GET"])?;
            Ok(Response::asset(content_type, text))
        };
        match segments.as_slice() {
            [] | ["index.html"] => asset("text/html; charset=utf-8", INDEX_HTML),
            ["app.js"] => asset("text/javascript; charset=utf-8", APP_JS),
            ["style.css"] => asset("text/css; charset=utf-8", STYLE_CSS),
            ["favicon.svg"] | ["favicon.ico"] => asset("image/svg+xml", FAVICON_SVG),
            ["api", "info"] => {
                allow(&["GET"])?;
                Ok(Response::json(200, &self.info))
            }
            ["api", "games"] => {
                allow(&["POST"])?;
                self.new_game(&request.body)
            }
            ["api", "games", id] => {
                allow(&["GET", "DELETE"])?;
                if method == "DELETE" {
                    self.sessions.remove(id)?;
                    return Ok(Response::json(200, &serde_json::json!({ "deleted": id })));
                }
                self.with_session(id, |_| Ok(()))
            }
            ["api", "games", id, action] => {
                allow(&["POST"])?;
                self.game_action(id, action, request)
            }
            _ => Err(ApiError::not_found(&format!(
                "no such path {}",
                request.path
            ))),
        }
    }

    /// Answers `POST /api/games/ID/ACTION`: a person's move, an undo, the agent's move or
    /// a hint.
    fn game_action(&self, id: &str, action: &str, request: &Request) -> Result<Response, ApiError> {
        match action {
            "move" => {
                let body: MoveBody = parse_body(&request.body, false)?;
                self.with_session(id, |s| s.play_human(&body.r#move).map(|_| ()))
            }
            "undo" => {
                let _: Empty = parse_body(&request.body, true)?;
                self.with_session(id, |s| s.undo())
            }
            "agent" => {
                let body: SimsBody = parse_body(&request.body, true)?;
                self.search(id, body.sims, true)
            }
            "analyse" | "analyze" => {
                let body: SimsBody = parse_body(&request.body, true)?;
                self.search(id, body.sims, false)
            }
            _ => Err(ApiError::not_found(&format!(
                "no such path {}",
                request.path
            ))),
        }
    }

    fn check_sims(&self, sims: Option<usize>) -> Result<Option<usize>, ApiError> {
        match sims {
            Some(n) if n == 0 || n > self.info.max_sims => Err(ApiError::bad_request(&format!(
                "sims must be in 1..={}",
                self.info.max_sims
            ))),
            other => Ok(other),
        }
    }

    fn new_game(&self, body: &[u8]) -> Result<Response, ApiError> {
        let body: NewGameBody = parse_body(body, true)?;
        let human = match body.human.as_deref() {
            None | Some("first") => Player::FIRST,
            Some("second") => Player::SECOND,
            Some(other) => {
                return Err(ApiError::bad_request(&format!(
                    "human must be \"first\" or \"second\", not \"{other}\""
                )))
            }
        };
        let sims = self
            .check_sims(body.sims)?
            .unwrap_or(self.info.default_sims);
        let id = self.sessions.insert(
            Session::new(self.initial.clone(), human, sims)
                .with_resignation(self.info.resign_below.map(Resignation::new)),
        )?;
        let session = self.sessions.get(&id)?;
        let session = lock(&session);
        Ok(Response::json(201, &self.state(&id, &session)))
    }

    /// Runs `change` on the session and answers with its state.
    fn with_session(
        &self,
        id: &str,
        change: impl FnOnce(&mut Session<G>) -> Result<(), ApiError>,
    ) -> Result<Response, ApiError> {
        let session = self.sessions.get(id)?;
        let mut session = lock(&session);
        session.last_used = std::time::Instant::now();
        change(&mut session)?;
        Ok(Response::json(200, &self.state(id, &session)))
    }

    /// Searches the current position; with `play`, the agent plays the move it chose (and
    /// it must be its turn).
    fn search(&self, id: &str, sims: Option<usize>, play: bool) -> Result<Response, ApiError> {
        let sims = self.check_sims(sims)?;
        let handle = self.sessions.get(id)?;
        let (position, ply, sims) = {
            let mut session = lock(&handle);
            session.last_used = std::time::Instant::now();
            session.check_idle()?;
            if session.is_over() {
                return Err(ApiError::conflict("the game is over"));
            }
            if play && session.human_to_move() {
                return Err(ApiError::conflict("it is your turn, not the agent's"));
            }
            if let Some(sims) = sims {
                session.sims = sims;
            }
            session.thinking = true;
            (session.current().clone(), session.ply(), session.sims)
        };
        // The session is unlocked while the agent thinks, so its state can still be read;
        // `thinking` keeps every change out until the search is back.
        let result = self.pool.search(position, sims);
        let mut session = lock(&handle);
        session.thinking = false;
        let choice = result?;
        let analysis = Analysis {
            ply,
            sims,
            value: choice.value.unwrap_or(0.0),
            moves: choice
                .search
                .map(|s| {
                    s.visits
                        .iter()
                        .zip(&s.policy_target)
                        .map(|(&(action, visits), &(_, share))| (action, visits, share))
                        .collect()
                })
                .unwrap_or_default(),
            played: None,
        };
        // A hint, or the search the agent resigned on, is kept without a move.
        if play && !session.agent_resigns(choice.value) {
            session.play_agent(choice.action, analysis);
        } else {
            session.analysis = Some(analysis);
        }
        Ok(Response::json(200, &self.state(id, &session)))
    }

    /// The state the page draws.
    fn state(&self, id: &str, session: &Session<G>) -> State {
        let position = session.current();
        let human = session.human;
        // A resignation ends the game as a win for the person.
        let outcome = match session.resigned {
            true => Some(Outcome::Win(human)),
            false => position.outcome(),
        };
        let status = match outcome {
            Some(_) => "over",
            None if position.to_move() == human => "human_to_move",
            None => "agent_to_move",
        };
        let result = outcome.map(|outcome| result_view(outcome, human, session.resigned));
        let moves = session
            .actions()
            .iter()
            .enumerate()
            .map(|(ply, &a)| session.position(ply).format_action(a))
            .collect();
        let last = session.actions().last().map(|&a| {
            let before = session.position(session.ply() - 1);
            describe_move(before, a).cells
        });
        let analysis = session.analysis.as_ref().map(|a| analysis_view(session, a));
        State {
            id: id.to_string(),
            game: position.name(),
            human: human.index(),
            sims: session.sims,
            status,
            to_move: outcome.is_none().then(|| position.to_move().index()),
            thinking: session.thinking,
            ply: session.ply(),
            moves,
            last: last.unwrap_or_default(),
            board: describe_board(position),
            legal: match outcome {
                Some(_) => Vec::new(),
                None => describe_moves(position),
            },
            can_undo: session.undo_target().is_some(),
            result,
            analysis,
        }
    }
}

/// How the game ended, seen by the person playing `human` (`resigned`: the agent resigned).
fn result_view(outcome: Outcome, human: Player, resigned: bool) -> ResultView {
    let (winner, for_human, text) = match outcome {
        Outcome::Draw => (None, "draw", "a draw"),
        Outcome::Win(p) if p == human => (Some(p.index()), "win", "you win"),
        Outcome::Win(p) => (Some(p.index()), "loss", "the agent wins"),
    };
    ResultView {
        winner,
        score: outcome.score_string(),
        for_human,
        text,
        resigned,
    }
}

/// The page's view of `analysis`, a search of one of `session`'s positions.
fn analysis_view<G: Game>(session: &Session<G>, analysis: &Analysis) -> AnalysisView {
    let searched = session.position(analysis.ply);
    let mover = searched.to_move();
    AnalysisView {
        ply: analysis.ply,
        mover: mover.index(),
        sims: analysis.sims,
        value: analysis.value,
        value_for_human: value_for(analysis.value, mover, session.human),
        played: analysis.played.map(|p| searched.format_action(p)),
        moves: analysis
            .moves
            .iter()
            .map(|&(action, visits, share)| AnalysisMove {
                view: describe_move(searched, action),
                visits,
                share,
            })
            .collect(),
    }
}

/// A game's state as the API sends it.
#[derive(Serialize)]
struct State {
    /// The session id.
    id: String,
    /// The full registry name of the game.
    game: String,
    /// The person's side: 0 first, 1 second.
    human: usize,
    /// Simulations per agent move in this game.
    sims: usize,
    /// `human_to_move`, `agent_to_move` or `over`.
    status: &'static str,
    /// Whose turn it is (0 or 1); null once the game is over.
    to_move: Option<usize>,
    /// Whether the agent is searching now.
    thinking: bool,
    /// Moves played.
    ply: usize,
    /// The moves played, in notation.
    moves: Vec<String>,
    /// The cells of the last move, to mark it.
    last: Vec<usize>,
    /// The board.
    board: BoardView,
    /// The legal moves (empty once the game is over).
    legal: Vec<MoveView>,
    /// Whether `undo` has something to take back.
    can_undo: bool,
    /// How the game ended.
    result: Option<ResultView>,
    /// The last search, for the heat map and the value.
    analysis: Option<AnalysisView>,
}

#[derive(Serialize)]
struct ResultView {
    /// The winner's index, null for a draw.
    winner: Option<usize>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    score: &'static str,
    /// `win`, `loss` or `draw`, for the person.
    for_human: &'static str,
    /// `you win`, `the agent wins` or `a draw`.
    text: &'static str,
    /// Whether the agent resigned.
    resigned: bool,
}

#[derive(Serialize)]
struct AnalysisView {
    /// The searched position is the one after this many moves.
    ply: usize,
    /// Who was to move there.
    mover: usize,
    /// Simulations searched.
    sims: usize,
    /// The root value, from the mover's view, in -1..1.
    value: f32,
    /// The same value from the person's view.
    value_for_human: f32,
    /// The move the agent played from there, if it played.
    played: Option<String>,
    /// Every legal move there with its visits and its share of the search.
    moves: Vec<AnalysisMove>,
}

#[derive(Serialize)]
struct AnalysisMove {
    #[serde(flatten)]
    view: MoveView,
    visits: u32,
    share: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGameBody {
    #[serde(default)]
    human: Option<String>,
    #[serde(default)]
    sims: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    r#move: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SimsBody {
    #[serde(default)]
    sims: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

/// Parses a JSON body; an empty body stands for `{}` where `optional`.
fn parse_body<T: DeserializeOwned>(body: &[u8], optional: bool) -> Result<T, ApiError> {
    let body = if optional && body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|e| {
        let what = if e.is_data() {
            "bad request body"
        } else {
            "malformed JSON"
        };
        ApiError::bad_request(&format!("{what}: {e}"))
    })
}
