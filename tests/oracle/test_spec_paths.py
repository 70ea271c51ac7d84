"""The documented paths x dtypes of the spec equal an independent transcription of the seeds.

EXPECTED below is written by hand from the seed pages (000 Tables 4-7 and its example, 001 表1/表2,
002 Functions/Table 1, 003 AI处理器支持情况/表4) and the tables of notes/semantics.md §3, as literal
data. It deliberately does not read spec/: the test compares what `spec paths --json` prints with it,
so a path missing from or added to the YAML fails here.
"""
from __future__ import annotations

import json
from itertools import product as cross

import pytest

from ascendc_conformance.cli.main import main

A3, A2, A200, AIC, AIV, TRAIN = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
                                 "atlas-inference-vectorcore", "atlas-training")
ALL_PRODUCTS = (A3, A2, A200, AIC, AIV, TRAIN)

# 000 Tables 4-6, written out (not the spec's groups).
ALL11 = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
         "half", "float", "double")
ALL12 = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
         "half", "bfloat16_t", "float", "double")
# 001 表1/表2.
SLICE_A = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "half", "bfloat16_t", "float")
SLICE_AIC = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "half", "float")
# 002 Table 1.
LOAD_OLD = ("uint8_t", "int8_t", "uint16_t", "int16_t", "half")
LOAD_NEW = ("uint8_t", "int8_t", "uint16_t", "int16_t", "half", "bfloat16_t", "uint32_t", "int32_t", "float")
# 003 表4.
NZ2ND = ("int16_t", "uint16_t", "int32_t", "uint32_t", "half", "bfloat16_t", "float")

LOAD_ROUTES = (("GM", "A1"), ("GM", "B1"), ("GM", "A2"), ("GM", "B2"), ("A1", "A2"), ("B1", "B2"))

# (api, products, routes, dtypes) with src dtype == dst dtype, or dtype pairs for the mixed row.
SAME_TYPE_ROWS = [
    # 000 Table 4: GM -> local.
    ("DataCopy", (TRAIN, AIC), [("GM", "VECIN"), ("GM", "A1"), ("GM", "B1")], ALL11),
    ("DataCopy", (AIV,), [("GM", "VECIN")], ALL11),
    ("DataCopy", (A2, A3), [("GM", "VECIN"), ("GM", "A1"), ("GM", "B1"), ("GM", "C1")], ALL12),
    ("DataCopy", (A200,), [("GM", "VECIN")], ALL12),
    # 000 Table 5: local -> local; VECIN -> VECOUT from the 000 example (D5) where Table 5 has UB -> UB.
    ("DataCopy", (TRAIN,), [("VECIN", "VECCALC"), ("VECCALC", "VECOUT"), ("VECIN", "VECOUT")], ALL11),
    ("DataCopy", (AIC,), [("VECIN", "VECCALC"), ("VECCALC", "VECOUT"), ("VECIN", "VECOUT"),
                          ("VECIN", "A1"), ("VECIN", "B1"), ("VECCALC", "A1"), ("VECCALC", "B1"),
                          ("VECOUT", "A1"), ("VECOUT", "B1")], ALL11),
    ("DataCopy", (A2, A3), [("VECIN", "VECCALC"), ("VECCALC", "VECOUT"), ("VECIN", "VECOUT"),
                            ("VECIN", "TSCM"), ("VECCALC", "TSCM"), ("VECOUT", "TSCM"),
                            ("A1", "C2PIPE2GM"), ("B1", "C2PIPE2GM"), ("C1", "C2PIPE2GM")], ALL12),
    ("DataCopy", (A2, A3), [("C1", "C2")], ("int32_t", "float")),
    # 000 Table 6: local -> GM.
    ("DataCopy", (TRAIN, AIV), [("VECOUT", "GM")], ALL11),
    ("DataCopy", (AIC,), [("VECOUT", "GM"), ("CO2", "GM")], ALL11),
    ("DataCopy", (A2, A3), [("VECOUT", "GM"), ("A1", "GM"), ("B1", "GM")], ALL12),
    ("DataCopy", (A200,), [("VECOUT", "GM")], ALL12),
    # 001 表1 / 表2 (products per D12: a3, a2, inference AI Core).
    ("DataCopySlice", (A2, A3), [("GM", "VECIN"), ("VECOUT", "GM")], SLICE_A),
    ("DataCopySlice", (AIC,), [("GM", "VECIN"), ("VECOUT", "GM"), ("CO2", "GM")], SLICE_AIC),
    # 002: the six paths on every product but the Vector Core ("x").
    ("LoadData2D", (TRAIN, AIC), list(LOAD_ROUTES), LOAD_OLD),
    ("LoadData2D", (A2, A3, A200), list(LOAD_ROUTES), LOAD_NEW),
    # 003: Ascend 910C / 910B only.
    ("DataCopyNz2Nd", (A2, A3), [("VECOUT", "GM")], NZ2ND),
]
# 000 Table 7: C1 -> C2 with src half, dst float.
MIXED_ROWS = [("DataCopy", (A2, A3), [("C1", "C2")], [("half", "float")])]


