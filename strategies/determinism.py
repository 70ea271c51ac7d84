"""Draws that depend on the seed, the spec and Hypothesis's release alone, not on the code a process imported.

Since 6.131 Hypothesis mixes constants of "local" modules (any imported module outside site-packages and the
standard library: a `python:` target's module, the user's conftest.py, the suite itself installed editable) into
what it draws, about one draw in twenty (`hypothesis.internal.conjecture.providers._get_local_constants`). The
same `--seed` would then draw other cases for a target served as `python:` than over `exec:`, from a source
checkout than from a wheel, in one user's repository than in another's: certifiers comparing two implementations
under one seed must see the same cases. `without_local_constants()` makes Hypothesis see none in this process (a
conformance run's, a pack build's): its global constants (0, 1, -1, powers of two...) stay, as Hypothesis's
release fixes them.

There is no public switch: this replaces a private function of Hypothesis, as runner.plugin's SuiteModule uses
private pytest API: tests/unit/test_determinism.py fails if a release finds local constants otherwise.
"""
from __future__ import annotations

import importlib
from typing import Any


def without_local_constants() -> None:
    """Make every draw of this process blind to local modules' constants, from now on (idempotent; nothing to do
    for a Hypothesis release that has no such function — if one finds them otherwise, the test says so)."""
    try:
        providers = importlib.import_module("hypothesis.internal.conjecture.providers")
    except ImportError:
        return
    current = getattr(providers, "_get_local_constants", None)
    if current is None or getattr(current, "without_local_constants", False):
        return
    none = providers.Constants()

    def no_local_constants() -> Any:
        return none

    no_local_constants.without_local_constants = True   # type: ignore[attr-defined]
    setattr(providers, "_get_local_constants", no_local_constants)
    providers.CONSTANTS_CACHE.cache.clear()   # what earlier draws worked out from the local constants
