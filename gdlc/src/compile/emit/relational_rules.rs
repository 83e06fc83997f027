//! The rules of a planned program ([`crate::compile::relational::plan`])
//! as Rust for [`crate::compile::emit::relational`]: each rule's plan as
//! nested loops over the containers of the dynamic relations and the
//! constant tables (a variant per scan of its own layer in a recursive
//! layer, for semi-naive rounds), each layer a method calling its rules,
//! and the indexes, direct indexes, membership bitsets and pattern tables
//! the loops use.

use crate::compile::analyse::boards::Boards;
use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::emit::relational_layers::{field_types, layer_of, rel_field, Recursion};
use crate::compile::emit::skeleton::lit;
use crate::compile::emit::table_lookups::{PatternDomain, Registered, TableLookups};
use crate::compile::program::{Atom, Pat, Program, RelId};
use crate::compile::relational::containers::Container;
use crate::compile::relational::plan::{RulePlan, Step, Tables, TopDown, Walk};
use crate::ir::terms::TermData;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

mod asks;
mod board_reads;
mod families;
mod next_bits;
mod open_terms;
mod table_rows;
mod walks;

use families::{family_fns, HoleTypes};
pub use families::{RuleItems, FAMILIES};

/// What the rules' code is generated from.
pub struct RulesInput<'a> {
    /// The program.
    pub program: &'a Program,
    /// Domains and runtime ids.
    pub domains: &'a Domains,
    /// The layers.
    pub layers: &'a Layers,
    /// The plans of the rules.
    pub plans: &'a [RulePlan],
    /// The relations answered by a search or a walk.
    pub top_down: &'a TopDown,
    /// The container of every relation.
    pub containers: &'a [Container],
    /// The boards among the fluents.
    pub boards: &'a Boards,
}

/// The functions evaluating the rules of `plans` (per rule `rule_<r>`, and
/// in a recursive layer one `rule_<r>_delta_<step>` per step scanning a
/// relation of the layer), and how each rule takes part in the fixpoint of
/// its layer; then the searches of the asked relations (`asks::ask_fns`)
/// and the step functions of the walks (`walks::step_fns`); the copies
/// among them made families (`families::family_fns`).
pub fn rule_fns(
    input: &RulesInput<'_>,
    tables: &mut Tables,
    registered: &mut Registered,
) -> (RuleItems, Vec<Recursion>) {
    let RulesInput {
        program,
        domains,
        layers,
        plans,
        top_down,
        containers,
        boards,
    } = *input;
    let excluded = top_down.excluded();
    let mut rules = Vec::new();
    let mut recursion = Vec::new();
    let layer_of = layer_of(program, layers);
    for plan in plans {
        if excluded[program.rules[plan.rule].head.rel] {
            continue;
        }
        let own_layer = layers
            .layers
            .iter()
            .position(|l| l.rules.contains(&plan.rule))
            .expect("every rule is in a layer");
        let x = Recursion::of(plan, &layers.layers[own_layer]);
        let variants: Vec<Option<usize>> = std::iter::once(None)
            .chain(x.deltas.iter().map(|&(i, _)| Some(i)))
            .collect();
        for delta in variants {
            let lookups = TableLookups { tables, registered };
            let mut g = RuleGen::new(program, domains, boards, plan, lookups, &layer_of);
            g.delta = delta;
            g.own_layer = own_layer;
            g.next_bits = containers[program.rules[plan.rule].head.rel] == Container::NextBits;
            let body = g.steps(0);
            rules.push(rule_fn(program, plan.rule, delta, body));
        }
        recursion.push(x);
    }
    rules.extend(asks::ask_fns(input, &layer_of, tables, registered));
    rules.extend(walks::step_fns(input, &layer_of, tables, registered));
    let relations = field_types(program, containers, &excluded);
    let types = HoleTypes {
        relations: &relations,
        table_columns: tables.tables.iter().map(|t| t.columns).collect(),
    };
    (family_fns(rules, &types), recursion)
}

