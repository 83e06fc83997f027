//! Perft on tic-tac-toe with the reasoner that gdlc generated at build time
//! (see `build.rs`): `tictactoe-perft [DEPTH]` (default 5) prints the nodes
//! and leaves of each depth.

use std::process::ExitCode;

gdl_runtime::include_reasoner!(tictactoe);

fn main() -> ExitCode {
    let depth = match std::env::args().nth(1).map(|d| d.parse::<u32>()) {
        None => 5,
        Some(Ok(depth)) => depth,
        Some(Err(e)) => {
            eprintln!("error: the depth must be a natural number: {e}");
            return ExitCode::from(2);
        }
    };
    let mut game = tictactoe::Game::new();
    match gdl_runtime::perft(&mut game, depth) {
        Ok(levels) => {
            for l in levels {
                println!("depth {}: {} nodes, {} leaves", l.depth, l.nodes, l.leaves);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tictactoe::Game;
    use gdl_runtime::{perft, Reasoner};

    /// The leaves of every depth are known facts about tic-tac-toe: no line
    /// can be completed before ply 5, so up to depth 5 the tree is the
    /// permutations 9, 9*8, 9*8*7, 9*8*7*6, 9*8*7*6*5. After that, the games
    /// won at ply 5, 6, 7, 8 (1440, 5328, 47952, 72576 of the 255168 games)
    /// are not expanded: (15120-1440)*4, (54720-5328)*3, (148176-47952)*2,
    /// (200448-72576)*1; the tree ends at depth 9.
    #[test]
    fn tictactoe_perft_gives_the_known_counts() {
        let mut game = Game::new();
        assert_eq!(game.roles(), ["xplayer", "oplayer"]);
        let levels = perft(&mut game, 10).expect("perft");
        let leaves: Vec<u64> = levels.iter().map(|l| l.leaves).collect();
        assert_eq!(
            leaves,
            [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872, 0]
        );
        let nodes: Vec<u64> = levels.iter().map(|l| l.nodes).collect();
        assert_eq!(nodes[4], 1 + 9 + 72 + 504 + 3024);
    }
}
