"""The pinned case and result formats (v1) as frozen dataclasses, with parsing that names what is wrong.

A case is one call of one API on one product plus the memory images it starts from; a result is what
the call did. These objects, with the regions' bytes, are what the layers pass each other; `from_json` /
`to_json` convert from and to the published JSON shapes (conformance/format/schema/case-v1.schema.json and
result-v1.schema.json) at the edges only: a target's wire or dict, replay and pack files. A region's base64 is
decoded once, where the JSON is read.
"""
from __future__ import annotations

import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any

import jsonschema

from ascendc_conformance.format import wire
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.format.fill import Fill, filled_bytes, region_bytes
from ascendc_conformance.format.schemas import follows_schema, schema
from ascendc_conformance.format.words import Word

CASE_FORMAT = 1


def decode_base64(text: str) -> bytes:
    """Strict base64 decoding (binascii.Error on anything but the alphabet and correct padding)."""
    return wire.b64decode(text)


@lru_cache(maxsize=None)
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(name))


@dataclass(frozen=True)
class Operand:
    position: str
    dtype: str
    address: int

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "dtype": self.dtype, "address": self.address}


@dataclass(frozen=True, eq=False)
class Region:
    """A contiguous image of one physical memory: `data` starts at byte `address`; `fill`: the recipe its bytes
    were made by, where known (a pack's case): a target announcing REGION_FILL is sent the recipe instead. Two
    regions are equal when their addresses and bytes are, whatever made them (a RecipeRegion too)."""

    address: int
    data: bytes
    fill: Fill | None = field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Region):
            return NotImplemented
        return self.address == other.address and self.data == other.data

    def __hash__(self) -> int:
        return hash((self.address, self.data))

    @property
    def size(self) -> int:
        """How many bytes the region holds."""
        return len(self.data)

    @property
    def end(self) -> int:
        return self.address + self.size

    def contains(self, start: int, stop: int) -> bool:
        """Whether absolute bytes [start, stop) lie inside the region."""
        return self.address <= start and stop <= self.end

    def to_json(self, *, recipe: bool = False) -> dict[str, Any]:
        """The region v1 dict: its bytes in base64, or (`recipe`, where it is known) its fill recipe."""
        if recipe and self.fill is not None:
            return {"address": self.address, "fill": self.fill.to_json()}
        return {"address": self.address, "data": wire.b64encode(self.data)}


class RecipeRegion(Region):
    """A region given by its fill recipe, its bytes made when they are first read: a pack's case sent by recipe
    to a target speaking region-fill, and judged by the digests it answers, never needs them where it passes."""

    def __init__(self, address: int, fill: Fill) -> None:   # noqa: D107 (frozen: set as the dataclass does)
        object.__setattr__(self, "address", address)
        object.__setattr__(self, "fill", fill)

    @cached_property
    def data(self) -> bytes:
        assert self.fill is not None, "a recipe region has its recipe"
        return filled_bytes(self.fill, self.address)

    @property
    def size(self) -> int:
        assert self.fill is not None, "a recipe region has its recipe"
        return self.fill.size


def _decode_region(where: str, data: Any) -> Region:
    if "fill" in data:   # the region-fill extension: its bytes made from the recipe
        try:
            raw = region_bytes(where, data["address"], data["fill"])
        except ValueError as error:
            raise CaseError(str(error)) from None
        return Region(data["address"], raw, fill=Fill(**data["fill"]))
    try:
        raw = decode_base64(data["data"])
    except (binascii.Error, ValueError) as error:
        raise CaseError(f"{where}.data is not valid base64 ({error})") from None
    return Region(data["address"], raw)


def decode_memory(where: str, memory: Mapping[str, Any]) -> dict[str, Region]:
    return {name: _decode_region(f"{where}.{name}", region) for name, region in memory.items()}


def encode_memory(memory: Mapping[str, Region], *, recipes: bool = False) -> dict[str, Any]:
    """The regions' v1 dicts (`recipes`: each by its fill recipe where it is known: REGION_FILL)."""
    return {name: region.to_json(recipe=recipes) for name, region in memory.items()}


