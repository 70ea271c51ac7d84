"""Conformance tests: a smoke phase, then legal cases per documented path x dtype, single faults per rule,
legal boundaries.

Each test draws cases with Hypothesis from strategies derived from the spec, hands them to the target
through the run's checker (runner.checker) and fails with a verdict, a diff and a replay command when the target does not
conform. Test ids name the spec item they check: the path label, the rule id and variant, the bound.
"""
from __future__ import annotations

from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st

from ascendc_conformance.format.case import Case
from ascendc_conformance.format.defaults import SMOKE_CASES
from ascendc_conformance.format.tags import Tag
from ascendc_conformance.runner import gates
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.selection import subject
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.spec.model import Path
from ascendc_conformance.strategies.boundaries import Boundary
from ascendc_conformance.strategies.faults import Fault
from ascendc_conformance.strategies.limits import LimitProbe
from ascendc_conformance.strategies.smoke import Smoke


def _draw(data: st.DataObject, strategy: st.SearchStrategy[Case]) -> Case:
    """A case of the strategy (a falsifying example prints its gist: Case's repr leaves out the memory)."""
    case = data.draw(strategy, label="case")
    for text in case.tags:
        tag = Tag.parse(text)
        if tag is not None and tag.kind.is_event:
            event(text)
    return case


def _check(run: RunSession, record: CheckRecord, item: gates.PlannedItem | Smoke, data: st.DataObject) -> None:
    """Draw one case of the test's plan (runner.gates: the test skipped if nothing can be sent) and check it."""
    plan = gates.plan(run, record, item)
    run.checker.check(record, _draw(data, plan.strategy), plan)


# Two cases, never shrunk: Hypothesis's first example is the simplest one (every choice at its minimum), which
# misses a bug in any field but the first; the second is drawn like every other case.
@settings(max_examples=SMOKE_CASES, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_smoke(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_smoke: Smoke,
               data: st.DataObject) -> None:
    """One case of every route and form, fault rule and reachable bound, before the full tests and
    interleaved across APIs: a target that breaks an API fails within seconds."""
    ascendc_record.describe(**subject(ascendc_smoke))
    _check(ascendc_run, ascendc_record, ascendc_smoke, data)


@given(data=st.data())
def test_legal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_path: Path, data: st.DataObject) -> None:
    """Every documented path x dtype (000 Tables 4-7, 001 Tables 1-2, 002 Table 1, 003 Table 4) moves the
    exact bytes of the reference; untouched bytes keep their value."""
    ascendc_record.describe(**subject(ascendc_path))
    _check(ascendc_run, ascendc_record, ascendc_path, data)


@given(data=st.data())
def test_illegal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_fault: Fault,
                 data: st.DataObject) -> None:
    """A case breaking exactly one documented rule is rejected; for a disputed or vendor-only rule the
    target's behaviour is recorded against the readings (reported apart, neither pass nor fail)."""
    ascendc_record.describe(**subject(ascendc_fault))
    _check(ascendc_run, ascendc_record, ascendc_fault, data)


@given(data=st.data())
def test_boundary(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_boundary: Boundary,
                  data: st.DataObject) -> None:
    """The just-legal value of every range bound is accepted and moves the right bytes (the just-illegal
    value is test_illegal[<rule>:below|above])."""
    ascendc_record.describe(**subject(ascendc_boundary))
    _check(ascendc_run, ascendc_record, ascendc_boundary, data)


@given(data=st.data())
def test_limit(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_limit: LimitProbe,
               data: st.DataObject) -> None:
    """A case just past a limit the target declares (legal by the spec: a field one above its declared maximum,
    an operand aligned as the spec asks but not as the target demands) is rejected, as it declared."""
    ascendc_record.describe(**subject(ascendc_limit))
    _check(ascendc_run, ascendc_record, ascendc_limit, data)
