"""Checking what the suite reads against its packaged JSON schemas, each problem one line naming the field.

The schemas of conformance/format/schema/ (case, result, replay file, results.jsonl records) and the spec's
say what each field accepts; `problem` returns the first way an instance breaks one, as a sentence a user can
act on: the field's dotted path, what it accepts and what it holds (cut to a few dozen characters).
`follows_schema` lets fastjsonschema (the `fast` extra) say first that an instance is valid.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import jsonschema

from ascendc_conformance.format.bounded import SHOWN_CHARS, clip, shown

fastjsonschema: ModuleType | None
try:
    import fastjsonschema
except ImportError:   # jsonschema alone checks every instance: the same answers, slower
    fastjsonschema = None

MESSAGE_CHARS = 200   # how much of a schema library's own message is kept
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"


@lru_cache(maxsize=None)
def schema(name: str) -> dict[str, Any]:
    """A packaged schema by name: 'case-v1', 'result-v1', 'pack-v1', ..."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def follows_schema(instance: Any, name: str, definition: str | None = None) -> bool:
    """Whether fastjsonschema (the `fast` extra) finds that `instance` follows the packaged schema `name` (or its
    `$defs` entry `definition`). True spares a caller jsonschema, which finds the same of such an instance at
    about 20 times the cost (a served target checks every case it is sent); False, or no fastjsonschema, means:
    ask jsonschema, whose errors are the suite's words (tests/unit/test_schema_checks.py holds the two to each
    other)."""
    check = _fast_check(name, definition)
    if check is None or fastjsonschema is None:
        return False
    try:
        check(instance)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


@lru_cache(maxsize=None)
def _fast_check(name: str, definition: str | None) -> Callable[[Any], Any] | None:
    if fastjsonschema is None:
        return None
    document = schema(name)
    definitions = document.get("$defs", {})
    return fastjsonschema.compile({**(definitions[definition] if definition is not None else document),
                                   "$defs": definitions})



DEFS = "#/$defs/"


@lru_cache(maxsize=None)
def _validator(name: str, definition: str | None) -> jsonschema.Draft202012Validator:
    """The validator of a schema (or of one of its `$defs`), its references to `$defs` written out in place:
    jsonschema resolves a reference on every use, which made checking a results.jsonl record (50 references)
    2.4 times slower. The same checks, the same errors."""
    document = schema(name)
    definitions = document.get("$defs", {})
    root = definitions[definition] if definition is not None else document
    return jsonschema.Draft202012Validator({**_inlined(root, definitions, ()), "$defs": definitions})


def _inlined(node: Any, definitions: Mapping[str, Any], expanding: tuple[str, ...]) -> Any:
    """`node` with every plain reference to one of `definitions` replaced by the definition (a recursive one is
    left as a reference)."""
    if isinstance(node, list):
        return [_inlined(item, definitions, expanding) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if len(node) == 1 and isinstance(reference, str) and reference.startswith(DEFS):
        name = reference[len(DEFS):]
        if name in definitions and name not in expanding:
            return _inlined(definitions[name], definitions, (*expanding, name))
        return node
    return {key: value if key == "$defs" else _inlined(value, definitions, expanding) for key, value in node.items()}


def problem(instance: Any, name: str, definition: str | None = None) -> str | None:
    """The first way `instance` breaks the packaged schema `name` (or its `$defs` entry `definition`), as
    `'dotted.path': what is accepted, got what` (no path for the whole instance); None if it follows it."""
    if follows_schema(instance, name, definition):
        return None
    error = next(iter(sorted(_validator(name, definition).iter_errors(instance),
                             key=lambda e: list(map(str, e.absolute_path)))), None)
    if error is None:
        return None
    error = unwrap(error)
    path = ".".join(map(str, error.absolute_path))
    return f"'{path}': {describe(error)}" if path else describe(error)


def describe(error: jsonschema.ValidationError) -> str:
    """A jsonschema error as a sentence that says what was expected."""
    validator = error.validator
    if validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {})) if isinstance(error.schema, Mapping) else []
        extra = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        hint = f"; allowed keys: {', '.join(allowed)}" if allowed else ""
        return f"unknown key(s) {', '.join(repr(k) for k in extra)}{hint}"
    if validator == "required":
        return f"{error.message}; add it"
    if validator == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"expected {' or '.join(map(str, types))}, got {shown(error.instance)}"
    if validator in ("enum", "const"):
        accepted: Any = error.validator_value if validator == "enum" else [error.validator_value]
        return f"{clip(repr(error.instance), SHOWN_CHARS)} is not one of: {', '.join(map(str, accepted))}"
    return clip(error.message, MESSAGE_CHARS)


def unwrap(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For oneOf/anyOf failures the most specific sub-error."""
    if error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None and (list(best.absolute_path) != list(error.absolute_path) or best.validator != "type"):
            return best
    return error
