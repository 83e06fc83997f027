//! A game manager for measuring players: plays matches of one game between
//! seats that are GGP players over HTTP, uniformly random movers, or flat
//! Monte-Carlo (random playouts per legal move for the play clock), all
//! refereed by gdlc's interpreter. An HTTP player's move that is late,
//! illegal or unreadable is replaced by a random legal one and counted, as
//! ggp-base's server does.
//!
//! `referee GAME.kif --seat KIND … [--matches N] [--play-clock S] [--start-clock S] [--steps N]`
//! with a `--seat` per role in the description's order (roles left out
//! move at random); KIND is `random`, `flat` or `HOST:PORT`. `--steps N`
//! ends each match after N steps with ABORT (for timing, not strength). Prints each match's goals, then per
//! seat its wins, draws and losses (a win: a goal above every other seat's)
//! and the slowest HTTP answer.

use gdl_runtime::Reasoner;
use gdlc::interp::{Interpreter, Move, State};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

enum Seat {
    Random,
    Flat,
    Http(String),
}

struct Referee {
    r: Interpreter,
    description: String,
    seats: Vec<Seat>,
    play_clock: u64,
    start_clock: u64,
    steps: usize,
    rng: u64,
    /// Per seat: replaced moves and the slowest answer.
    errors: Vec<u32>,
    slowest: Vec<Duration>,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let (mut game, mut seats, mut matches, mut play_clock, mut start_clock) =
        (None, Vec::new(), 1, 1, 10);
    let mut steps = usize::MAX;
    while let Some(arg) = parser.next()? {
        match arg {
            Value(v) if game.is_none() => game = Some(v.string()?),
            Long("seat") => seats.push(match parser.value()?.string()?.as_str() {
                "random" => Seat::Random,
                "flat" => Seat::Flat,
                address => Seat::Http(address.to_string()),
            }),
            Long("matches") => matches = parser.value()?.parse()?,
            Long("play-clock") => play_clock = parser.value()?.parse()?,
            Long("start-clock") => start_clock = parser.value()?.parse()?,
            Long("steps") => steps = parser.value()?.parse()?,
            _ => return Err(arg.unexpected().into()),
        }
    }
    let game = game.ok_or("usage: referee GAME.kif --seat KIND ...")?;
    let description = std::fs::read_to_string(&game)?;
    let r = Interpreter::from_path(game.as_ref()).map_err(|e| e.to_string())?;
    if seats.len() > r.roles().len() {
        return Err(format!("{} seats for {} roles", seats.len(), r.roles().len()).into());
    }
    while seats.len() < r.roles().len() {
        seats.push(Seat::Random);
    }
    let n = seats.len();
    let mut referee = Referee {
        r,
        description,
        seats,
        play_clock,
        start_clock,
        steps,
        rng: 0x2545_f491_4f6c_dd1d,
        errors: vec![0; n],
        slowest: vec![Duration::ZERO; n],
    };
    let mut tally = vec![(0, 0, 0); n];
    for k in 0..matches {
        let goals = referee.play(&format!("referee.{}.{k}", std::process::id()))?;
        println!("match {k}: goals {goals:?}");
        for (seat, t) in tally.iter_mut().enumerate() {
            let others = goals.iter().enumerate().filter(|&(s, _)| s != seat);
            let best_other = others.map(|(_, &g)| g).max().unwrap_or(0);
            match goals[seat].cmp(&best_other) {
                std::cmp::Ordering::Greater => t.0 += 1,
                std::cmp::Ordering::Equal => t.1 += 1,
                std::cmp::Ordering::Less => t.2 += 1,
            }
        }
    }
    for (seat, (w, d, l)) in tally.iter().enumerate() {
        println!(
            "seat {seat} ({}): {w} wins, {d} draws, {l} losses; {} moves replaced; slowest answer {} ms",
            referee.r.roles()[seat],
            referee.errors[seat],
            referee.slowest[seat].as_millis()
        );
    }
    Ok(())
}

