//! The random generator of the paper's section III-A: building blocks of
//! moves per class (short words with modifiers: mirrors, rotations, a star
//! on a letter), piece types drawing their moves from their class's blocks,
//! a quarter of the position generated and mirrored (with a chance of
//! change), winning conditions drawn by type and kind, and a turn limit;
//! a game in which a player cannot move at the start is drawn again.
//! Seeded: the same seed and options give the same game.

use super::moves::moves;
use super::regex::{Letter, On, Regex};
use super::spec::{Boardgame, BoardgameError, Class, PieceType, Placed, Side, WinCondition};
use super::spec::{PIECES_RANGE, SIDE_RANGE};
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Piece types.
    pub pieces: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            width: 8,
            height: 8,
            pieces: 5,
        }
    }
}

/// Building blocks generated per class.
const BLOCKS_PER_CLASS: usize = 6;

/// The random source: xoshiro256++ with integer draws only, so a seed gives
/// the same game on every platform.
struct Random(Xoshiro256PlusPlus);

impl Random {
    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        ((u64::from(self.0.next_u32()) * n as u64) >> 32) as usize
    }

    /// True with probability `p` percent.
    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as usize) as i32
    }
}

/// Generates the board game of `seed`.
pub fn generate(seed: u64, options: &Options) -> Result<Boardgame, BoardgameError> {
    let heights = 4..=*SIDE_RANGE.end();
    for (what, side, range) in [
        ("width", options.width, SIDE_RANGE),
        ("height", options.height, heights),
    ] {
        if !range.contains(&side) {
            return Err(BoardgameError(format!(
                "the board's {what} must be {} to {}, not {side}",
                range.start(),
                range.end()
            )));
        }
    }
    if !PIECES_RANGE.contains(&options.pieces) {
        return Err(BoardgameError(format!(
            "the number of piece types must be {} to {}, not {}",
            PIECES_RANGE.start(),
            PIECES_RANGE.end(),
            options.pieces
        )));
    }
    let mut rng = Random(Xoshiro256PlusPlus::seed_from_u64(seed));
    let mut game = draw(&mut rng, options);
    for _ in 1..ATTEMPTS {
        if playable(&game) {
            break;
        }
        game = draw(&mut rng, options);
    }
    game.validate()?;
    Ok(game)
}

/// Games drawn for one seed, at most, until one is [`playable`].
const ATTEMPTS: usize = 50;

/// Whether both players can move in the initial position (the paper
/// removes unplayable games).
fn playable(game: &Boardgame) -> bool {
    [Side::White, Side::Black]
        .iter()
        .all(|&side| !moves(game, &game.initial, side).is_empty())
}

/// One game drawn from `rng`.
fn draw(rng: &mut Random, options: &Options) -> Boardgame {
    let classes = [Class::Weak, Class::Light, Class::Strong];
    let blocks: Vec<Vec<Regex>> = classes
        .iter()
        .map(|&c| (0..BLOCKS_PER_CLASS).map(|_| block(rng, c)).collect())
        .collect();
    let pieces = piece_types(rng, options.pieces, &blocks);
    let initial = position(rng, options, &pieces);
    let mut game = Boardgame {
        width: options.width,
        height: options.height,
        pieces,
        initial,
        conditions: Vec::new(),
        turn_limit: 40 + 10 * rng.below(5) as u32,
    };
    game.conditions = conditions(rng, &game);
    game
}

/// The piece types: the first weak (the front line), the others drawn,
/// each with one to three blocks of its class.
fn piece_types(rng: &mut Random, count: usize, blocks: &[Vec<Regex>]) -> Vec<PieceType> {
    (0..count)
        .map(|i| {
            let class = match (i, rng.below(10)) {
                (0, _) | (_, 0) => Class::Weak,
                (_, 1..=5) => Class::Light,
                _ => Class::Strong,
            };
            let pool = &blocks[class as usize];
            let mut chosen: Vec<usize> = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let b = rng.below(pool.len());
                if !chosen.contains(&b) {
                    chosen.push(b);
                }
            }
            chosen.sort();
            let mut parts: Vec<Regex> = chosen.iter().map(|&b| pool[b].clone()).collect();
            let moves = if parts.len() == 1 {
                parts.pop().unwrap()
            } else {
                Regex::Alt(parts)
            };
            let stem = match class {
                Class::Weak => "pawn",
                Class::Light => "leaper",
                Class::Strong => "rider",
            };
            PieceType {
                name: format!("{stem}{}", i + 1),
                class,
                moves,
            }
        })
        .collect()
}

