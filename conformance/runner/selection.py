"""What a run tests, worked out from the spec and the run's options alone: its tests, their ids, subjects and
budgets.

A `Selection` is pure: the spec, the chosen products and APIs, the pack the cases come from (if any) and the
limits the target declares give the run's tests — smoke tests, legal tests per documented path, single-fault
tests per rule, boundary tests per bound, limit tests per declared limit — in run order before interleaving.
The session (runner.session) builds one once the target has said its limits; what each test may send the
target is runner.gates's business, how each case is judged runner.checker's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Callable, Iterable, Iterator, Sequence

from ascendc_conformance.format.defaults import HEAVY_CASES, PROFILES, SMOKE_CASES
from ascendc_conformance.format.errors import ConformanceError, did_you_mean
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.pack import Pack
from ascendc_conformance.format.results import Subject, TestKind
from ascendc_conformance.spec.derived import remembered
from ascendc_conformance.spec.model import Path as SpecPath, Spec
from ascendc_conformance.strategies.boundaries import Boundary, boundaries
from ascendc_conformance.strategies.crossings import crossing_tests
from ascendc_conformance.strategies.faults import Fault, faults
from ascendc_conformance.strategies.large import field_reaches
from ascendc_conformance.strategies.legal import select_paths, selection_key
from ascendc_conformance.strategies.limits import Deviation, LimitProbe, deviations, probes
from ascendc_conformance.strategies.pinned import PinnedTest
from ascendc_conformance.strategies.smoke import RouteForm, Smoke, smoke_tests

Item = SpecPath | Fault | Boundary | PinnedTest | Smoke | LimitProbe
"""What one conformance test checks: a documented path, a fault, a bound, a pinned legal call (a field's top bits
in a large region, a derived offset's crossing), a smoke case or a declared limit."""
PACKED_KINDS = (TestKind.SMOKE, TestKind.LEGAL, TestKind.ILLEGAL, TestKind.BOUNDARY)
"""The tests a pack holds: all but the limit tests (their cases depend on the limits a target declares)."""


def selected_products(spec: Spec, names: Iterable[str]) -> tuple[str, ...] | None:
    """The product ids `names` select (None: all); ConformanceError for a name that is no product id or alias."""
    ids = [p.id for p in spec.products]
    aliases = [alias for p in spec.products for alias in p.aliases]
    names = tuple(names)
    for name in names:
        if spec.resolve_product(name) is None:
            raise ConformanceError(f"unknown product {name!r}{did_you_mean(name, ids + aliases)}; expected a "
                                   f"product id ({', '.join(ids)}) or an alias ({', '.join(aliases)})")
    return tuple(dict.fromkeys(spec.product(p).id for p in names)) or None


def selected_apis(spec: Spec, names: Iterable[str]) -> tuple[str, ...] | None:
    """The APIs `names` select (None: all); ConformanceError for a name that is no API of the spec."""
    names = tuple(names)
    for name in names:
        if name not in spec.apis:
            raise ConformanceError(f"unknown API {name!r}{did_you_mean(name, spec.apis)}; expected one of "
                                   f"{', '.join(spec.apis)}")
    return tuple(dict.fromkeys(names)) or None


def param_id(item: Item) -> str:
    """The pytest parameter id of the test that checks `item` (test_legal[<id>], test_illegal[<id>], ...)."""
    return item.label if isinstance(item, SpecPath) else item.id


def subject(item: Item) -> Subject:
    """The TestRecord subject fields of the test that checks `item`: a documented path, a fault, a bound,
    or one smoke case of a route and form (or of a fault or bound)."""
    if isinstance(item, Smoke):
        if isinstance(item.item, RouteForm):
            first = item.item.first
            return {"product": first.product.id, "api": first.api.name, "route": f"{first.src}->{first.dst}",
                    "variant": first.form}
        return subject(item.item)
    if isinstance(item, Fault):
        return {"rule": item.rule.id, "variant": item.variant, "api": item.contexts[0].api.name}
    if isinstance(item, Boundary):
        return {"rule": item.rule.id, "variant": f"{item.side}={item.legal_value}", "api": item.rule.api}
    if isinstance(item, PinnedTest):
        return {"rule": item.rule, "variant": item.variant, "api": item.api}
    if isinstance(item, LimitProbe):
        return {"rule": next(iter(item.deviation.rules), None), "variant": item.limit.label,
                "api": item.contexts[0].api.name}
    return {"product": item.product, "api": item.api, "route": f"{item.src}->{item.dst}",
            "src_dtype": item.src_dtype, "dst_dtype": item.dst_dtype}


@dataclass(frozen=True)
class SpecTests:
    """The tests of a selection that depend on the spec, its products and its APIs alone (not on a pack or the
    limits a target declares): worked out together, once per spec content and selection (spec.derived: the
    other processes of a run, and the runs after it, read them back)."""

    faults: list[Fault]
    bounds: list[Boundary]
    pinned: list[PinnedTest]   # of top bits in large regions, and of crossings of derived offsets
    smoke: list[Smoke]

    @classmethod
    def work_out(cls, spec: Spec, products: tuple[str, ...] | None, apis: tuple[str, ...] | None) -> "SpecTests":
        paths = select_paths(spec, products, apis)
        faults_ = faults(spec, products, apis)
        bounds = boundaries(spec, products, apis)
        pinned = [*field_reaches(spec, products, apis, bounds), *crossing_tests(spec, products, apis)]
        return cls(faults=faults_, bounds=bounds, pinned=pinned, smoke=smoke_tests(spec, paths, faults_, bounds))


@dataclass(frozen=True)
class Selection:
    """The tests of a run: of `products` and `apis` (None: all) of the spec, those of `pack` when the cases come
    from one, the limit tests of the `limits` the target declares, `profile`'s number of cases each."""

    spec: Spec
    products: tuple[str, ...] | None = None
    apis: tuple[str, ...] | None = None
    pack: Pack | None = None
    limits: Limits = Limits()
    profile: str = "ci"

    @cached_property
    def paths(self) -> list[SpecPath]:
        return select_paths(self.spec, self.products, self.apis)

    @cached_property
    def spec_tests(self) -> SpecTests:
        """The tests of the products and APIs, whatever the pack and the limits."""
        products, apis = selection_key(self.spec, self.products, self.apis)
        return remembered(self.spec, "selection", (products, apis),
                          lambda: SpecTests.work_out(self.spec, products or None, apis or None))

    @property
    def faults(self) -> list[Fault]:
        return self.spec_tests.faults

    @property
    def bounds(self) -> list[Boundary]:
        """The bounds' tests."""
        return self.spec_tests.bounds

    @property
    def boundaries(self) -> list[Boundary | PinnedTest]:
        """The bounds' tests, and the pinned tests of top bits in large regions and of crossings."""
        return [*self.spec_tests.bounds, *self.spec_tests.pinned]

    @cached_property
    def deviations(self) -> list[Deviation]:
        """The target's declared limits stricter than the spec on the selection, with the rules they deviate from."""
        return deviations(self.spec, self.limits, self.paths)

    @cached_property
    def limit_probes(self) -> list[LimitProbe]:
        """A test of each deviation: cases just past it, which the target must reject (none in a pack run: they
        depend on the target's declared limits, a pack's cases do not)."""
        return probes(self.spec, self.limits, self.paths) if self.pack is None else []

    @property
    def smoke(self) -> list[Smoke]:
        return self.spec_tests.smoke

    def refined(self, *, pack: Pack | None, limits: Limits, profile: str) -> "Selection":
        """The same products and APIs with this pack, limits and profile (the same spec tests)."""
        return replace(self, pack=pack, limits=limits, profile=profile)

    def tests(self, *kinds: TestKind) -> Iterator[tuple[str, TestKind, Item]]:
        """(test id, kind, item) of every conformance test of these kinds (default: all) the run makes, in run
        order before interleaving: the selection's, or those of the pack."""
        for test_id, kind, item in self.items(*kinds):
            if self.pack is None or test_id in self.pack.tests:
                yield test_id, kind, item

    def items(self, *kinds: TestKind) -> Iterator[tuple[str, TestKind, Item]]:
        """(test id, kind, item) of every test of these kinds the products and APIs make, a pack's or not."""
        items: dict[TestKind, Callable[[], Sequence[Item]]] = {
            TestKind.SMOKE: lambda: self.smoke, TestKind.LEGAL: lambda: self.paths,
            TestKind.ILLEGAL: lambda: self.faults, TestKind.BOUNDARY: lambda: self.boundaries,
            TestKind.LIMIT: lambda: self.limit_probes}
        for kind in kinds or tuple(items):
            for item in items[kind]():
                yield f"test_{kind}[{param_id(item)}]", kind, item

    def budget(self, test_id: str, kind: TestKind) -> int:
        """The cases a test judges: its pack's, or its profile's (the calls past them are Hypothesis's shrinking)."""
        if self.pack is not None:
            return self.pack.tests[test_id].cases
        if kind is TestKind.SMOKE:
            return SMOKE_CASES
        return HEAVY_CASES[self.profile] if test_id in self.heavy else PROFILES[self.profile]

    @cached_property
    def heavy(self) -> frozenset[str]:
        """The ids of the tests whose every case is heavy (strategies.pinned): they draw HEAVY_CASES cases."""
        return frozenset(test_id for test_id, _, item in self.items(TestKind.BOUNDARY) if isinstance(item, PinnedTest))

    @cached_property
    def planned(self) -> dict[str, tuple[TestKind, Subject]]:
        """Test id -> (kind, subject) of every conformance test the selection makes (before sharding)."""
        return {test_id: (kind, subject(item)) for test_id, kind, item in self.tests()}
