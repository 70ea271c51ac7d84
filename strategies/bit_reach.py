"""Which bits of every field some legal call can witness, and why the others cannot: the denominator of the
reports' bit coverage (the numerator is what a run's legal cases witnessed, reference.bit_witness).

A bit of a field is *reachable* when some path of the selection holds a legal call on which the bit is set, the
field has an effect (`ApiStrategies.field_effect`: two bursts beside a gap…), and clearing the bit gives another
legal call that moves other bytes — the reference decides that, on the smallest such call (`smallest_params`),
placed at the lowest addresses its memories allow. A path may be drawn in several ways (strategies.ways: as it
is, with one large GM region, with its GM tensor start out of its region, with its GM accesses in several regions;
the last two need a case-format extension): a reachable bit records every way in which some path witnesses it,
so that the reports can say which targets can be sent it. Every other bit is unreachable for a reason: the buffer its
smallest call overruns (as a boundary test's skip message says), no value with the bit set that clears to a
legal one, or no path on which clearing it changes what a call moves.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ascendc_conformance.format.case import Case, Operand
from ascendc_conformance.reference import bit_witness as reference_bits
from ascendc_conformance.spec.derived import remembered
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.boundaries import shortfall
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts, select_paths, selection_key
from ascendc_conformance.strategies.ways import BIT_WAYS, Way, needed

NO_VALUE = "no documented value with the bit set clears to a legal one"
NO_EFFECT = "clearing it changes what no legal call moves"


@dataclass(frozen=True)
class FieldBits:
    """The bits of one field of one API: `reachable` bit -> the ways of drawing a path in which some legal call
    witnesses it (strategies.ways), `unreachable` bit -> why no legal call of the selection witnesses it."""

    api: str
    field: str
    documented: tuple[int, ...]
    reachable: Mapping[int, frozenset[Way]]
    unreachable: Mapping[int, str]

    def needs(self, bit: int) -> str:
        """The case-format extension(s) a witness of a reachable bit needs ("" for none)."""
        return ", ".join(needed(self.reachable[bit]))


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


def bit_pins(ctx: PathContext, field: str, bit: int) -> dict[str, int] | str:
    """The pins of the smallest call of `ctx` with `bit` of `field` set, with the other fields it needs to have
    an effect; or why there is none (NO_EFFECT, NO_VALUE)."""
    effect = module_for(ctx.api).field_effect(ctx, field)
    if effect is None:
        return NO_EFFECT
    tracked = reference_bits.field(ctx.spec, ctx.api.name, field)
    value = bit_value(effect.floor, bit, ctx.field_multiple(field) if "." not in field else 1, tracked.high)
    if value is None:
        return NO_VALUE
    return {**effect.pins, field: value}


def witnessing(ctx: PathContext, field: str, bit: int, ways: Iterable[Way] = BIT_WAYS
               ) -> tuple[dict[Way, Case], str]:
    """Every way (of `ways`) in which the smallest call of `ctx` with `bit` of `field` set witnesses it, with
    that call as a case; none, and why not on this path ("" when it never fits, so that the caller says which
    buffer it overruns)."""
    pins = bit_pins(ctx, field, bit)
    if isinstance(pins, str):
        return {}, pins
    module = module_for(ctx.api)
    found: dict[Way, Case] = {}
    fitted = False
    for way in ways:
        variant = way.of(ctx)
        if variant is None or not module.reachable(variant, pins):
            continue
        fitted = True
        params = module.smallest_params(variant, pins)
        if params is None:
            continue
        case = probe_case(variant, params)
        if reference_bits.has_effect(case, ctx.spec, field, bit):
            found[way] = case
    return found, "" if found or not fitted else NO_EFFECT


def witness(ctx: PathContext, field: str, bit: int) -> tuple[PathContext | None, str | Case]:
    """The first way of `ctx` (BIT_WAYS) whose smallest call with `bit` of `field` set witnesses it, as the
    context drawn that way and that call as a case; or (None, why not on this path: "" when it never fits)."""
    found, why = witnessing(ctx, field, bit)
    for way, case in found.items():
        return way.of(ctx), case
    return None, why


def field_bits(spec: Spec, api: str, ctxs: Iterable[PathContext]) -> list[FieldBits]:
    """The bits of every tracked field of `api` over the contexts `ctxs` (of that API)."""
    found = []
    for tracked in reference_bits.fields(spec, api):
        base = tracked.name.partition(".")[0]
        holders = _distinct([ctx for ctx in ctxs if ctx.api.name == api and base in ctx.api.forms[ctx.form].fields],
                            by_name=tracked.high == 1)   # a mode (a bool) may depend on the dtype itself
        reachable: dict[int, set[Way]] = {}
        reasons: dict[int, set[str]] = {}
        too_small: dict[int, list[PathContext]] = {}   # bit -> the paths its smallest call does not fit
        for ctx in holders:
            fitting = True   # a bigger value fits no better: past the first bit that does not fit, none does
            for bit in tracked.bits:
                missing = _sought(reachable.get(bit, set()))
                if not missing:
                    continue
                ways, why = witnessing(ctx, tracked.name, bit, missing) if fitting else ({}, "")
                if ways:
                    reachable.setdefault(bit, set()).update(ways)
                elif why:
                    reasons.setdefault(bit, set()).add(why)
                elif bit not in reachable:
                    fitting = False
                    too_small.setdefault(bit, []).append(ctx)
        unreachable = _unreachable(tracked, reachable, reasons, too_small)
        found.append(FieldBits(api, tracked.name, tracked.bits,
                               MappingProxyType({bit: frozenset(ways) for bit, ways in sorted(reachable.items())}),
                               MappingProxyType(unreachable)))
    return found


def _sought(found: set[Way]) -> list[Way]:
    """The ways still worth looking for a bit in, given those found: none once it is plain (every target gets
    it), only the plain one once a large region reaches it (every target gets it too)."""
    if Way.PLAIN in found:
        return []
    if Way.LARGE in found:
        return [Way.PLAIN]
    return [way for way in BIT_WAYS if way not in found]


def _unreachable(tracked: reference_bits.BitField, reachable: Mapping[int, set[Way]], reasons: Mapping[int, set[str]],
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


def selection_bits(spec: Spec, products: Iterable[str] | None = None,
                   apis: Iterable[str] | None = None) -> tuple[FieldBits, ...]:
    """The bits of every tracked field of every API of the selection (every product and API by default), worked
    out once per spec content and selection (spec.derived)."""
    products, apis = selection_key(spec, products, apis)

    def work_out() -> tuple[FieldBits, ...]:
        ctxs = contexts(spec, select_paths(spec, products or None, apis or None))
        return tuple(entry for api in spec.apis if not apis or api in apis for entry in field_bits(spec, api, ctxs))
    return remembered(spec, "selection-bits", (products, apis), work_out)


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
