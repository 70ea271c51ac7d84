"""The pinned case and result formats (v1) as frozen dataclasses, with parsing that names what is wrong.

A case is one call of one API on one product plus the memory images it starts from; a result is what
the call did. `Case.from_json` / `Result.to_json` convert from and to the published JSON shapes
(conformance/schema/case-v1.schema.json and result-v1.schema.json).
"""
from __future__ import annotations

import base64
import binascii
import json
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import jsonschema

from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.format.words import Word

CASE_FORMAT = 1
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"


DECODED_TEXTS = 16                  # region texts decode_base64 remembers ...
DECODED_CHARS = 128 * 1024 * 1024   # ... and at most this many characters of them and their bytes together
_decoded: OrderedDict[str, bytes] = OrderedDict()
_held = [0]   # the characters and bytes _decoded holds


def decode_base64(text: str) -> bytes:
    """Strict base64 decoding (binascii.Error on anything but the alphabet and correct padding).

    Remembers the last few texts: one region's text is read by the reference, by an in-process target, by
    the answer checks and by the judge, and decoding a megabyte each time is most of a large case's cost. Their
    size is bounded too (DECODED_CHARS): one large GM region (32 MiB, and its 43-MB text) is kept at a time, never
    a run's worth of them."""
    known = _decoded.get(text)
    if known is not None:
        _decoded.move_to_end(text)
        return known
    raw = base64.b64decode(text, validate=True)
    _decoded[text] = raw
    _held[0] += len(text) + len(raw)
    while len(_decoded) > 1 and (len(_decoded) > DECODED_TEXTS or _held[0] > DECODED_CHARS):
        kept, data = _decoded.popitem(last=False)
        _held[0] -= len(kept) + len(data)
    return raw


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """A published schema by name: 'case-v1' or 'result-v1'."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(name))


@dataclass(frozen=True)
class Operand:
    position: str
    dtype: str
    address: int

    def to_json(self) -> dict:
        return {"position": self.position, "dtype": self.dtype, "address": self.address}


@dataclass(frozen=True)
class Region:
    """A contiguous image of one physical memory: `data` starts at byte `address`."""

    address: int
    data: bytes

    @property
    def end(self) -> int:
        return self.address + len(self.data)

    def contains(self, start: int, stop: int) -> bool:
        """Whether absolute bytes [start, stop) lie inside the region."""
        return self.address <= start and stop <= self.end

    def to_json(self) -> dict:
        return {"address": self.address, "data": base64.b64encode(self.data).decode("ascii")}


def _decode_region(where: str, data: Any) -> Region:
    try:
        raw = decode_base64(data["data"])
    except (binascii.Error, ValueError) as error:
        raise CaseError(f"{where}.data is not valid base64 ({error})") from None
    return Region(data["address"], raw)


def decode_memory(where: str, memory: Mapping[str, Any]) -> dict[str, Region]:
    return {name: _decode_region(f"{where}.{name}", region) for name, region in memory.items()}


def encode_memory(memory: Mapping[str, Region]) -> dict:
    return {name: region.to_json() for name, region in memory.items()}


# Case-format extensions. Cases that need one say so in "extensions"; they go only to targets whose hello
# announces it.
# detached-tensor: a GM operand's start address may lie outside its region (the region covers only the bytes
# the call touches).
DETACHED_TENSOR = "detached-tensor"
# sparse-memory: a memory may have several regions (any number), keyed `<memory>` (the lowest) and `<memory>#<n>`
# (n = 1, 2, ... by address), none overlapping another: accesses megabytes apart cost only their bytes.
SPARSE_MEMORY = "sparse-memory"
EXTENSIONS = (DETACHED_TENSOR, SPARSE_MEMORY)
REGION_INDEX = "#"   # separates a memory's name from the index of one of its further regions


def memory_of(key: str) -> str:
    """The physical memory a region of a case's `memory` is of: `GM` for the keys `GM` and `GM#2`."""
    return key.partition(REGION_INDEX)[0]


def region_keys(memory: str, count: int) -> list[str]:
    """The keys of `count` regions of one memory, in address order (`GM`, `GM#1`, `GM#2`, ...)."""
    return [memory if index == 0 else f"{memory}{REGION_INDEX}{index}" for index in range(count)]


@dataclass(frozen=True)
class Case:
    api: str
    product: str
    src: Operand
    dst: Operand
    params: Mapping[str, Any]
    memory: Mapping[str, Region]
    id: str | None = None
    tags: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> "Case":
        """Parse a case dict; a malformed one raises CaseError saying which key is wrong and why."""
        errors = sorted(_validator("case-v1").iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
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

    def to_json(self) -> dict:
        data = {"case_format": CASE_FORMAT, "api": self.api, "product": self.product,
                "src": self.src.to_json(), "dst": self.dst.to_json(),
                "params": _plain(self.params), "memory": encode_memory(self.memory)}
        if self.id is not None:
            data["id"] = self.id
        if self.tags:
            data["tags"] = list(self.tags)
        if self.extensions:
            data["extensions"] = list(self.extensions)
        return data


def _plain(value: Any) -> Any:
    """Mappings and tuples back to JSON-ready dicts and lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
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
    status: ResultStatus
    memory: Mapping[str, Region] | None = None
    rules: tuple[str, ...] = ()
    message: str = ""
    depends_on: tuple[str, ...] = ()

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

    def to_json(self, memory_json: dict | None = None) -> dict:
        """The result v1 dict; `memory_json`, when given, is the already encoded memory to put in it."""
        data: dict[str, Any] = {"status": self.status.value}
        if self.memory is not None:
            data["memory"] = memory_json if memory_json is not None else encode_memory(self.memory)
        if self.status.names_rules:
            data["rules"] = list(self.rules)
        if self.message:
            data["message"] = self.message
        if self.depends_on:
            data["depends_on"] = list(self.depends_on)
        return data

    @classmethod
    def from_json(cls, data: Any) -> "Result":
        """Parse a result dict; a malformed one raises CaseError naming the problem."""
        errors = list(_validator("result-v1").iter_errors(data))
        if errors:
            raise CaseError(f"result: {errors[0].message}")
        memory = decode_memory("result.memory", data["memory"]) if "memory" in data else None
        return cls(ResultStatus(data["status"]), memory=MappingProxyType(memory) if memory is not None else None,
                   rules=tuple(data.get("rules", ())), message=data.get("message", ""),
                   depends_on=tuple(data.get("depends_on", ())))
