"""What a twin of a call does (reference.misreading.Twin): the bytes it leaves in the case's regions, the rules a
validating target names refusing it, whether its accesses leave the regions; each computed once per call.

A `Probe` is one call looked at under many hypotheses. A target that misreads a call trusts what it computed:
its writes outside the case's regions are lost and its reads from outside them bring bytes the case does not
hold (`unknown`, as reference.transfer.through_regions has them); a validating one may instead refuse the
call it made, naming the rules that call breaks (the regions' bounds among them), or fail outright where its
accesses overrun. Twins with the same key (the same parameters, addresses, units, checks) are computed once.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

import numpy as np

from ascendc_conformance.format.case import Region
from ascendc_conformance.reference import BOUNDS, CAPACITY
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.legality import static_breaches
from ascendc_conformance.reference.misreading import Twin, TwinKey
from ascendc_conformance.reference.transfer import (Extent, Transfer, apply, extents, regions_of, through_regions,
                                                     uncovered)

MEMORY_RULES = frozenset({BOUNDS, CAPACITY})
SLACK_ELEMENTS = 1 << 16   # elements any twin may move, whatever the case's regions hold
OFFSET_LIMIT = 1 << 63     # element offsets a twin may reach (numpy computes them in int64)


@dataclass(frozen=True)
class Image:
    """The case's regions after a twin, as a target that trusts it leaves them (the bytes it writes outside them
    lost), with per region key the bytes it wrote from outside the case (`unknown`: any but the right ones) and
    the bytes it clobbered past its last write (`loose`: anything)."""

    memory: Mapping[str, Region]
    unknown: Mapping[str, np.ndarray]
    loose: Mapping[str, np.ndarray]


class Probe:
    """One call under hypotheses: what it moves and breaks itself, and what each distinct twin of it does."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.module = module_for(call.api)
        self._transfers: dict[TwinKey, Transfer | None] = {}
        self._overruns: dict[TwinKey, tuple[bool, frozenset[str]]] = {}
        self._refusals: dict[TwinKey, frozenset[str] | None] = {}
        self._images: dict[TwinKey, Image] = {}

    @cached_property
    def itself(self) -> Twin:
        """The call as the reference makes it: the twin no hypothesis changes."""
        return Twin(self.call)

    @property
    def transfer(self) -> Transfer | None:
        """What the call itself moves (its plan; None where too large to compute, see transfer_of)."""
        return self.transfer_of(self.itself)

    @property
    def refusal(self) -> frozenset[str] | None:
        """The rules the call itself breaks (None: legal)."""
        return self.refusal_of(self.itself)

    @cached_property
    def _most_elements(self) -> int:
        """More elements than a twin can move and still be computed: every element takes a byte, so a transfer of
        more than twice the bytes of the case's regions leaves them far behind (an illegal call's huge count)."""
        return 2 * sum(len(region.data) for region in self.call.case.memory.values()) + SLACK_ELEMENTS

    def transfer_of(self, twin: Twin) -> Transfer | None:
        """What the twin moves; None where the reference cannot say: slices that no longer map one to one, more
        elements than the case's regions could hold (its accesses then count as leaving them), element offsets
        beyond 64 bits (a misread shape multiplied up)."""
        key = twin.key
        if key not in self._transfers:
            self._transfers[key] = self._computable(twin)
        return self._transfers[key]

    def _computable(self, twin: Twin) -> Transfer | None:
        try:
            transfer = twin.transfer if twin.transfer is not None else self.module.plan(twin.call)
        except OverflowError:   # numpy's int64 arithmetic on offsets past 64 bits
            return None
        grid = transfer.grid
        if grid is not None:
            axes = list(zip(grid.shape, grid.src_strides, grid.dst_strides))
            reach = abs(grid.src_offset) + abs(grid.dst_offset) + sum(
                max(count - 1, 1) * (abs(src) + abs(dst)) for count, src, dst in axes)
            return transfer if grid.size <= self._most_elements and reach < OFFSET_LIMIT else None
        one_to_one = transfer.src_elements.size == transfer.dst_elements.size
        return transfer if one_to_one and transfer.size <= self._most_elements else None

    def overruns(self, twin: Twin) -> bool:
        """Whether the twin's accesses leave the case's regions (an unchecked copy writes or reads elsewhere)."""
        return self._memory(twin)[0]

    def refusal_of(self, twin: Twin) -> frozenset[str] | None:
        """The rules a target that checks the call it makes names refusing it: those it breaks under the call's
        reading, the regions' bounds and the capacities among them, but the ones it leaves unchecked; a
        too-strict validator's own (`Twin.refuses`). None where it accepts the call."""
        key = twin.key
        if key in self._refusals:
            return self._refusals[key]
        if twin.refuses is not None:
            rules = frozenset(twin.refuses)
        else:
            call = twin.call
            broken = {breach.rule.id for breach in static_breaches(call, module_for(call.api).RELATIONS)
                      if breach.illegal(call) and breach.disputed_by not in twin.unchecked}
            rules = frozenset(broken | self._memory(twin)[1]) - twin.unchecked
        self._refusals[key] = refused = rules if rules or twin.refuses is not None else None
        return refused

    def changes(self, twin: Twin) -> bool:
        """Whether a target making this twin answers otherwise than the reference could: it moves other elements
        (or into another dtype, or clobbers bytes), or it refuses otherwise. False for a twin the reference
        cannot compute."""
        transfer, own = self.transfer_of(twin), self.transfer
        if transfer is None:
            return False
        if own is None or twin.spill or twin.call.dst_dtype != self.call.dst_dtype or not _alike(own, transfer):
            return True
        return self.refusal_of(twin) != self.refusal

    def writes(self, twin: Twin) -> Extent | None:
        """The destination bytes the twin's writes span, its clobbered bytes included (None: it writes none)."""
        transfer = self.transfer_of(twin)
        span = extents(twin.call, transfer)[1] if transfer is not None else None
        return span if span is None or not twin.spill else span._replace(stop=span.stop + twin.spill)

    def byte_at(self, twin: Twin, address: int) -> int | None:
        """The byte the twin leaves at absolute `address` of the destination memory, cheaply (without the whole
        image): None where it is unknown (read from outside the case, converted, clobbered) or outside the case's
        regions. The last write to an element wins, as in the image. Only for a twin that `changes` the call."""
        call, transfer = twin.call, self._computed(twin)
        span = extents(call, transfer)[1]
        if twin.spill and span is not None and span.stop <= address < span.stop + twin.spill:
            return None
        element, within = divmod(address - call.case.dst.address, call.dst_dtype.size)
        source = _source_of(transfer, element) if span is not None else None
        if source is None:
            return _byte(call.case.memory, call.memory("dst"), address)
        if call.src_dtype.name != call.dst_dtype.name:
            return None
        return _byte(call.case.memory, call.memory("src"), call.case.src.address + source * call.src_dtype.size + within)

    def image(self, twin: Twin) -> Image:
        """The case's regions after the twin (see Image). Only for a twin that `changes` the call."""
        key = twin.key
        found = self._images.get(key)
        if found is None:
            found = self._images[key] = self._image(twin)
        return found

    def _computed(self, twin: Twin) -> Transfer:
        """What a twin that `changes` the call moves (a twin the reference cannot compute changes nothing)."""
        transfer = self.transfer_of(twin)
        assert transfer is not None, "only a twin the reference computes is asked what it leaves"
        return transfer

    def _image(self, twin: Twin) -> Image:
        call, transfer = twin.call, self._computed(twin)
        unknown: dict[str, np.ndarray]
        if transfer.size == 0:
            memory, unknown = dict(call.case.memory), {}
        elif self.overruns(twin):
            memory, unknown = through_regions(call, transfer)
        else:
            memory, unknown = apply(call, transfer), {}
        loose = self._clobbered(twin, memory) if twin.spill else {}
        return Image(MappingProxyType(memory), MappingProxyType(unknown), MappingProxyType(loose))

    def _clobbered(self, twin: Twin, memory: Mapping[str, Region]) -> dict[str, np.ndarray]:
        """The `spill` bytes after the twin's last written byte, in the region that holds them."""
        span = extents(twin.call, self._computed(twin))[1]
        assert span is not None, "a twin that clobbers past its last write writes something"
        loose = {}
        for key, region in regions_of(memory, twin.call.memory("dst")):
            start, stop = max(span.stop, region.address), min(span.stop + twin.spill, region.end)
            if start < stop:
                mask = np.zeros(len(region.data), dtype=bool)
                mask[start - region.address:stop - region.address] = True
                loose[key] = mask
        return loose

    def _memory(self, twin: Twin) -> tuple[bool, frozenset[str]]:
        """(whether the twin's accesses leave the regions, the memory rules it breaks: the bounds, a capacity)."""
        key = twin.key
        found = self._overruns.get(key)
        if found is None:
            found = self._overruns[key] = self._memory_breaches(twin)
        return found

    def _memory_breaches(self, twin: Twin) -> tuple[bool, frozenset[str]]:
        call, transfer = twin.call, self.transfer_of(twin)
        if transfer is None:   # too many elements to compute: far outside the regions
            return True, frozenset({BOUNDS})
        outside, broken = False, set()
        for operand, span in zip(("src", "dst"), extents(call, transfer)):
            if span is None:
                continue
            regions = [region for _, region in regions_of(call.case.memory, span.memory)]
            if not any(region.contains(span.start, span.stop) for region in regions) and (
                    not call.sparse or not regions or uncovered(call, operand, transfer) is not None):
                outside = True
                broken.add(BOUNDS)
            capacity = call.product.capacities.get(span.memory)
            if capacity is not None and (span.start < 0 or span.stop > call.reading.capacity(
                    capacity, call.spec.rule(capacity.rule).dispute if capacity.rule else None)):
                broken.add(CAPACITY)
        return outside, frozenset(broken)


