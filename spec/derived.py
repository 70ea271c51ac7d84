"""A cache on disk of what is worked out from a spec alone (a selection's tests, the bits its fields can reach),
shared by every process of a run and by the runs after it.

Working out the tests of a whole selection takes seconds: every run paid them in its controlling process and
again in each xdist worker (benchmarks/timeline.py). `remembered(spec, name, key, compute)` returns what
`compute()` returns, read back from the cache when the same code worked it out before from the same spec
content; the spec's own objects inside it (rules, paths, products, ...) are pickled as their places in the spec
(`dumps`, `loads`), so that what is read back holds the very objects of the spec it is given.

An entry is keyed by the spec's digest, `name` and `key`, in a folder per digest of the package's code (every
module and data file of it: an edited install never reads what older code worked out). The cache is an
optimisation only: a folder that cannot be written, an entry that cannot be read back (truncated, from another
Python) or a value that cannot be pickled means working it out again, never an error. It lives in
`$ASCENDC_CONFORMANCE_CACHE` if set (empty: no cache), else `$XDG_CACHE_HOME/ascendc-conformance` (by default
`~/.cache/ascendc-conformance`). Entries are pickles: the folder must be as private as the user's home.
"""
from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import io
import os
import pickle
import tempfile
import time
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path as FsPath
from types import MappingProxyType
from typing import Any, Callable, Hashable, TypeVar

from ascendc_conformance.spec.model import Spec

T = TypeVar("T")

CACHE_VARIABLE = "ASCENDC_CONFORMANCE_CACHE"
"""The environment variable naming the cache's folder (empty: no cache)."""
PACKAGES = ("ascendc_conformance", "ascendc_conformance.spec", "ascendc_conformance.reference",
            "ascendc_conformance.strategies", "ascendc_conformance.reports")
"""The packages whose files the code digest covers (their folders lie apart in a source checkout)."""
CODE_SUFFIXES = (".py", ".yaml", ".json", ".j2")
STALE_SECONDS = 7 * 24 * 3600
"""A folder of another code digest untouched for this long is removed when a new entry is written."""
_PROTOCOL = 5

_MEMORY: dict[tuple[str, str, Hashable], Any] = {}   # (spec digest, name, key) -> the value, in this process


def remembered(spec: Spec, name: str, key: Hashable, compute: Callable[[], T]) -> T:
    """What `compute()` returns for `name` and `key` under `spec`: the same object every time in a process, read
    back from the cache or worked out (and written into it) the first time (see the module's docstring)."""
    memory_key = (spec.digest, name, key)
    if memory_key not in _MEMORY:
        entry = _entry(spec, name, key)
        read = _read(entry, spec) if entry is not None else _MISSING
        if read is _MISSING:
            read = compute()
            if entry is not None:
                _write(entry, spec, read)
        _MEMORY[memory_key] = read
    value: T = _MEMORY[memory_key]
    return value


_MISSING = object()


def _read(entry: FsPath, spec: Spec) -> Any:
    """The entry's value, or _MISSING."""
    try:
        return loads(entry.read_bytes(), spec)
    except Exception:   # noqa: BLE001 - missing, truncated, or another version's pickle: work it out again
        return _MISSING


def cache_folder() -> FsPath | None:
    """The cache's folder for this code (None: no cache)."""
    configured = os.environ.get(CACHE_VARIABLE)
    if configured is not None:
        root = FsPath(configured) if configured else None
    else:
        root = FsPath(os.environ.get("XDG_CACHE_HOME") or FsPath.home() / ".cache") / "ascendc-conformance"
    return root / code_digest()[:16] if root is not None else None


def _entry(spec: Spec, name: str, key: Hashable) -> FsPath | None:
    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256(repr((spec.digest, name, key)).encode()).hexdigest()[:32]
    return folder / f"{name}-{digest}.pickle"


