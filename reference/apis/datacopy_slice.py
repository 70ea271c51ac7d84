"""DataCopy with SliceInfo (001; semantics.md 3.2): N-dimensional slices between GM and UB.

In dimension d an operand holds N_d slices of L_d elements (L_0 = burstLen*32/sizeof(T), L_d = 1 above),
`stride` elements apart (end to start); slices map one to one in (row, slice, element) order.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, NamedTuple

import numpy as np

from ascendc_conformance.reference.api_contract import Relation
from ascendc_conformance.reference.bit_witness import MEMBER
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.misreading import Misreading, Read, Twin, with_params
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.model import Rule

OPERANDS = (("src", "srcSliceInfo"), ("dst", "dstSliceInfo"))


class _Slices(NamedTuple):
    """One operand's slicing: its first dimValue SliceInfo entries (fewer if its array is short), L_0 in
    elements (burstLen DataBlocks of the dtype; 0 without entries), N_d per dimension from
    end - start + 1 = N*L + (N-1)*stride, and whether that N is exact. Where no positive N fits exactly, N is
    floored as the vendor's implementation does (D15): what a call with the slice-count rule ignored moves."""

    infos: Sequence[dict[str, Any]]
    length: int
    counts: tuple[int, ...]
    exact: tuple[bool, ...]

    @property
    def whole(self) -> bool:
        """Every dimension holds an exact, positive number of slices."""
        return all(self.exact)


def _slices(call: Call) -> dict[str, _Slices]:
    """Both operands' slicing, worked out once per call (in Call.derived: every relation check asks)."""
    slices = call.derived.get("slices")
    if slices is None:
        params = call.params
        src, dst = params["srcSliceInfo"], params["dstSliceInfo"]
        dims = max(min(params["dimValue"], len(src), len(dst)), 0)
        slices = call.derived["slices"] = {"src": _slicing(call, src[:dims]), "dst": _slicing(call, dst[:dims])}
    return slices


