//! The s-expression tree produced by the grammar.

use crate::diagnostics::Span;

/// One KIF s-expression with its source span. Symbols are already folded to
/// lower case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    /// A constant, function or relation symbol.
    Symbol(String, Span),
    /// A variable, written with its leading `?`.
    Variable(String, Span),
    /// A parenthesised list.
    List(Vec<SExpr>, Span),
}

impl SExpr {
    /// The source span of the expression.
    pub fn span(&self) -> Span {
        match self {
            SExpr::Symbol(_, s) | SExpr::Variable(_, s) | SExpr::List(_, s) => *s,
        }
    }
}
