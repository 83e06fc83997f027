//! Rays as tables: a walk's step rule that reads a derived relation
//! (amazons' `(emptyCell ?x ?y2)` at the next square) is evaluated at
//! compile time for every square its inputs can take, into a table: per
//! square, the next square and the fluent tests that decide whether the
//! step is taken (`emptyCell`'s three `(not (true (location ?x ?y2 …)))`).
//! The step is then one lookup and a few bit tests, where its plan would
//! test a derived relation's container (evaluated for every square of the
//! board each state) after a lookup of the next square.
//!
//! The rule's static literals are joined over their facts, its `true`
//! literals become tests of ground fluents, and a positive literal of a
//! derived relation is expanded through that relation's rules, which
//! must reduce the same way (a conjunction: at most one rule may leave
//! tests). Anything else — `does`, a negated derived literal, a literal
//! whose variables are unbound when it is reached, a square with two
//! witnesses — leaves the rule to its plan.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{matches, Atom, Class, Lit, Pat, Program, Rule};
use crate::compile::relational::plan::Walk;
use crate::ir::terms::TermId;
use gdl_runtime::support::TESTS_END;
use std::cell::Cell;

/// Most squares (values of the keyed inputs together) a table covers.
const MAX_SQUARES: usize = 1 << 14;
/// Most cells (rows × columns) of a table: 16 KiB, so that the walks'
/// tables stay in the first-level cache beside the state. Keyed on a
/// step counter as well as the square, linesOfAction's would hold
/// 32 K cells, and its walks ran 4 % slower for the fewer instructions.
const MAX_CELLS: usize = 1 << 12;
/// Deepest nesting of derived relations expanded.
const MAX_DEPTH: usize = 4;
/// Most fluent tests a square's step may need.
const MAX_TESTS: usize = 16;
/// Most literals tried in evaluating one rule over all its squares.
const MAX_WORK: usize = 1 << 22;

/// A walk's step rule as a table over its squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayTable {
    /// The inputs the table is keyed on: indexes into the step's inputs
    /// (`Walk::positions`), those the rule reads.
    pub key: Vec<usize>,
    /// Pairs of inputs that must be equal (the head repeats a variable):
    /// the first is not keyed on.
    pub same: Vec<(usize, usize)>,
    /// Per square where the step can be taken: the key's runtime ids, the
    /// outputs' (the next square), then [`RayTable::tests`] fluent tests,
    /// each `id << 1 | negated`, padded with [`TESTS_END`].
    pub rows: Vec<Vec<u32>>,
    /// The number of outputs.
    pub outputs: usize,
    /// The width of a row's tests.
    pub tests: usize,
}

/// The table of step rule `rule` of `walk` in a direction, when the rule
/// reads a derived relation and every square's step reduces to fluent
/// tests (see the module's documentation).
pub fn ray_table(
    program: &Program,
    domains: &Domains,
    rule: &Rule,
    walk: &Walk,
    forward: bool,
) -> Option<RayTable> {
    let reads_derived = rule.body.iter().any(|l| match l {
        Lit::Pos(a) => derived(program, a),
        _ => false,
    });
    if !reads_derived {
        return None;
    }
    let (inputs, outputs) = walk.positions(forward);
    // An input that repeats an earlier one's variable is compared with it,
    // not keyed on.
    let mut key: Vec<usize> = Vec::new();
    let mut same = Vec::new();
    for j in (0..inputs.len()).filter(|&j| read_elsewhere(rule, inputs[j])) {
        let head = &rule.head.args;
        match key.iter().find(|&&i| {
            matches!(head[inputs[j]], Pat::Var(_)) && head[inputs[i]] == head[inputs[j]]
        }) {
            Some(&i) => same.push((j, i)),
            None => key.push(j),
        }
    }
    let values: Vec<&[TermId]> = (key.iter())
        .map(|&j| domains.args[rule.head.rel][inputs[j]].as_slice())
        .collect();
    // An open argument (terms built at run time) lists no values.
    if values.iter().any(|v| v.is_empty()) {
        return None;
    }
    let squares = values.iter().try_fold(1usize, |n, v| {
        n.checked_mul(v.len()).filter(|&n| n <= MAX_SQUARES)
    })?;
    let evaluator = Evaluator {
        program,
        domains,
        budget: Cell::new(MAX_WORK),
    };
    let mut rows: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    for s in 0..squares {
        let mut binding = vec![None; rule.vars.len()];
        let mut rest = s;
        let mut square = vec![0; key.len()];
        for c in (0..key.len()).rev() {
            let value = values[c][rest % values[c].len()];
            rest /= values[c].len();
            square[c] = value;
        }
        let matched = (key.iter().zip(&square))
            .all(|(&j, &v)| matches(&program.store, &rule.head.args[inputs[j]], v, &mut binding));
        if !matched {
            continue;
        }
        let body: Vec<&Lit> = rule.body.iter().collect();
        let Some((binding, tests)) = evaluator.witness(&body, binding, 0)? else {
            continue;
        };
        let mut row: Vec<u32> = square.iter().map(|&v| domains.id(v)).collect();
        for &k in &outputs {
            let Pat::Var(v) = rule.head.args[k] else {
                return None;
            };
            row.push(domains.id(binding[v]?));
        }
        rows.push((row, tests));
    }
    let tests = rows.iter().map(|(_, t)| t.len()).max().unwrap_or(0);
    let columns = key.len() + outputs.len() + tests;
    if rows.len() * columns > MAX_CELLS {
        return None;
    }
    let rows = (rows.into_iter())
        .map(|(mut row, mut t)| {
            t.resize(tests, TESTS_END);
            row.extend(t);
            row
        })
        .collect();
    Some(RayTable {
        key,
        same,
        rows,
        outputs: outputs.len(),
        tests,
    })
}