impl Referee {
    fn below(&mut self, n: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % n as u64) as usize
    }

    /// Plays one match; returns every role's goal.
    fn play(&mut self, id: &str) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
        let roles = self.r.roles().to_vec();
        for (seat, role) in roles.iter().enumerate() {
            if let Seat::Http(address) = &self.seats[seat] {
                let start = format!(
                    "( START {id} {role} ({}\n) {} {} )",
                    self.description, self.start_clock, self.play_clock
                );
                let clock = Duration::from_secs(self.start_clock);
                let answer =
                    post(address, &start, clock).map_err(|e| format!("START to {address}: {e}"))?;
                if answer != "ready" {
                    return Err(format!("START to {address}: {answer}").into());
                }
            }
        }
        let mut state = self.r.initial_state();
        let mut last = "NIL".to_string();
        let mut step = 0;
        let mut aborted = false;
        while !self.r.is_terminal(&state) {
            if step == self.steps {
                self.abort(id);
                aborted = true;
                break;
            }
            step += 1;
            let message = format!("( PLAY {id} {last} )");
            let joint: Vec<Move> = (0..roles.len())
                .map(|seat| self.choose(seat, &state, &message))
                .collect();
            let texts: Vec<String> = joint
                .iter()
                .enumerate()
                .map(|(s, &m)| self.r.move_text(s, m))
                .collect();
            last = format!("( {} )", texts.join(" "));
            state = self.r.next_state(&state, &joint);
        }
        for seat in self.seats.iter().filter(|_| !aborted) {
            if let Seat::Http(address) = seat {
                let _ = post(
                    address,
                    &format!("( STOP {id} {last} )"),
                    Duration::from_secs(self.play_clock),
                );
            }
        }
        Ok((0..roles.len())
            .map(|s| self.r.goal(&state, s).unwrap_or(0))
            .collect())
    }

    fn abort(&self, id: &str) {
        for seat in &self.seats {
            if let Seat::Http(address) = seat {
                let _ = post(address, &format!("( ABORT {id} )"), Duration::from_secs(1));
            }
        }
    }

    /// The move of `seat`: asked over HTTP (the PLAYs of one step are sent
    /// one after the other, so an HTTP seat's clock runs while the others
    /// think only for the in-process seats, which answer at once or after
    /// their own clock), random, or flat Monte-Carlo.
    fn choose(&mut self, seat: usize, state: &State, message: &str) -> Move {
        let mut legal = Vec::new();
        self.r.legal_moves(state, seat, &mut legal);
        let random = legal[self.below(legal.len())];
        match &self.seats[seat] {
            Seat::Random => random,
            Seat::Flat => self.flat(seat, state, &legal),
            Seat::Http(address) => {
                let started = Instant::now();
                let answer = post(address, message, Duration::from_secs(self.play_clock + 1));
                self.slowest[seat] = self.slowest[seat].max(started.elapsed());
                let late = started.elapsed() > Duration::from_secs(self.play_clock);
                let chosen = answer.ok().and_then(|text| {
                    let canonical = gdl_runtime::kif::canonical(&text)?;
                    self.r
                        .parse_move(seat, &canonical)
                        .filter(|m| legal.contains(m))
                });
                match chosen {
                    Some(m) if !late => m,
                    _ => {
                        self.errors[seat] += 1;
                        random
                    }
                }
            }
        }
    }

    /// Flat Monte-Carlo: random playouts after each legal move in turn,
    /// the others' moves random, until the play clock less 300 ms.
    fn flat(&mut self, seat: usize, state: &State, legal: &[Move]) -> Move {
        let deadline =
            Instant::now() + Duration::from_millis((self.play_clock * 1000).saturating_sub(300));
        let mut sums = vec![(0u64, 0u64); legal.len()];
        let roles = self.r.roles().len();
        let mut moves = Vec::new();
        let mut k = 0;
        while Instant::now() < deadline {
            let i = k % legal.len();
            k += 1;
            let mut s = state.clone();
            let mut first = true;
            while !self.r.is_terminal(&s) {
                let mut joint = Vec::with_capacity(roles);
                for role in 0..roles {
                    self.r.legal_moves(&s, role, &mut moves);
                    let m = if first && role == seat {
                        legal[i]
                    } else {
                        moves[self.below(moves.len())]
                    };
                    joint.push(m);
                }
                first = false;
                s = self.r.next_state(&s, &joint);
            }
            sums[i].0 += u64::from(self.r.goal(&s, seat).unwrap_or(0));
            sums[i].1 += 1;
        }
        let mean = |(total, n): (u64, u64)| total as f64 / n.max(1) as f64;
        let best = (0..legal.len())
            .max_by(|&a, &b| mean(sums[a]).total_cmp(&mean(sums[b])))
            .unwrap_or(0);
        legal[best]
    }
}

/// POSTs `body` to `address` as ggp-base's server does; the answer's body.
fn post(
    address: &str,
    body: &str,
    timeout: Duration,
) -> Result<String, Box<dyn std::error::Error>> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(timeout))?;
    let head = format!(
        "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: localhost\r\nSender: GAMESERVER\r\nReceiver: \r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw)?;
    let (_, body) = raw.split_once("\r\n\r\n").ok_or("no end of headers")?;
    Ok(body.trim().to_string())
}
