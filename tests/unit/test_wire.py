"""format.wire: the fast path (orjson, pybase64) gives the standard library's bytes and refuses what it refuses."""
from __future__ import annotations

import base64
import binascii
import json

import pytest
from hypothesis import given, settings, strategies as st

from ascendc_conformance.format import bounded, wire
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import TestKind, TestRecord, freeze

FAST = pytest.mark.skipif(wire.orjson is None or wire.pybase64 is None, reason="the fast extra is not installed")


def stdlib_decode(text: str) -> bytes | type[Exception]:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        return binascii.Error
    except ValueError:
        return ValueError


def decoded(text: str) -> bytes | type[Exception]:
    try:
        return wire.b64decode(text)
    except binascii.Error:
        return binascii.Error
    except ValueError:
        return ValueError


@FAST
@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="AQgw+/=\n a\u00e9", max_size=12) | st.binary(max_size=40).map(
    lambda raw: base64.b64encode(raw).decode()))
def test_decoding_accepts_and_refuses_what_the_standard_library_does(text: str) -> None:
    assert decoded(text) == stdlib_decode(text)


@FAST
def test_a_refused_text_has_the_standard_librarys_message() -> None:
    with pytest.raises(binascii.Error) as fast:
        wire.b64decode("AB=")
    with pytest.raises(binascii.Error) as stdlib:
        base64.b64decode("AB=", validate=True)
    assert str(fast.value) == str(stdlib.value)


@given(st.binary(max_size=300))
def test_encoding_is_the_standard_librarys(raw: bytes) -> None:
    assert wire.b64encode(raw) == base64.b64encode(raw).decode("ascii")


MESSAGES = [
    {"id": 7, "op": "execute", "case": {"api": "DataCopy", "params": {"blockCount": 2, "x": -1, "big": 2**64 - 1},
                                        "memory": {"GM": {"address": 2**63, "data": "AAEC"}}, "tags": ["a", "b"]}},
    {"id": 1, "op": "hello", "text": "naïve \u2028 \"quoted\" \\ back\nslash", "empty": {}, "list": [], "none": None},
    {"huge": 2**70, "negative": -(2**63), "flag": True},
]


@pytest.mark.parametrize("message", MESSAGES)
def test_a_json_line_is_what_json_dumps_writes(message: dict) -> None:
    assert wire.json_line(message) == (json.dumps(message, separators=(",", ":")) + "\n").encode()


@pytest.mark.parametrize("message", MESSAGES)
def test_the_standard_library_path_writes_the_same(message: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = wire.json_line(message), wire.b64encode(b"\x00\xff" * 9), wire.b64decode("AAEC")
    monkeypatch.setattr(wire, "orjson", None)
    monkeypatch.setattr(wire, "pybase64", None)
    assert (wire.json_line(message), wire.b64encode(b"\x00\xff" * 9), wire.b64decode("AAEC")) == fast


def read(data: bytes, max_depth: int) -> str:
    """What bounded.loads makes of `data`: the value's repr (1, 1.0 and True told apart), or its error's message."""
    try:
        return repr(bounded.loads(data, "answer", max_depth=max_depth))
    except bounded.InputError as error:
        return f"InputError: {error}"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12)
JSON_TEXTS = (JSON_VALUES.map(lambda value: json.dumps(value).encode())   # NaN and Infinity included
              | st.text(alphabet='[]{}":,0123456789.eE-+ tfnaulrs\\u\x00\n\ufeff\ud800', max_size=16).map(
                  lambda text: text.encode("utf-8", "surrogatepass"))
              | st.binary(max_size=12))


@FAST
@settings(max_examples=2000, deadline=None)
@given(JSON_TEXTS, st.integers(1, 4))
def test_reading_json_gives_the_standard_librarys_value_or_message(data: bytes, max_depth: int) -> None:
    fast = read(data, max_depth)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire, "orjson", None)
        assert read(data, max_depth) == fast


@FAST
def test_an_answer_is_read_by_the_fast_path() -> None:
    """Not only equal: the fast path is the one taken for an ordinary answer (else it would cost, not save)."""
    answer = json.dumps({"id": 3, "status": "ok", "memory": {"GM": [{"address": 0, "data": "AAEC" * 100}]}})
    assert wire.fast_loads(answer.encode(), bounded.MAX_DEPTH) == json.loads(answer)
    for declined in (b"[1.5]", b"18446744073709551616", b"[[[1]]]", b"NaN"):
        assert wire.fast_loads(declined, 2) is wire.DECLINED, declined


@FAST
def test_a_test_record_is_written_by_the_fast_path() -> None:
    """A test's record (its counts keyed by Outcome members) is JSON orjson writes as it is: a key it refuses
    (orjson takes str keys only, not a str enum's members) sends every record to the standard library."""
    record = TestRecord(test_id="test_legal[x]", kind=TestKind.LEGAL, verdict=Outcome.PASS,
                        counts=freeze({Outcome.PASS: 3, Outcome.FALSE_REJECT: 1}), shown=freeze({"named": 2}))
    message = record.to_json()
    line = wire.orjson.dumps(message, option=wire.orjson.OPT_APPEND_NEWLINE)   # raises on a non-str key
    assert line == wire.json_line(message) == (json.dumps(message, separators=(",", ":")) + "\n").encode()
    assert json.loads(line)["counts"] == {"pass": 3, "false-reject": 1}
