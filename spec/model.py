"""The spec as frozen Python objects: products, dtypes, APIs with their paths and rules, disputed points.

Everything here is read from the YAML of spec/ by `spec.loader`; nothing in this module knows a range,
a dtype list or a unit of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

from ascendc_conformance.spec.errors import SpecError, SpecIssue


def frozen_map(mapping: Mapping | None = None) -> Mapping:
    """A read-only view of a dict, so the frozen dataclasses stay immutable all the way down."""
    return MappingProxyType(dict(mapping or {}))


class ShortRepr:
    """Mixin: print as `repr()` under Hypothesis's pretty printer, which would walk every dataclass field
    (for a context, the whole spec) when it prints a falsifying example's arguments."""

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(repr(self))


@dataclass(frozen=True)
class Citation:
    source: str
    section: str

    def __str__(self) -> str:
        return f"{self.source} {self.section}"


@dataclass(frozen=True)
class Dtype:
    name: str
    size: int
    numeric: str


@dataclass(frozen=True)
class Capacity:
    memory: str
    bytes: int
    status: str
    citation: Citation
    rule: str | None = None
    alternatives: Mapping[str, int] = dc_field(default_factory=frozen_map)


@dataclass(frozen=True)
class Product:
    id: str
    display_name: str
    seed_names: tuple[str, ...]
    aliases: tuple[str, ...]
    arch: str
    status: str
    citation: Citation
    positions: Mapping[str, str]
    positions_status: str
    positions_dispute: str | None
    capacities: Mapping[str, Capacity]

    def memory_of(self, position: str) -> str | None:
        """The physical memory a TPosition lives in on this product, or None if it has none."""
        return self.positions.get(position)


@dataclass(frozen=True)
class Field:
    name: str
    description: str
    ctype: str | None = None
    array_of: str | None = None
    default: int | bool | None = None
    unit: str | None = None


@dataclass(frozen=True)
class Form:
    name: str
    citation: Citation
    fields: Mapping[str, Field]
    struct: str | None
    mixed_dtypes: bool


@dataclass(frozen=True, repr=False)
class Path(ShortRepr):
    """One documented (product, api, src position, dst position, src dtype, dst dtype)."""

    api: str
    product: str
    src: str
    dst: str
    src_dtype: str
    dst_dtype: str
    forms: tuple[str, ...]
    citation: Citation
    depends_on: tuple[str, ...] = ()

    @property
    def route(self) -> tuple[str, str]:
        return (self.src, self.dst)

    @property
    def label(self) -> str:
        dtype = self.src_dtype if self.src_dtype == self.dst_dtype else f"{self.src_dtype}->{self.dst_dtype}"
        return f"{self.product}-{self.api}-{self.src}->{self.dst}-{dtype}"

    def __repr__(self) -> str:
        return f"Path({self.label})"


@dataclass(frozen=True)
class Where:
    """Which operand placements an alignment rule covers."""

    space: str | None = None
    positions: tuple[str, ...] = ()
    except_positions: tuple[str, ...] = ()

    def covers(self, position: str) -> bool:
        if self.positions and position not in self.positions:
            return False
        if position in self.except_positions:
            return False
        if self.space == "global":
            return position == "GM"
        if self.space == "local":
            return position != "GM"
        return True


@dataclass(frozen=True)
class Inseparable:
    """A fault variant of a rule that cannot break that rule alone on any path of any product: every such call
    also breaks the rules `from_rules` (e.g. blockLen 65536 overruns every local buffer), for `reason`."""

    variant: str
    from_rules: tuple[str, ...]
    reason: str

    def to_json(self) -> dict:
        return {"variant": self.variant, "from": list(self.from_rules), "reason": self.reason}


