//! The demand strategy's choice: which derived relations are answered by a
//! top-down search instead of being derived bottom-up into a container.
//!
//! A relation whose every caller asks it with all arguments bound (under
//! `not`, which safety binds, or once the caller's other literals bind
//! them) is only ever asked one question at a time: whether a given fact
//! holds. Deriving all its facts to answer that (chess's `threatened`:
//! every threatening ray, into a hashed 7-argument relation, through a
//! magic relation collecting the questions) costs far more than searching
//! its rules for one witness. Such a relation gets a function of its
//! arguments that tries its rules in turn, each planned with the head's
//! variables bound, and stops at the first witness; its callers call it
//! where they would test a container ([`crate::compile::relational::plan::Step::Ask`]),
//! and it has no container and no layer.
//!
//! A relation qualifies when it is derived (not a keyword nor an answer),
//! builds no term at run time, and is not recursive through another
//! relation; a relation recursive through itself only when its calls of
//! itself provably end ([`terminates`]). Which callers bind every argument
//! depends on the plans, and the plans of an asked relation's rules on its
//! being asked, so the choice is a fixpoint: plan with every candidate
//! asked, drop those some plan still scans, again until none is dropped.

pub mod rays;
pub mod terminates;
pub mod walks;

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{Lit, Program, RelId, Rule};
use crate::compile::relational::inline;
use crate::compile::relational::magic;
use crate::compile::relational::plan::{self, Literals, Step, TopDown};

/// Relations with fewer relaxed facts stay derived bottom-up: derived
/// once per state, they answer every question with one test, where a
/// search would run again for each (hex's `transfer`, asked per group's
/// fluent, cost 1.39x the instructions searched).
const MIN_ROWS: usize = 5_000;

/// The relations `program` may answer by a search: large derived ones
/// (at least [`MIN_ROWS`] relaxed facts) that are neither keywords nor
/// answers, build no term at run time, and are not recursive, or
/// recursive through themselves alone with a measure that ends every
/// chain of their calls ([`terminates::measured`]).
pub fn candidates(program: &Program, domains: &Domains) -> Vec<bool> {
    let n = program.relations.len();
    if domains.open.iter().flatten().any(|&o| o) {
        return vec![false; n];
    }
    let alone = alone_in_component(program);
    let derived = magic::derived(program);
    (0..n)
        .map(|r| {
            derived[r]
                && alone[r]
                && domains.rows[r].is_none_or(|rows| rows >= MIN_ROWS)
                && program.rules.iter().any(|rule| rule.head.rel == r)
                && (!recursive(program, r) || terminates::measured(program, r))
        })
        .collect()
}

/// Most rules a relation may have to be unfolded into a search.
const MAX_UNFOLDED_RULES: usize = 16;
/// Most literals of a search's rule after unfolding.
const MAX_BODY: usize = 24;

/// Unfolds into the rules of the `asked` relations the calls that would
/// enumerate answers: a positive literal of a derived relation, not
/// recursive, that binds a variable neither the head nor another positive
/// literal binds (chess's `(bishop_threatens ?opponent ?u ?v ?x ?y ?ix
/// ?iy)` in `threatened`, whose attacker square is free). The search then
/// walks the callee's rules itself (the bishops on the board, then one
/// ray each) instead of reading a relation derived for every question.
/// The program grows by at most twice the asked relations' rules.
pub fn unfold_scans(program: &mut Program, asked: &[bool]) {
    let unfoldable = unfoldable(program);
    let mut budget = 2 * program.rules.iter().filter(|r| asked[r.head.rel]).count() + 16;
    let mut rules = Vec::with_capacity(program.rules.len());
    let mut pending: Vec<Rule> = std::mem::take(&mut program.rules);
    pending.reverse();
    while let Some(rule) = pending.pop() {
        let k = asked[rule.head.rel]
            .then(|| enumerating_call(&unfoldable, &rule))
            .flatten();
        let Some(k) = k else {
            rules.push(rule);
            continue;
        };
        let Lit::Pos(call) = &rule.body[k] else {
            unreachable!("a positive call")
        };
        let definitions: Vec<&Rule> = rules
            .iter()
            .chain(&pending)
            .filter(|d| d.head.rel == call.rel)
            .collect();
        let unfolded: Vec<Rule> = definitions
            .iter()
            .filter_map(|d| inline::unfold(program, &rule, k, d))
            .collect();
        if unfolded.len() > budget || unfolded.iter().any(|r| r.body.len() > MAX_BODY) {
            rules.push(rule);
            continue;
        }
        budget -= unfolded.len();
        pending.extend(unfolded.into_iter().rev());
    }
    // The rules of relations whose every call was unfolded are dropped, so
    // that no plan of theirs counts.
    program.rules = magic::needed_rules(&program.answers, program.relations.len(), rules);
}

