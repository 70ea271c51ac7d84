"""Replay files: one failing case with what was expected, what the target did and the verdict.

Saved in `<report dir>/replays/` when a conformance test fails (after Hypothesis has shrunk it), and read by
`ascendc-conformance replay FILE --target ...`: strict bounded JSON (format.bounded), checked against
schema/replay-v1.schema.json and its case against case-v1.
"""
from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from ascendc_conformance.format import bounded, schemas
from ascendc_conformance.format.bounded import InputError, clip
from ascendc_conformance.format.case import Case, Region, Result
from ascendc_conformance.format.defaults import REPLAY_TEXT_CHARS, TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import CaseError, ConformanceError
from ascendc_conformance.format.files import write_atomic
from ascendc_conformance.format.fill import LARGE_FILL_BYTES, Fill, made_by, read_recipe, region_bytes
from ascendc_conformance.format.outcome import Outcome

REPLAY_FORMAT = 1
RESULT_KEYS = ("status", "rules", "message", "depends_on", "memory")
"""The keys of a result v1: what a replay keeps of a target's answer."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest replay file read: one holds a case and four images of its memory, a few MiB each at most."""


class ReplayError(ConformanceError):
    """A replay file cannot be used; the message says why."""


@dataclass(frozen=True)
class Demonstrated:
    """The hypothesis (a bug class, reference.hypotheses) a replay's case demonstrates: the one that names its
    cause, and explains what the target did with this case."""

    id: str       # "DataCopy.blockLen:kept-in-8-bits"
    title: str    # "blockLen kept in 8 bits"
    words: str    # with the case's values: "blockLen kept in 8 bits (256 read as 0)"

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "words": self.words}


@dataclass(frozen=True)
class Replay:
    """A saved failing case, as `replay` re-runs it (conformance/format/schema/replay-v1.schema.json)."""

    case: Case
    test_id: str | None = None
    outcome: Outcome | None = None    # the verdict the saving run gave
    reading: str | None = None        # the reading of the disputed points it judged under (its label)
    hypothesis: Demonstrated | None = None   # the bug class it demonstrates (None: its cause had none)


