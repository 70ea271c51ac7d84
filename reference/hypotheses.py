"""The bug classes real implementations have, as data: each hypothesis makes, of a call, the twin a target with
that bug makes of it (reference.misreading.Twin), which the reference then computes (reference.prediction).

`catalogue(spec, api)` lists every hypothesis that can explain a failure of one API, built from the spec's data:

- a field misread, for every field of every form of the API (a parameter, or `<Struct>.<member>`: that member in
  every array of that struct): kept in k bits for each k below its C width, read as a signed k-bit value for each
  k up to it, ignored (read as 0), one more, one less (`FieldMisread`; the API module's `read_as` moves what
  legality ties to the field);
- the API's own bug classes, declared beside its reference module (ApiReference.MISREADINGS): a gap measured
  start to start, a count rounded up, a field in the wrong unit... (`ApiMisreading`);
- bug classes of any API: the call does nothing (`NoOp`), one element written past the end (`PastEnd`), GM
  addresses kept in 32 bits (`AddressKept`);
- validation: one rule not checked (`RuleUnchecked`), only the memory rules checked (`OnlyMemoryChecked`), a
  field rejected above a bound narrower than the spec's (`TighterBound`), operands of a memory demanded more
  alignment than the spec asks (`TighterAlignment`), every call refused (`EveryCallRefused`: the API not
  implemented, or a validator refusing everything; named for a test only where nothing else explains it, and a
  run's causes weigh it by whether the run saw any call of the API accepted: reports.causes).

Each has a stable id (`DataCopy.blockLen:kept-in-8-bits`, `DataCopy:count-rounded-up`, `no-op`), words with the
call's values (`describe`: "blockLen kept in 8 bits (877 read as 109)") and a `rank` that says which of several
hypotheses explaining the same failures alike to name: the narrowest first (`breadth`, the share of a field's
documented values it changes: a field kept in 12 bits changes only the values from 4096 up, a field read as 0
every value but 0), then by kind in `Kind`'s order. A field hypothesis knows the smallest value that shows it
(`smallest`: blockLen kept in 8 bits, 256); `shows` says whether a case shows a hypothesis at all.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field as dc_field, replace
from typing import Callable, NamedTuple

from ascendc_conformance.format.case import Case
from ascendc_conformance.format.words import Word
from ascendc_conformance.reference import bit_witness
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call, resolve
from ascendc_conformance.reference.legality import static_breaches
from ascendc_conformance.reference.misreading import EMPTY, Misreading, Read, Twin, with_params
from ascendc_conformance.reference.prediction import MEMORY_RULES, Probe
from ascendc_conformance.spec.model import Api, Reading, RuleKind, Space, Spec, Where

GLOBAL = Where(space=Space.GLOBAL)   # where an operand's address may take every bit of 64
ADDRESS_BITS = 32                    # a GM address kept in this many bits (a 32-bit pointer or offset)
ALIGNMENTS = tuple(1 << bit for bit in range(6, 13))   # 64 B .. 4 KiB: the stricter alignments a validator may demand
# (the breadth of demanding one: the share of the 32-B aligned addresses it refuses)
ROUNDING = 1                         # breadth is compared to this many decimals: near-equal shares tie
C_WIDTHS = (8, 16, 32)               # the widths of C integer types: a field kept in one is likelier than in another


class Kind(Word):
    """The classes of hypotheses. Of two that explain the same failures and are as narrow, the one of the kind
    listed first is named: a missing check before a target that checks nothing, a too-strict validator before a
    misread field whose value it would refuse, far GM addresses before a call that does nothing, a field
    ignored before the API's own misreadings that move alike, ..."""

    RULE_UNCHECKED = "rule-unchecked"
    ONLY_MEMORY_CHECKED = "only-memory-checked"
    TIGHTER_BOUND = "tighter-bound"
    TIGHTER_ALIGNMENT = "tighter-alignment"
    ADDRESS_KEPT = "address-kept"
    NO_OP = "no-op"
    IGNORED = "read-as-0"
    MISREADING = "misreading"
    KEPT = "kept-in-bits"
    SIGNED = "signed"
    OFF_BY_ONE = "off-by-one"
    PAST_END = "past-end"
    EVERY_CALL_REFUSED = "every-call-refused"

    @property
    def accepts_illegal_calls(self) -> bool:
        """A validation bug that can only explain an illegal call answered as if legal (a missed rejection)."""
        return self in (Kind.RULE_UNCHECKED, Kind.ONLY_MEMORY_CHECKED)

    @property
    def refuses_legal_calls(self) -> bool:
        """A validation bug that can only explain a legal call refused (a false rejection)."""
        return self in (Kind.TIGHTER_BOUND, Kind.TIGHTER_ALIGNMENT, Kind.EVERY_CALL_REFUSED)

    @property
    def refuted_by_an_accepted_call(self) -> bool:
        """A bug class that one call of the API accepted anywhere in the run refutes, whatever it was: a case
        alone cannot tell it from the narrower bugs that refuse that case too, a run can (reports.causes)."""
        return self is Kind.EVERY_CALL_REFUSED


