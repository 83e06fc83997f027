//! Stage 1, syntax: KIF text to the GDL abstract syntax tree.
//!
//! The lexer (logos) and the grammar (lalrpop) produce s-expressions; `lower`
//! gives them their meaning as rules, literals and terms.

pub mod ast;
mod lexer;
mod lower;
mod sexpr;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_qualifications)]
    grammar,
    "/syntax/grammar.rs"
);

use crate::diagnostics::{Diagnostic, SourceFile, Span};
use ast::Description;
use lalrpop_util::ParseError;
pub use lexer::MAX_NESTING;

/// Parses a source file. Returns the description (absent after a syntax
/// error) and every diagnostic found on the way.
pub fn parse(file: &SourceFile) -> (Option<Description>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let items = match grammar::FileParser::new().parse(lexer::Lexer::new(&file.text)) {
        Ok(items) => items,
        Err(e) => {
            diagnostics.push(syntax_error(e));
            return (None, diagnostics);
        }
    };
    if items.is_empty() {
        diagnostics.push(
            Diagnostic::error("empty-description", "the description contains no rules")
                .note("a GDL description needs at least `role`, `legal`, `next`, `terminal` and `goal` rules"),
        );
        return (None, diagnostics);
    }
    let description = lower::lower(items, &mut diagnostics);
    (Some(description), diagnostics)
}

type GrammarError<'a> = ParseError<usize, lexer::Token<'a>, lexer::LexError>;

fn syntax_error(e: GrammarError<'_>) -> Diagnostic {
    match e {
        ParseError::InvalidToken { location } => Diagnostic::error("syntax", "invalid token")
            .at(Span::new(location, location + 1), "here"),
        ParseError::UnrecognizedEof { location, .. } => {
            Diagnostic::error("syntax", "unexpected end of file: a `(` is never closed")
                .at(Span::new(location, location), "the file ends here")
        }
        ParseError::UnrecognizedToken {
            token: (l, token, r),
            ..
        } => {
            let what = match token {
                lexer::Token::Close => "unmatched `)`".to_string(),
                other => format!("unexpected {other:?}"),
            };
            Diagnostic::error("syntax", what).at(Span::new(l, r), "not expected here")
        }
        ParseError::ExtraToken { token: (l, _, r) } => {
            Diagnostic::error("syntax", "unexpected token").at(Span::new(l, r), "extra token")
        }
        ParseError::User {
            error: lexer::LexError::Unexpected(l, r),
        } => Diagnostic::error("syntax", "unexpected character")
            .at(Span::new(l, r), "not part of any token"),
        ParseError::User {
            error: lexer::LexError::TooDeep(at),
        } => Diagnostic::error(
            "nesting-too-deep",
            format!("parentheses nested deeper than {MAX_NESTING} levels"),
        )
        .at(Span::new(at, at + 1), "this `(` is too deep"),
    }
}
