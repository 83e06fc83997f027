//! The analyses' part of `gdlc explain`: the sorts of the argument
//! positions and the boards among the fluents.

use super::relation_name;
use crate::compile::analyse::sorts::{self, Position, Sort};
use crate::compile::compiled::Compiled;
use crate::compile::demand::rays::ray_table;
use crate::compile::program::Program;
use crate::compile::relational::board_reads::board_read;
use crate::compile::relational::Relational;
use std::fmt::Write as _;

/// The sorts of more than one position or with an order: each one's
/// values (the first few), the relations that order it, its positions.
pub(super) fn sorts(out: &mut String, c: &Compiled) {
    let p = &c.program;
    let all = sorts::compute(p, &c.domains);
    let shown: Vec<&Sort> = (all.sorts.iter())
        .filter(|s| s.positions.len() > 1 || !s.orders.is_empty())
        .collect();
    let _ = writeln!(
        out,
        "sorts: {} of the argument positions that exchange values ({} shown: more than one position, or ordered); each numbered from 0",
        all.sorts.len(),
        shown.len()
    );
    for (i, sort) in shown.iter().enumerate() {
        let texts = |values: &[u32]| -> String {
            let mut t: Vec<String> = values.iter().take(8).map(|&v| p.store.text(v)).collect();
            if values.len() > 8 {
                t.push("...".into());
            }
            t.join(" ")
        };
        let values = if sort.open {
            "terms built at run time".to_string()
        } else {
            format!("{} values ({})", sort.values.len(), texts(&sort.values))
        };
        let orders: Vec<String> = (sort.orders.iter())
            .map(|o| {
                let covered = o.chain.len();
                format!(
                    "ordered by {} ({covered} in a chain: {})",
                    relation_name(p, o.relation),
                    texts(&o.chain)
                )
            })
            .collect();
        let positions: Vec<String> = sort
            .positions
            .iter()
            .map(|&q| position_text(p, q))
            .collect();
        let _ = writeln!(out, "  sort {i}: {values}");
        for order in orders {
            let _ = writeln!(out, "    {order}");
        }
        let _ = writeln!(out, "    at {}", positions.join(", "));
    }
}

/// The boards: each one's fluents, contents and squares, and whether the
/// walks' ray tables and the plans read it.
pub(super) fn boards(out: &mut String, c: &Compiled, relational: &Relational) {
    let p = &c.program;
    let boards = &relational.boards.boards;
    if boards.is_empty() {
        return;
    }
    let walks = relational.top_down.walks.iter().flatten();
    let rays = walks.flat_map(|w| {
        let directions = [(true, w.forward), (false, w.backward)].into_iter();
        let taken = directions.filter(|&(_, taken)| taken);
        taken.filter_map(|(forward, _)| ray_table(p, &c.domains, &relational.boards, w, forward))
    });
    let read: Vec<usize> = rays
        .flat_map(|ray| ray.sections.into_iter().filter_map(|s| s.board))
        .collect();
    let _ = writeln!(
        out,
        "boards ({}: fluents numbered by square, each square's contents one word):",
        boards.len()
    );
    for (b, board) in boards.iter().enumerate() {
        let contents: Vec<String> = board.contents.iter().map(|&t| p.store.text(t)).collect();
        let sizes: Vec<String> = board.sizes.iter().map(usize::to_string).collect();
        let steps = (relational.plans.iter())
            .flat_map(|plan| &plan.steps)
            .filter(|step| board_read(&relational.boards, step).is_some_and(|r| r.board == b))
            .count();
        let use_ = match (read.contains(&b), steps) {
            (false, 0) => "not read".to_string(),
            (true, 0) => "read by the walks' ray tables".to_string(),
            (rays, n) => format!(
                "read by {}{n} plan step{} at a bound square",
                if rays {
                    "the walks' ray tables and "
                } else {
                    ""
                },
                if n == 1 { "" } else { "s" }
            ),
        };
        let _ = writeln!(
            out,
            "  board {b}: {}/{}, content at arg {} ({}), squares {} = {}; {use_}",
            p.store.symbol_name(board.symbol),
            board.arity,
            board.content + 1,
            contents.join(" "),
            sizes.join(" × "),
            board.squares(),
        );
    }
}

/// A position as `rel/2 arg 1` or `(cell/3) arg 1`, counted from 1.
fn position_text(p: &Program, position: Position) -> String {
    match position {
        Position::Arg(r, i) => format!("{} arg {}", relation_name(p, r), i + 1),
        Position::Field(f, n, j) => {
            format!("({}/{n}) arg {}", p.store.symbol_name(f), j + 1)
        }
    }
}
