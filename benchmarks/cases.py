"""Hand-built legal cases of a chosen size on each API's widest path, for the benchmarks.

The *widest path* of an API is the documented path (product x route x dtype) whose bottleneck memory is the
largest: the smaller of the source and destination capacities (spec/products.yaml; GM counts as the
`gm_window_bytes` window the generators keep to). Among equally wide paths the first in the spec's order wins,
and a 2-byte dtype is preferred so that every API (LoadData2D transpose, NZ2ND) runs the same element size.

`build(api, nbytes)` returns a case (format v1 dict) on that path moving exactly `nbytes` (rounded to the API's
granule), with regions covering the touched bytes plus a GUARD-byte band on both sides (as generated cases
have: a region is never exactly the bytes the call writes) and filled with seeded random bytes;
`largest_bytes(api)` is the most a single legal call can move there without leaving the product's buffers
(or exceeding the API's parameter ranges).
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.layout import GUARD_BYTES

APIS = ("DataCopy", "DataCopySlice", "LoadData2D", "DataCopyNz2Nd")
PREFERRED_DTYPES = ("half", "int16_t", "uint16_t")
_SPEC = load_spec()


@dataclass(frozen=True)
class Widest:
    api: str
    product: str
    src: str
    dst: str
    dtype: str
    size: int              # sizeof(dtype)
    src_memory: str
    dst_memory: str
    src_limit: int         # bytes the source may span (capacity, or the GM window)
    dst_limit: int

    @property
    def label(self) -> str:
        return f"{self.product} {self.src}->{self.dst} {self.dtype}"


@lru_cache(maxsize=None)
def widest(api: str) -> Widest:
    spec = _SPEC
    best, best_key = None, None
    for path in spec.paths(api=api):
        if path.src_dtype != path.dst_dtype:
            continue
        product = spec.product(path.product)
        src_memory, dst_memory = product.memory_of(path.src), product.memory_of(path.dst)
        if src_memory is None or dst_memory is None or src_memory == dst_memory:
            continue

        def limit(memory: str) -> int:
            capacity = product.capacities.get(memory)
            return capacity.bytes if capacity else spec.gm_window_bytes

        width = min(limit(src_memory), limit(dst_memory))
        preferred = path.src_dtype in PREFERRED_DTYPES
        key = (width, preferred)
        if best_key is None or key > best_key:
            size = spec.dtypes[path.src_dtype].size
            best_key = key
            best = Widest(api, path.product, path.src, path.dst, path.src_dtype, size, src_memory, dst_memory,
                          limit(src_memory), limit(dst_memory))
    if best is None:
        raise LookupError(f"no cross-memory path for {api}")
    return best


def _region(nbytes: int, rng: np.random.Generator) -> dict:
    data = rng.integers(0, 256, size=max(nbytes, 1), dtype=np.uint8).tobytes()
    return {"address": 0, "data": base64.b64encode(data).decode("ascii")}


# Bytes kept on both sides of the touched area, as the generators keep them (a multiple of the 32-B local
# alignment the widest paths ask).
GUARD = GUARD_BYTES


def _case(w: Widest, params: dict, src_span: int, dst_span: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"case_format": 1, "api": w.api, "product": w.product,
            "src": {"position": w.src, "dtype": w.dtype, "address": GUARD},
            "dst": {"position": w.dst, "dtype": w.dtype, "address": GUARD},
            "params": params,
            "memory": {w.src_memory: _region(src_span + 2 * GUARD, rng),
                       w.dst_memory: _region(dst_span + 2 * GUARD, rng)}}


# --- per API: the granule of bytes moved, the largest legal move, and the builder ---------------------------

# Units and range limits, read from the spec (never restated here).
DATABLOCK = _SPEC.apis["DataCopy"].default_units.block_bytes          # 32-B DataBlock (000 Table 3)
FRACTAL = _SPEC.apis["LoadData2D"].constant("fractal_bytes")          # 512-B fractal (002 Table 3)
DC_MAX_COUNT = _SPEC.rule("DataCopy-blockCount-max").max
LD_MAX_REPEATS = _SPEC.rule("LoadData2D-repeatTimes-max").max
NZ_MAX_ROWS = _SPEC.rule("DataCopyNz2Nd-nValue-range").max

# DataCopy, DataCopyParams form: bursts of 16 DataBlocks, no gaps; blockCount bursts.
DC_BURST_BLOCKS = 16
DC_BURST = DC_BURST_BLOCKS * DATABLOCK

# LoadData2D: repeatTimes whole fractals, srcStride 1, dstGap 0.

# DataCopySlice, 2 dimensions: each source row holds two slices of L = burstLen DataBlocks with a
# slice-sized hole between them; the UB destination is dense. One row moves 2 slices.
SL_BURST = 8

# DataCopyNz2Nd: one NZ matrix of nValue rows x dValue columns, dense (srcNStride = nValue, dstDStride = dValue).
NZ_D_SMALL = 16


def granule(api: str) -> int:
    w = widest(api)
    return {"DataCopy": DC_BURST, "LoadData2D": FRACTAL, "DataCopySlice": 2 * SL_BURST * DATABLOCK,
            "DataCopyNz2Nd": 16 * w.size}[api]


def largest_bytes(api: str) -> int:
    """The most one legal call of `api` moves on its widest path (guard bands included), in whole granules."""
    w = widest(api)
    g = granule(api)
    src_room, dst_room = w.src_limit - 2 * GUARD, w.dst_limit - 2 * GUARD
    if api == "DataCopy":
        return min(min(src_room, dst_room) // g, DC_MAX_COUNT) * g
    if api == "LoadData2D":
        return min(min(src_room, dst_room) // g, LD_MAX_REPEATS) * g
    if api == "DataCopySlice":
        # the source spans 2 bytes per byte moved (the hole), the destination 1
        rows = min(src_room // (2 * g), dst_room // g)
        return rows * g
    if api == "DataCopyNz2Nd":
        elements = min(src_room, dst_room) // w.size
        n_value = elements // 256   # dValue 256 columns, nValue rows, capped by the nValue range rule
        return min(n_value, NZ_MAX_ROWS) * 256 * w.size
    raise KeyError(api)


def build(api: str, nbytes: int, seed: int = 0) -> dict:
    """A legal case of `api` on its widest path moving `nbytes` (rounded down to whole granules, at least one)."""
    w = widest(api)
    g = granule(api)
    units = max(nbytes // g, 1)
    if api == "DataCopy":
        params = {"blockCount": units, "blockLen": DC_BURST_BLOCKS, "srcGap": 0, "dstGap": 0}
        return _case(w, params, units * g, units * g, seed)
    if api == "LoadData2D":
        params = {"startIndex": 0, "repeatTimes": units, "srcStride": 1, "sid": 0, "dstGap": 0,
                  "ifTranspose": False, "addrMode": 0}
        return _case(w, params, units * g, units * g, seed)
    if api == "DataCopySlice":
        length = SL_BURST * DATABLOCK // w.size
        rows = units
        src_info = [{"startIndex": 0, "endIndex": 3 * length - 1, "stride": length, "burstLen": SL_BURST,
                     "shapeValue": 4 * length},
                    {"startIndex": 0, "endIndex": rows - 1, "stride": 0, "burstLen": 1, "shapeValue": rows + 1}]
        dst_info = [{"startIndex": 0, "endIndex": 2 * length - 1, "stride": 0, "burstLen": SL_BURST,
                     "shapeValue": 2 * length},
                    {"startIndex": 0, "endIndex": rows - 1, "stride": 0, "burstLen": 1, "shapeValue": rows + 1}]
        params = {"dimValue": 2, "srcSliceInfo": src_info, "dstSliceInfo": dst_info}
        # the last source row ends at its second slice: 4L*(rows-1) + 3L elements
        src_span = (4 * length * (rows - 1) + 3 * length) * w.size
        return _case(w, params, src_span, rows * 2 * length * w.size, seed)
    if api == "DataCopyNz2Nd":
        elements = units * 16
        d_value = 256 if elements >= 256 * 16 and elements % 256 == 0 else NZ_D_SMALL
        n_value = elements // d_value
        params = {"ndNum": 1, "nValue": n_value, "dValue": d_value, "srcNdMatrixStride": 1,
                  "srcNStride": n_value, "dstDStride": d_value, "dstNdMatrixStride": 1}
        return _case(w, params, elements * w.size, elements * w.size, seed)
    raise KeyError(api)


def moved_bytes(api: str, case: dict) -> int:
    """Bytes the call of a case built here moves (what `build` was asked for, rounded)."""
    p = case["params"]
    w = widest(api)
    if api == "DataCopy":
        return p["blockCount"] * p["blockLen"] * DATABLOCK
    if api == "LoadData2D":
        return p["repeatTimes"] * FRACTAL
    if api == "DataCopySlice":
        return (p["dstSliceInfo"][1]["endIndex"] + 1) * 2 * SL_BURST * DATABLOCK
    if api == "DataCopyNz2Nd":
        return p["nValue"] * p["dValue"] * w.size * p["ndNum"]
    raise KeyError(api)
