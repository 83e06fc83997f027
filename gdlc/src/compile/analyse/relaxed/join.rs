//! The joins of the relaxed evaluation: the bindings of a rule's body over
//! the facts found so far, one positive literal at a time (the delta one
//! first, then the one with the fewest candidates), each filter as soon as
//! its variables are bound, and only one witness for the rest of the body
//! once the head's variables are bound.

use super::keys::bound_key;
use super::state::{RelaxedEvaluation, ScanBuffers};
use crate::compile::program::{is_bound, lookup_bound, matches, Atom, Lit, Rule};
use crate::ir::terms::TermId;

/// Fewest candidate facts by argument positions for which a literal whose
/// compound argument is bound in part looks its facts up by the bound
/// children instead (see `InnerKey`): for fewer, the key costs more
/// than the scan.
const MIN_INNER_SCAN: usize = 64;

/// A positive literal of a rule's body restricted to some rows of its
/// relation (those new since the last round): the literal's index in the
/// body, and the rows `from..to` as `(literal, from, to)`. The literals
/// before it then read only the rows from before the round.
pub(super) type Delta = (usize, usize, usize);

/// One join of a rule's body: what its recursion shares.
pub(super) struct Join<'r> {
    /// The rule.
    pub(super) rule: &'r Rule,
    /// The literal restricted to the rows new since the last round, if any.
    pub(super) delta: Option<Delta>,
    /// The literals still to join, by index in the body.
    pub(super) pending: Vec<usize>,
    /// The values of the variables bound so far, by variable number.
    pub(super) binding: Vec<Option<TermId>>,
    /// The steps and candidates so far (against the limit of the work of
    /// one evaluation of a rule).
    pub(super) work: usize,
}

impl<'r> Join<'r> {
    /// A join of the literals `pending` of `rule`, nothing bound yet, that
    /// has done `work` already.
    pub(super) fn new(
        rule: &'r Rule,
        delta: Option<Delta>,
        pending: Vec<usize>,
        work: usize,
    ) -> Self {
        Join {
            rule,
            delta,
            pending,
            binding: vec![None; rule.vars.len()],
            work,
        }
    }
}

/// The candidate facts of a literal in a join.
enum Candidates {
    /// Rows of the relation's tuples, by position.
    Range(std::ops::Range<usize>),
    /// Rows of the relation's tuples, by the indexes in the scan's buffer.
    Rows,
    /// Tuples of the product of the argument domains.
    Product(Vec<Vec<TermId>>),
}

impl Candidates {
    /// How many facts there are (`ids`: the scan's buffer of row indexes).
    fn len(&self, ids: &[u32]) -> usize {
        match self {
            Candidates::Range(range) => range.len(),
            Candidates::Rows => ids.len(),
            Candidates::Product(rows) => rows.len(),
        }
    }
}

/// Why a join stopped before enumerating every binding.
pub(super) enum Halt {
    /// Too much work: the rule is evaluated argument by argument.
    TooLarge,
    /// The first binding was found ([`Mode::First`]).
    Found,
}

