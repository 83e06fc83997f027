//! The heads streamed into the next state (`RuleGen::next_bits`): the
//! fluent a head sets, and frame rules as edits
//! (`compile::relational::edits`): from the step walking the fluents a
//! frame rule keeps, one copy of their words into the next state, less
//! the fluents its tests exclude.

use super::{Mode, RuleGen};
use crate::compile::emit::skeleton::lit;
use crate::compile::program::Pat;
use crate::compile::relational::edits;
use crate::compile::relational::plan::Table;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl RuleGen<'_> {
    /// From step `i` on, a frame rule's copy of the state
    /// ([`edits::frame_copy`]): the fluents each test excludes for the
    /// bound key (none passes where the key has no row), then the copy.
    pub(super) fn frame_copy(&mut self, i: usize) -> Option<TokenStream> {
        // Tested at every step of every plan: the tables of the excluded
        // fluents are built only at the step the copy would start from.
        if self.mode != Mode::Derive || edits::copied_step(self.program, self.plan) != Some(i) {
            return None;
        }
        let tables = &*self.lookups.tables;
        let copy = edits::frame_copy(self.program, self.plan, tables, self.next_bits)?;
        let name = format_ident!("T{}", copy.table);
        let last = lit(tables.tables[copy.table].columns as u32 - 1);
        let fail = self.fail();
        let mut lists = Vec::new();
        let mut lookups = Vec::new();
        for (k, excluded) in copy.excluded.iter().enumerate() {
            let table = self.lookups.tables.add(Table {
                columns: excluded.key.len() + excluded.width,
                rows: excluded.rows.clone(),
                fluent_key: None,
            });
            let keys: Vec<TokenStream> = (excluded.key.iter())
                .map(|&v| {
                    let v = Self::var(v);
                    quote! { #v }
                })
                .collect();
            let row = self.lookups.first_row(table, &keys);
            let (list, from) = (format_ident!("excluded{k}"), lit(excluded.key.len() as u32));
            lookups.push(quote! { let Some(#list) = #row else { #fail }; });
            lists.push(quote! { &#list[#from..] });
        }
        Some(quote! {
            #(#lookups)*
            let rows = range(&#name, &[]);
            let base = first_column(rows, #last);
            ::gdl_runtime::support::copy_fluents_except(
                &self.current.0,
                &mut self.next_fluents.0,
                base,
                base + rows.len() as u32,
                &[#(#lists),*],
            );
        })
    }

    /// The code building the fluent id of a streamed `next` head
    /// ([`RuleGen::next_bits`]), which it leaves in `f`; `None` for a
    /// ground head that is no possible fluent (the relaxed evaluation found
    /// that the rule never fires; its constant id would index past the
    /// state's words).
    pub(super) fn next_fluent(&mut self) -> Option<TokenStream> {
        let head = &self.program.rules[self.plan.rule].head;
        if let Pat::Ground(t) = head.args[0] {
            if self.domains.id(t) as usize >= self.domains.fluents {
                return None;
            }
        }
        let fail = self.fail();
        let (build, parts) = self.args_or(head, fail);
        let f = &parts[0];
        Some(quote! { #build let f = #f; })
    }
}
