//! Rays as tables: the step rules of a walk in one direction are
//! evaluated at compile time for every square, into a table the walk's
//! loop reads in place of calling a step function: per square, the next
//! square and, per step rule, the fluent tests and the kept arguments
//! under which that rule takes the step. Chess's
//! `(clear_diagonal_ne_ig ?u ?v ?x ?y ?ignorex ?ignorey)` steps from
//! `(?u ?v)` onto the next square of the diagonal when that square is
//! the ignored one (`?ignorex ?ignorey`, the kept arguments, equal to
//! the row's values) or when `(cell ?u2 ?v2 b)` holds (a fluent test);
//! amazons' steps through the derived `(emptyCell ?x ?y2)` become its
//! three `(not (true (location ?x ?y2 …)))` tests.
//!
//! The table is keyed on the square (the changing inputs) and on the
//! fewest kept inputs the rules need to know (amazons' column `?x` of a
//! vertical ray); the other kept inputs are compared with the values the
//! rules' static literals give them. A rule's static literals are joined
//! over their facts, its `true` literals become tests of ground fluents,
//! and a positive literal of a derived relation is expanded through that
//! relation's rules, which must reduce the same way (a conjunction: at
//! most one rule may leave tests). A negated one holds where none of its
//! witnesses does: each witness must need one fluent test, which then
//! must fail (skirmish's `(not (cellOccupiedBy ?x ?y black))`: no black
//! piece's `location` fluent on the square). Anything else — `does`, a
//! negated literal whose witness needs two tests, a literal whose
//! variables are unbound when it is reached, a square with two
//! witnesses, a table over [`MAX_CELLS`] — leaves the walk to its step
//! function.
//!
//! A rule's tests that are, on every square, tests of one board's
//! fluents at one square ([`crate::compile::analyse::boards`]) become
//! one board test per row: the square, the contents it must hold and
//! those it must not (amazons' three `location` tests, one load).

use crate::compile::analyse::boards::Boards;
use crate::compile::analyse::domains::Domains;
use crate::compile::program::{lookup_bound, matches, Atom, Class, Lit, Pat, Program, Rule};
use crate::compile::relational::plan::Walk;
use crate::ir::terms::TermId;
use gdl_runtime::support::{TESTS_END, TESTS_FAIL};
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
/// Most kept inputs whose subsets are tried as keys.
const MAX_KEPT: usize = 8;

/// The steps of a walk in one direction as a table over its squares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayTable {
    /// The inputs the table is keyed on (indexes into the step's inputs,
    /// `Walk::positions`): the changing ones, then some kept ones.
    pub key: Vec<usize>,
    /// Per square where some rule may take the step: the key's runtime
    /// ids, the outputs' (the next square), then each rule's section.
    pub rows: Vec<Vec<u32>>,
    /// The number of outputs.
    pub outputs: usize,
    /// Per step rule, in rule order, its section of a row.
    pub sections: Vec<Section>,
}

/// One step rule's part of a ray table's row: its fluent tests (each `id
/// << 1 | negated`, padded with [`TESTS_END`]; [`TESTS_FAIL`] where the
/// rule never takes the step), or its board test (`[square, required,
/// forbidden]`, `[0, !0, !0]` where it never does), then the values the
/// kept inputs `equal` must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The rule (index into [`Program::rules`]).
    pub rule: usize,
    /// The width of its tests; none when the rule takes the step from
    /// every square of the table unconditionally but for `equal`.
    pub tests: usize,
    /// The board its tests read, when they are a board test.
    pub board: Option<usize>,
    /// The kept inputs compared with the row's values, in order.
    pub equal: Vec<usize>,
}

impl RayTable {
    /// Where section `i` starts in a row.
    pub fn offset(&self, i: usize) -> usize {
        let before = self.sections[..i].iter().map(|s| s.tests + s.equal.len());
        self.key.len() + self.outputs + before.sum::<usize>()
    }

    /// The width of a row (also of a table without rows: a walk that
    /// never steps).
    pub fn width(&self) -> usize {
        self.offset(self.sections.len())
    }
}

