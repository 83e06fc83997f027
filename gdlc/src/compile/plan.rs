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

use super::domains::Domains;
use super::normalize::{matches, Atom, Class, Lit, Pat, Program};
use crate::interp::terms::TermId;
use rustc_hash::FxHashMap;

/// A table of runtime ids emitted as a constant: rows sorted, deduplicated.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Table {
    /// Number of columns.
    pub columns: usize,
    /// The rows.
    pub rows: Vec<Vec<u32>>,
}

/// The constant tables of a program, each emitted once.
#[derive(Default)]
pub struct Tables {
    /// Tables by index.
    pub tables: Vec<Table>,
    index: FxHashMap<Table, usize>,
}

/// Fewest rows per key, on average, for which a step over a fluent table
/// walks the state's set bits (see [`Tables::walk_stride`]).
const MIN_WALK_ROWS: usize = 4;
/// Largest stride between the fluent ids of a key's rows for which a step
/// walks the state's set bits (it skips the bits in between).
const MAX_WALK_STRIDE: u32 = 4;

impl Tables {
    /// Whether a step over fluent table `table` keyed on its first `k`
    /// columns walks the set bits of the state instead of testing row by
    /// row, and the stride between the fluent ids of the rows of a key:
    /// when the rows of each key are the fluents of an id range, every
    /// `stride`-th (a predicate's fluents are numbered by their arguments:
    /// see `domains::term_order`); worth it when a key has a few rows on
    /// average and the walk skips few set bits.
    pub fn walk_stride(&self, table: usize, k: usize) -> Option<u32> {
        let t = &self.tables[table];
        let last = t.columns - 1;
        let mut stride = None;
        let mut keys = 1;
        for w in t.rows.windows(2) {
            if w[0][..k] != w[1][..k] {
                keys += 1;
                continue;
            }
            let step = w[1][last].checked_sub(w[0][last]).filter(|&d| d > 0)?;
            if *stride.get_or_insert(step) != step {
                return None;
            }
        }
        let stride = stride.unwrap_or(1);
        (stride <= MAX_WALK_STRIDE && t.rows.len() >= MIN_WALK_ROWS * keys).then_some(stride)
    }

    /// The index of a table, registering it.
    pub fn add(&mut self, mut table: Table) -> usize {
        table.rows.sort_unstable();
        table.rows.dedup();
        if let Some(&i) = self.index.get(&table) {
            return i;
        }
        self.tables.push(table.clone());
        self.index.insert(table, self.tables.len() - 1);
        self.tables.len() - 1
    }
}

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
}

impl Step {
    /// Whether the step loops over candidates (rather than filtering).
    pub fn is_loop(&self) -> bool {
        match self {
            Step::Table { negated, bind, .. } => !negated && !bind.is_empty(),
            Step::Scan(_) => true,
            _ => false,
        }
    }
}

/// The plan of one rule.
pub struct RulePlan {
    /// Index into [`Program::rules`].
    pub rule: usize,
    /// The steps, outermost first.
    pub steps: Vec<Step>,
    /// The number of leading steps after which every head variable is bound.
    pub head_bound_after: usize,
}

