//! One module per subcommand: each parses its flags, resolves them and calls library code.

pub mod arena;
pub mod bench;
pub mod check_game;
pub mod common;
pub mod gtp;
pub mod play;
pub mod train;
