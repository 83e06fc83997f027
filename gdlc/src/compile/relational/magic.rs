//! After inlining, magic sets: a large derived relation (recursive or
//! not) that its readers call with some arguments bound, is
//! evaluated only for the bindings the readers ask about. For each call
//! pattern (adornment: which arguments are bound) the relation gets an
//! adorned copy whose rules start with a literal of a magic relation, and
//! the magic relation collects the bound arguments of every call, from the
//! literals the caller has evaluated before the call (left to right) —
//! the bottom-up counterpart of a top-down prover's calls (thesis 7.2.5's
//! on-demand evaluation; Bancilhon et al.'s magic sets). A negated call
//! gets its bindings from all the positive literals of its rule. A
//! right-linear recursion (a walk) called with its start bound is answered
//! at the squares it reaches instead ([`linear`]); such a walk is
//! rewritten even when small, if its callers ask from the pieces on the
//! board.
//!
//! The rewritten program must stay stratified (a magic relation can pull
//! a called relation into its caller's component); when it would not, the
//! program is left as it was.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{Atom, Class, Lit, Pat, Program, RelId, Rule};
use crate::compile::relational::linear::{self, Linear};
use crate::graph::{Polarity, RelationGraph};
use crate::syntax::ast::Relation;
use rustc_hash::{FxHashMap, FxHashSet};

/// Relations with fewer relaxed facts are cheap enough to materialize,
/// recursive or not: a small recursive relation (reversi's
/// `hasothercolorindir`) costs more through magic sets than computed once
/// for all.
const MIN_ROWS: usize = 5_000;
/// The rewrite is given up past this many rules.
const MAX_RULES: usize = 4_000;

/// One adorned relation the rewrite introduced.
pub struct Adorned {
    /// The original relation.
    pub original: RelId,
    /// The relation of the squares its walk reaches, when its calls with
    /// this adornment are factored (see [`linear`]).
    pub reach: Option<RelId>,
    /// The adorned copy.
    pub adorned: RelId,
    /// Its magic relation.
    pub magic: RelId,
    /// `b`/`f` per argument.
    pub adornment: String,
}

/// Rewrites `program` (and extends `domains` to the new relations),
/// leaving the relations `asked` marks alone (answered by a search);
/// returns the adorned relations (empty when nothing qualified or the
/// result would not be stratified).
pub fn rewrite(program: &mut Program, domains: &mut Domains, asked: &[bool]) -> Vec<Adorned> {
    let mut derived = derived(program);
    for (d, &a) in derived.iter_mut().zip(asked) {
        *d &= !a;
    }
    let component = program.graph.component_of();
    let shapes: FxHashMap<RelId, Linear> = (0..program.relations.len())
        .filter(|&r| derived[r])
        .filter_map(|r| Some((r, linear::shape(program, &component, r)?)))
        .collect();
    let mut excluded = FxHashSet::default();
    loop {
        match rewrite_excluding(program, domains, &derived, &shapes, &excluded) {
            Ok(adorned) => return adorned,
            Err(materialized) => excluded.extend(materialized),
        }
    }
}

/// [`rewrite`], with the small right-linear relations of `excluded` left
/// materialized; `Err` with the small right-linear relations some caller
/// reads materialized after all (see [`Magic::call`]), or all of them when
/// the result would not be stratified: they would be evaluated both ways
/// (or not at all), so the rewrite is made again without them.
fn rewrite_excluding(
    program: &mut Program,
    domains: &mut Domains,
    derived: &[bool],
    shapes: &FxHashMap<RelId, Linear>,
    excluded: &FxHashSet<RelId>,
) -> Result<Vec<Adorned>, Vec<RelId>> {
    let (targets, small) = targets(program, domains, derived, shapes, excluded);
    if !targets.iter().any(|&t| t) {
        return Ok(Vec::new());
    }
    let mut m = Magic {
        program,
        targets,
        small,
        shapes,
        reach: FxHashMap::default(),
        reach_rules: Vec::new(),
        factored: FxHashMap::default(),
        adorned: FxHashMap::default(),
        new_relations: Vec::new(),
        queue: Vec::new(),
        plain: FxHashSet::default(),
        plain_queue: Vec::new(),
        rules: Vec::new(),
    };
    let original_rules = std::mem::take(&mut m.program.rules);
    m.write_rules(&original_rules);
    let mut materialized: Vec<RelId> = m.small.intersection(&m.plain).copied().collect();
    if !materialized.is_empty() {
        m.program.rules = original_rules;
        materialized.sort_unstable();
        return Err(materialized);
    }
    let Magic {
        program,
        rules,
        new_relations,
        adorned,
        factored,
        small,
        ..
    } = m;
    let mut small: Vec<RelId> = small.into_iter().collect();
    small.sort_unstable();
    if rules.len() > MAX_RULES {
        program.rules = original_rules;
        return Ok(Vec::new());
    }
    // The rewritten program, with its own graph.
    let mut relations = program.relations.clone();
    relations.extend(new_relations.iter().map(|n| n.relation.clone()));
    let rules = needed_rules(&program.answers, relations.len(), rules);
    let graph = graph_of(&relations, &rules);
    if !stratified(&graph) {
        program.rules = original_rules;
        // Perhaps only because of the small right-linear relations.
        return if small.is_empty() {
            Ok(Vec::new())
        } else {
            Err(small)
        };
    }
    extend(program, domains, &new_relations);
    let first = program.relations.len();
    program.relations = relations;
    program.rules = rules;
    program.graph = graph;
    classify(program, first);
    Ok(adorned_relations(&adorned, &factored))
}

