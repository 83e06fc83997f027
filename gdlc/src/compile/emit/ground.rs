//! Stage 8 for a ground program ([`crate::compile::ground::grounding`]): the reasoner keeps one
//! bit vector — the state, then every derived atom — and evaluates each
//! rule as a loop over its instances, a static table of bit numbers. A
//! phase evaluates only the layers of its cone, as in [`crate::compile::emit::relational`].

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::ground_answers::{answer_methods, bit_vector_items, full_play};
use crate::compile::emit::ground_rules::layer_items;
use crate::compile::emit::skeleton::{self, lit, phase_fns, GameParts, NewGame, RememberedState};
use crate::compile::ground::grounding::Ground;
use crate::compile::program::Program;
use proc_macro2::TokenStream;
use quote::quote;

/// The generated module, its long arrays placed in `arrays`.
pub fn module(
    program: &Program,
    domains: &Domains,
    layers: &Layers,
    ground: &Ground,
    mut arrays: Arrays,
) -> (String, Arrays) {
    let one = lit(ground.one);
    let (tables, layer_fns) = layer_items(program, layers, ground, &mut arrays, |_| true);
    let phase_fns = phase_fns(&layers.phases, program.phases());
    let vector = bit_vector_items(ground, &mut arrays);
    let play = full_play(layers, ground);
    let RememberedState {
        fields,
        inits,
        load,
    } = RememberedState::new(
        layers.layers.len(),
        "atoms",
        TokenStream::new(),
        quote! {
            self.v[..WORDS].copy_from_slice(&state.0);
            self.v[WORDS..].fill(0);
            set(&mut self.v, #one);
        },
    );
    let parts = GameParts {
        imports: TokenStream::new(),
        items: quote! {
            #vector
            #(#tables)*
        },
        fields: quote! {
            #fields
            /// The state, then the derived atoms of the current state and
            /// joint move.
            v: [u64; BITS],
        },
        new: NewGame {
            doc: " A reasoner for this game.",
            inits: quote! {
                #inits
                v: [0; BITS],
            },
            setup: None,
        },
        lints: quote! { unused_mut, unused_variables, clippy::all },
        methods: quote! {
            #load
            #play
            #(#phase_fns)*
            #(#layer_fns)*
        },
        helpers: TokenStream::new(),
        answers: answer_methods(ground),
    };
    skeleton::module(program, domains, arrays, parts)
}
