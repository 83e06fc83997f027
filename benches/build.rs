//! Compiles every game of the project into `$OUT_DIR/<game>.rs` (the
//! default strategy), and again into `$OUT_DIR/<game>_ground.rs` (ground,
//! every state evaluated in full) and `$OUT_DIR/<game>_relational.rs` (see
//! `src/lib.rs`); the GDL-II games of `games/gdl-ii/` in those three and
//! as `<game>_demand`; an invalid description stops the build with gdlc's
//! diagnostics.

use gdlc::compile::Strategy;

/// The strategies every game is compiled with, by module name suffix.
const STRATEGIES: [(&str, Strategy); 3] = [
    ("", Strategy::Auto),
    ("_ground", Strategy::Ground),
    ("_relational", Strategy::Relational),
];

fn main() -> Result<(), gdlc::output::Error> {
    let gdl = [
        "tictactoe",
        "connectfour",
        "breakthrough",
        "simultaneous",
        "threeplayer",
        "maze",
    ];
    for game in gdl {
        compile(&format!("../games/{game}.kif"), game, &STRATEGIES)?;
    }
    let demand = [("_demand", Strategy::Demand)];
    for game in ["montyhall", "twodice", "blindtictactoe", "highcard"] {
        let path = format!("../games/gdl-ii/{game}.kif");
        compile(&path, game, &[&STRATEGIES[..], &demand].concat())?;
    }
    Ok(())
}

/// Compiles the description at `path` into module `<game><suffix>` for
/// each of `strategies`.
fn compile(
    path: &str,
    game: &str,
    strategies: &[(&str, Strategy)],
) -> Result<(), gdlc::output::Error> {
    for &(suffix, strategy) in strategies {
        gdlc::Builder::new()
            .game(path)
            .module_name(format!("{game}{suffix}"))
            .strategy(strategy)
            .compile()?;
    }
    Ok(())
}
