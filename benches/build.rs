//! Compiles every game of the project into `$OUT_DIR/<game>.rs` (the
//! default strategy), and again into `$OUT_DIR/<game>_ground.rs` (ground,
//! every state evaluated in full) and `$OUT_DIR/<game>_relational.rs` (see
//! `src/lib.rs`); the GDL-II games of `games/gdl-ii/` in those three and
//! as `<game>_demand`; an invalid description stops the build with gdlc's
//! diagnostics.

use gdlc::compile::Strategy;

fn main() -> Result<(), gdlc::output::Error> {
    for game in [
        "tictactoe",
        "connectfour",
        "breakthrough",
        "simultaneous",
        "threeplayer",
        "maze",
    ] {
        for (suffix, strategy) in [
            ("", Strategy::Auto),
            ("_ground", Strategy::Ground),
            ("_relational", Strategy::Relational),
        ] {
            gdlc::Builder::new()
                .game(format!("../games/{game}.kif"))
                .module_name(format!("{game}{suffix}"))
                .strategy(strategy)
                .compile()?;
        }
    }
    for game in ["montyhall", "twodice", "blindtictactoe", "highcard"] {
        for (suffix, strategy) in [
            ("", Strategy::Auto),
            ("_ground", Strategy::Ground),
            ("_relational", Strategy::Relational),
            ("_demand", Strategy::Demand),
        ] {
            gdlc::Builder::new()
                .game(format!("../games/gdl-ii/{game}.kif"))
                .module_name(format!("{game}{suffix}"))
                .strategy(strategy)
                .compile()?;
        }
    }
    Ok(())
}
