//! Frame rules as edits. Chess's
//!
//! ```text
//! (<= (next (cell ?x ?y ?p)) (does ?player (move ?piece ?x1 ?y1 ?x2 ?y2))
//!     (true (cell ?x ?y ?p))
//!     (different_cells ?x ?y ?x1 ?y1) (different_cells ?x ?y ?x2 ?y2))
//! ```
//!
//! keeps every cell but the two the move touches. Planned, it walks the
//! state's 64 cells and tests both static literals on each. As an edit,
//! the cells' words are copied into the next state at once, less the
//! fluents the tests exclude for the move's squares: for each test, a
//! table keyed on the variables bound before the walk lists the fluents
//! of the walk that fail it (the 13 contents of the square `?x1 ?y1`).
//!
//! A plan qualifies when its head is streamed into the next state, one of
//! its steps walks every fluent of a table in id order (no key, stride
//! one) whose pattern is the head's, and every later step is a positive
//! test of a static relation whose variables are bound, excluding at most
//! [`MAX_EXCLUDED`] fluents in all for any binding of the earlier steps.

use crate::compile::program::Program;
use crate::compile::relational::plan::{RulePlan, Step, Tables};
use gdl_runtime::support::TESTS_END;
use rustc_hash::FxHashSet;

/// Most fluents the tests may exclude together for one binding (their
/// flags fit one word at run time).
pub const MAX_EXCLUDED: usize = 64;

/// A frame rule's copy of the state's fluents (see the module's
/// documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameCopy {
    /// The step walking the fluents copied.
    pub step: usize,
    /// Its table (every row's fluent is the first row's plus its index).
    pub table: usize,
    /// Per later test, the fluents it excludes.
    pub excluded: Vec<Excluded>,
}

/// The fluents one test excludes, per binding of the variables it reads
/// that are bound before the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excluded {
    /// Those variables.
    pub key: Vec<usize>,
    /// Per value of the key for which some fluent passes: the key's ids,
    /// then the excluded fluents' ids, padded with [`TESTS_END`] to
    /// [`Excluded::width`]. A key without a row excludes every fluent.
    pub rows: Vec<Vec<u32>>,
    /// The most fluents excluded for one key.
    pub width: usize,
}

/// The copy that plan `plan` is, when its head is streamed into the next
/// state (`next_bits`) and it qualifies (see the module's documentation).
pub fn frame_copy(
    program: &Program,
    plan: &RulePlan,
    tables: &Tables,
    next_bits: bool,
) -> Option<FrameCopy> {
    if !next_bits {
        return None;
    }
    let step = copied_step(program, plan)?;
    let Step::Table { table, bind, .. } = &plan.steps[step] else {
        unreachable!("found above")
    };
    if tables.walk_stride(*table, 0) != Some(1) {
        return None;
    }
    let mut excluded = Vec::new();
    for later in &plan.steps[step + 1..] {
        let Step::Table {
            table: test,
            key,
            bind: none,
            fluent: false,
            negated: false,
            ..
        } = later
        else {
            return None;
        };
        if !none.is_empty() {
            return None;
        }
        excluded.push(excluded_by(tables, *table, bind, *test, key)?);
    }
    let total: usize = excluded.iter().map(|e| e.width).sum();
    (total <= MAX_EXCLUDED).then_some(FrameCopy {
        step,
        table: *table,
        excluded,
    })
}

/// The step of `plan` that could walk the fluents a frame copy copies:
/// the first over every fluent of a table (no key) whose pattern is the
/// head's. A cheap first test before [`frame_copy`].
pub fn copied_step(program: &Program, plan: &RulePlan) -> Option<usize> {
    let head = &program.rules[plan.rule].head;
    plan.steps.iter().position(|s| {
        matches!(s, Step::Table { fluent: true, negated: false, key, term: Some(t), .. }
            if key.is_empty() && head.args.first() == Some(t))
    })
}

