//! Stage 6, plans: each rule becomes a filter tree (thesis 7.2.4), a
//! sequence of steps run as nested loops. Queries are ordered so that the
//! cheapest one given the variables bound so far comes next (bound
//! arguments first, then the most selective relation); `not`, `distinct`
//! and fully bound queries are placed as soon as their variables are bound;
//! once the head is fully bound the rest of the body only looks for a
//! first witness.
//!
//! Literals over static relations and over `true` are answered from
//! compile-time tables: the rows of the facts (or of the possible fluents)
//! that match the literal's pattern, projected on its variables and sorted
//! with the bound variables first, so that the runtime finds the matching
//! rows by binary search and never takes a term apart.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{matches, Atom, Class, Lit, Pat, Program, Rule};
use crate::ir::terms::{SymId, TermId};
use rustc_hash::FxHashMap;

use super::estimate::{estimate, kept_symbols, scanned, stats, Fluent, Matched, Stats};

pub use super::tables::{key_box, Membership, Table, Tables};
pub use super::top_down::{TopDown, Walk};

/// One step of a rule's filter tree.
#[derive(Clone, Debug)]
pub enum Step {
    /// Rows of constant table `table` whose first columns equal the bound
    /// variables `key`; the next columns bind `bind`; with `fluent`, the
    /// last column is a fluent that must hold in the state. With `negated`,
    /// the step passes when no such row exists (then `bind` is empty).
    Table {
        /// The table.
        table: usize,
        /// Variables compared with the first columns.
        key: Vec<usize>,
        /// Variables bound by the following columns.
        bind: Vec<usize>,
        /// Whether the last column is a fluent to test in the state.
        fluent: bool,
        /// Whether the literal is negated.
        negated: bool,
        /// For a fluent table, the pattern of the fluent (whose id is the
        /// last column).
        term: Option<Pat>,
        /// The number of the rule's literals the table answers: more than
        /// one for a run of steps joined at compile time (`fuse`).
        fused: usize,
    },
    /// A fluent that must (or must not) hold, known at compile time.
    Fluent {
        /// The runtime id of the fluent.
        id: u32,
        /// Whether the literal is negated.
        negated: bool,
    },
    /// Every fact of a dynamic relation matching the atom (some variables free).
    Scan(Atom),
    /// A fully bound atom of a dynamic relation that must (not) hold.
    Member {
        /// The atom.
        atom: Atom,
        /// Whether the literal is negated.
        negated: bool,
    },
    /// The terms differ.
    Distinct(Pat, Pat),
    /// The terms are equal.
    Same(Pat, Pat),
    /// A fully bound atom of a relation answered by a top-down search
    /// (the demand strategy, `compile::demand`) that must (not) hold.
    Ask {
        /// The atom.
        atom: Atom,
        /// Whether the literal is negated.
        negated: bool,
    },
    /// The squares a walk reaches (an atom of a walked reach relation,
    /// [`Walk`]): from its bound start, stepping forward, or from its
    /// bound end, stepping backward; each square binds the other end.
    Walk {
        /// The atom: start, kept arguments, end.
        atom: Atom,
        /// The walk of its relation.
        walk: Walk,
        /// Whether the walk steps forward (from the start).
        forward: bool,
    },
}

impl Step {
    /// Whether the step loops over candidates (rather than filtering).
    pub fn is_loop(&self) -> bool {
        match self {
            Step::Table { negated, bind, .. } => !negated && !bind.is_empty(),
            Step::Scan(_) | Step::Walk { .. } => true,
            _ => false,
        }
    }
}

