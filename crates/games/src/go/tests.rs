use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::testing::check_game;

/// A game of `size` with `komi` and the default cap that starts from `diagram` (rows top
/// first; `X` black, `O` white, anything else empty, spaces ignored).
fn setup(size: usize, komi: f32, diagram: &str, to_move: Player) -> Go {
    let rows: Vec<Vec<char>> = diagram
        .lines()
        .map(|line| {
            line.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<Vec<_>>()
        })
        .filter(|row| !row.is_empty())
        .collect();
    assert_eq!(rows.len(), size, "{diagram}");
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), size, "{diagram}");
        for (col, &mark) in row.iter().enumerate() {
            let point = (size - 1 - i) * size + col;
            match mark {
                'X' => black.push(point),
                'O' => white.push(point),
                _ => {}
            }
        }
    }
    Go::try_new(size, komi, Go::default_max_moves(size))
        .unwrap()
        .try_from_stones(&black, &white, to_move)
        .unwrap()
}

/// Plays the moves, in notation, each checked for legality.
fn play(game: &mut Go, moves: &str) {
    for mv in moves.split_whitespace() {
        game.play_notation(mv)
            .unwrap_or_else(|e| panic!("{mv}: {e}\n{game}"));
    }
}

/// Whether `mv` is legal, checked both by `is_legal` and in the list of legal actions.
fn legal(game: &Go, mv: &str) -> bool {
    let action = game.parse_action(mv).unwrap();
    let listed = game.legal_action_vec().contains(&action);
    assert_eq!(
        game.is_legal(action),
        listed,
        "is_legal and the list disagree on {mv}"
    );
    listed
}

/// Observation plane `plane` at `mv`.
fn plane_at(game: &Go, plane: usize, mv: &str) -> f32 {
    let mut obs = vec![f32::NAN; game.obs_len()];
    game.observe(&mut obs);
    obs[plane * game.size() * game.size() + game.parse_action(mv).unwrap()]
}

#[test]
fn captures_remove_stones_and_groups() {
    let mut game = setup(
        5,
        0.5,
        ". . . . .
         . . . . .
         . X . . .
         X O . . .
         . X . . .",
        Player::FIRST,
    );
    play(&mut game, "C2");
    assert_eq!(game.point(1, 1), None, "B2 was captured\n{game}");
    assert_eq!(game.point(1, 2), Some(Player::FIRST));
    // The hash of the result is the hash of the same stones set up directly.
    assert_eq!(game.board_hash, stones_hash(game.stones));

    // A two-stone group on the edge loses its last liberty.
    let mut game = setup(
        5,
        0.5,
        ". . . . .
         . . . . .
         . . . . .
         X X . . .
         O O . X .",
        Player::FIRST,
    );
    play(&mut game, "C1");
    assert_eq!(
        (game.point(0, 0), game.point(0, 1)),
        (None, None),
        "\n{game}"
    );
    assert_eq!(game.area(), [25, 0]);
}

#[test]
fn suicide_is_illegal_but_capturing_is_not_suicide() {
    // White's move to B1 would fill the last liberty of its own group and capture nothing.
    let game = setup(
        5,
        0.5,
        ". . . . .
         . . . . .
         . . . . .
         X X X . .
         O . X . .",
        Player::SECOND,
    );
    assert!(!legal(&game, "B1"), "multi-stone suicide");
    let mut game = game;
    assert!(matches!(
        game.play_notation("B1"),
        Err(GameError::IllegalAction { .. })
    ));
    // A single stone into an eye.
    let eye = setup(
        5,
        0.5,
        ". . . . .
         . . . . .
         . . . . .
         . X . . .
         X . X . .",
        Player::SECOND,
    );
    assert!(!legal(&eye, "B1"), "single-stone suicide");
    assert!(legal(&eye, "A2"));
    // Black may fill its own eye: the stone joins groups with other liberties.
    let own = eye.try_from_stones(&[0, 2, 6], &[], Player::FIRST).unwrap();
    assert!(legal(&own, "B1"));
    // Black's C1 has no liberty of its own but captures B1, so it is legal.
    let mut ko = ko_shape();
    assert!(legal(&ko, "C1"));
    play(&mut ko, "C1");
    assert_eq!(ko.point(0, 1), None);
}

