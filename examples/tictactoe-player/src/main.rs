//! A GGP player for tic-tac-toe with the reasoner that gdlc generated at
//! build time (see `build.rs`), served by the `gdlc-player` library:
//! `tictactoe-player [PORT]` (default 9147). A START of another game (other
//! roles) is refused with an HTTP error.

use gdlc_player::{http, FixedGame, Player};
use std::process::ExitCode;
use std::sync::Arc;

gdl_runtime::include_reasoner!(tictactoe);

/// The player: every search thread gets its own compiled reasoner.
fn player() -> Player<FixedGame<tictactoe::Game>> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    Player::new(
        FixedGame::new(tictactoe::Game::new),
        "tictactoe-player",
        gdlc_player::default_settings(threads),
    )
}

fn main() -> ExitCode {
    let port = match std::env::args().nth(1).map(|p| p.parse::<u16>()) {
        None => 9147,
        Some(Ok(port)) => port,
        Some(Err(e)) => {
            eprintln!("error: the port must be a number from 0 to 65535: {e}");
            return ExitCode::from(2);
        }
    };
    let server = match tiny_http::Server::http(("0.0.0.0", port)) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: cannot listen on port {port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("tictactoe-player: listening on port {port}");
    http::serve(server, Arc::new(player()));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::player;
    use std::time::Instant;

    fn description(name: &str) -> String {
        let path = format!("{}/../../games/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn plays_tictactoe_and_refuses_other_games() {
        let player = player();
        let other = format!(
            "( START m.0 alice ({}) 10 1 )",
            description("threeplayer.kif")
        );
        assert_eq!(player.handle(&other, Instant::now()).status, 400);
        let start = format!(
            "( START m.1 OPlayer ({}) 10 1 )",
            description("tictactoe.kif")
        );
        assert_eq!(player.handle(&start, Instant::now()).body, "ready");
        // oplayer does not move first: its only legal move is noop.
        let first = player.handle("( PLAY m.1 NIL )", Instant::now());
        assert_eq!((first.status, first.body.as_str()), (200, "noop"));
        let second = player.handle("( PLAY m.1 ( ( mark 2 2 ) noop ) )", Instant::now());
        assert_eq!(second.status, 200);
        assert!(second.body.starts_with("(mark "), "{}", second.body);
        assert_ne!(second.body, "(mark 2 2)");
        assert_eq!(
            player.handle("( ABORT m.1 )", Instant::now()).body,
            "aborted"
        );
    }
}
