//! The code of a step over a constant table (a membership test, a test
//! that a row exists, a loop over the rows), its rows, and how a loop over
//! the state's set bits visits them.

use super::{syn_label, RuleGen, TableStep};
use crate::compile::emit::skeleton::lit;
use crate::compile::emit::table_lookups::MAX_OFFSETS;
use crate::compile::program::Pat;
use crate::compile::relational::board_reads::board_read;
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

impl RuleGen<'_> {
    /// A step over a constant table: a membership test, a test that a row
    /// exists, or a loop over the rows that binds their columns.
    pub(super) fn table_step(&mut self, s: &TableStep<'_>) -> TokenStream {
        let step = &self.plan.steps[s.i];
        if let Some(read) = board_read(self.boards, step) {
            return self.board_step(s, &read);
        }
        let keys: Vec<Ident> = s.key.iter().map(|&v| Self::var(v)).collect();
        if s.bind.is_empty() && !s.fluent {
            if let Some(code) = self.membership_step(s, &keys) {
                return code;
            }
        }
        let rows = self.key_rows(s.table, &keys);
        let walk = self
            .lookups
            .tables
            .walk_stride(s.table, s.key.len())
            .filter(|_| s.fluent);
        let rows = TableRows::new(s.i, rows, self.lookups.tables.tables[s.table].columns, walk);
        if s.bind.is_empty() {
            return self.table_exists_step(s, &rows);
        }
        self.table_loop(s, rows)
    }

    /// The test that the keys of a step without bindings nor fluent are
    /// a row of its table, by its membership bitset if it has one.
    fn membership_step(&mut self, s: &TableStep<'_>, keys: &[Ident]) -> Option<TokenStream> {
        let (table, k) = (s.table, s.key.len());
        let m = self.lookups.membership(table, k)?;
        let mins: Vec<Literal> = m.mins.iter().map(|&v| lit(v)).collect();
        let starts: Vec<Literal> = m.starts.iter().map(|&v| lit(v)).collect();
        let sizes: Vec<Literal> = m.sizes.iter().map(|&v| lit(v)).collect();
        let (bits, ranks) = (format_ident!("M{table}_{k}"), format_ident!("R{table}_{k}"));
        let exists = quote! {
            ranked_member(&#bits, &#ranks, &[#(#mins),*], &[#(#starts),*], &[#(#sizes),*], &[#(#keys),*])
        };
        let test = if s.negated {
            exists
        } else {
            quote! { !(#exists) }
        };
        let fail = self.fail();
        let inner = self.steps(s.i + 1);
        Some(quote! { if #test { #fail } #inner })
    }

    /// An expression: the rows of table `table` whose first columns are
    /// `keys` (a slice), through a direct index when it has one.
    fn key_rows(&mut self, table: usize, keys: &[Ident]) -> TokenStream {
        let name = format_ident!("T{table}");
        match self.lookups.offsets(table, keys.len(), MAX_OFFSETS) {
            Some((offsets, mins, spans)) => {
                let mins = mins.iter().map(|&m| lit(m));
                let spans = spans.iter().map(|&m| lit(m));
                quote! { boxed_range(&#name, &#offsets, &[#(#mins),*], &[#(#spans),*], &[#(#keys),*]) }
            }
            None => quote! { range(&#name, &[#(#keys),*]) },
        }
    }

    /// The test that a step without bindings has a row (with its fluent
    /// holding, for a fluent table).
    fn table_exists_step(&mut self, s: &TableStep<'_>, rows: &TableRows) -> TokenStream {
        let fail = self.fail();
        let TableRows {
            rows: expr,
            last,
            walk,
            walk_rows,
            state_range,
            on_stride,
            ..
        } = rows;
        let (setup, exists) = match (s.fluent, walk) {
            (true, Some(1)) => (walk_rows.clone(), quote! { any_one(#state_range) }),
            (true, Some(_)) => (
                walk_rows.clone(),
                quote! { ones(#state_range).any(|f| #on_stride) },
            ),
            (true, None) => (
                TokenStream::new(),
                quote! { any_held(#expr, #last, &self.current.0) },
            ),
            (false, _) => (TokenStream::new(), quote! { !#expr.is_empty() }),
        };
        let test = if s.negated {
            exists
        } else {
            quote! { !(#exists) }
        };
        let inner = self.steps(s.i + 1);
        quote! { #setup if #test { #fail } #inner }
    }

    /// The loop of a step with bindings over its rows (or, with a walk,
    /// over the set bits of the state among their fluents), binding the
    /// variables of the following columns and the fluent's id.
    fn table_loop(&mut self, s: &TableStep<'_>, rows: TableRows) -> TokenStream {
        let i = s.i;
        let last = &rows.last;
        let label = syn_label(i);
        let check = if s.fluent && rows.walk.is_none() {
            quote! { if !self.current.holds(row[#last]) { continue #label; } }
        } else {
            TokenStream::new()
        };
        let binds = s.bind.iter().enumerate().map(|(k, &v)| {
            let var = Self::var(v);
            let col = Literal::usize_unsuffixed(s.key.len() + k);
            quote! { let #var = row[#col]; }
        });
        let mut binds: Vec<TokenStream> = binds.collect();
        for &v in s.bind {
            self.bound[v] = true;
        }
        // The fluent's id, for a head or query that names the same term.
        let known = self.known.len();
        if let Some(term) = s.term.filter(|t| matches!(t, Pat::Func(..))) {
            let id = format_ident!("f{i}");
            binds.push(quote! { let #id = row[#last]; });
            self.known.push((term.clone(), quote! { #id }));
        }
        // Every fluent a stride-1 walk visits reaches the next step: its
        // layer is evaluated before the walk when the walk finds one, so
        // the walk need not borrow the reasoner anew for each fluent.
        let first_read = if rows.walk == Some(1) {
            self.ensure_read_at(i + 1)
        } else {
            TokenStream::new()
        };
        self.loops.push(label.clone());
        let (ensured, calls) = (self.ensured.len(), self.calls);
        let inner = self.steps(i + 1);
        let evaluates_layers = self.ensured.len() > ensured || self.calls > calls;
        self.loops.pop();
        self.known.truncate(known);
        let TableRows {
            rows,
            walk,
            walk_rows,
            state_range,
            bounds,
            on_stride,
            row_of,
            rows_var,
            ..
        } = rows;
        let first_read = if first_read.is_empty() {
            first_read
        } else {
            quote! { if any_one(#state_range) { #first_read } }
        };
        if walk.is_some() {
            let skip = on_stride.map(|on| quote! { if !(#on) { continue #label; } });
            if evaluates_layers {
                // A layer evaluated inside the walk borrows the whole
                // game: the walk finds each next fluent anew.
                let (from, end) = (format_ident!("from{i}"), format_ident!("end{i}"));
                return quote! {
                    #walk_rows
                    #first_read
                    let (mut #from, #end) = (#bounds);
                    #label: loop {
                        let f = next_one(&self.current.0, #from, #end);
                        if f >= #end {
                            break;
                        }
                        #from = f + 1;
                        #skip
                        let row = &#rows_var[#row_of];
                        #(#binds)*
                        #inner
                    }
                };
            }
            return quote! {
                #walk_rows
                #first_read
                #label: for f in ones(#state_range) {
                    #skip
                    let row = &#rows_var[#row_of];
                    #(#binds)*
                    #inner
                }
            };
        }
        quote! {
            #label: for row in #rows {
                #check
                #(#binds)*
                #inner
            }
        }
    }
}
