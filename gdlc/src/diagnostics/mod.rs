//! Diagnostics: errors and warnings with source spans, rendered like rustc's
//! (`error[code]: message`, then `--> file:line:column`, the source line and a
//! caret) through codespan-reporting.

mod window;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::term::{self, termcolor::NoColor, Chars, Config};

/// A byte range in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The description is accepted; something in it deserves attention.
    Warning,
    /// The description has no defined meaning.
    Error,
}

/// One error or warning about a description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable name for the kind of problem, e.g. `unsafe-variable`.
    pub code: &'static str,
    /// What is wrong, in one line.
    pub message: String,
    /// Where, with a short label; `None` for problems of the whole file.
    pub primary: Option<(Span, String)>,
    /// Other places that explain the problem.
    pub secondary: Vec<(Span, String)>,
    /// Further explanation.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error of kind `code`.
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning of kind `code`.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Sets the primary location.
    pub fn at(mut self, span: Span, label: impl Into<String>) -> Self {
        self.primary = Some((span, label.into()));
        self
    }

    /// Adds a secondary location.
    pub fn also(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A source file: its display name and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (usually the path).
    pub name: String,
    /// The text.
    pub text: String,
}

impl SourceFile {
    /// 1-based line and column (in characters) of byte offset `offset`.
    pub fn line_column(&self, offset: u32) -> (usize, usize) {
        let offset = (offset as usize).min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }

    /// Renders diagnostics as plain text, rustc style; a long line is shown
    /// as a window around what the labels point at.
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let mut out = NoColor::new(Vec::new());
        for d in diagnostics {
            let points: Vec<usize> = d
                .primary
                .iter()
                .chain(&d.secondary)
                .flat_map(|(span, _)| {
                    let r = self.clamp(*span);
                    [r.start, r.end]
                })
                .collect();
            let file = window::Shown::new(&self.name, &self.text, &points);
            let mut cs = match d.severity {
                Severity::Error => CsDiagnostic::error(),
                Severity::Warning => CsDiagnostic::warning(),
            }
            .with_code(d.code)
            .with_message(&d.message)
            .with_notes(d.notes.clone());
            let mut labels = Vec::new();
            if let Some((span, label)) = &d.primary {
                labels.push(
                    Label::primary((), file.shown_range(self.clamp(*span))).with_message(label),
                );
            }
            for (span, label) in &d.secondary {
                labels.push(
                    Label::secondary((), file.shown_range(self.clamp(*span))).with_message(label),
                );
            }
            cs = cs.with_labels(labels);
            if d.primary.is_none() {
                // codespan prints no location without a label: name the file.
                cs.message = format!("{}: {}", self.name, d.message);
            }
            term::emit(&mut out, &config, &file, &cs).expect("writing to memory");
        }
        String::from_utf8(out.into_inner()).expect("diagnostics are UTF-8")
    }

    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.text.len();
        let start = (span.start as usize).min(len);
        start..(span.end as usize).clamp(start, len)
    }
}

/// Counts errors and warnings for a closing summary line.
pub fn summary(diagnostics: &[Diagnostic]) -> String {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}
