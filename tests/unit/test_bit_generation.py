"""Generation that reaches every bit (issue 18.2): bit bands, GM regions far apart (sparse-memory), bounds pinned
with the repeats that give them an effect on every group of routes, and the reach tests."""
from __future__ import annotations


from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.format.case import INT64, SPARSE_MEMORY
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.bit_reach import bit_value
from ascendc_conformance.strategies.boundaries import Reach, boundaries
from ascendc_conformance.strategies.cases import draft, finish
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.draw import all_ones, anywhere, biased, bit_bands
from ascendc_conformance.strategies.layout import Pattern

SPEC = load_spec()
MANY = settings(max_examples=400, deadline=None, database=None, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))


@st.composite
def _anywhere(draw, low: int, high: int) -> int:
    return anywhere(draw, low, high, "value")


def test_far_values_spread_over_the_whole_range_and_stay_in_it():
    """Far addresses: the top half of a 64-bit range and the top of a range of a few values are reached (a
    plain st.integers(0, 2**64 - 1) rarely leaves 32 bits); every value stays in range."""
    for low, high, wanted in ((0, 2**64 - 1, 2**63), (3, 10, 10), (5, 5, 5), (0, 1000, 900)):
        seen = []

        @MANY
        @given(_anywhere(low, high))
        def draw(value):
            assert low <= value <= high
            seen.append(value)
        draw()
        assert max(seen) >= wanted, (low, high, max(seen))


def test_bit_bands_and_all_ones():
    assert bit_bands(0, 10) == [(0, 0), (1, 1), (2, 3), (4, 7), (8, 10)]
    assert bit_bands(5, 5) == [(5, 5)] and bit_bands(3, 2) == []
    assert all_ones(1, 32768) == 32767 and all_ones(1, 65535) == 65535 and all_ones(100, 126) == 126


def test_biased_draws_reach_every_bit_band():
    """Not only small values and the top of the range: every band of a 16-bit range comes up."""
    seen = set()

    @MANY
    @given(st.data())
    def draw(data):
        seen.add(biased(data.draw, 1, 65535, "field").bit_length())
    draw()
    assert seen == set(range(1, 17))


def test_a_pattern_gives_far_stretches_regions_of_their_own():
    two_bursts = Pattern(0, 64, ((2, 2 << 20),))
    assert two_bursts.stretches(1 << 20, 16) == [(0, 64), (2 << 20, (2 << 20) + 64)]
    assert Pattern(0, 64, ((8, 128),)).stretches(1 << 20, 16) == [(0, 8 * 128 - 64)]   # one dense stretch
    assert Pattern(0, 64, ((17, 2 << 20),)).stretches(1 << 20, 16) is None             # too many regions


def _ctx(product: str, api: str, src: str, dst: str, dtype: str, form: str) -> PathContext:
    return PathContext.make(SPEC, product, api, src, dst, dtype, dtype, form)


def test_a_gap_of_megabytes_costs_only_its_bursts_in_a_sparse_case():
    """srcGap 65535 with two bursts from GM: two GM regions of a burst each (and guard bands), which the
    reference reads through; without the extension the same call does not fit the GM window."""
    ctx = _ctx("atlas-a2", "DataCopy", "GM", "VECIN", "half", "params")
    pins = {"blockCount": 2, "srcGap": 65535}
    assert not module_for(ctx.api).reachable(ctx, pins) and module_for(ctx.api).reachable(ctx.sparsing(), pins)

    @settings(max_examples=5, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data):
        case = finish(data.draw, draft(data.draw, ctx.sparsing(), pins))
        gm = [key for key in case.memory if key.partition("#")[0] == "GM"]
        assert set(case.extensions) - {INT64} == {SPARSE_MEMORY} and len(gm) >= 2   # int64: a GM address past 2**53
        held = sum(len(case.memory[key].data) for key in gm)
        assert held <= 2 * 32 * case.params["blockLen"] + 6 * 64   # two bursts, guard bands, the tensor start
        assert reference.expect(case, SPEC).status == "ok"
    check()


def test_bounds_are_pinned_per_group_of_routes_with_their_effect():
    bounds = {b.id: b for b in boundaries(SPEC, ["atlas-a2"], ["DataCopy"])}
    far = bounds["DataCopy-srcGap-range=65535@GM->UB"]
    assert far.with_effect and far.extensions == {SPARSE_MEMORY}
    held = bounds["DataCopy-srcGap-range=65535@UB->UB"]   # no UB holds bursts 2 MiB apart: pinned without them
    assert held.contexts and not held.with_effect
    fixpipe = bounds["DataCopy-dstGap-range=0@L1->FB"]   # start to start: dstGap 0 overlaps two bursts
    assert fixpipe.contexts and not fixpipe.with_effect

    @settings(max_examples=5, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(far.strategy())
    def check(case):
        assert case.params["blockCount"] == 2 and case.params["srcGap"] == 65535
    check()


def test_reach_tests_set_every_bit_a_field_reaches():
    reaches = {b.id: b for b in boundaries(SPEC) if isinstance(b, Reach)}
    assert "DataCopy-blockLen-max=32767@reach" in reaches          # 15 bits in 1 MiB of L1
    assert "DataCopyNz2Nd-srcNStride-range=4095@reach" in reaches   # and 4096, the bound itself
    assert "DataCopy-count-range=1048575@reach" in reaches
    assert all(b.contexts for b in reaches.values() if not b.extensions)


def test_the_smallest_value_with_a_bit_that_clears_to_a_legal_one():
    assert bit_value(1, 0, 1, 4095) == 3          # 1 clears to 0, below the minimum
    assert bit_value(1, 11, 1, 4095) == 2049
    assert bit_value(16, 4, 16, 8192) == 48       # dValue: multiples of 16, at least 16
    assert bit_value(16, 3, 16, 8192) is None     # bit 3 of a multiple of 16
    assert bit_value(1, 9, 1, 512) is None        # only 512 sets bit 9: it clears to 0
