"""The bits a run's legal cases witness (reference.bit_witness), noted per test for results.jsonl's `bits`.

A run needs one witness per (API, field, bit): each process remembers the bits it has seen witnessed and asks
the reference only about the others, so the cost falls to nothing once the easy bits are in. A test's record
therefore holds the bits its cases witnessed first in its process; the reports take the union over every test.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.reference import bit_witness as bits
from ascendc_conformance.spec.model import Reading, Spec

Witnessed = dict[str, dict[str, set[int]]]   # API -> field -> bits


class BitWitnesses:
    """The bits witnessed so far in this process, and the one question a run asks of each judged case."""

    def __init__(self, spec: Spec, reading: Reading) -> None:
        self.spec, self.reading = spec, reading
        self.seen: Witnessed = {}

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
        if not wanted:
            return
        call = replace(case, memory=MappingProxyType({}))   # what a call moves, not its bytes, decides
        for name, found in bits.witnesses(call, self.spec, self.reading, wanted).items():
            seen.setdefault(name, set()).update(found)
            into.setdefault(api, {}).setdefault(name, set()).update(found)
