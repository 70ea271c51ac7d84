"""Worked examples E1–E7 of the seeds (semantics.md §6), byte-exact, against both implementations.

Expected memory is written from the documents' own statements (slices and sequences), over a
sentinel pre-fill so that untouched bytes are checked too.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from tests.helpers.casebuild import expect_json, assert_memory, carry, make_case, sentinel, words
from tests.oracle.loop_reading import loop_expect


def reference_expect(case: dict) -> dict:
    """The product's reference, looked up at call time."""
    return expect_json(case)


Expect = Callable[[dict], dict]
IMPLEMENTATIONS = [pytest.param(loop_expect, id="oracle"),
                   pytest.param(reference_expect, id="reference")]


@pytest.fixture(params=IMPLEMENTATIONS)
def expect(request: pytest.FixtureRequest) -> Expect:
    """Each test runs once per implementation: the loop oracle and the product reference."""
    return request.param


def halves(first: int, last: int) -> bytes:
    """The half values first, first+1, …, last (exact integers), little-endian."""
    return np.arange(first, last + 1, dtype="<f2").tobytes()


def floats(first: int, last: int) -> bytes:
    """The float values first, first+1, …, last, little-endian."""
    return np.arange(first, last + 1, dtype="<f4").tobytes()


@pytest.mark.parametrize("product", ["atlas-a3", "atlas-a2", "atlas-inference-aicore",
                                     "atlas-training"])
def test_e1_count_form_chain(expect: Expect, product: str) -> None:
    """E1 — 000 Examples / Result example: count 512 half, GM→VECIN, VECIN→VECOUT, VECOUT→GM.

    srcGlobal = [1 … 512]; dstGlobal = [1 … 512]; both UB tensors hold the same values.
    """
    data = halves(1, 512)  # 1024 B
    gm0, ub0 = bytearray(sentinel(4096, 1)), bytearray(sentinel(3072, 2))
    gm0[0:1024] = data  # srcGlobal at GM 0, dstGlobal at GM 2048
    vecin, vecout = ("VECIN", "half", 256), ("VECOUT", "half", 1536)

    case1 = make_case("DataCopy", product, ("GM", "half", 0), vecin, {"count": 512},
                      {"GM": bytes(gm0), "UB": bytes(ub0)})
    r1 = expect(case1)
    ub1 = bytearray(ub0)
    ub1[256:1280] = data
    assert_memory(r1, case1, {"UB": bytes(ub1)})

    case2 = make_case("DataCopy", product, vecin, vecout, {"count": 512}, {"UB": carry(r1, "UB")})
    r2 = expect(case2)
    ub2 = bytearray(ub1)
    ub2[1536:2560] = data
    assert_memory(r2, case2, {"UB": bytes(ub2)})

    case3 = make_case("DataCopy", product, vecout, ("GM", "half", 2048), {"count": 512},
                      {"GM": carry(r1, "GM"), "UB": carry(r2, "UB")})
    r3 = expect(case3)
    gm3 = bytearray(gm0)
    gm3[2048:3072] = data
    assert_memory(r3, case3, {"GM": bytes(gm3)})


def test_e2_two_chunks(expect: Expect) -> None:
    """E2 — 000 Table 3 (DataCopyParams example): {2, 8, 0, 1}, GM→VECIN half, 32-B route.

    dst[0, 256) = src[0, 256); dst[256, 288) untouched; dst[288, 544) = src[256, 512) (bytes).
    """
    gm = sentinel(64, 3) + halves(1, 256) + sentinel(64, 4)  # region at GM 4032, src at 4096
    src = gm[64:576]
    ub = sentinel(1024, 5)  # dst at UB 256
    case = make_case("DataCopy", "atlas-a2", ("GM", "half", 4096), ("VECIN", "half", 256),
                     {"blockCount": 2, "blockLen": 8, "srcGap": 0, "dstGap": 1},
                     {"GM": (4032, gm), "UB": ub})
    want = bytearray(ub)
    want[256 + 0:256 + 256] = src[0:256]
    want[256 + 288:256 + 544] = src[256:512]
    assert_memory(expect(case), case, {"UB": bytes(want)})


