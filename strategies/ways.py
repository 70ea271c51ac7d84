"""The ways a path's GM accesses may be laid out in a case, and which targets can be sent each.

A call whose GM accesses fit one region of the GM window (1 MiB) is drawn as it is. One whose accesses lie
further apart, or far from the tensor start, is drawn with one large GM region (up to LARGE_REGION_BYTES, no
case-format extension: every target gets it, each such case costing its span), with its GM tensor start left
out of its region (`detached-tensor`), or with its GM accesses in regions of their own (`sparse-memory`; up to
16, or up to CROWDED_REGIONS for the thousands of bursts whose offsets cross 2^32 B). A bit of a field, or a
crossing of a derived quantity, is reachable in the ways whose smallest call witnesses it; a target is sent the
cases of the ways it can take: those without an extension, and those whose extension its hello announces.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ascendc_conformance.format.case import DETACHED_TENSOR, SPARSE_MEMORY
from ascendc_conformance.format.words import Word
from ascendc_conformance.strategies.context import PathContext


class Way(Word):
    """How a case lays out its GM accesses, cheapest first."""

    PLAIN = "plain"                       # one region per memory, within the GM window
    LARGE = "large-region"                # one GM region of up to LARGE_REGION_BYTES (no extension)
    DETACHED = "detached-tensor"          # the GM tensor start outside its region (extension detached-tensor)
    SPARSE = "sparse-memory"              # GM accesses in up to 16 regions (extension sparse-memory)
    CROWDED = "sparse-memory-crowded"     # ... in up to CROWDED_REGIONS regions (extension sparse-memory)

    @property
    def extension(self) -> str | None:
        """The case-format extension a target must announce to be sent cases drawn this way."""
        return _EXTENSIONS[self]

    def of(self, ctx: PathContext) -> PathContext | None:
        """`ctx` drawn this way (None: the way changes nothing on a path that does not touch GM)."""
        if self is Way.PLAIN:
            return ctx
        return _DRAWN[self](ctx) if ctx.touches_gm else None


_EXTENSIONS = {Way.PLAIN: None, Way.LARGE: None, Way.DETACHED: DETACHED_TENSOR, Way.SPARSE: SPARSE_MEMORY,
               Way.CROWDED: SPARSE_MEMORY}
_DRAWN: dict[Way, Callable[[PathContext], PathContext]] = {
    Way.LARGE: PathContext.enlarging, Way.DETACHED: PathContext.detaching, Way.SPARSE: PathContext.sparsing,
    Way.CROWDED: PathContext.crowding}

BIT_WAYS = (Way.PLAIN, Way.DETACHED, Way.SPARSE, Way.LARGE)
"""The ways a field's bits are looked for in (strategies.bit_reach): the crowded one adds none."""
CROSSING_WAYS = (Way.PLAIN, Way.LARGE, Way.DETACHED, Way.CROWDED)
"""The ways a derived quantity's crossings are looked for in (strategies.crossings)."""


def open_to(ways: Iterable[Way], extensions: Iterable[str]) -> bool:
    """Whether a target announcing `extensions` can be sent a case drawn in one of `ways`."""
    announced = set(extensions)
    return any(way.extension is None or way.extension in announced for way in ways)


def needed(ways: Iterable[Way]) -> tuple[str, ...]:
    """The extensions any of which lets a target be sent a case drawn in one of `ways` (none when a way needs
    none)."""
    ways = tuple(ways)
    if any(way.extension is None for way in ways):
        return ()
    return tuple(sorted({way.extension for way in ways if way.extension}))


def through_large(ways: Iterable[Way]) -> bool:
    """Whether, without an extension, only a large GM region reaches it."""
    ways = set(ways)
    return Way.LARGE in ways and Way.PLAIN not in ways
