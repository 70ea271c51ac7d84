"""Moving the bytes: bounds and capacity checks, overlap detection, and the vectorised copy itself.

An API module turns a legal call into a `Transfer`: for every element moved, its index in the source and
its index in the destination (in elements of each operand's dtype, from the operand's start address).
Everything else — where those elements sit in the case's regions, whether they fit, whether the call
overlaps itself — is the same for every API and lives here.

Every API's element map is affine in a few loop counters (burst and element; repeat, row and column; ...),
so the modules describe it as a `Grid` — a shape and, per operand, an offset and one stride per axis — and
the per-element index arrays are only built when someone asks for them. With a grid the extents are two
sums (worked out once per call, `extents`), the copy moves runs of contiguous bytes — a few by slicing, many
through one strided numpy assignment (memcpy speed for contiguous runs) — and whether the writes hit the
same element twice is decided from the strides; only the rare shapes the shortcuts cannot decide fall back
to the exact element-array checks. A `Transfer` made from explicit element arrays (as the buggy test
targets build them) takes the array path throughout, with identical results.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ascendc_conformance.format.case import Region, memory_of, region_keys
from ascendc_conformance.reference.call import Call

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
        object.__setattr__(self, "shape", tuple([max(count, 0) for count in self.shape]))

    @property
    def size(self) -> int:
        return math.prod(self.shape)

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
        offset, strides = ((self.src_offset, self.src_strides) if operand == "src"
                           else (self.dst_offset, self.dst_strides))
        low = high = offset
        for count, stride in zip(self.shape, strides):
            if count == 0:
                return None
            reach = (count - 1) * stride
            if reach < 0:
                low += reach
            else:
                high += reach
        return low, high

    def dense_dst_order(self) -> list[int] | None:
        """The axes of more than one point in descending destination stride when the writes tile [lowest,
        highest] exactly once (C-contiguous in that order); None otherwise."""
        order = sorted([axis for axis, count in enumerate(self.shape) if count != 1],
                       key=self.dst_strides.__getitem__, reverse=True)
        expected = 1
        for axis in reversed(order):
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
            assert self.grid is not None, "a transfer has its grid or its element indices"
            self._src = self.grid.elements("src")
        return self._src

    @property
    def dst_elements(self) -> np.ndarray:
        if self._dst is None:
            assert self.grid is not None, "a transfer has its grid or its element indices"
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


class Extent(NamedTuple):
    """The absolute bytes [start, stop) an operand's accesses span in its memory."""

    memory: str
    start: int
    stop: int


# The (src, dst) extents of one call, computed once by the caller and handed to every check that needs them.
Extents = tuple[Extent | None, Extent | None]


def extents(call: Call, transfer: Transfer) -> Extents:
    """The bytes the source's and the destination's accesses span (None when the call moves nothing)."""
    case = call.case
    return (_extent(call.memory("src"), case.src.address, call.src_dtype.size, _span(transfer, "src")),
            _extent(call.memory("dst"), case.dst.address, call.dst_dtype.size, _span(transfer, "dst")))


def _span(transfer: Transfer, operand: str) -> tuple[int, int] | None:
    if transfer.grid is not None:
        return transfer.grid.span(operand)
    elements = transfer.elements(operand)
    return (int(elements.min()), int(elements.max())) if elements.size else None


def _extent(memory: str, address: int, size: int, span: tuple[int, int] | None) -> Extent | None:
    return None if span is None else Extent(memory, address + span[0] * size, address + (span[1] + 1) * size)


def element_addresses(call: Call, operand: str, elements: np.ndarray) -> np.ndarray:
    """Absolute address of the first byte of every element, as uint64: GM addresses reach 2**64 - 1, and modular
    arithmetic keeps an access below a tensor's start right."""
    return np.uint64(call.operand(operand).address) + (elements * call.dtype(operand).size).astype(np.uint64)


def byte_addresses(call: Call, operand: str, elements: np.ndarray) -> np.ndarray:
    """Absolute byte address of every byte of every element, shaped (elements, size), as uint64."""
    size = call.dtype(operand).size
    return element_addresses(call, operand, elements)[:, None] + np.arange(size, dtype=np.uint64)


