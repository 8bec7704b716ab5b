//! Settings that change over a run, shaped in the run's own time: a learning rate that warms
//! up and decays to the end of the hour, a window that grows, more simulations late. Each
//! is a curve of multipliers over the share of the run's budget used (of its `max_minutes` or
//! of its `generations`, whichever ends the run first), so that one config serves a
//! 10-minute and a 4-hour run alike.

use serde::{Deserialize, Serialize};

/// A multiplier over the run: points `[share of the budget used, multiplier]`, shares rising
/// from 0 to 1, straight lines between them, flat before the first and after the last. No
/// points: 1 throughout.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Curve(pub Vec<[f64; 2]>);

impl Curve {
    /// The multiplier when `used` of the budget is spent.
    pub fn at(&self, used: f64) -> f64 {
        let points = &self.0;
        let Some(first) = points.first() else {
            return 1.0;
        };
        if used <= first[0] {
            return first[1];
        }
        for pair in points.windows(2) {
            let ([x0, y0], [x1, y1]) = (pair[0], pair[1]);
            if used <= x1 {
                let t = if x1 > x0 {
                    (used - x0) / (x1 - x0)
                } else {
                    1.0
                };
                return y0 + t * (y1 - y0);
            }
        }
        points[points.len() - 1][1]
    }

    /// The largest multiplier it reaches (1 without points).
    pub fn largest(&self) -> f64 {
        self.0
            .iter()
            .map(|point| point[1])
            .reduce(f64::max)
            .unwrap_or(1.0)
    }

    /// The errors of the curve named `key`: shares within [0, 1] and not falling,
    /// multipliers finite and not negative (`positive`: above 0).
    fn errors(&self, key: &str, positive: bool) -> Vec<String> {
        let mut errors = Vec::new();
        let mut last: Option<f64> = None;
        for &[share, multiplier] in &self.0 {
            if !(0.0..=1.0).contains(&share) || last.is_some_and(|last| share < last) {
                let after = last.map_or(String::new(), |last| format!(" after {last}"));
                errors.push(format!(
                    "schedule.{key}: each point is [share of the budget, multiplier] with shares \
                     from 0 to 1 in rising order, got {share}{after}"
                ));
            }
            let bad =
                !multiplier.is_finite() || multiplier < 0.0 || (positive && multiplier == 0.0);
            if bad {
                let wanted = if positive { "above 0" } else { "0 or more" };
                errors.push(format!(
                    "schedule.{key}: multipliers must be {wanted}, got {multiplier}"
                ));
            }
            last = Some(last.map_or(share, |last| share.max(last)));
        }
        errors
    }
}

/// The settings a run shapes over its budget, each a [`Curve`] of multipliers of the value
/// the config gives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScheduleConfig {
    /// Multiplies `learner.learning_rate` (and every rate of `learner.lr_schedule`).
    pub learning_rate: Curve,
    /// Multiplies `replay.window_positions`.
    pub window_positions: Curve,
    /// Multiplies self-play's simulations: `search.num_simulations` and
    /// `self_play.fast_simulations`.
    pub num_simulations: Curve,
    /// Multiplies both ends of `self_play.random_opening_plies`.
    pub random_opening_plies: Curve,
}

impl ScheduleConfig {
    /// The errors of every curve.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = self.learning_rate.errors("learning_rate", true);
        errors.extend(self.window_positions.errors("window_positions", true));
        errors.extend(self.num_simulations.errors("num_simulations", true));
        errors.extend(
            self.random_opening_plies
                .errors("random_opening_plies", false),
        );
        errors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_runs_straight_between_its_points_and_flat_beyond_them() {
        let warm_then_decay = Curve(vec![[0.0, 0.5], [0.1, 1.0], [1.0, 0.1]]);
        let at = |used: f64| (warm_then_decay.at(used) * 1000.0).round() / 1000.0;
        assert_eq!(at(0.0), 0.5);
        assert_eq!(at(0.05), 0.75);
        assert_eq!(at(0.1), 1.0);
        assert_eq!(at(0.55), 0.55);
        assert_eq!(at(1.0), 0.1);
        assert_eq!(at(1.5), 0.1);
        assert_eq!(Curve::default().at(0.3), 1.0);
        let late = Curve(vec![[0.5, 2.0]]);
        assert_eq!((late.at(0.0), late.at(0.9)), (2.0, 2.0));
    }

    #[test]
    fn shares_must_rise_within_the_budget_and_multipliers_be_positive() {
        let schedule = ScheduleConfig {
            learning_rate: Curve(vec![[0.5, 1.0], [0.2, 1.0]]),
            window_positions: Curve(vec![[0.0, 0.0]]),
            num_simulations: Curve(vec![[1.5, 1.0]]),
            random_opening_plies: Curve(vec![[0.0, 0.0], [1.0, 1.0]]),
        };
        let errors = schedule.validate();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].starts_with("schedule.learning_rate:"));
        assert!(errors[1].contains("window_positions: multipliers must be above 0"));
        assert!(errors[2].starts_with("schedule.num_simulations:"));
    }
}
