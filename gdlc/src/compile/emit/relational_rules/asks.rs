//! The searches of the relations answered top-down (the demand strategy):
//! per asked relation a function trying its rules for a first witness,
//! and the calls of it in the rules' loops.

use super::{Mode, RuleGen, RulesInput};
use crate::compile::emit::relational_layers::memo_field;
use crate::compile::emit::table_lookups::{Registered, TableLookups};
use crate::compile::program::Atom;
use crate::compile::relational::plan::{RulePlan, Tables};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The searches of the asked relations: per relation `ask_<r>(t)`, whether
/// the fact of arguments `t` holds, trying the rules in turn; per rule
/// `ask_<r>_rule_<i>(t)`, the rule's head matched against `t` and its plan
/// (planned with the head's variables bound) run until a first witness.
pub(super) fn ask_fns(
    input: &RulesInput<'_>,
    layer_of: &[Option<usize>],
    tables: &mut Tables,
    registered: &mut Registered,
) -> Vec<TokenStream> {
    let RulesInput {
        program,
        plans,
        top_down,
        ..
    } = *input;
    let mut fns = Vec::new();
    for r in (0..program.relations.len()).filter(|&r| top_down.asked[r]) {
        let arity = Literal::usize_unsuffixed(program.relations[r].arity);
        let mut tries = Vec::new();
        for plan in plans.iter().filter(|p| program.rules[p.rule].head.rel == r) {
            let lookups = TableLookups { tables, registered };
            let positions: Vec<usize> = (0..program.relations[r].arity).collect();
            let body = given_body(input, layer_of, lookups, plan, Mode::Ask, &positions);
            let name = format_ident!("ask_{}_rule_{}", r, plan.rule);
            let doc = format!(" {}", program.rules[plan.rule].text);
            fns.push(quote! {
                #[doc = #doc]
                fn #name(&mut self, t: [u32; #arity]) -> bool {
                    #body
                    false
                }
            });
            tries.push(quote! { self.#name(t) });
        }
        let name = format_ident!("ask_{}", r);
        let doc = format!(
            " Whether `({} ...)` holds of the arguments `t`.",
            program.relations[r].name
        );
        let tries = if tries.is_empty() {
            quote! { false }
        } else {
            quote! { #(#tries)||* }
        };
        let memo = memo_field(r);
        let body = match top_down.remembered[r] {
            true => quote! {
                if let Some(answer) = self.#memo.get(&t) {
                    return answer;
                }
                let answer = #tries;
                self.#memo.insert(t, answer);
                answer
            },
            false => tries,
        };
        fns.push(quote! {
            #[doc = #doc]
            fn #name(&mut self, t: [u32; #arity]) -> bool {
                #body
            }
        });
    }
    fns
}

/// The body of a function answering for `plan` in `mode` (a question, or
/// a walk's step) from the arguments `t` given at the head's `positions`:
/// those matched against the head, then the plan's loops.
pub(super) fn given_body(
    input: &RulesInput<'_>,
    layer_of: &[Option<usize>],
    lookups: TableLookups<'_>,
    plan: &RulePlan,
    mode: Mode,
    positions: &[usize],
) -> TokenStream {
    let mut g = RuleGen::new(
        input.program,
        input.domains,
        input.boards,
        plan,
        lookups,
        layer_of,
    );
    g.mode = mode;
    let given = g.match_given(positions);
    let steps = g.steps(0);
    quote! { #given #steps }
}

impl RuleGen<'_> {
    /// Matches the arguments `t` given against the rule's head at
    /// `positions` (`t[j]` at `positions[j]`), binding its variables.
    pub(super) fn match_given(&mut self, positions: &[usize]) -> TokenStream {
        let head = &self.program.rules[self.plan.rule].head;
        let skip = self.fail();
        let mut code = TokenStream::new();
        for (j, &k) in positions.iter().enumerate() {
            let j = Literal::usize_unsuffixed(j);
            code.extend(self.match_arg(head.rel, k, &head.args[k], quote! { t[#j] }, &skip));
        }
        code
    }

    /// The search of a fully bound atom of an asked relation, leaving the
    /// candidate when it does not (with `negated`, does) find a witness.
    pub(super) fn ask_check(&mut self, atom: &Atom, negated: bool) -> TokenStream {
        self.calls += 1;
        let fail = self.fail();
        let f = format_ident!("ask_{}", atom.rel);
        if negated {
            let (build, tuple) = self.tuple_or(atom, quote! { break 'neg; });
            quote! {
                'neg: {
                    #build
                    if self.#f(#tuple) { #fail }
                }
            }
        } else {
            let (build, tuple) = self.tuple(atom);
            quote! {
                #build
                if !self.#f(#tuple) { #fail }
            }
        }
    }
}
