//! `gdlc._native`: the front end, the interpreter and the compiler of gdlc
//! for the `gdlc` Python package (`python/python/gdlc/__init__.py` is its
//! Python side). A description is checked here, an invalid one raised as
//! `gdlc.GdlError`; the interpreter's `Game` is made here, and a compiled
//! game is generated and built into an extension module of its own
//! ([`compiled`]), which `gdlc` imports.

mod compiled;
mod game;

use gdlc::interp::Interpreter;
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use std::sync::Arc;

/// Checks `description` (shown in messages as `name`), or raises
/// `gdlc.GdlError` with the rendered diagnostics and the first error's
/// file, line and column.
fn load(py: Python<'_>, description: &str, name: &str) -> PyResult<gdlc::Loaded> {
    gdlc::load_bytes(name.to_string(), description.as_bytes().to_vec())
        .map_err(|e| gdl_error(py, &e))
}

/// The `gdlc.GdlError` (or `OSError`) of a description that did not load.
fn gdl_error(py: Python<'_>, error: &gdlc::Error) -> PyErr {
    let gdlc::Error::Invalid { file, diagnostics } = error else {
        return PyOSError::new_err(error.to_string());
    };
    let (line, column) = diagnostics
        .iter()
        .filter(|d| d.is_error())
        .find_map(|d| d.primary.as_ref())
        .map_or((None, None), |(span, _)| {
            let (line, column) = file.line_column(span.start);
            (Some(line), Some(column))
        });
    let raised = py
        .import("gdlc")
        .and_then(|m| m.getattr("GdlError"))
        .and_then(|class| class.call1((error.to_string(), file.name.clone(), line, column)));
    match raised {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// The interpreter's `Game` for `description`, shown in messages as `name`.
#[pyfunction]
fn load_interpreted(py: Python<'_>, description: String, name: &str) -> PyResult<game::Game> {
    let loaded = Arc::new(load(py, &description, name)?);
    let make: game::Make<Interpreter> = Arc::new(move || Interpreter::new(&loaded));
    Ok(game::new_game(make, description, "interpreted"))
}

/// A warning about a valid description: its code, its message, its text
/// as `gdlc check` prints it, and its line and column where it has a place.
type Warning = (&'static str, String, String, Option<usize>, Option<usize>);

/// Raises `gdlc.GdlError` unless `description` is valid GDL; returns its
/// warnings.
#[pyfunction]
fn check(py: Python<'_>, description: &str, name: &str) -> PyResult<Vec<Warning>> {
    let loaded = load(py, description, name)?;
    let file = &loaded.file;
    let warnings = loaded.analysis.diagnostics.iter().filter(|d| !d.is_error());
    Ok(warnings
        .map(|d| {
            let (line, column) = d.primary.as_ref().map_or((None, None), |(span, _)| {
                let (line, column) = file.line_column(span.start);
                (Some(line), Some(column))
            });
            let text = file.render(std::slice::from_ref(d));
            (d.code, d.message.clone(), text, line, column)
        })
        .collect())
}

/// The game's fluents and moves, each in its fixed order.
#[pyfunction]
fn vocabulary(py: Python<'_>, description: &str) -> PyResult<(Vec<String>, Vec<String>)> {
    let loaded = load(py, description, "game")?;
    let v = gdlc::ir::limits::catch_limit(|| gdlc::compile::vocabulary(&loaded))
        .map_err(|limit| PyRuntimeError::new_err(limit.0))?
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((v.fluents, v.moves))
}

/// Generates `description`'s crate and its extension module's crate in
/// the compiled backend's cache and builds them (with `python` as PyO3's
/// interpreter), the GIL released; returns the module's name and the path
/// of its shared library, for `gdlc` to import.
#[pyfunction]
fn build_compiled(
    py: Python<'_>,
    description: &str,
    name: &str,
    python: String,
) -> PyResult<(String, String)> {
    let loaded = load(py, description, name)?;
    let built = py.detach(|| compiled::build(&loaded, &python));
    let built = built.map_err(PyRuntimeError::new_err)?;
    Ok((built.module, built.library.display().to_string()))
}

/// The native half of the `gdlc` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    game::add_classes(m)?;
    m.add_function(wrap_pyfunction!(load_interpreted, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(vocabulary, m)?)?;
    m.add_function(wrap_pyfunction!(build_compiled, m)?)?;
    Ok(())
}
