"""Issue 27 piece by piece: derived offsets and their crossings (reference and strategies), large GM regions and
many GM regions (layout), the heavy tests' paths per target (strategies.pinned), compact replay files of large
regions, the decoded-text cache's bound, and the untested statement's reasons (reports.untested)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.format import replay
from ascendc_conformance.format.case import Case, Operand, Region, Result
from ascendc_conformance.format.fill import Fill, filled_bytes
from ascendc_conformance.reference.crossings import crossings
from ascendc_conformance.reports import load_results
from ascendc_conformance.reports.coverage import build_coverage, certify
from ascendc_conformance.reports.untested import Subject, Why
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.context import LARGE_REGION_BYTES, PathContext
from ascendc_conformance.strategies.crossings import crossing_table, crossing_tests
from ascendc_conformance.strategies.large import field_reaches
from ascendc_conformance.strategies.ways import Way

SPEC = load_spec()


def _call(api: str, src: tuple, dst: tuple, params: dict, product: str = "atlas-a2") -> Case:
    return Case(api=api, product=product, src=Operand(*src), dst=Operand(*dst), params=MappingProxyType(params),
                memory=MappingProxyType({}))


def _bursts(count: int, gap: int = 65535) -> Case:
    return _call("DataCopy", ("VECOUT", "int8_t", 0), ("GM", "int8_t", 0),
                 {"blockCount": count, "blockLen": 1, "srcGap": 0, "dstGap": gap})


def test_a_burst_start_crosses_the_widths_its_offset_reaches():
    """2049 one-block bursts 65535 blocks apart: burst 2048 starts exactly 4 GiB past the destination's start."""
    assert crossings(_bursts(2049), SPEC) == {"dst-burst-start": (31, 32)}
    assert crossings(_bursts(2048), SPEC) == {"dst-burst-start": (31,)}   # 2047 x 2 MiB: under 4 GiB
    assert crossings(_bursts(1025), SPEC) == {"dst-burst-start": (31,)} and crossings(_bursts(1024), SPEC) == {}
    count = _call("DataCopy", ("GM", "int8_t", 0), ("VECIN", "int8_t", 0), {"count": 64})
    assert crossings(count, SPEC) == {}   # the count form computes no burst offset


def test_a_fractal_start_counts_start_index_and_strides():
    params = {"startIndex": 128, "repeatTimes": 129, "srcStride": 65535, "sid": 0, "dstGap": 0, "ifTranspose": False,
              "addrMode": 0}
    call = _call("LoadData2D", ("GM", "half", 0), ("A1", "half", 0), params)
    assert crossings(call, SPEC) == {"src-fractal-start": (31, 32)}   # (128 + 128 x 65535) x 512 B = 2^32 B
    assert crossings(_call("LoadData2D", ("GM", "half", 0), ("A1", "half", 0), {**params, "startIndex": 127}),
                     SPEC) == {"src-fractal-start": (31,)}


def test_the_crossing_table_names_why_a_crossing_is_unreachable():
    table = {(entry.api, entry.quantity.name, entry.width): entry for entry in crossing_table(SPEC)}
    assert table[("DataCopy", "dst-burst-start", 32)].ways == {Way.CROWDED}   # 2049 GM regions: sparse-memory
    assert table[("DataCopySlice", "src-element-offset", 32)].ways == {Way.DETACHED, Way.CROWDED}
    unreachable = table[("DataCopyNz2Nd", "dst-row-offset", 31)]
    assert not unreachable.ways and "B of UB" in unreachable.unreachable
    # a path whose calls cross 2^32 crosses 2^31 too: only the paths that cannot get to 2^32 have a 2^31 test
    tests = {test.id: test for test in crossing_tests(SPEC)}
    assert "DataCopy-dst-burst-start=2^31@crossing" not in tests
    assert {ctx.dst for ctx in tests["LoadData2D-src-fractal-start=2^31@crossing"].contexts} == {"A2", "B2"}


