//! The GDL abstract syntax: rules over atoms, literals and terms, every node
//! with its source span.

use crate::diagnostics::Span;
use std::fmt;

/// A term: a constant, a variable or a function applied to arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A constant symbol.
    Const(String, Span),
    /// A variable, with its leading `?`.
    Var(String, Span),
    /// A function symbol applied to arguments (none for `(f)`, a term
    /// different from the constant `f`).
    Func(String, Vec<Term>, Span),
}

impl Term {
    /// The source span.
    pub fn span(&self) -> Span {
        match self {
            Term::Const(_, s) | Term::Var(_, s) | Term::Func(_, _, s) => *s,
        }
    }

    /// Calls `f` on every variable occurrence, left to right.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str, Span)) {
        match self {
            Term::Const(..) => {}
            Term::Var(v, s) => f(v, *s),
            Term::Func(_, args, _) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// Whether the term contains no variable.
    pub fn is_ground(&self) -> bool {
        let mut ground = true;
        self.for_each_var(&mut |_, _| ground = false);
        ground
    }
}

/// An atomic sentence: a relation symbol applied to terms (`terminal`,
/// `(cell 1 1 b)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The relation symbol.
    pub name: String,
    /// The arguments.
    pub args: Vec<Term>,
    /// The source span.
    pub span: Span,
}

impl Atom {
    /// The relation this atom belongs to.
    pub fn relation(&self) -> Relation {
        Relation {
            name: self.name.clone(),
            arity: self.args.len(),
        }
    }

    /// Calls `f` on every variable occurrence.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str, Span)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }
}

/// A body literal as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// An atom that must hold.
    Atom(Atom),
    /// `(not L)`.
    Not(Box<Literal>, Span),
    /// `(distinct s t)`.
    Distinct(Term, Term, Span),
    /// `(or L1 L2 ...)`.
    Or(Vec<Literal>, Span),
}

impl Literal {
    /// The source span.
    pub fn span(&self) -> Span {
        match self {
            Literal::Atom(a) => a.span,
            Literal::Not(_, s) | Literal::Distinct(_, _, s) | Literal::Or(_, s) => *s,
        }
    }
}

/// A rule `(<= head body...)`; a fact is a rule with an empty body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// The head.
    pub head: Atom,
    /// The body literals, in source order.
    pub body: Vec<Literal>,
    /// The span of the whole rule or fact.
    pub span: Span,
}

/// A parsed description: its rules and facts in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Description {
    /// Rules and facts, in source order.
    pub rules: Vec<Rule>,
}

/// A relation: a name and an arity. A name used with two arities names two
/// relations, as in Prolog.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Relation {
    /// The relation symbol.
    pub name: String,
    /// The number of arguments.
    pub arity: usize,
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", crate::ir::written_name(&self.name), self.arity)
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Const(s, _) | Term::Var(s, _) => f.write_str(s),
            Term::Func(name, args, _) => {
                write!(f, "({name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.args.is_empty() {
            return f.write_str(&self.name);
        }
        write!(f, "({}", self.name)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Atom(a) => a.fmt(f),
            Literal::Not(l, _) => write!(f, "(not {l})"),
            Literal::Distinct(a, b, _) => write!(f, "(distinct {a} {b})"),
            Literal::Or(ls, _) => {
                f.write_str("(or")?;
                for l in ls {
                    write!(f, " {l}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.body.is_empty() {
            return self.head.fmt(f);
        }
        write!(f, "(<= {}", self.head)?;
        for l in &self.body {
            write!(f, " {l}")?;
        }
        f.write_str(")")
    }
}
