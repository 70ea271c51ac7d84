"""The bit-coverage table: per field of every selected API, the bits the run's legal cases witnessed (the `bits`
of its test records: set, and with an effect, reference.bit_witness) against the bits some legal call of the selection
can witness (strategies.bit_reach), with the bits no call can reach and why.

One wording for every renderer: `bit_ranges` writes bit lists as ranges, `reach_groups` puts consecutive
unreachable bits with the same kind of reason together, `row_cells` gives a row's table cells.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ascendc_conformance.reports.model import RunResults
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.bit_reach import selection_bits

BITS_INTRO = ("Per field, the bits the run's legal cases witnessed (the bit set, and clearing it gives another legal "
              "call that moves other bytes) of the bits some legal call of the selected products can witness; a field "
              "decoded into too few bits, or read as signed, shows only on such a call.")
BITS_COLUMNS = ("API", "field", "documented bits", "witnessed / reachable", "missing", "unreachable (why)")


@dataclass(frozen=True)
class BitRow:
    api: str
    field: str
    documented: int                    # bits of the documented range
    reachable: tuple[int, ...]         # bits some legal call of the selection witnesses
    effective: tuple[int, ...]         # bits the run's legal cases witnessed
    needs_extension: Mapping[int, str]   # reachable bit -> the case-format extension its calls need
    unreachable: Mapping[int, str]       # bit -> why no legal call of the selection witnesses it

    @property
    def missing(self) -> tuple[int, ...]:
        return tuple(bit for bit in self.reachable if bit not in self.effective)

    @property
    def summary(self) -> str:
        return f"{sum(bit in self.effective for bit in self.reachable)}/{len(self.reachable)}"

    def to_json(self) -> dict[str, Any]:
        return {"api": self.api, "field": self.field, "documented": self.documented,
                "reachable": list(self.reachable), "effective": list(self.effective), "missing": list(self.missing),
                "summary": self.summary, "needs_extension": {str(bit): ext for bit, ext in self.needs_extension.items()},
                "unreachable": [{"bits": bits, "reason": reason} for bits, reason in reach_groups(self.unreachable)]}


def bit_rows(results: RunResults, spec: Spec, products: Iterable[str], apis: Iterable[str]) -> tuple[BitRow, ...]:
    """One row per tracked field of every selected API."""
    witnessed: dict[tuple[str, str], set[int]] = {}
    for test in results.tests:
        for api, fields in test.bits.items():
            for name, found in fields.items():
                witnessed.setdefault((api, name), set()).update(found)
    rows = []
    for entry in selection_bits(spec, products, apis):
        rows.append(BitRow(api=entry.api, field=entry.field, documented=len(entry.documented),
                           reachable=tuple(entry.reachable), effective=tuple(sorted(witnessed.get((entry.api, entry.field), ()))),
                           needs_extension=MappingProxyType({bit: ext for bit, ext in entry.reachable.items() if ext}),
                           unreachable=entry.unreachable))
    return tuple(rows)


def bits_summary(rows: Iterable[BitRow]) -> dict[str, Any]:
    """Over every row: fields, reachable bits, and how many of them the run witnessed."""
    rows = list(rows)
    return {"fields": len(rows), "reachable": sum(len(r.reachable) for r in rows),
            "effective": sum(bit in r.effective for r in rows for bit in r.reachable),
            "complete": sum(not r.missing for r in rows)}


def bit_ranges(bits: Iterable[int]) -> str:
    """`0-11, 13, 15-16` for the bits 0..11, 13, 15, 16; "–" for none."""
    runs: list[list[int]] = []
    for bit in sorted(set(bits)):
        if runs and bit == runs[-1][1] + 1:
            runs[-1][1] = bit
        else:
            runs.append([bit, bit])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs) or "–"


def reach_groups(unreachable: Mapping[int, str]) -> list[tuple[list[int], str]]:
    """Consecutive unreachable bits whose reasons differ only in figures (the same buffer, overrun more for a
    higher bit), each group with the reason of its lowest bit."""
    groups: list[tuple[list[int], str]] = []
    for bit in sorted(unreachable):
        reason = unreachable[bit]
        if groups and groups[-1][0][-1] == bit - 1 and _kind(groups[-1][1]) == _kind(reason):
            groups[-1][0].append(bit)
        else:
            groups.append(([bit], reason))
    return groups


def _kind(reason: str) -> str:
    return re.sub(r"\d+", "#", reason)


def row_cells(row: dict[str, Any]) -> list[str]:
    """A row of report.json's coverage.bits as the table's text cells (BITS_COLUMNS)."""
    needs = {int(bit): ext for bit, ext in row.get("needs_extension", {}).items()}
    missing = bit_ranges(row["missing"])
    extensions = sorted({needs[bit] for bit in row["missing"] if bit in needs})
    if extensions:
        missing += f" (calls need {', '.join(extensions)})"
    unreachable = "; ".join(f"{bit_ranges(group['bits'])}: {group['reason']}" for group in row["unreachable"]) or "–"
    return [row["api"], row["field"], str(row["documented"]), row["summary"], missing, unreachable]
