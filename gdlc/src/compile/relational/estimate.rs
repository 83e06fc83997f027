//! The planner's estimates: how many rows a positive literal yields given
//! the variables bound so far (from the facts of a static relation, the
//! possible fluents of `true` and what is known of them, or the relaxed
//! facts of a derived relation), which orders the literals of a plan.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{matches, Atom, Lit, Pat, Program, Rule};
use crate::ir::terms::{SymId, TermData, TermId, TermStore};
use rustc_hash::FxHashSet;

/// The matches of one literal.
pub(super) struct Matched {
    /// The literal's variables ([`Atom::vars`]).
    pub(super) vars: Vec<usize>,
    /// Per match, the values of `vars`, then for `true` the fluent.
    pub(super) values: Vec<TermId>,
    /// Values per match: `vars`, and the fluent for `true`.
    pub(super) stride: usize,
    /// The number of matches.
    pub(super) count: usize,
}

impl Matched {
    /// The matches, each its values of `vars` (then the fluent).
    pub(super) fn rows(&self) -> impl Iterator<Item = &[TermId]> {
        (0..self.count).map(|i| &self.values[i * self.stride..(i + 1) * self.stride])
    }
}

/// What the estimate of a `true` literal knows of its fluents.
#[derive(Clone, Copy)]
pub(super) enum Fluent {
    /// The literal keeps the fluent of its rule's `next` head.
    Frame,
    /// No `next` rule of the fluent's symbol reads a fluent of that
    /// symbol, itself or through other relations: it holds only when the
    /// last joint move caused it.
    Transient,
    /// Anything else (or not a `true` literal).
    Other,
}

impl Fluent {
    /// The kind of literal `lit` of `rule`, given the symbols whose
    /// fluents some `next` rule keeps ([`kept_symbols`]).
    pub(super) fn of(
        program: &Program,
        rule: &Rule,
        lit: &Lit,
        kept: &FxHashSet<(SymId, usize)>,
    ) -> Fluent {
        let Lit::Pos(a) = lit else {
            return Fluent::Other;
        };
        if a.rel != program.true_rel {
            return Fluent::Other;
        }
        if program.answers[1].contains(&rule.head.rel) && a.args.first() == rule.head.args.first() {
            return Fluent::Frame;
        }
        match symbol(&program.store, &a.args[0]) {
            Some(s) if !kept.contains(&s) => Fluent::Transient,
            _ => Fluent::Other,
        }
    }
}

/// The symbol and arity of a pattern that is a constant or a compound term.
fn symbol(store: &TermStore, pat: &Pat) -> Option<(SymId, usize)> {
    match pat {
        Pat::Func(s, args) => Some((*s, args.len())),
        Pat::Ground(t) => match store.data(*t) {
            TermData::Func(s, args) => Some((*s, args.len())),
            TermData::Const(s) => Some((*s, 0)),
        },
        Pat::Var(_) => None,
    }
}

/// The symbols (with arities) of the fluents that some `next` rule keeps:
/// its body reads `true` of a fluent of its head's symbol, itself or
/// through the derived relations it reads (a frame rule, a counter, a
/// turn passed on, a board kept through a helper). A `next` head or a
/// `true` argument that is a variable could keep any symbol: then every
/// symbol of a `true` literal is kept.
pub(super) fn kept_symbols(program: &Program) -> FxHashSet<(SymId, usize)> {
    let Some(reads) = symbols_read(program) else {
        return true_symbols(program);
    };
    let mut kept = FxHashSet::default();
    let next_rules = (program.rules.iter()).filter(|r| program.answers[1].contains(&r.head.rel));
    for rule in next_rules {
        let Some(head) = rule
            .head
            .args
            .first()
            .and_then(|p| symbol(&program.store, p))
        else {
            return true_symbols(program);
        };
        let mut body = rule.body.iter().filter_map(|l| match l {
            Lit::Pos(a) | Lit::Neg(a) => Some(a),
            _ => None,
        });
        let read = |a: &Atom| match a.rel == program.true_rel {
            true => symbol(&program.store, &a.args[0]) == Some(head),
            false => reads[a.rel].contains(&head),
        };
        if body.any(read) {
            kept.insert(head);
        }
    }
    kept
}

/// Per relation, the symbols of the fluents its rules read, themselves or
/// through the relations they read; `None` when some `true` literal's
/// argument is a variable (it reads every symbol).
fn symbols_read(program: &Program) -> Option<Vec<FxHashSet<(SymId, usize)>>> {
    let mut reads = vec![FxHashSet::default(); program.relations.len()];
    loop {
        let mut grew = false;
        for rule in &program.rules {
            let mut found = Vec::new();
            for lit in &rule.body {
                let (Lit::Pos(a) | Lit::Neg(a)) = lit else {
                    continue;
                };
                if a.rel == program.true_rel {
                    found.push(symbol(&program.store, &a.args[0])?);
                } else {
                    found.extend(reads[a.rel].iter().copied());
                }
            }
            for s in found {
                grew |= reads[rule.head.rel].insert(s);
            }
        }
        if !grew {
            return Some(reads);
        }
    }
}

/// The symbols of every `true` literal of `program`.
fn true_symbols(program: &Program) -> FxHashSet<(SymId, usize)> {
    let lits = program.rules.iter().flat_map(|r| &r.body);
    lits.filter_map(|l| match l {
        Lit::Pos(a) | Lit::Neg(a) if a.rel == program.true_rel => {
            symbol(&program.store, &a.args[0])
        }
        _ => None,
    })
    .collect()
}

