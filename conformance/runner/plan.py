"""A test's plan: which item it sends cases of, on which paths, and what the reference must answer them.

runner.gates decides a test's plan (or skips the test) on its first case; the test's record keeps it, and
runner.checker checks each case against the plan's expectation.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from hypothesis import strategies as st

from ascendc_conformance.format.case import Case
from ascendc_conformance.spec.model import Path
from ascendc_conformance.strategies.boundaries import Boundary
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.faults import Expectation, Fault
from ascendc_conformance.strategies.legal import case_for
from ascendc_conformance.strategies.limits import Deviation, LimitProbe
from ascendc_conformance.strategies.smoke import RouteForm

PlannedItem = Path | RouteForm | Fault | Boundary | LimitProbe
"""What a test sends cases of (a smoke test sends those of the route, fault or bound it stands for)."""


@dataclass(frozen=True)
class Plan:
    """A test that sends cases: of which item, on which paths (each within the target's declared limits), and
    what the reference must answer them."""

    item: PlannedItem
    contexts: tuple[PathContext, ...]
    expectation: Expectation = Expectation.LEGAL
    deviation: Deviation | None = None   # a limit probe's declared limit
    looking: st.SearchStrategy[Case] | None = None   # a fault's cases built on legal cases the target accepted

    @cached_property
    def strategy(self) -> st.SearchStrategy[Case]:
        """The cases a profile run draws: the item's own strategy, over the supported paths only (one object:
        Hypothesis checks a strategy each time it is built); for a fault test that keeps looking (runner.gates:
        the target refused legal calls of its API), half of them built on legal cases it accepted, those first."""
        if isinstance(self.item, (Fault, Boundary, LimitProbe)):
            drawn = replace(self.item, contexts=self.contexts).strategy()
            return drawn if self.looking is None else st.one_of(self.looking, drawn)
        return st.sampled_from(self.contexts).flatmap(case_for)

    @property
    def pinned(self) -> frozenset[str]:
        """The parameters the item pins on purpose (a range fault's faulty value may lie past a declared limit)."""
        return frozenset(dict(self.item.pinned)) if isinstance(self.item, Fault) else frozenset()
