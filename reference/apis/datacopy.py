"""DataCopy: count form, DataCopyParams form and the mixed-type C1 -> C2 form (000; semantics.md 3.1).

Burst i of a DataCopyParams call moves `blockLen` route units; the route units and whether the gaps count
end-to-start or start-to-start come from the spec's `semantics.units` for the destination position.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np

from ascendc_conformance.reference.api_contract import Relation
from ascendc_conformance.reference.bit_witness import scalar_flips
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.misreading import Misreading, Twin, regrid, said, scalar_read_as, with_params
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.model import GapMeasure, Rule, TransferUnits, UnitsCondition


def _units(call: Call) -> TransferUnits:
    """The units of the destination's route, as the call's reading has them (D6, D7, D8, D13)."""
    return call.reading.units(call.api.units_for(call.case.dst.position))


def _count_blocks(call: Call, units: TransferUnits) -> int:
    """Rounding units a count form moves: count * sizeof(T) rounded down (000 Table 2 NOTE, D8)."""
    return call.params["count"] * call.src_dtype.size // units.count_round_bytes


def count_fills_unit(call: Call, rule: Rule) -> str | None:
    if "count" not in call.params or call.params["count"] < 0:  # a negative count is the range rule's business
        return None
    units = _units(call)
    if _count_blocks(call, units) >= 1:
        return None
    return (f"count {call.params['count']} x {call.src_dtype.size} B < one {units.count_round_bytes}-B route unit: "
            f"nothing would move (blockLen 0)")


RELATIONS: Mapping[str, Relation] = {"count_fills_unit": count_fills_unit}


def _pitch(burst_bytes: int, gap: int, gap_bytes: int, start_to_start: bool) -> int:
    """Bytes from the start of one burst to the start of the next."""
    return gap * gap_bytes if start_to_start else burst_bytes + gap * gap_bytes


def _burst_elements(call: Call, units: TransferUnits) -> int:
    """Source elements one burst moves (the count form: its one burst)."""
    if "count" in call.params:
        return _count_blocks(call, units) * units.count_round_bytes // call.src_dtype.size
    side_size = call.src_dtype.size if units.block_side == "src" else call.dst_dtype.size   # whose bytes (D13)
    return units.block_bytes * call.params["blockLen"] // side_size


def _pitches(call: Call, units: TransferUnits) -> tuple[int, int]:
    """Bytes from the start of one burst to the start of the next, in the source and in the destination."""
    elements, params = _burst_elements(call, units), call.params
    src_gap, dst_gap = (0, 0) if "count" in params else (params["srcGap"], params["dstGap"])
    return (_pitch(elements * call.src_dtype.size, src_gap, units.src_gap.bytes, units.src_gap.start_to_start),
            _pitch(elements * call.dst_dtype.size, dst_gap, units.dst_gap.bytes, units.dst_gap.start_to_start))


def derived(call: Call) -> Mapping[str, int]:
    """The last burst's start in each operand (the DataCopyParams and mixed forms: bursts, gaps)."""
    if "count" in call.params or call.params["blockCount"] < 1 or call.params["blockLen"] < 1:
        return {}
    src_pitch, dst_pitch = _pitches(call, _units(call))
    last = call.params["blockCount"] - 1
    return {"src-burst-start": last * src_pitch, "dst-burst-start": last * dst_pitch}


