"""Replay files: one failing case with what was expected, what the target did and the verdict.

Saved in `<report dir>/replays/` when a conformance test fails (after Hypothesis has shrunk it), and read by
`ascendc-conformance replay FILE --target ...`.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.defaults import REPLAY_TEXT_CHARS, TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import ConformanceError

REPLAY_FORMAT = 1
RESULT_KEYS = ("status", "rules", "message", "depends_on", "memory")
"""The keys of a result v1: what a replay keeps of a target's answer."""


class ReplayError(ConformanceError):
    """A replay file cannot be used; the message says why."""


def file_name(test_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", test_id).strip("_")[:150] + ".json"


def save(directory: Path, test_id: str, case: dict, expected: dict, actual: dict | None, verdict: dict,
         target: str) -> Path:
    """Write the replay file of a failing test: the case, the expected result, the target's answer (`kept`:
    its own text once, up to REPLAY_TEXT_CHARS) and the verdict (without a second copy of either result)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name(test_id)
    verdict = {key: value for key, value in verdict.items() if key not in ("expected", "actual")}
    path.write_text(json.dumps({"replay_format": REPLAY_FORMAT, "test_id": test_id, "target": target,
                                "case": case, "expected": expected, "actual": kept(actual), "verdict": verdict},
                               indent=1, sort_keys=True), encoding="utf-8")
    return path


def kept(actual: dict | None) -> dict | None:
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


def load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReplayError(f"{path}: cannot read ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise ReplayError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(data, dict) or "case" not in data:
        raise ReplayError(f"{path}: not a replay file (expected an object with 'case'); "
                          "a bare case file also works with `ascendc-conformance expect`")
    return data
