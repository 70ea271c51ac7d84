"""runner.waivers: a waiver file is a list of waivers of known rules or test ids; anything else is one
WaiverError line naming the file, the waiver (number and line) and the field, and what it accepts."""
from __future__ import annotations

from pathlib import Path

import pytest

from ascendc_conformance.runner.waivers import Waiver, WaiverError, load
from ascendc_conformance.spec.loader import load_spec

RULES = load_spec().rules
GOOD = ("- rule: DataCopy-dstGap-range\n  reason: clamps dstGap\n  link: TRACK-1\n"
        "- test: test_legal[atlas-a2-DataCopy-GM->VECIN-half]\n  reason: flaky\n  link: TRACK-2\n")


def written(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "waivers.yaml"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def test_a_good_file_loads_and_an_empty_one_waives_nothing(tmp_path: Path) -> None:
    assert load(written(tmp_path, GOOD), RULES) == (
        Waiver("clamps dstGap", "TRACK-1", rule="DataCopy-dstGap-range"),
        Waiver("flaky", "TRACK-2", test="test_legal[atlas-a2-DataCopy-GM->VECIN-half]"))
    assert load(written(tmp_path, "# nothing waived yet\n"), RULES) == ()


@pytest.mark.parametrize("content, words", [
    ("- test: 5\n  reason: r\n  link: l\n", ":1: waiver 1: 'test' must be a test id as pytest shows it (text), got int 5"),
    ("- rule: [DataCopy-route]\n  reason: r\n  link: l\n", ":1: waiver 1: 'rule' must be a rule id of the spec (text), got list ['DataCopy-route']"),
    (GOOD + "- rule: DataCopy-route\n  reason: ''\n  link: l\n", ":7: waiver 3: 'reason' must be a text saying why"),
    (GOOD + "- rule: DataCopy-route\n  reason: r\n", ":7: waiver 3: 'link' is required: a text saying where"),
    ("- rule: DataCopy-route\n  reason: r\n  link: l\n  reason: s\n", ":1: waiver 1: 'reason' is given twice (lines 2 and 4)"),
    ("- {rule: DataCopy-route, test: t, reason: r, link: l}\n", ":1: waiver 1: give exactly one of 'rule'"),
    ("- {reason: r, link: l}\n", ":1: waiver 1: give exactly one of 'rule'"),
    ("- {rule: DataCopy-route, reason: r, link: l, colour: red}\n", ":1: waiver 1: unknown key(s) colour; allowed: rule, test"),
    ("- {rule: No-such-rule, reason: r, link: l}\n", ":1: waiver 1: 'rule': no rule 'No-such-rule' in the spec"),
    ("- 5\n", ":1: waiver 1: expected a mapping with rule or test, reason and link, got int 5"),
    ("rule: DataCopy-route\n", ": expected a list of waivers (- rule: ..., reason: ..., link: ...), got dict {'rule': 'DataCopy-route'}"),
    ("- {rule: DataCopy-route, reason: r, link: l\n", ": not valid YAML"),
    (b"- {rule: DataCopy-route, reason: caf\xe9, link: l}\n", ": not UTF-8 text (byte 0xe9 at line 1"),
    ("- {rule: DataCopy-route, reason: \x00, link: l}\n", ": holds the control character U+0000 (a NUL byte) at line 1"),
    ("- {rule: DataCopy-route, reason: r, link: 2024-13-45}\n", ": cannot read '2024-13-45' as timestamp"),
    ("- a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"- {name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n" for previous, name in zip("abcdefghi", "bcdefghij")),
     ": aliases expand to more than 100000 nodes"),
])
def test_each_malformed_file_is_one_line_naming_file_waiver_and_field(tmp_path: Path, content, words) -> None:
    path = written(tmp_path, content)
    with pytest.raises(WaiverError) as raised:
        load(path, RULES)
    message = str(raised.value)
    assert message.startswith(f"{path}{words}") and "\n" not in message, message


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(WaiverError, match="cannot read the waiver file"):
        load(tmp_path / "missing.yaml", RULES)
