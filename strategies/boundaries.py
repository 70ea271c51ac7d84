"""Boundary pairs: for every range rule, the just-legal and the just-illegal value of each bound.

The just-illegal side is the rule's fault (strategies.faults, variants 'below' / 'above'); this module adds the
just-legal side as pinned legal cases, one test per group of routes with the same physical memories
(`<rule>=<value>@<src memory>-><dst memory>`), so that a bound is tested on every kind of route, each drawn
with the other fields a field needs to have an effect (`ApiStrategies.field_effect`: two bursts beside a gap,
two repeats beside a stride). Where no path of a group can reach a legal bound under the product's capacities
(or the GM window), the pair records that instead of drawing anything. A bound that fits only with the GM
tensor start left out of its region, or with GM accesses in several regions, is drawn so (case extensions
detached-tensor, sparse-memory).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from hypothesis import strategies as st

from ascendc_conformance.format import tags
from ascendc_conformance.format.case import Case
from ascendc_conformance.format.words import BoundSide
from ascendc_conformance.spec.model import Rule, RuleKind, ShortRepr, Spec
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.cases import draft, extensions_of, finish
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts, select_paths


@dataclass(frozen=True, repr=False)
class Boundary(ShortRepr):
    rule: Rule
    side: BoundSide
    legal_value: int
    illegal_value: int
    group: str                         # "<src memory>-><dst memory>": the routes this test pins the bound on
    contexts: tuple[PathContext, ...]  # where the legal value is reachable
    unreachable: tuple[str, ...]       # per path where it is not: the label and which buffer it overruns by how much
    with_effect: bool = True           # drawn with the pins under which the field has an effect (where it has one)

    @property
    def id(self) -> str:
        return f"{self.rule.id}={self.legal_value}@{self.group}"

    def __repr__(self) -> str:
        return f"Boundary({self.id}, {len(self.contexts)} contexts)"

    @property
    def extensions(self) -> frozenset[str]:
        """Case-format extensions a target must announce to be sent this boundary's cases."""
        return extensions_of(self.contexts)

    def strategy(self) -> st.SearchStrategy[Case]:
        return st.sampled_from(self.contexts).flatmap(self._case)

    @st.composite
    def _case(draw: st.DrawFn, self: Boundary, ctx: PathContext, /) -> Case:
        d = draft(draw, ctx, pins(ctx, self.rule.param, self.legal_value, self.with_effect))
        d.tags.append(tags.boundary(self.rule.id, self.side))
        return finish(draw, d)


REACH = "reach"   # the group of a Reach test: the paths of every group that hold its value


@dataclass(frozen=True, repr=False)
class Reach(Boundary):
    """Not a bound: the field of a range rule at a value with its highest reachable bits set (and as many lower
    ones as fit), drawn with the other fields it needs to have an effect, on the paths that hold it
    (test_boundary[<rule>=<value>@reach]). Each set bit is one that a field decoded into too few bits, or read
    as signed, loses or misreads; random draws set the top bits of a field only now and then, these always.
    Its cases sit on no bound (no boundary tag)."""

    @st.composite
    def _case(draw: st.DrawFn, self: Reach, ctx: PathContext, /) -> Case:
        return finish(draw, draft(draw, ctx, pins(ctx, self.rule.param, self.legal_value)))


def pins(ctx: PathContext, field: str, value: int, with_effect: bool = True) -> dict[str, int]:
    """`field` at `value`, with the other fields it needs to have an effect on ctx (none where it has none)."""
    effect = module_for(ctx.api).field_effect(ctx, field) if with_effect else None
    return {**(effect.pins if effect is not None else {}), field: value}


# How a path may be drawn, in order of preference: as it is, with its GM tensor start out of its region, with its
# GM accesses in several regions (the last two need a case-format extension, so only where the first cannot).
VARIANTS: tuple[Callable[[PathContext], PathContext | None], ...] = (
    lambda ctx: ctx,
    lambda ctx: ctx.detaching() if ctx.touches_gm else None,
    lambda ctx: ctx.sparsing() if ctx.touches_gm else None,
)


def reaching(members: Iterable[PathContext], field: str, value: int) -> tuple[tuple[PathContext, ...], bool]:
    """The contexts of `members` that reach `field` = `value` (with its effect where any reaches it so, else
    without), in the first variant (VARIANTS) in which any does, and whether they do with its effect."""
    members = list(members)
    for with_effect in (True, False):
        for variant in VARIANTS:
            reach = tuple(v for v in map(variant, members)
                          if v is not None and module_for(v.api).reachable(v, pins(v, field, value, with_effect)))
            if reach:
                return reach, with_effect
    return (), True


def distinct(ctxs: list[PathContext]) -> list[PathContext]:
    """One context per product, route, form and dtype sizes, the first in the spec's order: a pinned bound moves
    the same bytes whatever the dtype of a size (so a test samples among fewer, and different, paths)."""
    kept: dict[tuple[Any, ...], PathContext] = {}
    for ctx in ctxs:
        kept.setdefault((ctx.product.id, ctx.src, ctx.dst, ctx.form, ctx.src_dtype.size, ctx.dst_dtype.size), ctx)
    return list(kept.values())


def group_of(ctx: PathContext) -> str:
    """The physical memories of a path's route: what the routes of one boundary test share."""
    return f"{ctx.memory('src')}->{ctx.memory('dst')}"