/// The table of `walk`'s steps in a direction, when every step rule
/// reduces to fluent tests and comparisons on every square (see the
/// module's documentation).
pub fn ray_table(
    program: &Program,
    domains: &Domains,
    boards: &Boards,
    walk: &Walk,
    forward: bool,
) -> Option<RayTable> {
    let rules: Vec<usize> = (0..program.rules.len())
        .filter(|&r| program.rules[r].head.rel == walk.step)
        .collect();
    let (inputs, outputs) = walk.positions(forward);
    let positions = |key: &[usize]| key.iter().map(|&j| inputs[j]).collect::<Vec<usize>>();
    let key = smallest_key(program, domains, &rules, walk, &inputs)?;
    let key_positions = positions(&key);
    let values: Vec<Vec<TermId>> = (key_positions.iter())
        .map(|&k| candidates(program, &rules, k))
        .collect::<Option<_>>()?;
    let squares = values.iter().try_fold(1usize, |n, v| {
        n.checked_mul(v.len()).filter(|&n| n <= MAX_SQUARES)
    })?;
    let evaluator = Evaluator {
        program,
        domains,
        budget: Cell::new(MAX_WORK),
    };
    let equal: Vec<Vec<usize>> = (rules.iter())
        .map(|&r| compared(program, &program.rules[r], &key, &inputs))
        .collect();
    let mut found: Vec<(Vec<u32>, Vec<Option<Taken>>)> = Vec::new();
    for s in 0..squares {
        let mut rest = s;
        let mut square = vec![0; key.len()];
        for c in (0..key.len()).rev() {
            square[c] = values[c][rest % values[c].len()];
            rest /= values[c].len();
        }
        let mut next: Option<Vec<u32>> = None;
        let mut taken = Vec::with_capacity(rules.len());
        for (i, &r) in rules.iter().enumerate() {
            let rule = &program.rules[r];
            let step =
                evaluator.step(rule, &key_positions, &square, &outputs, &inputs, &equal[i])?;
            if let Some((out, _)) = &step {
                if next.as_ref().is_some_and(|n| n != out) {
                    return None;
                }
                next = Some(out.clone());
            }
            taken.push(step.map(|(_, t)| t));
        }
        if let Some(next) = next {
            let mut row: Vec<u32> = square.iter().map(|&v| domains.id(v)).collect();
            row.extend(next);
            found.push((row, taken));
        }
    }
    table(boards, rules, key, outputs.len(), equal, found)
}

/// The values at head position `k` under which some of `rules` may hold:
/// a constant there, or the values of a static literal's column where
/// the variable there occurs; `None` when a rule has neither (its values
/// there are not known at compile time; the relaxed domains of a walk's
/// step relation are those of the walked relation's start, narrower than
/// the squares a backward walk starts from).
fn candidates(program: &Program, rules: &[usize], k: usize) -> Option<Vec<TermId>> {
    let mut values: Vec<TermId> = Vec::new();
    for &r in rules {
        let rule = &program.rules[r];
        match &rule.head.args[k] {
            Pat::Ground(t) => values.push(*t),
            Pat::Var(v) => {
                let column = rule.body.iter().find_map(|l| match l {
                    Lit::Pos(a)
                        if program.class[a.rel] == Class::Static
                            && !program.untabulated.contains(&a.rel) =>
                    {
                        a.args
                            .iter()
                            .position(|p| *p == Pat::Var(*v))
                            .map(|q| (a.rel, q))
                    }
                    _ => None,
                });
                let (rel, q) = column?;
                values.extend(program.facts[rel].iter().map(|f| f[q]));
            }
            Pat::Func(..) => return None,
        }
    }
    values.sort_unstable();
    values.dedup();
    Some(values)
}

/// A rule's step at one square: its fluent tests and the values of the
/// kept inputs it compares.
type Taken = (Vec<u32>, Vec<u32>);

