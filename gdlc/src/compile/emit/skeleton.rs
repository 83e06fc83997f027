//! What every emitter writes alike: the constants, `State`, `Move`, the
//! `Reasoner` methods that only read those, the phase functions, static
//! row tables and literals.

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::program::Program;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// The items both backends define: the constants (`ZOBRIST`, `FLUENTS`,
/// `WORDS`, `TERM_TEXT`, `BY_TEXT`, `ROLE_IDS`, `INITIAL`), `State`, `Move`, and
/// `Default` for `Game` (which each backend defines, with `Game::new`).
pub fn shared_items(program: &Program, domains: &Domains, arrays: &mut Arrays) -> TokenStream {
    let words = domains.fluents.div_ceil(64).max(1);
    let texts = arrays.strings(&domains.texts);
    let n_terms = Literal::usize_unsuffixed(domains.texts.len());
    let n_fluents = Literal::usize_unsuffixed(domains.fluents);
    let n_words = Literal::usize_unsuffixed(words);
    let n_roles = Literal::usize_unsuffixed(program.roles.len());
    let role_ids = program.roles.iter().map(|&r| lit(domains.id(r)));
    let initial = domains
        .state_words(&program.init)
        .into_iter()
        .map(Literal::u64_unsuffixed);
    let mut by_text: Vec<u32> = (0..domains.texts.len() as u32).collect();
    by_text.sort_by(|&a, &b| domains.texts[a as usize].cmp(&domains.texts[b as usize]));
    let by_text = arrays.ints(by_text);
    let zobrist = arrays.ints(
        domains.texts[..domains.fluents]
            .iter()
            .map(|t| gdl_runtime::zobrist_key(t)),
    );
    quote! {
        /// The Zobrist key of every fluent (`gdl_runtime::zobrist_key` of its text).
        static ZOBRIST: [u64; FLUENTS] = #zobrist;
        /// Number of possible fluents (the bits of a state).
        pub const FLUENTS: usize = #n_fluents;
        /// Words of a state.
        const WORDS: usize = #n_words;
        /// Canonical text of every term, by id (fluents first).
        static TERM_TEXT: [&str; #n_terms] = #texts;
        /// Every term id, in the order of their texts.
        static BY_TEXT: [u32; #n_terms] = #by_text;
        /// The term id of each role.
        static ROLE_IDS: [u32; #n_roles] = [#(#role_ids),*];
        /// The initial state.
        const INITIAL: [u64; WORDS] = [#(#initial),*];

        /// A game state: the set of true fluents, one bit per possible fluent.
        #[derive(Clone, PartialEq, Eq, Hash, Debug)]
        pub struct State(pub [u64; WORDS]);

        impl State {
            /// Whether fluent `f` holds.
            #[inline]
            fn holds(&self, f: u32) -> bool {
                self.0[(f >> 6) as usize] >> (f & 63) & 1 != 0
            }
        }

        /// A move: the id of its term.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub struct Move(pub u32);

        impl Default for Game {
            fn default() -> Self {
                Self::new()
            }
        }
    }
}

/// The methods of `Reasoner` both backends implement alike (in `impl
/// Reasoner for Game`; `Game` has a `roles` field).
pub fn shared_methods() -> TokenStream {
    quote! {
        fn roles(&self) -> &[String] {
            &self.roles
        }

        fn initial_state(&mut self) -> State {
            State(INITIAL)
        }

        fn move_text(&self, _role: usize, mv: Move) -> String {
            TERM_TEXT[mv.0 as usize].to_string()
        }

        fn parse_move(&mut self, _role: usize, text: &str) -> Option<Move> {
            let text = ::gdl_runtime::kif::canonical(text)?;
            let i = BY_TEXT
                .binary_search_by(|&t| TERM_TEXT[t as usize].cmp(text.as_str()))
                .ok()?;
            Some(Move(BY_TEXT[i]))
        }

        fn fluents(&self, state: &State) -> Vec<String> {
            let mut out: Vec<String> = (0..FLUENTS as u32)
                .filter(|&f| state.holds(f))
                .map(|f| TERM_TEXT[f as usize].to_string())
                .collect();
            out.sort_unstable();
            out
        }

        fn state_hash(&self, state: &State) -> u64 {
            let mut h = 0u64;
            for (w, &word) in state.0.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    h ^= ZOBRIST[w * 64 + word.trailing_zeros() as usize];
                    word &= word - 1;
                }
            }
            h
        }
    }
}

/// A `u32` literal without suffix.
pub fn lit(n: u32) -> Literal {
    Literal::u32_unsuffixed(n)
}

/// `static NAME: [[u32; COLUMNS]; N]` holding `rows`.
pub fn static_rows(
    name: &Ident,
    columns: usize,
    rows: &[Vec<u32>],
    arrays: &mut Arrays,
) -> TokenStream {
    let cols = Literal::usize_unsuffixed(columns);
    let n = Literal::usize_unsuffixed(rows.len());
    let rows = arrays.rows(rows);
    quote! {
        static #name: [[u32; #cols]; #n] = #rows;
    }
}

/// `phase_legal`, `phase_next`, `phase_terminal` and `phase_goal`: each
/// evaluates the layers of its phase that are not done yet for the
/// current state (or joint move), but those `kept` says are always up to
/// date.
pub fn phase_fns(layers: &Layers, kept: impl Fn(usize) -> bool) -> Vec<TokenStream> {
    let phase_names = ["phase_legal", "phase_next", "phase_terminal", "phase_goal"];
    layers
        .phases
        .iter()
        .zip(phase_names)
        .map(|(order, name)| {
            let name = format_ident!("{name}");
            let calls = order.iter().filter(|&&l| !kept(l)).map(|&l| {
                let f = format_ident!("layer_{l}");
                let idx = Literal::usize_unsuffixed(l);
                quote! {
                    if !self.done[#idx] {
                        self.#f();
                        self.done[#idx] = true;
                    }
                }
            });
            quote! {
                fn #name(&mut self) {
                    #(#calls)*
                }
            }
        })
        .collect()
}