/// A ko on the bottom edge: black C1 captures white B1.
fn ko_shape() -> Go {
    setup(
        5,
        0.5,
        ". . . . .
         . . . . .
         . . . . .
         . X O . .
         X O . O .",
        Player::FIRST,
    )
}

#[test]
fn simple_ko_forbids_the_immediate_recapture() {
    let mut game = ko_shape();
    play(&mut game, "C1");
    assert!(!legal(&game, "B1"), "immediate recapture\n{game}");
    assert_eq!(plane_at(&game, 5, "B1"), 1.0, "the ko plane marks B1");
    assert_eq!(plane_at(&game, 5, "A2"), 0.0);
    // After a ko threat and an answer, the board differs and white may retake.
    play(&mut game, "E5 E4");
    assert!(legal(&game, "B1"));
    assert_eq!(plane_at(&game, 5, "B1"), 0.0);
    play(&mut game, "B1");
    assert_eq!(game.point(0, 2), None, "C1 was captured\n{game}");
    assert!(!legal(&game, "C1"), "and now black may not retake at once");
    // A pass does not lift the ban: the board would still repeat.
    let mut passed = ko_shape();
    play(&mut passed, "C1 E5 pass");
    assert!(!legal(&passed, "B1") || passed.point(4, 4).is_some());
}

#[test]
fn superko_forbids_a_triple_ko_cycle() {
    // Three kos: black can take at C1 (bottom) and G5 (right), white at B7 (top).
    let start = setup(
        7,
        0.5,
        "X . X O . . .
         . X O . . . O
         . . . . . O .
         . . . . . X O
         . . . . . . X
         . X O . . . .
         X O . O . . .",
        Player::FIRST,
    );
    let mut game = start.clone();
    play(&mut game, "C1 B7 G5 B1 C7");
    // White's G4 retakes the third ko: not the point black just took (C7), so simple ko
    // allows it, but the board would be the start position again.
    assert!(!legal(&game, "G4"), "superko\n{game}");
    assert_eq!(plane_at(&game, 5, "G4"), 1.0);
    assert!(game.is_legal(game.pass_action()));
    // The same stones with no history: G4 is an ordinary capture.
    let fresh = game
        .try_from_stones(
            &game.stones[0].iter().collect::<Vec<_>>(),
            &game.stones[1].iter().collect::<Vec<_>>(),
            Player::SECOND,
        )
        .unwrap();
    assert!(legal(&fresh, "G4"));
    let mut after = fresh.clone();
    play(&mut after, "G4");
    assert_eq!(after.stones, start.stones, "the cycle closes on the start");
    // Playing elsewhere first changes the board, and the cycle is open again.
    play(&mut game, "A4 A3");
    assert!(legal(&game, "G4"));
}

#[test]
fn two_passes_end_the_game() {
    let mut game = Go::new();
    play(&mut game, "pass");
    assert!(!game.is_terminal() && game.last_move_was_pass());
    assert_eq!(plane_at(&game, 4, "A1"), 1.0);
    play(&mut game, "C3 pass");
    assert!(!game.is_terminal(), "passes must be consecutive");
    play(&mut game, "pass");
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win(Player::SECOND)),
        "white's C3 owns all"
    );
    assert!(game.legal_action_vec().is_empty());
    assert_eq!(game.try_apply(0), Err(GameError::GameOver));

    let mut empty = Go::new();
    play(&mut empty, "pass pass");
    assert_eq!(empty.score(), -0.5, "nobody owns an empty board");
    assert_eq!(empty.outcome(), Some(Outcome::Win(Player::SECOND)));
}

