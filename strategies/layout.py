"""Placing the operands and building the memory regions of a case.

Addresses are drawn aligned as the spec's alignment rules ask (not always 0); each region covers the
touched bytes and the tensor start plus a guard band on both sides, and is filled with random bytes so
that a wrong source byte or a stray write shows. A fill seed of 0 means zero-filled memory, which only a
case whose bytes cannot matter may draw (a fault the target must reject): on zeros, reading the wrong
source bytes looks right, and some Hypothesis releases draw seed 0 for most of a test's few cases.
"""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from ascendc_conformance.format.case import Region, memory_of, region_keys
from ascendc_conformance.format.fill import Fill, filled_bytes
from ascendc_conformance.strategies.context import PathContext, Unreachable
from ascendc_conformance.strategies.draw import FAR_ADDRESSES, anywhere

GUARD_BYTES = 64  # bytes kept around the touched area so that writes just outside it are caught
MAX_REGIONS = 16  # regions one memory of a sparse case may have (case extension sparse-memory)


@dataclass(frozen=True)
class Pattern:
    """The bytes an operand's accesses touch, relative to its start: `run` bytes at offset + sum(i_k * pitch_k)
    for every i_k < count_k of the `axes` (count, pitch), pitches >= 0. Only a sparse case needs it: which
    stretches of GM to give a region of their own."""

    offset: int
    run: int
    axes: tuple[tuple[int, int], ...] = ()

    def stretches(self, width: int, most: int) -> list[tuple[int, int]] | None:
        """At most `most` stretches [start, stop) of at most `width` bytes that cover every touched byte: the
        axes of the smallest pitches walk inside a stretch while it stays within `width`, each further axis
        repeats the stretches; None when that takes more stretches, or wider ones."""
        reach, repeats = self.run, [self.offset]
        for pitch, count in sorted((pitch, count) for count, pitch in self.axes if count > 1):
            if len(repeats) == 1 and (count - 1) * pitch + reach <= width:
                reach += (count - 1) * pitch
                continue
            if len(repeats) * count > most:
                return None
            repeats = [start + i * pitch for start in repeats for i in range(count)]
        return _merged([(start, start + reach) for start in repeats], width)


def _merged(stretches: list[tuple[int, int]], width: int, apart: int = 2 * GUARD_BYTES) -> list[tuple[int, int]] | None:
    """Stretches less than `apart` bytes apart joined (their guard bands would meet); None if a joined one is
    wider than `width`."""
    joined: list[list[int]] = []
    for start, stop in sorted(stretches):
        if joined and start < joined[-1][1] + apart:
            joined[-1][1] = max(joined[-1][1], stop)
        else:
            joined.append([start, stop])
    if any(stop - start > width for start, stop in joined):
        return None
    return [(start, stop) for start, stop in joined]


@dataclass(frozen=True)
class Extents:
    """Bytes an operand's accesses touch under the suite's default reading, relative to its start address:
    [low, high). `dst_alternative`: the destination bytes a target following the other reading of a disputed
    point writes, where that reading writes more; the region covers them too (as far as the memory goes), so
    that such a target is seen writing inside the case and the verdict can say which reading it follows.
    `src_pattern` / `dst_pattern`: the touched bytes in detail, where a sparse case may need them."""

    src: tuple[int, int]
    dst: tuple[int, int]
    dst_alternative: tuple[int, int] | None = None
    src_pattern: Pattern | None = None
    dst_pattern: Pattern | None = None

    def of(self, operand: str) -> tuple[int, int]:
        return self.src if operand == "src" else self.dst

    def pattern(self, operand: str) -> Pattern | None:
        return self.src_pattern if operand == "src" else self.dst_pattern


def reach(extents: Extents, operand: str) -> tuple[int, int]:
    """Bytes below and from the operand's start its accesses need: a faulty call (e.g. a negative stride) may
    touch bytes before the tensor start, which must then not lie below address 0."""
    low, high = extents.of(operand)
    return max(-low, 0), max(high, 0)


