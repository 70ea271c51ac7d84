"""Legal slice parameters (001; semantics.md 3.2): N-dimensional slices that fit both operands.

Both operands share the slice counts N_d and the slice length; each has its own starts, strides and
shapes. UB-side starts, dim-0 strides and row pitches stay in whole DataBlocks (unspecified otherwise).
The outermost shapeValue does not move any byte, so it is drawn over the whole uint32_t range.
"""
from __future__ import annotations

from typing import Mapping

from hypothesis import strategies as st

from ascendc_conformance.strategies.context import PathContext, Unreachable
from ascendc_conformance.strategies.draw import SMALL_CASE_BYTES, WIDE_CASE, biased_integers
from ascendc_conformance.strategies.layout import Extents

OPERANDS = (("src", "srcSliceInfo"), ("dst", "dstSliceInfo"))


def extents(ctx: PathContext, params: Mapping) -> Extents:
    """First and last element touched by each operand, in bytes from its start."""
    spans = {}
    for operand, key in OPERANDS:
        infos = params[key]
        pitch, first, last = 1, 0, 0
        for info in infos:
            first += info["startIndex"] * pitch
            last += info["endIndex"] * pitch
            pitch *= info["shapeValue"]
        size = ctx.dtype(operand).size
        spans[operand] = (first * size, (last + 1) * size)
    return Extents(spans["src"], spans["dst"])


def _granule(ctx: PathContext, operand: str) -> int:
    """Elements per DataBlock on the UB side; any element on the GM side."""
    if ctx.position(operand) == "GM":
        return 1
    return ctx.api.constant("datablock_bytes") // ctx.dtype(operand).size


def _budget(ctx: PathContext, operand: str) -> int:
    return (ctx.span_limit(ctx.memory(operand)) - ctx.alignment(operand)) // ctx.dtype(operand).size


def _draw_counts(draw, ctx: PathContext, dims: int, budget: int) -> tuple[int, list[int]]:
    """burstLen and the slice count per dimension such that the tightest layout fits `budget` elements."""
    granule = ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    burst_low, burst_high = ctx.spec.ctypes[ctx.api.structs["SliceInfo"]["burstLen"].ctype]
    burst_high = min(burst_high, budget // granule)
    if burst_high < max(burst_low, 1):
        raise Unreachable("not even one DataBlock fits")
    burst_len = draw(biased_integers(max(burst_low, 1), burst_high), label="burstLen")
    used, counts = burst_len * granule, []
    for d in range(dims):
        count = draw(biased_integers(1, budget // used), label=f"N[{d}]")
        counts.append(count)
        used *= count
    return burst_len, counts


def _draw_layout(draw, ctx: PathContext, operand: str, burst_len: int, counts: list[int], budget: int) -> list[dict]:
    """startIndex / endIndex / stride / shapeValue per dimension for one operand, inner to outer, within
    `budget` elements."""
    granule = _granule(ctx, operand)
    length0 = burst_len * ctx.api.constant("datablock_bytes") // ctx.dtype(operand).size
    uint_max = ctx.spec.ctypes[ctx.api.structs["SliceInfo"]["shapeValue"].ctype][1]
    infos, pitch = [], 1
    for d, count in enumerate(counts):
        step = granule if d == 0 else 1
        length = length0 if d == 0 else 1
        outer_min = 1
        for outer in counts[d + 1:]:
            outer_min *= outer
        room = budget // pitch // outer_min           # elements this dimension may span (shape cap)
        tight = count * length
        if tight > room:
            raise Unreachable(f"dimension {d} of {operand} does not fit")
        gaps = count - 1
        stride = step * draw(biased_integers(0, (room - tight) // step // gaps if gaps else 0), label=f"{operand} stride[{d}]")
        span = tight + gaps * stride
        start = step * draw(biased_integers(0, (room - span) // step), label=f"{operand} start[{d}]")
        end = start + span - 1
        if d == len(counts) - 1:
            shape = draw(st.one_of(biased_integers(end + 1, end + 1 + step * 4), st.integers(end + 1, uint_max)),
                         label=f"{operand} shape[{d}]")
        else:
            base = -(-(end + 1) // step) * step
            shape = base + step * draw(biased_integers(0, (room - base) // step), label=f"{operand} shape[{d}]")
        infos.append({"startIndex": start, "endIndex": end, "stride": stride, "burstLen": burst_len if d == 0 else 1,
                      "shapeValue": shape})
        pitch *= shape
    return infos


footprint = extents   # the bytes any call with these params touches, legal or not


def reachable(ctx: PathContext, pinned: Mapping[str, int]) -> bool:
    """Only dimValue is ever pinned; one-row outer dimensions make every legal dimValue reachable, and a
    relaxed (faulty) dimValue of 0 is a call without dimensions."""
    low, high = ctx.field_range("dimValue")
    low = max(low, 0 if "dimValue" in ctx.relaxed else 1)
    return all(name == "dimValue" and low <= value <= high for name, value in pinned.items())


def draw_params(draw, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict, Extents]:
    low, high = ctx.field_range("dimValue")
    dims = pinned["dimValue"] if "dimValue" in pinned else draw(biased_integers(max(low, 1), high), label="dimValue")
    budgets = {operand: _budget(ctx, operand) for operand, _ in OPERANDS}
    if not draw(WIDE_CASE):   # the slice counts multiply over up to 8 dimensions: cap a small case's size
        budgets = {operand: min(budget, SMALL_CASE_BYTES // ctx.dtype(operand).size) for operand, budget in budgets.items()}
    burst_len, counts = _draw_counts(draw, ctx, dims, min(budgets.values()))
    params = {"dimValue": dims,
              "dstSliceInfo": _draw_layout(draw, ctx, "dst", burst_len, counts, budgets["dst"]),
              "srcSliceInfo": _draw_layout(draw, ctx, "src", burst_len, counts, budgets["src"])}
    return params, extents(ctx, params)


TRIVIAL_DIMENSION = {"startIndex": 0, "endIndex": 0, "stride": 0, "burstLen": 1, "shapeValue": 1}
