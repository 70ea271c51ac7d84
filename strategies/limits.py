"""A target's declared limits against the spec: which rule each deviates from, and cases just past each.

A target may declare stricter alignments or lower maxima than the spec (format.limits). Legal cases are then
drawn within them (PathContext.within), so that the deviation does not hide the target's other bugs; this
module says which spec rule each declared limit deviates from (`deviations`, named in the certification) and
draws, for each, cases that are legal by the spec but just past the declared limit (`LimitProbe`): a target
must reject them, or its declaration is not what it does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Collection, Iterable, Mapping, Sequence

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance.format.case import Case
from ascendc_conformance.format.limits import DeclaredAlignment, DeclaredMaximum, Limits
from ascendc_conformance.spec.model import Path, RuleKind, ShortRepr, Spec
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.cases import draft, finish
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts

Limit = DeclaredAlignment | DeclaredMaximum


@dataclass(frozen=True)
class Deviation:
    """One declared limit that narrows what the spec allows, with the spec rules it deviates from (none: the
    spec asks nothing there, e.g. an alignment of a memory no alignment rule covers) and what they allow."""

    limit: Limit
    rules: tuple[str, ...]
    spec_allows: str

    @property
    def text(self) -> str:
        rules = ", ".join(self.rules) if self.rules else "no rule of the spec"
        return f"{self.limit.label} (the spec, {rules}: {self.spec_allows})"

    def to_json(self) -> dict[str, Any]:
        return {"limit": self.limit.to_json(), "label": self.limit.label, "rules": list(self.rules),
                "spec_allows": self.spec_allows, "text": self.text}


def deviations(spec: Spec, limits: Limits, paths: Sequence[Path]) -> list[Deviation]:
    """The declared limits stricter than the spec somewhere on `paths` (a limit that is not is no deviation)."""
    ctxs = contexts(spec, paths)
    found = []
    for limit in limits.deviations:
        if isinstance(limit, DeclaredMaximum):
            rules = [rule for ctx in ctxs if limit.covers(ctx.api.name, ctx.product.id, limit.field)
                     for rule in ctx.rules() if rule.kind is RuleKind.RANGE and rule.field == limit.field
                     and rule.max is not None and rule.illegal_by_default and rule.max > limit.max]
            if rules:
                found.append(Deviation(limit, tuple(dict.fromkeys(rule.id for rule in rules)),
                                       f"{limit.field} <= {max(rule.max for rule in rules if rule.max is not None)}"))
            continue
        stricter = [(ctx, op) for ctx in ctxs for op in ("src", "dst") if _misalignable(ctx, op, limit)]
        if stricter:
            rule_ids = [rule.id for ctx, op in stricter for rule in ctx.rules() if rule.kind is RuleKind.ALIGNMENT
                        and op in rule.operands and rule.where.covers(ctx.position(op))]
            spec_bytes = sorted({ctx.alignment(op) for ctx, op in stricter})
            found.append(Deviation(limit, tuple(dict.fromkeys(rule_ids)),
                                   f"{'/'.join(map(str, spec_bytes))}-B aligned" if spec_bytes != [1] else "any address"))
    return found


def _misalignable(ctx: PathContext, operand: str, limit: DeclaredAlignment) -> bool:
    """The limit covers the operand and demands more than the spec (and the target's other limits) there."""
    position = ctx.position(operand)
    if not limit.covers(ctx.api.name, operand, position, ctx.product.memory_of(position)):
        return False
    return limit.bytes % ctx.alignment(operand) == 0 and limit.bytes > ctx.alignment(operand)


@dataclass(frozen=True, repr=False)
class LimitProbe(ShortRepr):
    """Cases legal by the spec but just past one declared limit (a maximum + 1, or an operand aligned as the
    spec asks but not as the target demands), drawn within the target's other limits: it must reject them."""

    deviation: Deviation
    contexts: tuple[PathContext, ...]

    @property
    def limit(self) -> Limit:
        return self.deviation.limit

    @property
    def id(self) -> str:
        rule = self.deviation.rules[0] if self.deviation.rules else "undocumented"
        return f"{rule}:" + re.sub(r"[^A-Za-z0-9_.=<>-]+", "-", self.limit.label)

    def __repr__(self) -> str:
        return f"LimitProbe({self.id}, {len(self.contexts)} contexts)"

    def strategy(self) -> st.SearchStrategy[Case]:
        return st.sampled_from(self.contexts).flatmap(self._case)

    @st.composite
    def _case(draw: st.DrawFn, self: LimitProbe, ctx: PathContext, /) -> Case:
        if isinstance(self.limit, DeclaredMaximum):
            return finish(draw, draft(draw, ctx, {self.limit.field: self.limit.max + 1}))
        d = draft(draw, ctx)
        operand = draw(st.sampled_from([op for op in ("src", "dst") if _misalignable(ctx, op, self.limit)]),
                       label="operand past the declared alignment")
        address = d.addresses[operand] // self.limit.bytes * self.limit.bytes + ctx.alignment(operand)
        d.addresses[operand] = address
        if not layout.holds(ctx, d.addresses, d.extents):
            reject()
        d.spans = layout.regions(ctx, d.addresses, d.extents)
        return finish(draw, d)


def probes(spec: Spec, limits: Limits, paths: Iterable[Path]) -> list[LimitProbe]:
    """A probe per deviation of the declared limits on `paths`, drawn where the case fits (none for a limit no
    such case can reach)."""
    paths = list(paths)
    built = []
    for deviation in deviations(spec, limits, paths):
        others = limits.without(deviation.limit)
        ctxs = [ctx.within(others) for ctx in contexts(spec, paths)]
        limit = deviation.limit
        if isinstance(limit, DeclaredMaximum):
            pins = {limit.field: limit.max + 1}
            ctxs = [ctx for ctx in ctxs if limit.covers(ctx.api.name, ctx.product.id, limit.field)
                    and limit.field in ctx.api.forms[ctx.form].fields
                    and ctx.field_range(limit.field)[1] > limit.max and module_for(ctx.api).reachable(ctx, pins)]
        else:
            ctxs = [ctx for ctx in ctxs if any(_misalignable(ctx, op, limit) for op in ("src", "dst"))]
        if ctxs:
            built.append(LimitProbe(deviation, tuple(ctxs)))
    return built


def above_maximum(ctx: PathContext, limits: Limits, values: Mapping[str, Any],
                  exempt: Collection[str] = frozenset()) -> str | None:
    """Which of `values` (parameters, or the values a test pins) lies above a maximum the target declares, in
    words (None: none; a declared maximum of 0 is a maximum like any other); the `exempt` ones, which a fault
    pins on purpose, are not looked at."""
    api, product = ctx.api.name, ctx.product.id
    for name, value in values.items():
        maximum = limits.maximum(api, product, name)
        if name not in exempt and isinstance(value, int) and maximum is not None and value > maximum:
            return f"{name} = {value} is above the declared {maximum}"
    return None


def no_legal_call(ctx: PathContext) -> str | None:
    """A field of `ctx` whose declared maximum lies below the smallest value the spec allows it, in words (None:
    none; a maximum of 0 for a field whose minimum is 1: the target accepts no call of the path at all)."""
    for name, field in ctx.api.forms[ctx.form].fields.items():
        if field.array_of is not None or field.ctype not in ctx.spec.ctypes:
            continue
        low, high = ctx.field_range(name)
        if low > high:
            return f"{name} must be at least {low} by the spec, and the target declares at most {high}"
    return None


def moves_something(ctx: PathContext) -> bool:
    """Whether some call of `ctx` within the limits it is drawn within touches memory: with one field just above
    its minimum (or at its top) and the others at their minimum, a reachable call's footprint is not empty (a
    declared maximum of 0 for NZ2ND's ndNum leaves only calls that move nothing: no region or capacity fault can
    be built on them)."""
    module = module_for(ctx.api)
    for name, field in ctx.api.forms[ctx.form].fields.items():
        if field.array_of is not None or field.ctype not in ctx.spec.ctypes:
            continue
        low, high = ctx.field_range(name)
        for pins in ({name: value} for value in {min(low + 1, high), high} if value >= low):
            params = module.smallest_params(ctx, pins) if module.reachable(ctx, pins) else None
            if params is not None and any(top > bottom for bottom, top in
                                          (module.footprint(ctx, params).of(op) for op in ("src", "dst"))):
                return True
    return not any(field.array_of is None and field.ctype in ctx.spec.ctypes
                   for field in ctx.api.forms[ctx.form].fields.values())


def beyond(case: Case, ctx: PathContext, limits: Limits, exempt: frozenset[str] = frozenset()) -> str | None:
    """What of a drawn case lies past a limit the target declares, in words (None: nothing): a parameter above a
    declared maximum (but the `exempt` ones, which a fault pins on purpose), or an operand not aligned as the
    target demands (but one the case misaligns against the spec itself: a misalignment fault's point). A
    profile run draws its cases within the limits (PathContext.within); a pack's were drawn without them."""
    if not limits.deviations:   # nothing declared narrows the spec (most targets): nothing to look at
        return None
    above = above_maximum(ctx, limits, case.params, exempt)
    if above is not None:
        return above
    api = ctx.api.name
    spec_only = ctx.within(Limits())
    for operand in ("src", "dst"):
        address, position = case.operand(operand).address, ctx.position(operand)
        declared = limits.alignment(api, operand, position, ctx.product.memory_of(position))
        if address % spec_only.alignment(operand) == 0 and address % declared:
            return f"the {operand} address {address:#x} is not {declared}-B aligned as declared"
    return None
