//! Move accuracy against exact play: sets of positions whose every legal move is solved,
//! and how often a player picks a move that keeps the position's game-theoretic value.
//!
//! This is the benchmark Pascal Pons's connect-four solver made standard (and AlphaZero.jl
//! reports): positions from random play at the beginning, middle and end of the game,
//! solved exactly; a player's error rate is the share of positions where its move turns a
//! win into a draw or loss, or a draw into a loss. Positions where every move has the same
//! value are left out: they test nothing.
//!
//! Connect four (boards up to 6 x 7 and a little beyond) is solved by
//! [`zerosum_games::connect_four::solver`]; any other game by memoised negamax, which is only
//! practical for tic-tac-toe-sized games.

use std::any::Any;
use std::ops::RangeInclusive;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use zerosum_games::connect_four::solver::Solver;
use zerosum_games::connect_four::ConnectFour;
use zerosum_games::{Action, Game, Player};

use crate::agent::Agent;
use crate::arena::share_with_interval;
use crate::error::PlayError;
use crate::perfect::PerfectSolver;
use zerosum_store::record::GameRecord;

/// Exact values of the moves of a position, for the mover: 1 win, 0 draw, -1 loss.
pub struct ExactSolver<G: Game> {
    connect_four: Option<Solver>,
    generic: PerfectSolver<G>,
}

/// Positions the generic solver may search before it gives up: tic-tac-toe takes a few
/// thousand; a larger game is refused in well under a minute (chess: 10-20 s).
const GENERIC_LIMIT: usize = 1_000_000;

impl<G: Game> ExactSolver<G> {
    /// A solver for `initial`'s game: Pons's method for connect four, memoised negamax
    /// otherwise (which answers `None` for games too large).
    pub fn new(initial: &G) -> ExactSolver<G> {
        let connect_four = (initial as &dyn Any)
            .downcast_ref::<ConnectFour>()
            .and_then(|g| Solver::new(g, 1 << 24));
        ExactSolver {
            connect_four,
            generic: PerfectSolver::new(GENERIC_LIMIT),
        }
    }

    /// The value of each legal action of `position`, in action order; `None` when the game
    /// is too large to solve.
    pub fn action_values(&mut self, position: &G) -> Option<Vec<(Action, i8)>> {
        self.action_values_within(position, u64::MAX).ok().flatten()
    }

    /// [`ExactSolver::action_values`], or `Ok(None)` for a connect-four position that takes
    /// more than `max_nodes` positions to solve; an error when the game is too large for
    /// exact search at all.
    pub fn action_values_within(
        &mut self,
        position: &G,
        max_nodes: u64,
    ) -> Result<Option<Vec<(Action, i8)>>, PlayError> {
        if let (Some(solver), Some(c4)) = (
            self.connect_four.as_mut(),
            (position as &dyn Any).downcast_ref::<ConnectFour>(),
        ) {
            return Ok(solver.action_values_within(c4, max_nodes));
        }
        match self.generic.action_values(position) {
            Some(values) => Ok(Some(values)),
            None => Err(PlayError::Benchmark(format!(
                "{} is too large to solve exactly",
                position.name()
            ))),
        }
    }
}

/// The positions [`draw_positions`] kept, and how many of each stage it skipped as too hard.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnPositions {
    /// The positions, stage by stage.
    pub positions: Vec<SolvedPosition>,
    /// Per stage, in order: positions given up after `max_nodes`, counted on the first of
    /// the stages of the same moves played, which share their draw (0 on the others).
    pub too_hard: Vec<usize>,
}

/// A set of positions to draw: a part of the game, by moves played, and, where given, how
/// hard its positions are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    /// `begin`, `middle` or `end`, with the difficulty where there is one: `begin-hard`.
    pub name: String,
    /// Moves played before the position, both ends included.
    pub plies: RangeInclusive<usize>,
    /// The difficulty of every position of the set; `None` takes any.
    pub difficulty: Option<Difficulty>,
}

