//! One person's game against the agent, and the table of them all.
//!
//! A [`Session`] owns a game's history and who plays which side; the agent itself lives
//! in the search pool and is shared (it keeps nothing between moves that another game
//! could see: a tree is reused only for the very position it was grown from). The
//! [`SessionTable`] hands out unguessable ids (128 random bits), forgets games left idle,
//! and keeps at most a fixed number of sessions, dropping the least recently used one when
//! a new game needs room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use zerosum_games::{Action, Game, Player};

use crate::error::ApiError;
use zerosum_players::resign::Resignation;

/// What one search said about a position, kept to show its heat map and value.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position searched: the one after this many moves of the history.
    pub ply: usize,
    /// Simulations the search ran.
    pub sims: usize,
    /// The root value from the view of the player to move there.
    pub value: f32,
    /// `(action, visits, share of the policy target)` for every legal action.
    pub moves: Vec<(Action, u32, f32)>,
    /// The move the agent played from there, if it played.
    pub played: Option<Action>,
}

/// One game of a person against the agent.
#[derive(Debug)]
pub struct Session<G: Game> {
    /// Positions from the initial one to the current one.
    history: Vec<G>,
    /// The move played from each position but the last: `history.len() - 1` of them.
    actions: Vec<Action>,
    /// The person's side.
    pub human: Player,
    /// Simulations per agent move.
    pub sims: usize,
    /// The last search, if it is still about a position of the history.
    pub analysis: Option<Analysis>,
    /// While the agent searches, nothing else may change the game.
    pub thinking: bool,
    /// When the agent gives up a lost game, if ever (`serve --resign-below`).
    resignation: Option<Resignation>,
    /// Whether the agent has resigned: the game is over, the person has won.
    pub resigned: bool,
    /// When a request last touched this game.
    pub last_used: Instant,
}

impl<G: Game> Session<G> {
    /// A new game from `initial` with the person on side `human`.
    pub fn new(initial: G, human: Player, sims: usize) -> Session<G> {
        Session {
            history: vec![initial],
            actions: Vec::new(),
            human,
            sims,
            analysis: None,
            thinking: false,
            resignation: None,
            resigned: false,
            last_used: Instant::now(),
        }
    }

    /// The game with the agent resigning by `resignation`'s rule.
    pub fn with_resignation(mut self, resignation: Option<Resignation>) -> Session<G> {
        self.resignation = resignation;
        self
    }

    /// Whether the game is over: finished by the rules, or resigned.
    pub fn is_over(&self) -> bool {
        self.resigned || self.current().is_terminal()
    }

    /// The position now.
    pub fn current(&self) -> &G {
        self.history
            .last()
            .expect("the history always holds the initial position")
    }

    /// The position after `ply` moves.
    pub fn position(&self, ply: usize) -> &G {
        &self.history[ply]
    }

    /// Moves played so far.
    pub fn ply(&self) -> usize {
        self.actions.len()
    }

    /// The moves played, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Whether the person is to move in a game that goes on.
    pub fn human_to_move(&self) -> bool {
        !self.is_over() && self.current().to_move() == self.human
    }

