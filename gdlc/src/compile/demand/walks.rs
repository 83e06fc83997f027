//! Right-linear recursions answered by loops: a ray (chess's `clear_row`,
//! amazons' `horizontalMove`) is a relation recursive through itself
//! whose recursive rules step from a square to the next and whose exit
//! rules say what holds at a square. Derived bottom-up it holds every ray
//! from every square (quadratic in the line's length), and magic sets
//! only narrow that to the rays asked about; yet a caller asking from one
//! square needs one walk.
//!
//! Such a relation `p` is factored: its answers are its exit rules at
//! every square its reach relation reaches from the start, the start
//! included, `p(x, u) :- reach(x, k, c), E(c, u)`
//! ([`linear::factored_rules`]), with `reach(x, k, x) :- square(x, k)`
//! and `reach(x, k, n) :- reach(x, k, c), step(c, k, n)`, the step rules
//! being the recursive rules without their call ([`linear::step_rules`]);
//! every call of `p` is unfolded into its caller, so that the caller reads
//! `reach` and the exits itself. When the step rules are together a
//! function from a square to the next (their static literals are
//! functions, `next_file` from `?u` to `?w`, and agree), the squares
//! reached from a bound start are a chain, walked by a loop that asks the
//! step rules for the next square ([`Step::Walk`] forward); when a square
//! determines the one before it, the squares from which a bound end is
//! reached are walked backward, the exits first binding the end
//! (`(horizontalMove ?x2 ?y ?x1 ?y)` with `?x1` bound). A walk ends: its
//! steps follow a static relation without cycles ([`terminates`]). A
//! reach relation some plan still scans with neither end bound is derived
//! bottom-up after all ([`super::settle`]), from every square of the
//! static `square` relation.

use super::terminates;
use crate::compile::analyse::domains::Domains;
use crate::compile::program::{Atom, Class, Lit, Pat, Program, RelId, Rule};
use crate::compile::relational::inline;
use crate::compile::relational::linear::{self, Linear};
use crate::compile::relational::magic;
#[cfg(doc)]
use crate::compile::relational::plan::Step;
use crate::compile::relational::plan::Walk;
use crate::ir::terms::TermId;
use crate::syntax::ast::Relation;

/// Most rules the unfolding of one relation's calls may add.
const MAX_NEW_RULES: usize = 256;
/// Most squares (values of the changing and kept arguments together) a
/// walk may have: its reach relation holds each square reaching itself.
const MAX_SQUARES: usize = 100_000;

/// Factors every right-linear recursion of `program` that can be walked
/// (see the module's documentation) and unfolds its calls; returns, per
/// relation of the grown program, the walk of each reach relation made.
pub fn factor(program: &mut Program, domains: &mut Domains) -> Vec<Option<Walk>> {
    let mut walks: Vec<Option<Walk>> = vec![None; program.relations.len()];
    let derived = magic::derived(program);
    for (p, derived) in derived.into_iter().enumerate() {
        if !derived || domains.open[p].iter().any(|&o| o) || negated_anywhere(program, p) {
            continue;
        }
        // Each factoring changes the graph: its components are found anew.
        let component = program.graph.component_of();
        let Some(shape) = linear::shape(program, &component, p) else {
            continue;
        };
        if let Some((reach, walk)) = factor_one(program, domains, p, &shape) {
            walks.resize(program.relations.len(), None);
            walks[reach] = Some(walk);
        }
    }
    walks.resize(program.relations.len(), None);
    walks
}

