"""Moving the bytes: bounds and capacity checks, overlap detection, and the vectorised copy itself.

An API module turns a legal call into a `Transfer`: for every element moved, its index in the source and
its index in the destination (in elements of each operand's dtype, from the operand's start address).
Everything else — where those elements sit in the case's regions, whether they fit, whether the call
overlaps itself — is the same for every API and lives here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from conformance.case import Region
from reference.call import Call

# numpy types for the one conversion the APIs do (DataCopy C1 -> C2 half -> float); every other transfer
# copies bytes, whatever the dtype.
_FLOAT_BY_SIZE = {2: np.float16, 4: np.float32, 8: np.float64}


@dataclass(frozen=True)
class Transfer:
    src_elements: np.ndarray
    dst_elements: np.ndarray
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class Extent:
    """The absolute bytes [start, stop) an operand's accesses span in its memory."""

    memory: str
    start: int
    stop: int


def extent(call: Call, operand: str, elements: np.ndarray) -> Extent | None:
    if elements.size == 0:
        return None
    size = call.dtype(operand).size
    base = call.operand(operand).address
    return Extent(call.memory(operand), base + int(elements.min()) * size, base + (int(elements.max()) + 1) * size)


def byte_addresses(call: Call, operand: str, elements: np.ndarray) -> np.ndarray:
    """Absolute byte address of every byte of every element, shaped (elements, size)."""
    size = call.dtype(operand).size
    return call.operand(operand).address + elements[:, None] * size + np.arange(size)


def overlaps(call: Call, transfer: Transfer, src: Extent | None, dst: Extent | None) -> bool:
    """Source and destination bytes of one call share a byte of the same memory."""
    if src is None or dst is None or src.memory != dst.memory or src.stop <= dst.start or dst.stop <= src.start:
        return False
    src_bytes = byte_addresses(call, "src", transfer.src_elements).ravel()
    dst_bytes = byte_addresses(call, "dst", transfer.dst_elements).ravel()
    return np.intersect1d(src_bytes, dst_bytes, assume_unique=False).size > 0


def self_overlaps(transfer: Transfer) -> bool:
    """Two destination writes hit the same element (and so the same bytes)."""
    return np.unique(transfer.dst_elements).size != transfer.dst_elements.size


def apply(call: Call, transfer: Transfer) -> dict[str, Region]:
    """Every region of the case after the call: a copy of the pre-call image with the moved elements written."""
    memory = {name: region for name, region in call.case.memory.items()}
    if transfer.dst_elements.size == 0:
        return memory
    src_region = call.case.memory[call.src_memory]
    dst_region = call.case.memory[call.dst_memory]
    src_size, dst_size = call.src_dtype.size, call.dst_dtype.size
    src_offsets = byte_addresses(call, "src", transfer.src_elements) - src_region.address
    values = np.frombuffer(src_region.data, dtype=np.uint8)[src_offsets]
    if call.src_dtype.name != call.dst_dtype.name:
        values = _convert(values, src_size, dst_size)
    image = np.frombuffer(dst_region.data, dtype=np.uint8).copy()
    image[byte_addresses(call, "dst", transfer.dst_elements) - dst_region.address] = values
    memory[call.dst_memory] = Region(dst_region.address, image.tobytes())
    return memory


def _convert(values: np.ndarray, src_size: int, dst_size: int) -> np.ndarray:
    """Widen floating-point elements (shaped (n, src_size) bytes) exactly, little-endian."""
    source = np.ascontiguousarray(values).view(np.dtype(_FLOAT_BY_SIZE[src_size]).newbyteorder("<"))
    widened = source.astype(np.dtype(_FLOAT_BY_SIZE[dst_size]).newbyteorder("<"))
    return widened.view(np.uint8).reshape(-1, dst_size)
