"""What a conformance test may send its target: the same decision for a test that draws its cases (a profile
run) and for one that takes them from a pack.

`plan(run, record, item)` skips the test (pytest.skip, with the record's skip reason) when the target cannot be
sent any of its cases — it does not validate and the test is about a rule to reject, it does not declare the
check of a harness rule, it is typed and the fault lies outside a C type, the bound is unreachable or beyond a
declared maximum, the target's hello supports none of the test's paths, or it lacks a case-format extension
the cases need — and otherwise says which paths (contexts, within the target's declared limits, and within
I-JSON's integers for a target without the int64 extension) it sends cases of, and what the reference must
answer them.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable

import pytest
from hypothesis import strategies as st

from ascendc_conformance.format.case import INT64, Case
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.runner.plan import Plan, PlannedItem
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.spec.model import RuleKind, Status
from ascendc_conformance.strategies.accepted import fault_on
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.boundaries import Boundary, pins
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.faults import Expectation, Fault
from ascendc_conformance.strategies.legal import contexts, extended
from ascendc_conformance.strategies.limits import LimitProbe, above_maximum, moves_something, no_legal_call
from ascendc_conformance.strategies.smoke import RouteForm, Smoke

SHOWN_PATHS = 3   # paths an unreachable boundary's skip message names (a count stands for the others)


def plan(run: RunSession, record: CheckRecord, item: PlannedItem | Smoke) -> Plan:
    """The plan of the test of `item` (a smoke test's: of the route, fault or bound it stands for), or the test
    skipped for why it cannot send anything; worked out on the test's first case and kept in its record."""
    if record.plan is None:
        record.plan = _within_ijson(run, _plan(run, record, item))
    return record.plan


def _within_ijson(run: RunSession, plan: Plan) -> Plan:
    """The plan as the target's JSON reader lets it be drawn: without the int64 extension every integer of its
    cases within I-JSON's +-(2**53 - 1) (addresses below 2**53; GM address bits 53-63 untested)."""
    if run.target.handles(frozenset({INT64})):
        return plan
    return replace(plan, contexts=tuple(context.within_ijson() for context in plan.contexts))


def _plan(run: RunSession, record: CheckRecord, item: PlannedItem | Smoke) -> Plan:
    if isinstance(item, Smoke):
        item = item.item
    if isinstance(item, Fault):
        return _fault(run, record, item)
    if isinstance(item, Boundary):
        return _boundary(run, record, item)
    if isinstance(item, LimitProbe):
        return _limit(run, record, item)
    paths = item.contexts if isinstance(item, RouteForm) else tuple(contexts(run.spec, [item]))
    supported = _within_maxima(record, _supported(run, record, paths), lambda c: {}, run.limits)
    return Plan(item, extended(supported, run.target.hello.extensions))


def _supports(run: RunSession, c: PathContext) -> bool:
    return run.target.supports(c.product.id, c.api.name, src=c.src, dst=c.dst, dtype=c.src_dtype.name,
                               dst_dtype=c.dst_dtype.name, form=c.form)


def _supported(run: RunSession, record: CheckRecord, paths: tuple[PathContext, ...]) -> tuple[PathContext, ...]:
    """The contexts the target's hello says it implements, drawn within the limits it declares; the test is
    skipped as not-supported if none. A context that is not a documented path and form (a route, dtype or form
    fault) is sent to every target that claims its product and API, whatever routes it implements: a
    validating target must refuse a call the spec does not document."""
    hello = run.target.hello
    supported = tuple(c.within(run.limits) for c in paths if hello.claims(c.product.id, c.api.name) and (
        not c.documented or _supports(run, c)))
    if not supported:
        first = paths[0]
        products = ", ".join(sorted({c.product.id for c in paths}))
        pytest.skip(record.skipped(SkipReason.NOT_SUPPORTED, f"the target's hello excludes {first.api.name} "
                                   f"{first.src}->{first.dst} ({len(paths)} path(s)) on {products}"))
    return supported


def _within_maxima(record: CheckRecord, ctxs: tuple[PathContext, ...], pinned: Callable[[PathContext], dict[str, Any]],
                   limits: Limits) -> tuple[PathContext, ...]:
    """The contexts on which the values a test pins can be met within the maxima the target declares (but the
    faulty value a context relaxes: a range fault's); the test skipped as declared-limit if none. A declared
    maximum of 0 is a maximum like any other."""
    if not limits.maxima:
        return ctxs
    within = tuple(c for c in ctxs if above_maximum(c, limits, pinned(c), c.relaxed) is None
                   and module_for(c.api).reachable(c, pinned(c)))
    if not within:
        first = ctxs[0]
        why = above_maximum(first, limits, pinned(first), first.relaxed) or no_legal_call(first) or \
            f"{pinned(first) or 'a call'} cannot be met with {_maxima(limits, first)}"
        pytest.skip(record.skipped(SkipReason.DECLARED_LIMIT, f"{why}: no call of the test lies within the maxima "
                                   "the target declares"))
    return within


def _maxima(limits: Limits, ctx: PathContext) -> str:
    """The declared maxima that bound a call of `ctx`, in words."""
    return ", ".join(m.label for m in limits.maxima if m.covers(ctx.api.name, ctx.product.id, m.field))


def _fault(run: RunSession, record: CheckRecord, fault: Fault) -> Plan:
    hello, rule = run.target.hello, fault.rule
    if not hello.validates and fault.expectation is Expectation.REJECT:
        pytest.skip(record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false)"))
    if hello.validates and rule.status is not Status.HARNESS and rule.illegal_by_default \
            and not hello.validates_rule(rule.id, rule.kind.value):
        # the harness rule is governed by limits.checks_regions; a rule legal by default decides legal calls
        pytest.skip(record.skipped(SkipReason.NOT_VALIDATED, f"the target does not declare that it validates "
                                   f"{rule.kind} rules or {rule.id} (hello validates: "
                                   f"{json.dumps(hello.validation.to_json())})"))
    if fault.rule.status is Status.HARNESS and not run.limits.checks_regions:
        pytest.skip(record.skipped(SkipReason.NOT_DECLARED, f"{fault.rule.id} is a rule of the test harness, and the "
                                   "target's hello does not declare that it checks it (limits.checks_regions)"))
    if fault.type_enforced and run.limits.typed:
        pytest.skip(record.skipped(SkipReason.TYPE_ENFORCED, f"the fault puts {fault.rule.field or 'a field'} outside "
                                   "its C type, which the target, typed (hello limits.typed), cannot be given"))
    supported = _within_maxima(record, _supported(run, record, fault.contexts), lambda c: dict(fault.pinned), run.limits)
    if run.limits.maxima and fault.rule.kind in (RuleKind.BOUNDS, RuleKind.CAPACITY):
        # these faults cut or move the bytes a call touches: only calls that touch some can carry them
        supported = tuple(c for c in supported if moves_something(c))
        if not supported:
            pytest.skip(record.skipped(SkipReason.DECLARED_LIMIT, f"no call with {_maxima(run.limits, fault.contexts[0])} "
                                       f"(the target's declared maxima) touches memory: {fault.rule.id} cannot be broken"))
    _extended(run, record, fault.extensions)
    return Plan(fault, supported, fault.expectation, looking=_keep_looking(run, fault, supported))


def _keep_looking(run: RunSession, fault: Fault, supported: tuple[PathContext, ...]) -> st.SearchStrategy[Case] | None:
    """The fault built on legal cases the target accepted (strategies.accepted.fault_on), when it refused a legal
    call of the fault's product and API before this test began (a legal test's case, or a twin): a systematic
    false rejection would refuse the fault's fresh cases too and mask a missing check (docs/evidence.md). None
    otherwise, or when no accepted case lies on the fault's paths."""
    accepted = run.checker.accepted
    pairs = {(c.product.id, c.api.name) for c in supported}
    if not any(accepted.refused(*pair) for pair in pairs):
        return None
    return fault_on(run.spec, replace(fault, contexts=supported), [case for pair in sorted(pairs)
                                                                   for case in accepted.of(*pair)])


def _boundary(run: RunSession, record: CheckRecord, boundary: Boundary) -> Plan:
    if not boundary.contexts:
        shown = boundary.unreachable[:SHOWN_PATHS]
        more = len(boundary.unreachable) - len(shown)
        pytest.skip(record.skipped(SkipReason.UNREACHABLE,
                                   f"{boundary.rule.field} = {boundary.legal_value} fits none of its "
                                   f"{len(boundary.unreachable)} paths: " + "; ".join(shown)
                                   + (f"; and {more} more (`ascendc-conformance spec paths` lists them)" if more else "")))
    field, value = boundary.rule.param, boundary.legal_value
    within = tuple(c for c in boundary.contexts if above_maximum(c, run.limits, {field: value}) is None)
    if not within:
        pytest.skip(record.skipped(SkipReason.DECLARED_LIMIT, f"{field} = {value} is beyond the maximum the "
                                   "target declares (its test_limit checks that it rejects it)"))
    supported = _within_maxima(record, _supported(run, record, within),
                               lambda c: pins(c, field, value, boundary.with_effect), run.limits)
    _extended(run, record, boundary.extensions)
    return Plan(boundary, supported)


def _limit(run: RunSession, record: CheckRecord, probe: LimitProbe) -> Plan:
    if not run.target.hello.validates:
        pytest.skip(record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false): "
                                   "it cannot reject the cases past its declared limits"))
    supported = tuple(c for c in probe.contexts if _supports(run, c))
    if not supported:
        pytest.skip(record.skipped(SkipReason.NOT_SUPPORTED, f"no path the target implements reaches {probe.limit.label}"))
    return Plan(probe, supported, Expectation.PAST_LIMIT, probe.deviation)


def _extended(run: RunSession, record: CheckRecord, extensions: frozenset[str]) -> None:
    if not run.target.handles(extensions):
        pytest.skip(record.skipped(SkipReason.NEEDS_EXTENSION,
                                   f"the cases need the case-format extension(s) {', '.join(sorted(extensions))}, "
                                   f"which the target's hello does not announce (\"extensions\")"))