def test_a_large_region_test_is_drawn_the_cheapest_way_each_target_can_take():
    test = next(t for t in field_reaches(SPEC, ["atlas-a2"], ["LoadData2D"]) if t.field == "srcStride")
    assert test.value == 65535 and test.id == "LoadData2D-srcStride=65535@large"
    plain = test.taken_by(())
    assert plain and all(ctx.large and not ctx.sparse for ctx in plain)
    sparse = test.taken_by(("sparse-memory",))
    assert len(sparse) == len(plain) and all(ctx.sparse and not ctx.large for ctx in sparse)
    assert all(ctx.large for ctx in test.for_every_target().contexts)   # a pack holds what any target reads


def test_a_large_context_spans_tens_of_mib_in_one_region():
    ctx = PathContext.make(SPEC, "atlas-a2", "LoadData2D", "GM", "A1", "half", "half", "params")
    params = {"startIndex": 0, "repeatTimes": 2, "srcStride": 65535, "sid": 0, "dstGap": 0, "ifTranspose": False,
              "addrMode": 0}
    extents = module_for(ctx.api).footprint(ctx, params)
    assert not layout.fits(ctx, extents) and layout.fits(ctx.enlarging(), extents)
    spans = layout.regions(ctx.enlarging(), {"src": 0, "dst": 0}, extents)
    assert list(spans) == ["GM", "L1"] and spans["GM"][1] - spans["GM"][0] <= LARGE_REGION_BYTES + 2 * layout.GUARD_BYTES


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4096), st.integers(1, 300), st.integers(1, 50), st.integers(1, 5000), st.integers(2, 64))
def test_stretches_of_one_spread_axis_are_those_of_the_general_walk(offset, run, count, pitch, most):
    """The quick path for thousands of bursts gives the stretches the general walk and merge gives."""
    pattern = layout.Pattern(offset, run, ((count, pitch),))
    width = 1024
    quick = pattern.stretches(width, most)
    layout_ = pattern._spread(width, most)
    if layout_ is None:
        assert quick is None
        return
    reach, spread = layout_
    repeats = [offset]
    for axis_pitch, axis_count in spread:
        repeats = [start + i * axis_pitch for start in repeats for i in range(axis_count)]
    assert quick == layout._merged([(start, start + reach) for start in repeats], width)
    assert pattern.splits(width, most, start=False) is (quick is not None)


def test_a_crowded_case_has_a_region_per_burst():
    base = PathContext.make(SPEC, "atlas-a2", "DataCopy", "VECOUT", "GM", "int8_t", "int8_t", "params")
    ctx = base.crowding()
    params = {"blockCount": 2049, "blockLen": 1, "srcGap": 0, "dstGap": 65535}
    extents = module_for(ctx.api).footprint(ctx, params)
    assert layout.fits(ctx, extents) and not layout.fits(base.sparsing(), extents)   # 16 regions: not enough
    spans = layout.regions(ctx, {"src": 0, "dst": 64}, extents)
    assert sum(key.startswith("GM") for key in spans) == 2049


def test_a_replay_file_keeps_a_large_region_as_its_recipe(tmp_path: Path):
    size = 2 * 1024 * 1024
    gm = filled_bytes(Fill(7, size), 0)
    params = {"startIndex": 0, "repeatTimes": 2, "srcStride": 2048, "sid": 0, "dstGap": 0, "ifTranspose": False,
              "addrMode": 0}
    case = replace(_call("LoadData2D", ("GM", "half", 0), ("A1", "half", 0), params),
                   memory=MappingProxyType({"GM": Region(0, gm), "L1": Region(0, filled_bytes(Fill(8, 1088), 0))}))
    expected = reference.expect(case, SPEC)
    path = replay.save(tmp_path, "test_boundary[x]", case, expected, expected, {"outcome": "fail", "message": "m"}, "t")
    assert path.stat().st_size < 100_000
    saved = json.loads(path.read_text())
    assert saved["case"]["memory"]["GM"] == {"address": 0, "fill": {"seed": 7, "size": size, "half_nan_to_inf": False}}
    assert saved["expected"]["memory"]["GM"] == {"address": 0, "size": size,
                                                 "sha256": hashlib.sha256(expected.memory["GM"].data).hexdigest()}
    assert saved["expected"]["memory"]["L1"] == expected.to_json()["memory"]["L1"]   # small: kept as it is
    assert replay.load(path).case == case


