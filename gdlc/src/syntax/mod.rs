//! Stage 1, syntax: KIF text to the GDL abstract syntax tree.
//!
//! The lexer (logos) and the grammar (lalrpop) produce s-expressions; `lower`
//! gives them their meaning as rules, literals and terms.

pub mod ast;
mod lexer;
mod lower;
mod sexpr;

/// The parser: lalrpop's output for `grammar.lalrpop`, committed as
/// `grammar.rs` so that no build compiles lalrpop. After changing the
/// grammar, write it again with
/// `cargo run --manifest-path scripts/regenerate-parser/Cargo.toml`
/// (a test fails until then; CI checks the bytes).
#[allow(clippy::all, clippy::pedantic, unused_qualifications)]
mod grammar {
    include!("grammar.rs");
}

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
    case_warnings(&file.text, &mut diagnostics);
    let description = lower::lower(items, &mut diagnostics);
    (Some(description), diagnostics)
}

/// Symbols are read case-insensitively; a name spelled in two cases gets one
/// warning (the two spellings may have been meant as different symbols).
fn case_warnings(text: &str, diagnostics: &mut Vec<Diagnostic>) {
    let mut first: rustc_hash::FxHashMap<String, (&str, usize, usize)> = Default::default();
    let mut warned: rustc_hash::FxHashSet<String> = Default::default();
    for (l, token, r) in lexer::Lexer::new(text).flatten() {
        let (lexer::Token::Symbol(s) | lexer::Token::Variable(s)) = token else {
            continue;
        };
        let folded = s.to_lowercase();
        let (spelling, fl, fr) = *first.entry(folded.clone()).or_insert((s, l, r));
        if spelling != s && warned.insert(folded) {
            diagnostics.push(
                Diagnostic::warning(
                    "case-folded",
                    format!(
                        "`{spelling}` and `{s}` differ only in case; both are read as `{}`",
                        s.to_lowercase()
                    ),
                )
                .at(Span::new(l, r), "this spelling")
                .also(Span::new(fl, fr), "first spelled here"),
            );
        }
    }
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

#[cfg(test)]
mod tests {
    use super::ast::{Literal, Term};
    use super::*;

    fn parse_ok(text: &str) -> (Description, Vec<Diagnostic>) {
        let file = SourceFile {
            name: "t.kif".into(),
            text: text.into(),
        };
        let (d, diags) = parse(&file);
        (d.expect("parses"), diags)
    }

    /// The committed parser was generated from the grammar as it is:
    /// lalrpop heads its output with the SHA3-256 of the grammar's bytes.
    #[test]
    fn the_parser_is_generated_from_the_grammar_as_it_is() {
        use sha3::{Digest, Sha3_256};
        let grammar = include_bytes!("grammar.lalrpop");
        let hash: String = Sha3_256::digest(grammar)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let header = include_str!("grammar.rs").lines().nth(1).unwrap_or("");
        assert_eq!(
            header,
            format!("// sha3: {hash}"),
            "grammar.lalrpop changed since grammar.rs was generated: run \
             `cargo run --manifest-path scripts/regenerate-parser/Cargo.toml`"
        );
    }

    #[test]
    fn comments_case_folding_and_spans() {
        let (d, diags) =
            parse_ok("; a comment\n(ROLE White) ; trailing\n(<= (Legal ?P Noop) (Role ?P))\n");
        // `ROLE` and `Role` are one symbol, with a warning.
        let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["case-folded"], "{diags:?}");
        assert_eq!(d.rules.len(), 2);
        assert_eq!(d.rules[0].to_string(), "(role white)");
        assert_eq!(d.rules[1].to_string(), "(<= (legal ?p noop) (role ?p))");
        // `(ROLE White)` starts on line 2 at byte 12.
        assert_eq!(d.rules[0].span, Span::new(12, 24));
        let Term::Var(_, span) = &d.rules[1].head.args[0] else {
            panic!()
        };
        assert_eq!(
            &"; a comment\n(ROLE White) ; trailing\n(<= (Legal ?P Noop) (Role ?P))\n"
                [span.start as usize..span.end as usize],
            "?P"
        );
    }

    #[test]
    fn names_spelled_in_two_cases_are_one_symbol_with_a_warning() {
        let (d, diags) = parse_ok("(role Red) (init (cell red)) (init (CELL RED))");
        assert_eq!(d.rules[1].to_string(), d.rules[2].to_string());
        let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["case-folded", "case-folded"], "{diags:?}");
        assert!(
            diags[0].message.contains("`Red` and `red`"),
            "{}",
            diags[0].message
        );
    }

    #[test]
    fn wrapped_rule_list_is_unwrapped() {
        let (plain, _) = parse_ok("(role a) (init p)");
        let (wrapped, _) = parse_ok("((role a) (init p))");
        let texts = |d: &Description| d.rules.iter().map(|r| r.to_string()).collect::<Vec<_>>();
        assert_eq!(texts(&plain), texts(&wrapped));
        // A single sentence is not a wrapped list.
        let (single, _) = parse_ok("(role a)");
        assert_eq!(texts(&single), ["(role a)"]);
    }

    #[test]
    fn literals_and_terms() {
        let (d, diags) = parse_ok("(<= p (not (q (f ?x))) (distinct ?x a) (or r (s (g)) ) (t ?x))");
        assert!(diags.is_empty(), "{diags:?}");
        let body = &d.rules[0].body;
        assert!(matches!(&body[0], Literal::Not(inner, _) if matches!(**inner, Literal::Atom(_))));
        assert!(matches!(&body[1], Literal::Distinct(..)));
        assert!(matches!(&body[2], Literal::Or(ls, _) if ls.len() == 2));
        // `(g)` is a function of no arguments, not the constant `g`.
        let Literal::Or(ls, _) = &body[2] else {
            panic!()
        };
        let Literal::Atom(s) = &ls[1] else { panic!() };
        assert!(matches!(&s.args[0], Term::Func(name, args, _) if name == "g" && args.is_empty()));
    }

    #[test]
    fn errors_are_collected_not_fatal() {
        let file = SourceFile {
            name: "t.kif".into(),
            text: "(<= (p ?x) (?y a))\n(())\n(<= )\n".into(),
        };
        let (_, diags) = parse(&file);
        let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            ["bad-sentence", "bad-sentence", "bad-rule"],
            "{diags:?}"
        );
    }
}
