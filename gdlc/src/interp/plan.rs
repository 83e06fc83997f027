//! Join plans: each normal-form rule becomes a sequence of steps over tables.
//! Positive literals are ordered greedily, most-bound first; `not`, `distinct`
//! and equality run as soon as their variables are bound.

use super::table::{KeyPart, Table};
use crate::ir::terms::{SymId, TermData, TermId, TermStore};
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::{Atom, Term};
use rustc_hash::FxHashMap;

pub use crate::ir::RelId;

/// A term pattern with variables numbered within its rule.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// Variable number `n`.
    Var(u16),
    /// A ground term.
    Ground(TermId),
    /// A compound term that contains variables.
    Func(SymId, Box<[Pattern]>),
}

/// How one component of an index key is computed when the step runs.
#[derive(Clone, Debug)]
pub enum KeyArg {
    /// The value of a pattern whose variables are all bound.
    Value(Pattern),
    /// A fixed functor id.
    Functor(u32),
}

/// One step of a join.
#[derive(Clone, Debug)]
pub enum Step {
    /// A positive literal whose arguments are all bound: a membership test.
    Check {
        /// The relation.
        rel: RelId,
        /// The arguments.
        args: Box<[Pattern]>,
    },
    /// A positive literal that binds variables: iterate over matching rows,
    /// through an index when some arguments are known.
    Scan {
        /// The relation.
        rel: RelId,
        /// The arguments.
        args: Box<[Pattern]>,
        /// The index to use and how to build its key.
        index: Option<(usize, Box<[KeyArg]>)>,
        /// The argument positions whose values are known when the step runs.
        bound: Box<[usize]>,
    },
    /// A negated literal, all arguments bound.
    Neg {
        /// The relation.
        rel: RelId,
        /// The arguments.
        args: Box<[Pattern]>,
    },
    /// The two terms differ.
    Distinct(Pattern, Pattern),
    /// The two terms are equal.
    Same(Pattern, Pattern),
    /// A literal of a relation answered on demand: its rules run with the
    /// arguments at `inputs` bound, and the answers are memoized.
    Call {
        /// The relation.
        rel: RelId,
        /// The arguments.
        args: Box<[Pattern]>,
        /// The called form (relation and input positions), see [`Adornment`].
        adornment: usize,
        /// How the answers are used.
        mode: CallMode,
    },
}

/// How a [`Step::Call`] uses the answers of its relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallMode {
    /// Iterate over the answers, binding variables.
    Scan,
    /// Succeed if there is an answer (all arguments are inputs).
    Exists,
    /// Succeed if there is no answer (all arguments are inputs).
    Absent,
}

/// A relation called with arguments bound at some positions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Adornment {
    /// The relation.
    pub rel: RelId,
    /// The positions bound by the caller, ascending.
    pub inputs: Box<[usize]>,
}

/// The plan of one rule.
#[derive(Clone, Debug)]
pub struct RulePlan {
    /// The head relation.
    pub head_rel: RelId,
    /// The head arguments.
    pub head: Box<[Pattern]>,
    /// The join, in execution order.
    pub steps: Vec<Step>,
    /// The number of variables.
    pub vars: usize,
    /// Head positions bound by the caller before the join runs (empty for
    /// bottom-up evaluation).
    pub inputs: Box<[usize]>,
    /// Per step, `Some(end)` when the variables it and the steps up to
    /// `end` bind are read neither from `end` on nor by the head: those
    /// steps only need one witness (see [`witness_groups`]).
    pub witness_ends: Box<[Option<usize>]>,
}

/// What the planner knows about the size of a relation when it plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// The table is complete (a static relation already evaluated).
    Known,
    /// `true`: estimated from the initial state's fluents.
    Fluents,
    /// `does`: one move per role.
    Moves,
    /// Not known before the game runs.
    Unknown,
    /// Answered on demand and reading a static relation too large to
    /// materialize: every argument left unbound may multiply its answers
    /// without limit, so it is called with as many bound as can be.
    Unbounded,
}

