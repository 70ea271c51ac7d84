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
from typing import Iterable

import yaml

from ascendc_conformance.format.errors import ConformanceError


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

    def to_json(self) -> dict:
        return {"rule": self.rule, "test": self.test, "reason": self.reason, "link": self.link}


def load(path: Path, known_rules: Iterable[str]) -> tuple[Waiver, ...]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise WaiverError(f"{path}: cannot read the waiver file ({error.strerror})") from None
    except yaml.YAMLError as error:
        raise WaiverError(f"{path}: not valid YAML ({error})") from None
    if data is None:
        return ()
    if not isinstance(data, list):
        raise WaiverError(f"{path}: expected a list of waivers (- rule: ..., reason: ..., link: ...)")
    known = set(known_rules)
    waivers = []
    for index, entry in enumerate(data, start=1):
        where = f"{path}: waiver {index}"
        if not isinstance(entry, dict):
            raise WaiverError(f"{where}: expected a mapping with rule or test, reason and link")
        unknown = set(entry) - {"rule", "test", "reason", "link"}
        if unknown:
            raise WaiverError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: rule, test, reason, link")
        if ("rule" in entry) == ("test" in entry):
            raise WaiverError(f"{where}: give exactly one of 'rule' or 'test'")
        for key in ("reason", "link"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise WaiverError(f"{where}: '{key}' is required (a non-empty string)")
        if "rule" in entry and entry["rule"] not in known:
            raise WaiverError(f"{where}: no rule {entry['rule']!r} in the spec (see `ascendc-conformance spec rules`)")
        waivers.append(Waiver(entry["reason"], entry["link"], entry.get("rule"), entry.get("test")))
    return tuple(waivers)
