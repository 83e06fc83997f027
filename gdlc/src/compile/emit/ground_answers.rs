//! What both ground emitters ([`crate::compile::emit::ground`],
//! [`crate::compile::emit::incremental`]) write around the rules: the bit
//! vector's size, the tables of the answer relations' bits, the bit
//! helpers, `play` for per-move layers evaluated in full, and the
//! `Reasoner` methods that read the answers off the vector.

use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::skeleton::lit;
use crate::compile::ground::grounding::Ground;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The items both ground modules define after the shared ones: the bit
/// vector's size (`BITS`) and the first word of its per-move part
/// (`MOVE_WORD`), and [`answer_items`].
pub fn bit_vector_items(ground: &Ground, arrays: &mut Arrays) -> TokenStream {
    let bits_words = Literal::usize_unsuffixed(ground.words);
    let move_word = Literal::usize_unsuffixed(ground.move_word);
    let answers = answer_items(ground, arrays);
    quote! {
        /// Words of the bit vector: the state, then every derived atom.
        const BITS: usize = #bits_words;
        /// First word of the atoms computed per joint move; the next state
        /// is the `WORDS` words from here.
        const MOVE_WORD: usize = #move_word;
        #answers
    }
}

/// The items both ground modules define: the tables of the answer
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
    let sees = ground.sees.as_ref().map(|sees| {
        let sees = per_role("SEES", sees);
        quote! {
            /// Per role: `(bit, percept)` of every possible percept.
            #sees
        }
    });
    let n_terminal = Literal::usize_unsuffixed(ground.terminal.len());
    let terminal = arrays.static_ints(
        &format_ident!("TERMINAL"),
        &quote! { #n_terminal },
        ground.terminal.iter().copied(),
    );
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
        #sees
        /// The bits that make a state terminal.
        #terminal

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

/// The answering methods of `Reasoner`: `Game` has the bit vector `v`,
/// `load(state)`, `play(joint)` and a `phase_<phase>()` that makes the
/// bits of `legal`, `terminal`, `goal` and `sees` hold for the loaded
/// state (and joint move).
pub fn answer_methods(ground: &Ground) -> TokenStream {
    let sees = ground.sees.is_some().then(|| {
        quote! {
            fn sees(&mut self, state: &State, joint: &[Move], role: usize, out: &mut Vec<u32>) {
                self.load(state);
                self.play(joint);
                self.phase_sees();
                out.clear();
                for &(b, p) in SEES[role] {
                    if bit(&self.v, b) {
                        out.push(p);
                    }
                }
                out.sort_unstable();
                out.dedup();
            }
        }
    });
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

        #sees
    }
}

#[cfg(test)]
mod tests {
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
}
