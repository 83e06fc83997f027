//! Sorts: the argument positions that exchange values, found as a type
//! checker finds types (Kaiser's thesis, the successor functions and boards
//! of a game). Two positions of derived relations share a sort when a
//! rule's variable occurs at both, or two variables a `distinct` or `=`
//! compares do; the argument positions of a function symbol (`cell/3`'s
//! first, second, third) are positions of their own wherever the term
//! occurs. A static relation is a table each call site filters through on
//! its own, as a polymorphic function is typed at each use: `(coordinate
//! ?x)` asked of a file and of a rank joins neither with the other, so
//! chess's files and ranks are two sorts, not one. A sort's values are
//! the union of its positions' domains (chess's files' sort holds the
//! ranks too: `(coordinate ?ignorex)` puts them at file positions of the
//! searched relations, so a board numbers its squares by its fluents'
//! values instead, [`super::boards`]), numbered
//! densely from 0; a static binary relation whose facts form one chain and
//! whose two arguments a call site takes from the same sort (`next_file`,
//! `succ`) orders it, so that a step along it is an index plus one.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{Lit, Pat, Program, RelId, Rule};
use crate::ir::terms::{SymId, TermData, TermId};
use crate::ir::Class;
use rustc_hash::{FxHashMap, FxHashSet};

/// An argument position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Position {
    /// Argument `.1` of relation `.0`.
    Arg(RelId, usize),
    /// Argument `.2` of the function symbol `.0` of arity `.1`, in every
    /// term it heads.
    Field(SymId, usize, usize),
}

/// A static binary relation whose facts are one chain `v0 → v1 → … → vn`
/// over values of a sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    /// The relation.
    pub relation: RelId,
    /// The values in the chain's order (compile-time term ids).
    pub chain: Vec<TermId>,
}

/// One sort.
#[derive(Clone, Debug)]
pub struct Sort {
    /// Its positions, sorted.
    pub positions: Vec<Position>,
    /// Its values (compile-time term ids) in runtime-id order: a value's
    /// index here is its number in the sort. Empty when `open`.
    pub values: Vec<TermId>,
    /// Whether some position holds terms built at run time, which no
    /// numbering made at compile time covers.
    pub open: bool,
    /// The chains that order it, one per static relation.
    pub orders: Vec<Order>,
}

/// The sorts of a program, and the sort of each position.
#[derive(Clone, Debug, Default)]
pub struct Sorts {
    /// Every sort, in the order of their first positions.
    pub sorts: Vec<Sort>,
    /// The sort of each position (an index into `sorts`).
    pub of: FxHashMap<Position, usize>,
}

impl Sorts {
    /// The sort of `position`, if it occurs in the program.
    pub fn sort_of(&self, position: Position) -> Option<&Sort> {
        self.of.get(&position).map(|&s| &self.sorts[s])
    }
}

/// The sorts of `program`, with the values its domains give each position.
pub fn compute(program: &Program, domains: &Domains) -> Sorts {
    let mut classes = Classes::default();
    for rule in &program.rules {
        classes.rule(program, rule);
    }
    let values = position_values(program, domains, &mut classes);
    let nodes: Vec<(Position, usize)> = classes.positions.iter().map(|(&p, &n)| (p, n)).collect();
    let mut members: FxHashMap<usize, Vec<Position>> = FxHashMap::default();
    for (position, node) in nodes {
        members
            .entry(classes.find(node))
            .or_default()
            .push(position);
    }
    let mut groups: Vec<Vec<Position>> = members.into_values().collect();
    for g in &mut groups {
        g.sort_unstable();
    }
    groups.sort_unstable();
    let mut sorts = Sorts::default();
    for positions in groups {
        let sort = sort_of(positions, &values, domains);
        for &p in &sort.positions {
            sorts.of.insert(p, sorts.sorts.len());
        }
        sorts.sorts.push(sort);
    }
    add_orders(program, &mut classes, &mut sorts);
    sorts
}

/// The values of each position: `None` for one whose terms are built at
/// run time.
type Values = FxHashMap<Position, Option<FxHashSet<TermId>>>;

/// Every position's values from the domains: a relation's argument holds
/// its domain, and a function symbol's argument what its terms hold there.
fn position_values(program: &Program, domains: &Domains, classes: &mut Classes) -> Values {
    let mut values = Values::default();
    for (r, args) in domains.args.iter().enumerate() {
        for (i, terms) in args.iter().enumerate() {
            let position = Position::Arg(r, i);
            classes.node(position);
            if domains.open.get(r).and_then(|o| o.get(i)) == Some(&true) {
                values.insert(position, None);
                continue;
            }
            for &t in terms {
                add_value(program, position, t, &mut values, classes);
            }
        }
    }
    values
}