def overlaps(call: Call, transfer: Transfer, src: Extent | None, dst: Extent | None) -> bool:
    """Source and destination bytes of one call share a byte of the same memory."""
    if src is None or dst is None or src.memory != dst.memory or src.stop <= dst.start or dst.stop <= src.start:
        return False
    src_bytes = byte_addresses(call, "src", transfer.src_elements).ravel()
    dst_bytes = byte_addresses(call, "dst", transfer.dst_elements).ravel()
    return np.intersect1d(src_bytes, dst_bytes, assume_unique=False).size > 0


def self_overlaps(transfer: Transfer) -> bool:
    """Two destination writes hit the same element (and so the same bytes)."""
    if transfer.size == 0:   # e.g. bursts of blockLen 0: nothing is written at all
        return False
    if transfer.grid is not None:
        injective = transfer.grid.dst_injective()
        if injective is not None:
            return not injective
    elements = np.sort(transfer.dst_elements)
    return bool(elements.size > 1 and np.any(elements[1:] == elements[:-1]))


def apply(call: Call, transfer: Transfer, spans: Extents | None = None) -> dict[str, Region]:
    """Every region of the case after the call: a copy of the pre-call image with the moved elements written.

    `spans` are the call's extents when the caller already has them (see `extents`)."""
    memory = dict(call.case.memory)
    if transfer.size == 0:
        return memory
    if call.sparse:
        return _apply_sparse(call, transfer, memory)
    src_region = memory[call.memory("src")]
    dst_region = memory[call.memory("dst")]
    grid = transfer.grid
    if grid is not None and _viewable(grid, spans or extents(call, transfer), src_region, dst_region):
        image = _apply_grid(call, grid, src_region, dst_region)
    else:
        image = _apply_elements(call, transfer, src_region, dst_region)
    memory[call.memory("dst")] = Region(dst_region.address, image)
    return memory


def _viewable(grid: Grid, spans: Extents, src_region: Region, dst_region: Region) -> bool:
    """Both operands' accesses lie in their regions and their strides are non-negative (as every API's are),
    so that a strided view from each one's lowest byte is exactly the bytes it moves."""
    return _inside(spans[0], grid.src_strides, src_region) and _inside(spans[1], grid.dst_strides, dst_region)


def _inside(span: Extent | None, strides: tuple[int, ...], region: Region) -> bool:
    return span is not None and min(strides, default=0) >= 0 and region.contains(span.start, span.stop)


class _Runs(NamedTuple):
    """A grid's moves as runs of `length` bytes contiguous in every operand at once: the element, widened by
    each innermost axis that continues it everywhere; the remaining axes have `counts` points, and
    `strides[k]` holds their byte strides in operand k."""

    length: int
    counts: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]

    def starts(self, offset: int, which: int) -> list[int]:
        """The byte offset of every run in operand `which`, in C order over the axes."""
        starts = [offset]
        for count, stride in zip(self.counts, self.strides[which]):
            starts = [start + i * stride for start in starts for i in range(count)]
        return starts


def _runs(shape: tuple[int, ...], strides: Sequence[Sequence[int]], size: int, axes: Sequence[int]) -> _Runs:
    """The runs of `size`-byte elements over `axes` (outermost first; axes of one point may be left out) of a
    grid of `shape` whose operands have these byte strides."""
    axes = [axis for axis in axes if shape[axis] != 1]
    length = size
    while axes and all(operand[axes[-1]] == length for operand in strides):
        length *= shape[axes.pop()]
    if not axes:   # one run: the move is contiguous in every operand
        return _Runs(length, (), ((),) * len(strides))
    return _Runs(length, tuple([shape[axis] for axis in axes]),
                tuple([tuple([operand[axis] for axis in axes]) for operand in strides]))


# Up to this many runs, slicing bytes in Python is quicker than building numpy views (a view costs about as
# much as slicing a dozen runs); the two give the same bytes (tests/test_reference_paths.py).
FEW_RUNS = 12

# numpy types to move runs of these many bytes as one item (fast copy loops); other run lengths use void items.
_ITEM_BY_SIZE: dict[int, np.dtype[Any]] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}