/// Factors `p` (of shape `shape`) when it ends and can be walked in some
/// direction, and unfolds its calls; its reach relation and walk.
fn factor_one(
    program: &mut Program,
    domains: &mut Domains,
    p: RelId,
    shape: &Linear,
) -> Option<(RelId, Walk)> {
    if !terminates::measured(program, p) {
        return None;
    }
    let original: Vec<Rule> = (program.rules.iter())
        .filter(|r| r.head.rel == p)
        .cloned()
        .collect();
    let squares = squares(domains, p, shape)?;
    let name = program.relations[p].name.clone();
    let step = program.relations.len();
    let (reach, square) = (step + 1, step + 2);
    let step_rules = linear::step_rules(&original, &name, p, shape, step);
    let walk = Walk {
        step,
        changing: shape.changing.len(),
        kept: shape.kept.len(),
        forward: false,
        backward: false,
    };
    let functional = |forward| {
        let (inputs, outputs) = walk.positions(forward);
        functional(program, &step_rules, &inputs, &outputs, &squares)
    };
    let walk = Walk {
        forward: functional(true),
        backward: functional(false),
        ..walk
    };
    if !walk.forward && !walk.backward {
        return None;
    }
    let factored: Vec<Rule> = linear::factored_rules(&original, &name, p, shape, reach)
        .into_iter()
        .filter(|r| reads(r, reach))
        .collect();
    let others = (program.rules.iter())
        .filter(|r| r.head.rel != p)
        .cloned()
        .collect();
    let mut rules = unfold_calls(program, others, p, &factored)?;
    rules.extend(step_rules);
    rules.extend(reach_rules(&name, walk, reach, square));
    add_relations(program, domains, p, shape, squares);
    let relations = program.relations.clone();
    program.rules = magic::needed_rules(&program.answers, relations.len(), rules);
    program.graph = magic::graph_of(&relations, &program.rules);
    Some((reach, walk))
}

/// The rules of reach relation `reach` of walk `walk` (of `name`): a
/// square reaches itself (every square of relation `square`), and what
/// one step from a square it reaches leads to.
fn reach_rules(name: &str, walk: Walk, reach: RelId, square: RelId) -> Vec<Rule> {
    let (c, k) = (walk.changing, walk.kept);
    let var = |i: usize| Pat::Var(i);
    let start: Vec<Pat> = (0..c).map(var).collect();
    let kept: Vec<Pat> = (c..c + k).map(var).collect();
    let at: Vec<Pat> = (c + k..2 * c + k).map(var).collect();
    let next: Vec<Pat> = (2 * c + k..3 * c + k).map(var).collect();
    let names = |prefix: &'static str, n: usize| (0..n).map(move |i| format!("?{prefix}{i}"));
    let vars: Vec<String> = (names("start", c).chain(names("kept", k)))
        .chain(names("at", c).chain(names("next", c)))
        .collect();
    let cat = |parts: &[&[Pat]]| parts.concat();
    let itself = Rule {
        head: Atom {
            rel: reach,
            args: cat(&[&start, &kept, &start]),
        },
        body: vec![Lit::Pos(Atom {
            rel: square,
            args: cat(&[&start, &kept]),
        })],
        vars: vars.clone(),
        text: format!("[a square of `{name}` reaches itself]"),
    };
    let onward = Rule {
        head: Atom {
            rel: reach,
            args: cat(&[&start, &kept, &next]),
        },
        body: vec![
            Lit::Pos(Atom {
                rel: reach,
                args: cat(&[&start, &kept, &at]),
            }),
            Lit::Pos(Atom {
                rel: walk.step,
                args: cat(&[&at, &kept, &next]),
            }),
        ],
        vars,
        text: format!("[one step of `{name}` further]"),
    };
    vec![itself, onward]
}

/// The squares of `p`'s walk with its kept arguments: every combination
/// of the values its changing and kept positions take; `None` past
/// [`MAX_SQUARES`].
fn squares(domains: &Domains, p: RelId, shape: &Linear) -> Option<Vec<Vec<TermId>>> {
    let positions = shape.changing.iter().chain(&shape.kept);
    let mut out: Vec<Vec<TermId>> = vec![Vec::new()];
    for &k in positions {
        let values = &domains.args[p][k];
        if out.len().saturating_mul(values.len()) > MAX_SQUARES {
            return None;
        }
        out = (out.iter())
            .flat_map(|prefix| {
                values.iter().map(move |&v| {
                    let mut t = prefix.clone();
                    t.push(v);
                    t
                })
            })
            .collect();
    }
    Some(out)
}

