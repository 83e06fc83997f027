//! The lowered program both strategies compile: symbols and ground terms
//! interned to small ids, rules over relation ids with numbered variables,
//! static relations as tables of facts ([`lower`] builds it), and the
//! pattern operations over it.

pub mod lower;

use crate::graph::RelationGraph;
use crate::ir::terms::{SymId, TermData, TermId, TermStore};
pub use crate::ir::{Class, RelId};
use crate::ir::{Phase, PHASES};
use crate::syntax::ast::Relation;

/// An argument pattern: a term with numbered variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pat {
    /// Variable number `n` of the rule.
    Var(usize),
    /// A ground term.
    Ground(TermId),
    /// A function symbol applied to patterns, at least one not ground.
    Func(SymId, Vec<Pat>),
}

impl Pat {
    /// Calls `f` on every variable occurrence, left to right.
    pub fn for_each_var(&self, f: &mut impl FnMut(usize)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Ground(_) => {}
            Pat::Func(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// The variables of the pattern in order of first occurrence.
    pub fn vars(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.for_each_var(&mut |v| {
            if !out.contains(&v) {
                out.push(v)
            }
        });
        out
    }
}

/// An atom over a relation id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The relation.
    pub rel: RelId,
    /// The argument patterns.
    pub args: Vec<Pat>,
}

impl Atom {
    /// The variables of the atom in order of first occurrence.
    pub fn vars(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for a in &self.args {
            a.for_each_var(&mut |v| {
                if !out.contains(&v) {
                    out.push(v)
                }
            });
        }
        out
    }
}

/// A body literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lit {
    /// The atom holds.
    Pos(Atom),
    /// The atom does not hold.
    Neg(Atom),
    /// The two terms differ.
    Distinct(Pat, Pat),
    /// The two terms are equal.
    Same(Pat, Pat),
}

impl Lit {
    /// The variables of the literal.
    pub fn vars(&self) -> Vec<usize> {
        match self {
            Lit::Pos(a) | Lit::Neg(a) => a.vars(),
            Lit::Distinct(x, y) | Lit::Same(x, y) => {
                let mut v = x.vars();
                for w in y.vars() {
                    if !v.contains(&w) {
                        v.push(w)
                    }
                }
                v
            }
        }
    }
}

/// A rule over relation ids, its variables numbered `0..vars.len()`.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The head.
    pub head: Atom,
    /// The body, a conjunction.
    pub body: Vec<Lit>,
    /// The variables' names, by number.
    pub vars: Vec<String>,
    /// The rule as written (normal form), for comments and `explain`.
    pub text: String,
}

/// A checked description, normalized for the compiler.
#[derive(Clone)]
pub struct Program {
    /// Interned symbols and ground terms.
    pub store: TermStore,
    /// Every relation, refined names kept (see [`crate::normal::refine`]).
    pub relations: Vec<Relation>,
    /// What each relation depends on.
    pub class: Vec<Class>,
    /// The rules of every non-static relation some phase needs, in source order.
    pub rules: Vec<Rule>,
    /// The facts of static relations (for others, empty).
    pub facts: Vec<Vec<Vec<TermId>>>,
    /// The role terms in declaration order.
    pub roles: Vec<TermId>,
    /// The fluents of the initial state.
    pub init: Vec<TermId>,
    /// The relation `true/1`.
    pub true_rel: RelId,
    /// The relation `does/2`.
    pub does_rel: RelId,
    /// The relations answering `legal/2`, `next/1`, `terminal/0`, `goal/2`
    /// and `sees/2` (by [`crate::ir::Phase`]; no `sees` in a GDL game).
    pub answers: [Vec<RelId>; PHASES],
    /// The relation graph (nodes indexed like `relations`).
    pub graph: RelationGraph,
    /// The static relations too large to tabulate, derived per state from
    /// their rules instead (see [`lower`]).
    pub untabulated: Vec<RelId>,
}

