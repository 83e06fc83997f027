//! The translation of a Simplified Boardgame into GDL, as the paper's
//! section V describes it: the position as one board predicate
//! `(cell ?x ?y ?piece)` (`b` for an empty square) or, by [`Encoding`], as
//! one position predicate per piece (`(pos_wrook ?x ?y)`, only the occupied
//! squares, so far fewer possible fluents when pieces are few); the moves of every piece type expanded into
//! sequences of letters and stars and merged into a trie, so that a prefix
//! several moves (or several piece types) share is one intermediate
//! predicate computed once, and each star a recursion over the coordinate
//! sums `xsum`/`ysum` (within GDL's recursion restriction: the squares
//! reached so far are bound by a static relation of the same rule).

use super::regex::{Atom, Letter, On};
use super::spec::{Boardgame, BoardgameError, Side, WinCondition};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// How the state stores the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    /// One board predicate `(cell ?x ?y ?piece)`, every square, `b` when empty.
    #[default]
    Board,
    /// One predicate per piece, `(pos_wrook ?x ?y)`, the occupied squares only.
    PiecePositions,
}

impl Encoding {
    /// The literal: `q` stands on `(x, y)`.
    fn occupant(self, x: &str, y: &str, q: &str) -> String {
        match self {
            Encoding::Board => format!("(true (cell {x} {y} {q}))"),
            Encoding::PiecePositions => format!("(piece_at {x} {y} {q})"),
        }
    }

    /// The literal: `(x, y)` is empty.
    fn empty(self, x: &str, y: &str) -> String {
        match self {
            Encoding::Board => format!("(true (cell {x} {y} b))"),
            Encoding::PiecePositions => format!("(not (occupied {x} {y}))"),
        }
    }
}

/// One node of the trie of move prefixes: the predicate `prefix_N` holds
/// `(piece x0 y0 x y)` when `piece` on `(x0, y0)` reaches `(x, y)` by the
/// node's prefix.
struct Node {
    /// The prefix's last atom (`None` for the root, the pieces of the mover).
    atom: Option<Atom>,
    /// The parent node.
    parent: usize,
    /// The pieces (GDL constants) whose moves go through the node.
    pieces: BTreeSet<String>,
    /// The pieces with a move that ends at the node.
    ends: BTreeSet<String>,
    /// Whether a move ending here may come back to its start square.
    may_return: bool,
}

/// The trie of every move of every piece on the board initially.
struct Trie {
    nodes: Vec<Node>,
    children: BTreeMap<(usize, Atom), usize>,
}

impl Trie {
    /// The trie of the moves of `game`'s pieces.
    fn build(game: &Boardgame) -> Result<Trie, BoardgameError> {
        let root = Node {
            atom: None,
            parent: 0,
            pieces: BTreeSet::new(),
            ends: BTreeSet::new(),
            may_return: false,
        };
        let mut trie = Trie {
            nodes: vec![root],
            children: BTreeMap::new(),
        };
        for (t, piece) in game.pieces.iter().enumerate() {
            let sequences = piece
                .moves
                .sequences()
                .map_err(|e| BoardgameError(format!("the moves of `{}`: {e}", piece.name)))?;
            for side in [Side::White, Side::Black] {
                if game.has_initially(side, t) {
                    let constant = game.piece_constant(side, t);
                    for sequence in &sequences {
                        trie.insert(sequence, &constant);
                    }
                }
            }
        }
        Ok(trie)
    }

    /// Adds one move of `piece`; an empty move (staying put) is no move.
    fn insert(&mut self, sequence: &[Atom], piece: &str) {
        if sequence.is_empty() {
            return;
        }
        let mut at = 0;
        self.nodes[0].pieces.insert(piece.to_string());
        let (mut dx, mut dy, mut starred) = (0, 0, false);
        for atom in sequence {
            match atom {
                Atom::Step(l) => (dx, dy) = (dx + l.dx, dy + l.dy),
                Atom::Star(_) => starred = true,
            }
            let parent = at;
            let next = self.nodes.len();
            at = *self.children.entry((parent, atom.clone())).or_insert(next);
            if at == next {
                self.nodes.push(Node {
                    atom: Some(atom.clone()),
                    parent,
                    pieces: BTreeSet::new(),
                    ends: BTreeSet::new(),
                    may_return: false,
                });
            }
            self.nodes[at].pieces.insert(piece.to_string());
        }
        let node = &mut self.nodes[at];
        node.ends.insert(piece.to_string());
        node.may_return |= starred || (dx, dy) == (0, 0);
    }
}

