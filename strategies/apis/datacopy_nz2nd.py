"""DataCopyNz2Nd: legal parameters (rows and matrices of the ND destination never overlap: D18, self-overlap)
and the case the vendor's divisibility check (D17) rejects."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from hypothesis import strategies as st

from ascendc_conformance.spec.model import Rule
from ascendc_conformance.strategies.api_contract import FaultPlan, FaultPlanner, FieldEffect, TwinPlanner, never_generated
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.draw import FieldRange, Problem, biased
from ascendc_conformance.strategies.layout import Extents, Pattern, fits

# Drawn variables: dValue in whole 16-column blocks, and the two destination strides as the excess over
# the smallest stride that keeps rows / matrices apart.
VARIABLES = ("ndNum", "nValue", "dBlocks", "srcNdMatrixStride", "srcNStride", "dstDStrideExcess", "dstNdMatrixStrideExcess")
FIELDS = ("ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcNStride", "dstDStride", "dstNdMatrixStride")


def extents(ctx: PathContext, params: Mapping[str, int]) -> Extents:
    """Source and destination extents of semantics.md 3.4, in bytes (the destination rows in detail)."""
    if params["ndNum"] == 0:
        return Extents((0, 0), (0, 0))
    block = ctx.api.constant("column_block")
    src = _reach((params["ndNum"] - 1) * ctx.api.constant("src_matrix_stride_unit") * params["srcNdMatrixStride"],
                 (-(-params["dValue"] // block) - 1) * ctx.api.constant("src_n_stride_unit") * params["srcNStride"],
                 (params["nValue"] - 1) * block, block)
    dst = _reach((params["ndNum"] - 1) * params["dstNdMatrixStride"], (params["nValue"] - 1) * params["dstDStride"], params["dValue"])
    size = ctx.dst_dtype.size
    rows = Pattern(0, params["dValue"] * size, ((params["nValue"], params["dstDStride"] * size),
                                                (params["ndNum"], params["dstNdMatrixStride"] * size)))
    return Extents((src[0] * ctx.src_dtype.size, src[1] * ctx.src_dtype.size), (dst[0] * size, dst[1] * size),
                   dst_pattern=rows if min(params["dstDStride"], params["dstNdMatrixStride"]) >= 0 else None)


def _reach(*offsets: int) -> tuple[int, int]:
    """[low, high) elements of a sum of axis offsets (the last one the run length); a (faulty) negative
    stride reaches below the start."""
    *axes, run = offsets
    return sum(min(a, 0) for a in axes), sum(max(a, 0) for a in axes) + run


def _materialise(ctx: PathContext, v: Mapping[str, int], pinned: Mapping[str, int]) -> dict[str, int]:
    """Real parameters from the drawn variables; a pinned stride is used as it is."""
    d_value = v["dBlocks"] * ctx.api.constant("column_block")
    d_stride = pinned.get("dstDStride", (d_value if v["nValue"] > 1 else 1) + v["dstDStrideExcess"])
    matrix = (v["nValue"] - 1) * d_stride + d_value if v["ndNum"] > 1 else 1
    return {"ndNum": v["ndNum"], "nValue": v["nValue"], "dValue": d_value,
            "srcNdMatrixStride": v["srcNdMatrixStride"], "srcNStride": v["srcNStride"],
            "dstDStride": d_stride,
            "dstNdMatrixStride": pinned.get("dstNdMatrixStride", matrix + v["dstNdMatrixStrideExcess"])}


def disjoint(p: Mapping[str, int]) -> bool:
    """No two destination elements coincide: rows apart, matrices stacked or side by side within a row."""
    rows_apart = p["nValue"] <= 1 or p["dstDStride"] >= p["dValue"]
    stride = p["dstNdMatrixStride"]
    stacked = stride >= (p["nValue"] - 1) * p["dstDStride"] + p["dValue"]
    side_by_side = stride >= p["dValue"] and (p["ndNum"] - 1) * stride + p["dValue"] <= p["dstDStride"]
    return rows_apart and (p["ndNum"] <= 1 or stacked or side_by_side)


def _in_ranges(ctx: PathContext, params: Mapping[str, int]) -> bool:
    return all(ctx.field_range(name)[0] <= params[name] <= ctx.field_range(name)[1] for name in FIELDS)


def _variables(ctx: PathContext) -> list[FieldRange]:
    block = ctx.field_multiple("dValue")
    d_low, d_high = ctx.field_range("dValue")
    stride_high = ctx.field_range("dstDStride")[1]
    return [FieldRange("ndNum", *ctx.field_range("ndNum")), FieldRange("nValue", *ctx.field_range("nValue")),
            FieldRange("dBlocks", -(-d_low // block), d_high // block),
            FieldRange("srcNdMatrixStride", *ctx.field_range("srcNdMatrixStride")),
            FieldRange("srcNStride", *ctx.field_range("srcNStride")),
            FieldRange("dstDStrideExcess", 0, stride_high), FieldRange("dstNdMatrixStrideExcess", 0, stride_high)]


def _pins_as_variables(ctx: PathContext, pinned: Mapping[str, int]) -> dict[str, int]:
    """Boundary pins name real fields; dValue is drawn in blocks (pinned strides are used as given)."""
    variables = {name: value for name, value in pinned.items() if name in VARIABLES}
    if "dValue" in pinned:
        variables["dBlocks"] = pinned["dValue"] // ctx.field_multiple("dValue")
    return variables


def problem(ctx: PathContext, pinned: Mapping[str, int]) -> Problem:
    def legal(values: Mapping[str, int]) -> bool:
        params = _materialise(ctx, values, pinned)
        return _in_ranges(ctx, params) and disjoint(params) and fits(ctx, extents(ctx, params))

    variables = _variables(ctx)
    if set(pinned) - {"ndNum"}:  # a pinned boundary must be exercised by a call that moves data
        variables[0] = FieldRange("ndNum", max(1, variables[0].low), variables[0].high)
    return Problem(tuple(variables), legal, lambda values: _materialise(ctx, values, pinned),
                   _pins_as_variables(ctx, pinned))


def draw_params(draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int]) -> tuple[dict[str, Any], Extents]:
    params = problem(ctx, pinned).draw(draw)
    interleave_room = params["dstDStride"] - params["dValue"]
    if ("dstNdMatrixStride" not in pinned and params["ndNum"] > 1 and params["nValue"] > 1 and params["dValue"] > 0
            and interleave_room >= (params["ndNum"] - 1) * params["dValue"]
            and draw(st.booleans(), label="interleave matrices")):
        # Matrices side by side within one row pitch (as in the seed's figures).
        top = (params["dstDStride"] - params["dValue"]) // (params["ndNum"] - 1)
        params["dstNdMatrixStride"] = biased(draw, params["dValue"], top, "dstNdMatrixStride")
    return params, extents(ctx, params)


footprint = extents   # the bytes any call with these params touches, legal or not


def reachable(ctx: PathContext, pinned: Mapping[str, int]) -> bool:
    return problem(ctx, pinned).reachable()


def smallest_params(ctx: PathContext, pinned: Mapping[str, int]) -> dict[str, Any]:
    return problem(ctx, pinned).smallest()


def field_effect(ctx: PathContext, field: str) -> FieldEffect | None:
    """Strides between matrices need two matrices, between rows two rows, between column blocks two blocks;
    a destination stride is never shorter than the row (or matrix) of the smallest dValue."""
    if field not in FIELDS:
        return None
    row = ctx.field_multiple("dValue")
    needs = {"srcNdMatrixStride": ({"ndNum": 2}, None), "dstNdMatrixStride": ({"ndNum": 2}, row),
             "srcNStride": ({"dValue": 2 * row}, None), "dstDStride": ({"nValue": 2}, row)}
    pins, floor = needs.get(field, ({}, None))
    low = ctx.field_range(field)[0]
    return FieldEffect(pins, max(low, floor) if floor is not None else low)


# --- faults ------------------------------------------------------------------------------------------

def _indivisible(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    """Two matrices one 512-B unit apart with 3 rows: (srcNdMatrixStride*256) mod (nValue*sizeof(T)) != 0."""
    return [FaultPlan("indivisible", tuple(contexts), pinned=(("ndNum", 2), ("nValue", 3), ("srcNdMatrixStride", 1)))]


RELATION_FAULTS: Mapping[str, FaultPlanner] = {"row_overlap": never_generated, "vendor_divisibility": _indivisible}


def _divisible(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any]:
    """The vendor's divisibility (D17) put right: the most rows up to nValue whose bytes divide the matrices'
    source pitch, the matrices kept (with one row it always holds)."""
    pitch = params["srcNdMatrixStride"] * ctx.api.constant("src_matrix_stride_unit")
    rows = next((n for n in range(params["nValue"], 0, -1) if pitch % (n * ctx.src_dtype.size) == 0), 1)
    return {**params, "nValue": rows}


def _apart(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> dict[str, Any]:
    """Destination rows and matrices kept apart (D18's overlap, left open, put right): the row stride at least the
    row, the matrix stride at least the matrix where they are not side by side."""
    fixed = dict(params)
    if fixed["nValue"] > 1:
        fixed["dstDStride"] = max(fixed["dstDStride"], fixed["dValue"])
    if not disjoint(fixed):
        fixed["dstNdMatrixStride"] = max(fixed["dstNdMatrixStride"],
                                         (fixed["nValue"] - 1) * fixed["dstDStride"] + fixed["dValue"])
    return fixed


RELATION_TWINS: Mapping[str, TwinPlanner] = {"row_overlap": _apart, "vendor_divisibility": _divisible}


def semantic_twin(rule: Rule, ctx: PathContext, params: Mapping[str, Any]) -> None:
    return None   # NZ2ND has no semantics rule


def semantic_faults(rule: Rule, contexts: Sequence[PathContext]) -> list[FaultPlan]:
    return []   # NZ2ND has no semantics rule