/// Plans every rule of `program`; rules that can never fire (a positive
/// literal no fact or possible fluent matches) get no plan.
pub fn plan_rules(program: &Program, domains: &Domains, tables: &mut Tables) -> Vec<RulePlan> {
    let mut plans = Vec::new();
    'rules: for (index, rule) in program.rules.iter().enumerate() {
        let nvars = rule.vars.len();
        let mut bound = vec![false; nvars];
        let all_stats: Vec<Option<Stats>> = rule
            .body
            .iter()
            .map(|l| stats(program, domains, l, nvars))
            .collect();
        let mut pending: Vec<(&Lit, Option<&Stats>)> = rule
            .body
            .iter()
            .zip(&all_stats)
            .map(|(l, s)| (l, s.as_ref()))
            .collect();
        let mut steps = Vec::new();
        let head_vars = rule.head.vars();
        let mut head_bound_after = if head_vars.is_empty() { 0 } else { usize::MAX };
        loop {
            // Filters whose variables are all bound go first.
            let mut k = 0;
            while k < pending.len() {
                let lit = pending[k].0;
                let ready = lit.vars().iter().all(|&v| bound[v]);
                if ready {
                    pending.remove(k);
                    match lower(program, domains, tables, lit, &bound, &[]) {
                        Lowered::Step(s) => steps.push(s),
                        Lowered::Always => {}
                        Lowered::Never => continue 'rules,
                    }
                } else {
                    k += 1;
                }
            }
            if head_bound_after == usize::MAX && head_vars.iter().all(|&v| bound[v]) {
                head_bound_after = steps.len();
            }
            if pending.is_empty() {
                break;
            }
            // The cheapest positive literal next.
            let best = pending
                .iter()
                .enumerate()
                .filter_map(|(i, (l, s))| Some((estimate((*s)?, l, &bound), i)))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .map(|(_, i)| i);
            let Some(i) = best else {
                // Only filters with unbound variables remain: unsafe rules
                // are rejected by the checks, so this cannot happen.
                unreachable!("checked rules are safe")
            };
            let lit = pending.remove(i).0;
            // Variables no other literal nor the head mentions are projected out.
            let elsewhere: Vec<usize> = lit
                .vars()
                .into_iter()
                .filter(|&v| occurrences(rule, v) > lit_occurrences(lit, v))
                .collect();
            match lower(program, domains, tables, lit, &bound, &elsewhere) {
                Lowered::Step(s) => steps.push(s),
                Lowered::Always => {}
                Lowered::Never => continue 'rules,
            }
            for v in lit.vars() {
                bound[v] = true;
            }
        }
        if head_bound_after == usize::MAX {
            head_bound_after = steps.len();
        }
        plans.push(RulePlan {
            rule: index,
            steps,
            head_bound_after,
        });
    }
    plans
}

/// A literal lowered to a step, or decided at compile time.
enum Lowered {
    Step(Step),
    Always,
    Never,
}

/// Occurrences of variable `v` in a rule's head and body.
fn occurrences(rule: &super::normalize::Rule, v: usize) -> usize {
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

/// The step of a literal given the variables bound before it; of its free
/// variables, only those in `keep` are bound by the step (the others are
/// mentioned nowhere else).
fn lower(
    program: &Program,
    domains: &Domains,
    tables: &mut Tables,
    lit: &Lit,
    bound: &[bool],
    keep: &[usize],
) -> Lowered {
    let (atom, negated) = match lit {
        Lit::Pos(a) => (a, false),
        Lit::Neg(a) => (a, true),
        Lit::Distinct(x, y) => return Lowered::Step(Step::Distinct(x.clone(), y.clone())),
        Lit::Same(x, y) => return Lowered::Step(Step::Same(x.clone(), y.clone())),
    };
    let class = program.class[atom.rel];
    let is_true = atom.rel == program.true_rel;
    if class != Class::Static && !is_true {
        let all_bound = atom.vars().iter().all(|&v| bound[v]);
        return Lowered::Step(if all_bound {
            Step::Member {
                atom: atom.clone(),
                negated,
            }
        } else {
            Step::Scan(atom.clone())
        });
    }
    let vars = atom.vars();
    let key: Vec<usize> = vars.iter().copied().filter(|&v| bound[v]).collect();
    let bind: Vec<usize> = vars
        .iter()
        .copied()
        .filter(|&v| !bound[v] && keep.contains(&v))
        .collect();
    let order: Vec<usize> = key.iter().chain(&bind).copied().collect();
    let mut binding: Vec<Option<TermId>> = vec![None; bound.len()];
    let mut rows: Vec<Vec<u32>> = Vec::new();
    let mut add_row = |binding: &[Option<TermId>], extra: Option<u32>| {
        let mut row: Vec<u32> = order
            .iter()
            .map(|&v| domains.id(binding[v].expect("matched variables are bound")))
            .collect();
        row.extend(extra);
        rows.push(row);
    };
    if is_true {
        for &f in &domains.args[program.true_rel][0] {
            binding.iter_mut().for_each(|b| *b = None);
            if matches(&program.store, &atom.args[0], f, &mut binding) {
                add_row(&binding, Some(domains.id(f)));
            }
        }
        if let (Pat::Ground(f), true) = (&atom.args[0], rows.len() == 1) {
            return Lowered::Step(Step::Fluent {
                id: domains.id(*f),
                negated,
            });
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
                add_row(&binding, None);
            }
        }
        if vars.is_empty() {
            return if rows.is_empty() == negated {
                Lowered::Always
            } else {
                Lowered::Never
            };
        }
    }
    if rows.is_empty() {
        return if negated {
            Lowered::Always
        } else {
            Lowered::Never
        };
    }
    let columns = order.len() + usize::from(is_true);
    let table = tables.add(Table { columns, rows });
    Lowered::Step(Step::Table {
        table,
        key,
        bind,
        fluent: is_true,
        negated,
        term: is_true.then(|| atom.args[0].clone()),
    })
}

