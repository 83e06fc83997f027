//! A case-preserving s-expression reader for GGP messages.
//!
//! `gdl_runtime::kif` folds symbols to lower case and gdlc's parser keeps
//! its s-expressions private, but a player must keep the case of match ids,
//! roles and moves and must hand the description on as the text it was
//! sent; so messages are read here into atoms and lists with byte spans.

use std::ops::Range;

/// Deepest nesting accepted, so that hostile input cannot exhaust the stack.
pub const MAX_DEPTH: usize = 512;

/// One s-expression: an atom (a symbol, number or variable, as written) or a
/// parenthesised list, each with its byte range in the source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    /// An atom, exactly as written.
    Atom(String, Range<usize>),
    /// A list of s-expressions.
    List(Vec<SExpr>, Range<usize>),
}

impl SExpr {
    /// The byte range of the expression in its source text.
    pub fn span(&self) -> Range<usize> {
        match self {
            SExpr::Atom(_, r) | SExpr::List(_, r) => r.clone(),
        }
    }

    /// The atom's text, if this is an atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            SExpr::Atom(s, _) => Some(s),
            SExpr::List(..) => None,
        }
    }
}

/// Why text is not one s-expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExprError {
    /// The text holds no expression.
    Empty,
    /// A `(` is never closed.
    Unclosed,
    /// A `)` closes nothing, at this byte offset.
    Unmatched(usize),
    /// More than one expression, the second at this byte offset.
    Trailing(usize),
    /// Parentheses nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl std::fmt::Display for SExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SExprError::Empty => write!(f, "empty message"),
            SExprError::Unclosed => write!(f, "a `(` is never closed"),
            SExprError::Unmatched(at) => write!(f, "unmatched `)` at byte {at}"),
            SExprError::Trailing(at) => write!(f, "text after the message at byte {at}"),
            SExprError::TooDeep => write!(f, "parentheses nested deeper than {MAX_DEPTH}"),
        }
    }
}

impl std::error::Error for SExprError {}

/// Reads exactly one s-expression from `text`; `;` starts a comment to the
/// end of the line, as in KIF.
pub fn parse(text: &str) -> Result<SExpr, SExprError> {
    // Open lists: their start offset and items so far.
    let mut stack: Vec<(usize, Vec<SExpr>)> = Vec::new();
    let mut done: Option<SExpr> = None;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let item = match c {
            b'(' => {
                if stack.len() >= MAX_DEPTH {
                    return Err(SExprError::TooDeep);
                }
                stack.push((start, Vec::new()));
                i += 1;
                continue;
            }
            b')' => {
                let (open, items) = stack.pop().ok_or(SExprError::Unmatched(start))?;
                i += 1;
                SExpr::List(items, open..i)
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => {
                while i < bytes.len()
                    && !matches!(bytes[i], b'(' | b')' | b';')
                    && !bytes[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                SExpr::Atom(text[start..i].to_string(), start..i)
            }
        };
        match stack.last_mut() {
            Some((_, items)) => items.push(item),
            None if done.is_some() => return Err(SExprError::Trailing(start)),
            None => done = Some(item),
        }
    }
    if !stack.is_empty() {
        return Err(SExprError::Unclosed);
    }
    done.ok_or(SExprError::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_case_and_spans() {
        let text = " ( PLAY m.1 (( Mark 1 3 ) noop ) ) ";
        let SExpr::List(items, span) = parse(text).unwrap() else {
            panic!()
        };
        assert_eq!(&text[span], "( PLAY m.1 (( Mark 1 3 ) noop ) )");
        assert_eq!(items[0].atom(), Some("PLAY"));
        assert_eq!(items[1].atom(), Some("m.1"));
        assert_eq!(&text[items[2].span()], "(( Mark 1 3 ) noop )");
    }

    #[test]
    fn comments_are_skipped() {
        let e = parse("; hello (\n(a ; b )\n c)").unwrap();
        let SExpr::List(items, _) = e else { panic!() };
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn errors() {
        assert_eq!(parse("  "), Err(SExprError::Empty));
        assert_eq!(parse("(a"), Err(SExprError::Unclosed));
        assert_eq!(parse("a)"), Err(SExprError::Unmatched(1)));
        assert_eq!(parse("(a) b"), Err(SExprError::Trailing(4)));
        let deep = "(".repeat(100_000) + &")".repeat(100_000);
        assert_eq!(parse(&deep), Err(SExprError::TooDeep));
    }
}