/// Whether `atom` is over a derived relation (neither static nor a
/// keyword).
fn derived(program: &Program, atom: &Atom) -> bool {
    program.class[atom.rel] != Class::Static
        && atom.rel != program.true_rel
        && atom.rel != program.does_rel
}

/// Whether the head argument at `position` matters to the rule: not a
/// variable, or a variable occurring elsewhere (in the body or at another
/// head position).
fn read_elsewhere(rule: &Rule, position: usize) -> bool {
    let Pat::Var(v) = rule.head.args[position] else {
        return true;
    };
    let in_head =
        (rule.head.args.iter().enumerate()).any(|(k, a)| k != position && a.vars().contains(&v));
    in_head || rule.body.iter().any(|l| l.vars().contains(&v))
}

/// A binding of a rule's variables and the fluent tests it needs.
type Witness = (Vec<Option<TermId>>, Vec<u32>);

/// Evaluates conjunctions at compile time (see the module's
/// documentation).
struct Evaluator<'a> {
    program: &'a Program,
    domains: &'a Domains,
    /// The literals it may still try ([`MAX_WORK`] to start).
    budget: Cell<usize>,
}

impl Evaluator<'_> {
    /// The one witness of the conjunction `lits` from `binding`
    /// (`Some(None)`: it fails); `None` when it cannot be reduced to
    /// fluent tests or has two witnesses.
    fn witness(
        &self,
        lits: &[&Lit],
        binding: Vec<Option<TermId>>,
        depth: usize,
    ) -> Option<Option<Witness>> {
        let mut found = Vec::new();
        self.solve(lits, binding, Vec::new(), depth, &mut found)?;
        match found.len() {
            0 => Some(None),
            1 => Some(found.pop()),
            _ => None,
        }
    }

    /// Every witness of `lits` extending `binding` and `tests`, into
    /// `found`; `None` when some literal cannot be reduced or a second
    /// witness appears.
    fn solve(
        &self,
        lits: &[&Lit],
        binding: Vec<Option<TermId>>,
        tests: Vec<u32>,
        depth: usize,
        found: &mut Vec<Witness>,
    ) -> Option<()> {
        if found.len() > 1 || tests.len() > MAX_TESTS || self.budget.get() == 0 {
            return None;
        }
        self.budget.set(self.budget.get() - 1);
        let Some(i) = self.next_literal(lits, &binding) else {
            if lits.is_empty() {
                found.push((binding, tests));
                return Some(());
            }
            return None;
        };
        let rest: Vec<&Lit> = (lits.iter().enumerate())
            .filter(|&(j, _)| j != i)
            .map(|(_, &l)| l)
            .collect();
        match lits[i] {
            Lit::Pos(a) if self.program.class[a.rel] == Class::Static => {
                if self.program.untabulated.contains(&a.rel) {
                    return None;
                }
                for fact in &self.program.facts[a.rel] {
                    let mut b = binding.clone();
                    let ok = (a.args.iter().zip(fact))
                        .all(|(p, &t)| matches(&self.program.store, p, t, &mut b));
                    if ok {
                        self.solve(&rest, b, tests.clone(), depth, found)?;
                    }
                }
                Some(())
            }
            lit => match self.ground_literal(lit, &binding, depth)? {
                None => Some(()),
                Some(more) => {
                    let mut tests = tests;
                    tests.extend(more);
                    self.solve(&rest, binding, tests, depth, found)
                }
            },
        }
    }

    /// The literal to take next: a static one with a bound or constant
    /// argument, else any static one, else one whose variables are all
    /// bound.
    fn next_literal(&self, lits: &[&Lit], binding: &[Option<TermId>]) -> Option<usize> {
        let bound = |l: &Lit| l.vars().iter().all(|&v| binding[v].is_some());
        let is_static =
            |l: &Lit| matches!(l, Lit::Pos(a) if self.program.class[a.rel] == Class::Static);
        let keyed = |l: &Lit| match l {
            Lit::Pos(a) => a.args.iter().any(|p| match p {
                Pat::Var(v) => binding[*v].is_some(),
                _ => true,
            }),
            _ => false,
        };
        (lits.iter().position(|l| is_static(l) && keyed(l)))
            .or_else(|| lits.iter().position(|l| is_static(l)))
            .or_else(|| lits.iter().position(|l| bound(l)))
    }

    /// A literal whose variables are bound, not over a static relation:
    /// `None` (outside) when it cannot be reduced; `Some(None)` when it
    /// fails; else the fluent tests it needs.
    fn ground_literal(
        &self,
        lit: &Lit,
        binding: &[Option<TermId>],
        depth: usize,
    ) -> Option<Option<Vec<u32>>> {
        let p = self.program;
        let term = |pat: &Pat| ground(p, pat, binding);
        match lit {
            Lit::Distinct(x, y) => Some((term(x)? != term(y)?).then(Vec::new)),
            Lit::Same(x, y) => Some((term(x)? == term(y)?).then(Vec::new)),
            Lit::Pos(a) | Lit::Neg(a) if a.rel == p.true_rel => {
                let negated = matches!(lit, Lit::Neg(_));
                let id = ground(p, &a.args[0], binding)
                    .and_then(|f| self.domains.runtime_id.get(f as usize).copied())
                    .filter(|&id| (id as usize) < self.domains.fluents);
                Some(match (id, negated) {
                    (Some(id), _) => Some(vec![id << 1 | u32::from(negated)]),
                    (None, true) => Some(Vec::new()),
                    (None, false) => None,
                })
            }
            Lit::Pos(a) if derived(p, a) && depth < MAX_DEPTH => {
                let args: Vec<TermId> = a.args.iter().map(term).collect::<Option<_>>()?;
                self.expand(a.rel, &args, depth + 1)
            }
            _ => None,
        }
    }

    /// The fluent tests under which derived relation `rel` holds of
    /// `args`: its rules' witnesses, of which at most one may need tests
    /// (any that needs none makes it hold outright).
    fn expand(&self, rel: usize, args: &[TermId], depth: usize) -> Option<Option<Vec<u32>>> {
        let mut conditions: Vec<Vec<u32>> = Vec::new();
        for rule in self.program.rules.iter().filter(|r| r.head.rel == rel) {
            let mut binding = vec![None; rule.vars.len()];
            let matched = (rule.head.args.iter().zip(args))
                .all(|(pat, &t)| matches(&self.program.store, pat, t, &mut binding));
            if !matched {
                continue;
            }
            let body: Vec<&Lit> = rule.body.iter().collect();
            if let Some((_, tests)) = self.witness(&body, binding, depth)? {
                conditions.push(tests);
            }
        }
        if conditions.iter().any(Vec::is_empty) {
            return Some(Some(Vec::new()));
        }
        match conditions.len() {
            0 => Some(None),
            1 => conditions.pop().map(Some),
            _ => None,
        }
    }
}

