"""Moving the bytes: bounds and capacity checks, overlap detection, and the vectorised copy itself.

An API module turns a legal call into a `Transfer`: for every element moved, its index in the source and
its index in the destination (in elements of each operand's dtype, from the operand's start address).
Everything else — where those elements sit in the case's regions, whether they fit, whether the call
overlaps itself — is the same for every API and lives here.

Every API's element map is affine in a few loop counters (burst and element; repeat, row and column; ...),
so the modules describe it as a `Grid` — a shape and, per operand, an offset and one stride per axis — and
the per-element index arrays are only built when someone asks for them. With a grid the extents are two
sums, the copy is one strided numpy assignment (memcpy speed for contiguous runs) and whether the writes
hit the same element twice is decided from the strides; only the rare shapes the shortcuts cannot decide
fall back to the exact element-array checks. A `Transfer` made from explicit element arrays (as the buggy
test targets build them) takes the array path throughout, with identical results.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from conformance.case import Region
from reference.call import Call

# numpy types for the one conversion the APIs do (DataCopy C1 -> C2 half -> float); every other transfer
# copies bytes, whatever the dtype.
_FLOAT_BY_SIZE = {2: np.float16, 4: np.float32, 8: np.float64}


@dataclass(frozen=True)
class Grid:
    """Element i of the plan (C order over `shape`) is src element src_offset + sum(index*src_strides), and
    dst element dst_offset + sum(index*dst_strides); strides and offsets count elements of each dtype."""

    shape: tuple[int, ...]
    src_offset: int
    src_strides: tuple[int, ...]
    dst_offset: int
    dst_strides: tuple[int, ...]

    def __post_init__(self) -> None:
        shape = tuple(max(int(count), 0) for count in self.shape)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "_size", math.prod(shape))
        object.__setattr__(self, "_spans", {"src": self._span(self.src_offset, self.src_strides),
                                            "dst": self._span(self.dst_offset, self.dst_strides)})

    @property
    def size(self) -> int:
        return self._size

    def elements(self, operand: str) -> np.ndarray:
        offset, strides = ((self.src_offset, self.src_strides) if operand == "src"
                           else (self.dst_offset, self.dst_strides))
        total = np.full((1,) * len(self.shape), offset, dtype=np.int64)
        for axis, (count, stride) in enumerate(zip(self.shape, strides)):
            shape = [1] * len(self.shape)
            shape[axis] = count
            total = total + (np.arange(count, dtype=np.int64) * stride).reshape(shape)
        return np.broadcast_to(total, self.shape).ravel() if self.shape else total.ravel()

    def span(self, operand: str) -> tuple[int, int] | None:
        """The lowest and highest element index the operand's accesses reach (None when nothing moves)."""
        return self._spans[operand]

    def _span(self, offset: int, strides: tuple[int, ...]) -> tuple[int, int] | None:
        if self._size == 0:
            return None
        low = high = offset
        for count, stride in zip(self.shape, strides):
            reach = (count - 1) * stride
            if reach < 0:
                low += reach
            else:
                high += reach
        return low, high

    def dense_dst_order(self) -> tuple[int, ...] | None:
        """The axes in descending destination stride when the writes tile [lowest, highest] exactly once
        (C-contiguous in that order; axes of one point do not count); None otherwise."""
        order = tuple(sorted(range(len(self.shape)), key=lambda axis: -self.dst_strides[axis]))
        expected = 1
        for axis in reversed(order):
            if self.shape[axis] == 1:
                continue
            if self.dst_strides[axis] != expected:
                return None
            expected *= self.shape[axis]
        return order

    def dst_injective(self) -> bool | None:
        """True when no two grid points write the same destination element; None when the strides alone
        cannot tell (the caller then checks the element array)."""
        axes = sorted((abs(stride), count) for count, stride in zip(self.shape, self.dst_strides) if count > 1)
        reach = 0
        for stride, count in axes:
            if stride <= reach:
                return None if stride else False
            reach += (count - 1) * stride
        return True