/// `rules` with every call of `p` unfolded with `p`'s rules `definitions`
/// (none of which reads `p`); `None` past [`MAX_NEW_RULES`] new rules.
fn unfold_calls(
    program: &Program,
    rules: Vec<Rule>,
    p: RelId,
    definitions: &[Rule],
) -> Option<Vec<Rule>> {
    let limit = rules.len() + MAX_NEW_RULES;
    let mut out = Vec::with_capacity(rules.len());
    let mut pending = rules;
    pending.reverse();
    while let Some(rule) = pending.pop() {
        let call = (rule.body.iter()).position(|l| matches!(l, Lit::Pos(a) if a.rel == p));
        let Some(k) = call else {
            out.push(rule);
            continue;
        };
        let unfolded = definitions
            .iter()
            .filter_map(|d| inline::unfold(program, &rule, k, d));
        pending.extend(unfolded);
        if out.len() + pending.len() > limit {
            return None;
        }
    }
    Some(out)
}

/// Adds the step, reach and square relations of `p`'s walk (in that
/// order) to `program` and `domains`; the square relation's facts are
/// `squares`.
fn add_relations(
    program: &mut Program,
    domains: &mut Domains,
    p: RelId,
    shape: &Linear,
    squares: Vec<Vec<TermId>>,
) {
    let name = program.relations[p].name.clone();
    let positions = shape.reach_positions();
    let (c, k) = (shape.changing.len(), shape.kept.len());
    // A walk reaches about as many squares as a line of the board has.
    let line = (shape.changing.iter())
        .map(|&k| domains.size(p, k).max(1))
        .max()
        .unwrap_or(1);
    let rows = squares.len().saturating_mul(line);
    let square_positions = positions[..c + k].to_vec();
    let new = [
        (
            format!("{name} step"),
            positions.clone(),
            program.class[p],
            rows,
        ),
        (format!("{name} reach"), positions, program.class[p], rows),
        (
            format!("{name} square"),
            square_positions,
            Class::Static,
            squares.len(),
        ),
    ];
    for (relation, positions, class, rows) in new {
        program.relations.push(Relation {
            name: relation,
            arity: positions.len(),
        });
        program.class.push(class);
        program.facts.push(Vec::new());
        let args = (positions.iter()).map(|&k| domains.args[p][k].clone());
        domains.args.push(args.collect());
        domains.open.push(vec![false; positions.len()]);
        domains.rows.push(Some(rows));
    }
    *program.facts.last_mut().expect("the square relation") = squares;
}

/// Whether a literal of `rule`'s body reads `r`.
fn reads(rule: &Rule, r: RelId) -> bool {
    (rule.body.iter()).any(|l| matches!(l, Lit::Pos(a) | Lit::Neg(a) if a.rel == r))
}

/// Whether `p` is called under `not` somewhere (such a call cannot be
/// unfolded).
fn negated_anywhere(program: &Program, p: RelId) -> bool {
    (program.rules.iter().flat_map(|r| &r.body)).any(|l| matches!(l, Lit::Neg(a) if a.rel == p))
}

/// Whether the step `rules` are together a function from the head's
/// arguments at `inputs` to those at `outputs`, judged on every square
/// of `squares` (the inputs' values): each rule's positive literals over
/// static relations, evaluated from the inputs, bind the outputs as
/// functions ([`lookup`]) or fail, and the rules that do not fail agree.
/// Then the first witness of any rule is the one next square.
fn functional(
    program: &Program,
    rules: &[Rule],
    inputs: &[usize],
    outputs: &[usize],
    squares: &[Vec<TermId>],
) -> bool {
    squares.iter().all(|square| {
        let mut found: Option<Vec<TermId>> = None;
        for rule in rules {
            match evaluate(program, rule, inputs, square, outputs) {
                Err(()) => return false,
                Ok(None) => {}
                Ok(Some(out)) if found.as_ref().is_some_and(|f| *f != out) => return false,
                Ok(Some(out)) => found = Some(out),
            }
        }
        true
    })
}

