//! The relaxed evaluation under small limits: which relations keep only
//! their domains, which rules fall back to their arguments, and the work
//! the joins take.

use super::join::{Join, Mode};
use super::state::{Limits, RelaxedEvaluation, RelaxedWork};
use super::table::Domain;
use crate::compile::program::{self, Program, Rule};

/// What the tests read of a relaxed evaluation.
struct Found {
    /// Per relation, its number of facts, when kept.
    rows: Vec<Option<usize>>,
    /// Per relation, per argument position, the values found there.
    args: Vec<Vec<Domain>>,
    work: RelaxedWork,
    /// The number of possible fluents.
    fluents: usize,
}

/// The relaxed evaluation of a description under the given limits, and
/// the index of relation `name` (as `name/arity`).
fn relaxed(text: &str, limits: Limits, name: &str) -> (Found, usize) {
    let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
    let mut program = program::lower::lower(&loaded.analysis.rules).expect("lowers");
    let relaxation = super::evaluate(&mut program, limits).expect("computes");
    let r = program
        .relations
        .iter()
        .position(|r| r.to_string() == name)
        .expect("the relation");
    let found = Found {
        rows: relaxation.rows,
        fluents: relaxation.domains[program.true_rel][0].len(),
        args: relaxation.domains,
        work: relaxation.work,
    };
    (found, r)
}

/// Runs the relaxed evaluation of a description to its fixpoint and
/// hands the evaluation and the rules to `f`.
fn at_fixpoint(text: &str, limits: Limits, f: impl FnOnce(&mut RelaxedEvaluation, &[Rule])) {
    let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
    let mut program: Program = program::lower::lower(&loaded.analysis.rules).expect("lowers");
    let n = program.relations.len();
    let rules = std::mem::take(&mut program.rules);
    let mut g = RelaxedEvaluation::new(&mut program, limits);
    g.fixpoint(&rules, n).expect("computes");
    f(&mut g, &rules);
}

/// How many bindings a join of `rule`'s whole body in `mode` hands over,
/// and the work it counts.
fn join_all(g: &mut RelaxedEvaluation, rule: &Rule, mode: Mode<'_>) -> (usize, usize) {
    let mut join = Join::new(rule, None, (0..rule.body.len()).collect(), 0);
    let mut out = 0;
    let result = g.join(&mut join, mode, &mut |_| out += 1);
    assert!(result.is_ok());
    (out, join.work)
}

/// A game with `rule` for `q`, whose 4 × 4 × 4 × 4 facts are over a
/// limit of 100, so only its domains are kept (the rule reads `true`,
/// or normalization would make its facts static).
fn four_columns(rule: &str) -> String {
    let mut text = format!(
        "(role a) (<= (next (c ?k)) (true (c ?k))) (legal a go)
            (goal a 100) (<= terminal (true d)) (<= (goal a 0) (true d) (q ?x ?y ?z ?w))
            {rule}"
    );
    for x in 1..=4 {
        text += &format!(" (init (c {x})) (g {x})");
        for y in 1..=4 {
            for z in 1..=4 {
                text += &format!(" (f {x} {y} {z})");
            }
        }
    }
    for b in 1..=100 {
        text += &format!(" (k {b})");
    }
    text
}

/// Limits under which the facts of `four_columns`' `q` are too many to keep.
const FOUR_COLUMNS: Limits = Limits {
    rows: 100,
    join_work: 100_000,
};

#[test]
fn a_head_that_keeps_only_known_domains_needs_no_witness() {
    // Once `?x ?y ?z ?w` are bound, `(k ?b)` needs a witness; for a head
    // that keeps only its domains, all of which are known at the
    // fixpoint, the binding adds nothing: no witness is looked for.
    let text = four_columns("(<= (q ?x ?y ?z ?w) (true (c 1)) (g ?w) (f ?x ?y ?z) (k ?b))");
    at_fixpoint(&text, FOUR_COLUMNS, |g, rules| {
        let q = rules
            .iter()
            .find(|r| r.text.starts_with("(<= (q"))
            .expect("q");
        assert!(g.tuples[q.head.rel].is_none(), "q keeps only its domains");
        let vars = q.head.vars();
        let (heads, with_witness) = join_all(g, q, Mode::Heads(&vars));
        assert_eq!(heads, 256);
        let (domains, without) = join_all(g, q, Mode::Domains(&vars));
        assert_eq!(domains, 0);
        assert!(
            without + 256 <= with_witness,
            "{without} against {with_witness}"
        );
    });
}