#[test]
fn tromp_taylor_area_and_komi() {
    // Column A is black's, column E white's; column C touches both and counts for nobody.
    let walls = ". X . O .
                 . X . O .
                 . X . O .
                 . X . O .
                 . X . O .";
    let game = setup(5, 0.0, walls, Player::FIRST);
    assert_eq!(game.area(), [10, 10]);
    let result = |komi: f32, diagram: &str| {
        let mut game = setup(5, komi, diagram, Player::FIRST);
        play(&mut game, "pass pass");
        (game.score(), game.outcome().unwrap())
    };
    assert_eq!(result(0.0, walls), (0.0, Outcome::Draw));
    assert_eq!(result(0.5, walls), (-0.5, Outcome::Win(Player::SECOND)));
    // One more black stone on C1: 11 to 10, and komi decides.
    let close = ". X . O .
                 . X . O .
                 . X . O .
                 . X . O .
                 . X X O .";
    assert_eq!(setup(5, 0.0, close, Player::FIRST).area(), [11, 10]);
    assert_eq!(result(0.5, close), (0.5, Outcome::Win(Player::FIRST)));
    assert_eq!(result(1.0, close), (0.0, Outcome::Draw));
    assert_eq!(result(1.5, close), (-0.5, Outcome::Win(Player::SECOND)));
    assert_eq!(result(-2.0, close), (3.0, Outcome::Win(Player::FIRST)));
    // White's eye at B2 is white's; the big region touches both colours.
    let mixed = setup(
        5,
        0.5,
        ". . . . .
         . . . . .
         O O O . .
         O . O X .
         O O O X .",
        Player::FIRST,
    );
    assert_eq!(mixed.area(), [2, 9]);
}

#[test]
fn the_move_cap_ends_and_scores_the_game() {
    let mut game = Go::try_new(5, 0.5, 4).unwrap();
    assert_eq!(game.name(), "go:size=5,komi=0.5,max_moves=4");
    play(&mut game, "C3 D3 C2");
    assert!(!game.is_terminal());
    assert_eq!(plane_at(&game, 6, "A1"), 0.75);
    play(&mut game, "D2");
    assert_eq!(game.num_moves(), 4);
    assert_eq!(game.score(), -0.5);
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::SECOND)));
    assert!(game.legal_action_vec().is_empty());
    // Passes count towards the cap.
    let mut game = Go::try_new(5, 0.5, 3).unwrap();
    play(&mut game, "C3 pass D4");
    assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
}

#[test]
fn notation() {
    let game = Go::new();
    assert_eq!(game.parse_action("A1"), Ok(0));
    assert_eq!(game.parse_action(" c3 "), Ok(12));
    assert_eq!(game.parse_action("E5"), Ok(24));
    assert_eq!(game.parse_action("PASS"), Ok(25));
    assert_eq!(game.parse_action("Pass"), Ok(25));
    assert_eq!(game.format_action(7), "C2");
    assert_eq!(game.format_action(25), "pass");
    for bad in [
        "", "zz9", "F1", "A0", "A6", "A", "1", "A+1", "A1x", "I1", "\u{e4}1", "A-1",
    ] {
        let err = game.parse_action(bad).unwrap_err();
        assert!(matches!(err, GameError::BadNotation { .. }), "{bad}: {err}");
        assert!(err.to_string().contains("A1..E5"), "{err}");
    }
    let nine = Go::try_new(9, 7.5, 100).unwrap();
    assert_eq!(nine.parse_action("j9"), Ok(80));
    assert_eq!(nine.format_action(8), "J1");
    assert!(nine.parse_action("I9").is_err());
    let nineteen = Go::try_new(19, 7.5, 100).unwrap();
    assert_eq!(nineteen.parse_action("T19"), Ok(360));
    assert_eq!(nineteen.format_action(360), "T19");
    assert_eq!(nineteen.parse_action("pass"), Ok(361));
}

