//! Between stages 4 and 5, inlining: a large derived relation that its
//! readers only ask about with some arguments bound is not materialized
//! per state; each positive use is replaced by the bodies of its rules
//! (unfolding, with unification of the call and the rule's head), so it is
//! evaluated on demand for the caller's bindings, as a top-down prover
//! would. This is the compiled counterpart of the interpreter's on-demand
//! relations (crisscross's and chineseCheckers' `count`); recursive ones
//! are not inlined. A union (every rule of the relation copies one other
//! relation, as skirmish's `queenMove` from `rookMove` and `bishopMove`)
//! is inlined whatever its size: materializing it only copies facts that
//! its callers can find in its sources. So is a small relation whose few
//! callers all ask about it from the pieces on the board (skirmish's
//! `whitePawnMove` from the squares of the pawns): materialized, it would
//! hold the answers for every square.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{Atom, Class, Lit, Pat, Program, RelId, Rule};
use crate::compile::relational::plan::Walk;
use crate::ir::terms::TermData;

/// Relations with fewer relaxed facts are cheap enough to materialize.
const MIN_ROWS: usize = 5_000;
/// Most calls of a relation with fewer than [`MIN_ROWS`] relaxed facts
/// for it to be inlined (when every call asks from the pieces on the
/// board): more callers share one materialization, which then costs less
/// than evaluating the relation again for each of them (chess_200's
/// `openBetween`, called by ten rules).
const MAX_USES_WHEN_SMALL: usize = 4;
/// Most rules a relation may have to be inlined.
const MAX_RULES: usize = 16;
/// Most literals in a body after inlining.
const MAX_BODY: usize = 16;
/// Inlining stops when the program grows past this many times its rules.
const MAX_GROWTH: usize = 4;

/// Inlines every relation that qualifies; returns the relations inlined.
/// The reach and step relations of `walks` (answered by loops,
/// `compile::demand::walks`) are not; a relation whose rules read a
/// reach relation is never small: materialized, it would walk from every
/// square, where its callers walk from theirs.
pub fn inline(program: &mut Program, domains: &Domains, walks: &[Option<Walk>]) -> Vec<RelId> {
    let mut walked: Vec<bool> = walks.iter().map(Option::is_some).collect();
    let mut kept = walked.clone();
    for walk in walks.iter().flatten() {
        kept[walk.step] = true;
    }
    walked.resize(program.relations.len(), false);
    kept.resize(program.relations.len(), false);
    let limit = program.rules.len() * MAX_GROWTH + 16;
    let mut inlined = Vec::new();
    while let Some(r) = (0..program.relations.len())
        .find(|&r| !inlined.contains(&r) && !kept[r] && qualifies(program, domains, &walked, r))
    {
        let definitions: Vec<Rule> = program
            .rules
            .iter()
            .filter(|rule| rule.head.rel == r)
            .cloned()
            .collect();
        let mut out: Vec<Rule> = Vec::new();
        let mut ok = true;
        for rule in program.rules.iter().filter(|rule| rule.head.rel != r) {
            match rule
                .body
                .iter()
                .position(|l| matches!(l, Lit::Pos(a) if a.rel == r))
            {
                None => out.push(rule.clone()),
                Some(_) => {
                    let mut pending = vec![rule.clone()];
                    // Checked as the caller's rules multiply: a rule calling
                    // the relation k times unfolds into (its rules)^k.
                    while let Some(caller) = pending.pop().filter(|_| ok) {
                        if out.len() + pending.len() > limit {
                            ok = false;
                            break;
                        }
                        let Some(k) = caller
                            .body
                            .iter()
                            .position(|l| matches!(l, Lit::Pos(a) if a.rel == r))
                        else {
                            out.push(caller);
                            continue;
                        };
                        for def in &definitions {
                            if let Some(rule) = unfold(program, &caller, k, def) {
                                if rule.body.len() > MAX_BODY {
                                    ok = false;
                                }
                                pending.push(rule);
                            }
                        }
                    }
                }
            }
            if out.len() > limit {
                ok = false;
            }
            if !ok {
                break;
            }
        }
        inlined.push(r);
        if ok {
            program.rules = out;
        }
    }
    inlined.retain(|&r| !program.rules.iter().any(|rule| rule.head.rel == r));
    inlined
}