def test_e3_slice_gm_to_vecin(expect: Expect) -> None:
    """E3 — 001 参数说明 walkthrough and 调用示例: float, dimValue 2, GM→VECIN.

    UB[0:24] = src[16:40], UB[24:48] = src[47:71], UB[48:72] = src[190:214],
    UB[72:96] = src[221:245].
    """
    gm = sentinel(64, 6) + floats(1, 261) + sentinel(60, 7)  # src (261 floats) at GM 64
    ub = sentinel(512, 8)  # dst (96 floats) at UB 64
    params = {
        "dimValue": 2,
        "dstSliceInfo": [
            {"startIndex": 0, "endIndex": 47, "stride": 0, "burstLen": 3, "shapeValue": 48},
            {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}],
        "srcSliceInfo": [
            {"startIndex": 16, "endIndex": 70, "stride": 7, "burstLen": 3, "shapeValue": 87},
            {"startIndex": 0, "endIndex": 2, "stride": 1, "burstLen": 1, "shapeValue": 3}],
    }
    case = make_case("DataCopySlice", "atlas-a2", ("GM", "float", 64), ("VECIN", "float", 64),
                     params, {"GM": gm, "UB": ub})
    src = words(gm, 4)[16:16 + 261]
    want = words(ub, 4)
    dst = want[16:16 + 96]  # view onto the UB tensor
    dst[0:24] = src[16:40]
    dst[24:48] = src[47:71]
    dst[48:72] = src[190:214]
    dst[72:96] = src[221:245]
    assert_memory(expect(case), case, {"UB": want.tobytes()})


def test_e4_weight_load(expect: Expect) -> None:
    """E4 — 002 Examples (inference AI Core): GM→B1 DataCopy {1, 128, 0, 0}, then B1→B2
    LoadData {0, 8, 1, 0, 0, false, 0}, half; B2[0:2048] = B1[0:2048] = the 2048 weights."""
    weights = halves(1, 2048)  # C1·Kh·Kw·Cout·C0 = 2048 halves, 4096 B
    gm = weights + sentinel(64, 9)
    l1 = sentinel(512 + 4096 + 512, 10)  # B1 tensor at L1 512
    case1 = make_case("DataCopy", "atlas-inference-aicore", ("GM", "half", 0), ("B1", "half", 512),
                      {"blockCount": 1, "blockLen": 128, "srcGap": 0, "dstGap": 0},
                      {"GM": gm, "L1": l1})
    r1 = expect(case1)
    l1_after = bytearray(l1)
    l1_after[512:4608] = weights
    assert_memory(r1, case1, {"L1": bytes(l1_after)})

    l0b = sentinel(4096 + 1024, 11)  # B2 tensor at L0B 0
    case2 = make_case("LoadData2D", "atlas-inference-aicore",
                      ("B1", "half", 512), ("B2", "half", 0),
                      {"startIndex": 0, "repeatTimes": 8, "srcStride": 1, "sid": 0, "dstGap": 0,
                       "ifTranspose": False, "addrMode": 0},
                      {"L1": carry(r1, "L1"), "L0B": l0b})
    want = bytearray(l0b)
    want[0:4096] = weights
    assert_memory(expect(case2), case2, {"L0B": bytes(want)})


NZ2ND_PRODUCTS = ["atlas-a3", "atlas-a2"]


@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
def test_e5_nz2nd_result_example(expect: Expect, product: str) -> None:
    """E5 — 003 调用示例 / 结果示例: GM→VECIN→VECOUT count copies of [1 … 1024] (half), then
    NZ2ND {1, 32, 32, 1, 32, 32, 1} to GM; output [1…16, 513…528, 17…32, 529…544, …,
    497…512, 1009…1024]."""
    sequence: list[int] = []
    for r in range(32):  # row r = src[16r : 16r+16] ‖ src[512+16r : 512+16r+16]
        sequence += list(range(16 * r + 1, 16 * r + 17)) + list(range(513 + 16 * r, 529 + 16 * r))
    assert sequence[:32] == list(range(1, 17)) + list(range(513, 529))
    assert sequence[-32:] == list(range(497, 513)) + list(range(1009, 1025))

    gm0 = bytearray(sentinel(6144 + 64, 12))
    gm0[0:2048] = halves(1, 1024)  # srcGlobal at GM 0, dstGlobal at GM 4096
    ub0 = sentinel(4096 + 64, 13)  # VECIN at UB 0, VECOUT at UB 2048
    vecin, vecout = ("VECIN", "half", 0), ("VECOUT", "half", 2048)
    case1 = make_case("DataCopy", product, ("GM", "half", 0), vecin, {"count": 1024},
                      {"GM": bytes(gm0), "UB": ub0})
    r1 = expect(case1)
    ub1 = bytearray(ub0)
    ub1[0:2048] = halves(1, 1024)
    assert_memory(r1, case1, {"UB": bytes(ub1)})

    case2 = make_case("DataCopy", product, vecin, vecout, {"count": 1024}, {"UB": carry(r1, "UB")})
    r2 = expect(case2)
    ub2 = bytearray(ub1)
    ub2[2048:4096] = halves(1, 1024)
    assert_memory(r2, case2, {"UB": bytes(ub2)})

    params = {"ndNum": 1, "nValue": 32, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 32,
              "dstDStride": 32, "dstNdMatrixStride": 1}
    case3 = make_case("DataCopyNz2Nd", product, vecout, ("GM", "half", 4096), params,
                      {"GM": carry(r1, "GM"), "UB": carry(r2, "UB")})
    want = bytearray(gm0)
    want[4096:6144] = np.array(sequence, dtype="<f2").tobytes()
    assert_memory(expect(case3), case3, {"GM": bytes(want)})


