"""The bulk of the JSON edges: base64 of memory regions, the compact JSON lines of the exec wire, and reading JSON
from outside (format.bounded.loads: a target's answer carries its regions' base64, up to 45 MB of it).

The standard library does all of it. When installed (the `fast` extra: `pip install ascendc-conformance[fast]`),
pybase64 (SIMD base64) and orjson (a compiled JSON encoder) do the same work several times faster — on a `ci`
pack's cases (45 KB of regions each) about 160 of the runner's 330 µs of wire work per exec case, measured by
the benchmark key `exec_runner_us_per_case` — and give the same bytes: a line orjson would write differently
(text that is not ASCII, an integer past 64 bits) and every input the fast decoder refuses go through the
standard library, whose output and error messages are the reference (tests/unit/test_wire.py holds both
paths to each other).
"""
from __future__ import annotations

import base64
import json
from types import ModuleType
from typing import Any

orjson: ModuleType | None
pybase64: ModuleType | None
try:
    import orjson
except ImportError:   # the standard library's path: the same bytes, slower
    orjson = None
try:
    import pybase64
except ImportError:
    pybase64 = None


def b64encode(data: bytes) -> str:
    """`data` as standard base64 text (with padding)."""
    if pybase64 is not None:
        return pybase64.b64encode_as_string(data)
    return base64.b64encode(data).decode("ascii")


def b64decode(text: str) -> bytes:
    """Strict base64 decoding: binascii.Error (or ValueError for text that is not ASCII) on anything but the
    alphabet and correct padding, with the standard library's message."""
    if pybase64 is not None:
        try:
            return pybase64.b64decode(text, validate=True)
        except ValueError:   # binascii.Error too: the standard library says what is wrong, in its words
            pass
    return base64.b64decode(text, validate=True)


def json_line(message: Any) -> bytes:
    """`message` as one line of compact JSON (separators "," and ":", non-ASCII escaped), newline included, as
    json.dumps writes it; a float the same number, though perhaps spelt otherwise (orjson writes 1e16 where json
    writes 1e+16): the exec wire's requests hold none, a test's record (runner.plugin) reads back the same."""
    if orjson is not None:
        try:
            line = orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:   # orjson.JSONEncodeError: an integer past 64 bits, a type it does not know
            pass
        else:
            if line.isascii():   # json.dumps escapes every non-ASCII character; orjson writes it as UTF-8
                return line
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


DECLINED = object()
"""What `fast_loads` returns for a text the standard library's path must read (format.bounded.loads)."""


def fast_loads(data: str | bytes | bytearray, max_depth: int) -> Any:
    """A JSON text read by orjson, when the value it gives is the one json.loads gives and passes every check of
    format.bounded.loads: no float anywhere (orjson reads an integer past 64 bits as a float; JSON from outside
    rarely holds floats), nesting at most `max_depth` deep. DECLINED for anything else (no orjson, a text it
    refuses, a float, deeper nesting): the standard library's path then reads it, or says what is wrong."""
    if orjson is None:
        return DECLINED
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return DECLINED
    return value if _plain(value, max_depth) else DECLINED


def loads_checked(data: bytes) -> Any:
    """A JSON text read again whose bytes format.bounded.loads read and the suite checked before, pinned by their
    hash since, and that holds nothing `read_differently`: the value json.loads gives, without the checks
    (orjson's when it is installed)."""
    return orjson.loads(data) if orjson is not None else json.loads(data)


def read_differently(value: Any, where: str = "") -> tuple[str, int | float] | None:
    """The first float or integer past 64 bits in `value`, which orjson reads from JSON text otherwise than json
    does, and where it lies (a dotted path below `where`); None: none."""
    kind = type(value)
    if kind is dict or kind is list:
        for key, member in (value.items() if kind is dict else enumerate(value)):
            found = read_differently(member, f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
        return None
    return (where, value) if kind is float or (kind is int and not -2**63 <= value < 2**64) else None


_LEAVES = (str, int, bool, type(None))   # what a JSON value may hold besides containers and floats


def _plain(value: Any, levels: int) -> bool:
    """No float in `value`, and its containers nested at most `levels` deep (recursing at most that deep)."""
    kind = type(value)
    if kind is float:
        return False
    if kind is not dict and kind is not list:
        return True
    if levels == 0:
        return False
    return all(type(member) in _LEAVES or _plain(member, levels - 1)
               for member in (value.values() if kind is dict else value))