/// The chances (in percent) behind a class's building blocks.
struct BlockShape {
    /// The largest `|dx|` and `|dy|` of a letter.
    reach: i32,
    /// Of a word of two letters rather than one.
    two_letters: usize,
    /// Of a star on one of the letters.
    star: usize,
    /// Of a last letter onto an empty square also capturing.
    capture: usize,
    /// Of the mirror images (left-right, forward-back) and the rotations.
    mirror_x: usize,
    mirror_y: usize,
    rotate: usize,
}

impl BlockShape {
    fn of(class: Class) -> BlockShape {
        let [reach, two_letters, star, capture, mirror_x, mirror_y, rotate] = match class {
            Class::Weak => [1, 20, 5, 40, 60, 5, 0],
            Class::Light => [2, 25, 10, 70, 60, 40, 40],
            Class::Strong => [1, 30, 100, 80, 60, 50, 50],
        };
        BlockShape {
            reach: reach as i32,
            two_letters,
            star,
            capture,
            mirror_x,
            mirror_y,
            rotate,
        }
    }
}

/// A random letter of `class`; a `last` letter lands on a piece more often.
fn random_letter(rng: &mut Random, class: Class, reach: i32, last: bool) -> Letter {
    loop {
        let dx = rng.between(-reach, reach);
        let dy = match class {
            Class::Weak if rng.percent(80) => 1,
            Class::Weak => rng.between(0, 1),
            _ => rng.between(-reach, reach),
        };
        let on = match (rng.below(100), last) {
            (0..=4, _) => On::Own,
            (5..=14, false) | (5..=39, true) => On::Opponent,
            _ => On::Empty,
        };
        if (dx, dy) != (0, 0) {
            return Letter::new(dx, dy, on);
        }
    }
}

/// A building block of `class`: a short word with modifiers, as an
/// alternation of the words the modifiers make.
fn block(rng: &mut Random, class: Class) -> Regex {
    let shape = BlockShape::of(class);
    let rider = class == Class::Strong && rng.percent(80);
    let word: Vec<Letter> = if rider {
        // Along one direction over empty squares, then one more square.
        let last = random_letter(rng, class, shape.reach, true);
        vec![Letter::new(last.dx, last.dy, On::Empty), last]
    } else {
        let n = if rng.percent(shape.two_letters) { 2 } else { 1 };
        (0..n)
            .map(|i| random_letter(rng, class, shape.reach, i == n - 1))
            .collect()
    };
    let starred = match rider {
        true => Some(0),
        false => rng.percent(shape.star).then(|| rng.below(word.len())),
    };
    let capture_too = rng.percent(shape.capture) && word.last().unwrap().on == On::Empty;
    let alternatives: Vec<Regex> = modified(rng, &shape, word)
        .iter()
        .map(|w| word_regex(w, starred, capture_too))
        .collect();
    match alternatives.len() {
        1 => alternatives.into_iter().next().unwrap(),
        _ => Regex::Alt(alternatives),
    }
}

/// The word and the images the drawn modifiers add: mirrored left-right,
/// forward-back, rotated by quarter turns.
fn modified(rng: &mut Random, shape: &BlockShape, word: Vec<Letter>) -> Vec<Vec<Letter>> {
    let mut words = vec![word.clone()];
    if rng.percent(shape.mirror_x) {
        let images: Vec<_> = words.iter().map(|w| map(w, |l| (-l.dx, l.dy))).collect();
        words.extend(images);
    }
    if rng.percent(shape.mirror_y) {
        let images: Vec<_> = words.iter().map(|w| map(w, |l| (l.dx, -l.dy))).collect();
        words.extend(images);
    }
    if rng.percent(shape.rotate) {
        let mut turned = word;
        for _ in 0..3 {
            turned = map(&turned, |l| (-l.dy, l.dx));
            words.push(turned.clone());
        }
    }
    words.sort();
    words.dedup();
    words
}

