"""Conformance tests of a pack run (`run --pack DIR`): the tests of a profile run, under the same ids, whose
cases come from the pack instead of Hypothesis.

Each test takes its plan (runner.gates: the same skips as a profile run), sends the pack's cases of the test
that the plan lets through, all at once, and judges each through the run's checker (runner.pack_run); no case
is drawn or shrunk. The plugin collects this module instead of test_conformance.py when a pack is given. A
pack has no limit tests: their cases depend on the limits a target declares.
"""
from __future__ import annotations

from ascendc_conformance.runner import gates
from ascendc_conformance.runner.pack_run import check_pack_test
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.selection import subject
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.spec.model import Path
from ascendc_conformance.strategies.boundaries import Boundary
from ascendc_conformance.strategies.faults import Fault
from ascendc_conformance.strategies.smoke import Smoke


def _check(run: RunSession, record: CheckRecord, item: Path | Fault | Boundary | Smoke) -> None:
    record.describe(**subject(item))
    check_pack_test(run, record, gates.plan(run, record, item))


def test_smoke(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_smoke: Smoke) -> None:
    """The pack's cases of one route and form, fault rule or reachable bound, before the full tests."""
    _check(ascendc_run, ascendc_record, ascendc_smoke)


def test_legal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_path: Path) -> None:
    """The pack's cases of one documented path x dtype move the exact bytes of the reference."""
    _check(ascendc_run, ascendc_record, ascendc_path)


def test_illegal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_fault: Fault) -> None:
    """The pack's cases breaking exactly one rule are rejected (or, for a disputed rule, follow a reading)."""
    _check(ascendc_run, ascendc_record, ascendc_fault)


def test_boundary(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_boundary: Boundary) -> None:
    """The pack's cases on the just-legal value of a range bound are accepted and move the right bytes."""
    _check(ascendc_run, ascendc_record, ascendc_boundary)
