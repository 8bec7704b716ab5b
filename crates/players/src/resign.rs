//! Resignation in the front ends that play people and other programs (`gtp`, `play`,
//! `serve`): the agent gives up once its own value of the game has stayed at or below a
//! threshold for several of its moves in a row, as KataGo and Leela Zero do, instead of
//! playing a lost game out. Without it a Go model that is behind never passes after its
//! opponent's pass (that would end the game lost) and fills its own eyes until everything
//! is captured.
//!
//! Self-play and the arena never resign: their records are scored by the rules.

/// The agent's moves in a row that must all be valued at or below the threshold: one bad
/// reading of a fight is not a lost game.
const MOVES_IN_A_ROW: usize = 3;

/// Watches the values behind the agent's moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Resignation {
    below: f32,
    streak: usize,
}

impl Resignation {
    /// Resigns at values at or below `below`, from the agent's side.
    pub fn new(below: f32) -> Resignation {
        Resignation { below, streak: 0 }
    }

    /// Hears the value of the agent's next move (`None` from a player without one, such as
    /// `random`); returns whether the agent resigns instead of playing it.
    pub fn resigns(&mut self, value: Option<f32>) -> bool {
        match value {
            Some(value) if value <= self.below => self.streak += 1,
            _ => self.streak = 0,
        }
        self.streak >= MOVES_IN_A_ROW
    }

    /// A new game, or moves taken back.
    pub fn reset(&mut self) {
        self.streak = 0;
    }

    /// The threshold.
    pub fn below(&self) -> f32 {
        self.below
    }
}

/// Parses `--resign-below`: a value from -1 (only games the search has proven lost) up to,
/// not including, 0.
pub fn parse_threshold(text: &str) -> Result<f32, String> {
    let value: f32 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if !(-1.0..0.0).contains(&value) {
        return Err(format!(
            "{value} is not a value from -1 (lost) up to 0 (even)"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resigns_after_low_values_in_a_row_only() {
        let mut watch = Resignation::new(-0.9);
        assert!(!watch.resigns(Some(-0.95)));
        assert!(!watch.resigns(Some(-0.9)));
        // A better value, or none, breaks the run.
        assert!(!watch.resigns(Some(-0.5)));
        assert!(!watch.resigns(Some(-1.0)));
        assert!(!watch.resigns(None));
        assert!(!watch.resigns(Some(-1.0)));
        assert!(!watch.resigns(Some(-1.0)));
        assert!(watch.resigns(Some(-0.99)));
        watch.reset();
        assert!(!watch.resigns(Some(-1.0)));
    }

    #[test]
    fn thresholds_are_values_below_even() {
        assert_eq!(parse_threshold("-0.9"), Ok(-0.9));
        assert_eq!(parse_threshold("-1"), Ok(-1.0));
        for bad in ["0", "0.5", "-1.5", "x", "NaN", ""] {
            assert!(parse_threshold(bad).is_err(), "{bad}");
        }
    }
}
