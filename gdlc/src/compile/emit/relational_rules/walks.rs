//! The walks of the reach relations answered by loops (the demand
//! strategy, `compile::demand::walks`): the loops in the rules, each
//! reading the next square from its walk's ray table
//! (`compile::demand::rays`) or, for a walk without one, calling a
//! function that finds it from a square.

use super::{asks, board_field, syn_label, Mode, RuleGen, RulesInput};
use crate::compile::demand::rays::RayTable;
use crate::compile::emit::table_lookups::{Registered, TableLookups};
use crate::compile::program::{Atom, RelId};
use crate::compile::relational::plan::{Step, Tables, Walk};
use crate::ir::written_name;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// The step functions of the walks the rules take: per walked relation
/// and direction some step takes, unless the walk reads the next square
/// from its ray table, `walk_<r>_forward(t)` (or `_backward`),
/// the square after (before) the square and kept arguments `t`: the first
/// witness of the walk's step rules (`walk_<r>_forward_rule_<i>`, each
/// planned with those bound), or `None`.
pub(super) fn step_fns(
    input: &RulesInput<'_>,
    layer_of: &[Option<usize>],
    tables: &mut Tables,
    registered: &mut Registered,
) -> Vec<TokenStream> {
    let RulesInput { program, plans, .. } = *input;
    let mut taken: Vec<(RelId, Walk, bool)> = plans
        .iter()
        .flat_map(|p| &p.steps)
        .filter_map(|s| match s {
            Step::Walk {
                atom,
                walk,
                forward,
            } => Some((atom.rel, *walk, *forward)),
            _ => None,
        })
        .collect();
    taken.sort_by_key(|&(r, _, forward)| (r, !forward));
    taken.dedup_by_key(|&mut (r, _, forward)| (r, forward));
    let mut fns = Vec::new();
    for (r, walk, forward) in taken {
        let mut lookups = TableLookups { tables, registered };
        if lookups
            .ray_table(program, input.domains, input.boards, &walk, forward)
            .is_some()
        {
            continue;
        }
        let (inputs, outputs) = walk.positions(forward);
        let (n_in, n_out) = (len(inputs.len()), len(outputs.len()));
        let name = step_fn(r, forward);
        let mut tries = Vec::new();
        let rules = plans.iter().filter(|p| {
            program.rules[p.rule].head.rel == walk.step && p.walk_step == Some(forward)
        });
        for plan in rules {
            let lookups = TableLookups { tables, registered };
            let mode = Mode::Step { walk, forward };
            let body = asks::given_body(input, layer_of, lookups, plan, mode, &inputs);
            let rule_fn = format_ident!("{name}_rule_{}", plan.rule);
            let doc = format!(" {}", program.rules[plan.rule].text);
            fns.push(quote! {
                #[doc = #doc]
                fn #rule_fn(&mut self, t: [u32; #n_in]) -> Option<[u32; #n_out]> {
                    #body
                    None
                }
            });
            tries.push(quote! {
                if let Some(square) = self.#rule_fn(t) {
                    return Some(square);
                }
            });
        }
        let doc = format!(
            " The square {} the square and kept arguments `t` along `{}`, if any.",
            if forward { "after" } else { "before" },
            written_name(&program.relations[r].name)
        );
        fns.push(quote! {
            #[doc = #doc]
            fn #name(&mut self, t: [u32; #n_in]) -> Option<[u32; #n_out]> {
                #(#tries)*
                None
            }
        });
    }
    fns
}

/// The name of the step function of walk `r` in a direction.
fn step_fn(r: RelId, forward: bool) -> Ident {
    let direction = if forward { "forward" } else { "backward" };
    format_ident!("walk_{r}_{direction}")
}

