//! The Go Text Protocol (version 2) for every game, plus GoGui's rules commands.
//!
//! Colour `b` is the first player and `w` the second; moves use the game's notation.

use std::io::{BufRead, Write};

use rand::rngs::SmallRng;
use zerosum_games::error::shown;
use zerosum_games::registry::{set_param, FromAnyGame};
use zerosum_games::{Action, Game, GameError, Outcome, Player};
use zerosum_players::Agent;

use super::Input;
use zerosum_players::resign::Resignation;

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
    "final_score",
    "quit",
    "gogui-rules_game_id",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
];

/// Builds the game again with one registry parameter changed, for `boardsize` (`size`)
/// and `komi` (`komi`): from the current game and `(key, value)`, the new initial position,
/// or why not.
pub type Rebuild<G> = Box<dyn Fn(&G, &str, &str) -> Result<G, String>>;

/// A [`Rebuild`] through the registry: the game's `name()` with the parameter set
/// ([`set_param`]), matched back to `G`.
pub fn registry_rebuild<G: Game + FromAnyGame>() -> Rebuild<G> {
    Box::new(|game: &G, key: &str, value: &str| {
        // The reason alone: the registry's `bad parameter 'size=30,komi=...' for game go`
        // names a parameter string the GTP user never typed.
        let any = set_param(&game.name(), key, value).map_err(|e| match e {
            GameError::BadParameter { reason, .. } => reason,
            e => e.to_string(),
        })?;
        G::from_any(any).ok_or_else(|| format!("{key}={value} makes another game"))
    })
}

/// Picks the player for the game a `boardsize` or `komi` made: `Ok(Some(player))` replaces
/// the one playing, `Ok(None)` keeps it.
pub type Repick<G> = Box<dyn FnMut(&G) -> Result<Option<Box<dyn Agent<G>>>, String>>;

/// The game, its history and the player behind the protocol.
pub struct GtpEngine<G: Game> {
    initial: G,
    /// The positions since `initial`, `initial` first.
    history: Vec<G>,
    /// The actions between them: `history[i + 1]` is `history[i]` after `actions[i]`.
    actions: Vec<Action>,
    agent: Box<dyn Agent<G>>,
    rng: SmallRng,
    komi: f32,
    rebuild: Option<Rebuild<G>>,
    repick: Option<Repick<G>>,
    resignation: Option<Resignation>,
    /// The colour of the last `genmove`: the resignation counts one colour's moves.
    genmove_colour: Option<Player>,
}

/// Sorted numbers as runs: `5 to 9, 11, 13 to 19`.
fn ranges(numbers: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => runs.push((n, n)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|&(start, end)| match end - start {
            0 => start.to_string(),
            1 => format!("{start}, {end}"),
            _ => format!("{start} to {end}"),
        })
        .collect();
    runs.join(", ")
}

fn parse_colour(text: &str) -> Result<Player, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Player::FIRST),
        "w" | "white" => Ok(Player::SECOND),
        _ => Err(format!("invalid color '{}': expected b or w", shown(text))),
    }
}

/// Why `count` arguments do not fit `command`, or `None` when they do (and for commands
/// the engine does not know, which are refused as such). A move may be several words
/// (Push Fight's pushes and slides), so `play` takes any number after the colour.
fn wrong_arity(command: &str, count: usize) -> Option<String> {
    let exactly = match command {
        "known_command" | "boardsize" | "komi" | "genmove" => 1,
        // Whatever follows it, `quit` is obeyed: a controller that sends it is leaving.
        "quit" => return None,
        "play" if count >= 2 => return None,
        "play" => return Some("play needs a colour and a move".to_string()),
        _ if COMMANDS.contains(&command) => 0,
        _ => return None,
    };
    (count != exactly).then(|| match exactly {
        0 => format!("{command} takes no arguments, got {count}"),
        _ => format!("{command} takes 1 argument, got {count}"),
    })
}