    /// Fails while the agent is thinking: the game must not change under its search.
    pub fn check_idle(&self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict(
                "the agent is thinking; wait for its move",
            ));
        }
        Ok(())
    }

    /// Plays the person's move, given in notation.
    pub fn play_human(&mut self, notation: &str) -> Result<Action, ApiError> {
        self.check_idle()?;
        if self.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        let position = self.current();
        if position.to_move() != self.human {
            return Err(ApiError::conflict("it is the agent's turn, not yours"));
        }
        let action = position
            .parse_action(notation)
            .map_err(|e| ApiError::bad_request(&e.to_string()))?;
        if !position.is_legal(action) {
            return Err(ApiError::bad_request(&format!(
                "illegal move '{notation}' here"
            )));
        }
        self.push(action);
        Ok(action)
    }

    /// Plays the agent's move `action` (legal: it came from a search of this position)
    /// and keeps its search.
    pub fn play_agent(&mut self, action: Action, mut analysis: Analysis) {
        debug_assert!(self.current().is_legal(action));
        analysis.played = Some(action);
        self.push(action);
        self.analysis = Some(analysis);
    }

    /// Hears the value the agent found for its move; returns whether it resigns instead
    /// of playing it (the game is then over).
    pub fn agent_resigns(&mut self, value: Option<f32>) -> bool {
        self.resigned = self
            .resignation
            .as_mut()
            .is_some_and(|resignation| resignation.resigns(value));
        self.resigned
    }

    fn push(&mut self, action: Action) {
        let mut next = self.current().clone();
        next.apply(action);
        self.history.push(next);
        self.actions.push(action);
    }

    /// The position `undo` goes back to: the last one before the current where the person
    /// was to move, so that one undo takes back the person's last move and the agent's
    /// reply to it (or just the person's move when the agent has not replied yet).
    pub fn undo_target(&self) -> Option<usize> {
        let len = self.history.len();
        self.history[..len - 1]
            .iter()
            .rposition(|p| !p.is_terminal() && p.to_move() == self.human)
    }

    /// Takes back moves up to [`Session::undo_target`].
    pub fn undo(&mut self) -> Result<(), ApiError> {
        self.check_idle()?;
        let target = self
            .undo_target()
            .ok_or_else(|| ApiError::conflict("nothing to undo"))?;
        self.history.truncate(target + 1);
        self.actions.truncate(target);
        // Taken back, the game goes on, and the agent weighs it afresh.
        self.resigned = false;
        if let Some(resignation) = &mut self.resignation {
            resignation.reset();
        }
        if self.analysis.as_ref().is_some_and(|a| a.ply >= self.ply()) {
            self.analysis = None;
        }
        Ok(())
    }
}

/// Every session, by id.
pub struct SessionTable<G: Game> {
    sessions: Mutex<HashMap<String, Arc<Mutex<Session<G>>>>>,
    capacity: usize,
    idle_limit: Duration,
    ids: Mutex<StdRng>,
}

impl<G: Game> SessionTable<G> {
    /// A table that keeps at most `capacity` sessions, each until it has been idle an hour.
    pub fn new(capacity: usize) -> SessionTable<G> {
        SessionTable {
            sessions: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
            idle_limit: Duration::from_secs(3600),
            // Ids only need to be unguessable and unique, not reproducible, so they come
            // from the operating system's entropy, not the seeded RNG.
            ids: Mutex::new(StdRng::from_os_rng()),
        }
    }

    /// Forgets sessions untouched for `idle` (looked at whenever a game is made or found).
    pub fn set_idle_limit(&mut self, idle: Duration) {
        self.idle_limit = idle;
    }

    /// Drops the sessions idle past the limit (a thinking one is in use).
    fn forget_idle(&self, sessions: &mut HashMap<String, Arc<Mutex<Session<G>>>>) {
        sessions.retain(|_, session| match session.try_lock() {
            Ok(s) => s.thinking || s.last_used.elapsed() < self.idle_limit,
            // Locked: a request is using it now.
            Err(_) => true,
        });
    }

    /// Adds a session and returns its id. When the table is full the least recently used
    /// session that is not thinking makes room.
    pub fn insert(&self, session: Session<G>) -> Result<String, ApiError> {
        let mut sessions = lock(&self.sessions);
        self.forget_idle(&mut sessions);
        if sessions.len() >= self.capacity {
            let oldest = sessions
                .iter()
                .filter_map(|(id, s)| {
                    let s = s.try_lock().ok()?;
                    (!s.thinking).then(|| (s.last_used, id.clone()))
                })
                .min()
                .map(|(_, id)| id)
                .ok_or_else(|| ApiError::unavailable("every game is busy; try again"))?;
            sessions.remove(&oldest);
        }
        let id = format!("{:032x}", lock(&self.ids).random::<u128>());
        sessions.insert(id.clone(), Arc::new(Mutex::new(session)));
        Ok(id)
    }

    /// The session with this id.
    pub fn get(&self, id: &str) -> Result<Arc<Mutex<Session<G>>>, ApiError> {
        let mut sessions = lock(&self.sessions);
        self.forget_idle(&mut sessions);
        sessions.get(id).cloned().ok_or_else(|| {
            ApiError::not_found(&format!(
                "no game with id '{id}' (games are forgotten after {} minutes idle)",
                self.idle_limit.as_secs() / 60
            ))
        })
    }

