//! The moves of a position computed from the board game itself, without
//! GDL: the generator uses them to reject a game in which a player cannot
//! move at the start (the paper removes unplayable games), and the tests
//! compare them with the legal moves of the translated description.

use super::regex::{Atom, Letter, On};
use super::spec::{Boardgame, Placed, Side};
use std::collections::{BTreeMap, BTreeSet};

/// A move: from `(x0, y0)` to `(x, y)`.
pub type Move = (u32, u32, u32, u32);

/// The moves of `side` in `position` (pieces of `game`'s types): every
/// square a piece reaches by a word of its expression, the content of each
/// square passed as the letters require, the piece's own start square not
/// a destination.
pub fn moves(game: &Boardgame, position: &[Placed], side: Side) -> BTreeSet<Move> {
    let board: BTreeMap<(i32, i32), Side> = position
        .iter()
        .map(|p| ((p.x as i32, p.y as i32), p.side))
        .collect();
    let step = |(x, y): (i32, i32), l: &Letter| -> Option<(i32, i32)> {
        let forward = if side == Side::White { l.dy } else { -l.dy };
        let to = (x + l.dx, y + forward);
        let on_board =
            (1..=game.width as i32).contains(&to.0) && (1..=game.height as i32).contains(&to.1);
        let content = match board.get(&to) {
            None => On::Empty,
            Some(&s) if s == side => On::Own,
            Some(_) => On::Opponent,
        };
        (on_board && content == l.on).then_some(to)
    };
    let walk = |from: (i32, i32), word: &[Letter]| word.iter().try_fold(from, &step);
    let mut out = BTreeSet::new();
    for p in position.iter().filter(|p| p.side == side) {
        let start = (p.x as i32, p.y as i32);
        for sequence in game.pieces[p.piece].moves.sequences().unwrap_or_default() {
            let mut reached = BTreeSet::from([start]);
            for atom in &sequence {
                reached = match atom {
                    Atom::Step(l) => reached.iter().filter_map(|&s| step(s, l)).collect(),
                    Atom::Star(words) => {
                        let mut all = reached.clone();
                        let mut frontier: Vec<_> = reached.into_iter().collect();
                        while let Some(s) = frontier.pop() {
                            for t in words.iter().filter_map(|w| walk(s, w)) {
                                if all.insert(t) {
                                    frontier.push(t);
                                }
                            }
                        }
                        all
                    }
                };
            }
            if sequence.is_empty() {
                continue;
            }
            for (x, y) in reached.into_iter().filter(|&t| t != start) {
                out.insert((p.x, p.y, x as u32, y as u32));
            }
        }
    }
    out
}