/// Whether relation `r` is derived, not recursive, not a keyword, has few
/// rules, every use of it is positive with an argument that the caller
/// binds elsewhere, and it is large, a union, or small with a few calls
/// that all ask from the pieces on the board (see [`asked_from_pieces`]).
fn qualifies(program: &Program, domains: &Domains, walked: &[bool], r: RelId) -> bool {
    if program.class[r] == Class::Static
        || r == program.true_rel
        || r == program.does_rel
        || program.answers.iter().any(|a| a.contains(&r))
    {
        return false;
    }
    let definitions: Vec<&Rule> = program.rules.iter().filter(|x| x.head.rel == r).collect();
    if definitions.is_empty() || definitions.len() > MAX_RULES {
        return false;
    }
    let walks = |d: &Rule| (d.body.iter()).any(|l| matches!(l, Lit::Pos(a) if walked[a.rel]));
    let small = domains.rows[r].is_some_and(|n| n < MIN_ROWS)
        && !definitions.iter().all(|d| copies(d))
        && !definitions.iter().any(|d| walks(d));
    // Not recursive (directly; mutual recursion goes through another
    // relation, which is checked when that one is considered).
    if definitions.iter().any(|d| {
        d.body
            .iter()
            .any(|l| matches!(l, Lit::Pos(a) | Lit::Neg(a) if a.rel == r))
    }) {
        return false;
    }
    let mut uses = 0;
    for rule in &program.rules {
        for (i, lit) in rule.body.iter().enumerate() {
            match lit {
                Lit::Neg(a) if a.rel == r => return false,
                Lit::Pos(a) if a.rel == r => {
                    uses += 1;
                    let elsewhere: Vec<usize> = rule
                        .body
                        .iter()
                        .enumerate()
                        .filter(|&(j, l)| j != i && matches!(l, Lit::Pos(_)))
                        .flat_map(|(_, l)| l.vars())
                        .collect();
                    let bound = a.args.iter().any(|p| match p {
                        Pat::Ground(_) => true,
                        _ => p.vars().iter().all(|v| elsewhere.contains(v)),
                    });
                    if !bound || (small && !asked_from_pieces(program, rule, a, &elsewhere)) {
                        return false;
                    }
                }
                _ => {}
            }
        }
    }
    uses > 0 && (!small || uses <= MAX_USES_WHEN_SMALL)
}

/// Whether `rule` asks about `call` from the pieces on the board: the
/// variables of the call that the rule's other positive literals bind
/// (`elsewhere`) are bound by its literals of `true` and of static
/// relations, one of them by `true`. `(validMove ?x1 ?y1 ?x2 ?y2) :- (true
/// (location ?x1 ?y1 ?piece)) (type ?piece pawn) (whitePawnMove ?x1 ?y1
/// ?x2 ?y2)` asks for the moves from the squares of the pawns, where a
/// materialized `whitePawnMove` would hold those from every square;
/// chineseCheckers' `(stuck ?b ?player)` is asked about the marbles on the
/// board, not about every square. A call bound by another derived relation
/// (chess's `(occupied_by_opponent ?x ?y ?player)` at the squares a walk
/// reaches) asks about nearly every value, and reads a materialized
/// relation more cheaply than it would run the relation's rules.
fn asked_from_pieces(program: &Program, rule: &Rule, call: &Atom, elsewhere: &[usize]) -> bool {
    let reading = |state_only: bool| -> Vec<usize> {
        rule.body
            .iter()
            .filter_map(|l| match l {
                Lit::Pos(a)
                    if a.rel == program.true_rel
                        || (!state_only && program.class[a.rel] == Class::Static) =>
                {
                    Some(a.vars())
                }
                _ => None,
            })
            .flatten()
            .collect()
    };
    let (pieces, state) = (reading(false), reading(true));
    let vars = call.vars();
    vars.iter()
        .filter(|v| elsewhere.contains(v))
        .all(|v| pieces.contains(v))
        && vars.iter().any(|v| state.contains(v))
}

