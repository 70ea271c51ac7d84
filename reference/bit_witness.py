"""Which bits of a call's parameters matter: the bits a run tracks per field, and whether a legal call witnesses
one — the bit is set, and clearing it gives another legal call that moves other bytes.

A parameter decoded into too few bits, or read as signed, shows only on such a call: the bit must be set and
the field must have an effect (a gap with two or more bursts, a stride with two or more repeats…). The run
records, per test, the bits its legal cases witness (runner.witnessed_bits); the reports set them against the bits some
legal call can witness at all (strategies.bit_reach).

A field is a parameter of one of the API's forms, or `<param>.<member>` for a member of an array of structs
(`srcSliceInfo.stride`, any dimension); its bits are those of its documented range: its C type narrowed by the
range rules that make a call illegal (blockCount <= 4095: bits 0-11). How clearing a bit of a field gives
another legal call is the API's business (`ApiReference.bit_flips`: a slice's endIndex moves with its
startIndex); that the result is legal and moves other bytes is decided here, by the reference, without memory
images: two calls move the same bytes when they read the same source element for every destination element.
"""
from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from ascendc_conformance.format.case import Case
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call, resolve
from ascendc_conformance.reference.transfer import Grid, Transfer
from ascendc_conformance.spec.model import Api, Field, Reading, RuleKind, Spec

MEMBER = "."   # separates an array-of-structs parameter from its member: srcSliceInfo.stride


@dataclass(frozen=True)
class BitField:
    """One field whose bits a run tracks, with its documented range [low, high]."""

    name: str
    low: int
    high: int

    @property
    def bits(self) -> tuple[int, ...]:
        """The bits a documented value can set: 0 .. bit_length(high) - 1."""
        return tuple(range(max(self.high, 0).bit_length()))


_FIELDS: dict[tuple[str, str], tuple[BitField, ...]] = {}   # (spec digest, API) -> its tracked fields


def _fields(spec: Spec, api: str) -> tuple[BitField, ...]:
    known = _FIELDS.get((spec.digest, api))
    if known is not None:
        return known
    found: dict[str, BitField] = {}
    model = spec.apis[api]
    for form in model.forms.values():
        for name, field in _scalars(model, form.fields):
            if name not in found and field.ctype in spec.ctypes:
                low, high = _documented(spec, model, name, field)
                if high > 0:
                    found[name] = BitField(name, low, high)
    known = _FIELDS[spec.digest, api] = tuple(found.values())
    return known


def fields(spec: Spec, api: str) -> tuple[BitField, ...]:
    """The fields of `api` whose bits a run tracks (a field that must be 0 has none), in the spec's order."""
    return _fields(spec, api)


def field(spec: Spec, api: str, name: str) -> BitField:
    """One tracked field of `api` by name (KeyError naming the known ones)."""
    for candidate in _fields(spec, api):
        if candidate.name == name:
            return candidate
    raise KeyError(f"{api} has no tracked field {name!r}; tracked: {', '.join(f.name for f in _fields(spec, api))}")


def _scalars(api: Api, params: Mapping[str, Field]) -> Iterator[tuple[str, Field]]:
    for name, param in params.items():
        if param.array_of is None:
            yield name, param
        else:
            for member, sub in api.structs[param.array_of].items():
                yield f"{name}{MEMBER}{member}", sub


def _documented(spec: Spec, api: Api, name: str, field: Field) -> tuple[int, int]:
    """The field's C type narrowed by every range rule of the API on it that makes a call illegal."""
    low, high = spec.ctype_range(field)
    for rule in api.rules:
        if rule.kind is RuleKind.RANGE and rule.field == name and rule.illegal_by_default:
            low = max(low, rule.min) if rule.min is not None else low
            high = min(high, rule.max) if rule.max is not None else high
    return low, high


def values(params: Mapping[str, Any], name: str) -> list[int]:
    """Every value the field takes in `params` (one per dimension for a member of an array of structs)."""
    param, _, member = name.partition(MEMBER)
    if param not in params:
        return []
    if not member:
        return [int(params[param])]
    return [int(item[member]) for item in params[param] if isinstance(item, Mapping) and member in item]