/// How hard a position is to play, by how many of its moves keep its outcome: Pons's
/// benchmark sorts by how long his solver takes, which says little about a network, so
/// here a position is hard when one move alone keeps the outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    /// More than half of the moves keep the outcome.
    Easy,
    /// Two or more keep it, but at most half.
    Medium,
    /// Exactly one move keeps it.
    Hard,
}

impl Difficulty {
    /// Every difficulty, easiest first.
    pub const ALL: [Difficulty; 3] = [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard];

    /// The difficulty of a position whose moves have `values`; `None` when every move has
    /// the same value (nothing to get wrong).
    pub fn of(values: impl IntoIterator<Item = i8>) -> Option<Difficulty> {
        let values: Vec<i8> = values.into_iter().collect();
        let best = *values.iter().max()?;
        let keeping = values.iter().filter(|&&v| v == best).count();
        match keeping {
            k if k == values.len() => None,
            1 => Some(Difficulty::Hard),
            k if 2 * k > values.len() => Some(Difficulty::Easy),
            _ => Some(Difficulty::Medium),
        }
    }

    /// Its name in a set's name: `begin-hard`.
    pub fn name(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
        }
    }
}

/// Pons's three stages on a board of `cells` cells (for 6 x 7: fewer than 14 moves played,
/// 14 to 27, 28 and more), starting at `first` moves played.
pub fn stages(cells: usize, first: usize) -> Vec<Stage> {
    let third = cells / 3;
    let stage = |name: &str, plies: RangeInclusive<usize>| Stage {
        name: name.to_string(),
        plies,
        difficulty: None,
    };
    vec![
        stage("begin", first.min(third - 1)..=third - 1),
        stage("middle", third..=2 * third - 1),
        stage("end", 2 * third..=cells.saturating_sub(2)),
    ]
}

/// Pons's stages for `initial`'s board, the first from `min_plies` moves played.
pub fn game_stages<G: Game>(initial: &G, min_plies: usize) -> Vec<Stage> {
    let cells: usize = initial
        .num_actions()
        .max(initial.obs_shape().iter().skip(1).product());
    stages(cells, min_plies)
}

/// Every set a file of solved positions may name, Pons's six first: the stages, whole and
/// split by difficulty.
pub fn known_sets<G: Game>(initial: &G) -> Vec<Stage> {
    let stages = game_stages(initial, 0);
    let mut sets = pons_sets(&stages);
    for set in sets_by_difficulty(&stages).into_iter().chain(stages) {
        if !sets.iter().any(|s| s.name == set.name) {
            sets.push(set);
        }
    }
    sets
}

/// The solved positions of the JSON Lines file at `path` (as `zerosum accuracy --save`
/// writes them), each checked against `initial` and the [`known_sets`]; with the sets they
/// fill, in the order of that list.
pub fn read_positions<G: Game>(
    path: &std::path::Path,
    initial: &G,
) -> Result<(Vec<SolvedPosition>, Vec<Stage>), PlayError> {
    let failed = |what: String| PlayError::Benchmark(format!("{}{what}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| failed(format!(": {e}")))?;
    let sets = known_sets(initial);
    let mut positions = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: String| failed(format!(" line {}: {e}", number + 1));
        let solved: SolvedPosition =
            serde_json::from_str(line).map_err(|e| at(format!("not a solved position: {e}")))?;
        solved
            .position(initial, &sets)
            .map_err(|e| at(e.to_string()))?;
        positions.push(solved);
    }
    if positions.is_empty() {
        return Err(failed(" holds no positions".to_string()));
    }
    let used = sets
        .into_iter()
        .filter(|set| positions.iter().any(|p| p.stage == set.name))
        .collect();
    Ok((positions, used))
}

/// Each of `stages` split by difficulty, stage by stage.
pub fn sets_by_difficulty(stages: &[Stage]) -> Vec<Stage> {
    stages
        .iter()
        .flat_map(|stage| {
            Difficulty::ALL.map(|difficulty| Stage {
                name: format!("{}-{}", stage.name, difficulty.name()),
                plies: stage.plies.clone(),
                difficulty: Some(difficulty),
            })
        })
        .collect()
}

/// The six sets of Pons's benchmark (and AlphaZero.jl's reports), in their order: end-easy,
/// middle-easy, begin-easy, middle-medium, begin-medium, begin-hard.
pub fn pons_sets(stages: &[Stage]) -> Vec<Stage> {
    let all = sets_by_difficulty(stages);
    let wanted = [
        "end-easy",
        "middle-easy",
        "begin-easy",
        "middle-medium",
        "begin-medium",
        "begin-hard",
    ];
    wanted
        .iter()
        .filter_map(|name| all.iter().find(|set| set.name == *name).cloned())
        .collect()
}

/// A solved position: how to reach it and the value of each of its moves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolvedPosition {
    /// The stage it was drawn for.
    pub stage: String,
    /// The moves from the initial position, in the game's notation.
    pub moves: Vec<String>,
    /// Each legal move's notation and value for the mover.
    pub values: Vec<(String, i8)>,
}

