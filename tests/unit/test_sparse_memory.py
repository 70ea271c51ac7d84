"""The case-format extension sparse-memory: several regions per memory (`GM`, `GM#1`, ...), so that bursts far
apart cost only their bytes. The reference reads and writes through every region, checks the bounds per
element, and a case that uses the keys without announcing the extension, or whose regions overlap, is refused."""
from __future__ import annotations

import copy
import json

import numpy as np

from ascendc_conformance.format.case import EXTENSIONS, SPARSE_MEMORY, WIRE_EXTENSIONS, Case
from ascendc_conformance.format.schemas import SCHEMA_DIR
from ascendc_conformance.judge.diff import diff_case
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.targets.base import read_result
from tests.helpers.casebuild import expect_json, make_case, region, sentinel, unb64
from tests.oracle.loop_reading import loop_expect

GAP = 40000                 # srcGap / dstGap in 32-B units: the second burst 1.28 MB after the first
FAR = 32 + GAP * 32         # where the second burst starts, from the first one's start


def _sparse(case: dict, memory: str, pieces: list[tuple[int, int]]) -> dict:
    """The case with one memory's single region cut into the regions [start, stop) of `pieces`."""
    sparse = copy.deepcopy(case)
    whole = unb64(case["memory"][memory]["data"])
    del sparse["memory"][memory]
    for index, (start, stop) in enumerate(pieces):
        sparse["memory"][memory if index == 0 else f"{memory}#{index}"] = region(start, whole[start:stop])
    sparse["extensions"] = [SPARSE_MEMORY]
    return sparse


def _noise(size: int, seed: int) -> bytes:
    """Non-zero bytes (casebuild.sentinel, but quick for megabytes)."""
    return np.random.default_rng(seed).integers(1, 256, size, dtype=np.uint8).tobytes()


def _gm_to_ub() -> dict:
    return make_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 0),
                     {"blockCount": 2, "blockLen": 1, "srcGap": GAP, "dstGap": 3},
                     {"GM": _noise(FAR + 192, 1), "UB": sentinel(512, 2)})


def _ub_to_gm() -> dict:
    return make_case("DataCopy", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 64),
                     {"blockCount": 2, "blockLen": 1, "srcGap": 0, "dstGap": GAP},
                     {"UB": sentinel(512, 3), "GM": _noise(FAR + 192, 4)})


def test_a_sparse_source_moves_what_one_region_would():
    dense = _gm_to_ub()
    sparse = _sparse(dense, "GM", [(0, 160), (FAR, FAR + 160)])
    expected = expect_json(sparse)
    assert expected["status"] == "ok"
    assert expected["memory"]["UB"] == expect_json(dense)["memory"]["UB"]
    assert expected["memory"] == loop_expect(sparse)["memory"]


def test_a_sparse_destination_writes_into_each_region():
    dense = _ub_to_gm()
    sparse = _sparse(dense, "GM", [(0, 160), (FAR, FAR + 160)])
    whole = unb64(expect_json(dense)["memory"]["GM"]["data"])
    expected = expect_json(sparse)
    assert unb64(expected["memory"]["GM"]["data"]) == whole[:160]
    assert unb64(expected["memory"]["GM#1"]["data"]) == whole[FAR:FAR + 160]
    assert expected["memory"] == loop_expect(sparse)["memory"]


def test_a_burst_between_the_regions_breaks_the_bounds():
    sparse = _sparse(_gm_to_ub(), "GM", [(0, 160), (FAR + 80, FAR + 160)])   # the second burst starts at FAR + 64
    result = expect_json(sparse)
    assert result["status"] == "rejected" and result["rules"] == ["Memory-bounds"]
    assert f"src bytes [{FAR + 64}, {FAR + 66}) of GM lie in none of its regions" in result["message"]


def test_without_the_bounds_only_the_touched_bytes_are_added():
    """What a target without the bounds check works on: zero regions over the bytes no region holds."""
    sparse = _sparse(_ub_to_gm(), "GM", [(0, 160), (FAR + 80, FAR + 160)])
    result = expect_json(sparse, ignore=frozenset({"Memory-bounds"}))
    added = {name: r for name, r in result["memory"].items() if name not in sparse["memory"]}
    assert [(r["address"], len(unb64(r["data"]))) for r in added.values()] == [(FAR + 64, 16)]


def test_further_regions_need_the_extension_and_must_not_overlap():
    sparse = _sparse(_gm_to_ub(), "GM", [(0, 160), (FAR, FAR + 160)])
    undeclared = {key: value for key, value in sparse.items() if key != "extensions"}
    message = expect_json(undeclared)["message"]
    assert expect_json(undeclared)["status"] == "error"
    assert "case.memory.GM#1" in message and SPARSE_MEMORY in message
    overlapping = _sparse(_gm_to_ub(), "GM", [(0, 160), (100, 200)])
    assert "overlaps case.memory.GM" in expect_json(overlapping)["message"]
    badly_keyed = copy.deepcopy(sparse)
    badly_keyed["memory"]["GM#x"] = badly_keyed["memory"].pop("GM#1")
    assert "GM#<n>" in expect_json(badly_keyed)["message"]


def test_a_diff_names_the_region_and_locates_the_burst():
    sparse = _sparse(_ub_to_gm(), "GM", [(0, 160), (FAR, FAR + 160)])
    expected = expect_json(sparse)
    wrong = copy.deepcopy(expected)
    wrong["memory"]["GM#1"] = sparse["memory"]["GM#1"]   # the second burst never written
    case = Case.from_json(sparse)
    diff = diff_case(case, read_result(case, expected).memory, read_result(case, wrong).memory, load_spec())
    assert [(run.region, run.kind) for run in diff.runs] == [("GM#1", "left-expected-bytes-unwritten")]
    assert diff.runs[0].location.startswith("burst 1 (of 2)")


def _extension_lists(node):
    """Every `extensions` property's list of accepted names in a JSON schema."""
    if isinstance(node, dict):
        extensions = node.get("properties", {}).get("extensions")
        if extensions is not None:
            yield extensions["items"]["enum"]
        for value in node.values():
            yield from _extension_lists(value)
    elif isinstance(node, list):
        for value in node:
            yield from _extension_lists(value)


def test_every_schema_accepts_exactly_the_suites_case_format_extensions():
    """The case, hello and pack schemas each list the extensions; they must list format.case.EXTENSIONS, and the
    hello's the wire extensions too (format.case.WIRE_EXTENSIONS: a hello announces them, no case needs them)."""
    found = {path.name: list(_extension_lists(json.loads(path.read_text()))) for path in SCHEMA_DIR.glob("*.json")}
    listed = {name: lists for name, lists in found.items() if lists}
    assert set(listed) >= {"case-v1.schema.json", "hello-v1.schema.json", "pack-v1.schema.json"}, listed
    for name, lists in listed.items():
        known = (*EXTENSIONS, *WIRE_EXTENSIONS) if name == "hello-v1.schema.json" else EXTENSIONS
        for names in lists:
            assert sorted(names) == sorted(known), f"{name} lists {names}, format.case's {known}"
