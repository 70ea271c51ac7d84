"""The reference's answers under the alternative readings, worked out by hand from spec/disputes.yaml and
the seed tables: each test states where the bytes of one call go under the default and under the alternative,
so a reading the reference computed wrongly (or not at all) fails here."""
from __future__ import annotations

import numpy as np

from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import expect_json, make_case, region_bytes, sentinel

SPEC = load_spec()
L1, DST = sentinel(2048, 21), sentinel(2048, 22)


def under(case: dict, *words: str) -> dict:
    return expect_json(case, reading=SPEC.reading(words))


def moved(dst: bytes, src: bytes, *pieces: tuple[int, int, int]) -> bytes:
    """`dst` with src[s:s+n] copied to d for each (d, s, n)."""
    out = bytearray(dst)
    for d, s, n in pieces:
        out[d:d + n] = src[s:s + n]
    return bytes(out)


def test_d13_destination_bytes_moves_half_as_many_elements() -> None:
    halves = np.arange(1, 65, dtype="<f2")
    case = make_case("DataCopy", "atlas-a2", ("C1", "half", 0), ("C2", "float", 0),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"L1": halves.tobytes(), "BT": DST[:256]})
    as_float = halves.astype("<f4").tobytes()
    assert region_bytes(under(case), "BT") == as_float[:128] + DST[128:256]          # 64 B of half: 32 floats
    assert region_bytes(under(case, "D13=destination-bytes"), "BT") == as_float[:64] + DST[64:256]   # 16 floats


def test_d7_dstgap_in_32_byte_units() -> None:
    case = make_case("DataCopy", "atlas-a2", ("A1", "uint64_t", 0), ("C2PIPE2GM", "uint64_t", 0),
                     {"blockCount": 2, "blockLen": 1, "srcGap": 4, "dstGap": 4}, {"L1": L1[:256], "FB": DST[:1024]})
    assert region_bytes(under(case), "FB") == moved(DST[:1024], L1, (0, 0, 128), (512, 128, 128))
    assert region_bytes(under(case, "D7=dstgap-32"), "FB") == moved(DST[:1024], L1, (0, 0, 128), (128, 128, 128))


def test_d6_start_to_start_gaps() -> None:
    case = make_case("DataCopy", "atlas-a2", ("C1", "int32_t", 0), ("C2", "int32_t", 0),
                     {"blockCount": 2, "blockLen": 1, "srcGap": 2, "dstGap": 3}, {"L1": L1[:512], "BT": DST[:512]})
    # end to start: source bursts 64 + 2*32 = 128 B apart, destination 64 + 3*64 = 256 B apart
    assert region_bytes(under(case), "BT") == moved(DST[:512], L1, (0, 0, 64), (256, 128, 64))
    # start to start: 2*32 = 64 B and 3*64 = 192 B
    assert region_bytes(under(case, "D6=start-to-start"), "BT") == moved(DST[:512], L1, (0, 0, 64), (192, 64, 64))


def test_d8_count_rounded_to_32_bytes() -> None:
    case = make_case("DataCopy", "atlas-a2", ("C1", "float", 0), ("C2", "float", 0), {"count": 24},
                     {"L1": L1[:256], "BT": DST[:256]})
    assert region_bytes(under(case), "BT") == moved(DST[:256], L1, (0, 0, 64))             # 96 B -> 64 B
    assert region_bytes(under(case, "D8=round-32"), "BT") == moved(DST[:256], L1, (0, 0, 96))


def test_d21_devkit_decrements_the_source_fractal() -> None:
    case = make_case("LoadData2D", "atlas-a2", ("GM", "half", 0), ("A1", "half", 0),
                     {"startIndex": 1, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 0,
                      "ifTranspose": False, "addrMode": 1}, {"GM": L1[:1024], "L1": DST[:1024]})
    assert under(case)["rules"] == ["LoadData2D-addrMode-zero"]
    assert region_bytes(under(case, "D21=devkit"), "L1") == moved(DST[:1024], L1, (0, 512, 512), (512, 0, 512))
    transposing_route = {**case, "src": {**case["src"], "position": "A1"}, "dst": {**case["dst"], "position": "A2"},
                         "memory": {"L1": case["memory"]["GM"], "L0A": case["memory"]["L1"]}}
    assert under(transposing_route, "D21=devkit")["status"] == "rejected"   # devkit: GM -> A1/B1 only


def test_d24_must_be_zero_and_d1_devkit_only_on_a2_a3() -> None:
    gap = make_case("LoadData2D", "atlas-training", ("A1", "half", 0), ("A2", "half", 0),
                    {"startIndex": 0, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 1,
                     "ifTranspose": False, "addrMode": 0}, {"L1": L1[:1024], "L0A": DST[:2048]})
    assert under(gap)["status"] == "ok"
    assert under(gap, "D24=must-be-zero")["rules"] == ["LoadData2D-dstGap-training-D24"]
    for product, status in (("atlas-a2", "ok"), ("atlas-inference-aicore", "rejected")):
        zero = make_case("DataCopy", product, ("GM", "half", 0), ("VECIN", "half", 0),
                         {"blockCount": 0, "blockLen": 1, "srcGap": 0, "dstGap": 0}, {"GM": L1[:64], "UB": DST[:64]})
        result = under(zero, "devkit")
        assert result["status"] == status and result["depends_on"] == ["DataCopy-blockCount-min"]
        if status == "ok":
            assert region_bytes(result, "UB") == DST[:64]   # a no-op


def test_d28_vendor_constant_fixpipe_buffer() -> None:
    case = make_case("DataCopy", "atlas-a2", ("A1", "uint64_t", 0), ("C2PIPE2GM", "uint64_t", 2048),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"L1": L1[:128], "FB": (2048, DST[:128])})
    assert under(case)["status"] == "ok" and under(case)["depends_on"] == ["Memory-capacity-D28"]
    alternative = under(case, "D28=vendor-constant")
    assert alternative["rules"] == ["Memory-capacity"] and alternative["depends_on"] == ["Memory-capacity-D28"]
