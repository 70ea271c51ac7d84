"""judge.misread: a wrong copy that one misread field explains is named by it (a bit dropped, the field read as
0), so that two truncations of one target are two causes; a wrong copy no misread explains, and a right one,
name none; bytes read from outside the case (unknown) never make a candidate explain a copy it does not."""
from __future__ import annotations

import pytest

from ascendc_conformance.format.results import Cause
from ascendc_conformance.judge.misread import Misread
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.targets import open_target
from tests.e2e.test_buggy_catalogue import CASES, verdict_of

BUGGY = "python:tests.fixtures.buggy.targets:"


@pytest.mark.parametrize("bug, case, label", [
    ("DataCopyBlockCountIn11Bits", "blockcount-2049", "bit 11 of blockCount dropped"),
    ("LoadDataRepeatTimesIn7Bits", "repeat-129", "bit 7 of repeatTimes dropped"),
    ("DataCopyDstGapIgnored", "multi-burst", "dstGap read as 0"),
    ("DataCopySrcGapIgnored", "multi-burst", "srcGap read as 0"),
    # 32768 = one set bit: dropping it reads 0, which is what the label says (read from outside the case)
    ("LoadDataSimulatorTopBits", "stride-32768-gm", "srcStride read as 0"),
])
def test_a_wrong_copy_one_misread_explains_is_named_by_it(bug: str, case: str, label: str) -> None:
    with open_target(BUGGY + bug, load_spec()) as target:
        verdict = verdict_of(target, CASES[case])
    assert verdict.outcome == "fail" and verdict.misread is not None, verdict.describe()
    assert verdict.misread.label == label and label.split()[-3 if "dropped" in label else 0] in verdict.message
    assert Cause.of(verdict.outcome, {"api": CASES[case]["api"]}, verdict.diff and verdict.diff.to_json(), misread=verdict.misread.label).misread == label


@pytest.mark.parametrize("bug, case", [("HalfToFloatRaw", "half-to-float"), ("StrayWrite", "multi-burst"),
                                       ("GmAddressIn32Bits", "gm-dst-at-4-gib")])
def test_a_wrong_copy_no_misread_explains_names_none(bug: str, case: str) -> None:
    with open_target(BUGGY + bug, load_spec()) as target:
        verdict = verdict_of(target, CASES[case])
    assert verdict.outcome == "fail" and verdict.misread is None, verdict.describe()


def test_a_right_copy_names_no_misread() -> None:
    with open_target("reference", load_spec()) as target:
        verdict = verdict_of(target, CASES["stride-32768-gm"])
    assert verdict.outcome == "pass" and verdict.misread is None


def test_the_labels_say_which_bit_or_that_the_field_reads_as_zero() -> None:
    assert Misread("srcStride", 40000, 7232, 15).label == "bit 15 of srcStride dropped"
    assert "kept in 15 bits" in Misread("srcStride", 40000, 7232, 15).describe()
    assert Misread("dstGap", 5, 0).label == "dstGap read as 0"
    assert "ignored" in Misread("dstGap", 5, 0).describe()