/// `word` with each letter's displacement changed by `f`.
fn map(word: &[Letter], f: impl Fn(&Letter) -> (i32, i32)) -> Vec<Letter> {
    word.iter()
        .map(|l| {
            let (dx, dy) = f(l);
            Letter::new(dx, dy, l.on)
        })
        .collect()
}

/// One word as an expression: the letter `starred` under a star, the last
/// letter also capturing when `capture_too`.
fn word_regex(word: &[Letter], starred: Option<usize>, capture_too: bool) -> Regex {
    let parts: Vec<Regex> = word
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            let mut r = Regex::Letter(l);
            if i + 1 == word.len() && capture_too {
                r = Regex::Alt(vec![
                    r,
                    Regex::Letter(Letter::new(l.dx, l.dy, On::Opponent)),
                ]);
            }
            if starred == Some(i) {
                r = Regex::Star(Box::new(r));
            }
            r
        })
        .collect();
    match parts.len() {
        1 => parts.into_iter().next().unwrap(),
        _ => Regex::Concat(parts),
    }
}

/// A random type of `class` (any type when none has that class).
fn type_of(rng: &mut Random, pieces: &[PieceType], class: Class) -> usize {
    let of: Vec<usize> = (0..pieces.len())
        .filter(|&t| pieces[t].class == class)
        .collect();
    match of.len() {
        0 => rng.below(pieces.len()),
        n => of[rng.below(n)],
    }
}

/// The initial position: white's left quarter drawn (weak pieces in front,
/// strong ones more likely further back), mirrored to the right half and
/// then to black, each copy with a chance of another type of the same class.
fn position(rng: &mut Random, options: &Options, pieces: &[PieceType]) -> Vec<Placed> {
    let rows = (options.height / 3).clamp(1, 3);
    let half = options.width.div_ceil(2);
    let mut white = Vec::new();
    for y in 1..=rows {
        for x in 1..=half {
            let behind = (rows - y) as usize;
            let class = if y == rows {
                if rng.percent(85) {
                    Class::Weak
                } else {
                    Class::Light
                }
            } else if rng.percent(10) {
                continue;
            } else if rng.percent(25 + 50 * behind / rows as usize) {
                Class::Strong
            } else {
                Class::Light
            };
            let piece = type_of(rng, pieces, class);
            white.push(Placed {
                x,
                y,
                side: Side::White,
                piece,
            });
        }
    }
    let mut copy = |p: Placed, x: u32, y: u32, side: Side, change: usize| {
        let mut piece = p.piece;
        if rng.percent(change) {
            piece = type_of(rng, pieces, pieces[piece].class);
        }
        Placed { x, y, side, piece }
    };
    for p in white.clone() {
        let x = options.width + 1 - p.x;
        if x != p.x {
            white.push(copy(p, x, p.y, Side::White, 20));
        }
    }
    white.sort_by_key(|p| (p.y, p.x));
    let mut all = white.clone();
    for p in white {
        all.push(copy(p, p.x, options.height + 1 - p.y, Side::Black, 10));
    }
    all
}

/// One or two winning conditions over the types both players have.
fn conditions(rng: &mut Random, game: &Boardgame) -> Vec<WinCondition> {
    let both: Vec<usize> = (0..game.pieces.len())
        .filter(|&t| game.has_initially(Side::White, t) && game.has_initially(Side::Black, t))
        .collect();
    let mut out = Vec::new();
    if both.is_empty() {
        return out;
    }
    for _ in 0..if rng.percent(30) { 2 } else { 1 } {
        let t = both[rng.below(both.len())];
        let c = if rng.percent(55) {
            WinCondition::Capture(t)
        } else {
            WinCondition::Reach(t)
        };
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}
