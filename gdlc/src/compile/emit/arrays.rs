//! Large constant arrays of the generated code, written as text, or, in a
//! module too large otherwise, as bytes in its data file.
//!
//! Building tokens for long arrays, parsing those into a syntax tree and
//! formatting it with `prettyplease` took most of the compile time of the
//! games with big tables (amazons has 87 000 term texts and two tables of
//! 87 000 rows). An array too long for one line stands in the tokens as a
//! placeholder name; [`Arrays::fill`] replaces each placeholder of the
//! formatted code by the array's text, laid out as `prettyplease` lays out
//! such an array (integers filled into lines, strings and rows one per
//! line), so the generated code is the same, only made faster. Short
//! arrays stay tokens.
//!
//! A module whose source would be over [`MAX_SOURCE`] is generated again
//! with its largest arrays ([`Arrays::to_store`]) not in the source at
//! all: their elements go to the module's data file, which the module
//! includes with `include_bytes!`, and their statics are `LazyLock`s that
//! decode them on first use ([`gdl_runtime::data`]). The source stays
//! small, and rustc neither parses nor type-checks those tables; smaller
//! modules keep every table an array in the source, where the optimizer
//! sees its length.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::fmt::Display;

/// The prefix of placeholder names; no GDL-derived name in generated code
/// starts with it.
const PLACEHOLDER: &str = "GDLC_ARRAY_";
/// `prettyplease`'s line width.
const MARGIN: usize = 89;
/// `prettyplease`'s indentation step.
const INDENT: usize = 4;
/// Arrays longer than this on one line are always broken by
/// `prettyplease` (it never fits within [`MARGIN`]); shorter ones stay
/// tokens, so that their layout is `prettyplease`'s own.
const LONG: usize = MARGIN + 1;
/// Rows longer than this stay tokens: `prettyplease` might break one
/// inside.
const LONGEST_ROW: usize = MARGIN - 2 * INDENT;
/// The largest source of a module with every array written out.
pub const MAX_SOURCE: usize = 1_000_000;
/// What the source of a larger module may keep: its largest arrays are
/// stored until the rest is at most this.
const STORED_DOWN_TO: usize = 500_000;
/// Arrays whose text is shorter than this stay in the source.
const MIN_STORED: usize = 4 << 10;

/// The arrays placed so far: texts by placeholder number, and the bytes of
/// those stored in the data file.
pub struct Arrays {
    placed: Vec<Placed>,
    /// The data file's name, relative to the module's source.
    data_file: String,
    /// The data file's content.
    data: Vec<u8>,
    /// Whether to store each array, by the order in which they are made
    /// (missing: no).
    store: Vec<bool>,
    /// The text length of each array made so far, `0` for one that cannot
    /// be stored.
    lengths: Vec<usize>,
}

/// One array's elements and how they are laid out.
struct Placed {
    /// Each element's text.
    elements: Vec<String>,
    /// Integers filled into lines (`true`) or one element per line.
    fill: bool,
}

/// An integer type of the generated arrays.
pub trait Int: Display + Copy {
    /// Its name in Rust.
    const TYPE: &'static str;
    /// Appends its little-endian bytes.
    fn push_le(self, out: &mut Vec<u8>);
}

