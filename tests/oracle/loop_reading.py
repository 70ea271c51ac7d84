"""Independent reading of semantics.md: a deliberately naive oracle for case format v1.

Every formula of semantics.md §3 (suite default profile) is written out as plain Python loops over
``bytearray``s, one byte or one element at a time. Nothing here is shared with the product
packages (``spec``, ``reference``, ``strategies``, ``conformance``). The case is assumed legal;
anything this reading does not model raises ``ValueError``.
"""
from __future__ import annotations

import base64
import itertools
import struct

# §1 notation: es = sizeof(T) in bytes.
ES: dict[str, int] = {
    "int8_t": 1, "uint8_t": 1,
    "int16_t": 2, "uint16_t": 2, "half": 2, "bfloat16_t": 2,
    "int32_t": 4, "uint32_t": 4, "float": 4,
    "int64_t": 8, "uint64_t": 8, "double": 8,
}

# §2 "TPosition → physical memory" (suite default, D4).
_SHARED_POSITIONS: dict[str, str] = {
    "GM": "GM", "VECIN": "UB", "VECCALC": "UB", "VECOUT": "UB",
    "A1": "L1", "B1": "L1", "TSCM": "L1", "A2": "L0A", "B2": "L0B", "CO1": "L0C",
}
_A2_A3 = {**_SHARED_POSITIONS, "C1": "L1", "C2": "BT", "CO2": "GM", "C2PIPE2GM": "FB"}
_200I_500_A2 = {**_SHARED_POSITIONS, "C1": "L1", "C2": "BT", "CO2": "UB", "C2PIPE2GM": "FB"}
_OLDER = {**_SHARED_POSITIONS, "C1": "UB", "C2": "L0C", "CO2": "UB"}
POSITION_MEMORY: dict[str, dict[str, str]] = {
    "atlas-a3": _A2_A3,
    "atlas-a2": _A2_A3,
    "atlas-200i-500-a2": _200I_500_A2,
    "atlas-inference-aicore": _OLDER,
    "atlas-inference-vectorcore": _OLDER,
    "atlas-training": _OLDER,
}


class Operand:
    """Byte k of a tensor (``x_b[k]`` in §1) is the byte at address ``address + k`` of its memory, held by one of
    the memory's regions (several with the sparse-memory extension: ``GM``, ``GM#1``, ...)."""

    def __init__(self, regions: list[tuple[int, bytearray]], address: int) -> None:
        self.regions = regions
        self.address = address

    def _locate(self, k: int) -> tuple[bytearray, int]:
        at = self.address + k
        for start, buf in self.regions:
            if start <= at < start + len(buf):
                return buf, at - start
        raise ValueError("access outside the case's memory regions")

    def get(self, k: int) -> int:
        buf, i = self._locate(k)
        return buf[i]

    def put(self, k: int, value: int) -> None:
        buf, i = self._locate(k)
        buf[i] = value


def copy_bytes(dst: Operand, dst_byte: int, src: Operand, src_byte: int, n: int) -> None:
    """dst_b[dst_byte + b] = src_b[src_byte + b] for b in [0, n)."""
    for b in range(n):
        dst.put(dst_byte + b, src.get(src_byte + b))


def copy_element(dst: Operand, dst_index: int, src: Operand, src_index: int, es: int) -> None:
    """dst[dst_index] = src[src_index] for elements of es bytes."""
    copy_bytes(dst, dst_index * es, src, src_index * es, es)


def widen_half(dst: Operand, dst_index: int, src: Operand, src_index: int) -> None:
    """dstF32[dst_index] = float32(srcF16[src_index]), IEEE widening, little-endian (§3.1)."""
    half = bytes(src.get(2 * src_index + b) for b in range(2))
    single = struct.pack("<f", struct.unpack("<e", half)[0])
    for b in range(4):
        dst.put(4 * dst_index + b, single[b])