impl<G: Game> GtpEngine<G> {
    /// An engine at the initial position.
    pub fn new(initial: G, agent: Box<dyn Agent<G>>, rng: SmallRng) -> GtpEngine<G> {
        GtpEngine {
            history: vec![initial.clone()],
            actions: Vec::new(),
            initial,
            agent,
            rng,
            komi: 0.0,
            rebuild: None,
            repick: None,
            resignation: None,
            genmove_colour: None,
        }
    }

    /// Lets `genmove` answer `resign` by `resignation`'s rule.
    pub fn with_resignation(mut self, resignation: Resignation) -> GtpEngine<G> {
        self.resignation = Some(resignation);
        self
    }

    /// A new game, or moves taken back: the agent forgets its tree and its run of low
    /// values.
    fn reset_agent(&mut self) {
        self.agent.reset();
        if let Some(resignation) = &mut self.resignation {
            resignation.reset();
        }
    }

    /// Lets `boardsize` and `komi` rebuild the game with `rebuild`; without it, `boardsize`
    /// accepts only the current size and `komi` is stored but changes nothing.
    pub fn with_rebuild(mut self, rebuild: Rebuild<G>) -> GtpEngine<G> {
        self.rebuild = Some(rebuild);
        self
    }

    /// Lets the game a `boardsize` or `komi` rebuilt bring its own player (the model
    /// shipped for that board, say) through `repick`.
    pub fn with_repick(mut self, repick: Repick<G>) -> GtpEngine<G> {
        self.repick = Some(repick);
        self
    }

    /// Starts over from `initial`, replaying `actions` (all must be legal there), with the
    /// player [`Repick`] picks for it.
    fn restart(&mut self, initial: G, actions: &[Action]) -> Result<(), String> {
        let mut history = vec![initial.clone()];
        for &action in actions {
            let mut next = history
                .last()
                .expect("history starts with `initial`")
                .clone();
            next.try_apply(action).map_err(|e| e.to_string())?;
            history.push(next);
        }
        if let Some(repick) = &mut self.repick {
            if let Some(agent) = repick(&initial)? {
                self.agent = agent;
            }
        }
        self.initial = initial;
        self.history = history;
        self.actions = actions.to_vec();
        self.reset_agent();
        Ok(())
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
        self.actions.push(action);
    }

