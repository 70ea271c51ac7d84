"""Every disputed point with a computable alternative is exercised under `ci` by cases that tell its readings
apart: at least 3 per point and per product where an alternative applies.

For each such (point, product) the disputed faults of the point's rules on that product (strategies/faults.py
splits them per product) are drawn as the ci profile draws a test — PROFILES["ci"] cases each — and a case
counts when the reference's answer under some reading of the point differs from its answer under the default.
"""
from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case
from ascendc_conformance.format.defaults import PROFILES
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.faults import Fault, faults

SPEC = load_spec()
CI_CASES = PROFILES["ci"]
AT_LEAST = 3


def _applies(point, fault: Fault) -> set[str]:
    """The products of the fault's contexts some alternative of the point applies to."""
    return {ctx.product.id for ctx in fault.contexts
            if any(effect.applies(ctx.product.id, (ctx.src, ctx.dst)) for effect in point.effects.values())}


def _targets() -> dict[tuple[str, str], list[Fault]]:
    """(point, product) -> the disputed faults of the point's rules drawn for that product alone."""
    found: dict[tuple[str, str], list[Fault]] = defaultdict(list)
    for fault in faults(SPEC):
        point = SPEC.disputes.get(fault.rule.dispute) if fault.rule.dispute else None
        if fault.expectation != "disputed" or point is None or not point.effects:
            continue
        products = {ctx.product.id for ctx in fault.contexts}
        if len(products) == 1 and _applies(point, fault) == products:
            found[point.id, products.pop()].append(fault)
    return found


TARGETS = _targets()


def _ci_draws(fault: Fault) -> list[Case]:
    drawn: list[Case] = []

    @settings(max_examples=CI_CASES, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fault.strategy())
    def collect(case: Case) -> None:
        drawn.append(case)

    collect()
    return drawn


def _discriminates(case: Case, point: str) -> bool:
    seed = reference.expect(case, SPEC)
    return any(reference.expect(case, SPEC, reading=SPEC.reading_of({point: name})) != seed
               for name in SPEC.disputes[point].effects)


def test_every_computable_point_has_per_product_faults() -> None:
    computable = {p.id for p in SPEC.disputes.values() if p.effects}
    assert {point for point, _ in TARGETS} == computable
    assert ("D1", "atlas-a2") in TARGETS and ("D1", "atlas-training") not in TARGETS   # devkit: a2/a3 only
    assert ("D21", "atlas-a2") in TARGETS and all(
        (c.src, c.dst) in {("GM", "A1"), ("GM", "B1")} for f in TARGETS["D21", "atlas-a2"] for c in f.contexts)


@pytest.mark.parametrize("target", sorted(TARGETS), ids=[f"{p}@{q}" for p, q in sorted(TARGETS)])
def test_ci_draws_at_least_three_discriminating_cases(target: tuple[str, str]) -> None:
    point, _ = target
    count = 0
    for fault in TARGETS[target]:
        count += sum(_discriminates(case, point) for case in _ci_draws(fault))
        if count >= AT_LEAST:
            return
    pytest.fail(f"only {count} discriminating cases for {point} on {target[1]} in the ci draws of "
                f"{', '.join(f.id for f in TARGETS[target])}")