def boundaries(spec: Spec, products: Iterable[str] | None = None,
               apis: Iterable[str] | None = None) -> list[Boundary]:
    """Every range bound of the selection on every group of routes with the same memories, with the contexts
    that can reach its legal value; then the Reach tests of every field with a range rule that bounds it above."""
    paths = select_paths(spec, products, apis)
    pairs, reaches = [], []
    for rule in spec.rules.values():
        if rule.kind is not RuleKind.RANGE or not rule.illegal_by_default:
            continue
        candidates = distinct([c for c in contexts(spec, [p for p in paths if p.api == rule.api and rule.applies_to(p.product)])
                               if rule.field in c.api.forms[c.form].fields])
        if not candidates:
            continue
        groups: dict[str, list[PathContext]] = {}
        for ctx in candidates:
            groups.setdefault(group_of(ctx), []).append(ctx)
        for side, legal, illegal in _sides(rule, candidates[0]):
            for group, members in sorted(groups.items()):
                reach, with_effect = reaching(members, rule.param, legal)
                labels = {c.label for c in reach}
                missing = tuple(_shortfall(c.detaching() if c.touches_gm else c, pins(c, rule.param, legal))
                                for c in members if c.label not in labels)
                pairs.append(Boundary(rule, side, legal, illegal, group, reach, tuple(sorted(set(missing))), with_effect))
        if rule.max is not None:
            reaches.extend(_reaches(rule, candidates))
    return pairs + reaches


def _reaches(rule: Rule, candidates: list[PathContext]) -> list[Reach]:
    """The values that set every bit of the rule's field some path holds with its effect, highest bits first:
    each the highest bit not set yet with as many lower ones as fit (found by bisection), as Reach tests (but the
    maximum, which the bound's own tests pin)."""
    field, high = rule.param, candidates[0].field_range(rule.param)[1]
    step = candidates[0].field_multiple(field)

    def value(top: int, lower: int) -> int:
        return ((1 << top) | ((1 << lower) - 1)) // step * step

    def held(top: int, lower: int, cleared: bool = True) -> bool:
        """Some path holds the value with `top` set (and, with `cleared`, holds it cleared too)."""
        candidate = value(top, lower)
        return (candidate <= high and bool(candidate >> top & 1)
                and any(_holds(ctx, field, candidate, top if cleared else None) for ctx in candidates))

    found, uncovered = [], set(range(high.bit_length()))
    while uncovered:
        top = max(uncovered)
        least = None
        for lower in range(top + 1):   # fitting gets harder with every lower bit: stop at the first that does not
            if not held(top, lower, cleared=False):
                break
            if held(top, lower):
                least = lower
                break
        if least is None:
            uncovered.discard(top)
            continue
        low, most = least, top
        while low < most:
            middle = (low + most + 1) // 2
            low, most = (middle, most) if held(top, middle) else (low, middle - 1)
        found.append(value(top, low))
        uncovered -= {bit for bit in range(top + 1) if found[-1] >> bit & 1}
    assert rule.max is not None, "a Reach test's field is bounded above"
    return [Reach(rule, BoundSide.MAX, reached, rule.max + 1, REACH, reaching(candidates, field, reached)[0], ())
            for reached in found if reached != rule.max]   # the bound's own tests pin the maximum


def _holds(ctx: PathContext, field: str, value: int, top: int | None) -> bool:
    """Whether some variant of `ctx` holds `field` = `value` with the field's effect (and, given `top`, with that
    bit cleared leaving a legal value: no lower than the field's floor there)."""
    effect = module_for(ctx.api).field_effect(ctx, field)
    if effect is None or top is not None and value - (1 << top) < effect.floor:
        return False
    return any(v is not None and module_for(v.api).reachable(v, pins(v, field, value)) for v in map(lambda m: m(ctx), VARIANTS))


def shortfall(ctx: PathContext, pins: dict[str, Any]) -> tuple[int | None, str]:
    """Why pinned values cannot be reached on a path: by how many bytes its smallest call overruns which buffer,
    as (bytes, words), or (None, words) for a conflict with another rule of the path (or a call the API's
    module cannot size)."""
    module = module_for(ctx.api)
    params = module.smallest_params(ctx, pins)
    pinned = ", ".join(f"{k} = {v}" for k, v in pins.items())
    if params is None:
        return None, f"{ctx.label}: {pinned} cannot be met on this path"
    extents = module.footprint(ctx, params)
    for operand in sorted(("src", "dst"), key=lambda op: ctx.memory(op) == "GM"):   # buffers first
        memory = ctx.memory(operand)
        need = sum(layout.reach(extents, operand))
        if need > ctx.span_limit(memory) and layout.pieces(ctx, extents, operand) is None:
            over = need - ctx.span_limit(memory)
            return over, (f"{ctx.label}: needs {need} B of {memory}, {over} B more than its {ctx.span_limit(memory)} B"
                          f"{' (GM window of one region)' if memory == 'GM' else ''}")
    return None, f"{ctx.label}: {pinned} conflicts with another rule of the path"


def _shortfall(ctx: PathContext, pins: dict[str, Any]) -> str:
    return shortfall(ctx, pins)[1]


def _sides(rule: Rule, ctx: PathContext) -> list[tuple[BoundSide, int, int]]:
    """(side, just-legal value, just-illegal value) per bound; one side when both bounds are the same value
    (a field that must be 0), so that no boundary test is run twice under one id."""
    step = ctx.field_multiple(rule.param)
    sides = []
    if rule.min is not None:
        sides.append((BoundSide.MIN, -(-rule.min // step) * step, rule.min - 1))
    if rule.max is not None and not (sides and sides[0][1] == rule.max // step * step):
        sides.append((BoundSide.MAX, rule.max // step * step, rule.max + step))
    return sides