# Case-format extensions. Cases that need one say so in "extensions"; they go only to targets whose hello
# announces it.
# detached-tensor: a GM operand's start address may lie outside its region (the region covers only the bytes
# the call touches).
DETACHED_TENSOR = "detached-tensor"
# sparse-memory: a memory may have several regions (any number), keyed `<memory>` (the lowest) and `<memory>#<n>`
# (n = 1, 2, ... by address), none overlapping another: accesses megabytes apart cost only their bytes.
SPARSE_MEMORY = "sparse-memory"
# int64: the target reads every integer of a case exactly, up to 64 bits. Without it (I-JSON, RFC 7493: what a
# JavaScript or any IEEE-double JSON reader keeps exactly) no integer beyond +-(2**53 - 1) is sent to it: GM
# operands and regions lie below 2**53, and address bits 53-63 stay untested (the certification says so).
INT64 = "int64"
EXTENSIONS = (DETACHED_TENSOR, SPARSE_MEMORY, INT64)
# Wire extensions: shorter forms of a request or an answer that a target may announce (no case needs one: the suite
# uses them where it can, docs/target-protocol.md). region-fill: a request's region may be given by its fill recipe
# (format.fill) instead of its bytes. region-digest: a request saying `"digest": "sha256"` may be answered with each
# ok region's SHA-256 instead of its bytes (a pack run asks it, whose expected images are digests).
REGION_FILL = "region-fill"
REGION_DIGEST = "region-digest"
WIRE_EXTENSIONS = (REGION_FILL, REGION_DIGEST)
DIGEST = "sha256"   # the request's "digest": the one digest a region-digest request asks for
IJSON_MAX = 2**53 - 1
"""The largest integer (in magnitude) an I-JSON reader holds exactly: the most a target without int64 is sent."""
REGION_INDEX = "#"   # separates a memory's name from the index of one of its further regions


def digest_of(data: bytes) -> bytes:
    """The digest of a region's bytes (DIGEST), as a region-digest answer and a pack's expected image give it."""
    return hashlib.sha256(data).digest()


def memory_of(key: str) -> str:
    """The physical memory a region of a case's `memory` is of: `GM` for the keys `GM` and `GM#2`."""
    return key.partition(REGION_INDEX)[0]


def region_keys(memory: str, count: int) -> list[str]:
    """The keys of `count` regions of one memory, in address order (`GM`, `GM#1`, `GM#2`, ...)."""
    return [memory if index == 0 else f"{memory}{REGION_INDEX}{index}" for index in range(count)]


Params = Mapping[str, Any]
"""A call's parameters by the C++ struct field names of its form: integers and booleans, or for an array of
structs (SliceInfo) a list of mappings of integers; what each means is the API's (spec/<api>.yaml)."""


