//! Stage 3, normalization: symbols and ground terms interned to small ids,
//! rules rewritten over relation ids and variable numbers, every static
//! relation (one that depends on neither `true` nor `does`) evaluated at
//! compile time and kept as a table of facts.

use super::CompileError;
use crate::graph::RelationGraph;
use crate::interp::terms::{SymId, TermData, TermId, TermStore};
use crate::interp::{catch_limit, Interpreter};
use crate::normal::{written_name, NormalLiteral, NormalRule};
use crate::syntax::ast::{self, Relation};
use rustc_hash::FxHashMap;

/// Index of a relation in [`Program::relations`].
pub type RelId = usize;

/// What a relation's facts depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Neither `true` nor `does`: a compile-time table.
    Static,
    /// `true` but not `does`: computed per state.
    State,
    /// `does`: computed per joint move.
    Move,
}

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
    /// The relations answering `legal/2`, `next/1`, `terminal/0`, `goal/2`.
    pub answers: [Vec<RelId>; 4],
    /// The relation graph (nodes indexed like `relations`).
    pub graph: RelationGraph,
}

/// The keyword relations whose facts answer the four questions, in the
/// order of [`Program::answers`].
pub const ANSWER_KEYWORDS: [(&str, usize); 4] =
    [("legal", 2), ("next", 1), ("terminal", 0), ("goal", 2)];

/// Normalizes checked rules; the static relations are evaluated here.
pub fn normalize(rules: &[NormalRule]) -> Result<Program, CompileError> {
    let interp = catch_limit(|| Interpreter::from_rules(rules))
        .map_err(|limit| CompileError(format!("the static relations: {}", limit.0)))?;
    let mut graph = RelationGraph::new(rules);
    let true_node = graph.add(Relation {
        name: "true".into(),
        arity: 1,
    });
    let does_node = graph.add(Relation {
        name: "does".into(),
        arity: 2,
    });
    let relations: Vec<Relation> = graph.graph.node_weights().cloned().collect();
    let rel_index: FxHashMap<Relation, RelId> = relations
        .iter()
        .enumerate()
        .map(|(i, r)| (r.clone(), i))
        .collect();
    let keyword = |name: &str, arity: usize| -> Vec<RelId> {
        (0..relations.len())
            .filter(|&i| written_name(&relations[i].name) == name && relations[i].arity == arity)
            .collect()
    };
    let answers = ANSWER_KEYWORDS.map(|(name, arity)| keyword(name, arity));

    // Classes, in topological order of the components.
    let mut class = vec![Class::Static; relations.len()];
    class[true_node.index()] = Class::State;
    class[does_node.index()] = Class::Move;
    for scc in graph.components() {
        let mut k = scc
            .iter()
            .map(|n| class[n.index()])
            .max()
            .unwrap_or(Class::Static);
        for &n in &scc {
            for m in graph
                .graph
                .neighbors_directed(n, petgraph::Direction::Incoming)
            {
                k = k.max(class[m.index()]);
            }
        }
        for &n in &scc {
            class[n.index()] = k;
        }
    }

    let mut store = TermStore::default();
    let mut facts: Vec<Vec<Vec<TermId>>> = vec![Vec::new(); relations.len()];
    let mut too_large: Vec<RelId> = Vec::new();
    for table in interp.static_facts() {
        let Some(&r) = rel_index.get(&table.relation) else {
            continue;
        };
        match table.rows {
            Some(rows) => {
                facts[r] = rows
                    .iter()
                    .map(|row| row.iter().map(|t| store.term(t)).collect())
                    .collect();
                facts[r].sort_unstable();
                facts[r].dedup();
            }
            None => too_large.push(r),
        }
    }
    let roles: Vec<TermId> = interp.role_terms().iter().map(|t| store.term(t)).collect();
    let mut init: Vec<TermId> = interp
        .initial_fluents()
        .iter()
        .map(|t| store.term(t))
        .collect();
    init.sort_unstable();

    let roots: Vec<Relation> = answers
        .iter()
        .flatten()
        .map(|&r| relations[r].clone())
        .collect();
    let mut needed = vec![false; relations.len()];
    for n in graph.cone(&roots) {
        needed[n.index()] = true;
    }
    if let Some(&r) = too_large.iter().find(|&&r| needed[r]) {
        return Err(CompileError(format!(
            "the static relation `{}` is too large to tabulate at compile time \
             (more than 2,000,000 facts); relations answered on demand are not supported by the compiler",
            relations[r]
        )));
    }

    let mut out_rules = Vec::new();
    for rule in rules {
        let head_rel = rel_index[&rule.head.relation()];
        if class[head_rel] == Class::Static || !needed[head_rel] {
            continue;
        }
        let mut vars: Vec<String> = Vec::new();
        let mut lower = Lowering {
            store: &mut store,
            vars: &mut vars,
        };
        let head = lower.atom(&rule.head, &rel_index);
        let body = rule
            .body
            .iter()
            .map(|l| match l {
                NormalLiteral::Pos(a) => Lit::Pos(lower.atom(a, &rel_index)),
                NormalLiteral::Neg(a) => Lit::Neg(lower.atom(a, &rel_index)),
                NormalLiteral::Distinct(x, y, _) => Lit::Distinct(lower.pat(x), lower.pat(y)),
                NormalLiteral::Same(x, y, _) => Lit::Same(lower.pat(x), lower.pat(y)),
            })
            .collect();
        out_rules.push(Rule {
            head,
            body,
            vars,
            text: rule_text(rule),
        });
    }
    Ok(Program {
        store,
        relations,
        class,
        rules: out_rules,
        facts,
        roles,
        init,
        true_rel: true_node.index(),
        does_rel: does_node.index(),
        answers,
        graph,
    })
}