/// Whether a rule only copies one relation: its body is one positive
/// literal and filters (`distinct`, `=`).
fn copies(rule: &Rule) -> bool {
    rule.body
        .iter()
        .filter(|l| !matches!(l, Lit::Distinct(..) | Lit::Same(..)))
        .count()
        == 1
        && rule.body.iter().any(|l| matches!(l, Lit::Pos(_)))
}

/// The caller with its literal `k` replaced by the body of `def`, unified
/// with the call; `None` when the call and the head cannot unify.
pub(crate) fn unfold(program: &Program, caller: &Rule, k: usize, def: &Rule) -> Option<Rule> {
    let Lit::Pos(call) = &caller.body[k] else {
        return None;
    };
    let offset = caller.vars.len();
    let rename = |p: &Pat| shift(p, offset);
    let mut subst: Vec<Option<Pat>> = vec![None; offset + def.vars.len()];
    for (a, h) in call.args.iter().zip(&def.head.args) {
        if !unify(program, a, &rename(h), &mut subst) {
            return None;
        }
    }
    let mut body: Vec<Lit> = Vec::new();
    for (i, lit) in caller.body.iter().enumerate() {
        if i == k {
            body.extend(def.body.iter().map(|l| map_lit(l, &rename)));
        } else {
            body.push(lit.clone());
        }
    }
    let apply = |p: &Pat| resolve(p, &subst);
    let head = map_atom(&caller.head, &apply);
    let body: Vec<Lit> = body.iter().map(|l| map_lit(l, &apply)).collect();
    // Number the variables that remain, in order of appearance.
    let mut names: Vec<String> = caller.vars.clone();
    names.extend(def.vars.iter().map(|v| format!("{v}'")));
    let mut order: Vec<usize> = Vec::new();
    let mut visit = |p: &Pat| {
        p.for_each_var(&mut |v| {
            if !order.contains(&v) {
                order.push(v)
            }
        })
    };
    head.args.iter().for_each(&mut visit);
    for lit in &body {
        match lit {
            Lit::Pos(a) | Lit::Neg(a) => a.args.iter().for_each(&mut visit),
            Lit::Distinct(x, y) | Lit::Same(x, y) => {
                visit(x);
                visit(y);
            }
        }
    }
    let renumber = |p: &Pat| fold(program, &number(p, &order));
    Some(Rule {
        head: map_atom(&head, &renumber),
        body: body.iter().map(|l| map_lit(l, &renumber)).collect(),
        vars: order.iter().map(|&v| names[v].clone()).collect(),
        text: format!(
            "{} [with `{}` inlined]",
            caller.text, program.relations[def.head.rel]
        ),
    })
}

/// A compound pattern whose arguments are all ground, as its term (when
/// the term exists; one that does not can never occur).
fn fold(program: &Program, p: &Pat) -> Pat {
    let Pat::Func(s, args) = p else {
        return p.clone();
    };
    let args: Vec<Pat> = args.iter().map(|a| fold(program, a)).collect();
    let ids: Option<Box<[_]>> = args
        .iter()
        .map(|a| match a {
            Pat::Ground(t) => Some(*t),
            _ => None,
        })
        .collect();
    match ids.and_then(|ids| program.store.lookup(&TermData::Func(*s, ids))) {
        Some(t) => Pat::Ground(t),
        None => Pat::Func(*s, args),
    }
}

fn shift(p: &Pat, offset: usize) -> Pat {
    match p {
        Pat::Var(v) => Pat::Var(v + offset),
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(s, args) => Pat::Func(*s, args.iter().map(|a| shift(a, offset)).collect()),
    }
}

fn number(p: &Pat, order: &[usize]) -> Pat {
    match p {
        Pat::Var(v) => Pat::Var(order.iter().position(|w| w == v).expect("numbered")),
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(s, args) => Pat::Func(*s, args.iter().map(|a| number(a, order)).collect()),
    }
}