_KIND_ORDER = {kind: order for order, kind in enumerate(Kind)}


class Rank(NamedTuple):
    """Orders hypotheses, simplest (named first) lowest: the narrower (to ROUNDING decimals), then by kind, then
    within the kind (a C type's width first, then more bits kept; a higher bound; a smaller alignment), then by
    id."""

    breadth: float
    kind: int
    detail: tuple[int, ...]
    id: str


@dataclass(frozen=True)
class Hypothesis(ABC):
    """One bug class on one API (or on any, `api` None)."""

    id: str
    title: str                 # the cause's words without the call's values: "blockLen kept in 8 bits"
    api: str | None
    kind: Kind
    breadth: float             # the share of calls (of a field's documented values) it changes

    @property
    def rank(self) -> Rank:
        return Rank(round(self.breadth, ROUNDING), _KIND_ORDER[self.kind], self.detail, self.id)

    @property
    def detail(self) -> tuple[int, ...]:
        """Orders hypotheses of one kind and breadth, the likelier lower."""
        return ()

    @abstractmethod
    def twin(self, probe: Probe) -> Twin | None:
        """The twin a target with this bug makes of the probed call; None where the bug does not touch it."""

    def describe(self, call: Call) -> str:
        """The cause's words with the call's values: "blockLen kept in 8 bits (877 read as 109)"."""
        return self.title

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields it misreads, as reference.bit_witness names them (`srcSliceInfo.stride`); () for none."""
        return ()

    @property
    def smallest(self) -> int | None:
        """The smallest documented value of its field that shows it (None: not a field hypothesis, or none)."""
        return None


# --- a field misread ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FieldInfo:
    """A field as hypotheses read it: a parameter, or `<Struct>.<member>` standing for that member in every array
    of the struct (`members`, as reference.bit_witness names them), with its documented range and its C type's width."""

    name: str
    members: tuple[str, ...]
    low: int
    high: int
    width: int   # the bits of its C type

    @property
    def one_bit(self) -> bool:
        """A flag (a bool): read as 0 is its only misread (no narrower width, no value one off)."""
        return self.width == 1

    def share(self, changed: Callable[[int], bool]) -> float:
        """The share of the documented values [low, high] for which `changed` holds, where it holds from some
        value up (every misread of `FieldRead` does: a value kept in k bits changes from 2^k up)."""
        low, high = self.low, self.high
        while low < high:   # bisect for the first value that changes
            middle = (low + high) // 2
            low, high = (low, middle) if changed(middle) else (middle + 1, high)
        return (self.high - low + 1) / (self.high - self.low + 1) if changed(low) else 0.0


class FieldRead(Word):
    """How a field is misread (the suffix of the hypothesis id)."""

    KEPT = "kept-in-bits"
    SIGNED = "signed"
    ZERO = "read-as-0"
    MORE = "one-more"
    LESS = "one-less"