impl SolvedPosition {
    /// The position itself, replayed from `initial`, once it is known to be one that a
    /// player can be judged in: not finished, with a value of -1, 0 or 1 for each of its
    /// legal moves, once each and for no other move, and a stage of `stages`.
    pub fn position<G: Game>(&self, initial: &G, stages: &[Stage]) -> Result<G, PlayError> {
        let bad =
            |reason: String| PlayError::Benchmark(format!("position {:?}: {reason}", self.moves));
        let mut position = initial.clone();
        for text in &self.moves {
            position
                .play_notation(text)
                .map_err(|e| bad(e.to_string()))?;
        }
        if position.is_terminal() {
            return Err(bad("the game is over there".into()));
        }
        let Some(stage) = stages.iter().find(|stage| stage.name == self.stage) else {
            let names: Vec<&str> = stages.iter().map(|stage| stage.name.as_str()).collect();
            return Err(bad(format!(
                "stage {:?} is not one of {}",
                self.stage,
                names.join(", ")
            )));
        };
        let mut legal: Vec<String> = position
            .legal_action_vec()
            .into_iter()
            .map(|action| position.format_action(action))
            .collect();
        for (text, value) in &self.values {
            if !(-1..=1).contains(value) {
                return Err(bad(format!("{text} has the value {value}, not -1, 0 or 1")));
            }
            let Some(index) = legal.iter().position(|move_| move_ == text) else {
                return Err(bad(format!(
                    "{text} is not a legal move there, or is valued twice"
                )));
            };
            legal.swap_remove(index);
        }
        if let Some(missing) = legal.first() {
            return Err(bad(format!("the legal move {missing} has no value")));
        }
        if stage
            .difficulty
            .is_some_and(|d| Some(d) != self.difficulty())
        {
            return Err(bad(format!(
                "it is in the {} set, but its move values make it {}",
                self.stage,
                self.difficulty()
                    .map_or("one with no wrong move", Difficulty::name)
            )));
        }
        Ok(position)
    }

    /// How hard the position is; `None` if every move has the same value.
    pub fn difficulty(&self) -> Option<Difficulty> {
        Difficulty::of(self.values.iter().map(|v| v.1))
    }

    /// The best value a move reaches.
    pub fn best(&self) -> i8 {
        self.values.iter().map(|v| v.1).max().unwrap_or(0)
    }

    /// Whether the move written `notation` keeps the best value.
    pub fn is_optimal(&self, notation: &str) -> bool {
        self.values
            .iter()
            .any(|(text, value)| text == notation && *value == self.best())
    }
}

