//! The Go Text Protocol (version 2) for every game, plus GoGui's rules commands.
//!
//! Colour `b` is the first player and `w` the second; moves use the game's notation.

use std::io::{BufRead, Write};

use rand::rngs::SmallRng;
use zerosum_games::{Game, Outcome, Player};
use zerosum_train::Agent;

/// Every command the engine answers, in the order `list_commands` prints them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "quit",
    "gogui-rules_game_id",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
];

/// The game, its history and the player behind the protocol.
pub struct GtpEngine<G: Game> {
    initial: G,
    history: Vec<G>,
    agent: Box<dyn Agent<G>>,
    rng: SmallRng,
    komi: f32,
}

fn parse_colour(text: &str) -> Result<Player, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Player::FIRST),
        "w" | "white" => Ok(Player::SECOND),
        _ => Err(format!("invalid color '{text}': expected b or w")),
    }
}

impl<G: Game> GtpEngine<G> {
    /// An engine at the initial position.
    pub fn new(initial: G, agent: Box<dyn Agent<G>>, rng: SmallRng) -> GtpEngine<G> {
        GtpEngine {
            history: vec![initial.clone()],
            initial,
            agent,
            rng,
            komi: 0.0,
        }
    }

    fn position(&self) -> &G {
        self.history
            .last()
            .expect("history holds at least the initial position")
    }

    fn check_turn(&self, colour: Player) -> Result<(), String> {
        if self.position().is_terminal() {
            return Err("the game is over".to_string());
        }
        if self.position().to_move() != colour {
            return Err(format!(
                "it is not {}'s turn",
                if colour == Player::FIRST { "b" } else { "w" }
            ));
        }
        Ok(())
    }

    fn push(&mut self, action: usize) {
        let mut next = self.position().clone();
        self.agent.observe(&next, action);
        next.apply(action);
        self.history.push(next);
    }

