"""The spec as frozen Python objects: products, dtypes, APIs with their paths and rules, disputed points.

Everything here is read from the YAML of spec/ by `spec.loader`; nothing in this module knows a range,
a dtype list or a unit of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping, TypeVar

from ascendc_conformance.format.errors import ReadingError, did_you_mean
from ascendc_conformance.format.words import BoundSide, Word
from ascendc_conformance.spec.errors import SpecError, SpecIssue

SEED = "seed"   # the name of every point's default alternative, and of the reading that takes them all
SIZEOF = "sizeof"   # an alignment rule's `bytes` that means "the operand's element size"
NOTES_TITLES = {"semantics.md": "the suite's reading of the seeds (semantics.md)"}   # cited documents that are no API's page


K = TypeVar("K")
V = TypeVar("V")


def frozen_map(mapping: Mapping[K, V] | None = None) -> Mapping[K, V]:
    """A read-only view of a dict, so the frozen dataclasses stay immutable all the way down."""
    return MappingProxyType(dict(mapping or {}))


class RuleKind(Word):
    """What a rule constrains (spec/schema/spec.schema.json `rule.kind`)."""

    RANGE = "range"           # a parameter's value lies within [min, max]
    MULTIPLE = "multiple"     # a parameter's value is a multiple of `multiple`
    ALIGNMENT = "alignment"   # an operand's start address is aligned
    ROUTE = "route"           # the (src, dst) TPosition pair is documented on the product
    DTYPE = "dtype"           # the dtypes are documented for the path
    FORM = "form"             # the parameter form is documented for the path
    RELATION = "relation"     # a relation between parameters, checked by the API's reference module
    BOUNDS = "bounds"         # every access lies in the case's memory regions
    CAPACITY = "capacity"     # every access lies below the memory's capacity
    OVERLAP = "overlap"       # accesses of one call overlap (unspecified)
    SEMANTICS = "semantics"   # a disputed reading of what the call moves

    @property
    def path_only(self) -> bool:
        """Rules of this kind depend only on the path (product, API, route, dtypes, form), never on values."""
        return self in (RuleKind.ROUTE, RuleKind.DTYPE, RuleKind.FORM)


class Status(Word):
    """How well the sources establish a rule or a fact (a capacity, a position map, a product)."""

    DOCUMENTED = "documented"     # the seeds state it
    DISPUTED = "disputed"         # the sources disagree: a disputed point decides (spec/disputes.yaml)
    VENDOR_ONLY = "vendor-only"   # only the vendor's newer documents or code state it
    UNSPECIFIED = "unspecified"   # the documents leave the outcome open: never generated
    HARNESS = "harness"           # a rule of the test harness (the case's memory regions), not of the API: tested
    #                               only on a target whose hello declares that it checks it

    @property
    def firm(self) -> bool:
        """Breaking a rule of this status makes a call illegal whatever the reading (no dispute decides)."""
        return self in (Status.DOCUMENTED, Status.HARNESS)


class DefaultOutcome(Word):
    """Whether breaking a rule makes a call illegal under the default (seed) reading."""

    LEGAL = "legal"
    ILLEGAL = "illegal"


class GapMeasure(Word):
    """How a DataCopy gap counts: from the end of one burst to the start of the next, or start to start."""

    END_TO_START = "end-to-start"
    START_TO_START = "start-to-start"


class Space(Word):
    """Where an operand lies: GM, or a local buffer (an alignment rule's `where.space`)."""

    GLOBAL = "global"
    LOCAL = "local"


class UnitsCondition(Word):
    """When a DataCopy units entry's disputed readings move different bytes (spec `semantics.units[].depends_on`)."""

    MULTI_BURST = "multi_burst"        # blockCount > 1 (the gap measure decides where later bursts go)
    DST_GAP = "dst_gap"                # blockCount > 1 and dstGap != 0 (the gap unit decides)
    COUNT_ROUNDING = "count_rounding"  # a count form whose bytes round differently to the unit and to 32 B
    MIXED_DTYPES = "mixed_dtypes"      # the source and destination dtypes differ (whose bytes blockLen counts)


class ShortRepr:
    """Mixin: print as `repr()` under Hypothesis's pretty printer, which would walk every dataclass field
    (for a context, the whole spec) when it prints a falsifying example's arguments."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
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
    status: Status
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
    status: Status
    citation: Citation
    positions: Mapping[str, str]
    positions_status: Status
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

    space: Space | None = None
    positions: tuple[str, ...] = ()
    except_positions: tuple[str, ...] = ()

    def covers(self, position: str) -> bool:
        if self.positions and position not in self.positions:
            return False
        if position in self.except_positions:
            return False
        if self.space is Space.GLOBAL:
            return position == "GM"
        if self.space is Space.LOCAL:
            return position != "GM"
        return True


@dataclass(frozen=True)
class Inseparable:
    """A fault variant of a rule that cannot break that rule alone on any path of any product: every such call
    also breaks the rules `from_rules` (e.g. blockLen 65536 overruns every local buffer), for `reason`."""

    variant: str
    from_rules: tuple[str, ...]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant, "from": list(self.from_rules), "reason": self.reason}


@dataclass(frozen=True)
class Rule:
    id: str
    api: str | None
    kind: RuleKind
    status: Status
    products: tuple[str, ...]
    citation: Citation
    description: str
    file: str
    line: int | None
    dispute: str | None = None
    default_outcome: DefaultOutcome = DefaultOutcome.ILLEGAL
    field: str | None = None
    min: int | None = None
    max: int | None = None
    multiple: int | None = None
    operands: tuple[str, ...] = ()
    where: Where = Where()   # an alignment rule's operand placements (by default every one)
    bytes: int | str | None = None
    check: str | None = None
    args: Mapping[str, Any] = dc_field(default_factory=frozen_map)
    routes: tuple[tuple[str, str], ...] = ()
    inseparable: tuple[Inseparable, ...] = ()
    type_limit: tuple[BoundSide, ...] = ()   # bounds that are the field's C type's own (see spec.schema.json)

    def alignment(self, dtype: Dtype) -> int:
        """The start alignment in bytes this alignment rule asks of an operand of `dtype`."""
        assert self.bytes is not None, f"{self.id} ({self.kind}) asks for no alignment"
        return dtype.size if self.bytes == SIZEOF else int(self.bytes)

    def inseparable_variant(self, variant: str) -> Inseparable | None:
        return next((entry for entry in self.inseparable if entry.variant == variant), None)

    def applies_to(self, product: str) -> bool:
        return product in self.products

    @property
    def relation(self) -> str:
        """The check a relation rule names (`check`: every such rule names one, in its API's modules)."""
        assert self.check is not None, f"{self.id} ({self.kind}) names no check"
        return self.check

    @property
    def param(self) -> str:
        """The parameter a range or multiple rule constrains (`field`: every such rule names one)."""
        assert self.field is not None, f"{self.id} ({self.kind}) constrains no parameter"
        return self.field

    @property
    def illegal_by_default(self) -> bool:
        """Breaking the rule makes the call illegal under the suite's default reading."""
        return self.default_outcome is DefaultOutcome.ILLEGAL and self.status is not Status.UNSPECIFIED

    @property
    def owed(self) -> bool:
        """Every implementation owes this rule's check: documented, or a harness rule (when it declares it)."""
        return self.status.firm and self.illegal_by_default

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id, "api": self.api, "kind": self.kind.value, "status": self.status.value,
            "products": list(self.products), "citation": str(self.citation),
            "description": self.description, "default_outcome": self.default_outcome.value,
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
        if self.type_limit:
            data["type_limit"] = [side.value for side in self.type_limit]
        return data


@dataclass(frozen=True)
class Gap:
    bytes: int
    measure: GapMeasure

    @property
    def start_to_start(self) -> bool:
        return self.measure is GapMeasure.START_TO_START


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
    depends_on: Mapping[UnitsCondition, str] = dc_field(default_factory=frozen_map)   # condition -> disputed rule
    block_side: str = "src"   # whose bytes blockLen's unit counts (D13)


@dataclass(frozen=True)
class DerivedQuantity:
    """A byte offset an implementation computes from a call's parameters (spec/<api>.yaml `derived`): a burst's
    or a fractal's start, a slice element's or a row's offset from the operand's start. Computed in too narrow
    an integer before it is added to a 64-bit address, it wraps once it reaches 2^width bytes for one of
    `widths` (2^31 signed, 2^32 unsigned): the boundary and reach tests make each legal call cross them where a
    memory can hold it (reference.apis `derived` works the value out, strategies.apis `crossing_pins` asks for
    it)."""

    name: str                  # unique within the API: what reports and results.jsonl call it
    operand: str               # "src" or "dst": whose offsets
    description: str
    widths: tuple[int, ...]    # the powers of two (bits) at which it commonly overflows
    citation: Citation

    def crossing(self, width: int) -> str:
        """How a crossing of 2^width is written in test ids and reports: `dst-burst-start=2^32`."""
        return f"{self.name}=2^{width}"


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
    derived: tuple[DerivedQuantity, ...] = ()   # the byte offsets its calls compute, with their overflow widths

    @property
    def module(self) -> str:
        """The name of the API's modules in the layers that implement it: its spec file's name without
        `.yaml` (spec/datacopy_slice.yaml -> reference/apis/datacopy_slice.py, strategies/apis/datacopy_slice.py)."""
        return self.file.rsplit(".", 1)[0]

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

    @cached_property
    def relation_checks(self) -> frozenset[str]:
        """The `check` names of the API's relation rules (what its modules' check tables must hold)."""
        return frozenset(rule.relation for rule in self.rules if rule.kind is RuleKind.RELATION)


@dataclass(frozen=True)
class Effect:
    """What one computable alternative of a disputed point changes in the reference (spec/disputes.yaml
    `effects`): where it applies, the rules it makes legal or illegal, range bounds, DataCopy units, and
    whether capacities take their value named after it."""

    products: tuple[str, ...] = ()
    routes: tuple[tuple[str, str], ...] = ()
    legal: tuple[str, ...] = ()
    illegal: tuple[str, ...] = ()
    limits: Mapping[str, tuple[int | None, int | None]] = dc_field(default_factory=frozen_map)
    units: Mapping[str, Mapping[str, Any]] = dc_field(default_factory=frozen_map)
    capacity: bool = False

    def applies(self, product: str, route: tuple[str, str]) -> bool:
        return (not self.products or product in self.products) and (not self.routes or route in self.routes)

    def allows(self, rule: "Rule", value: int) -> bool:
        """Whether `value` lies within the range rule's bounds under this alternative (a bound it does not
        name stays the rule's own)."""
        low, high = self.limits.get(rule.id, (None, None))
        low, high = (rule.min if low is None else low), (rule.max if high is None else high)
        return (low is None or value >= low) and (high is None or value <= high)

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule id the alternative names."""
        return (*self.legal, *self.illegal, *self.limits)


@dataclass(frozen=True)
class DisputePoint:
    id: str
    title: str
    seed: str
    vendor: str
    default: str
    alternatives: Mapping[str, str]
    effects: Mapping[str, Effect] = dc_field(default_factory=frozen_map)
    uncomputable: Mapping[str, str] = dc_field(default_factory=frozen_map)   # alternative -> why not

    @property
    def readings(self) -> tuple[str, ...]:
        """The point's computable readings: the default (SEED) and every alternative with effects."""
        return (SEED, *self.effects)


@dataclass(frozen=True)
class Reading:
    """An assignment of named alternatives to disputed points; a point not named takes its default (SEED).

    `label` names it as the user would: a reading set of the spec (`seed`, `devkit`) when the choices are
    exactly one, else `POINT=ALT` words joined by commas. Built by `Spec.reading`."""

    choices: Mapping[str, str]
    label: str
    _effects: Mapping[str, Effect] = dc_field(repr=False, default_factory=frozen_map)      # point -> effect
    _by_rule: Mapping[str, Effect] = dc_field(repr=False, default_factory=frozen_map)      # rule id -> effect
    _units: Mapping[str, Mapping[str, Any]] = dc_field(repr=False, default_factory=frozen_map)

    @cached_property
    def _key(self) -> tuple[tuple[str, str], ...]:
        """The choices in order: what a reading is equal and hashed by (a verdict hashes readings per case)."""
        return tuple(sorted(self.choices.items()))

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reading) and self._key == other._key

    def alternative(self, point: str) -> str:
        """The alternative this reading takes for `point` (SEED for its default)."""
        return self.choices.get(point, SEED)

    def _effect(self, rule_id: str | None, product: str, route: tuple[str, str]) -> Effect | None:
        effect = self._by_rule.get(rule_id) if rule_id else None
        return effect if effect is not None and effect.applies(product, route) else None

    def illegal(self, rule: Rule, product: str, route: tuple[str, str], value: int | None = None,
                disputed_by: str | None = None) -> bool:
        """Whether breaking `rule` (with `value`, for a range rule; `disputed_by` a disputed rule whose
        alternative would allow the breach) makes the call illegal under this reading."""
        alternative = self._effect(disputed_by, product, route)
        if alternative is not None and disputed_by in alternative.legal:
            return False
        effect = self._effect(rule.id, product, route)
        if effect is None:
            return rule.illegal_by_default
        if rule.id in effect.legal:
            return False
        if rule.id in effect.illegal:
            return True
        return value is None or not effect.allows(rule, value)

    def units(self, units: TransferUnits) -> TransferUnits:
        """The DataCopy units entry as this reading has it."""
        changes = self._units.get(units.name)
        if not changes:
            return units
        gaps = {side: replace(getattr(units, side),
                              **({"bytes": changes[f"{side}_bytes"]} if f"{side}_bytes" in changes else {}),
                              **({"measure": GapMeasure(changes[f"{side}_measure"])} if f"{side}_measure" in changes
                                 else {}))
                for side in ("src_gap", "dst_gap")}
        plain = {key: value for key, value in changes.items() if not key.startswith(("src_gap_", "dst_gap_"))}
        return replace(units, **gaps, **plain)

    def with_units(self, name: str, changes: Mapping[str, Any]) -> "Reading":
        """This reading with the DataCopy units entry `name` changed further, in the words of a disputed
        alternative's `units` effect: how a target that misreads the units moves a call (reference.hypotheses).
        Its choices, and so its equality and label, stay this reading's: it names no alternative."""
        merged = {**self._units, name: frozen_map({**self._units.get(name, {}), **changes})}
        return replace(self, _units=frozen_map(merged))

    def capacity(self, capacity: Capacity, point: str | None) -> int:
        """The capacity in bytes under this reading (`point`: the dispute of the capacity's rule)."""
        alternative = self.choices.get(point) if point else None
        return capacity.alternatives.get(alternative, capacity.bytes) if alternative else capacity.bytes

    def with_choice(self, spec: "Spec", point: str, alternative: str) -> "Reading":
        """This reading with `point` set to `alternative` (SEED: its default)."""
        choices = {k: v for k, v in self.choices.items() if k != point}
        if alternative != SEED:
            choices[point] = alternative
        return spec.reading_of(choices)


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
    reading_sets: Mapping[str, Mapping[str, str]] = dc_field(default_factory=frozen_map)
    _rules: Mapping[str, Rule] = dc_field(repr=False, default_factory=frozen_map)
    _aliases: Mapping[str, str] = dc_field(repr=False, default_factory=frozen_map)
    _paths: Mapping[tuple[Any, ...], Path] = dc_field(repr=False, default_factory=frozen_map)

    @property
    def rules(self) -> Mapping[str, Rule]:
        return self._rules

    def cite(self, citation: Citation) -> str:
        """A citation as a certifier reads it: the document's title (the vendor page of an API, or the suite's
        notes) and its table or section, rather than the seed file's name."""
        titles = {api.citation.source: f"vendor page '{api.title}'" for api in self.apis.values()}
        document = titles.get(citation.source) or NOTES_TITLES.get(citation.source) or citation.source
        return f"{document}, {citation.section}"

    def rule(self, rule_id: str) -> Rule:
        try:
            return self._rules[rule_id]
        except KeyError:
            raise KeyError(f"no rule '{rule_id}' in the spec") from None

    def resolve_product(self, name: str) -> str | None:
        """A product id from an id or an alias (`910B` -> `atlas-a2`); None if unknown."""
        return self._aliases.get(name) or self._aliases.get(name.lower())

    def ctype_range(self, field: Field) -> tuple[int, int]:
        """The values of the C type of a field that has one (a parameter or a struct member)."""
        assert field.ctype is not None, f"{field.name} has no C type"
        return self.ctypes[field.ctype]

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

    def other_readings(self, points: tuple[str, ...], reading: Reading) -> tuple[Reading, ...]:
        """Every combination of the computable readings of `points` other than `reading`'s own (the other points
        as `reading` has them): the readings a case that depends on these points is also judged against."""
        key = (points, reading)
        found = self._other_readings.get(key)
        if found is None:
            combos = [reading]
            for point in points:
                combos = [combo.with_choice(self, point, name) for combo in combos
                          for name in self.disputes[point].readings]
            found = self._other_readings[key] = tuple(combo for combo in dict.fromkeys(combos) if combo != reading)
        return found

    @cached_property
    def _other_readings(self) -> dict[tuple[tuple[str, ...], Reading], tuple[Reading, ...]]:
        return {}   # filled by other_readings: every disputed case of a run asks for one of a few

    @cached_property
    def _readings(self) -> dict[tuple[Any, ...], Reading]:
        return {}   # filled by reading_of: a run asks for the same few readings for every disputed case

    @property
    def seed_reading(self) -> Reading:
        return self.reading_of({})

    def reading_of(self, choices: Mapping[str, str]) -> Reading:
        """The Reading taking these (checked) alternatives; ReadingError for an unknown or uncomputable one."""
        key = tuple(sorted(choices.items()))
        reading = self._readings.get(key)
        if reading is None:
            effects = {}
            for point_id, alternative in key:
                point = self.disputes.get(point_id)
                if point is None:
                    named = [p for p, d in self.disputes.items() if d.alternatives]
                    raise ReadingError(f"unknown disputed point {point_id!r}{did_you_mean(point_id, named)}; "
                                       f"expected one of {', '.join(named)}")
                if alternative in point.uncomputable:
                    raise ReadingError(f"{point_id}={alternative} cannot be computed by the reference: "
                                       f"{point.uncomputable[alternative]}")
                if alternative not in point.effects:
                    known = ", ".join(point.effects) or "none"
                    raise ReadingError(f"unknown alternative {alternative!r} of {point_id} ({point.title})"
                                       f"{did_you_mean(alternative, point.effects)}; computable alternatives: {known}")
                effects[point_id] = point.effects[alternative]
            by_rule = {rule: effect for effect in effects.values() for rule in effect.rules}
            units: dict[str, dict[str, Any]] = {}
            for effect in effects.values():
                for name, changes in effect.units.items():
                    units.setdefault(name, {}).update(changes)
            named = [name for name, chosen in self.reading_sets.items() if dict(chosen) == dict(key)]
            label = named[0] if named else ",".join(f"{p}={a}" for p, a in key)
            reading = self._readings[key] = Reading(frozen_map(dict(key)), label, frozen_map(effects),
                                                    frozen_map(by_rule), frozen_map(units))
        return reading

    def reading(self, words: "tuple[str, ...] | list[str]" = ()) -> Reading:
        """The reading `run --reading` words name: reading sets (`devkit`) and `POINT=ALT` assignments, merged
        in order; a point assigned two different alternatives is an error. No words: the seed reading."""
        choices: dict[str, str] = {}
        for word in words:
            for part in (p.strip() for p in word.split(",")):
                if not part:
                    continue
                if "=" in part:
                    point, _, alternative = part.partition("=")
                    pairs = {point.strip(): alternative.strip()}
                elif part in self.reading_sets:
                    pairs = dict(self.reading_sets[part])
                else:
                    raise ReadingError(f"{part!r}{did_you_mean(part, self.reading_sets)}: expected POINT=ALTERNATIVE "
                                       f"(e.g. D13=destination-bytes) or a reading set ({', '.join(self.reading_sets)})")
                for point, alternative in pairs.items():
                    if choices.get(point, alternative) != alternative:
                        raise ReadingError(f"{point} given two alternatives: {choices[point]} and {alternative}")
                    choices[point] = alternative
        return self.reading_of({p: a for p, a in choices.items() if a != SEED})
