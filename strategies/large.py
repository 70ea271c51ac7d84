"""The top bits of gaps, strides and start indices for every target: one large GM region instead of an extension.

The calls that set a field's highest bits with an effect lie megabytes apart in GM (DataCopy bursts 32768
blocks = 1 MiB apart, LoadData2D fractals 32768 x 512 B = 16 MiB apart, a slice 2^24 elements from its tensor
start). They fit no GM window, so the legal tests and the bounds' tests draw them only for a target that
announces `sparse-memory` or `detached-tensor`; and where the bound's own test is drawn so (a gap of 65535), a
target without them loses the lower bits that test sets too. These tests draw them in one GM region of up to
LARGE_REGION_BYTES (strategies.ways: Way.LARGE), which any target reads: for each field, the values that set every
bit a target without extensions can be sent and no bound's or reach test sends it, highest bits first and as many
of them in one value as fit (LoadData2D srcStride 65535, bits 0 to 15, in 32 MiB), each confirmed on the
reference (it witnesses the bits: strategies.bit_reach), as `test_boundary[<API>-<field>=<value>@large]`. A target
that announces an extension is sent the same values drawn its cheaper way (strategies.pinned).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Sequence

from ascendc_conformance.reference import bit_witness as reference_bits
from ascendc_conformance.spec.model import RuleKind, Spec
from ascendc_conformance.strategies import bit_reach
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.boundaries import Boundary, boundaries, distinct
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts, select_paths
from ascendc_conformance.strategies.pinned import PinnedTest
from ascendc_conformance.strategies.ways import Way

GROUP = "large"   # the group of a FieldReach test's id


@dataclass(frozen=True, repr=False, kw_only=True)
class FieldReach(PinnedTest):
    """test_boundary[<API>-<field>=<value>@large]: `field` at `value`, with the other fields it needs to have
    an effect, in one large GM region."""

    field: str
    value: int
    range_rule: str | None = None   # the rule that bounds the field, if one does

    @property
    def id(self) -> str:
        return f"{self.api}-{self.field}={self.value}@{GROUP}"

    @property
    def rule(self) -> str | None:
        return self.range_rule

    @property
    def variant(self) -> str:
        return f"{self.field}={self.value}"

    def pins(self, ctx: PathContext) -> dict[str, int]:
        return _pins(ctx, self.field, self.value)


def _pins(ctx: PathContext, field: str, value: int) -> dict[str, int]:
    effect = module_for(ctx.api).field_effect(ctx, field)
    return {**(effect.pins if effect is not None else {}), field: value}


def _reaching(holders: Iterable[PathContext], field: str, value: int) -> tuple[PathContext, ...]:
    """The holders (drawn in a large region) on which some legal call sets `field` = `value` with its effect."""
    return tuple(ctx for ctx in holders if module_for(ctx.api).reachable(ctx, _pins(ctx, field, value)))


def _witnessed(ctxs: Iterable[PathContext], field: str, value: int, wanted: set[int], of: str | None = None) -> set[int]:
    """The bits of `wanted` of field `of` (default: `field`) that the smallest call with `field` = `value`
    witnesses on some of `ctxs`."""
    of = of or field
    found: set[int] = set()
    for ctx in ctxs:
        if wanted <= found:
            break
        params = module_for(ctx.api).smallest_params(ctx, _pins(ctx, field, value))
        if params is not None:
            case = bit_reach.probe_case(ctx, params)
            found |= set(reference_bits.witnesses(case, ctx.spec, wanted={of: wanted}).get(of, ()))
    return found


def field_reaches(spec: Spec, products: Iterable[str] | None = None, apis: Iterable[str] | None = None,
                  bounds: Sequence[Boundary] | None = None) -> list[FieldReach]:
    """The large-region tests of the selection: per field, values that together set every bit a target without
    any extension can be sent (plain or in a large region) and which no bound's or reach test it is sent sets
    (`bounds`, the selection's: boundaries.boundaries), each on the paths that hold it."""
    products, apis = tuple(products or ()), tuple(apis or ())
    ctxs = contexts(spec, select_paths(spec, products or None, apis or None))
    pinned = _set_for_every_target(boundaries(spec, products, apis) if bounds is None else bounds)
    tests: list[FieldReach] = []
    for api in (name for name in spec.apis if not apis or name in apis):
        for tracked in reference_bits.fields(spec, api):
            # a bit no value witnesses in a large region is dropped by _values: only an extension reaches it
            wanted = set(tracked.bits) - pinned.get((api, tracked.name), set())
            for earlier in (test for test in tests if test.api == api):   # a startIndex moves its endIndex along
                wanted -= _witnessed(earlier.contexts[:1], earlier.field, earlier.value, wanted, tracked.name)
            base = tracked.name.partition(".")[0]
            holders = [ctx.enlarging() for ctx in distinct([c for c in ctxs if c.api.name == api])
                       if ctx.touches_gm and base in ctx.api.forms[ctx.form].fields]
            rule = next((r.id for r in spec.apis[api].rules if r.kind is RuleKind.RANGE and r.field == tracked.name
                         and r.max is not None and r.illegal_by_default), None)
            for value, reach in _values(holders, tracked.name, wanted):
                drawn = tuple(variant for ctx in reach for variant in _ways(ctx, tracked.name, value))
                tests.append(FieldReach(api=api, contexts=drawn, field=tracked.name, value=value, range_rule=rule))
    return tests


def _set_for_every_target(bounds: Sequence[Boundary]) -> dict[tuple[str, str], set[int]]:
    """(API, field) -> the bits the bounds' and reach tests set with the field's effect on paths drawn as they
    are (no extension): what every target is sent. The others' top bits (a gap of 65535 only in sparse-memory,
    say) reach a target without extensions only through these tests."""
    found: dict[tuple[str, str], set[int]] = {}
    for bound in bounds:
        api, field = bound.rule.api, bound.rule.field   # a bound's rule is a range rule: both are set
        if api and field and bound.contexts and bound.with_effect and not bound.extensions and bound.legal_value > 0:
            found.setdefault((api, field), set()).update(reference_bits.set_bits(bound.legal_value))
    return found


def _ways(large: PathContext, field: str, value: int) -> list[PathContext]:
    """A path that holds the value in a large region, drawn in each way that holds it, cheapest first: with an
    extension (a target that announces it is sent those few bytes), then in the large region (any target)."""
    base = dataclasses.replace(large, large=False)
    cheap = [variant for variant in (Way.DETACHED.of(base), Way.SPARSE.of(base))
             if variant is not None and module_for(variant.api).reachable(variant, _pins(variant, field, value))]
    return [*cheap, large]


def _values(holders: list[PathContext], field: str, wanted: set[int]) -> list[tuple[int, tuple[PathContext, ...]]]:
    """(value, the holders that reach it) per test: the highest wanted bit set, with each lower wanted bit that
    still fits on some holder, until every wanted bit is witnessed (a bit no value witnesses is dropped)."""
    found = []
    wanted = set(wanted)
    while wanted:
        top = max(wanted)
        value = next((pins[field] for ctx in holders
                      for pins in [bit_reach.bit_pins(ctx, field, top)] if not isinstance(pins, str)
                      and _reaching([ctx], field, pins[field])), None)
        if value is None:
            wanted.discard(top)
            continue
        step = holders[0].field_multiple(field) if "." not in field else 1
        for bit in sorted(wanted - {top}, reverse=True):
            if not value >> bit & 1 and (1 << bit) % step == 0 and _reaching(holders, field, value | 1 << bit):
                value |= 1 << bit
        reach = _reaching(holders, field, value)
        witnessed = _witnessed(reach, field, value, wanted)
        if top not in witnessed:
            wanted.discard(top)
            continue
        found.append((value, reach))
        wanted -= witnessed
    return found
