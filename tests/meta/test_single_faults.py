"""Meta-test of issue #12: every single-fault case breaks exactly its rule.

For every fault generator (rule x variant), drawn cases evaluated by the reference with exactly that rule
ignored — what a target lacking exactly that check answers — must be `ok`: the case is sized for the faulty
call, so a target that checks everything else accepts and executes it. It must be `ok` also under the strictest
reading of every disputed or vendor-only alignment (issue 18.3): a target that checks an alignment only the
vendor states, but lacks the fault's check, must not reject the case for its alignment. The documented exceptions are the
spec's inseparable variants; for those the test checks that the reason holds: the generator finds no path
where the faulty call fits alone, and with the rule (and the region bounds) ignored every drawn case is still
rejected, naming exactly the rules the spec gives.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.faults import faults

SPEC = load_spec()
FAULTS = faults(SPEC)
DRAWN = 20   # cases per fault generator
BOUNDS = "Memory-bounds"
# The seed reading, and the strictest reading of every disputed or vendor-only alignment (D2's default, sizeof,
# is already its strictest).
READINGS = (SPEC.seed_reading, SPEC.reading(["vendor-only-alignments=vendor"]))


def _draws(fault, check) -> int:
    """Run `check` on DRAWN generated cases of the fault; return how many it saw."""
    seen = []

    @settings(max_examples=DRAWN, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fault.strategy())
    def run(case):
        seen.append(case)
        check(case)
    run()
    return len(seen)


@pytest.mark.parametrize("fault", FAULTS, ids=[f.id for f in FAULTS])
def test_single_fault_is_ok_without_its_rule(fault):
    entry = fault.rule.inseparable_variant(fault.variant)
    if fault.inseparable:
        assert entry is not None, (f"{fault.id}: no path fits the faulty call alone, but the spec records no "
                                   f"inseparable entry for variant {fault.variant!r} of {fault.rule.id}")

        def check(case):
            result = reference.expect(case, SPEC, ignore=frozenset({fault.rule.id, BOUNDS}))
            assert result.status == "rejected" and set(result.rules) == set(entry.from_rules), \
                (fault.id, entry.reason, result.status, result.rules, result.message)
    else:
        assert entry is None, (f"{fault.id}: the spec calls variant {fault.variant!r} inseparable, yet the "
                               f"generator separates it on {len(fault.contexts)} context(s)")

        def check(case):
            for reading in READINGS:
                result = reference.expect(case, SPEC, reading=reading, ignore=frozenset({fault.rule.id}))
                assert result.status == "ok", (fault.id, reading.label, result.status, result.rules, result.message)
    assert _draws(fault, check) >= DRAWN, f"{fault.id}: fewer than {DRAWN} cases could be drawn"


def test_every_inseparable_entry_names_a_generated_variant():
    """An entry that no generator uses would be an unchecked claim."""
    generated = {(f.rule.id, f.variant) for f in FAULTS}
    for rule in SPEC.rules.values():
        for entry in rule.inseparable:
            assert (rule.id, entry.variant) in generated, f"{rule.id}: inseparable variant {entry.variant!r} is never generated"


def test_a_double_fault_is_caught():
    """A generator that sizes its regions for a smaller call (the bug of issue #12) must fail the check:
    blockCount 4096 with regions that end 8 bytes into the accesses is rejected for the bounds too."""
    fault = next(f for f in FAULTS if f.id == "DataCopy-blockCount-max:above")
    outcomes = []

    def check(case):
        cut = {name: replace(region, data=region.data[:8]) for name, region in case.memory.items()}
        result = reference.expect(replace(case, memory=cut), SPEC, ignore=frozenset({fault.rule.id}))
        outcomes.append(result.status == "rejected" and BOUNDS in result.rules)
    _draws(fault, check)
    assert outcomes and all(outcomes)


def test_every_range_bound_has_its_fault():
    """No fault generator may vanish (e.g. a faulty value no path can be drawn with): every bound of every
    range rule that makes a call illegal has its below / above fault."""
    generated = {f.id.partition("@")[0] for f in FAULTS}   # a disputed fault may be split per product (@<product>)
    for rule in SPEC.rules.values():
        if rule.kind != "range" or not rule.illegal_by_default:
            continue
        for side, bound in (("below", rule.min), ("above", rule.max)):
            if bound is not None:
                assert f"{rule.id}:{side}" in generated, f"{rule.id}: no '{side}' fault"


PSEUDO_PATH_KINDS = ("route", "dtype", "form")   # faults drawn on a path the spec does not document


def _strictest(case, operand: str) -> int:
    """The strictest start alignment any alignment rule of any API asks for the operand's memory (any
    position placed in it on the case's product), whatever operand or product the rule names."""
    product = SPEC.product(case.product)
    position, dtype = getattr(case, operand).position, SPEC.dtypes[getattr(case, operand).dtype]
    memory = product.memory_of(position)
    places = [p for p in SPEC.positions if p == position or product.memory_of(p) == memory]
    return max([rule.alignment(dtype) for rule in SPEC.rules.values()
                if rule.kind == "alignment" and any(rule.where.covers(p) for p in places)], default=1)


@pytest.mark.parametrize("fault", [f for f in FAULTS if f.rule.kind in PSEUDO_PATH_KINDS],
                         ids=[f.id for f in FAULTS if f.rule.kind in PSEUDO_PATH_KINDS])
def test_a_pseudo_path_fault_aligns_every_operand_as_any_api_would(fault):
    """Issue 18.3: a route, product, dtype or form fault keeps every operand where any API's alignment rule
    (documented, disputed or vendor-only, for any product) would accept it: a target that checks alignments
    but lacks the fault's own check must not reject it for an alignment (e.g. LoadData2D's route fault putting
    a UB operand at an odd address, which DataCopy's rules would refuse)."""
    def check(case):
        for operand in ("src", "dst"):
            align = _strictest(case, operand)
            assert getattr(case, operand).address % align == 0, (fault.id, operand, getattr(case, operand), align)
    _draws(fault, check)