def _expected() -> set[tuple[str, str, str, str, str, str]]:
    rows = set()
    for api, products, routes, dtypes in SAME_TYPE_ROWS:
        for product, (src, dst), dtype in cross(products, routes, dtypes):
            rows.add((product, api, src, dst, dtype, dtype))
    for api, products, routes, pairs in MIXED_ROWS:
        for product, (src, dst), (src_dtype, dst_dtype) in cross(products, routes, pairs):
            rows.add((product, api, src, dst, src_dtype, dst_dtype))
    return rows


EXPECTED = _expected()

# The physical memories each seed marks next to the logical route (000 "(GM -> UB)" etc.; LoadData's
# A2/B2 are L0A/L0B; slice and NZ2ND run between GM and UB, CO2 on the inference AI Core is UB).
PHYSICAL = {
    ("DataCopy", "GM", "VECIN"): ("GM", "UB"), ("DataCopy", "GM", "A1"): ("GM", "L1"),
    ("DataCopy", "GM", "B1"): ("GM", "L1"), ("DataCopy", "GM", "C1"): ("GM", "L1"),
    ("DataCopy", "VECIN", "VECCALC"): ("UB", "UB"), ("DataCopy", "VECCALC", "VECOUT"): ("UB", "UB"),
    ("DataCopy", "VECIN", "VECOUT"): ("UB", "UB"),
    **{("DataCopy", ub, l1): ("UB", "L1") for ub in ("VECIN", "VECCALC", "VECOUT") for l1 in ("TSCM", "A1", "B1")},
    **{("DataCopy", l1, "C2PIPE2GM"): ("L1", "FB") for l1 in ("A1", "B1", "C1")},
    ("DataCopy", "C1", "C2"): ("L1", "BT"),
    ("DataCopy", "VECOUT", "GM"): ("UB", "GM"), ("DataCopy", "CO2", "GM"): ("UB", "GM"),
    ("DataCopy", "A1", "GM"): ("L1", "GM"), ("DataCopy", "B1", "GM"): ("L1", "GM"),
    ("DataCopySlice", "GM", "VECIN"): ("GM", "UB"), ("DataCopySlice", "VECOUT", "GM"): ("UB", "GM"),
    ("DataCopySlice", "CO2", "GM"): ("UB", "GM"),
    ("LoadData2D", "GM", "A1"): ("GM", "L1"), ("LoadData2D", "GM", "B1"): ("GM", "L1"),
    ("LoadData2D", "GM", "A2"): ("GM", "L0A"), ("LoadData2D", "GM", "B2"): ("GM", "L0B"),
    ("LoadData2D", "A1", "A2"): ("L1", "L0A"), ("LoadData2D", "B1", "B2"): ("L1", "L0B"),
    ("DataCopyNz2Nd", "VECOUT", "GM"): ("UB", "GM"),
}

SEED_OF_API = {"DataCopy": "000_53d37fbf51f3620c.txt", "DataCopySlice": "001_4c703f841be2a5ba.txt",
               "LoadData2D": "002_bed9725f2be7b8dc.txt", "DataCopyNz2Nd": "003_e2f7527acf8f81a5.txt"}
