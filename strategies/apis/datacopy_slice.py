"""Legal slice parameters (001; semantics.md 3.2): N-dimensional slices that fit both operands.

Both operands share the slice counts N_d and the slice length; each has its own starts, strides and
shapes. UB-side starts, dim-0 strides and row pitches stay in whole DataBlocks (unspecified otherwise).
The outermost shapeValue does not move any byte, so it is drawn over the whole uint32_t range. In a sparse case
(GM in several regions) one case in four draws few slices far apart in GM: starts, strides and shapes of the GM
operand over the bit bands of uint32_t, each slice in a region of its own (cheap: only their bytes move).

Pinned values (boundaries, strategies.bit_reach) name dimValue, a SliceInfo member of dimension 0 of one operand
(`srcSliceInfo.stride`; a burstLen is both operands'), or a slice count: N0 (slices per row) or rows (in every
outer dimension).
"""
from __future__ import annotations

import copy
from functools import partial
from typing import Any, Callable, Mapping, Sequence

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance.spec.model import Rule
from ascendc_conformance.strategies.api_contract import (Draft, FaultPlan, FaultPlanner, FieldEffect, TwinPlanner,
                                                         never_generated, no_twin)
from ascendc_conformance.strategies.cases import settle
from ascendc_conformance.strategies.context import PathContext, Unreachable
from ascendc_conformance.strategies.draw import SMALL_CASE_BYTES, WIDE_CASE, biased
from ascendc_conformance.strategies.layout import MAX_REGIONS, Extents, Pattern, fits

OPERANDS = (("src", "srcSliceInfo"), ("dst", "dstSliceInfo"))


def extents(ctx: PathContext, params: Mapping[str, Any]) -> Extents:
    """First and last element touched by each operand, in bytes from its start, and the touched slices as a
    Pattern (where the slices are whole)."""
    spans, patterns = {}, {}
    length = _length(ctx, params)
    for operand, key in OPERANDS:
        infos = params[key]
        size = ctx.dtype(operand).size
        pitch, first, last, axes = 1, 0, 0, []
        for d, info in enumerate(infos):
            first += info["startIndex"] * pitch
            last += info["endIndex"] * pitch
            step = (length if d == 0 else 1) + info["stride"]
            count = (info["endIndex"] - info["startIndex"] + 1 + info["stride"]) // step if step > 0 else 0
            axes.append((count, step * pitch * size))
            pitch *= info["shapeValue"]
        spans[operand] = (first * size, (last + 1) * size)
        whole = infos and length > 0 and all(count >= 1 and stride >= 0 for count, stride in axes)
        patterns[operand] = Pattern(first * size, length * size, tuple(axes)) if whole else None
    return Extents(spans["src"], spans["dst"], src_pattern=patterns["src"], dst_pattern=patterns["dst"])


def _length(ctx: PathContext, params: Mapping[str, Any]) -> int:
    """L_0, the slice length in elements: burstLen DataBlocks of the source dtype (0 without dimensions)."""
    infos = params[OPERANDS[0][1]]
    return infos[0]["burstLen"] * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size if infos else 0


def _granule(ctx: PathContext, operand: str) -> int:
    """Elements per DataBlock on the UB side; any element on the GM side."""
    if ctx.position(operand) == "GM":
        return 1
    return ctx.api.constant("datablock_bytes") // ctx.dtype(operand).size


def _budget(ctx: PathContext, operand: str) -> int:
    return (ctx.span_limit(ctx.memory(operand)) - ctx.alignment(operand)) // ctx.dtype(operand).size


FAR_SLICES = MAX_REGIONS - 1   # slices a far case may hold in all (each may need a GM region; one for the start)
FAR_ODDS = 4                   # one sparse case in FAR_ODDS has its GM slices far apart (they cost only their bytes)
FAR_COUNT = 2                  # slices per dimension of a far case: two, far apart
FAR_MEMBERS = (None, "stride", "startIndex", "shapeValue")   # which member of a far dimension goes farthest