#[test]
fn parameters_are_checked() {
    assert!(Go::try_new(4, 0.5, 10).unwrap_err().contains("size"));
    assert!(Go::try_new(20, 0.5, 10).unwrap_err().contains("size"));
    assert!(Go::try_new(5, 0.3, 10).unwrap_err().contains("komi"));
    assert!(Go::try_new(5, f32::NAN, 10).unwrap_err().contains("komi"));
    assert!(Go::try_new(5, 30.0, 10).unwrap_err().contains("komi"));
    assert!(Go::try_new(5, 0.5, 0).unwrap_err().contains("max_moves"));
    assert!(Go::try_new(19, -7.0, 10_000).is_ok());
    assert_eq!(Go::new().name(), "go:size=5,komi=0.5,max_moves=50");
    assert_eq!(
        Go::try_new(9, 7.0, 162).unwrap().name(),
        "go:size=9,komi=7,max_moves=162"
    );
    for spec in [
        "go:size=4",
        "go:komi=x",
        "go:komi=0.25",
        "go:max_moves=0",
        "go:handicap=2",
        "go:size=99999999999",
    ] {
        let err = crate::registry::parse_game(spec).unwrap_err().to_string();
        assert!(!err.contains('\n') && err.contains("go"), "{spec}: {err}");
    }
    let game = Go::new();
    let off = game.try_from_stones(&[25], &[], Player::FIRST).unwrap_err();
    assert!(off.to_string().contains("off the board"), "{off}");
    let twice = game.try_from_stones(&[3], &[3], Player::FIRST).unwrap_err();
    assert!(twice.to_string().contains("D1 is given twice"), "{twice}");
    let dead = game
        .try_from_stones(&[1, 5], &[0], Player::FIRST)
        .unwrap_err();
    assert!(dead.to_string().contains("A1 has no liberty"), "{dead}");
}

#[test]
fn observation_and_display() {
    let mut game = Go::new();
    play(&mut game, "C3");
    let mut obs = vec![f32::NAN; game.obs_len()];
    game.observe(&mut obs);
    let plane = |p: usize| &obs[p * 25..(p + 1) * 25];
    // White to move: its stones (none) first, then black's C3.
    assert_eq!(plane(0).iter().sum::<f32>(), 0.0);
    assert_eq!(plane(1)[12], 1.0);
    assert_eq!(plane(1).iter().sum::<f32>(), 1.0);
    assert!(plane(2).iter().all(|&v| v == 1.0));
    assert!(plane(3).iter().all(|&v| v == 0.0), "white to move");
    assert!(plane(4).iter().all(|&v| v == 0.0));
    assert!(plane(5).iter().all(|&v| v == 0.0));
    assert!(plane(6).iter().all(|&v| v == 1.0 / 50.0));
    play(&mut game, "D4");
    assert_eq!(
        game.to_string(),
        " 5 . . . . .\n 4 . . . O .\n 3 . . X . .\n 2 . . . . .\n 1 . . . . .\n   A B C D E"
    );
    assert_eq!(plane_at(&game, 3, "A1"), 1.0, "black to move");
    assert_eq!(plane_at(&game, 0, "C3"), 1.0);
}

#[test]
fn symmetries_carry_the_superko_history() {
    let mut game = ko_shape();
    play(&mut game, "C1");
    for index in 0..8 {
        let image = game.transformed(index).unwrap();
        let symmetry = &game.symmetries()[index];
        let banned = symmetry.map_action(game.parse_action("B1").unwrap());
        assert!(!image.is_legal(banned), "symmetry {index}\n{image}");
        assert_eq!(image.area(), game.area());
    }
    assert!(game.transformed(8).is_none());
}

#[test]
fn random_games_keep_the_contract() {
    for (spec, num_games) in [
        ("go", 300),
        ("go:size=5,komi=0.5,max_moves=100", 100),
        ("go:size=7,komi=9.5,max_moves=98", 60),
        ("go:size=9,komi=7.5,max_moves=162", 20),
        ("go:size=19,komi=7.5,max_moves=80", 3),
    ] {
        let crate::registry::AnyGame::Go(game) = crate::registry::parse_game(spec).unwrap() else {
            panic!("{spec} is not go");
        };
        let report = check_game(&game, 7, num_games).unwrap_or_else(|e| panic!("{e}"));
        println!("{spec}: {report}");
    }
}

/// A slow, plain Go engine to compare with: a board of cells, flood fills and a list of
/// every earlier board.
struct Naive {
    size: usize,
    /// 0 empty, 1 black, 2 white.
    board: Vec<u8>,
    to_move: u8,
    seen: Vec<Vec<u8>>,
}

