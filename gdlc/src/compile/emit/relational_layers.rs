//! The layers of a planned program as Rust for
//! [`crate::compile::emit::relational`]: which layers each phase evaluates
//! itself (the others are evaluated when a rule first reads them, see
//! `relational_rules`), each layer's function with its semi-naive rounds,
//! and how each rule takes part in them.

use crate::compile::analyse::layers::{Layer, Layers};
use crate::compile::program::{Class, Program, RelId};
use crate::compile::relational::containers::{self, Container};
use crate::compile::relational::plan::{RulePlan, Step};
use crate::ir::PHASES;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// The layer defining each relation (`None` for a relation no rule
/// derives: a static one, `true` or `does`).
pub fn layer_of(program: &Program, layers: &Layers) -> Vec<Option<usize>> {
    let mut of = vec![None; program.relations.len()];
    for (i, layer) in layers.layers.iter().enumerate() {
        for &r in &layer.members {
            of[r] = Some(i);
        }
    }
    of
}

/// The layers each phase evaluates itself, in order: those defining the
/// relations its answers read; every other layer is evaluated when a rule
/// first reads it (see `RuleGen::ensure`), so a relation that no rule
/// reaches in a state (chess's threat blockers when no king is in check)
/// is not derived there.
pub fn phase_roots(program: &Program, layers: &Layers) -> [Vec<usize>; PHASES] {
    let of = layer_of(program, layers);
    program.answers.clone().map(|roots| {
        let mut order: Vec<usize> = roots.iter().filter_map(|&r| of[r]).collect();
        order.sort_unstable();
        order.dedup();
        order
    })
}

/// The field of a relation's container.
pub fn rel_field(r: RelId) -> Ident {
    format_ident!("r{r}")
}

/// The type of each relation's container field, for the relations that
/// have one: the dynamic relations other than `true`, those answered by a
/// search (`excluded`) and those whose facts go straight into the next
/// state.
pub fn field_types(
    program: &Program,
    containers: &[Container],
    excluded: &[bool],
) -> Vec<Option<TokenStream>> {
    (0..program.relations.len())
        .map(|r| {
            let field = program.class[r] != Class::Static
                && r != program.true_rel
                && !excluded[r]
                && containers[r] != Container::NextBits;
            field.then(|| containers::type_tokens(&containers[r], program.relations[r].arity))
        })
        .collect()
}

/// The field of the answers an asked relation's search (`ask_<r>`) has
/// found for the current state and joint move.
pub fn memo_field(r: RelId) -> Ident {
    format_ident!("memo_{r}")
}

/// How a planned rule takes part in the fixpoint of its layer.
pub struct Recursion {
    /// The rule.
    pub rule: usize,
    /// Steps scanning a relation of the rule's layer, with that relation.
    pub deltas: Vec<(usize, RelId)>,
    /// Whether the rule reads a relation of its own layer.
    reads_members: bool,
    /// Whether it must run in full every round (a relation of its layer
    /// is only checked, not scanned, so no step can be restricted).
    full_each_round: bool,
}

impl Recursion {
    /// How `plan`'s rule takes part in the fixpoint of its `layer`: in a
    /// recursive layer, the steps that scan a relation of the layer get a
    /// variant restricted to the facts new in the last round.
    pub fn of(plan: &RulePlan, layer: &Layer) -> Self {
        let mut deltas = Vec::new();
        let mut reads_members = false;
        let mut full_each_round = false;
        if layer.recursive {
            for (i, step) in plan.steps.iter().enumerate() {
                match step {
                    Step::Scan(a) if layer.members.contains(&a.rel) => {
                        reads_members = true;
                        deltas.push((i, a.rel));
                    }
                    Step::Member { atom, .. } if layer.members.contains(&atom.rel) => {
                        reads_members = true;
                        full_each_round = true;
                    }
                    _ => {}
                }
            }
        }
        Recursion {
            rule: plan.rule,
            deltas,
            reads_members,
            full_each_round,
        }
    }
}

/// The functions of one layer: `layer_<i>`, evaluating every rule once;
/// for a recursive layer then, semi-naively, rounds in which each rule
/// that reads the layer runs once per scan of it, that scan restricted to
/// the facts new in the last round, until no relation of the layer grows;
/// and `ensure_layer_<i>`, evaluating it unless done for this state.
pub fn layer_fns(i: usize, layer: &Layer, recursion: &[Recursion]) -> TokenStream {
    let ensure = format_ident!("ensure_layer_{i}");
    let name = format_ident!("layer_{i}");
    let idx = Literal::usize_unsuffixed(i);
    let eval = layer_fn(&name, layer, recursion);
    quote! {
        #[inline]
        fn #ensure(&mut self) {
            if !self.done[#idx] {
                self.#name();
                self.done[#idx] = true;
            }
        }
        #eval
    }
}