/// The adorned relations made (`adorned`: by original, bound positions
/// and class of the callers; `factored`: the reach relation of those whose
/// calls are factored), by adorned copy.
fn adorned_relations(
    adorned: &FxHashMap<(RelId, Vec<bool>, Class), (RelId, RelId)>,
    factored: &FxHashMap<RelId, RelId>,
) -> Vec<Adorned> {
    let mut out: Vec<Adorned> = adorned
        .iter()
        .map(|(&(original, ref bound, _), &(adorned, magic))| Adorned {
            original,
            reach: factored.get(&adorned).copied(),
            adorned,
            magic,
            adornment: adornment(bound),
        })
        .collect();
    out.sort_by_key(|a| a.adorned);
    out
}

/// The relations to rewrite (per relation): the large derived ones and
/// the right-linear ones not `excluded`; and the latter that are small.
fn targets(
    program: &Program,
    domains: &Domains,
    derived: &[bool],
    shapes: &FxHashMap<RelId, Linear>,
    excluded: &FxHashSet<RelId>,
) -> (Vec<bool>, FxHashSet<RelId>) {
    let large: Vec<bool> = (0..program.relations.len())
        .map(|r| derived[r] && domains.rows[r].is_none_or(|rows| rows >= MIN_ROWS))
        .collect();
    let small: FxHashSet<RelId> = shapes
        .keys()
        .copied()
        .filter(|&r| !large[r] && !excluded.contains(&r))
        .collect();
    let targets: Vec<bool> = (0..program.relations.len())
        .map(|r| large[r] || small.contains(&r))
        .collect();
    (targets, small)
}

/// The rules of `rules` (over `relations` relations) that the answers
/// depend on, in their order.
pub(crate) fn needed_rules(
    answers: &[Vec<RelId>],
    relations: usize,
    rules: Vec<Rule>,
) -> Vec<Rule> {
    let mut reads: Vec<Vec<RelId>> = vec![Vec::new(); relations];
    for rule in &rules {
        for lit in &rule.body {
            if let Lit::Pos(a) | Lit::Neg(a) = lit {
                reads[rule.head.rel].push(a.rel);
            }
        }
    }
    let mut needed = vec![false; relations];
    let mut stack: Vec<RelId> = answers.iter().flatten().copied().collect();
    while let Some(r) = stack.pop() {
        if !std::mem::replace(&mut needed[r], true) {
            stack.extend(&reads[r]);
        }
    }
    rules.into_iter().filter(|r| needed[r.head.rel]).collect()
}

/// Extends `program`'s facts and classes and `domains` to the relations
/// the rewrite adds.
fn extend(program: &mut Program, domains: &mut Domains, new_relations: &[NewRelation]) {
    for new in new_relations {
        program.facts.push(Vec::new());
        program.class.push(Class::State);
        domains.args.push(
            new.positions
                .iter()
                .map(|&p| domains.args[new.original][p].clone())
                .collect(),
        );
        let open = new.positions.iter().map(|&p| domains.open[new.original][p]);
        domains.open.push(open.collect());
        let rows = estimated_rows(domains, new);
        domains.rows.push(rows);
    }
}