fn map_atom(a: &Atom, f: &impl Fn(&Pat) -> Pat) -> Atom {
    Atom {
        rel: a.rel,
        args: a.args.iter().map(f).collect(),
    }
}

fn map_lit(l: &Lit, f: &impl Fn(&Pat) -> Pat) -> Lit {
    match l {
        Lit::Pos(a) => Lit::Pos(map_atom(a, f)),
        Lit::Neg(a) => Lit::Neg(map_atom(a, f)),
        Lit::Distinct(x, y) => Lit::Distinct(f(x), f(y)),
        Lit::Same(x, y) => Lit::Same(f(x), f(y)),
    }
}

/// A pattern with the substitution applied (to a fixpoint), ground
/// compound patterns folded to their term.
fn resolve(p: &Pat, subst: &[Option<Pat>]) -> Pat {
    match p {
        Pat::Var(v) => match &subst[*v] {
            Some(q) => resolve(q, subst),
            None => Pat::Var(*v),
        },
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(s, args) => Pat::Func(*s, args.iter().map(|a| resolve(a, subst)).collect()),
    }
}

/// Unifies two patterns, extending `subst`.
fn unify(program: &Program, a: &Pat, b: &Pat, subst: &mut Vec<Option<Pat>>) -> bool {
    let a = resolve(a, subst);
    let b = resolve(b, subst);
    match (&a, &b) {
        (Pat::Var(x), Pat::Var(y)) if x == y => true,
        (Pat::Var(x), _) => {
            if occurs(*x, &b) {
                return false;
            }
            subst[*x] = Some(b.clone());
            true
        }
        (_, Pat::Var(y)) => {
            if occurs(*y, &a) {
                return false;
            }
            subst[*y] = Some(a.clone());
            true
        }
        (Pat::Ground(x), Pat::Ground(y)) => x == y,
        (Pat::Func(f, xs), Pat::Func(g, ys)) => {
            f == g
                && xs.len() == ys.len()
                && xs.iter().zip(ys).all(|(x, y)| unify(program, x, y, subst))
        }
        (Pat::Ground(t), Pat::Func(g, ys)) | (Pat::Func(g, ys), Pat::Ground(t)) => {
            match program.store.data(*t) {
                TermData::Func(f, targs) if f == g && targs.len() == ys.len() => {
                    let targs = targs.clone();
                    targs
                        .iter()
                        .zip(ys)
                        .all(|(&x, y)| unify(program, &Pat::Ground(x), y, subst))
                }
                _ => false,
            }
        }
    }
}

fn occurs(v: usize, p: &Pat) -> bool {
    let mut found = false;
    p.for_each_var(&mut |w| found |= w == v);
    found
}

#[cfg(test)]
mod tests {
    use crate::compile::analyse::domains::compute;
    use crate::compile::program::lower::lower;
    use crate::compile::program::Program;

    /// `text` lowered and its relations inlined: the program after, and
    /// the names of the relations inlined, in their order.
    fn inlined(text: &str) -> (Program, Vec<String>) {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let mut program = lower(&loaded.analysis.rules).expect("lowers");
        let domains = compute(&mut program).expect("small domains");
        let inlined = super::inline(&mut program, &domains, &[]);
        let names = inlined
            .iter()
            .map(|&r| program.relations[r].name.clone())
            .collect();
        (program, names)
    }

