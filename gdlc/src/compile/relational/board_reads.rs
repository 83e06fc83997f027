//! Which plan steps read a square of a board
//! ([`crate::compile::analyse::boards`]): a `true` literal of a board's
//! fluent whose coordinates are bound before it or constant, and whose
//! content is a constant, bound, or the step's only binding. Such a step
//! is one load of the square's word instead of the fluents' rows found by
//! key and their bits tested one by one.

use super::plan::Step;
use crate::compile::analyse::boards::Boards;
use crate::compile::program::Pat;

/// A plan step that reads a square of a board.
pub struct BoardRead<'s> {
    /// The board.
    pub board: usize,
    /// The coordinates, in argument order: constants or bound variables.
    pub coordinates: Vec<&'s Pat>,
    /// The content: a constant, a bound variable, or the variable the
    /// step binds.
    pub content: &'s Pat,
    /// Whether the step binds the content (a loop over the square's
    /// contents) rather than tests it.
    pub binds: bool,
}

/// The board read that `step` is, if it is one.
pub fn board_read<'s>(boards: &Boards, step: &'s Step) -> Option<BoardRead<'s>> {
    let Step::Table {
        key,
        bind,
        fluent: true,
        negated,
        term: Some(Pat::Func(symbol, args)),
        fused: 1,
        ..
    } = step
    else {
        return None;
    };
    let (b, board) = (boards.boards.iter().enumerate())
        .find(|(_, b)| b.symbol == *symbol && b.arity == args.len() && b.lookup.is_some())?;
    let known = |p: &Pat| match p {
        Pat::Ground(_) => true,
        Pat::Var(v) => key.contains(v),
        Pat::Func(..) => false,
    };
    let coordinates: Vec<&Pat> = (args.iter().enumerate())
        .filter(|&(k, _)| k != board.content)
        .map(|(_, a)| a)
        .collect();
    if !coordinates.iter().all(|a| known(a)) {
        return None;
    }
    let content = &args[board.content];
    let binds = match content {
        _ if known(content) => false,
        Pat::Var(v) if !*negated && bind == &[*v] => true,
        _ => return None,
    };
    if !binds && !bind.is_empty() {
        return None;
    }
    Some(BoardRead {
        board: b,
        coordinates,
        content,
        binds,
    })
}
