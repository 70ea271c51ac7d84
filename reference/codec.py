"""The case and result dicts of `reference.expect`, read and written without repeated work.

`parse_case` gives the same `Case` as `Case.from_json`, or raises the same CaseError: a dict that plainly
satisfies the published case-v1 schema (checked here key by key, in microseconds) is built directly; anything
else — a type, key or value the quick check does not plainly accept — goes through `Case.from_json`, whose
full JSON-schema validation finds and words the problem. The quick check is only trusted for the schema it
was written against (its digest is compared at import); a changed schema turns it off.

`result_json` gives the same dict as `Result.to_json`, but a region the call left untouched keeps the base64
text it came with (when that text is the canonical encoding of its bytes, which is checked on its last
quantum), so only the written region is encoded again.
"""
from __future__ import annotations

import base64
import hashlib
import json
from types import MappingProxyType
from typing import Any, Mapping

from ascendc_conformance.format.case import EXTENSIONS, Case, Operand, Region, Result, decode_memory, schema

# sha256 of json.dumps(schema("case-v1"), sort_keys=True): the schema the quick check mirrors.
SCHEMA_DIGEST = "970036d933533b5de8df9152113eec976cf4738a036d3f3e3e531b187ff2e9ce"


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


_SCHEMA = schema("case-v1")
QUICK = _digest(_SCHEMA) == SCHEMA_DIGEST
_KEYS = frozenset(_SCHEMA["properties"])
_REQUIRED = frozenset(_SCHEMA["required"])
_OPERAND_KEYS = frozenset(_SCHEMA["$defs"]["operand"]["properties"])
_REGION_KEYS = frozenset(_SCHEMA["$defs"]["region"]["properties"])


def _natural(value: Any) -> bool:
    return type(value) is int and value >= 0


def _plainly_valid(data: Any) -> bool:
    """Whether the case-v1 schema certainly accepts `data` (False also for what it might accept)."""
    if type(data) is not dict or not _REQUIRED <= data.keys() <= _KEYS:
        return False
    if type(data["case_format"]) is not int or data["case_format"] != 1:
        return False
    if type(data["api"]) is not str or not data["api"]:   # a name the spec does not know: reference.call
        return False
    if type(data["product"]) is not str or not data["product"]:
        return False
    for name in ("src", "dst"):
        operand = data[name]
        if (type(operand) is not dict or operand.keys() != _OPERAND_KEYS or type(operand["position"]) is not str
                or type(operand["dtype"]) is not str or not _natural(operand["address"])):
            return False
    if type(data["params"]) is not dict:
        return False
    memory = data["memory"]
    if type(memory) is not dict or not memory:
        return False
    for name, region in memory.items():
        if (type(name) is not str or type(region) is not dict or region.keys() != _REGION_KEYS
                or not _natural(region["address"]) or type(region["data"]) is not str):
            return False
    if "id" in data and type(data["id"]) is not str:
        return False
    if "tags" in data and (type(data["tags"]) is not list or any(type(tag) is not str for tag in data["tags"])):
        return False
    if "extensions" in data and (type(data["extensions"]) is not list
                                 or any(type(name) is not str or name not in EXTENSIONS for name in data["extensions"])
                                 or len(set(data["extensions"])) != len(data["extensions"])):
        return False
    return True


def parse_case(data: Any) -> Case:
    """`Case.from_json(data)`, skipping the JSON-schema pass when the dict plainly satisfies the schema."""
    if not (QUICK and _plainly_valid(data)):
        return Case.from_json(data)
    return Case(api=data["api"], product=data["product"],
                src=Operand(**data["src"]), dst=Operand(**data["dst"]),
                params=MappingProxyType(dict(data["params"])),
                memory=MappingProxyType(decode_memory("case.memory", data["memory"])),
                id=data.get("id"), tags=tuple(data.get("tags", ())), extensions=tuple(data.get("extensions", ())))


def _canonical(text: str, raw: bytes) -> bool:
    """Whether `text` is exactly base64.b64encode(raw), given that it strictly decodes to `raw`.

    Strict decoding accepts only alphabet characters and correct padding, so every full quantum maps one to
    one; the only freedom left is the unused low bits of a padded last quantum."""
    if len(text) != 4 * ((len(raw) + 2) // 3):
        return False
    if not raw:
        return True
    last = 3 * ((len(raw) - 1) // 3)
    return base64.b64encode(raw[last:]).decode("ascii") == text[-4:]


def result_json(result: Result, case: Case, data: Mapping[str, Any] | None) -> dict:
    """`result.to_json()`, reusing the case's base64 text for regions the call did not change."""
    if result.memory is None or data is None:
        return result.to_json()
    json_memory = {}
    for name, region in result.memory.items():
        given = case.memory.get(name)
        if region is given:
            text = data["memory"][name]["data"]
            if _canonical(text, region.data):
                json_memory[name] = {"address": region.address, "data": text}
                continue
        json_memory[name] = region.to_json()
    return result.to_json(json_memory)


__all__ = ["parse_case", "result_json", "Region"]
