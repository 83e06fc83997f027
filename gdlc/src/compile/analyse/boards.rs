//! Boards: the fluents of one symbol whose arguments but one name a
//! square and the last names what is on it — chess's `(cell ?x ?y ?p)`,
//! amazons' `(location ?x ?y ?c)` — seen as an array over the squares
//! (Kaiser's thesis, boards and pieces found in GDL). A state numbers its
//! fluents by symbol and arguments (amazons' by content first, so that a
//! loop over the white amazons walks an id range); a board numbers the
//! same fluents by square, so that what is on one square is one word.
//!
//! A square is the mixed-radix number of its coordinates, each
//! coordinate numbered from 0 by the values the board's fluents take
//! there, in runtime-id order: chess's files and ranks are 8 values each,
//! though their sorts ([`super::sorts`]) hold 16 (a rank reaches a file's
//! position through `(coordinate ?ignorex)`, never through a fluent). A
//! plan reads a square it has the coordinates of through a table over
//! their runtime ids ([`SquareLookup`]). A square's cell is the set
//! of contents on it (bit `c`: content `c`), so a board says exactly what
//! the fluents say even where two contents could share a square: no
//! proof that the coordinates determine the content is needed. The
//! content position is the last argument under which no two initial
//! fluents share a square, the shape of a board, within [`MAX_SQUARES`]
//! squares and [`MAX_CONTENTS`] contents.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::Program;
use crate::ir::terms::{SymId, TermData, TermId};
use gdl_runtime::support::{box_slot, CONTENT_BITS, OFF_BOARD};
use rustc_hash::{FxHashMap, FxHashSet};

/// Most squares of a board.
pub const MAX_SQUARES: usize = 4_096;
/// Most contents of a board: the bits of a cell.
pub const MAX_CONTENTS: usize = 1 << CONTENT_BITS;
/// Most slots of the table a plan reads a square through: the box of the
/// coordinates' runtime ids.
const MAX_LOOKUP_SLOTS: usize = 1 << 16;

/// One board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// The fluents' symbol and arity.
    pub symbol: SymId,
    /// The number of arguments.
    pub arity: usize,
    /// The argument that names the content.
    pub content: usize,
    /// The number of values of each other argument (the coordinates, in
    /// argument order): a square is their mixed-radix number.
    pub sizes: Vec<usize>,
    /// How a plan finds a square and a content by runtime ids, when the
    /// table for it is small enough.
    pub lookup: Option<SquareLookup>,
    /// The contents (compile-time term ids), by content number.
    pub contents: Vec<TermId>,
    /// The runtime id of its first fluent; its fluents are the ids
    /// `first..first + cells.len()`.
    pub first: u32,
    /// Per fluent, its square and content: `square << CONTENT_BITS |
    /// content`.
    pub cells: Vec<u32>,
}

impl Board {
    /// The number of squares.
    pub fn squares(&self) -> usize {
        self.sizes.iter().product()
    }

    /// The square and content of fluent `f`, if it is one of the board's.
    pub fn cell(&self, f: u32) -> Option<(u32, u32)> {
        let i = f.checked_sub(self.first)? as usize;
        let cell = *self.cells.get(i)?;
        Some((cell >> CONTENT_BITS, cell & (MAX_CONTENTS as u32 - 1)))
    }
}

/// The tables through which a plan reads a board: the square of each
/// slot of the box of the coordinates' runtime ids
/// (`gdl_runtime::support::board_cell`), and the bit of each content by
/// runtime id (`content_bit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SquareLookup {
    /// Per coordinate, its least runtime id.
    pub mins: Vec<u32>,
    /// Per coordinate, the span of its runtime ids.
    pub spans: Vec<u32>,
    /// Per slot of the box, its square or `OFF_BOARD`.
    pub squares: Vec<u32>,
    /// The least runtime id of a content.
    pub content_min: u32,
    /// Per runtime id from `content_min`, its content's bit (0 for none).
    pub content_bits: Vec<u32>,
}

/// The boards of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Boards {
    /// Every board, by its first fluent.
    pub boards: Vec<Board>,
}

impl Boards {
    /// The board of fluent `f` (its index), its square and content.
    pub fn cell(&self, f: u32) -> Option<(usize, u32, u32)> {
        (self.boards.iter().enumerate())
            .find_map(|(b, board)| board.cell(f).map(|(square, content)| (b, square, content)))
    }
}