/// What the planner needs: term interning, the relation ids, the tables (to
/// create the indexes the plans use) and what is known of their sizes.
pub struct Planner<'a> {
    /// The term store.
    pub store: &'a mut TermStore,
    /// The tables, indexed by relation id.
    pub tables: &'a mut [Table],
    /// The relation id of each atom's relation (by name and arity).
    pub rel_of: &'a dyn Fn(&Atom) -> RelId,
    /// What is known of each relation's size.
    pub sizes: &'a [Size],
    /// How many initial fluents have each functor.
    pub fluents: &'a FxHashMap<u32, usize>,
    /// Distinct values per (relation, column) of known tables, filled lazily.
    pub distinct: FxHashMap<(RelId, usize), usize>,
}

impl Planner<'_> {
    /// Plans one rule for bottom-up evaluation. The rule must be safe.
    pub fn plan(&mut self, rule: &NormalRule) -> RulePlan {
        self.plan_called(rule, &[])
    }

    /// Plans one rule for a call whose arguments at `inputs` are bound: the
    /// variables of those head arguments count as bound from the start.
    pub fn plan_called(&mut self, rule: &NormalRule, inputs: &[usize]) -> RulePlan {
        let mut vars: FxHashMap<String, u16> = FxHashMap::default();
        let head = self.patterns(&rule.head.args, &mut vars);
        let mut bound = vec![false; 0];
        let mut positives: Vec<(&Atom, Box<[Pattern]>)> = Vec::new();
        let mut filters: Vec<Step> = Vec::new();
        for literal in &rule.body {
            match literal {
                NormalLiteral::Pos(a) => {
                    let args = self.patterns(&a.args, &mut vars);
                    positives.push((a, args));
                }
                NormalLiteral::Neg(a) => {
                    let rel = (self.rel_of)(a);
                    let args = self.patterns(&a.args, &mut vars);
                    filters.push(Step::Neg { rel, args });
                }
                NormalLiteral::Distinct(x, y, _) => {
                    let x = self.pattern(x, &mut vars);
                    let y = self.pattern(y, &mut vars);
                    filters.push(Step::Distinct(x, y));
                }
                NormalLiteral::Same(x, y, _) => {
                    let x = self.pattern(x, &mut vars);
                    let y = self.pattern(y, &mut vars);
                    filters.push(Step::Same(x, y));
                }
            }
        }
        bound.resize(vars.len(), false);
        for &i in inputs {
            mark_bound(&head[i], &mut bound);
        }
        let mut steps = Vec::new();
        loop {
            filters.retain(|f| {
                if filter_vars(f).iter().all(|&v| bound[v as usize]) {
                    steps.push(f.clone());
                    false
                } else {
                    true
                }
            });
            if positives.is_empty() {
                break;
            }
            let costs: Vec<f64> = positives
                .iter()
                .map(|(atom, args)| self.estimate((self.rel_of)(atom), args, &bound))
                .collect();
            let best = (0..positives.len())
                .min_by(|&i, &j| costs[i].total_cmp(&costs[j]).then(i.cmp(&j)))
                .expect("non-empty");
            let (atom, args) = positives.remove(best);
            let rel = (self.rel_of)(atom);
            steps.push(self.scan(rel, args, &bound));
            for p in steps.last().map(step_patterns).unwrap_or_default() {
                mark_bound(p, &mut bound);
            }
        }
        // A safe rule binds every filter variable; keep any leftover last so
        // that evaluation still sees it (it then fails to match).
        steps.extend(filters);
        let mut given = vec![false; vars.len()];
        for &i in inputs {
            mark_bound(&head[i], &mut given);
        }
        let witness_ends = witness_groups(&steps, &head, given);
        RulePlan {
            head_rel: (self.rel_of)(&rule.head),
            head,
            steps,
            vars: vars.len(),
            inputs: inputs.into(),
            witness_ends,
        }
    }

    /// Estimated rows a literal yields with the variables in `bound` known;
    /// a literal whose arguments are all known costs nothing (it is a test).
    fn estimate(&mut self, rel: RelId, args: &[Pattern], bound: &[bool]) -> f64 {
        if args.iter().all(|p| is_bound(p, bound)) {
            return 0.0;
        }
        let known = args.iter().filter(|p| is_bound(p, bound)).count() as i32;
        match self.sizes[rel] {
            Size::Known => {
                let mut rows = f64::from(self.tables[rel].len());
                for (i, p) in args.iter().enumerate() {
                    if is_bound(p, bound) {
                        let tables = &*self.tables;
                        let distinct = *self.distinct.entry((rel, i)).or_insert_with(|| {
                            let mut values: Vec<TermId> =
                                tables[rel].rows().map(|r| r[i]).collect();
                            values.sort_unstable();
                            values.dedup();
                            values.len()
                        });
                        rows /= distinct.max(1) as f64;
                    }
                }
                rows
            }
            Size::Fluents => match args.first() {
                Some(Pattern::Func(sym, sub)) => {
                    let functor = self.store.functor_id(*sym, sub.len());
                    let count = self.fluents.get(&functor).copied().unwrap_or(1) as f64;
                    let bound_inside = sub.iter().filter(|p| is_bound(p, bound)).count() as i32;
                    count.max(1.0) / 2f64.powi(bound_inside)
                }
                _ => self.fluents.values().sum::<usize>().max(1) as f64,
            },
            Size::Moves => 1.0,
            Size::Unknown => 100.0 / 10f64.powi(known),
            Size::Unbounded => 100.0 * 10f64.powi(args.len() as i32 - known),
        }
    }

    fn scan(&mut self, rel: RelId, args: Box<[Pattern]>, bound: &[bool]) -> Step {
        if args.iter().all(|p| is_bound(p, bound)) {
            return Step::Check { rel, args };
        }
        let mut spec = Vec::new();
        let mut key = Vec::new();
        let mut known = Vec::new();
        for (i, p) in args.iter().enumerate() {
            if is_bound(p, bound) {
                known.push(i);
                spec.push(KeyPart::Value(i));
                key.push(KeyArg::Value(p.clone()));
            } else if let Pattern::Func(sym, sub) = p {
                spec.push(KeyPart::Functor(i));
                let functor = self.store.functor_id(*sym, sub.len());
                key.push(KeyArg::Functor(functor));
            }
        }
        let index = (!spec.is_empty()).then(|| {
            let id = self.tables[rel].index_on(&spec, self.store);
            (id, key.into_boxed_slice())
        });
        Step::Scan {
            rel,
            args,
            index,
            bound: known.into(),
        }
    }

    fn patterns(&mut self, terms: &[Term], vars: &mut FxHashMap<String, u16>) -> Box<[Pattern]> {
        terms.iter().map(|t| self.pattern(t, vars)).collect()
    }

    /// The pattern of a term, numbering its variables in `vars`.
    pub fn pattern(&mut self, term: &Term, vars: &mut FxHashMap<String, u16>) -> Pattern {
        match term {
            Term::Const(name, _) => Pattern::Ground(self.store.constant(name)),
            Term::Var(name, _) => {
                let next = vars.len() as u16;
                Pattern::Var(*vars.entry(name.clone()).or_insert(next))
            }
            Term::Func(name, args, _) => {
                let sym = self.store.symbol(name);
                let args = self.patterns(args, vars);
                let ground: Option<Vec<TermId>> = args
                    .iter()
                    .map(|a| match a {
                        Pattern::Ground(t) => Some(*t),
                        _ => None,
                    })
                    .collect();
                match ground {
                    Some(ids) => {
                        Pattern::Ground(self.store.intern(TermData::Func(sym, ids.into())))
                    }
                    None => Pattern::Func(sym, args),
                }
            }
        }
    }
}

