//! `gdlc-player --port 9147 [--threads N] [--name NAME] [--margin-ms M]`:
//! a GGP player for any game, searching with gdlc's interpreter.

use gdlc_player::Settings;
use gdlc_player::{http, InterpreterLoader, Player};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

const USAGE: &str = "usage: gdlc-player [--port PORT] [--threads N] [--name NAME] [--margin-ms M]

  --port PORT     the TCP port to listen on (default 9147; 0 picks a free one)
  --host HOST     the address to listen on (default 0.0.0.0)
  --threads N     search threads (default: every core)
  --name NAME     the name INFO reports (default gdlc-player)
  --margin-ms M   milliseconds of each clock kept back for the answer, at the least
                  (default 300; the latency measured past each deadline is added)
  --no-compile    only interpret: do not compile the game at START

At START the player searches at once with gdlc's interpreter while it compiles
the game into the compiled backend's cache ($GDLC_CACHE_DIR, else
$XDG_CACHE_HOME/gdlc, else ~/.cache/gdlc) and builds a search worker there,
then moves the search to it. When the player starts, it builds in the background
what every game's search worker shares, so that a game waits only for its own crates.";

/// The command line.
struct Options {
    compile: bool,
    host: String,
    port: u16,
    name: String,
    settings: Settings,
}

fn parse() -> Result<Options, lexopt::Error> {
    use lexopt::prelude::*;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut options = Options {
        compile: true,
        host: "0.0.0.0".into(),
        port: 9147,
        name: "gdlc-player".into(),
        settings: gdlc_player::default_settings(threads),
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("port") => options.port = parser.value()?.parse()?,
            Long("host") => options.host = parser.value()?.string()?,
            Long("threads") => {
                let n: usize = parser.value()?.parse()?;
                if n == 0 {
                    return Err("--threads must be at least 1".into());
                }
                options.settings = Settings {
                    threads: n,
                    ..gdlc_player::default_settings(n)
                };
            }
            Long("no-compile") => options.compile = false,
            Long("name") => options.name = parser.value()?.string()?,
            Long("margin-ms") => {
                options.settings.margin = Duration::from_millis(parser.value()?.parse()?);
            }
            Short('h') | Long("help") => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(arg.unexpected()),
        }
    }
    if options.name.is_empty()
        || options
            .name
            .contains(|c: char| c.is_whitespace() || c == '(' || c == ')')
    {
        return Err("--name must be one symbol: no spaces or parentheses".into());
    }
    Ok(options)
}

/// Builds, in the background, what every game's search worker shares.
fn warm_up(cache: gdlc::backend::Cache) {
    std::thread::spawn(move || match gdlc_player::compile::warm_up(&cache) {
        Ok(seconds) => eprintln!(
            "gdlc-player: the libraries every search worker shares are built ({seconds:.1} s)"
        ),
        Err(e) => eprintln!("gdlc-player: building the search workers' libraries failed: {e}"),
    });
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    gdlc::ir::limits::quiet_resource_limits();
    let address = format!("{}:{}", options.host, options.port);
    let server = match tiny_http::Server::http(&address) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot listen on {address}: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "gdlc-player: {} listening on {address} ({} search threads, margin {} ms)",
        options.name,
        options.settings.threads,
        options.settings.margin.as_millis()
    );
    let mut loader = InterpreterLoader::default();
    if options.compile {
        match gdlc::backend::Cache::from_env() {
            Ok(cache) => {
                warm_up(cache.clone());
                loader.cache = Some(cache);
            }
            Err(e) => eprintln!("gdlc-player: games will only be interpreted: {e}"),
        }
    }
    let player = Player::new(loader, options.name, options.settings);
    http::serve(server, Arc::new(player));
    ExitCode::SUCCESS
}