def fits(ctx: PathContext, extents: Extents) -> bool:
    """Whether both operands can be placed, aligned and without overlapping, inside their memories, each
    region within the bytes a region may span (a detached GM region leaves the tensor start out; a sparse
    case may give GM several regions)."""
    (src_below, src_high), (dst_below, dst_high) = reach(extents, "src"), reach(extents, "dst")
    if ctx.shared_memory:
        slack = ctx.alignment("src") + ctx.alignment("dst")
        return src_below + src_high + dst_below + dst_high + slack <= ctx.span_limit(ctx.memory("src"))
    for op, below, high in (("src", src_below, src_high), ("dst", dst_below, dst_high)):
        memory = ctx.memory(op)
        if below + high > ctx.limit(memory):
            return False
        if below + high > ctx.span_limit(memory) and pieces(ctx, extents, op) is None:   # one region holds it else
            return False
    return True


def pieces(ctx: PathContext, extents: Extents, operand: str) -> list[tuple[int, int]] | None:
    """The stretches [start, stop) of the operand's memory, relative to its start, that its regions must cover:
    the touched bytes with the tensor start (unless it is detached), as one stretch within the bytes one region
    may span, or in a sparse case several; None when they fit in no such way."""
    detached = _detached(ctx, operand)
    whole = _whole(ctx, extents, operand)
    limit = ctx.span_limit(ctx.memory(operand))
    if whole[1] - whole[0] <= limit:
        return [whole]
    pattern = extents.pattern(operand)
    if not (ctx.sparse and ctx.memory(operand) == "GM") or pattern is None:
        return None
    stretches = pattern.stretches(limit, MAX_REGIONS - (not detached))
    if stretches is None or detached:
        return stretches
    return _merged(stretches + [(0, 0)], limit)


def _whole(ctx: PathContext, extents: Extents, operand: str) -> tuple[int, int]:
    """The one stretch covering the operand's touched bytes and its tensor start (unless detached)."""
    low, high = extents.of(operand)
    return (low, high) if _detached(ctx, operand) else (min(low, 0), max(high, 0))


def _detached(ctx: PathContext, operand: str) -> bool:
    return ctx.detached and ctx.memory(operand) == "GM"


def holds(ctx: PathContext, addresses: dict[str, int], extents: Extents) -> bool:
    """Whether operands at these addresses keep every access inside their memories and apart in a shared one."""
    spans = {op: (addresses[op] - reach(extents, op)[0], addresses[op] + reach(extents, op)[1])
             for op in ("src", "dst")}
    limit = ctx.span_limit if ctx.shared_memory else ctx.limit   # shared: both within one region's span
    if any(low < 0 or high > limit(ctx.memory(op)) for op, (low, high) in spans.items()):
        return False
    return apart(addresses, extents) if ctx.shared_memory else True


def apart(addresses: dict[str, int], extents: Extents) -> bool:
    """Whether the two operands' accesses (in one memory) share no byte."""
    (_, first_high), (second_low, _) = sorted((addresses[op] - reach(extents, op)[0], addresses[op] + reach(extents, op)[1])
                                              for op in ("src", "dst"))
    return first_high <= second_low


