//! Large constant arrays of the generated code, written as text. Building
//! tokens for them, parsing those into a syntax tree and formatting it
//! with `prettyplease` took most of the compile time of the games with big
//! tables (amazons has 87 000 term texts and two tables of 87 000 rows).
//! An array too long for one line stands in the tokens as a placeholder
//! name; [`Arrays::fill`] replaces each placeholder of the formatted code
//! by the array's text, laid out as `prettyplease` lays out such an array
//! (integers filled into lines, strings and rows one per line), so the
//! generated code is the same, only made faster. Short arrays stay tokens.

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

/// The texts of the arrays placed so far, by placeholder number.
#[derive(Default)]
pub struct Arrays {
    placed: Vec<Placed>,
}

/// One array's elements and how they are laid out.
struct Placed {
    /// Each element's text.
    elements: Vec<String>,
    /// Integers filled into lines (`true`) or one element per line.
    fill: bool,
}

impl Arrays {
    /// The array of integers `values` (unsuffixed literals), as an
    /// expression.
    pub fn ints<T: Display>(&mut self, values: impl IntoIterator<Item = T>) -> TokenStream {
        let elements: Vec<String> = values.into_iter().map(|v| v.to_string()).collect();
        self.place(elements, true)
    }

    /// The array of the string literals of `texts`, as an expression.
    pub fn strings<S: AsRef<str>>(&mut self, texts: &[S]) -> TokenStream {
        let elements = texts
            .iter()
            .map(|t| Literal::string(t.as_ref()).to_string())
            .collect();
        self.place(elements, false)
    }

    /// The array of arrays of integers `rows`, as an expression.
    pub fn rows(&mut self, rows: &[Vec<u32>]) -> TokenStream {
        let elements: Vec<String> = rows.iter().map(|r| one_line(r)).collect();
        if elements.iter().any(|e| e.len() > LONGEST_ROW) {
            let rows = rows.iter().map(|r| {
                let cells = r.iter().map(|&c| Literal::u32_unsuffixed(c));
                quote! { [#(#cells),*] }
            });
            return quote! { [#(#rows),*] };
        }
        self.place(elements, false)
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
    /// from tokens, and as placeholder and `fill`.
    fn both(ty: TokenStream, array: impl Fn(&mut Arrays) -> TokenStream, tokens: TokenStream) {
        let pretty = |t: TokenStream| prettyplease::unparse(&syn::parse2(t).expect("parses"));
        let reference = pretty(quote! { static A: #ty = #tokens; });
        let mut arrays = Arrays::default();
        let placed = array(&mut arrays);
        let filled = arrays.fill(&pretty(quote! { static A: #ty = #placed; }));
        assert_eq!(filled, reference);
    }

    #[test]
    fn arrays_are_laid_out_as_prettyplease_lays_them_out() {
        for n in [0u32, 3, 20, 31, 32, 33, 200, 1000] {
            let values: Vec<u64> = (0..n).map(|i| u64::from(i) * 7_919 % 1_000_003).collect();
            let lits = values.iter().map(|&v| Literal::u64_unsuffixed(v));
            both(
                quote! { [u64; #n] },
                |a| a.ints(values.iter()),
                quote! { [#(#lits),*] },
            );
            let texts: Vec<String> = (0..n).map(|i| format!("(cell {i} \"x\\ y\")")).collect();
            both(
                quote! { [&str; #n] },
                |a| a.strings(&texts),
                quote! { [#(#texts),*] },
            );
            let rows: Vec<Vec<u32>> = (0..n).map(|i| vec![i, i * 1000, 7]).collect();
            let row_tokens = rows.iter().map(|r| {
                let cells = r.iter().map(|&c| Literal::u32_unsuffixed(c));
                quote! { [#(#cells),*] }
            });
            both(
                quote! { [[u32; 3]; #n] },
                |a| a.rows(&rows),
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
                    |a| a.ints(values.iter()),
                    quote! { [#(#lits),*] },
                );
            }
        }
    }
}