/// For the plans, the rows of relation `new`: an adorned copy is as large
/// as the original at most; a magic relation holds the few bindings
/// callers ask about, so its rules scan it first; a walk from a start
/// reaches about as many squares as a line of the board has.
fn estimated_rows(domains: &Domains, new: &NewRelation) -> Option<usize> {
    let original = new.original;
    if new.magic {
        Some(1)
    } else if let Some(walked) = new.walked {
        let sizes: Vec<usize> = new
            .positions
            .iter()
            .map(|&p| domains.size(original, p).max(1))
            .collect();
        let (from, to) = sizes.split_at(sizes.len() - walked);
        let reached = to.iter().copied().max().unwrap_or(1);
        let walks = from.iter().fold(reached, |n, &s| n.saturating_mul(s));
        Some(domains.rows[original].map_or(walks, |rows| rows.min(walks)))
    } else {
        domains.rows[original]
    }
}

/// The relations magic sets may rewrite: derived, and not keywords nor
/// answers.
pub(crate) fn derived(program: &Program) -> Vec<bool> {
    (0..program.relations.len())
        .map(|r| {
            program.class[r] != Class::Static
                && r != program.true_rel
                && r != program.does_rel
                && !program.answers.iter().any(|a| a.contains(&r))
        })
        .collect()
}

/// A relation the rewrite adds.
struct NewRelation {
    relation: Relation,
    /// The relation it copies or collects calls of.
    original: RelId,
    /// The positions of the original its arguments are.
    positions: Vec<usize>,
    /// A magic relation (else an adorned copy or a reach relation).
    magic: bool,
    /// For a reach relation, the number of positions its walk changes
    /// (the last ones).
    walked: Option<usize>,
}

/// The rewriting state.
struct Magic<'a> {
    program: &'a mut Program,
    targets: Vec<bool>,
    /// (relation, bound positions, class of the callers) → (adorned copy,
    /// magic relation). Callers per joint move get copies of their own, so
    /// that what callers per state ask is not evaluated again per move.
    adorned: FxHashMap<(RelId, Vec<bool>, Class), (RelId, RelId)>,
    /// The relations added.
    new_relations: Vec<NewRelation>,
    /// Adorned relations whose rules are still to write.
    queue: Vec<(RelId, Vec<bool>, Class)>,
    /// Targets called with no argument bound somewhere (they keep their
    /// own rules), and those whose rules are still to write.
    plain: FxHashSet<RelId>,
    plain_queue: Vec<RelId>,
    rules: Vec<Rule>,
    /// The right-linear targets (see [`linear`]).
    shapes: &'a FxHashMap<RelId, Linear>,
    /// The right-linear targets too small to be targets otherwise (see
    /// [`Magic::call`] for the calls that read them materialized).
    small: FxHashSet<RelId>,
    /// Their reach relations, made when a call is first factored.
    reach: FxHashMap<RelId, RelId>,
    /// The rules of the reach relations.
    reach_rules: Vec<Rule>,
    /// Adorned copy → the reach relation its rules read, for the factored
    /// ones.
    factored: FxHashMap<RelId, RelId>,
}