/// Fresh variable names for one rule.
struct Vars(usize);

impl Vars {
    fn fresh(&mut self, base: &str) -> String {
        self.0 += 1;
        format!("?{base}{}", self.0)
    }
}

/// The literals of a word of letters taken from `(x, y)` by the piece
/// whose owner is `?r`; returns the square reached.
fn word_literals(
    encoding: Encoding,
    word: &[Letter],
    from: (String, String),
    vars: &mut Vars,
    body: &mut Vec<String>,
) -> (String, String) {
    let (mut x, mut y) = from;
    for l in word {
        if l.dx != 0 {
            let nx = vars.fresh("x");
            body.push(format!("(xsum {x} {} {nx})", l.dx));
            x = nx;
        }
        if l.dy != 0 {
            let ny = vars.fresh("y");
            body.push(format!("(forward ?r {y} {} {ny})", l.dy));
            y = ny;
        }
        match l.on {
            On::Empty => body.push(encoding.empty(&x, &y)),
            On::Opponent => {
                let q = vars.fresh("q");
                body.push(encoding.occupant(&x, &y, &q));
                body.push(format!("(enemy ?r {q})"));
            }
            On::Own => {
                let q = vars.fresh("q");
                body.push(encoding.occupant(&x, &y, &q));
                body.push(format!("(owner {q} ?r)"));
            }
        }
    }
    (x, y)
}

/// Writes a rule.
fn rule(out: &mut String, head: &str, body: &[String]) {
    write!(out, "(<= {head}").unwrap();
    for literal in body {
        write!(out, "\n    {literal}").unwrap();
    }
    out.push_str(")\n");
}

/// The GDL description of `game` with the position stored as `encoding`
/// says, preceded by the comment lines `header`.
pub fn translate(
    game: &Boardgame,
    encoding: Encoding,
    header: &[String],
) -> Result<String, BoardgameError> {
    game.validate()?;
    let trie = Trie::build(game)?;
    let mut out = String::new();
    for line in header {
        writeln!(out, "; {line}").unwrap();
    }
    describe(game, &mut out);
    statics(game, &trie, &mut out);
    initial(game, encoding, &mut out);
    moves(&trie, encoding, &mut out);
    match encoding {
        Encoding::Board => board_transitions(&mut out),
        Encoding::PiecePositions => piece_transitions(game, &mut out),
    }
    outcome(game, encoding, &mut out);
    Ok(out)
}

/// The game in the paper's notation, as comments.
fn describe(game: &Boardgame, out: &mut String) {
    let _ = writeln!(
        out,
        "; A Simplified Boardgame on {}x{} squares; a draw after {} moves.\n\
         ; white moves up (towards row {}), black down with every letter's dy mirrored.\n\
         ; Letters (dx,dy,on): on = e empty, p opponent's piece, w own piece.",
        game.width, game.height, game.turn_limit, game.height
    );
    for p in &game.pieces {
        let _ = writeln!(out, ";   {} ({}): {}", p.name, p.class.name(), p.moves);
    }
    out.push_str("; A player wins when the opponent cannot move");
    for c in &game.conditions {
        let _ = match *c {
            WinCondition::Reach(t) => write!(
                out,
                ", or when one of its {} reaches the opponent's back row",
                game.pieces[t].name
            ),
            WinCondition::Capture(t) => write!(
                out,
                ", or when the opponent has no {} left",
                game.pieces[t].name
            ),
        };
    }
    out.push_str(".\n; Initial position (row by row from the top, . = empty):\n");
    let wide = game
        .pieces
        .iter()
        .map(|p| p.name.len() + 1)
        .max()
        .unwrap_or(1);
    for y in (1..=game.height).rev() {
        let _ = write!(out, ";   {y:>2} ");
        for x in 1..=game.width {
            let cell = game.initial.iter().find(|p| (p.x, p.y) == (x, y));
            let text = cell.map_or(".".to_string(), |p| game.piece_constant(p.side, p.piece));
            let _ = write!(out, " {text:>wide$}");
        }
        out.push('\n');
    }
    out.push('\n');
}