/// The ground term `pat` stands for under `binding`, if every variable is
/// bound and the term exists.
fn ground(program: &Program, pat: &Pat, binding: &[Option<TermId>]) -> Option<TermId> {
    match pat {
        Pat::Ground(t) => Some(*t),
        Pat::Var(v) => binding[*v],
        Pat::Func(symbol, args) => {
            let args: Vec<TermId> = (args.iter())
                .map(|a| ground(program, a, binding))
                .collect::<Option<_>>()?;
            program.store.lookup_func(*symbol, &args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ray_table, RayTable};
    use crate::compile::{analyze_with, generate_with, Strategy};
    use gdl_runtime::support::TESTS_END;

    /// A line of 12 squares with a wall on 5 and a rook on 9: `ray` walks
    /// along `succ` through the squares that are `open`, `extra` rules
    /// added.
    fn game(extra: &str) -> String {
        let mut kif = String::from(
            "(role a)\n(init (at 1))\n(init (wall 5))\n(init (rook 9))\n\
             (<= (open ?y) (sq ?y) (not (true (wall ?y))) (not (true (rook ?y))))\n\
             (<= (ray ?x ?y) (succ ?x ?y))\n\
             (<= (ray ?x ?z) (succ ?x ?y) (open ?y) (ray ?y ?z))\n\
             (<= (legal a (go ?y)) (true (at ?x)) (ray ?x ?y))\n\
             (<= (next (at ?y)) (does a (go ?y)))\n\
             (<= (next (wall ?x)) (true (wall ?x)))\n\
             (<= (next (rook ?x)) (true (rook ?x)))\n\
             (<= terminal (true (at 12)))\n(goal a 100)\n",
        );
        kif.push_str(extra);
        for i in 1..=12 {
            kif.push_str(&format!("(sq {i})\n"));
            if i < 12 {
                kif.push_str(&format!("(succ {i} {})\n", i + 1));
            }
        }
        kif
    }

    /// The ray table of the forward step rule of the game's one walk, with
    /// the runtime id of each fluent by its text.
    fn table(extra: &str) -> (Option<RayTable>, impl Fn(&str) -> u32) {
        let loaded = crate::load_bytes("t.kif".into(), game(extra).into()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Demand).expect("compiles");
        let relational = c.relational().expect("relation by relation");
        let walk = *relational
            .top_down
            .walks
            .iter()
            .flatten()
            .next()
            .expect("a walk");
        let plan = (relational.plans.iter())
            .find(|p| c.program.rules[p.rule].head.rel == walk.step && p.walk_step == Some(true))
            .expect("a forward step rule");
        let ray = ray_table(
            &c.program,
            &c.domains,
            &c.program.rules[plan.rule],
            &walk,
            true,
        );
        let texts = c.domains.texts.clone();
        let id = move |text: &str| texts.iter().position(|t| t == text).expect("a term") as u32;
        (ray, id)
    }

    #[test]
    fn a_step_through_a_derived_relation_is_a_row_of_fluent_tests_per_square() {
        let (ray, id) = table("");
        let ray = ray.expect("open reduces to fluent tests");
        assert_eq!((ray.key.clone(), ray.outputs, ray.tests), (vec![0], 1, 1));
        // A row per square with a next one; the only possible walls and
        // rooks are the initial ones, so only the steps onto 5 and 9 test.
        assert_eq!(ray.rows.len(), 11);
        let row = |from: &str| {
            (ray.rows.iter())
                .find(|r| r[0] == id(from))
                .expect("a row")
                .clone()
        };
        assert_eq!(row("4"), [id("4"), id("5"), id("(wall 5)") << 1 | 1]);
        assert_eq!(row("8"), [id("8"), id("9"), id("(rook 9)") << 1 | 1]);
        assert_eq!(row("1"), [id("1"), id("2"), TESTS_END]);
        assert!(!ray.rows.iter().any(|r| r[0] == id("12")));
    }

    #[test]
    fn a_derived_relation_holding_under_two_conditions_keeps_the_plan() {
        // (open 9) now holds when the rook is there, and when it is not.
        let (ray, _) = table("(<= (open ?y) (sq ?y) (true (rook ?y)))\n");
        assert!(ray.is_none());
    }

    #[test]
    fn the_generated_step_reads_its_ray_table() {
        let code = |extra: &str| {
            let loaded = crate::load_bytes("t.kif".into(), game(extra).into()).expect("valid");
            generate_with(&loaded, Strategy::Demand, "t.bin")
                .expect("compiles")
                .code
        };
        assert!(code("").contains("fluent_tests"));
        assert!(!code("(<= (open ?y) (sq ?y) (true (rook ?y)))\n").contains("fluent_tests"));
    }
}