impl Magic<'_> {
    /// Writes the rewritten rules: the rules of the relations that are no
    /// targets, then those of the adorned copies and of the targets called
    /// with no argument bound, as calls of them are found (until
    /// [`MAX_RULES`] is passed).
    fn write_rules(&mut self, original_rules: &[Rule]) {
        for rule in original_rules {
            if !self.targets[rule.head.rel] {
                let class = self.program.class[rule.head.rel];
                let rewritten = self.body(rule, None, class);
                self.rules.push(rewritten);
            }
        }
        loop {
            if let Some(p) = self.plain_queue.pop() {
                // A target also called with no argument bound: its own rules.
                let class = self.class(p);
                for rule in self.rules_of(p, original_rules) {
                    let rewritten = self.body(&rule, None, class);
                    self.rules.push(rewritten);
                }
            } else if let Some(key) = self.queue.pop() {
                self.write_adorned(key, original_rules);
            } else {
                break;
            }
            if self.rules.len() > MAX_RULES {
                break;
            }
        }
    }

    /// Writes the rules of the adorned copy of `p` called with `bound` by
    /// callers of class `callers` (factored through its reach relation
    /// when its shape allows).
    fn write_adorned(&mut self, (p, bound, callers): (RelId, Vec<bool>, Class), original: &[Rule]) {
        let (adorned, magic) = self.adorned[&(p, bound.clone(), callers)];
        let class = self.class(p).max(callers);
        let rules = match self.shapes.get(&p) {
            Some(shape) if shape.factors(&bound) => {
                let shape = shape.clone();
                let reach = self.reach_of(p, &shape, original);
                self.factored.insert(adorned, reach);
                let name = &self.program.relations[p].name;
                linear::factored_rules(original, name, p, &shape, reach)
            }
            _ => self.rules_of(p, original),
        };
        for rule in &rules {
            let mut r = self.body(rule, Some((magic, &bound)), class);
            r.head.rel = adorned;
            r.text = format!("{} [for calls `{}`]", rule.text, adornment(&bound));
            self.rules.push(r);
        }
    }

    /// The class of relation `r` (a reach relation: that of the relation
    /// it walks).
    fn class(&self, r: RelId) -> Class {
        match self.program.class.get(r) {
            Some(&class) => class,
            None => {
                self.program.class[self.new_relations[r - self.program.relations.len()].original]
            }
        }
    }

    /// Relation `r` (original or added).
    fn relation_of(&self, r: RelId) -> &Relation {
        match self.program.relations.get(r) {
            Some(relation) => relation,
            None => &self.new_relations[r - self.program.relations.len()].relation,
        }
    }

    /// The rules defining `r`: its original rules, or a reach relation's.
    fn rules_of(&self, r: RelId, original: &[Rule]) -> Vec<Rule> {
        original
            .iter()
            .chain(&self.reach_rules)
            .filter(|rule| rule.head.rel == r)
            .cloned()
            .collect()
    }

    /// The reach relation of the right-linear target `p` (made, with its
    /// rules, on first use; a target itself, so that the factored rules'
    /// calls of it get magic relations).
    fn reach_of(&mut self, p: RelId, shape: &Linear, original: &[Rule]) -> RelId {
        if let Some(&r) = self.reach.get(&p) {
            return r;
        }
        let name = self.program.relations[p].name.clone();
        let r = self.relation(format!("{name} reach"), p, shape.reach_positions(), false);
        self.new_relations.last_mut().expect("just added").walked = Some(shape.changing.len());
        self.reach.insert(p, r);
        if self.targets.len() <= r {
            self.targets.resize(r + 1, false);
        }
        self.targets[r] = true;
        let rules = linear::reach_rules(original, &name, p, shape, r);
        self.reach_rules.extend(rules);
        r
    }

    /// A new relation id.
    fn relation(
        &mut self,
        name: String,
        original: RelId,
        positions: Vec<usize>,
        magic: bool,
    ) -> RelId {
        let id = self.program.relations.len() + self.new_relations.len();
        self.new_relations.push(NewRelation {
            relation: Relation {
                name,
                arity: positions.len(),
            },
            original,
            positions,
            magic,
            walked: None,
        });
        id
    }

    /// The adorned copy and magic relation of `p` called with `bound` by
    /// callers of class `class`.
    fn adorn(&mut self, p: RelId, bound: &[bool], class: Class) -> (RelId, RelId) {
        let key = (p, bound.to_vec(), class);
        if let Some(&pair) = self.adorned.get(&key) {
            return pair;
        }
        let name = self.relation_of(p).name.clone();
        let arity = bound.len();
        let mut ad = adornment(bound);
        if class == Class::Move {
            ad.push_str(" move");
        }
        // A space cannot occur in a KIF symbol: these names are new. The
        // written name stays in front (see `normal::written_name`).
        let adorned = self.relation(format!("{name} {ad}"), p, (0..arity).collect(), false);
        let positions: Vec<usize> = (0..arity).filter(|&i| bound[i]).collect();
        let magic = self.relation(format!("{name} magic {ad}"), p, positions, true);
        self.adorned.insert(key.clone(), (adorned, magic));
        self.queue.push(key);
        (adorned, magic)
    }

    /// `rule` with its calls of targets adorned, adding the magic rules of
    /// those calls; `head` is the magic relation and bound positions when
    /// the rule defines an adorned copy.
    fn body(&mut self, rule: &Rule, head: Option<(RelId, &[bool])>, class: Class) -> Rule {
        let mut bound: FxHashSet<usize> = FxHashSet::default();
        let mut prefix: Vec<Lit> = Vec::new();
        if let Some((magic, positions)) = head {
            let args: Vec<Pat> = rule
                .head
                .args
                .iter()
                .zip(positions)
                .filter(|(_, &b)| b)
                .map(|(a, _)| a.clone())
                .collect();
            for a in &args {
                a.for_each_var(&mut |v| {
                    bound.insert(v);
                });
            }
            prefix.push(Lit::Pos(Atom { rel: magic, args }));
        }
        let mut body: Vec<Lit> = prefix.clone();
        // Positive literals, left to right; but a recursive call with at
        // least as many arguments bound by the head's bindings alone as
        // the head has (the head having some free) comes before the
        // literals that bind new variables: it then asks only about
        // bindings its head was asked about (`(++ ?x1 ?x2)` before it, in
        // a walk to a bound end, would bind all its arguments and ask for
        // every pair it lists). With fewer (a count whose running total
        // the literals before it compute), it keeps its place.
        let mut order: Vec<&Lit> = rule.body.iter().collect();
        if let Some((_, positions)) = head.filter(|(_, p)| p.contains(&false)) {
            let only_bound = |lit: &Lit| lit.vars().iter().all(|v| bound.contains(v));
            let keyed = |p: &Pat| {
                let vars = p.vars();
                !vars.is_empty() && vars.iter().all(|v| bound.contains(v))
            };
            let asked = positions.iter().filter(|&&b| b).count();
            let recursive = order.iter().position(|lit| {
                matches!(lit, Lit::Pos(a) if a.rel == rule.head.rel
                    && a.args.iter().filter(|p| keyed(p)).count() >= asked)
            });
            if let Some(i) = recursive {
                let call = order.remove(i);
                let at = order[..i].iter().take_while(|l| only_bound(l)).count();
                order.insert(at, call);
            }
        }
        let mut negated: Vec<&Atom> = Vec::new();
        for lit in order {
            match lit {
                Lit::Pos(a) => {
                    let call = self.call(rule, a, &bound, &prefix, class);
                    a.args.iter().for_each(|p| {
                        p.for_each_var(&mut |v| {
                            bound.insert(v);
                        })
                    });
                    prefix.push(Lit::Pos(call.clone()));
                    body.push(Lit::Pos(call));
                }
                Lit::Neg(a) => negated.push(a),
                Lit::Distinct(x, y) | Lit::Same(x, y) => {
                    let mut vars = x.vars();
                    vars.extend(y.vars());
                    if vars.iter().all(|v| bound.contains(v)) {
                        prefix.push(lit.clone());
                    }
                    body.push(lit.clone());
                }
            }
        }
        // Filters whose variables were bound only later.
        for lit in &rule.body {
            if let Lit::Distinct(..) | Lit::Same(..) = lit {
                if !prefix.contains(lit) {
                    prefix.push(lit.clone());
                }
            }
        }
        for a in negated {
            let call = self.call(rule, a, &bound, &prefix, class);
            body.push(Lit::Neg(call));
        }
        Rule {
            head: rule.head.clone(),
            body,
            vars: rule.vars.clone(),
            text: rule.text.clone(),
        }
    }

    /// The atom to call for `a` given the variables bound before it: the
    /// adorned copy (and its magic rule) for a target with a bound
    /// argument, `a` itself otherwise (and for a small walk some caller
    /// reads materialized, recorded in `plain`).
    fn call(
        &mut self,
        rule: &Rule,
        a: &Atom,
        bound: &FxHashSet<usize>,
        prefix: &[Lit],
        class: Class,
    ) -> Atom {
        if !self.targets.get(a.rel).copied().unwrap_or(false) {
            return a.clone();
        }
        let positions: Vec<bool> = a
            .args
            .iter()
            .map(|p| p.vars().iter().all(|v| bound.contains(v)))
            .collect();
        // A small right-linear relation is read materialized by a call
        // from outside its own rules whose bindings do not come from the
        // state and static relations alone (the pieces on the board): from
        // static relations alone they are every start (chess_200's
        // `openStretch` from every square and direction), from another
        // derived relation nearly every one (othello's `closedpiecestring`
        // from the end of every `openpiecestring`); then it is as cheap
        // computed once for all. Asked from the pieces (the state, the
        // move being made, or what the rewrite's relations were asked
        // about), even to check one walk or per joint move, it is walked
        // only where asked (chess's rays from its few sliding pieces, and
        // from the piece just moved to the king it may check).
        let outside = rule.head.rel != a.rel;
        let from_pieces = || {
            let mut reads_state = false;
            for lit in prefix {
                if let Lit::Pos(b) = lit {
                    // A relation of the rewrite holds only what was asked.
                    let demanded = b.rel >= self.program.relations.len();
                    if b.rel == self.program.true_rel || b.rel == self.program.does_rel || demanded
                    {
                        reads_state = true;
                    } else if self.program.class[b.rel] != Class::Static {
                        return false;
                    }
                }
            }
            reads_state
        };
        let small_read_in_full = self.small.contains(&a.rel) && outside && !from_pieces();
        if !positions.iter().any(|&b| b) || small_read_in_full {
            if self.plain.insert(a.rel) {
                self.plain_queue.push(a.rel);
            }
            return a.clone();
        }
        let (adorned, magic) = self.adorn(a.rel, &positions, class);
        let args: Vec<Pat> = a
            .args
            .iter()
            .zip(&positions)
            .filter(|(_, &b)| b)
            .map(|(p, _)| p.clone())
            .collect();
        let head = Atom { rel: magic, args };
        // A recursive call with the bindings of its own head (a reach
        // relation's) adds no binding.
        if !matches!(prefix, [Lit::Pos(only)] if *only == head) {
            self.rules.push(Rule {
                head,
                body: prefix.to_vec(),
                vars: rule.vars.clone(),
                text: format!(
                    "{} [calls of `{}` with `{}`]",
                    rule.text,
                    self.relation_of(a.rel),
                    adornment(&positions)
                ),
            });
        }
        Atom {
            rel: adorned,
            args: a.args.clone(),
        }
    }
}