/// Roles and static facts: owners, coordinate sums, the step counter, the
/// trie's piece filters.
fn statics(game: &Boardgame, trie: &Trie, out: &mut String) {
    out.push_str("(role white)\n(role black)\n(opponent white black)\n(opponent black white)\n");
    for side in [Side::White, Side::Black] {
        for t in 0..game.pieces.len() {
            if game.has_initially(side, t) {
                let c = game.piece_constant(side, t);
                let _ = writeln!(out, "(owner {c} {})", side.role());
                let _ = writeln!(out, "(enemy {} {c})", side.opponent().role());
            }
        }
    }
    let mut dxs = BTreeSet::new();
    let mut dys = BTreeSet::new();
    for node in &trie.nodes {
        let words = match &node.atom {
            Some(Atom::Step(l)) => vec![vec![*l]],
            Some(Atom::Star(words)) => words.clone(),
            None => Vec::new(),
        };
        for l in words.iter().flatten() {
            dxs.insert(l.dx);
            dys.insert(l.dy.abs());
            dys.insert(-l.dy.abs());
        }
    }
    for (name, size, ds) in [("xsum", game.width, &dxs), ("ysum", game.height, &dys)] {
        for &d in ds.iter().filter(|&&d| d != 0) {
            for c in 1..=size as i64 {
                let to = c + i64::from(d);
                if (1..=size as i64).contains(&to) {
                    let _ = writeln!(out, "({name} {c} {d} {to})");
                }
            }
        }
    }
    out.push_str("(<= (forward white ?y ?d ?z) (ysum ?y ?d ?z))\n");
    out.push_str("(<= (forward black ?y ?d ?z) (ysum ?z ?d ?y))\n");
    for n in 0..game.turn_limit {
        let _ = writeln!(out, "(step_succ {n} {})", n + 1);
    }
    for (i, node) in trie.nodes.iter().enumerate().skip(1) {
        if node.pieces != trie.nodes[node.parent].pieces {
            for p in &node.pieces {
                let _ = writeln!(out, "(uses_{i} {p})");
            }
        }
        if !node.ends.is_empty() && node.ends != node.pieces {
            for p in &node.ends {
                let _ = writeln!(out, "(ends_{i} {p})");
            }
        }
    }
}

/// The initial state: every square, white to move, step 0.
fn initial(game: &Boardgame, encoding: Encoding, out: &mut String) {
    out.push_str("(init (control white))\n(init (step 0))\n");
    for y in 1..=game.height {
        for x in 1..=game.width {
            let piece = game.initial.iter().find(|p| (p.x, p.y) == (x, y));
            let c = piece.map_or("b".to_string(), |p| game.piece_constant(p.side, p.piece));
            let _ = match (encoding, piece) {
                (Encoding::Board, _) => writeln!(out, "(init (cell {x} {y} {c}))"),
                (Encoding::PiecePositions, Some(_)) => writeln!(out, "(init (pos_{c} {x} {y}))"),
                (Encoding::PiecePositions, None) => Ok(()),
            };
        }
    }
}

/// The trie's predicates and the legal moves.
fn moves(trie: &Trie, encoding: Encoding, out: &mut String) {
    let mover = [
        "(true (control ?r))".to_string(),
        encoding.occupant("?x", "?y", "?p"),
        "(owner ?p ?r)".to_string(),
    ];
    rule(out, "(mover ?p ?x ?y)", &mover);
    for (i, node) in trie.nodes.iter().enumerate().skip(1) {
        let filtered = node.pieces != trie.nodes[node.parent].pieces;
        let parent = |x: &str, y: &str| match node.parent {
            0 => "(mover ?p ?x0 ?y0)".to_string(),
            n => format!("(prefix_{n} ?p ?x0 ?y0 {x} {y})"),
        };
        let start = if node.parent == 0 {
            "?x0 ?y0"
        } else {
            "?x1 ?y1"
        };
        let (sx, sy) = start.split_once(' ').unwrap();
        let mut base = vec![parent(sx, sy)];
        if filtered {
            base.push(format!("(uses_{i} ?p)"));
        }
        match node.atom.as_ref().expect("only the root has no atom") {
            Atom::Step(l) => {
                let mut vars = Vars(1);
                let mut body = base;
                body.push("(owner ?p ?r)".into());
                let from = (sx.into(), sy.into());
                let (x, y) = word_literals(encoding, &[*l], from, &mut vars, &mut body);
                rule(out, &format!("(prefix_{i} ?p ?x0 ?y0 {x} {y})"), &body);
            }
            Atom::Star(words) => {
                rule(out, &format!("(prefix_{i} ?p ?x0 ?y0 {start})"), &base);
                for word in words {
                    let mut vars = Vars(1);
                    let mut body = vec![
                        format!("(prefix_{i} ?p ?x0 ?y0 ?x1 ?y1)"),
                        "(owner ?p ?r)".to_string(),
                    ];
                    let from = ("?x1".into(), "?y1".into());
                    let (x, y) = word_literals(encoding, word, from, &mut vars, &mut body);
                    rule(out, &format!("(prefix_{i} ?p ?x0 ?y0 {x} {y})"), &body);
                }
            }
        }
        if !node.ends.is_empty() {
            let mut body = vec![format!("(prefix_{i} ?p ?x0 ?y0 ?x ?y)")];
            if node.ends != node.pieces {
                body.push(format!("(ends_{i} ?p)"));
            }
            body.push("(owner ?p ?r)".into());
            if node.may_return {
                body.push("(or (distinct ?x0 ?x) (distinct ?y0 ?y))".into());
            }
            rule(out, "(legal ?r (move ?x0 ?y0 ?x ?y))", &body);
        }
    }
    out.push_str("(<= (legal ?r noop)\n    (opponent ?r ?o)\n    (true (control ?o)))\n");
}

