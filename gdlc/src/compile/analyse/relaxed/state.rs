//! The state of the relaxed evaluation ([`RelaxedEvaluation`]): the facts
//! and domains found so far, what falls back to domains argument by
//! argument, the limits, the work counters and the scratch space of the
//! joins; and how a fact is added.

use super::keys::InnerKey;
use super::table::{Domain, Rows, Tuples};
use crate::compile::program::{Class, Program, RelId};
use crate::ir::terms::TermId;
use rustc_hash::{FxHashMap, FxHashSet};

/// How far the relaxed evaluation enumerates facts before it falls back to
/// domains computed argument by argument.
#[derive(Clone, Copy)]
pub struct Limits {
    /// Most tuples kept for one relation; past it only the domain of each
    /// argument is kept.
    pub rows: usize,
    /// Most candidate tuples one evaluation of a rule may look at; past it
    /// the rule's head domains are computed argument by argument.
    pub join_work: usize,
}

/// The work of the relaxed evaluation, for `gdlc explain`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RelaxedWork {
    /// Rounds until nothing grew.
    pub rounds: usize,
    /// Evaluations of a rule over its facts (one per new part of an input).
    pub joins: usize,
    /// Evaluations of a rule argument by argument.
    pub by_argument: usize,
    /// Facts added to the relations whose facts are enumerated.
    pub facts: usize,
    /// Candidate facts the joins tried.
    pub tried: usize,
}

/// The relaxed evaluation: every rule with its negative literals dropped,
/// `true` holding every fluent `init` or `next` can produce and `does`
/// every move `legal` can. Its facts are a superset of every fact of every
/// reachable state, so their argument values are sound domains. Relations
/// with too many tuples, and rules whose joins are too large, fall back to
/// domains computed argument by argument.
pub(super) struct RelaxedEvaluation<'a> {
    pub(super) program: &'a mut Program,
    /// Tuples per relation; `None` once only the domains are kept.
    pub(super) tuples: Vec<Option<Tuples>>,
    pub(super) dom: Vec<Vec<Domain>>,
    /// Whether a domain of the relation grew in the current round.
    pub(super) grew: Vec<bool>,
    /// Rules whose joins were too large: evaluated argument by argument.
    pub(super) too_large: FxHashSet<usize>,
    /// Per rule evaluated argument by argument, per head argument, how many
    /// values each of its variables had when it was last evaluated.
    pub(super) by_argument: FxHashMap<usize, Vec<Vec<usize>>>,
    /// Per rule whose head keeps only its domains, the values its
    /// variables take at each of their occurrences (see
    /// `RelaxedEvaluation::saturated`).
    pub(super) occurrences: FxHashMap<usize, Vec<Occurrence>>,
    /// Per relation, its rows before the current round: a run of a rule
    /// over the new rows of one literal reads only these at the literals
    /// before it (a binding with new rows at two literals is found once,
    /// in the run of the first).
    pub(super) old_rows: Vec<usize>,
    pub(super) limits: Limits,
    pub(super) work: RelaxedWork,
    /// Scratch space for `bound_key`.
    pub(super) key: (Vec<usize>, Vec<TermId>),
    /// Scratch space for the key of a compound argument bound in part.
    pub(super) inner: InnerKey,
    /// Buffers for `RelaxedEvaluation::scan_literal`, one taken per literal
    /// being scanned (joins nest) and given back after.
    pub(super) buffers: Vec<ScanBuffers>,
    /// The variables each witness search of `RelaxedEvaluation::join` must
    /// unbind after it, stacked (witness searches nest).
    pub(super) to_unbind: Vec<usize>,
}

/// The scratch space of one literal's scan.
#[derive(Default)]
pub(super) struct ScanBuffers {
    /// The candidate rows, by index.
    pub(super) rows: Vec<u32>,
    /// The literal's variables the scan binds.
    pub(super) free: Vec<usize>,
    /// Its arguments not bound before the scan.
    pub(super) unbound: Vec<usize>,
}

/// An argument of a positive literal of a rule that holds variables, and
/// the values each of them takes in the terms of that argument's domain
/// that the argument's pattern matches.
pub(super) struct Occurrence {
    /// The literal's index in the body.
    pub(super) lit: usize,
    pub(super) position: usize,
    /// How many values of the domain were matched so far (domains only
    /// grow, new values last).
    pub(super) seen: usize,
    pub(super) vars: Vec<usize>,
    pub(super) values: Vec<FxHashSet<TermId>>,
}

impl<'a> RelaxedEvaluation<'a> {
    /// The evaluation of `program` before its first round: the static
    /// facts and the initial fluents.
    pub(super) fn new(program: &'a mut Program, limits: Limits) -> Self {
        let n = program.relations.len();
        let mut g = RelaxedEvaluation {
            tuples: (0..n).map(|_| Some(Tuples::default())).collect(),
            dom: program
                .relations
                .iter()
                .map(|r| vec![Domain::default(); r.arity])
                .collect(),
            grew: vec![false; n],
            too_large: FxHashSet::default(),
            by_argument: FxHashMap::default(),
            occurrences: FxHashMap::default(),
            old_rows: Vec::new(),
            limits,
            work: RelaxedWork::default(),
            key: Default::default(),
            inner: InnerKey::default(),
            buffers: Vec::new(),
            to_unbind: Vec::new(),
            program,
        };
        for r in 0..n {
            if g.program.class[r] == Class::Static {
                let facts = std::mem::take(&mut g.program.facts[r]);
                for row in &facts {
                    g.add(r, row);
                }
                g.program.facts[r] = facts;
            }
        }
        let true_rel = g.program.true_rel;
        for f in g.program.init.clone() {
            g.add(true_rel, &[f]);
        }
        g
    }

    /// Adds a fact; `true` if something grew.
    pub(super) fn add(&mut self, r: RelId, row: &[TermId]) -> bool {
        let mut grew = false;
        let new = match &mut self.tuples[r] {
            Some(t) => {
                // A fact known already has its values in the domains, and
                // so has the fact added before it (facts come sorted, so
                // their first values repeat). The indexes catch up with the
                // facts when they are next looked up.
                if !t.rows.insert(row) {
                    return false;
                }
                let n = t.rows.len();
                let previous = (n > 1).then(|| t.rows.get(n - 2));
                for (i, &v) in row.iter().enumerate() {
                    if previous.is_none_or(|p| p[i] != v) {
                        grew |= self.dom[r][i].insert(v);
                    }
                }
                self.work.facts += 1;
                if t.rows.len() > self.limits.rows {
                    // Its readers must now see it argument by argument.
                    self.tuples[r] = None;
                    self.grew[r] = true;
                }
                true
            }
            None => {
                for (i, &v) in row.iter().enumerate() {
                    grew |= self.dom[r][i].insert(v);
                }
                false
            }
        };
        self.grew[r] |= grew;
        new || grew
    }

    /// The facts of relation `r`, one whose facts are kept.
    pub(super) fn rows_of(&self, r: RelId) -> &Rows {
        &self.tuples[r].as_ref().expect("materialized").rows
    }

    /// The number of tuples kept for relation `r` (none once only its
    /// domains are kept).
    pub(super) fn len(&self, r: RelId) -> usize {
        self.tuples[r].as_ref().map_or(0, |t| t.rows.len())
    }
}
