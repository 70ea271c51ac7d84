"""Which bits of every field some legal call can witness, and why the others cannot: the denominator of the
reports' bit coverage (the numerator is what a run's legal cases witnessed, reference.bit_witness).

A bit of a field is *reachable* when some path of the selection holds a legal call on which the bit is set, the
field has an effect (`ApiStrategies.field_effect`: two bursts beside a gap…), and clearing the bit gives another
legal call that moves other bytes — the reference decides that, on the smallest such call (`smallest_params`),
placed at the lowest addresses its memories allow. A path may be drawn as it is, with its GM tensor start out of
its region or with its GM accesses in several regions (boundaries.VARIANTS: the last two need a case-format
extension, which the reachable bit then names). Every other bit is unreachable for a reason: the buffer its
smallest call overruns (as a boundary test's skip message says), no value with the bit set that clears to a
legal one, or no path on which clearing it changes what a call moves.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ascendc_conformance.format.case import Case, Operand
from ascendc_conformance.reference import bit_witness as reference_bits
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.boundaries import VARIANTS, shortfall
from ascendc_conformance.strategies.cases import extensions_of
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts, select_paths

NO_VALUE = "no documented value with the bit set clears to a legal one"
NO_EFFECT = "clearing it changes what no legal call moves"


@dataclass(frozen=True)
class FieldBits:
    """The bits of one field of one API: `reachable` bit -> the case-format extension its witness needs ("" for
    none), `unreachable` bit -> why no legal call of the selection witnesses it."""

    api: str
    field: str
    documented: tuple[int, ...]
    reachable: Mapping[int, str]
    unreachable: Mapping[int, str]


def bit_value(floor: int, bit: int, step: int, high: int) -> int | None:
    """The smallest value of a field (a multiple of `step`, at most `high`) with `bit` set whose clearing leaves
    a value of at least `floor` (and a multiple of `step`); None when there is none."""
    if (1 << bit) % step:
        return None
    cleared = -(-floor // step) * step
    while cleared >> bit & 1:
        cleared = (cleared | ((1 << (bit + 1)) - 1)) + 1
        cleared = -(-cleared // step) * step
    value = cleared | (1 << bit)
    return value if value <= high else None


def probe_case(ctx: PathContext, params: dict[str, Any]) -> Case:
    """A case of `ctx` with `params`, its operands at the lowest addresses its memories allow, without memory
    images (the reference judges what it moves, not bytes)."""
    extents = module_for(ctx.api).footprint(ctx, params)
    addresses = layout.lowest_addresses(ctx, extents)
    return Case(api=ctx.api.name, product=ctx.product.id, params=MappingProxyType(params), memory=MappingProxyType({}),
                src=Operand(ctx.src, ctx.src_dtype.name, addresses["src"]),
                dst=Operand(ctx.dst, ctx.dst_dtype.name, addresses["dst"]))


def witness(ctx: PathContext, field: str, bit: int) -> tuple[PathContext | None, str | Case]:
    """The variant of `ctx` (VARIANTS) whose smallest call with `bit` of `field` set witnesses it, with that
    call as a case; or (None, why not on this path: "" when it never fits, so that the caller says which buffer
    it overruns)."""
    module = module_for(ctx.api)
    effect = module.field_effect(ctx, field)
    if effect is None:
        return None, NO_EFFECT
    tracked = reference_bits.field(ctx.spec, ctx.api.name, field)
    value = bit_value(effect.floor, bit, ctx.field_multiple(field) if "." not in field else 1, tracked.high)
    if value is None:
        return None, NO_VALUE
    pins = {**effect.pins, field: value}
    fitted = False
    for variant in filter(None, (make(ctx) for make in VARIANTS)):
        if not module.reachable(variant, pins):
            continue
        fitted = True
        params = module.smallest_params(variant, pins)
        if params is None:
            continue
        case = probe_case(variant, params)
        if reference_bits.has_effect(case, ctx.spec, field, bit):
            return variant, case
    return None, NO_EFFECT if fitted else ""


def field_bits(spec: Spec, api: str, ctxs: Iterable[PathContext]) -> list[FieldBits]:
    """The bits of every tracked field of `api` over the contexts `ctxs` (of that API)."""
    found = []
    for tracked in reference_bits.fields(spec, api):
        base = tracked.name.partition(".")[0]
        holders = _distinct([ctx for ctx in ctxs if ctx.api.name == api and base in ctx.api.forms[ctx.form].fields],
                            by_name=tracked.high == 1)   # a mode (a bool) may depend on the dtype itself
        reachable: dict[int, str] = {}
        reasons: dict[int, set[str]] = {}
        too_small: dict[int, list[PathContext]] = {}   # bit -> the paths its smallest call does not fit
        for ctx in holders:
            fitting = True   # a bigger value fits no better: past the first bit that does not fit, none does
            for bit in tracked.bits:
                if bit in reachable:
                    continue
                variant, why = witness(ctx, tracked.name, bit) if fitting else (None, "")
                if variant is not None:   # `why` is then the witnessing case
                    reachable[bit] = ",".join(sorted(extensions_of([variant])))
                elif isinstance(why, str) and why:
                    reasons.setdefault(bit, set()).add(why)
                else:
                    fitting = False
                    too_small.setdefault(bit, []).append(ctx)
        unreachable = _unreachable(tracked, reachable, reasons, too_small)
        found.append(FieldBits(api, tracked.name, tracked.bits, MappingProxyType(dict(sorted(reachable.items()))),
                               MappingProxyType(unreachable)))
    return found


def _unreachable(tracked: reference_bits.BitField, reachable: Mapping[int, str], reasons: Mapping[int, set[str]],
                 too_small: Mapping[int, list[PathContext]]) -> dict[int, str]:
    """Why each bit no path reaches is unreachable: the smallest overrun of a buffer where it never fits (the
    path of the smallest overrun of a run of such bits is the one shown for all of them), else the other
    reasons."""
    found: dict[int, str] = {}
    shown: PathContext | None = None
    for bit in tracked.bits:
        if bit in reachable:
            shown = None
            continue
        paths = too_small.get(bit, [])
        if paths:
            overruns = [_overrun(ctx, tracked.name, bit) for ctx in ([shown] if shown in paths else paths)]
            best = min(range(len(overruns)), key=lambda i: (overruns[i][0] is None, overruns[i][0] or 0))
            shown = ([shown] if shown in paths else paths)[best]
            if overruns[best][0] is not None:
                found[bit] = overruns[best][1]
                continue
            reasons = {**reasons, bit: reasons.get(bit, set()) | {overruns[best][1]}}
        words = sorted(reasons.get(bit, {"no path of the selection has the field"}))
        found[bit] = words[0] + (f" (and {len(words) - 1} more paths)" if len(words) > 1 else "")
    return found


_SELECTIONS: dict[tuple[Any, ...], tuple[FieldBits, ...]] = {}   # (spec digest, products, APIs) -> bits of the selection


def selection_bits(spec: Spec, products: Iterable[str] | None = None,
                   apis: Iterable[str] | None = None) -> tuple[FieldBits, ...]:
    """The bits of every tracked field of every API of the selection (every product and API by default)."""
    products = tuple(sorted(products or ()))
    apis = tuple(sorted(apis or ()))
    key = (spec.digest, products, apis)
    if key not in _SELECTIONS:
        ctxs = contexts(spec, select_paths(spec, products or None, apis or None))
        _SELECTIONS[key] = tuple(entry for api in spec.apis if not apis or api in apis
                                 for entry in field_bits(spec, api, ctxs))
    return _SELECTIONS[key]


def _distinct(ctxs: list[PathContext], by_name: bool = False) -> list[PathContext]:
    """One context per product, route, form and dtype sizes (what a call's footprint depends on), or also per
    dtype name (`by_name`: a mode such as a transpose depends on the dtype itself)."""
    kept: dict[tuple[Any, ...], PathContext] = {}
    for ctx in ctxs:
        dtypes = (ctx.src_dtype.name, ctx.dst_dtype.name) if by_name else (ctx.src_dtype.size, ctx.dst_dtype.size)
        kept.setdefault((ctx.product.id, ctx.src, ctx.dst, ctx.form, *dtypes), ctx)
    return list(kept.values())


def _overrun(ctx: PathContext, field: str, bit: int) -> tuple[int | None, str]:
    """Which buffer the smallest call with the bit set overruns on this path (boundaries.shortfall), drawn with
    GM in several regions where it touches GM (the most room any variant gives)."""
    module = module_for(ctx.api)
    effect = module.field_effect(ctx, field)
    assert effect is not None, "a field whose bits are tracked has an effect on the path that holds it"
    tracked = reference_bits.field(ctx.spec, ctx.api.name, field)
    value = bit_value(effect.floor, bit, ctx.field_multiple(field) if "." not in field else 1, tracked.high)
    return shortfall(ctx.sparsing() if ctx.touches_gm else ctx, {**effect.pins, field: value})
