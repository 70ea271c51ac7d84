"""From a path context to a `Case`, through an editable draft.

`draft` draws the parameters, addresses and region spans; fault strategies edit the draft (a parameter, an
address, a region) before `finish` fills memory and writes the case. Every case carries `tags` naming its
path, form, the rules it exercises and the range bounds it sits on, for coverage.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping
from types import MappingProxyType

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance.format import tags
from ascendc_conformance.format.case import (DETACHED_TENSOR, IJSON_MAX, INT64, REGION_INDEX, SPARSE_MEMORY, Case,
                                              Operand)
from ascendc_conformance.format.words import BoundSide
from ascendc_conformance.spec.model import RuleKind
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import Draft, module_for
from ascendc_conformance.strategies.context import PathContext, Unreachable


def draft(draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int] | None = None) -> Draft:
    """A legal draft for `ctx`; a pin that cannot fit rejects the example (and is reported as unreachable)."""
    try:
        params, extents = module_for(ctx.api).draw_params(draw, ctx, pinned or {})
        addresses = layout.place(draw, ctx, extents)
    except Unreachable:
        reject()
    return Draft(ctx, params, extents, addresses, layout.regions(ctx, addresses, extents))


def settle(draw: st.DrawFn, d: Draft) -> None:
    """Size the draft for its edited parameters: the footprint of the faulty call, the operands placed anew
    where they no longer fit it, regions over the bytes it touches. A call that cannot fit at all is given
    up (the memory-bounds or capacity rule would be broken too)."""
    d.extents = module_for(d.ctx.api).footprint(d.ctx, d.params)
    if not layout.fits(d.ctx, d.extents):
        reject()
    if not layout.holds(d.ctx, d.addresses, d.extents):
        try:
            d.addresses = layout.place(draw, d.ctx, d.extents)
        except Unreachable:
            reject()
    d.spans = layout.regions(d.ctx, d.addresses, d.extents)


def finish(draw: st.DrawFn, d: Draft, zero_fill: bool = False) -> Case:
    """The case of the draft; `zero_fill` lets its memory be all zeros (see layout.memory_images): only for a
    case whose bytes cannot matter."""
    ctx = d.ctx
    needed = tuple(name for name, needs in ((DETACHED_TENSOR, ctx.detached),
                                            (SPARSE_MEMORY, any(REGION_INDEX in key for key in d.spans))) if needs)
    case = Case(api=ctx.api.name, product=ctx.product.id,
                src=Operand(ctx.src, ctx.src_dtype.name, d.addresses["src"]),
                dst=Operand(ctx.dst, ctx.dst_dtype.name, d.addresses["dst"]),
                params=MappingProxyType(dict(d.params)),
                memory=MappingProxyType(layout.memory_images(draw, ctx, d.spans, zero_fill)),
                tags=(tags.path(ctx.label), tags.form(ctx.form), *_rule_tags(ctx, d.params), *d.tags),
                extensions=needed)
    if case.largest_integer > IJSON_MAX:   # drawn for a target that reads 64-bit integers exactly (int64)
        assert not ctx.ijson, f"a case drawn within I-JSON holds an integer of {case.largest_integer}"
        case = replace(case, extensions=(*needed, INT64))
    return case


def extensions_of(ctxs: Iterable[PathContext]) -> frozenset[str]:
    """The case-format extensions the cases drawn for these contexts may need (a sparse context's case needs
    sparse-memory only when its GM accesses lie far apart; the test is sent only to targets announcing it)."""
    return frozenset(name for name, flag in ((DETACHED_TENSOR, "detached"), (SPARSE_MEMORY, "sparse"))
                     if any(getattr(ctx, flag) for ctx in ctxs))


def _rule_tags(ctx: PathContext, params: dict[str, Any]) -> list[str]:
    """A hit tag for the range rules a case exercises and a boundary tag where it sits on one of their bounds."""
    found = []
    for rule in ctx.rules():
        if rule.kind is not RuleKind.RANGE or rule.field not in params or not rule.illegal_by_default:
            continue
        found.append(tags.hit(rule.id))
        value = params[rule.field]
        for side, bound in ((BoundSide.MIN, rule.min), (BoundSide.MAX, rule.max)):
            if bound is not None and value == bound:
                found.append(tags.boundary(rule.id, side))
    return found