def _aligned(draw: st.DrawFn, low: int, high: int, align: int, label: str) -> int:
    """An address in [low, high] that is a multiple of `align`."""
    first, last = -(-low // align), high // align
    if first > last:
        raise Unreachable(f"no {align}-byte aligned address in [{low}, {high}]")
    if draw(FAR_ADDRESSES):
        return align * anywhere(draw, first, last, label)
    return align * draw(st.integers(first, min(last, first + 8)), label=label)


def place(draw: st.DrawFn, ctx: PathContext, extents: Extents) -> dict[str, int]:
    """Start addresses of src and dst, every access at address 0 or above; in a shared memory the two never
    overlap."""
    if not ctx.shared_memory:
        return {op: _aligned(draw, reach(extents, op)[0], ctx.limit(ctx.memory(op)) - reach(extents, op)[1],
                             ctx.alignment(op), f"{op} address") for op in ("src", "dst")}
    first, second = ("src", "dst") if draw(st.booleans(), label="src placed first") else ("dst", "src")
    (first_below, first_high), (second_below, second_high) = reach(extents, first), reach(extents, second)
    limit = ctx.span_limit(ctx.memory("src"))   # both in one region (only a pseudo-route puts both in GM)
    room = limit - first_high - second_below - second_high - ctx.alignment(second)
    start = _aligned(draw, first_below, room, ctx.alignment(first), f"{first} address")
    after = start + first_high + second_below
    return {first: start,
            second: _aligned(draw, after, limit - second_high, ctx.alignment(second), f"{second} address")}


def lowest_addresses(ctx: PathContext, extents: Extents) -> dict[str, int]:
    """The lowest aligned start of each operand that keeps its accesses at address 0 or above; in a shared
    memory the destination after the source's accesses."""
    def aligned(address: int, operand: str) -> int:
        return -(-address // ctx.alignment(operand)) * ctx.alignment(operand)
    addresses = {op: aligned(reach(extents, op)[0], op) for op in ("src", "dst")}
    if ctx.shared_memory:
        addresses["dst"] = aligned(addresses["dst"] + addresses["src"] + reach(extents, "src")[1], "dst")
    return addresses


def regions(ctx: PathContext, addresses: dict[str, int], extents: Extents) -> dict[str, tuple[int, int]]:
    """Per region key, the [start, stop) it must cover: touched bytes and tensor starts (not a detached GM
    tensor's) plus guard bands; one region per memory (keyed by its name), or in a sparse case several for GM
    (`GM`, `GM#1`, ...: format.case.region_keys)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for op in ("src", "dst"):
        stretches = pieces(ctx, extents, op) or [_whole(ctx, extents, op)]   # a faulty call may not fit: cut later
        stretches = [(addresses[op] + start, addresses[op] + stop) for start, stop in stretches]
        if op == "dst" and extents.dst_alternative is not None:
            stretches.append((addresses[op] + extents.dst_alternative[1],) * 2)
        spans.setdefault(ctx.memory(op), []).extend(stretches)
    found: dict[str, tuple[int, int]] = {}
    for memory, stretches in spans.items():
        joined: list[tuple[int, int]] | None
        if ctx.sparse and memory == "GM":
            joined = _merged(stretches, ctx.limit(memory))
            assert joined is not None, "no stretch is wider than the whole GM"
        else:
            joined = [(min(start for start, _ in stretches), max(stop for _, stop in stretches))]
        guarded = [(max(0, start - GUARD_BYTES), min(ctx.limit(memory), stop + GUARD_BYTES)) for start, stop in joined]
        found.update(zip(region_keys(memory, len(guarded)), guarded))
    return found


def memory_images(draw: st.DrawFn, ctx: PathContext, spans: dict[str, tuple[int, int]], zero_fill: bool = False) -> dict[str, Region]:
    """The case's memory: each region made by the fill recipe (format.fill) from one drawn seed (region_fills;
    0 = zeros, only with `zero_fill`; a pack build records each region's recipe: format.fill.recording)."""
    seed = draw(st.integers(0 if zero_fill else 1, 2**32 - 1), label="fill seed")
    return {memory: Region(start, filled_bytes(fill, start))
            for memory, (start, fill) in region_fills(ctx, spans, seed).items()}


def region_fills(ctx: PathContext, spans: dict[str, tuple[int, int]], seed: int) -> dict[str, tuple[int, Fill]]:
    """Per region key, its start and its fill recipe: the i-th region (in name order) from seed + i (seed 0:
    zeros); the source region of a converting copy from a 2-byte float has its half NaNs turned into
    infinities."""
    converting_half = (ctx.src_dtype.numeric == "float" and ctx.src_dtype.size == 2 and ctx.src_dtype != ctx.dst_dtype)
    return {memory: (start, Fill(seed and seed + index, stop - start,
                                 half_nan_to_inf=converting_half and memory_of(memory) == ctx.memory("src")))
            for index, (memory, (start, stop)) in enumerate(sorted(spans.items()))}
