//! Matches between two players: colours alternate, results with a 95% interval and Elo.

use std::fmt;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::Rng;
use serde::{Deserialize, Serialize};
use zerosum_games::{Action, Game, Player};

use crate::agent::Agent;
use crate::error::PlayError;
use zerosum_store::record::GameRecord;

/// libtorch threads for matches played one game at a time: `configured` when the config
/// sets it, else 1. Each search evaluates one position per call, where a second thread costs
/// more than it gives (2 cores, ms a move: connect four 20.3 against 22.4, chess 73.5
/// against 79.5; docs/results/connect4.md).
pub fn match_torch_threads(configured: usize) -> usize {
    configured.max(1)
}

/// The result of a match from player A's view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    /// Player A's name.
    pub player: String,
    /// Player B's name.
    pub opponent: String,
    /// A's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// A's losses.
    pub losses: u32,
    /// A's wins when A moved first.
    pub wins_as_first: u32,
    /// A's wins when A moved second.
    pub wins_as_second: u32,
    /// Moves A chose (opening plies are not chosen) and the seconds it took over them.
    #[serde(default)]
    pub thinking: Thinking,
    /// The same for B.
    #[serde(default)]
    pub opponent_thinking: Thinking,
    /// A's final scores, in games whose rules count one (Go).
    #[serde(default)]
    pub margin: Margin,
}

/// The points by which a player won its games (negative: lost), summed over the games
/// whose rules count a score: how far apart two players are when one wins every game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Margin {
    /// Games counted.
    pub games: u32,
    /// Their final scores summed, from the player's view.
    pub points: f64,
}

impl Margin {
    /// The mean final score, or `None` when no game counted one.
    pub fn mean(&self) -> Option<f64> {
        (self.games > 0).then(|| self.points / self.games as f64)
    }

    fn merge(&mut self, other: Margin) {
        self.games += other.games;
        self.points += other.points;
    }
}

/// How long a player took to choose its moves: compares budgets of different kinds
/// (`mcts:1000`'s rollouts against a network's 96 simulations) in the one unit they share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Thinking {
    /// Moves chosen.
    pub moves: u32,
    /// Seconds spent choosing them.
    pub seconds: f64,
}

impl Thinking {
    /// Milliseconds a move (0 before the first).
    pub fn millis_per_move(&self) -> f64 {
        if self.moves == 0 {
            return 0.0;
        }
        1000.0 * self.seconds / self.moves as f64
    }

    fn add(&mut self, elapsed: Duration) {
        self.moves += 1;
        self.seconds += elapsed.as_secs_f64();
    }

    fn merge(&mut self, other: Thinking) {
        self.moves += other.moves;
        self.seconds += other.seconds;
    }
}

impl MatchReport {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// A's score: (wins + draws / 2) / games.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// The 95% interval of the score: Wilson's, with a draw as half a win, so that a
    /// match won or lost in every game still gets an honest width.
    pub fn score_interval(&self) -> (f64, f64) {
        wilson_interval(self.score(), self.games() as usize)
    }

    /// The Elo difference A minus B implied by the score (clamped at +-800 for perfect
    /// scores).
    pub fn elo(&self) -> f64 {
        elo_of_score(self.score())
    }

    /// The score with its 95% interval, in percent: `55.0% [45.2, 64.4]`.
    pub fn score_text(&self) -> String {
        share_with_interval(self.score(), self.games() as usize)
    }

    /// The Elo interval implied by the score interval.
    pub fn elo_interval(&self) -> (f64, f64) {
        let (low, high) = self.score_interval();
        (elo_of_score(low), elo_of_score(high))
    }

    /// Adds the games of `other`, a match between the same players.
    pub fn merge(&mut self, other: &MatchReport) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.wins_as_first += other.wins_as_first;
        self.wins_as_second += other.wins_as_second;
        self.thinking.merge(other.thinking);
        self.opponent_thinking.merge(other.opponent_thinking);
        self.margin.merge(other.margin);
    }

    fn add(&mut self, value_for_a: f32, a_first: bool) {
        if value_for_a > 0.0 {
            self.wins += 1;
            if a_first {
                self.wins_as_first += 1;
            } else {
                self.wins_as_second += 1;
            }
        } else if value_for_a < 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
}

