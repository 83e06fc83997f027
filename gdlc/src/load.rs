//! Reading a description from disk or memory through stages 1 and 2.

use crate::check::{self, Analysis};
use crate::diagnostics::{summary, Diagnostic, SourceFile};
use std::path::Path;

/// Why a description could not be loaded.
#[derive(Debug)]
pub enum Error {
    /// The file could not be read.
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The description is invalid; the diagnostics say why.
    Invalid {
        /// The source, for rendering.
        file: Box<SourceFile>,
        /// Every diagnostic, errors and warnings.
        diagnostics: Vec<Diagnostic>,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "error: cannot read `{path}`: {source}"),
            Error::Invalid { file, diagnostics } => {
                let errors: Vec<Diagnostic> = diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .cloned()
                    .collect();
                write!(f, "{}", file.render(&errors))?;
                write!(
                    f,
                    "{}: invalid description ({})",
                    file.name,
                    summary(&errors)
                )
            }
        }
    }
}

impl std::error::Error for Error {}

/// A description that passed stages 1 and 2.
pub struct Loaded {
    /// The source.
    pub file: SourceFile,
    /// Normal-form rules and the warnings found.
    pub analysis: Analysis,
}

/// Reads and checks the description at `path`.
pub fn load_path(path: &Path) -> Result<Loaded, Error> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: name.clone(),
        source,
    })?;
    load_bytes(name, bytes)
}

/// Checks a description given as bytes, shown in diagnostics as `name`.
pub fn load_bytes(name: String, bytes: Vec<u8>) -> Result<Loaded, Error> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            // Show the valid prefix so the position can be rendered.
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let at = text[..]
                .char_indices()
                .nth(String::from_utf8_lossy(&bytes[..offset]).chars().count())
                .map_or(text.len(), |(i, _)| i);
            // The span covers the whole replacement character, so it ends
            // on a character boundary.
            let end = at + text[at..].chars().next().map_or(0, char::len_utf8);
            let file = SourceFile { name, text };
            let d = Diagnostic::error("invalid-utf8", "the file is not valid UTF-8")
                .at(crate::diagnostics::Span::new(at, end), "invalid byte here");
            return Err(Error::Invalid {
                file: Box::new(file),
                diagnostics: vec![d],
            });
        }
    };
    load_source(SourceFile { name, text })
}

/// Checks a description given as text.
pub fn load_source(file: SourceFile) -> Result<Loaded, Error> {
    let (description, mut diagnostics) = crate::syntax::parse(&file);
    let analysis = match description {
        Some(d) if !diagnostics.iter().any(Diagnostic::is_error) => check::check(&d),
        _ => {
            return Err(Error::Invalid {
                file: Box::new(file),
                diagnostics,
            })
        }
    };
    diagnostics.extend(analysis.diagnostics);
    let analysis = Analysis {
        rules: analysis.rules,
        diagnostics,
    };
    if analysis.has_errors() {
        return Err(Error::Invalid {
            file: Box::new(file),
            diagnostics: analysis.diagnostics,
        });
    }
    Ok(Loaded { file, analysis })
}
