//! How the relaxed evaluation adds what a rule's join found: the head
//! facts of the bindings of the head's variables, each distinct one once
//! and in the order of their values, or only the head's domains when the
//! facts are more than the relation keeps.

use super::state::RelaxedEvaluation;
use crate::compile::program::{instantiate, Rule};
use crate::ir::terms::{TermId, TermStore};

impl RelaxedEvaluation<'_> {
    /// Adds the head facts of `rule` for `found` bindings of its head's
    /// variables `head_vars` (`heads`, one after the other), to a relation
    /// whose facts are kept; `true` if something grew.
    pub(super) fn add_head_facts(
        &mut self,
        rule: &Rule,
        head_vars: &[usize],
        heads: &[TermId],
        found: usize,
    ) -> bool {
        let r = rule.head.rel;
        let arity = rule.head.args.len();
        let k = head_vars.len();
        // Each distinct head once, in the order of their values.
        let order = distinct_in_order(heads, k, found);
        // When they could be more than the relation keeps, the ones not
        // known yet are counted first (see `overflows`).
        if self.len(r) + order.len() > self.limits.rows
            && self.overflows(rule, head_vars, heads, &order)
        {
            return true;
        }
        if let Some(t) = &mut self.tuples[r] {
            t.rows.reserve(order.len(), arity);
        }
        let mut full = vec![0; rule.vars.len()];
        let mut row: Vec<TermId> = Vec::with_capacity(arity);
        let mut changed = false;
        for i in order {
            let head = &heads[i * k..(i + 1) * k];
            head_row(
                &mut self.program.store,
                rule,
                head_vars,
                head,
                &mut full,
                &mut row,
            );
            changed |= self.add(r, &row);
        }
        changed
    }

    /// Whether the head facts of the distinct bindings `order` (as
    /// [`distinct_in_order`] gives them, of `heads` as for
    /// [`Self::add_head_facts`]) that are not known yet take the relation
    /// past the facts it keeps: then only their values are kept, in the
    /// head's domains, in the order the bindings were found; they need not
    /// be sorted nor indexed (a relation may overflow by far more than its
    /// limit in one step).
    fn overflows(
        &mut self,
        rule: &Rule,
        head_vars: &[usize],
        heads: &[TermId],
        order: &[usize],
    ) -> bool {
        let r = rule.head.rel;
        let (fresh, count) = self.fresh_facts(rule, head_vars, heads, order);
        if self.len(r) + count <= self.limits.rows {
            return false;
        }
        self.tuples[r] = None;
        self.grew[r] = true;
        let arity = rule.head.args.len();
        for (column, values) in self.dom[r].iter_mut().enumerate() {
            // (A value just added need not be looked up again: facts found
            // one after the other share their first values.)
            let mut last = None;
            for row in fresh.chunks_exact(arity) {
                let v = row[column];
                if last != Some(v) {
                    last = Some(v);
                    self.grew[r] |= values.insert(v);
                }
            }
        }
        true
    }

    /// The head facts of the distinct bindings `order` (as for
    /// [`Self::overflows`]) that the relation does not have yet, in the
    /// order the bindings were found, one after the other, and how many.
    fn fresh_facts(
        &mut self,
        rule: &Rule,
        head_vars: &[usize],
        heads: &[TermId],
        order: &[usize],
    ) -> (Vec<TermId>, usize) {
        let r = rule.head.rel;
        let k = head_vars.len();
        let mut found_order = order.to_vec();
        found_order.sort_unstable();
        let mut full = vec![0; rule.vars.len()];
        let mut row: Vec<TermId> = Vec::with_capacity(rule.head.args.len());
        let mut fresh = Vec::new();
        let mut count = 0;
        for i in found_order {
            let head = &heads[i * k..(i + 1) * k];
            head_row(
                &mut self.program.store,
                rule,
                head_vars,
                head,
                &mut full,
                &mut row,
            );
            if !self.tuples[r]
                .as_ref()
                .is_some_and(|t| t.rows.contains(&row))
            {
                fresh.extend_from_slice(&row);
                count += 1;
            }
        }
        (fresh, count)
    }

    /// Adds to the domains of the head of `rule` the values of its
    /// arguments whose variables are among `vars`, from `found` bindings of
    /// those variables (`heads`, one after the other); `true` if a domain
    /// grew.
    pub(super) fn add_head_domains(
        &mut self,
        rule: &Rule,
        vars: &[usize],
        heads: &[TermId],
        found: usize,
    ) -> bool {
        let r = rule.head.rel;
        let k = vars.len();
        let mut full = vec![0; rule.vars.len()];
        let mut changed = false;
        for (i, arg) in rule.head.args.iter().enumerate() {
            let Some(columns) = arg
                .vars()
                .iter()
                .map(|v| vars.iter().position(|w| w == v))
                .collect::<Option<Vec<usize>>>()
            else {
                continue;
            };
            // The distinct values of the argument's own variables.
            let c = columns.len();
            let mut tuples: Vec<TermId> = Vec::with_capacity(found * c);
            for b in 0..found {
                tuples.extend(columns.iter().map(|&col| heads[b * k + col]));
            }
            let mut order: Vec<usize> = (0..if c == 0 { found.min(1) } else { found }).collect();
            if c == 1 {
                tuples.sort_unstable();
                tuples.dedup();
                order.truncate(tuples.len());
            } else {
                let tuple = |i: usize| &tuples[i * c..(i + 1) * c];
                order.sort_unstable_by(|&a, &b| tuple(a).cmp(tuple(b)));
                order.dedup_by(|a, b| tuple(*a) == tuple(*b));
            }
            for j in order {
                for (&col, &t) in columns.iter().zip(&tuples[j * c..(j + 1) * c]) {
                    full[vars[col]] = t;
                }
                let t = instantiate(&mut self.program.store, arg, &full);
                let grew = self.dom[r][i].insert(t);
                self.grew[r] |= grew;
                changed |= grew;
            }
        }
        changed
    }
}