#[test]
fn a_compound_argument_bound_in_part_is_looked_up_by_its_bound_children() {
    // `(m (go ?x ?z))` with `?x` bound: the 10 facts with that first
    // child, not all 100 of `m`, for each of the 10 values of `?x`: 100
    // candidates per join of `q`'s rule instead of 1 000 (it is joined
    // part by part, then whole, then for `m`'s new facts).
    let mut text = String::from(
        "(role a) (init (c 1)) (<= (next (c 1)) (true (c 1))) (legal a go)
            (goal a 100) (<= terminal (true (c 2))) (<= (goal a 0) (q ?x ?z))
            (<= (m (go ?x ?y)) (true (c 1)) (n ?x) (n ?y))
            (<= (q ?x ?z) (true (c 1)) (n ?x) (m (go ?x ?z)))",
    );
    for x in 1..=10 {
        text += &format!(" (n {x})");
    }
    let limits = Limits {
        rows: 1_000,
        join_work: 100_000,
    };
    let (d, q) = relaxed(&text, limits, "q/2");
    assert_eq!(d.rows[q], Some(100));
    assert!(d.work.tried < 2_000, "{:?}", d.work);
}

#[test]
fn a_relation_past_the_limit_at_once_indexes_none_of_its_facts() {
    // `q` gets 256 facts in one step of a join (its body does not fall
    // apart), over the limit of 100: it keeps only its domains without
    // indexing any of them first.
    let rule = "(<= (q ?x ?y ?z ?w) (true (c ?z)) (f ?x ?y ?z) (f ?w ?y ?z))";
    let (with, q) = relaxed(&four_columns(rule), FOUR_COLUMNS, "q/4");
    // The same relations read, no fact derived.
    let none = "(<= (q ?x ?y ?z ?w) (true (e ?z)) (f ?x ?y ?z) (f ?w ?y ?z))";
    let (without, _) = relaxed(&four_columns(none), FOUR_COLUMNS, "q/4");
    assert_eq!(with.rows[q], None);
    assert!(with.args[q].iter().all(|d| d.len() == 4));
    assert_eq!(with.work.facts, without.work.facts, "{:?}", with.work);
}

