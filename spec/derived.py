"""What is worked out from a spec alone (a selection's tests, the bits its fields can reach), kept in the cache on
disk (format.cache) that every process of a run and the runs after it read back.

Working out the tests of a whole selection takes seconds: every run paid them in its controlling process and
again in each xdist worker (benchmarks/timeline.py). `remembered(spec, name, key, compute)` returns what
`compute()` returns, read back from the cache when the same code worked it out before from the same spec
content; the spec's own objects inside it (rules, paths, products, ...) are pickled as their places in the spec
(`dumps`, `loads`), so that what is read back holds the very objects of the spec it is given. An entry that
cannot be read back (truncated, from another Python) is worked out again; a value that cannot be pickled (a
closure in it) is not kept. Entries are pickles: the cache's
folder must be as private as the user's home.
"""
from __future__ import annotations

import copyreg
import dataclasses
import io
import pickle
from pathlib import Path as FsPath
from types import MappingProxyType
from typing import Any, Callable, Hashable, TypeVar

from ascendc_conformance.format import cache
from ascendc_conformance.spec.model import Spec

T = TypeVar("T")

_PROTOCOL = 5
_MEMORY: dict[tuple[str, str, Hashable], Any] = {}   # (spec digest, name, key) -> the value, in this process
_MISSING = object()


def remembered(spec: Spec, name: str, key: Hashable, compute: Callable[[], T]) -> T:
    """What `compute()` returns for `name` and `key` under `spec`: the same object every time in a process, read
    back from the cache or worked out (and written into it) the first time."""
    memory_key = (spec.digest, name, key)
    if memory_key not in _MEMORY:
        entry = cache.entry(name, (spec.digest, key))
        read = _read(entry, spec)
        if read is _MISSING:
            read = compute()
            data = _pickled(read, spec) if entry is not None else None
            if data is not None:
                cache.write(entry, data)
        _MEMORY[memory_key] = read
    value: T = _MEMORY[memory_key]
    return value


def _pickled(value: Any, spec: Spec) -> bytes | None:
    """`dumps(value, spec)`, or None for a value that holds something pickle cannot write: an API's strategies
    module may build its fault edits as closures (strategies.api_contract); its selection is then worked out in
    every process, as before the cache (the built-in APIs' pickle: tests/unit/test_derived_cache.py)."""
    try:
        return dumps(value, spec)
    except (pickle.PicklingError, AttributeError, TypeError):
        return None


def _read(entry: FsPath | None, spec: Spec) -> Any:
    """The entry's value, or _MISSING."""
    data = cache.read(entry)
    if data is None:
        return _MISSING
    try:
        return loads(data, spec)
    except Exception:   # noqa: BLE001 - truncated, or another version's pickle: work it out again
        return _MISSING


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