/// The numbers of the distinct tuples among `count` tuples of `k` values
/// stored one after the other in `tuples`, in the order of their values
/// (of equal tuples, the first one).
/// (Sorted as plain numbers, the values and the tuple's number packed in
/// one, when they fit; otherwise by their first values packed in one
/// number, as many as fit, the rest compared only between tuples that
/// share those: rules with wide heads sort very many of them.)
fn distinct_in_order(tuples: &[TermId], k: usize, count: usize) -> Vec<usize> {
    let tuple = |i: usize| &tuples[i * k..(i + 1) * k];
    let largest = tuples.iter().copied().max().unwrap_or(0);
    let bits = (TermId::BITS - largest.leading_zeros()).max(1);
    let packed = k.min((u128::BITS / bits) as usize);
    let key = |i: usize| {
        tuple(i)[..packed]
            .iter()
            .fold(0u128, |key, &v| (key << bits) | u128::from(v))
    };
    let index_bits = usize::BITS - count.leading_zeros();
    if packed == k && bits as usize * k + index_bits as usize <= u128::BITS as usize {
        let mut keyed: Vec<u128> = (0..count)
            .map(|i| (key(i) << index_bits) | i as u128)
            .collect();
        keyed.sort_unstable();
        keyed.dedup_by_key(|e| *e >> index_bits);
        let low = (1u128 << index_bits) - 1;
        return keyed.into_iter().map(|e| (e & low) as usize).collect();
    }
    let rest = |i: usize| &tuple(i)[packed..];
    let mut order: Vec<(u128, usize)> = (0..count).map(|i| (key(i), i)).collect();
    order.sort_unstable_by(|a, b| {
        (a.0.cmp(&b.0))
            .then_with(|| rest(a.1).cmp(rest(b.1)))
            .then(a.1.cmp(&b.1))
    });
    order.dedup_by(|a, b| a.0 == b.0 && rest(a.1) == rest(b.1));
    order.into_iter().map(|(_, i)| i).collect()
}

/// The fact `rule`'s head makes of one binding of its variables `vars`
/// (their values `values`), into `row` (`full`: the binding by variable
/// number, scratch space).
fn head_row(
    store: &mut TermStore,
    rule: &Rule,
    vars: &[usize],
    values: &[TermId],
    full: &mut [TermId],
    row: &mut Vec<TermId>,
) {
    for (&v, &t) in vars.iter().zip(values) {
        full[v] = t;
    }
    row.clear();
    for a in &rule.head.args {
        row.push(instantiate(store, a, full));
    }
}

#[cfg(test)]
mod tests {
    use super::distinct_in_order;

    #[test]
    fn distinct_tuples_come_once_in_the_order_of_their_values() {
        // Values up to 2^20 pack six to a key: the seventh is compared
        // apart. Few distinct values, so that keys tie often.
        let mut state = 7u64;
        let mut value = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            [0, 1, 5, 1 << 20][(state >> 33) as usize % 4]
        };
        for k in [0, 1, 2, 7] {
            let count = 300;
            let tuples: Vec<u32> = (0..count * k).map(|_| value()).collect();
            let tuple = |i: usize| &tuples[i * k..(i + 1) * k];
            let mut expected: Vec<&[u32]> = (0..count).map(tuple).collect();
            expected.sort();
            expected.dedup();
            let got: Vec<&[u32]> = distinct_in_order(&tuples, k, count)
                .into_iter()
                .map(tuple)
                .collect();
            assert_eq!(got, expected, "{k} values");
        }
    }
}
