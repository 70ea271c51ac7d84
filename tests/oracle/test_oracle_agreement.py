"""Hand-worked cases beyond the seeds' examples, checked against both implementations.

Each builder returns a case and the expected contents of the regions the call writes; the
expectation is small index arithmetic on the semantics.md formulas, written out in the builder,
never a call to the oracle. Untouched bytes keep their sentinel value.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from tests.helpers.casebuild import expect_json, assert_memory, make_case, sentinel, words
from tests.oracle.loop_reading import loop_expect

Built = tuple[dict, dict[str, bytes]]


def reference_expect(case: dict) -> dict:
    """The product's reference, looked up at call time."""
    return expect_json(case)


def c1_to_c2_float_gaps() -> Built:
    """000 T3, semantics §3.1 C1→C2 same type (e2s, D6): float {2, 2, 3, 1}, atlas-a2.

    Burst = 64·2 B = 32 floats. src starts i·(32 + 3·8) → 0, 56; dst starts i·(32 + 1·16) → 0, 48.
    """
    l1, bt = sentinel(512, 20), sentinel(512, 21)  # src at L1 64 (word 16), dst at BT 64 (word 16)
    case = make_case("DataCopy", "atlas-a2", ("C1", "float", 64), ("C2", "float", 64),
                     {"blockCount": 2, "blockLen": 2, "srcGap": 3, "dstGap": 1},
                     {"L1": l1, "BT": bt})
    src, want = words(l1, 4)[16:], words(bt, 4)
    dst = want[16:]
    dst[0:32] = src[0:32]
    dst[48:80] = src[56:88]  # dst[32:48] is the 64-B dstGap hole
    return case, {"BT": want.tobytes()}


def c1_to_c2_half_to_float() -> Built:
    """000 T3/T7, semantics §3.1 mixed form (D13: blockLen counts 64 B of half source):
    {2, 1, 1, 2}, atlas-a3. Burst = 32 halves → 32 floats; src starts i·(32 + 16) → 0, 48;
    dst starts i·(32 + 2·16) → 0, 64. Values are exact in half, so float32 holds them unchanged."""
    values = [(k - 40) / 8 for k in range(80)]
    values[3], values[5], values[50] = -0.0, float("inf"), float("-inf")
    values[60], values[61] = 2.0 ** -24, 65504.0  # smallest subnormal half, largest finite half
    l1 = np.array(values, dtype="<f2").tobytes() + sentinel(96, 22)  # src at L1 0
    bt = sentinel(512, 23)  # dst at BT 64
    case = make_case("DataCopy", "atlas-a3", ("C1", "half", 0), ("C2", "float", 64),
                     {"blockCount": 2, "blockLen": 1, "srcGap": 1, "dstGap": 2},
                     {"L1": l1, "BT": bt})
    want = bytearray(bt)
    want[64 + 4 * 0:64 + 4 * 32] = np.array(values[0:32], dtype="<f4").tobytes()
    want[64 + 4 * 64:64 + 4 * 96] = np.array(values[48:80], dtype="<f4").tobytes()
    return case, {"BT": bytes(want)}


def c1_to_c2pipe2gm_strides() -> Built:
    """000 T3 "L1 Buffer -> Fixpipe Buffer", semantics §3.1 (D7, s2s): int32_t {2, 1, 1, 2},
    atlas-a3. dst_b[256i + b] = src_b[32i + b] for b < 128: dst_b[0:128] = src_b[0:128],
    dst_b[256:384] = src_b[32:160], dst_b[128:256] untouched."""
    l1, fb = sentinel(512, 24), sentinel(640, 25)  # src at L1 32, dst at FB 128
    case = make_case("DataCopy", "atlas-a3", ("C1", "int32_t", 32), ("C2PIPE2GM", "int32_t", 128),
                     {"blockCount": 2, "blockLen": 1, "srcGap": 1, "dstGap": 2},
                     {"L1": l1, "FB": fb})
    want = bytearray(fb)
    want[128 + 0:128 + 128] = l1[32 + 0:32 + 128]
    want[128 + 256:128 + 384] = l1[32 + 32:32 + 160]
    return case, {"FB": bytes(want)}


def count_form_c2_rounds_to_64() -> Built:
    """000 T2 NOTE + D8: C1→C2 float count 24 = 96 B → ⌊96/64⌋ = 1 unit, 64 B moved, atlas-a2."""
    l1, bt = sentinel(256, 26), sentinel(256, 27)  # src at L1 32, dst at BT 64
    case = make_case("DataCopy", "atlas-a2", ("C1", "float", 32), ("C2", "float", 64),
                     {"count": 24}, {"L1": l1, "BT": bt})
    want = bytearray(bt)
    want[64:128] = l1[32:96]
    return case, {"BT": bytes(want)}