macro_rules! int_type {
    ($($t:ty),*) => {$(
        impl Int for $t {
            const TYPE: &'static str = stringify!($t);
            fn push_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

int_type!(u16, u32, u64);

impl Arrays {
    /// No array placed yet; the data file, if one is needed, is
    /// `data_file` beside the module's source; `store` says which arrays
    /// go there, by the order in which they are made.
    pub fn new(data_file: &str, store: Vec<bool>) -> Self {
        Arrays {
            placed: Vec::new(),
            data_file: data_file.to_string(),
            data: Vec::new(),
            store,
            lengths: Vec::new(),
        }
    }

    /// Which arrays to store, by the order in which they were made, for a
    /// module whose source came out `source` bytes long with every array
    /// written out: none up to [`MAX_SOURCE`], else the longest (of
    /// [`MIN_STORED`] or more) until the rest is at most
    /// [`STORED_DOWN_TO`].
    pub fn to_store(&self, source: usize) -> Option<Vec<bool>> {
        if source <= MAX_SOURCE {
            return None;
        }
        let mut longest: Vec<usize> = (0..self.lengths.len()).collect();
        longest.sort_by_key(|&i| std::cmp::Reverse(self.lengths[i]));
        let mut store = vec![false; self.lengths.len()];
        let mut rest = source;
        for i in longest {
            if rest <= STORED_DOWN_TO || self.lengths[i] < MIN_STORED {
                break;
            }
            store[i] = true;
            rest -= self.lengths[i];
        }
        Some(store)
    }

    /// Whether the array made now is to be stored; records its text
    /// length (`storable`: whether it can be).
    fn storing(&mut self, elements: &[String], storable: bool) -> bool {
        let i = self.lengths.len();
        self.lengths
            .push(if storable { text_len(elements) } else { 0 });
        storable && self.store.get(i).copied().unwrap_or(false)
    }

    /// `static NAME: [T; LEN]` holding `values` (`len`: an expression
    /// worth their number).
    pub fn static_ints<T: Int>(
        &mut self,
        name: &Ident,
        len: &TokenStream,
        values: impl IntoIterator<Item = T>,
    ) -> TokenStream {
        let values: Vec<T> = values.into_iter().collect();
        let elements: Vec<String> = values.iter().map(ToString::to_string).collect();
        let ty: TokenStream = T::TYPE.parse().expect("a type");
        let ty = quote! { [#ty; #len] };
        if self.storing(&elements, true) {
            let start = self.data.len();
            values.iter().for_each(|v| v.push_le(&mut self.data));
            return self.stored(name, &ty, start, "decode");
        }
        let array = self.place(elements, true);
        quote! { static #name: #ty = #array; }
    }

    /// `static NAME: [&str; LEN]` holding `texts` (without newlines when
    /// long enough to be stored in the data file, which separates them by
    /// newlines).
    pub fn static_strings<S: AsRef<str>>(
        &mut self,
        name: &Ident,
        len: &TokenStream,
        texts: &[S],
    ) -> TokenStream {
        let elements: Vec<String> = texts
            .iter()
            .map(|t| Literal::string(t.as_ref()).to_string())
            .collect();
        let ty = quote! { [&str; #len] };
        let storable = texts.iter().all(|t| !t.as_ref().contains('\n'));
        if self.storing(&elements, storable) {
            let start = self.data.len();
            let joined: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
            self.data.extend_from_slice(joined.join("\n").as_bytes());
            return self.stored(name, &ty, start, "decode_texts");
        }
        let array = self.place(elements, false);
        quote! { static #name: #ty = #array; }
    }

    /// `static NAME: [[u32; COLUMNS]; N]` holding `rows`; never stored in
    /// the data file unless `storable` (a table read at every step of a
    /// hot loop stays an array the optimizer sees, without a `LazyLock`
    /// to pass on each read).
    pub fn static_rows(
        &mut self,
        name: &Ident,
        columns: usize,
        rows: &[Vec<u32>],
        storable: bool,
    ) -> TokenStream {
        let cols = Literal::usize_unsuffixed(columns);
        let n = Literal::usize_unsuffixed(rows.len());
        let ty = quote! { [[u32; #cols]; #n] };
        let elements: Vec<String> = rows.iter().map(|r| one_line(r)).collect();
        if self.storing(&elements, storable) {
            let start = self.data.len();
            rows.iter()
                .flatten()
                .for_each(|c| c.push_le(&mut self.data));
            return self.stored(name, &ty, start, "decode");
        }
        if elements.iter().any(|e| e.len() > LONGEST_ROW) {
            let rows = rows.iter().map(|r| {
                let cells = r.iter().map(|&c| Literal::u32_unsuffixed(c));
                quote! { [#(#cells),*] }
            });
            return quote! { static #name: #ty = [#(#rows),*]; };
        }
        let array = self.place(elements, false);
        quote! { static #name: #ty = #array; }
    }

    /// The static `name` of type `ty`, decoded on first use by
    /// `gdl_runtime::data::<decode>` from the data file's bytes since
    /// `start`.
    fn stored(
        &mut self,
        name: &Ident,
        ty: &TokenStream,
        start: usize,
        decode: &str,
    ) -> TokenStream {
        let (start, end) = (
            Literal::usize_unsuffixed(start),
            Literal::usize_unsuffixed(self.data.len()),
        );
        let decode = Ident::new(decode, Span::call_site());
        quote! {
            static #name: ::std::sync::LazyLock<Box<#ty>> = ::std::sync::LazyLock::new(|| {
                ::gdl_runtime::data::#decode(&TABLE_DATA[#start..#end])
            });
        }
    }

    /// `TABLE_DATA`, the data file's bytes, when some array is stored
    /// there.
    pub fn data_item(&self) -> TokenStream {
        if self.data.is_empty() {
            return TokenStream::new();
        }
        let file = Literal::string(&self.data_file);
        quote! {
            /// The bytes of the large constant tables (see `gdl_runtime::data`).
            static TABLE_DATA: &[u8] = include_bytes!(#file);
        }
    }

    /// The data file's content (empty: no data file).
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// A placeholder for `elements`, or the array itself when it is short.
    fn place(&mut self, elements: Vec<String>, fill: bool) -> TokenStream {
        if one_line(&elements).len() <= LONG {
            let text = one_line(&elements);
            return text.parse().expect("an array of literals parses");
        }
        let name = Ident::new(
            &format!("{PLACEHOLDER}{}", self.placed.len()),
            Span::call_site(),
        );
        self.placed.push(Placed { elements, fill });
        quote! { #name }
    }

    /// `code` (formatted) with every placeholder replaced by its array,
    /// indented from the placeholder's line.
    pub fn fill(&self, code: &str) -> String {
        let mut out = String::with_capacity(
            code.len()
                + self
                    .placed
                    .iter()
                    .map(|p| p.elements.iter().map(|e| e.len() + 2).sum::<usize>())
                    .sum::<usize>(),
        );
        let mut rest = code;
        while let Some(at) = rest.find(PLACEHOLDER) {
            let (before, after) = rest.split_at(at);
            out.push_str(before);
            let digits = after[PLACEHOLDER.len()..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            let number: usize = after[PLACEHOLDER.len()..PLACEHOLDER.len() + digits]
                .parse()
                .expect("placeholders are numbered");
            let line_start = out.rfind('\n').map_or(0, |i| i + 1);
            let indent = out[line_start..].len() - out[line_start..].trim_start().len();
            self.placed[number].write(indent, &mut out);
            rest = &after[PLACEHOLDER.len() + digits..];
        }
        out.push_str(rest);
        out
    }
}

impl Placed {
    /// Appends the array, its elements indented by `indent` + one step.
    fn write(&self, indent: usize, out: &mut String) {
        let inner = indent + INDENT;
        let width = MARGIN.saturating_sub(inner);
        out.push('[');
        let last = self.elements.len() - 1;
        if self.fill {
            // An inconsistent break before each element but the first: the
            // element (with its comma) goes on the line when it fits.
            let mut used = 0;
            for (i, e) in self.elements.iter().enumerate() {
                let comma = usize::from(i != last);
                if i == 0 || used + 1 + e.len() + comma > width {
                    out.push('\n');
                    push_spaces(out, inner);
                    used = 0;
                } else {
                    out.push(' ');
                    used += 1;
                }
                out.push_str(e);
                used += e.len() + comma;
                out.push(',');
            }
        } else {
            for e in &self.elements {
                out.push('\n');
                push_spaces(out, inner);
                out.push_str(e);
                out.push(',');
            }
        }
        out.push('\n');
        push_spaces(out, indent);
        out.push(']');
    }
}

/// Appends `n` spaces.
fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// The length of `[a, b, c]`.
fn text_len(elements: &[String]) -> usize {
    2 + elements.iter().map(|e| e.len() + 2).sum::<usize>()
}

/// `[a, b, c]`.
fn one_line<T: Display>(elements: &[T]) -> String {
    let mut s = String::from("[");
    for (i, e) in elements.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&e.to_string());
    }
    s.push(']');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formats `static A: T = <array>;` both ways: through `prettyplease`
    /// from tokens, and as placed by `item` and `fill`.
    fn both(ty: TokenStream, item: impl Fn(&mut Arrays) -> TokenStream, tokens: TokenStream) {
        let pretty = |t: TokenStream| prettyplease::unparse(&syn::parse2(t).expect("parses"));
        let reference = pretty(quote! { static A: #ty = #tokens; });
        let mut arrays = Arrays::new("t.bin", Vec::new());
        let placed = item(&mut arrays);
        let filled = arrays.fill(&pretty(placed));
        assert_eq!(filled, reference);
        assert!(arrays.into_data().is_empty());
    }

    fn a() -> Ident {
        Ident::new("A", Span::call_site())
    }

    #[test]
    fn arrays_are_laid_out_as_prettyplease_lays_them_out() {
        for n in [0u32, 3, 20, 31, 32, 33, 200, 1000] {
            let len = quote! { #n };
            let values: Vec<u64> = (0..n).map(|i| u64::from(i) * 7_919 % 1_000_003).collect();
            let lits = values.iter().map(|&v| Literal::u64_unsuffixed(v));
            both(
                quote! { [u64; #n] },
                |arrays| arrays.static_ints(&a(), &len, values.iter().copied()),
                quote! { [#(#lits),*] },
            );
            let texts: Vec<String> = (0..n).map(|i| format!("(cell {i} \"x\\ y\")")).collect();
            both(
                quote! { [&str; #n] },
                |arrays| arrays.static_strings(&a(), &len, &texts),
                quote! { [#(#texts),*] },
            );
            let rows: Vec<Vec<u32>> = (0..n).map(|i| vec![i, i * 1000, 7]).collect();
            let row_tokens = rows.iter().map(|r| {
                let cells = r.iter().map(|&c| Literal::u32_unsuffixed(c));
                quote! { [#(#cells),*] }
            });
            let n = Literal::usize_unsuffixed(n as usize);
            both(
                quote! { [[u32; 3]; #n] },
                |arrays| arrays.static_rows(&a(), 3, &rows, true),
                quote! { [#(#row_tokens),*] },
            );
        }
    }

    #[test]
    fn a_line_is_filled_to_the_margin_exactly() {
        // Elements whose lengths put a line's end on each side of the
        // margin, and a last element that just fits.
        for len in 1..12u32 {
            for n in [40u32, 41, 42, 43] {
                let values: Vec<u64> = (0..n).map(|i| 10u64.pow(len % 6) + u64::from(i)).collect();
                let lits = values.iter().map(|&v| Literal::u64_unsuffixed(v));
                both(
                    quote! { [u64; #n] },
                    |arrays| arrays.static_ints(&a(), &quote! { #n }, values.iter().copied()),
                    quote! { [#(#lits),*] },
                );
            }
        }
    }

    #[test]
    fn a_large_module_stores_its_longest_arrays() {
        let mut arrays = Arrays::new("t.bin", Vec::new());
        for n in [10u32, 200_000, 500, 100_000, 3_000] {
            let _ = arrays.static_ints(&a(), &quote! { N }, 0..n);
        }
        let [tiny, most, small, much, some] = arrays.lengths[..] else {
            panic!("five arrays");
        };
        assert!(tiny < MIN_STORED && small < MIN_STORED && some > MIN_STORED);
        assert_eq!(arrays.to_store(MAX_SOURCE), None);
        let code = most + much + 50_000;
        assert_eq!(
            arrays.to_store(code),
            Some(vec![false, true, false, true, false])
        );
        let store = arrays.to_store(most + STORED_DOWN_TO);
        assert_eq!(store, Some(vec![false, true, false, false, false]));
    }

    #[test]
    fn stored_arrays_are_in_the_data_file_one_after_the_other() {
        let mut arrays = Arrays::new("game.tables.bin", vec![false, true, true]);
        let short = arrays.static_ints(&a(), &quote! { 2 }, [1u32, 2]);
        assert_eq!(
            short.to_string(),
            quote! { static A: [u32; 2] = [1, 2]; }.to_string()
        );
        let values: Vec<u16> = (0..20_000).collect();
        let ints = arrays.static_ints(&a(), &quote! { N }, values.iter().copied());
        let texts: Vec<String> = (0..5_000).map(|i| format!("(cell {i})")).collect();
        let strings = arrays.static_strings(&a(), &quote! { 5000 }, &texts);
        let code = quote! { #ints #strings }.to_string();
        assert!(code.contains("LazyLock < Box < [u16 ; N] >"), "{code}");
        assert!(
            code.contains("decode (& TABLE_DATA [0 .. 40000])"),
            "{code}"
        );
        assert!(
            code.contains("decode_texts (& TABLE_DATA [40000 .."),
            "{code}"
        );
        let item = arrays.data_item().to_string();
        assert!(
            item.contains("include_bytes ! (\"game.tables.bin\")"),
            "{item}"
        );
        let data = arrays.into_data();
        assert_eq!(&data[..4], &[0, 0, 1, 0]);
        assert_eq!(&data[40_000..40_017], b"(cell 0)\n(cell 1)");
        assert!(!data.ends_with(b"\n"));
    }
}
