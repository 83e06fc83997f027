//! The move language of Simplified Boardgames: regular expressions over
//! letters `(dx, dy, on)`, and their expansion into the sequences of steps
//! and stars the translator turns into rules.

use std::fmt;

/// What the square a letter lands on must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum On {
    /// Nothing (`e`).
    Empty,
    /// A piece of the opponent (`p`); captured if the move ends there.
    Opponent,
    /// A piece of the mover (`w`); captured if the move ends there.
    Own,
}

/// One letter: a displacement of the piece relative to the square it
/// reached so far (`dy` forward for the mover, so black's letters are
/// mirrored), and what the square reached must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Letter {
    /// Columns to the right.
    pub dx: i32,
    /// Rows forward (towards the opponent).
    pub dy: i32,
    /// The content required on the square reached.
    pub on: On,
}

/// A regular expression over letters: the paper's concatenation,
/// alternation (`+`) and Kleene star.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Regex {
    /// One letter.
    Letter(Letter),
    /// The expressions one after the other.
    Concat(Vec<Regex>),
    /// Any one of the expressions.
    Alt(Vec<Regex>),
    /// The expression repeated zero or more times.
    Star(Box<Regex>),
}

/// One element of an expanded move: a letter taken once, or a star over a
/// set of letter words (each repetition takes one of the words).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// A letter taken once.
    Step(Letter),
    /// Zero or more repetitions, each one of the words.
    Star(Vec<Vec<Letter>>),
}

/// Expanded moves of one expression above this count are refused, so a
/// hand-written expression cannot make the translation explode.
pub const MAX_SEQUENCES: usize = 512;

impl Letter {
    /// A letter.
    pub fn new(dx: i32, dy: i32, on: On) -> Self {
        Letter { dx, dy, on }
    }
}

impl Regex {
    /// The expression's moves as sequences of atoms, without duplicates, in
    /// a fixed order: alternations distributed over concatenations, stars
    /// kept as stars. A star must be over letter words (no star inside a
    /// star) each of which moves the piece, so a star repeats at most as
    /// often as the board is long.
    pub fn sequences(&self) -> Result<Vec<Vec<Atom>>, String> {
        let mut out = match self {
            Regex::Letter(l) if l.dx == 0 && l.dy == 0 => {
                return Err(format!("letter `{l}` does not move the piece"))
            }
            Regex::Letter(l) => vec![vec![Atom::Step(*l)]],
            Regex::Alt(parts) => {
                let mut all = Vec::new();
                for p in parts {
                    all.extend(p.sequences()?);
                }
                all
            }
            Regex::Concat(parts) => {
                let mut all = vec![Vec::new()];
                for p in parts {
                    let tails = p.sequences()?;
                    let mut next = Vec::with_capacity(all.len() * tails.len());
                    for head in &all {
                        for tail in &tails {
                            next.push([head.clone(), tail.clone()].concat());
                        }
                    }
                    if next.len() > MAX_SEQUENCES {
                        return Err(format!("`{self}` has over {MAX_SEQUENCES} moves"));
                    }
                    all = next;
                }
                all
            }
            Regex::Star(body) => vec![vec![Atom::Star(star_words(body)?)]],
        };
        out.sort();
        out.dedup();
        if out.len() > MAX_SEQUENCES {
            return Err(format!("`{self}` has over {MAX_SEQUENCES} moves"));
        }
        Ok(out)
    }
}

/// The words of a star's body: letters only, each word moving the piece.
fn star_words(body: &Regex) -> Result<Vec<Vec<Letter>>, String> {
    let mut words = Vec::new();
    for sequence in body.sequences()? {
        let mut word = Vec::new();
        for atom in sequence {
            match atom {
                Atom::Step(l) => word.push(l),
                Atom::Star(_) => return Err(format!("`{body}*` has a star inside a star")),
            }
        }
        let (dx, dy) = word.iter().fold((0, 0), |(x, y), l| (x + l.dx, y + l.dy));
        if (dx, dy) == (0, 0) {
            return Err(format!(
                "`{body}*` can repeat without moving the piece (a star must be bounded by the board)"
            ));
        }
        words.push(word);
    }
    words.sort();
    words.dedup();
    Ok(words)
}

impl fmt::Display for On {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            On::Empty => "e",
            On::Opponent => "p",
            On::Own => "w",
        })
    }
}

impl fmt::Display for Letter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{},{})", self.dx, self.dy, self.on)
    }
}

impl fmt::Display for Regex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Regex::Letter(l) => write!(f, "{l}"),
            Regex::Concat(parts) => {
                for p in parts {
                    match p {
                        Regex::Alt(_) => write!(f, "({p})")?,
                        _ => write!(f, "{p}")?,
                    }
                }
                Ok(())
            }
            Regex::Alt(parts) => {
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" + ")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }
            Regex::Star(body) => match **body {
                Regex::Letter(_) => write!(f, "{body}*"),
                _ => write!(f, "({body})*"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(dx: i32, dy: i32, on: On) -> Regex {
        Regex::Letter(Letter::new(dx, dy, on))
    }

    #[test]
    fn alternation_distributes_over_concatenation() {
        let r = Regex::Concat(vec![
            Regex::Star(Box::new(l(0, 1, On::Empty))),
            Regex::Alt(vec![l(0, 1, On::Empty), l(0, 1, On::Opponent)]),
        ]);
        assert_eq!(r.to_string(), "(0,1,e)*((0,1,e) + (0,1,p))");
        let star = Atom::Star(vec![vec![Letter::new(0, 1, On::Empty)]]);
        assert_eq!(
            r.sequences().unwrap(),
            vec![
                vec![star.clone(), Atom::Step(Letter::new(0, 1, On::Empty))],
                vec![star, Atom::Step(Letter::new(0, 1, On::Opponent))],
            ]
        );
    }

    #[test]
    fn a_star_must_move_and_not_nest() {
        let still = Regex::Star(Box::new(Regex::Concat(vec![
            l(0, 1, On::Empty),
            l(0, -1, On::Empty),
        ])));
        assert!(still.sequences().unwrap_err().contains("without moving"));
        let nested = Regex::Star(Box::new(Regex::Star(Box::new(l(1, 0, On::Empty)))));
        assert!(nested
            .sequences()
            .unwrap_err()
            .contains("star inside a star"));
    }
}