/// Turns syntax terms into patterns, numbering variables.
struct Lowering<'a> {
    store: &'a mut TermStore,
    vars: &'a mut Vec<String>,
}

impl Lowering<'_> {
    fn atom(&mut self, atom: &ast::Atom, rel_index: &FxHashMap<Relation, RelId>) -> Atom {
        Atom {
            rel: rel_index[&atom.relation()],
            args: atom.args.iter().map(|t| self.pat(t)).collect(),
        }
    }

    fn pat(&mut self, term: &ast::Term) -> Pat {
        match term {
            ast::Term::Const(name, _) => Pat::Ground(self.store.constant(name)),
            ast::Term::Var(name, _) => match self.vars.iter().position(|v| v == name) {
                Some(i) => Pat::Var(i),
                None => {
                    self.vars.push(name.clone());
                    Pat::Var(self.vars.len() - 1)
                }
            },
            ast::Term::Func(name, args, _) => {
                let args: Vec<Pat> = args.iter().map(|a| self.pat(a)).collect();
                let sym = self.store.symbol(name);
                if args.iter().all(|a| matches!(a, Pat::Ground(_))) {
                    let ids = args
                        .iter()
                        .map(|a| match a {
                            Pat::Ground(t) => *t,
                            _ => unreachable!("all arguments are ground"),
                        })
                        .collect();
                    Pat::Ground(self.store.intern(TermData::Func(sym, ids)))
                } else {
                    Pat::Func(sym, args)
                }
            }
        }
    }
}

/// The text of a normal-form rule, as KIF.
fn rule_text(rule: &NormalRule) -> String {
    let mut out = format!("(<= {}", atom_text(&rule.head));
    for l in &rule.body {
        out.push(' ');
        match l {
            NormalLiteral::Pos(a) => out.push_str(&atom_text(a)),
            NormalLiteral::Neg(a) => out.push_str(&format!("(not {})", atom_text(a))),
            NormalLiteral::Distinct(x, y, _) => out.push_str(&format!("(distinct {x} {y})")),
            NormalLiteral::Same(x, y, _) => out.push_str(&format!("(not (distinct {x} {y}))")),
        }
    }
    out.push(')');
    out
}

/// An atom as written (refinement suffixes of the name dropped).
fn atom_text(atom: &ast::Atom) -> String {
    let shown = ast::Atom {
        name: written_name(&atom.name).to_string(),
        args: atom.args.clone(),
        span: atom.span,
    };
    shown.to_string()
}

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
