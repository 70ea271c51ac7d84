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

from ascendc_conformance.format.fill import Fill, filled_text
from ascendc_conformance.strategies.context import PathContext, Unreachable
from ascendc_conformance.strategies.draw import biased_integers

GUARD_BYTES = 64  # bytes kept around the touched area so that writes just outside it are caught


@dataclass(frozen=True)
class Extents:
    """Bytes an operand's accesses touch under the suite's default reading, relative to its start address:
    [low, high). `dst_alternative`: the destination bytes a target following the other reading of a disputed
    point writes, where that reading writes more; the region covers them too (as far as the memory goes), so
    that such a target is seen writing inside the case and the verdict can say which reading it follows."""

    src: tuple[int, int]
    dst: tuple[int, int]
    dst_alternative: tuple[int, int] | None = None

    def of(self, operand: str) -> tuple[int, int]:
        return self.src if operand == "src" else self.dst


def reach(extents: Extents, operand: str) -> tuple[int, int]:
    """Bytes below and from the operand's start its accesses need: a faulty call (e.g. a negative stride) may
    touch bytes before the tensor start, which must then not lie below address 0."""
    low, high = extents.of(operand)
    return max(-low, 0), max(high, 0)


def fits(ctx: PathContext, extents: Extents) -> bool:
    """Whether both operands can be placed, aligned and without overlapping, inside their memories, each
    region within the bytes a region may span (a detached GM region leaves the tensor start out)."""
    (src_below, src_high), (dst_below, dst_high) = reach(extents, "src"), reach(extents, "dst")
    if ctx.shared_memory:
        slack = ctx.alignment("src") + ctx.alignment("dst")
        return src_below + src_high + dst_below + dst_high + slack <= ctx.span_limit(ctx.memory("src"))
    return all(below + high <= ctx.limit(ctx.memory(op)) and _width(ctx, extents, op) <= ctx.span_limit(ctx.memory(op))
               for op, below, high in (("src", src_below, src_high), ("dst", dst_below, dst_high)))


def _width(ctx: PathContext, extents: Extents, operand: str) -> int:
    """Bytes the operand's region spans: the touched bytes, with the tensor start unless it is detached."""
    low, high = extents.of(operand)
    if _detached(ctx, operand):
        return max(high - low, 0)
    return max(high, 0) - min(low, 0)


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


def _aligned(draw, low: int, high: int, align: int, label: str) -> int:
    """An address in [low, high] that is a multiple of `align`."""
    first, last = -(-low // align), high // align
    if first > last:
        raise Unreachable(f"no {align}-byte aligned address in [{low}, {high}]")
    return align * draw(biased_integers(first, last), label=label)


def place(draw, ctx: PathContext, extents: Extents) -> dict[str, int]:
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


def regions(ctx: PathContext, addresses: dict[str, int], extents: Extents) -> dict[str, tuple[int, int]]:
    """Per memory, the [start, stop) a region must cover: touched bytes and tensor starts (not a detached GM
    tensor's) plus guard bands."""
    spans: dict[str, list[int]] = {}
    for op in ("src", "dst"):
        low, high = extents.of(op)
        points = [addresses[op] + low, addresses[op] + high] + ([] if _detached(ctx, op) else [addresses[op]])
        if op == "dst" and extents.dst_alternative is not None:
            points.append(addresses[op] + extents.dst_alternative[1])
        spans.setdefault(ctx.memory(op), []).extend(points)
    return {memory: (max(0, min(points) - GUARD_BYTES), min(ctx.limit(memory), max(points) + GUARD_BYTES))
            for memory, points in spans.items()}


def memory_images(draw, ctx: PathContext, spans: dict[str, tuple[int, int]], zero_fill: bool = False) -> dict[str, dict]:
    """The case's `memory` object: each region made by the fill recipe (format.fill) from one drawn seed, the
    i-th region (in name order) from seed + i (0 = zeros, only with `zero_fill`); the source region of a
    converting copy from a 2-byte float has its half NaNs turned into infinities (a pack build records each
    region's recipe: format.fill.recording)."""
    seed = draw(st.integers(0 if zero_fill else 1, 2**32 - 1), label="fill seed")
    converting_half = (ctx.src_dtype.numeric == "float" and ctx.src_dtype.size == 2 and ctx.src_dtype != ctx.dst_dtype)
    return {memory: {"address": start,
                     "data": filled_text(Fill(seed and seed + index, stop - start,
                                              half_nan_to_inf=converting_half and memory == ctx.memory("src")), start)}
            for index, (memory, (start, stop)) in enumerate(sorted(spans.items()))}