def _byte(memory: Mapping[str, Region], name: str, address: int) -> int | None:
    """The byte at absolute `address` of memory `name` in the case's regions (None: no region holds it)."""
    for _, region in regions_of(memory, name):
        if region.address <= address < region.end:
            return region.data[address - region.address]
    return None


def _alike(first: Transfer, second: Transfer) -> bool:
    """Cheaply certain that two transfers move alike (the same object, or the same grid); False may still move
    alike (reference.bit_witness.same_moves would tell, at the cost of sorting every element): a twin that moves like
    the call predicts the reference's answer, which no failing answer matches, so doubt costs time only."""
    return first is second or (first.grid is not None and first.grid == second.grid)


def _source_of(transfer: Transfer, element: int) -> int | None:
    """The source element that the transfer's last write to destination `element` reads (None: none writes it):
    from the grid's strides where they decide it (the lowest or the highest element written, or any of a grid
    that writes each element once), else from the element arrays."""
    grid = transfer.grid
    if grid is not None and grid.size and min(grid.dst_strides, default=0) >= 0:
        walked = [axis for axis, count in enumerate(grid.shape) if count > 1]
        last = [count - 1 for count in grid.shape]
        if element == grid.dst_offset and all(grid.dst_strides[axis] for axis in walked):
            return grid.src_offset   # only the first point writes the lowest element
        if element == grid.dst_offset + sum(n * d for n, d in zip(last, grid.dst_strides)):
            # the last point writes the highest
            return grid.src_offset + sum(n * s for n, s in zip(last, grid.src_strides))
        if grid.dst_injective():
            rest, source = element - grid.dst_offset, grid.src_offset
            for axis in sorted(walked, key=grid.dst_strides.__getitem__, reverse=True):
                step = min(rest // grid.dst_strides[axis], grid.shape[axis] - 1) if rest >= 0 else 0
                rest, source = rest - step * grid.dst_strides[axis], source + step * grid.src_strides[axis]
            return source if rest == 0 else None
    hits = np.flatnonzero(transfer.dst_elements == element)
    return int(transfer.src_elements[hits[-1]]) if hits.size else None
