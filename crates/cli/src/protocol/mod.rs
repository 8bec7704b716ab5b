//! Protocol front ends: an engine that owns the game, its history and the player, plus a
//! loop that parses lines and formats replies.

pub mod gtp;
pub mod uci;
