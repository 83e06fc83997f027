//! Canonical KIF text for moves and fluents.
//!
//! Canonical text is lower case, in prefix form with single spaces and no space
//! after `(` or before `)`: `(cell 1 1 b)`, `noop`, `(move 1 2 (piece wk))`.

/// A ground KIF term: a constant or a function applied to arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A constant symbol, already lower case.
    Const(String),
    /// A function symbol applied to arguments (possibly none: `(f)`).
    Func(String, Vec<Term>),
}

impl std::fmt::Display for Term {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Term::Const(s) => f.write_str(s),
            Term::Func(name, args) => {
                write!(f, "({name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Parses one ground term from KIF text, folding symbols to lower case.
///
/// Returns `None` for text that is not exactly one ground term (variables,
/// unbalanced parentheses, empty lists or trailing input are rejected).
pub fn parse_term(text: &str) -> Option<Term> {
    let tokens = tokenize(text)?;
    let mut pos = 0;
    let term = parse_at(&tokens, &mut pos, 0)?;
    (pos == tokens.len()).then_some(term)
}

/// Rewrites KIF text of one ground term in canonical form, or `None` if it is
/// not one ground term.
pub fn canonical(text: &str) -> Option<String> {
    parse_term(text).map(|t| t.to_string())
}

/// Deepest nesting accepted, so that hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 256;

enum Token {
    Open,
    Close,
    Symbol(String),
}

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            '(' => {
                tokens.push(Token::Open);
                chars.next();
            }
            ')' => {
                tokens.push(Token::Close);
                chars.next();
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            _ => {
                let mut end = i;
                while let Some(&(j, c)) = chars.peek() {
                    if c == '(' || c == ')' || c.is_whitespace() {
                        break;
                    }
                    end = j + c.len_utf8();
                    chars.next();
                }
                let sym = &text[i..end];
                if sym.starts_with('?') || sym.contains(';') {
                    return None;
                }
                tokens.push(Token::Symbol(sym.to_lowercase()));
            }
        }
    }
    Some(tokens)
}

fn parse_at(tokens: &[Token], pos: &mut usize, depth: usize) -> Option<Term> {
    if depth > MAX_DEPTH {
        return None;
    }
    match tokens.get(*pos)? {
        Token::Symbol(s) => {
            *pos += 1;
            Some(Term::Const(s.clone()))
        }
        Token::Close => None,
        Token::Open => {
            *pos += 1;
            let name = match tokens.get(*pos)? {
                Token::Symbol(s) => s.clone(),
                _ => return None,
            };
            *pos += 1;
            let mut args = Vec::new();
            loop {
                match tokens.get(*pos)? {
                    Token::Close => {
                        *pos += 1;
                        break;
                    }
                    _ => args.push(parse_at(tokens, pos, depth + 1)?),
                }
            }
            // `(f)` is a function of no arguments, a different term from `f`.
            Some(Term::Func(name, args))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(
            canonical("  ( MARK  1   2 ) ").as_deref(),
            Some("(mark 1 2)")
        );
        assert_eq!(canonical("noop").as_deref(), Some("noop"));
        assert_eq!(canonical("(noop)").as_deref(), Some("(noop)"));
        assert_eq!(
            canonical("(move 1 2 (Piece WK))").as_deref(),
            Some("(move 1 2 (piece wk))")
        );
    }

    #[test]
    fn rejects_non_terms() {
        for bad in ["", "(", ")", "(a b", "a b", "(?x)", "(a ?x)", "((a) b)"] {
            assert_eq!(canonical(bad), None, "{bad:?}");
        }
        let deep = "(".repeat(10_000) + "a" + &")".repeat(10_000);
        assert_eq!(canonical(&deep), None);
    }
}
