//! Stage 8, code generation for a planned program: the module of
//! [`crate::compile::emit::skeleton`] filled with the containers of the
//! dynamic relations, the functions of the layers and rules
//! ([`crate::compile::emit::relational_rules`]) and the answers read off
//! the relations. Every map is iterated in a fixed order, so the same
//! description gives the same bytes.
//!
//! The generated module defines `State` (a bitset over the possible
//! fluents), `Move` (a term id) and `Game`, which keeps one container per
//! dynamic relation and evaluates, for the state it was last asked about,
//! only the layers of the phase asked for.

use crate::compile::analyse::boards::Boards;
use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::relational_layers::{
    field_types, layer_fns, memo_field, phase_roots, rel_field,
};
use crate::compile::emit::relational_rules::{board_field, rule_fns, RulesInput, FAMILIES};
use crate::compile::emit::skeleton::{self, lit, phase_fns, GameParts, NewGame, RememberedState};
use crate::compile::emit::table_lookups::Registered;
use crate::compile::program::{Class, Program, RelId};
use crate::compile::relational::containers::{self, Container};
use crate::compile::relational::plan::{Table, Tables};
use crate::ir::Phase;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// Everything code generation reads.
pub struct Input<'a> {
    /// The program, its domains, layers and plans, and the relations
    /// answered by a search (which have no container).
    pub rules: RulesInput<'a>,
    /// The constant tables (more are added for term patterns).
    pub tables: &'a mut Tables,
    /// Where the long arrays go.
    pub arrays: Arrays,
}

