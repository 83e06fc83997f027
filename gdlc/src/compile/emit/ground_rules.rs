//! The rules of a ground program as code over its bit vector, for both
//! ground emitters ([`crate::compile::emit::ground`],
//! [`crate::compile::emit::incremental`]): each rule a loop over its
//! instances, a static table of bit numbers (or word copies, or a
//! projection), and each layer a method calling its rules, to a fixpoint
//! if it is recursive.

use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::skeleton::lit;
use crate::compile::ground::grounding::{Ground, GroundRule, Projection, WordCopies};
use crate::compile::program::Program;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap;

/// The instance tables of the rules of the layers `chosen` picks, and the
/// methods evaluating those layers (`layer_<i>`, each calling the
/// `rule_<r>` of its rules, to a fixpoint if it is recursive) and rules.
pub fn layer_items(
    program: &Program,
    layers: &Layers,
    ground: &Ground,
    arrays: &mut Arrays,
    chosen: impl Fn(usize) -> bool,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut tables = Vec::new();
    let mut fns = Vec::new();
    let mut instances_of_head: FxHashMap<u32, usize> = FxHashMap::default();
    for row in ground.rules.iter().flatten().flat_map(|g| &g.rows) {
        *instances_of_head.entry(row[0]).or_default() += 1;
    }
    for (i, layer) in layers.layers.iter().enumerate() {
        if !chosen(i) {
            continue;
        }
        let rules: Vec<&GroundRule> = layer
            .rules
            .iter()
            .filter_map(|&r| ground.rules[r].as_ref())
            .collect();
        let calls: Vec<proc_macro2::Ident> = rules
            .iter()
            .map(|g| format_ident!("rule_{}", g.rule))
            .collect();
        let body = if layer.recursive {
            let calls = calls.iter().map(|f| quote! { changed |= self.#f(); });
            quote! {
                loop {
                    let mut changed = false;
                    #(#calls)*
                    if !changed {
                        break;
                    }
                }
            }
        } else {
            quote! { #(self.#calls();)* }
        };
        let name = format_ident!("layer_{i}");
        fns.push(quote! {
            fn #name(&mut self) {
                #body
            }
        });
        for g in rules {
            if let Some(projection) = g.projection() {
                tables.push(projection_table(g, &projection));
                fns.push(projection_fn(program, g));
                continue;
            }
            let copies = g.word_copies();
            tables.push(rule_table(g, copies.as_ref(), arrays));
            // Each instance sets a head no other instance sets, and no
            // evaluation of the layer comes before (it is not recursive):
            // no head can be set already.
            let heads_unset =
                !layer.recursive && g.rows.iter().all(|row| instances_of_head[&row[0]] == 1);
            fns.push(rule_fn(program, g, copies.as_ref(), heads_unset));
        }
    }
    (tables, fns)
}

/// The instances of a rule as a static table, one row each; for a driven
/// rule also the offsets: the rows whose driver is bit `lo + i` are
/// `S[i]..S[i + 1]`. A rule evaluated by word copies has instead its
/// copies `C` (and for a driven rule their offsets `CS`: see
/// [`GroundRule::word_copies`]), given as `copies`. A rule whose evaluation
/// walks its driver's set bits also has the masks `D` of the bits that
/// drive rows ([`GroundRule::driver_masks`]).
fn rule_table(g: &GroundRule, copies: Option<&WordCopies>, arrays: &mut Arrays) -> TokenStream {
    let masks = walks_driver(g, copies).then(|| {
        let d = format_ident!("D{}", g.rule);
        let (_, masks) = g.driver_masks();
        let n = Literal::usize_unsuffixed(masks.len());
        arrays.static_ints(&d, &quote! { #n }, masks.iter().copied())
    });
    if let Some(copies) = copies {
        let c = format_ident!("C{}", g.rule);
        let n = Literal::usize_unsuffixed(copies.words.len());
        let words = copies.words.iter().map(|&(w, m, d)| {
            let w = lit(w);
            let m = Literal::u64_unsuffixed(m);
            let d = lit(d);
            quote! { (#w, #m, #d) }
        });
        let offsets = copies.by_driver.then(|| {
            let starts = format_ident!("CS{}", g.rule);
            let k = Literal::usize_unsuffixed(copies.starts.len());
            arrays.static_ints(&starts, &quote! { #k }, copies.starts.iter().copied())
        });
        return quote! {
            static #c: [(u32, u64, u32); #n] = [#(#words),*];
            #offsets
            #masks
        };
    }
    let rows = arrays.static_rows(
        &format_ident!("G{}", g.rule),
        1 + g.pos + g.neg,
        &g.rows,
        true,
    );
    let offsets = g.driven.then(|| {
        let starts = g.driver_starts();
        let s = format_ident!("S{}", g.rule);
        let n = Literal::usize_unsuffixed(starts.len());
        arrays.static_ints(&s, &quote! { #n }, starts.iter().copied())
    });
    quote! {
        #rows
        #offsets
        #masks
    }
}

/// The test that literal `k` of a rule's instances holds, on bit `b`.
fn literal_test(g: &GroundRule, k: usize, b: TokenStream) -> TokenStream {
    if k <= g.pos {
        quote! { bit(v, #b) }
    } else {
        quote! { !bit(v, #b) }
    }
}

/// The test of a rule's guards, once before its instances: the rule
/// derives nothing when one fails.
fn guard(g: &GroundRule) -> Option<TokenStream> {
    let guards = g.guards.iter().map(|&k| {
        let b = lit(g.rows[0][k]);
        literal_test(g, k, quote! { #b })
    });
    (!g.guards.is_empty()).then(|| {
        quote! {
            if !(true #(&& #guards)*) {
                return false;
            }
        }
    })
}

/// The heads of a rule evaluated as a projection, with the words and
/// masks of the bits that set each: `A<rule>`.
fn projection_table(g: &GroundRule, projection: &Projection) -> TokenStream {
    let name = format_ident!("A{}", g.rule);
    let n = Literal::usize_unsuffixed(projection.heads.len());
    let heads = projection.heads.iter().map(|(h, words)| {
        let h = lit(*h);
        let words = words.iter().map(|&(w, m)| {
            let (w, m) = (lit(w), Literal::u64_unsuffixed(m));
            quote! { (#w, #m) }
        });
        quote! { (#h, &[#(#words),*]) }
    });
    quote! { static #name: [(u32, &[(u32, u64)]); #n] = [#(#heads),*]; }
}

/// The function evaluating a rule as a projection: each head not set yet
/// is set when one of its bits is.
fn projection_fn(program: &Program, g: &GroundRule) -> TokenStream {
    let table = format_ident!("A{}", g.rule);
    rule_function(
        program,
        g,
        quote! {
            for &(h, words) in #table.iter() {
                if !bit(v, h) && words.iter().any(|&(w, m)| v[w as usize & (BITS - 1)] & m != 0) {
                    set(v, h);
                    changed = true;
                }
            }
        },
    )
}

/// `rule_<rule>`, documented by the rule's text: its guards' test, then
/// `body`, which sets heads in `v` and `changed` when it sets one; `true`
/// if it did.
fn rule_function(program: &Program, g: &GroundRule, body: TokenStream) -> TokenStream {
    let name = format_ident!("rule_{}", g.rule);
    let doc = format!(" {}", program.rules[g.rule].text);
    let guard = guard(g);
    quote! {
        #[doc = #doc]
        fn #name(&mut self) -> bool {
            let v = &mut self.v;
            #guard
            let mut changed = false;
            #body
            changed
        }
    }
}

/// Whether the evaluation of a rule walks the set bits of its driver (else
/// it visits every row, or every word copy).
fn walks_driver(g: &GroundRule, copies: Option<&WordCopies>) -> bool {
    g.driven && copies.is_none_or(|c| c.by_driver)
}

/// The most tests of an instance combined without branching (see
/// [`instance_visit`]).
const MAX_BRANCHLESS_TESTS: usize = 2;

/// The code visiting one instance of a rule (a row `g`, or a word copy
/// `(w, m, d)`): sets its head in `v` if its literals hold (or ORs the
/// copied bits in), and `changed` if that set a bit.
fn instance_visit(g: &GroundRule, copies: Option<&WordCopies>, heads_unset: bool) -> TokenStream {
    let first = if g.driven { 2 } else { 1 };
    let tests: Vec<TokenStream> = (first..=g.pos + g.neg)
        .filter(|k| !g.guards.contains(k))
        .map(|k| {
            let i = Literal::usize_unsuffixed(k);
            literal_test(g, k, quote! { g[#i] })
        })
        .collect();
    let skip_set_head = (!heads_unset).then(|| {
        quote! {
            if bit(v, g[0]) {
                continue;
            }
        }
    });
    match copies {
        Some(c) if c.offset == 0 => quote! {
            let d = d as usize;
            let old = v[d];
            let new = old | (v[w as usize] & m);
            changed |= new != old;
            v[d] = new;
        },
        Some(c) => {
            let offset = Literal::u32_unsuffixed(c.offset);
            let back = Literal::u32_unsuffixed(64 - c.offset);
            quote! {
                let d = d as usize;
                let bits = v[w as usize] & m;
                // (`d + 1` may be past the vector when no bit spills:
                // then it ORs nothing into word 0.)
                let e = (d + 1) & (BITS - 1);
                let (old, next) = (v[d], v[e]);
                v[d] = old | bits << #offset;
                v[e] = next | bits >> #back;
                changed |= v[d] != old || v[e] != next;
            }
        }
        // Up to two tests are combined without branching (`&`, not `&&`):
        // whether an instance holds is data a branch would mispredict.
        // More are tested one after the other, to stop at the first that
        // fails (connectFour's lines of four).
        None if (1..=MAX_BRANCHLESS_TESTS).contains(&tests.len()) => quote! {
            #skip_set_head
            let holds = true #(& #tests)*;
            set_if(v, g[0], holds);
            changed |= holds;
        },
        None => quote! {
            #skip_set_head
            if true #(&& #tests)* {
                set(v, g[0]);
                changed = true;
            }
        },
    }
}

/// The function evaluating a rule's instances: sets the head of each
/// instance whose literals hold; `true` if a bit was set. When
/// `heads_unset`, no head can be set before its instance is visited, and
/// the instances do not test it first.
fn rule_fn(
    program: &Program,
    g: &GroundRule,
    copies: Option<&WordCopies>,
    heads_unset: bool,
) -> TokenStream {
    let visit = instance_visit(g, copies, heads_unset);
    let table = format_ident!("G{}", g.rule);
    // The instances of a group: rows, or word copies.
    let (table, starts, each) = match copies {
        Some(_) => (
            format_ident!("C{}", g.rule),
            format_ident!("CS{}", g.rule),
            quote! { &(w, m, d) },
        ),
        None => (table, format_ident!("S{}", g.rule), quote! { g }),
    };
    let body = if walks_driver(g, copies) {
        // Visit the set bits that drive rows, and their rows.
        let lo = lit(g.rows[0][1]);
        let (first, _) = g.driver_masks();
        let first = Literal::usize_unsuffixed(first);
        let d = format_ident!("D{}", g.rule);
        quote! {
            for (w, &mask) in (#first..).zip(&#d) {
                let mut word = v[w] & mask;
                while word != 0 {
                    let b = (w * 64) as u32 + word.trailing_zeros();
                    word &= word - 1;
                    let i = (b - #lo) as usize;
                    for #each in &#table[#starts[i] as usize..#starts[i + 1] as usize] {
                        #visit
                    }
                }
            }
        }
    } else {
        quote! {
            for #each in #table.iter() {
                #visit
            }
        }
    };
    rule_function(program, g, body)
}

#[cfg(test)]
mod tests {
    use crate::compile::{generated_code, Strategy};

    /// The generated function of the rule whose text is `rule`.
    fn rule_fn_code<'a>(code: &'a str, rule: &str) -> &'a str {
        let start = code
            .find(&format!("/// {rule}"))
            .expect("the rule's function");
        let end = code[start + 4..]
            .find("/// (<=")
            .map_or(code.len(), |e| start + 4 + e);
        &code[start..end]
    }

    /// A ground game with fluents `(f ?k ?x)`: `free` and `line` have one
    /// instance per head, `busy` three instances of one head.
    const GAME: &str =
        "(role a)\n(init (f on 1))\n(n 1)\n(n 2)\n(n 3)\n(k on)\n(k off)\n(k up)\n(k top)\n\
        (<= (legal a (put ?k ?x)) (k ?k) (n ?x))\n\
        (<= (next (f ?k ?x)) (does a (put ?k ?x)))\n\
        (<= (next (f ?k ?x)) (true (f ?k ?x)))\n\
        (<= (free ?x) (true (f on ?x)) (true (f up ?x)) (not (true (f off ?x))))\n\
        (<= (line ?x) (true (f on ?x)) (true (f up ?x)) (true (f off ?x)) (true (f top ?x)))\n\
        (<= busy (true (f on ?x)) (true (f top ?x)) (not (true (f off ?x))))\n\
        (<= terminal (line 3))\n(<= terminal (free 2))\n(<= terminal busy)\n(goal a 100)\n";

    const FREE: &str = "(<= (free ?x) (true (f on ?x)) (true (f up ?x)) (not (true (f off ?x))))";
    const LINE: &str =
        "(<= (line ?x) (true (f on ?x)) (true (f up ?x)) (true (f off ?x)) (true (f top ?x)))";
    const BUSY: &str = "(<= busy (true (f on ?x)) (true (f top ?x)) (not (true (f off ?x))))";

    /// The ground code of [`GAME`].
    fn code() -> String {
        generated_code(GAME, Strategy::Ground)
    }

    /// A rule instance with one or two tests besides its driver sets its
    /// head without a branch on them; one with three tests them one after
    /// the other, stopping at the first that fails.
    #[test]
    fn up_to_two_tests_are_combined_without_branching() {
        let code = code();
        let two = rule_fn_code(&code, FREE);
        assert!(
            two.contains("let holds = true & bit(v, g[2]) & !bit(v, g[3]);")
                && two.contains("set_if(v, g[0], holds)"),
            "{two}"
        );
        let three = rule_fn_code(&code, LINE);
        assert!(
            three.contains("if true && bit(v, g[2]) && bit(v, g[3]) && bit(v, g[4])"),
            "{three}"
        );
    }

    /// An instance tests whether its head is already set only when another
    /// instance sets the same head.
    #[test]
    fn only_a_head_of_several_instances_is_tested_before_its_instance() {
        let code = code();
        let skip = "if bit(v, g[0]) {";
        for unique in [FREE, LINE] {
            let f = rule_fn_code(&code, unique);
            assert!(!f.contains(skip), "{f}");
        }
        let busy = rule_fn_code(&code, BUSY);
        assert!(busy.contains(skip), "{busy}");
    }
}