def plan(call: Call) -> Transfer:
    units = _units(call)
    params = call.params
    src_size, dst_size = call.src_dtype.size, call.dst_dtype.size
    depends: list[str | None] = []
    if "count" in params:
        block_count = 1
        route_unit = call.api.units_for(call.case.dst.position).count_round_bytes   # D8's two roundings, whatever
        datablock = call.api.default_units.count_round_bytes                       # the reading
        if params["count"] * src_size // route_unit * route_unit != params["count"] * src_size // datablock * datablock:
            depends.append(units.depends_on.get(UnitsCondition.COUNT_ROUNDING))
    else:
        block_count = params["blockCount"]
        if block_count > 1:
            depends.append(units.depends_on.get(UnitsCondition.MULTI_BURST))
            if params["dstGap"] != 0:
                depends.append(units.depends_on.get(UnitsCondition.DST_GAP))
    elements = _burst_elements(call, units)
    if src_size != dst_size or call.src_dtype.name != call.dst_dtype.name:
        depends.append(units.depends_on.get(UnitsCondition.MIXED_DTYPES))
    src_pitch, dst_pitch = _pitches(call, units)
    depends_on = tuple(rule for rule in depends if rule)
    if src_pitch % src_size == 0 and dst_pitch % dst_size == 0:   # always, with the spec's units
        grid = Grid((block_count, elements), 0, (src_pitch // src_size, 1), 0, (dst_pitch // dst_size, 1))
        return Transfer(depends_on=depends_on, grid=grid)
    bursts = np.arange(block_count, dtype=np.int64)
    within = np.arange(elements, dtype=np.int64)
    return Transfer(
        src_elements=((bursts * src_pitch // src_size)[:, None] + within).ravel(),
        dst_elements=((bursts * dst_pitch // dst_size)[:, None] + within).ravel(),
        depends_on=depends_on)


def locate(call: Call, dst_element: int) -> str:
    """Which burst of the call writes destination element `dst_element` (counted from dst's start).

    "burst 1 (of 2), element 5" for the DataCopyParams and mixed forms, "element 5 (of 512), count form"
    for the count form; elements the call does not write are said to be so.
    """
    transfer = plan(call)
    hits = np.flatnonzero(transfer.dst_elements == dst_element)
    if hits.size == 0:
        return f"dst element {dst_element}, which the call does not write"
    index, total = int(hits[0]), int(transfer.dst_elements.size)
    if "count" in call.params:
        return f"element {index} (of {total}), count form"
    bursts = call.params["blockCount"]
    burst, within = divmod(index, total // bursts)
    return f"burst {burst} (of {bursts}), element {within}"


bit_flips = scalar_flips   # plain parameters: a bit is cleared on its own


# --- DataCopy's own bug classes (reference.hypotheses) ------------------------------------------------------------

def _misunits(field: str, changes: Callable[[Call, TransferUnits], Mapping[str, Any]]) -> Callable[[Call], Twin | None]:
    """The twin of a target that reads the route's units otherwise (in the words of a disputed alternative's
    `units` effect), on calls that have `field`: planned as a reading with those units would plan it."""
    def twin(call: Call) -> Twin | None:
        changed = changes(call, _units(call)) if field in call.params else None
        if not changed:
            return None
        name = call.api.units_for(call.case.dst.position).name
        return Twin(replace(call, reading=call.reading.with_units(name, changed), derived={}),
                    label=f"units {sorted(changed.items())}")
    return twin


def _other(measure: GapMeasure) -> GapMeasure:
    return GapMeasure.END_TO_START if measure is GapMeasure.START_TO_START else GapMeasure.START_TO_START


_GAP_UNITS = {"srcGap": "src_gap", "dstGap": "dst_gap"}   # a gap parameter -> its TransferUnits entry


def _gaps_flipped(*gaps: str) -> Callable[[Call, TransferUnits], Mapping[str, Any]]:
    """Units with these gaps (srcGap, dstGap) measured the other way, on calls of several bursts."""
    def changes(call: Call, units: TransferUnits) -> Mapping[str, Any]:
        if call.params["blockCount"] < 2:
            return {}
        return {f"{_GAP_UNITS[gap]}_measure": _other(getattr(units, _GAP_UNITS[gap]).measure).value for gap in gaps}
    return changes


def _gaps_said(*gaps: str) -> Callable[[Call], str]:
    def says(call: Call) -> str:
        measures = {gap: getattr(_units(call), _GAP_UNITS[gap]).measure for gap in gaps}
        return "; ".join(f"{gap} {call.params[gap]} measured {_other(measure).value}, not {measure.value}"
                         for gap, measure in measures.items())
    return says


def _count_rounded_up(call: Call) -> Twin | None:
    """A count form that rounds its bytes up to the route unit: the call with the count that moves them."""
    if "count" not in call.params:
        return None
    unit, size = _units(call).count_round_bytes, call.src_dtype.size
    moved = call.params["count"] * size
    if moved % unit == 0:
        return None
    return Twin(with_params(call, {**call.params, "count": -(-moved // unit) * unit // size}))


def _count_said(call: Call) -> str:
    unit, size = _units(call).count_round_bytes, call.src_dtype.size
    return f"count {call.params['count']} x {size} B, against the {unit}-B route unit"


def _packed(operand: str) -> Callable[[Call], Twin | None]:
    """Bursts read (src) or written (dst) back to back, whatever the gap says."""
    def twin(call: Call) -> Twin | None:
        if call.params.get("blockCount", 1) < 2:
            return None
        base = plan(call)
        if base.grid is None:
            return None
        packed = (base.grid.shape[1], 1)
        if getattr(base.grid, f"{operand}_strides") == packed:
            return None
        return Twin(call, transfer=regrid(base, **{f"{operand}_strides": packed}), label=f"{operand} bursts packed")
    return twin


def _unconverted(call: Call) -> Twin | None:
    """The mixed form copying the source bytes raw: each burst's source bytes at the burst's destination start."""
    ratio, base = call.dst_dtype.size // call.src_dtype.size, plan(call)
    if call.src_dtype.name == call.dst_dtype.name or base.grid is None or ratio < 1:
        return None
    grid = base.grid
    raw = regrid(base, dst_offset=grid.dst_offset * ratio,
                 dst_strides=(*(stride * ratio for stride in grid.dst_strides[:-1]), 1))
    return Twin(replace(call, dst_dtype=call.src_dtype, derived={}), transfer=raw, label="unconverted")



def _side_size(call: Call) -> int:
    return call.src_dtype.size if _units(call).block_side == "src" else call.dst_dtype.size


MISREADINGS: tuple[Misreading, ...] = (
    Misreading("gaps-measured-otherwise", "srcGap and dstGap measured the other way (start to start / end to start)",
               _misunits("blockCount", _gaps_flipped("srcGap", "dstGap")), _gaps_said("srcGap", "dstGap")),
    Misreading("srcGap-measured-otherwise", "srcGap measured the other way (start to start / end to start)",
               _misunits("blockCount", _gaps_flipped("srcGap")), _gaps_said("srcGap")),
    Misreading("dstGap-measured-otherwise", "dstGap measured the other way (start to start / end to start)",
               _misunits("blockCount", _gaps_flipped("dstGap")), _gaps_said("dstGap")),
    Misreading("srcGap-in-elements", "srcGap counted in elements, not in 32-B blocks",
               _misunits("srcGap", lambda call, units: {"src_gap_bytes": call.src_dtype.size}), said("srcGap")),
    Misreading("dstGap-in-elements", "dstGap counted in elements, not in route units",
               _misunits("dstGap", lambda call, units: {"dst_gap_bytes": call.dst_dtype.size}), said("dstGap")),
    Misreading("dstGap-in-datablocks", "dstGap counted in 32-B blocks on every route",
               _misunits("dstGap", lambda call, units: {"dst_gap_bytes": 32}), said("dstGap")),
    Misreading("blockLen-in-bytes", "blockLen counted in bytes, not in route units",
               _misunits("blockLen", lambda call, units: {"block_bytes": 1}), said("blockLen")),
    Misreading("blockLen-in-elements", "blockLen counted in elements, not in route units",
               _misunits("blockLen", lambda call, units: {"block_bytes": _side_size(call)}), said("blockLen")),
    Misreading("blockLen-in-datablocks", "blockLen counted in 32-B blocks on every route",
               _misunits("blockLen", lambda call, units: {"block_bytes": 32}), said("blockLen")),
    Misreading("src-bursts-packed", "source bursts read back to back (the srcGap skipped)",
               _packed("src"), said("blockCount", "srcGap")),
    Misreading("dst-bursts-packed", "destination bursts written back to back (the dstGap skipped)",
               _packed("dst"), said("blockCount", "dstGap")),
    Misreading("count-not-rounded-down", "count form not rounded down to the route unit (every element moved)",
               _misunits("count", lambda call, units: {"count_round_bytes": 1}), _count_said),
    Misreading("count-rounded-up", "count form rounded up to the route unit, not down", _count_rounded_up, _count_said),
    Misreading("half-float-unconverted", "half -> float copied raw, without converting",
               _unconverted, said("blockCount", "blockLen")),
)


read_as = scalar_read_as   # plain parameters: a field is read on its own
