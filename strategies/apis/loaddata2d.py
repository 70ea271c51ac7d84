"""LoadData2D: legal parameters (whole 512-B fractals, transposed only where the spec allows it), the transpose
faults and their twins, and the cases on which the readings of dstGap on atlas-training (D24) differ."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from hypothesis import strategies as st

from ascendc_conformance.spec.model import Rule
from ascendc_conformance.strategies.api_contract import Draft, FaultPlan, FaultPlanner, FieldEffect, TwinPlanner
from ascendc_conformance.strategies.cases import settle
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.draw import FieldRange, Problem
from ascendc_conformance.strategies.layout import Extents, Pattern, fits

FIELDS = ("startIndex", "repeatTimes", "srcStride", "sid", "dstGap", "addrMode")


def extents(ctx: PathContext, params: Mapping[str, int]) -> Extents:
    """Source fractals read and destination slots written; where the product ignores dstGap (D24 default)
    the slots are contiguous, and the slots with dstGap holes are the other reading's footprint."""
    fractal = ctx.api.constant("fractal_bytes")
    first = params["startIndex"]
    walk = (params["repeatTimes"] - 1) * params["srcStride"]
    last = first + walk
    if params.get("addrMode") == 1:   # D21: a decrement under devkit, an increment where the check is missing
        first -= walk
    first, last = min(first, last), max(first, last)   # a (faulty) negative stride reads downwards
    read = _read(ctx, params)
    fractals = Pattern(fractal * first, read, ((params["repeatTimes"], fractal * abs(params["srcStride"])),))
    with_gaps = (0, fractal * ((params["repeatTimes"] - 1) * (params["dstGap"] + 1) + 1))
    ignored_by = ctx.api.dst_gap_ignored_by
    if ignored_by and ctx.spec.rule(ignored_by).applies_to(ctx.product.id):
        return Extents((fractal * first, fractal * last + read), (0, fractal * params["repeatTimes"]),
                       dst_alternative=with_gaps if params["dstGap"] else None, src_pattern=fractals)
    return Extents((fractal * first, fractal * last + read), with_gaps, src_pattern=fractals)