/// The function of rule `rule` around its loops `body`, documented by the
/// rule's text: `rule_<rule>`, or with a `delta` step its variant over the
/// facts from `lo` on. Out of line: a rule runs once per evaluation of its
/// layer, so the call costs nothing measurable, while rules inlined into
/// their layer made functions so large that optimizing them took a third
/// of a big game's build.
fn rule_fn(program: &Program, rule: usize, delta: Option<usize>, body: TokenStream) -> TokenStream {
    let doc = format!(" {}", program.rules[rule].text);
    let (name, step, lo) = match delta {
        None => (format_ident!("rule_{rule}"), None, None),
        Some(i) => (
            format_ident!("rule_{rule}_delta_{i}"),
            Some(format!(" Step {i} over the facts from `lo` on only.")),
            Some(quote! { , lo: usize }),
        ),
    };
    let step = step.iter();
    quote! {
        #[doc = #doc]
        #(#[doc = #step])*
        #[inline(never)]
        fn #name(&mut self #lo) {
            #body
        }
    }
}

/// What a rule's code is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Deriving the head into its relation's container.
    Derive,
    /// Answering a question (`ask_<r>_rule_<i>`): the head is given, a
    /// witness returns `true`, no candidate left `false`.
    Ask,
    /// Stepping a walk (`walk_<r>_forward` or `_backward`): the inputs of
    /// the head are given, a witness returns the outputs, none `None`.
    Step {
        /// The walk.
        walk: Walk,
        /// The direction.
        forward: bool,
    },
}

/// The field of the `Game` holding board `b`'s contents in the current
/// state.
pub fn board_field(b: usize) -> Ident {
    format_ident!("board_{b}")
}

/// Generates the nested loops of one rule.
struct RuleGen<'a> {
    program: &'a Program,
    domains: &'a Domains,
    boards: &'a Boards,
    plan: &'a RulePlan,
    bound: Vec<bool>,
    /// Labels of the enclosing loops, outermost first.
    loops: Vec<TokenStream>,
    /// Where to go once the head is derived, if the rest was only a search
    /// for a witness.
    witness: Option<TokenStream>,
    /// Occurrences of each variable in the rule.
    uses: Vec<usize>,
    /// Compound terms whose runtime id is at hand in the current scope.
    known: Vec<(Pat, TokenStream)>,
    /// The constant tables and the lookups into them.
    lookups: TableLookups<'a>,
    /// The step restricted to the facts from `lo` on, in a semi-naive
    /// round.
    delta: Option<usize>,
    /// The layer defining each relation, if any.
    layer_of: &'a [Option<usize>],
    /// The layer of the rule.
    own_layer: usize,
    /// The other layers the steps so far evaluate first, in order.
    ensured: Vec<usize>,
    /// The names given so far to the arguments of terms taken apart at
    /// open arguments.
    fresh: usize,
    /// What the rule's code is for: deriving its head, answering a
    /// question, or stepping a walk.
    mode: Mode,
    /// The searches the steps so far call.
    calls: usize,
    /// Whether the head's facts set their fluents' bits in the next state
    /// (`next_fluents`) instead of going into a container.
    next_bits: bool,
}

/// A step over a constant table ([`Step::Table`], which documents the
/// fields), numbered `i`.
struct TableStep<'s> {
    i: usize,
    table: usize,
    key: &'s [usize],
    bind: &'s [usize],
    fluent: bool,
    negated: bool,
    term: Option<&'s Pat>,
}

impl<'a> RuleGen<'a> {
    /// The generator of `plan`'s loops, outside any layer (`own_layer`
    /// past the last), over all its facts (no `delta`), deriving its head.
    fn new(
        program: &'a Program,
        domains: &'a Domains,
        boards: &'a Boards,
        plan: &'a RulePlan,
        lookups: TableLookups<'a>,
        layer_of: &'a [Option<usize>],
    ) -> Self {
        let rule = &program.rules[plan.rule];
        RuleGen {
            program,
            domains,
            boards,
            plan,
            bound: vec![false; rule.vars.len()],
            loops: Vec::new(),
            witness: None,
            uses: variable_uses(rule),
            known: Vec::new(),
            lookups,
            delta: None,
            layer_of,
            own_layer: usize::MAX,
            ensured: Vec::new(),
            fresh: 0,
            mode: Mode::Derive,
            calls: 0,
            next_bits: false,
        }
    }
}

