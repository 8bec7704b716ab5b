//! Chess with the full rules, on the move generator of the `cozy-chess` crate (MIT).
//!
//! Castling, en passant, promotion and underpromotion, check, checkmate and stalemate come
//! from the move generator. The game adds the draws: the 50-move rule (a draw once 100
//! plies pass without a capture or pawn move, unless that last move mates), threefold
//! repetition (the third occurrence of a position ends the game at once), insufficient
//! material and a ply cap, `max_plies` (default 512, `0` for none), that keeps self-play
//! from running forever. Draws are automatic, as in OpenSpiel: nobody needs to claim them.
//!
//! - **Repetition.** Two positions are the same when the same side is to move, the pieces
//!   stand on the same squares, the castling rights are the same and the same en-passant
//!   captures are *legally* possible (FIDE 9.2.3). Only positions since the last capture or
//!   pawn move can repeat; their keys live in a fixed array of 100.
//! - **Insufficient material** (OpenSpiel's definition, which the rule oracle uses): no
//!   pawns, rooks or queens, and either a lone knight on one side against a bare king, or
//!   only bishops, all on squares of one colour (K v K, K+B v K, K+N v K, K+B v K+B with
//!   same-coloured bishops). K+N v K+N, K+N v K+B and K+2N v K play on.
//!
//! # Actions: AlphaZero's 8 x 8 x 73 = 4672
//!
//! `action = from * 73 + move_type`, where `from = rank * 8 + file` is the from-square seen
//! from the mover's side: for black the board is mirrored top to bottom (rank `r` becomes
//! `7 - r`; files stay), so one action means the same relative move for either colour, and
//! "north" points at the opponent.
//!
//! | move types | meaning |
//! |---|---|
//! | `0..56` | queen-like: `direction * 7 + distance - 1`, directions N, NE, E, SE, S, SW, W, NW (file, rank steps `(0,1) (1,1) (1,0) (1,-1) (0,-1) (-1,-1) (-1,0) (-1,1)`), distance 1..=7 |
//! | `56..64` | knight jumps (file, rank): `(1,2) (2,1) (2,-1) (1,-2) (-1,-2) (-2,-1) (-2,1) (-1,2)` |
//! | `64..73` | underpromotions: `64 + piece * 3 + (file step + 1)`, pieces knight, bishop, rook; one rank forward, file step -1, 0, +1 |
//!
//! Queen promotions are the queen-like moves that bring a pawn to the last rank; castling is
//! the king's two-square move east (O-O) or west (O-O-O).
//!
//! # Observation: 33 planes of 8 x 8, from the mover's side
//!
//! Squares are mirrored for black as for actions: cell `rank * 8 + file` with the mover's
//! back rank as rank 0.
//!
//! | planes | meaning |
//! |---|---|
//! | `0..6` | the mover's pawns, knights, bishops, rooks, queens, king |
//! | `6..12` | the opponent's, in the same order |
//! | `12` | all ones when this position occurred before |
//! | `13..26` | the same 13 planes for the position one ply earlier (zero at the start) |
//! | `26` | colour: all ones when black is to move |
//! | `27..31` | castling rights: mover O-O, mover O-O-O, opponent O-O, opponent O-O-O |
//! | `31` | plies since the last capture or pawn move, / 100 |
//! | `32` | plies played, / `max_plies` (/ 1024 when uncapped), at most 1 |
//!
//! AlphaZero used 8 positions of 14 planes plus 7 (119 planes). We keep two positions:
//! the last move is what history mostly tells a network (what just moved, what is now
//! attacked), and each further position costs 13 planes in every replay-buffer entry and
//! the first convolution of every evaluation on a CPU budget. AlphaZero's second repetition
//! plane ("occurred twice") is dropped: a third occurrence ends the game, so it would be
//! zero in every position that is played from.
//!
//! # Notation
//!
//! Moves are written in UCI (`e2e4`, `e7e8q`, castling `e1g1`; `e1h1` is read as castling
//! too); [`Chess::san`] and [`Chess::parse_san`] give standard algebraic notation for
//! records, and [`Chess::from_fen`] / [`Chess::to_fen`] read and write positions.
//! [`Game::standard_record`] writes PGN: the seven-tag roster, `SetUp` and `FEN` for a game
//! that did not start from the initial position, SAN movetext with move numbers, and the
//! result.
//!
//! ```
//! use zerosum_games::{chess::Chess, Game, Outcome, Player};
//! let mut game = Chess::new();
//! for mv in ["f2f3", "e7e5", "g2g4", "d8h4"] {
//!     game.play_notation(mv).unwrap();
//! }
//! assert_eq!(game.outcome(), Some(Outcome::Win(Player::SECOND)));
//! ```

