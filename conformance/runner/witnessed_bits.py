"""The bits a run's legal cases witness (reference.bit_witness) and the overflow widths their derived offsets
cross (reference.crossings), noted per test for results.jsonl's `bits` and `crossings`.

A run needs one witness per (API, field, bit): each process remembers the bits it has seen witnessed and asks
the reference only about the others, so the cost falls to nothing once the easy bits are in. A test's record
therefore holds the bits its cases witnessed first in its process; the reports take the union over every test.
A pack stores each test's bits and crossings, all of them (`pack build` notes its cases in a BitWitnesses of the
test's own): a run pinning the pack's id notes those instead (`note_known`), which gives the same records.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from types import MappingProxyType

from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.pack import PackedTest, Reach
from ascendc_conformance.reference import bit_witness as bits
from ascendc_conformance.reference.crossings import crossings
from ascendc_conformance.spec.model import Reading, Spec

Witnessed = dict[str, dict[str, set[int]]]   # API -> field -> bits (or derived quantity -> widths)


class BitWitnesses:
    """The bits witnessed so far in this process, and the one question a run asks of each judged case."""

    def __init__(self, spec: Spec, reading: Reading) -> None:
        self.spec, self.reading = spec, reading
        self.seen: Witnessed = {}
        self.crossed: Witnessed = {}   # API -> derived quantity -> widths crossed

    def note(self, into: Witnessed, case: Case, expected: Result) -> None:
        """Add to `into` (a test's bits) the bits the case witnesses that no case of this process has yet;
        only a case the reference answers ok (under the run's reading) can witness a bit."""
        if expected.status is not ResultStatus.OK:
            return
        api = case.api
        seen = self.seen.setdefault(api, {})
        wanted = {}
        for tracked in bits.fields(self.spec, api):
            values = bits.values(case.params, tracked.name)
            open_bits = {bit for value in values if value > 0 for bit in bits.set_bits(value)}
            open_bits = (open_bits & set(tracked.bits)) - seen.get(tracked.name, set())
            if open_bits:
                wanted[tracked.name] = open_bits
        if wanted:
            _note_fresh(into, self.seen, {api: bits.witnesses(call_of(case), self.spec, self.reading, wanted)})

    def note_crossings(self, into: Witnessed, case: Case, expected: Result) -> None:
        """Add to `into` (a test's crossings) the widths the case's derived quantities cross (reference.crossings)
        that no case of this process has crossed yet; only a case the reference answers ok counts."""
        if expected.status is not ResultStatus.OK or not self.spec.apis[case.api].derived:
            return
        _note_fresh(into, self.crossed, {case.api: crossings(call_of(case), self.spec, self.reading)})

    def note_known(self, bits_into: Witnessed, crossings_into: Witnessed, stored: PackedTest) -> None:
        """Add to a test's bits and crossings those its pack stores for it (format.pack.PackedTest: what `note` and
        `note_crossings` find over all of its cases, worked out when the pack was built) that no case of this
        process has witnessed or crossed yet: the same as noting each of its cases, without the reference."""
        _note_fresh(bits_into, self.seen, stored.bits or {})
        _note_fresh(crossings_into, self.crossed, stored.crossings or {})


def _note_fresh(into: Witnessed, seen: Witnessed, found: Mapping[str, Mapping[str, Collection[int]]]) -> None:
    """Add to `into` and to `seen` (per API, per name) what of `found` is not in `seen` yet."""
    for api, names in found.items():
        for name, values in names.items():
            fresh = set(values) - seen.get(api, {}).get(name, set())
            if fresh:
                seen.setdefault(api, {}).setdefault(name, set()).update(fresh)
                into.setdefault(api, {}).setdefault(name, set()).update(fresh)


def as_reach(found: Witnessed) -> Reach:
    """Bits (or widths) as a pack stores them (format.pack.Reach): each name's sorted."""
    return MappingProxyType({api: MappingProxyType({name: tuple(sorted(values)) for name, values in names.items()})
                             for api, names in found.items()})


def call_of(case: Case) -> Case:
    """The case without its memory images: what a call moves, not its bytes, decides bits and crossings."""
    return replace(case, memory=MappingProxyType({}))