def _slicing(call: Call, infos: Sequence[dict[str, Any]]) -> _Slices:
    length = infos[0]["burstLen"] * call.api.constant("datablock_bytes") // call.src_dtype.size if infos else 0
    counts, exact = [], []
    for d, info in enumerate(infos):
        unit = length if d == 0 else 1
        span, stride = info["endIndex"] - info["startIndex"] + 1, info["stride"]
        pitch = unit + stride
        exact.append(unit >= 1 and span >= 1 and pitch > 0 and (span + stride) % pitch == 0)
        counts.append(max((span + stride) // pitch, 0) if pitch > 0 else 0)
    return _Slices(infos, length, tuple(counts), tuple(exact))


def _axes(slices: _Slices) -> tuple[int, list[int]]:
    """Offset and per-axis strides (outer dimensions first, then slice, then element) of one operand."""
    first = slices.infos[0]
    offset, strides = first["startIndex"], [slices.length + first["stride"], 1]
    pitch = first["shapeValue"]
    for info in slices.infos[1:]:
        offset += info["startIndex"] * pitch
        strides.insert(0, (1 + info["stride"]) * pitch)
        pitch *= info["shapeValue"]
    return offset, strides


def info_count(call: Call, rule: Rule) -> str | None:
    wrong = [f"{key} has {len(call.params[key])}" for _, key in OPERANDS if len(call.params[key]) != call.params["dimValue"]]
    return f"dimValue = {call.params['dimValue']} but {', '.join(wrong)} entries" if wrong else None


def sliceinfo_ctype(call: Call, rule: Rule) -> str | None:
    fields = call.api.structs["SliceInfo"]
    bounds = [(name, field.ctype, *call.spec.ctype_range(field)) for name, field in fields.items()]
    for _, key in OPERANDS:
        for i, info in enumerate(call.params[key]):
            for name, ctype, low, high in bounds:
                if not low <= info[name] <= high:
                    return f"{key}[{i}].{name} = {info[name]} is outside {ctype} [{low}, {high}]"
    return None


def burstlen_equal(call: Call, rule: Rule) -> str | None:
    slices = _slices(call)
    for d, (src, dst) in enumerate(zip(slices["src"].infos, slices["dst"].infos)):
        if src["burstLen"] != dst["burstLen"]:
            return f"srcSliceInfo[{d}].burstLen = {src['burstLen']} != dstSliceInfo[{d}].burstLen = {dst['burstLen']}"
    return None


def burstlen_outer(call: Call, rule: Rule) -> str | None:
    for name, slices in _slices(call).items():
        for d, info in enumerate(slices.infos[1:], start=1):
            if info["burstLen"] != 1:
                return f"{name}SliceInfo[{d}].burstLen = {info['burstLen']}, must be 1 for d >= 1"
    return None


def index_order(call: Call, rule: Rule) -> str | None:
    for name, slices in _slices(call).items():
        for d, info in enumerate(slices.infos):
            if info["startIndex"] > info["endIndex"]:
                return f"{name}SliceInfo[{d}]: startIndex {info['startIndex']} > endIndex {info['endIndex']}"
    return None


def end_in_shape(call: Call, rule: Rule) -> str | None:
    for name, slices in _slices(call).items():
        for d, info in enumerate(slices.infos):
            if info["endIndex"] > info["shapeValue"]:
                return f"{name}SliceInfo[{d}]: endIndex {info['endIndex']} > shapeValue {info['shapeValue']}"
    return None


def end_at_shape(call: Call, rule: Rule) -> str | None:
    for name, slices in _slices(call).items():
        for d, info in enumerate(slices.infos):
            if info["endIndex"] == info["shapeValue"]:
                return f"{name}SliceInfo[{d}]: endIndex == shapeValue == {info['endIndex']}"
    return None


def slice_count(call: Call, rule: Rule) -> str | None:
    for name, slices in _slices(call).items():
        for d, (info, exact) in enumerate(zip(slices.infos, slices.exact)):
            if not exact and info["startIndex"] <= info["endIndex"]:  # else index-order reports it
                return (f"{name}SliceInfo[{d}]: endIndex - startIndex + 1 = {info['endIndex'] - info['startIndex'] + 1} "
                        f"is not N*L + (N-1)*stride for any N >= 1 (stride {info['stride']})")
    return None


def count_match(call: Call, rule: Rule) -> str | None:
    slices = _slices(call)
    for d, (n_src, n_dst) in enumerate(zip(slices["src"].counts, slices["dst"].counts)):
        if n_src != n_dst:
            return f"dimension {d}: {n_src} source slices vs {n_dst} destination slices"
    return None


def ub_slice_align(call: Call, rule: Rule) -> str | None:
    block = call.api.constant("datablock_bytes")
    for name, slices in _slices(call).items():
        counts = slices.counts
        if not counts or call.operand(name).position == "GM" or not slices.whole:
            continue
        # every start is offset + a sum of axis strides: all are aligned iff the offset and every stride of an
        # axis with more than one point are
        offset, strides = _axes(slices)
        size = call.src_dtype.size
        if (offset * size) % block == 0 and all((stride * size) % block == 0
                                                for count, stride in zip([*reversed(counts[1:]), counts[0]], strides)
                                                if count > 1):
            continue
        starts = _slice_starts(slices) * size
        if starts.size and np.any(starts % block):
            first = int(starts[np.nonzero(starts % block)[0][0]])
            return f"a {name} slice starts {first} B from the UB operand, not on a {block}-B boundary"
    return None


RELATIONS: Mapping[str, Relation] = {"info_count": info_count, "sliceinfo_ctype": sliceinfo_ctype, "burstlen_equal": burstlen_equal,
             "burstlen_outer": burstlen_outer, "index_order": index_order, "end_in_shape": end_in_shape,
             "end_at_shape": end_at_shape, "slice_count": slice_count, "count_match": count_match,
             "ub_slice_align": ub_slice_align}


def _slice_starts(slices: _Slices) -> np.ndarray:
    """Element offset of every slice's first element, in (row, slice) order (outer dimensions first)."""
    infos, counts = slices.infos, slices.counts
    first = infos[0]
    offsets = first["startIndex"] + np.arange(counts[0], dtype=np.int64) * (slices.length + first["stride"])
    pitch = first["shapeValue"]
    for d in range(1, len(infos)):
        info = infos[d]
        rows = (info["startIndex"] + np.arange(counts[d], dtype=np.int64) * (1 + info["stride"])) * pitch
        offsets = (rows[:, None] + offsets.reshape(1, -1)).ravel()
        pitch *= info["shapeValue"]
    return offsets


def plan(call: Call) -> Transfer:
    src, dst = _slices(call)["src"], _slices(call)["dst"]
    if not src.infos or not dst.infos:   # no dimensions (dimValue or info-count ignored): nothing moves
        return Transfer(grid=Grid((0,), 0, (1,), 0, (1,)))
    if src.counts == dst.counts:
        shape = (*reversed(src.counts[1:]), src.counts[0], src.length)
        (src_offset, src_strides), (dst_offset, dst_strides) = _axes(src), _axes(dst)
        return Transfer(grid=Grid(shape, src_offset, tuple(src_strides), dst_offset, tuple(dst_strides)))
    within = np.arange(src.length, dtype=np.int64)
    return Transfer(src_elements=(_slice_starts(src)[:, None] + within).ravel(),
                    dst_elements=(_slice_starts(dst)[:, None] + within).ravel())


def derived(call: Call) -> Mapping[str, int]:
    """The offset of the farthest element of each operand's slices (a call whose slice counts differ: none)."""
    grid = plan(call).grid
    found = {}
    for operand in ("src", "dst"):
        span = grid.span(operand) if grid is not None else None
        if span is not None:
            found[f"{operand}-element-offset"] = span[1] * call.dtype(operand).size
    return found


def locate(call: Call, dst_element: int) -> str:
    """Which row, slice and element of the slice copy writes `dst_element`: "row (j=1), slice 0, element 12"
    (rows named j1, j2, ... from the innermost outer dimension when dimValue > 2; no row when dimValue is 1)."""
    transfer = plan(call)
    hits = np.flatnonzero(transfer.dst_elements == dst_element)
    if hits.size == 0:
        return f"dst element {dst_element}, which the call does not write"
    src, dst = _slices(call)["src"], _slices(call)["dst"]
    shape = (*reversed(dst.counts[1:]), dst.counts[0], src.length)
    index = np.unravel_index(int(hits[0]), shape)
    rows, slice_, element = index[:-2][::-1], index[-2], index[-1]  # rows[0] is j1 (dimension 1)
    text = f"slice {slice_}, element {element}"
    if len(rows) == 1:
        return f"row (j={rows[0]}), {text}"
    if rows:
        return "row (" + ", ".join(f"j{d}={j}" for d, j in enumerate(rows, start=1)) + f"), {text}"
    return text


def bit_flips(call: Call, field: str, bit: int) -> list[dict[str, Any]]:
    """Clear one bit of dimValue (the outer dimensions go with it) or of a SliceInfo member, in each dimension
    of the operand that sets it, keeping every slice count: a startIndex, endIndex or stride moves endIndex
    (and for endIndex, startIndex) along so that the slices keep their number and length; a dimension-0
    burstLen changes on both operands (they must be equal), their endIndex with it; a shapeValue changes alone."""
    params, delta = call.params, 1 << bit
    if field == "dimValue":
        dims = params["dimValue"]
        if not dims >> bit & 1:
            return []
        kept = dims - delta
        return [{**params, "dimValue": kept, **{key: params[key][:kept] for _, key in OPERANDS}}]
    key, _, member = field.partition(MEMBER)
    slices = _slices(call)
    flips = []
    for d, info in enumerate(params[key]):
        if not info[member] >> bit & 1:
            continue
        if member == "burstLen":
            if d:   # 1 in every outer dimension: cleared, it is 0 (illegal), nothing to keep
                flips.append(_with_info(params, key, d, burstLen=info["burstLen"] - delta))
                continue
            elements = delta * call.api.constant("datablock_bytes") // call.src_dtype.size
            changed = dict(params)
            for operand, other_key in OPERANDS:
                first = params[other_key][0]
                count = slices[operand].counts[0] if slices[operand].counts else 0
                changed = _with_info(changed, other_key, 0, burstLen=first["burstLen"] - delta,
                                     endIndex=first["endIndex"] - count * elements)
            flips.append(changed)
            continue
        moved = {"startIndex": {"startIndex": -delta, "endIndex": -delta},
                 "endIndex": {"startIndex": -delta, "endIndex": -delta},
                 "shapeValue": {"shapeValue": -delta}}.get(member)
        if member == "stride":
            operand = "src" if key == OPERANDS[0][1] else "dst"
            counts = slices[operand].counts
            moved = {"stride": -delta, "endIndex": -delta * max((counts[d] if d < len(counts) else 1) - 1, 0)}
        assert moved is not None, f"{member} is a member of SliceInfo"
        flips.append(_with_info(params, key, d, **{name: info[name] + change for name, change in moved.items()}))
    return flips


def _with_info(params: Mapping[str, Any], key: str, dimension: int, **changes: int) -> dict[str, Any]:
    """`params` with some members of `key`[dimension] changed."""
    infos = [dict(info) for info in params[key]]
    infos[dimension].update(changes)
    return {**params, key: infos}


# --- misread fields and DataCopySlice's own bug classes (reference.hypotheses) ------------------------------------

def read_as(call: Call, field: str, read: Read) -> dict[str, Any] | None:
    """dimValue read otherwise (the arrays cut to it where it reads fewer), or one SliceInfo member read otherwise
    in every dimension of both operands (`SliceInfo.<member>`), keeping every slice count and length as
    `bit_flips` does: a startIndex moves its endIndex along, an endIndex its startIndex, a stride the endIndex by
    the stride's change over the slices, a dimension-0 burstLen the endIndex by the slices' change in length."""
    params = call.params
    if field == "dimValue":
        dims = read(params["dimValue"])
        if dims == params["dimValue"]:
            return None
        return {**params, "dimValue": dims, **{key: params[key][:max(dims, 0)] for _, key in OPERANDS}}
    struct, _, member = field.partition(MEMBER)
    return _members_read(call, member, read) if struct == "SliceInfo" else None


def _members_read(call: Call, member: str, read: Read,
                  dimensions: Callable[[int], bool] = lambda d: True) -> dict[str, Any] | None:
    """The parameters with `member` read through `read` in the chosen dimensions of both operands (read_as)."""
    params, slices = call.params, _slices(call)
    block_elements = call.api.constant("datablock_bytes") // call.src_dtype.size
    changed = dict(params)
    for operand, key in OPERANDS:
        counts = slices[operand].counts
        for d, info in enumerate(params[key]):
            seen = read(info[member])
            if seen == info[member] or not dimensions(d):
                continue
            delta, count = seen - info[member], counts[d] if d < len(counts) else 1
            moved = {"startIndex": {"endIndex": delta}, "endIndex": {"startIndex": delta},
                     "stride": {"endIndex": delta * max(count - 1, 0)},
                     "burstLen": {"endIndex": delta * count * block_elements} if d == 0 else {}}.get(member, {})
            changed = _with_info(changed, key, d, **{member: seen},
                                 **{name: changed[key][d][name] + change for name, change in moved.items()})
    return changed if changed != dict(params) else None


def _packed(dimensions: Callable[[int], bool]) -> Callable[[Call], Twin | None]:
    """The strides of the chosen dimensions read as 0 (slices or rows back to back), the counts kept."""
    def twin(call: Call) -> Twin | None:
        params = _members_read(call, "stride", lambda stride: 0, dimensions)
        return None if params is None else Twin(with_params(call, params))
    return twin


def _strides_said(dimensions: Callable[[int], bool]) -> Callable[[Call], str]:
    return lambda call: ", ".join(f"{key}[{d}].stride {info['stride']}" for _, key in OPERANDS
                                  for d, info in enumerate(call.params[key]) if dimensions(d) and info["stride"])


MISREADINGS: tuple[Misreading, ...] = (
    Misreading("slices-packed", "the slices of a row taken as packed (the dimension-0 stride read as 0)",
               _packed(lambda d: d == 0), _strides_said(lambda d: d == 0)),
    Misreading("rows-packed", "the rows of outer dimensions taken as packed (their strides read as 0)",
               _packed(lambda d: d > 0), _strides_said(lambda d: d > 0)),
)
