//! The runtime ids of the terms: the possible fluents first (so that a
//! state is a bitset indexed by fluent id), then every other term, ordered
//! so that each domain's terms get mostly consecutive ids and a
//! predicate's fluents come by their arguments' ids (see [`term_order`]);
//! the order depends only on the terms, so the generated code is
//! deterministic.

use super::relaxed::Domain;
use crate::compile::program::RelId;
use crate::ir::terms::{SymId, TermData, TermId, TermStore};
use rustc_hash::{FxHashMap, FxHashSet};

/// The runtime numbering of the terms.
pub(super) struct TermIds {
    /// Runtime id of each compile-time term id.
    pub(super) runtime_id: Vec<u32>,
    /// Canonical text of each runtime id.
    pub(super) texts: Vec<String>,
    /// Number of possible fluents: runtime ids `0..fluents`.
    pub(super) fluents: usize,
}

/// Numbers every term of `store` (see [`term_order`]), given the domains
/// `dom` of every relation's arguments (`true_rel`'s are the fluents);
/// `skip` (the placeholder of open arguments) gets no runtime id.
pub(super) fn number_terms(
    store: &TermStore,
    dom: &[Vec<Domain>],
    true_rel: RelId,
    skip: Option<TermId>,
) -> TermIds {
    let (fluents, mut rest) = term_order(store, dom, true_rel);
    rest.retain(|&t| Some(t) != skip);
    let mut runtime_id = vec![u32::MAX; store.len()];
    let mut texts = Vec::with_capacity(store.len());
    for (i, &t) in fluents.iter().chain(&rest).enumerate() {
        runtime_id[t as usize] = i as u32;
        texts.push(store.text(t));
    }
    TermIds {
        runtime_id,
        texts,
        fluents: fluents.len(),
    }
}

/// Numbers the `fluents` (runtime ids `0..fluents`) of the symbols in
/// `orders` by their arguments in the order given there (the others keep
/// theirs): the fluents stay ids `0..fluents`, by symbol, then by the ids
/// of their arguments; `runtime_id` and `texts` as in [`TermIds`].
pub(super) fn renumber_fluents(
    store: &TermStore,
    runtime_id: &mut [u32],
    texts: &mut [String],
    fluents: usize,
    orders: &FxHashMap<(SymId, usize), Vec<usize>>,
) {
    let mut order: Vec<TermId> = (0..runtime_id.len() as TermId)
        .filter(|&t| (runtime_id[t as usize] as usize) < fluents)
        .collect();
    let fluents_before = fluents as u32;
    let before = &*runtime_id;
    // A non-fluent argument's runtime id orders it as its place did.
    let place = |a: TermId| {
        let id = before[a as usize];
        (id >= fluents_before).then_some(id as usize)
    };
    order.sort_by_cached_key(|&f| fluent_order(store, f, place, orders));
    for (i, &f) in order.iter().enumerate() {
        runtime_id[f as usize] = i as u32;
        texts[i] = store.text(f);
    }
}

/// The runtime order of the terms: the possible fluents, then every other
/// term. The other terms come domain by domain, largest domain first
/// (the argument positions of every relation and of every function symbol
/// inside their terms, see [`all_domains`]), each in natural order
/// (numbers by value, then by text), so that a domain's terms mostly get
/// consecutive ids and the boxes of dense containers and direct indexes
/// stay small. The fluents come by symbol, then by the ids of their
/// arguments, so that a table of fluents sorted by argument ids lists them
/// by increasing fluent id (see `codegen`'s walks over the set bits of a
/// state).
fn term_order(
    store: &TermStore,
    dom: &[Vec<Domain>],
    true_rel: RelId,
) -> (Vec<TermId>, Vec<TermId>) {
    let is_fluent: FxHashSet<TermId> = dom[true_rel][0].iter().copied().collect();
    let mut domains = all_domains(store, dom);
    let natural = |t: &TermId| {
        let n = store.number(*t);
        (n.is_none(), n, store.text(*t))
    };
    for d in &mut domains {
        d.retain(|t| !is_fluent.contains(t));
        d.sort_by_cached_key(natural);
        d.dedup();
    }
    domains.retain(|d| !d.is_empty());
    domains.sort_by_cached_key(|d| {
        (
            std::cmp::Reverse(d.len()),
            d.iter().map(|&t| store.text(t)).collect::<Vec<_>>(),
        )
    });
    let mut placed: FxHashSet<TermId> = FxHashSet::default();
    let mut rest: Vec<TermId> = Vec::new();
    for d in &domains {
        rest.extend(d.iter().copied().filter(|&t| placed.insert(t)));
    }
    let mut others: Vec<TermId> = (0..store.len() as TermId)
        .filter(|t| !is_fluent.contains(t) && !placed.contains(t))
        .collect();
    others.sort_by_cached_key(|&t| store.text(t));
    rest.extend(others);
    // Fluents by symbol and arity, then argument by argument: a non-fluent
    // argument by its place above, a fluent argument after those, by text.
    let place: FxHashMap<TermId, usize> = rest.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let mut fluents: Vec<TermId> = dom[true_rel][0].iter().copied().collect();
    let no_orders = FxHashMap::default();
    fluents.sort_by_cached_key(|&f| fluent_order(store, f, |a| place.get(&a).copied(), &no_orders));
    (fluents, rest)
}

