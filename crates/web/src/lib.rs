//! `zerosum serve`: a page on localhost where a person plays the agent on a drawn board.
//!
//! The parts, each in its own file:
//! - [`http`]: the HTTP/1.1 server, on hyper (bounded requests and connections, timeouts,
//!   the `Host` check, JSON errors);
//! - [`api`]: the [`api::Engine`], which serves the page's assets (built into the binary,
//!   no CDN) and the JSON API, and routes each request;
//! - [`session`]: one person's game (history, side, undo) and the table of games, keyed by
//!   unguessable ids, so that no game sees another;
//! - [`board`]: the game-agnostic picture of a position and its moves, the only place
//!   that knows how a game's actions map onto cells;
//! - [`pool`]: the agents, on search threads of their own.
//!
//! The page (`assets/`) knows no game: it draws whatever grid, pieces and moves the server
//! describes. docs/web.md has the user's view.

pub mod api;
pub mod board;
pub mod error;
pub mod http;
pub mod pool;
pub mod session;

use std::net::TcpListener;
use std::sync::Arc;

use zerosum_games::Game;

/// Serves `engine` on `listener` within `limits` until the process ends.
pub fn serve<G: Game>(
    listener: TcpListener,
    engine: api::Engine<G>,
    limits: http::Limits,
) -> std::io::Result<()> {
    let engine = Arc::new(engine);
    http::serve(
        listener,
        Arc::new(move |request: &http::Request| engine.handle(request)),
        limits,
    )
}