def scalar_flips(call: Call, field: str, bit: int) -> list[dict[str, Any]]:
    """`ApiReference.bit_flips` of a plain parameter: the parameters with that bit of it cleared, where set."""
    value = call.params.get(field)
    if value is None or not int(value) >> bit & 1:
        return []
    cleared = int(value) & ~(1 << bit)
    return [{**call.params, field: bool(cleared) if isinstance(value, bool) else cleared}]


def set_bits(value: int) -> Iterator[int]:
    """The bits set in a non-negative value."""
    bit = 0
    while value >> bit:
        if value >> bit & 1:
            yield bit
        bit += 1


def witnesses(case: Case, spec: Spec, reading: Reading | None = None,
              wanted: Mapping[str, Collection[int]] | None = None) -> dict[str, tuple[int, ...]]:
    """The bits, per field, that the (legal) call of `case` witnesses under `reading`: set in the call, and
    cleared (`ApiReference.bit_flips`) giving another legal call that moves other bytes. `wanted` limits the
    (field, bits) looked at (a run asks only for those not witnessed yet); the case's memory is not used."""
    call = resolve(case, spec, reading)
    module = module_for(call.api)
    base = None
    found: dict[str, tuple[int, ...]] = {}
    for tracked in _fields(spec, call.api.name):
        candidates = {bit for value in values(call.params, tracked.name) if value > 0 for bit in set_bits(value)}
        candidates &= set(tracked.bits if wanted is None else wanted.get(tracked.name, ()))
        witnessed = []
        for bit in sorted(candidates):
            if base is None:
                base = module.plan(call)
            if any(_moves_otherwise(call, base, flipped) for flipped in module.bit_flips(call, tracked.name, bit)):
                witnessed.append(bit)
        if witnessed:
            found[tracked.name] = tuple(witnessed)
    return found


def has_effect(case: Case, spec: Spec, field_name: str, bit: int, reading: Reading | None = None) -> bool:
    """Whether the legal call of `case` witnesses bit `bit` of `field_name` (see `witnesses`)."""
    return bit in witnesses(case, spec, reading, {field_name: (bit,)}).get(field_name, ())


def _moves_otherwise(call: Call, base: Transfer, params: Mapping[str, Any]) -> bool:
    """Whether the call with `params` is legal (regions aside) and moves other bytes than `base`, the
    call's own transfer. What it moves is compared first (cheap); only a call that moves otherwise is judged."""
    from ascendc_conformance.reference import legal_transfer   # the package imports this module's layer

    flipped = replace(call, case=replace(call.case, params=MappingProxyType(dict(params))), derived={})
    try:
        flipped = resolve(flipped.case, call.spec, call.reading)
    except CaseError:   # parameters of the wrong type: no call at all
        return False
    if same_moves(base, module_for(call.api).plan(flipped)):
        return False
    return legal_transfer(flipped) is not None


def same_moves(first: Transfer, second: Transfer) -> bool:
    """Whether two transfers of the same operands read the same source element for every destination
    element (grids are compared in a canonical form first; element arrays only when that cannot tell)."""
    if first.size != second.size:
        return False
    if first.size == 0:
        return True
    if first.grid is not None and second.grid is not None:
        a, b = _canonical(first.grid), _canonical(second.grid)
        if a == b:
            return True
        if a[0] == b[0] and a[3:] == b[3:]:   # same destination walk: the source differs somewhere
            return False
    order_a, order_b = np.argsort(first.dst_elements, kind="stable"), np.argsort(second.dst_elements, kind="stable")
    return bool(np.array_equal(first.dst_elements[order_a], second.dst_elements[order_b])
                and np.array_equal(first.src_elements[order_a], second.src_elements[order_b]))


def _canonical(grid: Grid) -> tuple[Any, ...]:
    """(shape, src offset, src strides, dst offset, dst strides) without axes of one point and with adjacent
    axes merged where both operands walk them as one: two grids of one mapping mostly look the same."""
    axes = [(count, src, dst) for count, src, dst in zip(grid.shape, grid.src_strides, grid.dst_strides) if count != 1]
    merged: list[tuple[int, int, int]] = []
    for count, src, dst in axes:
        if merged and merged[-1][1] == src * count and merged[-1][2] == dst * count:
            outer = merged.pop()
            count, src, dst = outer[0] * count, src, dst
        merged.append((count, src, dst))
    return (tuple(c for c, _, _ in merged), grid.src_offset, tuple(s for _, s, _ in merged),
            grid.dst_offset, tuple(d for _, _, d in merged))
