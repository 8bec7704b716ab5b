//! Recipes compared: several configs trained for the same wall-clock budget from the same
//! seed, then measured against fixed references and against each other.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use zerosum_games::Game;
use zerosum_nn::parse_device;

use crate::error::TrainError;
use crate::run::train;
use crate::sink::Silent;
use zerosum_config::{ResolvedConfig, RunConfig};
use zerosum_players::accuracy::{read_positions, score_agent, SolvedPosition, Stage, StageScore};
use zerosum_players::arena::{elo_of_score, play_match_with_openings, signed_elo, MatchReport};
use zerosum_players::players::{build_agent, MctsAgent, PlayerSpec};
use zerosum_players::Agent;
use zerosum_store::store::RunStore;

/// One recipe to compare.
#[derive(Clone, Debug)]
pub struct Contender {
    /// A short name (the config file's stem).
    pub name: String,
    /// Its config; `max_minutes` and `seed` are overridden by the comparison.
    pub config: RunConfig,
}

/// How to compare.
#[derive(Clone, Debug)]
pub struct CompareSettings {
    /// Training wall time of each contender, in minutes.
    pub minutes: f64,
    /// The seed every contender trains with.
    pub seed: u64,
    /// Where each contender's run directory goes (`DIR/<name>`).
    pub out: PathBuf,
    /// Games against each reference player.
    pub reference_games: usize,
    /// Reference players (`mcts:N`, `random`).
    pub references: Vec<String>,
    /// Games between each pair of contenders.
    pub pair_games: usize,
    /// Play only the pairs of the first contender (the default recipe, say) with each
    /// other one, instead of every pair.
    pub against_first: bool,
    /// Random opening moves of each pair of measuring games (one game with each colour).
    pub opening_plies: usize,
    /// Measure runs already in `out` instead of training them again.
    pub reuse: bool,
    /// Simulations per move of every contender in the measuring games.
    pub sims: usize,
    /// Contenders trained at once (each with `torch_threads = 2 / jobs`): 1 trains them one
    /// after another, each with the whole machine.
    pub jobs: usize,
    /// Solved positions (`zerosum accuracy --save`) to count each contender's outcome
    /// errors on, set by set, at `sims`.
    pub positions: Option<PathBuf>,
}

/// One contender's row of the table.
#[derive(Clone, Debug, Serialize)]
pub struct CompareRow {
    /// The contender.
    pub name: String,
    /// Generations it completed in the budget.
    pub generations: u64,
    /// Gradient steps it took.
    pub steps: u64,
    /// Self-play games it played.
    pub games: usize,
    /// Its matches against the references.
    pub references: Vec<MatchReport>,
    /// Its score over all round-robin games against the other contenders.
    pub round_robin_score: f64,
    /// Round-robin games played.
    pub round_robin_games: u32,
    /// With [`CompareSettings::against_first`]: its match against the first contender,
    /// from its side (none for the first itself).
    pub against_first: Option<MatchReport>,
    /// With [`CompareSettings::positions`]: its moves in each set of solved positions.
    pub accuracy: Vec<StageScore>,
}

/// A contender ready to train: its name, its config for the budget, and its run's folder.
struct Prepared {
    name: String,
    config: ResolvedConfig,
    dir: PathBuf,
}

