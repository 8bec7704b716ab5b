//! One module per subcommand: each parses its flags, resolves them and calls library code.

pub mod accuracy;
pub mod actor;
pub mod arena;
pub mod bench;
pub mod check_game;
pub mod common;
pub mod compare;
pub mod distill;
pub mod doctor;
pub mod evaluate;
pub mod export;
pub mod export_onnx;
pub mod gtp;
pub mod ladder;
pub mod models;
pub mod play;
pub mod replay;
pub mod report;
pub mod serve;
pub mod train;
pub mod uci;