    /// Answers one command: `Ok(reply)` or `Err(message)`.
    pub fn handle(&mut self, command: &str, args: &[&str]) -> Result<String, String> {
        let need = |n: usize| {
            if args.len() < n {
                Err(format!(
                    "{command} needs {n} argument{}",
                    if n == 1 { "" } else { "s" }
                ))
            } else {
                Ok(())
            }
        };
        match command {
            "protocol_version" => Ok("2".to_string()),
            "name" => Ok("zerosum".to_string()),
            "version" => Ok(env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => {
                need(1)?;
                Ok(COMMANDS.contains(&args[0]).to_string())
            }
            "list_commands" => Ok(COMMANDS.join("\n")),
            "boardsize" => {
                need(1)?;
                let size: usize = args[0]
                    .parse()
                    .map_err(|_| format!("boardsize needs a number, got '{}'", args[0]))?;
                let [_, height, width] = self.initial.obs_shape();
                if height == width && size == width {
                    Ok(String::new())
                } else {
                    Err(format!("unacceptable size for {}", self.initial.name()))
                }
            }
            "clear_board" => {
                self.history.truncate(1);
                self.agent.reset();
                Ok(String::new())
            }
            "komi" => {
                need(1)?;
                self.komi = args[0]
                    .parse()
                    .map_err(|_| format!("komi needs a number, got '{}'", args[0]))?;
                Ok(String::new())
            }
            "play" => {
                need(2)?;
                let colour = parse_colour(args[0])?;
                self.check_turn(colour)?;
                let text = args[1..].join(" ");
                let action = self
                    .position()
                    .parse_action(&text)
                    .map_err(|e| e.to_string())?;
                if !self.position().is_legal(action) {
                    return Err(format!("illegal move {text}"));
                }
                self.push(action);
                Ok(String::new())
            }
            "genmove" => {
                need(1)?;
                let colour = parse_colour(args[0])?;
                self.check_turn(colour)?;
                let position = self.position().clone();
                let choice = self
                    .agent
                    .choose(&position, &mut self.rng)
                    .map_err(|e| e.to_string())?;
                self.push(choice.action);
                Ok(position.format_action(choice.action))
            }
            "undo" => {
                if self.history.len() <= 1 {
                    return Err("cannot undo".to_string());
                }
                self.history.pop();
                self.agent.reset();
                Ok(String::new())
            }
            "showboard" => Ok(format!("\n{}", self.position())),
            "gogui-rules_game_id" => Ok(self.initial.name()),
            "gogui-rules_legal_moves" => {
                let position = self.position();
                Ok(position
                    .legal_action_vec()
                    .iter()
                    .map(|&a| position.format_action(a))
                    .collect::<Vec<_>>()
                    .join(" "))
            }
            "gogui-rules_side_to_move" => Ok(if self.position().to_move() == Player::FIRST {
                "black"
            } else {
                "white"
            }
            .to_string()),
            "gogui-rules_final_result" => Ok(match self.position().outcome() {
                None => "unknown".to_string(),
                Some(Outcome::Draw) => "0".to_string(),
                Some(Outcome::Win(Player::FIRST)) => "B+".to_string(),
                Some(Outcome::Win(_)) => "W+".to_string(),
            }),
            "quit" => Ok(String::new()),
            _ => Err(format!("unknown command '{command}'")),
        }
    }
}

/// Reads commands from `input` until `quit` or its end, writing replies to `output`.
pub fn run_loop<G: Game>(
    engine: &mut GtpEngine<G>,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        let line = line
            .split('#')
            .next()
            .unwrap_or("")
            .trim()
            .replace('\t', " ");
        if line.is_empty() {
            continue;
        }
        let mut words: Vec<&str> = line.split_whitespace().collect();
        let id = words[0]
            .parse::<u64>()
            .ok()
            .map(|id| id.to_string())
            .unwrap_or_default();
        if !id.is_empty() {
            words.remove(0);
        }
        let Some((&command, args)) = words.split_first() else {
            writeln!(output, "?{id} empty command\n")?;
            continue;
        };
        match engine.handle(command, args) {
            Ok(reply) => writeln!(
                output,
                "={id}{}{reply}\n",
                if reply.starts_with('\n') || reply.is_empty() {
                    ""
                } else {
                    " "
                }
            )?,
            Err(message) => writeln!(output, "?{id} {message}\n")?,
        }
        output.flush()?;
        if command == "quit" {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use zerosum_games::connect_four::ConnectFour;
    use zerosum_search::SearchConfig;
    use zerosum_train::MctsAgent;

    fn session(script: &str) -> String {
        let agent = MctsAgent::new(
            "mcts:50".into(),
            Box::new(zerosum_search::RolloutEvaluator::new(1, 1)),
            SearchConfig::default(),
            50,
        );
        let mut engine = GtpEngine::new(
            ConnectFour::new(),
            Box::new(agent),
            SmallRng::seed_from_u64(1),
        );
        let mut out = Vec::new();
        run_loop(&mut engine, script.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn answers_and_errors() {
        let out = session("1 protocol_version\nname\nplay b d\nplay b d\nplay w z\nfoo\nknown_command genmove\ngogui-rules_side_to_move\nundo\nundo\n2 quit\n");
        let replies: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(replies[0], "=1 2");
        assert_eq!(replies[1], "= zerosum");
        assert_eq!(replies[2], "=");
        assert!(
            replies[3].starts_with("? it is not b's turn"),
            "{}",
            replies[3]
        );
        assert!(replies[4].starts_with("? "), "{}", replies[4]);
        assert!(replies[5].starts_with("? unknown command"));
        assert_eq!(replies[6], "= true");
        assert_eq!(replies[7], "= white");
        assert_eq!(replies[8], "=");
        assert!(replies[9].starts_with("? cannot undo"));
        assert_eq!(replies[10], "=2");
    }

    #[test]
    fn genmove_plays_legal_moves_to_the_end() {
        let mut script = String::new();
        for _ in 0..21 {
            script.push_str("genmove b\ngenmove w\n");
        }
        script.push_str("gogui-rules_final_result\n");
        let out = session(&script);
        let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.is_empty()).collect();
        let moves = replies.iter().take_while(|r| r.starts_with("= ")).count();
        assert!(moves >= 7, "{out}");
        let last = replies.last().unwrap();
        assert!(["= B+", "= W+", "= 0"].contains(last), "{last}");
    }
}