@dataclass(frozen=True)
class FieldMisread(Hypothesis):
    """A field kept in `bits` bits, read as a signed `bits`-bit value, ignored (read as 0) or off by one."""

    field: FieldInfo = dc_field(kw_only=True)
    read: FieldRead = dc_field(kw_only=True)
    bits: int = dc_field(kw_only=True, default=0)

    @classmethod
    def of(cls, api: str, field: FieldInfo, read: FieldRead, bits: int = 0) -> "FieldMisread":
        suffix, title, kind = {
            FieldRead.KEPT: (f"kept-in-{bits}-bits", f"{field.name} kept in {bits} bits", Kind.KEPT),
            FieldRead.SIGNED: (f"signed-{bits}-bit", f"{field.name} read as a signed {bits}-bit value", Kind.SIGNED),
            FieldRead.ZERO: ("read-as-0", f"{field.name} ignored (read as 0)", Kind.IGNORED),
            FieldRead.MORE: ("one-more", f"{field.name} read one more", Kind.OFF_BY_ONE),
            FieldRead.LESS: ("one-less", f"{field.name} read one less", Kind.OFF_BY_ONE)}[read]
        draft = cls(id=f"{api}.{field.name}:{suffix}", title=title, api=api, kind=kind, breadth=1.0, field=field,
                    read=read, bits=bits)
        return replace(draft, breadth=field.share(lambda value: draft.reading(value) != value))

    @property
    def detail(self) -> tuple[int, ...]:
        """A C type's width first (kept in 16 bits: a uint16_t), then more bits kept (narrower): where bytes read
        from outside the case leave 16 and 20 bits alike, the likelier is named."""
        return (self.bits not in C_WIDTHS, -self.bits)

    def reading(self, value: int) -> int:
        """How the target reads one value of the field."""
        if self.read is FieldRead.KEPT:
            return value & ((1 << self.bits) - 1)
        if self.read is FieldRead.SIGNED:
            kept = value & ((1 << self.bits) - 1)
            return kept - (1 << self.bits) if kept >> (self.bits - 1) else kept
        if self.read is FieldRead.ZERO:
            return 0
        return value + 1 if self.read is FieldRead.MORE else value - 1

    def twin(self, probe: Probe) -> Twin | None:
        params = probe.module.read_as(probe.call, self.field.name, self.reading)
        return None if params is None else Twin(with_params(probe.call, params))

    def describe(self, call: Call) -> str:
        values = dict.fromkeys(value for member in self.field.members for value in bit_witness.values(call.params, member)
                               if self.reading(value) != value)
        return f"{self.title} ({', '.join(f'{value} read as {self.reading(value)}' for value in values)})"

    @property
    def fields(self) -> tuple[str, ...]:
        return self.field.members

    @property
    def smallest(self) -> int | None:
        """2^k kept in k bits, 2^(k-1) read as signed k-bit, the smallest value but 0 read as 0, the smallest
        value off by one; None where that value is not documented."""
        value = {FieldRead.KEPT: 1 << self.bits, FieldRead.SIGNED: 1 << max(self.bits - 1, 0),
                 FieldRead.ZERO: max(self.field.low, 1)}.get(self.read, self.field.low)
        return value if self.field.low <= value <= self.field.high and self.reading(value) != value else None


def _fields(spec: Spec, api: Api) -> tuple[FieldInfo, ...]:
    """Every tracked field of the API (reference.bit_witness.fields), a member of an array of structs standing for its
    struct (`SliceInfo.stride` for srcSliceInfo.stride and dstSliceInfo.stride), with the widest range."""
    params = {name: field for form in api.forms.values() for name, field in form.fields.items()}
    found: dict[str, FieldInfo] = {}
    for tracked in bit_witness.fields(spec, api.name):
        param, _, member = tracked.name.partition(bit_witness.MEMBER)
        declared = params[param]
        if member:
            assert declared.array_of is not None, "a tracked member belongs to an array of structs"
            name, ctype = f"{declared.array_of}{bit_witness.MEMBER}{member}", api.structs[declared.array_of][member].ctype
        else:
            name, ctype = param, declared.ctype
        assert ctype is not None, "a tracked field has a C type (reference.bit_witness.fields)"
        known = found.get(name)
        members = (*known.members, tracked.name) if known else (tracked.name,)
        low, high = (tracked.low, tracked.high) if not known else (min(known.low, tracked.low),
                                                                   max(known.high, tracked.high))
        found[name] = FieldInfo(name, members, low, high, spec.ctypes[ctype][1].bit_length())
    return tuple(found.values())


def _field_hypotheses(api: str, field: FieldInfo) -> list[Hypothesis]:
    if field.one_bit:
        return [FieldMisread.of(api, field, FieldRead.ZERO)]
    reads = [(FieldRead.ZERO, 0), (FieldRead.MORE, 0), (FieldRead.LESS, 0)]
    reads += [(FieldRead.KEPT, k) for k in range(1, field.width)]
    reads += [(FieldRead.SIGNED, k) for k in range(2, field.width + 1)]
    return [FieldMisread.of(api, field, read, k) for read, k in reads]


