//! Stage 8 for a ground program ([`crate::compile::ground::grounding`]): the reasoner keeps one
//! bit vector — the state, then every derived atom — and evaluates each
//! rule as a loop over its instances, a static table of bit numbers. A
//! phase evaluates only the layers of its cone, as in [`crate::compile::emit::relational`].

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::skeleton::{lit, phase_fns, shared_items, shared_methods, static_rows};
use crate::compile::ground::grounding::{Ground, GroundRule, Projection, WordCopies};
use crate::compile::program::Program;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap;

/// The generated module.
pub fn module(program: &Program, domains: &Domains, layers: &Layers, ground: &Ground) -> String {
    let n_layers = Literal::usize_unsuffixed(layers.layers.len());
    let one = lit(ground.one);

    let mut arrays = Arrays::default();
    let (tables, layer_fns) = layer_items(program, layers, ground, &mut arrays, |_| true);

    let phase_fns = phase_fns(layers, |_| false);
    let preamble = preamble(program, domains, ground, &mut arrays);
    let play = full_play(layers, ground);
    let reasoner = reasoner_impl();
    let tokens = quote! {
        #preamble
        #(#tables)*

        /// The compiled reasoner.
        pub struct Game {
            roles: Vec<String>,
            current: State,
            loaded: bool,
            done: [bool; #n_layers],
            /// The state, then the derived atoms of the current state and
            /// joint move.
            v: [u64; BITS],
        }

        #[allow(unused_mut, unused_variables, clippy::all)]
        impl Game {
            /// A reasoner for this game.
            pub fn new() -> Self {
                let roles = ROLE_IDS.iter().map(|&r| TERM_TEXT[r as usize].to_string()).collect();
                Game {
                    roles,
                    current: State(INITIAL),
                    loaded: false,
                    done: [false; #n_layers],
                    v: [0; BITS],
                }
            }

            /// Makes `state` the state the atoms describe.
            fn load(&mut self, state: &State) {
                if self.loaded && self.current == *state {
                    return;
                }
                self.current.clone_from(state);
                self.loaded = true;
                self.done = [false; #n_layers];
                self.v[..WORDS].copy_from_slice(&state.0);
                self.v[WORDS..].fill(0);
                set(&mut self.v, #one);
            }

            #play

            #(#phase_fns)*
            #(#layer_fns)*
        }

        #reasoner
    };
    let file: syn::File = syn::parse2(tokens).expect("generated code parses");
    arrays.fill(&prettyplease::unparse(&file))
}

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
        let masks = arrays.ints(masks);
        quote! { static #d: [u64; #n] = #masks; }
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
            let offsets = arrays.ints(&copies.starts);
            quote! { static #starts: [u32; #k] = #offsets; }
        });
        return quote! {
            static #c: [(u32, u64, u32); #n] = [#(#words),*];
            #offsets
            #masks
        };
    }
    let rows = static_rows(
        &format_ident!("G{}", g.rule),
        1 + g.pos + g.neg,
        &g.rows,
        arrays,
    );
    let offsets = g.driven.then(|| {
        let starts = g.driver_starts();
        let s = format_ident!("S{}", g.rule);
        let n = Literal::usize_unsuffixed(starts.len());
        let starts = arrays.ints(starts);
        quote! { static #s: [u32; #n] = #starts; }
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
/// [`rule_fn`]).
const MAX_BRANCHLESS_TESTS: usize = 2;

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
    let table = format_ident!("G{}", g.rule);
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
    let visit = match copies {
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
    };
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

/// The items both ground backends define: the tables of the answer
/// relations' bits (`LEGAL_*`, `DOES`, `GOALS`, `TERMINAL`) and the bit
/// helpers over a vector of `BITS` words.
fn answer_items(ground: &Ground, arrays: &mut Arrays) -> TokenStream {
    let per_role = |name: &str, lists: &[Vec<(u32, u32)>]| -> TokenStream {
        let name = format_ident!("{name}");
        let n = Literal::usize_unsuffixed(lists.len());
        let lists = lists.iter().map(|l| {
            let pairs = l.iter().map(|&(a, b)| {
                let (a, b) = (lit(a), lit(b));
                quote! { (#a, #b) }
            });
            quote! { &[#(#pairs),*] }
        });
        quote! { static #name: [&[(u32, u32)]; #n] = [#(#lists),*]; }
    };
    // Legal moves: those that always hold (a static fact: the one bit),
    // then per role a table over the range of its legal bits (each the
    // atom of one move), whose set bits are walked word by word.
    let mut always = Vec::new();
    let mut lows = Vec::new();
    let mut tables = Vec::new();
    for moves in &ground.legal {
        let fixed = moves.iter().filter(|&&(b, _)| b == ground.one);
        always.push(fixed.map(|&(_, m)| lit(m)).collect::<Vec<_>>());
        let mut bits: Vec<(u32, u32)> = moves
            .iter()
            .copied()
            .filter(|&(b, _)| b != ground.one)
            .collect();
        bits.sort_unstable();
        let lo = bits.first().map_or(0, |&(b, _)| b);
        let mut table = Vec::new();
        for &(b, m) in &bits {
            table.resize((b - lo) as usize, u32::MAX);
            table.push(m);
        }
        lows.push(lit(lo));
        tables.push(table.into_iter().map(lit).collect::<Vec<_>>());
    }
    let n_roles = Literal::usize_unsuffixed(ground.legal.len());
    let always = always.iter().map(|l| quote! { &[#(#l),*] });
    let tables = tables.iter().map(|l| quote! { &[#(#l),*] });
    let does = does_items(&ground.does, || per_role("DOES", &ground.does));
    let goals = per_role("GOALS", &ground.goals);
    let terminal_bits = arrays.ints(&ground.terminal);
    let n_terminal = Literal::usize_unsuffixed(ground.terminal.len());
    quote! {
        /// Per role: the moves that are always legal.
        static LEGAL_ALWAYS: [&[u32]; #n_roles] = [#(#always),*];
        /// Per role: the first bit of its range of legal bits.
        static LEGAL_LO: [u32; #n_roles] = [#(#lows),*];
        /// Per role: by bit from `LEGAL_LO`, the move whose legality it is
        /// (`u32::MAX`: none of the role's).
        static LEGAL_MOVE: [&[u32]; #n_roles] = [#(#tables),*];
        #does
        /// Per role: `(bit, value)` of every possible goal.
        #goals
        /// The bits that make a state terminal.
        static TERMINAL: [u32; #n_terminal] = #terminal_bits;

        /// Whether bit `b` of `v` is set (`BITS` is a power of two: the mask
        /// proves the index in bounds, so there is no bounds check).
        #[inline(always)]
        fn bit(v: &[u64; BITS], b: u32) -> bool {
            v[(b >> 6) as usize & (BITS - 1)] >> (b & 63) & 1 != 0
        }

        /// Sets bit `b` of `v`.
        #[inline(always)]
        fn set(v: &mut [u64; BITS], b: u32) {
            v[(b >> 6) as usize & (BITS - 1)] |= 1u64 << (b & 63);
        }

        /// Sets bit `b` of `v` if `holds`, without branching.
        #[inline(always)]
        fn set_if(v: &mut [u64; BITS], b: u32, holds: bool) {
            v[(b >> 6) as usize & (BITS - 1)] |= (holds as u64) << (b & 63);
        }
    }
}

/// A move id's place in a table of `does` bits may be at most this many
/// times the role's possible moves (plus [`DOES_TABLE_SLACK`]) apart from
/// its first move's.
const DOES_TABLE_SPREAD: usize = 4;
/// See [`DOES_TABLE_SPREAD`].
const DOES_TABLE_SLACK: usize = 64;

/// `does_bit(role, move)`, the bit of a role's `does` atom for a move:
/// read off a table by move id (`DOES_LO`, `DOES_BIT`) when every role's
/// move ids lie close enough together, instead of a binary search per
/// move played; else found by binary search in `DOES` (the items
/// `binary_search` makes, called only then).
fn does_items(
    does: &[Vec<(u32, u32)>],
    binary_search: impl FnOnce() -> TokenStream,
) -> TokenStream {
    let spans: Vec<(u32, usize)> = does
        .iter()
        .map(|moves| {
            let lo = moves.first().map_or(0, |&(m, _)| m);
            let hi = moves.last().map_or(0, |&(m, _)| m);
            (lo, (hi - lo) as usize + 1)
        })
        .collect();
    let close = does
        .iter()
        .zip(&spans)
        .all(|(moves, &(_, span))| span <= moves.len() * DOES_TABLE_SPREAD + DOES_TABLE_SLACK);
    if !close {
        let binary_search = binary_search();
        return quote! {
            /// Per role: `(move, bit)` of every possible `does`, by move.
            #binary_search
            /// The bit of `role`'s `does` atom for move `mv`, if it has one.
            #[inline]
            fn does_bit(role: usize, mv: u32) -> Option<u32> {
                let does = DOES[role];
                does.binary_search_by_key(&mv, |&(m, _)| m).ok().map(|i| does[i].1)
            }
        };
    }
    let n_roles = Literal::usize_unsuffixed(does.len());
    let lows = spans.iter().map(|&(lo, _)| lit(lo));
    let tables = does.iter().zip(&spans).map(|(moves, &(lo, span))| {
        let mut table = vec![u32::MAX; if moves.is_empty() { 0 } else { span }];
        for &(m, b) in moves {
            table[(m - lo) as usize] = b;
        }
        let table = table.into_iter().map(lit);
        quote! { &[#(#table),*] }
    });
    quote! {
        /// Per role: the first move id of its table in `DOES_BIT`.
        static DOES_LO: [u32; #n_roles] = [#(#lows),*];
        /// Per role: by move id from `DOES_LO`, the bit of its `does` atom
        /// (`u32::MAX`: none).
        static DOES_BIT: [&[u32]; #n_roles] = [#(#tables),*];
        /// The bit of `role`'s `does` atom for move `mv`, if it has one.
        #[inline]
        fn does_bit(role: usize, mv: u32) -> Option<u32> {
            let bit = *DOES_BIT[role].get(mv.wrapping_sub(DOES_LO[role]) as usize)?;
            (bit != u32::MAX).then_some(bit)
        }
    }
}

/// The items both ground backends begin with: [`shared_items`], the bit
/// vector's size (`BITS`) and the first word of its per-move part
/// (`MOVE_WORD`), and [`answer_items`].
pub fn preamble(
    program: &Program,
    domains: &Domains,
    ground: &Ground,
    arrays: &mut Arrays,
) -> TokenStream {
    let shared = shared_items(program, domains, arrays);
    let bits_words = Literal::usize_unsuffixed(ground.words);
    let move_word = Literal::usize_unsuffixed(ground.move_word);
    let answers = answer_items(ground, arrays);
    quote! {
        #shared

        /// Words of the bit vector: the state, then every derived atom.
        const BITS: usize = #bits_words;
        /// First word of the atoms computed per joint move; the next state
        /// is the `WORDS` words from here.
        const MOVE_WORD: usize = #move_word;
        #answers
    }
}

/// `Game::play` when the per-move layers are evaluated in full: clears the
/// per-move part of the vector and forgets those layers, sets the joint
/// move's `does` bits, then evaluates the layers of `next` not done yet.
pub fn full_play(layers: &Layers, ground: &Ground) -> TokenStream {
    let forget_moves = (0..layers.layers.len())
        .filter(|&l| ground.per_move[l])
        .map(|l| {
            let l = Literal::usize_unsuffixed(l);
            quote! { self.done[#l] = false; }
        });
    quote! {
        /// Makes `joint` the joint move the atoms describe, and
        /// evaluates the layers of `next`.
        fn play(&mut self, joint: &[Move]) {
            self.v[MOVE_WORD..].fill(0);
            #(#forget_moves)*
            for (role, mv) in joint.iter().enumerate() {
                if let Some(b) = does_bit(role, mv.0) {
                    set(&mut self.v, b);
                }
            }
            self.phase_next();
        }
    }
}

/// `impl Reasoner for Game` of both ground backends: [`shared_methods`]
/// and [`answer_methods`].
pub fn reasoner_impl() -> TokenStream {
    let shared_methods = shared_methods();
    let answer_methods = answer_methods();
    quote! {
        impl ::gdl_runtime::Reasoner for Game {
            type State = State;
            type Move = Move;

            #shared_methods
            #answer_methods
        }
    }
}

/// The answering methods of `Reasoner`: `Game` has the bit vector `v`,
/// `load(state)`, `play(joint)` and a `phase_<phase>()` that makes the
/// bits of `legal`, `terminal` and `goal` hold for the loaded state.
fn answer_methods() -> TokenStream {
    quote! {
        fn is_terminal(&mut self, state: &State) -> bool {
            self.load(state);
            self.phase_terminal();
            TERMINAL.iter().any(|&b| bit(&self.v, b))
        }

        fn legal_moves(&mut self, state: &State, role: usize, out: &mut Vec<Move>) {
            self.load(state);
            self.phase_legal();
            out.clear();
            out.extend(LEGAL_ALWAYS[role].iter().map(|&m| Move(m)));
            let table = LEGAL_MOVE[role];
            if !table.is_empty() {
                let lo = LEGAL_LO[role] as usize;
                let hi = lo + table.len() - 1;
                for w in lo / 64..=hi / 64 {
                    let mut word = self.v[w & (BITS - 1)];
                    if w == lo / 64 {
                        word &= u64::MAX << (lo % 64);
                    }
                    if w == hi / 64 {
                        word &= u64::MAX >> (63 - hi % 64);
                    }
                    while word != 0 {
                        let b = w * 64 + word.trailing_zeros() as usize;
                        word &= word - 1;
                        let m = table[b - lo];
                        if m != u32::MAX {
                            out.push(Move(m));
                        }
                    }
                }
            }
        }

        fn next_state(&mut self, state: &State, joint: &[Move]) -> State {
            self.load(state);
            self.play(joint);
            let mut bits = [0u64; WORDS];
            bits.copy_from_slice(&self.v[MOVE_WORD..MOVE_WORD + WORDS]);
            State(bits)
        }

        fn goal(&mut self, state: &State, role: usize) -> Option<u32> {
            self.load(state);
            self.phase_goal();
            let mut value: Option<u32> = None;
            let mut many = false;
            for &(b, v) in GOALS[role] {
                if bit(&self.v, b) {
                    match value {
                        None => value = Some(v),
                        Some(w) if w != v => many = true,
                        Some(_) => {}
                    }
                }
            }
            match (value, many) {
                (Some(v), false) => TERM_TEXT[v as usize].parse().ok(),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::{generate_with, Strategy};

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

    fn code() -> String {
        let loaded = crate::load_bytes("t.kif".into(), GAME.as_bytes().to_vec()).expect("valid");
        generate_with(&loaded, Strategy::Ground)
            .expect("compiles")
            .code
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

    /// A role's `does` bit is read off a table by move id when the move ids
    /// lie close together, and found by binary search when they spread.
    #[test]
    fn does_bits_are_a_table_by_move_id_when_the_ids_lie_close() {
        let items = |does: Vec<Vec<(u32, u32)>>| {
            super::does_items(&does, || quote::quote! { static DOES: () = (); }).to_string()
        };
        let close = items(vec![vec![(40, 7), (41, 9), (43, 8)], vec![(40, 3)]]);
        assert!(
            close.contains("DOES_BIT") && !close.contains("binary_search"),
            "{close}"
        );
        // Table of role 0: moves 40, 41, 43 from 40, with no bit for 42.
        assert!(close.contains("& [7 , 9 , 4294967295 , 8]"), "{close}");
        let spread = items(vec![vec![(40, 7), (4000, 9)], vec![(40, 3)]]);
        assert!(
            spread.contains("binary_search") && !spread.contains("DOES_BIT"),
            "{spread}"
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
