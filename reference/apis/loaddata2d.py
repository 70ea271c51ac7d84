"""LoadData with LoadData2DParams (002; semantics.md 3.3): whole 512-B fractals, optionally transposed.

Repeat i copies source fractal startIndex + i*srcStride (minus, with addrMode 1 under D21=devkit) into
destination slot i*(dstGap + 1); products named by the spec's `dst_gap_ignored_by` rule place the fractals
contiguously (D24).
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from ascendc_conformance.reference.api_contract import Relation
from ascendc_conformance.reference.bit_witness import scalar_flips
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.misreading import Misreading, Twin, regrid, said, scalar_read_as, with_params
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.model import Rule


def transpose_route(call: Call, rule: Rule) -> str | None:
    if not call.params["ifTranspose"]:
        return None
    route = (call.case.src.position, call.case.dst.position)
    if route in {tuple(r) for r in rule.args["routes"]}:
        return None
    return f"ifTranspose = true on {route[0]} -> {route[1]}"


def transpose_dtype(call: Call, rule: Rule) -> str | None:
    if not call.params["ifTranspose"]:
        return None
    dtype = call.case.src.dtype
    if dtype in set(rule.args["dtypes"]) | set(rule.args.get("disputed", ())):
        return None
    return f"ifTranspose = true with {dtype}"


def transpose_dtype_disputed(call: Call, rule: Rule) -> str | None:
    dtype = call.case.src.dtype
    if call.params["ifTranspose"] and dtype in rule.args["dtypes"]:
        return f"ifTranspose = true with {dtype}"
    return None


RELATIONS: Mapping[str, Relation] = {"transpose_route": transpose_route, "transpose_dtype": transpose_dtype,
             "transpose_dtype_disputed": transpose_dtype_disputed}


def plan(call: Call) -> Transfer:
    params, size = call.params, call.src_dtype.size
    fractal = call.api.constant("fractal_bytes") // size
    repeats = params["repeatTimes"]
    depends: tuple[str, ...] = ()
    ignored_by = call.api.dst_gap_ignored_by
    if ignored_by and call.spec.rule(ignored_by).applies_to(call.product.id):
        slot_pitch = 1
        if params["dstGap"]:
            depends = (ignored_by,)
    else:
        slot_pitch = params["dstGap"] + 1
    # addrMode 1 (legal only under D21=devkit) walks the source down: sf(i) = startIndex - i*srcStride
    direction = -1 if params["addrMode"] == 1 else 1
    source, src_pitch, dst_pitch = (params["startIndex"] * fractal, direction * params["srcStride"] * fractal,
                                    slot_pitch * fractal)
    if params["ifTranspose"]:
        side = call.api.constant("transpose_side")   # dst[16r + c] = src[16c + r]
        if side * side == fractal:
            grid = Grid((repeats, side, side), source, (src_pitch, 1, side), 0, (dst_pitch, side, 1))
            return Transfer(depends_on=depends, grid=grid)
        row, col = np.divmod(np.arange(fractal, dtype=np.int64), side)
        src_within = col * side + row
        steps = np.arange(repeats, dtype=np.int64)
        return Transfer(src_elements=(source + steps[:, None] * src_pitch + src_within).ravel(),
                        dst_elements=(steps[:, None] * dst_pitch + np.arange(fractal, dtype=np.int64)).ravel(),
                        depends_on=depends)
    grid = Grid((repeats, fractal), source, (src_pitch, 1), 0, (dst_pitch, 1))
    return Transfer(depends_on=depends, grid=grid)


def derived(call: Call) -> Mapping[str, int]:
    """The start of the farthest source fractal (startIndex + i*srcStride fractals; addrMode 1 walks down)."""
    params = call.params
    if params["repeatTimes"] < 1:
        return {}
    walk = (params["repeatTimes"] - 1) * params["srcStride"] if params["addrMode"] != 1 else 0
    return {"src-fractal-start": (params["startIndex"] + walk) * call.api.constant("fractal_bytes")}


def locate(call: Call, dst_element: int) -> str:
    """Which repeat, destination fractal slot and fractal element writes `dst_element`:
    "repeat 2 (fractal slot 4), element (r 3, c 7)" — 16 x 16 for a transpose, else 16 rows of 32 B."""
    params, size = call.params, call.src_dtype.size
    fractal = call.api.constant("fractal_bytes") // size
    transfer = plan(call)
    hits = np.flatnonzero(transfer.dst_elements == dst_element)
    if hits.size == 0:
        return f"dst element {dst_element}, which the call does not write"
    repeat, within = divmod(int(hits[0]), fractal)
    slot = int(transfer.dst_elements[hits[0]]) // fractal
    columns = call.api.constant("transpose_side") if params["ifTranspose"] else max(32 // size, 1)
    row, column = divmod(within, columns)
    return f"repeat {repeat} (fractal slot {slot}), element (r {row}, c {column})"


bit_flips = scalar_flips   # plain parameters: a bit is cleared on its own


# --- LoadData2D's own bug classes (reference.hypotheses) ----------------------------------------------------------

def _shifted(field: str, by: int) -> Callable[[Call], Twin | None]:
    """A stride read as a gap (one fractal more between starts), or a gap as a stride (one fewer)."""
    return lambda call: Twin(with_params(call, {**call.params, field: call.params[field] + by}))


def _fractal_in_elements(call: Call) -> Twin | None:
    """512 elements to a fractal instead of 512 B: every fractal, offset and pitch `sizeof(T)` times as long."""
    size, base = call.src_dtype.size, plan(call)
    grid = base.grid
    if size == 1 or call.params["ifTranspose"] or grid is None:
        return None
    return Twin(call, label="fractal in elements", transfer=regrid(
        base, shape=(grid.shape[0], grid.shape[1] * size), src_offset=grid.src_offset * size,
        src_strides=(grid.src_strides[0] * size, 1), dst_strides=(grid.dst_strides[0] * size, 1)))


def _dst_gap_applied(call: Call) -> Twin | None:
    """dstGap applied on a product that disables it (D24: destination fractals contiguous)."""
    ignored_by, base = call.api.dst_gap_ignored_by, plan(call)
    if not ignored_by or not call.spec.rule(ignored_by).applies_to(call.product.id) or not call.params["dstGap"]:
        return None
    fractal = call.api.constant("fractal_bytes") // call.src_dtype.size
    pitch = (call.params["dstGap"] + 1) * fractal
    assert base.grid is not None, "LoadData2D's plan is a grid"
    return Twin(call, label="dstGap applied", transfer=regrid(base, dst_strides=(pitch, *base.grid.dst_strides[1:])))



MISREADINGS: tuple[Misreading, ...] = (
    Misreading("srcStride-as-gap", "srcStride taken as a gap between fractals (end to start), not start to start",
               _shifted("srcStride", 1), said("srcStride", "repeatTimes")),
    Misreading("dstGap-as-stride", "dstGap taken as the distance between fractal starts, not a gap",
               _shifted("dstGap", -1), said("dstGap", "repeatTimes")),
    Misreading("fractal-in-elements", "a fractal taken as 512 elements, not 512 B",
               _fractal_in_elements, lambda call: f"{call.src_dtype.name}: {call.src_dtype.size} B each"),
    Misreading("dstGap-not-disabled", "dstGap applied where the product disables it (D24)",
               _dst_gap_applied, lambda call: f"dstGap {call.params['dstGap']} on {call.product.id}"),
)


read_as = scalar_read_as   # plain parameters: a field is read on its own
