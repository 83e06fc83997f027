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

use crate::compile::analyse::boards::{Board, Boards, SquareLookup};
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
    let mut state_code = StateCode {
        fields: &mut fields,
        inits: &mut inits,
        leave: TokenStream::new(),
        clear: &mut clear_state,
        imports: &mut imports,
    };
    open_terms(domains, &mut state_code);
    let board_cells =
        BoardCode::new(boards, domains, &registered, &mut arrays).add_to(&mut state_code);
    let leave = state_code.leave;
    let RememberedState {
        fields: remembered_fields,
        inits: remembered_inits,
        load,
    } = RememberedState::new(layers.layers.len(), "relations", leave, clear_state);
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

/// What the parts of the reasoner that hang on the current state add to
/// its code: fields, their initial values, what `load` does before it
/// replaces the state (`leave`) and after (`clear`), imports.
struct StateCode<'a> {
    fields: &'a mut TokenStream,
    inits: &'a mut TokenStream,
    leave: TokenStream,
    clear: &'a mut TokenStream,
    imports: &'a mut TokenStream,
}

/// The table of the terms built at run time, for a game with open
/// arguments: they get the ids after the compiler's, and are forgotten
/// with the state that built them.
fn open_terms(domains: &Domains, code: &mut StateCode<'_>) {
    if !domains.open.iter().flatten().any(|&o| o) {
        return;
    }
    let first = lit(domains.texts.len() as u32);
    code.fields.extend(quote! {
        /// The terms built at run time in the current state.
        terms: OpenTerms,
    });
    code.inits.extend(quote! { terms: OpenTerms::new(#first), });
    code.clear.extend(quote! { self.terms.clear(); });
    code.imports
        .extend(quote! { build_term, term_args, OpenTerms, });
}

/// Most squares of a board that `load` empties whole (a few vector
/// stores) rather than square by square where the old state's fluents
/// were (hex's `connected` has 738 squares and none at the start).
const MAX_ZEROED_SQUARES: usize = 64;

/// The boards the rules read ([`crate::compile::analyse::boards`]): per
/// board, a field of its contents in the current state, kept by `load`
/// through a static table of each fluent's cell (`BOARD_<b>`): emptied
/// (whole, or the squares of the old state's fluents), then the squares
/// of the new one's filled; for a board a plan reads a square of, the tables it
/// finds the square and the contents by (`SQUARES_<b>`, `CONTENT_BITS_<b>`,
/// `CONTENTS_<b>`).
struct BoardCode {
    fields: TokenStream,
    inits: TokenStream,
    clear: TokenStream,
    fill: TokenStream,
    tables: Vec<TokenStream>,
    imports: TokenStream,
}

impl BoardCode {
    /// The code of the boards among `boards` that the rules read, as
    /// `registered` says.
    fn new(
        boards: &Boards,
        domains: &Domains,
        registered: &Registered,
        arrays: &mut Arrays,
    ) -> Self {
        let (read, plan_read) = (&registered.boards_read(), &registered.plan_boards);
        let mut code = BoardCode {
            fields: TokenStream::new(),
            inits: TokenStream::new(),
            clear: TokenStream::new(),
            fill: TokenStream::new(),
            tables: Vec::new(),
            imports: TokenStream::new(),
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
            if board.squares() <= MAX_ZEROED_SQUARES {
                code.fill.extend(quote! { self.#field = [0; #squares]; });
            } else {
                code.clear.extend(quote! {
                    clear_board(&mut self.#field, &self.current.0, #first, &#table);
                });
            }
            code.fill.extend(quote! {
                fill_board(&mut self.#field, &self.current.0, #first, &#table);
            });
            code.tables.push(arrays.static_ints(
                &table,
                &quote! { #n },
                board.cells.iter().copied(),
            ));
            if let Some(lookup) = board.lookup.as_ref().filter(|_| plan_read.contains(&b)) {
                code.lookup_tables(b, board, lookup, domains, arrays);
            }
        }
        if !read.is_empty() {
            code.imports.extend(quote! { fill_board, });
        }
        if !code.clear.is_empty() {
            code.imports.extend(quote! { clear_board, });
        }
        if !plan_read.is_empty() {
            code.imports
                .extend(quote! { bits, board_cell, content_bit, });
        }
        code
    }

    /// The tables through which the plans read board `b`.
    fn lookup_tables(
        &mut self,
        b: usize,
        board: &Board,
        lookup: &SquareLookup,
        domains: &Domains,
        arrays: &mut Arrays,
    ) {
        let len = |n: usize| {
            let n = Literal::usize_unsuffixed(n);
            quote! { #n }
        };
        let (squares, bits, contents) = (
            format_ident!("SQUARES_{b}"),
            format_ident!("CONTENT_BITS_{b}"),
            format_ident!("CONTENTS_{b}"),
        );
        let content_ids = board.contents.iter().map(|&t| domains.id(t));
        self.tables.extend([
            arrays.static_ints(
                &squares,
                &len(lookup.squares.len()),
                lookup.squares.iter().copied(),
            ),
            arrays.static_ints(
                &bits,
                &len(lookup.content_bits.len()),
                lookup.content_bits.iter().copied(),
            ),
            arrays.static_ints(&contents, &len(board.contents.len()), content_ids),
        ]);
    }

    /// Adds the boards' fields, initial values, clearing (to what `load`
    /// does before it replaces the state), filling (to what it does after)
    /// and imports to the module's; their tables.
    fn add_to(self, code: &mut StateCode<'_>) -> Vec<TokenStream> {
        code.fields.extend(self.fields);
        code.inits.extend(self.inits);
        code.leave.extend(self.clear);
        code.clear.extend(self.fill);
        code.imports.extend(self.imports);
        self.tables
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
