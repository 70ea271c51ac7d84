"""Issue 27: every reachable bit of every field that no plain case reaches (the top bits of gaps, strides and start
indices: GM accesses megabytes apart, or far from their tensor start), and every reachable crossing of every
derived byte offset, is exercised by some case that a `ci` run draws (its seed 7), for a target announcing every
case-format extension (the reference) and for one announcing none — whose top bits then come in one large GM
region, and which is sent no crossing (each needs sparse-memory or detached-tensor; its statement says so).

The tests that can set those bits or make those crossings are drawn as the run draws them (runner.gates: what the
target's hello lets each send; the budget of each test, HEAVY_CASES for the heavy ones; the seed of each test,
runner.seeds), without their memory images (which no bit or crossing depends on): the bounds' and reach tests of
the fields concerned, the large-region and crossing tests, and the legal tests of the APIs with a field no range
rule bounds (a slice's SliceInfo members: their high bands come from the legal tests). The bits a plain case
reaches are the legal tests' and the bounds' business (tests/meta/test_bit_coverage.py; tests/e2e/test_run.py runs
a whole `ci` run of both targets and finds nothing reachable untested).
"""
from __future__ import annotations

import pytest

from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.runner import gates, seeds
from ascendc_conformance.runner.witnessed_bits import BitWitnesses
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import RuleKind
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.bit_reach import selection_bits
from ascendc_conformance.strategies.crossings import crossing_table
from ascendc_conformance.strategies.sample import draw
from ascendc_conformance.strategies.boundaries import Boundary
from ascendc_conformance.strategies.ways import Way, open_to

SPEC = load_spec()
RUN_SEED = 7   # the seed CI runs the catalogue under
TARGETS = {"every extension": ("reference", ("detached-tensor", "sparse-memory")),
           "no extension": ("python:tests.fixtures.targets.py_fakes:ReferenceWithoutExtensions", ())}


def _unbounded_apis() -> set[str]:
    """The APIs with a tracked field no range rule bounds above (its bits come from the legal tests)."""
    bounded = {(rule.api, rule.field) for rule in SPEC.rules.values() if rule.kind is RuleKind.RANGE and rule.max is not None}
    return {row.api for row in selection_bits(SPEC) if (row.api, row.field) not in bounded}


def _far_fields() -> set[tuple[str, str]]:
    """(API, field) of the fields with a bit no plain case reaches."""
    return {(row.api, row.field) for row in selection_bits(SPEC) if any(Way.PLAIN not in ways for ways in row.reachable.values())}


def _far(row, extensions) -> set[int]:
    """The bits of a row no plain case reaches that a target announcing `extensions` can be sent."""
    return {bit for bit, ways in row.reachable.items() if Way.PLAIN not in ways and open_to(ways, extensions)}


@pytest.fixture(scope="module", params=list(TARGETS))
def reached(request) -> tuple[str, dict, dict]:
    """(the target's announced extensions, (API, field) -> bits witnessed, (API, quantity) -> widths crossed)."""
    target, extensions = TARGETS[request.param]
    with pytest.MonkeyPatch.context() as patch:   # no memory images: no bytes in any region
        patch.setattr(layout, "filled_bytes", lambda fill, address: b"")
        session = RunSession(RunSettings(target=target, profile="ci"), SPEC)
        witnesses = BitWitnesses(SPEC, SPEC.seed_reading)
        bits: dict = {}
        crossed: dict = {}
        legal = Result.ok({})

        def note(case: Case) -> None:
            witnesses.note(bits, case, legal)
            witnesses.note_crossings(crossed, case, legal)

        # legal tests draw a far case only with an extension (a far slice in sparse-memory), never a large region
        legal_apis, fields = _unbounded_apis() if extensions else set(), _far_fields()
        try:
            for test_id, kind, item in session.selection.tests(TestKind.BOUNDARY, TestKind.LEGAL):
                if kind is TestKind.LEGAL and item.api not in legal_apis:
                    continue
                if isinstance(item, Boundary) and (item.rule.api, item.rule.field) not in fields:
                    continue
                record = CheckRecord(test_id=test_id, kind=kind, budget=0)
                try:
                    plan = gates.plan(session, record, item)
                except pytest.skip.Exception:
                    continue
                draw(plan.strategy, session.selection.budget(test_id, kind), seeds.test_seed(RUN_SEED, test_id), note)
        finally:
            session.close()
    flat_bits = {(api, field): found for api, fields in bits.items() for field, found in fields.items()}
    flat_crossed = {(api, name): found for api, names in crossed.items() for name, found in names.items()}
    return extensions, flat_bits, flat_crossed


def test_ci_witnesses_every_far_bit_the_target_can_be_sent(reached):
    extensions, bits, _ = reached
    missing = {f"{row.api}.{row.field}": sorted(_far(row, extensions) - bits.get((row.api, row.field), set()))
               for row in selection_bits(SPEC)}
    assert not {name: found for name, found in missing.items() if found}
    assert sum(len(_far(row, extensions)) for row in selection_bits(SPEC)) >= 30   # the bits are among them
    if not extensions:   # what only a large region reaches was reached: the srcStride bit 15, say
        assert {11, 12, 13, 14, 15} <= bits[("LoadData2D", "srcStride")]
        assert 15 in bits[("DataCopy", "dstGap")] and 24 in bits[("DataCopySlice", "srcSliceInfo.stride")]


def test_ci_makes_every_crossing_the_target_can_be_sent(reached):
    extensions, _, crossed = reached
    reachable = [entry for entry in crossing_table(SPEC) if entry.ways]
    assert len(reachable) >= 8   # DataCopy's burst starts, LoadData2D's fractal start, a slice element's offset
    sendable = [entry for entry in reachable if open_to(entry.ways, extensions)]
    assert [entry.label for entry in sendable if entry.width not in crossed.get((entry.api, entry.quantity.name), ())] == []
    assert bool(sendable) is bool(extensions)   # every crossing needs an extension: 2^31 B fits no large region