/// Draws `per_stage` positions for each stage from uniformly random games (seeded), keeps
/// those that are not finished, where some move is worse than another and whose difficulty
/// is the stage's, and solves them; stages of the same moves played share the draw, each
/// position going to the first of them it fits that still has room. A position that takes
/// more than `max_nodes` to solve is skipped and counted once, on the first stage of its
/// moves played. (Skipping leans the sets towards easier positions: the count says by how much.)
/// `on_position` hears about each one kept. Fails if the game cannot be solved.
pub fn draw_positions<G: Game>(
    initial: &G,
    stages: &[Stage],
    per_stage: usize,
    seed: u64,
    max_nodes: u64,
    mut on_position: impl FnMut(&SolvedPosition),
) -> Result<DrawnPositions, PlayError> {
    let mut solver = ExactSolver::new(initial);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut kept: Vec<(usize, SolvedPosition)> = Vec::new();
    let mut too_hard = vec![0; stages.len()];
    let mut found = vec![0; stages.len()];
    for (first, stage) in stages.iter().enumerate() {
        if stages[..first].iter().any(|s| s.plies == stage.plies) {
            continue;
        }
        let members: Vec<usize> = (first..stages.len())
            .filter(|&i| stages[i].plies == stage.plies)
            .collect();
        let mut attempts = 0;
        while members.iter().any(|&i| found[i] < per_stage) {
            attempts += 1;
            if attempts > 1000 * per_stage.max(1) * members.len() {
                return Err(PlayError::Benchmark(format!(
                    "found too few positions with a choice at {} moves played",
                    describe_plies(&stage.plies)
                )));
            }
            let (position, moves) = random_position(initial, &stage.plies, &mut rng);
            if position.is_terminal() {
                continue;
            }
            let Some(values) = solver.action_values_within(&position, max_nodes)? else {
                too_hard[first] += 1;
                continue;
            };
            let difficulty = Difficulty::of(values.iter().map(|v| v.1));
            let Some(set) = members.iter().copied().find(|&i| {
                found[i] < per_stage
                    && difficulty.is_some()
                    && stages[i].difficulty.is_none_or(|d| Some(d) == difficulty)
            }) else {
                continue;
            };
            let solved = SolvedPosition {
                stage: stages[set].name.clone(),
                moves,
                values: values
                    .into_iter()
                    .map(|(action, value)| (position.format_action(action), value))
                    .collect(),
            };
            on_position(&solved);
            kept.push((set, solved));
            found[set] += 1;
        }
    }
    kept.sort_by_key(|(set, _)| *set);
    Ok(DrawnPositions {
        positions: kept.into_iter().map(|(_, solved)| solved).collect(),
        too_hard,
    })
}

/// The position after a uniformly random number of `plies` of uniformly random moves
/// (fewer if the game ends first), with the moves in the game's notation.
fn random_position<G: Game>(
    initial: &G,
    plies: &RangeInclusive<usize>,
    rng: &mut SmallRng,
) -> (G, Vec<String>) {
    let plies = rng.random_range(plies.clone());
    let mut position = initial.clone();
    let mut moves = Vec::with_capacity(plies);
    while moves.len() < plies && !position.is_terminal() {
        let legal = position.legal_action_vec();
        let action = legal[rng.random_range(0..legal.len())];
        moves.push(position.format_action(action));
        position.apply(action);
    }
    (position, moves)
}

fn describe_plies(plies: &RangeInclusive<usize>) -> String {
    format!("{}-{}", plies.start(), plies.end())
}

/// How one player did on one stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageScore {
    /// The stage's name.
    pub stage: String,
    /// Positions where the player's move kept the best value.
    pub optimal: usize,
    /// Positions asked.
    pub positions: usize,
}

impl StageScore {
    /// The share of optimal moves.
    pub fn rate(&self) -> f64 {
        self.optimal as f64 / self.positions.max(1) as f64
    }

    /// The rate with its 95% interval, in percent: `99.0% [94.6, 99.8]`.
    pub fn rate_text(&self) -> String {
        share_with_interval(self.rate(), self.positions.max(1))
    }

