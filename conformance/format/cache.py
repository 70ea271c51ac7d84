"""A cache on disk of what this code works out from content alone, shared by every process of a run and by the
runs after it: a selection's tests (spec.derived), that a pack's files passed every check (format.pack).

An entry is a file named by a `name` and a key, in a folder per digest of the package's code (every module and
data file of it: an edited or upgraded install never reads what other code wrote) and Python (`cpython-311`: a
pickle is read back by the Python that wrote it). The cache is an optimisation
only: a folder that cannot be written, or an entry that cannot be read back, means working the value out again,
never an error. It lives in `$ASCENDC_CONFORMANCE_CACHE` if set (empty: no cache), else
`$XDG_CACHE_HOME/ascendc-conformance` (by default `~/.cache/ascendc-conformance`). Entries are written whole
or not at all (a temporary file renamed); folders of code untouched for STALE_SECONDS are removed when new code
writes its first entry.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Callable, Hashable

CACHE_VARIABLE = "ASCENDC_CONFORMANCE_CACHE"
"""The environment variable naming the cache's folder (empty: no cache)."""
PACKAGES = ("ascendc_conformance", "ascendc_conformance.spec", "ascendc_conformance.reference",
            "ascendc_conformance.strategies", "ascendc_conformance.reports")
"""The packages whose files the code digest covers (their folders lie apart in a source checkout)."""
CODE_SUFFIXES = (".py", ".yaml", ".json", ".j2")
STALE_SECONDS = 7 * 24 * 3600
"""A folder of another code digest untouched for this long is removed when a new entry is written."""
PASSED = b"passed"
"""The content of an entry that records a check passed (`checked`)."""


def folder() -> Path | None:
    """The cache's folder for this code and Python (None: no cache)."""
    configured = os.environ.get(CACHE_VARIABLE)
    if configured is not None:
        root = Path(configured) if configured else None
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ascendc-conformance"
    return root / f"{code_digest()[:16]}-{sys.implementation.cache_tag}" if root is not None else None


def entry(name: str, key: Hashable) -> Path | None:
    """Where the entry of `name` and `key` (its repr is hashed) lies (None: no cache)."""
    cache = folder()
    if cache is None:
        return None
    return cache / f"{name}-{hashlib.sha256(repr(key).encode()).hexdigest()[:32]}"


def read(path: Path | None) -> bytes | None:
    """An entry's bytes (None: no cache, no entry, or one that cannot be read)."""
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def write(path: Path | None, data: bytes) -> None:
    """Write an entry whole or not at all; nothing when the folder cannot be written (full, read-only)."""
    if path is None:
        return
    try:
        fresh = not path.parent.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", suffix=".tmp", delete=False) as file:
            file.write(data)
        os.replace(file.name, path)
        if fresh:
            _remove_stale(path.parent)
    except OSError:
        pass


def checked(name: str, key: Hashable, check: Callable[[], None]) -> None:
    """Run `check` (which raises on a problem) unless this code ran it before on the same key and it passed:
    for checks that depend on the key's content alone (a pack's id: the hashes of all its files)."""
    path = entry(name, key)
    if read(path) == PASSED:
        return
    check()
    write(path, PASSED)


def _remove_stale(current: Path) -> None:
    for other in current.parent.iterdir():
        if other != current and other.is_dir() and time.time() - other.stat().st_mtime > STALE_SECONDS:
            for file in other.iterdir():
                file.unlink()
            other.rmdir()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of every module and data file of the package (`files_digest` of its folders)."""
    folders: list[Path] = []
    for package in PACKAGES:
        found = find_spec(package)
        for location in (found.submodule_search_locations or []) if found else []:
            place = Path(location).resolve()
            if not any(place.is_relative_to(known) for known in folders):
                folders.append(place)
    return files_digest(folders)


def files_digest(folders: list[Path]) -> str:
    """sha256 of the code and data files under `folders` (CODE_SUFFIXES, not __pycache__), by path and content."""
    digest = hashlib.sha256()
    for place in folders:
        for file in sorted(place.rglob("*")):
            if file.suffix in CODE_SUFFIXES and "__pycache__" not in file.parts:
                digest.update(f"{file.relative_to(place)}\0".encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()
