"""The smoke phase: one case of everything a run selects, ordered so that every API is reached at once.

A run's full tests draw many cases per path, rule and bound, one test after the other; a bug that shows only
on one route or rule would be found only when its tests come up. The smoke phase comes first and draws a
couple of cases for each (product, API, route, form) of the selection, each fault rule and each reachable
bound (on the first group of routes that reaches it), so a broken target fails within seconds (benchmark `time_to_first_failure_s`); the runner takes its
tests one API at a time, in turn.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from hypothesis import strategies as st

from ascendc_conformance.format.case import Case
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.spec.model import Path, ShortRepr, Spec
from ascendc_conformance.strategies.boundaries import Boundary, Reach
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.faults import Fault
from ascendc_conformance.strategies.legal import case_for, contexts


@dataclass(frozen=True, repr=False)
class RouteForm(ShortRepr):
    """One (product, API, route, form) of the selection, over the dtypes documented for it."""

    contexts: tuple[PathContext, ...]

    @property
    def first(self) -> PathContext:
        return self.contexts[0]

    @property
    def id(self) -> str:
        c = self.first
        return f"{c.product.id}-{c.api.name}-{c.src}->{c.dst}-{c.form}"

    def strategy(self) -> st.SearchStrategy[Case]:
        """A legal case of a dtype drawn among the route's documented ones."""
        return st.sampled_from(self.contexts).flatmap(case_for)


@dataclass(frozen=True, repr=False)
class Smoke(ShortRepr):
    """One smoke test: a single case of a route and form, a fault rule or a bound."""

    item: RouteForm | Fault | Boundary

    @property
    def kind(self) -> TestKind:
        """The kind of full test the smoke case stands for."""
        return {RouteForm: TestKind.LEGAL, Fault: TestKind.ILLEGAL, Boundary: TestKind.BOUNDARY}[type(self.item)]

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.item.id}"

    @property
    def api(self) -> str:
        return _api(self.item)

    def __repr__(self) -> str:
        return f"Smoke({self.id})"


def route_forms(spec: Spec, paths: Sequence[Path]) -> list[RouteForm]:
    """The (product, API, route, form) groups of `paths`, in the order the paths come."""
    groups: dict[tuple[str, str, str, str, str], list[PathContext]] = {}
    for context in contexts(spec, paths):
        key = (context.product.id, context.api.name, context.src, context.dst, context.form)
        groups.setdefault(key, []).append(context)
    return [RouteForm(tuple(group)) for group in groups.values()]


def smoke_tests(spec: Spec, paths: Sequence[Path], faults: Iterable[Fault], boundaries: Iterable[Boundary]) -> list[Smoke]:
    """The smoke phase of a selection: every route and form, then one fault per rule, then every reachable
    bound on one group of routes (the runner interleaves them across APIs)."""
    one_per_rule: dict[str, Fault] = {}
    for fault in faults:
        one_per_rule.setdefault(fault.id.rsplit(":", 1)[0], fault)
    one_per_bound: dict[tuple[str, str], Boundary] = {}   # a bound's first reachable group of routes
    for boundary in boundaries:
        if boundary.contexts and not isinstance(boundary, Reach):
            one_per_bound.setdefault((boundary.rule.id, boundary.side), boundary)
    items: list[RouteForm | Fault | Boundary] = [*route_forms(spec, paths), *one_per_rule.values(),
                                                  *one_per_bound.values()]
    return [Smoke(item) for item in items]


def _api(item: RouteForm | Fault | Boundary) -> str:
    return item.contexts[0].api.name
