//! The code of a plan step that reads a square of a board
//! ([`crate::compile::relational::board_reads`]): the square found by its
//! coordinates' runtime ids and its contents read as one word of the
//! board. With the content bound (or a constant) the step tests one bit
//! of the word; with it free, it loops over the word's bits.

use super::{board_field, syn_label, RuleGen, TableStep};
use crate::compile::emit::skeleton::lit;
use crate::compile::program::Pat;
use crate::compile::relational::board_reads::BoardRead;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl RuleGen<'_> {
    /// The code of step `s`, the board read `read`.
    pub(super) fn board_step(&mut self, s: &TableStep<'_>, read: &BoardRead<'_>) -> TokenStream {
        let b = read.board;
        let board = &self.boards.boards[b];
        let lookup = board.lookup.as_ref().expect("a board read has a lookup");
        let keys: Vec<TokenStream> = (read.coordinates.iter()).map(|a| self.scalar(a)).collect();
        let (field, squares) = (board_field(b), format_ident!("SQUARES_{b}"));
        let mins = lookup.mins.iter().map(|&m| lit(m));
        let spans = lookup.spans.iter().map(|&m| lit(m));
        let cell = quote! {
            board_cell(&self.#field, &#squares, &[#(#mins),*], &[#(#spans),*], &[#(#keys),*])
        };
        self.lookups.registered.plan_boards.insert(b);
        match read.content {
            Pat::Var(v) if read.binds => self.content_loop(s.i, b, *v, cell),
            Pat::Ground(t) => {
                let c = board.contents.iter().position(|c| c == t);
                let bit = lit(c.map_or(0, |c| 1u32 << c));
                self.content_test(s, quote! { #cell & #bit })
            }
            content => {
                let bits = format_ident!("CONTENT_BITS_{b}");
                let min = lit(lookup.content_min);
                let value = self.scalar(content);
                self.content_test(s, quote! { #cell & content_bit(&#bits, #min, #value) })
            }
        }
    }

    /// The test of step `s` that `held` (the content's bit of the square)
    /// is set, or with `negated` is not, then the rest.
    fn content_test(&mut self, s: &TableStep<'_>, held: TokenStream) -> TokenStream {
        let fails = if s.negated {
            quote! { #held != 0 }
        } else {
            quote! { #held == 0 }
        };
        self.test_then_rest(s.i, fails)
    }

    /// The loop of step `i` over the contents on the square `cell` (the
    /// word of board `b`), binding variable `v` to each.
    fn content_loop(&mut self, i: usize, b: usize, v: usize, cell: TokenStream) -> TokenStream {
        let label = syn_label(i);
        let contents = format_ident!("CONTENTS_{b}");
        let var = Self::var(v);
        self.bound[v] = true;
        self.loops.push(label.clone());
        let inner = self.steps(i + 1);
        self.loops.pop();
        quote! {
            #label: for c in bits(#cell) {
                let #var = #contents[c];
                #inner
            }
        }
    }
}