/// Three significant digits for small numbers (`0.0123`), one decimal from 10 up.
fn short_number(x: f64) -> String {
    if x == 0.0 || x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.*}", (2.0 - x.log10().floor()).max(0.0) as usize)
    }
}

/// A signed whole number of Elo points: `+35`, `-120`, and `+0` for anything that rounds
/// to zero (never `-0`).
pub fn signed_elo(elo: f64) -> String {
    let rounded = elo.round();
    if rounded == 0.0 {
        "+0".to_string()
    } else {
        format!("{rounded:+.0}")
    }
}

/// `1 win`, `2 wins`: a count and its noun, singular for one.
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// Two players' times a move in the one unit the slower's suits: `43.8 ms a move against
/// 36.9 ms`, seconds with two decimals from a second up (`1.25 s a move against 0.40 s`),
/// microseconds below a millisecond.
pub fn times_a_move(millis: f64, opponent_millis: f64) -> String {
    let slower = millis.max(opponent_millis);
    let (scale, unit) = if slower >= 1000.0 {
        (0.001, "s")
    } else if slower >= 1.0 || slower == 0.0 {
        (1.0, "ms")
    } else {
        (1000.0, "\u{b5}s")
    };
    let text = |ms: f64| match unit {
        "s" => format!("{:.2} s", ms * scale),
        _ => format!("{} {unit}", short_number(ms * scale)),
    };
    format!("{} a move against {}", text(millis), text(opponent_millis))
}

/// A share observed over `n` trials with its 95% Wilson interval, in percent:
/// `55.0% [45.2, 64.4]`.
pub fn share_with_interval(share: f64, n: usize) -> String {
    let (low, high) = wilson_interval(share, n);
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        100.0 * share,
        100.0 * low,
        100.0 * high
    )
}

/// The 95% Wilson score interval of a share observed over `n` trials ((0, 1) for none):
/// unlike the normal approximation it stays inside [0, 1] and keeps a width at 0% and 100%.
pub fn wilson_interval(share: f64, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let z2 = 1.96f64 * 1.96;
    let center = (share + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = (z2 * (share * (1.0 - share) / n + z2 / (4.0 * n * n))).sqrt() / (1.0 + z2 / n);
    // At 0% and 100% the bound on that side is exact; floating point would miss it by an ulp.
    let low = if share <= 0.0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let high = if share >= 1.0 {
        1.0
    } else {
        (center + half).min(1.0)
    };
    (low, high)
}

/// `-400 log10(1/s - 1)`, clamped to +-800.
pub fn elo_of_score(score: f64) -> f64 {
    let s = score.clamp(1e-9, 1.0 - 1e-9);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-800.0, 800.0)
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (low, high) = self.score_interval();
        let (elo_low, elo_high) = self.elo_interval();
        write!(
            f,
            "{} vs {}: {}, +{} ={} -{} (as first: {}, as second: {}), score {:.1}% [{:.1}%, {:.1}%], Elo {} [{}, {}], {}",
            self.player,
            self.opponent,
            count(self.games() as usize, "game"),
            self.wins,
            self.draws,
            self.losses,
            count(self.wins_as_first as usize, "win"),
            count(self.wins_as_second as usize, "win"),
            100.0 * self.score(),
            100.0 * low,
            100.0 * high,
            signed_elo(self.elo()),
            signed_elo(elo_low),
            signed_elo(elo_high),
            times_a_move(
                self.thinking.millis_per_move(),
                self.opponent_thinking.millis_per_move()
            ),
        )?;
        match self.margin.mean() {
            Some(mean) => write!(f, ", margin {mean:+.1} points a game"),
            None => Ok(()),
        }
    }
}

