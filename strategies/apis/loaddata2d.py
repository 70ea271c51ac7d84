"""Legal LoadData2D parameters: whole 512-B fractals, transposed only where the spec allows it."""
from __future__ import annotations

from typing import Mapping

from hypothesis import strategies as st

from strategies.context import PathContext
from strategies.draw import FieldRange, Problem
from strategies.layout import Extents, fits

FIELDS = ("startIndex", "repeatTimes", "srcStride", "sid", "dstGap", "addrMode")


def _slots(ctx: PathContext, params: Mapping[str, int]) -> int:
    """Destination fractal slots the region covers: dstGap holes included.

    Where the product ignores dstGap under the default reading (D24) the call writes only repeatTimes
    contiguous slots, but the region still covers the holes whenever they fit the memory: a target that
    applies the gap (the other reading) then writes inside the case, where the verdict can say which reading
    it follows, instead of outside it."""
    with_gaps = (params["repeatTimes"] - 1) * (params["dstGap"] + 1) + 1
    ignored_by = ctx.api.dst_gap_ignored_by
    if ignored_by and ctx.spec.rule(ignored_by).applies_to(ctx.product.id):
        fits_memory = with_gaps * ctx.api.constant("fractal_bytes") <= ctx.limit(ctx.memory("dst"))
        return with_gaps if fits_memory else params["repeatTimes"]
    return with_gaps


def extents(ctx: PathContext, params: Mapping[str, int]) -> Extents:
    fractal = ctx.api.constant("fractal_bytes")
    first = params["startIndex"]
    last = first + (params["repeatTimes"] - 1) * params["srcStride"]
    return Extents((fractal * first, fractal * (last + 1)), (0, fractal * _slots(ctx, params)))


def transpose_allowed(ctx: PathContext) -> bool:
    routes = {tuple(route) for route in ctx.relation_args("transpose_route")["routes"]}
    return (ctx.src, ctx.dst) in routes and ctx.src_dtype.name in ctx.relation_args("transpose_dtype")["dtypes"]


def problem(ctx: PathContext, pinned: Mapping[str, int]) -> Problem:
    fields = tuple(FieldRange(name, *ctx.field_range(name)) for name in FIELDS)
    return Problem(fields, lambda values: fits(ctx, extents(ctx, values)), dict, dict(pinned))


def draw_params(draw, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict, Extents]:
    params = problem(ctx, pinned).draw(draw)
    params["ifTranspose"] = transpose_allowed(ctx) and draw(st.booleans(), label="ifTranspose")
    return params, extents(ctx, params)


def reachable(ctx: PathContext, pinned: Mapping[str, int]) -> bool:
    return problem(ctx, pinned).reachable()
