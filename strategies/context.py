"""What one drawn case is about: product, API, route, dtypes and form, with the limits the spec puts on it.

A `PathContext` may describe a documented path (legal generation) or a *pseudo-path* that the spec does not
document (an undocumented route, dtype or form) — single-fault generation draws a case for it exactly as if
it were legal, so that the route, dtype or form is the only rule it breaks.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ascendc_conformance.format.case import IJSON_MAX
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.spec.model import Api, Dtype, Field, Path, Product, Rule, RuleKind, ShortRepr, Spec


UNBOUNDED = (-(1 << 64), 1 << 64)   # the range of a relaxed field: any value a fault may pin
# One GM region of a "large" context spans up to this many bytes (no case-format extension needed): a target that
# announces neither sparse-memory nor detached-tensor gets the top bits of gaps, strides and start indices this
# way, in a bounded number of cases (docs/bits-and-offsets.md). 32 MiB holds LoadData2D's srcStride and startIndex
# up to 65535 fractals and a 1-byte slice 2^25 - 32 elements from its start, and its base64 (45 MB) stays below the
# exec protocol's 64-MiB answer line.
LARGE_REGION_BYTES = 32 * 1024 * 1024
SPARSE_REGIONS = 16      # GM regions one sparse case may have (case extension sparse-memory)
CROWDED_REGIONS = 4097   # ... and one whose derived offsets cross 2^32 B (4095 bursts, one region each, a start)
_NARROWED_RANGES: dict[tuple[str, str, str, str], tuple[int, int]] = {}   # see PathContext.field_range
_CONTEXTS: dict[tuple[str, ...], "PathContext"] = {}   # see PathContext.make


class Unreachable(Exception):
    """The requested value cannot be reached on this path under the product's capacities (or the GM window)."""