    /// The share of positions where the move changed the outcome (a win into a draw or
    /// loss, a draw into a loss): with values of -1, 0 and 1, every move that is not
    /// optimal is one.
    pub fn error_rate(&self) -> f64 {
        1.0 - self.rate()
    }

    /// [`StageScore::error_rate`] with its 95% interval, in percent.
    pub fn errors_text(&self) -> String {
        share_with_interval(self.error_rate(), self.positions.max(1))
    }
}

/// Asks `agent` for a move in every position (a fresh game each time) and scores each
/// stage in the order of `stages`. `on_position` hears about each position done.
pub fn score_agent<G: Game>(
    initial: &G,
    agent: &mut dyn Agent<G>,
    positions: &[SolvedPosition],
    stages: &[Stage],
    rng: &mut SmallRng,
    mut on_position: impl FnMut(),
) -> Result<Vec<StageScore>, PlayError> {
    let mut scores: Vec<StageScore> = stages
        .iter()
        .map(|s| StageScore {
            stage: s.name.clone(),
            optimal: 0,
            positions: 0,
        })
        .collect();
    for solved in positions {
        let position = solved.position(initial, stages)?;
        agent.reset();
        let choice = agent.choose(&position, rng)?;
        let notation = position.format_action(choice.action);
        if let Some(score) = scores.iter_mut().find(|s| s.stage == solved.stage) {
            score.positions += 1;
            score.optimal += usize::from(solved.is_optimal(&notation));
        }
        on_position();
    }
    Ok(scores)
}

/// A move of a recorded game, judged against exact play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgedMove {
    /// Moves played before it.
    pub ply: usize,
    /// Who made it.
    pub mover: Player,
    /// The move.
    pub action: Action,
    /// The value of each legal move for the mover (1 win, 0 draw, -1 loss); `None` for a
    /// move not judged (before `min_plies`, or too hard to solve).
    pub values: Option<Vec<(Action, i8)>>,
}

impl JudgedMove {
    /// The position's value for the mover and the value of the move played.
    pub fn verdict(&self) -> Option<(i8, i8)> {
        let values = self.values.as_ref()?;
        let best = values.iter().map(|v| v.1).max()?;
        let played = values.iter().find(|v| v.0 == self.action)?.1;
        Some((best, played))
    }

    /// Whether the move lost value: a win let go to a draw or a loss, or a draw to a loss.
    pub fn is_error(&self) -> bool {
        matches!(self.verdict(), Some((best, played)) if played < best)
    }
}

/// Judges each move of `record` made with at least `min_plies` moves played; a position
/// that takes more than `max_nodes` to solve is left unjudged. The positions are solved
/// from the last to the first, so that the later ones fill the solver's table for the
/// earlier. `on_position` hears about each position solved or given up. Fails on an
/// illegal move or a game too large to solve.
pub fn judge_record<G: Game>(
    initial: &G,
    solver: &mut ExactSolver<G>,
    record: &GameRecord,
    min_plies: usize,
    max_nodes: u64,
    mut on_position: impl FnMut(),
) -> Result<Vec<JudgedMove>, PlayError> {
    let positions = record.replay(initial)?;
    let mut judged = vec![None; positions.len()];
    for ply in (min_plies..positions.len()).rev() {
        judged[ply] = solver.action_values_within(&positions[ply], max_nodes)?;
        on_position();
    }
    Ok(positions
        .iter()
        .zip(judged)
        .enumerate()
        .map(|(ply, (position, values))| JudgedMove {
            ply,
            mover: position.to_move(),
            action: record.actions[ply],
            values,
        })
        .collect())
}