def test_a_large_region_not_made_by_its_recipe_is_saved_as_its_bytes(tmp_path: Path):
    """Only bytes the fill recipe made (the very object) are saved as a recipe: a region a target or a test
    built itself keeps its bytes."""
    made = filled_bytes(Fill(7, 2 * 1024 * 1024), 0)
    case = replace(_bursts(2, 1), memory=MappingProxyType({"GM": Region(0, bytes(bytearray(made))), "VECOUT": Region(0, b"\1" * 64)}))
    path = replay.save(tmp_path, "t", case, Result.error("m"), None, {"outcome": "error"}, "t")
    assert "data" in json.loads(path.read_text())["case"]["memory"]["GM"]


def test_a_replay_file_with_a_broken_recipe_is_one_error(tmp_path: Path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"case": {"memory": {"GM": {"address": 0, "fill": {"seed": -1, "size": 4}}}}}))
    with pytest.raises(replay.ReplayError, match=r"memory.GM.fill is not a fill recipe"):
        replay.load(path)


def _record(test_id: str, **fields) -> dict:
    record = {"record": "test", "test_id": test_id, "kind": "legal", "verdict": "pass", "counts": {"pass": 10},
              "cases": 10, "tags": {}, "message": "", "duration_s": 0.1}
    record.update(fields)
    return record


def _results(tmp_path: Path, hello: dict, tests: list[dict], products: list[str]) -> Path:
    run = {"record": "run", "started": "2024-05-01T10:00:00+00:00", "target": "t", "hello": hello,
           "declared_limits": [{"label": "LoadData2D srcStride <= 16383", "rules": ["LoadData2D-srcStride-range"],
                                "text": "LoadData2D srcStride <= 16383"}] if "limits" in hello else [],
           "suite_version": "0.1.0", "spec_digest": SPEC.digest, "profile": "ci", "seed": 1, "products": products,
           "apis": ["LoadData2D"], "shard": None, "reading": "seed", "workers": 1, "machine": {}, "command": "c"}
    lines = [run, *tests, {"record": "end", "finished": "2024-05-01T10:30:00+00:00", "exit_status": 0}]
    (tmp_path / "results.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return tmp_path


def test_the_statement_says_why_each_untested_bit_and_crossing_was_not_tested(tmp_path: Path):
    """A LoadData2D run on atlas-a2 whose legal cases witnessed srcStride's bits 0-10 only, by a target announcing
    no extension and declaring srcStride <= 16383: bits 11-13 are untested for no reason but the run, 14 and 15 for
    the declared limit; dstGap's bit 10 only the 1-MiB L1 of other products reaches; the fractal start's crossings
    need sparse-memory."""
    hello = {"name": "t", "validates": True,
             "limits": {"maxima": [{"api": "LoadData2D", "field": "srcStride", "max": 16383}]}}
    bits = {"LoadData2D": {"srcStride": list(range(11)), "startIndex": list(range(16)), "repeatTimes": list(range(8)),
                           "dstGap": list(range(10)), "ifTranspose": [0]}}
    legal = _record("test_legal[atlas-a2-LoadData2D-GM->A1-half]", bits=bits, product="atlas-a2", api="LoadData2D",
                    route="GM->A1", src_dtype="half", dst_dtype="half")
    results = load_results(_results(tmp_path, hello, [legal], ["atlas-a2"]))
    coverage = build_coverage(results, SPEC)
    untested = {(entry.name, entry.why): entry for entry in coverage.untested}
    assert untested[("srcStride", Why.NOT_RUN)].values == (11, 12, 13)
    assert untested[("srcStride", Why.LIMIT)].values == (14, 15) and untested[("srcStride", Why.LIMIT)].detail == "srcStride <= 16383"
    assert untested[("dstGap", Why.PRODUCT)].values == (10,)
    crossing = untested[("src-fractal-start", Why.EXTENSION)]
    assert crossing.subject is Subject.CROSSINGS and crossing.values == (31, 32) and crossing.detail == "sparse-memory"
    statement = certify(results, coverage)
    assert statement.outcome == "conforms within declared limits, on what was run"
    assert "Untested: LoadData2D srcStride bits 14-15 (declared limit: srcStride <= 16383)" in statement.text
    assert "6 field bits and 2 crossings untested" in statement.summary