    /// `slide` is a union of two small state relations (a few facts each:
    /// far below the size that makes a relation worth inlining) and
    /// `near`, as small, joins two relations; `legal` calls both with the
    /// square of `(true (at ?x))` bound: from the pieces on the board.
    const GAME: &str = "(role a)\n(init (at 1))\n(init (free 2))\n(init (free 3))\n\
        (succ 1 2)\n(succ 2 3)\n(succ 3 4)\n\
        (<= (right ?x ?y) (succ ?x ?y) (true (free ?y)))\n\
        (<= (left ?x ?y) (succ ?y ?x) (true (free ?y)))\n\
        (<= (slide ?x ?y) (right ?x ?y))\n\
        (<= (slide ?x ?y) (left ?x ?y) (distinct ?y 4))\n\
        (<= (near ?x ?y) (right ?x ?z) (right ?z ?y))\n\
        (<= (legal a (go ?y)) (true (at ?x)) (slide ?x ?y))\n\
        (<= (legal a (jump ?y)) (true (at ?x)) (near ?x ?y))\n\
        (<= (next (at ?y)) (does a (go ?y)))\n\
        (<= (next (at ?y)) (does a (jump ?y)))\n\
        (<= (next (free ?y)) (true (free ?y)))\n\
        (<= (goal a 100) (true (at 3)))\n(<= (goal a 0) (not (true (at 3))))\n\
        (<= terminal (true (at 3)))\n";

    #[test]
    fn unions_and_small_relations_asked_from_the_pieces_are_inlined() {
        let (p, inlined) = inlined(GAME);
        // `slide` as a union; `left` once `slide` is unfolded into `legal`
        // (it is asked from the square of `(at ?x)` there) and `near` from
        // the start, both small. `right` stays: the second call in `near`'s
        // body asks from the square found by the first, not from a piece.
        assert_eq!(inlined, ["slide", "left", "near"]);
        let reads = |name: &str| {
            p.rules.iter().any(|rule| {
                p.relations[rule.head.rel].name == "legal"
                    && rule.body.iter().any(|l| {
                        matches!(l, crate::compile::program::Lit::Pos(a)
                            if p.relations[a.rel].name == name)
                    })
            })
        };
        assert!(reads("right") && !reads("left") && !reads("near") && !reads("slide"));
    }

    #[test]
    fn a_relation_called_many_times_in_one_rule_stops_unfolding_at_the_growth_limit() {
        // `pick`, a union of 12 rules, is called 8 times in one rule:
        // unfolded in full, that rule alone would be 12^8 (430 million)
        // rules. The growth limit is checked as they multiply.
        let picks: String = (1..=12)
            .map(|k| format!("(<= (pick ?x ?y) (true (c ?x ?y {k})))\n"))
            .collect();
        let chain: String = (1..=8)
            .map(|i| format!("(pick ?y{} ?y{i}) ", i - 1))
            .collect();
        let text = format!(
            "(role a) (init (at 1)) (init (c 1 2 1))\n{picks}\
             (<= (legal a (go ?y8)) (true (at ?y0)) {chain})\n\
             (<= (next (at ?y)) (does a (go ?y)))\n\
             (goal a 100) (<= terminal (true (at 2)))"
        );
        let (program, inlined) = inlined(&text);
        assert!(inlined.is_empty(), "{inlined:?}");
        assert_eq!(program.rules.len(), 12 + 2 + 1, "the rules as written");
    }

    #[test]
    fn a_small_relation_is_inlined_only_when_every_call_asks_from_the_pieces() {
        let inlined_with = |extra: &str| {
            let text = format!(
                "(role a) (init (at 1)) (init (free 2)) (init (free 3))
                (succ 1 2) (succ 2 3) (succ 3 4)
                (<= (step ?x ?y) (succ ?x ?y) (true (free ?y)))
                (<= (legal a (go ?y)) (true (at ?x)) (step ?x ?y))
                {extra}
                (<= (next (at ?y)) (does a (go ?y)))
                (<= (next (free ?y)) (true (free ?y)))
                (goal a 100) (<= terminal (true (at 3)))"
            );
            inlined(&text).1
        };
        // Asked from the square of `(at ?x)`: evaluated there only.
        assert_eq!(inlined_with(""), ["step"]);
        // Also asked from a static relation alone (every square it lists),
        // or from another derived relation: materialized once for all.
        let from_static = "(<= (legal a (any ?y)) (succ ?x 3) (step ?x ?y))";
        assert!(inlined_with(from_static).is_empty());
        let from_derived = "(<= (reach ?y) (true (at ?x)) (step ?x ?y))
            (<= (legal a (far ?z)) (reach ?y) (step ?y ?z))";
        assert!(inlined_with(from_derived).is_empty());
    }
}