/// What one player did over the judged games.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games it played.
    pub games: usize,
    /// Games it won.
    pub wins: usize,
    /// Games drawn.
    pub draws: usize,
    /// Its moves judged.
    pub judged: usize,
    /// Moves that turned a win into a draw, a win into a loss, a draw into a loss.
    pub errors: [usize; 3],
    /// Games lost after an error of its own.
    pub lost_after_error: usize,
    /// Games lost with every move judged from `min_plies` on and none an error: lost
    /// before its first judged move.
    pub lost_all_along: usize,
    /// Games lost with no error among the judged moves but some moves unjudged.
    pub lost_unclear: usize,
}

/// How to judge recorded games.
#[derive(Clone, Copy, Debug)]
pub struct Judging {
    /// Moves played before the first judged one.
    pub min_plies: usize,
    /// A position that takes more nodes than this to solve is left unjudged.
    pub max_nodes: u64,
    /// Keep the positions where a judged move erred.
    pub keep_erred: bool,
}

/// What judging recorded games found.
#[derive(Clone, Debug, Default)]
pub struct JudgedGames {
    /// Each player's tally, in the order the games name them.
    pub tallies: Vec<(String, Tally)>,
    /// Positions from `min_plies` on too hard to solve.
    pub unjudged: usize,
    /// With [`Judging::keep_erred`]: the positions where a judged move erred.
    pub erred: Vec<SolvedPosition>,
}

/// Judges every move of `records` (each with its line) against exact play and tallies
/// each player's errors and losses; `on_position` hears about each position solved. An
/// error comes back with the line of its record.
pub fn judge_games<G: Game>(
    initial: &G,
    records: &[(usize, GameRecord)],
    stages: &[Stage],
    settings: &Judging,
    mut on_position: impl FnMut(),
) -> Result<JudgedGames, (usize, PlayError)> {
    let mut solver = ExactSolver::new(initial);
    let mut found = JudgedGames::default();
    for (line, record) in records {
        let judged = judge_record(
            initial,
            &mut solver,
            record,
            settings.min_plies,
            settings.max_nodes,
            &mut on_position,
        )
        .map_err(|e| (*line, e))?;
        if settings.keep_erred {
            let erred =
                erred_positions(initial, stages, record, &judged).map_err(|e| (*line, e))?;
            found.erred.extend(erred);
        }
        found.unjudged += judged
            .iter()
            .filter(|m| m.ply >= settings.min_plies && m.values.is_none())
            .count();
        for (index, name) in record.players.iter().enumerate() {
            let at = match found.tallies.iter().position(|(n, _)| n == name) {
                Some(at) => at,
                None => {
                    found.tallies.push((name.clone(), Tally::default()));
                    found.tallies.len() - 1
                }
            };
            let own: Vec<&JudgedMove> =
                judged.iter().filter(|m| m.mover.index() == index).collect();
            tally_game(
                &mut found.tallies[at].1,
                index,
                record,
                &own,
                settings.min_plies,
            );
        }
    }
    Ok(found)
}

/// The positions of `record` where a judged move erred, with every move's value.
fn erred_positions<G: Game>(
    initial: &G,
    stages: &[Stage],
    record: &GameRecord,
    judged: &[JudgedMove],
) -> Result<Vec<SolvedPosition>, PlayError> {
    let positions = record.replay(initial)?;
    let notation = |ply: usize| positions[ply].format_action(record.actions[ply]);
    Ok(judged
        .iter()
        .filter(|m| m.is_error())
        .map(|m| {
            let position = &positions[m.ply];
            SolvedPosition {
                stage: stages
                    .iter()
                    .find(|s| s.plies.contains(&m.ply))
                    .or(stages.last())
                    .map_or(String::new(), |s| s.name.clone()),
                moves: (0..m.ply).map(notation).collect(),
                values: m
                    .values
                    .iter()
                    .flatten()
                    .map(|&(action, value)| (position.format_action(action), value))
                    .collect(),
            }
        })
        .collect())
}

