"""Conformance tests: legal cases per documented path x dtype, single faults per rule, legal boundaries.

Each test draws cases with Hypothesis from strategies derived from the spec, hands them to the target
through `RunSession.check` and fails with a verdict, a diff and a replay command when the target does not
conform. Test ids name the spec item they check: the path label, the rule id and variant, the bound.
"""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.runner.session import CheckRecord, RunSession
from ascendc_conformance.spec.model import Path, ShortRepr
from ascendc_conformance.strategies.boundaries import Boundary
from ascendc_conformance.strategies.faults import Fault
from ascendc_conformance.strategies.legal import case_for, contexts

EVENT_PREFIXES = ("path:", "fault:", "boundary:", "form:")


class CaseBox(ShortRepr):
    """A drawn case with a short repr, so a falsifying example prints its gist, not kilobytes of base64."""

    def __init__(self, case: dict):
        self.case = case

    def __repr__(self) -> str:
        c = self.case
        return (f"<{c['api']} on {c['product']}: {c['src']['position']}@{c['src']['address']} -> "
                f"{c['dst']['position']}@{c['dst']['address']} {c['src']['dtype']} params={c['params']}>")


def _draw(data: st.DataObject, strategy: st.SearchStrategy[dict]) -> dict:
    case = data.draw(strategy.map(CaseBox), label="case").case
    for tag in case.get("tags", ()):
        if tag.startswith(EVENT_PREFIXES):
            event(tag)
    return case


def _supported(run: RunSession, record: CheckRecord, products: set[str], api: str) -> None:
    supported = {p for p in products if run.target.supports(p, api)}
    if not supported:
        pytest.skip(record.skipped(SkipReason.NOT_SUPPORTED,
                                   f"the target's hello excludes {api} on {', '.join(sorted(products))}"))


def _extended(run: RunSession, record: CheckRecord, extensions: frozenset[str]) -> None:
    if not run.target.handles(extensions):
        pytest.skip(record.skipped(SkipReason.NEEDS_EXTENSION,
                                   f"the cases need the case-format extension(s) {', '.join(sorted(extensions))}, "
                                   f"which the target's hello does not announce (\"extensions\")"))


@given(data=st.data())
def test_legal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_path: Path, data: st.DataObject) -> None:
    """Every documented path x dtype (000 Tables 4-7, 001 Tables 1-2, 002 Table 1, 003 Table 4) moves the
    exact bytes of the reference; untouched bytes keep their value."""
    path, record = ascendc_path, ascendc_record
    record.describe(**ascendc_run.subject(path))
    _supported(ascendc_run, record, {path.product}, path.api)
    strategy = st.sampled_from(contexts(ascendc_run.spec, [path])).flatmap(case_for)
    ascendc_run.check(record, _draw(data, strategy))


@given(data=st.data())
def test_illegal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_fault: Fault,
                 data: st.DataObject) -> None:
    """A case breaking exactly one documented rule is rejected; for a disputed or vendor-only rule the
    target's behaviour is recorded against the readings (reported apart, neither pass nor fail)."""
    fault, record = ascendc_fault, ascendc_record
    record.describe(**ascendc_run.subject(fault))
    if not ascendc_run.target.hello.validates and fault.expectation == "reject":
        pytest.skip(record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false)"))
    _supported(ascendc_run, record, {c.product.id for c in fault.contexts}, record.subject["api"])
    _extended(ascendc_run, record, fault.extensions)
    supported = tuple(c for c in fault.contexts if ascendc_run.target.supports(c.product.id, c.api.name))
    strategy = dataclasses.replace(fault, contexts=supported).strategy()
    ascendc_run.check(record, _draw(data, strategy), fault.expectation)


@given(data=st.data())
def test_boundary(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_boundary: Boundary,
                  data: st.DataObject) -> None:
    """The just-legal value of every range bound is accepted and moves the right bytes (the just-illegal
    value is test_illegal[<rule>:below|above])."""
    boundary, record = ascendc_boundary, ascendc_record
    record.describe(**ascendc_run.subject(boundary))
    if not boundary.contexts:
        pytest.skip(record.skipped(SkipReason.UNREACHABLE,
                                   f"{boundary.rule.field} = {boundary.legal_value} fits no path: "
                                   + "; ".join(boundary.unreachable)))
    _supported(ascendc_run, record, {c.product.id for c in boundary.contexts}, boundary.rule.api)
    _extended(ascendc_run, record, boundary.extensions)
    ascendc_run.check(record, _draw(data, boundary.strategy()))