def nz2nd_figure_case(product: str, dtype: str, params: dict, src_elems: int,
                      dst_elems: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """VECOUT (UB 0) → GM (GM 0) case with src values 1…src_elems and sentinel around both.

    Returns the case, the source words and the pre-call destination words (GM region)."""
    es = 2 if dtype == "half" else 4
    values = np.arange(1, src_elems + 1, dtype="<f2" if es == 2 else "<f4").tobytes()
    ub = values + sentinel(64, 14)
    gm = sentinel(dst_elems * es + 64, 15)
    case = make_case("DataCopyNz2Nd", product, ("VECOUT", dtype, 0), ("GM", dtype, 0), params,
                     {"GM": gm, "UB": ub})
    return case, words(ub, es), words(gm, es)


@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
def test_e6_nz2nd_half_figure(expect: Expect, product: str) -> None:
    """E6 — 003 图1 text: half {2, 4, 32, 1, 4, 160, 48}; dst[160r : 160r+32] = A_{r+1} ‖ B_{r+1},
    dst[48+160r : 80+160r] = C_{r+1} ‖ D_{r+1}; written in [0, 560), the rest untouched."""
    params = {"ndNum": 2, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 4,
              "dstDStride": 160, "dstNdMatrixStride": 48}
    case, src, want = nz2nd_figure_case(product, "half", params, 384, 560)

    def label(name: str, k: int) -> np.ndarray:  # each label is 16 halves
        base = {"A": 0, "B": 64, "C": 256, "D": 320}[name]
        return src[base + 16 * (k - 1):base + 16 * k]

    for r in range(4):
        want[160 * r:160 * r + 32] = np.concatenate([label("A", r + 1), label("B", r + 1)])
        want[48 + 160 * r:80 + 160 * r] = np.concatenate([label("C", r + 1), label("D", r + 1)])
    for m in range(2):  # the §6 element formula agrees with the figure labels
        for r in range(4):
            for c in range(32):
                assert want[48 * m + 160 * r + c] == src[256 * m + 64 * (c // 16) + 16 * r + c % 16]
    assert_memory(expect(case), case, {"GM": want.tobytes()})


@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
def test_e7_nz2nd_float_figure(expect: Expect, product: str) -> None:
    """E7 — 003 图2 text: float {2, 4, 32, 1, 4, 144, 40}; labels are 8-float DataBlocks; dst row r
    of matrix 1 = A_{2r+1} A_{2r+2} B_{2r+1} B_{2r+2} at 144r, matrix 2 (C, D) at 40 + 144r;
    written in [0, 504), the rest untouched."""
    params = {"ndNum": 2, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 4,
              "dstDStride": 144, "dstNdMatrixStride": 40}
    case, src, want = nz2nd_figure_case(product, "float", params, 384, 504)

    def label(name: str, k: int) -> np.ndarray:  # each label is one 8-float DataBlock
        base = {"A": 0, "B": 64, "C": 256, "D": 320}[name]
        return src[base + 8 * (k - 1):base + 8 * k]

    for r in range(4):
        k1, k2 = 2 * r + 1, 2 * r + 2
        want[144 * r:144 * r + 32] = np.concatenate(
            [label("A", k1), label("A", k2), label("B", k1), label("B", k2)])
        want[40 + 144 * r:72 + 144 * r] = np.concatenate(
            [label("C", k1), label("C", k2), label("D", k1), label("D", k2)])
    for m in range(2):  # the §6 element formula agrees with the figure labels
        for r in range(4):
            for c in range(32):
                assert want[40 * m + 144 * r + c] == src[256 * m + 64 * (c // 16) + 16 * r + c % 16]
    assert_memory(expect(case), case, {"GM": want.tobytes()})