/// Adds one game of `record` to the tally of the player in seat `index`, whose judged
/// moves are `own`.
fn tally_game(
    tally: &mut Tally,
    index: usize,
    record: &GameRecord,
    own: &[&JudgedMove],
    min_plies: usize,
) {
    tally.games += 1;
    let value = if index == 0 {
        record.value_first
    } else {
        -record.value_first
    };
    tally.wins += usize::from(value > 0.0);
    tally.draws += usize::from(value == 0.0);
    for judged in own {
        let Some((best, played)) = judged.verdict() else {
            continue;
        };
        tally.judged += 1;
        match (best, played) {
            (1, 0) => tally.errors[0] += 1,
            (1, -1) => tally.errors[1] += 1,
            (0, -1) => tally.errors[2] += 1,
            _ => {}
        }
    }
    if value < 0.0 {
        let late = || own.iter().filter(|m| m.ply >= min_plies);
        if own.iter().any(|m| m.is_error()) {
            tally.lost_after_error += 1;
        } else if late().all(|m| m.values.is_some()) {
            tally.lost_all_along += 1;
        } else {
            tally.lost_unclear += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use zerosum_games::tic_tac_toe::TicTacToe;

    use super::*;
    use crate::players::RandomAgent;

    #[test]
    fn connect_four_stages_are_pons_s() {
        let s = stages(42, 4);
        assert_eq!(s[0].plies, 4..=13);
        assert_eq!(s[1].plies, 14..=27);
        assert_eq!(s[2].plies, 28..=40);
    }

    #[test]
    fn connect_four_positions_replay_and_every_one_has_a_wrong_move() {
        let initial = ConnectFour::new();
        let stages = vec![Stage {
            name: "end".to_string(),
            plies: 30..=36,
            difficulty: None,
        }];
        let positions = draw_positions(&initial, &stages, 5, 9, u64::MAX, |_| {})
            .unwrap()
            .positions;
        assert_eq!(positions.len(), 5);
        for solved in &positions {
            let position = solved.position(&initial, &stages).unwrap();
            assert!(!position.is_terminal());
            assert!((30..=36).contains(&solved.moves.len()));
            assert_eq!(solved.values.len(), position.legal_action_vec().len());
            assert!(solved.values.iter().any(|v| v.1 < solved.best()));
        }
        // The same seed draws the same positions.
        assert_eq!(
            draw_positions(&initial, &stages, 5, 9, u64::MAX, |_| {})
                .unwrap()
                .positions,
            positions
        );
    }

    #[test]
    fn difficulty_counts_the_moves_that_keep_the_outcome() {
        assert_eq!(Difficulty::of([1, -1, -1, 0]), Some(Difficulty::Hard));
        assert_eq!(Difficulty::of([0, 0, -1, -1]), Some(Difficulty::Medium));
        assert_eq!(Difficulty::of([1, 1, 1, -1]), Some(Difficulty::Easy));
        assert_eq!(Difficulty::of([0, 0, 0]), None);
        let names: Vec<String> = pons_sets(&stages(42, 0))
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(
            names,
            [
                "end-easy",
                "middle-easy",
                "begin-easy",
                "middle-medium",
                "begin-medium",
                "begin-hard"
            ]
        );
    }

    /// Sets of the same moves played share one draw; each keeps its own difficulty, and a
    /// position filed under the wrong one is refused.
    #[test]
    fn sets_by_difficulty_hold_positions_of_their_difficulty() {
        let initial = ConnectFour::new();
        let end = stages(42, 0).split_off(2);
        let sets = sets_by_difficulty(&end);
        let drawn = draw_positions(&initial, &sets, 4, 3, u64::MAX, |_| {}).unwrap();
        assert_eq!(drawn.positions.len(), 12);
        for (solved, set) in drawn.positions.iter().zip(sets.iter().flat_map(|s| [s; 4])) {
            assert_eq!(solved.stage, set.name);
            assert_eq!(solved.difficulty(), set.difficulty);
            solved.position(&initial, &sets).unwrap();
        }
        let mut misfiled = drawn.positions[0].clone();
        misfiled.stage = "end-hard".to_string();
        let refused = misfiled.position(&initial, &sets).unwrap_err().to_string();
        assert!(
            refused.contains("its move values make it easy"),
            "{refused}"
        );
    }

    /// The exact player scores 100%; the random one is scored by the same rule.
    #[test]
    fn a_player_that_always_picks_a_best_move_scores_every_position() {
        struct Exact(ExactSolver<TicTacToe>);
        impl Agent<TicTacToe> for Exact {
            fn name(&self) -> String {
                "exact".to_string()
            }
            fn choose(
                &mut self,
                position: &TicTacToe,
                _: &mut SmallRng,
            ) -> Result<crate::agent::Choice, PlayError> {
                let values = self.0.action_values(position).unwrap();
                let best = values.iter().map(|v| v.1).max().unwrap();
                Ok(crate::agent::Choice {
                    action: values.iter().find(|v| v.1 == best).unwrap().0,
                    value: None,
                    search: None,
                })
            }
        }
        let initial = TicTacToe::new();
        let stages = stages(9, 1);
        let positions = draw_positions(&initial, &stages, 20, 1, u64::MAX, |_| {})
            .unwrap()
            .positions;
        let mut rng = SmallRng::seed_from_u64(1);
        let mut exact = Exact(ExactSolver::new(&initial));
        let scores =
            score_agent(&initial, &mut exact, &positions, &stages, &mut rng, || {}).unwrap();
        for score in &scores {
            assert_eq!((score.optimal, score.positions), (20, 20), "{score:?}");
        }
        let random = score_agent(
            &initial,
            &mut RandomAgent,
            &positions,
            &stages,
            &mut rng,
            || {},
        )
        .unwrap();
        let optimal: usize = random.iter().map(|s| s.optimal).sum();
        assert!(
            optimal < 60,
            "random play found the best move {optimal} times in 60"
        );
    }

    /// O's edge reply to a centre opening loses; X then wins without letting it go.
    #[test]
    fn a_recorded_game_is_judged_move_by_move() {
        let initial = TicTacToe::new();
        // b2 b3 a3 c1 a1 a2 c3: X's centre, O's losing edge, X's double threat.
        let record = GameRecord::new(
            &initial,
            ["x".into(), "o".into()],
            vec![4, 1, 0, 8, 6, 3, 2],
            Vec::new(),
        );
        let mut solver = ExactSolver::new(&initial);
        let mut solved = 0;
        let judged =
            judge_record(&initial, &mut solver, &record, 0, u64::MAX, || solved += 1).unwrap();
        assert_eq!(solved, 7);
        assert_eq!(judged[0].values.as_ref().map(Vec::len), Some(9));
        let values: Vec<Option<(i8, i8)>> = judged.iter().map(JudgedMove::verdict).collect();
        assert_eq!(
            values,
            [(0, 0), (0, -1), (1, 1), (-1, -1), (1, 1), (-1, -1), (1, 1)].map(Some)
        );
        let errors: Vec<usize> = judged
            .iter()
            .filter(|m| m.is_error())
            .map(|m| m.ply)
            .collect();
        assert_eq!(errors, [1]);
        assert_eq!(judged[1].mover, Player::SECOND);
        // Moves before min_plies are listed, not judged.
        let late = judge_record(&initial, &mut solver, &record, 5, u64::MAX, || {}).unwrap();
        assert_eq!(late.len(), 7);
        assert!(late[..5].iter().all(|m| m.values.is_none()));
        assert_eq!(late[5..], judged[5..]);
    }

    #[test]
    fn an_illegal_recorded_move_is_an_error() {
        let initial = TicTacToe::new();
        let mut record =
            GameRecord::new(&initial, ["x".into(), "o".into()], vec![4, 0], Vec::new());
        record.actions.push(4);
        let mut solver = ExactSolver::new(&initial);
        assert!(judge_record(&initial, &mut solver, &record, 0, u64::MAX, || {}).is_err());
    }
}