mod actions;
mod layout;
mod notation;
mod observation;
mod pgn;
#[cfg(test)]
mod tests;

use std::fmt;

use cozy_chess::{BitBoard, Board, Color, File, Piece, Rank, Square};

pub use actions::{NUM_ACTIONS, NUM_MOVE_TYPES};
pub use observation::NUM_PLANES;

use crate::error::GameError;
use crate::game::Game;
use crate::outcome::{Action, Outcome, Player};
use crate::records::RecordTags;
use crate::zobrist::extra_key;
use observation::Placement;

/// The default ply cap: a game still going after this many plies is a draw.
pub const DEFAULT_MAX_PLIES: u32 = 512;
/// The FEN of the initial position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// The most earlier positions that can still repeat: the 50-move rule ends the game after
/// 100 plies without a capture or pawn move.
const MAX_HISTORY: usize = 100;

/// The position one ply earlier, for the observation and the hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Previous {
    placement: Placement,
    repeated: bool,
    key: u64,
}

/// A chess position with what the rules need beyond the board: the repetition keys since
/// the last capture or pawn move, the previous position (for the observation), the ply
/// count and its cap. About 1 KB, no heap.
#[derive(Clone)]
pub struct Chess {
    board: Board,
    /// `history[..num_history]`: repetition keys of the earlier positions since the last
    /// capture or pawn move, oldest first.
    history: [u64; MAX_HISTORY],
    num_history: u8,
    /// The repetition key of the current position.
    key: u64,
    /// How often the current position occurred before (0, 1 or 2).
    repetitions: u8,
    previous: Option<Previous>,
    /// Plies played since the initial position (or the FEN).
    ply: u32,
    max_plies: u32,
    /// Set when the game ends.
    outcome: Option<Outcome>,
}

impl Chess {
    /// The initial position, with the default ply cap.
    pub fn new() -> Chess {
        Chess::from_board(Board::startpos())
    }

    /// This position with the ply cap set to `max_plies` (`0` for none); a game still going
    /// after that many plies is a draw.
    pub fn with_max_plies(mut self, max_plies: u32) -> Chess {
        self.max_plies = max_plies;
        self.outcome = self.compute_outcome();
        self
    }

    /// The ply cap, `0` for none.
    pub fn max_plies(&self) -> u32 {
        self.max_plies
    }