/// The outputs of step rule `rule` given `values` at `inputs`, from its
/// static literals: `Ok(None)` when one fails, `Err` when they do not
/// bind every output as a function.
fn evaluate(
    program: &Program,
    rule: &Rule,
    inputs: &[usize],
    values: &[TermId],
    outputs: &[usize],
) -> Result<Option<Vec<TermId>>, ()> {
    let mut binding: Vec<Option<TermId>> = vec![None; rule.vars.len()];
    for (&k, &value) in inputs.iter().zip(values) {
        if !crate::compile::program::matches(
            &program.store,
            &rule.head.args[k],
            value,
            &mut binding,
        ) {
            return Ok(None);
        }
    }
    let statics: Vec<&Atom> = (rule.body.iter())
        .filter_map(|l| match l {
            Lit::Pos(a) if program.class[a.rel] == Class::Static && a.rel != program.true_rel => {
                Some(a)
            }
            _ => None,
        })
        .collect();
    let mut done = vec![false; statics.len()];
    while let Some(i) = (0..statics.len()).find(|&i| !done[i] && lookup_ready(statics[i], &binding))
    {
        done[i] = true;
        if !lookup(program, statics[i], &mut binding)? {
            return Ok(None);
        }
    }
    let mut out = Vec::with_capacity(outputs.len());
    for &k in outputs {
        match &rule.head.args[k] {
            Pat::Var(v) => out.push(binding[*v].ok_or(())?),
            _ => return Err(()),
        }
    }
    Ok(Some(out))
}

/// Whether `atom` can be looked up: every argument is a constant or a
/// variable (no compound term), and some is bound or constant.
fn lookup_ready(atom: &Atom, binding: &[Option<TermId>]) -> bool {
    let plain = (atom.args.iter()).all(|a| matches!(a, Pat::Ground(_) | Pat::Var(_)));
    let known = |a: &Pat| match a {
        Pat::Var(v) => binding[*v].is_some(),
        _ => true,
    };
    plain && (atom.args.is_empty() || atom.args.iter().any(known))
}