/// The next state of the board predicate: the moved piece, its empty start
/// square, the other squares unchanged, the turn and the step counter.
fn board_transitions(out: &mut String) {
    let s = |t: &[&str]| t.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    rule(
        out,
        "(next (cell ?x ?y ?p))",
        &s(&["(does ?r (move ?x0 ?y0 ?x ?y))", "(true (cell ?x0 ?y0 ?p))"]),
    );
    rule(
        out,
        "(next (cell ?x0 ?y0 b))",
        &s(&["(does ?r (move ?x0 ?y0 ?x ?y))"]),
    );
    rule(
        out,
        "(next (cell ?x ?y ?c))",
        &s(&[
            "(true (cell ?x ?y ?c))",
            "(does ?r (move ?x0 ?y0 ?x1 ?y1))",
            "(or (distinct ?x ?x0) (distinct ?y ?y0))",
            "(or (distinct ?x ?x1) (distinct ?y ?y1))",
        ]),
    );
    rule(
        out,
        "(next (control ?o))",
        &s(&["(true (control ?r))", "(opponent ?r ?o)"]),
    );
    rule(
        out,
        "(next (step ?m))",
        &s(&["(true (step ?n))", "(step_succ ?n ?m)"]),
    );
}

/// The next state of the position predicates: each piece moved or left
/// where it is (a captured piece is not carried over), where each piece is
/// and which squares are occupied, the turn and the step counter.
fn piece_transitions(game: &Boardgame, out: &mut String) {
    for side in [Side::White, Side::Black] {
        for t in (0..game.pieces.len()).filter(|&t| game.has_initially(side, t)) {
            let c = game.piece_constant(side, t);
            rule(
                out,
                &format!("(next (pos_{c} ?x ?y))"),
                &[
                    "(does ?r (move ?x0 ?y0 ?x ?y))".into(),
                    format!("(true (pos_{c} ?x0 ?y0))"),
                ],
            );
            rule(
                out,
                &format!("(next (pos_{c} ?x ?y))"),
                &[
                    format!("(true (pos_{c} ?x ?y))"),
                    "(does ?r (move ?x0 ?y0 ?x1 ?y1))".into(),
                    "(or (distinct ?x ?x0) (distinct ?y ?y0))".into(),
                    "(or (distinct ?x ?x1) (distinct ?y ?y1))".into(),
                ],
            );
            rule(
                out,
                &format!("(piece_at ?x ?y {c})"),
                &[format!("(true (pos_{c} ?x ?y))")],
            );
        }
    }
    out.push_str("(<= (occupied ?x ?y) (piece_at ?x ?y ?p))\n");
    out.push_str("(<= (next (control ?o)) (true (control ?r)) (opponent ?r ?o))\n");
    out.push_str("(<= (next (step ?m)) (true (step ?n)) (step_succ ?n ?m))\n");
}

