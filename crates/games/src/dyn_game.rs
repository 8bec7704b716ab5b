//! A game whose type is known only at run time (one written in Python, say), behind the
//! same [`Game`] contract as the built-in games.
//!
//! [`DynPosition`] is the object-safe mirror of [`Game`]: a foreign game implements it
//! directly, and any `Game` can be boxed as one with [`DynGame::from_game`]. [`DynGame`]
//! boxes one and is itself a `Game`, so search, training and every front end run it
//! through the same generic code ([`crate::registry::AnyGame::Dynamic`]).

use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::error::GameError;
use crate::game::{Game, Symmetry};
use crate::layout::{BoardLayout, MoveCells};
use crate::outcome::{Action, Outcome, Player};
use crate::records::RecordTags;

/// The object-safe form of [`Game`]: the same methods, with `Clone` and `Eq` by hand.
#[allow(missing_docs)] // each method is the `Game` method of the same name
pub trait DynPosition: fmt::Display + fmt::Debug + Send + Sync + 'static {
    fn clone_box(&self) -> Box<dyn DynPosition>;
    /// This position as `Any`, so that [`DynPosition::eq_dyn`] can compare concrete types.
    fn as_any(&self) -> &dyn Any;
    /// Whether `other` is the same position of the same game.
    fn eq_dyn(&self, other: &dyn DynPosition) -> bool;
    fn name(&self) -> String;
    fn num_actions(&self) -> usize;
    fn obs_shape(&self) -> [usize; 3];
    fn to_move(&self) -> Player;
    fn legal_actions(&self, out: &mut Vec<Action>);
    fn apply(&mut self, action: Action);
    fn outcome(&self) -> Option<Outcome>;
    fn observe(&self, out: &mut [f32]);
    fn symmetries(&self) -> Vec<Symmetry>;
    fn transformed(&self, index: usize) -> Option<Box<dyn DynPosition>>;
    fn hash(&self) -> u64;
    fn format_action(&self, action: Action) -> String;
    fn parse_action(&self, text: &str) -> Result<Action, GameError>;
    fn is_repetition(&self) -> bool;
    fn final_score(&self) -> Option<f32>;
    fn standard_record(
        &self,
        actions: &[Action],
        tags: &RecordTags,
    ) -> Option<(&'static str, String)>;
    fn layout(&self) -> Option<BoardLayout>;
    fn move_cells(&self, action: Action) -> MoveCells;
}

/// A compiled [`Game`] as a [`DynPosition`]. A wrapper rather than a blanket impl, so that
/// the two traits' methods of the same name never meet on one type.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Native<G>(G);

impl<G: Game> fmt::Display for Native<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl<G: Game> DynPosition for Native<G> {
    fn clone_box(&self) -> Box<dyn DynPosition> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn eq_dyn(&self, other: &dyn DynPosition) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }
    fn name(&self) -> String {
        Game::name(&self.0)
    }
    fn num_actions(&self) -> usize {
        Game::num_actions(&self.0)
    }
    fn obs_shape(&self) -> [usize; 3] {
        Game::obs_shape(&self.0)
    }
    fn to_move(&self) -> Player {
        Game::to_move(&self.0)
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        Game::legal_actions(&self.0, out)
    }
    fn apply(&mut self, action: Action) {
        Game::apply(&mut self.0, action)
    }
    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(&self.0)
    }
    fn observe(&self, out: &mut [f32]) {
        Game::observe(&self.0, out)
    }
    fn symmetries(&self) -> Vec<Symmetry> {
        Game::symmetries(&self.0)
    }
    fn transformed(&self, index: usize) -> Option<Box<dyn DynPosition>> {
        Game::transformed(&self.0, index).map(|g| Box::new(Native(g)) as Box<dyn DynPosition>)
    }
    fn hash(&self) -> u64 {
        Game::hash(&self.0)
    }
    fn format_action(&self, action: Action) -> String {
        Game::format_action(&self.0, action)
    }
    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        Game::parse_action(&self.0, text)
    }
    fn is_repetition(&self) -> bool {
        Game::is_repetition(&self.0)
    }
    fn final_score(&self) -> Option<f32> {
        Game::final_score(&self.0)
    }
    fn standard_record(
        &self,
        actions: &[Action],
        tags: &RecordTags,
    ) -> Option<(&'static str, String)> {
        Game::standard_record(&self.0, actions, tags)
    }
    fn layout(&self) -> Option<BoardLayout> {
        Game::layout(&self.0)
    }
    fn move_cells(&self, action: Action) -> MoveCells {
        Game::move_cells(&self.0, action)
    }
}

/// A position of a game known only at run time: a boxed [`DynPosition`].
pub struct DynGame(Box<dyn DynPosition>);

impl DynGame {
    /// Wraps a position of a foreign game.
    pub fn new(position: impl DynPosition) -> DynGame {
        DynGame(Box::new(position))
    }

    /// Wraps a position of a compiled game.
    pub fn from_game<G: Game>(position: G) -> DynGame {
        DynGame(Box::new(Native(position)))
    }

    /// The position inside, if it is a `T` (a foreign game's type, or a compiled game
    /// wrapped by [`DynGame::from_game`]).
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        let any = self.0.as_any();
        any.downcast_ref::<T>()
            .or_else(|| any.downcast_ref::<Native<T>>().map(|native| &native.0))
    }
}

impl Clone for DynGame {
    fn clone(&self) -> Self {
        DynGame(self.0.clone_box())
    }
}

impl PartialEq for DynGame {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_dyn(other.0.as_ref())
    }
}

impl Eq for DynGame {}

impl Hash for DynGame {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(DynPosition::hash(self.0.as_ref()));
    }
}

impl fmt::Display for DynGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for DynGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl Game for DynGame {
    fn name(&self) -> String {
        self.0.name()
    }
    fn num_actions(&self) -> usize {
        self.0.num_actions()
    }
    fn obs_shape(&self) -> [usize; 3] {
        self.0.obs_shape()
    }
    fn to_move(&self) -> Player {
        self.0.to_move()
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.0.legal_actions(out)
    }
    fn apply(&mut self, action: Action) {
        self.0.apply(action)
    }
    fn outcome(&self) -> Option<Outcome> {
        self.0.outcome()
    }
    fn observe(&self, out: &mut [f32]) {
        self.0.observe(out)
    }
    fn symmetries(&self) -> Vec<Symmetry> {
        self.0.symmetries()
    }
    fn transformed(&self, index: usize) -> Option<Self> {
        self.0.transformed(index).map(DynGame)
    }
    fn hash(&self) -> u64 {
        self.0.hash()
    }
    fn format_action(&self, action: Action) -> String {
        self.0.format_action(action)
    }
    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        self.0.parse_action(text)
    }
    fn is_repetition(&self) -> bool {
        self.0.is_repetition()
    }
    fn final_score(&self) -> Option<f32> {
        self.0.final_score()
    }
    fn standard_record(
        &self,
        actions: &[Action],
        tags: &RecordTags,
    ) -> Option<(&'static str, String)> {
        self.0.standard_record(actions, tags)
    }
    fn layout(&self) -> Option<BoardLayout> {
        self.0.layout()
    }
    fn move_cells(&self, action: Action) -> MoveCells {
        self.0.move_cells(action)
    }
}
