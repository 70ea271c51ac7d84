"""Where a legal call writes, byte by byte, and which part of its parameters each written byte belongs to.

`explain(case)` turns a case the reference answers "ok" into an `Explanation`: the absolute address of the first
byte of every element the call writes, in the API's plan order, and a `locate(address)` that names the burst /
row / fractal behind a destination byte ("burst 1 (of 2), element 5, byte 1"). The verdict layer uses it to tell
a byte the call must not touch from one it must write (ascendc_conformance.judge.diff), element by element: no
array of every byte's address (eight bytes of index for each byte moved) is made.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ascendc_conformance.format.case import Case
from ascendc_conformance.reference import legal_plan
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.transfer import Transfer, element_addresses
from ascendc_conformance.spec.model import Reading, Spec


@dataclass(frozen=True, eq=False)
class Explanation:
    """The elements one legal call touches, worked out when first asked. Addresses are absolute; entry i of any
    array is element i of the plan."""

    call: Call = field(repr=False)
    transfer: Transfer = field(repr=False)

    @property
    def dst_memory(self) -> str:
        return self.call.memory("dst")

    @property
    def src_memory(self) -> str:
        return self.call.memory("src")

    @cached_property
    def dst_starts(self) -> np.ndarray:
        """The address of the first byte of each destination element, as uint64."""
        return element_addresses(self.call, "dst", self.transfer.dst_elements)

    @cached_property
    def _sorted(self) -> np.ndarray:
        """`dst_starts` in address order (elements of one size: the last start at or below a byte is the only
        element that may hold it, and ends the last one written below it)."""
        return np.sort(self.dst_starts)

    @property
    def dst_size(self) -> int:
        return self.call.dst_dtype.size

    def _at_or_below(self, address: int) -> int:
        """The index in `_sorted` of the last element starting at or below `address` (-1: none)."""
        return int(np.searchsorted(self._sorted, np.uint64(address), side="right")) - 1

    def writes(self, address: int) -> bool:
        """Whether the call writes the destination byte at `address`."""
        index = self._at_or_below(address)
        return index >= 0 and address < int(self._sorted[index]) + self.dst_size

    def locate(self, address: int, memory: str | None = None) -> str:
        """Describe the destination byte at `address` (of `memory`, default the destination memory).

        A written byte is named by the API ("burst 1 (of 2), element 5, byte 1"); any other byte by its
        distance from the nearest written one ("not written by the call, 3 B past (burst 1 (of 2), element 15,
        byte 1)").
        """
        if memory is not None and memory != self.dst_memory:
            role = "the call's source memory" if memory == self.src_memory else "a memory the call does not use"
            return f"{memory} byte {address}: {role}, not the destination ({self.dst_memory})"
        if self._sorted.size == 0:
            return f"byte {address}: the call writes nothing"
        if self.writes(address):
            return self._written(address)
        index = self._at_or_below(address)
        if index < 0:
            first = int(self._sorted[0])
            return f"not written by the call, {first - address} B before the first written byte ({self._written(first)})"
        previous = int(self._sorted[index]) + self.dst_size - 1
        last = " the last written byte" if index == self._sorted.size - 1 else ""
        return f"not written by the call, {address - previous} B past{last} ({self._written(previous)})"

    def _written(self, address: int) -> str:
        size = self.dst_size
        element, byte = divmod(address - self.call.case.dst.address, size)
        text = module_for(self.call.api).locate(self.call, element)
        return f"{text}, byte {byte}" if size > 1 else text


def explain(case: Case, spec: Spec, reading: Reading | None = None) -> Explanation | None:
    """The bytes the call of `case` touches under `reading` (default: the seed reading), or None when the
    reference does not answer "ok" for it."""
    legal = legal_plan(case, spec, reading)
    if legal is None:
        return None
    call, transfer = legal
    return Explanation(call=call, transfer=transfer)
