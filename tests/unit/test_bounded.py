"""format.bounded: every way outside JSON can be malformed is one InputError line naming where it came from."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ascendc_conformance.format.bounded import InputError, MAX_DEPTH, clip, decode, depth, loads


@pytest.mark.parametrize("data, words", [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ('{"a": NaN}', "NaN is not JSON"),
    ('[Infinity]', "Infinity is not JSON"),
    ('[1e400]', "out of range"),
    ("1" * 5000, "4300"),
    (b'{"a": "\xff"}', "not UTF-8 text (byte 0xff at line 1"),
    ("\x00\x00\x00", "NUL character"),
    ('{"a": 1', "not JSON"),
    ("x" * 20, "more than the 10 accepted"),
])
def test_each_malformed_input_is_one_line_naming_where(data, words):
    with pytest.raises(InputError) as raised:
        loads(data, "answer to request 7", max_bytes=10 if words.startswith("more") else None)
    message = str(raised.value)
    assert message.startswith("answer to request 7: ") and words in message and "\n" not in message


def depth_by_walking(text: str, limit: int) -> int:
    """What `depth` must give: the nesting depth walked character by character, strings skipped."""
    level = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return min(deepest, limit + 1)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='[]{}"\\a:,', max_size=60), limit=st.integers(0, 8))
def test_depth_is_the_nesting_walked_character_by_character(text: str, limit: int) -> None:
    assert depth(text, limit) == depth_by_walking(text, limit)


def test_depth_skips_strings_and_stops_past_the_limit():
    assert depth('{"a": "[[[[[[", "b": [[1]]}') == 3
    assert depth("[" * 10_000, limit=5) == 6
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH, "x") is not None


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)))
def test_well_formed_json_parses_as_the_standard_library_does(value):
    import json
    text = json.dumps(value)
    if depth(text) <= MAX_DEPTH:
        assert loads(text, "x") == value


def test_decode_names_the_line_and_clip_says_what_it_cut():
    with pytest.raises(InputError, match="line 2"):
        decode(b"ok\n\xc3(", "f.yaml")
    assert clip("abcdef", 3) == "abc… (3 more characters)" and clip("abc", 3) == "abc"
