"""reference.hypotheses: the catalogue of bug classes is built from the spec (every field of every API gets its
generic misreads, every API its own MISREADINGS), each with a stable id, words with the call's values, a rank
that names the narrower first and the smallest value that shows it; a twin is made only where the bug changes
the call, and twins that make the same call are computed once."""
from __future__ import annotations

from pathlib import Path

import pytest

from ascendc_conformance.format.case import Case
from ascendc_conformance.reference import bit_witness
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.reference.hypotheses import FieldMisread, FieldRead, catalogue, hypothesis, shows
from ascendc_conformance.reference.misreading import Twin
from ascendc_conformance.reference.prediction import Probe
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import GapMeasure
from tests.e2e.test_buggy_catalogue import CASES, LOADDATA, noise
from tests.fixtures.buggy import targets as buggy
from tests.helpers.casebuild import make_case

SPEC = load_spec()


def datacopy(block_count: int, block_len: int, src_gap: int = 0, dst_gap: int = 0, dst: str = "VECIN") -> Case:
    """A legal DataCopy GM -> UB (or UB -> GM) half case whose regions hold the call exactly."""
    src_bytes = 32 * (block_count * (block_len + src_gap))
    dst_bytes = 32 * (block_count * (block_len + dst_gap))
    memory = {"GM": noise(max(src_bytes, dst_bytes), 1), "UB": noise(max(src_bytes, dst_bytes), 2)}
    route = (("GM", "half", 0), ("VECIN", "half", 0)) if dst == "VECIN" else (("VECOUT", "half", 0), ("GM", "half", 0))
    return Case.from_json(make_case("DataCopy", "atlas-a2", *route, {"blockCount": block_count, "blockLen": block_len,
                                                                      "srcGap": src_gap, "dstGap": dst_gap}, memory))


def ids(api: str) -> set[str]:
    return {h.id for h in catalogue(SPEC, api)}


@pytest.mark.parametrize("api", SPEC.apis)
def test_every_field_gets_every_generic_misread_below_its_c_width(api: str) -> None:
    found = ids(api)
    for hypo in catalogue(SPEC, api):
        if isinstance(hypo, FieldMisread):
            assert hypo.field.members and all(bit_witness.MEMBER not in m or hypo.field.name.endswith(m.partition(".")[2])
                                              for m in hypo.field.members)
    fields = {h.field.name: h.field for h in catalogue(SPEC, api) if isinstance(h, FieldMisread)}
    tracked = {t.name for t in bit_witness.fields(SPEC, api)}
    assert {m for f in fields.values() for m in f.members} == tracked
    for name, field in fields.items():
        assert f"{api}.{name}:read-as-0" in found
        if field.one_bit:
            continue
        assert {f"{api}.{name}:one-more", f"{api}.{name}:one-less"} <= found
        assert {f"{api}.{name}:kept-in-{k}-bits" for k in range(1, field.width)} <= found
        assert {f"{api}.{name}:signed-{k}-bit" for k in range(2, field.width + 1)} <= found


@pytest.mark.parametrize("api", SPEC.apis)
def test_every_misreading_of_the_api_module_is_in_its_catalogue(api: str) -> None:
    names = [m.name for m in module_for(SPEC.apis[api]).MISREADINGS]
    assert names and len(set(names)) == len(names)
    assert {f"{api}:{name}" for name in names} <= ids(api)
    every = [h.id for h in catalogue(SPEC, api)]
    assert len(every) == len(set(every))


def test_hypotheses_of_any_api_share_their_id_across_apis() -> None:
    shared = set.intersection(*(ids(api) for api in SPEC.apis))
    assert {"no-op", "writes-past-end", "gm-address:kept-in-32-bits", "only-memory-checked",
            "Memory-bounds:unchecked"} <= shared
    assert all(hypothesis(SPEC, h).api is None for h in shared)
    with pytest.raises(KeyError, match="no hypothesis 'DataCopy.nothing:read-as-0'"):
        hypothesis(SPEC, "DataCopy.nothing:read-as-0")