@dataclass(frozen=True)
class Case:
    """One call of one API on one product, and the memory images it starts from (case v1)."""

    api: str
    product: str
    src: Operand
    dst: Operand
    params: Params
    memory: Mapping[str, Region]
    id: str | None = None
    tags: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()

    def __repr__(self) -> str:
        """The call's gist, not megabytes of memory: a failing example or an assertion prints this."""
        return (f"<{self.api} on {self.product}: {self.src.position}@{self.src.address} -> "
                f"{self.dst.position}@{self.dst.address} {self.src.dtype} params={plain(self.params)}>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """The same gist in a Hypothesis falsifying example (its printer would list every field otherwise)."""
        printer.text(repr(self))

    def operand(self, name: str) -> Operand:
        """The operand `name`: "src" or "dst"."""
        return {"src": self.src, "dst": self.dst}[name]

    @classmethod
    def from_json(cls, data: Any) -> "Case":
        """Parse a case dict; a malformed one raises CaseError saying which key is wrong and why."""
        errors = [] if follows_schema(data, "case-v1") else sorted(_validator("case-v1").iter_errors(data),
                                                                   key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            error = errors[0]
            where = "case" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            raise CaseError(f"{where}: {error.message}")
        return cls(
            api=data["api"], product=data["product"],
            src=Operand(**data["src"]), dst=Operand(**data["dst"]),
            params=MappingProxyType(dict(data["params"])),
            memory=MappingProxyType(decode_memory("case.memory", data["memory"])),
            id=data.get("id"), tags=tuple(data.get("tags", ())), extensions=tuple(data.get("extensions", ())))

    def to_json(self, *, recipes: bool = False) -> dict[str, Any]:
        """The case v1 dict (`recipes`: regions by their fill recipes where known, for a target announcing
        REGION_FILL)."""
        data = {"case_format": CASE_FORMAT, "api": self.api, "product": self.product,
                "src": self.src.to_json(), "dst": self.dst.to_json(),
                "params": plain(self.params), "memory": encode_memory(self.memory, recipes=recipes)}
        if self.id is not None:
            data["id"] = self.id
        if self.tags:
            data["tags"] = list(self.tags)
        if self.extensions:
            data["extensions"] = list(self.extensions)
        return data

    def in_bytes(self) -> "Case":
        """The case with every region given by its bytes alone, never by a fill recipe (sent so even to a target
        announcing REGION_FILL): the twin that tells a wrong region-fill from a wrong call (runner.checker)."""
        memory = {name: Region(region.address, region.data) for name, region in self.memory.items()}
        return replace(self, memory=MappingProxyType(memory))

    @property
    def by_recipe(self) -> bool:
        """Some region is known by its fill recipe (a pack's case): a target announcing REGION_FILL is sent it."""
        return any(region.fill is not None for region in self.memory.values())

    @property
    def largest_integer(self) -> int:
        """The largest magnitude of any integer the case holds (operand and region addresses, parameters): above
        IJSON_MAX the case needs the int64 extension."""
        return max([abs(self.src.address), abs(self.dst.address), *(abs(r.address) for r in self.memory.values()),
                    *_integers(self.params)], default=0)

    @property
    def requires(self) -> frozenset[str]:
        """The extensions a target must announce to be sent this case: those it names, and int64 if it holds an
        integer beyond IJSON_MAX (a case written before int64 was named, e.g. in an older pack, included)."""
        return frozenset(self.extensions) | ({INT64} if self.largest_integer > IJSON_MAX else set())

    def digest(self) -> str:
        """SHA-256 (hex) of everything the case says, its regions' bytes included: equal digests, equal cases."""
        call = {"api": self.api, "product": self.product, "src": self.src.to_json(), "dst": self.dst.to_json(),
                "params": plain(self.params), "id": self.id, "tags": self.tags, "extensions": self.extensions,
                "regions": {name: region.address for name, region in self.memory.items()}}
        digest = hashlib.sha256(json.dumps(call, sort_keys=True).encode())
        for name in sorted(self.memory):
            digest.update(self.memory[name].data)
        return digest.hexdigest()


def _integers(value: Any) -> list[int]:
    """The magnitudes of the integers in a call's parameters (nested ones included; booleans are not integers)."""
    if type(value) is int:   # most values: asking the Mapping ABC is ten times slower
        return [abs(value)]
    if isinstance(value, Mapping):
        return [n for item in value.values() for n in _integers(item)]
    if isinstance(value, (list, tuple)):
        return [n for item in value for n in _integers(item)]
    return [abs(value)] if isinstance(value, int) and not isinstance(value, bool) else []


def plain(value: Any) -> Any:
    """Mappings and tuples back to JSON-ready dicts and lists."""
    if isinstance(value, (str, int)):   # most values: asking the Mapping ABC is ten times slower
        return value
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class ResultStatus(Word):
    """What a call did (result v1 `status`)."""

    OK = "ok"                    # the call moved its bytes: `memory` holds every region afterwards
    REJECTED = "rejected"        # the call is illegal: `rules` names the rules it breaks
    ERROR = "error"              # the case is malformed (or the target failed in its own words)
    UNSPECIFIED = "unspecified"  # the documents leave the outcome open (the reference only)

    @property
    def names_rules(self) -> bool:
        """A result of this status carries `rules`."""
        return self in (ResultStatus.REJECTED, ResultStatus.UNSPECIFIED)


@dataclass(frozen=True)
class Result:
    """What a call did (result v1): its memory afterwards (ok), or the rules it breaks (rejected, unspecified),
    or what made it unusable (error)."""

    status: ResultStatus
    memory: Mapping[str, Region] | None = None
    rules: tuple[str, ...] = ()
    message: str = ""
    depends_on: tuple[str, ...] = ()

    def __repr__(self) -> str:
        regions = "" if self.memory is None else " memory=" + ", ".join(
            f"{name}[{region.address}, {region.end})" for name, region in self.memory.items())
        rules = f" rules={list(self.rules)}" if self.rules else ""
        return f"<Result {self.status.value}{rules}{regions}>"

    @classmethod
    def ok(cls, memory: Mapping[str, Region], depends_on: tuple[str, ...] = ()) -> "Result":
        return cls(ResultStatus.OK, memory=MappingProxyType(dict(memory)), depends_on=depends_on)

    @classmethod
    def rejected(cls, rules: tuple[str, ...], message: str, depends_on: tuple[str, ...] = ()) -> "Result":
        return cls(ResultStatus.REJECTED, rules=rules, message=message, depends_on=depends_on)

    @classmethod
    def unspecified(cls, rules: tuple[str, ...], message: str) -> "Result":
        return cls(ResultStatus.UNSPECIFIED, rules=rules, message=message)

    @classmethod
    def error(cls, message: str) -> "Result":
        return cls(ResultStatus.ERROR, message=message)

    def to_json(self, *, digests: bool = False) -> dict[str, Any]:
        """The result v1 dict (`digests`: each region as the SHA-256 of its bytes, REGION_DIGEST's answer)."""
        data: dict[str, Any] = {"status": self.status.value}
        if self.memory is not None:
            data["memory"] = ({name: {"address": region.address, DIGEST: digest_of(region.data).hex()}
                               for name, region in self.memory.items()} if digests else encode_memory(self.memory))
        if self.status.names_rules:
            data["rules"] = list(self.rules)
        if self.message:
            data["message"] = self.message
        if self.depends_on:
            data["depends_on"] = list(self.depends_on)
        return data