/// `b` for a bound argument, `f` for a free one.
fn adornment(bound: &[bool]) -> String {
    bound.iter().map(|&b| if b { 'b' } else { 'f' }).collect()
}

/// The relation graph of `rules` over `relations` (node `i` is relation `i`).
pub(crate) fn graph_of(relations: &[Relation], rules: &[Rule]) -> RelationGraph {
    let mut edges: Vec<(usize, usize, Polarity)> = Vec::new();
    for rule in rules {
        for lit in &rule.body {
            match lit {
                Lit::Pos(a) => edges.push((a.rel, rule.head.rel, Polarity::Positive)),
                Lit::Neg(a) => edges.push((a.rel, rule.head.rel, Polarity::Negative)),
                _ => {}
            }
        }
    }
    edges.sort_by_key(|&(a, b, p)| (a, b, p == Polarity::Negative));
    edges.dedup();
    RelationGraph::from_parts(relations.to_vec(), &edges)
}

/// Whether no component of the graph has a negative edge inside it.
fn stratified(graph: &RelationGraph) -> bool {
    let component = graph.component_of();
    graph.graph.edge_indices().all(|e| {
        let (a, b) = graph.graph.edge_endpoints(e).expect("an edge");
        graph.graph[e] == Polarity::Positive || component[a.index()] != component[b.index()]
    })
}