/// The argument order to number the fluents of a symbol by, per symbol
/// (and arity) whose loops over `true` would walk the state with another
/// order: the positions that most of its looping `true` steps know
/// (bound or constant) first, then the others. Fluents are numbered by
/// their arguments' ids in this order (see `analyse::term_ids::term_order`), so the
/// rows of such a step are the fluents of an id range: checkers' and
/// skirmish's `(true (cell ?x ?y ?piece))` with the piece bound walk the
/// few cells that hold that piece instead of testing all 64.
pub fn fluent_orders(plans: &[RulePlan]) -> FxHashMap<(SymId, usize), Vec<usize>> {
    let mut counts: FxHashMap<(SymId, usize), FxHashMap<Vec<usize>, usize>> = FxHashMap::default();
    for step in plans.iter().flat_map(|p| &p.steps) {
        let Step::Table {
            key,
            bind,
            fluent: true,
            negated: false,
            term: Some(Pat::Func(symbol, args)),
            ..
        } = step
        else {
            continue;
        };
        if bind.is_empty() {
            continue;
        }
        let known: Vec<usize> = (0..args.len())
            .filter(|&p| args[p].vars().iter().all(|v| key.contains(v)))
            .collect();
        if !known.is_empty() && known.len() < args.len() {
            *counts
                .entry((*symbol, args.len()))
                .or_default()
                .entry(known)
                .or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter_map(|((symbol, arity), shapes)| {
            // The most frequent shape (the smallest positions on a tie).
            let (first, _) = shapes
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
            if first.iter().enumerate().all(|(i, &p)| i == p) {
                return None;
            }
            let mut order = first.clone();
            order.extend((0..arity).filter(|p| !first.contains(p)));
            Some(((symbol, arity), order))
        })
        .collect()
}

/// The plan of one rule.
pub struct RulePlan {
    /// Index into [`Program::rules`].
    pub rule: usize,
    /// The steps, outermost first.
    pub steps: Vec<Step>,
    /// The number of leading steps after which every head variable is bound.
    pub head_bound_after: usize,
    /// For the step rule of a walk ([`Walk`]), the direction it is planned
    /// for (`true`: forward), its inputs bound.
    pub walk_step: Option<bool>,
}

/// What the planner knows of each literal of each rule, found once for
/// every planning (renumbering the fluents changes the runtime ids of the
/// matches, not the matches): what a literal over a static relation or
/// `true` matches (the facts, or the possible fluents), and the statistics
/// of each positive literal.
pub struct Literals(Vec<Vec<(Option<Matched>, Option<Stats>)>>);

impl Literals {
    /// Matches every literal of `program`'s rules over a static relation
    /// or `true`, and estimates each positive literal.
    pub fn new(program: &Program, domains: &Domains) -> Literals {
        let kept = kept_symbols(program);
        let by_rule = program
            .rules
            .iter()
            .map(|rule| {
                let nvars = rule.vars.len();
                let matched = rule.body.iter().map(|lit| {
                    let (Lit::Pos(atom) | Lit::Neg(atom)) = lit else {
                        return None;
                    };
                    let is_true = atom.rel == program.true_rel;
                    if program.class[atom.rel] != Class::Static && !is_true {
                        return None;
                    }
                    let vars = atom.vars();
                    let mut values = Vec::new();
                    let mut count = 0;
                    let mut binding: Vec<Option<TermId>> = vec![None; nvars];
                    let mut add = |binding: &[Option<TermId>], fluent: Option<TermId>| {
                        values.extend(
                            vars.iter()
                                .map(|&v| binding[v].expect("matched variables are bound")),
                        );
                        values.extend(fluent);
                        count += 1;
                    };
                    if is_true {
                        for &f in &domains.args[program.true_rel][0] {
                            binding.iter_mut().for_each(|b| *b = None);
                            if matches(&program.store, &atom.args[0], f, &mut binding) {
                                add(&binding, Some(f));
                            }
                        }
                    } else {
                        for fact in &program.facts[atom.rel] {
                            binding.iter_mut().for_each(|b| *b = None);
                            if atom
                                .args
                                .iter()
                                .zip(fact)
                                .all(|(p, &t)| matches(&program.store, p, t, &mut binding))
                            {
                                add(&binding, None);
                            }
                        }
                    }
                    Some(Matched {
                        stride: vars.len() + usize::from(is_true),
                        vars,
                        values,
                        count,
                    })
                });
                rule.body
                    .iter()
                    .zip(matched)
                    .map(|(l, m)| {
                        let fluent = Fluent::of(program, rule, l, &kept);
                        let stats = stats(program, domains, l, m.as_ref(), nvars, fluent);
                        (m, stats)
                    })
                    .collect()
            })
            .collect();
        Literals(by_rule)
    }
}

/// Plans every rule of `program`; rules that can never fire (a positive
/// literal no fact or possible fluent matches) get no plan. Without
/// `tables` no table is built (the steps' table indexes mean nothing):
/// the plans serve only to find the fluent orders ([`fluent_orders`]).
/// The rules of the relations `top_down` asks are planned with their
/// head's variables bound (the question's arguments), and a fully bound
/// literal of such a relation is a [`Step::Ask`]; the step rule of a walk
/// is planned once per direction it can step in, with that direction's
/// inputs bound, and a literal of the walk with those bound is a
/// [`Step::Walk`].
pub fn plan_rules(
    program: &Program,
    domains: &Domains,
    literals: &Literals,
    mut tables: Option<&mut Tables>,
    top_down: &TopDown,
) -> Vec<RulePlan> {
    let component = program.graph.component_of();
    let context = Context {
        program,
        domains,
        literals,
        component: &component,
        asked: &top_down.asked,
        walks: &top_down.walks,
    };
    let steps = top_down.steps();
    let mut plans = Vec::new();
    for index in 0..program.rules.len() {
        let rule = &program.rules[index];
        if top_down.walks[rule.head.rel].is_some() {
            continue;
        }
        let head_bound = match steps[rule.head.rel] {
            Some(walk) => {
                let directions = [(walk.forward, true), (walk.backward, false)];
                for (_, forward) in directions.into_iter().filter(|d| d.0) {
                    let (inputs, _) = walk.positions(forward);
                    let plan = plan_rule(&context, tables.as_deref_mut(), index, &inputs);
                    plans.extend(plan.map(|p| RulePlan {
                        walk_step: Some(forward),
                        ..p
                    }));
                }
                continue;
            }
            None if top_down.asked[rule.head.rel] => (0..rule.head.args.len()).collect(),
            None => Vec::new(),
        };
        plans.extend(plan_rule(
            &context,
            tables.as_deref_mut(),
            index,
            &head_bound,
        ));
    }
    plans
}

/// What planning a rule reads besides the rule.
struct Context<'a> {
    program: &'a Program,
    domains: &'a Domains,
    literals: &'a Literals,
    /// Each relation's component.
    component: &'a [usize],
    /// The relations answered by a search.
    asked: &'a [bool],
    /// The walks answering reach relations.
    walks: &'a [Option<Walk>],
}

/// The plan of rule `index` of `program`, or `None` when it can never fire:
/// filters as soon as their variables are bound, then the cheapest positive
/// literal next. A literal of an asked relation waits until its variables
/// are bound, and one of a walk until one end and the kept arguments are,
/// unless nothing else is left. The head's arguments at `head_bound` are
/// bound from the start (the question's, or a walk step's inputs).
fn plan_rule(
    c: &Context<'_>,
    mut tables: Option<&mut Tables>,
    index: usize,
    head_bound: &[usize],
) -> Option<RulePlan> {
    let Context {
        program,
        literals,
        component,
        asked,
        walks,
        ..
    } = *c;
    let rule = &program.rules[index];
    // A literal of its head's component drives the semi-naive rounds when
    // scanned (only the facts new in the last round), while tested it makes
    // the rule run in full every round; so while the rule has answers to
    // enumerate, such a literal counts a quarter of its estimate.
    let recursive = |lit: &Lit| match lit {
        Lit::Pos(a) => component
            .get(a.rel)
            .is_some_and(|c| Some(c) == component.get(rule.head.rel)),
        _ => false,
    };
    let nvars = rule.vars.len();
    let mut bound = vec![false; nvars];
    for &k in head_bound {
        rule.head.args[k].for_each_var(&mut |v| bound[v] = true);
    }
    let mut pending: Vec<Pending> = rule
        .body
        .iter()
        .zip(&literals.0[index])
        .map(|(l, (m, s))| (l, s.as_ref(), m.as_ref()))
        .collect();
    let walking = (rule.body.iter()).any(|l| matches!(l, Lit::Pos(a) if walks[a.rel].is_some()));
    let all_stats: Vec<(&Lit, Option<&Stats>)> = pending.iter().map(|&(l, s, _)| (l, s)).collect();
    let stats_of = |l: &Lit| {
        let found = all_stats.iter().find(|(m, _)| std::ptr::eq(*m, l));
        found.and_then(|&(_, s)| s)
    };
    let mut steps = Vec::new();
    let head_vars = rule.head.vars();
    let mut head_bound_after = if head_vars.is_empty() { 0 } else { usize::MAX };
    loop {
        // Filters whose variables are all bound go first.
        for (lit, _, m) in take_ready(&mut pending, &bound) {
            match lower(c, tables.as_deref_mut(), lit, m, &bound, &[]) {
                Lowered::Step(s) => steps.push(s),
                Lowered::Always => {}
                Lowered::Never => return None,
            }
        }
        if head_bound_after == usize::MAX && head_vars.iter().all(|&v| bound[v]) {
            head_bound_after = steps.len();
        }
        if pending.is_empty() {
            break;
        }
        // The cheapest positive literal next.
        let answers_left = head_vars.iter().any(|&v| !bound[v]);
        // Beside a walk, a literal sharing no variable with those bound
        // waits while another does: unfolded exits of the walk (`(++ ?x
        // ?x2)`) are cheap alone but multiply everything before the walk.
        let connected = |l: &Lit, bound: &[bool]| l.vars().iter().any(|&v| bound[v]);
        let apart = walking
            && pending
                .iter()
                .any(|(l, s, _)| s.is_some() && connected(l, &bound));
        // Starting beside a walk, a static literal after which no walk can
        // step waits while another makes one step (amazons' `legalMove`:
        // from the amazons, not from the exits' `++` pairs, after which
        // the walk still lacks its column).
        let starting = walking && !bound.iter().any(|&b| b);
        let exit = |a: &Atom| program.class[a.rel] == Class::Static && a.rel != program.true_rel;
        let opening = starting
            && (pending.iter()).any(|(l, s, _)| s.is_some() && opens_walk(rule, walks, l, &bound));
        let weight = |l: &Lit, bound: &[bool]| match l {
            Lit::Pos(a) if apart && !a.args.is_empty() && !connected(l, bound) => 1e6,
            Lit::Pos(a) if opening && exit(a) && !opens_walk(rule, walks, l, bound) => 1e6,
            Lit::Pos(a) if asked[a.rel] && a.vars().iter().any(|&v| !bound[v]) => 1e12,
            Lit::Pos(a) if walks[a.rel].is_some_and(|w| walk_direction(&w, a, bound).is_none()) => {
                1e12
            }
            Lit::Pos(a) if walks[a.rel].is_some() => walk_weight(c, l, stats_of(l), bound),
            _ if answers_left && recursive(l) => 0.25,
            _ => 1.0,
        };
        let i = choose(&pending, &bound, weight);
        let (lit, _, m) = pending.remove(i);
        // Variables no other literal nor the head mentions are projected out.
        let elsewhere: Vec<usize> = lit
            .vars()
            .into_iter()
            .filter(|&v| occurrences(rule, v) > lit_occurrences(lit, v))
            .collect();
        match lower(c, tables.as_deref_mut(), lit, m, &bound, &elsewhere) {
            Lowered::Step(s) => steps.push(s),
            Lowered::Always => {}
            Lowered::Never => return None,
        }
        for v in lit.vars() {
            bound[v] = true;
        }
    }
    if head_bound_after == usize::MAX {
        head_bound_after = steps.len();
    }
    Some(RulePlan {
        rule: index,
        steps,
        head_bound_after,
        walk_step: None,
    })
}

/// The weight of a literal `lit` of a walk that can step from what is
/// `bound`: its estimate from the relaxed reach facts counts every pair
/// of squares of a line (negation dropped), where a walk from one end
/// yields the squares of one ray, at most the values of one of its
/// outputs (a ray changes a file, a rank or both at each step), so the
/// weight brings the estimate down to that. Binding the far end first
/// would leave a walk per candidate to check it (amazons' arrows: every
/// empty cell of the line, each walked back to the queen).
fn walk_weight(c: &Context<'_>, lit: &Lit, stats: Option<&Stats>, bound: &[bool]) -> f64 {
    let Lit::Pos(atom) = lit else {
        return 1.0;
    };
    let (Some(walk), Some(stats)) = (&c.walks[atom.rel], stats) else {
        return 1.0;
    };
    let Some(forward) = walk_direction(walk, atom, bound) else {
        return 1.0;
    };
    let (_, outputs) = walk.positions(forward);
    let sizes = outputs.iter().map(|&k| c.domains.size(atom.rel, k));
    let ray = sizes.max().unwrap_or(1).max(1) as f64;
    (ray / estimate(stats, lit, bound)).min(1.0)
}

/// Whether some walk of `rule` can step once `lit`'s variables are bound
/// besides `bound`.
fn opens_walk(rule: &Rule, walks: &[Option<Walk>], lit: &Lit, bound: &[bool]) -> bool {
    let mut after = bound.to_vec();
    lit.vars().into_iter().for_each(|v| after[v] = true);
    (rule.body.iter()).any(|l| {
        matches!(l, Lit::Pos(a) if walks[a.rel].is_some_and(|w| walk_direction(&w, a, &after).is_some()))
    })
}

/// The direction `walk` can step in for `atom` given the variables
/// `bound`: forward when its start and kept arguments are bound, else
/// backward when its end and kept arguments are; the arguments read must
/// be variables or constants.
fn walk_direction(walk: &Walk, atom: &Atom, bound: &[bool]) -> Option<bool> {
    let ready = |positions: &[usize]| {
        positions.iter().all(|&k| match &atom.args[k] {
            Pat::Ground(_) => true,
            Pat::Var(v) => bound[*v],
            Pat::Func(..) => false,
        })
    };
    let can = |forward: bool| {
        let (inputs, outputs) = walk.positions(forward);
        ready(&inputs)
            && outputs
                .iter()
                .all(|&k| !matches!(atom.args[k], Pat::Func(..)))
    };
    [(walk.forward, true), (walk.backward, false)]
        .into_iter()
        .find(|&(possible, forward)| possible && can(forward))
        .map(|(_, forward)| forward)
}

/// A literal of a rule still to plan, with its estimate and matches.
type Pending<'a> = (&'a Lit, Option<&'a Stats>, Option<&'a Matched>);

