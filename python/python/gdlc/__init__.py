"""gdlc from Python: GDL games checked, interpreted, or compiled to Rust.

    >>> import gdlc
    >>> game = gdlc.load("games/tictactoe.kif")
    >>> state = game.initial_state()
    >>> game.legal_moves(state, 0)[0].text
    '(mark 1 1)'

`load` returns a `Game`; its states and moves are immutable, hashable and
picklable. `backend="compiled"` generates the game's Rust crate and an
extension module for it in gdlc's cache (a Rust toolchain needed), built
once per game; `"interpreted"` uses gdlc's reference interpreter; `"auto"`
(the default) compiles where `cargo` is found and says once why not where
it is not.
"""

import importlib.machinery
import importlib.util
import logging
import os
import shutil
import sys
import threading
import time
import warnings

from . import _native
from ._native import Game, Move, State

__all__ = ["load", "check", "Game", "State", "Move", "GdlError", "GdlWarning"]

BACKENDS = ("auto", "interpreted", "compiled")


class GdlError(Exception):
    """An invalid description: `text` is the rendered diagnostics, `file`,
    `line` and `column` (1-based) where the first error is, when it has a
    place."""

    def __init__(self, text, file=None, line=None, column=None):
        super().__init__(text)
        self.text = text
        self.file = file
        self.line = line
        self.column = column


class GdlWarning(UserWarning):
    """A warning about a valid description, as `gdlc check` prints it:
    `code` names its kind (e.g. `undefined-relation`), `message` says what
    in one line, `text` is the rendered warning, `file`, `line` and
    `column` (1-based) where it is, when it has a place."""

    def __init__(self, text, code, message, file=None, line=None, column=None):
        super().__init__(text)
        self.text = text
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column


_loaded = {}
_log = logging.getLogger("gdlc")
# Seconds a compiled build may take before the `gdlc` logger says so.
_QUIET_BUILD_SECONDS = 2.0
_modules = {}
_warned = set()


def _description(path_or_text):
    """The text and display name of a description given as a path or as
    text (text is anything that contains an opening parenthesis)."""
    if isinstance(path_or_text, os.PathLike) or "(" not in str(path_or_text):
        path = os.fspath(path_or_text)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read(), path
    return str(path_or_text), "<description>"


def check(path_or_text):
    """Raises `GdlError` unless the description is valid GDL; its warnings
    are issued as `GdlWarning`s (Python's `warnings`, so a filter can
    silence them)."""
    text, name = _description(path_or_text)
    _check(text, name, stacklevel=3)


def _check(text, name, stacklevel):
    """Raises `GdlError` unless the description is valid; issues its
    warnings, attributed to the caller `stacklevel` frames up."""
    for code, message, rendered, line, column in _native.check(text, name):
        warning = GdlWarning(rendered, code, message, name, line, column)
        warnings.warn(warning, stacklevel=stacklevel)


def load(path_or_text, backend="auto"):
    """The `Game` of a description, given as a path or as KIF text.

    backend: "auto" (compiled where a Rust toolchain is found, else
    interpreted, with a warning saying why), "interpreted" or "compiled".
    Raises `GdlError` for an invalid description; issues its warnings
    as `GdlWarning`s the first time it is loaded.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    text, name = _description(path_or_text)
    key = (text, backend)
    if key not in _loaded:
        _loaded[key] = _load(text, name, backend)
    return _loaded[key]


def _load(text, name, backend):
    _check(text, name, stacklevel=4)
    if backend == "interpreted":
        return _native.load_interpreted(text, name)
    if backend == "auto":
        why_not = _why_not_compiled()
        if why_not is not None:
            _warn_once(why_not)
            return _native.load_interpreted(text, name)
        try:
            return _compiled(text, name)
        except RuntimeError as e:
            _warn_once(f"gdlc: using the interpreter: the game did not compile: {e}")
            return _native.load_interpreted(text, name)
    return _compiled(text, name)


def _why_not_compiled():
    """Why the compiled backend cannot be used here, or None."""
    cargo = os.environ.get("CARGO", "cargo")
    if shutil.which(cargo) is None:
        return f"gdlc: using the interpreter: no Rust toolchain (`{cargo}` is not on the PATH)"
    return None


def _warn_once(message):
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def _compiled(text, name):
    """The compiled game: its extension module built (or found built) in
    the cache and imported once per library file. A build that takes
    more than `_QUIET_BUILD_SECONDS` is announced on the `gdlc` logger,
    and its end too."""
    start = time.monotonic()
    said = threading.Event()

    def say():
        said.set()
        _log.warning("gdlc: building the compiled reasoner of %s with cargo (seconds; the "
                     "first game also builds PyO3 and gdlc's runtime: about 20 s on two idle "
                     "cores, minutes on a busy machine; a game built before loads at once)",
                     name)

    announce = threading.Timer(_QUIET_BUILD_SECONDS, say)
    announce.daemon = True
    announce.start()
    try:
        module_name, library = _native.build_compiled(text, name, sys.executable)
    finally:
        announce.cancel()
    if said.is_set():
        _log.warning("gdlc: built %s in %.0f s", name, time.monotonic() - start)
    module = _modules.get(library)
    if module is None:
        loader = importlib.machinery.ExtensionFileLoader(module_name, library)
        spec = importlib.util.spec_from_file_location(module_name, library, loader=loader)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[library] = module
    return module.new_game(text)


def _perfect_information_only(game, adapter):
    """Raises `NotImplementedError` for a game with GDL-II percepts, which
    the adapter `adapter` would show every player in full."""
    if game.has_percepts:
        raise NotImplementedError(
            f"GDL-II percepts (`sees`): the {adapter} adapter models perfect "
            "information only; play the game through gdlc.Game, whose "
            "`percepts` gives what each role sees")


def _load_for_pickle(text, backend):
    return load(text, backend)


def _state_from_pickle(game, fluents):
    return game.state_from_fluents(fluents)


def _move_from_pickle(game, role, text):
    return game.parse_move(role, text)