/// The class of every relation from `first` on (the new ones): the highest
/// class of what it reads, and at least per state (they have rules, not
/// facts). The classes of the others do not change: a magic relation
/// reads only what its caller reads.
fn classify(program: &mut Program, first: usize) {
    for scc in program.graph.components() {
        let members: Vec<usize> = scc.iter().map(|n| n.index()).collect();
        if members.iter().all(|&r| r < first) {
            continue;
        }
        let mut k = Class::State;
        for &n in &scc {
            k = k.max(program.class[n.index()]);
            for m in program
                .graph
                .graph
                .neighbors_directed(n, petgraph::Direction::Incoming)
            {
                k = k.max(program.class[m.index()]);
            }
        }
        for &r in &members {
            program.class[r] = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::relational::plan::Step;
    use crate::compile::{analyze_with, Strategy};

    /// `reach` is recursive and large (80 rooms: 6 400 possible facts),
    /// and `legal` calls it with its first argument bound by `(true (at
    /// ?x))`, positively and through `not`.
    fn game() -> String {
        let mut text = String::from("(role a)\n(init (at 1))\n");
        for i in 1..=80 {
            text += &format!(
                "(init (open {i}))\n(edge {i} {})\n(edge {i} {})\n",
                i % 80 + 1,
                (i + 6) % 80 + 1
            );
        }
        text += "(<= (reach ?x ?y) (edge ?x ?y) (true (open ?y)))\n\
            (<= (reach ?x ?z) (reach ?x ?y) (edge ?y ?z) (true (open ?z)))\n\
            (<= (legal a (go ?y)) (true (at ?x)) (reach ?x ?y))\n\
            (<= (legal a stay) (true (at ?x)) (not (reach ?x ?x)))\n\
            (<= (next (at ?y)) (does a (go ?y)))\n\
            (<= (next (open ?y)) (true (open ?y)))\n\
            (<= (goal a 100) (true (at 3)))\n(<= (goal a 0) (not (true (at 3))))\n\
            (<= terminal (true (at 3)))\n";
        text
    }

    #[test]
    fn recursive_calls_with_bound_arguments_get_magic_relations() {
        let loaded = crate::load_bytes("t.kif".into(), game().into_bytes()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let p = &c.program;
        let adornments: Vec<&str> = c
            .relational()
            .unwrap()
            .adorned
            .iter()
            .map(|a| a.adornment.as_str())
            .collect();
        // `(reach ?x ?y)` after `(true (at ?x))`, and `(not (reach ?x ?x))`.
        assert_eq!(adornments.len(), 2, "{adornments:?}");
        assert!(adornments.contains(&"bf") && adornments.contains(&"bb"));
        for a in &c.relational().unwrap().adorned {
            assert_eq!(p.relations[a.original].name, "reach");
            assert_eq!(p.relations[a.magic].arity, a.adornment.matches('b').count());
            // Every rule of the adorned copy reads its magic relation first.
            let rules: Vec<_> = p.rules.iter().filter(|r| r.head.rel == a.adorned).collect();
            assert_eq!(rules.len(), 2);
            for r in rules {
                assert!(
                    matches!(&r.body[0], super::Lit::Pos(m) if m.rel == a.magic),
                    "{}",
                    r.text
                );
            }
            assert!(p.rules.iter().any(|r| r.head.rel == a.magic));
        }
        // Nothing calls `reach` with both arguments free: its own rules are gone.
        let reach = c.relational().unwrap().adorned[0].original;
        assert!(!p.rules.iter().any(|r| r.head.rel == reach));
    }

    /// A one-dimensional amazons: the arrow's `walk` passes its end on
    /// unchanged, and is called with its start bound (`shot`'s first rule)
    /// and with its end bound (the second).
    fn line(cells: usize) -> String {
        let mut text = String::from("(role a)\n(init (at 1))\n");
        for x in 1..cells {
            text += &format!("(succ {x} {})\n(cell {x})\n", x + 1);
        }
        text +=
            "(<= (walk ?ig ?x1 ?x3) (succ ?x1 ?x2) (not (true (closed ?x2))) (walk ?ig ?x2 ?x3))\n\
            (<= (walk ?x2 ?x1 ?x3) (succ ?x1 ?x2) (walk ?x2 ?x2 ?x3))\n\
            (<= (walk ?ig ?x1 ?x2) (succ ?x1 ?x2) (cell ?ig))\n\
            (<= (shot ?ig ?x1 ?x2) (walk ?ig ?x1 ?x2))\n\
            (<= (shot ?ig ?x1 ?x2) (walk ?ig ?x2 ?x1))\n\
            (<= (legal a (play ?x3)) (true (at ?x1)) (shot ?x1 ?x1 ?x3))\n\
            (<= (next (at ?x)) (true (at ?x)))\n\
            (<= (next (closed ?x)) (true (closed ?x)))\n\
            (<= (next (closed ?x)) (does a (play ?x)))\n\
            (goal a 100)\n(<= terminal (true (closed 2)))\n";
        text
    }

    #[test]
    fn a_walk_called_from_its_start_is_answered_at_the_squares_it_reaches() {
        let loaded = crate::load_bytes("t.kif".into(), line(30).into_bytes()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let p = &c.program;
        let find = |adornment: &str| {
            c.relational()
                .unwrap()
                .adorned
                .iter()
                .find(|a| p.relations[a.original].name == "walk" && a.adornment == adornment)
                .unwrap_or_else(|| panic!("walk called `{adornment}`"))
        };
        let rules_of = |r: usize| p.rules.iter().filter(move |rule| rule.head.rel == r);
        let reads = |rule: &super::Rule, r: usize| {
            rule.body
                .iter()
                .any(|l| matches!(l, super::Lit::Pos(a) if a.rel == r))
        };
        // From its start: no longer recursive, its exit rule applied at the
        // squares the (left-linear) reach relation lists.
        let from_start = find("bbf");
        let reach = from_start.reach.expect("factored");
        assert!(rules_of(from_start.adorned).all(|r| !reads(r, from_start.adorned)));
        let reach_copies: Vec<usize> = c
            .relational()
            .unwrap()
            .adorned
            .iter()
            .filter(|b| b.original == reach)
            .map(|b| b.adorned)
            .collect();
        assert!(rules_of(from_start.adorned).any(|r| reach_copies.iter().any(|&q| reads(r, q))));
        assert!(reach_copies
            .iter()
            .all(|&q| rules_of(q).any(|r| reads(r, q))));
        // A step from a square reached scans the squares reached so far
        // (each round, only the new ones) before the 29 rows of `succ`.
        for &q in &reach_copies {
            let plan = c
                .relational()
                .unwrap()
                .plans
                .iter()
                .find(|plan| p.rules[plan.rule].head.rel == q && reads(&p.rules[plan.rule], q))
                .expect("planned");
            let loops: Vec<&Step> = plan.steps.iter().filter(|s| s.is_loop()).collect();
            assert!(
                matches!(loops[1], Step::Scan(a) if a.rel == q),
                "{:?}",
                plan.steps
            );
        }
        // To its end: not factored; its first rule calls its own copy (the
        // end stays the only binding asked for), not one with every
        // argument bound by `(succ ?x1 ?x2)` first.
        let to_end = find("bfb");
        assert!(to_end.reach.is_none());
        assert_eq!(
            rules_of(to_end.adorned)
                .filter(|r| reads(r, to_end.adorned))
                .count(),
            1,
            "the walk over open cells calls its own copy"
        );
    }

    #[test]
    fn a_small_walk_is_rewritten_unless_some_call_reads_it_in_full() {
        // 8 cells: `walk` has 224 relaxed facts, too few for magic sets
        // unless its calls from a start are factored.
        let walks = |text: String| {
            let loaded = crate::load_bytes("t.kif".into(), text.into_bytes()).expect("valid");
            let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
            let mut out: Vec<(String, bool)> = c
                .relational()
                .unwrap()
                .adorned
                .iter()
                .filter(|a| c.program.relations[a.original].name == "walk")
                .map(|a| (a.adornment.clone(), a.reach.is_some()))
                .collect();
            out.sort();
            out
        };
        let adorned = walks(line(8));
        assert!(adorned.contains(&("bbf".into(), true)), "{adorned:?}");
        // A check of one walk from the pieces (every argument bound) is
        // walked where asked too, per state or per joint move.
        let checked = line(8) + "(<= (legal a stay) (true (at ?x)) (walk ?x ?x 8))\n";
        assert!(walks(checked).contains(&("bbb".into(), false)));
        let per_move =
            line(8) + "(<= (next (hit ?x)) (does a (play ?x)) (true (at ?y)) (walk ?y ?y ?x))\n";
        assert!(walks(per_move).contains(&("bbb".into(), false)));
        // A call from every start (bindings from static relations alone)
        // reads it materialized: then it stays so.
        let everywhere = line(8) + "(<= (legal a (look ?y)) (cell ?x) (walk ?x ?x ?y))\n";
        assert_eq!(walks(everywhere), Vec::new());
    }

    #[test]
    fn a_walk_is_factored_only_when_its_steps_or_its_caller_bind_what_it_keeps() {
        // `?y` is kept (the same in the head and the call) but no step
        // binds it: a reach rule needs it from the caller.
        let game = |legal: &str| {
            let mut text = String::from("(role a)\n(init (at 1 1))\n(row 1)\n(row 2)\n");
            for x in 1..30 {
                text += &format!("(succ {x} {})\n(init (open {}))\n", x + 1, x + 1);
            }
            text +=
                "(<= (walk ?x1 ?y ?x3 ?y) (succ ?x1 ?x2) (true (open ?x2)) (walk ?x2 ?y ?x3 ?y))\n\
                (<= (walk ?x1 ?y ?x2 ?y) (succ ?x1 ?x2) (row ?y))\n\
                (<= (next (at ?x ?y)) (does a (go ?x ?y)))\n\
                (<= (next (open ?x)) (true (open ?x)))\n\
                (<= terminal (true (at 30 ?y)))\n(goal a 100)\n";
            text += legal;
            let loaded = crate::load_bytes("t.kif".into(), text.into_bytes()).expect("valid");
            let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
            c.relational()
                .unwrap()
                .adorned
                .iter()
                .filter(|a| c.program.relations[a.original].name == "walk")
                .map(|a| (a.adornment.clone(), a.reach.is_some()))
                .collect::<Vec<_>>()
        };
        let bound = game("(<= (legal a (go ?x3 ?y)) (true (at ?x1 ?y)) (walk ?x1 ?y ?x3 ?y))\n");
        assert_eq!(bound, [("bbfb".to_string(), true)]);
        let free = game("(<= (legal a (go ?x3 ?y)) (true (at ?x1 ?z)) (walk ?x1 ?y ?x3 ?y))\n");
        assert_eq!(free, [("bfff".to_string(), false)]);
    }
}