def test_the_words_name_the_values_the_target_misread() -> None:
    call = resolve(datacopy(1, 877), SPEC)
    assert hypothesis(SPEC, "DataCopy.blockLen:kept-in-8-bits").describe(call) == "blockLen kept in 8 bits (877 read as 109)"
    assert hypothesis(SPEC, "DataCopy.blockLen:signed-10-bit").describe(call) == \
        "blockLen read as a signed 10-bit value (877 read as -147)"
    gaps = resolve(datacopy(2, 4, src_gap=1, dst_gap=3), SPEC)
    assert hypothesis(SPEC, "DataCopy:dstGap-measured-otherwise").describe(gaps) == \
        "dstGap measured the other way (start to start / end to start) (dstGap 3 measured start-to-start, not end-to-start)"


def test_the_narrower_of_two_alike_hypotheses_ranks_first() -> None:
    def rank(name: str):
        return hypothesis(SPEC, name).rank
    # 4096 alone shows srcNStride kept in 12 bits; read as 0, every value but 0
    assert rank("DataCopyNz2Nd.srcNStride:kept-in-12-bits") < rank("DataCopyNz2Nd.srcNStride:read-as-0")
    assert rank("DataCopy.blockCount:kept-in-11-bits") < rank("DataCopy.blockCount:kept-in-10-bits")
    # a C type's width before another of the same breadth; kept before signed
    assert rank("DataCopy.blockLen:kept-in-8-bits") < rank("DataCopy.blockLen:kept-in-9-bits")
    assert rank("LoadData2D.repeatTimes:kept-in-7-bits") < rank("LoadData2D.repeatTimes:signed-8-bit")
    # a call that does nothing before a count read as 0 (which does nothing too); a field ignored before the
    # API's own misreading that moves alike (dstGap read as 0 packs the bursts)
    assert rank("no-op") < rank("DataCopy.blockCount:read-as-0") < rank("DataCopy:dst-bursts-packed")
    assert rank("DataCopy-blockCount-max:unchecked") < rank("only-memory-checked") < rank("no-op")


@pytest.mark.parametrize("api", SPEC.apis)
def test_each_field_misread_knows_the_smallest_value_that_shows_it(api: str) -> None:
    for hypo in catalogue(SPEC, api):
        if not isinstance(hypo, FieldMisread) or hypo.smallest is None:
            continue
        value, field = hypo.smallest, hypo.field
        assert field.low <= value <= field.high and hypo.reading(value) != value, hypo.id
        if hypo.read not in (FieldRead.MORE, FieldRead.LESS) and value - 1 >= field.low:
            assert hypo.reading(value - 1) == value - 1, hypo.id   # the smallest: one less reads as itself
    assert hypothesis(SPEC, "DataCopy.blockLen:kept-in-8-bits").smallest == 256
    assert hypothesis(SPEC, "DataCopyNz2Nd.dstDStride:signed-16-bit").smallest == 32768
    assert hypothesis(SPEC, "LoadData2D.repeatTimes:kept-in-7-bits").smallest == 128
    assert hypothesis(SPEC, "DataCopy.blockCount:read-as-0").smallest == 1
    assert hypothesis(SPEC, "DataCopy.blockCount:refused-above-1").smallest == 2


def test_a_case_shows_a_hypothesis_only_where_the_bug_changes_its_outcome() -> None:
    kept = hypothesis(SPEC, "DataCopy.blockLen:kept-in-8-bits")
    assert shows(kept, datacopy(1, 256), SPEC) and shows(kept, datacopy(1, 877), SPEC)
    assert not shows(kept, datacopy(1, 255), SPEC) and not shows(kept, datacopy(3, 8), SPEC)
    gap = hypothesis(SPEC, "DataCopy.dstGap:read-as-0")
    assert shows(gap, datacopy(2, 8, dst_gap=1), SPEC) and not shows(gap, datacopy(1, 8, dst_gap=1), SPEC)
    assert not shows(kept, Case.from_json(CASES["transpose"]), SPEC)   # another API's field
    unchecked = hypothesis(SPEC, "DataCopy-dst-align-local:unchecked")
    assert shows(unchecked, Case.from_json(CASES["illegal"]), SPEC)
    assert not shows(unchecked, datacopy(1, 8), SPEC)