/// Records `t` at `position`, and its arguments at its symbol's positions.
fn add_value(
    program: &Program,
    position: Position,
    t: TermId,
    values: &mut Values,
    classes: &mut Classes,
) {
    let set = values
        .entry(position)
        .or_insert_with(|| Some(FxHashSet::default()));
    let Some(set) = set else { return };
    if !set.insert(t) {
        return;
    }
    if let TermData::Func(f, args) = program.store.data(t) {
        for (j, &a) in args.iter().enumerate() {
            let field = Position::Field(*f, args.len(), j);
            classes.node(field);
            add_value(program, field, a, values, classes);
        }
    }
}

/// A sort of `positions`: the union of their values, by runtime id.
fn sort_of(positions: Vec<Position>, values: &Values, domains: &Domains) -> Sort {
    let mut open = false;
    let mut all = FxHashSet::default();
    for p in &positions {
        match values.get(p) {
            Some(None) => open = true,
            Some(Some(set)) => all.extend(set.iter().copied()),
            None => {}
        }
    }
    let mut values: Vec<TermId> = if open {
        Vec::new()
    } else {
        all.into_iter().collect()
    };
    values.sort_unstable_by_key(|&t| domains.id(t));
    Sort {
        positions,
        values,
        open,
        orders: Vec::new(),
    }
}

/// Finds the static binary relations that order a sort: a call site takes
/// both arguments from the sort, and the facts are one chain (each value at
/// most one successor and one predecessor, one first value, every fact on
/// the path from it).
fn add_orders(program: &Program, classes: &mut Classes, sorts: &mut Sorts) {
    let mut found = FxHashSet::default();
    for (r, x, y) in std::mem::take(&mut classes.static_pairs) {
        let (x, y) = (classes.find(x), classes.find(y));
        if x == y {
            found.insert((r, x));
        }
    }
    let mut roots: FxHashMap<usize, usize> = FxHashMap::default();
    for (position, &s) in &sorts.of {
        let node = classes.positions[position];
        roots.insert(classes.find(node), s);
    }
    let mut orders: Vec<(usize, RelId)> = (found.into_iter())
        .filter_map(|(r, root)| Some((*roots.get(&root)?, r)))
        .collect();
    orders.sort_unstable();
    orders.dedup();
    for (s, r) in orders {
        if sorts.sorts[s].open {
            continue;
        }
        if let Some(chain) = chain(&program.facts[r]) {
            sorts.sorts[s].orders.push(Order { relation: r, chain });
        }
    }
}

/// The values of `facts` (pairs) in order, when they form one chain of at
/// least one step.
fn chain(facts: &[Vec<TermId>]) -> Option<Vec<TermId>> {
    let mut next = FxHashMap::default();
    let mut has_predecessor = FxHashSet::default();
    for fact in facts {
        let [x, y] = fact[..] else { return None };
        if next.insert(x, y).is_some() || !has_predecessor.insert(y) {
            return None;
        }
    }
    let mut firsts = next.keys().filter(|x| !has_predecessor.contains(x));
    let (Some(&first), None) = (firsts.next(), firsts.next()) else {
        return None;
    };
    let mut chain = vec![first];
    while let Some(&y) = next.get(chain.last()?) {
        chain.push(y);
    }
    (chain.len() == facts.len() + 1).then_some(chain)
}

/// The union-find over positions and each rule's variables.
#[derive(Default)]
struct Classes {
    parent: Vec<usize>,
    positions: FxHashMap<Position, usize>,
    /// The calls of static binary relations on two variables: the
    /// relation and the variables' nodes.
    static_pairs: Vec<(RelId, usize, usize)>,
}

impl Classes {
    /// The node of `position`, made if new.
    fn node(&mut self, position: Position) -> usize {
        let next = self.parent.len();
        let node = *self.positions.entry(position).or_insert(next);
        if node == next {
            self.parent.push(next);
        }
        node
    }

    /// A node for a variable of the rule being read.
    fn fresh(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, x: usize, y: usize) {
        let (x, y) = (self.find(x), self.find(y));
        if x != y {
            self.parent[x.max(y)] = x.min(y);
        }
    }