/// Per relation, whether its calls may be unfolded: derived, neither a
/// keyword nor an answer, not recursive, with at most
/// [`MAX_UNFOLDED_RULES`] rules.
fn unfoldable(program: &Program) -> Vec<bool> {
    let alone = alone_in_component(program);
    let derived = magic::derived(program);
    (0..program.relations.len())
        .map(|r| {
            let definitions = program.rules.iter().filter(|d| d.head.rel == r).count();
            derived[r]
                && alone[r]
                && (1..=MAX_UNFOLDED_RULES).contains(&definitions)
                && !recursive(program, r)
        })
        .collect()
}

/// Per relation, whether it is the only relation of its component of the
/// relation graph (not recursive through another relation).
fn alone_in_component(program: &Program) -> Vec<bool> {
    let component = program.graph.component_of();
    let mut sizes = vec![0usize; component.len()];
    for &c in &component {
        sizes[c] += 1;
    }
    (0..program.relations.len())
        .map(|r| component.get(r).is_some_and(|&c| sizes[c] == 1))
        .collect()
}

/// The position of the first positive literal of `rule` that would
/// enumerate answers of a relation that may be unfolded (see
/// [`unfold_scans`]).
fn enumerating_call(unfoldable: &[bool], rule: &Rule) -> Option<usize> {
    rule.body.iter().enumerate().position(|(i, lit)| {
        let Lit::Pos(a) = lit else { return false };
        unfoldable[a.rel] && a.vars().iter().any(|&v| !bound_elsewhere(rule, i, v))
    })
}

/// Whether variable `v` occurs in the head of `rule` or in a positive
/// literal other than literal `i`.
fn bound_elsewhere(rule: &Rule, i: usize, v: usize) -> bool {
    rule.head.vars().contains(&v)
        || rule
            .body
            .iter()
            .enumerate()
            .any(|(j, l)| j != i && matches!(l, Lit::Pos(_)) && l.vars().contains(&v))
}

/// Whether a rule of `r` reads `r`.
fn recursive(program: &Program, r: RelId) -> bool {
    program
        .rules
        .iter()
        .filter(|rule| rule.head.rel == r)
        .flat_map(|rule| &rule.body)
        .any(|lit| matches!(lit, Lit::Pos(a) | Lit::Neg(a) if a.rel == r))
}

/// The relations of `top_down` that stay asked or walked once every rule
/// is planned: those that no plan scans (with some argument free, or for
/// a walk with neither end bound), found by planning again without the
/// ones dropped until none is dropped.
pub fn settle(program: &Program, domains: &Domains, literals: &Literals, top_down: &mut TopDown) {
    loop {
        let plans = plan::plan_rules(program, domains, literals, None, top_down);
        let mut dropped = false;
        for step in plans.iter().flat_map(|p| &p.steps) {
            match step {
                Step::Scan(atom) => {
                    dropped |= std::mem::replace(&mut top_down.asked[atom.rel], false);
                    dropped |= top_down.walks[atom.rel].take().is_some();
                }
                Step::Member { atom, .. } => {
                    dropped |= top_down.walks[atom.rel].take().is_some();
                }
                _ => {}
            }
        }
        if !dropped {
            return;
        }
    }
}

/// Per relation, whether some plan asks it (a [`Step::Ask`]) inside a
/// loop that binds a variable the question does not read: then the same
/// question repeats for each value of that variable (chess's
/// `threatened` king square, the same for every move of a piece from one
/// square), and its search remembers its answers for the state. A search
/// whose questions all differ pays for remembering them and gains nothing
/// (queens31lg: 6 % more instructions).
pub fn repeated_asks(program: &Program, plans: &[plan::RulePlan], asked: &[bool]) -> Vec<bool> {
    let mut repeated = vec![false; asked.len()];
    for p in plans {
        let head = &program.rules[p.rule].head;
        // A search's plan starts with the head's variables given.
        let mut bound: Vec<usize> = match asked[head.rel] {
            true => head.vars(),
            false => Vec::new(),
        };
        let mut looped: Vec<usize> = Vec::new();
        for step in &p.steps {
            if let Step::Ask { atom, .. } = step {
                let read = atom.vars();
                repeated[atom.rel] |= looped.iter().any(|v| !read.contains(v));
            }
            let binds: Vec<usize> = match step {
                Step::Table { bind, .. } => bind.clone(),
                Step::Scan(atom) | Step::Walk { atom, .. } => atom.vars(),
                _ => Vec::new(),
            };
            for v in binds {
                if !bound.contains(&v) {
                    bound.push(v);
                    if step.is_loop() {
                        looped.push(v);
                    }
                }
            }
        }
    }
    repeated
}

#[cfg(test)]
mod tests {
    use crate::compile::{analyze_with, generate_with, Strategy};

