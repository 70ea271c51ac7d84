"""Which parameter a wrong copy misread: the commonest real bug, a field kept in too few bits, named by the bit.

When a target answers a legal call with other bytes than the reference, the suite looks for one misread field
that explains the answer: each tracked field (reference.bit_witness) read as 0, or with its top set bit cleared (the
same flips that decide which bits a case witnesses). If what the call moves with that field so misread is what
the target wrote — in the bytes the case holds: a misread stride reads outside them, and those bytes are not
known — the target misread it: "bit 15 of srcStride dropped", "dstGap read as 0". Two such bugs of one target
are then two causes, not one "wrong value", each with its own shrunk replay; a wrong copy no single misread
explains keeps its plain cause.

A value with one set bit is only tried as read as 0 (its top bit cleared is 0 too: a target ignoring the field
and one dropping that bit answer alike, and the cause must not split by the value's bit). Where misreads of
two fields explain the answer alike (a target that wrote nothing: blockCount or blockLen read as 0), none is
named. It costs a plan per field and candidate, and only for a failing case.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Iterator, Mapping

import numpy as np

from ascendc_conformance.format.case import Case, Region
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.reference import bit_witness as bits, legal_transfer
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call, resolve
from ascendc_conformance.reference.transfer import apply, through_regions
from ascendc_conformance.spec.model import Reading, RuleKind, Spec


CHANCE_MATCHES = 4   # bytes read from outside the case that may equal the right ones by chance (or 1 in 16)


@dataclass(frozen=True)
class Misread:
    """A field the target's answer behaves as if it held `read_as` instead of its `value`: the field read as 0,
    or its top set bit `bit` dropped."""

    field: str
    value: int
    read_as: int
    bit: int | None = None   # the dropped bit; None: the field read as 0

    @property
    def label(self) -> str:
        """The cause's words: "bit 15 of srcStride dropped", "dstGap read as 0"."""
        return f"bit {self.bit} of {self.field} dropped" if self.bit is not None else f"{self.field} read as 0"

    def describe(self) -> str:
        """The sentence a failure adds: what the target moved, and the likely bug."""
        if self.bit is None:
            return (f"the target moved what the call moves with {self.field} = 0 instead of {self.value}: "
                    f"is {self.field} ignored, or kept in too few bits?")
        return (f"the target moved what the call moves with bit {self.bit} of {self.field} cleared ({self.value} "
                f"read as {self.read_as}): is {self.field} kept in {self.bit} bits, or read as signed?")


def misread(case: Case, answered: Mapping[str, Region], reading: Reading, spec: Spec) -> Misread | None:
    """The one misread field that explains `answered`, the target's memory after the legal `case` under
    `reading`; None when none does (or the answer's regions are not the case's)."""
    try:
        call = resolve(case, spec, reading)
    except CaseError:
        return None
    if set(answered) != set(call.case.memory):
        return None
    base = module_for(call.api).plan(call)
    expected = apply(call, base)
    found: list[tuple[int, int, Misread]] = []
    for order, (candidate, params) in enumerate(_candidates(call, spec)):
        flipped = _with_params(call, params)
        # a field read as 0 may be a value the spec forbids (repeatTimes 0): the target moves what that says
        ranges = frozenset(rule.id for rule in call.api.rules if rule.kind is RuleKind.RANGE
                           and rule.field == candidate.field) if candidate.bit is None else frozenset()
        if flipped is None:
            continue
        transfer = legal_transfer(flipped, ranges)
        if transfer is None or bits.same_moves(base, transfer):
            continue
        images, unknown = through_regions(flipped, transfer)
        scores = [_unknown_bytes(answered[key], call.case.memory[key], expected[key], image, unknown.get(key))
                  for key, image in images.items()]
        known = [score for score in scores if score is not None]
        if len(known) == len(scores):
            found.append((sum(known), order, candidate))
    if not found:
        return None
    best = min(score for score, _, _ in found)
    explaining = sorted((order, candidate) for score, order, candidate in found if score == best)
    if len({candidate.field for _, candidate in explaining}) > 1:   # e.g. nothing written: blockCount or blockLen 0
        return None
    return explaining[0][1]


def _candidates(call: Call, spec: Spec) -> Iterator[tuple[Misread, dict[str, Any]]]:
    """Each tracked field with its top set bit cleared (a value of two set bits or more), then read as 0 (a
    plain parameter), with the parameters of that call: where bytes read from outside the case leave two of
    them explaining the answer alike, the dropped bit, the narrower claim, comes first."""
    module = module_for(call.api)
    tracked = [field for field in bits.fields(spec, call.api.name)
               if any(value > 0 for value in bits.values(call.params, field.name))]
    for field in tracked:
        values = [value for value in bits.values(call.params, field.name) if value & (value - 1)]
        tops = {value.bit_length() - 1: value for value in values}
        for top, value in sorted(tops.items()):
            for params in module.bit_flips(call, field.name, top):
                yield Misread(field.name, value, value & ~(1 << top), top), params
    for field in tracked:
        if bits.MEMBER not in field.name:
            value = call.params[field.name]
            yield Misread(field.name, int(value), 0), {**call.params, field.name: False if isinstance(value, bool) else 0}


def _with_params(call: Call, params: Mapping[str, Any]) -> Call | None:
    try:
        return resolve(replace(call.case, params=MappingProxyType(dict(params))), call.spec, call.reading)
    except CaseError:   # parameters of the wrong type: no call at all
        return None


def _unknown_bytes(answered: Region, before: Region, expected: Region, image: Region,
                   unknown: np.ndarray | None) -> int | None:
    """How many bytes of the region the misread call writes from outside the case, if the answer agrees with it
    (None if not): the answered region holds the image's bytes wherever they are known, and where they are
    not, it holds neither the right ones nor the ones there before the call — random bytes the target read
    elsewhere match either by chance only (a candidate that makes every byte unknown must not explain a copy
    that got most of them right, or a target that wrote nothing)."""
    if answered.address != image.address or len(answered.data) != len(image.data):
        return None
    if unknown is None or not unknown.any():
        return 0 if answered.data == image.data else None
    got, want = np.frombuffer(answered.data, dtype=np.uint8), np.frombuffer(image.data, dtype=np.uint8)
    if not np.array_equal(got[~unknown], want[~unknown]):
        return None
    unknown_count = int(unknown.sum())
    for other in (expected, before):
        matches = int(np.count_nonzero(got[unknown] == np.frombuffer(other.data, dtype=np.uint8)[unknown]))
        if matches > max(CHANCE_MATCHES, unknown_count // 16):
            return None
    return unknown_count