@dataclass(frozen=True)
class Rule:
    id: str
    api: str | None
    kind: str
    status: str
    products: tuple[str, ...]
    citation: Citation
    description: str
    file: str
    line: int | None
    dispute: str | None = None
    default_outcome: str = "illegal"
    field: str | None = None
    min: int | None = None
    max: int | None = None
    multiple: int | None = None
    operands: tuple[str, ...] = ()
    where: Where | None = None
    bytes: int | str | None = None
    check: str | None = None
    args: Mapping = dc_field(default_factory=frozen_map)
    routes: tuple[tuple[str, str], ...] = ()
    inseparable: tuple[Inseparable, ...] = ()

    def inseparable_variant(self, variant: str) -> Inseparable | None:
        return next((entry for entry in self.inseparable if entry.variant == variant), None)

    def applies_to(self, product: str) -> bool:
        return product in self.products

    @property
    def illegal_by_default(self) -> bool:
        """Breaking the rule makes the call illegal under the suite's default reading."""
        return self.default_outcome == "illegal" and self.status != "unspecified"

    def to_json(self) -> dict:
        data = {
            "id": self.id, "api": self.api, "kind": self.kind, "status": self.status,
            "products": list(self.products), "citation": str(self.citation),
            "description": self.description, "default_outcome": self.default_outcome,
            "file": self.file, "line": self.line,
        }
        for key in ("dispute", "field", "min", "max", "multiple", "bytes", "check"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.operands:
            data["operands"] = list(self.operands)
        if self.args:
            data["args"] = dict(self.args)
        if self.routes:
            data["routes"] = [list(route) for route in self.routes]
        if self.inseparable:
            data["inseparable"] = [entry.to_json() for entry in self.inseparable]
        return data


@dataclass(frozen=True)
class Gap:
    bytes: int
    measure: str

    @property
    def start_to_start(self) -> bool:
        return self.measure == "start-to-start"


@dataclass(frozen=True)
class TransferUnits:
    """DataCopy units for one class of destination (000 Table 3)."""

    name: str
    dst_positions: tuple[str, ...]
    block_bytes: int
    src_gap: Gap
    dst_gap: Gap
    count_round_bytes: int
    citation: Citation
    depends_on: Mapping[str, str] = dc_field(default_factory=frozen_map)


@dataclass(frozen=True)
class Api:
    name: str
    title: str
    citation: Citation
    file: str
    structs: Mapping[str, Mapping[str, Field]]
    forms: Mapping[str, Form]
    paths: tuple[Path, ...]
    rules: tuple[Rule, ...]
    constants: Mapping[str, int]
    units: tuple[TransferUnits, ...] = ()
    dst_gap_ignored_by: str | None = None

    def constant(self, name: str) -> int:
        """A named constant of the API's semantics; a missing one is a spec error naming the file."""
        try:
            return self.constants[name]
        except KeyError:
            raise SpecError([SpecIssue(self.file, None, f"semantics.constants.{name}",
                                       f"the {self.name} reference needs the constant '{name}'; add it")]) from None

    def units_for(self, dst_position: str) -> TransferUnits:
        """The first unit entry whose dst_positions hold the destination; the catch-all otherwise."""
        for units in self.units:
            if not units.dst_positions or dst_position in units.dst_positions:
                return units
        raise SpecError([SpecIssue(self.file, None, "semantics.units",
                                   "no catch-all entry (one without dst_positions) is defined")])

    @property
    def default_units(self) -> TransferUnits:
        """The catch-all unit entry (no dst_positions): the 32-B DataBlock reading."""
        return next(units for units in self.units if not units.dst_positions)

    def rules_of_kind(self, kind: str) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if rule.kind == kind)


@dataclass(frozen=True)
class DisputePoint:
    id: str
    title: str
    seed: str
    vendor: str
    default: str
    alternatives: Mapping[str, str]


@dataclass(frozen=True)
class Spec:
    dtypes: Mapping[str, Dtype]
    dtype_groups: Mapping[str, tuple[str, ...]]
    ctypes: Mapping[str, tuple[int, int]]
    memories: tuple[str, ...]
    positions: tuple[str, ...]
    gm_bytes: int
    gm_window_bytes: int
    products: tuple[Product, ...]
    apis: Mapping[str, Api]
    common_rules: tuple[Rule, ...]
    disputes: Mapping[str, DisputePoint]
    digest: str
    _rules: Mapping[str, Rule] = dc_field(repr=False, default_factory=frozen_map)
    _aliases: Mapping[str, str] = dc_field(repr=False, default_factory=frozen_map)
    _paths: Mapping[tuple, Path] = dc_field(repr=False, default_factory=frozen_map)

    @property
    def rules(self) -> Mapping[str, Rule]:
        return self._rules

    def rule(self, rule_id: str) -> Rule:
        try:
            return self._rules[rule_id]
        except KeyError:
            raise KeyError(f"no rule '{rule_id}' in the spec") from None

    def resolve_product(self, name: str) -> str | None:
        """A product id from an id or an alias (`910B` -> `atlas-a2`); None if unknown."""
        return self._aliases.get(name) or self._aliases.get(name.lower())

    def product(self, name: str) -> Product:
        product_id = self.resolve_product(name)
        for product in self.products:
            if product.id == product_id:
                return product
        known = ", ".join(p.id for p in self.products)
        aliases = ", ".join(alias for p in self.products for alias in p.aliases)
        raise KeyError(f"unknown product '{name}' (known: {known}; aliases: {aliases})")

    def paths(self, product: str | None = None, api: str | None = None) -> list[Path]:
        """Documented paths x dtypes, optionally for one product and/or one API."""
        return [path for path in self._paths.values()
                if (product is None or path.product == product) and (api is None or path.api == api)]

    def find_path(self, api: str, product: str, src: str, dst: str,
                  src_dtype: str, dst_dtype: str) -> Path | None:
        return self._paths.get((api, product, src, dst, src_dtype, dst_dtype))

    @cached_property
    def _routes(self) -> frozenset[tuple[str, str, str, str]]:
        return frozenset((path.api, path.product, *path.route) for path in self._paths.values())

    def has_route(self, api: str, product: str, src: str, dst: str) -> bool:
        return (api, product, src, dst) in self._routes

    @cached_property
    def _rules_by_scope(self) -> dict[tuple[str, str], tuple[Rule, ...]]:
        return {}   # filled by rules_for: generation and the reference ask for the same scopes many times

    def rules_for(self, api: str, product: str) -> tuple[Rule, ...]:
        """The API's rules and the common ones that apply to the product."""
        if (api, product) not in self._rules_by_scope:
            rules = self.apis[api].rules + self.common_rules
            self._rules_by_scope[api, product] = tuple(rule for rule in rules if rule.applies_to(product))
        return self._rules_by_scope[api, product]