    /// Answers one command: `Ok(reply)` or `Err(message)`.
    pub fn handle(&mut self, command: &str, args: &[&str]) -> Result<String, String> {
        if let Some(wrong) = wrong_arity(command, args.len()) {
            return Err(wrong);
        }
        match command {
            "protocol_version" => Ok("2".to_string()),
            "name" => Ok("zerosum".to_string()),
            "version" => Ok(env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => Ok(COMMANDS.contains(&args[0]).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "boardsize" => self.boardsize(args[0]),
            "clear_board" => self.clear_board(),
            "komi" => self.komi(args[0]),
            "play" => self.play(args[0], &args[1..]),
            "genmove" => self.genmove(args[0]),
            "undo" => self.undo(),
            "showboard" => Ok(format!("\n{}", self.position())),
            "final_score" => self.final_score(),
            "gogui-rules_game_id" => Ok(self.initial.name()),
            "gogui-rules_legal_moves" => Ok(self.legal_moves()),
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
            _ => Err(format!("unknown command '{}'", shown(command))),
        }
    }

    /// `boardsize`: the current size is accepted as it is; another rebuilds the game, or
    /// is refused without a [`Rebuild`].
    fn boardsize(&mut self, arg: &str) -> Result<String, String> {
        let size: usize = arg
            .parse()
            .map_err(|_| format!("boardsize needs a number, got '{}'", shown(arg)))?;
        let [_, height, width] = self.initial.obs_shape();
        if height == width && size == width {
            return Ok(String::new());
        }
        let game = self
            .rebuild
            .as_ref()
            .and_then(|rebuild| rebuild(&self.initial, "size", &size.to_string()).ok())
            .ok_or_else(|| format!("unacceptable size: {}", self.board_sizes()))?;
        self.restart(game, &[])?;
        Ok(String::new())
    }

    /// The sizes `boardsize` takes, for a refusal: `go takes sizes 5 to 19`, `chess plays
    /// on 8x8 only`, `connect4 has no board size to set`.
    fn board_sizes(&self) -> String {
        let name = self.initial.name();
        let game = name.split(':').next().unwrap_or(&name);
        let [_, height, width] = self.initial.obs_shape();
        let square = (height == width).then_some(width);
        // GTP boards go up to 25.
        let mut sizes: Vec<usize> = match &self.rebuild {
            Some(rebuild) => (1..=25)
                .filter(|size| rebuild(&self.initial, "size", &size.to_string()).is_ok())
                .collect(),
            None => Vec::new(),
        };
        sizes.extend(square);
        sizes.sort_unstable();
        sizes.dedup();
        match (sizes.as_slice(), square) {
            ([], _) => format!("{game} has no board size to set"),
            ([only], Some(size)) if *only == size => {
                format!("{game} plays on {size}x{size} only")
            }
            _ => format!("{game} takes sizes {}", ranges(&sizes)),
        }
    }

    /// `clear_board`: back to the initial position, with a fresh agent.
    fn clear_board(&mut self) -> Result<String, String> {
        self.history.truncate(1);
        self.actions.clear();
        self.reset_agent();
        Ok(String::new())
    }

    /// `komi`: kept, and a game with a komi parameter rebuilt with it, keeping the moves.
    fn komi(&mut self, arg: &str) -> Result<String, String> {
        let komi: f32 = arg
            .parse()
            .map_err(|_| format!("komi needs a number, got '{}'", shown(arg)))?;
        if let Some(rebuild) = &self.rebuild {
            if self.initial.name().contains("komi=") {
                let game = rebuild(&self.initial, "komi", arg)?;
                let actions = self.actions.clone();
                self.restart(game, &actions)?;
            }
        }
        self.komi = komi;
        Ok(String::new())
    }

    /// `play`: `colour`'s move, written in `words` (a move may be several words).
    fn play(&mut self, colour: &str, words: &[&str]) -> Result<String, String> {
        let colour = parse_colour(colour)?;
        self.check_turn(colour)?;
        let text = words.join(" ");
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

    /// `genmove`: the agent's move for `colour`, played and written in the game's notation,
    /// or `resign` where the resignation rule says so.
    fn genmove(&mut self, colour: &str) -> Result<String, String> {
        let colour = parse_colour(colour)?;
        self.check_turn(colour)?;
        let position = self.position().clone();
        let choice = self
            .agent
            .choose(&position, &mut self.rng)
            .map_err(|e| e.to_string())?;
        if let Some(resignation) = &mut self.resignation {
            if self.genmove_colour.replace(colour) != Some(colour) {
                resignation.reset();
            }
            if resignation.resigns(choice.value) {
                return Ok("resign".to_string());
            }
        }
        self.push(choice.action);
        Ok(position.format_action(choice.action))
    }

    /// `undo`: takes the last move back, with a fresh agent.
    fn undo(&mut self) -> Result<String, String> {
        if self.history.len() <= 1 {
            return Err("cannot undo".to_string());
        }
        self.history.pop();
        self.actions.pop();
        self.reset_agent();
        Ok(String::new())
    }

    /// `final_score`: the finished game's score as GTP writes it (`B+3.5`, `W+0.5`, `0`).
    fn final_score(&self) -> Result<String, String> {
        match self.position().final_score() {
            Some(score) if score > 0.0 => Ok(format!("B+{score}")),
            Some(score) if score < 0.0 => Ok(format!("W+{}", -score)),
            Some(_) => Ok("0".to_string()),
            None => Err(format!("{} has no score", self.initial.name())),
        }
    }

    /// `gogui-rules_legal_moves`: the legal moves in the game's notation, space-separated.
    fn legal_moves(&self) -> String {
        let position = self.position();
        position
            .legal_action_vec()
            .iter()
            .map(|&a| position.format_action(a))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A command line as GTP reads it: comments cut, tabs as spaces, then the optional
/// numeric id and the words; `None` for a line with nothing to do.
fn parse_line(line: &str) -> Option<(String, Vec<&str>)> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() {
        return None;
    }
    let mut words: Vec<&str> = line.split_whitespace().collect();
    let id = match words.first().and_then(|w| w.parse::<u64>().ok()) {
        Some(id) => {
            words.remove(0);
            id.to_string()
        }
        None => String::new(),
    };
    Some((id, words))
}

/// Reads commands from `input` until `quit` or its end, writing replies to `output`, one
/// command at a time as GTP has it: a command sent while `genmove` thinks is read at once
/// and answered after it. Lines are read on a thread of its own, at most
/// [`super::MAX_LINE`] bytes each.
pub fn run_loop<G: Game>(
    engine: &mut GtpEngine<G>,
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
) -> std::io::Result<()> {
    let inbox = super::read_lines(input, |_| {})?;
    for item in inbox {
        let line = match item {
            Input::Line(line) => line,
            Input::TooLong(length) => {
                writeln!(
                    output,
                    "? a line of {length} bytes is longer than {} and was skipped\n",
                    super::MAX_LINE
                )?;
                output.flush()?;
                continue;
            }
            Input::Failed(e) => return Err(e),
        };
        let Some((id, words)) = parse_line(&line) else {
            continue;
        };
        let Some((&command, args)) = words.split_first() else {
            writeln!(output, "?{id} empty command\n")?;
            output.flush()?;
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
    use zerosum_players::MctsAgent;
    use zerosum_search::SearchConfig;

    fn session(script: &str) -> String {
        let agent = MctsAgent::new(
            "mcts:50".into(),
            Box::new(zerosum_search::RolloutEvaluator::new(1, 1)),
            SearchConfig::default(),
            50,
        );
        session_with(Box::new(agent), script)
    }

    fn session_with(agent: Box<dyn Agent<ConnectFour>>, script: &str) -> String {
        let mut engine = GtpEngine::new(ConnectFour::new(), agent, SmallRng::seed_from_u64(1));
        transcript(&mut engine, script)
    }

    /// What `engine` answers to `script`.
    fn transcript<G: Game>(engine: &mut GtpEngine<G>, script: &str) -> String {
        let mut out = Vec::new();
        run_loop(
            engine,
            std::io::Cursor::new(script.as_bytes().to_vec()),
            &mut out,
        )
        .unwrap();
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

    /// A command with words it does not take is refused whole, not half obeyed.
    #[test]
    fn extra_or_missing_arguments_are_refused() {
        let out =
            session("boardsize 7 7\nundo now\nname x\ngenmove\nplay b\ngenmove b w\nplay b d\n");
        let replies: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(replies[0], "? boardsize takes 1 argument, got 2");
        assert_eq!(replies[1], "? undo takes no arguments, got 1");
        assert_eq!(replies[2], "? name takes no arguments, got 1");
        assert_eq!(replies[3], "? genmove takes 1 argument, got 0");
        assert_eq!(replies[4], "? play needs a colour and a move");
        assert_eq!(replies[5], "? genmove takes 1 argument, got 2");
        assert_eq!(replies[6], "=", "the board is untouched by the refusals");
        let out = session("quit now\nname\n");
        assert_eq!(out, "=\n\n", "quit is obeyed whatever follows it");
    }

    /// What a controller sent comes back escaped and cut short: no terminal codes, no
    /// reply as long as the line.
    #[test]
    fn a_refused_word_is_repeated_escaped_and_short() {
        let long = "y".repeat(60_000);
        let out = session(&format!("\u{1b}[31mred\nplay b {long}\n"));
        let replies: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(replies[0], "? unknown command '\\u{1b}[31mred'");
        assert!(replies[1].starts_with("? 'yyy"), "{}", replies[1]);
        assert!(replies[1].len() < 300, "{}", replies[1]);
    }

    /// A 5x5 Go engine with rollout MCTS that `boardsize` and `komi` rebuild.
    fn go_engine() -> GtpEngine<zerosum_games::go::Go> {
        let agent = MctsAgent::new(
            "mcts:20".into(),
            Box::new(zerosum_search::RolloutEvaluator::new(1, 1)),
            SearchConfig::default(),
            20,
        );
        GtpEngine::new(
            zerosum_games::go::Go::new(),
            Box::new(agent),
            SmallRng::seed_from_u64(1),
        )
        .with_rebuild(registry_rebuild())
    }

    fn go_session(script: &str) -> Vec<String> {
        let out = transcript(&mut go_engine(), script);
        out.split("\n\n")
            .filter(|r| !r.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn final_score_counts_go_areas_with_komi() {
        // 5x5, komi 0.5: one black stone owns the board; then a stone each on 7x7.
        let replies = go_session(
            "final_score\nplay b C3\nplay w pass\nplay b pass\nfinal_score\n\
             gogui-rules_final_result\nknown_command final_score\n\
             boardsize 7\nplay b G7\nplay w A1\nplay b pass\nplay w pass\nfinal_score\n\
             gogui-rules_game_id\n",
        );
        assert_eq!(
            replies,
            [
                "= W+0.5",
                "=",
                "=",
                "=",
                "= B+24.5",
                "= B+",
                "= true",
                "=",
                "=",
                "=",
                "=",
                "=",
                "= W+0.5",
                "= go:size=7,komi=0.5,max_moves=98",
            ]
        );
        let out = session("final_score\n");
        assert!(
            out.starts_with("? connect4:rows=6,cols=7,k=4 has no score"),
            "{out}"
        );
    }

    #[test]
    fn boardsize_and_komi_rebuild_go() {
        let replies = go_session(
            "boardsize 9\nplay b J9\nshowboard\nboardsize 4\nboardsize x\n\
             komi 24.5\ngogui-rules_game_id\nplay w pass\nplay b pass\nfinal_score\n\
             undo\nkomi 0.3\nboardsize 5\ngogui-rules_game_id\nplay b J9\n",
        );
        assert_eq!(replies[0], "=");
        assert_eq!(replies[1], "=");
        assert!(
            replies[2].starts_with("=\n 9 . . . . . . . . X"),
            "{}",
            replies[2]
        );
        assert_eq!(replies[3], "? unacceptable size: go takes sizes 5 to 19");
        assert!(replies[4].starts_with("? boardsize needs a number"));
        // Komi keeps the moves: J9 stays, and black's one stone wins by 81 - 24.5.
        assert_eq!(replies[5], "=");
        assert_eq!(replies[6], "= go:size=9,komi=24.5,max_moves=162");
        assert_eq!(replies[9], "= B+56.5");
        assert_eq!(replies[10], "=");
        assert!(
            replies[11].starts_with("? komi must be a multiple of 0.5"),
            "{}",
            replies[11]
        );
        assert_eq!(replies[12], "=");
        assert_eq!(replies[13], "= go:size=5,komi=24.5,max_moves=50");
        assert!(replies[14].starts_with("? "), "{}", replies[14]);
    }

    /// A refused `boardsize` says which sizes the game takes, in GTP's words, not the
    /// registry's.
    #[test]
    fn a_refused_boardsize_names_the_sizes_the_game_takes() {
        let out = session("boardsize 7\nboardsize 6\n");
        assert_eq!(
            out,
            "? unacceptable size: connect4 has no board size to set\n\n".repeat(2)
        );
        let mut gomoku = GtpEngine::new(
            zerosum_games::gomoku::Gomoku::new(),
            Box::new(zerosum_players::players::RandomAgent),
            SmallRng::seed_from_u64(1),
        )
        .with_rebuild(registry_rebuild());
        let out = transcript(&mut gomoku, "boardsize 7\nboardsize 9\nboardsize 30\n");
        assert_eq!(
            out,
            "? unacceptable size: gomoku takes sizes 9 to 19\n\n=\n\n\
             ? unacceptable size: gomoku takes sizes 9 to 19\n\n"
        );
        assert_eq!(ranges(&[5, 6, 7, 9, 11, 12]), "5 to 7, 9, 11, 12");
    }

    /// A rebuilt game asks the repick hook for its player: a new one plays from then on,
    /// and a refusal leaves the board and the player as they were.
    #[test]
    fn boardsize_repicks_the_player_and_a_refusal_keeps_the_board() {
        use std::sync::{Arc, Mutex};
        let asked = Arc::new(Mutex::new(Vec::new()));
        let heard = Arc::clone(&asked);
        let mut engine = go_engine().with_repick(Box::new(move |game: &zerosum_games::go::Go| {
            let name = game.name();
            heard.lock().unwrap().push(name.clone());
            match name.starts_with("go:size=7") {
                true => Err("no player for 7x7".to_string()),
                false => Ok(Some(
                    Box::new(zerosum_players::players::RandomAgent) as Box<_>
                )),
            }
        }));
        let mut reply = |line: &str| {
            let words: Vec<&str> = line.split_whitespace().collect();
            engine.handle(words[0], &words[1..])
        };
        assert_eq!(reply("boardsize 9"), Ok(String::new()));
        assert_eq!(reply("boardsize 7"), Err("no player for 7x7".to_string()));
        assert_eq!(
            reply("gogui-rules_game_id"),
            Ok("go:size=9,komi=0.5,max_moves=162".to_string())
        );
        assert!(reply("genmove b").is_ok());
        assert_eq!(
            *asked.lock().unwrap(),
            [
                "go:size=9,komi=0.5,max_moves=162",
                "go:size=7,komi=0.5,max_moves=98"
            ]
        );
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

    /// Answers every position with its first legal move, valued as lost.
    struct Hopeless;

    impl zerosum_players::Agent<ConnectFour> for Hopeless {
        fn name(&self) -> String {
            "hopeless".to_string()
        }

        fn choose(
            &mut self,
            position: &ConnectFour,
            _rng: &mut SmallRng,
        ) -> Result<zerosum_players::Choice, zerosum_players::PlayError> {
            Ok(zerosum_players::Choice {
                action: position.legal_action_vec()[0],
                value: Some(-0.95),
                search: None,
            })
        }
    }

    /// `genmove` answers `resign` on the third move of one colour in a row valued at or
    /// below the threshold, and plays nothing then; a `genmove` for the other colour, or
    /// moves taken back, start the count again.
    #[test]
    fn genmove_resigns_after_three_lost_values_in_a_row() {
        let mut engine = GtpEngine::new(
            ConnectFour::new(),
            Box::new(Hopeless),
            SmallRng::seed_from_u64(1),
        )
        .with_resignation(Resignation::new(-0.9));
        let mut replies = |script: &str| -> Vec<String> {
            let lines = script.lines().map(|line| {
                let words: Vec<&str> = line.split_whitespace().collect();
                engine.handle(words[0], &words[1..]).unwrap()
            });
            lines.filter(|reply| !reply.is_empty()).collect()
        };
        let resigned = "genmove b\nplay w b\ngenmove b\nplay w b\ngenmove b\n";
        assert_eq!(replies(resigned), ["a", "a", "resign"]);
        assert_eq!(replies("gogui-rules_side_to_move"), ["black"]);
        // A hint asked for White breaks Black's run.
        let hinted = "undo\nundo\nundo\ngenmove w\ngenmove b\nplay w b\ngenmove b";
        assert_eq!(replies(hinted), ["a", "a", "a"]);
        assert_eq!(replies("play w c\ngenmove b"), ["resign"]);
        let again = "undo\ngenmove w\ngenmove b\nclear_board\ngenmove b\nplay w b\ngenmove b";
        assert_eq!(replies(again), ["a", "a", "a", "a"]);
        // Without the rule the same agent plays on.
        let out = session_with(Box::new(Hopeless), "genmove b\ngenmove w\ngenmove b\n");
        assert_eq!(out, "= a\n\n= a\n\n= a\n\n");
    }

    #[test]
    fn ids_comments_and_overlong_lines() {
        let mut script = "7 name # a comment\n# only a comment\n8\n".to_string();
        script.push_str(&"x".repeat(super::super::MAX_LINE + 1));
        script.push_str("\n9 version\n");
        let out = session(&script);
        let replies: Vec<&str> = out.split("\n\n").filter(|r| !r.is_empty()).collect();
        assert_eq!(replies[0], "=7 zerosum");
        assert_eq!(replies[1], "?8 empty command");
        assert!(
            replies[2].starts_with("? a line of 65537 bytes"),
            "{}",
            replies[2]
        );
        assert_eq!(replies[3], format!("=9 {}", env!("CARGO_PKG_VERSION")));
    }
}