def _view(buffer: bytes | bytearray, offset: int, runs: _Runs, which: int) -> np.ndarray:
    """The runs of operand `which` in `buffer` (its bytes from `offset`) as a strided numpy view, one run
    per item, so that numpy moves a run at a time instead of a byte or an element."""
    item = _ITEM_BY_SIZE.get(runs.length) or np.dtype(f"V{runs.length}")
    return np.ndarray(runs.counts, dtype=item, buffer=buffer, offset=offset, strides=runs.strides[which])


def _pieces(source: bytes, offset: int, runs: _Runs) -> list[Any]:
    """The runs of operand 0 in `source`, in order, as buffers to join: zero-copy slices of `source` when
    there are few, else one gathered copy (numpy moves many short runs far quicker than a join)."""
    if math.prod(runs.counts) <= FEW_RUNS:
        length, whole = runs.length, memoryview(source)
        return [whole[start:start + length] for start in runs.starts(offset, 0)]
    return [_view(source, offset, runs, 0).tobytes()]


def _scatter(image: bytearray, dst_offset: int, source: bytes, src_offset: int, runs: _Runs) -> None:
    """Copy every run of operand 0 in `source` onto the same run of operand 1 in `image`."""
    if math.prod(runs.counts) <= FEW_RUNS:
        length = runs.length
        for src, dst in zip(runs.starts(src_offset, 0), runs.starts(dst_offset, 1)):
            image[dst:dst + length] = source[src:src + length]
    else:
        _view(image, dst_offset, runs, 1)[...] = _view(source, src_offset, runs, 0)


def _apply_grid(call: Call, grid: Grid, src_region: Region, dst_region: Region) -> bytes:
    """The move as runs of contiguous bytes (see `_Runs`), sliced in Python when there are few and copied
    through strided numpy views otherwise (numpy checks that each view stays inside its buffer).

    When the writes tile one contiguous stretch of the destination (no gaps), the new image is the bytes
    before it, the source's runs in destination order, and the bytes after it, joined: one copy of the region
    when the runs are few (else a gather and the join). Otherwise the moved elements are written into a copy."""
    src_size, dst_size = call.src_dtype.size, call.dst_dtype.size
    source, src_start = src_region.data, call.case.src.address - src_region.address + grid.src_offset * src_size
    src_strides = [stride * src_size for stride in grid.src_strides]
    every_axis = range(len(grid.shape))
    if call.src_dtype.name != call.dst_dtype.name:
        pieces = _pieces(source, src_start, _runs(grid.shape, (src_strides,), src_size, every_axis))
        gathered = np.frombuffer(b"".join(pieces), dtype=np.uint8)
        source, src_start = _convert(gathered.reshape(-1, src_size), src_size, dst_size).tobytes(), 0
        src_strides = _c_strides(grid.shape, dst_size)
    dst_start = call.case.dst.address - dst_region.address + grid.dst_offset * dst_size
    order = grid.dense_dst_order()
    if order is not None:
        pieces = _pieces(source, src_start, _runs(grid.shape, (src_strides,), dst_size, order))
        data = memoryview(dst_region.data)
        stop = dst_start + grid.size * dst_size
        return b"".join([data[:dst_start], *pieces, data[stop:]])
    image = bytearray(dst_region.data)
    dst_strides = [stride * dst_size for stride in grid.dst_strides]
    _scatter(image, dst_start, source, src_start, _runs(grid.shape, (src_strides, dst_strides), dst_size, every_axis))
    return bytes(image)


def _c_strides(shape: tuple[int, ...], size: int) -> list[int]:
    strides, step = [], size
    for count in reversed(shape):
        strides.append(step)
        step *= count
    return strides[::-1]


def _apply_elements(call: Call, transfer: Transfer, src_region: Region, dst_region: Region) -> bytes:
    src_size, dst_size = call.src_dtype.size, call.dst_dtype.size
    src_offsets = byte_addresses(call, "src", transfer.src_elements) - np.uint64(src_region.address)
    values = np.frombuffer(src_region.data, dtype=np.uint8)[src_offsets]
    if call.src_dtype.name != call.dst_dtype.name:
        values = _convert(values, src_size, dst_size)
    image = np.frombuffer(dst_region.data, dtype=np.uint8).copy()
    image[byte_addresses(call, "dst", transfer.dst_elements) - np.uint64(dst_region.address)] = values
    return image.tobytes()