/// Binds the free variables of `atom` from the one fact matching its
/// bound arguments: `Ok(false)` when none matches, `Err` when several
/// bind different values.
fn lookup(program: &Program, atom: &Atom, binding: &mut [Option<TermId>]) -> Result<bool, ()> {
    let mut found: Option<Vec<Option<TermId>>> = None;
    for fact in &program.facts[atom.rel] {
        let mut b = binding.to_vec();
        let all = (atom.args.iter().zip(fact))
            .all(|(a, &t)| crate::compile::program::matches(&program.store, a, t, &mut b));
        if !all {
            continue;
        }
        match &found {
            Some(f) if *f != b => return Err(()),
            _ => found = Some(b),
        }
    }
    match found {
        Some(b) => {
            binding.copy_from_slice(&b);
            Ok(true)
        }
        None => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::relational::plan::Step;
    use crate::compile::{analyze_with, generate_with, Compiled, Strategy};

    /// A rook on a line of `n` squares (`succ`, or on a ring when
    /// `ring`), a wall on square 5: `ray` walks from a square over empty
    /// squares; the rook may move along its ray (a call from its square,
    /// forward), and a pawn may step to a square the rook's ray reaches
    /// backward from the pawn's target (`(ray ?x ?y)` with `?y` bound).
    fn game(n: usize, ring: bool) -> String {
        let mut kif = String::from(
            "(role a)\n(init (rook 1))\n(init (pawn 3))\n(init (wall 5))\n\
             (<= (ray ?x ?y) (succ ?x ?y))\n\
             (<= (ray ?x ?z) (succ ?x ?y) (not (true (wall ?y))) (ray ?y ?z))\n\
             (<= (legal a (rook ?y)) (true (rook ?x)) (ray ?x ?y))\n\
             (<= (legal a (pawn ?y)) (true (pawn ?x)) (succ ?x ?y) (ray ?z ?y) (true (rook ?z)))\n\
             (<= (next (rook ?y)) (does a (rook ?y)))\n\
             (<= (next (rook ?x)) (does a (pawn ?y)) (true (rook ?x)))\n\
             (<= (next (pawn ?y)) (does a (pawn ?y)))\n\
             (<= (next (pawn ?x)) (does a (rook ?y)) (true (pawn ?x)))\n\
             (<= (next (wall ?x)) (true (wall ?x)))\n\
             (<= terminal (true (rook 4)))\n(goal a 100)\n",
        );
        for i in 1..n {
            kif.push_str(&format!("(succ {i} {})\n", i + 1));
        }
        if ring {
            kif.push_str(&format!("(succ {n} 1)\n"));
        }
        kif
    }

    fn compiled(n: usize, ring: bool) -> Compiled {
        let loaded = crate::load_bytes("t.kif".into(), game(n, ring).into()).expect("valid");
        analyze_with(&loaded, Strategy::Demand).expect("compiles")
    }

    /// The directions of the walks the plans take.
    fn walk_steps(c: &Compiled) -> Vec<bool> {
        let relational = c.relational().expect("relation by relation");
        let mut out: Vec<bool> = (relational.plans.iter())
            .flat_map(|p| &p.steps)
            .filter_map(|s| match s {
                Step::Walk { forward, .. } => Some(*forward),
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_ray_is_walked_forward_from_its_start_and_backward_from_its_end() {
        let c = compiled(12, false);
        assert_eq!(walk_steps(&c), [false, true]);
        let relational = c.relational().expect("relation by relation");
        let walked = (relational.top_down.walks.iter()).filter(|w| w.is_some());
        assert_eq!(walked.count(), 1);
        let loaded = crate::load_bytes("t.kif".into(), game(12, false).into()).expect("valid");
        let code = generate_with(&loaded, Strategy::Demand, "t.bin")
            .expect("compiles")
            .code;
        // Both walks are loops over the squares; their steps read the
        // walk's ray tables (`rays::tests`), not step functions.
        assert_eq!(code.matches("let mut started").count(), 2);
        assert!(code.contains("fluent_tests") && !code.contains("fn walk_"));
        let containers = |what: &str| code.contains(&format!("/// `ray/2[{what}]`"));
        assert!(!containers("reach") && !containers("step"), "no containers");
    }

    /// `game` stepping by `(plus 1 ?x ?y)`, a static relation of three
    /// arguments whose facts also hold `(plus 0 i i)`: read with its
    /// first argument, it steps along the line.
    fn game_stepping_by_plus(n: usize, ring: bool) -> String {
        let mut kif = game(n, ring).replace("(succ ", "(plus 1 ");
        for i in 1..=n {
            kif.push_str(&format!("(plus 0 {i} {i})\n"));
        }
        kif
    }

    #[test]
    fn a_ray_stepping_by_a_static_literal_with_a_constant_is_walked() {
        for (ring, walks) in [(false, vec![false, true]), (true, vec![])] {
            let kif = game_stepping_by_plus(12, ring);
            let loaded = crate::load_bytes("t.kif".into(), kif.into()).expect("valid");
            let c = analyze_with(&loaded, Strategy::Demand).expect("compiles");
            assert_eq!(walk_steps(&c), walks, "ring: {ring}");
        }
    }

    #[test]
    fn a_ray_around_a_ring_is_not_walked() {
        // Its steps have a cycle: a walk would not end.
        let c = compiled(12, true);
        assert!(walk_steps(&c).is_empty());
    }

    #[test]
    fn the_other_strategies_walk_nothing() {
        let loaded = crate::load_bytes("t.kif".into(), game(12, false).into()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        assert!(walk_steps(&c).is_empty());
    }
}