/// Trains every contender, then measures them. Rows come back in the contenders' order.
pub fn compare<G: Game>(
    initial: &G,
    contenders: &[Contender],
    settings: &CompareSettings,
    mut log: impl FnMut(&str),
) -> Result<Vec<CompareRow>, TrainError> {
    let prepared = prepare(contenders, settings)?;
    // Read before hours of training, so that a bad file is refused at once.
    let positions: Option<(Vec<SolvedPosition>, Vec<Stage>)> = match &settings.positions {
        Some(path) => Some(read_positions(path, initial)?),
        None => None,
    };
    if !settings.reuse {
        train_all(initial, &prepared, settings, &mut log)?;
    }
    let device = parse_device("cpu")?;
    zerosum_nn::init_torch(settings.seed, 0);
    let mut rng = SmallRng::seed_from_u64(settings.seed ^ 0xC0FFEE);
    let agent = |entry: &Prepared| -> Result<MctsAgent<G>, TrainError> {
        let location = entry.dir.to_string_lossy();
        let model = zerosum_store::checkpoints::load_location(&location, initial, device)?;
        Ok(MctsAgent::with_network(
            entry.name.clone(),
            model,
            initial,
            entry.config.search.clone(),
            settings.sims,
        ))
    };
    let mut rows = Vec::new();
    for entry in &prepared {
        let location = entry.dir.to_string_lossy();
        let meta = zerosum_store::checkpoints::meta_at(&location)?;
        let games = count_games(&RunStore::open(&location)?, meta.generation)?;
        let mut me = agent(entry)?;
        let search = &prepared[0].config.search;
        let references = against_references(
            initial, &mut me, search, settings, device, &mut rng, &mut log,
        )?;
        let accuracy = match &positions {
            Some((positions, sets)) => {
                // A stream of its own: scoring must not change the matches that follow.
                let mut scoring = SmallRng::seed_from_u64(settings.seed ^ 0xACC);
                let scores = score_agent(initial, &mut me, positions, sets, &mut scoring, || {})?;
                log(&accuracy_line(&entry.name, &scores));
                scores
            }
            None => Vec::new(),
        };
        rows.push(CompareRow {
            name: entry.name.clone(),
            generations: meta.generation,
            steps: meta.step,
            games,
            references,
            round_robin_score: 0.0,
            round_robin_games: 0,
            against_first: None,
            accuracy,
        });
    }
    round_robin(
        initial, &prepared, &agent, settings, &mut rows, &mut rng, &mut log,
    )?;
    Ok(rows)
}

/// Each contender's config for the budget and seed, its run's folder, and the check that
/// the folder holds its run (`reuse`) or none yet.
fn prepare(
    contenders: &[Contender],
    settings: &CompareSettings,
) -> Result<Vec<Prepared>, TrainError> {
    let prepared: Vec<Prepared> = contenders
        .iter()
        .map(|c| {
            let mut config = c.config.clone();
            config.max_minutes = settings.minutes;
            config.generations = config.generations.max(100_000);
            config.seed = settings.seed;
            // The whole budget goes to training; the comparison measures afterwards.
            config.arena.every = 0;
            if settings.jobs > 1 {
                config.torch_threads = (2 / settings.jobs).max(1);
            }
            Ok(Prepared {
                name: c.name.clone(),
                config: config.resolve()?,
                dir: settings.out.join(&c.name),
            })
        })
        .collect::<Result<_, TrainError>>()?;
    for entry in &prepared {
        if settings.reuse {
            zerosum_store::checkpoints::locate(&entry.dir.to_string_lossy())?;
        } else if entry.dir.join("config.toml").exists() {
            return Err(TrainError::RunDir {
                path: entry.dir.clone(),
                reason: format!(
                    "already holds a run; {} would not start from zero",
                    entry.name
                ),
            });
        }
    }
    Ok(prepared)
}

/// Trains the contenders, `settings.jobs` at a time, logging a line for each.
fn train_all<G: Game>(
    initial: &G,
    prepared: &[Prepared],
    settings: &CompareSettings,
    log: &mut impl FnMut(&str),
) -> Result<(), TrainError> {
    let train_one = |entry: &Prepared| -> Result<String, TrainError> {
        let store = RunStore::create(&entry.dir.to_string_lossy())?;
        let summary = train(initial, &entry.config, &store, &mut Silent)?;
        Ok(format!(
            "{}: {} generations, {} steps in {:.0}s",
            entry.name, summary.generation, summary.steps, summary.seconds
        ))
    };
    for chunk in prepared.chunks(settings.jobs.max(1)) {
        let results: Vec<Result<String, TrainError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|entry| scope.spawn(|| train_one(entry)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("training threads do not panic"))
                .collect()
        });
        for result in results {
            log(&result?);
        }
    }
    Ok(())
}

/// `me`'s matches against each of the settings' references.
fn against_references<G: Game>(
    initial: &G,
    me: &mut MctsAgent<G>,
    search: &zerosum_search::SearchConfig,
    settings: &CompareSettings,
    device: zerosum_nn::Device,
    rng: &mut SmallRng,
    log: &mut impl FnMut(&str),
) -> Result<Vec<MatchReport>, TrainError> {
    let mut references = Vec::new();
    for spec in &settings.references {
        let spec: PlayerSpec = spec.parse()?;
        let mut reference: Box<dyn Agent<G>> = build_agent(
            &spec,
            initial,
            search,
            settings.sims,
            device,
            settings.seed ^ 77,
        )?;
        let report = play_match_with_openings(
            initial,
            me,
            reference.as_mut(),
            settings.reference_games,
            settings.opening_plies,
            rng,
            |_, _| {},
        )?;
        log(&report.to_string());
        references.push(report);
    }
    Ok(references)
}

