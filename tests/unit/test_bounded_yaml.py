"""format.bounded_yaml: every way a YAML file from outside can be malformed or oversized is one InputError naming
the file and the line, raised before anything walks the document; well-formed YAML reads as PyYAML reads it."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import given, strategies as st

from ascendc_conformance.format.bounded import MAX_DEPTH, InputError
from ascendc_conformance.format.bounded_yaml import MAX_ALIAS_NODES, parse

# Nine anchors of ten aliases each: 10^9 nodes once expanded, in about 500 bytes.
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n" for previous, name in zip("abcdefghi", "bcdefghij"))


def nested(levels: int) -> str:
    return "".join(f"{'  ' * level}k:\n" for level in range(levels)) + f"{'  ' * levels}v\n"


@pytest.mark.parametrize("raw, line, words", [
    (ALIAS_BOMB.encode(), 5, f"aliases expand to more than {MAX_ALIAS_NODES} nodes"),
    (b"a: 1\nb: &b [1, *b]\n", 2, "a recursive alias"),
    (b"a: 1\nb: x\x00y\n", 2, "U+0000 (a NUL byte) at line 2"),
    (b"a: 1\n\x07: 2\n", 2, "control character U+0007"),
    (b"a: 1\nb: caf\xe9\n", 2, "not UTF-8 text (byte 0xe9 at line 2"),
    (nested(MAX_DEPTH + 1).encode(), None, f"nested deeper than {MAX_DEPTH} levels"),
    (b"a: 1\n3: x\n", 2, "the key '3' at line 2 is not text"),
    (b"a: 1\n? [x]\n: y\n", 2, "a list used as a key"),
    (b"a: 1\nwhen: 2024-13-45\n", 2, "cannot read '2024-13-45' as timestamp (month must be in 1..12)"),
    (b"a: " + b"9" * 5000 + b"\n", 1, "as int (Exceeds the limit (4300 digits)"),
    (b"a: 1\nb: [1, 2\n", 3, "not valid YAML"),
    (b"a: 1\n---\nb: 2\n", 2, "not valid YAML: but found another document"),
])
def test_each_malformed_file_is_one_line_naming_the_file_and_line(raw, line, words):
    with pytest.raises(InputError) as raised:
        parse(raw, "w.yaml")
    error = raised.value
    assert str(error).startswith("w.yaml: ") and words in error.problem and "\n" not in str(error), str(error)
    if line is not None:
        assert error.line == line and f"line {line}" in error.problem, str(error)


def test_an_alias_bomb_is_refused_before_it_is_expanded():
    """Expanded, the bomb would take minutes and all memory; refused, it takes as long as its few lines."""
    with pytest.raises(InputError, match="aliases expand"):
        parse(ALIAS_BOMB.encode(), "bomb.yaml")


def test_reused_anchors_and_merge_keys_within_the_bound_read_as_pyyaml_reads_them():
    text = ("base: &base {x: 1, y: [1, 2]}\nfirst: *base\nsecond: {<<: *base, x: 3}\n"
            f"many: [{', '.join(['*base'] * 100)}]\n")
    document = parse(text.encode(), "f.yaml")
    assert document.data == yaml.safe_load(text)
    assert document.duplicate_keys == ()   # a key that overrides a merged one is not given twice


def test_lines_of_key_paths_and_keys_given_twice():
    document = parse(b"a: 1\nlist:\n  - {id: x}\n  - id: y\n    n: 2\na: 3\n", "f.yaml")
    assert document.line(("list", 1, "n")) == 5 and document.line(("list", 0, "id")) == 3
    assert document.line(("list", 1, "nothing", 7)) == 4   # the nearest ancestor that has a line
    duplicate, = document.duplicate_keys
    assert (duplicate.path, duplicate.line, duplicate.first_line) == (("a",), 6, 1)
    assert parse(b"# only a comment\n", "f.yaml").data is None


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(st.characters(codec="ascii",
                                                                                      categories=("L", "N")),
                                                                          min_size=1, max_size=5), inner, max_size=3),
    max_leaves=20)


@given(yaml_values)
def test_well_formed_yaml_reads_as_pyyaml_reads_it(value):
    text = yaml.safe_dump({"value": value}, allow_unicode=True)
    assert parse(text.encode(), "f.yaml").data == yaml.safe_load(text)