#[test]
fn a_body_that_falls_apart_is_joined_part_by_part() {
    // `h` is the product of three parts of 6 values: 216 facts, over
    // the limit of 100 kept facts; its domains come from the parts,
    // never from the 216 bindings (over the work limit of 150).
    let text = "(role a) (init (control a))
            (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
            (<= (next (control a)) (true (control a)))
            (<= (h ?x ?y ?z) (true (control a)) (n ?x) (n ?y) (n ?z))
            (<= (legal a (go ?x)) (n ?x))
            (<= terminal (not (h 1 2 3))) (goal a 100)";
    let limits = Limits {
        rows: 100,
        join_work: 150,
    };
    let (d, h) = relaxed(text, limits, "h/3");
    assert_eq!(d.rows[h], None, "past the limit: domains only");
    assert_eq!(d.work.by_argument, 0, "{:?}", d.work);
    assert!(d.args[h].iter().all(|values| values.len() == 6));
}

#[test]
fn a_join_looks_for_one_witness_once_the_head_is_bound() {
    // 6 values of ?a, each with 36 bindings of ?b and ?c: 216 bindings
    // (some 500 candidates and steps), over the limit of 200, but 6
    // heads with one witness each.
    let text = "(role a) (init (control a))
            (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
            (<= (next (control a)) (true (control a)))
            (<= (legal a (mark ?a)) (true (control a)) (n ?a) (n ?b) (n ?c))
            (<= terminal (true (control b))) (goal a 100)";
    let limits = Limits {
        rows: 1_000,
        join_work: 200,
    };
    let (d, legal) = relaxed(text, limits, "legal/2");
    assert_eq!(d.work.by_argument, 0, "{:?}", d.work);
    assert_eq!(d.rows[legal], Some(6));
}

#[test]
fn a_rule_evaluated_by_argument_runs_again_only_when_its_patterns_gain_values() {
    // The `legal` rule's join is over the limit, so its head is computed
    // argument by argument. The step counter makes `true` grow for 30
    // rounds, but by `(step ?)` fluents that `(true (control a))` does
    // not match: the rule is not evaluated again for them.
    let mut text = String::from(
        "(role a) (init (step 0)) (init (control a))
            (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
            (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
            (<= (next (control a)) (true (control a)))
            (<= (legal a (mark ?a ?b ?c)) (true (control a)) (n ?a) (n ?b) (n ?c))
            (<= terminal (true (step 30))) (goal a 100)",
    );
    for i in 0..30 {
        text += &format!(" (succ {i} {})", i + 1);
    }
    let limits = Limits {
        rows: 1_000,
        join_work: 100,
    };
    let (d, legal) = relaxed(&text, limits, "legal/2");
    assert_eq!(d.fluents, 1 + 31, "control and the steps");
    assert_eq!(d.args[legal][1].len(), 6 * 6 * 6, "every mark");
    assert!(d.work.rounds > 30, "one round per step: {:?}", d.work);
    assert_eq!(d.work.by_argument, 1, "{:?}", d.work);
}

#[test]
fn a_rule_whose_head_keeps_only_domains_stops_once_they_are_full() {
    // `legal` has more facts than the limit, so only its domains are
    // kept. Its rule reads `(true (step ?s))`, which gains a fluent
    // every round for 30 rounds, but the head's domains are full after
    // the first evaluation: it is not evaluated again.
    let game = |legal: &str| {
        let mut text = format!(
            "(role a) (role b) (init (step 0))
                (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
                (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
                {legal}
                (<= terminal (true (step 30))) (goal a 100) (goal b 100)"
        );
        for i in 0..30 {
            text += &format!(" (succ {i} {})", i + 1);
        }
        text
    };
    let limits = Limits {
        rows: 100,
        join_work: 100_000,
    };
    let rule = "(<= (legal ?r (mark ?a ?b ?c)) (role ?r) (true (step ?s)) (n ?a) (n ?b) (n ?c))";
    let (d, legal) = relaxed(&game(rule), limits, "legal/2");
    assert_eq!(d.rows[legal], None, "only its domains are kept");
    assert_eq!(d.args[legal][0].len(), 2, "both roles");
    assert_eq!(d.args[legal][1].len(), 6 * 6 * 6, "every mark");
    assert!(d.work.rounds > 30, "one round per step: {:?}", d.work);
    let (without, _) = relaxed(&game("(<= (legal ?r noop) (role ?r))"), limits, "legal/2");
    assert!(
        d.work.joins <= without.work.joins + 2,
        "{:?} against {:?} without the rule",
        d.work,
        without.work
    );
}

#[test]
fn a_join_counts_and_picks_literals_by_the_facts_their_bound_children_select() {
    // As chess's `legal`: each of 40 squares with a white piece, each of
    // its 39 reachable squares, and one witness `(true (cell ?k w))`.
    // Counted by the facts `(cell ?x w)` selects (40, not all 121 of
    // `true`), the join stays within its limit, so `legal` keeps its 1 560
    // moves instead of the product of its arguments' domains.
    let mut text = String::from(
        "(role a) (init (control a)) (<= (next (control a)) (true (control a)))
            (<= (next (cell ?s ?c)) (true (cell ?s ?c)))
            (<= (reach ?u ?x) (true (control a)) (adj ?u ?x))
            (<= (legal a (move ?u ?x)) (true (control a)) (true (cell ?u w))
                (reach ?u ?x) (true (cell ?x e)) (true (cell ?k w)))
            (<= terminal (true (control b))) (goal a 100)",
    );
    for s in 1..=40 {
        for c in ["w", "b", "e"] {
            text += &format!(" (init (cell {s} {c}))");
        }
        for x in (1..=40).filter(|&x| x != s) {
            text += &format!(" (adj {s} {x})");
        }
    }
    let limits = Limits {
        rows: 10_000,
        join_work: 120_000,
    };
    let (d, legal) = relaxed(&text, limits, "legal/2");
    assert_eq!(d.work.by_argument, 0, "{:?}", d.work);
    assert_eq!(d.rows[legal], Some(40 * 39));
}

#[test]
fn a_binding_with_new_facts_at_two_literals_is_joined_once_in_a_round() {
    // `q` and `r` gain their 100 facts in the same round, so the next
    // round joins `pair` once over the new facts of each. The 10 000 pairs
    // of new `q` and new `r` facts are tried in the first of those joins
    // only: the second reads the facts `q` had before the round (none).
    // Trying them in both makes 62 408 candidates in all, against 51 908.
    let mut text = String::from(
        "(role a) (init (control a)) (legal a noop) (goal a 100)
            (<= terminal (pair ?x ?y))
            (<= (q ?x) (true (control a)) (base ?x))
            (<= (r ?x) (true (control a)) (base ?x))
            (<= (pair ?x ?y) (q ?x) (r ?y))",
    );
    for i in 0..100 {
        text += &format!(" (base {i})");
    }
    let limits = Limits {
        rows: 100_000,
        join_work: 1_000_000,
    };
    let (d, pair) = relaxed(&text, limits, "pair/2");
    assert_eq!(d.rows[pair], Some(10_000), "{:?}", d.work);
    assert!(d.work.tried < 57_000, "{:?}", d.work);
}
