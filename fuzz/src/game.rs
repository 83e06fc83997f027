//! A generated game as a list of rules: the form the generator builds, the
//! shrinker cuts down and the differential test prints as KIF.

use std::fmt;

/// A term: a constant, a variable (printed with `?`) or a function term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A constant such as `2` or `noop`.
    Const(String),
    /// A variable, named without its `?`.
    Var(String),
    /// A function term `(name args…)`.
    Fun(String, Vec<Term>),
}

impl Term {
    /// The constant `name`.
    pub fn c(name: impl Into<String>) -> Term {
        Term::Const(name.into())
    }

    /// The variable `?name`.
    pub fn v(name: impl Into<String>) -> Term {
        Term::Var(name.into())
    }

    /// The function term `(name args…)`, or the constant `name` without
    /// arguments.
    pub fn f(name: impl Into<String>, args: Vec<Term>) -> Term {
        if args.is_empty() {
            Term::Const(name.into())
        } else {
            Term::Fun(name.into(), args)
        }
    }

    /// Adds the names of the variables of this term to `out`.
    pub fn vars(&self, out: &mut Vec<String>) {
        match self {
            Term::Const(_) => {}
            Term::Var(v) => out.push(v.clone()),
            Term::Fun(_, args) => args.iter().for_each(|a| a.vars(out)),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Const(c) => write!(f, "{c}"),
            Term::Var(v) => write!(f, "?{v}"),
            Term::Fun(name, args) => write_compound(f, name, args),
        }
    }
}

/// An atom `(relation args…)`, or the bare relation name without arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The relation's name.
    pub relation: String,
    /// Its arguments.
    pub args: Vec<Term>,
}

impl Atom {
    /// The atom `(relation args…)`.
    pub fn new(relation: impl Into<String>, args: Vec<Term>) -> Atom {
        Atom {
            relation: relation.into(),
            args,
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.args.is_empty() {
            write!(f, "{}", self.relation)
        } else {
            write_compound(f, &self.relation, &self.args)
        }
    }
}

fn write_compound(f: &mut fmt::Formatter<'_>, name: &str, args: &[Term]) -> fmt::Result {
    write!(f, "({name}")?;
    for a in args {
        write!(f, " {a}")?;
    }
    write!(f, ")")
}

/// A body literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// A positive atom.
    Pos(Atom),
    /// `(not atom)`.
    Not(Atom),
    /// `(distinct a b)`.
    Distinct(Term, Term),
    /// `(or …)` of literals.
    Or(Vec<Literal>),
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Pos(a) => write!(f, "{a}"),
            Literal::Not(a) => write!(f, "(not {a})"),
            Literal::Distinct(a, b) => write!(f, "(distinct {a} {b})"),
            Literal::Or(ls) => {
                write!(f, "(or")?;
                for l in ls {
                    write!(f, " {l}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// A fact (empty body) or a rule `(<= head body…)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The head.
    pub head: Atom,
    /// The body, empty for a fact.
    pub body: Vec<Literal>,
}

impl Rule {
    /// The fact `head`.
    pub fn fact(head: Atom) -> Rule {
        Rule {
            head,
            body: Vec::new(),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.body.is_empty() {
            return write!(f, "{}", self.head);
        }
        write!(f, "(<= {}", self.head)?;
        for l in &self.body {
            write!(f, "\n    {l}")?;
        }
        write!(f, ")")
    }
}

/// What a generated game exercises, for the run's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// A recursive relation (static or over the state).
    pub recursion: bool,
    /// Recursion through the successor relation.
    pub successor_recursion: bool,
    /// A `not` in some body.
    pub negation: bool,
    /// A function term below a relation's arguments.
    pub functions: bool,
    /// More than one role moves in every state.
    pub simultaneous: bool,
    /// An `or` in some body.
    pub disjunction: bool,
    /// A `distinct` in some body.
    pub distinct: bool,
    /// A role `random` (GDL-II).
    pub chance: bool,
    /// `sees` rules (GDL-II percepts).
    pub percepts: bool,
}

/// A game: its rules, printed one per paragraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The rules, facts included, in the order they are printed.
    pub rules: Vec<Rule>,
}

impl Game {
    /// The description as KIF text.
    pub fn kif(&self) -> String {
        let mut out = String::new();
        for r in &self.rules {
            out.push_str(&r.to_string());
            out.push('\n');
        }
        out
    }

    /// What the rules exercise, read off the rules themselves (so a shrunk
    /// game reports what is left). Recursion is a rule whose body calls the
    /// relation of its head; moves are simultaneous when there are several
    /// roles besides `random` and no `control` fluent (the generator's
    /// turn-taking).
    pub fn features(&self) -> Features {
        let mut f = Features::default();
        let mut roles = 0;
        let mut control = false;
        for r in &self.rules {
            if r.head.relation == "role" && r.body.is_empty() {
                match r.head.args[..] {
                    [Term::Const(ref name)] if name == "random" => f.chance = true,
                    _ => roles += 1,
                }
            }
            f.percepts |= r.head.relation == "sees";
            control |= r.to_string().contains("(control ");
            for l in &r.body {
                visit(l, &mut |l| match l {
                    Literal::Not(_) => f.negation = true,
                    Literal::Or(_) => f.disjunction = true,
                    Literal::Distinct(..) => f.distinct = true,
                    Literal::Pos(a) if a.relation == r.head.relation => {
                        f.recursion = true;
                        let succ = r
                            .body
                            .iter()
                            .any(|l| matches!(l, Literal::Pos(a) if a.relation == "succ"));
                        f.successor_recursion |= succ;
                    }
                    Literal::Pos(_) => {}
                });
            }
            let atoms = std::iter::once(&r.head).chain(r.body.iter().filter_map(|l| match l {
                Literal::Pos(a) | Literal::Not(a) => Some(a),
                _ => None,
            }));
            for a in atoms {
                let depth = usize::from(!WRAPPERS.contains(&a.relation.as_str()));
                f.functions |= a.args.iter().any(|t| nested_function(t, depth));
            }
        }
        f.simultaneous = roles > 1 && !control;
        f
    }
}

fn visit(l: &Literal, f: &mut impl FnMut(&Literal)) {
    f(l);
    if let Literal::Or(ls) = l {
        ls.iter().for_each(|l| visit(l, f));
    }
}

/// The relations whose arguments are fluents or moves, themselves function
/// terms: a function term counts only below them.
const WRAPPERS: &[&str] = &["true", "next", "init", "does", "legal"];

/// Whether `t`, at `depth` (0 for a fluent or move itself), holds a
/// function term at depth 1 or more.
fn nested_function(t: &Term, depth: usize) -> bool {
    match t {
        Term::Fun(_, args) => depth >= 1 || args.iter().any(|a| nested_function(a, depth + 1)),
        _ => false,
    }
}
