"""Derived byte offsets across the widths at which they overflow: which crossings some legal call can make, and
the tests that make them.

Each API's spec names the byte offsets an implementation computes from a call's parameters and the widths at
which such a computation commonly overflows (spec `derived`: DataCopy's burst starts, LoadData2D's fractal
start, a slice element's offset, an NZ2ND row's offset; 2^31 and 2^32 bytes). A crossing of 2^width is
*reachable* when some path of the selection holds a legal call whose quantity reaches it: the API's strategies
module names the pins of the smallest such calls (`crossing_pins`), and the reference confirms each on the
smallest call that fits, drawn in one of the ways of strategies.ways (thousands of bursts 2 MiB apart need
sparse-memory with many regions; a slice 2^32 B past its tensor start, detached-tensor). The others are
unreachable for a reason: the buffer the smallest call overruns, or a value past a field's range.

The test of a reachable crossing, `test_boundary[<API>-<quantity>=2^<width>@crossing]`, draws legal cases over
every path that reaches it, each in its cheapest way per extension: a target is sent those of the ways it can
take (runner.gates).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ascendc_conformance.format.case import Case
from ascendc_conformance.reference import legal_transfer
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.reference.crossings import crossings
from ascendc_conformance.spec.derived import remembered
from ascendc_conformance.spec.model import DerivedQuantity, Spec
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.bit_reach import probe_case
from ascendc_conformance.strategies.boundaries import distinct, shortfall
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts, select_paths, selection_key
from ascendc_conformance.strategies.pinned import PinnedTest
from ascendc_conformance.strategies.ways import CROSSING_WAYS, Way

GROUP = "crossing"   # the group of a Crossing test's id
NOT_COMPUTED = "no path of the selection computes it"


@dataclass(frozen=True)
class CrossingReach:
    """One crossing of the selection: `quantity` of `api` at 2^`width` bytes, with the ways in which some legal
    call makes it (empty when none does: `unreachable` says why)."""

    api: str
    quantity: DerivedQuantity
    width: int
    ways: frozenset[Way]
    unreachable: str = ""

    @property
    def label(self) -> str:
        """`DataCopy dst-burst-start=2^32`."""
        return f"{self.api} {self.quantity.crossing(self.width)}"


@dataclass(frozen=True, repr=False, kw_only=True)
class Crossing(PinnedTest):
    """test_boundary[<API>-<quantity>=2^<width>@crossing]: legal cases whose `quantity` reaches 2^width bytes."""

    quantity: DerivedQuantity
    width: int

    @property
    def id(self) -> str:
        return f"{self.api}-{self.variant}@{GROUP}"

    @property
    def variant(self) -> str:
        return self.quantity.crossing(self.width)

    def pins(self, ctx: PathContext) -> dict[str, int]:
        """The first of the API's pins for the crossing that `ctx` holds (the way it is drawn decides which)."""
        module = module_for(ctx.api)
        options = module.crossing_pins(ctx, self.quantity.name, self.width)
        return dict(next((pins for pins in options if module.reachable(ctx, pins)), options[0]))


def _confirmed(ctx: PathContext, pins: Mapping[str, int], quantity: str, width: int) -> bool:
    """Whether the smallest call of `ctx` with `pins` (which fit) is legal and makes the crossing (the reference
    says)."""
    params = module_for(ctx.api).smallest_params(ctx, pins)
    if params is None:
        return False
    case: Case = probe_case(ctx, params)
    return (width in crossings(case, ctx.spec).get(quantity, ())
            and legal_transfer(resolve(case, ctx.spec)) is not None)


def _ways(ctx: PathContext, quantity: str, width: int, confirmed: set[Way]) -> dict[Way, PathContext]:
    """The ways (CROSSING_WAYS) in which `ctx` holds the crossing, each with `ctx` drawn that way: the pins fit,
    and the reference has confirmed the crossing on the smallest call of some path drawn that way (`confirmed`,
    added to as paths are looked at: one probe per way, not per path)."""
    module = module_for(ctx.api)
    found = {}
    for way in CROSSING_WAYS:
        variant = way.of(ctx)
        if variant is None:
            continue
        fitting = [pins for pins in module.crossing_pins(variant, quantity, width) if module.reachable(variant, pins)]
        if way not in confirmed and any(_confirmed(variant, pins, quantity, width) for pins in fitting):
            confirmed.add(way)
        if fitting and way in confirmed:
            found[way] = variant
    return found