    /// Joins the positions of each variable of `rule` (but those of static
    /// relations), and the variables a `distinct` or `=` compares; records
    /// the calls of static binary relations.
    fn rule(&mut self, program: &Program, rule: &Rule) {
        let vars: Vec<usize> = (0..rule.vars.len()).map(|_| self.fresh()).collect();
        let atoms = std::iter::once(&rule.head).chain(rule.body.iter().filter_map(|l| match l {
            Lit::Pos(a) | Lit::Neg(a) => Some(a),
            Lit::Distinct(..) | Lit::Same(..) => None,
        }));
        for atom in atoms {
            if program.class[atom.rel] == Class::Static {
                if let [Pat::Var(x), Pat::Var(y)] = atom.args[..] {
                    self.static_pairs.push((atom.rel, vars[x], vars[y]));
                }
                continue;
            }
            for (i, pat) in atom.args.iter().enumerate() {
                self.pattern(Position::Arg(atom.rel, i), pat, &vars);
            }
        }
        for lit in &rule.body {
            if let Lit::Distinct(Pat::Var(x), Pat::Var(y)) | Lit::Same(Pat::Var(x), Pat::Var(y)) =
                lit
            {
                self.union(vars[*x], vars[*y]);
            }
        }
    }

    /// Joins the variables of `pat` with the positions they stand at.
    fn pattern(&mut self, position: Position, pat: &Pat, vars: &[usize]) {
        match pat {
            Pat::Var(v) => {
                let node = self.node(position);
                self.union(vars[*v], node);
            }
            Pat::Ground(_) => {}
            Pat::Func(f, args) => {
                for (j, a) in args.iter().enumerate() {
                    self.pattern(Position::Field(*f, args.len(), j), a, vars);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::analyze;

    const BOARD: &str = "(role w)
        (init (cell a 1 x)) (init (cell b 1 e)) (init (cell a 2 e)) (init (cell b 2 e))
        (file a) (file b) (rank 1) (rank 2)
        (next_file a b) (next_rank 1 2)
        (<= (legal w (up ?f ?r ?s)) (true (cell ?f ?r x)) (next_rank ?r ?s)
            (true (cell ?f ?s e)))
        (<= (legal w (right ?f ?g ?r)) (true (cell ?f ?r x)) (next_file ?f ?g)
            (true (cell ?g ?r e)))
        (<= (legal w noop) (true (cell ?f ?r x)))
        (<= (next (cell ?f ?r ?c)) (true (cell ?f ?r ?c)) (not (moved ?f ?r)))
        (<= (moved ?f ?r) (does w (up ?f ?r ?s)))
        (<= (moved ?f ?s) (does w (up ?f ?r ?s)))
        (<= terminal (true (cell b 2 x)))
        (goal w 100)";

    fn texts(c: &crate::compile::Compiled, sort: &Sort) -> Vec<String> {
        sort.values
            .iter()
            .map(|&t| c.program.store.text(t))
            .collect()
    }

    #[test]
    fn files_and_ranks_are_two_sorts_each_ordered_by_its_successor() {
        let loaded = crate::load_bytes("t.kif".into(), BOARD.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let sorts = compute(&c.program, &c.domains);
        let cell = c.program.store.clone().symbol("cell");
        let file = sorts.sort_of(Position::Field(cell, 3, 0)).expect("files");
        let rank = sorts.sort_of(Position::Field(cell, 3, 1)).expect("ranks");
        assert_eq!(texts(&c, file), ["a", "b"]);
        assert_eq!(texts(&c, rank), ["1", "2"]);
        let name = |o: &Order| c.program.relations[o.relation].name.clone();
        assert_eq!(
            file.orders.iter().map(name).collect::<Vec<_>>(),
            ["next_file"]
        );
        assert_eq!(
            rank.orders.iter().map(name).collect::<Vec<_>>(),
            ["next_rank"]
        );
        let content = sorts.sort_of(Position::Field(cell, 3, 2)).expect("content");
        assert_eq!(texts(&c, content), ["e", "x"]);
        assert!(content.orders.is_empty());
    }

    #[test]
    fn only_a_single_chain_orders_a_sort() {
        let pairs =
            |p: &[(u32, u32)]| -> Vec<Vec<TermId>> { p.iter().map(|&(x, y)| vec![x, y]).collect() };
        assert_eq!(chain(&pairs(&[(2, 3), (1, 2)])), Some(vec![1, 2, 3]));
        assert_eq!(chain(&pairs(&[(1, 2), (3, 4)])), None, "two chains");
        assert_eq!(chain(&pairs(&[(1, 2), (2, 1)])), None, "a cycle");
        assert_eq!(chain(&pairs(&[(1, 2), (1, 3)])), None, "a branch");
        assert_eq!(chain(&pairs(&[(1, 2), (2, 3), (3, 2)])), None, "a loop");
    }
}
