//! Stage 2, semantic checks: keyword discipline, safety, stratified negation
//! and the recursion restriction. Each problem is a named diagnostic with its
//! span; harmless deviations that the field's reasoners accept are warnings.

mod helpers;
mod keywords;
mod no_move;
mod recursion;
mod safety;
mod strata;

use crate::diagnostics::Diagnostic;
use crate::graph::RelationGraph;
use crate::normal::{normalize, NormalRule};
use crate::syntax::ast::Description;

/// A description that passed the checks (or not): its rules in normal form
/// and what the checks found.
pub struct Analysis {
    /// Every rule in normal form (`or` split, `not` pushed to atoms), in source order.
    pub rules: Vec<NormalRule>,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Analysis {
    /// Whether any check failed.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Runs every check on a parsed description.
pub fn check(description: &Description) -> Analysis {
    let mut diagnostics = Vec::new();
    let description = &keywords::without_misdeclarations(description, &mut diagnostics);
    keywords::check_forms(description, &mut diagnostics);
    let rules: Vec<NormalRule> = description.rules.iter().flat_map(normalize).collect();
    let graph = RelationGraph::new(&rules);
    keywords::check_relations(description, &rules, &graph, &mut diagnostics);
    let mut rules = no_move::without_does(rules, &graph, &mut diagnostics);
    helpers::bind_role_variables(&mut rules, &mut diagnostics);
    let mut rules = helpers::unfold_helpers(rules, &mut diagnostics);
    let graph = RelationGraph::new(&rules);
    let graph = strata::stratify(&mut rules, graph);
    safety::check(&rules, &mut diagnostics);
    strata::check(&rules, &graph, &mut diagnostics);
    recursion::check(&rules, &graph, &mut diagnostics);
    Analysis { rules, diagnostics }
}
