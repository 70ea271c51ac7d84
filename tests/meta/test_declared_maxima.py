"""A declared maximum of 0 is a maximum like any other (issue 25, item 3).

For every scalar field whose smallest legal value is 0, a target declaring `maxima: [{field, max: 0}]` gets a run
in which every test (smoke, legal, single-fault, boundary, reach and limit tests of the API on a product) either
draws its cases within the declaration — the field at 0 wherever the test does not pin it on purpose (a range
fault's faulty value, a limit probe's value past the limit) — or is skipped as `declared-limit`, where the same
test without the declaration would have run: never Unsatisfiable, never an error of the suite. (A maximum of 0
read as "no limit" once drew boundary tests beyond it until Hypothesis gave up: Unsatisfiable, reported as the
target's `error`.)
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance.format.answer import Hello
from ascendc_conformance.format.case import EXTENSIONS, Case
from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.runner import gates
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.twins import Accepted
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.boundaries import boundaries
from ascendc_conformance.strategies.faults import Fault, faults
from ascendc_conformance.strategies.legal import contexts, select_paths
from ascendc_conformance.strategies.limits import LimitProbe, probes
from ascendc_conformance.strategies.smoke import smoke_tests

SPEC = load_spec()
# Where each API's fields are tried: a product with every path of the API (atlas-training for LoadData2D, where
# dstGap is also the discriminating field of D24).
PRODUCTS = {"DataCopy": "atlas-a2", "DataCopyNz2Nd": "atlas-a2", "DataCopySlice": "atlas-a2",
            "LoadData2D": "atlas-training"}


def _zero_min_fields(api: str, product: str) -> list[str]:
    """The scalar fields of the API whose smallest legal value is 0 on some path of the product."""
    found = set()
    for ctx in contexts(SPEC, select_paths(SPEC, [product], [api])):
        for name, field in ctx.api.forms[ctx.form].fields.items():
            if field.array_of is None and field.ctype in SPEC.ctypes and field.ctype != "bool" \
                    and ctx.field_range(name)[0] == 0:
                found.add(name)
    return sorted(found)


CASES = [(api, field) for api, product in PRODUCTS.items() for field in _zero_min_fields(api, product)]


def _run(api: str, field: str | None):
    """What runner.gates asks of a run: the spec, the declared limits, the target's hello."""
    maxima = [{"api": api, "field": field, "max": 0}] if field else []
    hello = Hello.from_dict({"name": "declares-zero", "validates": True, "extensions": list(EXTENSIONS),
                             "limits": {"checks_regions": True, "maxima": maxima}})
    target = SimpleNamespace(hello=hello, supports=hello.supports,
                             handles=lambda extensions: extensions <= set(hello.extensions))
    return SimpleNamespace(spec=SPEC, limits=hello.limits, target=target,
                           checker=SimpleNamespace(accepted=Accepted()))   # it refused no legal call: fresh draws


def _items(run, api: str, product: str):
    """(test id, kind, item) of every test a run of the API on the product makes (as RunSession.tests does)."""
    paths = select_paths(SPEC, [product], [api])
    fault_items, bound_items = faults(SPEC, [product], [api]), boundaries(SPEC, [product], [api])
    for kind, items in ((TestKind.SMOKE, smoke_tests(SPEC, paths, fault_items, bound_items)), (TestKind.LEGAL, paths),
                        (TestKind.ILLEGAL, fault_items), (TestKind.BOUNDARY, bound_items),
                        (TestKind.LIMIT, probes(SPEC, run.limits, paths))):
        for item in items:
            yield f"test_{kind}[{item!r}]", kind, item


def _plan(run, test_id: str, kind: TestKind, item):
    """The test's plan, or the reason it is skipped and why in words."""
    record = CheckRecord(test_id, kind, budget=1)
    try:
        return gates.plan(run, record, item)
    except pytest.skip.Exception:
        return record.skip, record.skipped_reason


def _pinned_on_purpose(item, field: str) -> bool:
    """The test sets `field` past the declaration on purpose: a range fault of it, or its limit probe."""
    target = getattr(item, "item", item)   # a smoke test stands for its route, fault or bound
    if isinstance(target, Fault):
        return field in dict(target.pinned) and all(field in c.relaxed for c in target.contexts)
    return isinstance(target, LimitProbe) and target.limit.field == field


@pytest.mark.parametrize("api, field", CASES, ids=[f"{api}.{field}" for api, field in CASES])
def test_a_declared_maximum_of_zero_is_honoured_by_every_test(api: str, field: str) -> None:
    product = PRODUCTS[api]
    plain, declaring = _run(api, None), _run(api, field)
    baseline = {test_id: _plan(plain, test_id, kind, item) for test_id, kind, item in _items(plain, api, product)}
    sent = skipped = 0
    for test_id, kind, item in _items(declaring, api, product):
        plan = _plan(declaring, test_id, kind, item)
        if isinstance(plan, tuple):
            reason, words = plan
            if baseline.get(test_id) != plan:   # skipped for the declaration: saying which field stops it
                assert reason is SkipReason.DECLARED_LIMIT and field in words, (test_id, words)
            skipped += reason is SkipReason.DECLARED_LIMIT
            continue
        on_purpose = _pinned_on_purpose(item, field)

        @settings(max_examples=2, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(plan.strategy)
        def draws_within(case: Case) -> None:
            value = case.params.get(field)
            assert on_purpose or value is None or value <= 0, (test_id, field, value)
        try:
            draws_within()   # Unsatisfiable (or any error of the suite) fails the test here
        except Exception as error:
            raise AssertionError(f"{test_id}: {type(error).__name__}") from error
        sent += 1
    assert sent, f"no test of {api} on {product} could be sent declaring {field} <= 0"
    limited = [test_id for test_id, plan in baseline.items() if not isinstance(plan, tuple)
               and any(f"{field}" in test_id and side in test_id for side in ("-max=", "-range="))]
    assert not limited or skipped, f"{field}: boundary tests above 0 ran under the declaration: {limited[:3]}"