/// What the planner knows of a positive literal's matches: how many there
/// are when nothing is bound, and how many distinct values each variable
/// takes among them.
struct Stats {
    rows: f64,
    distinct: Vec<f64>,
}

/// The statistics of a positive literal (`None` for the other literals).
fn stats(program: &Program, domains: &Domains, lit: &Lit, nvars: usize) -> Option<Stats> {
    let Lit::Pos(atom) = lit else { return None };
    let vars = atom.vars();
    let mut distinct = vec![1.0; nvars];
    let from_rows = |rows: Vec<Vec<TermId>>, distinct: &mut Vec<f64>| {
        for (k, &v) in vars.iter().enumerate() {
            let mut values: Vec<TermId> = rows.iter().map(|r| r[k]).collect();
            values.sort_unstable();
            values.dedup();
            distinct[v] = values.len().max(1) as f64;
        }
        rows.len() as f64
    };
    let matching = |candidates: &mut dyn Iterator<Item = Vec<TermId>>| -> Vec<Vec<TermId>> {
        let mut binding = vec![None; nvars];
        let mut out = Vec::new();
        for row in candidates {
            binding.iter_mut().for_each(|b| *b = None);
            if atom
                .args
                .iter()
                .zip(&row)
                .all(|(p, &t)| matches(&program.store, p, t, &mut binding))
            {
                out.push(vars.iter().map(|&v| binding[v].unwrap_or(0)).collect());
            }
        }
        out
    };
    let rows = if program.class[atom.rel] == Class::Static {
        let rows = matching(&mut program.facts[atom.rel].iter().cloned());
        from_rows(rows, &mut distinct)
    } else if atom.rel == program.true_rel {
        let rows = matching(&mut domains.args[program.true_rel][0].iter().map(|&f| vec![f]));
        // About one candidate fluent in four holds in a state.
        from_rows(rows, &mut distinct) / 4.0
    } else if atom.rel == program.does_rel {
        // One move per role.
        for &v in &vars {
            distinct[v] = program.roles.len().max(1) as f64;
        }
        program.roles.len().max(1) as f64
    } else {
        let product: f64 = (0..atom.args.len())
            .map(|i| domains.args[atom.rel][i].len().max(1) as f64)
            .product();
        let rows = domains.rows[atom.rel].map_or(product, |n| n as f64);
        for (i, arg) in atom.args.iter().enumerate() {
            for v in arg.vars() {
                distinct[v] = (domains.args[atom.rel][i].len().max(1) as f64).min(rows.max(1.0));
            }
        }
        // Enumerating a derived relation costs more than a table.
        rows * 2.0
    };
    Some(Stats {
        rows: rows.max(1.0),
        distinct,
    })
}

/// Estimated number of candidates a positive literal yields given the
/// bound variables: the fewer, the earlier it goes.
fn estimate(stats: &Stats, lit: &Lit, bound: &[bool]) -> f64 {
    let vars = lit.vars();
    if vars.iter().all(|&v| bound[v]) {
        return 0.5;
    }
    let mut n = stats.rows;
    for v in vars {
        if bound[v] {
            n /= stats.distinct[v];
        }
    }
    n.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::Step;
    use crate::compile::analyze;

    #[test]
    fn filters_follow_the_literal_that_binds_them_and_static_literals_become_tables() {
        let text = "(role a) (init (c 1)) (init (c 2)) (ok 1)
            (<= (next (c ?x)) (true (c ?x)) (not (bad ?x)) (ok ?x))
            (<= (bad ?x) (true (c ?x)) (true (c 2)))
            (<= (legal a go) (true (c 1)))
            (<= terminal (true (c 3))) (goal a 100)";
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let next = c
            .plans
            .iter()
            .find(|p| c.program.rules[p.rule].text.starts_with("(<= (next"))
            .expect("the next rule is planned");
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
}
