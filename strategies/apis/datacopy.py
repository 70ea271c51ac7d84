"""DataCopy (count, DataCopyParams and mixed forms): legal parameters sized to the product's memories, the
count-below-unit fault, and the cases on which the readings of its units (D6, D7, D8, D13) differ."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from hypothesis import strategies as st

from ascendc_conformance.spec.model import Rule, UnitsCondition
from ascendc_conformance.strategies.api_contract import Draft, FaultPlan, FaultPlanner, FieldEffect, TwinPlanner
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.draw import FieldRange, Problem
from ascendc_conformance.strategies.layout import Extents, Pattern, fits

STRUCT_FIELDS = ("blockCount", "blockLen", "srcGap", "dstGap")


def _count_extents(ctx: PathContext, count: int) -> Extents:
    units = ctx.api.units_for(ctx.dst)
    moved = count * ctx.src_dtype.size // units.count_round_bytes * units.count_round_bytes
    return Extents((0, moved), (0, moved // ctx.src_dtype.size * ctx.dst_dtype.size))


def _burst_extent(count: int, burst: int, pitch: int) -> tuple[int, int]:
    """[low, high) bytes of `count` bursts `pitch` bytes apart (start to start); a (faulty) negative gap may
    put later bursts below the first."""
    reach = (count - 1) * pitch
    return min(reach, 0), max(reach, 0) + burst


def _pitch(burst: int, gap: int, gap_bytes: int, start_to_start: bool) -> int:
    return gap * gap_bytes if start_to_start else burst + gap * gap_bytes


def _bursts(count: int, burst: int, pitch: int) -> Pattern | None:
    return Pattern(0, burst, ((count, pitch),)) if pitch >= 0 else None


def params_extents(ctx: PathContext, params: Mapping[str, int]) -> Extents:
    """Bytes touched by a DataCopyParams call (000 Table 3; semantics.md 3.1)."""
    units = ctx.api.units_for(ctx.dst)
    src_burst = units.block_bytes * params["blockLen"]
    dst_burst = src_burst // ctx.src_dtype.size * ctx.dst_dtype.size
    count = params["blockCount"]
    src_pitch = _pitch(src_burst, params["srcGap"], units.src_gap.bytes, units.src_gap.start_to_start)
    dst_pitch = _pitch(dst_burst, params["dstGap"], units.dst_gap.bytes, units.dst_gap.start_to_start)
    if not ctx.sparse:   # only a sparse case needs the bursts in detail
        return Extents(_burst_extent(count, src_burst, src_pitch), _burst_extent(count, dst_burst, dst_pitch))
    return Extents(_burst_extent(count, src_burst, src_pitch), _burst_extent(count, dst_burst, dst_pitch),
                   src_pattern=_bursts(count, src_burst, src_pitch), dst_pattern=_bursts(count, dst_burst, dst_pitch))


def _dst_gap_floor(ctx: PathContext, params: Mapping[str, int]) -> int:
    """Start-to-start destination gaps below this make bursts overwrite each other (self-overlap)."""
    units = ctx.api.units_for(ctx.dst)
    if not units.dst_gap.start_to_start or params["blockCount"] < 2:
        return 0
    dst_burst = units.block_bytes * params["blockLen"] // ctx.src_dtype.size * ctx.dst_dtype.size
    return -(-dst_burst // units.dst_gap.bytes)


def _materialise(ctx: PathContext, values: Mapping[str, int], gap_is_excess: bool) -> dict[str, int]:
    params = {name: values[name] for name in STRUCT_FIELDS}
    if gap_is_excess:
        params["dstGap"] = _dst_gap_floor(ctx, params) + values["dstGap"]
    return params


def problem(ctx: PathContext, pinned: Mapping[str, int]) -> Problem:
    if ctx.form == "count":
        low, high = ctx.field_range("count")
        if "count" not in ctx.relaxed:   # count_fills_unit (a relaxed count is a pinned fault value)
            low = max(low, -(-ctx.api.units_for(ctx.dst).count_round_bytes // ctx.src_dtype.size))
        return Problem((FieldRange("count", low, high),), lambda v: fits(ctx, _count_extents(ctx, v["count"])),
                       lambda v: {"count": v["count"]}, dict(pinned))
    gap_is_excess = "dstGap" not in pinned

    def legal(values: Mapping[str, int]) -> bool:
        params = _materialise(ctx, values, gap_is_excess)
        ranges_ok = all(ctx.field_range(name)[0] <= params[name] <= ctx.field_range(name)[1] for name in STRUCT_FIELDS)
        # bursts apart: a start-to-start gap of at least a burst, and never a (faulty) negative gap
        apart = params["blockCount"] < 2 or params["dstGap"] >= max(_dst_gap_floor(ctx, params), 0)
        return ranges_ok and apart and fits(ctx, params_extents(ctx, params))

    fields = tuple(FieldRange(name, *ctx.field_range(name)) for name in STRUCT_FIELDS)
    return Problem(fields, legal, lambda values: _materialise(ctx, values, gap_is_excess), dict(pinned))


def footprint(ctx: PathContext, params: Mapping[str, int]) -> Extents:
    return _count_extents(ctx, params["count"]) if ctx.form == "count" else params_extents(ctx, params)


def draw_params(draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict[str, Any], Extents]:
    params = problem(ctx, pinned).draw(draw)
    return params, footprint(ctx, params)


def reachable(ctx: PathContext, pinned: Mapping[str, int]) -> bool:
    return problem(ctx, pinned).reachable()


def smallest_params(ctx: PathContext, pinned: Mapping[str, int]) -> dict[str, Any]:
    return problem(ctx, pinned).smallest()


GAPS = ("srcGap", "dstGap")   # what lies between bursts: an effect only with a second burst


def field_effect(ctx: PathContext, field: str) -> FieldEffect | None:
    if field not in ctx.api.forms[ctx.form].fields:
        return None
    low = ctx.field_range(field)[0]
    if field == "count":   # count_fills_unit: at least one route unit
        return FieldEffect(floor=max(low, -(-ctx.api.units_for(ctx.dst).count_round_bytes // ctx.src_dtype.size)))
    if field not in GAPS:
        return FieldEffect(floor=low)
    two = {"blockCount": 2}
    floor = _dst_gap_floor(ctx, {**two, "blockLen": ctx.field_range("blockLen")[0]}) if field == "dstGap" else 0
    return FieldEffect(two, max(low, floor))


GAP_OF = {"src-burst-start": "srcGap", "dst-burst-start": "dstGap"}   # the gap that spreads each side's bursts


def crossing_pins(ctx: PathContext, quantity: str, width: int) -> list[Mapping[str, int]]:
    """The largest gap on the quantity's side, and as many one-block bursts as take the last one's start to
    2^width bytes (2049 bursts 65535 blocks apart for 2^32); blockLen is drawn (a longer burst only goes
    further)."""
    if ctx.form == "count":
        return []
    units, gap = ctx.api.units_for(ctx.dst), GAP_OF[quantity]
    block_len = max(ctx.field_range("blockLen")[0], 1)
    burst = units.block_bytes * block_len
    if gap == "dstGap":
        burst = burst // ctx.src_dtype.size * ctx.dst_dtype.size
    measure = units.src_gap if gap == "srcGap" else units.dst_gap
    pitch = _pitch(burst, ctx.field_range(gap)[1], measure.bytes, measure.start_to_start)
    return [{"blockCount": -(-(1 << width) // pitch) + 1, gap: ctx.field_range(gap)[1]}] if pitch > 0 else []


# --- faults ------------------------------------------------------------------------------------------

def _count_below_unit(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    """A count whose bytes do not fill one route unit: nothing would move (blockLen 0)."""
    return [FaultPlan("count-below-unit", tuple(c for c in contexts if c.form == "count"), _count_short_of_unit)]


def _count_short_of_unit(draw: st.DrawFn, d: Draft) -> None:
    units = d.ctx.api.units_for(d.ctx.dst)
    d.params["count"] = draw(st.integers(0, (units.count_round_bytes - 1) // d.ctx.src_dtype.size), label="count")


RELATION_FAULTS: Mapping[str, FaultPlanner] = {"count_fills_unit": _count_below_unit}


def _count_filling_unit(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any]:
    """A count below one route unit put right: the fewest elements that fill one (the largest unit any reading
    of the route's rounding has, so that every reading moves something)."""
    units = ctx.api.units_for(ctx.dst)
    return {**params, "count": max(params["count"], -(-units.count_round_bytes // ctx.src_dtype.size))}


RELATION_TWINS: Mapping[str, TwinPlanner] = {"count_fills_unit": _count_filling_unit}


def semantic_twin(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> None:
    """None: every reading of DataCopy's units (D6, D7, D8, D13) finds a call legal; they differ only in the bytes
    it moves."""
    return None


def semantic_faults(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    """Legal cases that meet a condition under which the units entry's readings move different bytes."""
    plans = []
    for units in (contexts[0].api.units if contexts else ()):
        for condition, rule_id in units.depends_on.items():
            if rule_id != rule.id:
                continue
            ctxs = [c for c in contexts if c.dst in units.dst_positions]
            if condition is UnitsCondition.COUNT_ROUNDING:   # one count per dtype that rounds differently
                for ctx in (c for c in ctxs if c.form == "count"):
                    count = (units.count_round_bytes + ctx.api.default_units.count_round_bytes) // ctx.src_dtype.size
                    plans.append(FaultPlan(f"{condition}-{ctx.label}", (ctx,), pinned=(("count", count),)))
            elif condition is UnitsCondition.MIXED_DTYPES:
                plans.append(FaultPlan(condition, tuple(c for c in ctxs if c.src_dtype != c.dst_dtype)))
            else:  # multi_burst, dst_gap: two bursts (a start-to-start dstGap is then at least 1)
                plans.append(FaultPlan(condition, tuple(c for c in ctxs if c.form != "count"),
                                       pinned=(("blockCount", 2),)))
    return plans
