"""Meta-tests of strategies/: legal cases are legal, single faults break exactly their rule, every rule has a
generator, and the reference agrees with the independent reading (which catches a deliberately broken one)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case
from ascendc_conformance.reference.apis import datacopy as reference_datacopy
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.boundaries import boundaries
from ascendc_conformance.strategies.faults import faults
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.legal import contexts, legal_cases
from tests.oracle.loop_reading import loop_expect

SPEC = load_spec()
FAULTS = faults(SPEC)
FAST = settings(max_examples=25, deadline=None, database=None, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))
SMALL = 1 << 16  # the loop oracle is per element: keep its cases small


def _total_bytes(case: Case) -> int:
    return sum(len(region.data) for region in case.memory.values())


@FAST
@given(legal_cases(SPEC))
def test_legal_cases_are_accepted_by_the_reference(case):
    assert reference.expect(case, SPEC).status == "ok"


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
def test_fault_breaks_exactly_its_rule(fault):
    @settings(max_examples=5, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fault.strategy())
    def check(case):
        result = reference.expect(case, SPEC)
        if fault.expectation == "reject":
            assert result.status == "rejected" and result.rules == (fault.rule.id,), result
        else:
            assert fault.rule.id in result.depends_on, result
    check()


def test_every_rule_has_a_generator_and_every_generator_a_rule():
    generated = {f.rule.id for f in FAULTS} | {b.rule.id for b in boundaries(SPEC)}
    for rule in SPEC.rules.values():
        if rule.status == "unspecified":
            assert rule.id not in generated, f"{rule.id} is unspecified and must never be generated"
        else:
            assert rule.id in generated, f"no generator for {rule.id} ({rule.kind})"
    assert all(f.rule.id in SPEC.rules for f in FAULTS)


def test_every_path_and_dtype_is_drawable():
    """The suite draws every path x dtype x form (test_legal is parametrized over all of them); each must fit."""
    drawable = [ctx for ctx in contexts(SPEC, SPEC.paths()) if module_for(ctx.api).reachable(ctx, {})]
    assert {c.label for c in drawable} == {p.label for p in SPEC.paths()}


def _agrees_with_oracle(case):
    if _total_bytes(case) > SMALL:
        return
    assert reference.expect(case, SPEC).to_json()["memory"] == loop_expect(case.to_json())["memory"]


@FAST
@given(legal_cases(SPEC))
def test_reference_agrees_with_the_independent_reading(case):
    _agrees_with_oracle(case)


def test_a_broken_reference_is_caught(monkeypatch):
    """dstGap ignored in the reference: the agreement property must find it."""
    original = reference_datacopy.plan

    def without_dst_gap(call):
        params = dict(call.params)
        if "dstGap" in params:
            params["dstGap"] = 0
        return original(type(call)(**{**call.__dict__, "case": type(call.case)(**{**call.case.__dict__, "params": params})}))
    monkeypatch.setattr(reference_datacopy, "plan", without_dst_gap)
    paths = [p for p in SPEC.paths(api="DataCopy") if p.dst == "VECIN" and p.product == "atlas-a2"]

    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(legal_cases(SPEC, paths))
    def agreement(case):
        _agrees_with_oracle(case)
    with pytest.raises(AssertionError):
        agreement()


def test_every_conformance_test_id_is_unique() -> None:
    """pytest would suffix clashing ids (over-capacity0, over-capacity1, ...): records could not be told apart
    and a crashed xdist test could not be mapped back to its subject."""
    from ascendc_conformance.runner.selection import Selection

    run = Selection(SPEC)
    assert len(run.planned) == len(run.smoke) + len(run.paths) + len(run.faults) + len(run.boundaries)
