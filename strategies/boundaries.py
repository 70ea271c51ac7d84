"""Boundary pairs: for every range rule, the just-legal and the just-illegal value of each bound.

The just-illegal side is the rule's fault (strategies.faults, variants 'below' / 'above'); this module adds the
just-legal side as pinned legal cases. Where no path of the selection can reach a legal bound under the
product's capacities (or the GM window), the pair records that instead of drawing anything.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from hypothesis import strategies as st

from ascendc_conformance.format import tags
from ascendc_conformance.format.words import BoundSide
from ascendc_conformance.spec.loader import load_spec
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
    contexts: tuple[PathContext, ...]  # where the legal value is reachable
    unreachable: tuple[str, ...]       # per path where it is not: the label and which buffer it overruns by how much

    @property
    def id(self) -> str:
        return f"{self.rule.id}={self.legal_value}"

    def __repr__(self) -> str:
        return f"Boundary({self.id}, {len(self.contexts)} contexts)"

    @property
    def extensions(self) -> frozenset[str]:
        """Case-format extensions a target must announce to be sent this boundary's cases."""
        return extensions_of(self.contexts)

    def strategy(self) -> st.SearchStrategy[dict]:
        return st.sampled_from(self.contexts).flatmap(self._case)

    @st.composite
    def _case(draw, self, ctx: PathContext) -> dict:
        d = draft(draw, ctx, {self.rule.field: self.legal_value})
        d.tags.append(tags.boundary(self.rule.id, self.side))
        return finish(draw, d)


def boundaries(spec: Spec | None = None, products: Iterable[str] | None = None,
               apis: Iterable[str] | None = None) -> list[Boundary]:
    """Every range bound of the selection, with the contexts that can reach its legal value."""
    spec = spec or load_spec()
    paths = select_paths(spec, products, apis)
    pairs = []
    for rule in spec.rules.values():
        if rule.kind is not RuleKind.RANGE or not rule.illegal_by_default:
            continue
        candidates = [c for c in contexts(spec, [p for p in paths if p.api == rule.api and rule.applies_to(p.product)])
                      if rule.field in c.api.forms[c.form].fields]
        if not candidates:
            continue
        for side, legal, illegal in _sides(rule, candidates[0]):
            pins = {rule.field: legal}
            reach = tuple(c for c in candidates if module_for(c.api).reachable(c, pins))
            if not reach:   # a tensor start far from the touched GM bytes (e.g. startIndex x 512 B)
                reach = tuple(c.detaching() for c in candidates
                              if c.touches_gm and module_for(c.api).reachable(c.detaching(), pins))
            labels = {c.label for c in reach}
            missing = tuple(_shortfall(c.detaching() if c.touches_gm else c, pins)
                            for c in candidates if c.label not in labels)
            pairs.append(Boundary(rule, side, legal, illegal, reach, tuple(sorted(missing))))
    return pairs


def _shortfall(ctx: PathContext, pins: dict) -> str:
    """Why a pinned value cannot be reached on a path: the buffer its smallest call overruns, and by how much
    (or the rule of the path it conflicts with when it fits every buffer)."""
    module = module_for(ctx.api)
    params = module.smallest_params(ctx, pins)
    if params is None:
        return f"{ctx.label}: {', '.join(f'{k} = {v}' for k, v in pins.items())} cannot be met on this path"
    extents = module.footprint(ctx, params)
    for operand in sorted(("src", "dst"), key=lambda op: ctx.memory(op) == "GM"):   # buffers first
        memory = ctx.memory(operand)
        need = sum(layout.reach(extents, operand))
        if need > ctx.span_limit(memory):
            return (f"{ctx.label}: needs {need} B of {memory}, {need - ctx.span_limit(memory)} B more than its "
                    f"{ctx.span_limit(memory)} B{' (GM window of one region)' if memory == 'GM' else ''}")
    return f"{ctx.label}: {', '.join(f'{k} = {v}' for k, v in pins.items())} conflicts with another rule of the path"


def _sides(rule: Rule, ctx: PathContext) -> list[tuple[BoundSide, int, int]]:
    """(side, just-legal value, just-illegal value) per bound; one side when both bounds are the same value
    (a field that must be 0), so that no boundary test is run twice under one id."""
    step = ctx.field_multiple(rule.field)
    sides = []
    if rule.min is not None:
        sides.append((BoundSide.MIN, -(-rule.min // step) * step, rule.min - 1))
    if rule.max is not None and not (sides and sides[0][1] == rule.max // step * step):
        sides.append((BoundSide.MAX, rule.max // step * step, rule.max + step))
    return sides
