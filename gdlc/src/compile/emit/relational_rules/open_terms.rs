//! The code of a rule's open arguments (see `analyse::open`): their
//! compound terms are taken apart and built at run time, through the
//! compiler's terms of each shape first (so a term keeps its compile-time
//! id) and the reasoner's `OpenTerms` for the rest.

use super::RuleGen;
use crate::compile::emit::skeleton::lit;
use crate::compile::program::{Pat, RelId};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl RuleGen<'_> {
    /// Whether argument `pos` of relation `rel` is open.
    pub(super) fn open_at(&self, rel: RelId, pos: usize) -> bool {
        self.domains.open[rel][pos]
    }

    /// Whether some argument of the program is open: then any variable
    /// may hold a term built at run time.
    pub(super) fn any_open(&self) -> bool {
        self.domains.open.iter().flatten().any(|&o| o)
    }

    /// A new name for a term's arguments.
    fn fresh(&mut self) -> Ident {
        self.fresh += 1;
        format_ident!("o{}", self.fresh)
    }

    /// The shape table of `pat`'s functor and its arity, functor and
    /// number of columns as literals.
    fn shape(&mut self, pat: &Pat, by_id: bool) -> (Ident, Literal, Literal, Literal) {
        let Pat::Func(sym, args) = pat else {
            unreachable!("only compound terms have a shape")
        };
        let table = self
            .lookups
            .shape_table(self.program, self.domains, *sym, args.len(), by_id);
        (
            format_ident!("T{table}"),
            Literal::usize_unsuffixed(args.len()),
            Literal::usize_unsuffixed(args.len() + 1),
            lit(*sym),
        )
    }

    /// Matches `value`, a term at an open argument, against the compound
    /// `pat`, level by level, binding its free variables.
    pub(super) fn match_open(
        &mut self,
        pat: &Pat,
        value: TokenStream,
        skip: &TokenStream,
    ) -> TokenStream {
        let (table, arity, columns, functor) = self.shape(pat, true);
        let d = self.fresh();
        let mut code = quote! {
            let Some(#d) = term_args::<#arity, #columns, _>(&#table, &self.terms, #value, #functor)
            else { #skip };
        };
        let Pat::Func(_, args) = pat else {
            unreachable!("shape checked it")
        };
        for (j, child) in args.iter().enumerate() {
            let j = Literal::usize_unsuffixed(j);
            let value = quote! { #d[#j] };
            code.extend(match child {
                Pat::Func(..) => self.match_open(child, value, skip),
                _ => self.match_scalar(child, value, skip),
            });
        }
        code
    }

    /// The id of `pat` (its variables bound) at an open argument, built
    /// if new: statements appended to `build`, and the expression.
    pub(super) fn build_open(&mut self, pat: &Pat, build: &mut TokenStream) -> TokenStream {
        match pat {
            Pat::Ground(_) | Pat::Var(_) => self.scalar(pat),
            Pat::Func(_, args) => {
                let parts: Vec<TokenStream> =
                    args.iter().map(|a| self.build_open(a, build)).collect();
                let (table, _, _, functor) = self.shape(pat, false);
                let b = self.fresh();
                build.extend(quote! {
                    let #b = build_term(&#table, &mut self.terms, #functor, &[#(#parts),*]);
                });
                quote! { #b }
            }
        }
    }

    /// A boolean expression: `value`, a term that may have been built at
    /// run time, differs from `pat` (its variables bound).
    pub(super) fn ne_open(&mut self, value: TokenStream, pat: &Pat) -> TokenStream {
        match pat {
            Pat::Ground(_) | Pat::Var(_) => {
                let other = self.scalar(pat);
                quote! { #value != #other }
            }
            Pat::Func(_, args) => {
                let (table, arity, columns, functor) = self.shape(pat, true);
                let d = self.fresh();
                let parts: Vec<TokenStream> = (args.iter().enumerate())
                    .map(|(j, a)| {
                        let j = Literal::usize_unsuffixed(j);
                        self.ne_open(quote! { #d[#j] }, a)
                    })
                    .collect();
                quote! {
                    match term_args::<#arity, #columns, _>(&#table, &self.terms, #value, #functor) {
                        None => true,
                        Some(#d) => false #(|| (#parts))*,
                    }
                }
            }
        }
    }
}
