//! Stage 8 for a ground program evaluated incrementally
//! ([`crate::compile::ground::incremental`]): the reasoner keeps the bit vector of
//! [`crate::compile::ground::grounding`] together with a count of unsatisfied literals per
//! instance of an incremental layer and of firing instances per atom.
//! Loading a state changes the fluents that differ from the loaded one;
//! each change updates the instances that read it, and the atoms whose
//! count crosses zero are settled level by level. The layers
//! [`crate::compile::ground::incremental`] left to full evaluation are evaluated as in
//! [`crate::compile::emit::ground`], when a phase needs them; so are the per-move
//! layers when they are not incremental.

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::ground_answers::{answer_methods, bit_vector_items, full_play};
use crate::compile::emit::ground_rules::layer_items;
use crate::compile::emit::skeleton::{self, lit, phase_fns, GameParts, NewGame};
use crate::compile::ground::grounding::Ground;
use crate::compile::ground::incremental::Incremental;
use crate::compile::program::Program;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// The generated module, its long arrays placed in `arrays`.
pub fn module(
    program: &Program,
    domains: &Domains,
    layers: &Layers,
    ground: &Ground,
    incremental: &Incremental,
    mut arrays: Arrays,
) -> (String, Arrays) {
    let kept = |l: usize| incremental.layers[l];
    let (tables, layer_fns) = layer_items(program, layers, ground, &mut arrays, |l| !kept(l));
    let phase_fns = phase_fns(
        &layers
            .phases
            .clone()
            .map(|o| o.into_iter().filter(|&l| !kept(l)).collect()),
        program.phases(),
    );
    let counts = incremental_items(incremental, &mut arrays, &tables);
    let vector = bit_vector_items(ground, &mut arrays);
    let play = if incremental.moves {
        incremental_play()
    } else {
        full_play(layers, ground)
    };
    let load = incremental_load(layers, ground, incremental);
    let propagation = propagation_methods();
    let n_roles = Literal::usize_unsuffixed(program.roles.len());
    let n_layers = Literal::usize_unsuffixed(layers.layers.len());
    let parts = GameParts {
        imports: TokenStream::new(),
        items: quote! {
            #vector
            #counts
        },
        fields: game_fields(program.roles.len(), layers.layers.len()),
        new: NewGame {
            doc: " A reasoner for this game, its atoms those of the empty state.",
            inits: quote! {
                v: [0; BITS],
                unsatisfied: POSITIVES.to_vec().into_boxed_slice(),
                support: vec![0; BITS * 64].into_boxed_slice(),
                queue: vec![0; LEVEL_START[LEVELS] as usize].into_boxed_slice(),
                queued: [0; LEVELS],
                in_queue: [0; BITS],
                lowest: LEVELS,
                highest: 0,
                does: [NO_MOVE; #n_roles],
                done: [false; #n_layers],
            },
            setup: Some(empty_state_setup(ground)),
        },
        lints: quote! { unused_mut, unused_variables, clippy::all },
        methods: quote! {
            #load
            #play
            #propagation
            #(#phase_fns)*
            #(#layer_fns)*
        },
        helpers: quote! {
            /// Flips bit `b` of `v`.
            #[inline(always)]
            fn toggle(v: &mut [u64; BITS], b: u32) {
                v[(b >> 6) as usize & (BITS - 1)] ^= 1u64 << (b & 63);
            }
        },
        answers: answer_methods(ground),
    };
    skeleton::module(program, domains, arrays, parts)
}

/// The constants and statics of the incremental evaluation (its
/// instances, their literals, the occurrences of each bit, the levels),
/// with the instance `tables` of the layers evaluated in full among them.
fn incremental_items(
    incremental: &Incremental,
    arrays: &mut Arrays,
    tables: &[TokenStream],
) -> TokenStream {
    let instances = Literal::usize_unsuffixed(incremental.heads.len());
    let levels = Literal::usize_unsuffixed(incremental.levels());
    let n_occurrences = Literal::usize_unsuffixed(incremental.occurrences.len());
    let instance_count = quote! { INSTANCES };
    let heads = arrays.static_ints(
        &format_ident!("HEAD"),
        &instance_count,
        incremental.heads.iter().copied(),
    );
    let positives = arrays.static_ints(
        &format_ident!("POSITIVES"),
        &instance_count,
        incremental.positives.iter().map(|&p| p as u16),
    );
    let starts = arrays.static_ints(
        &format_ident!("OCCURRENCE_START"),
        &quote! { BITS * 64 + 1 },
        incremental.occurrence_starts.iter().copied(),
    );
    let occurrences = arrays.static_ints(
        &format_ident!("OCCURRENCES"),
        &quote! { #n_occurrences },
        incremental.occurrences.iter().copied(),
    );
    let level = arrays.static_ints(
        &format_ident!("LEVEL"),
        &quote! { BITS * 64 },
        incremental.level.iter().copied(),
    );
    let level_starts = arrays.static_ints(
        &format_ident!("LEVEL_START"),
        &quote! { LEVELS + 1 },
        incremental.level_starts.iter().copied(),
    );
    quote! {
        /// Rule instances kept up to date incrementally.
        const INSTANCES: usize = #instances;
        /// Levels of atoms (level 0: the fluents, `does` and the atoms of
        /// layers evaluated in full).
        const LEVELS: usize = #levels;
        /// No `does` atom.
        const NO_MOVE: u32 = u32::MAX;
        #(#tables)*
        /// Per instance: the bit of its head.
        #heads
        /// Per instance: its positive literals.
        #positives
        /// Per bit, and one past the last: where its occurrences start.
        #starts
        /// Per bit, the instances reading it: `instance << 1 | negative`.
        #occurrences
        /// Per bit: its level.
        #level
        /// Per level, and one past the last: where its atoms start in the
        /// queue of atoms to settle.
        #level_starts
    }
}

/// The fields of `Game` after `roles`, for `n_roles` roles and `n_layers`
/// layers.
fn game_fields(n_roles: usize, n_layers: usize) -> TokenStream {
    let n_roles = Literal::usize_unsuffixed(n_roles);
    let n_layers = Literal::usize_unsuffixed(n_layers);
    quote! {
        /// The state, then the derived atoms of the state and of the
        /// last joint move.
        v: [u64; BITS],
        /// Per instance: its literals that do not hold.
        unsatisfied: Box<[u16]>,
        /// Per bit: the instances with it as head that fire.
        support: Box<[u32]>,
        /// The atoms whose support crossed zero, by level.
        queue: Box<[u32]>,
        /// Per level: its atoms in `queue`.
        queued: [u32; LEVELS],
        /// The bits in `queue`.
        in_queue: [u64; BITS],
        /// Lowest and highest level with queued atoms (`LEVELS` and 0
        /// when none is).
        lowest: usize,
        highest: usize,
        /// Per role: the bit of its `does` atom in the last joint move.
        does: [u32; #n_roles],
        /// Per layer evaluated in full: whether it is, for the state
        /// (or joint move) the atoms describe.
        done: [bool; #n_layers],
    }
}

/// What `Game::new` does to the new game: sets the bit that always holds
/// and fires the instances without positive literals, so its atoms are
/// those of the empty state.
fn empty_state_setup(ground: &Ground) -> TokenStream {
    let one = lit(ground.one);
    quote! {
        set(&mut game.v, #one);
        for i in 0..INSTANCES {
            if POSITIVES[i] == 0 {
                game.fire(i);
            }
        }
        game.settle();
    }
}

/// `Game::load`: changes the fluents that differ from the loaded state's,
/// after forgetting the layers evaluated in full per state (their atoms
/// cleared).
fn incremental_load(layers: &Layers, ground: &Ground, incremental: &Incremental) -> TokenStream {
    let full_state: Vec<usize> = (0..layers.layers.len())
        .filter(|&l| !incremental.layers[l] && !ground.per_move[l])
        .collect();
    let mut stale = vec![0u64; ground.words];
    for &l in &full_state {
        for g in layers.layers[l]
            .rules
            .iter()
            .filter_map(|&r| ground.rules[r].as_ref())
        {
            for row in &g.rows {
                stale[row[0] as usize / 64] |= 1 << (row[0] % 64);
            }
        }
    }
    let forget_state = full_state
        .iter()
        .map(|&l| {
            let l = Literal::usize_unsuffixed(l);
            quote! { self.done[#l] = false; }
        })
        .chain(
            stale
                .iter()
                .enumerate()
                .filter(|&(_, &m)| m != 0)
                .map(|(w, &m)| {
                    let w = Literal::usize_unsuffixed(w);
                    let m = Literal::u64_unsuffixed(!m);
                    quote! { self.v[#w] &= #m; }
                }),
        );
    quote! {
        /// Makes `state` the state the atoms describe: changes the
        /// fluents that differ, and forgets the layers evaluated in
        /// full.
        fn load(&mut self, state: &State) {
            if self.v[..WORDS] == state.0 {
                return;
            }
            #(#forget_state)*
            for w in 0..WORDS {
                let mut changed = self.v[w] ^ state.0[w];
                if changed == 0 {
                    continue;
                }
                self.v[w] = state.0[w];
                while changed != 0 {
                    let b = (w * 64) as u32 + changed.trailing_zeros();
                    changed &= changed - 1;
                    self.changed(b, state.0[w] >> (b & 63) & 1 != 0);
                }
            }
            self.settle();
        }
    }
}

/// `Game::play` when the per-move layers are incremental: changes the
/// `does` atoms that differ from the last joint move's.
fn incremental_play() -> TokenStream {
    quote! {
        /// Makes `joint` the joint move the atoms describe: changes the
        /// `does` atoms that differ from the last joint move's.
        fn play(&mut self, joint: &[Move]) {
            for (role, mv) in joint.iter().enumerate() {
                let b = does_bit(role, mv.0).unwrap_or(NO_MOVE);
                let old = self.does[role];
                if b == old {
                    continue;
                }
                self.does[role] = b;
                if old != NO_MOVE {
                    toggle(&mut self.v, old);
                    self.changed(old, false);
                }
                if b != NO_MOVE {
                    toggle(&mut self.v, b);
                    self.changed(b, true);
                }
            }
            self.settle();
        }
    }
}

/// The methods that propagate a change of an atom: `changed`, `fire`,
/// `enqueue` and `settle`.
fn propagation_methods() -> TokenStream {
    quote! {
        /// Atom `b` now holds (`on`) or no longer does: updates the
        /// instances that read it.
        #[inline]
        fn changed(&mut self, b: u32, on: bool) {
            let (lo, hi) = (
                OCCURRENCE_START[b as usize] as usize,
                OCCURRENCE_START[b as usize + 1] as usize,
            );
            for &o in &OCCURRENCES[lo..hi] {
                let i = (o >> 1) as usize;
                if (o & 1 == 0) == on {
                    self.unsatisfied[i] -= 1;
                    if self.unsatisfied[i] == 0 {
                        self.fire(i);
                    }
                } else {
                    if self.unsatisfied[i] == 0 {
                        let h = HEAD[i];
                        self.support[h as usize] -= 1;
                        if self.support[h as usize] == 0 {
                            self.enqueue(h);
                        }
                    }
                    self.unsatisfied[i] += 1;
                }
            }
        }

        /// Instance `i` fires.
        #[inline]
        fn fire(&mut self, i: usize) {
            let h = HEAD[i];
            self.support[h as usize] += 1;
            if self.support[h as usize] == 1 {
                self.enqueue(h);
            }
        }

        /// Queues atom `h`, whose support crossed zero, to be settled.
        #[inline]
        fn enqueue(&mut self, h: u32) {
            let (w, m) = ((h >> 6) as usize & (BITS - 1), 1u64 << (h & 63));
            if self.in_queue[w] & m != 0 {
                return;
            }
            self.in_queue[w] |= m;
            let l = LEVEL[h as usize] as usize;
            self.queue[LEVEL_START[l] as usize + self.queued[l] as usize] = h;
            self.queued[l] += 1;
            self.lowest = self.lowest.min(l);
            self.highest = self.highest.max(l);
        }

        /// Settles the queued atoms, lowest level first: each holds
        /// when some instance with it as head fires.
        fn settle(&mut self) {
            let mut l = self.lowest;
            while l <= self.highest {
                let start = LEVEL_START[l] as usize;
                let mut k = 0;
                while k < self.queued[l] as usize {
                    let h = self.queue[start + k];
                    k += 1;
                    self.in_queue[(h >> 6) as usize & (BITS - 1)] &= !(1u64 << (h & 63));
                    let on = self.support[h as usize] != 0;
                    if on != bit(&self.v, h) {
                        toggle(&mut self.v, h);
                        self.changed(h, on);
                    }
                }
                self.queued[l] = 0;
                l += 1;
            }
            self.lowest = LEVELS;
            self.highest = 0;
        }
    }
}
