//! The golden-output test: every generated file of a fixed set of games,
//! under every strategy, hashed and compared with the checked-in list
//! `tests/golden/generated.txt`.
//!
//! Any change to generated code shows up as a diff of that list, to be
//! reviewed with the change; a pure refactoring changes no line. Rewrite the
//! list with `GDLC_BLESS=1 cargo test -p gdlc --test integration golden::`.
//!
//! The games: every game of the project's `games/` and `games/gdl-ii/`,
//! and, when `../shared` is beside the checkout, the corpus games named in
//! `CORPUS` (big boards, recursive helpers, simultaneous moves, many roles,
//! and descriptions the compiler refuses). Without `../shared` the corpus lines are not checked
//! (a message says so).

use gdlc::compile::Strategy;
use gdlc::output::{crate_files, package_name, Runtime};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The corpus games of `../shared/games` in the list.
const CORPUS: &[&str] = &[
    "3pConnectFour",
    "amazons",
    "amazons_10x10",
    "blocker",
    "blocksWorld",
    "brawl",
    "breakthrough",
    "checkers",
    "chess",
    "chineseCheckers4",
    "connect5",
    "connectFour",
    "connectFourSimultaneous",
    "dotsAndBoxes",
    "englishDraughts",
    "hanoi",
    "hex",
    "knightsTour",
    "knightThrough",
    "laikLee_hex",
    "linesOfAction",
    "mummymaze2p",
    "nineBoardTicTacToe",
    "pancakes88",
    "pentago",
    "quarto",
    "reversi",
    "ruleDepthLinear",
    "sheepAndWolf",
    "skirmish",
    "snake_2009",
    "speedChess",
    "sudoku",
    "ticTacToe",
    "tictactoe_3d_6player",
    "wallmaze",
];

/// Every strategy, by the name `--strategy` takes.
const STRATEGIES: [(&str, Strategy); 4] = [
    ("auto", Strategy::Auto),
    ("ground", Strategy::Ground),
    ("relational", Strategy::Relational),
    ("demand", Strategy::Demand),
];

/// The runtime path written into every generated `Cargo.toml`: a fixed one,
/// so that the hashes do not depend on where the checkout is.
const RUNTIME: &str = "/gdl-runtime";

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden_path(set: &str) -> PathBuf {
    manifest_dir().join(format!("tests/golden/{set}.txt"))
}

/// The lines of one game under one strategy: `GAME STRATEGY FILE SHA256`
/// per generated file, or `GAME STRATEGY refused SHA256` of the error.
fn game_lines(label: &str, path: &Path) -> Vec<String> {
    let loaded = gdlc::load_path(path).unwrap_or_else(|e| panic!("{label} does not load: {e}"));
    let stem = path.file_stem().unwrap().to_string_lossy();
    let package = package_name(&stem);
    let mut lines = Vec::new();
    for (name, strategy) in STRATEGIES {
        match crate_files(
            &loaded,
            &package,
            &stem,
            Runtime::At(Path::new(RUNTIME)),
            strategy,
        ) {
            Ok(files) => {
                for (file, content) in &files.files {
                    lines.push(format!("{label} {name} {file} {}", sha256(content)));
                }
            }
            Err(e) => lines.push(format!(
                "{label} {name} refused {}",
                sha256(e.to_string().as_bytes())
            )),
        }
    }
    lines
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Hashes the games on every core, the largest descriptions first (so no
/// core is left with a big game at the end), in a fixed order of lines.
fn all_lines(games: Vec<(String, PathBuf)>) -> String {
    let mut queue: Vec<_> = games.into_iter().enumerate().collect();
    queue.sort_by_key(|(_, (_, path))| std::fs::metadata(path).map_or(0, |m| m.len()));
    let queue = Mutex::new(queue);
    let done = Mutex::new(BTreeMap::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some((i, (label, path))) = queue.lock().unwrap().pop() else {
                    break;
                };
                let lines = game_lines(&label, &path);
                done.lock().unwrap().insert(i, lines);
            });
        }
    });
    let done = done.into_inner().unwrap();
    done.into_values().flatten().map(|l| l + "\n").collect()
}

/// Compares `actual` with the checked-in list `set`, or rewrites the list
/// when `GDLC_BLESS` is set.
fn check(set: &str, actual: &str) {
    let path = golden_path(set);
    if std::env::var_os("GDLC_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        eprintln!("rewrote {}", path.display());
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected == actual {
        return;
    }
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let mut diff = String::new();
    for l in old.iter().filter(|l| !new.contains(l)) {
        diff += &format!("- {l}\n");
    }
    for l in new.iter().filter(|l| !old.contains(l)) {
        diff += &format!("+ {l}\n");
    }
    panic!(
        "generated code differs from {} (review, then rewrite it with GDLC_BLESS=1):\n{diff}",
        path.display()
    );
}

#[test]
fn the_project_games_generate_the_golden_bytes() {
    let mut games: Vec<(String, PathBuf)> = ["games", "games/gdl-ii"]
        .iter()
        .flat_map(|folder| {
            let dir = manifest_dir().join("..").join(folder);
            std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "kif"))
                .map(move |p| {
                    let name = p.file_name().unwrap().to_string_lossy();
                    (format!("{folder}/{name}"), p)
                })
        })
        .collect();
    games.sort();
    assert!(games.len() >= 6, "games/ holds {} games", games.len());
    check("games", &all_lines(games));
}

#[test]
fn the_corpus_games_generate_the_golden_bytes() {
    let dir = manifest_dir().join("../../shared/games");
    if !dir.is_dir() {
        eprintln!(
            "skipped: {} is absent (the corpus lines are not checked)",
            dir.display()
        );
        return;
    }
    let games = CORPUS
        .iter()
        .map(|g| (format!("corpus/{g}.kif"), dir.join(format!("{g}.kif"))))
        .collect();
    check("corpus", &all_lines(games));
}