/// The function `name` evaluating `layer` (see [`layer_fns`]).
fn layer_fn(name: &Ident, layer: &Layer, recursion: &[Recursion]) -> TokenStream {
    let rules: Vec<&Recursion> = layer
        .rules
        .iter()
        .filter_map(|r| recursion.iter().find(|x| x.rule == *r))
        .collect();
    let calls: Vec<TokenStream> = rules
        .iter()
        .map(|x| {
            let f = format_ident!("rule_{}", x.rule);
            quote! { self.#f(); }
        })
        .collect();
    // Out of line: a layer runs once per state, from wherever a rule
    // first reads it, and inlined there it would crowd the rule's loops.
    if !layer.recursive {
        return quote! {
            #[inline(never)]
            fn #name(&mut self) {
                #(#calls)*
            }
        };
    }
    let member = |r: RelId| layer.members.iter().position(|&m| m == r).expect("member");
    let mut round = Vec::new();
    for x in rules.iter().filter(|x| x.reads_members) {
        if x.full_each_round {
            let f = format_ident!("rule_{}", x.rule);
            round.push(quote! { self.#f(); });
            continue;
        }
        for &(step, rel) in &x.deltas {
            let f = format_ident!("rule_{}_delta_{step}", x.rule);
            let m = Literal::usize_unsuffixed(member(rel));
            round.push(quote! { self.#f(lo[#m]); });
        }
    }
    let sizes = layer.members.iter().map(|&r| {
        let f = rel_field(r);
        quote! { self.#f.len() }
    });
    let n = Literal::usize_unsuffixed(layer.members.len());
    quote! {
        #[inline(never)]
        fn #name(&mut self) {
            #(#calls)*
            let mut lo = [0usize; #n];
            loop {
                let hi = [#(#sizes),*];
                if hi == lo {
                    break;
                }
                #(#round)*
                lo = hi;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{generated_code, Strategy};

    /// The body of the generated function `name`, up to the next function.
    fn fn_code<'a>(code: &'a str, name: &str) -> &'a str {
        let start = code.find(&format!("fn {name}(")).expect("the function");
        let end = code[start + 3..]
            .find("    fn ")
            .map_or(code.len(), |e| start + 3 + e);
        &code[start..end]
    }

    /// `terminal` reads the recursive `open` only when `(true alarm)`
    /// holds; `open` is not read by any other keyword.
    const GAME: &str = "(role a)\n(init (at 1))\n(succ 1 2)\n(succ 2 3)\n(succ 3 4)\n\
        (<= (open ?x ?y) (succ ?x ?y) (not (true (wall ?y))))\n\
        (<= (open ?x ?z) (succ ?x ?y) (not (true (wall ?y))) (open ?y ?z))\n\
        (<= (legal a (go ?y)) (true (at ?x)) (succ ?x ?y))\n\
        (<= (next (at ?y)) (does a (go ?y)))\n\
        (<= (next alarm) (true (at 3)))\n\
        (<= terminal (true alarm) (open 1 4))\n\
        (<= terminal (true (at 4)))\n(goal a 100)\n";

    #[test]
    fn a_layer_is_evaluated_when_a_rule_first_reaches_it() {
        let code = generated_code(GAME, Strategy::Relational);
        let phase = fn_code(&code, "phase_terminal");
        assert_eq!(phase.matches("self.layer_").count(), 1, "{phase}");
        let rule = code
            .split("/// (<= terminal (true alarm) (open 1 4))\n")
            .nth(1)
            .expect("the rule's function");
        let rule = &rule[..rule.find("/// (<=").unwrap_or(rule.len())];
        let (before, after) = rule
            .split_once("self.ensure_layer_")
            .expect("evaluates `open` first");
        assert!(before.contains("self.current.holds("), "{rule}");
        assert!(after.contains(".contains(&["), "{rule}");
    }

    #[test]
    fn a_walk_whose_every_fluent_reads_a_layer_evaluates_it_before_the_walk() {
        let game = GAME.replace(
            "(<= (next alarm) (true (at 3)))",
            "(<= (next alarm) (true (at 3)))\n(init (mark 1))\n(init (mark 2))\n\
             (init (mark 3))\n(init (mark 4))\n\
             (<= (moved ?y) (does a (go ?y)))\n\
             (<= (next (mark ?x)) (true (mark ?x)) (not (moved ?x)))",
        );
        let code = generated_code(&game, Strategy::Relational);
        let rule = code
            .split("/// (<= (next (mark ?x)) (true (mark ?x)) (not (moved ?x)))\n")
            .nth(1)
            .expect("the rule's function");
        let rule = &rule[..rule.find("/// (<=").unwrap_or(rule.len())];
        let (before, walk) = rule.split_once("for f in ones(").expect("a walk");
        assert!(before.contains("if any_one("), "{rule}");
        assert!(before.contains("self.ensure_layer_"), "{rule}");
        assert!(!walk.contains("ensure_layer_"), "{rule}");
    }

    #[test]
    fn a_rule_reading_a_layer_twice_evaluates_it_once() {
        let game = GAME.replace(
            "(<= terminal (true alarm) (open 1 4))",
            "(<= terminal (true alarm) (open 1 4) (true (at ?x)) (open ?x 4))",
        );
        let code = generated_code(&game, Strategy::Relational);
        let rule = code
            .split("/// (<= terminal (true alarm) (open 1 4) (true (at ?x)) (open ?x 4))\n")
            .nth(1)
            .expect("the rule's function");
        let rule = &rule[..rule.find("/// (<=").unwrap_or(rule.len())];
        assert_eq!(rule.matches("self.ensure_layer_").count(), 1, "{rule}");
        let (_, reads) = rule.split_once("self.ensure_layer_").expect("ensured");
        assert_eq!(reads.matches(".contains(&[").count(), 2, "{rule}");
    }
}