class Transfer:
    """The elements a call moves: explicit index arrays, or a `Grid` whose arrays are built on demand."""

    __slots__ = ("_src", "_dst", "depends_on", "grid")

    def __init__(self, src_elements: np.ndarray | None = None, dst_elements: np.ndarray | None = None,
                 depends_on: tuple[str, ...] = (), grid: Grid | None = None) -> None:
        if grid is None and (src_elements is None or dst_elements is None):
            raise TypeError("a Transfer needs src_elements and dst_elements, or a grid")
        self._src, self._dst = src_elements, dst_elements
        self.depends_on = tuple(depends_on)
        self.grid = grid

    @property
    def src_elements(self) -> np.ndarray:
        if self._src is None:
            self._src = self.grid.elements("src")
        return self._src

    @property
    def dst_elements(self) -> np.ndarray:
        if self._dst is None:
            self._dst = self.grid.elements("dst")
        return self._dst

    @property
    def size(self) -> int:
        return self.grid.size if self.grid is not None else int(self.dst_elements.size)

    def elements(self, operand: str) -> np.ndarray:
        return self.src_elements if operand == "src" else self.dst_elements

    def __repr__(self) -> str:
        if self.grid is not None:
            return f"Transfer({self.grid!r}, depends_on={self.depends_on!r})"
        return f"Transfer(src_elements={self._src!r}, dst_elements={self._dst!r}, depends_on={self.depends_on!r})"


@dataclass(frozen=True)
class Extent:
    """The absolute bytes [start, stop) an operand's accesses span in its memory."""

    memory: str
    start: int
    stop: int


def extent(call: Call, operand: str, transfer: Transfer) -> Extent | None:
    """The bytes an operand's accesses span (None when the call moves nothing)."""
    if transfer.grid is not None:
        span = transfer.grid.span(operand)
    else:
        elements = transfer.elements(operand)
        span = (int(elements.min()), int(elements.max())) if elements.size else None
    if span is None:
        return None
    size = call.dtype(operand).size
    base = call.operand(operand).address
    return Extent(call.memory(operand), base + span[0] * size, base + (span[1] + 1) * size)


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
    if transfer.grid is not None:
        injective = transfer.grid.dst_injective()
        if injective is not None:
            return not injective
    elements = np.sort(transfer.dst_elements)
    return bool(elements.size > 1 and np.any(elements[1:] == elements[:-1]))


def apply(call: Call, transfer: Transfer) -> dict[str, Region]:
    """Every region of the case after the call: a copy of the pre-call image with the moved elements written."""
    memory = {name: region for name, region in call.case.memory.items()}
    if transfer.size == 0:
        return memory
    src_region = call.case.memory[call.src_memory]
    dst_region = call.case.memory[call.dst_memory]
    grid = transfer.grid
    if grid is not None and _inside(call, transfer, "src", src_region) and _inside(call, transfer, "dst", dst_region):
        image = _apply_grid(call, grid, src_region, dst_region)
    else:
        image = _apply_elements(call, transfer, src_region, dst_region)
    memory[call.dst_memory] = Region(dst_region.address, image)
    return memory


def _inside(call: Call, transfer: Transfer, operand: str, region: Region) -> bool:
    """The operand's accesses lie in the region and its strides are non-negative (as every API's are),
    so that a strided view from its lowest byte is exactly the bytes it moves."""
    span = extent(call, operand, transfer)
    strides = transfer.grid.src_strides if operand == "src" else transfer.grid.dst_strides
    return span is not None and min(strides, default=0) >= 0 and region.contains(span.start, span.stop)