    /// A piece on a line of 110 squares, a rook on the last: `blocked`
    /// holds where the rook's ray along `succ` (`ray`, recursive, measured
    /// by `succ`, 5 995 relaxed facts) reaches, through `attack`, which
    /// binds the rook's square; the piece may step only where it is not
    /// blocked.
    fn game() -> String {
        let mut kif = String::from(
            "(role a)\n(init (at 1))\n(init (rook 110))\n(init (wall 50))\n\
             (<= (ray ?x ?y) (succ ?y ?x))\n\
             (<= (ray ?x ?z) (succ ?y ?x) (not (true (wall ?y))) (ray ?y ?z))\n\
             (<= (attack ?x ?y) (true (rook ?x)) (ray ?x ?y))\n\
             (<= (blocked ?y ?w) (attack ?x ?y) (sq ?w))\n\
             (<= (legal a (go ?y)) (true (at ?x)) (succ ?x ?y) (not (blocked ?y ?x)))\n\
             (<= (legal a stay) (true (at ?x)))\n\
             (<= (next (at ?y)) (does a (go ?y)))\n\
             (<= (next (at ?x)) (does a stay) (true (at ?x)))\n\
             (<= (next (rook ?x)) (true (rook ?x)))\n\
             (<= (next (wall ?x)) (true (wall ?x)))\n\
             (<= terminal (true (at 110)))\n(goal a 100)\n",
        );
        for i in 1..=110 {
            kif.push_str(&format!("(sq {i})\n"));
            if i < 110 {
                kif.push_str(&format!("(succ {i} {})\n", i + 1));
            }
        }
        kif
    }

    fn compiled(strategy: Strategy) -> crate::compile::Compiled {
        let loaded = crate::load_bytes("t.kif".into(), game().into()).expect("valid");
        analyze_with(&loaded, strategy).expect("compiles")
    }

    fn asked_names(strategy: Strategy) -> Vec<String> {
        let c = compiled(strategy);
        let relational = c.relational().expect("relation by relation");
        let mut names: Vec<String> = (0..c.program.relations.len())
            .filter(|&r| relational.top_down.asked[r])
            .map(|r| c.program.relations[r].name.to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn large_relations_asked_with_every_argument_bound_are_searched() {
        // `blocked` is asked under `not`; `attack` is small (and
        // unfolded); `ray`, a walk, is walked instead (`walks::tests`).
        assert_eq!(asked_names(Strategy::Demand), ["blocked"]);
        assert!(asked_names(Strategy::Relational).is_empty());
    }

    #[test]
    fn a_search_remembers_its_answers_only_where_a_question_repeats() {
        let remembered = |extra: &str| {
            let text = format!("{}{extra}", game());
            let loaded = crate::load_bytes("t.kif".into(), text.into_bytes()).expect("valid");
            let c = analyze_with(&loaded, Strategy::Demand).expect("compiles");
            let relational = c.relational().expect("relation by relation");
            let blocked = (0..c.program.relations.len())
                .find(|&r| c.program.relations[r].name.as_str() == "blocked")
                .expect("blocked");
            assert!(relational.top_down.asked[blocked]);
            let code = generate_with(&loaded, Strategy::Demand, "t.bin").expect("compiles");
            assert_eq!(
                code.code.contains("Memo<"),
                relational.top_down.remembered[blocked]
            );
            relational.top_down.remembered[blocked]
        };
        // `legal`'s loops bind only what the question reads.
        assert!(!remembered(""));
        // The loop over `pos` binds ?w, which the question does not read:
        // it is asked again for each ?w.
        assert!(remembered(
            "(init (pos 1 1)) (init (pos 1 2))\n\
             (<= (next (pos ?x ?w)) (true (pos ?x ?w)))\n\
             (<= (legal a (hop ?w)) (true (pos ?x ?w)) (not (blocked ?x ?x)))\n"
        ));
    }

    #[test]
    fn a_searched_relation_is_a_function_and_has_no_container() {
        let loaded = crate::load_bytes("t.kif".into(), game().into()).expect("valid");
        let code = generate_with(&loaded, Strategy::Demand, "t.bin").expect("compiles");
        let code = code.code;
        assert!(code.contains("/// `legal/2`"), "legal keeps a container");
        assert!(!code.contains("/// `blocked/2`"), "blocked has none");
        let ask = code
            .find("Whether `(blocked ...)` holds")
            .expect("a search");
        assert!(code[ask..].contains("-> bool"));
        assert!(
            code.contains("if self.ask_"),
            "the legal rule calls a search"
        );
        let relational = generate_with(&loaded, Strategy::Relational, "t.bin").expect("compiles");
        assert!(!relational.code.contains("fn ask_"));
    }

    #[test]
    fn a_call_that_would_enumerate_answers_is_unfolded_into_the_search() {
        let unfolded = |strategy| {
            let c = compiled(strategy);
            let blocked: Vec<&str> = (c.program.rules.iter())
                .map(|r| r.text.as_str())
                .filter(|t| t.starts_with("(<= (blocked "))
                .collect();
            assert!(!blocked.is_empty());
            blocked
                .iter()
                .all(|t| t.contains("[with `attack/2` inlined]"))
        };
        assert!(unfolded(Strategy::Demand));
        assert!(!unfolded(Strategy::Relational));
    }
}
