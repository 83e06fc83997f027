//! Fused lookups: a run of consecutive steps over constant tables in a
//! plan — static relations, ending perhaps with one `true` test — joined
//! at compile time into one table keyed on what is bound before the run.
//! A step of a ray, `(next_file ?u ?u2) (next_rank ?v ?v2) (true (cell
//! ?u2 ?v2 b))`, becomes one lookup by the square `(?u, ?v)` that gives
//! the next square and the fluent to test, instead of three lookups.

use super::plan::{key_box, RulePlan, Step, Table, Tables};
use rustc_hash::FxHashMap;

/// Most slots of a fused table's key box: the box of a direct index, so
/// that the fused lookup is one slot computation (a larger box would be
/// searched, which can cost more than the lookups it replaces).
const MAX_KEY_SLOTS: usize = 1 << 16;
/// Most rows of a fused table beyond those of the tables it joins: a
/// run whose steps multiply each other's rows stays apart.
const MAX_EXTRA_ROWS: usize = 256;

/// Fuses the runs of every plan ([`fuse_plan`]).
pub fn fuse(plans: &mut [RulePlan], tables: &mut Tables) {
    for plan in plans {
        fuse_plan(plan, tables);
    }
}

/// Replaces each run of two or more fusable steps of `plan` (see
/// [`fusable`]), one of them looked up by a key, by one step over their
/// join, when that join is small ([`MAX_EXTRA_ROWS`]) and keyed on a box
/// of at most [`MAX_KEY_SLOTS`].
/// A run does not cross the step after which the head is bound: the
/// steps after it look for one witness, those before enumerate.
fn fuse_plan(plan: &mut RulePlan, tables: &mut Tables) {
    let mut i = 0;
    while i < plan.steps.len() {
        let mut run = run_length(&plan.steps[i..], tables);
        if i < plan.head_bound_after {
            run = run.min(plan.head_bound_after - i);
        }
        if run >= 2 && plan.steps[i..i + run].iter().any(keyed) {
            if let Some(fused) = join(&plan.steps[i..i + run], tables) {
                plan.steps.splice(i..i + run, [fused]);
                if plan.head_bound_after > i {
                    plan.head_bound_after -= run - 1;
                }
            }
        }
        i += 1;
    }
}

/// Whether a step looks its rows up by a key: a run of steps without
/// keys (a product of static enumerations) saves no lookup when joined.
fn keyed(step: &Step) -> bool {
    matches!(step, Step::Table { key, .. } if !key.is_empty())
}

/// Whether a step can be part of a fused run (`Some(ends_run)`): a
/// positive step over a static table, or a positive `true` test that does
/// not walk the state's set bits (a walk visits the few fluents that
/// hold; a fused table would test every row), which ends the run.
fn fusable(step: &Step, tables: &Tables) -> Option<bool> {
    match step {
        Step::Table {
            negated: false,
            fluent,
            table,
            key,
            ..
        } => match fluent {
            false => Some(false),
            true => tables
                .walk_stride(*table, key.len())
                .is_none()
                .then_some(true),
        },
        _ => None,
    }
}

/// The number of fusable steps at the start of `steps`, a fluent step
/// ending the run.
fn run_length(steps: &[Step], tables: &Tables) -> usize {
    let mut n = 0;
    for step in steps {
        match fusable(step, tables) {
            Some(ends_run) => {
                n += 1;
                if ends_run {
                    break;
                }
            }
            None => break,
        }
    }
    n
}

/// One step of a run as the join sees it: its table's rows and which
/// variable (or, `None`, the fluent) each column holds.
struct Part<'t> {
    rows: &'t [Vec<u32>],
    columns: Vec<Option<usize>>,
}

/// The step over the join of `run`, keyed on the variables its keys read
/// that no earlier step of the run binds (the plan bound them before),
/// binding every variable its steps bind; `None` when the join is too
/// large or its key box too wide.
fn join(run: &[Step], tables: &mut Tables) -> Option<Step> {
    let mut key: Vec<usize> = Vec::new();
    let mut bind: Vec<usize> = Vec::new();
    let mut parts = Vec::new();
    let (mut fluent, mut term) = (false, None);
    for step in run {
        let Step::Table {
            table,
            key: k,
            bind: b,
            fluent: f,
            term: t,
            ..
        } = step
        else {
            return None;
        };
        for &v in k {
            if !bind.contains(&v) && !key.contains(&v) {
                key.push(v);
            }
        }
        bind.extend(b);
        let mut columns: Vec<Option<usize>> = k.iter().chain(b).map(|&v| Some(v)).collect();
        if *f {
            columns.push(None);
            (fluent, term) = (true, t.clone());
        }
        parts.push(Part {
            rows: &tables.tables[*table].rows,
            columns,
        });
    }
    let columns: Vec<Option<usize>> = key
        .iter()
        .chain(&bind)
        .map(|&v| Some(v))
        .chain(fluent.then_some(None))
        .collect();
    let limit = parts.iter().map(|p| p.rows.len()).sum::<usize>() + MAX_EXTRA_ROWS;
    let rows = natural_join(&parts, &columns, limit)?;
    if key_box(&rows, key.len()).is_some_and(|(_, _, volume)| volume > MAX_KEY_SLOTS) {
        return None;
    }
    let table = tables.add(Table {
        columns: columns.len(),
        rows,
        fluent_key: (fluent && !bind.is_empty()).then_some(key.len()),
    });
    Some(Step::Table {
        table,
        key,
        bind,
        fluent,
        negated: false,
        term,
        fused: run.len(),
    })
}

