//! Compiles every game of the project into `$OUT_DIR/<game>.rs`, and again
//! with the relational strategy into `$OUT_DIR/<game>_relational.rs` (see
//! `src/lib.rs`); an invalid description stops the build with gdlc's
//! diagnostics.

fn main() -> Result<(), gdlc::output::Error> {
    for game in [
        "tictactoe",
        "connectfour",
        "breakthrough",
        "simultaneous",
        "threeplayer",
        "maze",
    ] {
        gdlc::Builder::new()
            .game(format!("../games/{game}.kif"))
            .module_name(game)
            .compile()?;
        gdlc::Builder::new()
            .game(format!("../games/{game}.kif"))
            .module_name(format!("{game}_relational"))
            .strategy(gdlc::compile::Strategy::Relational)
            .compile()?;
    }
    Ok(())
}