/// The fluents of table `walked` (whose columns are the variables `bind`,
/// then the fluent) that static test `test` (columns: the variables
/// `key`) excludes, per value of its variables not in `bind`.
fn excluded_by(
    tables: &Tables,
    walked: usize,
    bind: &[usize],
    test: usize,
    key: &[usize],
) -> Option<Excluded> {
    let outer: Vec<usize> = (0..key.len())
        .filter(|&c| !bind.contains(&key[c]))
        .collect();
    if outer.is_empty() {
        return None;
    }
    let facts = &tables.tables[test].rows;
    let holds: FxHashSet<&[u32]> = facts.iter().map(Vec::as_slice).collect();
    let mut values: Vec<Vec<u32>> = facts
        .iter()
        .map(|f| outer.iter().map(|&c| f[c]).collect())
        .collect();
    values.sort_unstable();
    values.dedup();
    let walked_rows = &tables.tables[walked].rows;
    let mut rows = Vec::with_capacity(values.len());
    let mut width = 0;
    for value in values {
        let mut fact = vec![0; key.len()];
        let mut out: Vec<u32> = Vec::new();
        for row in walked_rows {
            for (c, &v) in key.iter().enumerate() {
                fact[c] = match bind.iter().position(|&b| b == v) {
                    Some(j) => row[j],
                    None => value[outer.iter().position(|&o| o == c).expect("outer")],
                };
            }
            if !holds.contains(fact.as_slice()) {
                out.push(*row.last().expect("the fluent column"));
            }
        }
        if out.len() > MAX_EXCLUDED {
            return None;
        }
        width = width.max(out.len());
        rows.push((value, out));
    }
    let rows = (rows.into_iter())
        .map(|(mut row, mut out)| {
            out.resize(width, TESTS_END);
            row.extend(out);
            row
        })
        .collect();
    Some(Excluded {
        key: outer.iter().map(|&c| key[c]).collect(),
        rows,
        width,
    })
}

#[cfg(test)]
mod tests {
    use super::frame_copy;
    use crate::compile::relational::containers::Container;
    use crate::compile::{analyze_with, generate_with, generated_code, Strategy};

    /// Four cells, blank (`b`) or marked (`x`); marking `?m` keeps every
    /// other cell (`other`, a static relation: `?n` is not `?m`), with
    /// `frame` the body of the frame rule after its `does`.
    fn game(frame: &str) -> String {
        let mut kif = String::from("(role a)\n");
        for i in 1..=4 {
            kif.push_str(&format!("(init (cell {i} b))\n"));
            for j in (1..=4).filter(|&j| j != i) {
                kif.push_str(&format!("(other {i} {j})\n"));
            }
        }
        kif.push_str(&format!(
            "(<= (legal a (mark ?m)) (true (cell ?m b)))\n\
             (<= (next (cell ?m x)) (does a (mark ?m)))\n\
             (<= (next (cell ?n ?c)) (does a (mark ?m)) {frame})\n\
             (<= terminal (not (true (cell 1 b))))\n(goal a 100)\n"
        ));
        kif
    }

    const FRAME: &str = "(true (cell ?n ?c)) (other ?n ?m)";

    #[test]
    fn a_frame_rule_is_a_copy_less_the_cells_of_the_moves_square() {
        let loaded = crate::load_bytes("t.kif".into(), game(FRAME).into()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let relational = c.relational().expect("relation by relation");
        let id = |text: &str| {
            c.domains
                .texts
                .iter()
                .position(|t| t == text)
                .expect("a term") as u32
        };
        let copies: Vec<_> = (relational.plans.iter())
            .filter_map(|plan| {
                let head = c.program.rules[plan.rule].head.rel;
                let next_bits = relational.containers[head] == Container::NextBits;
                frame_copy(&c.program, plan, &relational.tables, next_bits)
            })
            .collect();
        assert_eq!(copies.len(), 1, "only the frame rule copies");
        let excluded = &copies[0].excluded;
        assert_eq!(excluded.len(), 1);
        // Per marked square, its two possible fluents are excluded.
        assert_eq!((excluded[0].rows.len(), excluded[0].width), (4, 2));
        let row = (excluded[0].rows.iter())
            .find(|r| r[0] == id("2"))
            .expect("square 2");
        let mut dropped = row[1..].to_vec();
        dropped.sort();
        let mut cell2 = vec![id("(cell 2 b)"), id("(cell 2 x)")];
        cell2.sort();
        assert_eq!(dropped, cell2);
        let code = generate_with(&loaded, Strategy::Relational, "t.bin").expect("compiles");
        assert_eq!(code.code.matches("copy_fluents_except(").count(), 1);
    }

    #[test]
    fn a_frame_rule_testing_anything_but_static_facts_after_the_walk_is_planned() {
        let code = |frame: &str| generated_code(&game(frame), Strategy::Relational);
        assert!(code(FRAME).contains("copy_fluents_except("));
        // `distinct` is no table: the rule keeps its loop over the cells.
        let distinct = code("(true (cell ?n ?c)) (distinct ?n ?m)");
        assert!(!distinct.contains("copy_fluents_except("));
    }
}