def _read(ctx: PathContext, params: Mapping[str, Any]) -> int:
    """Bytes one fractal read spans: the fractal, or for a transpose dst[16r + c] = src[16c + r] over the
    fractal's elements (past the fractal for a dtype other than 16 bits, which only a fault transposes) — and
    at least the whole fractal, which a target that transposes only 16-bit elements reads for any dtype."""
    fractal = ctx.api.constant("fractal_bytes")
    if not params.get("ifTranspose"):
        return fractal
    side, size = ctx.api.constant("transpose_side"), ctx.src_dtype.size
    return max(fractal, ((side - 1) * side + (fractal // size - 1) // side + 1) * size)


footprint = extents   # the bytes any call with these params touches, legal or not


def transpose_allowed(ctx: PathContext) -> bool:
    routes = {tuple(route) for route in ctx.relation_args("transpose_route")["routes"]}
    return (ctx.src, ctx.dst) in routes and ctx.src_dtype.name in ctx.relation_args("transpose_dtype")["dtypes"]


def problem(ctx: PathContext, pinned: Mapping[str, int]) -> Problem:
    """The Problem of the integer fields; a pinned ifTranspose (legal only where transpose_allowed) is part
    of the footprint."""
    fields = tuple(FieldRange(name, *ctx.field_range(name)) for name in FIELDS)
    transposed = {"ifTranspose": bool(pinned["ifTranspose"])} if "ifTranspose" in pinned else {}

    def legal(values: Mapping[str, int]) -> bool:
        apart = values["repeatTimes"] < 2 or values["dstGap"] >= 0   # a (faulty) negative gap overlaps slots
        allowed = not transposed.get("ifTranspose") or transpose_allowed(ctx)
        return apart and allowed and fits(ctx, extents(ctx, {**values, **transposed}))
    return Problem(fields, legal, dict, {name: value for name, value in pinned.items() if name in FIELDS})


def draw_params(draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict[str, Any], Extents]:
    params = problem(ctx, pinned).draw(draw)
    # transposing first: it is the mode a short run (3 cases per test) must not miss, and where shrinking stays
    if "ifTranspose" in pinned:
        params["ifTranspose"] = bool(pinned["ifTranspose"])
    else:
        params["ifTranspose"] = transpose_allowed(ctx) and draw(st.sampled_from((True, False)), label="ifTranspose")
    return params, extents(ctx, params)


def reachable(ctx: PathContext, pinned: Mapping[str, int]) -> bool:
    return problem(ctx, pinned).reachable()


def smallest_params(ctx: PathContext, pinned: Mapping[str, int]) -> dict[str, Any]:
    return {**problem(ctx, pinned).smallest(), "ifTranspose": bool(pinned.get("ifTranspose"))}


STRIDES = ("srcStride", "dstGap")   # between fractals: an effect only with a second repeat


def field_effect(ctx: PathContext, field: str) -> FieldEffect | None:
    if field not in ctx.api.forms[ctx.form].fields:
        return None
    if field == "ifTranspose":
        return FieldEffect() if transpose_allowed(ctx) else None
    ignored_by = ctx.api.dst_gap_ignored_by
    if field == "dstGap" and ignored_by and ctx.spec.rule(ignored_by).applies_to(ctx.product.id):
        return None   # D24: the product places the fractals back to back whatever dstGap says
    return FieldEffect({"repeatTimes": 2} if field in STRIDES else {}, ctx.field_range(field)[0])


# --- faults ------------------------------------------------------------------------------------------

def _transposed(select: Callable[[PathContext, Rule], bool]) -> FaultPlanner:
    """A planner that sets ifTranspose on the contexts `select` picks."""
    def plan(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
        return [FaultPlan(rule.relation, tuple(c for c in contexts if select(c, rule)), _set_transpose)]
    return plan


def _set_transpose(draw: st.DrawFn, d: Draft) -> None:
    d.params["ifTranspose"] = True
    settle(draw, d)


def _transpose_routes(ctx: PathContext) -> set[tuple[str, str]]:
    return {tuple(route) for route in ctx.relation_args("transpose_route")["routes"]}


def _off_route(ctx: PathContext, rule: Rule) -> bool:
    """A transposable dtype on a route that does not transpose."""
    return (ctx.src, ctx.dst) not in _transpose_routes(ctx) and ctx.src_dtype.name in ctx.relation_args("transpose_dtype")["dtypes"]


def _wrong_dtype(ctx: PathContext, rule: Rule) -> bool:
    """A transposing route with a dtype neither documented nor disputed for a transpose."""
    allowed = set(rule.args["dtypes"]) | set(rule.args.get("disputed", ()))
    return (ctx.src, ctx.dst) in _transpose_routes(ctx) and ctx.src_dtype.name not in allowed


def _disputed_dtype(ctx: PathContext, rule: Rule) -> bool:
    """A transposing route with a dtype only the disputed reading allows (D22)."""
    return (ctx.src, ctx.dst) in _transpose_routes(ctx) and ctx.src_dtype.name in rule.args["dtypes"]


RELATION_FAULTS: Mapping[str, FaultPlanner] = {
    "transpose_route": _transposed(_off_route),
    "transpose_dtype": _transposed(_wrong_dtype),
    "transpose_dtype_disputed": _transposed(_disputed_dtype),
}


def _untransposed(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any]:
    """A transpose fault put right: the same fractals, not transposed (legal on every route and dtype)."""
    return {**params, "ifTranspose": False}


RELATION_TWINS: Mapping[str, TwinPlanner] = {
    "transpose_route": _untransposed,
    "transpose_dtype": _untransposed,
    "transpose_dtype_disputed": _untransposed,
}


def semantic_twin(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any] | None:
    """dstGap 0 where the product ignores dstGap (D24): every reading agrees on a call without a gap (the other
    reading makes any other dstGap illegal)."""
    if ctx.api.dst_gap_ignored_by != rule.id:
        return None
    return {**params, "dstGap": 0}


def semantic_faults(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    """dstGap 1 where the product ignores dstGap (D24): the readings place the second fractal differently."""
    if not contexts or contexts[0].api.dst_gap_ignored_by != rule.id:
        return []
    return [FaultPlan("dstGap-ignored", tuple(contexts), pinned=(("dstGap", 1),))]