def test_only_a_bug_that_changes_the_call_makes_a_twin() -> None:
    probe = Probe(resolve(datacopy(1, 877), SPEC))
    assert hypothesis(SPEC, "DataCopy.blockLen:kept-in-12-bits").twin(probe) is None   # 877 < 4096
    assert hypothesis(SPEC, "DataCopy.srcGap:read-as-0").twin(probe) is None           # already 0
    assert hypothesis(SPEC, "DataCopy:src-bursts-packed").twin(probe) is None          # one burst
    twin = hypothesis(SPEC, "DataCopy.blockLen:kept-in-8-bits").twin(probe)
    assert twin.call.params["blockLen"] == 109 and probe.changes(twin)


def test_twins_that_make_the_same_call_are_computed_once() -> None:
    case = Case.from_json(make_case("LoadData2D", "atlas-a2", ("GM", "half", 0), ("A1", "half", 0),
                                    {**LOADDATA, "srcStride": 2}, {"GM": noise(4096, 3), "L1": noise(2048, 4)}))
    probe = Probe(resolve(case, SPEC))
    as_gap = hypothesis(SPEC, "LoadData2D:srcStride-as-gap").twin(probe)
    one_more = hypothesis(SPEC, "LoadData2D.srcStride:one-more").twin(probe)
    assert as_gap.key == one_more.key and probe.transfer_of(as_gap) is probe.transfer_of(one_more)
    assert probe.image(as_gap) is probe.image(one_more)


def test_a_units_misreading_plans_with_the_other_measure() -> None:
    fixpipe = Case.from_json(CASES["fixpipe-gap"])   # C2PIPE2GM: gaps measured start to start
    twin = hypothesis(SPEC, "DataCopy:gaps-measured-otherwise").twin(Probe(resolve(fixpipe, SPEC)))
    units = twin.call.reading.units(twin.call.api.units_for("C2PIPE2GM"))
    assert units.src_gap.measure is units.dst_gap.measure is GapMeasure.END_TO_START
    assert twin.call.reading == SPEC.seed_reading   # the same choices: a misreading names no alternative


def test_a_slice_field_read_otherwise_keeps_the_slice_counts() -> None:
    call = resolve(Case.from_json(CASES["slice-strided"]), SPEC)
    module = module_for(call.api)
    params = module.read_as(call, "SliceInfo.stride", lambda stride: 0)
    twin = resolve(Case.from_json({**CASES["slice-strided"], "params": params}), SPEC)
    assert params["srcSliceInfo"][0]["stride"] == 0 and params["srcSliceInfo"][1]["stride"] == 0
    assert module.plan(twin).size == module.plan(call).size   # as many slices of as many elements
    assert module.read_as(call, "SliceInfo.stride", lambda stride: stride) is None


def test_the_documentation_lists_every_misreading_and_every_buggy_target() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "diagnosis.md").read_text()
    for api in SPEC.apis:
        for misreading in module_for(SPEC.apis[api]).MISREADINGS:
            assert f"| `{api}:{misreading.name}` | {misreading.title} |" in text
    for bug in buggy.CATALOGUE:
        assert f"`{bug.__name__}`" in text
        for name in bug.HYPOTHESES or ((bug.HYPOTHESIS,) if bug.HYPOTHESIS else ()):
            assert f"`{name}`" in text


def test_a_twin_the_reference_cannot_compute_changes_nothing() -> None:
    """Offsets past 64 bits (a misread shape multiplied up) or more elements than the case's regions could hold
    (an illegal call's huge count) make no prediction, and never an exception."""
    probe = Probe(resolve(datacopy(1, 8), SPEC))
    far = Twin(probe.call, transfer=Transfer(grid=Grid((2, 16), 0, (1 << 64, 1), 0, (16, 1))), label="far")
    huge = Twin(probe.call, transfer=Transfer(grid=Grid((1 << 40,), 0, (1,), 0, (1,))), label="huge")
    for twin in (far, huge):
        assert probe.transfer_of(twin) is None and not probe.changes(twin) and probe.overruns(twin)