KEYS = {"product", "api", "src", "dst", "src_dtype", "dst_dtype", "forms", "src_memory", "dst_memory",
        "citation", "depends_on"}


def paths_json(capsys: pytest.CaptureFixture, *options: str) -> list[dict]:
    code = main(["spec", "paths", "--json", *options])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def as_set(records: list[dict]) -> set[tuple]:
    return {(r["product"], r["api"], r["src"], r["dst"], r["src_dtype"], r["dst_dtype"]) for r in records}


def test_transcription_is_sane() -> None:
    """Guard the hand-written table itself: known sizes per (api, product)."""
    def count(api: str, product: str) -> int:
        return sum(1 for row in EXPECTED if row[1] == api and row[0] == product)

    assert count("DataCopy", A3) == count("DataCopy", A2) == 4 * 12 + 9 * 12 + 2 + 1 + 3 * 12
    assert count("DataCopy", AIC) == (3 + 9 + 2) * 11
    assert count("DataCopy", TRAIN) == (3 + 3 + 1) * 11
    assert count("DataCopy", AIV) == 2 * 11 and count("DataCopy", A200) == 2 * 12
    assert count("LoadData2D", AIV) == 0 and count("LoadData2D", A200) == 6 * 9
    assert {row[0] for row in EXPECTED if row[1] == "DataCopySlice"} == {A3, A2, AIC}
    assert {row[0] for row in EXPECTED if row[1] == "DataCopyNz2Nd"} == {A3, A2}


def test_paths_equal_the_seed_tables(capsys: pytest.CaptureFixture) -> None:
    records = paths_json(capsys)
    got = as_set(records)
    assert len(got) == len(records), "a path x dtype is listed twice"
    missing = sorted(EXPECTED - got)
    extra = sorted(got - EXPECTED)
    assert not missing and not extra, f"missing from the spec: {missing}\nnot in the seeds: {extra}"


@pytest.mark.parametrize("product, route, dtypes", [
    (A3, ("VECIN", "VECOUT"), ALL12), (A2, ("VECIN", "VECOUT"), ALL12),          # D5, 000 example
    (AIC, ("VECIN", "VECOUT"), ALL11), (TRAIN, ("VECIN", "VECOUT"), ALL11),
    (A3, ("C1", "C2"), ("int32_t", "float")), (A2, ("C1", "C2"), ("int32_t", "float")),
    (A3, ("C1", "C2PIPE2GM"), ALL12), (A2, ("A1", "C2PIPE2GM"), ALL12), (A2, ("B1", "C2PIPE2GM"), ALL12),
    (A3, ("VECOUT", "TSCM"), ALL12), (AIC, ("VECCALC", "B1"), ALL11), (AIC, ("CO2", "GM"), ALL11),
])
def test_named_datacopy_paths(capsys: pytest.CaptureFixture, product: str, route: tuple, dtypes: tuple) -> None:
    records = paths_json(capsys, "--product", product, "--api", "DataCopy")
    same = {r["src_dtype"] for r in records if (r["src"], r["dst"]) == route and r["src_dtype"] == r["dst_dtype"]}
    assert same == set(dtypes)


def test_mixed_half_to_float_only_on_a3_a2(capsys: pytest.CaptureFixture) -> None:
    mixed = [r for r in paths_json(capsys) if r["src_dtype"] != r["dst_dtype"]]
    assert {(r["product"], r["api"], r["src"], r["dst"], r["src_dtype"], r["dst_dtype"]) for r in mixed} == {
        (A3, "DataCopy", "C1", "C2", "half", "float"), (A2, "DataCopy", "C1", "C2", "half", "float")}
    assert all(r["forms"] == ["mixed"] for r in mixed)


def test_datacopy_not_documented(capsys: pytest.CaptureFixture) -> None:
    got = as_set(paths_json(capsys, "--api", "DataCopy"))
    routes = {(p, s, d) for p, _, s, d, _, _ in got}
    assert (AIV, "VECIN", "VECOUT") not in routes and (A200, "VECIN", "VECOUT") not in routes
    assert not {r for r in routes if r[0] in (AIC, AIV, TRAIN, A200) and r[2] in ("C2", "C2PIPE2GM", "TSCM")}
    assert (TRAIN, "VECIN", "A1") not in routes and (A3, "VECIN", "A1") not in routes
    assert (A3, "CO2", "GM") not in routes and (A3, "A1", "VECIN") not in routes