# --- the API's own bug classes and those of any API ----------------------------------------------------------

@dataclass(frozen=True)
class ApiMisreading(Hypothesis):
    """One of the API's own bug classes (ApiReference.MISREADINGS)."""

    misreading: Misreading = dc_field(kw_only=True)

    @classmethod
    def of(cls, api: str, misreading: Misreading) -> "ApiMisreading":
        return cls(id=f"{api}:{misreading.name}", title=misreading.title, api=api, kind=Kind.MISREADING,
                   breadth=misreading.breadth, misreading=misreading)

    def twin(self, probe: Probe) -> Twin | None:
        return self.misreading.twin(probe.call)

    def describe(self, call: Call) -> str:
        return f"{self.title} ({self.misreading.says(call)})"


@dataclass(frozen=True)
class NoOp(Hypothesis):
    """The call does nothing at all: no rule checked, no byte moved (a silent no-op, as on the wrong core)."""

    def twin(self, probe: Probe) -> Twin | None:
        if probe.transfer is not None and probe.transfer.size == 0 and probe.refusal is None:
            return None
        return Twin(probe.call, transfer=EMPTY, label=self.id, unchecked=frozenset(probe.call.spec.rules))


@dataclass(frozen=True)
class PastEnd(Hypothesis):
    """One element too many: the element after the call's last written byte is clobbered."""

    def twin(self, probe: Probe) -> Twin | None:
        if probe.transfer is None or probe.transfer.size == 0:
            return None
        return Twin(probe.call, label=self.id, spill=probe.call.dst_dtype.size)


@dataclass(frozen=True)
class AddressKept(Hypothesis):
    """GM (global) addresses kept in ADDRESS_BITS bits: an operand at 4 GiB or above is used at its address modulo
    4 GiB, outside the bytes the case holds."""

    def twin(self, probe: Probe) -> Twin | None:
        moved = self._kept(probe.call)
        return Twin(with_params(probe.call, probe.call.params, **moved)) if moved else None

    def _kept(self, call: Call) -> dict[str, int]:
        mask = (1 << ADDRESS_BITS) - 1
        return {name: operand.address & mask for name, operand in (("src", call.case.src), ("dst", call.case.dst))
                if GLOBAL.covers(operand.position) and operand.address >> ADDRESS_BITS}

    def describe(self, call: Call) -> str:
        moved = ", ".join(f"{name} at {call.operand(name).address} read as {address}"
                          for name, address in self._kept(call).items())
        return f"{self.title} ({moved})"


# --- validation ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RuleUnchecked(Hypothesis):
    """One rule not checked: an illegal call breaking it is moved as if it held."""

    rule: str = dc_field(kw_only=True)

    def twin(self, probe: Probe) -> Twin | None:
        refusal = probe.refusal
        return Twin(probe.call, unchecked=frozenset({self.rule})) if refusal and self.rule in refusal else None

    def describe(self, call: Call) -> str:
        details = [breach.detail for breach in static_breaches(call, module_for(call.api).RELATIONS)
                   if breach.rule.id == self.rule]
        return f"{self.title}" + (f" ({details[0]})" if details else "")


@dataclass(frozen=True)
class OnlyMemoryChecked(Hypothesis):
    """Nothing checked but the regions' bounds and the memories' capacities."""

    def twin(self, probe: Probe) -> Twin | None:
        refusal = probe.refusal
        if not refusal or refusal <= MEMORY_RULES:
            return None
        return Twin(probe.call, unchecked=frozenset(probe.call.spec.rules) - MEMORY_RULES)


@dataclass(frozen=True)
class TighterBound(Hypothesis):
    """A legal value of a field refused above `maximum`, a bound narrower than the spec's (2^j - 1: a validator
    checking the field against too few bits, or a wrong constant)."""

    field: str = dc_field(kw_only=True)
    maximum: int = dc_field(kw_only=True)
    rules: tuple[str, ...] = dc_field(kw_only=True)   # the range rules of the field: what such a refusal names

    def twin(self, probe: Probe) -> Twin | None:
        value = probe.call.params.get(self.field)
        if value is None or value <= self.maximum or probe.refusal:
            return None
        return Twin(probe.call, refuses=self.rules)

    @property
    def detail(self) -> tuple[int, ...]:
        return (-self.maximum,)

    def describe(self, call: Call) -> str:
        return f"{self.title} ({self.field} {call.params[self.field]} refused)"

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.field,)

    @property
    def smallest(self) -> int | None:
        return self.maximum + 1


