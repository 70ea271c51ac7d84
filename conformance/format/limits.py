"""The limits a target declares in its hello (`"limits": {...}`): where it deliberately stays inside the spec.

As an implementation reports its device limits and a conformance test suite tests within them, a target may
declare that it

- is `typed`: it holds each parameter in its C type (the spec's `ctype`), so a value outside that type can
  never reach it (a C caller cannot write it either): single faults whose value lies outside the C type are
  not sent (the spec marks the range bounds that are the C type's own, `type_limit`);
- `checks_regions`: it refuses accesses outside the case's memory regions (a property of the harness, not of
  the API): only then are the region faults of the harness rule Memory-bounds sent;
- demands stricter `alignments` (bytes, for an API, a memory or TPosition, an operand) or lower `maxima` of a
  field than the spec: legal cases are drawn within them (so that other bugs stay visible), cases just past
  each are sent and must be rejected, and the certification names each deviation with the spec rule it
  deviates from ("conforms within declared limits").

Parsed here (standard library only); what a limit means for generation and reports is worked out above.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

OPERANDS = ("src", "dst")


@dataclass(frozen=True)
class DeclaredAlignment:
    """The target demands that operands start `bytes`-aligned, where every key given matches (none: all)."""

    bytes: int
    api: str | None = None
    memory: str | None = None     # physical memory (UB, L1, ...)
    position: str | None = None   # TPosition (VECIN, A1, ...)
    operand: str | None = None    # src or dst

    def covers(self, api: str, operand: str, position: str, memory: str | None) -> bool:
        return all(wanted is None or wanted == actual for wanted, actual in
                   ((self.api, api), (self.operand, operand), (self.position, position), (self.memory, memory)))

    @property
    def label(self) -> str:
        where = " ".join(part for part in (self.api, self.operand, self.position or self.memory) if part)
        return f"{where or 'every operand'} {self.bytes}-B aligned"

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in (("api", self.api), ("memory", self.memory), ("position", self.position),
                                              ("operand", self.operand), ("bytes", self.bytes)) if value is not None}


@dataclass(frozen=True)
class DeclaredMaximum:
    """The target accepts `field` only up to `max`, for an API and product when given (none: all)."""

    field: str
    max: int
    api: str | None = None
    product: str | None = None

    def covers(self, api: str, product: str, field: str) -> bool:
        return field == self.field and self.api in (None, api) and self.product in (None, product)

    @property
    def label(self) -> str:
        where = " ".join(part for part in (self.api, self.product) if part)
        return f"{where + ' ' if where else ''}{self.field} <= {self.max}"

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in (("api", self.api), ("product", self.product), ("field", self.field),
                                              ("max", self.max)) if value is not None}


@dataclass(frozen=True)
class Limits:
    typed: bool = False
    checks_regions: bool = False
    alignments: tuple[DeclaredAlignment, ...] = ()
    maxima: tuple[DeclaredMaximum, ...] = ()

    @cached_property
    def deviations(self) -> tuple[DeclaredAlignment | DeclaredMaximum, ...]:
        """The declared limits that narrow what the spec allows (typed and checks_regions do not); worked out once
        (every context of every test compares its own with the target's: PathContext.within)."""
        return (*self.alignments, *self.maxima)

    def alignment(self, api: str, operand: str, position: str, memory: str | None) -> int:
        """The alignment the target demands of this operand (1: none declared)."""
        return math.lcm(1, *(a.bytes for a in self.alignments if a.covers(api, operand, position, memory)))

    def maximum(self, api: str, product: str, field: str) -> int | None:
        """The largest value the target accepts for this field (None: none declared)."""
        return min((m.max for m in self.maxima if m.covers(api, product, field)), default=None)

    def without(self, limit: DeclaredAlignment | DeclaredMaximum) -> "Limits":
        """These limits but `limit`: the cases just past it are drawn within all the others."""
        return Limits(self.typed, self.checks_regions, tuple(a for a in self.alignments if a != limit),
                      tuple(m for m in self.maxima if m != limit))

    @classmethod
    def from_json(cls, raw: Any, where: str = 'hello answer "limits"') -> "Limits":
        """The limits of a hello's `limits` object (absent: none); ValueError naming the key at fault."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise ValueError(f"{where} must be an object with some of typed, checks_regions, alignments, maxima")
        unknown = sorted(set(raw) - {"typed", "checks_regions", "alignments", "maxima"})
        if unknown:
            raise ValueError(f"{where} has unknown key(s) {', '.join(map(repr, unknown))[:200]}; "
                             "expected typed, checks_regions, alignments, maxima")
        for key in ("typed", "checks_regions"):
            if not isinstance(raw.get(key, False), bool):
                raise ValueError(f"{where}.{key} must be true or false")
        return cls(typed=raw.get("typed", False), checks_regions=raw.get("checks_regions", False),
                   alignments=tuple(_alignment(entry, f"{where}.alignments[{i}]")
                                    for i, entry in enumerate(_list(raw, "alignments", where))),
                   maxima=tuple(_maximum(entry, f"{where}.maxima[{i}]")
                                for i, entry in enumerate(_list(raw, "maxima", where))))

    def to_json(self) -> dict[str, Any]:
        return {"typed": self.typed, "checks_regions": self.checks_regions,
                "alignments": [a.to_json() for a in self.alignments], "maxima": [m.to_json() for m in self.maxima]}


def _list(raw: dict[str, Any], key: str, where: str) -> list[Any]:
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"{where}.{key} must be a list of objects")
    return value


def _entry(raw: Any, where: str, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be an object with {', '.join(allowed)}")
    unknown = sorted(set(raw) - set(allowed))
    missing = [key for key in required if key not in raw]
    if unknown or missing:
        raise ValueError(f"{where}: " + "; ".join(
            ([f"unknown key(s) {', '.join(map(repr, unknown))[:200]}"] if unknown else [])
            + ([f"missing {', '.join(missing)}"] if missing else [])) + f"; expected {', '.join(allowed)}")
    for key in allowed:
        if key in raw and key not in ("bytes", "max") and not isinstance(raw[key], str):
            raise ValueError(f"{where}.{key} must be a string")
    return raw


def _alignment(raw: Any, where: str) -> DeclaredAlignment:
    entry = _entry(raw, where, ("api", "memory", "position", "operand", "bytes"), ("bytes",))
    size = entry["bytes"]
    if type(size) is not int or size < 2 or size & (size - 1):
        raise ValueError(f"{where}.bytes must be a power of two of at least 2, got {str(size)[:40]}")
    if "memory" in entry and "position" in entry:
        raise ValueError(f"{where}: give memory or position, not both")
    if entry.get("operand", "src") not in OPERANDS:
        raise ValueError(f"{where}.operand must be src or dst, got {entry['operand'][:40]!r}")
    return DeclaredAlignment(size, entry.get("api"), entry.get("memory"), entry.get("position"), entry.get("operand"))


def _maximum(raw: Any, where: str) -> DeclaredMaximum:
    entry = _entry(raw, where, ("api", "product", "field", "max"), ("field", "max"))
    if type(entry["max"]) is not int or entry["max"] < 0:
        raise ValueError(f"{where}.max must be a non-negative integer, got {str(entry['max'])[:40]}")
    return DeclaredMaximum(entry["field"], entry["max"], entry.get("api"), entry.get("product"))