def test_slice_loaddata_nz2nd_products(capsys: pytest.CaptureFixture) -> None:
    records = paths_json(capsys)
    by_api: dict[str, set[str]] = {}
    for r in records:
        by_api.setdefault(r["api"], set()).add(r["product"])
    assert by_api["DataCopySlice"] == {A3, A2, AIC}
    assert by_api["LoadData2D"] == set(ALL_PRODUCTS) - {AIV}
    assert by_api["DataCopyNz2Nd"] == {A3, A2}
    assert {(r["src"], r["dst"]) for r in records if r["api"] == "DataCopyNz2Nd"} == {("VECOUT", "GM")}


def test_physical_memories(capsys: pytest.CaptureFixture) -> None:
    for r in paths_json(capsys):
        assert (r["src_memory"], r["dst_memory"]) == PHYSICAL[(r["api"], r["src"], r["dst"])], r


def test_every_path_has_the_keys_and_cites_its_seed(capsys: pytest.CaptureFixture) -> None:
    records = paths_json(capsys)
    assert records
    for r in records:
        assert set(r) == KEYS
        source = r["citation"].split(" ", 1)[0]
        assert source == SEED_OF_API[r["api"]], r
        assert r["forms"] and isinstance(r["depends_on"], list)


def test_d10_paths_depend_on_the_disputed_rule(capsys: pytest.CaptureFixture) -> None:
    for r in paths_json(capsys, "--api", "DataCopy"):
        if r["dst"] == "C2PIPE2GM":
            expected = [] if r["src_dtype"] == "uint64_t" else ["DataCopy-fixpipe-dtype-D10"]
            assert r["depends_on"] == expected, r


def test_output_is_sorted_and_deterministic(capsys: pytest.CaptureFixture) -> None:
    first = paths_json(capsys)
    second = paths_json(capsys)
    assert first == second
    order = {p: i for i, p in enumerate(ALL_PRODUCTS)}
    products = [order[r["product"]] for r in first]
    assert products == sorted(products)


@pytest.mark.parametrize("alias, product", [("910B", A2), ("910b", A2), ("910C", A3), ("310P", AIC),
                                            ("310B", A200)])
def test_alias_equals_product_id(capsys: pytest.CaptureFixture, alias: str, product: str) -> None:
    by_alias = paths_json(capsys, "--product", alias)
    by_id = paths_json(capsys, "--product", product)
    assert by_alias == by_id
    assert by_id and {r["product"] for r in by_id} == {product}


def test_product_and_api_filters(capsys: pytest.CaptureFixture) -> None:
    records = paths_json(capsys, "--api", "LoadData2D")
    assert as_set(records) == {row for row in EXPECTED if row[1] == "LoadData2D"}
    records = paths_json(capsys, "--product", "910B", "--product", "atlas-training", "--api", "DataCopySlice",
                         "--api", "DataCopyNz2Nd")
    assert as_set(records) == {row for row in EXPECTED if row[0] in (A2, TRAIN)
                               and row[1] in ("DataCopySlice", "DataCopyNz2Nd")}


@pytest.mark.parametrize("option, value, valid", [("--product", "910X", "atlas-a2"),
                                                  ("--api", "DataMove", "LoadData2D")])
def test_unknown_filter_is_a_usage_error(capsys: pytest.CaptureFixture, option: str, value: str, valid: str) -> None:
    assert main(["spec", "paths", "--json", option, value]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert value in captured.err and valid in captured.err
    assert "Traceback" not in captured.err


def test_table_output(capsys: pytest.CaptureFixture) -> None:
    assert main(["spec", "paths", "--product", "910B", "--api", "DataCopy"]) == 0
    out = capsys.readouterr().out
    assert "atlas-a2" in out and "C1 -> C2" in out and "half->float" in out
    assert f"{len([row for row in EXPECTED if row[0] == A2 and row[1] == 'DataCopy'])} paths" in out