/// Per step, where the group of steps that starts there and needs only one
/// witness ends: a step that binds variables starts one when, from some
/// later step `end` on, neither the steps nor the head read any variable
/// first bound in between. Every binding of those variables leads to the
/// same derivations, so enumerating more than one only repeats them (a
/// helper unfolded into its caller with a free variable, such as
/// `(true (cell ?any ?y ?c)) (distinct ?c o)`, multiplied the work of
/// every later step by the cells of a row). `given`: the variables bound
/// before the first step.
fn witness_groups(steps: &[Step], head: &[Pattern], mut given: Vec<bool>) -> Box<[Option<usize>]> {
    let mut head_vars = Vec::new();
    head.iter().for_each(|p| collect_vars(p, &mut head_vars));
    let vars: Vec<Vec<u16>> = steps.iter().map(filter_vars).collect();
    // The last step reading each variable (`steps.len()` for the head).
    let mut last_read = vec![None; given.len()];
    for (i, vs) in vars.iter().enumerate() {
        vs.iter().for_each(|&v| last_read[v as usize] = Some(i));
    }
    head_vars
        .iter()
        .for_each(|&v| last_read[v as usize] = Some(steps.len()));
    let mut ends = vec![None; steps.len()];
    for (i, end) in ends.iter_mut().enumerate() {
        if vars[i].iter().all(|&v| given[v as usize]) {
            continue;
        }
        let mut dead_from = None::<usize>;
        for (j, vs) in vars.iter().enumerate().skip(i) {
            for &v in vs.iter().filter(|&&v| !given[v as usize]) {
                let read = last_read[v as usize].unwrap_or(j);
                dead_from = Some(dead_from.map_or(read + 1, |d| d.max(read + 1)));
            }
            if dead_from == Some(j + 1) {
                *end = Some(j + 1);
                break;
            }
        }
        vars[i].iter().for_each(|&v| given[v as usize] = true);
    }
    ends.into()
}