/// Plays one game from `initial`; `players[0]` moves first.
pub fn play_game<G: Game>(
    initial: &G,
    players: [&mut dyn Agent<G>; 2],
    rng: &mut SmallRng,
) -> Result<GameRecord, PlayError> {
    play_game_from(initial, &[], players, rng)
}

/// Plays one game from `initial` whose first moves are `opening` (legal moves, shown to
/// both players as if played); `players[0]` moves first.
pub fn play_game_from<G: Game>(
    initial: &G,
    opening: &[Action],
    players: [&mut dyn Agent<G>; 2],
    rng: &mut SmallRng,
) -> Result<GameRecord, PlayError> {
    play_timed_game(initial, opening, players, rng).map(|game| game.record)
}

/// A game played: its record, how long the first and the second player thought, and the
/// final score from the first player's view where the rules count one.
struct TimedGame {
    record: GameRecord,
    thinking: [Thinking; 2],
    final_score: Option<f32>,
}

/// [`play_game_from`], also timing the players and counting the final score.
fn play_timed_game<G: Game>(
    initial: &G,
    opening: &[Action],
    players: [&mut dyn Agent<G>; 2],
    rng: &mut SmallRng,
) -> Result<TimedGame, PlayError> {
    let mut thinking = [Thinking::default(); 2];
    let [first, second] = players;
    first.reset();
    second.reset();
    let mut position = initial.clone();
    let mut actions = Vec::new();
    for &action in opening {
        first.observe(&position, action);
        second.observe(&position, action);
        position.apply(action);
        actions.push(action);
    }
    while !position.is_terminal() {
        let (mover, clock) = if position.to_move() == Player::FIRST {
            (&mut *first, &mut thinking[0])
        } else {
            (&mut *second, &mut thinking[1])
        };
        let started = Instant::now();
        let choice = mover.choose(&position, rng)?;
        clock.add(started.elapsed());
        if !position.is_legal(choice.action) {
            return Err(PlayError::PlayerStopped {
                player: mover.name(),
                reason: format!(
                    "chose the illegal move {}",
                    position.format_action(choice.action)
                ),
            });
        }
        first.observe(&position, choice.action);
        second.observe(&position, choice.action);
        position.apply(choice.action);
        actions.push(choice.action);
    }
    Ok(TimedGame {
        record: GameRecord::new(initial, [first.name(), second.name()], actions, Vec::new()),
        thinking,
        final_score: position.final_score(),
    })
}

/// Plays `games` games between `a` and `b`, A first in even-numbered games; calls
/// `on_game` after each with the record and the report so far.
pub fn play_match<G: Game>(
    initial: &G,
    a: &mut dyn Agent<G>,
    b: &mut dyn Agent<G>,
    games: usize,
    rng: &mut SmallRng,
    on_game: impl FnMut(&GameRecord, &MatchReport),
) -> Result<MatchReport, PlayError> {
    play_match_with_openings(initial, a, b, games, 0, rng, on_game)
}

/// `opening_plies` random moves that do not end the game (fewer if every try did).
pub fn random_opening<G: Game>(
    initial: &G,
    opening_plies: usize,
    rng: &mut SmallRng,
) -> Vec<Action> {
    for _ in 0..100 {
        let mut position = initial.clone();
        let mut opening = Vec::with_capacity(opening_plies);
        while opening.len() < opening_plies && !position.is_terminal() {
            let legal = position.legal_action_vec();
            let action = legal[rng.random_range(0..legal.len())];
            position.apply(action);
            opening.push(action);
        }
        if !position.is_terminal() {
            return opening;
        }
    }
    Vec::new()
}