/// Every domain, unsorted: each relation's argument positions, and the
/// values at each argument of each function symbol in the terms of those.
fn all_domains(store: &TermStore, dom: &[Vec<Domain>]) -> Vec<Vec<TermId>> {
    let mut domains: Vec<Vec<TermId>> = Vec::new();
    let mut inner: FxHashMap<(u32, usize), FxHashSet<TermId>> = FxHashMap::default();
    let mut seen: FxHashSet<TermId> = FxHashSet::default();
    let mut stack: Vec<TermId> = Vec::new();
    for positions in dom {
        for set in positions {
            domains.push(set.iter().copied().collect());
            stack.extend(set.iter().copied());
        }
    }
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        if let TermData::Func(_, args) = store.data(t) {
            let functor = store.functor_of_term(t);
            for (k, &a) in args.iter().enumerate() {
                inner.entry((functor, k)).or_default().insert(a);
                stack.push(a);
            }
        }
    }
    domains.extend(inner.into_values().map(|set| set.into_iter().collect()));
    domains
}

/// The sort key of fluent `f`: its symbol and arity, then its arguments
/// (in the order `orders` gives its symbol, else their own), a non-fluent
/// argument by its `place` among the other terms, a fluent argument after
/// those, by text.
fn fluent_order(
    store: &TermStore,
    f: TermId,
    place: impl Fn(TermId) -> Option<usize>,
    orders: &FxHashMap<(SymId, usize), Vec<usize>>,
) -> (String, usize, Vec<(u8, usize, String)>) {
    match store.data(f) {
        TermData::Const(s) => (store.symbol_name(*s).to_string(), 0, Vec::new()),
        TermData::Func(s, args) => {
            let key = |a: TermId| match place(a) {
                Some(i) => (0, i, String::new()),
                None => (1, 0, store.text(a)),
            };
            let args: Vec<(u8, usize, String)> = match orders.get(&(*s, args.len())) {
                Some(order) => order.iter().map(|&p| key(args[p])).collect(),
                None => args.iter().map(|&a| key(a)).collect(),
            };
            (store.symbol_name(*s).to_string(), args.len(), args)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::analyze;

    #[test]
    fn a_domain_gets_consecutive_ids_and_fluents_come_by_argument_ids() {
        // Numbers 1..12 in `succ`, 1..3 on the board: by text, 10, 11 and
        // 12 would sit between 1 and 2. The fluents of `cell` come by the
        // ids of their arguments (numbers by value), not by text.
        let text = "(role a) (init (cell 1 1)) (init (step 1))
            (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
            (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12)
            (coord 1) (coord 2) (coord 3)
            (<= (next (cell ?x ?y)) (coord ?x) (coord ?y))
            (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
            (<= (legal a go) (true (step ?x)))
            (<= terminal (true (step 12))) (goal a 100)";
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let d = &c.domains;
        let ids: Vec<u32> = ["1", "2", "3"]
            .iter()
            .map(|t| d.texts.iter().position(|x| x == t).expect("numbered") as u32)
            .collect();
        assert_eq!(ids, [ids[0], ids[0] + 1, ids[0] + 2], "1, 2, 3 consecutive");
        let fluents = &d.texts[..d.fluents];
        assert_eq!(
            fluents[..4],
            ["(cell 1 1)", "(cell 1 2)", "(cell 1 3)", "(cell 2 1)"]
        );
        let steps: Vec<&str> = fluents[9..].iter().map(String::as_str).collect();
        assert_eq!(steps[..3], ["(step 1)", "(step 2)", "(step 3)"]);
        assert_eq!(steps[11], "(step 12)");
    }
}