@dataclass(frozen=True)
class TighterAlignment(Hypothesis):
    """Operands in `memory` refused unless `alignment`-byte aligned, more than the spec asks."""

    memory: str = dc_field(kw_only=True)
    alignment: int = dc_field(kw_only=True)

    def twin(self, probe: Probe) -> Twin | None:
        off = self._off(probe.call)
        if not off or probe.refusal:
            return None
        positions = [probe.call.operand(name).position for name in off]
        return Twin(probe.call, refuses=tuple(rule.id for rule in probe.call.api.rules
                                              if rule.kind is RuleKind.ALIGNMENT and any(rule.where.covers(position) for position in positions)))

    @property
    def detail(self) -> tuple[int, ...]:
        return (self.alignment,)

    def _off(self, call: Call) -> list[str]:
        return [name for name in ("src", "dst")
                if call.memory(name) == self.memory and call.operand(name).address % self.alignment]

    def describe(self, call: Call) -> str:
        off = ", ".join(f"{name} at {call.operand(name).address}" for name in self._off(call))
        return f"{self.title} ({off} refused)"


@dataclass(frozen=True)
class EveryCallRefused(Hypothesis):
    """Every call refused, whatever its values: the API not implemented, or a validator refusing everything. A
    refusal naming no rule of the spec (or one of the target's own) is all it predicts, so it explains every such
    false rejection; ranked last of its breadth, a test names it only where no narrower bug explains the
    refusal."""

    def twin(self, probe: Probe) -> Twin | None:
        return None if probe.refusal else Twin(probe.call, refuses=())


# --- the catalogue --------------------------------------------------------------------------------------------

_CATALOGUES: dict[tuple[str, str], tuple[Hypothesis, ...]] = {}   # (spec digest, API) -> its catalogue


def catalogue(spec: Spec, api: str) -> tuple[Hypothesis, ...]:
    """Every hypothesis that can explain a failure of `api`, in rank order (KeyError for an API the spec lacks)."""
    found = _CATALOGUES.get((spec.digest, api))
    if found is None:
        found = _CATALOGUES[spec.digest, api] = _catalogue(spec, spec.apis[api])
    return found


def _catalogue(spec: Spec, api: Api) -> tuple[Hypothesis, ...]:
    found: list[Hypothesis] = [
        NoOp(id="no-op", title="the call does nothing (no rule checked, no byte moved)", api=None, kind=Kind.NO_OP,
             breadth=1.0),
        PastEnd(id="writes-past-end", title="one element written past the end of the call (clobbered)", api=None,
                kind=Kind.PAST_END, breadth=1.0),
        AddressKept(id=f"gm-address:kept-in-{ADDRESS_BITS}-bits", title=f"GM addresses kept in {ADDRESS_BITS} bits",
                    api=None, kind=Kind.ADDRESS_KEPT, breadth=1.0),
        OnlyMemoryChecked(id="only-memory-checked", title="only the regions' bounds and the capacities checked",
                          api=None, kind=Kind.ONLY_MEMORY_CHECKED, breadth=1.0),
        EveryCallRefused(id="every-call-refused", title="every call refused", api=None,
                         kind=Kind.EVERY_CALL_REFUSED, breadth=1.0),
    ]
    for field in _fields(spec, api):
        found.extend(_field_hypotheses(api.name, field))
    found.extend(ApiMisreading.of(api.name, misreading) for misreading in module_for(api).MISREADINGS)
    found.extend(RuleUnchecked(id=f"{rule.id}:unchecked", title=f"{rule.id} not checked", api=rule.api,
                               kind=Kind.RULE_UNCHECKED, breadth=0.0, rule=rule.id)
                 for rule in spec.rules.values() if rule.api in (api.name, None))
    found.extend(_bounds(spec, api))
    found.extend(TighterAlignment(id=f"{api.name}.{memory}:aligned-to-{alignment}",
                                  title=f"{memory} operands refused unless {alignment}-B aligned", api=api.name,
                                  kind=Kind.TIGHTER_ALIGNMENT, breadth=1 - ALIGNMENTS[0] / 2 / alignment,
                                  memory=memory, alignment=alignment)
                 for memory in _local_memories(spec, api) for alignment in ALIGNMENTS)
    return tuple(sorted(found, key=lambda hypothesis: hypothesis.rank))


