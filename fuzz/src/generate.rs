//! The generator of random valid games, reproducible from a seed.
//!
//! Every game has 1–4 roles (taking turns through a `control` fluent, or
//! all moving at once), a step counter that ends it after a few steps,
//! a `noop` (or, for the role in control, `pass`) legal in every state,
//! and for every role (but `random`, below) exactly one goal value in
//! every state (a condition and its negation), so every game is playable
//! and terminates. Between those fixed parts the rules are random: fluents
//! over a small domain of numbers (some holding a function term `(p x
//! y)`), static relations (the successor relation, random links,
//! recursion through the successor relation within GDL's recursion
//! restriction), derived relations in strata whose bodies mix `true`,
//! static and earlier derived relations, `not`, `or` and `distinct`,
//! recursive relations over the state (among them rays along `succ`, or
//! `(plus ?x 1 ?y)`, through the squares that pass a test of the state, as chess's
//! `clear_row`, which the demand strategy walks by loops), and
//! `legal`/`next`/`terminal`/`goal` rules over all of them. Some games are
//! GDL-II: a role `random` that draws a value each step (into a fluent
//! `drawn`), and `sees` rules giving roles percepts built from the state,
//! the joint move and random's draw.

use crate::game::{Atom, Game, Literal, Rule, Term};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The game of `seed`.
pub fn game(seed: u64) -> Game {
    Generator::new(seed).build()
}

/// What an argument position holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A number of the domain.
    Value,
    /// A function term `(p x y)` over numbers.
    Pair,
}

/// How a relation is read in a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A fluent, read as `(true (name args…))`.
    Fluent,
    /// A relation read as `(name args…)`.
    Relation,
}

/// A relation a body may read.
#[derive(Clone, Debug)]
struct Sig {
    name: String,
    args: Vec<Kind>,
    source: Source,
}

impl Sig {
    fn new(name: impl Into<String>, args: Vec<Kind>, source: Source) -> Sig {
        Sig {
            name: name.into(),
            args,
            source,
        }
    }
}

/// The variables of the rule being built.
#[derive(Default)]
struct Scope {
    bound: Vec<(String, Kind)>,
    fresh: usize,
}

impl Scope {
    fn fresh(&mut self) -> String {
        self.fresh += 1;
        format!("v{}", self.fresh)
    }

    fn bound_of(&self, kind: Kind) -> Vec<String> {
        self.bound
            .iter()
            .filter(|b| b.1 == kind)
            .map(|b| b.0.clone())
            .collect()
    }
}

struct Generator {
    rng: StdRng,
    rules: Vec<Rule>,
    roles: Vec<String>,
    simultaneous: bool,
    /// Numbers 0..domain are the values of fluents and moves.
    domain: usize,
    /// Relations and fluents bodies may read, in stratum order.
    pool: Vec<Sig>,
    fluents: Vec<Sig>,
    /// Actions: name and arity (arguments are values).
    actions: Vec<(String, usize)>,
    /// Relations over the joint move (read only by `next`).
    move_relations: Vec<Sig>,
}

