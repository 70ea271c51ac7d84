"""Reading what comes from outside the suite: strict, bounded JSON and text, refused in one line.

Every file, stream line and answer the suite reads (target answers and hellos, case files, replay and results
files, waivers, report directories) goes through `loads` or `decode`: a size limit, a nesting limit checked
before the parser recurses (a line of 100,000 brackets is the input's fault, not a RecursionError of the
suite's), strict UTF-8, and no NaN or Infinity (JSON has neither; Python's parser accepts them). A problem is
an `InputError` whose message names where the input came from (`file:line`, `answer to request 7`) and what
would be accepted. `clip` cuts what a target says to a documented length before the suite stores or prints it.
With the `fast` extra, orjson reads a text first (format.wire.fast_loads) and its value is taken only where it is
sure to be json's and to pass every check; the standard library reads everything else and words every refusal.

Size limits hold while reading, never after: `read_file` reads a chunk at a time, at most its limit and one byte
more (a file whose size says it is larger is not read at all: a sparse 3 GiB file costs nothing), `gunzip`
inflates a chunk at a time, at most its limit (a gzip bomb is refused when its output passes it), `lines` reads
one line at a time, at most its limit of each (the rest of a longer line is skipped a chunk at a time).
"""
from __future__ import annotations

import itertools
import json
import math
import operator
import os
import re
import zlib
from dataclasses import dataclass
from typing import IO, Any, Iterator

from ascendc_conformance.format.errors import ConformanceError

MAX_DEPTH = 64
"""Deepest nesting of objects and arrays accepted in any JSON the suite reads (a case is at most 5 deep)."""