def count_form_fixpipe_rounds_to_128() -> Built:
    """000 T2 NOTE + D8: B1→C2PIPE2GM int32_t count 48 = 192 B → 128 B moved, atlas-a2."""
    l1, fb = sentinel(512, 28), sentinel(512, 29)  # src at L1 64, dst at FB 128
    case = make_case("DataCopy", "atlas-a2", ("B1", "int32_t", 64), ("C2PIPE2GM", "int32_t", 128),
                     {"count": 48}, {"L1": l1, "FB": fb})
    want = bytearray(fb)
    want[128:256] = l1[64:192]
    return case, {"FB": bytes(want)}


def count_form_rounds_to_32() -> Built:
    """000 T2 NOTE: GM→VECIN int8_t count 40 → 32 B moved; GM address 3 (aligned to
    sizeof(int8_t), D2), atlas-inference-vectorcore."""
    gm, ub = sentinel(64, 30), sentinel(128, 31)  # src at GM 3, dst at UB 32
    case = make_case("DataCopy", "atlas-inference-vectorcore", ("GM", "int8_t", 3),
                     ("VECIN", "int8_t", 32), {"count": 40}, {"GM": gm, "UB": ub})
    want = bytearray(ub)
    want[32:64] = gm[3:35]
    return case, {"UB": bytes(want)}


def slice_co2_to_gm_1d() -> Built:
    """001 表2 (CO2→GM, inference AI Core; CO2 is UB there, §2), semantics §3.2: half, dimValue 1,
    L₀ = 16. src {0, 47, 16, 1, 64}: 48 = 2·16 + 16 → slices [0,16), [32,48);
    dst {5, 40, 4, 1, 64}: 36 = 2·16 + 4 → slices [5,21), [25,41)."""
    ub, gm = sentinel(256, 32), sentinel(160, 33)  # src at UB 64 (word 32), dst at GM 0
    params = {
        "dimValue": 1,
        "dstSliceInfo": [{"startIndex": 5, "endIndex": 40, "stride": 4, "burstLen": 1,
                          "shapeValue": 64}],
        "srcSliceInfo": [{"startIndex": 0, "endIndex": 47, "stride": 16, "burstLen": 1,
                          "shapeValue": 64}],
    }
    case = make_case("DataCopySlice", "atlas-inference-aicore", ("CO2", "half", 64),
                     ("GM", "half", 0), params, {"UB": ub, "GM": gm})
    src, want = words(ub, 2)[32:], words(gm, 2)
    want[5:21] = src[0:16]
    want[25:41] = src[32:48]
    return case, {"GM": want.tobytes()}


def slice_gm_to_vecin_3d() -> Built:
    """001, semantics §3.2 pitches: int16_t, dimValue 3, atlas-a3. src shape 40×4×2 (pitches 1,
    40, 160): dim 0 {2, 33, 0, 2, 40} → one 32-element slice from 2; dim 1 {1, 3, 1, 1, 4} →
    rows 1, 3; dim 2 {0, 1, 0, 1, 2} → planes 0, 1. dst shape 32×2×2 (pitches 1, 32, 64), full.
    dst[64·p + 32·q : +32] = src[160·p + 40·(1 + 2q) + 2 : +32]."""
    gm, ub = sentinel(2 * 320 + 16, 34), sentinel(2 * 128 + 64, 35)  # src at GM 2, dst at UB 32
    params = {
        "dimValue": 3,
        "dstSliceInfo": [
            {"startIndex": 0, "endIndex": 31, "stride": 0, "burstLen": 2, "shapeValue": 32},
            {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2},
            {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}],
        "srcSliceInfo": [
            {"startIndex": 2, "endIndex": 33, "stride": 0, "burstLen": 2, "shapeValue": 40},
            {"startIndex": 1, "endIndex": 3, "stride": 1, "burstLen": 1, "shapeValue": 4},
            {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}],
    }
    case = make_case("DataCopySlice", "atlas-a3", ("GM", "int16_t", 2), ("VECIN", "int16_t", 32),
                     params, {"GM": gm, "UB": ub})
    src, want = words(gm, 2)[1:], words(ub, 2)
    dst = want[16:]
    dst[0:32] = src[42:74]
    dst[32:64] = src[122:154]
    dst[64:96] = src[202:234]
    dst[96:128] = src[282:314]
    return case, {"UB": want.tobytes()}


def _transpose_case(product: str) -> tuple[dict, np.ndarray, np.ndarray]:
    """A1 (L1 32) → A2 (L0A 512) half LoadData2D {1, 2, 3, 0, 1, true, 0}; src fractals 0–4."""
    l1 = sentinel(32, 36) + np.arange(1, 1281, dtype="<f2").tobytes() + sentinel(32, 37)
    l0a = sentinel(512 + 3 * 512 + 512, 38)
    case = make_case("LoadData2D", product, ("A1", "half", 32), ("A2", "half", 512),
                     {"startIndex": 1, "repeatTimes": 2, "srcStride": 3, "sid": 0, "dstGap": 1,
                      "ifTranspose": True, "addrMode": 0},
                     {"L1": l1, "L0A": l0a})
    return case, words(l1, 2)[16:], words(l0a, 2)