/// Which bindings of a rule's body a join enumerates.
#[derive(Clone, Copy)]
pub(super) enum Mode<'h> {
    /// Every one (the ground instances).
    All,
    /// One per binding of the head's variables (these): once they are all
    /// bound, the rest of the body only needs a witness, as in the plans.
    Heads(&'h [usize]),
    /// As [`Mode::Heads`], for a head that keeps only its domains: a
    /// binding whose every head argument's value is known already needs no
    /// witness (it would add nothing).
    Domains(&'h [usize]),
    /// The first one.
    First,
}

/// The positive literal a join scans next.
enum Next {
    /// The one at this index of the pending literals.
    At(usize),
    /// None: no positive literal is left.
    Done,
    /// None: a positive literal has no candidate, so there is no binding.
    Empty,
}

impl RelaxedEvaluation<'_> {
    /// The values of `vars` in each binding that a join hands over in
    /// `mode`, one binding after the other, and how many bindings.
    pub(super) fn join_bindings(
        &mut self,
        join: &mut Join<'_>,
        vars: &[usize],
        mode: Mode<'_>,
    ) -> Result<(Vec<TermId>, usize), Halt> {
        let mut heads: Vec<TermId> = Vec::new();
        let mut found = 0usize;
        self.join(join, mode, &mut |b: &[Option<TermId>]| {
            found += 1;
            heads.extend(
                vars.iter()
                    .map(|&v| b[v].expect("head variables are bound")),
            );
        })?;
        Ok((heads, found))
    }

    /// Enumerates the bindings of the positive literals and filters
    /// pending in `join` (those `mode` asks for), calling `out` for each
    /// complete one.
    pub(super) fn join(
        &mut self,
        join: &mut Join<'_>,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
    ) -> Result<(), Halt> {
        join.work += 1;
        if join.work > self.limits.join_work {
            return Err(Halt::TooLarge);
        }
        if let Some(result) = self.join_filter(join, mode, out) {
            return result;
        }
        // The head is bound: one witness for the rest of the body.
        if let Mode::Heads(head) | Mode::Domains(head) = mode {
            let body = &join.rule.body;
            if head.iter().all(|&v| join.binding[v].is_some())
                && join.pending.iter().any(|&i| matches!(body[i], Lit::Pos(_)))
            {
                return self.join_witness(join, mode, out);
            }
        }
        let k = match self.next_literal(join) {
            Next::At(k) => k,
            Next::Empty => return Ok(()),
            Next::Done => {
                if join.pending.is_empty() {
                    out(&join.binding);
                    if let Mode::First = mode {
                        return Err(Halt::Found);
                    }
                }
                return Ok(());
            }
        };
        let i = join.pending.remove(k);
        // Joins nest: each scan takes buffers of its own, and gives them back.
        let mut buffers = self.buffers.pop().unwrap_or_default();
        let result = self.scan_literal(join, i, mode, out, &mut buffers);
        self.buffers.push(buffers);
        join.pending.insert(k, i);
        result
    }

    /// The first pending literal that the join can take now without a scan
    /// (a negative literal, dropped in the relaxed evaluation, or a filter
    /// whose variables are bound): the join goes on without it, or stops
    /// there when the filter fails; `None` when there is no such literal.
    fn join_filter(
        &mut self,
        join: &mut Join<'_>,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
    ) -> Option<Result<(), Halt>> {
        let rule = join.rule;
        let binding = &join.binding;
        let k = join.pending.iter().position(|&i| match &rule.body[i] {
            Lit::Neg(_) => true,
            Lit::Pos(_) => false,
            Lit::Distinct(x, y) | Lit::Same(x, y) => is_bound(x, binding) && is_bound(y, binding),
        })?;
        let i = join.pending[k];
        if let Lit::Distinct(x, y) | Lit::Same(x, y) = &rule.body[i] {
            let same = matches!(rule.body[i], Lit::Same(..));
            let a = lookup_bound(&self.program.store, x, binding);
            let b = lookup_bound(&self.program.store, y, binding);
            let equal = a.is_some() && a == b;
            if equal != same {
                return Some(Ok(()));
            }
        }
        join.pending.remove(k);
        let result = self.join(join, mode, out);
        join.pending.insert(k, i);
        Some(result)
    }

    /// Once the head's variables are bound, the rest of the body needs only
    /// a witness: `out` gets the binding when there is one.
    fn join_witness(
        &mut self,
        join: &mut Join<'_>,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
    ) -> Result<(), Halt> {
        // A head that keeps only its domains and has every value already
        // gains nothing from a witness.
        if let Mode::Domains(_) = mode {
            let head = &join.rule.head;
            let known = head.args.iter().enumerate().all(|(p, arg)| {
                lookup_bound(&self.program.store, arg, &join.binding)
                    .is_some_and(|t| self.dom[head.rel][p].contains(&t))
            });
            if known {
                return Ok(());
            }
        }
        let unbound = self.to_unbind.len();
        let binding = &join.binding;
        self.to_unbind
            .extend((0..binding.len()).filter(|&v| binding[v].is_none()));
        let mut found = false;
        let result = self.join(join, Mode::First, &mut |_| {
            found = true;
        });
        // The search stopped inside its loops: unbind what it bound.
        for v in self.to_unbind.drain(unbound..) {
            join.binding[v] = None;
        }
        if let Err(Halt::TooLarge) = result {
            return result;
        }
        if found {
            out(&join.binding);
        }
        Ok(())
    }

    /// The next positive literal to scan: the delta one first, then the one
    /// with the fewest candidates under the current binding. (Counting the
    /// candidates takes a lookup: not for the delta literal, nor for the
    /// only positive literal left.)
    fn next_literal(&mut self, join: &Join<'_>) -> Next {
        let (body, pending) = (&join.rule.body, &join.pending);
        let positive = |k: &usize| matches!(body[pending[*k]], Lit::Pos(_));
        let mut positives = (0..pending.len()).filter(positive);
        match (positives.next(), positives.next()) {
            (None, _) => return Next::Done,
            (Some(k), None) => return Next::At(k),
            _ => {}
        }
        if let Some(k) = (0..pending.len()).find(|&k| join.delta.is_some_and(|d| d.0 == pending[k]))
        {
            return Next::At(k);
        }
        let mut pick: Option<(usize, usize)> = None;
        for (k, &i) in pending.iter().enumerate() {
            let Lit::Pos(a) = &body[i] else { continue };
            let n = self.candidates(a, &join.binding);
            if n == 0 {
                // No binding: the rest need not be counted.
                return Next::Empty;
            }
            if pick.is_none_or(|(_, best)| n < best) {
                pick = Some((k, n));
            }
        }
        pick.map_or(Next::Done, |(k, _)| Next::At(k))
    }

    /// How many facts a positive literal would try under `binding`: exact
    /// for enumerated relations (an index lookup, by the bound children of
    /// a compound argument bound in part when its bound arguments leave
    /// many, as [`Self::scan_literal`] finds them), the product of the
    /// free arguments' domains otherwise.
    fn candidates(&mut self, atom: &Atom, binding: &[Option<TermId>]) -> usize {
        let r = atom.rel;
        let (positions, key) = &mut self.key;
        if !bound_key(&self.program.store, atom, binding, positions, key) {
            return 0;
        }
        let store = &self.program.store;
        match &mut self.tuples[r] {
            Some(t) => {
                let n = if positions.is_empty() {
                    t.rows.len()
                } else {
                    t.lookup(positions, key).len()
                };
                if n < MIN_INNER_SCAN {
                    return n;
                }
                let inner = &mut self.inner;
                match inner.fill(store, atom, binding) {
                    Err(()) => 0,
                    Ok(true) => t.lookup_inner(&inner.places, &inner.values, store).len(),
                    Ok(false) => n,
                }
            }
            None => (0..atom.args.len())
                .filter(|p| !positions.contains(p))
                .map(|p| self.dom[r][p].len())
                .fold(1usize, |acc, n| acc.saturating_mul(n)),
        }
    }

    /// Tries every candidate fact of the positive literal `i` of the body
    /// (`buffers`: its scratch space).
    fn scan_literal(
        &mut self,
        join: &mut Join<'_>,
        i: usize,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
        buffers: &mut ScanBuffers,
    ) -> Result<(), Halt> {
        let rule = join.rule;
        let Lit::Pos(atom) = &rule.body[i] else {
            unreachable!()
        };
        buffers.rows.clear();
        let candidates = if self.tuples[atom.rel].is_some() {
            self.indexed_candidates(atom, i, join, &mut buffers.rows)
        } else {
            self.product_candidates(atom, &join.binding)?
        };
        let Some(candidates) = candidates else {
            return Ok(());
        };
        let count = candidates.len(&buffers.rows);
        self.work.tried += count;
        join.work += count;
        if join.work > self.limits.join_work {
            return Err(Halt::TooLarge);
        }
        self.try_candidates(join, atom, &candidates, mode, out, buffers)
    }

    /// The candidate facts of literal `i` of the body (`atom`), of a
    /// relation whose facts are kept, by an index on its bound arguments
    /// (or on the bound children of a compound argument bound in part),
    /// their row indexes into `ids`. `None` when a bound argument is a term
    /// never created.
    fn indexed_candidates(
        &mut self,
        atom: &Atom,
        i: usize,
        join: &Join<'_>,
        ids: &mut Vec<u32>,
    ) -> Option<Candidates> {
        let (positions, key) = &mut self.key;
        if !bound_key(&self.program.store, atom, &join.binding, positions, key) {
            return None;
        }
        let range = match join.delta {
            Some((d, lo, hi)) if d == i => lo..hi,
            Some((d, _, _)) if i < d => 0..self.old_rows[atom.rel],
            _ => 0..usize::MAX,
        };
        let store = &self.program.store;
        let tuples = self.tuples[atom.rel].as_mut().expect("materialized");
        let by_positions = if positions.is_empty() {
            let hi = range.end.min(tuples.rows.len());
            Candidates::Range(range.start..hi)
        } else {
            extend_in_range(ids, tuples.lookup(positions, key), &range);
            Candidates::Rows
        };
        let n = by_positions.len(ids);
        // A compound argument bound in part: the facts with its bound
        // children (`legal2`'s moves to a square, not all of a player's).
        let inner = &mut self.inner;
        let partly = if n >= MIN_INNER_SCAN {
            inner.fill(store, atom, &join.binding)
        } else {
            Ok(false)
        };
        let candidates = match partly {
            // A bound child that is a term never created: no fact.
            Err(()) => {
                ids.clear();
                Candidates::Rows
            }
            Ok(true) => {
                ids.clear();
                let rows = tuples.lookup_inner(&inner.places, &inner.values, store);
                extend_in_range(ids, rows, &range);
                Candidates::Rows
            }
            Ok(false) => by_positions,
        };
        Some(candidates)
    }

    /// The candidate facts of `atom`, of a relation known only by its
    /// domains: the product of its arguments' domains, argument by
    /// argument (a bound argument's value, the values a free argument's
    /// pattern matches); `Ok(None)` when a bound argument's value is not
    /// in its domain.
    fn product_candidates(
        &self,
        atom: &Atom,
        binding: &[Option<TermId>],
    ) -> Result<Option<Candidates>, Halt> {
        let r = atom.rel;
        let mut rows: Vec<Vec<TermId>> = vec![Vec::new()];
        for (p, arg) in atom.args.iter().enumerate() {
            let candidates: Vec<TermId> = if is_bound(arg, binding) {
                match lookup_bound(&self.program.store, arg, binding) {
                    Some(t) if self.dom[r][p].contains(&t) => vec![t],
                    _ => return Ok(None),
                }
            } else {
                let mut b = binding.to_vec();
                self.dom[r][p]
                    .iter()
                    .copied()
                    .filter(|&t| {
                        b.copy_from_slice(binding);
                        matches(&self.program.store, arg, t, &mut b)
                    })
                    .collect()
            };
            let mut next = Vec::with_capacity(rows.len() * candidates.len());
            for partial in &rows {
                for &t in &candidates {
                    let mut v = partial.clone();
                    v.push(t);
                    next.push(v);
                }
                if next.len() > self.limits.join_work {
                    return Err(Halt::TooLarge);
                }
            }
            rows = next;
        }
        Ok(Some(Candidates::Product(rows)))
    }

    /// Joins the rest of the body under each of the `candidates` of `atom`
    /// that its unbound arguments match (`buffers`: the scan's scratch
    /// space, with the row indexes of [`Candidates::Rows`]).
    fn try_candidates(
        &mut self,
        join: &mut Join<'_>,
        atom: &Atom,
        candidates: &Candidates,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
        buffers: &mut ScanBuffers,
    ) -> Result<(), Halt> {
        let r = atom.rel;
        let ScanBuffers {
            rows: ids,
            free,
            unbound,
        } = buffers;
        free.clear();
        for arg in &atom.args {
            arg.for_each_var(&mut |v| {
                if join.binding[v].is_none() && !free.contains(&v) {
                    free.push(v);
                }
            });
        }
        // The candidates agree with the bound arguments already.
        unbound.clear();
        unbound.extend((0..atom.args.len()).filter(|&p| !is_bound(&atom.args[p], &join.binding)));
        for k in 0..candidates.len(ids) {
            let row = match candidates {
                Candidates::Range(range) => self.rows_of(r).get(range.start + k),
                Candidates::Rows => self.rows_of(r).get(ids[k] as usize),
                Candidates::Product(rows) => &rows[k],
            };
            let store = &self.program.store;
            if unbound
                .iter()
                .all(|&p| matches(store, &atom.args[p], row[p], &mut join.binding))
            {
                self.join(join, mode, out)?;
            }
            for &v in free.iter() {
                join.binding[v] = None;
            }
        }
        Ok(())
    }
}

/// Appends to `ids` the rows of `rows` (ascending, as an index lists them)
/// that lie in `range`: a slice found by binary search.
fn extend_in_range(ids: &mut Vec<u32>, rows: &[u32], range: &std::ops::Range<usize>) {
    let lo = rows.partition_point(|&row| (row as usize) < range.start);
    let hi = rows.partition_point(|&row| (row as usize) < range.end);
    ids.extend_from_slice(&rows[lo..hi]);
}