/// The ray table of the rows `found` (key and next square, then per rule
/// its step if it may take it), within [`MAX_CELLS`].
fn table(
    boards: &Boards,
    rules: Vec<usize>,
    key: Vec<usize>,
    outputs: usize,
    equal: Vec<Vec<usize>>,
    found: Vec<(Vec<u32>, Vec<Option<Taken>>)>,
) -> Option<RayTable> {
    let mut on_boards = Vec::with_capacity(rules.len());
    let sections: Vec<Section> = (rules.iter().zip(equal).enumerate())
        .map(|(i, (&rule, equal))| {
            let taken = || found.iter().map(|(_, t)| t[i].as_ref());
            let unconditional = taken().all(|t| t.is_some_and(|(tests, _)| tests.is_empty()));
            let widest = taken().flatten().map(|(tests, _)| tests.len()).max();
            let on_board = (!unconditional)
                .then(|| board_tests(boards, &found, i))
                .flatten();
            let (tests, board) = match &on_board {
                _ if unconditional => (0, None),
                Some((board, _)) => (BOARD_TEST, Some(*board)),
                None => (widest.unwrap_or(0).max(1), None),
            };
            on_boards.push(on_board.map(|(_, rows)| rows));
            Section {
                rule,
                tests,
                board,
                equal,
            }
        })
        .collect();
    let width = key.len()
        + outputs
        + (sections.iter())
            .map(|s| s.tests + s.equal.len())
            .sum::<usize>();
    if found.len() * width > MAX_CELLS {
        return None;
    }
    let rows = (found.into_iter().enumerate())
        .map(|(r, (mut row, taken))| {
            let parts = sections.iter().zip(taken).zip(&on_boards);
            for ((section, step), on_board) in parts {
                let (mut tests, values) =
                    step.unwrap_or_else(|| (vec![TESTS_FAIL], vec![0; section.equal.len()]));
                if let Some(board_rows) = on_board {
                    tests = board_rows[r].to_vec();
                }
                tests.resize(section.tests, TESTS_END);
                row.extend(tests);
                row.extend(values);
            }
            row
        })
        .collect();
    Some(RayTable {
        key,
        rows,
        outputs,
        sections,
    })
}

/// The width of a board test: square, required and forbidden contents.
const BOARD_TEST: usize = 3;

/// Rule `i`'s tests in `found` as board tests, when on every row they
/// are tests of one board's fluents at one square: the board, and per
/// row `[square, required, forbidden]` (`[0, !0, !0]` where the rule does
/// not take the step).
fn board_tests(
    boards: &Boards,
    found: &[(Vec<u32>, Vec<Option<Taken>>)],
    i: usize,
) -> Option<(usize, Vec<[u32; BOARD_TEST]>)> {
    let mut board = None;
    let rows = (found.iter())
        .map(|(_, taken)| {
            let Some((tests, _)) = &taken[i] else {
                return Some([0, !0, !0]);
            };
            let mut test = [0; BOARD_TEST];
            let mut square = None;
            for &t in tests {
                let (b, sq, content) = boards.cell(t >> 1)?;
                if *board.get_or_insert(b) != b || *square.get_or_insert(sq) != sq {
                    return None;
                }
                test[0] = sq;
                test[1 + (t & 1) as usize] |= 1 << content;
            }
            Some(test)
        })
        .collect::<Option<Vec<_>>>()?;
    Some((board?, rows))
}