def _write(entry: FsPath, spec: Spec, value: Any) -> None:
    """Write an entry whole or not at all (a temporary file renamed), and clear out the folders of old code."""
    try:
        data = dumps(value, spec)
        fresh = not entry.parent.exists()
        entry.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=entry.parent, prefix=".", suffix=".tmp", delete=False) as file:
            file.write(data)
        os.replace(file.name, entry)
        if fresh:
            _remove_stale(entry.parent)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):   # full, read-only, unpicklable: no entry
        pass


def _remove_stale(current: FsPath) -> None:
    for folder in current.parent.iterdir():
        if folder != current and folder.is_dir() and time.time() - folder.stat().st_mtime > STALE_SECONDS:
            for file in folder.iterdir():
                file.unlink()
            folder.rmdir()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of every module and data file of the package (`files_digest` of its folders)."""
    folders: list[FsPath] = []
    for package in PACKAGES:
        found = find_spec(package)
        for location in (found.submodule_search_locations or []) if found else []:
            folder = FsPath(location).resolve()
            if not any(folder.is_relative_to(known) for known in folders):
                folders.append(folder)
    return files_digest(folders)


def files_digest(folders: list[FsPath]) -> str:
    """sha256 of the code and data files under `folders` (CODE_SUFFIXES, not __pycache__), by path and content."""
    digest = hashlib.sha256()
    for folder in folders:
        for file in sorted(folder.rglob("*")):
            if file.suffix in CODE_SUFFIXES and "__pycache__" not in file.parts:
                digest.update(f"{file.relative_to(folder)}\0".encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()


# --- pickling with the spec's objects by reference ------------------------------------------------------------------

def dumps(value: Any, spec: Spec) -> bytes:
    """`value` pickled, every object of `spec` in it written as its place in the spec (`_objects`)."""
    numbers = _objects(spec)[1]
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=_PROTOCOL)
    pickler.persistent_id = lambda obj: numbers.get(id(obj))   # type: ignore[method-assign]
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _read_only}
    pickler.dump(value)
    return buffer.getvalue()


def _read_only(mapping: MappingProxyType[Any, Any]) -> tuple[Callable[..., Any], tuple[dict[Any, Any]]]:
    """A read-only mapping outside the spec (the model's data is frozen so): pickled as one over a copy."""
    return _frozen, (dict(mapping),)


def _frozen(mapping: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(mapping)


def loads(data: bytes, spec: Spec) -> Any:
    """What `dumps(value, spec)` pickled, holding the objects of `spec` (of the same content) itself."""
    objects = _objects(spec)[0]
    unpickler = pickle.Unpickler(io.BytesIO(data))
    unpickler.persistent_load = objects.__getitem__   # type: ignore[method-assign]
    return unpickler.load()


_OBJECTS: dict[int, tuple[Spec, list[Any], dict[int, int]]] = {}   # id(spec) -> the spec (kept alive), _objects


def _objects(spec: Spec) -> tuple[list[Any], dict[int, int]]:
    """Every dataclass object and mapping of the spec, in the order a walk from the Spec down meets them (the
    same for the same spec content), and id -> its number in that order."""
    known = _OBJECTS.get(id(spec))
    if known is None:
        objects: list[Any] = []
        numbers: dict[int, int] = {}

        def visit(obj: Any) -> None:
            if id(obj) in numbers:
                return
            if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                numbers[id(obj)] = len(objects)
                objects.append(obj)
                for field in dataclasses.fields(obj):
                    visit(getattr(obj, field.name))
            elif isinstance(obj, (dict, MappingProxyType)):
                numbers[id(obj)] = len(objects)
                objects.append(obj)
                for member in obj.values():
                    visit(member)
            elif isinstance(obj, (tuple, list)):
                for member in obj:
                    visit(member)

        visit(spec)
        known = _OBJECTS[id(spec)] = (spec, objects, numbers)
    return known[1], known[2]