def _convert(values: np.ndarray, src_size: int, dst_size: int) -> np.ndarray:
    """Widen floating-point elements (shaped (n, src_size) bytes) exactly, little-endian."""
    source = np.ascontiguousarray(values).view(np.dtype(_FLOAT_BY_SIZE[src_size]).newbyteorder("<"))
    widened = source.astype(np.dtype(_FLOAT_BY_SIZE[dst_size]).newbyteorder("<"))
    return widened.view(np.uint8).reshape(-1, dst_size)


# --- several regions per memory (case-format extension sparse-memory) ------------------------------------

def regions_of(memory: Mapping[str, Region], name: str) -> list[tuple[str, Region]]:
    """The (key, region) pairs of physical memory `name`: its one region, or its several (sparse-memory), by
    address."""
    return sorted(((key, region) for key, region in memory.items() if memory_of(key) == name),
                  key=lambda item: item[1].address)


def holders(regions: Sequence[Region], starts: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For accesses of `size` bytes at the absolute addresses `starts` (uint64): the index of the region that
    would hold each (the last one starting at or below it) and whether it holds it whole. Addresses are taken
    relative to the lowest region (modular: one below it wraps far above every region)."""
    base = regions[0].address
    firsts = np.array([region.address - base for region in regions], dtype=np.uint64)
    # the last start of an access the region holds whole (regions shorter than one access hold none)
    lasts = np.array([min(region.end - size - base, 2**64 - 1) if len(region.data) >= size else 0
                      for region in regions], dtype=np.uint64)
    roomy = np.array([len(region.data) >= size for region in regions], dtype=bool)
    relative = starts - np.uint64(base)
    index = np.searchsorted(firsts, relative, side="right").astype(np.int64) - 1
    found = np.maximum(index, 0)
    return index, (index >= 0) & roomy[found] & (relative <= lasts[found])


def element_starts(call: Call, operand: str, transfer: Transfer) -> np.ndarray:
    """The absolute byte address (uint64) of every element the operand's accesses touch, in plan order."""
    elements = transfer.elements(operand).astype(np.int64)
    size = call.dtype(operand).size
    return np.uint64(call.operand(operand).address) + (elements * size).astype(np.uint64)


def uncovered(call: Call, operand: str, transfer: Transfer) -> tuple[int, int] | None:
    """The absolute bytes [start, stop) of the first element of the operand that no region of its memory holds
    whole (None when every one is held): the bounds check of a memory with several regions."""
    regions = [region for _, region in regions_of(call.case.memory, call.memory(operand))]
    starts = element_starts(call, operand, transfer)
    if not regions:
        return (int(starts[0]), int(starts[0]) + call.dtype(operand).size) if starts.size else None
    _, held = holders(regions, starts, call.dtype(operand).size)
    missing = np.flatnonzero(~held)
    if missing.size == 0:
        return None
    first = int(starts[missing[0]])
    return first, first + call.dtype(operand).size


def covering(call: Call, transfer: Transfer) -> dict[str, Region]:
    """The case's regions plus zero-filled ones over every byte the call touches that none holds (keyed
    `<memory>#<n>` after the memory's own): what a target that does not check the bounds works on, without
    filling the distance between accesses far apart."""
    memory = dict(call.case.memory)
    for operand in ("src", "dst"):
        name, size = call.memory(operand), call.dtype(operand).size
        regions = [region for _, region in regions_of(memory, name)]
        starts = element_starts(call, operand, transfer)
        touched = np.unique((starts[:, None] + np.arange(size, dtype=np.uint64)).ravel())
        if regions:
            touched = touched[~holders(regions, touched, 1)[1]]
        if touched.size == 0:
            continue
        breaks = np.flatnonzero(np.diff(touched) != 1) + 1
        pieces = [(int(run[0]), int(run[-1]) + 1) for run in np.split(touched, breaks)]
        keys = region_keys(name, len(regions) + len(pieces) + 1)
        used = set(memory)
        fresh = [key for key in keys if key not in used]
        for key, (start, stop) in zip(fresh, pieces):
            memory[key] = Region(start, bytes(stop - start))
    return memory


def through_regions(call: Call, transfer: Transfer) -> tuple[dict[str, Region], dict[str, np.ndarray]]:
    """The case's regions after a target that trusts its parameters moves `transfer` through them, bounds
    unchecked: a byte written outside every region is lost, and a byte read outside them is unknown — it reads
    as 0 here, and `unknown` marks, per region key, the bytes written from such a source. What a target that
    misreads a parameter leaves in the bytes the case holds (reference.prediction)."""
    memory = dict(call.case.memory)
    src_starts, size = element_starts(call, "src", transfer), call.src_dtype.size
    values = np.zeros((src_starts.size, size), dtype=np.uint8)
    known = np.zeros(src_starts.size, dtype=bool)
    src_regions = regions_of(memory, call.memory("src"))
    if src_regions:
        index, known = holders([region for _, region in src_regions], src_starts, size)
        for number, (_, region) in enumerate(src_regions):
            rows = np.flatnonzero(known & (index == number))
            offsets = (src_starts[rows] - np.uint64(region.address)).astype(np.int64)[:, None] + np.arange(size)
            values[rows] = np.frombuffer(region.data, dtype=np.uint8)[offsets]
    if call.src_dtype.name != call.dst_dtype.name:
        values = _convert(values, size, call.dst_dtype.size)
    unknown: dict[str, np.ndarray] = {}
    dst_regions = regions_of(memory, call.memory("dst"))
    if not dst_regions:
        return memory, unknown
    dst_starts, size = element_starts(call, "dst", transfer), call.dst_dtype.size
    index, held = holders([region for _, region in dst_regions], dst_starts, size)
    for number, (key, region) in enumerate(dst_regions):
        rows = np.flatnonzero(held & (index == number))
        offsets = (dst_starts[rows] - np.uint64(region.address)).astype(np.int64)[:, None] + np.arange(size)
        image = np.frombuffer(region.data, dtype=np.uint8).copy()
        image[offsets] = values[rows]
        mask = np.zeros(image.size, dtype=bool)
        mask[offsets] = ~known[rows][:, None]
        memory[key], unknown[key] = Region(region.address, image.tobytes()), mask
    return memory, unknown


def _apply_sparse(call: Call, transfer: Transfer, memory: dict[str, Region]) -> dict[str, Region]:
    """`apply` where a memory has several regions: each element is read from and written into the region
    that holds it (every one is held: the bounds were checked)."""
    src_regions, dst_regions = regions_of(memory, call.memory("src")), regions_of(memory, call.memory("dst"))
    values = _gathered(call, "src", transfer, [region for _, region in src_regions],
                       b"".join(region.data for _, region in src_regions))
    if call.src_dtype.name != call.dst_dtype.name:
        values = _convert(values, call.src_dtype.size, call.dst_dtype.size)
    image = np.frombuffer(b"".join(region.data for _, region in dst_regions), dtype=np.uint8).copy()
    image[_offsets(call, "dst", transfer, [region for _, region in dst_regions])] = values
    position = 0
    for key, region in dst_regions:
        memory[key] = Region(region.address, image[position:position + len(region.data)].tobytes())
        position += len(region.data)
    return memory


def _offsets(call: Call, operand: str, transfer: Transfer, regions: Sequence[Region]) -> np.ndarray:
    """Each accessed byte's offset in the regions' data joined in address order, shaped (elements, size)."""
    size = call.dtype(operand).size
    starts = element_starts(call, operand, transfer)
    index, _ = holders(regions, starts, size)
    joined = np.cumsum([0] + [len(region.data) for region in regions[:-1]]).astype(np.int64)
    addresses = np.array([region.address for region in regions], dtype=np.uint64)
    within = (starts - addresses[index]).astype(np.int64)
    return (joined[index] + within)[:, None] + np.arange(size, dtype=np.int64)


def _gathered(call: Call, operand: str, transfer: Transfer, regions: Sequence[Region], joined: bytes) -> np.ndarray:
    return np.frombuffer(joined, dtype=np.uint8)[_offsets(call, operand, transfer, regions)]
