//! Shared helpers of the player's tests: a player on a free port of
//! 127.0.0.1, a raw HTTP client that sends requests the way ggp-base's
//! `HttpWriter` does, and a game manager that plays a whole match against
//! the player, choosing the other roles' moves uniformly at random and
//! refereeing with gdlc's interpreter.

use gdl_runtime::Reasoner;
use gdlc::interp::Interpreter;
use gdlc_player::{http, InterpreterLoader, Player, Settings};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Starts a player with `threads` search threads and a 300 ms margin on a
/// free port, searching with gdlc's interpreter; returns the port.
pub fn spawn_player(threads: usize) -> u16 {
    spawn_player_with(InterpreterLoader::default(), threads)
}

/// As [`spawn_player`], the player compiling each game at START into the
/// tests' cache (`$GDLC_CACHE_DIR`, else `target/player-test-cache`).
pub fn spawn_compiling_player(threads: usize) -> u16 {
    let cache = std::env::var_os("GDLC_CACHE_DIR").map_or_else(
        || format!("{}/../target/player-test-cache", env!("CARGO_MANIFEST_DIR")).into(),
        std::path::PathBuf::from,
    );
    let loader = InterpreterLoader {
        cache: Some(gdlc::backend::Cache::new(cache)),
    };
    spawn_player_with(loader, threads)
}

fn spawn_player_with(loader: InterpreterLoader, threads: usize) -> u16 {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("bind a free port");
    let port = server.server_addr().to_ip().expect("an IP address").port();
    let settings = Settings {
        max_nodes: 200_000,
        ..gdlc_player::default_settings(threads)
    };
    let player = Arc::new(Player::new(loader, "tester", settings));
    std::thread::spawn(move || http::serve(server, player));
    port
}

/// An HTTP answer: status, body, and how long it took.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub took: Duration,
}

/// POSTs `body` as ggp-base's server does and reads the answer to EOF.
pub fn post(port: u16, body: &[u8]) -> Answer {
    let started = Instant::now();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: localhost\r\nSender: GAMESERVER\r\nReceiver: \r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    read_answer(stream, started)
}

/// Reads an HTTP answer from `stream` to EOF; checks `Content-Length`.
pub fn read_answer(mut stream: TcpStream, started: Instant) -> Answer {
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    let took = started.elapsed();
    let text = String::from_utf8(raw).expect("a UTF-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("headers end");
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("a Content-Length header");
    assert_eq!(length, body.len(), "Content-Length matches the body");
    assert!(
        head.to_ascii_lowercase().contains("content-type: text/acl"),
        "{head}"
    );
    Answer {
        status,
        body: body.trim().to_string(),
        took,
    }
}

/// The text of a game of the project's `games/` folder.
pub fn game(name: &str) -> String {
    let path = format!("{}/../games/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The START message of a match of `description` for `role`.
pub fn start_message(id: &str, role: &str, description: &str, start: u64, play: u64) -> String {
    format!("( START {id} {role} (\n{description}\n) {start} {play} )")
}

/// A small xorshift generator for the random player.
pub struct Random(pub u64);

impl Random {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// What a match showed.
pub struct Outcome {
    /// Every role's goal at the end.
    pub goals: Vec<u32>,
    /// The player's moves, as sent.
    pub moves: Vec<String>,
    /// The longest time the player took to answer a PLAY.
    pub slowest: Duration,
}

/// Plays a whole match against the player on `port`, which plays role
/// `role`; the other roles move uniformly at random. Checks that every
/// answer is a legal move sent within the play clock.
pub fn play_match(port: u16, id: &str, description: &str, role: usize, play_clock: u64) -> Outcome {
    let loaded = gdlc::load_bytes("referee".into(), description.as_bytes().to_vec())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut referee = Interpreter::new(&loaded);
    let roles = referee.roles().to_vec();
    let spelled = |text: &str| spelling_in(description, text);
    let start = post(
        port,
        start_message(id, &spelled(&roles[role]), description, 10, play_clock).as_bytes(),
    );
    assert_eq!((start.status, start.body.as_str()), (200, "ready"));
    let mut rng = Random(0x2545_f491_4f6c_dd1d ^ id.len() as u64);
    let mut state = referee.initial_state();
    let mut last: Option<Vec<String>> = None;
    let mut outcome = Outcome {
        goals: Vec::new(),
        moves: Vec::new(),
        slowest: Duration::ZERO,
    };
    let mut legal = Vec::new();
    while !referee.is_terminal(&state) {
        let moves = match &last {
            None => "NIL".to_string(),
            Some(joint) => format!("( {} )", joint.join(" ")),
        };
        let answer = post(port, format!("( PLAY {id} {moves} )").as_bytes());
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert!(
            answer.took < Duration::from_secs(play_clock),
            "PLAY answered in {:?}, over the {play_clock} s play clock",
            answer.took
        );
        outcome.slowest = outcome.slowest.max(answer.took);
        let mut joint = Vec::new();
        for r in 0..roles.len() {
            referee.legal_moves(&state, r, &mut legal);
            let m = if r == role {
                let text = gdl_runtime::kif::canonical(&answer.body).expect("a move");
                let m = referee.parse_move(r, &text).expect("a move of the game");
                assert!(legal.contains(&m), "{} is not legal", answer.body);
                outcome.moves.push(answer.body.clone());
                m
            } else {
                legal[rng.below(legal.len())]
            };
            joint.push(m);
        }
        last = Some(
            joint
                .iter()
                .enumerate()
                .map(|(r, &m)| spelled(&referee.move_text(r, m)))
                .collect(),
        );
        state = referee.next_state(&state, &joint);
    }
    let joint = last.map_or("NIL".to_string(), |j| format!("( {} )", j.join(" ")));
    let stop = post(port, format!("( STOP {id} {joint} )").as_bytes());
    assert_eq!((stop.status, stop.body.as_str()), (200, "done"));
    outcome.goals = (0..roles.len())
        .map(|r| referee.goal(&state, r).expect("a goal"))
        .collect();
    outcome
}

/// `text` (lower case) with each symbol spelled as in `description`, as a
/// case-keeping game manager sends it.
pub fn spelling_in(description: &str, text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c == '(' || c == ')' || c == ' ' {
            if !word.is_empty() {
                let found = description
                    .split(|c: char| c == '(' || c == ')' || c.is_whitespace())
                    .find(|w| w.eq_ignore_ascii_case(&word));
                out.push_str(found.unwrap_or(&word));
                word.clear();
            }
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.pop();
    out
}
