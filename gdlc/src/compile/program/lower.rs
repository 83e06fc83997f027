//! Lowering: checked normal-form rules to a [`Program`] — symbols and ground
//! terms interned to small ids, rules rewritten over relation ids and
//! variable numbers, every static relation (one that depends on neither
//! `true` nor `does`) evaluated at compile time (by the interpreter) and
//! kept as a table of facts — or, when too large to tabulate, kept as
//! rules of a relation derived per state.

use super::{Atom, Class, Lit, Pat, Program, RelId, Rule, ANSWER_KEYWORDS};
use crate::compile::error::CompileError;
use crate::graph::RelationGraph;
use crate::interp::{catch_limit, Interpreter};
use crate::ir::terms::{TermData, TermId, TermStore};
use crate::ir::written_name;
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::{self, Relation};
use rustc_hash::FxHashMap;

/// Normalizes checked rules; the static relations are evaluated here.
pub fn lower(rules: &[NormalRule]) -> Result<Program, CompileError> {
    let interp = catch_limit(|| Interpreter::from_rules(rules))
        .map_err(|limit| CompileError::StaticRelations(limit.0))?;
    let (graph, true_node, does_node) = RelationGraph::with_inputs(rules);
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

    let mut class = graph.classes(true_node, does_node);

    let mut store = TermStore::default();
    let (facts, too_large) = static_tables(&interp, &rel_index, &mut store);
    let roles: Vec<TermId> = interp.role_terms().iter().map(|t| store.term(t)).collect();
    let mut init: Vec<TermId> = interp
        .initial_fluents()
        .iter()
        .map(|t| store.term(t))
        .collect();
    init.sort_unstable();

    let needed = needed_relations(&graph, &relations, &answers);
    let untabulated: Vec<RelId> = too_large.into_iter().filter(|&r| needed[r]).collect();
    for &r in &untabulated {
        // Evaluated per state from its rules, like a derived relation:
        // magic sets then evaluate it only for the bindings its callers
        // ask about, and the compound terms it builds are built at run
        // time (see `analyse::open`).
        class[r] = Class::State;
    }
    let out_rules = rules
        .iter()
        .filter(|rule| {
            let head_rel = rel_index[&rule.head.relation()];
            class[head_rel] != Class::Static && needed[head_rel]
        })
        .map(|rule| lower_rule(rule, &rel_index, &mut store))
        .collect();
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
        untabulated,
    })
}

/// The facts of each static relation the interpreter computed, interned in
/// `store`, sorted and without duplicates, by relation; and the static
/// relations too large to materialize.
fn static_tables(
    interp: &Interpreter,
    rel_index: &FxHashMap<Relation, RelId>,
    store: &mut TermStore,
) -> (Vec<Vec<Vec<TermId>>>, Vec<RelId>) {
    let mut facts: Vec<Vec<Vec<TermId>>> = vec![Vec::new(); rel_index.len()];
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
    (facts, too_large)
}

/// Whether each relation is one the answers of some phase depend on.
fn needed_relations(
    graph: &RelationGraph,
    relations: &[Relation],
    answers: &[Vec<RelId>],
) -> Vec<bool> {
    let roots: Vec<Relation> = answers
        .iter()
        .flatten()
        .map(|&r| relations[r].clone())
        .collect();
    let mut needed = vec![false; relations.len()];
    for n in graph.cone(&roots) {
        needed[n.index()] = true;
    }
    needed
}

/// One rule over relation ids and numbered variables, its ground terms
/// interned in `store`.
fn lower_rule(
    rule: &NormalRule,
    rel_index: &FxHashMap<Relation, RelId>,
    store: &mut TermStore,
) -> Rule {
    let mut vars: Vec<String> = Vec::new();
    let mut lower = Lowering {
        store,
        vars: &mut vars,
    };
    let head = lower.atom(&rule.head, rel_index);
    let body = rule
        .body
        .iter()
        .map(|l| match l {
            NormalLiteral::Pos(a) => Lit::Pos(lower.atom(a, rel_index)),
            NormalLiteral::Neg(a) => Lit::Neg(lower.atom(a, rel_index)),
            NormalLiteral::Distinct(x, y, _) => Lit::Distinct(lower.pat(x), lower.pat(y)),
            NormalLiteral::Same(x, y, _) => Lit::Same(lower.pat(x), lower.pat(y)),
        })
        .collect();
    Rule {
        head,
        body,
        vars,
        text: rule_text(rule),
    }
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