/// The boards among the fluents of `program` (see the module's
/// documentation), numbered by `domains`' runtime ids.
pub fn find(program: &Program, domains: &Domains) -> Boards {
    let mut fluents: Vec<TermId> = vec![0; domains.fluents];
    for (t, &id) in domains.runtime_id.iter().enumerate() {
        if (id as usize) < domains.fluents {
            fluents[id as usize] = t as TermId;
        }
    }
    let shape = |t: TermId| match program.store.data(t) {
        TermData::Func(s, args) if args.len() >= 2 => Some((*s, args.len())),
        _ => None,
    };
    let mut boards = Boards::default();
    let mut first = 0;
    while first < fluents.len() {
        let run = shape(fluents[first]);
        let end = (first..fluents.len())
            .find(|&f| shape(fluents[f]) != run)
            .unwrap_or(fluents.len());
        if let Some((symbol, arity)) = run {
            let found = (0..arity).rev().find_map(|content| {
                board(program, domains, &fluents[first..end], content).map(
                    |(numbers, contents, cells)| Board {
                        symbol,
                        arity,
                        content,
                        sizes: numbers.iter().map(Vec::len).collect(),
                        lookup: square_lookup(domains, &numbers, &contents),
                        contents,
                        first: first as u32,
                        cells,
                    },
                )
            });
            boards.boards.extend(found);
        }
        first = end;
    }
    boards
}

/// A board's shape: each coordinate's values by number, the contents,
/// each fluent's cell.
type Shape = (Vec<Vec<TermId>>, Vec<TermId>, Vec<u32>);

/// The board of `fluents` (of one symbol, consecutive runtime ids) with
/// its content at argument `content`; `None` when they do not have a
/// board's shape.
fn board(
    program: &Program,
    domains: &Domains,
    fluents: &[TermId],
    content: usize,
) -> Option<Shape> {
    let args = |t: TermId| match program.store.data(t) {
        TermData::Func(_, args) => args.clone(),
        TermData::Const(_) => unreachable!("a board's fluents are compound"),
    };
    let TermData::Func(symbol, first_args) = program.store.data(fluents[0]) else {
        return None;
    };
    let arity = first_args.len();
    let values_at = |k: usize| -> Vec<TermId> {
        let mut seen: Vec<TermId> = fluents.iter().map(|&f| args(f)[k]).collect();
        seen.sort_unstable_by_key(|&t| domains.id(t));
        seen.dedup();
        seen
    };
    let contents = values_at(content);
    if contents.len() > MAX_CONTENTS {
        return None;
    }
    let coordinates: Vec<usize> = (0..arity).filter(|&k| k != content).collect();
    let values: Vec<Vec<TermId>> = coordinates.iter().map(|&k| values_at(k)).collect();
    let numbers: Vec<FxHashMap<TermId, usize>> = (values.iter())
        .map(|v| v.iter().enumerate().map(|(i, &t)| (t, i)).collect())
        .collect();
    let squares = values.iter().try_fold(1usize, |n, v| {
        n.checked_mul(v.len()).filter(|&n| n <= MAX_SQUARES)
    })?;
    if squares < 2 {
        return None;
    }
    let square = |t: TermId| -> Option<usize> {
        let a = args(t);
        (coordinates.iter().zip(&numbers))
            .try_fold(0usize, |sq, (&k, n)| Some(sq * n.len() + n.get(&a[k])?))
    };
    let mut initial = FxHashSet::default();
    for &t in &program.init {
        let of_symbol = matches!(program.store.data(t), TermData::Func(s, a) if s == symbol && a.len() == arity);
        if of_symbol && !initial.insert(square(t)?) {
            return None;
        }
    }
    let cells = (fluents.iter())
        .map(|&f| {
            let c = contents.iter().position(|&v| v == args(f)[content])?;
            Some((square(f)? as u32) << CONTENT_BITS | c as u32)
        })
        .collect::<Option<Vec<u32>>>()?;
    Some((values, contents, cells))
}

/// The tables of a board whose coordinates take `values` (by number) and
/// whose contents are `contents`, when the box of the coordinates'
/// runtime ids has at most [`MAX_LOOKUP_SLOTS`] slots.
fn square_lookup(
    domains: &Domains,
    values: &[Vec<TermId>],
    contents: &[TermId],
) -> Option<SquareLookup> {
    let span = |ids: &[u32]| -> (u32, u32) {
        let min = ids.iter().copied().min().unwrap_or(0);
        (min, ids.iter().copied().max().map_or(0, |m| m - min + 1))
    };
    let ids: Vec<Vec<u32>> = (values.iter())
        .map(|v| v.iter().map(|&t| domains.id(t)).collect())
        .collect();
    let (mins, spans): (Vec<u32>, Vec<u32>) = ids.iter().map(|i| span(i)).unzip();
    let slots = spans.iter().try_fold(1usize, |n, &s| {
        n.checked_mul(s as usize).filter(|&n| n <= MAX_LOOKUP_SLOTS)
    })?;
    let mut squares = vec![OFF_BOARD; slots];
    let mut number = vec![0usize; ids.len()];
    'squares: for square in 0.. {
        let key: Vec<u32> = (ids.iter().zip(&number)).map(|(i, &n)| i[n]).collect();
        let slot = box_slot(&mins, &spans, &key).expect("in its own box");
        squares[slot] = square;
        for c in (0..number.len()).rev() {
            number[c] += 1;
            if number[c] < ids[c].len() {
                continue 'squares;
            }
            number[c] = 0;
        }
        break;
    }
    let content_ids: Vec<u32> = contents.iter().map(|&t| domains.id(t)).collect();
    let (content_min, content_span) = span(&content_ids);
    let mut content_bits = vec![0; content_span as usize];
    for (c, &id) in content_ids.iter().enumerate() {
        content_bits[(id - content_min) as usize] = 1 << c;
    }
    Some(SquareLookup {
        mins,
        spans,
        squares,
        content_min,
        content_bits,
    })
}