    /// Forgets the session with this id.
    pub fn remove(&self, id: &str) -> Result<(), ApiError> {
        lock(&self.sessions)
            .remove(id)
            .map(|_| ())
            .ok_or_else(|| ApiError::not_found(&format!("no game with id '{id}'")))
    }

    /// How many sessions there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.sessions).len()
    }
}

/// Locks a mutex, going on after a panic elsewhere: every critical section leaves the data
/// consistent (a panicking request changes nothing half-way).
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use zerosum_games::connect_four::ConnectFour;
    use zerosum_games::tic_tac_toe::TicTacToe;

    use super::*;

    #[test]
    fn undo_takes_back_the_persons_move_and_the_reply() {
        let mut s = Session::new(TicTacToe::new(), Player::FIRST, 10);
        assert!(s.undo().is_err(), "nothing to undo at the start");
        s.play_human("b2").unwrap();
        // The agent has not replied: undo takes back the person's move alone.
        s.undo().unwrap();
        assert_eq!(s.ply(), 0);
        s.play_human("b2").unwrap();
        s.push(0);
        s.play_human("a1").unwrap();
        s.push(2);
        assert!(s.human_to_move());
        s.undo().unwrap();
        assert_eq!(s.ply(), 2);
        assert!(s.human_to_move());
    }

    #[test]
    fn undo_when_the_agent_moved_first() {
        let mut s = Session::new(ConnectFour::new(), Player::SECOND, 10);
        s.push(3);
        assert_eq!(s.undo_target(), None, "only the agent has moved");
        s.play_human("d").unwrap();
        s.push(3);
        s.undo().unwrap();
        assert_eq!(s.ply(), 1);
        assert!(s.human_to_move());
    }

    #[test]
    fn moves_are_checked() {
        let mut s = Session::new(TicTacToe::new(), Player::SECOND, 10);
        assert_eq!(
            s.play_human("b2").unwrap_err().status,
            409,
            "not the person's turn"
        );
        s.push(4);
        assert_eq!(s.play_human("b2").unwrap_err().status, 400, "occupied");
        assert_eq!(s.play_human("z9").unwrap_err().status, 400, "not notation");
        s.thinking = true;
        assert_eq!(s.play_human("a1").unwrap_err().status, 409);
        assert_eq!(s.undo().unwrap_err().status, 409);
    }

    #[test]
    fn the_table_makes_room_and_ids_are_unique() {
        let table = SessionTable::new(2);
        let a = table
            .insert(Session::new(TicTacToe::new(), Player::FIRST, 1))
            .unwrap();
        // Distinct last-use times, so that the oldest is well defined.
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = table
            .insert(Session::new(TicTacToe::new(), Player::FIRST, 1))
            .unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        let c = table
            .insert(Session::new(TicTacToe::new(), Player::FIRST, 1))
            .unwrap();
        assert_eq!(table.len(), 2);
        assert!(table.get(&a).is_err(), "the oldest made room");
        assert!(table.get(&b).is_ok() && table.get(&c).is_ok());
        table.remove(&b).unwrap();
        assert_eq!(table.remove(&b).unwrap_err().status, 404);
    }

    #[test]
    fn idle_games_are_forgotten_but_not_while_the_agent_thinks() {
        let mut table = SessionTable::new(8);
        table.set_idle_limit(Duration::from_millis(50));
        let idle = table
            .insert(Session::new(TicTacToe::new(), Player::FIRST, 1))
            .unwrap();
        let busy = table
            .insert(Session::new(TicTacToe::new(), Player::FIRST, 1))
            .unwrap();
        lock(&table.get(&busy).unwrap()).thinking = true;
        std::thread::sleep(Duration::from_millis(80));
        let error = table.get(&idle).unwrap_err();
        assert_eq!(error.status, 404);
        assert!(error.message.contains("idle"), "{}", error.message);
        assert!(table.get(&busy).is_ok());
        assert_eq!(table.len(), 1);
    }
}
