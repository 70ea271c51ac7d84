"""The reference's quick paths give what its general paths give.

`reference.transfer` moves a grid's bytes by slicing them in Python when there are few runs, through strided
numpy views otherwise, and by per-element index arrays when a transfer has no grid; `reference.call.resolve`
reuses what a case's names decide. Each quick path is checked here against the general one on the cases it
covers: drawn legal cases, and hand-built grids (gaps, transposes, a broadcast source, few and many runs).
"""
from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.reference import transfer
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.legal import legal_cases
from tests.helpers.casebuild import make_case, sentinel

SPEC = load_spec()
SETTINGS = settings(max_examples=60, deadline=None, database=None, phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck))
ALWAYS_VIEWS, ALWAYS_SLICES = 0, 1 << 30   # values of transfer.FEW_RUNS forcing one way of moving runs


def _images(call, plan: Transfer) -> dict[str, dict]:
    """The regions after the call, by way of: numpy views, Python slices, and the grid-less element arrays."""
    out = {}
    for name, few_runs in (("views", ALWAYS_VIEWS), ("slices", ALWAYS_SLICES)):
        with mock.patch.object(transfer, "FEW_RUNS", few_runs):
            out[name] = transfer.apply(call, plan)
    out["elements"] = transfer.apply(call, Transfer(plan.src_elements, plan.dst_elements, plan.depends_on))
    return out


@SETTINGS
@given(legal_cases(SPEC))
def test_every_way_of_moving_a_legal_case_gives_the_same_image(parsed):
    assume(reference.expect(parsed, SPEC).status == "ok")
    call = resolve(parsed, SPEC)
    plan = module_for(call.api).plan(call)
    assume(plan.grid is not None)
    images = _images(call, plan)
    assert images["views"] == images["slices"] == images["elements"]
    assert reference.expect(parsed, SPEC).memory == images["views"]


def _ub_call(size: int = 4096):
    """A DataCopy call of 2-byte elements from one UB region to another, both `size` bytes of distinct data."""
    case = make_case("DataCopy", "atlas-a2", ("VECIN", "half", 0), ("VECOUT", "half", 0),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"UB": sentinel(size, 1)})
    return resolve(Case.from_json(case), SPEC)


@pytest.mark.parametrize("grid", [
    Grid((4, 16), 0, (16, 1), 0, (16, 1)),               # one contiguous run
    Grid((3, 16), 5, (40, 1), 0, (16, 1)),               # a few runs gathered into a dense destination
    Grid((64, 4), 0, (8, 1), 0, (4, 1)),                 # many runs gathered
    Grid((3, 16), 0, (16, 1), 7, (24, 1)),               # a few runs written with gaps
    Grid((40, 4), 0, (4, 1), 0, (9, 1)),                 # many runs written with gaps
    Grid((2, 16, 16), 0, (256, 1, 16), 0, (300, 16, 1)),  # transposed blocks, gaps between them
    Grid((5, 8), 0, (0, 1), 0, (8, 1)),                  # the same source row read five times
    Grid((1, 1, 32), 3, (999, 999, 1), 2, (999, 999, 1)),  # axes of one point
], ids=["one-run", "few-gather", "many-gather", "few-scatter", "many-scatter", "transpose", "broadcast",
        "unit-axes"])
def test_every_way_of_moving_a_grid_gives_the_same_image(grid):
    call = _ub_call()
    images = _images(call, Transfer(grid=grid))
    assert images["views"] == images["slices"] == images["elements"]


def test_resolving_again_gives_the_same_call_and_the_same_refusal():
    case = Case.from_json(make_case("DataCopy", "910B", ("GM", "half", 0), ("VECIN", "half", 0),
                                    {"count": 16}, {"GM": bytes(32), "UB": bytes(32)}))
    first, again = resolve(case, SPEC), resolve(case, SPEC)
    assert first == again and first.product.id == "atlas-a2"
    bad = Case.from_json(make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                                   {"count": True}, {"GM": bytes(32), "UB": bytes(32)}))
    messages = []
    for _ in range(2):
        with pytest.raises(CaseError) as error:
            resolve(bad, SPEC)
        messages.append(str(error.value))
    assert messages[0] == messages[1] and "case.params.count" in messages[0]