    /// A position from FEN (six fields, or four with the clocks left out), with the default
    /// ply cap and no history. Castling rights need the king on e1/e8 and the rooks on the
    /// a- and h-files (no Chess960).
    pub fn from_fen(fen: &str) -> Result<Chess, GameError> {
        let bad = |reason: String| GameError::BadPosition {
            text: fen.to_string(),
            reason,
        };
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let full = match fields.len() {
            6 => fields.join(" "),
            4 => format!("{} 0 1", fields.join(" ")),
            n => return Err(bad(format!("a FEN has 6 fields (or 4), not {n}"))),
        };
        // cozy-chess reads a board with missing ranks and no kings; its moves then panic.
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(bad(format!("the board needs 8 ranks, not {}", ranks.len())));
        }
        for (i, rank) in ranks.iter().enumerate() {
            let squares: u32 = rank.chars().map(|c| c.to_digit(10).unwrap_or(1)).sum();
            if squares != 8 {
                return Err(bad(format!("rank {} has {squares} squares, not 8", 8 - i)));
            }
        }
        let board = Board::from_fen(&full, false).map_err(|e| {
            let text = e.to_string();
            let text = text.trim_end_matches('.');
            let mut chars = text.chars();
            let first = chars.next().map(|c| c.to_lowercase().to_string());
            bad(first.unwrap_or_default() + chars.as_str())
        })?;
        for color in Color::ALL {
            let kings = board.colored_pieces(color, Piece::King).len();
            if kings != 1 {
                return Err(bad(format!("{color:?} has {kings} kings, not 1")));
            }
        }
        for color in Color::ALL {
            let rights = board.castle_rights(color);
            let home = Square::new(File::E, Rank::First.relative_to(color));
            if (rights.short.is_some() || rights.long.is_some()) && board.king(color) != home {
                return Err(bad(format!(
                    "castling rights need the {color:?} king on {home}"
                )));
            }
        }
        Ok(Chess::from_board(board))
    }

    /// The position in FEN. The en-passant square is written only when an en-passant
    /// capture is legal.
    pub fn to_fen(&self) -> String {
        let fen = self.board.to_string();
        let mut fields: Vec<&str> = fen.split(' ').collect();
        let ep = effective_en_passant(&self.board)
            .map(|file| Square::new(file, Rank::Sixth.relative_to(self.board.side_to_move())));
        let ep_text = ep.map_or_else(|| "-".to_string(), |s| s.to_string());
        fields[3] = &ep_text;
        fields.join(" ")
    }

    /// Plies played since the initial position or the FEN.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Plies since the last capture or pawn move (the 50-move rule's counter).
    pub fn halfmove_clock(&self) -> u32 {
        u32::from(self.board.halfmove_clock())
    }

    /// How often the current position occurred before: 0, 1, or 2 (a draw).
    pub fn repetitions(&self) -> u32 {
        u32::from(self.repetitions)
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        !self.board.checkers().is_empty()
    }

    /// The move `action` in standard algebraic notation (`Nf3`, `exd6`, `O-O`, `e8=Q#`),
    /// if it is legal here.
    pub fn san(&self, action: Action) -> Result<String, GameError> {
        if !self.is_legal(action) {
            return Err(self.illegal(action));
        }
        let mv = actions::action_to_move(&self.board, action)
            .expect("a legal action stays on the board");
        Ok(notation::san(&self.board, mv))
    }

    /// Reads a legal move in standard algebraic notation; check marks are optional and
    /// `0-0` reads as `O-O`.
    pub fn parse_san(&self, text: &str) -> Result<Action, GameError> {
        let wanted = notation::san_core(text);
        self.legal_action_vec()
            .into_iter()
            .find(|&action| {
                let mv = actions::action_to_move(&self.board, action)
                    .expect("a legal action stays on the board");
                notation::san_core(&notation::san(&self.board, mv)) == wanted
            })
            .ok_or_else(|| GameError::BadNotation {
                text: text.to_string(),
                expected: "a legal move in SAN, such as Nf3, exd6, O-O or e8=Q".to_string(),
            })
    }

    /// The position around `board`, with no history.
    fn from_board(board: Board) -> Chess {
        let key = repetition_key(&board);
        let mut chess = Chess {
            board,
            history: [0; MAX_HISTORY],
            num_history: 0,
            key,
            repetitions: 0,
            previous: None,
            ply: 0,
            max_plies: DEFAULT_MAX_PLIES,
            outcome: None,
        };
        chess.outcome = chess.compute_outcome();
        chess
    }

    fn illegal(&self, action: Action) -> GameError {
        GameError::IllegalAction {
            action: self.format_action(action),
            position: self.to_fen(),
        }
    }

    /// The result decided by the current position, in OpenSpiel's order: insufficient
    /// material, repetition, mate or stalemate, the 50-move rule, then the ply cap.
    fn compute_outcome(&self) -> Option<Outcome> {
        if insufficient_material(&self.board) || self.repetitions >= 2 {
            return Some(Outcome::Draw);
        }
        if !self.board.generate_moves(|_| true) {
            return Some(if self.in_check() {
                Outcome::Win(self.to_move().opponent())
            } else {
                Outcome::Draw
            });
        }
        if self.board.halfmove_clock() >= 100 || (self.max_plies > 0 && self.ply >= self.max_plies)
        {
            return Some(Outcome::Draw);
        }
        None
    }
}

impl Default for Chess {
    fn default() -> Chess {
        Chess::new()
    }
}

/// The en-passant file if an en-passant capture is legal, else `None`.
fn effective_en_passant(board: &Board) -> Option<File> {
    let file = board.en_passant()?;
    let mover = board.side_to_move();
    let target = Square::new(file, Rank::Sixth.relative_to(mover));
    let attackers =
        cozy_chess::get_pawn_attacks(target, !mover) & board.colored_pieces(mover, Piece::Pawn);
    attackers
        .into_iter()
        .any(|from| {
            board.is_legal(cozy_chess::Move {
                from,
                to: target,
                promotion: None,
            })
        })
        .then_some(file)
}

/// The key that decides repetitions: pieces, side to move, castling rights and the legal
/// en-passant file.
fn repetition_key(board: &Board) -> u64 {
    let mut key = board.hash_without_ep();
    if let Some(file) = effective_en_passant(board) {
        key ^= extra_key(8 + file as usize);
    }
    key
}

/// OpenSpiel's insufficient material: no pawns, rooks or queens, and either one side's lone
/// knight against a bare king or only bishops, all on one colour of square.
fn insufficient_material(board: &Board) -> bool {
    let heavy = board.pieces(Piece::Pawn) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    if !heavy.is_empty() {
        return false;
    }
    let knights = board.pieces(Piece::Knight);
    let bishops = board.pieces(Piece::Bishop);
    match knights.len() {
        0 => {
            (bishops & BitBoard::DARK_SQUARES).is_empty()
                || (bishops & BitBoard::LIGHT_SQUARES).is_empty()
        }
        1 => bishops.is_empty(),
        _ => false,
    }
}

