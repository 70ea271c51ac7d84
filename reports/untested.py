"""What a run left untested, and why: the statement's list of the reachable bits of every field, and the
reachable crossings of every derived byte offset, that no legal case of the run exercised.

A bit or a crossing is reachable when some legal call of the spec's products exercises it (strategies.bit_reach,
strategies.crossings); the run's test records say which ones its legal cases exercised (`bits`, `crossings`).
Each of the others is untested for one reason, the first that holds:

- the products that reach it were not selected;
- every value that sets the bit lies beyond the maximum the target declares for the field (or the crossing's
  test was skipped for a declared maximum);
- its calls need a case-format extension the target does not announce (and no large GM region reaches it);
- otherwise the run's tests drew no case that exercises it (a `quick` profile, `-k`, a run stopped early, paths
  the target's hello excludes).

A run with anything on this list is never plain "conforms" (reports.coverage.certify).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ascendc_conformance.format.outcome import SkipReason
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.format.words import Word
from ascendc_conformance.reports.bit_table import bit_ranges
from ascendc_conformance.reports.crossings import crossed_in
from ascendc_conformance.reports.model import RunResults
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.bit_reach import selection_bits
from ascendc_conformance.strategies.crossings import crossing_table
from ascendc_conformance.strategies.ways import needed, open_to


class Why(Word):
    """Why something reachable went untested."""

    PRODUCT = "product not selected"
    LIMIT = "declared limit"
    EXTENSION = "extension not announced"
    NOT_RUN = "not exercised by this run"


class Subject(Word):
    """What is untested: bits of a field, or crossings of a derived quantity."""

    BITS = "bits"
    CROSSINGS = "crossings"


@dataclass(frozen=True)
class Untested:
    """Reachable `values` (bits, or widths w of 2^w crossings) of one field or derived quantity of `api` the run
    left untested, all for one reason; `detail` names the extension or the declared maximum."""

    api: str
    name: str
    subject: Subject
    values: tuple[int, ...]
    why: Why
    detail: str = ""

    @property
    def text(self) -> str:
        """`LoadData2D srcStride bits 11-15 (extension not announced: sparse-memory)`."""
        values = (f"bit{'s' * (len(self.values) > 1)} {bit_ranges(self.values)}" if self.subject is Subject.BITS
                  else ", ".join(f"2^{width}" for width in self.values))
        return f"{self.api} {self.name} {values} ({self.why}{': ' + self.detail if self.detail else ''})"

    def to_json(self) -> dict[str, Any]:
        return {"api": self.api, "name": self.name, "subject": self.subject.value, "values": list(self.values),
                "why": self.why.value, "detail": self.detail, "text": self.text}


def untested(results: RunResults, spec: Spec, products: Iterable[str], apis: Iterable[str]) -> tuple[Untested, ...]:
    """Every reachable bit and crossing of the selected APIs (on any product of the spec) the run did not
    exercise, grouped per field or quantity and reason."""
    products, apis = tuple(products), tuple(apis)
    announced = tuple((results.hello or {}).get("extensions") or ())
    found: list[Untested] = []
    witnessed: dict[tuple[str, str], set[int]] = {}
    for test in results.tests:
        for api, fields in test.bits.items():
            for name, bits in fields.items():
                witnessed.setdefault((api, name), set()).update(bits)
    selected = {(row.api, row.field): row for row in selection_bits(spec, products, apis)}
    for row in selection_bits(spec, None, apis):
        here = selected.get((row.api, row.field))
        reasons: dict[int, tuple[Why, str]] = {}
        for bit, ways in row.reachable.items():
            if bit in witnessed.get((row.api, row.field), ()):
                continue
            if here is None or bit not in here.reachable:
                reasons[bit] = (Why.PRODUCT, "")
            elif _limited(results, products, row.api, row.field, bit):
                reasons[bit] = (Why.LIMIT, _maximum_text(results, products, row.api, row.field))
            elif not open_to(here.reachable[bit], announced):
                reasons[bit] = (Why.EXTENSION, ", ".join(needed(here.reachable[bit])))
            else:
                reasons[bit] = (Why.NOT_RUN, "")
        found += _grouped(row.api, row.field, Subject.BITS, reasons)
    crossed = crossed_in(results)
    reachable_here = {(entry.api, entry.quantity.name, entry.width): entry
                      for entry in crossing_table(spec, products, apis) if entry.ways}
    reasons_of: dict[tuple[str, str], dict[int, tuple[Why, str]]] = {}
    for entry in crossing_table(spec, None, apis):
        if not entry.ways or entry.width in crossed.get((entry.api, entry.quantity.name), ()):
            continue
        selected_reach = reachable_here.get((entry.api, entry.quantity.name, entry.width))
        skipped = _skipped(results, entry.api, entry.quantity.crossing(entry.width))
        if selected_reach is None:
            why = (Why.PRODUCT, "")
        elif skipped is SkipReason.DECLARED_LIMIT:
            why = (Why.LIMIT, "")
        elif not open_to(selected_reach.ways, announced):
            why = (Why.EXTENSION, ", ".join(needed(selected_reach.ways)))
        else:
            why = (Why.NOT_RUN, "")
        reasons_of.setdefault((entry.api, entry.quantity.name), {})[entry.width] = why
    for (api, name), reasons in reasons_of.items():
        found += _grouped(api, name, Subject.CROSSINGS, reasons)
    return tuple(found)


def _grouped(api: str, name: str, subject: Subject, reasons: dict[int, tuple[Why, str]]) -> list[Untested]:
    """One entry per reason (and detail), its values in order."""
    groups: dict[tuple[Why, str], list[int]] = {}
    for value in sorted(reasons):
        groups.setdefault(reasons[value], []).append(value)
    return [Untested(api, name, subject, tuple(values), why, detail) for (why, detail), values in groups.items()]


def _maxima(results: RunResults, products: tuple[str, ...], api: str, field: str) -> list[int | None]:
    return [results.limits.maximum(api, product, field) for product in products]


def _limited(results: RunResults, products: tuple[str, ...], api: str, field: str, bit: int) -> bool:
    """Every value with `bit` set lies beyond the maximum the target declares for the field on every selected
    product."""
    maxima = _maxima(results, products, api, field)
    return bool(maxima) and all(maximum is not None and maximum < 1 << bit for maximum in maxima)


def _maximum_text(results: RunResults, products: tuple[str, ...], api: str, field: str) -> str:
    return f"{field} <= {max(m for m in _maxima(results, products, api, field) if m is not None)}"


def _skipped(results: RunResults, api: str, variant: str) -> SkipReason | None:
    """The skip reason of the test of a crossing (its record's subject: the API and the crossing)."""
    for test in results.tests:
        if test.kind is TestKind.BOUNDARY and test.api == api and test.variant == variant and test.rule is None:
            return test.skip
    return None


def summary(entries: Iterable[Untested]) -> str:
    """`12 field bits and 4 crossings untested` (empty for none)."""
    entries = list(entries)
    bits = sum(len(e.values) for e in entries if e.subject is Subject.BITS)
    crossings = sum(len(e.values) for e in entries if e.subject is Subject.CROSSINGS)
    parts = [f"{bits} field bit{'s' * (bits != 1)}" if bits else "",
             f"{crossings} crossing{'s' * (crossings != 1)}" if crossings else ""]
    return " and ".join(part for part in parts if part) + " untested" if bits or crossings else ""