impl Naive {
    fn neighbours(&self, point: usize) -> Vec<usize> {
        let (row, col, n) = (point / self.size, point % self.size, self.size);
        let mut out = Vec::new();
        if row > 0 {
            out.push(point - n);
        }
        if row + 1 < n {
            out.push(point + n);
        }
        if col > 0 {
            out.push(point - 1);
        }
        if col + 1 < n {
            out.push(point + 1);
        }
        out
    }

    /// The group at `point` and whether it has a liberty.
    fn group(&self, board: &[u8], point: usize) -> (Vec<usize>, bool) {
        let colour = board[point];
        let (mut group, mut stack, mut free) = (vec![point], vec![point], false);
        while let Some(p) = stack.pop() {
            for q in self.neighbours(p) {
                if board[q] == 0 {
                    free = true;
                } else if board[q] == colour && !group.contains(&q) {
                    group.push(q);
                    stack.push(q);
                }
            }
        }
        (group, free)
    }

    /// The board after the mover plays `point`, unless taken or suicide.
    fn after(&self, point: usize) -> Option<Vec<u8>> {
        if self.board[point] != 0 {
            return None;
        }
        let mut board = self.board.clone();
        board[point] = self.to_move;
        for q in self.neighbours(point) {
            if board[q] == 3 - self.to_move {
                let (group, free) = self.group(&board, q);
                if !free {
                    group.iter().for_each(|&p| board[p] = 0);
                }
            }
        }
        self.group(&board, point).1.then_some(board)
    }

    /// The legal actions, and how many moves superko removed: in all, and those that
    /// would repeat a board older than the one before last (beyond simple ko).
    fn legal(&self) -> (Vec<usize>, usize, usize) {
        let n2 = self.size * self.size;
        let (mut legal, mut banned, mut long) = (Vec::new(), 0, 0);
        for point in 0..n2 {
            let Some(board) = self.after(point) else {
                continue;
            };
            match self.seen.iter().rposition(|b| *b == board) {
                None => legal.push(point),
                Some(at) => {
                    banned += 1;
                    long += usize::from(at + 2 < self.seen.len());
                }
            }
        }
        legal.push(n2);
        (legal, banned, long)
    }

    fn apply(&mut self, action: usize) {
        if action < self.size * self.size {
            self.board = self.after(action).unwrap();
            self.seen.push(self.board.clone());
        }
        self.to_move = 3 - self.to_move;
    }
}

#[test]
fn random_games_agree_with_a_plain_engine() {
    let mut rng = SmallRng::seed_from_u64(5);
    let (mut positions, mut banned, mut long) = (0, 0, 0);
    // Sizes whose bitboards take 1, 1, 2, 3, 4, 5 and 6 words.
    let sizes = [
        (5, 200, 100),
        (6, 60, 144),
        (9, 10, 324),
        (12, 2, 300),
        (15, 2, 300),
        (17, 1, 300),
        (19, 1, 300),
    ];
    for (size, num_games, max_moves) in sizes {
        for _ in 0..num_games {
            let mut game = Go::try_new(size, 0.5, max_moves).unwrap();
            let mut naive = Naive {
                size,
                board: vec![0; size * size],
                to_move: 1,
                seen: vec![vec![0; size * size]],
            };
            while !game.is_terminal() {
                let legal = game.legal_action_vec();
                let (expected, superko, cycle) = naive.legal();
                assert_eq!(legal, expected, "\n{game}");
                positions += 1;
                banned += superko;
                long += cycle;
                // Pass rarely, so that games get long and crowded.
                let stones = &legal[..legal.len() - 1];
                let action = if stones.is_empty() || rng.random_range(0..40) == 0 {
                    game.pass_action()
                } else {
                    stones[rng.random_range(0..stones.len())]
                };
                game.apply(action);
                naive.apply(action);
            }
            let black = naive.board.iter().filter(|&&c| c == 1).count();
            let white = naive.board.iter().filter(|&&c| c == 2).count();
            assert_eq!(
                (
                    game.stones[0].count() as usize,
                    game.stones[1].count() as usize
                ),
                (black, white)
            );
        }
    }
    println!(
        "{positions} positions agree; superko banned {banned} moves, {long} of them \
         repeating a board older than the one before last"
    );
    assert!(banned > 0, "the games should meet some kos");
}