/// The key of the table: the changing inputs and the smallest set (by
/// the number of squares) of kept inputs that every rule needs bound —
/// each kept input a rule reads is keyed or bound from the key by the
/// rule's static literals.
fn smallest_key(
    program: &Program,
    domains: &Domains,
    rules: &[usize],
    walk: &Walk,
    inputs: &[usize],
) -> Option<Vec<usize>> {
    let kept: Vec<usize> = (walk.changing..inputs.len()).collect();
    if kept.len() > MAX_KEPT {
        return None;
    }
    let size = |j: usize| domains.args[walk.step][inputs[j]].len().max(1);
    let mut subsets: Vec<Vec<usize>> = (0..1usize << kept.len())
        .map(|m| {
            (0..kept.len())
                .filter(|&b| m >> b & 1 == 1)
                .map(|b| kept[b])
                .collect()
        })
        .collect();
    subsets
        .sort_by_key(|s: &Vec<usize>| (s.iter().map(|&j| size(j)).product::<usize>(), s.clone()));
    subsets.into_iter().find_map(|extra| {
        let key: Vec<usize> = (0..walk.changing).chain(extra).collect();
        let enough = rules.iter().all(|&r| {
            let rule = &program.rules[r];
            let bound = closure(program, rule, &key, inputs);
            kept.iter().all(|&j| {
                key.contains(&j)
                    || !read_elsewhere(rule, inputs[j])
                    || rule.head.args[inputs[j]].vars().iter().all(|v| bound[*v])
            })
        });
        enough.then_some(key)
    })
}

/// The variables of `rule` bound once the inputs `key` are: theirs, and
/// those of every positive static literal sharing a bound variable, to a
/// fixpoint (the evaluation then checks that each binds one value).
fn closure(program: &Program, rule: &Rule, key: &[usize], inputs: &[usize]) -> Vec<bool> {
    let mut bound = vec![false; rule.vars.len()];
    for &j in key {
        for v in rule.head.args[inputs[j]].vars() {
            bound[v] = true;
        }
    }
    loop {
        let mut grew = false;
        for lit in &rule.body {
            let Lit::Pos(a) = lit else { continue };
            if program.class[a.rel] != Class::Static || a.rel == program.true_rel {
                continue;
            }
            let vars = a.vars();
            if vars.iter().any(|&v| bound[v]) && vars.iter().any(|&v| !bound[v]) {
                vars.iter().for_each(|&v| bound[v] = true);
                grew = true;
            }
        }
        if !grew {
            return bound;
        }
    }
}