def _draw_counts(draw: st.DrawFn, ctx: PathContext, dims: int, budget: int, most: int | None = None,
                 rows: int | None = None) -> tuple[int, list[int]]:
    """burstLen and the slice count per dimension such that the tightest layout fits `budget` elements (`rows`
    pinned in every outer dimension); with `most`, the slices of a far case: two per dimension, `most` in all."""
    granule = ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    burst_low, burst_high = ctx.spec.ctype_range(ctx.api.structs["SliceInfo"]["burstLen"])
    burst_high = min(burst_high, budget // granule)
    if burst_high < max(burst_low, 1):
        raise Unreachable("not even one DataBlock fits")
    burst_len = biased(draw, max(burst_low, 1), burst_high, "burstLen")
    used, slices, counts = burst_len * granule, 1, []
    for d in range(dims):
        if d and rows is not None:
            count = rows
        elif most is not None:   # far apart: two slices per dimension while they are few
            count = min(FAR_COUNT, budget // used, max(most // slices, 1))
        else:
            count = biased(draw, 1, budget // used, f"N[{d}]")
        counts.append(count)
        used, slices = used * count, slices * count
    if used > budget:
        raise Unreachable(f"{rows} rows in every outer dimension do not fit")
    return burst_len, counts


def _draw_layout(draw: st.DrawFn, ctx: PathContext, operand: str, burst_len: int, counts: list[int], budget: int) -> list[dict[str, Any]]:
    """startIndex / endIndex / stride / shapeValue per dimension for one operand, inner to outer, within
    `budget` elements."""
    granule = _granule(ctx, operand)
    length0 = burst_len * ctx.api.constant("datablock_bytes") // ctx.dtype(operand).size
    uint_max = ctx.spec.ctype_range(ctx.api.structs["SliceInfo"]["shapeValue"])[1]
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
        stride = step * biased(draw, 0, (room - tight) // step // gaps if gaps else 0, f"{operand} stride[{d}]")
        span = tight + gaps * stride
        start = step * biased(draw, 0, (room - span) // step, f"{operand} start[{d}]")
        end = start + span - 1
        if d == len(counts) - 1:
            anything = draw(st.booleans(), label=f"{operand} shape[{d}] anywhere in uint32_t")
            shape = (draw(st.integers(end + 1, uint_max), label=f"{operand} shape[{d}]") if anything
                     else biased(draw, end + 1, end + 1 + step * 4, f"{operand} shape[{d}]"))
        else:
            base = -(-(end + 1) // step) * step
            shape = base + step * biased(draw, 0, (room - base) // step, f"{operand} shape[{d}]")
        infos.append({"startIndex": start, "endIndex": end, "stride": stride, "burstLen": burst_len if d == 0 else 1,
                      "shapeValue": shape})
        pitch *= shape
    return infos


def _draw_far_layout(draw: st.DrawFn, ctx: PathContext, operand: str, burst_len: int, counts: list[int]) -> list[dict[str, Any]]:
    """startIndex / endIndex / stride / shapeValue per dimension for a GM operand whose few slices may lie far
    apart (a sparse case: each in a region of its own): values over the bit bands of uint32_t, as far as
    endIndex stays within it and every address within the 64-bit GM."""
    size = ctx.dtype(operand).size
    length0 = burst_len * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    uint_max = ctx.spec.ctype_range(ctx.api.structs["SliceInfo"]["shapeValue"])[1]
    room = ctx.limit("GM") // (4 * len(counts) * size)   # elements each dimension may reach, pitch included
    infos, pitch = [], 1
    for d, count in enumerate(counts):
        length = length0 if d == 0 else 1
        top = min(uint_max - 1, room // pitch)      # the last index this dimension may reach (< its shape)
        if count * length > top + 1:
            raise Unreachable(f"dimension {d} of {operand} does not fit")
        gaps = count - 1
        widest = (top + 1 - count * length) // gaps if gaps else 0
        # one member of the dimension as far as it goes (every high bit set), the others drawn: a shape far
        # past a short slice row is what a dropped top bit of the shape shows on
        farthest = FAR_MEMBERS[draw(st.integers(0, len(FAR_MEMBERS) - 1), label=f"{operand} farthest member [{d}]")]
        half = (top + 1) // 2   # a far shape past a row in the low half, where the dimension has room for one
        reach = half if farthest == "shapeValue" and half >= count * length else top + 1
        widest = min(widest, (reach - count * length) // gaps) if gaps else 0
        stride = widest if farthest == "stride" else biased(draw, 0, widest, f"{operand} stride[{d}]", wide=True)
        span = count * length + gaps * stride
        start = top + 1 - span if farthest == "startIndex" else biased(draw, 0, reach - span, f"{operand} start[{d}]", wide=True)
        end = start + span - 1
        shape = top if farthest == "shapeValue" and top > end else \
            biased(draw, end + 1, max(end + 1, min(uint_max, top)), f"{operand} shape[{d}]", wide=True)
        infos.append({"startIndex": start, "endIndex": end, "stride": stride, "burstLen": burst_len if d == 0 else 1,
                      "shapeValue": shape})
        pitch *= shape
    return infos


footprint = extents   # the bytes any call with these params touches, legal or not


def reachable(ctx: PathContext, pinned: Mapping[str, int]) -> bool:
    """dimValue alone: one-row outer dimensions make every legal dimValue reachable (a relaxed, faulty
    dimValue of 0 is a call without dimensions). Other pins: their smallest call fits."""
    low, high = ctx.field_range("dimValue")
    low = max(low, 0 if "dimValue" in ctx.relaxed else 1)
    if not low <= pinned.get("dimValue", 1) <= high:
        return False
    if set(pinned) <= {"dimValue"}:
        return True
    params = smallest_params(ctx, pinned)
    uint_max = ctx.spec.ctype_range(ctx.api.structs["SliceInfo"]["shapeValue"])[1]
    return (params is not None and all(info["shapeValue"] <= uint_max for _, key in OPERANDS for info in params[key])
            and fits(ctx, extents(ctx, params)))


def draw_params(draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict[str, Any], Extents]:
    """Drawn slices with dimValue and rows as pinned; pins of dimension-0 members or of N0 give the smallest
    slices with them (smallest_params)."""
    if set(pinned) - {"dimValue", "rows"}:
        params = smallest_params(ctx, pinned)
        if params is None:
            raise Unreachable(f"{dict(pinned)} cannot be met")
        return params, extents(ctx, params)
    low, high = ctx.field_range("dimValue")
    dims = pinned["dimValue"] if "dimValue" in pinned else biased(draw, max(low, 1), high, "dimValue")
    budgets = {operand: _budget(ctx, operand) for operand, _ in OPERANDS}
    wide = draw(WIDE_CASE)
    if not wide:   # the slice counts multiply over up to 8 dimensions: cap a small case's size
        budgets = {operand: min(budget, SMALL_CASE_BYTES // ctx.dtype(operand).size) for operand, budget in budgets.items()}
    far = {op for op, _ in OPERANDS if ctx.sparse and ctx.memory(op) == "GM"}
    far = far if far and draw(st.integers(0, FAR_ODDS - 1), label="slices far apart in GM") == FAR_ODDS - 1 else set()
    burst_len, counts = _draw_counts(draw, ctx, dims, min(budgets.values()), FAR_SLICES if far else None,
                                     pinned.get("rows"))
    params = {"dimValue": dims}
    for operand, key in reversed(OPERANDS):   # dst first, as ever: a seed keeps drawing the same cases
        params[key] = (_draw_far_layout(draw, ctx, operand, burst_len, counts) if operand in far
                       else _draw_layout(draw, ctx, operand, burst_len, counts, budgets[operand]))
    return params, extents(ctx, params)


def smallest_params(ctx: PathContext, pinned: Mapping[str, int]) -> dict[str, Any] | None:
    """The smallest slices with the pinned values (see the module's docstring), memories disregarded: one
    slice of one DataBlock per dimension unless a count is pinned, each operand's dimension 0 as pinned, the
    rest at index 0 (a value past uint32_t included: `reachable` refuses it); None when the pins contradict each
    other or a UB operand's DataBlock alignment."""
    dims = pinned.get("dimValue", 1)
    bursts = {pinned[f"{key}.burstLen"] for _, key in OPERANDS if f"{key}.burstLen" in pinned} or {1}
    if len(bursts) > 1:
        return None
    burst_len = bursts.pop()
    length0 = burst_len * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    counts = [pinned.get("N0", 1)] + [pinned.get("rows", 1)] * (dims - 1)
    params: dict[str, Any] = {"dimValue": dims}
    for operand, key in reversed(OPERANDS):
        step = _granule(ctx, operand)
        infos = []
        for d, count in enumerate(counts):
            own = {member: pinned[f"{key}.{member}"] for member in ("startIndex", "endIndex", "stride", "shapeValue")
                   if d == 0 and f"{key}.{member}" in pinned}
            stride = own.get("stride", 0)
            span = count * (length0 if d == 0 else 1) + (count - 1) * stride
            start = own["endIndex"] - span + 1 if "endIndex" in own else own.get("startIndex", 0)
            end = start + span - 1
            shape = own.get("shapeValue", -(-(end + 1) // step) * step if d == 0 else end + 1)
            aligned = d or all(value % step == 0 for value in (start, stride, shape if dims > 1 else 0))
            if start < 0 or shape <= end or not aligned:
                return None
            infos.append({"startIndex": start, "endIndex": end, "stride": stride,
                          "burstLen": burst_len if d == 0 else 1, "shapeValue": shape})
        params[key] = infos
    return params


def field_effect(ctx: PathContext, field: str) -> FieldEffect | None:
    """dimValue needs outer rows (what it drops); a stride two slices; a shapeValue an outer dimension with two
    rows; startIndex, endIndex and burstLen always move something (an endIndex is at least one slice long)."""
    if field == "dimValue":
        return FieldEffect({"rows": 2}, ctx.field_range("dimValue")[0])
    key, _, member = field.partition(".")
    if key not in dict(OPERANDS).values():
        return None
    slice_length = _slice_length(ctx)
    return {"startIndex": FieldEffect(), "endIndex": FieldEffect(floor=slice_length - 1),
            "stride": FieldEffect({"N0": 2}), "burstLen": FieldEffect(floor=1),
            "shapeValue": FieldEffect({"dimValue": 2, "rows": 2}, slice_length)}.get(member)


def crossing_pins(ctx: PathContext, quantity: str, width: int) -> list[Mapping[str, int]]:
    """The operand's first slice 2^width bytes past its start (startIndex), or a second slice that far
    (stride, two slices): each value within uint32_t, so only where sizeof(T) takes it far enough."""
    operand = quantity.partition("-")[0]
    key = dict(OPERANDS)[operand]
    elements = -(-(1 << width) // ctx.dtype(operand).size)
    return [{f"{key}.startIndex": elements}, {f"{key}.stride": max(elements - _slice_length(ctx), 0), "N0": 2}]


def _slice_length(ctx: PathContext) -> int:
    """Elements of the shortest slice: one DataBlock."""
    return ctx.api.constant("datablock_bytes") // ctx.src_dtype.size


# --- faults: each edit breaks one relation of the slice infos, then the draft is re-sized for it -------

TRIVIAL_DIMENSION = {"startIndex": 0, "endIndex": 0, "stride": 0, "burstLen": 1, "shapeValue": 1}


def _edited(mutate: Callable[..., None], dims: int = 1) -> FaultPlanner:
    """A planner drawing every context (with `dims` dimensions pinned when more than one) and applying `mutate`."""
    def plan(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
        return [FaultPlan(rule.relation, tuple(contexts), partial(_mutated, mutate),
                          pinned=(("dimValue", dims),) if dims > 1 else ())]
    return plan


def _mutated(mutate: Callable[..., None], draw: st.DrawFn, d: Draft) -> None:
    """A slice-info fault's edit (picklable, as strategies.faults' are): `mutate`, then the draft re-sized."""
    mutate(draw, d)
    settle(draw, d)


def _info_count(draw: st.DrawFn, d: Draft) -> None:
    extra = draw(st.sampled_from([-1, 1]), label="entries added")
    for _, key in OPERANDS:
        infos = d.params[key]
        d.params[key] = infos[:-1] if extra < 0 else infos + [dict(TRIVIAL_DIMENSION)]


def _sliceinfo_ctype(draw: st.DrawFn, d: Draft) -> None:
    key = draw(st.sampled_from([k for _, k in OPERANDS]), label="operand")
    high = d.ctx.spec.ctype_range(d.ctx.api.structs["SliceInfo"]["shapeValue"])[1]
    d.params[key][-1]["shapeValue"] = high + 1


def _burstlen_equal(draw: st.DrawFn, d: Draft) -> None:
    info = d.params["dstSliceInfo"][0]
    count = _slice_count(d.ctx, info)
    granule = d.ctx.api.constant("datablock_bytes") // d.ctx.src_dtype.size
    info["burstLen"] += 1
    info["endIndex"] = info["startIndex"] + count * info["burstLen"] * granule + (count - 1) * info["stride"] - 1
    info["shapeValue"] = max(info["shapeValue"], -(-(info["endIndex"] + 1) // granule) * granule)


def _slice_count(ctx: PathContext, info: dict[str, Any]) -> int:
    length = info["burstLen"] * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    return (info["endIndex"] - info["startIndex"] + 1 + info["stride"]) // (length + info["stride"])


def _burstlen_outer(draw: st.DrawFn, d: Draft) -> None:
    for _, key in OPERANDS:
        d.params[key][1]["burstLen"] = 2


def _index_order(draw: st.DrawFn, d: Draft) -> None:
    """startIndex one past endIndex in one dimension of both operands: no slice there on either side, so a
    target that lacks the check sees equal (zero) slice counts and moves nothing."""
    dim = draw(st.integers(0, d.params["dimValue"] - 1), label="dimension")
    for _, key in OPERANDS:
        info = d.params[key][dim]
        info["startIndex"] = info["endIndex"] + 1


def _end_in_shape(draw: st.DrawFn, d: Draft) -> None:
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


def _slice_count_break(draw: st.DrawFn, d: Draft) -> None:
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


# --- twins: each puts one relation of the slice infos right, the rest of the slices as they were --------------

def _repaired(repair: Callable[[PathContext, dict[str, Any]], None]) -> TwinPlanner:
    """A TwinPlanner applying `repair` to a deep copy of the params."""
    def planner(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any] | None:
        fixed = copy.deepcopy(dict(params))
        repair(ctx, fixed)
        return fixed
    return planner


def _unit(ctx: PathContext, params: Mapping[str, Any], dimension: int) -> int:
    """Elements of one slice in a dimension: the slice length in dimension 0, one element further out."""
    return params[OPERANDS[0][1]][0]["burstLen"] * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size \
        if dimension == 0 else 1


def _count_entries(ctx: PathContext, params: dict[str, Any]) -> None:
    """As many SliceInfo entries as dimValue: entries past it dropped, missing outer ones one element wide (the
    smallest slices of the dimension where none is left)."""
    dims = params["dimValue"]
    if any(not params[key] for _, key in OPERANDS):
        params.update(smallest_params(ctx, {"dimValue": dims}) or {})
        return
    for _, key in OPERANDS:
        params[key] = params[key][:dims] + [dict(TRIVIAL_DIMENSION) for _ in range(dims - len(params[key]))]


def _in_ctype(ctx: PathContext, params: dict[str, Any]) -> None:
    """Every SliceInfo member within its C type."""
    for name, field in ctx.api.structs["SliceInfo"].items():
        if field.ctype is None:
            continue
        low, high = ctx.spec.ctypes[field.ctype]
        for _, key in OPERANDS:
            for info in params[key]:
                info[name] = min(max(info[name], low), high)


def _equal_burst(ctx: PathContext, params: dict[str, Any]) -> None:
    """The destination's burstLen back to the source's, its slices of dimension 0 as many as before."""
    info, length = params["dstSliceInfo"][0], _unit(ctx, params, 0)
    count = max(_slice_count(ctx, info), 1)
    info["burstLen"] = params["srcSliceInfo"][0]["burstLen"]
    info["endIndex"] = info["startIndex"] + count * length + (count - 1) * info["stride"] - 1
    info["shapeValue"] = max(info["shapeValue"], info["endIndex"] + 1)


def _outer_bursts(ctx: PathContext, params: dict[str, Any]) -> None:
    """burstLen 1 in every dimension but the first."""
    for _, key in OPERANDS:
        for info in params[key][1:]:
            info["burstLen"] = 1


def _ordered(ctx: PathContext, params: dict[str, Any]) -> None:
    """A dimension whose startIndex lies past its endIndex given one slice ending where the dimension ended, on
    both operands (their slice counts stay equal)."""
    for d in range(len(params["srcSliceInfo"])):
        if all(params[key][d]["startIndex"] <= params[key][d]["endIndex"] for _, key in OPERANDS):
            continue
        for _, key in OPERANDS:
            info = params[key][d]
            info["startIndex"] = max(info["endIndex"] + 1 - _unit(ctx, params, d), 0)
            info["endIndex"] = info["startIndex"] + _unit(ctx, params, d) - 1
            info["shapeValue"] = max(info["shapeValue"], info["endIndex"] + 1)


def _inside_shape(ctx: PathContext, params: dict[str, Any]) -> None:
    """Every shapeValue past its endIndex (on a UB operand's inner dimensions, in whole DataBlocks)."""
    for operand, key in OPERANDS:
        infos = params[key]
        for d, info in enumerate(infos):
            if info["shapeValue"] > info["endIndex"]:
                continue
            step = _granule(ctx, operand) if d < len(infos) - 1 else 1
            info["shapeValue"] = -(-(info["endIndex"] + 1) // step) * step


def _whole_slices(ctx: PathContext, params: dict[str, Any]) -> None:
    """Every dimension's endIndex where a whole number of slices ends (the nearest count above what it holds,
    or the count below where that would pass the shape)."""
    for _, key in OPERANDS:
        for d, info in enumerate(params[key]):
            length, stride = _unit(ctx, params, d), info["stride"]
            pitch = length + stride
            if pitch <= 0 or info["startIndex"] > info["endIndex"]:
                continue
            span = info["endIndex"] - info["startIndex"] + 1
            for count in (-(-(span + stride) // pitch), (span + stride) // pitch):
                end = info["startIndex"] + count * length + (count - 1) * stride - 1
                if count >= 1 and end < info["shapeValue"]:
                    info["endIndex"] = end
                    break


RELATION_TWINS: Mapping[str, TwinPlanner] = {
    "info_count": _repaired(_count_entries),
    "sliceinfo_ctype": _repaired(_in_ctype),
    "burstlen_equal": _repaired(_equal_burst),
    "burstlen_outer": _repaired(_outer_bursts),
    "index_order": _repaired(_ordered),
    "end_in_shape": _repaired(_inside_shape),
    "end_at_shape": _repaired(_inside_shape),
    "slice_count": _repaired(_whole_slices),
    "count_match": no_twin,
    "ub_slice_align": no_twin,
}


def semantic_twin(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> None:
    return None   # slices have no semantics rule
