"""Worked examples of counterfactual twins (strategies.twins) and of faults built on accepted cases
(strategies.accepted): what each puts right, what it keeps, and what the adversaries of issue 25 answer them."""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, ResultStatus
from ascendc_conformance.format.limits import DeclaredAlignment, DeclaredMaximum, Limits
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.accepted import fault_on
from ascendc_conformance.strategies.faults import faults
from ascendc_conformance.strategies.legal import legal_cases, select_paths
from ascendc_conformance.strategies.recast import alignment_class
from ascendc_conformance.strategies.twins import NoTwin, NoTwinReason, Twin, twin_for_fault, twin_for_limit, \
    twin_for_point
from tests.fixtures.buggy.adversaries import CHECK_ALIGNMENT, AlignmentCheckSimulator
from tests.helpers.casebuild import make_case, sentinel

SPEC = load_spec()
LOADDATA = {"startIndex": 0, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 0, "ifTranspose": False,
            "addrMode": 0}


def loaddata(product: str = "atlas-training", src: int = 96, dst: int = 0, **params) -> Case:
    """LoadData2D A1 -> A2 half: two fractals from L1 into L0A."""
    return Case.from_json(make_case("LoadData2D", product, ("A1", "half", src), ("A2", "half", dst),
                                    {**LOADDATA, **params}, {"L1": sentinel(4096, 1), "L0A": sentinel(8192, 2)}))


def every_reading_accepts(twin: Case) -> bool:
    expected, others = reference.expect_readings(twin, SPEC)
    return expected.status is ResultStatus.OK and all(result.status is ResultStatus.OK for _, result in others)


def test_the_twin_of_a_d24_case_sets_dstgap_0_and_keeps_everything_else():
    case = loaddata(dstGap=3)
    twin = twin_for_point(SPEC, case, "D24")
    assert isinstance(twin, Twin), twin
    assert twin.put_right == ("LoadData2D-dstGap-training-D24",) and "dstGap 3 -> 0" in twin.changes
    assert dict(twin.case.params) == {**LOADDATA, "dstGap": 0}
    assert (twin.case.src, twin.case.dst) == (case.src, case.dst)   # the same addresses: 96 stays misaligned for 512
    assert every_reading_accepts(twin.case)
    assert "twin:LoadData2D-dstGap-training-D24" in twin.case.tags
    # the fault test of D24 asks for the same twin
    assert twin_for_fault(SPEC, case, SPEC.rule("LoadData2D-dstGap-training-D24")) == twin


def test_the_same_case_gives_the_same_twin_and_another_case_other_bytes():
    first, again = twin_for_point(SPEC, loaddata(dstGap=3), "D24"), twin_for_point(SPEC, loaddata(dstGap=3), "D24")
    other = twin_for_point(SPEC, loaddata(dstGap=4), "D24")
    assert first == again
    assert first.case.memory["L1"].data != other.case.memory["L1"].data   # seeded from the case


def test_a_point_no_reading_of_which_refuses_the_case_needs_no_twin():
    assert twin_for_point(SPEC, loaddata(dstGap=0), "D24").why is NoTwinReason.NEEDLESS
    assert twin_for_point(SPEC, loaddata(product="atlas-a2", dstGap=3), "D24").why is NoTwinReason.NEEDLESS


def test_a_vendor_alignment_twin_aligns_the_operand_exactly_as_every_reading_asks():
    case = loaddata(product="atlas-a2", src=0, dst=256)   # L0A destination 256: the vendor asks 512
    twin = twin_for_point(SPEC, case, "vendor-only-alignments")
    assert isinstance(twin, Twin) and twin.put_right == ("LoadData2D-dst-align-l0",)
    assert twin.case.dst.address == 512 and alignment_class(twin.case.dst.address) == 512   # not 0 nor 1024
    assert twin.case.src == case.src and every_reading_accepts(twin.case)


def test_a_range_fault_twin_takes_the_nearest_value_every_reading_allows():
    twin = twin_for_fault(SPEC, loaddata(product="atlas-a2", sid=1), SPEC.rule("LoadData2D-sid-zero"))
    assert dict(twin.case.params)["sid"] == 0 and twin.changes[0] == "sid 1 -> 0"
    blocks = Case.from_json(make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                                      {"blockCount": 0, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                                      {"GM": sentinel(64, 3), "UB": sentinel(64, 4)}))
    twin = twin_for_point(SPEC, blocks, "D1")   # illegal by the seed, a no-op by devkit: 1 is legal by both
    assert dict(twin.case.params)["blockCount"] == 1 and every_reading_accepts(twin.case)


def test_a_capacity_fault_twin_moves_the_operand_back_keeping_its_alignment_class():
    capacity = SPEC.product("atlas-training").capacities["L0A"].bytes
    case = loaddata(src=0, dst=capacity - 512)   # two fractals from 512 B before the end of L0A: one past it
    twin = twin_for_fault(SPEC, case, SPEC.rule("Memory-capacity"))
    assert isinstance(twin, Twin), twin
    assert twin.case.dst.address + 1024 <= capacity
    assert alignment_class(twin.case.dst.address) == alignment_class(case.dst.address) == 512
    assert twin.case.src == case.src and every_reading_accepts(twin.case)


