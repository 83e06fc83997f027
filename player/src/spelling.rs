//! The game's own spelling of its symbols. Reasoners read GDL case-folded
//! and print moves in lower case, but the reference server compares moves
//! case-sensitively, so a move is printed back with each symbol spelled as
//! the description first spelled it.

use crate::sexpr::SExpr;
use std::collections::HashMap;

/// The first spelling of each symbol of a description, by its lower-case form.
#[derive(Clone, Debug, Default)]
pub struct Spelling {
    first: HashMap<String, String>,
}

impl Spelling {
    /// The spellings of the symbols of `description` (an s-expression).
    pub fn of(description: &SExpr) -> Self {
        let mut spelling = Spelling::default();
        let mut todo = vec![description];
        while let Some(e) = todo.pop() {
            match e {
                SExpr::Atom(s, _) => {
                    spelling.note(s);
                }
                // Reversed so that the first occurrence is noted first.
                SExpr::List(items, _) => todo.extend(items.iter().rev()),
            }
        }
        spelling
    }

    fn note(&mut self, symbol: &str) {
        self.first
            .entry(symbol.to_lowercase())
            .or_insert_with(|| symbol.to_string());
    }

    /// `text` (canonical KIF: lower case, single spaces) with every symbol in
    /// the description's spelling.
    pub fn spell(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut symbol = String::new();
        for c in text.chars() {
            if c == '(' || c == ')' || c.is_whitespace() {
                self.flush(&mut symbol, &mut out);
                out.push(c);
            } else {
                symbol.push(c);
            }
        }
        self.flush(&mut symbol, &mut out);
        out
    }

    fn flush(&self, symbol: &mut String, out: &mut String) {
        if !symbol.is_empty() {
            out.push_str(self.first.get(symbol.as_str()).unwrap_or(symbol));
            symbol.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sexpr::parse;

    #[test]
    fn moves_take_the_first_spelling() {
        let d = parse(
            "((role xPlayer) (<= (legal ?p (Mark ?x ?y)) (true (Cell ?x ?y B))) (init (MARK 1 1)))",
        )
        .unwrap();
        let s = Spelling::of(&d);
        assert_eq!(s.spell("(mark 1 2)"), "(Mark 1 2)");
        assert_eq!(s.spell("xplayer"), "xPlayer");
        assert_eq!(s.spell("(unknown b)"), "(unknown B)");
    }
}