/// Who wins, the end of the game and the goals: 100 to a player who wins
/// alone, 0 to its opponent, 50 each otherwise.
fn outcome(game: &Boardgame, encoding: Encoding, out: &mut String) {
    let s = |t: &[&str]| t.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    rule(
        out,
        "(has_move ?r)",
        &s(&["(legal ?r (move ?x0 ?y0 ?x ?y))"]),
    );
    rule(
        out,
        "(wins ?r)",
        &s(&[
            "(opponent ?r ?o)",
            "(true (control ?o))",
            "(not (has_move ?o))",
        ]),
    );
    let (mut reach, mut capture) = (false, false);
    for c in &game.conditions {
        for side in [Side::White, Side::Black] {
            let _ = match *c {
                WinCondition::Reach(t) if game.has_initially(side, t) => {
                    reach = true;
                    let row = match side {
                        Side::White => game.height,
                        Side::Black => 1,
                    };
                    writeln!(out, "(reach_target {} {row})", game.piece_constant(side, t))
                }
                WinCondition::Capture(t) if game.has_initially(side.opponent(), t) => {
                    capture = true;
                    let q = game.piece_constant(side.opponent(), t);
                    writeln!(out, "(capture_target {} {q})", side.role())
                }
                _ => Ok(()),
            };
        }
    }
    if reach {
        rule(
            out,
            "(wins ?r)",
            &s(&[
                "(reach_target ?p ?y)",
                &encoding.occupant("?x", "?y", "?p"),
                "(owner ?p ?r)",
            ]),
        );
    }
    if capture {
        rule(out, "(on_board ?p)", &[encoding.occupant("?x", "?y", "?p")]);
        rule(
            out,
            "(wins ?r)",
            &s(&["(capture_target ?r ?q)", "(not (on_board ?q))"]),
        );
    }
    rule(out, "terminal", &s(&["(wins ?r)"]));
    let limit = format!("(true (step {}))", game.turn_limit);
    rule(out, "terminal", &[limit]);
    let goals: [(&str, &[&str]); 4] = [
        ("100", &["(wins ?r)", "(opponent ?r ?o)", "(not (wins ?o))"]),
        ("0", &["(wins ?o)", "(opponent ?r ?o)", "(not (wins ?r))"]),
        (
            "50",
            &["(opponent ?r ?o)", "(not (wins ?r))", "(not (wins ?o))"],
        ),
        ("50", &["(wins ?r)", "(opponent ?r ?o)", "(wins ?o)"]),
    ];
    for (value, body) in goals {
        rule(out, &format!("(goal ?r {value})"), &s(body));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boardgame::regex::Regex;
    use crate::boardgame::spec::{Class, PieceType, Placed};

    fn ride(dx: i32, dy: i32) -> Regex {
        let l = |on| Regex::Letter(Letter::new(dx, dy, on));
        Regex::Concat(vec![
            Regex::Star(Box::new(l(On::Empty))),
            Regex::Alt(vec![l(On::Empty), l(On::Opponent)]),
        ])
    }

    /// A rook riding forward and a queen riding forward and diagonally:
    /// the forward ride is one set of predicates for both.
    #[test]
    fn pieces_share_the_predicates_of_a_common_prefix() {
        let piece = |name: &str, moves| PieceType {
            name: name.into(),
            class: Class::Strong,
            moves,
        };
        let at = |x, y, side, piece| Placed { x, y, side, piece };
        let game = Boardgame {
            width: 4,
            height: 4,
            pieces: vec![
                piece("rook", ride(0, 1)),
                piece("queen", Regex::Alt(vec![ride(0, 1), ride(1, 1)])),
            ],
            initial: vec![
                at(1, 1, Side::White, 0),
                at(2, 1, Side::White, 1),
                at(1, 4, Side::Black, 0),
                at(2, 4, Side::Black, 1),
            ],
            conditions: vec![],
            turn_limit: 10,
        };
        let text = translate(&game, Encoding::Board, &[]).unwrap();
        let heads: BTreeSet<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("(<= (prefix_"))
            .map(|l| l.split_once(' ').unwrap().0)
            .collect();
        // The forward star and its two last letters, then the same three
        // for the diagonal: six predicates, not nine.
        assert_eq!(heads.len(), 6, "{text}");
        let filters: Vec<&str> = text.lines().filter(|l| l.starts_with("(uses_")).collect();
        assert_eq!(filters, ["(uses_4 bqueen)", "(uses_4 wqueen)"], "{text}");
        crate::load_bytes("shared".into(), text.into_bytes()).unwrap();
    }
}
