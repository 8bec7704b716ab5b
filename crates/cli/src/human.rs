//! A person at the terminal as a player: moves in notation, re-prompted on bad input.

use std::io::{BufRead, Write};

use rand::rngs::SmallRng;
use zerosum_games::Game;
use zerosum_players::PlayError;
use zerosum_players::{Agent, Choice};

/// Reads moves from standard input.
pub struct HumanAgent;

/// What a person typed.
pub enum HumanInput<A> {
    /// A legal move.
    Move(A),
    /// `undo`.
    Undo,
    /// `quit`, or the input ended.
    Quit,
}

/// Prompts until the person types a legal move, `undo` or `quit`.
pub fn read_move<G: Game>(position: &G) -> HumanInput<usize> {
    let stdin = std::io::stdin();
    loop {
        print!("your move ({}) > ", position.to_move());
        let _ = std::io::stdout().flush();
        // Bytes, not a String: a line that is not UTF-8 is a bad move to re-prompt on, not
        // the end of the input.
        let mut bytes = Vec::new();
        match stdin.lock().read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => return HumanInput::Quit,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&bytes);
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" => return HumanInput::Quit,
            "undo" => return HumanInput::Undo,
            "help" | "?" => {
                let legal: Vec<String> = position
                    .legal_action_vec()
                    .iter()
                    .map(|&a| position.format_action(a))
                    .collect();
                println!("legal moves: {}  (also: undo, quit)", legal.join(" "));
                continue;
            }
            _ => {}
        }
        match position.parse_action(text) {
            Ok(action) if position.is_legal(action) => return HumanInput::Move(action),
            Ok(_) => println!("'{text}' is not legal here; type help for the legal moves"),
            Err(e) => println!("{e}; type help for the legal moves"),
        }
    }
}

impl<G: Game> Agent<G> for HumanAgent {
    fn name(&self) -> String {
        "human".to_string()
    }

    fn choose(&mut self, position: &G, _rng: &mut SmallRng) -> Result<Choice, PlayError> {
        println!("{position}");
        loop {
            match read_move(position) {
                HumanInput::Move(action) => {
                    return Ok(Choice {
                        action,
                        value: None,
                        search: None,
                    })
                }
                HumanInput::Undo => println!("undo is not available in the arena"),
                HumanInput::Quit => {
                    return Err(PlayError::PlayerStopped {
                        player: "human".into(),
                        reason: "input ended".into(),
                    })
                }
            }
        }
    }
}