/// The kept inputs outside `key` that `rule` compares: a constant there,
/// or a variable its key and static literals bind.
fn compared(program: &Program, rule: &Rule, key: &[usize], inputs: &[usize]) -> Vec<usize> {
    let bound = closure(program, rule, key, inputs);
    (0..inputs.len())
        .filter(|j| !key.contains(j))
        .filter(|&j| {
            let pat = &rule.head.args[inputs[j]];
            !matches!(pat, Pat::Var(_)) || pat.vars().iter().all(|v| bound[*v])
        })
        .collect()
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
    /// Whether `rule` takes a step from `square` (the values of the head
    /// at `key`): `Some(None)` when it does not; else the outputs' runtime
    /// ids, its fluent tests and the values of the kept inputs `equal`;
    /// `None` when it cannot be reduced.
    fn step(
        &self,
        rule: &Rule,
        key: &[usize],
        square: &[TermId],
        outputs: &[usize],
        inputs: &[usize],
        equal: &[usize],
    ) -> Option<Option<(Vec<u32>, Taken)>> {
        let mut binding = vec![None; rule.vars.len()];
        let matched = (key.iter().zip(square))
            .all(|(&k, &v)| matches(&self.program.store, &rule.head.args[k], v, &mut binding));
        if !matched {
            return Some(None);
        }
        let body: Vec<&Lit> = rule.body.iter().collect();
        let Some((binding, tests)) = self.witness(&body, binding, 0)? else {
            return Some(None);
        };
        let value = |k: usize| lookup_bound(&self.program.store, &rule.head.args[k], &binding);
        let id = |t: TermId| self.domains.runtime_id.get(t as usize).copied();
        let out: Vec<u32> = (outputs.iter())
            .map(|&k| id(value(k)?))
            .collect::<Option<_>>()?;
        let values: Vec<u32> = (equal.iter())
            .map(|&j| id(value(inputs[j])?))
            .collect::<Option<_>>()?;
        Some(Some((out, (tests, values))))
    }

    /// The one witness of the conjunction `lits` from `binding`
    /// (`Some(None)`: it fails); `None` when it cannot be reduced to
    /// fluent tests or has two witnesses.
    fn witness(
        &self,
        lits: &[&Lit],
        binding: Vec<Option<TermId>>,
        depth: usize,
    ) -> Option<Option<Witness>> {
        let mut found = self.witnesses(lits, binding, depth, 1)?;
        match found.len() {
            0 => Some(None),
            1 => Some(found.pop()),
            _ => None,
        }
    }

    /// Every witness of the conjunction `lits` from `binding`; `None`
    /// when it cannot be reduced to fluent tests or has more than `most`.
    fn witnesses(
        &self,
        lits: &[&Lit],
        binding: Vec<Option<TermId>>,
        depth: usize,
        most: usize,
    ) -> Option<Vec<Witness>> {
        let mut found = Vec::new();
        self.solve(lits, binding, Vec::new(), (depth, most), &mut found)?;
        (found.len() <= most).then_some(found)
    }

    /// Every witness of `lits` extending `binding` and `tests`, into
    /// `found`; `None` when some literal cannot be reduced or more
    /// witnesses than `most` (of `(depth, most)`) appear.
    fn solve(
        &self,
        lits: &[&Lit],
        binding: Vec<Option<TermId>>,
        tests: Vec<u32>,
        (depth, most): (usize, usize),
        found: &mut Vec<Witness>,
    ) -> Option<()> {
        if found.len() > most || tests.len() > MAX_TESTS || self.budget.get() == 0 {
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
                        self.solve(&rest, b, tests.clone(), (depth, most), found)?;
                    }
                }
                Some(())
            }
            lit => match self.ground_literal(lit, &binding, depth)? {
                None => Some(()),
                Some(more) => {
                    let mut tests = tests;
                    tests.extend(more);
                    self.solve(&rest, binding, tests, (depth, most), found)
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
        let term = |pat: &Pat| lookup_bound(&p.store, pat, binding);
        match lit {
            Lit::Distinct(x, y) => Some((term(x)? != term(y)?).then(Vec::new)),
            Lit::Same(x, y) => Some((term(x)? == term(y)?).then(Vec::new)),
            Lit::Pos(a) | Lit::Neg(a) if a.rel == p.true_rel => {
                let negated = matches!(lit, Lit::Neg(_));
                let id = lookup_bound(&p.store, &a.args[0], binding)
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
            Lit::Neg(a) if derived(p, a) && depth < MAX_DEPTH => {
                let args: Vec<TermId> = a.args.iter().map(term).collect::<Option<_>>()?;
                self.expand_negated(a.rel, &args, depth + 1)
            }
            _ => None,
        }
    }

    /// The rules of `rel` whose heads match `args`: each one's body and
    /// the binding the match makes.
    fn rules_of<'p>(
        &'p self,
        rel: usize,
        args: &'p [TermId],
    ) -> impl Iterator<Item = (Vec<&'p Lit>, Vec<Option<TermId>>)> + 'p {
        let rules = self.program.rules.iter().filter(move |r| r.head.rel == rel);
        rules.filter_map(move |rule| {
            let mut binding = vec![None; rule.vars.len()];
            let matched = (rule.head.args.iter().zip(args))
                .all(|(pat, &t)| matches(&self.program.store, pat, t, &mut binding));
            matched.then(|| (rule.body.iter().collect(), binding))
        })
    }

    /// The fluent tests under which derived relation `rel` holds of
    /// `args`: its rules' witnesses, of which at most one may need tests
    /// (any that needs none makes it hold outright).
    fn expand(&self, rel: usize, args: &[TermId], depth: usize) -> Option<Option<Vec<u32>>> {
        let mut conditions: Vec<Vec<u32>> = Vec::new();
        for (body, binding) in self.rules_of(rel, args) {
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

    /// The fluent tests under which derived relation `rel` does not hold
    /// of `args`: it holds under any witness of any of its rules, so it
    /// fails when each witness needs one fluent test and that test fails
    /// (skirmish's `(not (cellOccupiedBy ?x ?y black))`, a `location`
    /// fluent per black piece, none of which may hold); a witness that
    /// needs no test makes it hold outright.
    fn expand_negated(
        &self,
        rel: usize,
        args: &[TermId],
        depth: usize,
    ) -> Option<Option<Vec<u32>>> {
        let mut tests: Vec<u32> = Vec::new();
        for (body, binding) in self.rules_of(rel, args) {
            for (_, witness) in self.witnesses(&body, binding, depth, MAX_TESTS)? {
                match witness[..] {
                    [] => return Some(None),
                    [test] => tests.push(test ^ 1),
                    _ => return None,
                }
            }
        }
        tests.sort_unstable();
        tests.dedup();
        (tests.len() <= MAX_TESTS).then_some(Some(tests))
    }
}

#[cfg(test)]
mod tests {
    use super::{ray_table, RayTable};
    use crate::compile::{analyze_with, generated_code, Strategy};
    use gdl_runtime::support::{TESTS_END, TESTS_FAIL};

    /// A line of 12 squares with a wall on 5 and a rook on 9, `rules`
    /// defining `ray`, which `legal` calls from the piece's square with
    /// `ig` (for a ray that may step onto an ignored square) bound to 7.
    fn game(rules: &str, extra: &str) -> String {
        let mut kif = String::from(
            "(role a)\n(init (at 1))\n(init (wall 5))\n(init (rook 9))\n\
             (<= (open ?y) (sq ?y) (not (true (wall ?y))) (not (true (rook ?y))))\n\
             (<= (next (at ?y)) (does a (go ?y)))\n\
             (<= (next (wall ?x)) (true (wall ?x)))\n\
             (<= (next (rook ?x)) (true (rook ?x)))\n\
             (<= terminal (true (at 12)))\n(goal a 100)\n",
        );
        kif.push_str(rules);
        kif.push_str(extra);
        for i in 1..=12 {
            kif.push_str(&format!("(sq {i})\n"));
            if i < 12 {
                kif.push_str(&format!("(succ {i} {})\n", i + 1));
            }
        }
        kif
    }

    /// A ray along `succ` through the open squares.
    const RAY: &str = "(<= (ray ?x ?y) (succ ?x ?y))\n\
        (<= (ray ?x ?z) (succ ?x ?y) (open ?y) (ray ?y ?z))\n\
        (<= (legal a (go ?y)) (true (at ?x)) (ray ?x ?y))\n";

    /// A ray that also steps onto the ignored square `?ig`, open or not.
    const RAY_IGNORING: &str = "(<= (ray ?x ?y ?ig) (succ ?x ?y) (sq ?ig))\n\
        (<= (ray ?x ?z ?ig) (succ ?x ?ig) (ray ?ig ?z ?ig))\n\
        (<= (ray ?x ?z ?ig) (succ ?x ?y) (open ?y) (ray ?y ?z ?ig))\n\
        (<= (legal a (go ?y)) (true (at ?x)) (ray ?x ?y 7))\n";

    /// The forward ray table of the game's one walk, with the runtime id
    /// of each term by its text.
    fn table(rules: &str, extra: &str) -> (Option<RayTable>, impl Fn(&str) -> u32) {
        let text = game(rules, extra);
        let loaded = crate::load_bytes("t.kif".into(), text.into()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Demand).expect("compiles");
        let relational = c.relational().expect("relation by relation");
        let walk = *relational
            .top_down
            .walks
            .iter()
            .flatten()
            .next()
            .expect("a walk");
        let ray = ray_table(&c.program, &c.domains, &relational.boards, &walk, true);
        let texts = c.domains.texts.clone();
        let id = move |text: &str| texts.iter().position(|t| t == text).expect("a term") as u32;
        (ray, id)
    }

    /// The row of `ray` whose first key is `from`.
    fn row(ray: &RayTable, from: u32) -> Vec<u32> {
        (ray.rows.iter().find(|r| r[0] == from))
            .expect("a row")
            .clone()
    }

    /// [`RAY`] on a board: walls and rooks are contents of `cell`.
    const BOARD: &str = "(init (cell 5 wall))\n(init (cell 9 rook))\n\
        (<= (next (cell ?x ?c)) (true (cell ?x ?c)))\n\
        (<= (open ?y) (sq ?y) (not (true (cell ?y wall))) (not (true (cell ?y rook))))\n";

    #[test]
    fn tests_of_one_boards_fluents_at_one_square_are_a_board_test() {
        let rules = RAY.replace("(open ?y)", "(free ?y)");
        let extra = BOARD.replace("open", "free");
        let (ray, id) = table(&rules, &extra);
        let ray = ray.expect("free reduces to fluent tests");
        let section = &ray.sections[0];
        assert_eq!((section.tests, section.board), (3, Some(0)));
        // Each row: the square stepped onto, no content it must hold, the
        // possible contents it must not.
        let text = game(&rules, &extra);
        let loaded = crate::load_bytes("t.kif".into(), text.clone().into()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Demand).expect("compiles");
        let boards = &c.relational().expect("relation by relation").boards;
        let cell = |fluent: &str| boards.boards[0].cell(id(fluent)).expect("on the board");
        let (five, wall) = cell("(cell 5 wall)");
        let (nine, rook) = cell("(cell 9 rook)");
        assert_eq!(row(&ray, id("4")), [id("4"), id("5"), five, 0, 1 << wall]);
        assert_eq!(row(&ray, id("8")), [id("8"), id("9"), nine, 0, 1 << rook]);
        assert_eq!(row(&ray, id("1")), [id("1"), id("2"), 0, 0, 0]);
        let code = generated_code(&text, Strategy::Demand);
        let squashed: String = code.split_whitespace().collect();
        assert!(squashed.contains("board_tests(&self.board_0,") && !code.contains("fluent_tests"));
        assert!(code.contains("fill_board(&mut self.board_0"));
    }

    /// The rows of a [`RAY`] through open squares: the steps onto 5 and 9
    /// test that the wall and the rook are not there, the step from 1
    /// tests nothing.
    fn assert_steps_past_the_wall_and_the_rook(ray: &RayTable, id: &impl Fn(&str) -> u32) {
        assert_eq!(
            row(ray, id("4")),
            [id("4"), id("5"), id("(wall 5)") << 1 | 1]
        );
        assert_eq!(
            row(ray, id("8")),
            [id("8"), id("9"), id("(rook 9)") << 1 | 1]
        );
        assert_eq!(row(ray, id("1")), [id("1"), id("2"), TESTS_END]);
    }

    #[test]
    fn a_step_through_a_negated_derived_relation_tests_that_no_witness_holds() {
        // `blocked` holds of a square holding a wall or a rook, and of 3
        // outright: the step onto 3 is never taken, the others test that
        // neither fluent holds.
        let blocked = "(<= (blocked ?y) (true (wall ?y)))\n\
            (<= (blocked ?y) (true (rook ?y)))\n(<= (blocked 3) (sq 3))\n\
            (<= (free ?y) (sq ?y) (not (blocked ?y)))\n";
        let rules = RAY.replace("(open ?y)", "(free ?y)");
        let (ray, id) = table(&rules, blocked);
        let ray = ray.expect("not blocked reduces to fluent tests");
        assert_steps_past_the_wall_and_the_rook(&ray, &id);
        assert!(!ray.rows.iter().any(|r| r[0] == id("2")));
        // A witness needing two fluents would make the negation a
        // disjunction of tests, which a row cannot hold.
        let both = "(<= (blocked ?y) (true (wall ?y)) (true (rook 9)))\n\
            (<= (free ?y) (sq ?y) (not (blocked ?y)))\n";
        assert!(table(&rules, both).0.is_none());
    }

    #[test]
    fn a_step_through_a_derived_relation_is_a_row_of_fluent_tests_per_square() {
        let (ray, id) = table(RAY, "");
        let ray = ray.expect("open reduces to fluent tests");
        assert_eq!(
            (ray.key.clone(), ray.outputs, ray.sections.len()),
            (vec![0], 1, 1)
        );
        assert_eq!((ray.sections[0].tests, ray.sections[0].equal.len()), (1, 0));
        // A row per square with a next one; the only possible walls and
        // rooks are the initial ones, so only the steps onto 5 and 9 test.
        assert_eq!(ray.rows.len(), 11);
        assert_steps_past_the_wall_and_the_rook(&ray, &id);
        assert!(!ray.rows.iter().any(|r| r[0] == id("12")));
    }

    #[test]
    fn the_ignored_square_is_a_comparison_of_the_kept_argument() {
        let (ray, id) = table(RAY_IGNORING, "");
        let ray = ray.expect("both step rules reduce");
        // Keyed on the square alone: the rule stepping onto the ignored
        // square binds it from the square by `succ`, and is compared.
        assert_eq!(ray.key, [0]);
        let onto = (ray.sections.iter())
            .position(|s| s.tests == 0)
            .expect("the step onto the ignored square tests no fluent");
        let through = 1 - onto;
        assert_eq!(ray.sections[onto].equal, [1]);
        assert!(ray.sections[through].equal.is_empty());
        let r = row(&ray, id("4"));
        assert_eq!(r[1], id("5"));
        assert_eq!(r[ray.offset(onto)], id("5"), "the ignored square must be 5");
        assert_eq!(r[ray.offset(through)], id("(wall 5)") << 1 | 1);
    }

    #[test]
    fn a_rule_that_never_steps_from_a_square_fails_its_tests_there() {
        // `hop` steps only from 3: elsewhere only the ray's rule steps.
        let hop = "(<= (ray ?x ?z) (succ ?x ?y) (hop ?x) (ray ?y ?z))\n(hop 3)\n";
        let (ray, id) = table(RAY, hop);
        let ray = ray.expect("both step rules reduce");
        let at = |square: &str, i: usize| row(&ray, id(square))[ray.offset(i)];
        let failing: Vec<usize> = (0..ray.sections.len())
            .filter(|&i| at("4", i) == TESTS_FAIL)
            .collect();
        assert_eq!(failing.len(), 1, "only hop fails from 4");
        assert_eq!(at("3", failing[0]), TESTS_END, "hop steps from 3 untested");
        assert_eq!(at("4", 1 - failing[0]), id("(wall 5)") << 1 | 1);
    }

    #[test]
    fn a_derived_relation_holding_under_two_conditions_keeps_the_step_function() {
        // (open 9) now holds when the rook is there, and when it is not.
        let (ray, _) = table(RAY, "(<= (open ?y) (sq ?y) (true (rook ?y)))\n");
        assert!(ray.is_none());
    }

    /// Code of the demand strategy for the game with `rules`.
    fn code(rules: &str, extra: &str) -> String {
        generated_code(&game(rules, extra), Strategy::Demand)
    }

    #[test]
    fn a_walk_that_never_steps_has_a_table_of_full_rows_and_none_of_them() {
        // `far` holds of 13 only, and no square steps onto 13.
        let never = "(<= (ray ?x ?y) (succ ?x ?y))
\
            (<= (ray ?x ?z) (succ ?x ?y) (far ?y) (ray ?y ?z))
\
            (<= (far 13) (true (wall 5)))
\
            (<= (legal a (go ?y)) (true (at ?x)) (ray ?x ?y))
";
        let (ray, _) = table(never, "");
        let ray = ray.expect("far reduces to a fluent test");
        assert!(ray.rows.is_empty());
        assert_eq!(ray.width(), 2, "the square and the next one");
        // Rows of no column would not compile: the loop reads the next
        // square from column 1.
        assert!(code(never, "").contains("[[u32; 2]; 0]"));
    }

    #[test]
    fn the_walk_reads_its_ray_table_instead_of_calling_a_step_function() {
        let code = |extra: &str| code(RAY, extra);
        let tabled = code("");
        assert!(tabled.contains("fluent_tests") && !tabled.contains("_forward("));
        let planned = code("(<= (open ?y) (sq ?y) (true (rook ?y)))\n");
        assert!(!planned.contains("fluent_tests") && planned.contains("_forward("));
    }
}