/// The generated module.
pub fn module(input: Input<'_>) -> (String, Arrays) {
    let Input {
        rules,
        tables,
        mut arrays,
    } = input;
    let RulesInput {
        program,
        domains,
        layers,
        top_down,
        containers,
        boards,
        ..
    } = rules;
    let excluded = top_down.excluded();
    let mut registered = Registered::new(program.relations.len());
    let (rule_items, recursion) = rule_fns(&rules, tables, &mut registered);
    let rule_fns = &rule_items.methods;
    let layer_fns: Vec<TokenStream> = layers
        .layers
        .iter()
        .enumerate()
        .map(|(i, layer)| layer_fns(i, layer, &recursion))
        .collect();
    let phase_fns = phase_fns(&phase_roots(program, layers), program.phases());
    let relations = ContainerCode::new(
        program,
        layers,
        containers,
        &registered.indexes,
        &excluded,
        &top_down.remembered,
    );
    let index_items = registered.index_items(&mut arrays);
    let answers = AnswerLoops {
        program,
        domains,
        tables,
        containers,
    }
    .methods();
    let rays = registered.ray_table_indexes();
    let table_items = (tables.tables.iter().enumerate()).map(|(i, t)| {
        let storable = !rays.contains(&i);
        arrays.static_rows(&format_ident!("T{i}"), t.columns, &t.rows, storable)
    });
    let table_items: Vec<TokenStream> = table_items.collect();
    let ContainerCode {
        mut fields,
        mut inits,
        mut clear_state,
        clear_moves,
    } = relations;
    let mut imports = quote! {
        any_held, any_one, box_slot, boxed_range, find, first_column, next_one, ones, range,
        ranked_member, Rel, END,
    };
    if top_down.remembered.contains(&true) {
        imports.extend(quote! { Memo, });
    }
    if domains.open.iter().flatten().any(|&o| o) {
        // Terms built at run time get the ids after the compiler's, and
        // are forgotten with the state that built them.
        let first = lit(domains.texts.len() as u32);
        fields.extend(quote! {
            /// The terms built at run time in the current state.
            terms: OpenTerms,
        });
        inits.extend(quote! { terms: OpenTerms::new(#first), });
        clear_state.extend(quote! { self.terms.clear(); });
        imports.extend(quote! { build_term, term_args, OpenTerms, });
    }
    let board_cells = BoardCode::new(boards, &registered.boards_read(), &mut arrays).add_to(
        &mut fields,
        &mut inits,
        &mut clear_state,
        &mut imports,
    );
    let RememberedState {
        fields: remembered_fields,
        inits: remembered_inits,
        load,
    } = RememberedState::new(layers.layers.len(), "relations", clear_state);
    let lints = if excluded.contains(&true) {
        // A search whose witness needs no loop returns before its end.
        quote! { unused_labels, unused_variables, unreachable_code, clippy::all }
    } else {
        quote! { unused_labels, unused_variables, clippy::all }
    };
    let helpers = families_module(&rule_items.families, &lints);
    let parts = GameParts {
        imports: quote! {
            use ::gdl_runtime::support::{ #imports };
        },
        items: quote! {
            #(#table_items)*
            #(#index_items)*
            #(#board_cells)*
        },
        fields: quote! { #remembered_fields #fields },
        new: NewGame {
            doc: " A reasoner for this game.",
            inits: quote! { #remembered_inits #inits },
            setup: None,
        },
        lints,
        methods: quote! {
            #load
            #clear_moves
            #(#phase_fns)*
            #(#layer_fns)*
            #(#rule_fns)*
        },
        helpers,
        answers,
    };
    skeleton::module(program, domains, arrays, parts)
}

/// The module of the family functions, if there are any.
fn families_module(families: &[TokenStream], lints: &TokenStream) -> TokenStream {
    if families.is_empty() {
        return TokenStream::new();
    }
    let module = format_ident!("{FAMILIES}");
    quote! {
        /// The functions of the rule families (`family_<i>`), a codegen
        /// unit of their own.
        #[allow(#lints)]
        mod #module {
            use super::*;
            #(#families)*
        }
    }
}

/// The boards the rules read ([`crate::compile::analyse::boards`]): per
/// board, a field of its contents in the current state, filled by `load`
/// from the state's fluents through a static table of each fluent's cell
/// (`BOARD_<b>`).
struct BoardCode {
    fields: TokenStream,
    inits: TokenStream,
    fill: TokenStream,
    cells: Vec<TokenStream>,
}

impl BoardCode {
    /// The code of the boards `read` among `boards`.
    fn new(boards: &Boards, read: &BTreeSet<usize>, arrays: &mut Arrays) -> Self {
        let mut code = BoardCode {
            fields: TokenStream::new(),
            inits: TokenStream::new(),
            fill: TokenStream::new(),
            cells: Vec::new(),
        };
        for &b in read {
            let board = &boards.boards[b];
            let field = board_field(b);
            let table = format_ident!("BOARD_{b}");
            let squares = Literal::usize_unsuffixed(board.squares());
            let first = lit(board.first);
            let n = Literal::usize_unsuffixed(board.cells.len());
            let doc = format!(
                " The contents of each square of board {b} in the current state (bit `c`: content `c`)."
            );
            code.fields.extend(quote! {
                #[doc = #doc]
                #field: [u32; #squares],
            });
            code.inits.extend(quote! { #field: [0; #squares], });
            code.fill.extend(quote! {
                fill_board(&mut self.#field, &self.current.0, #first, &#table);
            });
            code.cells.push(arrays.static_ints(
                &table,
                &quote! { #n },
                board.cells.iter().copied(),
            ));
        }
        code
    }

    /// Adds the boards' fields, initial values, filling (to `load`'s
    /// clearing) and import to the module's; their cell tables.
    fn add_to(
        self,
        fields: &mut TokenStream,
        inits: &mut TokenStream,
        load: &mut TokenStream,
        imports: &mut TokenStream,
    ) -> Vec<TokenStream> {
        fields.extend(self.fields);
        inits.extend(self.inits);
        load.extend(self.fill);
        if !self.cells.is_empty() {
            imports.extend(quote! { fill_board, });
        }
        self.cells
    }
}

/// The code of the containers of the dynamic relations: every dynamic
/// relation but `true` and the asked ones has one (one without rules stays
/// empty); and of the memos of the searches that remember their answers.
struct ContainerCode {
    /// The fields of `Game` holding them.
    fields: TokenStream,
    /// Their initial values.
    inits: TokenStream,
    /// Statements emptying them all (the state changed).
    clear_state: TokenStream,
    /// `clear_moves`, which forgets the relations of the last joint move.
    clear_moves: TokenStream,
}

impl ContainerCode {
    /// The containers' code, each with the `indexes` its scans use, for
    /// the relations not `excluded`, and the memos of the `remembered`
    /// searches.
    fn new(
        program: &Program,
        layers: &Layers,
        containers: &[Container],
        indexes: &[Vec<Vec<bool>>],
        excluded: &[bool],
        remembered: &[bool],
    ) -> Self {
        let types = field_types(program, containers, excluded);
        let dynamic: Vec<RelId> = (0..program.relations.len())
            .filter(|&r| types[r].is_some())
            .collect();
        let fields = dynamic.iter().map(|&r| {
            let name = rel_field(r);
            let ty = &types[r];
            let doc = format!(" `{}`", program.relations[r]);
            quote! { #[doc = #doc] #name: #ty }
        });
        let inits = dynamic.iter().map(|&r| {
            let name = rel_field(r);
            let dense = match containers::dense_box(&containers[r]) {
                Some((mins, spans)) => {
                    let mins = mins.iter().map(|&m| lit(m));
                    let spans = spans.iter().map(|&m| lit(m));
                    quote! { Some(([#(#mins),*], [#(#spans),*])) }
                }
                None => quote! { None },
            };
            let masks = indexes[r].iter().map(|m| quote! { [#(#m),*] });
            quote! { #name: Rel::new(&[#(#masks),*], #dense) }
        });
        let clear_state = dynamic.iter().map(|&r| {
            let name = rel_field(r);
            quote! { self.#name.clear(); }
        });
        let remembered: Vec<RelId> = (0..program.relations.len())
            .filter(|&r| remembered[r])
            .collect();
        let memo_fields = remembered.iter().map(|&r| {
            let (name, arity) = (memo_field(r), lit(program.relations[r].arity as u32));
            let doc = format!(
                " The answers of the searches of `{}`.",
                program.relations[r]
            );
            quote! { #[doc = #doc] #name: Memo<#arity> }
        });
        let memo_inits = remembered.iter().map(|&r| {
            let name = memo_field(r);
            quote! { #name: Memo::default() }
        });
        let forget_answers: TokenStream = (remembered.iter())
            .map(|&r| {
                let name = memo_field(r);
                quote! { self.#name.clear(); }
            })
            .collect();
        let (next_field, next_init) = match containers.contains(&Container::NextBits) {
            true => (
                quote! {
                    /// The fluents of the next state derived so far.
                    next_fluents: State,
                },
                quote! { next_fluents: State([0; WORDS]), },
            ),
            false => Default::default(),
        };
        ContainerCode {
            fields: quote! { #(#fields,)* #(#memo_fields,)* #next_field },
            inits: quote! { #(#inits,)* #(#memo_inits,)* #next_init },
            clear_state: quote! { #(#clear_state)* #forget_answers },
            clear_moves: clear_moves(program, layers, containers, forget_answers),
        }
    }
}

/// `clear_moves`: empties `does` and the containers of the per-move
/// layers, and forgets those layers and the searches' answers (`forget_answers`).
fn clear_moves(
    program: &Program,
    layers: &Layers,
    containers: &[Container],
    forget_answers: TokenStream,
) -> TokenStream {
    let does = rel_field(program.does_rel);
    let clears = (0..layers.layers.len())
        .filter(|&l| layers.layers[l].class == Class::Move)
        .map(|l| {
            let idx = Literal::usize_unsuffixed(l);
            let members = layers.layers[l].members.iter();
            let clears = members
                .filter(|&&r| containers[r] != Container::NextBits)
                .map(|&r| {
                    let name = rel_field(r);
                    quote! { self.#name.clear(); }
                });
            quote! { self.done[#idx] = false; #(#clears)* }
        });
    quote! {
        /// Forgets the relations of the last joint move.
        fn clear_moves(&mut self) {
            self.#does.clear();
            #(#clears)*
            #forget_answers
        }
    }
}

/// The answering methods of `Reasoner`, which read the relations that
/// answer each phase (static ones from tables added to `tables`).
struct AnswerLoops<'a> {
    program: &'a Program,
    domains: &'a Domains,
    tables: &'a mut Tables,
    containers: &'a [Container],
}

impl AnswerLoops<'_> {
    /// `is_terminal`, `legal_moves`, `next_state`, `goal` and, in a game
    /// with percepts, `sees`.
    fn methods(mut self) -> TokenStream {
        let legal = self.legal_moves();
        let next = self.next_state();
        let terminal = self.is_terminal();
        let goal = self.goal();
        let sees = self.program.has_percepts().then(|| self.sees());
        quote! {
            #terminal
            #legal
            #next
            #goal
            #sees
        }
    }

    /// A loop running `body` on every `row` of relation `r`.
    fn each_row(&mut self, r: RelId, body: TokenStream) -> TokenStream {
        let program = self.program;
        if program.class[r] == Class::Static {
            let rows = program.facts[r]
                .iter()
                .map(|row| row.iter().map(|&t| self.domains.id(t)).collect())
                .collect();
            let columns = program.relations[r].arity;
            let t = format_ident!(
                "T{}",
                self.tables.add(Table {
                    columns,
                    rows,
                    fluent_key: None,
                })
            );
            quote! { for &row in #t.iter() { #body } }
        } else {
            let f = rel_field(r);
            quote! {
                for i in 0..self.#f.len() {
                    let row = self.#f.get(i);
                    #body
                }
            }
        }
    }

    /// `legal_moves`: the moves of the role's rows of every `legal`
    /// relation, without repeats when there are several.
    fn legal_moves(&mut self) -> TokenStream {
        let relations = &self.program.answers[0];
        let push = if relations.len() > 1 {
            quote! { if !out.contains(&Move(row[1])) { out.push(Move(row[1])); } }
        } else {
            quote! { out.push(Move(row[1])); }
        };
        let loops: Vec<TokenStream> = relations
            .iter()
            .map(|&r| self.each_row(r, quote! { if row[0] == who { #push } }))
            .collect();
        quote! {
            fn legal_moves(&mut self, state: &State, role: usize, out: &mut Vec<Move>) {
                self.load(state);
                self.phase_legal();
                out.clear();
                let who = ROLE_IDS[role];
                #(#loops)*
            }
        }
    }

    /// The statements that make `state` and `joint` the ones the relations
    /// describe, the relations of the last joint move forgotten (the start
    /// of `next_state` and `sees`).
    fn play(&self) -> TokenStream {
        let does = rel_field(self.program.does_rel);
        quote! {
            self.load(state);
            self.clear_moves();
            for (role, mv) in joint.iter().enumerate() {
                self.#does.insert([ROLE_IDS[role], mv.0]);
            }
        }
    }

    /// `next_state`: the fluents the streamed `next` relations set
    /// ([`Container::NextBits`]) and those of the rows of every other.
    fn next_state(&mut self) -> TokenStream {
        let play = self.play();
        let streamed = self.containers.contains(&Container::NextBits);
        let start = match streamed {
            true => quote! { self.next_fluents.0 = [0; WORDS]; },
            false => TokenStream::new(),
        };
        let bits = match streamed {
            true => quote! { self.next_fluents.0 },
            false => quote! { [0u64; WORDS] },
        };
        let loops: Vec<TokenStream> = (self.program.answers[1].iter())
            .filter(|&&r| self.containers[r] != Container::NextBits)
            .map(|&r| {
                self.each_row(
                    r,
                    quote! {
                        let f = row[0] as usize;
                        bits[f >> 6] |= 1u64 << (f & 63);
                    },
                )
            })
            .collect();
        quote! {
            fn next_state(&mut self, state: &State, joint: &[Move]) -> State {
                #play
                #start
                self.phase_next();
                let mut bits = #bits;
                #(#loops)*
                State(bits)
            }
        }
    }

    /// `sees`: the percepts of the role's rows of every `sees` relation
    /// when the joint move is played in the state, ascending and distinct.
    fn sees(&mut self) -> TokenStream {
        let play = self.play();
        let loops: Vec<TokenStream> = self.program.answers[Phase::Sees as usize]
            .iter()
            .map(|&r| self.each_row(r, quote! { if row[0] == who { out.push(row[1]); } }))
            .collect();
        quote! {
            fn sees(&mut self, state: &State, joint: &[Move], role: usize, out: &mut Vec<u32>) {
                #play
                self.phase_sees();
                out.clear();
                let who = ROLE_IDS[role];
                #(#loops)*
                out.sort_unstable();
                out.dedup();
            }
        }
    }

    /// `is_terminal`: whether some `terminal` relation has a fact.
    fn is_terminal(&self) -> TokenStream {
        let program = self.program;
        let checks = program.answers[2].iter().map(|&r| {
            if program.class[r] == Class::Static {
                let holds = !program.facts[r].is_empty();
                quote! { || #holds }
            } else {
                let f = rel_field(r);
                quote! { || !self.#f.is_empty() }
            }
        });
        quote! {
            fn is_terminal(&mut self, state: &State) -> bool {
                self.load(state);
                self.phase_terminal();
                false #(#checks)*
            }
        }
    }

    /// `goal`: the role's value among the rows of every `goal` relation,
    /// if it has exactly one.
    fn goal(&mut self) -> TokenStream {
        let loops: Vec<TokenStream> = self.program.answers[3]
            .iter()
            .map(|&r| {
                self.each_row(
                    r,
                    quote! {
                        if row[0] == who {
                            match value {
                                None => value = Some(row[1]),
                                Some(v) if v != row[1] => many = true,
                                Some(_) => {}
                            }
                        }
                    },
                )
            })
            .collect();
        quote! {
            fn goal(&mut self, state: &State, role: usize) -> Option<u32> {
                self.load(state);
                self.phase_goal();
                let who = ROLE_IDS[role];
                let mut value: Option<u32> = None;
                let mut many = false;
                #(#loops)*
                match (value, many) {
                    (Some(v), false) => TERM_TEXT[v as usize].parse().ok(),
                    _ => None,
                }
            }
        }
    }
}
