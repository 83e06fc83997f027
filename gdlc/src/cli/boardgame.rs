//! `gdlc boardgame`: writes a random chess-like game (a Simplified
//! Boardgame, see [`gdlc::boardgame`]) as GDL.

use super::common::Failure;
use clap::{Args, ValueEnum};
use gdlc::boardgame::{Encoding, Options};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `gdlc boardgame`.
#[derive(Args)]
pub(crate) struct BoardgameArgs {
    /// Seed of the generator: the same seed and options, the same text.
    #[arg(long)]
    seed: u64,
    /// Board size, columns x rows (3 to 20; at least 4 rows).
    #[arg(long, default_value = "8x8", value_parser = board_size)]
    size: (u32, u32),
    /// Number of piece types.
    #[arg(long, default_value_t = 5)]
    pieces: usize,
    /// How the state stores the position.
    #[arg(long, value_enum, default_value = "board")]
    encoding: EncodingArg,
    /// Write the description to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The values of `--encoding` (see [`gdlc::boardgame::Encoding`]).
#[derive(Clone, Copy, ValueEnum)]
enum EncodingArg {
    /// One board predicate (cell ?x ?y ?piece), every square.
    Board,
    /// One position predicate per piece, the occupied squares only.
    Pieces,
}

/// A `--size` value of `gdlc boardgame`.
fn board_size(text: &str) -> Result<(u32, u32), String> {
    gdlc::boardgame::parse_size(text).map_err(|e| e.to_string())
}

impl BoardgameArgs {
    /// Writes the generated game's description; options out of range are a
    /// usage error (exit 2).
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let (width, height) = self.size;
        let options = Options {
            width,
            height,
            pieces: self.pieces,
        };
        let encoding = match self.encoding {
            EncodingArg::Board => Encoding::Board,
            EncodingArg::Pieces => Encoding::PiecePositions,
        };
        let text = match gdlc::boardgame::description(self.seed, &options, encoding) {
            Ok(text) => text,
            Err(e) => {
                eprintln!(
                    "error: {e}\n\nUsage: gdlc boardgame --seed N [--size WxH] [--pieces K] [--encoding E] [-o FILE]"
                );
                return Ok(ExitCode::from(2));
            }
        };
        match self.output {
            None => print!("{text}"),
            Some(path) => std::fs::write(&path, text)
                .map_err(|e| Failure(format!("error: cannot write `{}`: {e}", path.display())))?,
        }
        Ok(ExitCode::SUCCESS)
    }
}