def _why_not(holders: list[PathContext], quantity: str, width: int) -> str:
    """Why no holder makes the crossing: the smallest buffer overrun of its roomiest way, else a conflict."""
    reasons: list[tuple[int | None, str]] = []
    for ctx in holders:
        roomiest = Way.CROWDED.of(ctx) or ctx
        reasons += [shortfall(roomiest, dict(pins)) for pins in module_for(ctx.api).crossing_pins(roomiest, quantity, width)]
    if not reasons:
        return NOT_COMPUTED
    over, words = min(reasons, key=lambda reason: (reason[0] is None, reason[0] or 0))
    return words if over is not None or len(reasons) == 1 else f"{words} (and {len(reasons) - 1} more paths)"


def _selection(spec: Spec, products: Iterable[str] | None, apis: Iterable[str] | None
               ) -> tuple[tuple[CrossingReach, ...], tuple[Crossing, ...]]:
    """The crossings of a selection and the tests of its reachable ones, worked out together (once per spec
    content and selection: spec.derived): per API, quantity and width, highest width first, the ways each path
    makes it in."""
    products, apis = selection_key(spec, products, apis)
    return remembered(spec, "crossings", (products, apis), lambda: _work_out(spec, products, apis))


def _work_out(spec: Spec, products: tuple[str, ...], apis: tuple[str, ...]
              ) -> tuple[tuple[CrossingReach, ...], tuple[Crossing, ...]]:
    ctxs = contexts(spec, select_paths(spec, products or None, apis or None))
    table: list[CrossingReach] = []
    tests: list[Crossing] = []
    for api in (name for name in spec.apis if not apis or name in apis):
        holders = distinct([ctx for ctx in ctxs if ctx.api.name == api])
        for quantity in spec.apis[api].derived:
            rows, made = [], []
            higher: list[set[Way]] = [set() for _ in holders]   # per path: the ways it crosses a higher width in
            for width in sorted(quantity.widths, reverse=True):
                computing = [bool(module_for(ctx.api).crossing_pins(ctx, quantity.name, width)) for ctx in holders]
                confirmed: set[Way] = set()
                per_path = [_ways(ctx, quantity.name, width, confirmed) if computes else {}
                            for ctx, computes in zip(holders, computing)]
                ways = frozenset(way for found in per_path for way in found)
                why = "" if ways else _why_not([c for c, computes in zip(holders, computing) if computes],
                                               quantity.name, width)
                rows.append(CrossingReach(api, quantity, width, ways, why))
                # a call that crosses a higher width crosses this one too: a path that does needs no test of it
                drawn = tuple(variant for found, done in zip(per_path, higher) if not set(found) <= done
                              for variant in _cheapest(found))
                if drawn:
                    made.append(Crossing(api=api, contexts=drawn, quantity=quantity, width=width))
                for done, found in zip(higher, per_path):
                    done.update(found)
            table += reversed(rows)
            tests += reversed(made)
    return tuple(table), tuple(tests)


def _cheapest(found: Mapping[Way, PathContext]) -> list[PathContext]:
    """Of the ways a path makes a crossing in, the first that needs no extension, or else the first of each
    extension (a target is sent those it can take)."""
    kept: dict[str | None, PathContext] = {}
    for way, variant in found.items():
        kept.setdefault(way.extension, variant)
    return [kept[None]] if None in kept else list(kept.values())


def crossing_table(spec: Spec, products: Iterable[str] | None = None,
                   apis: Iterable[str] | None = None) -> tuple[CrossingReach, ...]:
    """Every crossing of every derived quantity of the selection's APIs, reachable or not (cached)."""
    return _selection(spec, products, apis)[0]


def crossing_tests(spec: Spec, products: Iterable[str] | None = None,
                   apis: Iterable[str] | None = None) -> list[Crossing]:
    """The tests of the selection's reachable crossings."""
    return list(_selection(spec, products, apis)[1])
