//! Generated Simplified Boardgames (`gdlc::boardgame`): the generator is
//! deterministic, every generated game is a valid description that plays to
//! its end, a hand-written game's tree is counted as derived by hand, and
//! (`--ignored`, it builds crates) the interpreter and both compiled
//! strategies agree on ten generated games:
//! `cargo test --release -p gdlc --test integration -- --ignored --nocapture --exact boardgame::generated_games_agree_across_the_interpreter_and_both_strategies`.

use crate::common;
use common::gdlc;
use gdl_runtime::{perft, play, PerftLevel, Reasoner};
use gdlc::boardgame::regex::{Letter, On, Regex};
use gdlc::boardgame::spec::{Class, PieceType, Placed, Side, WinCondition};
use gdlc::boardgame::{description, generate, translate, Boardgame, Encoding, Options};
use gdlc::interp::Interpreter;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::BTreeSet;

fn options(width: u32, height: u32, pieces: usize) -> Options {
    Options {
        width,
        height,
        pieces,
    }
}

fn interpreter(name: &str, text: &str) -> Interpreter {
    let loaded = gdlc::load_bytes(name.to_string(), text.as_bytes().to_vec())
        .unwrap_or_else(|e| panic!("{name} is invalid:\n{e}\n{text}"));
    Interpreter::new(&loaded)
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_seeds_differ() {
    let o = options(8, 8, 5);
    let texts: Vec<String> = (0..12)
        .map(|s| description(s, &o, Encoding::Board).unwrap())
        .collect();
    for (s, text) in texts.iter().enumerate() {
        assert_eq!(
            text,
            &description(s as u64, &o, Encoding::Board).unwrap(),
            "seed {s}"
        );
        for (t, other) in texts.iter().enumerate().skip(s + 1) {
            assert_ne!(text, other, "seeds {s} and {t} give the same game");
        }
    }
    assert_ne!(
        description(3, &o, Encoding::Board).unwrap(),
        description(3, &options(8, 8, 4), Encoding::Board).unwrap()
    );
}

#[test]
fn the_command_writes_the_library_s_text() {
    let expected = description(42, &options(6, 7, 3), Encoding::Board).unwrap();
    let run = gdlc(&[
        "boardgame",
        "--seed",
        "42",
        "--size",
        "6x7",
        "--pieces",
        "3",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, expected);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.kif");
    let run = gdlc(&[
        "boardgame",
        "--seed",
        "42",
        "--size",
        "6x7",
        "--pieces",
        "3",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected);
    let check = gdlc(&["check", file.to_str().unwrap()]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(
        check.stdout.contains("0 errors, 0 warnings"),
        "{}",
        check.stdout
    );
}

#[test]
fn bad_arguments_are_a_usage_error() {
    for args in [
        &["boardgame"][..],
        &["boardgame", "--seed", "x"],
        &["boardgame", "--seed", "1", "--size", "8by8"],
        &["boardgame", "--seed", "1", "--size", "2x8"],
        &["boardgame", "--seed", "1", "--size", "8x3"],
        &["boardgame", "--seed", "1", "--size", "21x8"],
        &["boardgame", "--seed", "1", "--pieces", "0"],
        &["boardgame", "--seed", "1", "--pieces", "13"],
        &["boardgame", "--seed", "1", "--pieces", "-1"],
        &["boardgame", "--seed", "1", "--colour", "red"],
        &["boardgame", "--seed", "1", "--encoding", "squares"],
    ] {
        let run = gdlc(args);
        assert_eq!(run.code, 2, "{args:?}: {} {}", run.stdout, run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(
            run.stderr.starts_with("error: "),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// The position and the player to move in a state of the board encoding.
fn position_of(game: &Boardgame, fluents: &[String]) -> (Vec<Placed>, Side) {
    let mut position = Vec::new();
    let mut mover = Side::White;
    for f in fluents {
        if f == "(control black)" {
            mover = Side::Black;
        }
        let Some(cell) = f.strip_prefix("(cell ") else {
            continue;
        };
        let parts: Vec<&str> = cell.trim_end_matches(')').split(' ').collect();
        for side in [Side::White, Side::Black] {
            for piece in 0..game.pieces.len() {
                if game.piece_constant(side, piece) == parts[2] {
                    let (x, y) = (parts[0].parse().unwrap(), parts[1].parse().unwrap());
                    position.push(Placed { x, y, side, piece });
                }
            }
        }
    }
    (position, mover)
}

/// Plays a uniformly random game of `game` to its end and checks that it
/// ends within the turn limit with exactly one goal per role, 100 in all,
/// and that in every state the mover's legal moves are those the board
/// game's own semantics give (`gdlc::boardgame::moves`); returns whether it
/// was decided before the limit.
fn random_playout(r: &mut Interpreter, game: &Boardgame, seed: u64, name: &str) -> bool {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut state = r.initial_state();
    let mut moves = Vec::new();
    let mut plies = 0;
    while !r.is_terminal(&state) {
        assert!(plies < game.turn_limit, "{name}: no end at the turn limit");
        let (position, mover) = position_of(game, &r.fluents(&state));
        let expected: BTreeSet<String> = gdlc::boardgame::moves::moves(game, &position, mover)
            .iter()
            .map(|(a, b, c, d)| format!("(move {a} {b} {c} {d})"))
            .collect();
        let role = usize::from(mover == Side::Black);
        r.legal_moves(&state, role, &mut moves);
        let legal: BTreeSet<String> = moves.iter().map(|&m| r.move_text(role, m)).collect();
        assert_eq!(legal, expected, "{name}, ply {plies}");
        let mut joint = Vec::new();
        for role in 0..2 {
            r.legal_moves(&state, role, &mut moves);
            assert!(!moves.is_empty(), "{name}: role {role} has no move");
            let pick = (u64::from(rng.next_u32()) * moves.len() as u64) >> 32;
            joint.push(moves[pick as usize]);
        }
        state = r.next_state(&state, &joint);
        plies += 1;
    }
    let goals: Vec<Option<u32>> = (0..2).map(|i| r.goal(&state, i)).collect();
    let sum: u32 = goals.iter().map(|g| g.expect("one goal per role")).sum();
    assert_eq!(sum, 100, "{name}: goals {goals:?}");
    plies < game.turn_limit
}

#[test]
fn generated_games_are_valid_and_play_to_their_end() {
    let sizes = [(4, 4, 2), (5, 6, 3), (6, 6, 4), (8, 8, 5), (7, 10, 8)];
    let mut decided = 0;
    for seed in 0..30u64 {
        let (w, h, k) = sizes[seed as usize % sizes.len()];
        let game = generate(seed, &options(w, h, k)).unwrap();
        let name = format!("seed {seed} {w}x{h} {k} pieces");
        let text = description(seed, &options(w, h, k), Encoding::Board).unwrap();
        let mut r = interpreter(&name, &text);
        for playout in 0..5 {
            decided += usize::from(random_playout(&mut r, &game, seed * 10 + playout, &name));
        }
    }
    println!("{decided} of 150 random playouts were decided before the turn limit");
    assert!(decided > 0);
}

/// The position predicates per piece give the same game as the board
/// predicate: the same perft counts and the same deterministic playouts
/// (legal moves, moves, end and goals; only the fluents differ).
#[test]
fn both_encodings_play_the_same_game() {
    let sizes = [(4, 5, 2), (5, 6, 3), (6, 6, 4), (6, 7, 5)];
    for seed in 0..8u64 {
        let (w, h, k) = sizes[seed as usize % sizes.len()];
        let name = format!("seed {seed} {w}x{h} {k} pieces");
        let o = options(w, h, k);
        let board = description(seed, &o, Encoding::Board).unwrap();
        let pieces = description(seed, &o, Encoding::PiecePositions).unwrap();
        assert!(pieces.contains("(init (pos_w"), "{pieces}");
        let mut a = interpreter(&name, &board);
        let mut b = interpreter(&name, &pieces);
        assert_eq!(
            perft(&mut a, 3).unwrap(),
            perft(&mut b, 3).unwrap(),
            "{name}"
        );
        for playout in 0..2 {
            let x = gdl_runtime::deterministic_playout(&mut a, playout, 300).unwrap();
            let y = gdl_runtime::deterministic_playout(&mut b, playout, 300).unwrap();
            assert_eq!(
                (x.terminal_step, &x.goals),
                (y.terminal_step, &y.goals),
                "{name}"
            );
            for (s, t) in x.steps.iter().zip(&y.steps) {
                assert_eq!((&s.legal, &s.joint), (&t.legal, &t.joint), "{name}");
            }
        }
    }
}

fn letter(dx: i32, dy: i32, on: On) -> Regex {
    Regex::Letter(Letter::new(dx, dy, on))
}

/// A rider along `(dx, dy)`: over empty squares, then onto an empty or an
/// opponent's square.
fn ride(dx: i32, dy: i32) -> Regex {
    Regex::Concat(vec![
        Regex::Star(Box::new(letter(dx, dy, On::Empty))),
        Regex::Alt(vec![
            letter(dx, dy, On::Empty),
            letter(dx, dy, On::Opponent),
        ]),
    ])
}

/// 3x3, two moves to play:
///
/// ```text
/// 3  .  bp bq
/// 2  .  .  .
/// 1  wq wp .
/// ```
///
/// `p` steps forward onto an empty square or captures diagonally forward;
/// `q` rides forward, left and right. A player wins when the opponent has no
/// `q` left.
fn tiny() -> Boardgame {
    let pawn = Regex::Alt(vec![
        letter(0, 1, On::Empty),
        letter(-1, 1, On::Opponent),
        letter(1, 1, On::Opponent),
    ]);
    let queen = Regex::Alt(vec![ride(0, 1), ride(1, 0), ride(-1, 0)]);
    let at = |x, y, side, piece| Placed { x, y, side, piece };
    Boardgame {
        width: 3,
        height: 3,
        pieces: vec![
            PieceType {
                name: "p".into(),
                class: Class::Weak,
                moves: pawn,
            },
            PieceType {
                name: "q".into(),
                class: Class::Strong,
                moves: queen,
            },
        ],
        initial: vec![
            at(1, 1, Side::White, 1),
            at(2, 1, Side::White, 0),
            at(2, 3, Side::Black, 0),
            at(3, 3, Side::Black, 1),
        ],
        conditions: vec![WinCondition::Capture(1)],
        turn_limit: 2,
    }
}

#[test]
fn a_hand_written_game_counts_as_derived_by_hand() {
    let text = translate(&tiny(), Encoding::Board, &[]).unwrap();
    let mut r = interpreter("tiny", &text);
    // White: wq (1,1) rides up to (1,2) and (1,3) (its right is its own
    // pawn, its left the edge); wp (2,1) steps to (2,2) (no diagonal
    // captures). 3 moves, black plays noop.
    // Black answers (its forward is down): after wq->(1,2): bq down to
    // (3,2), (3,1); bp to (2,2) and captures on (1,2): 4. After
    // wq->(1,3): bq 2, bp to (2,2): 3. After wp->(2,2): bq 2, bp blocked:
    // 2. 4 + 3 + 2 = 9; every state at depth 2 is at the turn limit.
    let level = |depth, nodes, leaves| PerftLevel {
        depth,
        nodes,
        leaves,
    };
    assert_eq!(
        perft(&mut r, 3).unwrap(),
        vec![
            level(0, 1, 1),
            level(1, 4, 3),
            level(2, 13, 9),
            level(3, 13, 0)
        ]
    );
    // bp takes the white q: black wins.
    let s0 = r.initial_state();
    let s1 = play(&mut r, &s0, &["(move 1 1 1 2)", "noop"]).unwrap();
    assert!(!r.is_terminal(&s1));
    assert_eq!((r.goal(&s1, 0), r.goal(&s1, 1)), (Some(50), Some(50)));
    let s2 = play(&mut r, &s1, &["noop", "(move 2 3 1 2)"]).unwrap();
    assert!(r.is_terminal(&s2));
    assert_eq!((r.goal(&s2, 0), r.goal(&s2, 1)), (Some(0), Some(100)));
    // No capture: a draw at the turn limit.
    let s1 = play(&mut r, &s0, &["(move 2 1 2 2)", "noop"]).unwrap();
    let s2 = play(&mut r, &s1, &["noop", "(move 3 3 3 1)"]).unwrap();
    assert!(r.is_terminal(&s2));
    assert_eq!((r.goal(&s2, 0), r.goal(&s2, 1)), (Some(50), Some(50)));
    // Illegal: the q cannot pass its own pawn, nor land on it.
    assert!(play(&mut r, &s0, &["(move 1 1 3 1)", "noop"]).is_err());
    assert!(play(&mut r, &s0, &["(move 1 1 2 1)", "noop"]).is_err());
}

#[test]
fn a_player_who_cannot_move_loses() {
    // White's only piece, a pawn, faces black's pawn: white cannot move.
    let mut game = tiny();
    game.initial = vec![
        Placed {
            x: 2,
            y: 2,
            side: Side::White,
            piece: 0,
        },
        Placed {
            x: 2,
            y: 3,
            side: Side::Black,
            piece: 0,
        },
    ];
    game.conditions.clear();
    let text = translate(&game, Encoding::Board, &[]).unwrap();
    let mut r = interpreter("stuck", &text);
    let s0 = r.initial_state();
    assert!(r.is_terminal(&s0));
    assert_eq!((r.goal(&s0, 0), r.goal(&s0, 1)), (Some(0), Some(100)));
}

/// The games of the differential check: (seed, width, height, piece
/// types). The first ten are small enough for the ground strategy, so each
/// is compiled both ways; the last two only relation by relation (the
/// ground strategy falls back to it on them).
const DIFFERENTIAL: [(u64, u32, u32, usize); 12] = [
    (101, 4, 5, 2),
    (102, 5, 5, 3),
    (111, 4, 4, 2),
    (112, 4, 5, 3),
    (117, 6, 5, 3),
    (118, 4, 6, 4),
    (119, 5, 4, 3),
    (124, 5, 5, 2),
    (126, 6, 4, 2),
    (128, 6, 5, 2),
    (109, 8, 8, 5),
    (110, 10, 10, 6),
];

/// Games of the differential check written with one position predicate
/// per piece (`--encoding pieces`), compiled with each strategy that takes
/// them.
const DIFFERENTIAL_PIECES: [(u64, u32, u32, usize); 3] =
    [(101, 4, 5, 2), (119, 5, 4, 3), (109, 8, 8, 5)];

/// Perft depth and playout length of the differential check.
const DIFFERENTIAL_DEPTH: &str = "3";
const DIFFERENTIAL_STEPS: &str = "300";

/// Writes the crate of `kif` compiled with `strategy` to `dir`, under the
/// package name `package`.
fn compile_crate(kif: &std::path::Path, dir: &std::path::Path, strategy: &str, package: &str) {
    let runtime = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let run = gdlc(&[
        kif.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--strategy",
        strategy,
        "--runtime-path",
        runtime.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}: {}", kif.display(), run.stderr);
    let toml_path = dir.join("Cargo.toml");
    let toml: String = std::fs::read_to_string(&toml_path)
        .unwrap()
        .lines()
        .map(|l| match l.starts_with("name = ") {
            true => format!("name = {package:?}\n"),
            false => format!("{l}\n"),
        })
        .collect();
    std::fs::write(toml_path, toml).unwrap();
}

/// Builds one binary that runs every crate of `crates` (name, package, dir)
/// as `BINARY NAME ARGS...`.
fn build_dispatcher(work: &std::path::Path, crates: &[(String, String, std::path::PathBuf)]) {
    use std::fmt::Write as _;
    let runtime = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let mut toml = format!(
        "[package]\nname = \"boardgame-differential\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\ngdl-runtime = {{ path = {:?} }}\n",
        runtime.display().to_string()
    );
    let mut main = String::from(
        "fn main() -> std::process::ExitCode {\n    let mut args = std::env::args().skip(1);\n    let game = args.next().unwrap_or_default();\n    match game.as_str() {\n",
    );
    for (i, (name, package, dir)) in crates.iter().enumerate() {
        let dir = dir.display().to_string();
        writeln!(toml, "g{i} = {{ path = {dir:?}, package = {package:?} }}").unwrap();
        writeln!(
            main,
            "        {name:?} => gdl_runtime::cli::run(g{i}::Game::new(), {name:?}, args),"
        )
        .unwrap();
    }
    main.push_str("        _ => std::process::ExitCode::from(2),\n    }\n}\n");
    toml.push_str("\n[profile.release]\nopt-level = 1\ndebug = false\n\n[workspace]\n");
    let bin = work.join("dispatcher");
    std::fs::create_dir_all(bin.join("src")).unwrap();
    std::fs::write(bin.join("Cargo.toml"), toml).unwrap();
    std::fs::write(bin.join("src/main.rs"), main).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["build", "--release"])
        .current_dir(&bin)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A trace printed as JSON by `command`.
fn trace_of(command: &mut std::process::Command) -> serde_json::Value {
    let output = command.output().expect("run the trace");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{command:?}: {stderr}");
    serde_json::from_slice(&output.stdout).expect("a JSON trace")
}

#[test]
#[ignore = "builds twenty-two crates; run it with --ignored"]
fn generated_games_agree_across_the_interpreter_and_both_strategies() {
    if common::cargo().is_none() {
        return;
    }
    let work = common::target_dir().join("boardgame-differential");
    let mut crates = Vec::new();
    let mut games = Vec::new();
    let board = DIFFERENTIAL.map(|(s, w, h, k)| (s, w, h, k, Encoding::Board));
    let pieces = DIFFERENTIAL_PIECES.map(|(s, w, h, k)| (s, w, h, k, Encoding::PiecePositions));
    for (seed, w, h, k, encoding) in board.into_iter().chain(pieces) {
        let suffix = match encoding {
            Encoding::Board => "",
            Encoding::PiecePositions => "-pieces",
        };
        let name = format!("bg{seed}-{w}x{h}-{k}{suffix}");
        let kif = work.join("games").join(format!("{name}.kif"));
        std::fs::create_dir_all(kif.parent().unwrap()).unwrap();
        std::fs::write(
            &kif,
            description(seed, &options(w, h, k), encoding).unwrap(),
        )
        .unwrap();
        let explain = gdlc(&["explain", kif.to_str().unwrap(), "--strategy", "ground"]);
        let ground = explain.stdout.contains("backend: ground");
        assert!(ground || games.len() >= 10, "{name} is not ground");
        let strategies: &[&str] = match ground {
            true => &["ground", "relational", "demand"],
            false => &["relational", "demand"],
        };
        for strategy in strategies {
            let key = format!("{name}-{strategy}");
            let dir = work.join("crates").join(&key);
            compile_crate(&kif, &dir, strategy, &format!("boardgame-{key}"));
            crates.push((key, format!("boardgame-{name}-{strategy}"), dir));
        }
        games.push((name, kif, ground));
    }
    build_dispatcher(&work, &crates);
    let binary = work.join("target/release/boardgame-differential");
    let args = [
        "trace",
        "--depth",
        DIFFERENTIAL_DEPTH,
        "--seconds",
        "120",
        "--max-steps",
        DIFFERENTIAL_STEPS,
    ];
    let mut disagreements = Vec::new();
    for (name, kif, ground) in &games {
        let interpreted = trace_of(
            std::process::Command::new(common::gdlc_binary())
                .arg("trace")
                .arg(kif)
                .args(&args[1..]),
        );
        let depth = interpreted["perft"].as_array().map_or(0, Vec::len) - 1;
        let strategies: &[&str] = match ground {
            true => &["ground", "relational", "demand"],
            false => &["relational", "demand"],
        };
        for strategy in strategies {
            let compiled = trace_of(
                std::process::Command::new(&binary)
                    .arg(format!("{name}-{strategy}"))
                    .args(args),
            );
            let diffs = gdlc::conformance::compare(&compiled, &interpreted);
            println!(
                "{name} ({strategy}): perft depth {depth}, {} playout steps: {}",
                interpreted["playouts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| p["steps"].as_array().map_or(0, Vec::len))
                    .sum::<usize>(),
                if diffs.is_empty() {
                    "agrees"
                } else {
                    "DIFFERS"
                }
            );
            if !diffs.is_empty() {
                disagreements.push(format!(
                    "{} ({strategy}): {}",
                    kif.display(),
                    diffs.join("; ")
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "compiled and interpreted differ:\n{}",
        disagreements.join("\n")
    );
}
