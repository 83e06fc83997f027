//! A Simplified Boardgame as data: the board, the piece types and their
//! moves, the initial position, the winning conditions and the turn limit.

use super::regex::Regex;
use std::fmt;

/// The smallest and largest board side accepted.
pub const SIDE_RANGE: std::ops::RangeInclusive<u32> = 3..=20;

/// The numbers of piece types the generator accepts.
pub const PIECES_RANGE: std::ops::RangeInclusive<usize> = 1..=12;

/// The two players: white moves up the board (towards row `height`), black
/// down, with its letters mirrored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// The first player, starting at the bottom rows.
    White,
    /// The second player, starting at the top rows.
    Black,
}

/// The mobility class of a piece type, as in the paper (weak, light,
/// strong pieces); it decides which building blocks its moves come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Pawn-like: short steps, mostly forward.
    Weak,
    /// Leapers and short words.
    Light,
    /// Riders: stars along a direction.
    Strong,
}

/// A piece type: its name (a GDL constant) and its moves, the same for both
/// players (black's mirrored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceType {
    /// The name, lowercase letters and digits.
    pub name: String,
    /// The class the moves were drawn from.
    pub class: Class,
    /// The moves.
    pub moves: Regex,
}

/// One piece of the initial position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Column, 1 to the board's width.
    pub x: u32,
    /// Row, 1 to the board's height (white's first row is 1).
    pub y: u32,
    /// Its owner.
    pub side: Side,
    /// Index of its type in [`Boardgame::pieces`].
    pub piece: usize,
}

/// How a player wins; both players have the same conditions (black's
/// mirrored), and a player who cannot move loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinCondition {
    /// A piece of this type of the player reaches the opponent's back row.
    Reach(usize),
    /// The opponent has no piece of this type left.
    Capture(usize),
}

/// A Simplified Boardgame: a rectangular board, two players, pieces moving
/// by regular expressions, winning conditions and a turn limit (a draw,
/// 50/50, when it is reached).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boardgame {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The piece types.
    pub pieces: Vec<PieceType>,
    /// The initial position (the other squares are empty).
    pub initial: Vec<Placed>,
    /// The ways to win.
    pub conditions: Vec<WinCondition>,
    /// Moves (plies) after which the game ends in a draw.
    pub turn_limit: u32,
}

/// Why a board game cannot be generated or translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardgameError(pub String);

impl fmt::Display for BoardgameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BoardgameError {}

impl Side {
    /// The GDL role.
    pub fn role(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    /// The other player.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

impl Class {
    /// The class's name, as the paper calls it.
    pub fn name(self) -> &'static str {
        match self {
            Class::Weak => "weak",
            Class::Light => "light",
            Class::Strong => "strong",
        }
    }
}

impl Boardgame {
    /// The GDL constant of `side`'s pieces of type `piece` (`wpawn`).
    pub fn piece_constant(&self, side: Side, piece: usize) -> String {
        let prefix = match side {
            Side::White => "w",
            Side::Black => "b",
        };
        format!("{prefix}{}", self.pieces[piece].name)
    }

    /// Whether `side` has a piece of type `piece` initially.
    pub fn has_initially(&self, side: Side, piece: usize) -> bool {
        self.initial
            .iter()
            .any(|p| p.side == side && p.piece == piece)
    }

    /// Checks what the translation relies on: sides in range, squares on
    /// the board and distinct, types that exist with well-formed names and
    /// moves, a positive turn limit.
    pub fn validate(&self) -> Result<(), BoardgameError> {
        let err = |m: String| Err(BoardgameError(m));
        for (what, side) in [("width", self.width), ("height", self.height)] {
            if !SIDE_RANGE.contains(&side) {
                return err(format!(
                    "the board's {what} must be {} to {}, not {side}",
                    SIDE_RANGE.start(),
                    SIDE_RANGE.end()
                ));
            }
        }
        if self.pieces.is_empty() {
            return err("a board game needs at least one piece type".into());
        }
        let mut names: Vec<&str> = Vec::new();
        for t in &self.pieces {
            let ok = t.name.starts_with(|c: char| c.is_ascii_lowercase())
                && t.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
            if !ok || names.contains(&t.name.as_str()) {
                return err(format!(
                    "piece type name `{}` must be unique, lowercase letters and digits",
                    t.name
                ));
            }
            names.push(&t.name);
            t.moves
                .sequences()
                .map_err(|e| BoardgameError(format!("the moves of `{}`: {e}", t.name)))?;
        }
        let mut squares = Vec::new();
        for p in &self.initial {
            if !(1..=self.width).contains(&p.x) || !(1..=self.height).contains(&p.y) {
                return err(format!("square ({}, {}) is off the board", p.x, p.y));
            }
            if p.piece >= self.pieces.len() || squares.contains(&(p.x, p.y)) {
                return err(format!(
                    "square ({}, {}) has an unknown type or two pieces",
                    p.x, p.y
                ));
            }
            squares.push((p.x, p.y));
        }
        for c in &self.conditions {
            let (WinCondition::Reach(t) | WinCondition::Capture(t)) = *c;
            if t >= self.pieces.len() {
                return err(format!("a winning condition names unknown type {t}"));
            }
        }
        if self.turn_limit == 0 {
            return err("the turn limit must be positive".into());
        }
        Ok(())
    }
}
