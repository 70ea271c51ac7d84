"""The crossings table: per derived byte offset of every selected API (spec `derived`) and width at which it
overflows, whether the run's legal cases took it that far (the `crossings` of its test records,
reference.crossings), whether some legal call of the selection can (strategies.crossings), and why not.

One wording for every renderer: `crossing_cells` gives a row's table cells.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ascendc_conformance.reports.model import RunResults
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.crossings import crossing_table
from ascendc_conformance.strategies.ways import needed

CROSSINGS_INTRO = ("Per byte offset an implementation derives from a call's parameters (a burst's or a fractal's start, a "
                   "slice element's or a row's offset), and per width at which computing it in too narrow an integer "
                   "wraps (2^31: int32_t, 2^32: uint32_t), whether the run's legal cases took it that far; an offset "
                   "computed in 32 bits before it is added to the 64-bit address shows only on such a call.")
CROSSINGS_COLUMNS = ("API", "derived quantity", "operand", "crosses", "crossed", "calls need", "unreachable (why)")


@dataclass(frozen=True)
class CrossingRow:
    api: str
    quantity: str
    operand: str
    width: int
    description: str
    reachable: bool
    crossed: bool
    needs_extension: str   # the case-format extension(s) its calls need ("" for none)
    unreachable: str       # why no legal call of the selection makes it ("" when one does)

    def to_json(self) -> dict[str, Any]:
        return {"api": self.api, "quantity": self.quantity, "operand": self.operand, "width": self.width,
                "description": self.description, "reachable": self.reachable, "crossed": self.crossed,
                "needs_extension": self.needs_extension, "unreachable": self.unreachable or None}


def crossed_in(results: RunResults) -> dict[tuple[str, str], set[int]]:
    """(API, quantity) -> the widths the run's legal cases crossed."""
    found: dict[tuple[str, str], set[int]] = {}
    for test in results.tests:
        for api, quantities in test.crossings.items():
            for name, widths in quantities.items():
                found.setdefault((api, name), set()).update(widths)
    return found


def crossing_rows(results: RunResults, spec: Spec, products: Iterable[str], apis: Iterable[str]) -> tuple[CrossingRow, ...]:
    """One row per derived quantity and width of every selected API."""
    crossed = crossed_in(results)
    return tuple(CrossingRow(api=entry.api, quantity=entry.quantity.name, operand=entry.quantity.operand,
                             width=entry.width, description=entry.quantity.description, reachable=bool(entry.ways),
                             crossed=entry.width in crossed.get((entry.api, entry.quantity.name), ()),
                             needs_extension=", ".join(needed(entry.ways)), unreachable=entry.unreachable)
                 for entry in crossing_table(spec, products, apis))


def crossings_summary(rows: Iterable[CrossingRow]) -> dict[str, Any]:
    """Over every row: crossings, those some legal call makes, and those the run made."""
    rows = list(rows)
    return {"crossings": len(rows), "reachable": sum(r.reachable for r in rows),
            "crossed": sum(r.crossed and r.reachable for r in rows)}


def crossing_cells(row: dict[str, Any]) -> list[str]:
    """A row of report.json's coverage.crossings as the table's text cells (CROSSINGS_COLUMNS)."""
    crossed = "yes" if row["crossed"] else ("no" if row["reachable"] else "–")
    return [row["api"], row["quantity"], row["operand"], f"2^{row['width']} B", crossed,
            row.get("needs_extension") or "–", row.get("unreachable") or "–"]
