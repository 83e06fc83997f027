//! What every emitter writes alike: the module's frame ([`module`]: the
//! constants, `State`, `Move`, `Game` with its `roles` and `new`, `impl
//! Reasoner` with the methods that only read those, and the formatting),
//! the `load` of a `Game` that remembers its state, the phase functions,
//! static row tables and literals.

use crate::compile::analyse::domains::Domains;
use crate::compile::emit::arrays::Arrays;
use crate::compile::program::Program;
use crate::ir::PHASES;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// What one emitter's module has of its own; [`module`] assembles it
/// around what every module has.
pub struct GameParts {
    /// Items before the shared ones (imports).
    pub imports: TokenStream,
    /// Constants, statics and functions after the shared items.
    pub items: TokenStream,
    /// The fields of `Game` after `roles`.
    pub fields: TokenStream,
    /// `Game::new`.
    pub new: NewGame,
    /// The lints allowed in `impl Game`.
    pub lints: TokenStream,
    /// The methods of `impl Game` after `new`.
    pub methods: TokenStream,
    /// Items after `impl Game`.
    pub helpers: TokenStream,
    /// The methods of `impl Reasoner for Game` after [`shared_methods`].
    pub answers: TokenStream,
}

/// What `Game::new` does besides reading the roles.
pub struct NewGame {
    /// Its doc comment (with the leading space of a `///` line).
    pub doc: &'static str,
    /// The initial values of the fields after `roles`.
    pub inits: TokenStream,
    /// Statements run on the new `game` before it is returned, if any.
    pub setup: Option<TokenStream>,
}