/// The rows of the join of `parts` on their shared variables, projected
/// on `columns`; `None` past `limit` rows. Each part is joined through an
/// index of its rows by the columns the rows so far already hold.
fn natural_join(
    parts: &[Part<'_>],
    columns: &[Option<usize>],
    limit: usize,
) -> Option<Vec<Vec<u32>>> {
    let mut held: Vec<Option<usize>> = Vec::new();
    let mut partial: Vec<Vec<u32>> = vec![Vec::new()];
    for part in parts {
        let shared: Vec<(usize, usize)> = (part.columns.iter().enumerate())
            .filter_map(|(c, col)| Some((held.iter().position(|h| h == col)?, c)))
            .collect();
        let new: Vec<usize> = (0..part.columns.len())
            .filter(|c| !shared.iter().any(|&(_, s)| s == *c))
            .collect();
        let mut index: FxHashMap<Vec<u32>, Vec<&[u32]>> = FxHashMap::default();
        for values in part.rows {
            let at = shared.iter().map(|&(_, c)| values[c]).collect();
            index.entry(at).or_default().push(values);
        }
        let mut next = Vec::new();
        for row in &partial {
            let at: Vec<u32> = shared.iter().map(|&(h, _)| row[h]).collect();
            for values in index.get(&at).into_iter().flatten() {
                let mut extended = row.clone();
                extended.extend(new.iter().map(|&c| values[c]));
                next.push(extended);
                if next.len() > limit {
                    return None;
                }
            }
        }
        held.extend(new.iter().map(|&c| part.columns[c]));
        partial = next;
    }
    let at: Vec<usize> = (columns.iter())
        .map(|c| held.iter().position(|h| h == c).expect("a joined column"))
        .collect();
    Some(
        partial
            .iter()
            .map(|row| at.iter().map(|&h| row[h]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::{natural_join, Part};
    use crate::compile::relational::plan::Step;
    use crate::compile::{analyze_with, Strategy};

    /// `(next ?x ?y)` then `(true (cell ?y ?c))`: each row of the first
    /// extended by the rows of the second that share its `?y`, projected
    /// on `?x ?y ?c` and the fluent.
    #[test]
    fn a_run_is_joined_on_its_shared_variables() {
        let next = vec![vec![1, 10], vec![2, 20], vec![3, 40]];
        let cell = vec![vec![10, 5, 100], vec![10, 6, 101], vec![20, 5, 102]];
        let parts = [
            Part {
                rows: &next,
                columns: vec![Some(0), Some(1)],
            },
            Part {
                rows: &cell,
                columns: vec![Some(1), Some(2), None],
            },
        ];
        let columns = [Some(0), Some(1), Some(2), None];
        let rows = natural_join(&parts, &columns, 10).expect("small");
        assert_eq!(
            rows,
            [
                vec![1, 10, 5, 100],
                vec![1, 10, 6, 101],
                vec![2, 20, 5, 102]
            ]
        );
        assert!(natural_join(&parts, &columns, 2).is_none());
    }

    /// A step along `succ` and the test of the cell it reaches become one
    /// lookup by `?x`: the fused table gives `?y` and the fluent `(cell ?y
    /// b)` to test.
    #[test]
    fn a_step_and_the_test_of_the_square_it_reaches_are_one_lookup() {
        let text = "(role a) (init (at 1)) (init (cell 2 b)) (init (cell 3 w))
            (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
            (<= (legal a (go ?y)) (true (at ?x)) (succ ?x ?y) (true (cell ?y b)))
            (<= (next (at ?y)) (does a (go ?y)))
            (<= (next (cell ?y ?c)) (true (cell ?y ?c)))
            (<= terminal (true (at 5))) (goal a 100)";
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let legal = (c.relational().unwrap().plans.iter())
            .find(|p| c.program.rules[p.rule].text.starts_with("(<= (legal"))
            .expect("the legal rule is planned");
        assert_eq!(legal.steps.len(), 2, "{:?}", legal.steps);
        assert!(
            matches!(
                &legal.steps[1],
                Step::Table { fused: 2, fluent: true, key, bind, .. } if key.len() == 1 && bind.len() == 1
            ),
            "{:?}",
            legal.steps
        );
    }
}