/// Most slots of a table's direct index (see `RuleGen::offsets`).
impl RuleGen<'_> {
    /// Leaves the current candidate: the innermost loop's next iteration,
    /// or the end of the rule.
    fn fail(&self) -> TokenStream {
        match self.loops.last() {
            Some(l) => quote! { continue #l; },
            None => match self.mode {
                Mode::Derive => quote! { return; },
                Mode::Ask => quote! { return false; },
                Mode::Step { .. } => quote! { return None; },
            },
        }
    }

    /// Evaluates the layer defining `rel` if this state (or joint move) has
    /// not yet: a layer is derived when a rule first reads it, not before.
    /// Each step runs inside the steps before it, so a layer the rule has
    /// already ensured is not ensured again.
    fn ensure(&mut self, rel: RelId) -> TokenStream {
        match self.layer_of[rel] {
            Some(l) if l != self.own_layer && !self.ensured.contains(&l) => {
                self.ensured.push(l);
                let f = format_ident!("ensure_layer_{l}");
                quote! { self.#f(); }
            }
            _ => TokenStream::new(),
        }
    }

    /// The evaluation of the layer that step `i` reads, if the step reads
    /// another layer's relation first thing (no head test before it).
    fn ensure_read_at(&mut self, i: usize) -> TokenStream {
        let steps = &self.plan.steps;
        let head_test = i == self.plan.head_bound_after && steps[i..].iter().any(Step::is_loop);
        match steps.get(i) {
            Some(Step::Scan(atom) | Step::Member { atom, .. }) if !head_test => {
                let rel = atom.rel;
                self.ensure(rel)
            }
            _ => TokenStream::new(),
        }
    }

    /// The variable holding rule variable `v`.
    fn var(v: usize) -> Ident {
        format_ident!("v{v}")
    }

    /// The code of the plan from step `i` on: that step around the code of
    /// the rest, the head's insertion at the end.
    fn steps(&mut self, i: usize) -> TokenStream {
        let prelude = self.head_test(i);
        if i == self.plan.steps.len() {
            let insert = self.head_insert();
            return quote! { #prelude #insert };
        }
        if let Some(copy) = self.frame_copy(i) {
            return quote! { #prelude #copy };
        }
        let step = self.plan.steps[i].clone();
        let code = match &step {
            Step::Table {
                table,
                key,
                bind,
                fluent,
                negated,
                term,
                ..
            } => self.table_step(&TableStep {
                i,
                table: *table,
                key,
                bind,
                fluent: *fluent,
                negated: *negated,
                term: term.as_ref(),
            }),
            Step::Fluent { id, negated } => {
                let id = lit(*id);
                let test = if *negated {
                    quote! { self.current.holds(#id) }
                } else {
                    quote! { !self.current.holds(#id) }
                };
                self.test_then_rest(i, test)
            }
            Step::Scan(atom) => {
                let ensure = self.ensure(atom.rel);
                let scan = self.scan(i, atom);
                quote! { #ensure #scan }
            }
            Step::Member { atom, negated } => {
                let ensure = self.ensure(atom.rel);
                let check = self.member_check(atom, *negated);
                let inner = self.steps(i + 1);
                quote! { #ensure #check #inner }
            }
            Step::Ask { atom, negated } => {
                let check = self.ask_check(atom, *negated);
                let inner = self.steps(i + 1);
                quote! { #check #inner }
            }
            Step::Walk {
                atom,
                walk,
                forward,
            } => self.walk(i, atom, walk, *forward),
            Step::Distinct(a, b) | Step::Same(a, b) => {
                let ne = self.ne(a, b);
                let test = if matches!(step, Step::Distinct(..)) {
                    quote! { !(#ne) }
                } else {
                    ne
                };
                self.test_then_rest(i, test)
            }
        };
        quote! { #prelude #code }
    }

    /// Where the head is bound at step `i` and loops remain: a test that
    /// leaves the candidate when the head is already known, and from then
    /// on the loops only search for a witness (`witness`).
    fn head_test(&mut self, i: usize) -> TokenStream {
        let steps = &self.plan.steps;
        if self.mode != Mode::Derive
            || i != self.plan.head_bound_after
            || !steps[i..].iter().any(Step::is_loop)
        {
            return TokenStream::new();
        }
        let fail = self.fail();
        self.witness = Some(fail.clone());
        if self.next_bits {
            return match self.next_fluent() {
                Some(f) => quote! { #f if self.next_fluents.holds(f) { #fail } },
                None => fail,
            };
        }
        let rule = &self.program.rules[self.plan.rule];
        let (build, tuple) = self.tuple(&rule.head);
        let field = rel_field(rule.head.rel);
        quote! {
            #build
            if self.#field.contains(&#tuple) { #fail }
        }
    }

    /// The insertion of the derived head, then the jump out of the loops
    /// that only searched for a witness.
    fn head_insert(&mut self) -> TokenStream {
        match self.mode {
            Mode::Derive => {}
            Mode::Ask => return quote! { return true; },
            Mode::Step { .. } => return self.step_output(),
        }
        let jump = self.witness.clone().unwrap_or_default();
        if self.next_bits {
            let Some(f) = self.next_fluent() else {
                return TokenStream::new();
            };
            return quote! {
                #f
                self.next_fluents.0[(f >> 6) as usize] |= 1u64 << (f & 63);
                #jump
            };
        }
        let rule = &self.program.rules[self.plan.rule];
        let (build, tuple) = self.tuple(&rule.head);
        let field = rel_field(rule.head.rel);
        quote! {
            #build
            self.#field.insert(#tuple);
            #jump
        }
    }

    /// Leaves the candidate when `test` holds; then the plan from step
    /// `i + 1` on.
    fn test_then_rest(&mut self, i: usize, test: TokenStream) -> TokenStream {
        let fail = self.fail();
        let inner = self.steps(i + 1);
        quote! { if #test { #fail } #inner }
    }

    /// The test that a fully bound atom is (with `negated`, is not) a fact
    /// of its dynamic relation, leaving the candidate when it fails.
    fn member_check(&mut self, atom: &Atom, negated: bool) -> TokenStream {
        let fail = self.fail();
        let field = rel_field(atom.rel);
        if negated {
            let (build, tuple) = self.tuple_or(atom, quote! { break 'neg; });
            quote! {
                'neg: {
                    #build
                    if self.#field.contains(&#tuple) { #fail }
                }
            }
        } else {
            let (build, tuple) = self.tuple(atom);
            quote! {
                #build
                if !self.#field.contains(&#tuple) { #fail }
            }
        }
    }

    /// Loops over the facts of a dynamic relation, matching the atom.
    fn scan(&mut self, i: usize, atom: &Atom) -> TokenStream {
        let label = syn_label(i);
        let field = rel_field(atom.rel);
        let skip = quote! { continue #label; };
        // Positions bound before the scan: the key of an index.
        let mask: Vec<bool> = atom
            .args
            .iter()
            .map(|a| match a {
                Pat::Ground(_) => true,
                Pat::Var(v) => self.bound[*v],
                Pat::Func(..) => false,
            })
            .collect();
        let mut matching = TokenStream::new();
        let known = self.known.len();
        for (k, arg) in atom.args.iter().enumerate() {
            if mask[k] {
                continue;
            }
            let col = Literal::usize_unsuffixed(k);
            let value = quote! { row[#col] };
            matching.extend(self.match_arg(atom.rel, k, arg, value, &skip));
            // The compound term's id, for a head or query that names it.
            if matches!(arg, Pat::Func(..)) && self.named_after(i, arg) {
                let id = format_ident!("t{i}_{k}");
                matching.extend(quote! { let #id = row[#col]; });
                self.known.push((arg.clone(), quote! { #id }));
            }
        }
        self.loops.push(label.clone());
        let inner = self.steps(i + 1);
        self.loops.pop();
        self.known.truncate(known);
        let delta = self.delta == Some(i);
        if !mask.contains(&true) {
            let start = if delta {
                quote! { lo }
            } else {
                quote! { 0 }
            };
            return quote! {
                #label: for i in #start..self.#field.len() {
                    let row = self.#field.get(i);
                    #matching
                    #inner
                }
            };
        }
        let known = &mut self.lookups.registered.indexes[atom.rel];
        let index = match known.iter().position(|m| *m == mask) {
            Some(k) => k,
            None => {
                known.push(mask.clone());
                known.len() - 1
            }
        };
        let index = Literal::usize_unsuffixed(index);
        let key = atom.args.iter().zip(&mask).map(|(a, &m)| match (a, m) {
            (Pat::Ground(t), true) => {
                let id = lit(self.domains.id(*t));
                quote! { #id }
            }
            (Pat::Var(v), true) => {
                let var = Self::var(*v);
                quote! { #var }
            }
            _ => quote! { 0 },
        });
        let cursor = format_ident!("n{i}");
        // Index chains run from the newest fact to the oldest.
        let stop = if delta {
            quote! { if (#cursor as usize) < lo { break #label; } }
        } else {
            TokenStream::new()
        };
        quote! {
            let mut #cursor = self.#field.first(#index, &[#(#key),*]);
            #label: while #cursor != END {
                #stop
                let row = self.#field.get(#cursor as usize);
                #cursor = self.#field.next(#index, #cursor);
                #matching
                #inner
            }
        }
    }

    /// Whether the head or a membership test after step `i` has argument
    /// `term` (and so could use its id, see [`RuleGen::tuple`]).
    fn named_after(&self, i: usize, term: &Pat) -> bool {
        let rule = &self.program.rules[self.plan.rule];
        let member = self.plan.steps[i + 1..].iter().filter_map(|s| match s {
            Step::Member { atom, .. } => Some(atom),
            _ => None,
        });
        std::iter::once(&rule.head)
            .chain(member)
            .any(|a| a.args.contains(term))
    }

    /// Matches a runtime term against a pattern, binding its free variables.
    fn match_arg(
        &mut self,
        rel: RelId,
        pos: usize,
        arg: &Pat,
        value: TokenStream,
        skip: &TokenStream,
    ) -> TokenStream {
        match arg {
            Pat::Func(..) if self.open_at(rel, pos) => self.match_open(arg, value, skip),
            Pat::Func(..) => self.match_compound(rel, pos, arg, value, skip),
            _ => self.match_scalar(arg, value, skip),
        }
    }

    /// Matches a runtime term against a constant or a variable, binding a
    /// free one.
    fn match_scalar(&mut self, arg: &Pat, value: TokenStream, skip: &TokenStream) -> TokenStream {
        match arg {
            Pat::Ground(t) => {
                let id = lit(self.domains.id(*t));
                quote! { if #value != #id { #skip } }
            }
            Pat::Var(v) if self.bound[*v] => {
                let var = Self::var(*v);
                quote! { if #value != #var { #skip } }
            }
            Pat::Var(v) => {
                self.bound[*v] = true;
                if self.uses[*v] == 1 {
                    return TokenStream::new();
                }
                let var = Self::var(*v);
                quote! { let #var = #value; }
            }
            Pat::Func(..) => unreachable!("compound terms are matched by match_compound"),
        }
    }

    /// Matches a runtime term at a closed argument against a compound
    /// pattern, with a table of the terms of its domain keyed by id.
    fn match_compound(
        &mut self,
        rel: RelId,
        pos: usize,
        arg: &Pat,
        value: TokenStream,
        skip: &TokenStream,
    ) -> TokenStream {
        let vars = arg.vars();
        let table = self.lookups.pattern_table(
            self.program,
            self.domains,
            self.plan,
            arg,
            PatternDomain::Arg(rel, pos),
            true,
        );
        let first = self.lookups.first_row(table, &[value]);
        let mut code = quote! {
            let Some(d) = #first else { #skip };
        };
        for (j, &v) in vars.iter().enumerate() {
            let col = Literal::usize_unsuffixed(j + 1);
            let var = Self::var(v);
            if self.bound[v] {
                code.extend(quote! { if d[#col] != #var { #skip } });
            } else if self.uses[v] > 1 {
                code.extend(quote! { let #var = d[#col]; });
            }
        }
        for v in vars {
            self.bound[v] = true;
        }
        code
    }

    /// The tuple of a fully bound atom: code building its compound
    /// arguments (leaving the candidate when one cannot exist) and the
    /// tuple expression.
    fn tuple(&mut self, atom: &Atom) -> (TokenStream, TokenStream) {
        let fail = self.fail();
        self.tuple_or(atom, fail)
    }

    /// As [`RuleGen::tuple`], running `missing` when a compound argument
    /// has no term.
    fn tuple_or(&mut self, atom: &Atom, missing: TokenStream) -> (TokenStream, TokenStream) {
        let (build, parts) = self.args_or(atom, missing);
        (build, quote! { [#(#parts),*] })
    }

    /// As [`RuleGen::tuple_or`], with the expression of each argument.
    fn args_or(&mut self, atom: &Atom, missing: TokenStream) -> (TokenStream, Vec<TokenStream>) {
        let mut build = TokenStream::new();
        let mut parts = Vec::new();
        for (k, arg) in atom.args.iter().enumerate() {
            parts.push(match arg {
                Pat::Ground(t) => {
                    let id = lit(self.domains.id(*t));
                    quote! { #id }
                }
                Pat::Var(v) => {
                    let var = Self::var(*v);
                    quote! { #var }
                }
                Pat::Func(..) if self.known.iter().any(|(p, _)| p == arg) => {
                    let (_, id) = self.known.iter().find(|(p, _)| p == arg).expect("known");
                    id.clone()
                }
                Pat::Func(..) if self.open_at(atom.rel, k) => self.build_open(arg, &mut build),
                Pat::Func(..) => {
                    let table = self.lookups.pattern_table(
                        self.program,
                        self.domains,
                        self.plan,
                        arg,
                        PatternDomain::Arg(atom.rel, k),
                        false,
                    );
                    let keys: Vec<TokenStream> = arg
                        .vars()
                        .into_iter()
                        .map(|v| {
                            let v = Self::var(v);
                            quote! { #v }
                        })
                        .collect();
                    let n = Literal::usize_unsuffixed(arg.vars().len());
                    let a = format_ident!("a{k}");
                    let first = self.lookups.first_row(table, &keys);
                    build.extend(quote! {
                        let Some(#a) = #first.map(|r| r[#n]) else { #missing };
                    });
                    quote! { #a }
                }
            });
        }
        (build, parts)
    }

    /// A boolean expression: the two (fully bound) patterns name different terms.
    fn ne(&mut self, a: &Pat, b: &Pat) -> TokenStream {
        match (a, b) {
            (Pat::Ground(x), Pat::Ground(y)) => {
                let d = x != y;
                quote! { #d }
            }
            (Pat::Ground(_) | Pat::Var(_), Pat::Ground(_) | Pat::Var(_)) => {
                let x = self.scalar(a);
                let y = self.scalar(b);
                quote! { #x != #y }
            }
            (Pat::Func(f, xs), Pat::Func(g, ys)) => {
                if f != g || xs.len() != ys.len() {
                    return quote! { true };
                }
                let parts: Vec<TokenStream> =
                    xs.iter().zip(ys).map(|(x, y)| self.ne(x, y)).collect();
                quote! { false #(|| (#parts))* }
            }
            (Pat::Ground(t), Pat::Func(g, ys)) | (Pat::Func(g, ys), Pat::Ground(t)) => {
                match self.program.store.data(*t).clone() {
                    TermData::Func(f, targs) if f == *g && targs.len() == ys.len() => {
                        let parts: Vec<TokenStream> = targs
                            .iter()
                            .zip(ys)
                            .map(|(&x, y)| self.ne(&Pat::Ground(x), y))
                            .collect();
                        quote! { false #(|| (#parts))* }
                    }
                    _ => quote! { true },
                }
            }
            (Pat::Var(v), p @ Pat::Func(..)) | (p @ Pat::Func(..), Pat::Var(v))
                if self.any_open() =>
            {
                let var = Self::var(*v);
                self.ne_open(quote! { #var }, p)
            }
            (Pat::Var(v), p @ Pat::Func(..)) | (p @ Pat::Func(..), Pat::Var(v)) => {
                let table = self.lookups.pattern_table(
                    self.program,
                    self.domains,
                    self.plan,
                    p,
                    PatternDomain::All,
                    true,
                );
                let name = format_ident!("T{table}");
                let var = Self::var(*v);
                let checks = p.vars().into_iter().enumerate().map(|(j, w)| {
                    let col = Literal::usize_unsuffixed(j + 1);
                    let w = Self::var(w);
                    quote! { || d[#col] != #w }
                });
                quote! {
                    match find(&#name, &[#var]) {
                        None => true,
                        Some(d) => false #(#checks)*,
                    }
                }
            }
        }
    }

    /// The id of a constant or the variable holding it.
    fn scalar(&self, p: &Pat) -> TokenStream {
        match p {
            Pat::Ground(t) => {
                let id = lit(self.domains.id(*t));
                quote! { #id }
            }
            Pat::Var(v) => {
                let var = Self::var(*v);
                quote! { #var }
            }
            Pat::Func(..) => unreachable!("scalars are constants or variables"),
        }
    }
}

/// Occurrences of each variable in a rule.
fn variable_uses(rule: &crate::compile::program::Rule) -> Vec<usize> {
    let mut uses = vec![0; rule.vars.len()];
    let mut count = |p: &Pat| p.for_each_var(&mut |v| uses[v] += 1);
    rule.head.args.iter().for_each(&mut count);
    for lit in &rule.body {
        match lit {
            crate::compile::program::Lit::Pos(a) | crate::compile::program::Lit::Neg(a) => {
                a.args.iter().for_each(&mut count)
            }
            crate::compile::program::Lit::Distinct(x, y)
            | crate::compile::program::Lit::Same(x, y) => {
                count(x);
                count(y);
            }
        }
    }
    uses
}

/// The label of the loop of step `i`.
fn syn_label(i: usize) -> TokenStream {
    let l = syn::Lifetime::new(&format!("'l{i}"), Span::call_site());
    quote! { #l }
}
