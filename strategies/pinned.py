"""Legal tests pinned where a narrow computation shows: a field's top bits in one large GM region
(strategies.large), a derived byte offset across 2^31 or 2^32 (strategies.crossings).

Like a bound's test (strategies.boundaries), each draws legal cases with some parameters pinned, over the paths
that hold them, each path drawn in one of the ways of strategies.ways; unlike it, the pins may differ from path
to path, and its paths may need different case-format extensions: a target is sent the cases of the paths
whose ways it can take (runner.gates). Its cases are heavy (a GM region of tens of MiB, or thousands of GM
regions), so it draws a bounded number of them (format.defaults.HEAVY_CASES).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable

from hypothesis import strategies as st

from ascendc_conformance.format.case import Case
from ascendc_conformance.spec.model import ShortRepr
from ascendc_conformance.strategies.cases import draft, extensions_of, finish
from ascendc_conformance.strategies.context import PathContext


@dataclass(frozen=True, repr=False, kw_only=True)
class PinnedTest(ShortRepr):
    """test_boundary[<id>]: legal cases of `contexts` with `pins(ctx)` on each."""

    api: str
    contexts: tuple[PathContext, ...]

    @property
    def id(self) -> str:
        raise NotImplementedError

    @property
    def rule(self) -> str | None:
        """The rule the test record names as its subject (the pinned field's range rule), if any."""
        return None

    @property
    def variant(self) -> str:
        """The test record's `variant`: what is pinned."""
        raise NotImplementedError

    def pins(self, ctx: PathContext) -> dict[str, int]:
        """The parameters pinned on one of the test's paths."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id}, {len(self.contexts)} contexts)"

    @property
    def extensions(self) -> frozenset[str]:
        """The case-format extensions the cases of some of its paths need (each path's own: `ways`)."""
        return extensions_of(self.contexts)

    def taken_by(self, extensions: Iterable[str]) -> tuple[PathContext, ...]:
        """What a target announcing `extensions` is sent: of each path, the first of its contexts (cheapest way
        first) whose extensions it announces."""
        announced = frozenset(extensions)
        kept: dict[tuple[str, str], PathContext] = {}
        for ctx in self.contexts:
            if extensions_of([ctx]) <= announced:
                kept.setdefault((ctx.label, ctx.form), ctx)
        return tuple(kept.values())

    def for_every_target(self) -> "PinnedTest":
        """The test as a pack holds it, for targets announcing any extensions: of each path, its context that
        needs no extension where it has one (a large region), else all its contexts."""
        plain = {(ctx.label, ctx.form) for ctx in self.contexts if not extensions_of([ctx])}
        return dataclasses.replace(self, contexts=tuple(ctx for ctx in self.contexts
                                                        if (ctx.label, ctx.form) not in plain or not extensions_of([ctx])))

    def strategy(self) -> st.SearchStrategy[Case]:
        return st.sampled_from(self.contexts).flatmap(self._case)

    @st.composite
    def _case(draw: st.DrawFn, self: PinnedTest, ctx: PathContext, /) -> Case:
        return finish(draw, draft(draw, ctx, self.pins(ctx)))