/// [`play_match`] where each pair of games starts from its own random opening of
/// `opening_plies` moves, played once with each colour: deterministic players then still
/// meet in varied positions, and neither gets the luckier opening.
pub fn play_match_with_openings<G: Game>(
    initial: &G,
    a: &mut dyn Agent<G>,
    b: &mut dyn Agent<G>,
    games: usize,
    opening_plies: usize,
    rng: &mut SmallRng,
    mut on_game: impl FnMut(&GameRecord, &MatchReport),
) -> Result<MatchReport, PlayError> {
    let mut report = MatchReport {
        player: a.name(),
        opponent: b.name(),
        ..Default::default()
    };
    let mut opening = Vec::new();
    for index in 0..games {
        let a_first = index % 2 == 0;
        if a_first {
            opening = random_opening(initial, opening_plies, rng);
        }
        let game = if a_first {
            play_timed_game(initial, &opening, [&mut *a, &mut *b], rng)?
        } else {
            play_timed_game(initial, &opening, [&mut *b, &mut *a], rng)?
        };
        let (a_seat, sign) = if a_first { (0, 1.0) } else { (1, -1.0) };
        report.add(sign * game.record.value_first, a_first);
        report.thinking.merge(game.thinking[a_seat]);
        report.opponent_thinking.merge(game.thinking[1 - a_seat]);
        if let Some(score) = game.final_score {
            report.margin.merge(Margin {
                games: 1,
                points: f64::from(sign * score),
            });
        }
        on_game(&game.record, &report);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_opening_is_played_once_with_each_colour() {
        use crate::players::{PerfectAgent, RandomAgent};
        use rand::SeedableRng;
        use zerosum_games::tic_tac_toe::TicTacToe;
        let mut rng = SmallRng::seed_from_u64(2);
        let (mut a, mut b) = (RandomAgent, PerfectAgent::new(10_000));
        let mut records = Vec::new();
        play_match_with_openings(&TicTacToe::new(), &mut a, &mut b, 6, 2, &mut rng, |r, _| {
            records.push(r.clone())
        })
        .unwrap();
        for pair in records.chunks(2) {
            assert_eq!(
                pair[0].actions[..2],
                pair[1].actions[..2],
                "a pair shares its opening"
            );
            assert_eq!(
                pair[0].players[0], pair[1].players[1],
                "colours swap within a pair"
            );
        }
        assert!(
            records
                .windows(3)
                .any(|w| w[0].actions[..2] != w[2].actions[..2]),
            "openings vary"
        );
    }

    #[test]
    fn thinking_counts_the_moves_each_player_chose() {
        use crate::players::{PerfectAgent, RandomAgent};
        use rand::SeedableRng;
        use zerosum_games::tic_tac_toe::TicTacToe;
        let mut rng = SmallRng::seed_from_u64(3);
        let (mut a, mut b) = (RandomAgent, PerfectAgent::new(10_000));
        let mut chosen_by_a = 0;
        let mut chosen = 0;
        let report =
            play_match_with_openings(&TicTacToe::new(), &mut a, &mut b, 6, 2, &mut rng, |r, s| {
                let after_opening = r.actions.len() as u32 - 2;
                let a_first = s.games() % 2 == 1;
                chosen_by_a += if a_first {
                    after_opening.div_ceil(2)
                } else {
                    after_opening / 2
                };
                chosen += after_opening;
            })
            .unwrap();
        assert_eq!(report.thinking.moves, chosen_by_a);
        assert_eq!(report.opponent_thinking.moves, chosen - chosen_by_a);
        assert!(report.opponent_thinking.seconds > 0.0);
        assert!(report.to_string().contains(" a move against "));
    }

    /// Go counts a score: the margin is A's, game by game, as the final positions count it;
    /// tic-tac-toe counts none, and its report says nothing of margins.
    #[test]
    fn the_margin_is_the_final_score_from_a_s_view() {
        use crate::players::RandomAgent;
        use rand::SeedableRng;
        use zerosum_games::go::Go;
        use zerosum_games::registry::{parse_game, FromAnyGame};
        use zerosum_games::tic_tac_toe::TicTacToe;
        let go = Go::from_any(parse_game("go:size=5,komi=2.5").unwrap()).unwrap();
        let mut rng = SmallRng::seed_from_u64(4);
        let mut points = 0.0;
        let report = play_match_with_openings(
            &go,
            &mut RandomAgent,
            &mut RandomAgent,
            6,
            2,
            &mut rng,
            |record, so_far| {
                let mut position = go.clone();
                for &action in &record.actions {
                    position.apply(action);
                }
                let a_first = so_far.games() % 2 == 1;
                let score = f64::from(position.final_score().unwrap());
                points += if a_first { score } else { -score };
            },
        )
        .unwrap();
        assert_eq!(report.margin.games, 6);
        assert_eq!(report.margin.points, points);
        assert!(points != 0.0);
        let mean = format!(", margin {:+.1} points a game", points / 6.0);
        assert!(report.to_string().ends_with(&mean), "{report}");

        let report = play_match_with_openings(
            &TicTacToe::new(),
            &mut RandomAgent,
            &mut RandomAgent,
            2,
            0,
            &mut rng,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(report.margin.mean(), None);
        assert!(!report.to_string().contains("margin"), "{report}");
    }

    #[test]
    fn scores_and_elo() {
        let even = MatchReport {
            wins: 10,
            losses: 10,
            ..Default::default()
        };
        assert_eq!(even.score(), 0.5);
        assert!(even.elo().abs() < 1e-9);
        let strong = MatchReport {
            wins: 76,
            draws: 0,
            losses: 24,
            ..Default::default()
        };
        assert!((strong.elo() - 200.0).abs() < 5.0, "{}", strong.elo());
        let (low, high) = strong.score_interval();
        assert!(low < 0.76 && 0.76 < high && high - low < 0.2);
        let perfect = MatchReport {
            wins: 20,
            ..Default::default()
        };
        // Wilson's interval for 20 of 20: [83.9%, 100%].
        let (low, high) = perfect.score_interval();
        assert!((low - 0.839).abs() < 0.001 && high == 1.0, "{low} {high}");
        assert_eq!(perfect.elo(), 800.0);
    }

    #[test]
    fn short_numbers_keep_three_digits() {
        assert_eq!(short_number(0.0), "0.0");
        assert_eq!(short_number(0.01234), "0.0123");
        assert_eq!(short_number(0.5), "0.500");
        assert_eq!(short_number(2.71), "2.71");
        assert_eq!(short_number(42.42), "42.4");
    }

    #[test]
    fn elo_zero_is_plus_zero_and_counts_of_one_are_singular() {
        assert_eq!(signed_elo(-0.3), "+0");
        assert_eq!(signed_elo(0.0), "+0");
        assert_eq!(signed_elo(-338.4), "-338");
        assert_eq!(signed_elo(47.6), "+48");
        assert_eq!(count(1, "win"), "1 win");
        assert_eq!(count(0, "win"), "0 wins");
        assert_eq!(count(3, "game"), "3 games");
        let report = MatchReport {
            player: "a".into(),
            opponent: "b".into(),
            wins: 1,
            draws: 1,
            losses: 1,
            wins_as_first: 1,
            ..MatchReport::default()
        };
        let text = report.to_string();
        assert!(
            text.starts_with("a vs b: 3 games, +1 =1 -1 (as first: 1 win, as second: 0 wins)"),
            "{text}"
        );
        assert!(text.contains("Elo +0 [-"), "{text}");
    }

    #[test]
    fn both_times_a_move_carry_one_unit() {
        assert_eq!(times_a_move(43.8, 36.9), "43.8 ms a move against 36.9 ms");
        assert_eq!(times_a_move(1250.0, 400.0), "1.25 s a move against 0.40 s");
        assert_eq!(
            times_a_move(0.298, 0.0758),
            "298.0 \u{b5}s a move against 75.8 \u{b5}s"
        );
        assert_eq!(times_a_move(0.0, 0.0), "0.0 ms a move against 0.0 ms");
    }
}
