//! The rows of a table step and how a loop over the state's set bits
//! visits them.

use crate::compile::emit::skeleton::lit;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// The rows of a table step for its keys, and how a walk over the set
/// bits of the state visits them: with a walk, the rows' fluents are the
/// ids `base + stride * j`, `j < len`, and the set bits between are
/// skipped.
pub(super) struct TableRows {
    /// The rows (a slice expression).
    pub(super) rows: TokenStream,
    /// The last column (the fluent's).
    pub(super) last: Literal,
    /// The stride of the walk, if the step walks the state.
    pub(super) walk: Option<u32>,
    /// The variable holding the rows, for a walk.
    pub(super) rows_var: Ident,
    /// Statements naming the rows (`rows<i>`) and their first fluent
    /// (`base<i>`), for a walk.
    pub(super) walk_rows: TokenStream,
    /// The arguments of `ones` and `any_one`: the state and the range of
    /// the rows' fluents.
    pub(super) state_range: TokenStream,
    /// The range of the rows' fluents alone.
    pub(super) bounds: TokenStream,
    /// With a stride above one: the test that set bit `f` is a row's
    /// fluent.
    pub(super) on_stride: Option<TokenStream>,
    /// The index of the row of set bit `f`.
    pub(super) row_of: TokenStream,
}

impl TableRows {
    /// The rows `rows` of step `i` over a table of `columns` columns,
    /// walked with stride `walk` if any.
    pub(super) fn new(i: usize, rows: TokenStream, columns: usize, walk: Option<u32>) -> Self {
        let last = Literal::usize_unsuffixed(columns.saturating_sub(1));
        let rows_var = format_ident!("rows{i}");
        let base = format_ident!("base{i}");
        let walk_rows = quote! {
            let #rows_var = #rows;
            let #base = first_column(#rows_var, #last);
        };
        let stride = walk.unwrap_or(1);
        let bounds = if stride == 1 {
            quote! { #base, #base + #rows_var.len() as u32 }
        } else {
            let s = lit(stride);
            let gap = lit(stride - 1);
            quote! { #base, #base + (#rows_var.len() as u32 * #s).saturating_sub(#gap) }
        };
        let state_range = quote! { &self.current.0, #bounds };
        let on_stride = (stride > 1).then(|| {
            let s = lit(stride);
            quote! { (f - #base) % #s == 0 }
        });
        let row_of = match &on_stride {
            None => quote! { (f - #base) as usize },
            Some(_) => {
                let s = lit(stride);
                quote! { ((f - #base) / #s) as usize }
            }
        };
        TableRows {
            rows,
            last,
            walk,
            rows_var,
            walk_rows,
            state_range,
            bounds,
            on_stride,
            row_of,
        }
    }
}