impl Program {
    /// Whether the game defines `sees` (GDL-II percepts).
    pub fn has_percepts(&self) -> bool {
        !self.answers[Phase::Sees as usize].is_empty()
    }

    /// How many phases (in [`Phase`] order) the game answers: every one in
    /// a game with percepts, all but `sees` otherwise.
    pub fn phases(&self) -> usize {
        if self.has_percepts() {
            PHASES
        } else {
            Phase::Sees as usize
        }
    }
}

/// The keyword relations whose facts answer the questions, in the order of
/// [`Program::answers`].
pub const ANSWER_KEYWORDS: [(&str, usize); PHASES] = [
    ("legal", 2),
    ("next", 1),
    ("terminal", 0),
    ("goal", 2),
    ("sees", 2),
];

/// Matches a ground term against a pattern, extending `binding` (one slot
/// per variable); `false` when they do not match.
pub fn matches(store: &TermStore, pat: &Pat, term: TermId, binding: &mut [Option<TermId>]) -> bool {
    match pat {
        Pat::Ground(t) => *t == term,
        Pat::Var(v) => match binding[*v] {
            Some(b) => b == term,
            None => {
                binding[*v] = Some(term);
                true
            }
        },
        Pat::Func(sym, args) => match store.data(term) {
            TermData::Func(s, targs) if s == sym && targs.len() == args.len() => args
                .iter()
                .zip(targs.iter())
                .all(|(p, &t)| matches(store, p, t, binding)),
            _ => false,
        },
    }
}

/// The ground term of a pattern whose variables are all bound, interning it.
pub fn instantiate(store: &mut TermStore, pat: &Pat, binding: &[TermId]) -> TermId {
    match pat {
        Pat::Ground(t) => *t,
        Pat::Var(v) => binding[*v],
        Pat::Func(sym, args) => {
            let ids = args
                .iter()
                .map(|a| instantiate(store, a, binding))
                .collect();
            store.intern(TermData::Func(*sym, ids))
        }
    }
}

/// The ground term of a pattern whose variables are all bound, if it was
/// interned before.
pub fn lookup(store: &TermStore, pat: &Pat, binding: &[TermId]) -> Option<TermId> {
    match pat {
        Pat::Ground(t) => Some(*t),
        Pat::Var(v) => Some(binding[*v]),
        Pat::Func(sym, args) => lookup_args(store, *sym, args, |a| lookup(store, a, binding)),
    }
}

/// The ground term of a pattern under a partial binding, if every variable
/// is bound and the term was interned before.
pub fn lookup_bound(store: &TermStore, pat: &Pat, binding: &[Option<TermId>]) -> Option<TermId> {
    match pat {
        Pat::Ground(t) => Some(*t),
        Pat::Var(v) => binding[*v],
        Pat::Func(sym, args) => lookup_args(store, *sym, args, |a| lookup_bound(store, a, binding)),
    }
}

/// The function term `symbol(args)`, each argument's term found by `arg`,
/// if they and it were interned before (without allocating for up to eight
/// arguments: the relaxed evaluation looks terms up by the million).
fn lookup_args(
    store: &TermStore,
    symbol: SymId,
    args: &[Pat],
    arg: impl Fn(&Pat) -> Option<TermId>,
) -> Option<TermId> {
    let mut ids = [0 as TermId; 8];
    if args.len() <= ids.len() {
        for (slot, a) in ids.iter_mut().zip(args) {
            *slot = arg(a)?;
        }
        store.lookup_func(symbol, &ids[..args.len()])
    } else {
        let ids: Vec<TermId> = args.iter().map(arg).collect::<Option<_>>()?;
        store.lookup_func(symbol, &ids)
    }
}

/// Whether every variable of a pattern is bound.
pub fn is_bound(pat: &Pat, binding: &[Option<TermId>]) -> bool {
    match pat {
        Pat::Ground(_) => true,
        Pat::Var(v) => binding[*v].is_some(),
        Pat::Func(_, args) => args.iter().all(|a| is_bound(a, binding)),
    }
}