impl NewGame {
    /// The function `new`.
    fn tokens(self) -> TokenStream {
        let NewGame { doc, inits, setup } = self;
        let body = match setup {
            None => quote! { Game { roles, #inits } },
            Some(setup) => quote! {
                let mut game = Game { roles, #inits };
                #setup
                game
            },
        };
        quote! {
            #[doc = #doc]
            pub fn new() -> Self {
                let roles = ROLE_IDS.iter().map(|&r| TERM_TEXT[r as usize].to_string()).collect();
                #body
            }
        }
    }
}

/// The generated module: [`shared_items`], then `parts` in their places
/// around `Game`, its `new` and `impl Reasoner`; formatted, with the
/// arrays placed in `arrays` filled in (handed back, with the data file of
/// those stored there).
pub fn module(
    program: &Program,
    domains: &Domains,
    mut arrays: Arrays,
    parts: GameParts,
) -> (String, Arrays) {
    let shared = shared_items(program, domains, &mut arrays);
    let data = arrays.data_item();
    let shared_methods = shared_methods();
    let percept_methods = program.has_percepts().then(percept_methods);
    let GameParts {
        imports,
        items,
        fields,
        new,
        lints,
        methods,
        helpers,
        answers,
    } = parts;
    let new = new.tokens();
    let tokens = quote! {
        #imports
        #shared
        #data
        #items

        /// The compiled reasoner.
        pub struct Game {
            roles: Vec<String>,
            #fields
        }

        #[allow(#lints)]
        impl Game {
            #new
            #methods
        }

        #helpers

        impl ::gdl_runtime::Reasoner for Game {
            type State = State;
            type Move = Move;

            #shared_methods
            #percept_methods
            #answers
        }
    };
    let file: syn::File = syn::parse2(tokens).expect("generated code parses");
    (arrays.fill(&prettyplease::unparse(&file)), arrays)
}

/// The part of a `Game` that remembers the state it describes (`current`,
/// once `loaded`) and which of its layers are `done` for it: those fields,
/// their initial values, and `load`, which forgets everything derived
/// when the state changes.
pub struct RememberedState {
    /// The fields.
    pub fields: TokenStream,
    /// Their initial values.
    pub inits: TokenStream,
    /// The method `load`.
    pub load: TokenStream,
}

impl RememberedState {
    /// The fields and `load` of a game of `n_layers` layers whose derived
    /// part `what` (named in `load`'s doc) is forgotten by `leave`, run
    /// while `current` is still the old state, and `clear`, run once it
    /// is the new one.
    pub fn new(n_layers: usize, what: &str, leave: TokenStream, clear: TokenStream) -> Self {
        let n_layers = Literal::usize_unsuffixed(n_layers);
        let doc = format!(" Makes `state` the state the {what} describe.");
        RememberedState {
            fields: quote! {
                current: State,
                loaded: bool,
                done: [bool; #n_layers],
            },
            inits: quote! {
                current: State(INITIAL),
                loaded: false,
                done: [false; #n_layers],
            },
            load: quote! {
                #[doc = #doc]
                fn load(&mut self, state: &State) {
                    if self.loaded && self.current == *state {
                        return;
                    }
                    #leave
                    self.current.clone_from(state);
                    self.loaded = true;
                    self.done = [false; #n_layers];
                    #clear
                }
            },
        }
    }
}

/// The items every module defines: the constants (`ZOBRIST`, `FLUENTS`,
/// `WORDS`, `TERM_TEXT`, `BY_TEXT`, `ROLE_IDS`, `INITIAL`), `State`, `Move`, and
/// `Default` for `Game`.
fn shared_items(program: &Program, domains: &Domains, arrays: &mut Arrays) -> TokenStream {
    let words = domains.fluents.div_ceil(64).max(1);
    let n_terms = Literal::usize_unsuffixed(domains.texts.len());
    let texts = arrays.static_strings(
        &format_ident!("TERM_TEXT"),
        &quote! { #n_terms },
        &domains.texts,
    );
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
    let by_text = arrays.static_ints(&format_ident!("BY_TEXT"), &quote! { #n_terms }, by_text);
    let zobrist = arrays.static_ints(
        &format_ident!("ZOBRIST"),
        &quote! { FLUENTS },
        domains.texts[..domains.fluents]
            .iter()
            .map(|t| gdl_runtime::zobrist_key(t)),
    );
    quote! {
        /// The Zobrist key of every fluent (`gdl_runtime::zobrist_key` of its text).
        #zobrist
        /// Number of possible fluents (the bits of a state).
        pub const FLUENTS: usize = #n_fluents;
        /// Words of a state.
        const WORDS: usize = #n_words;
        /// Canonical text of every term, by id (fluents first).
        #texts
        /// Every term id, in the order of their texts.
        #by_text
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

/// The methods of `Reasoner` every module of a game with `sees` implements
/// alike: percept ids are term ids.
fn percept_methods() -> TokenStream {
    quote! {
        fn has_percepts(&self) -> bool {
            true
        }

        fn percept_text(&self, percept: u32) -> Option<String> {
            TERM_TEXT.get(percept as usize).map(|t| t.to_string())
        }
    }
}

/// The methods of `Reasoner` every module implements alike (in `impl
/// Reasoner for Game`; `Game` has a `roles` field).
fn shared_methods() -> TokenStream {
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

        fn state_from_fluents(&mut self, fluents: &[String]) -> Option<State> {
            let mut state = State([0; WORDS]);
            for text in fluents {
                let text = ::gdl_runtime::kif::canonical(text)?;
                let i = BY_TEXT
                    .binary_search_by(|&t| TERM_TEXT[t as usize].cmp(text.as_str()))
                    .ok()?;
                let f = BY_TEXT[i] as usize;
                if f >= FLUENTS {
                    return None;
                }
                state.0[f >> 6] |= 1 << (f & 63);
            }
            Some(state)
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

/// `phase_legal`, `phase_next`, `phase_terminal`, `phase_goal` and
/// `phase_sees`, the first `phases` of them ([`Program::phases`]): each
/// evaluates, in `orders[phase]`'s order, those of its layers that are not
/// done yet for the current state (or joint move).
pub fn phase_fns(orders: &[Vec<usize>; PHASES], phases: usize) -> Vec<TokenStream> {
    let phase_names = [
        "phase_legal",
        "phase_next",
        "phase_terminal",
        "phase_goal",
        "phase_sees",
    ];
    orders
        .iter()
        .zip(phase_names)
        .take(phases)
        .map(|(order, name)| {
            let name = format_ident!("{name}");
            let calls = order.iter().map(|&l| {
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