def load_data_transpose() -> Built:
    """002 T3, semantics §3.3: sf(i) = 1 + 3i → 1, 4; df(i) = 2i → 0, 2 (slot 1 untouched);
    dst[256·df + 16r + c] = src[256·sf + 16c + r], atlas-a2."""
    case, src, want = _transpose_case("atlas-a2")
    dst = want[256:]
    for r in range(16):
        for c in range(16):
            dst[0 * 256 + 16 * r + c] = src[1 * 256 + 16 * c + r]
            dst[2 * 256 + 16 * r + c] = src[4 * 256 + 16 * c + r]
    return case, {"L0A": want.tobytes()}


def load_data_transpose_training() -> Built:
    """002 T3 (dstGap "disabled" on training), D24: same call on atlas-training, df(i) = i → 0, 1
    (slot 2 untouched)."""
    case, src, want = _transpose_case("atlas-training")
    dst = want[256:]
    for r in range(16):
        for c in range(16):
            dst[0 * 256 + 16 * r + c] = src[1 * 256 + 16 * c + r]
            dst[1 * 256 + 16 * r + c] = src[4 * 256 + 16 * c + r]
    return case, {"L0A": want.tobytes()}


def load_data_gm_to_a2_float() -> Built:
    """002, semantics §3.3 (no transpose, F = 128 floats): GM→A2 float {2, 2, 0, 0, 2, false, 0},
    atlas-200i-500-a2. sf = 2, 2 (srcStride 0 re-reads); df = 0, 3: slots 0 and 3 = src
    fractal 2."""
    gm = sentinel(3 * 512 + 8, 39)  # src at GM 4 (word 1)
    l0a = sentinel(5 * 512, 40)  # dst at L0A 0
    case = make_case("LoadData2D", "atlas-200i-500-a2", ("GM", "float", 4), ("A2", "float", 0),
                     {"startIndex": 2, "repeatTimes": 2, "srcStride": 0, "sid": 0, "dstGap": 2,
                      "ifTranspose": False, "addrMode": 0},
                     {"GM": gm, "L0A": l0a})
    src, want = words(gm, 4)[1:], words(l0a, 4)
    want[0:128] = src[256:384]
    want[384:512] = src[256:384]
    return case, {"L0A": want.tobytes()}


def nz2nd_float_two_matrices() -> Built:
    """003 表3, semantics §3.4: float {2, 4, 32, 1, 5, 40, 160}, atlas-a2. Column block 1 starts
    16·5 = 80 elements after block 0; matrix 2 starts 256 after matrix 1. Row r of matrix m:
    dst[160m + 40r : +16] = src[256m + 16r : +16],
    dst[160m + 40r + 16 : +16] = src[256m + 80 + 16r : +16]."""
    ub = sentinel(4 * 400 + 64, 41)  # src at UB 0
    gm = sentinel(4 * 8 + 4 * 312 + 64, 42)  # dst at GM 32 (word 8)
    params = {"ndNum": 2, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 5,
              "dstDStride": 40, "dstNdMatrixStride": 160}
    case = make_case("DataCopyNz2Nd", "atlas-a2", ("VECOUT", "float", 0), ("GM", "float", 32),
                     params, {"UB": ub, "GM": gm})
    src, want = words(ub, 4), words(gm, 4)
    dst = want[8:]
    for m in range(2):
        for r in range(4):
            row = 160 * m + 40 * r
            dst[row:row + 16] = src[256 * m + 16 * r:256 * m + 16 * r + 16]
            dst[row + 16:row + 32] = src[256 * m + 80 + 16 * r:256 * m + 80 + 16 * r + 16]
    return case, {"GM": want.tobytes()}


CASES: list[Callable[[], Built]] = [
    c1_to_c2_float_gaps,
    c1_to_c2_half_to_float,
    c1_to_c2pipe2gm_strides,
    count_form_c2_rounds_to_64,
    count_form_fixpipe_rounds_to_128,
    count_form_rounds_to_32,
    slice_co2_to_gm_1d,
    slice_gm_to_vecin_3d,
    load_data_transpose,
    load_data_transpose_training,
    load_data_gm_to_a2_float,
    nz2nd_float_two_matrices,
]


@pytest.mark.parametrize("build", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("expect", [pytest.param(loop_expect, id="oracle"),
                                    pytest.param(reference_expect, id="reference")])
def test_hand_worked_case(expect: Callable[[dict], dict], build: Callable[[], Built]) -> None:
    """Each table entry (docstring of the builder cites the seed and section) holds exactly."""
    case, expected = build()
    assert_memory(expect(case), case, expected)