/// Takes out of `pending` the literals whose variables are all `bound`,
/// in their order.
fn take_ready<'a>(pending: &mut Vec<Pending<'a>>, bound: &[bool]) -> Vec<Pending<'a>> {
    let ready = |(lit, _, _): &Pending| lit.vars().iter().all(|&v| bound[v]);
    let (now, later) = pending.drain(..).partition(ready);
    *pending = later;
    now
}

/// The index in `pending` of the positive literal cheapest to evaluate
/// next given the variables `bound`, its estimate times its `weight` (a
/// quarter for one that drives the semi-naive rounds).
fn cheapest(pending: &[Pending], bound: &[bool], weight: &impl Fn(&Lit, &[bool]) -> f64) -> usize {
    let best = pending
        .iter()
        .enumerate()
        .filter_map(|(i, (l, s, _))| Some((estimate((*s)?, l, bound) * weight(l, bound), i)))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, i)| i);
    let Some(i) = best else {
        // Only filters with unbound variables remain: unsafe rules are
        // rejected by the checks, so this cannot happen.
        unreachable!("checked rules are safe")
    };
    i
}

/// The index in `pending` of the positive literal to evaluate next: the
/// cheapest ([`cheapest`]), unless the greedy order from here would scan
/// a derived relation, by the same index as it could now, only after
/// literals that yield several rows and bind variables inside its
/// compound arguments: an index keys on whole arguments only, so those
/// variables filter the facts scanned but do not narrow the scan (chess's
/// `legal2 ?player (move ?piece ...)` scanned again for each piece type).
/// Then that relation is scanned now, once, and those literals become
/// lookups.
fn choose(pending: &[Pending], bound: &[bool], weight: impl Fn(&Lit, &[bool]) -> f64) -> usize {
    let greedy = cheapest(pending, bound, &weight);
    // A literal that yields at most one row multiplies nothing: it goes
    // first, and the scan, if it pays, comes when a literal would.
    let (lit, stats, _) = pending[greedy];
    if estimate(stats.expect("a positive literal"), lit, bound) * weight(lit, bound) <= 1.0 {
        return greedy;
    }
    let mut later = bound.to_vec();
    let mut left: Vec<usize> = (0..pending.len())
        .filter(|&i| pending[i].1.is_some())
        .collect();
    let (mut next, mut before) = (greedy, 1.0);
    while let Some(at) = left.iter().position(|&i| i == next) {
        left.remove(at);
        let (lit, stats, _) = pending[next];
        let stats = stats.expect("a positive literal");
        let vars = lit.vars();
        let scan = stats.keyed.is_some() && vars.iter().any(|&v| !later[v]);
        let filtered = vars.iter().any(|&v| {
            later[v] && !bound[v] && !stats.keyed.as_ref().is_some_and(|k| k.contains(&v))
        });
        if scan
            && filtered
            && before > 1.0
            && scanned(stats, lit, bound) <= scanned(stats, lit, &later)
        {
            return next;
        }
        before *= estimate(stats, lit, &later);
        for v in vars {
            later[v] = true;
        }
        let rest: Vec<Pending> = left.iter().map(|&i| pending[i]).collect();
        if rest.is_empty() {
            break;
        }
        next = left[cheapest(&rest, &later, &weight)];
    }
    greedy
}