fn is_bound(p: &Pattern, bound: &[bool]) -> bool {
    match p {
        Pattern::Var(v) => bound[*v as usize],
        Pattern::Ground(_) => true,
        Pattern::Func(_, args) => args.iter().all(|a| is_bound(a, bound)),
    }
}

fn collect_vars(p: &Pattern, out: &mut Vec<u16>) {
    match p {
        Pattern::Var(v) => out.push(*v),
        Pattern::Ground(_) => {}
        Pattern::Func(_, args) => args.iter().for_each(|a| collect_vars(a, out)),
    }
}

fn mark_bound(p: &Pattern, bound: &mut [bool]) {
    let mut vs = Vec::new();
    collect_vars(p, &mut vs);
    for v in vs {
        bound[v as usize] = true;
    }
}

fn step_patterns(step: &Step) -> Vec<&Pattern> {
    match step {
        Step::Check { args, .. } | Step::Scan { args, .. } | Step::Neg { args, .. } => {
            args.iter().collect()
        }
        Step::Call { args, .. } => args.iter().collect(),
        Step::Distinct(a, b) | Step::Same(a, b) => vec![a, b],
    }
}

fn filter_vars(step: &Step) -> Vec<u16> {
    let mut vs = Vec::new();
    for p in step_patterns(step) {
        collect_vars(p, &mut vs);
    }
    vs
}

/// The relation a step reads, the argument positions bound when it runs and
/// how it uses the rows; `None` for steps that read no relation or read one
/// with no argument bound.
pub fn call_inputs(step: &Step) -> Option<(RelId, Box<[usize]>, CallMode)> {
    match step {
        Step::Check { rel, args } => Some((*rel, (0..args.len()).collect(), CallMode::Exists)),
        Step::Neg { rel, args } => Some((*rel, (0..args.len()).collect(), CallMode::Absent)),
        Step::Scan { rel, bound, .. } if !bound.is_empty() => {
            Some((*rel, bound.clone(), CallMode::Scan))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(v: u16) -> Pattern {
        Pattern::Var(v)
    }

    fn scan(args: &[u16]) -> Step {
        Step::Scan {
            rel: 0,
            args: args.iter().map(|&v| var(v)).collect(),
            index: None,
            bound: Box::new([]),
        }
    }

    #[test]
    fn steps_whose_variables_nothing_reads_later_need_one_witness() {
        // (head ?0 ?3) :- (a ?0) (b ?0 ?1 ?2) (distinct ?1 ?2) (c ?0 ?3)
        let steps = [
            scan(&[0]),
            scan(&[0, 1, 2]),
            Step::Distinct(var(1), var(2)),
            scan(&[0, 3]),
        ];
        let ends = witness_groups(&steps, &[var(0), var(3)], vec![false; 4]);
        // ?1 and ?2 are read up to the distinct: steps 1 and 2 are one
        // group, ending at step 3; ?0 and ?3 are the head's.
        assert_eq!(&ends[..], [None, Some(3), None, None]);
        // A head that reads ?1 keeps every binding.
        let ends = witness_groups(&steps, &[var(1), var(3)], vec![false; 4]);
        assert_eq!(&ends[..], [None, None, None, None]);
        // With ?3 not in the head, the last scan needs one witness too.
        let ends = witness_groups(&steps, &[var(0)], vec![false; 4]);
        assert_eq!(&ends[..], [None, Some(3), None, Some(4)]);
    }
}