@dataclass(frozen=True, repr=False)
class PathContext(ShortRepr):
    """Compared by value; its repr is the label, since Hypothesis prints strategies over contexts."""

    spec: Spec
    product: Product
    api: Api
    src: str
    dst: str
    src_dtype: Dtype
    dst_dtype: Dtype
    form: str
    relaxed: frozenset[str] = frozenset()   # fields whose range rules and C type a single-fault draft ignores
    unbounded: bool = False                 # memories without limit: companions of an inseparable fault
    detached: bool = False                  # GM regions may leave out the tensor start (case extension)
    limits: Limits = Limits()               # what the target declares: legal draws stay within it
    sparse: bool = False                    # GM may have several regions (case extension sparse-memory)
    strict: bool = False                    # a pseudo-path: operands aligned as strictly as any API asks (faults)
    large: bool = False                     # one GM region may span LARGE_REGION_BYTES (no extension needed)
    regions: int = SPARSE_REGIONS           # GM regions a sparse case may have
    ijson: bool = False                     # every address below 2**53: the target lacks the int64 extension

    @classmethod
    def of(cls, spec: Spec, path: Path, form: str | None = None) -> "PathContext":
        return cls.make(spec, path.product, path.api, path.src, path.dst, path.src_dtype, path.dst_dtype,
                        form or path.forms[0])

    @classmethod
    def make(cls, spec: Spec, product: str, api: str, src: str, dst: str, src_dtype: str, dst_dtype: str,
             form: str) -> "PathContext":
        """The context of a path (documented or not) and form: the same object every time for the same spec
        content, so that what a context works out once (field ranges, alignments, the contexts derived from it)
        serves every test, fault and boundary built over it."""
        key = (spec.digest, product, api, src, dst, src_dtype, dst_dtype, form)
        context = _CONTEXTS.get(key)
        if context is None:
            context = _CONTEXTS[key] = cls(spec, spec.product(product), spec.apis[api], src, dst,
                                           spec.dtypes[src_dtype], spec.dtypes[dst_dtype], form)
        return context

    def __repr__(self) -> str:
        relaxed = f", relaxed={sorted(self.relaxed)}" if self.relaxed else ""
        return f"PathContext({self.label}, form={self.form}{relaxed})"

    def __getstate__(self) -> dict[str, Any]:
        """Its fields, without what it worked out (cached properties): what a pickle of a selection keeps
        (spec.derived); worked out again where it is read back."""
        return {field.name: self.__dict__[field.name] for field in dataclasses.fields(self)}

    def relaxing(self, field: str) -> "PathContext":
        """The same path with `field` free of its range: a draft pinning a faulty value there sizes every
        other parameter, address and region for the faulty call (single faults stay single)."""
        return self._variant(relaxed=self.relaxed | {field})

    def within(self, limits: Limits) -> "PathContext":
        """The same path drawn within a target's declared limits (stricter alignments, lower maxima); the same
        object every time (a test asks for it on every case, and a context keeps what it works out). Only the
        limits that narrow the spec (alignments, maxima) change what is drawn: a target declaring none gets the
        context itself."""
        return self if limits.deviations == self.limits.deviations else self._variant(limits=limits)

    def _variant(self, **changes: Any) -> "PathContext":
        """The same path with `changes`: the same object every time it is asked for the same changes (so that it
        keeps what it works out: fault and boundary generation derive the same contexts thousands of times)."""
        key = tuple(sorted(changes.items()))
        known = self._variants.get(key)
        if known is None:
            changed = any(getattr(self, name) != value for name, value in changes.items())
            known = self._variants[key] = dataclasses.replace(self, **changes) if changed else self
        return known

    @cached_property
    def _variants(self) -> dict[tuple[tuple[str, Any], ...], "PathContext"]:
        return {}

    def detaching(self) -> "PathContext":
        """The same path whose GM regions cover only the bytes the call touches: the tensor start may lie
        outside them (the "detached-tensor" case extension)."""
        return self._variant(detached=True)

    def aligning_strictly(self) -> "PathContext":
        """The same path with every operand aligned as strictly as any alignment rule of any API asks for its
        memory: a route, product, dtype or form fault must not also break an alignment that a target checking
        another API's rules, or following another reading, would apply there."""
        return self._variant(strict=True)

    def sparsing(self) -> "PathContext":
        """The same path whose GM accesses may lie in several regions, each within the GM window (the
        "sparse-memory" case extension): bursts far apart cost only their bytes."""
        return self._variant(sparse=True)

    def crowding(self) -> "PathContext":
        """The same path whose GM accesses may lie in up to CROWDED_REGIONS regions (sparse-memory): the thousands
        of bursts or fractals megabytes apart whose derived offsets cross 2^31 or 2^32 bytes."""
        return self._variant(sparse=True, regions=CROWDED_REGIONS)

    def enlarging(self) -> "PathContext":
        """The same path whose one GM region may span LARGE_REGION_BYTES: accesses megabytes apart, or far past
        the tensor start, for a target that announces no case-format extension (each such case costs its span)."""
        return self._variant(large=True)

    def within_ijson(self) -> "PathContext":
        """The same path with every address a case holds below 2**53 (IJSON_MAX): for a target that does not
        announce the int64 case extension, whose JSON reader (I-JSON) holds no larger integer exactly."""
        return self._variant(ijson=True)

    @cached_property
    def documented(self) -> bool:
        """Whether the context is a documented path and form (not a pseudo-path of a route, dtype or form fault);
        worked out once (a pack run asks it of every context of every test)."""
        path = self.spec.find_path(self.api.name, self.product.id, self.src, self.dst, self.src_dtype.name,
                                   self.dst_dtype.name)
        return path is not None and self.form in path.forms

    @property
    def touches_gm(self) -> bool:
        return "GM" in (self.memory("src"), self.memory("dst"))

    def bounded(self, unbounded: bool = False) -> "PathContext":
        """The same path with (or, by default, without) unlimited memories."""
        return self._variant(unbounded=unbounded)

    @property
    def label(self) -> str:
        dtype = self.src_dtype.name if self.src_dtype == self.dst_dtype else f"{self.src_dtype.name}->{self.dst_dtype.name}"
        return f"{self.product.id}-{self.api.name}-{self.src}->{self.dst}-{dtype}"

    @cached_property
    def _memories(self) -> dict[str, str | None]:
        return {"src": self.product.memory_of(self.src), "dst": self.product.memory_of(self.dst)}

    def memory(self, operand: str) -> str:
        memory = self._memories[operand]
        if memory is None:
            raise Unreachable(f"{self.position(operand)} has no physical memory on {self.product.id}")
        return memory

    def dtype(self, operand: str) -> Dtype:
        return self.src_dtype if operand == "src" else self.dst_dtype

    def position(self, operand: str) -> str:
        return self.src if operand == "src" else self.dst

    @property
    def shared_memory(self) -> bool:
        return self.memory("src") == self.memory("dst")

    def limit(self, memory: str) -> int:
        """The end of the addresses a generated case may use in a memory: its capacity, or the 64-bit GM (within
        I-JSON, `ijson`: IJSON_MAX, so that no address, not even that of an operand touching no byte, exceeds it)."""
        capacity = self.product.capacities.get(memory)
        end = UNBOUNDED[1] if self.unbounded else capacity.bytes if capacity else self.spec.gm_bytes
        return min(end, IJSON_MAX) if self.ijson else end

    def span_limit(self, memory: str) -> int:
        """The bytes one region of a generated case may span: the capacity, or the GM window (a large one)."""
        if self.unbounded:
            return UNBOUNDED[1]
        capacity = self.product.capacities.get(memory)
        if capacity:
            return capacity.bytes
        return LARGE_REGION_BYTES if self.large else self.spec.gm_window_bytes

    def rules(self) -> tuple[Rule, ...]:
        return self.spec.rules_for(self.api.name, self.product.id)

    @cached_property
    def _field_ranges(self) -> dict[str, tuple[int, int]]:
        return {}   # filled by field_range: a draw asks for the same ranges hundreds of times

    def field_range(self, field: str) -> tuple[int, int]:
        """The legal range of a parameter: its C type narrowed by every range rule that makes it illegal, and
        by the maximum the target declares."""
        known = self._field_ranges.get(field)
        if known is None:
            known = UNBOUNDED if field in self.relaxed else self._shared_range(field)
            declared = None if field in self.relaxed else self.limits.maximum(self.api.name, self.product.id, field)
            if declared is not None:
                known = (known[0], min(known[1], declared))
            self._field_ranges[field] = known
        return known

    def _shared_range(self, field: str) -> tuple[int, int]:
        """The same for every route, dtype and form: kept per spec, product and API, since fault generation
        asks thousands of derived contexts for the same few ranges."""
        key = (self.spec.digest, self.product.id, self.api.name, field)
        if key not in _NARROWED_RANGES:
            _NARROWED_RANGES[key] = self._narrowed_range(field)
        return _NARROWED_RANGES[key]

    def _narrowed_range(self, field: str) -> tuple[int, int]:
        low, high = self.spec.ctype_range(self._field(field))
        for rule in self.rules():
            if rule.kind is RuleKind.RANGE and rule.field == field and rule.illegal_by_default:
                low = max(low, rule.min) if rule.min is not None else low
                high = min(high, rule.max) if rule.max is not None else high
        return low, high

    def field_multiple(self, field: str) -> int:
        multiples = [rule.multiple for rule in self.rules()
                     if rule.kind is RuleKind.MULTIPLE and rule.field == field and rule.multiple is not None]
        return math.lcm(*multiples) if multiples else 1

    def _field(self, name: str) -> Field:
        for form in self.api.forms.values():
            if name in form.fields:
                return form.fields[name]
        for fields in self.api.structs.values():
            if name in fields:
                return fields[name]
        raise KeyError(f"{self.api.name} has no parameter '{name}'")

    @cached_property
    def _alignments(self) -> dict[str, int]:
        return {operand: self._strictest_alignment(operand) for operand in ("src", "dst")}

    def alignment(self, operand: str) -> int:
        """The strictest start alignment any alignment rule (documented, disputed or vendor-only) of the API or
        the target's declared limits ask for; of any API, for the operand's memory, on a strict context
        (aligning_strictly)."""
        return self._alignments[operand]

    def _strictest_alignment(self, operand: str) -> int:
        position, dtype = self.position(operand), self.dtype(operand)
        memory = self.product.memory_of(position)
        declared = self.limits.alignment(self.api.name, operand, position, memory)
        if self.strict:   # every API's rules, for any operand and product, on any position of the same memory
            places = [p for p in self.spec.positions if p == position or memory and self.product.memory_of(p) == memory]
            return math.lcm(declared, *(rule.alignment(dtype) for rule in self.spec.rules.values()
                                        if rule.kind is RuleKind.ALIGNMENT and any(rule.where.covers(p) for p in places)))
        aligns = [rule.alignment(dtype) for rule in self.rules()
                  if rule.kind is RuleKind.ALIGNMENT and operand in rule.operands and rule.where.covers(position)]
        return math.lcm(declared, *aligns)

    def relation_args(self, check: str) -> dict[str, Any]:
        """The args of the API's relation rule with this check name (e.g. transpose routes and dtypes)."""
        for rule in self.api.rules:
            if rule.kind is RuleKind.RELATION and rule.check == check:
                return dict(rule.args)
        raise KeyError(f"{self.api.name} has no relation rule with check '{check}'")
