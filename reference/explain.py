"""Where a legal call reads and writes, byte by byte, and which part of its parameters each written byte belongs to.

`explain(case)` turns a case the reference answers "ok" into an `Explanation`: the absolute address of every
byte the call writes (and reads), shaped (elements, size) in the API's plan order, and a `locate(address)`
that names the burst / row / fractal behind a destination byte ("burst 1 (of 2), element 5, byte 1"). The
verdict layer uses it to tell a byte the call must not touch from one it must write (ascendc_conformance.judge.diff).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ascendc_conformance.format.case import Case
from ascendc_conformance.reference import legal_plan
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.transfer import byte_addresses
from ascendc_conformance.spec.model import Reading, Spec


@dataclass(frozen=True, eq=False)
class Explanation:
    """The bytes one legal call touches. Addresses are absolute; row i of either array is element i of the plan."""

    dst_memory: str
    dst_addresses: np.ndarray
    src_memory: str
    src_addresses: np.ndarray
    call: Call = field(repr=False)
    _sorted: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sorted", np.sort(self.dst_addresses.ravel()))

    @property
    def dst_size(self) -> int:
        return self.call.dst_dtype.size

    def writes(self, address: int) -> bool:
        """Whether the call writes the destination byte at `address`."""
        position = int(np.searchsorted(self._sorted, address))
        return position < self._sorted.size and int(self._sorted[position]) == address

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
        position = int(np.searchsorted(self._sorted, address))
        if position == 0:
            first = int(self._sorted[0])
            return f"not written by the call, {first - address} B before the first written byte ({self._written(first)})"
        previous = int(self._sorted[position - 1])
        last = " the last written byte" if position == self._sorted.size else ""
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
    return Explanation(dst_memory=call.memory("dst"), dst_addresses=byte_addresses(call, "dst", transfer.dst_elements),
                       src_memory=call.memory("src"), src_addresses=byte_addresses(call, "src", transfer.src_elements),
                       call=call)
