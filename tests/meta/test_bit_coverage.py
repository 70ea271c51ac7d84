"""Issue 18: every bit of every field exercised where it matters.

For one field per API: the bit-coverage table holds every band the field can reach on a product (a band missing
from it fails the literal lists below), each reachable bit checked against the reference on the smallest call
that sets it (clearing the bit gives another legal call that moves other bytes); and the cases the suite draws
for the field — its boundary and reach tests and the legal cases of its paths, as a target announcing the
case-format extensions gets them — witness every reachable bit.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.format.case import EXTENSIONS, IJSON_MAX, SPARSE_MEMORY, Result, ResultStatus
from ascendc_conformance.reference import bit_witness as reference_bits
from ascendc_conformance.runner.witnessed_bits import BitWitnesses
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies import bit_reach as bits
from ascendc_conformance.strategies.boundaries import boundaries
from ascendc_conformance.strategies.legal import case_for, contexts, extended, select_paths

SPEC = load_spec()
PRODUCT = "atlas-a2"
# One field per API: its reachable bits on PRODUCT, and the case-format extension the calls of the higher ones need.
FIELDS = {
    ("DataCopy", "srcGap"): (range(16), {15: SPARSE_MEMORY}),
    ("LoadData2D", "srcStride"): (range(16), {bit: SPARSE_MEMORY for bit in range(11, 16)}),
    ("DataCopyNz2Nd", "srcNStride"): (range(13), {}),
    ("DataCopySlice", "srcSliceInfo.stride"): (range(32), {bit: SPARSE_MEMORY for bit in range(20, 32)}),
}
IDS = [f"{api}-{field}" for api, field in FIELDS]
CASES_PER_TEST = 10   # as the ci profile draws


def _row(api: str, field: str) -> bits.FieldBits:
    return next(row for row in bits.selection_bits(SPEC, [PRODUCT], [api]) if row.field == field)


def _holders(api: str, field: str):
    return [c for c in contexts(SPEC, select_paths(SPEC, [PRODUCT], [api]))
            if field.partition(".")[0] in c.api.forms[c.form].fields]


@pytest.mark.parametrize("api, field", FIELDS, ids=IDS)
def test_the_table_holds_every_band_each_confirmed_by_the_reference(api, field):
    expected, extensions = FIELDS[api, field]
    row = _row(api, field)
    assert list(row.reachable) == list(expected)
    assert {bit: ext for bit, ext in row.reachable.items() if ext} == extensions
    holders = _holders(api, field)
    for bit in row.reachable:
        case = next(found for variant, found in (bits.witness(ctx, field, bit) for ctx in holders) if variant)
        assert reference.expect(case, SPEC, ignore=frozenset({"Memory-bounds"})).status == "ok"
        assert case.params is not None and bit in reference_bits.witnesses(case, SPEC).get(field, ()), (field, bit)


def test_an_unreachable_bit_names_the_buffer_that_cannot_hold_it():
    row = next(r for r in bits.selection_bits(SPEC) if (r.api, r.field) == ("DataCopy", "blockLen"))
    assert list(row.reachable) == list(range(15))
    assert row.unreachable[15].endswith("needs 1048608 B of L1, 32 B more than its 1048576 B")
    count = next(r for r in bits.selection_bits(SPEC) if (r.api, r.field) == ("DataCopy", "count"))
    assert count.unreachable[0] == count.unreachable[1] == bits.NO_EFFECT   # count rounds to whole 32-B units


@pytest.mark.parametrize("int64", [True, False], ids=["int64", "i-json"])
@pytest.mark.parametrize("api, field", FIELDS, ids=IDS)
def test_the_suite_witnesses_every_reachable_bit(api, field, int64):
    """The tests that pin the field (its bounds on every group of routes, its reach) and the legal tests of its
    paths, each drawn as the ci profile draws it (its own seed), witness every reachable bit; legal tests only
    for a field no range rule bounds (a slice's stride). So do they for a target without the int64 extension,
    whose cases hold no integer beyond I-JSON's 2**53 - 1 (runner.gates): it is sent every reachable bit."""
    witnesses = BitWitnesses(SPEC, SPEC.seed_reading)
    found: dict = {}

    def drawn(ctxs):
        return tuple(ctxs) if int64 else tuple(ctx.within_ijson() for ctx in ctxs)
    pinned = [replace(b, contexts=drawn(b.contexts)).strategy()
              for b in boundaries(SPEC, [PRODUCT], [api]) if b.rule.field == field and b.contexts]
    legal = [] if pinned else [st.sampled_from(drawn(extended([ctx], EXTENSIONS))).flatmap(case_for)
                               for ctx in _holders(api, field)]
    for index, strategy in enumerate(pinned or legal):
        @hypothesis_seed(index)
        @settings(max_examples=CASES_PER_TEST, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def draw(case):
            assert int64 or case.largest_integer <= IJSON_MAX, case
            witnesses.note(found, case, Result(ResultStatus.OK))
        draw()
    assert sorted(found.get(api, {}).get(field, ())) == list(_row(api, field).reachable)


def test_every_reachable_bit_is_witnessed_within_ijson():
    """The smallest call that witnesses each reachable bit of every field, of every API and product, holds no
    integer beyond I-JSON's 2**53 - 1: a target without the int64 extension can be sent every one, and what it is
    not tested on is the GM address bits 53-63 alone (the certification statement's line)."""
    rows = bits.selection_bits(SPEC)
    for row in rows:
        holders = [c for c in contexts(SPEC, select_paths(SPEC, None, [row.api]))
                   if row.field.partition(".")[0] in c.api.forms[c.form].fields]
        for bit in row.reachable:
            case = next(found for variant, found in (bits.witness(ctx, row.field, bit) for ctx in holders) if variant)
            assert case.largest_integer <= IJSON_MAX, (row.api, row.field, bit, case)