def data_copy(case: dict, dst: Operand, src: Operand) -> None:
    """DataCopy, §3.1: count form (D8 rounding), 32-B routes, C1→C2 (D6, D13), C2PIPE2GM (D7)."""
    params = case["params"]
    src_type, dst_type = case["src"]["dtype"], case["dst"]["dtype"]
    to_c2 = case["dst"]["position"] == "C2"
    to_fb = case["dst"]["position"] == "C2PIPE2GM"
    mixed = to_c2 and (src_type, dst_type) == ("half", "float")
    if src_type != dst_type and not mixed:
        raise ValueError("src and dst dtypes differ outside C1→C2 half→float")
    if "count" in params:
        if mixed:
            raise ValueError("the mixed-type form has no count form")
        unit = 64 if to_c2 else 128 if to_fb else 32
        block_len = params["count"] * ES[src_type] // unit
        if block_len == 0:
            raise ValueError("count·es below the route unit gives blockLen 0 (illegal, D1)")
        block_count, src_gap, dst_gap = 1, 0, 0
    else:
        block_count, block_len = params["blockCount"], params["blockLen"]
        src_gap, dst_gap = params["srcGap"], params["dstGap"]
    for i in range(block_count):
        if mixed:
            for e in range(32 * block_len):
                widen_half(dst, i * (32 * block_len + 16 * dst_gap) + e,
                           src, i * (32 * block_len + 16 * src_gap) + e)
        elif to_c2:
            copy_bytes(dst, 64 * i * (block_len + dst_gap),
                       src, i * (64 * block_len + 32 * src_gap), 64 * block_len)
        elif to_fb:
            copy_bytes(dst, 128 * dst_gap * i, src, 32 * src_gap * i, 128 * block_len)
        else:
            copy_bytes(dst, 32 * i * (block_len + dst_gap),
                       src, 32 * i * (block_len + src_gap), 32 * block_len)


def slice_counts(info: list[dict], es: int) -> list[int]:
    """N_d from end − start + 1 = N_d·L_d + (N_d − 1)·stride_d exactly (§3.2, D15)."""
    counts = []
    for d, dim in enumerate(info):
        length = dim["burstLen"] * 32 // es if d == 0 else 1
        n, rest = divmod(dim["endIndex"] - dim["startIndex"] + 1 + dim["stride"],
                         length + dim["stride"])
        if rest or n < 1:
            raise ValueError(f"dimension {d}: the slice equation has no positive integer N")
        counts.append(n)
    return counts


def slice_address(info: list[dict], es: int, j: tuple[int, ...], s: int, e: int) -> int:
    """addr_x(j, s, e) of §3.2, with pitches P_d = product of shapeValue_k for k < d."""
    length = info[0]["burstLen"] * 32 // es
    address = info[0]["startIndex"] + s * (length + info[0]["stride"]) + e
    pitch = 1
    for d in range(1, len(info)):
        pitch *= info[d - 1]["shapeValue"]
        address += (info[d]["startIndex"] + j[d - 1] * (1 + info[d]["stride"])) * pitch
    return address


def data_copy_slice(case: dict, dst: Operand, src: Operand) -> None:
    """DataCopySlice, §3.2: dst[addr_dst(j, s, e)] = src[addr_src(j, s, e)]."""
    params = case["params"]
    es = ES[case["src"]["dtype"]]
    src_info, dst_info = params["srcSliceInfo"], params["dstSliceInfo"]
    if not len(src_info) == len(dst_info) == params.get("dimValue", 1):
        raise ValueError("SliceInfo arrays must both have dimValue entries")
    if src_info[0]["burstLen"] != dst_info[0]["burstLen"]:
        raise ValueError("src and dst burstLen differ")
    counts = slice_counts(src_info, es)
    if counts != slice_counts(dst_info, es):
        raise ValueError("src and dst slice counts differ (unspecified)")
    length = src_info[0]["burstLen"] * 32 // es
    for j in itertools.product(*(range(n) for n in counts[1:])):
        for s in range(counts[0]):
            for e in range(length):
                copy_element(dst, slice_address(dst_info, es, j, s, e),
                             src, slice_address(src_info, es, j, s, e), es)