/// What the planner knows of a positive literal's matches: how many there
/// are when nothing is bound, and how many distinct values each variable
/// takes among them.
pub(super) struct Stats {
    rows: f64,
    distinct: Vec<f64>,
    /// For a derived relation, the variables that are whole arguments:
    /// only they key its indexes (see [`scanned`]).
    pub(super) keyed: Option<Vec<usize>>,
}

/// The statistics of a positive literal (`None` for the other literals),
/// from its matches (`matched`) when it is over a static relation or
/// `true`.
pub(super) fn stats(
    program: &Program,
    domains: &Domains,
    lit: &Lit,
    matched: Option<&Matched>,
    nvars: usize,
    fluent: Fluent,
) -> Option<Stats> {
    let Lit::Pos(atom) = lit else { return None };
    let vars = atom.vars();
    let mut distinct = vec![1.0; nvars];
    // The number of matches, and of distinct values of each variable.
    let from_matches = |m: &Matched, distinct: &mut Vec<f64>| {
        for (k, &v) in m.vars.iter().enumerate() {
            let mut values: Vec<TermId> = m.rows().map(|row| row[k]).collect();
            values.sort_unstable();
            values.dedup();
            distinct[v] = values.len().max(1) as f64;
        }
        m.count as f64
    };
    let rows = if let (Some(m), false) = (matched, atom.rel == program.true_rel) {
        from_matches(m, &mut distinct)
    } else if let Some(m) = matched {
        let candidates = from_matches(m, &mut distinct);
        // About one candidate in four holds in a state; a frame literal
        // as many as hold in the initial state, if fewer (the pieces on a
        // board), but no fewer than one candidate in sixteen; a transient
        // fluent's (one that no `next` rule keeps: chess's `check`, caused
        // by the last move) as many as hold initially, but at least one.
        let initially = || {
            let mut binding = vec![None; nvars];
            program
                .init
                .iter()
                .filter(|&&f| {
                    binding.iter_mut().for_each(|b| *b = None);
                    matches(&program.store, &atom.args[0], f, &mut binding)
                })
                .count() as f64
        };
        match fluent {
            Fluent::Frame => (candidates / 4.0).min(initially().max(candidates / 16.0)),
            Fluent::Transient => (candidates / 4.0).min(initially().max(1.0)),
            Fluent::Other => candidates / 4.0,
        }
    } else if atom.rel == program.does_rel {
        // One move per role.
        for &v in &vars {
            distinct[v] = program.roles.len().max(1) as f64;
        }
        program.roles.len().max(1) as f64
    } else {
        let product: f64 = (0..atom.args.len())
            .map(|i| domains.size(atom.rel, i).max(1) as f64)
            .product();
        let rows = domains.rows[atom.rel].map_or(product, |n| n as f64);
        for (i, arg) in atom.args.iter().enumerate() {
            for v in arg.vars() {
                distinct[v] = (domains.size(atom.rel, i).max(1) as f64).min(rows.max(1.0));
            }
        }
        // Enumerating a derived relation costs more than a table.
        rows * 2.0
    };
    let derived = matched.is_none() && atom.rel != program.does_rel;
    let keyed = derived.then(|| {
        atom.args
            .iter()
            .filter_map(|a| match a {
                Pat::Var(v) => Some(*v),
                _ => None,
            })
            .collect()
    });
    Some(Stats {
        rows: rows.max(1.0),
        distinct,
        keyed,
    })
}

/// Estimated number of candidates a positive literal yields given the
/// bound variables: the fewer, the earlier it goes.
pub(super) fn estimate(stats: &Stats, lit: &Lit, bound: &[bool]) -> f64 {
    narrowed(stats, lit, bound, |_| true)
}

/// Estimated number of rows a positive literal scans given the bound
/// variables: as [`estimate`], but a derived relation's scan is narrowed
/// only by the variables that are whole arguments (the others are
/// compared after each row is taken apart).
pub(super) fn scanned(stats: &Stats, lit: &Lit, bound: &[bool]) -> f64 {
    narrowed(stats, lit, bound, |v| {
        stats.keyed.as_ref().is_none_or(|k| k.contains(&v))
    })
}

/// The rows of a positive literal divided by the distinct values of each
/// bound variable that `narrows` (at least one); a half when every
/// variable is bound (a test, not a loop).
fn narrowed(stats: &Stats, lit: &Lit, bound: &[bool], narrows: impl Fn(usize) -> bool) -> f64 {
    let vars = lit.vars();
    if vars.iter().all(|&v| bound[v]) {
        return 0.5;
    }
    let mut n = stats.rows;
    for v in vars {
        if bound[v] && narrows(v) {
            n /= stats.distinct[v];
        }
    }
    n.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::kept_symbols;
    use crate::compile::{analyze_with, Strategy};

    /// `cell` is kept through the helper `stays`; `alarm` only follows
    /// the move made, so it is transient; `control` is passed on.
    #[test]
    fn a_fluent_kept_through_a_helper_is_kept_and_one_caused_by_the_move_is_not() {
        let text = "(role a) (init (cell 1)) (init (control a)) (init (alarm 1))
            (pos 1) (pos 2)
            (<= (legal a (go ?x)) (true (control a)) (pos ?x))
            (<= (stays ?x) (true (cell ?x)) (does a (go ?y)) (distinct ?x ?y))
            (<= (next (cell ?x)) (stays ?x))
            (<= (next (cell ?x)) (does a (go ?x)))
            (<= (next (alarm ?x)) (does a (go ?x)))
            (<= (next (control a)) (true (control a)))
            (<= terminal (true (cell 2))) (goal a 100)";
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let kept = kept_symbols(&c.program);
        let name = |s: &(u32, usize)| c.program.store.symbol_name(s.0).to_string();
        let mut names: Vec<String> = kept.iter().map(name).collect();
        names.sort();
        assert_eq!(names, ["cell", "control"]);
    }
}