#[cfg(test)]
mod tests {
    use super::{find, MAX_CONTENTS};
    use crate::compile::analyze_with;
    use crate::compile::Strategy;
    use crate::ir::terms::{TermData, TermId};
    use gdl_runtime::support::{box_slot, CONTENT_BITS, OFF_BOARD};

    fn boards_of(text: &str) -> Vec<(String, usize, Vec<usize>, Vec<String>)> {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let boards = find(&c.program, &c.domains);
        (boards.boards.iter())
            .map(|b| {
                let contents = b.contents.iter().map(|&t| c.program.store.text(t));
                (
                    c.program.store.symbol_name(b.symbol).to_string(),
                    b.content,
                    b.sizes.clone(),
                    contents.collect(),
                )
            })
            .collect()
    }

    const GAME: &str = "(role a)\n(succ 1 2)\n(succ 2 3)\n(index 1)\n(index 2)\n(index 3)\n\
        (init (cell 1 1 x))\n(init (cell 2 1 o))\n(init (cell 3 3 o))\n(init (mark 1 1))\n\
        (init (mark 1 2))\n\
        (<= (legal a (put ?x ?y)) (index ?x) (index ?y) (not (true (cell ?x ?y x))))\n\
        (<= (next (cell ?x ?y x)) (does a (put ?x ?y)))\n\
        (<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)))\n\
        (<= (next (mark ?x ?y)) (true (mark ?x ?y)))\n\
        (<= terminal (true (cell 3 1 x)))\n(goal a 100)\n";

    #[test]
    fn a_board_is_found_by_its_squares_and_contents() {
        let boards = boards_of(GAME);
        let cell = boards
            .iter()
            .find(|b| b.0 == "cell")
            .expect("cell is a board");
        assert_eq!(cell.1, 2, "the content is the last argument");
        assert_eq!(cell.2, vec![3, 3]);
        assert_eq!(cell.3, vec!["o", "x"]);
    }

    #[test]
    fn a_square_is_found_by_its_coordinates_runtime_ids() {
        let loaded = crate::load_bytes("t.kif".into(), GAME.as_bytes().to_vec()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let boards = find(&c.program, &c.domains);
        let cell = (boards.boards.iter())
            .find(|b| c.program.store.symbol_name(b.symbol) == "cell")
            .expect("cell is a board");
        let lookup = cell.lookup.as_ref().expect("a small box");
        for (i, &packed) in cell.cells.iter().enumerate() {
            let fluent = (c.domains.runtime_id.iter())
                .position(|&id| id == cell.first + i as u32)
                .expect("a fluent");
            let TermData::Func(_, args) = c.program.store.data(fluent as TermId) else {
                panic!("a compound fluent");
            };
            let key = [c.domains.id(args[0]), c.domains.id(args[1])];
            let slot = box_slot(&lookup.mins, &lookup.spans, &key).expect("in the box");
            assert_eq!(lookup.squares[slot], packed >> CONTENT_BITS);
            let content = c.domains.id(args[2]) - lookup.content_min;
            let bit = lookup.content_bits[content as usize];
            assert_eq!(bit, 1 << (packed & (MAX_CONTENTS as u32 - 1)));
        }
        let squares = lookup.squares.iter().filter(|&&s| s != OFF_BOARD).count();
        assert_eq!(squares, cell.squares());
    }

    #[test]
    fn initial_fluents_sharing_a_square_under_the_last_argument_put_the_content_elsewhere() {
        // `(mark 1 1)` and `(mark 1 2)` share their first argument: the
        // board would have its content first, squares being the second.
        let boards = boards_of(GAME);
        let mark = boards
            .iter()
            .find(|b| b.0 == "mark")
            .expect("mark is a board");
        assert_eq!(mark.1, 0);
    }
}