const ROLE_NAMES: [&str; 4] = ["white", "black", "red", "blue"];
const GOAL_VALUES: [u32; 6] = [0, 10, 25, 50, 90, 100];

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator {
            rng: StdRng::seed_from_u64(seed),
            rules: Vec::new(),
            roles: Vec::new(),
            simultaneous: false,
            domain: 3,
            pool: Vec::new(),
            fluents: Vec::new(),
            actions: Vec::new(),
            move_relations: Vec::new(),
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    fn value(&mut self) -> Term {
        Term::c(self.below(self.domain).to_string())
    }

    fn build(mut self) -> Game {
        self.roles_and_clock();
        self.statics();
        self.fluents_and_init();
        let derived = self.rng.random_range(1..=4);
        for i in 0..derived {
            self.derived(i);
            if i == 0 && self.chance(0.5) {
                self.ray();
            }
        }
        if self.chance(0.5) {
            self.state_recursion();
        }
        self.actions_and_legal();
        self.move_relation();
        self.next_rules();
        self.terminal_and_goals();
        // Drawn last, so that a seed's GDL game stays what it was.
        if self.chance(0.3) {
            self.chance_and_percepts();
        }
        Game { rules: self.rules }
    }

    fn fact(&mut self, relation: &str, args: Vec<Term>) {
        self.rules.push(Rule::fact(Atom::new(relation, args)));
    }

    /// Roles, turn-taking, and the step counter that ends the game.
    fn roles_and_clock(&mut self) {
        let n = self.rng.random_range(1..=4);
        self.roles = ROLE_NAMES[..n].iter().map(|s| s.to_string()).collect();
        self.simultaneous = n > 1 && self.chance(0.5);
        self.domain = if n >= 3 {
            2
        } else {
            self.rng.random_range(2..=5)
        };
        for r in self.roles.clone() {
            self.fact("role", vec![Term::c(r)]);
        }
        let steps = self.rng.random_range(2..=8);
        let top = steps.max(self.domain);
        for i in 0..top {
            self.fact(
                "succ",
                vec![Term::c(i.to_string()), Term::c((i + 1).to_string())],
            );
        }
        self.fact("init", vec![Term::f("step", vec![Term::c("0")])]);
        self.rules.push(Rule {
            head: Atom::new("next", vec![Term::f("step", vec![Term::v("y")])]),
            body: vec![
                truth(Term::f("step", vec![Term::v("x")])),
                Literal::Pos(Atom::new("succ", vec![Term::v("x"), Term::v("y")])),
            ],
        });
        self.rules.push(Rule {
            head: Atom::new("terminal", vec![]),
            body: vec![truth(Term::f("step", vec![Term::c(steps.to_string())]))],
        });
        self.pool
            .push(Sig::new("succ", vec![Kind::Value; 2], Source::Relation));
        self.pool
            .push(Sig::new("step", vec![Kind::Value], Source::Fluent));
        if !self.simultaneous && n > 1 {
            let first = Term::c(self.roles[0].clone());
            self.fact("init", vec![Term::f("control", vec![first])]);
            for i in 0..n {
                let (a, b) = (self.roles[i].clone(), self.roles[(i + 1) % n].clone());
                self.fact("nextrole", vec![Term::c(a), Term::c(b)]);
            }
            self.rules.push(Rule {
                head: Atom::new("next", vec![Term::f("control", vec![Term::v("y")])]),
                body: vec![
                    truth(Term::f("control", vec![Term::v("x")])),
                    Literal::Pos(Atom::new("nextrole", vec![Term::v("x"), Term::v("y")])),
                ],
            });
        }
    }

    /// The domain, random links, and static recursion through `succ`.
    fn statics(&mut self) {
        for i in 0..self.domain {
            self.fact("val", vec![Term::c(i.to_string())]);
        }
        self.pool
            .push(Sig::new("val", vec![Kind::Value], Source::Relation));
        if self.chance(0.5) {
            for _ in 0..self.rng.random_range(1..=4) {
                let (a, b) = (self.value(), self.value());
                self.fact("link", vec![a, b]);
            }
            self.pool
                .push(Sig::new("link", vec![Kind::Value; 2], Source::Relation));
        }
        if self.chance(0.5) {
            // (less ?x ?z): the transitive closure of succ.
            let (x, y, z) = (v("x"), v("y"), v("z"));
            self.rules.push(Rule {
                head: Atom::new("less", vec![x.clone(), y.clone()]),
                body: vec![Literal::Pos(Atom::new("succ", vec![x.clone(), y.clone()]))],
            });
            self.rules.push(Rule {
                head: Atom::new("less", vec![x.clone(), z.clone()]),
                body: vec![
                    Literal::Pos(Atom::new("succ", vec![x, y.clone()])),
                    Literal::Pos(Atom::new("less", vec![y, z])),
                ],
            });
            self.pool
                .push(Sig::new("less", vec![Kind::Value; 2], Source::Relation));
        }
        if self.chance(0.3) {
            // (plus ?x ?y ?z): ?x + ?y = ?z within succ.
            self.rules.push(Rule {
                head: Atom::new("plus", vec![v("x"), Term::c("0"), v("x")]),
                body: vec![Literal::Pos(Atom::new("val", vec![v("x")]))],
            });
            self.rules.push(Rule {
                head: Atom::new("plus", vec![v("x"), v("y"), v("z")]),
                body: vec![
                    Literal::Pos(Atom::new("succ", vec![v("y0"), v("y")])),
                    Literal::Pos(Atom::new("succ", vec![v("z0"), v("z")])),
                    Literal::Pos(Atom::new("plus", vec![v("x"), v("y0"), v("z0")])),
                ],
            });
            self.pool
                .push(Sig::new("plus", vec![Kind::Value; 3], Source::Relation));
        }
    }

    fn fluents_and_init(&mut self) {
        let n = self.rng.random_range(1..=3);
        for i in 0..n {
            let args = match self.below(8) {
                0 => vec![],
                1 | 2 => vec![Kind::Pair],
                3 => vec![Kind::Pair, Kind::Value],
                _ => vec![Kind::Value; self.rng.random_range(1..=2)],
            };
            // Sometimes a fluent shares its name with a relation: the two
            // must not be confused.
            let shared = ["val", "succ", "link", "goal"][self.below(4)];
            let name = if self.chance(0.15) && self.fluents.iter().all(|f| f.name != shared) {
                shared.to_string()
            } else {
                format!("f{i}")
            };
            let sig = Sig::new(name, args, Source::Fluent);
            self.fluents.push(sig.clone());
            self.pool.push(sig);
        }
        if self.chance(0.3) {
            // An initial state computed by a rule over static relations.
            let f = self.pick(&self.fluents.clone());
            let statics: Vec<Sig> = self
                .pool
                .iter()
                .filter(|s| s.source == Source::Relation)
                .cloned()
                .collect();
            let mut scope = Scope::default();
            let binders = self.rng.random_range(1..=2);
            let body = self.body(&statics, &mut scope, binders);
            let args = self.head_args(&f.args, &scope);
            self.rules.push(Rule {
                head: Atom::new("init", vec![Term::f(f.name, args)]),
                body,
            });
        }
        for _ in 0..self.rng.random_range(1..=4) {
            let f = self.pick(&self.fluents.clone());
            let args = f.args.iter().map(|&k| self.ground(k)).collect();
            let init = Rule::fact(Atom::new("init", vec![Term::f(f.name, args)]));
            if !self.rules.contains(&init) {
                self.rules.push(init);
            }
        }
    }

    fn ground(&mut self, kind: Kind) -> Term {
        match kind {
            Kind::Value => self.value(),
            Kind::Pair => Term::f("p", vec![self.value(), self.value()]),
        }
    }

    /// An atom of `sig` whose arguments bind new variables, join bound
    /// ones, or are constants.
    fn binding_atom(&mut self, sig: &Sig, scope: &mut Scope) -> Atom {
        let mut args = Vec::new();
        let mut new = Vec::new();
        for &kind in &sig.args {
            let bound = scope.bound_of(kind);
            let r = self.below(10);
            let t = if r < 3 && !bound.is_empty() {
                Term::v(self.pick(&bound))
            } else if r < 5 {
                self.ground(kind)
            } else if kind == Kind::Pair && r < 7 {
                let (a, b) = (scope.fresh(), scope.fresh());
                new.push((a.clone(), Kind::Value));
                new.push((b.clone(), Kind::Value));
                Term::f("p", vec![Term::v(a), Term::v(b)])
            } else {
                let v = scope.fresh();
                new.push((v.clone(), kind));
                Term::v(v)
            };
            args.push(t);
        }
        scope.bound.extend(new);
        Atom::new(sig.name.clone(), args)
    }

    /// An atom of `sig` over bound variables and constants only.
    fn bound_atom(&mut self, sig: &Sig, scope: &Scope) -> Atom {
        let args = sig
            .args
            .iter()
            .map(|&kind| {
                let bound = scope.bound_of(kind);
                if !bound.is_empty() && self.chance(0.6) {
                    Term::v(self.pick(&bound))
                } else {
                    self.ground(kind)
                }
            })
            .collect();
        Atom::new(sig.name.clone(), args)
    }

    fn read(sig: &Sig, atom: Atom) -> Atom {
        match sig.source {
            Source::Fluent => Atom::new("true", vec![Term::f(atom.relation, atom.args)]),
            Source::Relation => atom,
        }
    }

    /// A literal that binds variables: a positive atom of `pool`.
    fn binder(&mut self, pool: &[Sig], scope: &mut Scope) -> Literal {
        let sig = self.pick(pool);
        let atom = self.binding_atom(&sig, scope);
        Literal::Pos(Self::read(&sig, atom))
    }

    /// A literal over bound variables: a negation, a `distinct`, an `or`,
    /// or a positive test.
    fn filter(&mut self, pool: &[Sig], scope: &Scope) -> Literal {
        let values = scope.bound_of(Kind::Value);
        match self.below(10) {
            0..=3 => {
                let sig = self.pick(pool);
                Literal::Not(Self::read(&sig, self.bound_atom(&sig, scope)))
            }
            4..=5 if !values.is_empty() => {
                let a = Term::v(self.pick(&values));
                let b = if values.len() > 1 && self.chance(0.5) {
                    Term::v(self.pick(&values))
                } else {
                    self.value()
                };
                Literal::Distinct(a, b)
            }
            6..=7 => {
                let n = self.rng.random_range(2..=3);
                let parts = (0..n)
                    .map(|_| {
                        let sig = self.pick(pool);
                        let atom = Self::read(&sig, self.bound_atom(&sig, scope));
                        if self.chance(0.3) {
                            Literal::Not(atom)
                        } else {
                            Literal::Pos(atom)
                        }
                    })
                    .collect();
                Literal::Or(parts)
            }
            _ => {
                let sig = self.pick(pool);
                Literal::Pos(Self::read(&sig, self.bound_atom(&sig, scope)))
            }
        }
    }

    /// A random body over `pool`: binders then filters.
    fn body(&mut self, pool: &[Sig], scope: &mut Scope, binders: usize) -> Vec<Literal> {
        let mut body: Vec<Literal> = (0..binders).map(|_| self.binder(pool, scope)).collect();
        for _ in 0..self.rng.random_range(0..=2) {
            body.push(self.filter(pool, scope));
        }
        body
    }

    /// Head arguments of the given kinds from bound variables, else
    /// constants.
    fn head_args(&mut self, kinds: &[Kind], scope: &Scope) -> Vec<Term> {
        kinds
            .iter()
            .map(|&kind| {
                let bound = scope.bound_of(kind);
                if !bound.is_empty() && self.chance(0.85) {
                    Term::v(self.pick(&bound))
                } else {
                    self.ground(kind)
                }
            })
            .collect()
    }

    /// Derived relation `d{i}` over the state, from the pool so far.
    fn derived(&mut self, i: usize) {
        let arity = self.below(3);
        let sig = Sig::new(format!("d{i}"), vec![Kind::Value; arity], Source::Relation);
        let pool = self.pool.clone();
        for _ in 0..self.rng.random_range(1..=2) {
            let mut scope = Scope::default();
            let binders = self.rng.random_range(1..=2);
            let body = self.body(&pool, &mut scope, binders);
            let head = Atom::new(sig.name.clone(), self.head_args(&sig.args, &scope));
            self.rules.push(Rule { head, body });
        }
        self.pool.push(sig);
    }

    /// A recursive relation over the state: reachability along a binary
    /// fluent, or a chain of fluents along `succ`.
    fn state_recursion(&mut self) {
        let binary = self
            .fluents
            .iter()
            .find(|f| f.args == [Kind::Value, Kind::Value])
            .cloned();
        let name = format!("r{}", self.pool.len());
        if let Some(f) = binary {
            let edge = |a: &str, b: &str| truth(Term::f(f.name.clone(), vec![v(a), v(b)]));
            self.rules.push(Rule {
                head: Atom::new(name.clone(), vec![v("x"), v("y")]),
                body: vec![edge("x", "y")],
            });
            self.rules.push(Rule {
                head: Atom::new(name.clone(), vec![v("x"), v("z")]),
                body: vec![
                    edge("x", "y"),
                    Literal::Pos(Atom::new(name.clone(), vec![v("y"), v("z")])),
                ],
            });
            self.pool
                .push(Sig::new(name, vec![Kind::Value; 2], Source::Relation));
        } else {
            let f = self.pick(&self.fluents.clone());
            let mut scope = Scope::default();
            let start = self.binder(std::slice::from_ref(&f), &mut scope);
            let values = scope.bound_of(Kind::Value);
            let from = values
                .first()
                .cloned()
                .map_or_else(|| self.value(), Term::v);
            self.rules.push(Rule {
                head: Atom::new(name.clone(), vec![from]),
                body: vec![start],
            });
            let mut body = vec![
                Literal::Pos(Atom::new(name.clone(), vec![v("x")])),
                Literal::Pos(Atom::new("succ", vec![v("x"), v("y")])),
            ];
            if self.chance(0.5) {
                body.push(Literal::Not(Atom::new(
                    "true",
                    vec![Term::f("step", vec![v("y")])],
                )));
            }
            self.rules.push(Rule {
                head: Atom::new(name.clone(), vec![v("y")]),
                body,
            });
            self.pool
                .push(Sig::new(name, vec![Kind::Value], Source::Relation));
        }
    }

    /// A ray along `succ` (or, when the game has `plus`, sometimes along
    /// `(plus ?x 1 ?y)`, as skirmish's rays step), forward or backward, as
    /// chess's `clear_row`: `(ray<n> ?x ?z)` holds when ?z lies beyond ?x
    /// and every square from the one after ?x to ?z (or before ?z only)
    /// passes a test of one argument, a fluent or relation of the pool,
    /// maybe negated; with a binary fluent, sometimes `(ray<n> ?k ?x ?z)`
    /// whose test `(true (f ?k ?y))` (positive, in both rules) keeps ?k
    /// along the ray. A right-linear recursion through an acyclic static
    /// relation: the demand strategy walks it.
    fn ray(&mut self) {
        let name = format!("ray{}", self.pool.len());
        let forward = self.chance(0.5);
        let by_plus = self.pool.iter().any(|s| s.name == "plus") && self.chance(0.5);
        let step = |a: &str, b: &str| {
            let (a, b) = if forward { (a, b) } else { (b, a) };
            match by_plus {
                true => Literal::Pos(Atom::new("plus", vec![v(a), Term::c("1"), v(b)])),
                false => Literal::Pos(Atom::new("succ", vec![v(a), v(b)])),
            }
        };
        let binary = (self.fluents.iter())
            .find(|f| f.args == [Kind::Value, Kind::Value])
            .cloned();
        let (kept, test) = match binary.filter(|_| self.chance(0.4)) {
            Some(f) => (
                vec![v("k")],
                Atom::new("true", vec![Term::f(f.name, vec![v("k"), v("y")])]),
            ),
            None => {
                let unary: Vec<Sig> = (self.pool.iter())
                    .filter(|s| s.args == [Kind::Value])
                    .cloned()
                    .collect();
                let sig = self.pick(&unary);
                (
                    vec![],
                    Self::read(&sig, Atom::new(sig.name.clone(), vec![v("y")])),
                )
            }
        };
        // A kept ?k is bound by the test: then the test is positive, and in
        // the exit rule too.
        let test = if kept.is_empty() && self.chance(0.5) {
            Literal::Not(test)
        } else {
            Literal::Pos(test)
        };
        let head = |x: &str, z: &str| {
            let ends = [v(x), v(z)];
            Atom::new(name.clone(), kept.iter().cloned().chain(ends).collect())
        };
        let mut exit = vec![step("x", "y")];
        if !kept.is_empty() || self.chance(0.7) {
            exit.push(test.clone());
        }
        self.rules.push(Rule {
            head: head("x", "y"),
            body: exit,
        });
        self.rules.push(Rule {
            head: head("x", "z"),
            body: vec![step("x", "y"), test, Literal::Pos(head("y", "z"))],
        });
        let args = vec![Kind::Value; kept.len() + 2];
        self.pool.push(Sig::new(name, args, Source::Relation));
    }

    fn role_term(&mut self, scope: &mut Scope, body: &mut Vec<Literal>) -> Term {
        if self.chance(0.3) {
            let r = scope.fresh();
            body.push(Literal::Pos(Atom::new("role", vec![Term::v(r.clone())])));
            Term::v(r)
        } else {
            Term::c(self.pick(&self.roles.clone()))
        }
    }

    /// Actions with random preconditions, and the move every role always
    /// has: `noop`, or `pass` for the role in control.
    fn actions_and_legal(&mut self) {
        let max_arity = if self.roles.len() >= 3 && self.simultaneous {
            1
        } else {
            2
        };
        for i in 0..self.rng.random_range(1..=3) {
            let arity = self.rng.random_range(0..=max_arity);
            self.actions.push((format!("m{i}"), arity));
        }
        let turns = self.roles.len() > 1 && !self.simultaneous;
        let r = Term::v("r");
        let control = |r: &Term| truth(Term::f("control", vec![r.clone()]));
        let role = Literal::Pos(Atom::new("role", vec![r.clone()]));
        if turns {
            self.rules.push(Rule {
                head: Atom::new("legal", vec![r.clone(), Term::c("noop")]),
                body: vec![
                    role,
                    Literal::Not(Atom::new("true", vec![Term::f("control", vec![r.clone()])])),
                ],
            });
            self.rules.push(Rule {
                head: Atom::new("legal", vec![r.clone(), Term::c("pass")]),
                body: vec![control(&r)],
            });
        } else {
            self.rules.push(Rule {
                head: Atom::new("legal", vec![r.clone(), Term::c("noop")]),
                body: vec![role],
            });
        }
        let pool = self.pool.clone();
        for (name, arity) in self.actions.clone() {
            for _ in 0..self.rng.random_range(1..=2) {
                let mut scope = Scope::default();
                let mut body = Vec::new();
                let who = self.role_term(&mut scope, &mut body);
                if turns {
                    body.push(control(&who));
                }
                let binders = self.below(2);
                body.extend(self.body(&pool, &mut scope, binders));
                let mut args = Vec::new();
                for i in 0..arity {
                    let x = scope.fresh();
                    body.push(Literal::Pos(Atom::new("val", vec![Term::v(x.clone())])));
                    if i == 0 && self.chance(0.2) {
                        // A function term as the move's argument.
                        let y = scope.fresh();
                        body.push(Literal::Pos(Atom::new("val", vec![Term::v(y.clone())])));
                        args.push(Term::f("p", vec![Term::v(x), Term::v(y)]));
                    } else {
                        args.push(Term::v(x));
                    }
                }
                let head = Atom::new("legal", vec![who, Term::f(name.clone(), args)]);
                self.rules.push(Rule { head, body });
            }
        }
    }

    /// A relation over the joint move, `moved{i}`: which values some role
    /// acted on.
    fn move_relation(&mut self) {
        let Some((name, arity)) = self.actions.iter().find(|a| a.1 > 0).cloned() else {
            return;
        };
        let mut scope = Scope::default();
        let mut body = Vec::new();
        let who = self.role_term(&mut scope, &mut body);
        let args: Vec<Term> = (0..arity).map(|i| Term::v(format!("a{i}"))).collect();
        body.insert(
            0,
            Literal::Pos(Atom::new("does", vec![who, Term::f(name, args)])),
        );
        self.rules.push(Rule {
            head: Atom::new("moved", vec![Term::v("a0")]),
            body,
        });
        self.move_relations
            .push(Sig::new("moved", vec![Kind::Value], Source::Relation));
    }

    /// A `does` atom binding the action's arguments.
    fn does(&mut self, scope: &mut Scope, body: &mut Vec<Literal>) {
        let (name, arity) = self.pick(&self.actions.clone());
        let who = self.role_term(scope, body);
        let args = (0..arity)
            .map(|_| {
                if self.chance(0.3) {
                    self.value()
                } else {
                    let v = scope.fresh();
                    scope.bound.push((v.clone(), Kind::Value));
                    Term::v(v)
                }
            })
            .collect();
        body.insert(
            0,
            Literal::Pos(Atom::new("does", vec![who, Term::f(name, args)])),
        );
    }

    /// Effects of moves on each fluent, and frame rules that keep it.
    fn next_rules(&mut self) {
        let mut pool = self.pool.clone();
        pool.extend(self.move_relations.clone());
        for f in self.fluents.clone() {
            for _ in 0..self.rng.random_range(1..=2) {
                let mut scope = Scope::default();
                let mut body = Vec::new();
                self.does(&mut scope, &mut body);
                let binders = self.below(2);
                body.extend(self.body(&pool, &mut scope, binders));
                let args = self.head_args(&f.args, &scope);
                let head = Atom::new("next", vec![Term::f(f.name.clone(), args)]);
                self.rules.push(Rule { head, body });
            }
            if self.chance(0.7) {
                let mut scope = Scope::default();
                let keep = self.binder(std::slice::from_ref(&f), &mut scope);
                let Literal::Pos(Atom { args, .. }) = &keep else {
                    unreachable!("a binder is positive")
                };
                let fluent = args[0].clone();
                let mut body = vec![keep];
                for _ in 0..self.rng.random_range(0..=2) {
                    body.push(self.filter(&pool, &scope));
                }
                self.rules.push(Rule {
                    head: Atom::new("next", vec![fluent]),
                    body,
                });
            }
        }
    }

    /// A ground condition over the state: a derived or static atom, or a
    /// fluent.
    fn condition(&mut self) -> Atom {
        let pool = self.pool.clone();
        let sig = self.pick(&pool);
        let atom = self.bound_atom(&sig, &Scope::default());
        Self::read(&sig, atom)
    }

    /// A second way to end, and for each role a goal value when a condition
    /// holds and another when it does not.
    fn terminal_and_goals(&mut self) {
        if self.chance(0.5) {
            // Not before the first move, so that most games are played.
            let c = self.condition();
            let first = Atom::new("true", vec![Term::f("step", vec![Term::c("0")])]);
            self.rules.push(Rule {
                head: Atom::new("terminal", vec![]),
                body: vec![Literal::Pos(c), Literal::Not(first)],
            });
        }
        let every = self.chance(0.3);
        let targets: Vec<Option<String>> = if every {
            vec![None]
        } else {
            self.roles.iter().cloned().map(Some).collect()
        };
        for target in targets {
            let c = self.condition();
            let high = self.below(GOAL_VALUES.len());
            let low = (high + 1 + self.below(GOAL_VALUES.len() - 1)) % GOAL_VALUES.len();
            for (value, literal) in [
                (GOAL_VALUES[high], Literal::Pos(c.clone())),
                (GOAL_VALUES[low], Literal::Not(c.clone())),
            ] {
                let (who, mut body) = match &target {
                    Some(r) => (Term::c(r.clone()), vec![]),
                    None => (
                        Term::v("r"),
                        vec![Literal::Pos(Atom::new("role", vec![Term::v("r")]))],
                    ),
                };
                body.push(literal);
                self.rules.push(Rule {
                    head: Atom::new("goal", vec![who, Term::c(value.to_string())]),
                    body,
                });
            }
        }
    }

    /// GDL-II: often a role `random` drawing a value into `drawn` (`noop`
    /// is legal for it too, through the rules with `(role ?r)`), and 1–3
    /// `sees` rules. A percept `(s{k} args…)` is seen by a role (a `?r`
    /// ranging over the roles may name `random`, whose percepts every
    /// reasoner refuses to give); its body reads a `does`, random's draw or
    /// neither, then the pool.
    fn chance_and_percepts(&mut self) {
        let random = self.chance(0.6);
        if random {
            self.fact("role", vec![Term::c("random")]);
            self.rules.push(Rule {
                head: Atom::new("legal", vec![Term::c("random"), draw(v("x"))]),
                body: vec![Literal::Pos(Atom::new("val", vec![v("x")]))],
            });
            self.rules.push(Rule {
                head: Atom::new("next", vec![Term::f("drawn", vec![v("x")])]),
                body: vec![Literal::Pos(Atom::new(
                    "does",
                    vec![Term::c("random"), draw(v("x"))],
                ))],
            });
        }
        let pool = self.pool.clone();
        for k in 0..self.rng.random_range(1..=3) {
            let mut scope = Scope::default();
            let mut body = Vec::new();
            let who = self.role_term(&mut scope, &mut body);
            match self.below(3) {
                0 => self.does(&mut scope, &mut body),
                1 if random => {
                    let x = scope.fresh();
                    let read = match self.chance(0.5) {
                        true => Atom::new("does", vec![Term::c("random"), draw(v(&x))]),
                        false => Atom::new("true", vec![Term::f("drawn", vec![v(&x)])]),
                    };
                    body.push(Literal::Pos(read));
                    scope.bound.push((x, Kind::Value));
                }
                _ => {}
            }
            let binders = self.below(2);
            body.extend(self.body(&pool, &mut scope, binders));
            let arity = self.below(3);
            let args = self.head_args(&vec![Kind::Value; arity], &scope);
            let percept = Term::f(format!("s{k}"), args);
            self.rules.push(Rule {
                head: Atom::new("sees", vec![who, percept]),
                body,
            });
        }
    }
}

/// random's move `(draw x)`.
fn draw(x: Term) -> Term {
    Term::f("draw", vec![x])
}

/// `(true fluent)`.
fn truth(fluent: Term) -> Literal {
    Literal::Pos(Atom::new("true", vec![fluent]))
}

/// The variable `?name`.
fn v(name: &str) -> Term {
    Term::v(name)
}
