"""Conformance tests: a smoke phase, then legal cases per documented path x dtype, single faults per rule,
legal boundaries.

Each test draws cases with Hypothesis from strategies derived from the spec, hands them to the target
through `RunSession.check` and fails with a verdict, a diff and a replay command when the target does not
conform. Test ids name the spec item they check: the path label, the rule id and variant, the bound.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st

from ascendc_conformance.format.defaults import SMOKE_CASES
from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.format.tags import Tag
from ascendc_conformance.runner.session import CheckRecord, RunSession
from ascendc_conformance.spec.model import Path, ShortRepr, Status
from ascendc_conformance.strategies.boundaries import Boundary
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.faults import Expectation, Fault
from ascendc_conformance.strategies.limits import LimitProbe
from ascendc_conformance.strategies.legal import case_for, contexts, extended
from ascendc_conformance.strategies.smoke import RouteForm, Smoke

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
    for text in case.get("tags", ()):
        tag = Tag.parse(text)
        if tag is not None and tag.kind.is_event:
            event(text)
    return case


def _supported(run: RunSession, record: CheckRecord, contexts: tuple[PathContext, ...]) -> tuple[PathContext, ...]:
    """The contexts the target's hello says it implements, drawn within the limits it declares; the test is
    skipped as not-supported if none. A context that is not a documented path and form (a route, dtype or form
    fault) is sent to every target that claims its product and API, whatever routes it implements: a
    validating target must refuse a call the spec does not document."""
    hello = run.target.hello
    supported = tuple(c.within(run.limits) for c in contexts if hello.claims(c.product.id, c.api.name) and (
        not c.documented or hello.supports(c.product.id, c.api.name, src=c.src, dst=c.dst, dtype=c.src_dtype.name,
                                           dst_dtype=c.dst_dtype.name, form=c.form)))
    if not supported:
        first = contexts[0]
        products = ", ".join(sorted({c.product.id for c in contexts}))
        pytest.skip(record.skipped(SkipReason.NOT_SUPPORTED, f"the target's hello excludes {first.api.name} "
                                   f"{first.src}->{first.dst} ({len(contexts)} path(s)) on {products}"))
    return supported


def _check_legal(run: RunSession, record: CheckRecord, contexts: tuple[PathContext, ...], data: st.DataObject) -> None:
    supported = extended(_supported(run, record, contexts), run.target.hello.extensions)
    run.check(record, _draw(data, st.sampled_from(supported).flatmap(case_for)))


def _check_fault(run: RunSession, record: CheckRecord, fault: Fault, data: st.DataObject) -> None:
    if not run.target.hello.validates and fault.expectation is Expectation.REJECT:
        pytest.skip(record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false)"))
    if fault.rule.status is Status.HARNESS and not run.limits.checks_regions:
        pytest.skip(record.skipped(SkipReason.NOT_DECLARED, f"{fault.rule.id} is a rule of the test harness, and the "
                                   "target's hello does not declare that it checks it (limits.checks_regions)"))
    if fault.type_enforced and run.limits.typed:
        pytest.skip(record.skipped(SkipReason.TYPE_ENFORCED, f"the fault puts {fault.rule.field or 'a field'} outside "
                                   "its C type, which the target, typed (hello limits.typed), cannot be given"))
    supported = _supported(run, record, fault.contexts)
    _extended(run, record, fault.extensions)
    run.check(record, _draw(data, replace(fault, contexts=supported).strategy()), fault.expectation)


def _check_boundary(run: RunSession, record: CheckRecord, boundary: Boundary, data: st.DataObject) -> None:
    if not boundary.contexts:
        shown = boundary.unreachable[:SHOWN_PATHS]
        more = len(boundary.unreachable) - len(shown)
        pytest.skip(record.skipped(SkipReason.UNREACHABLE,
                                   f"{boundary.rule.field} = {boundary.legal_value} fits none of its "
                                   f"{len(boundary.unreachable)} paths: " + "; ".join(shown)
                                   + (f"; and {more} more (`ascendc-conformance spec paths` lists them)" if more else "")))
    within = tuple(c for c in boundary.contexts
                   if (run.limits.maximum(c.api.name, c.product.id, boundary.rule.field) or boundary.legal_value)
                   >= boundary.legal_value)
    if not within:
        pytest.skip(record.skipped(SkipReason.DECLARED_LIMIT, f"{boundary.rule.field} = {boundary.legal_value} is "
                                   "beyond the maximum the target declares (its test_limit checks that it rejects it)"))
    supported = _supported(run, record, within)
    _extended(run, record, boundary.extensions)
    run.check(record, _draw(data, replace(boundary, contexts=supported).strategy()))


def _check_limit(run: RunSession, record: CheckRecord, probe: LimitProbe, data: st.DataObject) -> None:
    if not run.target.hello.validates:
        pytest.skip(record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false): "
                                   "it cannot reject the cases past its declared limits"))
    supported = tuple(c for c in probe.contexts if run.target.supports(
        c.product.id, c.api.name, src=c.src, dst=c.dst, dtype=c.src_dtype.name, dst_dtype=c.dst_dtype.name, form=c.form))
    if not supported:
        pytest.skip(record.skipped(SkipReason.NOT_SUPPORTED, f"no path the target implements reaches {probe.limit.label}"))
    run.check(record, _draw(data, replace(probe, contexts=supported).strategy()), Expectation.PAST_LIMIT,
              probe.deviation)


SHOWN_PATHS = 3   # paths an unreachable boundary's skip message names (a count stands for the others)


# Two cases, never shrunk: Hypothesis's first example is the simplest one (every choice at its minimum), which
# misses a bug in any field but the first; the second is drawn like every other case.
@settings(max_examples=SMOKE_CASES, phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_smoke(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_smoke: Smoke,
               data: st.DataObject) -> None:
    """One case of every route and form, fault rule and reachable bound, before the full tests and
    interleaved across APIs: a target that breaks an API fails within seconds."""
    item, record = ascendc_smoke.item, ascendc_record
    record.describe(**ascendc_run.subject(ascendc_smoke))
    if isinstance(item, RouteForm):
        _check_legal(ascendc_run, record, item.contexts, data)
    elif isinstance(item, Fault):
        _check_fault(ascendc_run, record, item, data)
    else:
        _check_boundary(ascendc_run, record, item, data)


def _extended(run: RunSession, record: CheckRecord, extensions: frozenset[str]) -> None:
    if not run.target.handles(extensions):
        pytest.skip(record.skipped(SkipReason.NEEDS_EXTENSION,
                                   f"the cases need the case-format extension(s) {', '.join(sorted(extensions))}, "
                                   f"which the target's hello does not announce (\"extensions\")"))


@given(data=st.data())
def test_legal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_path: Path, data: st.DataObject) -> None:
    """Every documented path x dtype (000 Tables 4-7, 001 Tables 1-2, 002 Table 1, 003 Table 4) moves the
    exact bytes of the reference; untouched bytes keep their value."""
    ascendc_record.describe(**ascendc_run.subject(ascendc_path))
    _check_legal(ascendc_run, ascendc_record, tuple(contexts(ascendc_run.spec, [ascendc_path])), data)


@given(data=st.data())
def test_illegal(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_fault: Fault,
                 data: st.DataObject) -> None:
    """A case breaking exactly one documented rule is rejected; for a disputed or vendor-only rule the
    target's behaviour is recorded against the readings (reported apart, neither pass nor fail)."""
    ascendc_record.describe(**ascendc_run.subject(ascendc_fault))
    _check_fault(ascendc_run, ascendc_record, ascendc_fault, data)


@given(data=st.data())
def test_boundary(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_boundary: Boundary,
                  data: st.DataObject) -> None:
    """The just-legal value of every range bound is accepted and moves the right bytes (the just-illegal
    value is test_illegal[<rule>:below|above])."""
    ascendc_record.describe(**ascendc_run.subject(ascendc_boundary))
    _check_boundary(ascendc_run, ascendc_record, ascendc_boundary, data)


@given(data=st.data())
def test_limit(ascendc_run: RunSession, ascendc_record: CheckRecord, ascendc_limit: LimitProbe,
               data: st.DataObject) -> None:
    """A case just past a limit the target declares (legal by the spec: a field one above its declared maximum,
    an operand aligned as the spec asks but not as the target demands) is rejected, as it declared."""
    ascendc_record.describe(**ascendc_run.subject(ascendc_limit))
    _check_limit(ascendc_run, ascendc_record, ascendc_limit, data)