/// An unsuffixed `usize` literal.
fn len(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

impl RuleGen<'_> {
    /// The step function's answer: the head's outputs (variables, bound
    /// by now).
    pub(super) fn step_output(&self) -> TokenStream {
        let Mode::Step { walk, forward } = self.mode else {
            unreachable!("only a walk's step rule has outputs")
        };
        let head = &self.program.rules[self.plan.rule].head;
        let (_, outputs) = walk.positions(forward);
        let values = outputs.iter().map(|&k| self.scalar(&head.args[k]));
        quote! { return Some([#(#values),*]); }
    }

    /// The loop of step `i`, over the squares the walk `walk` of `atom`
    /// reaches from its bound end (forward from the start, else backward
    /// from the end), that end first, each matched against the other end.
    pub(super) fn walk(
        &mut self,
        i: usize,
        atom: &Atom,
        walk: &Walk,
        forward: bool,
    ) -> TokenStream {
        self.calls += 1;
        let (inputs, outputs) = walk.positions(forward);
        let label = syn_label(i);
        let square = format_ident!("square{i}");
        let started = format_ident!("started{i}");
        let f = step_fn(atom.rel, forward);
        let start: Vec<TokenStream> = (inputs[..walk.changing].iter())
            .map(|&k| self.scalar(&atom.args[k]))
            .collect();
        let kept: Vec<TokenStream> = (inputs[walk.changing..].iter())
            .map(|&k| self.scalar(&atom.args[k]))
            .collect();
        let args: Vec<TokenStream> = (0..walk.changing)
            .map(|j| {
                let j = len(j);
                quote! { #square[#j] }
            })
            .chain(kept)
            .collect();
        let fail = quote! { break #label; };
        let ray = (self.lookups).ray_table(self.program, self.domains, self.boards, walk, forward);
        let step = match ray {
            Some((ray, table)) => {
                let (step, next) = ray_step(&mut self.lookups, &ray, table, &args, &fail);
                quote! {
                    #step
                    #square = [#(#next),*];
                }
            }
            None => quote! {
                match self.#f([#(#args),*]) {
                    Some(next) => #square = next,
                    None => break #label,
                }
            },
        };
        let skip = quote! { continue #label; };
        let mut matching = TokenStream::new();
        for (j, &k) in outputs.iter().enumerate() {
            let j = len(j);
            let value = quote! { #square[#j] };
            matching.extend(self.match_arg(atom.rel, k, &atom.args[k], value, &skip));
        }
        self.loops.push(label.clone());
        let inner = self.steps(i + 1);
        self.loops.pop();
        quote! {
            let mut #square = [#(#start),*];
            let mut #started = false;
            #label: loop {
                if #started {
                    #step
                }
                #started = true;
                #matching
                #inner
            }
        }
    }
}

/// One step read from a walk's ray table (`table`): the row of the
/// square, then the first rule whose tests and comparisons of the kept
/// arguments hold; `fail` where none does. `inputs` are the step's inputs
/// (the square, then the kept arguments). Its statements, and the next
/// square's values.
fn ray_step(
    lookups: &mut TableLookups<'_>,
    ray: &RayTable,
    table: usize,
    inputs: &[TokenStream],
    fail: &TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let keys: Vec<TokenStream> = ray.key.iter().map(|&j| inputs[j].clone()).collect();
    let row = lookups.first_row(table, &keys);
    let rules = (ray.sections.iter().enumerate()).map(|(i, section)| {
        let at = ray.offset(i);
        let (from, to) = (len(at), len(at + section.tests));
        let tests = (section.tests > 0).then(|| match section.board {
            Some(b) => {
                let board = board_field(b);
                quote! { ::gdl_runtime::support::board_tests(&self.#board, &row[#from..#to]) }
            }
            None => {
                quote! { ::gdl_runtime::support::fluent_tests(&self.current.0, &row[#from..#to]) }
            }
        });
        let equal = section.equal.iter().enumerate().map(|(e, &j)| {
            let (input, value) = (&inputs[j], len(at + section.tests + e));
            quote! { #input == row[#value] }
        });
        let conditions: Vec<TokenStream> = tests.into_iter().chain(equal).collect();
        if conditions.is_empty() {
            quote! { true }
        } else {
            quote! { (#(#conditions)&&*) }
        }
    });
    let outputs = (ray.key.len()..ray.key.len() + ray.outputs)
        .map(|c| {
            let c = len(c);
            quote! { row[#c] }
        })
        .collect();
    let code = quote! {
        let Some(row) = #row else {
            #fail
        };
        if !(#(#rules)||*) {
            #fail
        }
    };
    (code, outputs)
}
