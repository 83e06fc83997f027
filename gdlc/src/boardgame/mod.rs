//! Chess-like games generated at random and translated to GDL: Björnsson's
//! Simplified Boardgames, as in Kowalski et al., "Simplified Boardgames to
//! GDL" (`../shared/papers/kowalski-simplified-boardgames-to-gdl.txt`).
//!
//! [`regex`] is the move language, [`spec`] a game as data, [`moves`] a
//! position's moves computed from it, [`generate`] the seeded random
//! generator and [`translate`] the GDL writer;
//! [`description`] runs both for `gdlc boardgame`.

pub mod generate;
pub mod moves;
pub mod regex;
pub mod spec;
pub mod translate;

pub use generate::{generate, Options};
pub use spec::{Boardgame, BoardgameError};
pub use translate::{translate, Encoding};

/// The GDL description of the game of `seed` with the position stored as
/// `encoding` says, with a header naming the command that writes it.
pub fn description(
    seed: u64,
    options: &Options,
    encoding: Encoding,
) -> Result<String, BoardgameError> {
    let game = generate(seed, options)?;
    let flag = match encoding {
        Encoding::Board => "",
        Encoding::PiecePositions => " --encoding pieces",
    };
    let header = format!(
        "gdlc boardgame --seed {seed} --size {}x{} --pieces {}{flag}",
        options.width, options.height, options.pieces
    );
    translate(&game, encoding, &[header])
}

/// Reads a board size written `WxH` (for example `8x8`).
pub fn parse_size(text: &str) -> Result<(u32, u32), BoardgameError> {
    let bad = || BoardgameError(format!("`{text}` is not a board size WxH, such as 8x8"));
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?))
}