SHOWN_CHARS = 60
"""How much of a malformed value from outside a message quotes."""

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The largest JSON document read from outside unless a reader says otherwise: a line of a JSON-lines stream (a
request, a case, a target's answer) or a case file."""

_CHUNK = 1 << 20   # what reading a file, skipping the rest of a too long line and inflating take at a time


class InputError(ConformanceError):
    """Input from outside the suite is malformed; the message is one line naming where and what is accepted.

    Its parts stay apart for a caller that states the place in its own form (a spec issue's `file:line`):
    `where` the input, `problem` what is wrong with it and `line` its line when one is known."""

    def __init__(self, where: str, problem: str, line: int | None = None) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem
        self.line = line


def decode(data: bytes | bytearray, where: str) -> str:
    """`data` as UTF-8 text; InputError naming the line and byte of the first invalid sequence."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(where, f"not UTF-8 text (byte 0x{data[error.start]:02x} at line {line}, offset "
                                f"{error.start}); save it as UTF-8", line) from None


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """What a value from outside is, for a message: its type and its text cut to `limit` (`int 5`,
    `list ['a']`)."""
    return f"{type(value).__name__} {clip(repr(value), limit)}"


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.S)   # a JSON string, or an unterminated one to the end
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEPS = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})   # 2 per opening, 0 per closing


def depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of the JSON text's arrays and objects (strings skipped, an unterminated one to the end),
    counted up to `limit + 1`: linear, never recursive, whatever the text, and at C speed (regular expressions
    drop the strings and all but the brackets; the depth after the i-th bracket is twice the openings among the
    first i, less i)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    levels = map(operator.sub, itertools.accumulate(brackets.translate(_STEPS).encode("latin-1")), itertools.count(1))
    return min(max(max(levels), 0), limit + 1)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (JSON has no NaN or Infinity)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is out of range for a double")
    return value


def loads(data: str | bytes | bytearray, where: str, *, max_bytes: int | None = None, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON document from outside; InputError (one line, starting with `where`) if it is too large,
    not UTF-8, nested deeper than `max_depth`, not JSON, or holds NaN, Infinity or a number out of range."""
    size = len(data)
    if max_bytes is not None and size > max_bytes:
        raise InputError(where, f"{size} bytes, more than the {max_bytes} accepted")
    # imported here: the plugin checks its options with this module before any target is given, importing only
    # pytest and the standard library until then (tests/meta/test_architecture.py); wire imports orjson
    from ascendc_conformance.format import wire
    value = wire.fast_loads(data, max_depth)   # the same value, when it is sure to be: an answer's 45 MB at C speed
    if value is not wire.DECLINED:
        return value
    text = data if isinstance(data, str) else decode(data, where)
    if "\x00" in text:
        raise InputError(where, f"holds a NUL character (at offset {text.index(chr(0))}); expected JSON text")
    # a text with fewer brackets than the limit cannot nest deeper: only such texts are walked (in Python)
    if text.count("[") + text.count("{") > max_depth and depth(text, max_depth) > max_depth:
        raise InputError(where, f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as error:
        raise InputError(where, f"not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except ValueError as error:   # NaN / Infinity, a float out of range, an integer of more than 4300 digits
        raise InputError(where, str(error).splitlines()[0]) from None


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def read_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the file at `path`, refused (InputError naming it) once it holds more than `max_bytes`:
    at most `max_bytes + 1` bytes are ever read, whatever the file's size. OSError for a file that cannot be
    opened or read (the caller says what it was for)."""
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:   # a regular file says its size (a pipe says 0)
            raise InputError(str(path), f"larger than the {max_bytes} bytes accepted")
        chunks, size = [], 0
        while size <= max_bytes and (chunk := handle.read(min(_CHUNK, max_bytes + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    if size > max_bytes:
        raise InputError(str(path), f"larger than the {max_bytes} bytes accepted")
    return b"".join(chunks)


def gunzip(data: bytes, where: str, max_bytes: int) -> bytes:
    """The content of gzip `data` (RFC 1952; several members are concatenated), inflated a chunk at a time:
    InputError as soon as it would be larger than `max_bytes` (a 1.3 MB gzip bomb costs about `max_bytes`, not
    the 1.3 GB it inflates to), or for data that is not gzip or is cut short."""
    parts: list[bytes] = []
    size = 0
    rest = data
    while rest:   # one gzip member after another
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)   # a gzip header and trailer
        while rest and not inflater.eof:
            try:
                part = inflater.decompress(rest, _CHUNK)
            except zlib.error as error:
                raise InputError(where, f"not a gzip file ({error})") from None
            size += len(part)
            if size > max_bytes:
                raise InputError(where, f"inflates to more than the {max_bytes} bytes accepted")
            parts.append(part)
            rest = inflater.unconsumed_tail
        if not inflater.eof:
            raise InputError(where, "not a gzip file (cut short: its last member has no end)")
        rest = inflater.unused_data
    return b"".join(parts)


@dataclass(frozen=True)
class Line:
    """One line of a JSON-lines stream as `lines` read it: `data` holds at most the limit and one byte more,
    `size` is the line's full length (its line break excluded), `ended` whether a line break ends it (a stream
    cut in the middle of its last line has none)."""

    number: int
    data: bytes | str
    size: int
    ended: bool

    def json(self, where: str, max_bytes: int) -> Any:
        """The line's JSON value (`loads`); InputError naming `where` for a line longer than `max_bytes`."""
        if self.size > max_bytes:
            raise InputError(where, f"a line of {self.size} bytes, more than the {max_bytes} accepted")
        return loads(self.data, where, max_bytes=max_bytes)


def lines(stream: IO[str] | IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The lines of a stream of JSON lines, one at a time (no read-ahead, so that an answer can follow each
    line as it arrives), each read to at most `max_bytes + 1` bytes (the rest of a longer line is skipped in
    chunks, only counted); the bytes of a text stream that has a binary buffer (stdin), so that `loads`
    decodes them strictly and a bad line is that line's error, not the end of the stream."""
    source: Any = getattr(stream, "buffer", stream)
    number = 0
    while line := source.readline(max_bytes + 1):
        number += 1
        newline = "\n" if isinstance(line, str) else b"\n"
        size, ended = len(line), line.endswith(newline)
        while not ended and size > max_bytes and (more := source.readline(_CHUNK)):   # the rest, skipped
            size += len(more)
            ended = more.endswith(newline)
        yield Line(number=number, data=line, size=size - ended, ended=ended)