/// The contenders against each other (or only against the first), filling each row's
/// round-robin score and match against the first.
fn round_robin<G: Game>(
    initial: &G,
    prepared: &[Prepared],
    agent: &dyn Fn(&Prepared) -> Result<MctsAgent<G>, TrainError>,
    settings: &CompareSettings,
    rows: &mut [CompareRow],
    rng: &mut SmallRng,
    log: &mut impl FnMut(&str),
) -> Result<(), TrainError> {
    let mut points = vec![0.0f64; prepared.len()];
    let mut played = vec![0u32; prepared.len()];
    let firsts = if settings.against_first {
        prepared.len().min(1)
    } else {
        prepared.len()
    };
    for i in 0..firsts {
        for j in i + 1..prepared.len() {
            // The later contender plays as `a`, so that its report reads from its side.
            let (mut a, mut b) = (agent(&prepared[j])?, agent(&prepared[i])?);
            let report = play_match_with_openings(
                initial,
                &mut a,
                &mut b,
                settings.pair_games,
                settings.opening_plies,
                rng,
                |_, _| {},
            )?;
            log(&report.to_string());
            let n = report.games();
            points[j] += report.score() * n as f64;
            points[i] += (1.0 - report.score()) * n as f64;
            played[i] += n;
            played[j] += n;
            if settings.against_first {
                rows[j].against_first = Some(report);
            }
        }
    }
    for (row, (p, n)) in rows.iter_mut().zip(points.iter().zip(&played)) {
        row.round_robin_score = if *n > 0 { p / *n as f64 } else { 0.5 };
        row.round_robin_games = *n;
    }
    Ok(())
}

/// `name`'s outcome errors, set by set.
fn accuracy_line(name: &str, scores: &[StageScore]) -> String {
    let sets: Vec<String> = scores
        .iter()
        .map(|s| format!("{} {}", s.stage, s.errors_text()))
        .collect();
    format!("{name}: outcome errors {}", sets.join(", "))
}

fn count_games(store: &RunStore, generations: u64) -> Result<usize, TrainError> {
    let mut games = 0;
    for generation in 1..=generations {
        games += crate::learner::generation_records(store, generation)?.len();
    }
    Ok(games)
}