/// SplitMix64's finaliser, to spread small counters over 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Game for Chess {
    fn name(&self) -> String {
        format!("chess:max_plies={}", self.max_plies)
    }

    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn obs_shape(&self) -> [usize; 3] {
        [NUM_PLANES, 8, 8]
    }

    fn to_move(&self) -> Player {
        match self.board.side_to_move() {
            Color::White => Player::FIRST,
            Color::Black => Player::SECOND,
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let board = &self.board;
        board.generate_moves(|moves| {
            out.extend(
                moves
                    .into_iter()
                    .map(|mv| actions::move_to_action(board, mv)),
            );
            false
        });
        out.sort_unstable();
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(
            self.outcome.is_none() && self.is_legal(action),
            "illegal action {action} ({}) in {}",
            self.format_action(action),
            self.to_fen()
        );
        let mv = actions::action_to_move(&self.board, action)
            .expect("apply takes a legal action, which stays on the board");
        let previous = Previous {
            placement: Placement::of(&self.board),
            repeated: self.repetitions > 0,
            key: self.key,
        };
        let n = usize::from(self.num_history);
        if n == MAX_HISTORY {
            self.history.copy_within(1.., 0);
            self.history[MAX_HISTORY - 1] = self.key;
        } else {
            self.history[n] = self.key;
            self.num_history += 1;
        }
        self.board.play_unchecked(mv);
        if self.board.halfmove_clock() == 0 {
            self.num_history = 0;
        }
        self.key = repetition_key(&self.board);
        let earlier = &self.history[..usize::from(self.num_history)];
        // Positions with the same side to move sit 2, 4, ... plies back.
        let count = earlier
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&k| k == self.key);
        self.repetitions = count.count().min(2) as u8;
        self.previous = Some(previous);
        self.ply += 1;
        self.outcome = self.compute_outcome();
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, out: &mut [f32]) {
        let extras = observation::Extras {
            repeated: self.repetitions > 0,
            previous: self.previous.as_ref().map(|p| (&p.placement, p.repeated)),
            ply: self.ply,
            max_plies: self.max_plies,
        };
        observation::write(&self.board, &extras, out);
    }

    fn hash(&self) -> u64 {
        let counters = u64::from(self.board.halfmove_clock())
            | u64::from(self.repetitions) << 8
            | u64::from(self.ply) << 16;
        let previous = self.previous.map_or(0, |p| {
            p.key.rotate_left(23) ^ if p.repeated { extra_key(20) } else { 0 }
        });
        self.key ^ mix(counters ^ extra_key(21)) ^ previous
    }

    fn is_repetition(&self) -> bool {
        self.repetitions > 0
    }

    fn format_action(&self, action: Action) -> String {
        notation::format_uci(&self.board, action)
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        notation::parse_uci(&self.board, text)
    }

    /// PGN, as the module docs describe under Notation.
    fn standard_record(
        &self,
        actions: &[Action],
        tags: &RecordTags,
    ) -> Option<(&'static str, String)> {
        Some(("pgn", pgn::write(self, actions, tags)))
    }

    fn layout(&self) -> Option<crate::layout::BoardLayout> {
        Some(layout::board(self))
    }

    fn move_cells(&self, action: Action) -> crate::layout::MoveCells {
        layout::move_cells(self, action)
    }
}

impl PartialEq for Chess {
    fn eq(&self, other: &Chess) -> bool {
        self.board == other.board
            && self.history[..usize::from(self.num_history)]
                == other.history[..usize::from(other.num_history)]
            && self.previous == other.previous
            && self.ply == other.ply
            && self.max_plies == other.max_plies
    }
}

impl Eq for Chess {}

impl std::hash::Hash for Chess {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(Game::hash(self));
    }
}

impl fmt::Debug for Chess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chess")
            .field("fen", &self.to_fen())
            .field("ply", &self.ply)
            .field("max_plies", &self.max_plies)
            .field("repetitions", &self.repetitions)
            .field("outcome", &self.outcome)
            .finish()
    }
}

impl fmt::Display for Chess {
    /// The board from white's side, rank 8 first: white pieces in capitals, black in small
    /// letters, `.` for an empty square; then the file letters and the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in Rank::ALL.into_iter().rev() {
            write!(f, "{}", char::from(rank))?;
            for file in File::ALL {
                let square = Square::new(file, rank);
                let mark = match (self.board.piece_on(square), self.board.color_on(square)) {
                    (Some(piece), Some(Color::White)) => char::from(piece).to_ascii_uppercase(),
                    (Some(piece), _) => char::from(piece),
                    _ => '.',
                };
                write!(f, " {mark}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a b c d e f g h")?;
        write!(f, "{}", self.to_fen())
    }
}
