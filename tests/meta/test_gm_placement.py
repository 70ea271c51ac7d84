"""Issue #12, item 3: GM operands anywhere in a 64-bit GM, regions over the touched bytes, and the bound that
needs a detached GM tensor (LoadData2D startIndex 65535 from GM) reachable with the extension."""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.boundaries import boundaries
from ascendc_conformance.strategies.legal import legal_cases
from tests.oracle.loop_reading import loop_expect

SPEC = load_spec()
MANY = settings(max_examples=150, deadline=None, database=None, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))


def _region(case: Case, memory: str) -> tuple[int, int]:
    region = case.memory[memory]
    return region.address, region.end


def test_gm_operands_reach_the_top_of_a_64_bit_gm():
    """Legal GM -> UB cases put the GM source anywhere up to 2**64; the reference and the independent reading
    agree on those at the top."""
    paths = [p for p in SPEC.paths(api="DataCopy") if p.src == "GM" and p.product == "atlas-a2" and p.src_dtype == "half"]
    top = []

    @MANY
    @given(legal_cases(SPEC, paths))
    def draw(case):
        assert reference.expect(case, SPEC).status == "ok"
        start, stop = _region(case, "GM")
        assert stop <= SPEC.gm_bytes
        if case.src.address >= 1 << 63:
            top.append(case)
    draw()
    assert top, "no GM operand above 2**63 in 150 cases"
    small = min(top, key=lambda c: sum(len(r.data) for r in c.memory.values()))
    assert reference.expect(small, SPEC).to_json()["memory"] == loop_expect(small.to_json())["memory"]


def test_start_index_65535_from_gm_needs_a_detached_tensor():
    bounds = {b.id: b for b in boundaries(SPEC)}
    boundary = bounds["LoadData2D-startIndex-range=65535@GM->L1"]
    assert boundary.extensions == {"detached-tensor"} and boundary.contexts
    assert all(ctx.src == "GM" for ctx in boundary.contexts)
    from_l1 = bounds["LoadData2D-startIndex-range=65535@L1->L0A"]   # the L1 sources: no room
    assert not from_l1.contexts and all("L1" in entry and "B more than" in entry for entry in from_l1.unreachable)

    @settings(max_examples=20, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(boundary.strategy())
    def check(case):
        assert set(case.extensions) - {"int64"} == {"detached-tensor"} and case.params["startIndex"] == 65535
        start, stop = _region(case, "GM")
        assert not start <= case.src.address < stop          # the tensor start lies outside its region
        assert stop - start <= SPEC.gm_window_bytes + 128             # only the touched bytes and guard bands
        assert reference.expect(case, SPEC).status == "ok"
    check()
