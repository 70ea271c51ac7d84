"""The naive peer: what a user would write to model these APIs — a Python loop per element.

One function per API takes a legal case (format v1 dict) and returns the ok-result dict, like
`reference.expect`, but with no legality check, no numpy and no precomputation: decode the regions into
bytearrays, walk the call's loops element by element, copy each element's bytes with a slice assignment,
encode the regions again.
It models the suite's default readings for the paths the benchmarks use (32-B DataBlock units for DataCopy;
C1 -> C2 / C2PIPE2GM units and the half -> float form are left out) and is standalone: it imports nothing
from the project.
"""
from __future__ import annotations

import base64

SIZES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "half": 2, "bfloat16_t": 2,
         "int32_t": 4, "uint32_t": 4, "float": 4, "int64_t": 8, "uint64_t": 8, "double": 8}

# TPosition -> physical memory (the suite's default mapping; C1/C2/CO2 differ by product and are not needed).
MEMORY = {"GM": "GM", "VECIN": "UB", "VECCALC": "UB", "VECOUT": "UB", "A1": "L1", "B1": "L1", "TSCM": "L1",
          "A2": "L0A", "B2": "L0B", "CO1": "L0C"}

DATABLOCK = 32
FRACTAL = 512


def mover(src: bytearray, src_offset: int, dst: bytearray, dst_offset: int, size: int):
    """move(dst_index, src_index): copy one element's bytes (one slice assignment per element)."""
    def move(dst_index: int, src_index: int) -> None:
        start, source = dst_offset + dst_index * size, src_offset + src_index * size
        dst[start:start + size] = src[source:source + size]
    return move


def data_copy(p: dict, move, size: int) -> None:
    if "count" in p:
        block_count, block_len, src_gap, dst_gap = 1, p["count"] * size // DATABLOCK, 0, 0
    else:
        block_count, block_len, src_gap, dst_gap = p["blockCount"], p["blockLen"], p["srcGap"], p["dstGap"]
    per_block = DATABLOCK // size
    for i in range(block_count):
        for e in range(block_len * per_block):
            move(i * (block_len + dst_gap) * per_block + e, i * (block_len + src_gap) * per_block + e)


def load_data_2d(p: dict, move, size: int) -> None:
    fractal = FRACTAL // size
    for i in range(p["repeatTimes"]):
        source = p["startIndex"] + i * p["srcStride"]
        slot = i * (p["dstGap"] + 1)
        if p["ifTranspose"]:
            for r in range(16):
                for c in range(16):
                    move(slot * 256 + 16 * r + c, source * 256 + 16 * c + r)
        else:
            for k in range(fractal):
                move(slot * fractal + k, source * fractal + k)


def data_copy_nz2nd(p: dict, move, size: int) -> None:
    for m in range(p["ndNum"]):
        for r in range(p["nValue"]):
            for c in range(p["dValue"]):
                move(m * p["dstNdMatrixStride"] + r * p["dstDStride"] + c,
                     m * 256 * p["srcNdMatrixStride"] + (c // 16) * 16 * p["srcNStride"] + 16 * r + c % 16)


def _slice_counts(info: list[dict], length: int) -> list[int]:
    counts = []
    for d, dim in enumerate(info):
        unit = length if d == 0 else 1
        counts.append((dim["endIndex"] - dim["startIndex"] + 1 + dim["stride"]) // (unit + dim["stride"]))
    return counts


def _slice_index(info: list[dict], length: int, rows: list[int], s: int, e: int) -> int:
    index = info[0]["startIndex"] + s * (length + info[0]["stride"]) + e
    pitch = 1
    for d in range(1, len(info)):
        pitch *= info[d - 1]["shapeValue"]
        index += (info[d]["startIndex"] + rows[d - 1] * (1 + info[d]["stride"])) * pitch
    return index


def data_copy_slice(p: dict, move, size: int) -> None:
    src_info, dst_info = p["srcSliceInfo"], p["dstSliceInfo"]
    length = src_info[0]["burstLen"] * DATABLOCK // size
    counts = _slice_counts(src_info, length)
    rows = [0] * (len(counts) - 1)
    while True:
        for s in range(counts[0]):
            for e in range(length):
                move(_slice_index(dst_info, length, rows, s, e), _slice_index(src_info, length, rows, s, e))
        # next row: count up the outer dimensions like an odometer
        d = 0
        while d < len(rows):
            rows[d] += 1
            if rows[d] < counts[d + 1]:
                break
            rows[d] = 0
            d += 1
        if d == len(rows):
            return


APIS = {"DataCopy": data_copy, "LoadData2D": load_data_2d, "DataCopyNz2Nd": data_copy_nz2nd,
        "DataCopySlice": data_copy_slice}


def decode(case: dict) -> dict[str, tuple[int, bytearray]]:
    """The case's regions as (start address, bytearray)."""
    return {name: (region["address"], bytearray(base64.b64decode(region["data"])))
            for name, region in case["memory"].items()}


def run(case: dict, regions: dict[str, tuple[int, bytearray]]) -> None:
    """Carry out the call on decoded regions, in place."""
    src_base, src_buf = regions[MEMORY[case["src"]["position"]]]
    dst_base, dst_buf = regions[MEMORY[case["dst"]["position"]]]
    size = SIZES[case["src"]["dtype"]]
    move = mover(src_buf, case["src"]["address"] - src_base, dst_buf, case["dst"]["address"] - dst_base, size)
    APIS[case["api"]](case["params"], move, size)


def expect(case: dict) -> dict:
    """The ok-result of a legal case: every region after the call."""
    regions = decode(case)
    run(case, regions)
    return {"status": "ok",
            "memory": {name: {"address": base, "data": base64.b64encode(bytes(buf)).decode("ascii")}
                       for name, (base, buf) in regions.items()}}
