//! Compiles the bundled tic-tac-toe into `$OUT_DIR/tictactoe.rs`; an invalid
//! description stops the build with gdlc's diagnostics.

fn main() -> Result<(), gdlc::output::Error> {
    gdlc::Builder::new()
        .game("../../games/tictactoe.kif")
        .module_name("tictactoe")
        .compile()?;
    Ok(())
}