def file_name(test_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", test_id).strip("_")[:150] + ".json"


def save(directory: Path, test_id: str, case: Case, expected: Result, actual: Result | None,
         verdict: Mapping[str, Any], target: str, *, hypothesis: Demonstrated | None = None) -> Path:
    """Write the replay file of a failing test: the case, the expected result, the target's answer (`kept`:
    its own text once, up to REPLAY_TEXT_CHARS), the verdict (without a second copy of either result) and the
    hypothesis the case demonstrates, if its cause has one. A region of a pack's case, and a large GM region (tens
    of MiB) a recipe made, is saved as its fill recipe in the case, and a large one as its size and SHA-256 in the
    results (`compact`): the file stays small, and `replay` makes the bytes again (and sends the recipe to a target
    announcing region-fill, as the run did: a wrong fill of it shows again). Written atomically (format.files): a
    full disk leaves the previous file or none, never half of one; its OSError is the caller's."""
    directory.mkdir(parents=True, exist_ok=True)
    data = {"replay_format": REPLAY_FORMAT, "test_id": test_id, "target": target, "case": _case_json(case),
            "expected": compact(expected), "actual": kept(compact(actual)), "verdict": dict(verdict)}
    if hypothesis is not None:
        data["hypothesis"] = hypothesis.to_json()
    text = json.dumps(data, indent=1, sort_keys=True)
    return write_atomic(directory / file_name(test_id), text.encode("utf-8"))


def _case_json(case: Case) -> dict[str, Any]:
    """A case as a replay keeps it: a region known by its recipe (a pack's), or large and made by one, as it."""
    recipes = {name: fill for name, region in case.memory.items() if (fill := _recipe_of(region)) is not None}
    data = replace(case, memory=MappingProxyType({name: region for name, region in case.memory.items()
                                                  if name not in recipes})).to_json()
    data["memory"] = {name: ({"address": region.address, "fill": recipes[name].to_json()} if name in recipes
                             else data["memory"][name]) for name, region in case.memory.items()}
    return data


def _recipe_of(region: Region) -> Fill | None:
    """The recipe a replay gives a region by: the one it carries (a pack's case, whatever its size), or, for a
    large one, the one that last made its bytes."""
    return region.fill if region.fill is not None else made_by(region.data)


def compact(result: Result | None) -> dict[str, Any] | None:
    """A result as a replay keeps it: a region image of LARGE_FILL_BYTES or more as its size and SHA-256."""
    if result is None or result.memory is None:
        return None if result is None else result.to_json()
    large = {name: region for name, region in result.memory.items() if len(region.data) >= LARGE_FILL_BYTES}
    data = replace(result, memory=MappingProxyType({name: region for name, region in result.memory.items()
                                                    if name not in large})).to_json()
    data["memory"] = {name: ({"address": region.address, "size": len(region.data),
                              "sha256": hashlib.sha256(region.data).hexdigest()} if name in large
                             else data["memory"][name]) for name, region in result.memory.items()}
    return data


def kept(actual: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a replay keeps of a target's answer: the keys of a result v1, its message up to REPLAY_TEXT_CHARS,
    its rule ids each up to TARGET_TEXT_CHARS and together up to REPLAY_TEXT_CHARS."""
    if actual is None:
        return None
    result = {key: actual[key] for key in RESULT_KEYS if key in actual}
    if isinstance(result.get("message"), str):
        result["message"] = clip(result["message"], REPLAY_TEXT_CHARS)
    for key in ("rules", "depends_on"):
        if isinstance(result.get(key), list):
            result[key] = _names_kept(result[key])
    return result


def _names_kept(names: list[str]) -> list[str]:
    kept_names: list[str] = []
    size = 0
    for name in names:
        name = clip(name, TARGET_TEXT_CHARS)
        size += len(name)
        if size > REPLAY_TEXT_CHARS:
            return kept_names + [f"… ({len(names) - len(kept_names)} more)"]
        kept_names.append(name)
    return kept_names


def command(path: Path, target: str) -> str:
    return f"ascendc-conformance replay {shlex.quote(str(path))} --target {shlex.quote(target)}"


def load(path: Path) -> Replay:
    """The replay file at `path`; ReplayError, one line naming the file, the field and what it accepts, for a
    file that is unreadable, larger than MAX_FILE_BYTES, not strict JSON, or not a replay file of a valid case."""
    try:
        data = bounded.loads(bounded.read_file(path, MAX_FILE_BYTES), str(path), max_bytes=MAX_FILE_BYTES)
    except OSError as error:
        raise ReplayError(f"{path}: cannot read ({error.strerror})") from None
    except InputError as error:
        raise ReplayError(str(error)) from None
    if not isinstance(data, dict) or "case" not in data:
        raise ReplayError(f"{path}: not a replay file (expected an object with 'case'); "
                          "a bare case file also works with `ascendc-conformance expect`")
    problem = schemas.problem(data, "replay-v1")
    if problem is not None:
        raise ReplayError(f"{path}: {problem}")
    try:
        case = _case_of(data["case"])
        verdict = data.get("verdict") or {}
        outcome = Outcome.parse(verdict["outcome"]) if "outcome" in verdict else None
    except CaseError as error:
        raise ReplayError(f"{path}: {error}") from None
    except _RecipeError as error:
        raise ReplayError(f"{path}: {error}") from None
    except ValueError as error:
        raise ReplayError(f"{path}: 'verdict.outcome': {error}") from None
    shown = data.get("hypothesis")
    hypothesis = Demonstrated(id=shown["id"], title=shown["title"], words=shown["words"]) if shown else None
    return Replay(case=case, test_id=data.get("test_id"), outcome=outcome, reading=verdict.get("reading"),
                  hypothesis=hypothesis)


class _RecipeError(ValueError):
    """A region of a replay's case given by a fill recipe that is not one."""


def _case_of(data: Any) -> Case:
    """The replay's case, its regions given by fill recipes made into their bytes, each keeping its recipe (sent
    as it to a target announcing region-fill); CaseError as Case.from_json raises it, _RecipeError for a recipe
    that is not one."""
    memory = data.get("memory") if isinstance(data, dict) else None
    if not isinstance(memory, dict):
        return Case.from_json(data)
    recipes = {name: region for name, region in memory.items() if isinstance(region, dict) and "fill" in region}
    made: dict[str, Region] = {}
    for name, region in recipes.items():
        address = region.get("address")
        if not isinstance(address, int) or isinstance(address, bool) or address < 0:
            raise _RecipeError(f"case.memory.{name}.address is {address!r}; expected a non-negative integer")
        try:
            where = f"case.memory.{name}"
            made[name] = Region(address, region_bytes(where, address, region["fill"]),
                                fill=read_recipe(where, region["fill"]))
        except ValueError as error:
            raise _RecipeError(str(error)) from None
    listed = {name: ({"address": made[name].address, "data": ""} if name in made else region)
              for name, region in memory.items()}
    case = Case.from_json({**data, "memory": listed})
    return replace(case, memory=MappingProxyType({**case.memory, **made}))
