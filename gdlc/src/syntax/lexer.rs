//! Tokens of KIF, produced by logos, with a guard on nesting depth so that
//! hostile input cannot exhaust the stack of any later recursive pass.

use logos::Logos;

/// Deepest parenthesis nesting accepted; real descriptions stay below 20.
pub const MAX_NESTING: usize = 512;

/// A KIF token.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f\v]+")]
#[logos(skip(r";[^\n]*", allow_greedy = true))]
pub enum Token<'input> {
    /// `(`
    #[token("(")]
    Open,
    /// `)`
    #[token(")")]
    Close,
    /// A variable such as `?x`.
    #[regex(r"\?[^ \t\r\n\f\v();]*")]
    Variable(&'input str),
    /// Any other run of characters up to whitespace, a parenthesis or a comment.
    #[regex(r"[^ \t\r\n\f\v();?][^ \t\r\n\f\v();]*")]
    Symbol(&'input str),
}

/// An error found while reading tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexError {
    /// Characters that start no token (e.g. unusual whitespace), at this span.
    Unexpected(usize, usize),
    /// Parentheses nested deeper than [`MAX_NESTING`], at this offset.
    TooDeep(usize),
}

/// Token stream in the shape lalrpop expects, with the nesting guard.
pub struct Lexer<'input> {
    inner: logos::SpannedIter<'input, Token<'input>>,
    depth: usize,
}

impl<'input> Lexer<'input> {
    /// Tokens of `source`.
    pub fn new(source: &'input str) -> Self {
        Lexer {
            inner: Token::lexer(source).spanned(),
            depth: 0,
        }
    }
}

impl<'input> Iterator for Lexer<'input> {
    type Item = Result<(usize, Token<'input>, usize), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (token, span) = self.inner.next()?;
        Some(match token {
            Ok(Token::Open) => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    Err(LexError::TooDeep(span.start))
                } else {
                    Ok((span.start, Token::Open, span.end))
                }
            }
            Ok(token) => {
                if token == Token::Close {
                    self.depth = self.depth.saturating_sub(1);
                }
                Ok((span.start, token, span.end))
            }
            Err(()) => Err(LexError::Unexpected(span.start, span.end)),
        })
    }
}