/// The comparison as a Markdown table.
pub fn markdown_table(rows: &[CompareRow], settings: &CompareSettings) -> String {
    let mut out = String::new();
    let mut header = String::from("| recipe | generations | steps | self-play games |");
    let mut rule = String::from("|---|---|---|---|");
    for spec in &settings.references {
        let _ = write!(header, " vs {spec} (W-D-L, score, Elo) |");
        rule.push_str("---|");
    }
    // One recipe plays no pairs: no column for them.
    let paired = rows.len() > 1;
    if paired {
        if settings.against_first {
            let _ = write!(header, " vs {} (W-D-L, score [95%]) |", rows[0].name);
        } else {
            let _ = write!(header, " round robin (score, Elo vs field) |");
        }
        rule.push_str("---|");
    }
    for score in rows.first().map_or(&[][..], |row| &row.accuracy[..]) {
        let _ = write!(header, " errors {} |", score.stage);
        rule.push_str("---|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for row in rows {
        let mut line = format!(
            "| {} | {} | {} | {} |",
            row.name, row.generations, row.steps, row.games
        );
        for m in &row.references {
            let _ = write!(
                line,
                " {}-{}-{}, {:.0}%, {} |",
                m.wins,
                m.draws,
                m.losses,
                100.0 * m.score(),
                signed_elo(m.elo())
            );
        }
        if paired {
            line.push_str(&pair_cell(row, settings));
        }
        for score in &row.accuracy {
            let _ = write!(line, " {:.1}% |", 100.0 * score.error_rate());
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// A row's cell of the games between recipes: its match against the first recipe, or its
/// round robin score.
fn pair_cell(row: &CompareRow, settings: &CompareSettings) -> String {
    match (&row.against_first, settings.against_first) {
        (Some(m), true) => format!(" {}-{}-{}, {} |", m.wins, m.draws, m.losses, m.score_text()),
        (None, true) => " |".to_string(),
        (_, false) => format!(
            " {:.0}% of {}, {} |",
            100.0 * row.round_robin_score,
            row.round_robin_games,
            signed_elo(elo_of_score(row.round_robin_score))
        ),
    }
}

/// The stem of a config path (`configs/c4-gumbel.toml` -> `c4-gumbel`).
pub fn contender_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::tiny;

    /// One recipe plays no other: its table has no column for games between recipes,
    /// whether or not `against_first` was asked.
    #[test]
    fn one_recipe_has_no_column_of_pairs() {
        let row = CompareRow {
            name: "connect4".to_string(),
            generations: 245,
            steps: 56_483,
            games: 127_120,
            references: Vec::new(),
            round_robin_score: 0.5,
            round_robin_games: 0,
            against_first: None,
            accuracy: Vec::new(),
        };
        for against_first in [false, true] {
            let settings = CompareSettings {
                minutes: 60.0,
                seed: 1,
                out: PathBuf::from("runs/compare"),
                reference_games: 0,
                references: Vec::new(),
                pair_games: 0,
                against_first,
                opening_plies: 2,
                reuse: true,
                sims: 400,
                jobs: 1,
                positions: None,
            };
            let table = markdown_table(std::slice::from_ref(&row), &settings);
            assert_eq!(
                table,
                "| recipe | generations | steps | self-play games |\n|---|---|---|---|\n\
                 | connect4 | 245 | 56483 | 127120 |\n"
            );
        }
    }

    /// With `against_first`, only the first recipe's pairs are played, each reported from
    /// the other recipe's side, and the table shows them in place of the round robin; with
    /// solved positions, each recipe's outcome errors set by set.
    #[test]
    fn recipes_compared_against_the_first_play_only_its_pairs() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let out = std::env::temp_dir().join(format!("zerosum-compare-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        let sets = zerosum_players::accuracy::game_stages(&game, 1);
        let drawn = zerosum_players::accuracy::draw_positions(&game, &sets, 5, 1, u64::MAX, |_| {})
            .unwrap();
        let lines: Vec<String> = drawn
            .positions
            .iter()
            .map(|p| serde_json::to_string(p).unwrap())
            .collect();
        let positions = out.join("positions.jsonl");
        std::fs::write(&positions, lines.join("\n")).unwrap();
        let contender = |name: &str, extra: &str| Contender {
            name: name.to_string(),
            config: (*tiny(extra)).clone(),
        };
        let contenders = [
            contender("default", ""),
            contender("merged", "[replay]\nmerge_duplicates = true"),
            contender("surprise", "[replay]\npolicy_surprise_weight = 0.5"),
        ];
        let settings = CompareSettings {
            minutes: 0.02,
            seed: 1,
            out: out.clone(),
            reference_games: 2,
            references: vec!["random".to_string()],
            pair_games: 2,
            against_first: true,
            opening_plies: 1,
            reuse: false,
            sims: 4,
            jobs: 1,
            positions: Some(positions),
        };
        let rows = compare(&game, &contenders, &settings, |_| {}).unwrap();
        assert!(rows[0].against_first.is_none());
        assert_eq!(rows[0].round_robin_games, 4);
        for row in &rows[1..] {
            let report = row.against_first.as_ref().expect("played the first");
            assert_eq!(
                (report.player.as_str(), report.opponent.as_str()),
                (row.name.as_str(), "default")
            );
            assert_eq!(report.games(), 2);
            assert_eq!(row.round_robin_games, 2);
            assert!(row.generations >= 1);
        }
        for row in &rows {
            let asked: Vec<(&str, usize)> = row
                .accuracy
                .iter()
                .map(|s| (s.stage.as_str(), s.positions))
                .collect();
            assert_eq!(asked, [("begin", 5), ("middle", 5), ("end", 5)]);
        }
        let table = markdown_table(&rows, &settings);
        assert!(
            table
                .lines()
                .next()
                .unwrap()
                .contains("vs default (W-D-L, score [95%])"),
            "{table}"
        );
        assert!(!table.contains("round robin"));
        assert!(
            table.contains("| errors begin | errors middle | errors end |"),
            "{table}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
}
