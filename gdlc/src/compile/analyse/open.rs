//! Open arguments: the argument positions whose values are built while a
//! state is evaluated, not enumerated at compile time. They start at the
//! compound arguments of the rules of a static relation too large to
//! tabulate (laikLee_hex's `append_el` over lists of cells: its terms
//! are as many as the paths of the board) and spread to every head
//! argument that holds a variable bound only at open positions.
//!
//! The relaxed evaluation behind the domains sees each open argument as
//! one placeholder term ([`erase`]), so it neither enumerates their values
//! nor loses the closed values around them; the generated code builds and
//! takes apart their terms at run time (`gdl_runtime::support::OpenTerms`).
//! A keyword's argument cannot be open: states, moves and answers are
//! numbered at compile time.

use crate::compile::error::CompileError;
use crate::compile::program::{Atom, Lit, Pat, Program, RelId, Rule};
use crate::ir::terms::{TermData, TermId};

/// Per relation, per argument position: whether it is open.
pub type OpenArgs = Vec<Vec<bool>>;

/// The open arguments of `program`; an error when one is an argument of
/// `true`, `does` or an answer keyword.
pub fn arguments(program: &Program) -> Result<OpenArgs, CompileError> {
    let mut open: OpenArgs = program
        .relations
        .iter()
        .map(|r| vec![false; r.arity])
        .collect();
    for rule in &program.rules {
        if program.untabulated.contains(&rule.head.rel) {
            for (i, arg) in rule.head.args.iter().enumerate() {
                open[rule.head.rel][i] |= compound(program, arg);
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for rule in &program.rules {
            let vars = open_vars(rule, &open);
            for (i, arg) in rule.head.args.iter().enumerate() {
                if !open[rule.head.rel][i] && mentions(arg, &vars) {
                    open[rule.head.rel][i] = true;
                    changed = true;
                }
            }
        }
    }
    check_keywords(program, &open)?;
    Ok(open)
}

/// Whether `arg` is a compound term (a pattern or a ground one).
fn compound(program: &Program, arg: &Pat) -> bool {
    match arg {
        Pat::Func(..) => true,
        Pat::Ground(t) => matches!(program.store.data(*t), TermData::Func(..)),
        Pat::Var(_) => false,
    }
}

/// Per variable of `rule`: whether it is bound only at open arguments of
/// its positive literals (no closed argument of one mentions it).
fn open_vars(rule: &Rule, open: &OpenArgs) -> Vec<bool> {
    let mut at_open = vec![false; rule.vars.len()];
    let mut at_closed = vec![false; rule.vars.len()];
    for lit in &rule.body {
        let Lit::Pos(atom) = lit else { continue };
        for (i, arg) in atom.args.iter().enumerate() {
            let seen = if open[atom.rel][i] {
                &mut at_open
            } else {
                &mut at_closed
            };
            arg.for_each_var(&mut |v| seen[v] = true);
        }
    }
    at_open
        .iter()
        .zip(&at_closed)
        .map(|(&o, &c)| o && !c)
        .collect()
}

/// Whether `pat` mentions a variable flagged in `vars`.
fn mentions(pat: &Pat, vars: &[bool]) -> bool {
    let mut any = false;
    pat.for_each_var(&mut |v| any |= vars[v]);
    any
}

/// An error when an argument of `true`, `does` or an answer keyword is open.
fn check_keywords(program: &Program, open: &OpenArgs) -> Result<(), CompileError> {
    let keywords = [program.true_rel, program.does_rel]
        .into_iter()
        .chain(program.answers.iter().flatten().copied());
    for r in keywords {
        if let Some(i) = open[r].iter().position(|&o| o) {
            return Err(CompileError::OpenKeyword {
                argument: i + 1,
                relation: program.relations[r].to_string(),
            });
        }
    }
    Ok(())
}

/// The first open argument, as (relation, position), if any.
pub fn first(open: &OpenArgs) -> Option<(RelId, usize)> {
    open.iter()
        .enumerate()
        .find_map(|(r, args)| Some((r, args.iter().position(|&o| o)?)))
}

/// `rules` as the relaxed evaluation sees them: every open argument (of a
/// head or a literal) is the placeholder term `top`, the variables bound
/// only there are gone (renumbered), and so are the negative, `distinct`
/// and `=` literals that mention them (the relaxed evaluation is an
/// over-approximation).
pub fn erase(rules: &[Rule], open: &OpenArgs, top: TermId) -> Vec<Rule> {
    rules
        .iter()
        .map(|rule| {
            let gone = open_vars(rule, open);
            let mut number = vec![usize::MAX; rule.vars.len()];
            let mut vars = Vec::new();
            for (v, name) in rule.vars.iter().enumerate().filter(|&(v, _)| !gone[v]) {
                number[v] = vars.len();
                vars.push(name.clone());
            }
            let atom = |a: &Atom| Atom {
                rel: a.rel,
                args: (a.args.iter().enumerate())
                    .map(|(i, p)| match open[a.rel][i] {
                        true => Pat::Ground(top),
                        false => renumber(p, &number),
                    })
                    .collect(),
            };
            let body = (rule.body.iter())
                .filter_map(|lit| match lit {
                    Lit::Pos(a) => Some(Lit::Pos(atom(a))),
                    _ if lit.vars().iter().any(|&v| gone[v]) => None,
                    Lit::Neg(a) => Some(Lit::Neg(atom(a))),
                    Lit::Distinct(x, y) => {
                        Some(Lit::Distinct(renumber(x, &number), renumber(y, &number)))
                    }
                    Lit::Same(x, y) => Some(Lit::Same(renumber(x, &number), renumber(y, &number))),
                })
                .collect();
            Rule {
                head: atom(&rule.head),
                body,
                vars,
                text: rule.text.clone(),
            }
        })
        .collect()
}

/// `pat` with its variables renumbered by `number`.
fn renumber(pat: &Pat, number: &[usize]) -> Pat {
    match pat {
        Pat::Var(v) => Pat::Var(number[*v]),
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(f, args) => Pat::Func(*f, args.iter().map(|a| renumber(a, number)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::program::lower::lower;

    /// The lowered program of `text`, with `untabulated` taken for static
    /// relations too large to tabulate (the corpus's need millions of
    /// facts; any relation with rules stands in for one here).
    fn program(text: &str, untabulated: &[&str]) -> Program {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let mut program = lower(&loaded.analysis.rules).expect("lowers");
        program.untabulated = untabulated.iter().map(|&n| relation(&program, n)).collect();
        program
    }

    fn relation(program: &Program, name: &str) -> RelId {
        (program.relations.iter())
            .position(|r| r.to_string() == name)
            .expect("a relation of the program")
    }

    /// `mk` builds lists of one cell from the state.
    const LISTS: &str = "(role r) (init (at 1)) (cell 1) (cell 2)
        (<= (mk (c ?x nil)) (true (at ?x)))
        (<= (wrap ?l ?x) (mk ?l) (cell ?x))
        (<= (first ?x) (wrap ?l ?x))
        (<= (legal r (go ?x)) (first ?x))
        (<= (next (at ?x)) (does r (go ?x)))
        (<= terminal (true (at 2))) (goal r 100)";

    #[test]
    fn open_arguments_spread_to_the_heads_that_carry_their_terms() {
        let p = program(LISTS, &["mk/1"]);
        let open = arguments(&p).expect("no keyword is open");
        assert_eq!(open[relation(&p, "mk/1")], [true]);
        assert_eq!(
            open[relation(&p, "wrap/2")],
            [true, false],
            "?x is bound by cell"
        );
        assert_eq!(open[relation(&p, "first/1")], [false]);
        assert_eq!(first(&open), Some((relation(&p, "mk/1"), 0)));
        let none = program(LISTS, &[]);
        assert_eq!(first(&arguments(&none).expect("nothing open")), None);
    }

    #[test]
    fn a_keyword_with_an_open_argument_is_an_error() {
        let text = format!("{LISTS} (<= (next (seen ?l)) (mk ?l))");
        let p = program(&text, &["mk/1"]);
        assert_eq!(
            arguments(&p).err(),
            Some(CompileError::OpenKeyword {
                argument: 1,
                relation: "next/1".into()
            })
        );
    }

    #[test]
    fn the_relaxed_rules_see_one_placeholder_at_open_arguments() {
        let mut p = program(LISTS, &["mk/1"]);
        let open = arguments(&p).expect("no keyword is open");
        let top = p.store.constant("top");
        let erased = erase(&p.rules, &open, top);
        let wrap = relation(&p, "wrap/2");
        let rule = erased
            .iter()
            .find(|r| r.head.rel == wrap)
            .expect("wrap's rule");
        // ?l is gone, ?x renumbered 0.
        assert_eq!(rule.vars, ["?x"]);
        assert_eq!(rule.head.args, [Pat::Ground(top), Pat::Var(0)]);
        let mk = relation(&p, "mk/1");
        assert_eq!(
            rule.body[0],
            Lit::Pos(Atom {
                rel: mk,
                args: vec![Pat::Ground(top)]
            })
        );
    }
}
