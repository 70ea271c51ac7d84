"""Waivers: known failures a user accepts for now, each with a reason and a link.

A waiver file is YAML: a list of entries, each naming either a `rule` id or a `test` id (the test's id as
shown by pytest, e.g. `test_legal[atlas-a2-DataCopy-GM->VECIN-half]`), plus `reason` and `link`:

    - rule: DataCopy-dstGap-range
      reason: our simulator clamps dstGap; fix planned
      link: https://tracker.example/123

A failing verdict that matches a waiver becomes `waived`; waivers that match nothing are reported.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Iterable

from ascendc_conformance.format import bounded_yaml
from ascendc_conformance.format.bounded import SHOWN_CHARS, InputError, clip, shown
from ascendc_conformance.format.errors import ConformanceError

FIELDS = {"rule": "a rule id of the spec (text)", "test": "a test id as pytest shows it (text)",
          "reason": "a text saying why the failure is accepted for now", "link": "a text saying where its fix is tracked"}
"""The keys of a waiver, each with what it accepts."""


class WaiverError(ConformanceError):
    """The waiver file cannot be used; the message names the file, entry and fix."""


@dataclass(frozen=True)
class Waiver:
    reason: str
    link: str
    rule: str | None = None
    test: str | None = None

    def matches(self, test_id: str, rules: Iterable[str]) -> bool:
        return (self.test is not None and self.test == test_id) or (self.rule is not None and self.rule in set(rules))

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "test": self.test, "reason": self.reason, "link": self.link}


def load(path: Path, known_rules: Collection[str]) -> tuple[Waiver, ...]:
    """The waivers of a file (none for an empty one); WaiverError, one line naming the file, the waiver (its
    number and line) and the field, for anything else than a list of waivers of known rules or test ids."""
    try:
        document = bounded_yaml.parse_file(path, str(path))
    except OSError as error:
        raise WaiverError(f"{path}: cannot read the waiver file ({error.strerror})") from None
    except InputError as error:
        raise WaiverError(str(error)) from None
    data = document.data
    if data is None:
        return ()
    if not isinstance(data, list):
        raise WaiverError(f"{path}: expected a list of waivers (- rule: ..., reason: ..., link: ...), got "
                          f"{shown(data)}")
    if document.duplicate_keys:
        duplicate = document.duplicate_keys[0]
        raise WaiverError(f"{_where(path, document, int(duplicate.path[0]))}: '{duplicate.path[-1]}' is given twice "
                          f"(lines {duplicate.first_line} and {duplicate.line}); keep one")
    return tuple(_waiver(entry, _where(path, document, index), known_rules) for index, entry in enumerate(data))


def _waiver(entry: Any, where: str, known_rules: Collection[str]) -> Waiver:
    if not isinstance(entry, dict):
        raise WaiverError(f"{where}: expected a mapping with rule or test, reason and link, got {shown(entry)}")
    unknown = set(entry) - set(FIELDS)
    if unknown:
        raise WaiverError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(FIELDS)}")
    if ("rule" in entry) == ("test" in entry):
        raise WaiverError(f"{where}: give exactly one of 'rule' (a rule id) or 'test' (a test id)")
    for key, what in FIELDS.items():
        if key in entry and (not isinstance(entry[key], str) or not entry[key].strip()):
            raise WaiverError(f"{where}: '{key}' must be {what}, got {shown(entry[key])}")
    for key in ("reason", "link"):
        if key not in entry:
            raise WaiverError(f"{where}: '{key}' is required: {FIELDS[key]}")
    if "rule" in entry and entry["rule"] not in known_rules:
        raise WaiverError(f"{where}: 'rule': no rule {clip(entry['rule'], SHOWN_CHARS)!r} in the spec (see "
                          "`ascendc-conformance spec rules`)")
    return Waiver(entry["reason"], entry["link"], entry.get("rule"), entry.get("test"))


def _where(path: Path, document: bounded_yaml.Document, index: int) -> str:
    """`file:line: waiver N` of the index-th waiver."""
    return f"{path}:{document.line((index,))}: waiver {index + 1}"

