"""Legal slice parameters (001; semantics.md 3.2): N-dimensional slices that fit both operands.

Both operands share the slice counts N_d and the slice length; each has its own starts, strides and
shapes. UB-side starts, dim-0 strides and row pitches stay in whole DataBlocks (unspecified otherwise).
The outermost shapeValue does not move any byte, so it is drawn over the whole uint32_t range.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance.spec.model import Rule
from ascendc_conformance.strategies.api_contract import FaultPlan, FaultPlanner, never_generated
from ascendc_conformance.strategies.cases import settle
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


def smallest_params(ctx: PathContext, pinned: Mapping[str, int]) -> None:
    return None   # slices are drawn without a Problem (see reachable: every legal dimValue is reachable)


# --- faults: each edit breaks one relation of the slice infos, then the draft is re-sized for it -------

TRIVIAL_DIMENSION = {"startIndex": 0, "endIndex": 0, "stride": 0, "burstLen": 1, "shapeValue": 1}


def _edited(mutate: Callable[..., None], dims: int = 1) -> FaultPlanner:
    """A planner drawing every context (with `dims` dimensions pinned when more than one) and applying `mutate`."""
    def edit(draw, d) -> None:
        mutate(draw, d)
        settle(draw, d)

    def plan(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
        return [FaultPlan(rule.check, tuple(contexts), edit, pinned=(("dimValue", dims),) if dims > 1 else ())]
    return plan


def _info_count(draw, d) -> None:
    extra = draw(st.sampled_from([-1, 1]), label="entries added")
    for _, key in OPERANDS:
        infos = d.params[key]
        d.params[key] = infos[:-1] if extra < 0 else infos + [dict(TRIVIAL_DIMENSION)]


def _sliceinfo_ctype(draw, d) -> None:
    key = draw(st.sampled_from([k for _, k in OPERANDS]), label="operand")
    high = d.ctx.spec.ctypes[d.ctx.api.structs["SliceInfo"]["shapeValue"].ctype][1]
    d.params[key][-1]["shapeValue"] = high + 1


def _burstlen_equal(draw, d) -> None:
    info = d.params["dstSliceInfo"][0]
    count = _slice_count(d.ctx, info)
    granule = d.ctx.api.constant("datablock_bytes") // d.ctx.src_dtype.size
    info["burstLen"] += 1
    info["endIndex"] = info["startIndex"] + count * info["burstLen"] * granule + (count - 1) * info["stride"] - 1
    info["shapeValue"] = max(info["shapeValue"], -(-(info["endIndex"] + 1) // granule) * granule)


def _slice_count(ctx: PathContext, info: dict) -> int:
    length = info["burstLen"] * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    return (info["endIndex"] - info["startIndex"] + 1 + info["stride"]) // (length + info["stride"])


def _burstlen_outer(draw, d) -> None:
    for _, key in OPERANDS:
        d.params[key][1]["burstLen"] = 2


def _index_order(draw, d) -> None:
    """startIndex one past endIndex in one dimension of both operands: no slice there on either side, so a
    target that lacks the check sees equal (zero) slice counts and moves nothing."""
    dim = draw(st.integers(0, d.params["dimValue"] - 1), label="dimension")
    for _, key in OPERANDS:
        info = d.params[key][dim]
        info["startIndex"] = info["endIndex"] + 1


def _end_in_shape(draw, d) -> None:
    """A shape one short of endIndex, in a dimension whose shape sets no UB row pitch (the outermost one, or
    any of a GM source): moving UB slices off their 32-B blocks, or GM destination rows onto each other, would
    be unspecified, not this fault."""
    dims = d.params["dimValue"]
    choices = [(key, dim) for operand, key in OPERANDS for dim in range(dims)
               if d.params[key][dim]["endIndex"] >= 1 and (dim == dims - 1 or d.ctx.position(operand) == "GM"
                                                          and operand == "src")]
    if not choices:
        reject()
    key, dim = draw(st.sampled_from(choices), label="operand and dimension")
    info = d.params[key][dim]
    info["shapeValue"] = info["endIndex"] - 1


def _slice_count_break(draw, d) -> None:
    """One element short of a whole slice in dimension 0 of both operands: no N fits exactly, and a target
    that floors N (as the vendor does) still sees equal slice counts (a mismatch would be unspecified)."""
    for _, key in OPERANDS:
        d.params[key][0]["endIndex"] -= 1


RELATION_FAULTS: Mapping[str, FaultPlanner] = {
    "info_count": _edited(_info_count),
    "sliceinfo_ctype": _edited(_sliceinfo_ctype),
    "burstlen_equal": _edited(_burstlen_equal),
    "burstlen_outer": _edited(_burstlen_outer, dims=2),
    "index_order": _edited(_index_order),
    "end_in_shape": _edited(_end_in_shape),
    "slice_count": _edited(_slice_count_break),
    "end_at_shape": never_generated,
    "count_match": never_generated,
    "ub_slice_align": never_generated,
}


def semantic_faults(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    return []   # slices have no semantics rule