def _apply_grid(call: Call, grid: Grid, src_region: Region, dst_region: Region) -> bytes:
    """The move as strided numpy views (numpy checks that each stays inside its buffer).

    When the writes tile one contiguous stretch of the destination (no gaps), the new image is the bytes
    before it, the source gathered in destination order, and the bytes after it: one gather and one join
    (no join when the stretch is the whole region). Otherwise the moved elements are written into a copy."""
    src_size, dst_size = call.src_dtype.size, call.dst_dtype.size
    source, src_start = src_region.data, call.case.src.address - src_region.address + grid.src_offset * src_size
    src_strides = tuple(stride * src_size for stride in grid.src_strides)
    if call.src_dtype.name != call.dst_dtype.name:
        gathered = np.frombuffer(_runs_view(source, src_start, grid.shape, (src_strides,), src_size, 0).tobytes(),
                                 dtype=np.uint8)
        source, src_start = _convert(gathered.reshape(-1, src_size), src_size, dst_size), 0
        src_strides = _c_strides(grid.shape, dst_size)
    dst_start = call.case.dst.address - dst_region.address + grid.dst_offset * dst_size
    dst_strides = tuple(stride * dst_size for stride in grid.dst_strides)
    order = grid.dense_dst_order()
    if order is not None:
        shape = tuple(grid.shape[axis] for axis in order)
        strides = tuple(src_strides[axis] for axis in order)
        view = _runs_view(source, src_start, shape, (strides,), dst_size, 0)
        moved = view.tobytes()
        data = memoryview(dst_region.data)
        stop = dst_start + len(moved)
        return b"".join(part for part in (data[:dst_start], moved, data[stop:]) if len(part))
    image = np.frombuffer(dst_region.data, dtype=np.uint8).copy()
    pair = (src_strides, dst_strides)
    _runs_view(image, dst_start, grid.shape, pair, dst_size, 1)[...] = _runs_view(source, src_start, grid.shape,
                                                                                   pair, dst_size, 0)
    return image.tobytes()


# numpy types to move runs of these many bytes as one item (fast copy loops); other run lengths use void items.
_ITEM_BY_SIZE = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def _c_strides(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    strides, step = [], size
    for count in reversed(shape):
        strides.append(step)
        step *= count
    return tuple(reversed(strides))


def _runs_view(buffer, offset: int, shape: tuple[int, ...], strides: tuple[tuple[int, ...], ...], size: int,
               which: int) -> np.ndarray:
    """A view of `buffer` (byte strides strides[which]) whose items are the longest runs of bytes that are
    contiguous in every array of `strides` at once: the element, widened by each innermost axis that
    continues it everywhere. numpy then moves one run per item instead of one byte or element."""
    axes = [(count, tuple(s[axis] for s in strides)) for axis, count in enumerate(shape) if count != 1]
    run = size
    while axes and all(stride == run for stride in axes[-1][1]):
        run *= axes.pop()[0]
    item = _ITEM_BY_SIZE.get(run) or np.dtype(f"V{run}")
    return np.ndarray(tuple(count for count, _ in axes), dtype=item, buffer=buffer, offset=offset,
                      strides=tuple(s[which] for _, s in axes))


def _apply_elements(call: Call, transfer: Transfer, src_region: Region, dst_region: Region) -> bytes:
    src_size, dst_size = call.src_dtype.size, call.dst_dtype.size
    src_offsets = byte_addresses(call, "src", transfer.src_elements) - src_region.address
    values = np.frombuffer(src_region.data, dtype=np.uint8)[src_offsets]
    if call.src_dtype.name != call.dst_dtype.name:
        values = _convert(values, src_size, dst_size)
    image = np.frombuffer(dst_region.data, dtype=np.uint8).copy()
    image[byte_addresses(call, "dst", transfer.dst_elements) - dst_region.address] = values
    return image.tobytes()


def _convert(values: np.ndarray, src_size: int, dst_size: int) -> np.ndarray:
    """Widen floating-point elements (shaped (n, src_size) bytes) exactly, little-endian."""
    source = np.ascontiguousarray(values).view(np.dtype(_FLOAT_BY_SIZE[src_size]).newbyteorder("<"))
    widened = source.astype(np.dtype(_FLOAT_BY_SIZE[dst_size]).newbyteorder("<"))
    return widened.view(np.uint8).reshape(-1, dst_size)