def _bounds(spec: Spec, api: Api) -> list[Hypothesis]:
    """A TighterBound per plain field and maximum 2^j - 1 within its documented range (below its top)."""
    found: list[Hypothesis] = []
    for field in _fields(spec, api):
        if field.one_bit or bit_witness.MEMBER in field.members[0]:
            continue
        rules = tuple(rule.id for rule in api.rules if rule.kind is RuleKind.RANGE and rule.field == field.name)
        for j in range(field.width):
            maximum = (1 << j) - 1
            if field.low <= maximum < field.high:
                refused = (field.high - maximum) / (field.high - field.low + 1)
                found.append(TighterBound(id=f"{api.name}.{field.name}:refused-above-{maximum}",
                                          title=f"{field.name} refused above {maximum}", api=api.name,
                                          kind=Kind.TIGHTER_BOUND, breadth=refused, field=field.name, maximum=maximum,
                                          rules=rules))
    return found


def _local_memories(spec: Spec, api: Api) -> list[str]:
    """The memories the API's paths place a local operand in (a GM operand's alignment is its dtype's)."""
    memories = {spec.product(path.product).memory_of(position) for path in api.paths for position in path.route
                if not GLOBAL.covers(position)}
    return sorted(memory for memory in memories if memory is not None)


_BY_ID: dict[str, dict[str, Hypothesis]] = {}   # spec digest -> hypothesis id -> the hypothesis


def hypothesis(spec: Spec, hypothesis_id: str) -> Hypothesis:
    """The hypothesis of this id in any API's catalogue (KeyError naming it)."""
    by_id = _BY_ID.get(spec.digest)
    if by_id is None:
        by_id = _BY_ID[spec.digest] = {found.id: found for api in spec.apis for found in catalogue(spec, api)}
    found = by_id.get(hypothesis_id)
    if found is None:
        raise KeyError(f"no hypothesis {hypothesis_id!r} in the catalogue of any API")
    return found


def rank_of(spec: Spec, hypothesis_id: str) -> Rank:
    """The rank of a hypothesis by id; one the spec's catalogue lacks (a results file of another suite version)
    ranks after every known one, by id."""
    try:
        return hypothesis(spec, hypothesis_id).rank
    except KeyError:
        return Rank(float("inf"), len(_KIND_ORDER), (), hypothesis_id)


def refuted_by_an_accepted_call(spec: Spec, hypothesis_id: str) -> bool:
    """Whether one call of its API that a run saw accepted refutes the hypothesis (Kind.refuted_by_an_accepted_call);
    False for one the spec's catalogue lacks."""
    try:
        return hypothesis(spec, hypothesis_id).kind.refuted_by_an_accepted_call
    except KeyError:
        return False


def title_of(spec: Spec, hypothesis_id: str) -> str:
    """The title of a hypothesis by id; the id itself for one the spec's catalogue lacks."""
    try:
        return hypothesis(spec, hypothesis_id).title
    except KeyError:
        return hypothesis_id


def shows(hypo: Hypothesis, case: Case, spec: Spec, reading: Reading | None = None) -> bool:
    """Whether a target with this bug answers `case` otherwise than the reference: a legal call it moves
    otherwise, or refuses; an illegal call it accepts. The predicate that keeps a shrunk case showing the
    hypothesis (a case where it does not show proves nothing about it)."""
    return shows_on(hypo, Probe(resolve(case, spec, reading)))


def shows_on(hypo: Hypothesis, probe: Probe) -> bool:
    """`shows` on a probe of the case: one probe serves every hypothesis weighed on the same case (what the call
    itself moves and leaves is worked out once)."""
    if hypo.api not in (None, probe.call.api.name):
        return False
    twin = hypo.twin(probe)
    if twin is None or not probe.changes(twin):
        return False
    if probe.refusal is not None:
        return probe.refusal_of(twin) is None
    if twin.refuses is not None:
        return True
    image, expected = probe.image(twin), probe.image(probe.itself).memory
    return bool(image.loose) or any(image.memory[key] != expected[key] for key in expected)