def test_a_route_fault_twin_is_the_same_call_on_a_documented_route():
    case = Case.from_json(make_case("DataCopy", "atlas-a2", ("VECOUT", "half", 0), ("VECIN", "half", 64),
                                    {"count": 16}, {"UB": sentinel(256, 5)}))
    twin = twin_for_fault(SPEC, case, SPEC.rule("DataCopy-route"))
    assert isinstance(twin, Twin) and SPEC.has_route("DataCopy", "atlas-a2", twin.case.src.position,
                                                     twin.case.dst.position)
    assert (twin.case.src.dtype, dict(twin.case.params)) == ("half", {"count": 16})
    assert every_reading_accepts(twin.case)


def test_twins_within_the_limits_a_target_declares():
    limits = Limits(maxima=(DeclaredMaximum("startIndex", 0, "LoadData2D"),),
                    alignments=(DeclaredAlignment(512, "LoadData2D", memory="L1"),))
    past = loaddata(product="atlas-a2", src=512, startIndex=3)
    twin = twin_for_limit(SPEC, past, limits.maxima[0], limits)
    assert dict(twin.case.params)["startIndex"] == 0 and twin.put_right == ("LoadData2D startIndex <= 0",)
    misaligned = loaddata(product="atlas-a2", src=96)
    twin = twin_for_limit(SPEC, misaligned, limits.alignments[0], limits)
    assert alignment_class(twin.case.src.address) == 512
    # a fault's twin stays within them too: startIndex 65536 is put right as 0, the declared maximum
    fault = twin_for_fault(SPEC, loaddata(product="atlas-a2", src=512, startIndex=65536),
                           SPEC.rule("LoadData2D-startIndex-range"), limits)
    assert dict(fault.case.params)["startIndex"] == 0


def test_a_semantics_point_whose_readings_never_refuse_has_no_twin():
    half = Case.from_json(make_case("DataCopy", "atlas-a2", ("C1", "half", 0), ("C2", "float", 0),
                                    {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                                    {"L1": sentinel(128, 6), "BT": sentinel(256, 7)}))
    no = twin_for_point(SPEC, half, "D13")
    assert isinstance(no, NoTwin) and no.why is NoTwinReason.NEEDLESS


def test_the_alignment_check_simulator_refuses_the_twin_of_a_case_it_refused():
    """Its CHECK refuses the D24 case for the source at 96, not for dstGap: the twin (dstGap 0, the source still
    at 96) is refused too, so its rejection is no evidence of D24=must-be-zero; with the source 512-B aligned
    the twin is accepted."""
    simulator = AlignmentCheckSimulator()
    misaligned = twin_for_point(SPEC, loaddata(dstGap=3), "D24").case
    assert simulator.execute(misaligned.to_json())["status"] == "rejected"
    aligned = twin_for_point(SPEC, loaddata(src=CHECK_ALIGNMENT, dstGap=3), "D24").case
    assert simulator.execute(aligned.to_json())["status"] == "ok"


def _accepted(simulator, product: str, api: str, count: int = 150) -> list[Case]:
    """Legal cases of the product and API the simulator accepts (as the legal tests of a run find them)."""
    found = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(legal_cases(SPEC, select_paths(SPEC, [product], [api])))
    def collect(case):
        if simulator.execute(case.to_json())["status"] == "ok":
            found.append(case)
    collect()
    return found


def test_a_capacity_fault_built_on_accepted_cases_shows_the_missing_check():
    """The simulator's CHECK refuses capacity faults drawn afresh (their operands are rarely 512-B aligned); built
    on the legal cases it accepted, the fault keeps their alignment and is executed: a missed rejection."""
    simulator = AlignmentCheckSimulator()
    accepted = _accepted(simulator, "atlas-training", "LoadData2D")
    assert accepted
    fault = next(f for f in faults(SPEC, ["atlas-training"], ["LoadData2D"]) if f.rule.id == "Memory-capacity")
    answers = []

    @settings(max_examples=10, database=None, deadline=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fault_on(SPEC, fault, accepted))
    def check(case):
        assert reference.expect(case, SPEC).rules == ("Memory-capacity",)
        assert all(case.operand(op).address % CHECK_ALIGNMENT == 0 for op in ("src", "dst"))
        answers.append(simulator.execute(case.to_json())["status"])
    check()
    assert answers and set(answers) == {"ok"}


def test_fault_on_needs_an_accepted_case_of_the_faults_paths():
    spec_faults = {f.id: f for f in faults(SPEC, ["atlas-a2"], ["LoadData2D", "DataCopy"])}
    accepted = [loaddata(product="atlas-a2", src=0, dst=512)]
    assert fault_on(SPEC, spec_faults["LoadData2D-srcStride-range:above"], accepted) is not None
    assert fault_on(SPEC, spec_faults["LoadData2D-repeatTimes-max:above"], accepted) is None   # 256 fractals: not into L0A
    assert fault_on(SPEC, spec_faults["DataCopy-blockCount-max:above"], accepted) is None   # another API
    assert fault_on(SPEC, spec_faults["DataCopy-blockLen-max:above"], accepted) is None     # inseparable
    assert fault_on(SPEC, spec_faults["DataCopy-form:undocumented-form"], accepted) is None