/// A literal lowered to a step, or decided at compile time.
enum Lowered {
    Step(Step),
    Always,
    Never,
}

/// Occurrences of variable `v` in a rule's head and body.
pub(super) fn occurrences(rule: &crate::compile::program::Rule, v: usize) -> usize {
    let mut n = 0;
    for a in &rule.head.args {
        a.for_each_var(&mut |w| n += usize::from(w == v));
    }
    n + rule
        .body
        .iter()
        .map(|l| lit_occurrences(l, v))
        .sum::<usize>()
}

/// Occurrences of variable `v` in a literal.
fn lit_occurrences(lit: &Lit, v: usize) -> usize {
    let mut n = 0;
    let mut count = |p: &Pat| p.for_each_var(&mut |w| n += usize::from(w == v));
    match lit {
        Lit::Pos(a) | Lit::Neg(a) => a.args.iter().for_each(&mut count),
        Lit::Distinct(x, y) | Lit::Same(x, y) => {
            count(x);
            count(y);
        }
    }
    n
}

/// The step of a literal given the variables bound before it (`matched`:
/// its matches, for a literal over a static relation or `true`); of its
/// free variables, only those in `keep` are bound by the step (the others
/// are mentioned nowhere else). Without `tables`, a table step gets no
/// table.
fn lower(
    c: &Context<'_>,
    tables: Option<&mut Tables>,
    lit: &Lit,
    matched: Option<&Matched>,
    bound: &[bool],
    keep: &[usize],
) -> Lowered {
    let (atom, negated) = match lit {
        Lit::Pos(a) => (a, false),
        Lit::Neg(a) => (a, true),
        Lit::Distinct(x, y) => return Lowered::Step(Step::Distinct(x.clone(), y.clone())),
        Lit::Same(x, y) => return Lowered::Step(Step::Same(x.clone(), y.clone())),
    };
    let (program, domains) = (c.program, c.domains);
    let is_true = atom.rel == program.true_rel;
    let Some(matched) = matched else {
        let all_bound = atom.vars().iter().all(|&v| bound[v]);
        let walk = c.walks[atom.rel];
        let direction = walk.and_then(|w| walk_direction(&w, atom, bound));
        return Lowered::Step(
            if let (Some(walk), Some(forward), false) = (walk, direction, negated) {
                Step::Walk {
                    atom: atom.clone(),
                    walk,
                    forward,
                }
            } else if all_bound && c.asked[atom.rel] {
                Step::Ask {
                    atom: atom.clone(),
                    negated,
                }
            } else if all_bound {
                Step::Member {
                    atom: atom.clone(),
                    negated,
                }
            } else {
                Step::Scan(atom.clone())
            },
        );
    };
    let vars = &matched.vars;
    if matched.count == 0 {
        return if negated {
            Lowered::Always
        } else {
            Lowered::Never
        };
    }
    if is_true {
        if let (Pat::Ground(f), 1) = (&atom.args[0], matched.count) {
            return Lowered::Step(Step::Fluent {
                id: domains.id(*f),
                negated,
            });
        }
    } else if vars.is_empty() {
        return if negated {
            Lowered::Never
        } else {
            Lowered::Always
        };
    }
    let key: Vec<usize> = vars.iter().copied().filter(|&v| bound[v]).collect();
    let mut bind: Vec<usize> = vars
        .iter()
        .copied()
        .filter(|&v| !bound[v] && keep.contains(&v))
        .collect();
    // A fluent's variables in the order its symbol's fluents are numbered
    // by, so that the rows of a key come by increasing fluent id.
    if let (true, Pat::Func(symbol, args)) = (is_true, &atom.args[0]) {
        if let Some(positions) = domains.fluent_orders.get(&(*symbol, args.len())) {
            let rank = |v: usize| positions.iter().position(|&p| args[p].vars().contains(&v));
            bind.sort_by_key(|&v| rank(v));
        }
    }
    let table = match tables {
        Some(tables) => {
            // The columns: the matches' values of the key, then of `bind`,
            // then the fluent.
            let columns: Vec<usize> = key
                .iter()
                .chain(&bind)
                .map(|v| {
                    vars.iter()
                        .position(|w| w == v)
                        .expect("a literal's variable")
                })
                .chain(is_true.then_some(vars.len()))
                .collect();
            let rows = matched
                .rows()
                .map(|m| columns.iter().map(|&c| domains.id(m[c])).collect())
                .collect();
            tables.add(Table {
                columns: columns.len(),
                rows,
                fluent_key: (is_true && !bind.is_empty()).then_some(key.len()),
            })
        }
        None => usize::MAX,
    };
    Lowered::Step(Step::Table {
        table,
        key,
        bind,
        fluent: is_true,
        negated,
        term: is_true.then(|| atom.args[0].clone()),
        fused: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::{RulePlan, Step};
    use crate::compile::{analyze_with, Compiled, Strategy};

    /// `text` compiled with the relational strategy.
    fn compiled(text: &str) -> Compiled {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        analyze_with(&loaded, Strategy::Relational).expect("compiles")
    }

    /// The plan of the rule of `c` whose text contains `needle`.
    fn plan_of<'c>(c: &'c Compiled, needle: &str) -> &'c RulePlan {
        (c.relational().unwrap().plans.iter())
            .find(|p| c.program.rules[p.rule].text.contains(needle))
            .expect("the rule is planned")
    }

    /// Two roles whose pieces (`kind`) move to the cells of an 8 x 8
    /// board; `moves` is materialized (a goal rule negates it) and indexed
    /// on the role only. The move rule of `legal` reads `(true (control
    /// ?p))`, then `legal`, then `moves`; `more` adds rules and facts;
    /// each of `rows` holds a piece on every column at the start.
    fn pieces_game(legal: &str, more: &str, rows: &[(u32, &str)]) -> String {
        let mut text = format!(
            "(role a) (role b) (init (control a))
            (kind p1 a pawn) (kind p2 a rook) (kind p3 a king)
            (kind q1 b pawn) (kind q2 b rook) (kind q3 b king)
            (<= (moves ?p (move ?piece ?x ?y)) (true (cell ?x ?y ?piece)) (kind ?piece ?p ?t) (coord ?x) (coord ?y))
            (<= (legal ?p (move ?piece ?x ?y)) (true (control ?p)) {legal} (moves ?p (move ?piece ?x ?y)))
            (<= (legal ?p noop) (role ?p) (not (true (control ?p))))
            (<= (next (cell ?x ?y ?piece)) (does ?p (move ?piece ?x ?y)))
            (<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))
            (<= terminal (true (cell 1 1 p1))) (goal b 0)
            (<= (goal a 100) (not (moves a (move p1 1 1)))) (<= (goal a 0) (moves a (move p1 1 1))) {more}"
        );
        for i in 1..=8 {
            text += &format!(" (coord {i})");
            for (row, piece) in rows {
                text += &format!(" (init (cell {i} {row} {piece}))");
            }
        }
        text
    }

    #[test]
    fn filters_follow_the_literal_that_binds_them_and_static_literals_become_tables() {
        let c = compiled(
            "(role a) (init (c 1)) (init (c 2)) (ok 1)
            (<= (next (c ?x)) (true (c ?x)) (not (bad ?x)) (ok ?x))
            (<= (bad ?x) (true (c ?x)) (true (c 2)))
            (<= (legal a go) (true (c 1)))
            (<= terminal (true (c 3))) (goal a 100)",
        );
        let next = plan_of(&c, "(<= (next");
        // true (c ?x) binds ?x; then `ok ?x` (a fully bound static literal:
        // a table check) and `not (bad ?x)` (a member test) as filters.
        assert!(
            matches!(&next.steps[0], Step::Table { fluent: true, negated: false, bind, .. } if bind.len() == 1)
        );
        assert_eq!(next.steps.len(), 3);
        assert!(next.steps[1..].iter().all(|s| !s.is_loop()));
        assert!(next.steps[1..]
            .iter()
            .any(|s| matches!(s, Step::Member { negated: true, .. })));
        assert!(next.steps[1..].iter().any(|s| matches!(
            s,
            Step::Table {
                fluent: false,
                negated: false,
                ..
            }
        )));
    }

    #[test]
    fn a_frame_literal_is_estimated_at_the_fluents_that_hold_initially() {
        // Two pieces on a 6 x 6 board at the start (of 144 possible): the
        // frame rule walks the pieces and tests `other` for each, rather
        // than listing the 35 other squares of the move and testing each
        // for a piece.
        let mut text = String::from(
            "(role a) (init (at 1 1 k)) (init (at 2 2 q))
            (kind k) (kind q) (kind r) (kind b)
            (<= (other ?x ?y ?u ?v) (coord ?x) (coord ?y) (coord ?u) (coord ?v) (distinct ?x ?u))
            (<= (other ?x ?y ?u ?v) (coord ?x) (coord ?y) (coord ?u) (coord ?v) (distinct ?y ?v))
            (<= (legal a (move ?x ?y ?k)) (coord ?x) (coord ?y) (kind ?k))
            (<= (next (at ?x ?y ?k)) (does a (move ?x ?y ?k)))
            (<= (next (at ?x ?y ?p)) (does a (move ?u ?v ?k)) (true (at ?x ?y ?p)) (other ?x ?y ?u ?v))
            (<= terminal (true (at 6 6 k))) (goal a 100)",
        );
        for i in 1..=6 {
            text += &format!(" (coord {i})");
        }
        let c = compiled(&text);
        let frame = plan_of(&c, "(other ?x ?y ?u ?v))");
        assert!(
            matches!(&frame.steps[1], Step::Table { fluent: true, bind, .. } if bind.len() == 3),
            "{:?}",
            frame.steps
        );
        assert!(!frame.steps[2].is_loop(), "{:?}", frame.steps);
    }

    #[test]
    fn a_derived_relation_keyed_on_a_whole_argument_is_scanned_once_not_per_child_binding() {
        // `moves` (materialized: a goal rule negates it) is indexed on ?p
        // only: binding ?piece from `kind` first (three rows per role)
        // would scan every move of ?p once per kind; scanned first, each
        // move's ?piece makes `kind` a lookup.
        let text = pieces_game(
            "(kind ?piece ?p ?t) (distinct ?t king)",
            "",
            &[(1, "p1"), (8, "q1")],
        );
        let c = compiled(&text);
        let legal = plan_of(&c, "(distinct ?t king)");
        let scan = legal.steps.iter().position(|s| matches!(s, Step::Scan(_)));
        let kind = legal
            .steps
            .iter()
            .position(|s| matches!(s, Step::Table { fluent: false, .. }));
        assert!(
            matches!((scan, kind), (Some(s), Some(k)) if s < k),
            "{:?}",
            legal.steps
        );
    }

    #[test]
    fn a_transient_fluent_is_tested_before_a_relation_is_scanned() {
        // `(alarm ?x)` holds only after a move to column ?x or a turn of
        // b's (no `next` rule keeps it): estimated at one row (not a
        // quarter of its eight possible fluents), it is tested before every
        // move of the player is scanned, though `kind`, which binds the
        // moves' ?piece, would otherwise have the scan moved first.
        let text = pieces_game(
            "(true (alarm ?x)) (kind ?piece ?p ?t)",
            "(init (alarm 1))
            (<= (next (alarm ?x)) (does ?p (move ?piece ?x ?y)) (coord ?x))
            (<= (next (alarm ?x)) (true (control b)) (coord ?x))",
            &[(1, "p1"), (8, "q1"), (2, "p2"), (7, "q2")],
        );
        let c = compiled(&text);
        let legal = plan_of(&c, "(true (alarm ?x))");
        let scan = legal.steps.iter().position(|s| matches!(s, Step::Scan(_)));
        let alarm = legal.steps.iter().position(|s| {
            matches!(s, Step::Table { term: Some(crate::compile::program::Pat::Func(f, _)), .. }
                if c.program.store.symbol_name(*f) == "alarm")
        });
        assert!(
            matches!((alarm, scan), (Some(a), Some(s)) if a < s),
            "{:?}",
            legal.steps
        );
    }
}