def load_data_2d(case: dict, dst: Operand, src: Operand) -> None:
    """LoadData2D, §3.3: sf(i) = startIndex + i·srcStride, df(i) = i·(dstGap + 1).

    On atlas-training df(i) = i (D24); transpose swaps r and c inside a 16×16 fractal.
    """
    params = case["params"]
    es = ES[case["src"]["dtype"]]
    if params["sid"] != 0 or params["addrMode"] != 0:
        raise ValueError("sid and addrMode are reserved (D21, D23)")
    if params["ifTranspose"] and es != 2:
        raise ValueError("transpose is modelled for 16-bit types only")
    fractal = 512 // es
    for i in range(params["repeatTimes"]):
        sf = params["startIndex"] + i * params["srcStride"]
        df = i if case["product"] == "atlas-training" else i * (params["dstGap"] + 1)
        if params["ifTranspose"]:
            for r in range(16):
                for c in range(16):
                    copy_element(dst, df * 256 + 16 * r + c, src, sf * 256 + 16 * c + r, 2)
        else:
            for k in range(fractal):
                copy_element(dst, df * fractal + k, src, sf * fractal + k, es)


def data_copy_nz2nd(case: dict, dst: Operand, src: Operand) -> None:
    """DataCopyNz2Nd, §3.4, for m < ndNum, r < nValue, c < dValue:

    dst[m·dstNdMatrixStride + r·dstDStride + c]
        = src[m·256·srcNdMatrixStride + ⌊c/16⌋·16·srcNStride + 16·r + (c mod 16)]
    """
    p = case["params"]
    es = ES[case["src"]["dtype"]]
    if p["dValue"] % 16:
        raise ValueError("dValue must be a multiple of 16")
    for m in range(p["ndNum"]):
        for r in range(p["nValue"]):
            for c in range(p["dValue"]):
                copy_element(
                    dst, m * p["dstNdMatrixStride"] + r * p["dstDStride"] + c,
                    src, m * 256 * p["srcNdMatrixStride"] + (c // 16) * 16 * p["srcNStride"]
                    + 16 * r + c % 16,
                    es)


APIS = {
    "DataCopy": data_copy,
    "DataCopySlice": data_copy_slice,
    "LoadData2D": load_data_2d,
    "DataCopyNz2Nd": data_copy_nz2nd,
}


def _operand(tensor: dict, product: str, regions: dict[str, tuple[int, bytearray]]) -> Operand:
    """Locate a tensor in the regions of its physical memory (§2 mapping; a region key `GM#2` is GM's)."""
    memory = POSITION_MEMORY[product].get(tensor["position"])
    held = [region for name, region in regions.items() if name.split("#")[0] == memory]
    if not held:
        raise ValueError(f"no region for position {tensor['position']} on {product}")
    return Operand(held, tensor["address"])


def loop_expect(case: dict) -> dict:
    """Return the ok-result of a legal case: every region after the call (untouched bytes kept)."""
    if case.get("case_format") != 1:
        raise ValueError("only case format 1 is modelled")
    if case["product"] not in POSITION_MEMORY or case["api"] not in APIS:
        raise ValueError("unknown product or api")
    regions = {name: (region["address"], bytearray(base64.b64decode(region["data"])))
               for name, region in case["memory"].items()}
    src = _operand(case["src"], case["product"], regions)
    dst = _operand(case["dst"], case["product"], regions)
    APIS[case["api"]](case, dst, src)
    return {
        "status": "ok",
        "memory": {name: {"address": start, "data": base64.b64encode(bytes(buf)).decode("ascii")}
                   for name, (start, buf) in regions.items()},
    }
