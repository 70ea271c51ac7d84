"""Replay files: one failing case with what was expected, what the target did and the verdict.

Saved in `<report dir>/replays/` when a conformance test fails (after Hypothesis has shrunk it), and read by
`ascendc-conformance replay FILE --target ...`.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from ascendc_conformance.format.errors import ConformanceError

REPLAY_FORMAT = 1


class ReplayError(ConformanceError):
    """A replay file cannot be used; the message says why."""


def file_name(test_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", test_id).strip("_")[:150] + ".json"


def save(directory: Path, test_id: str, case: dict, expected: dict, actual: dict | None, verdict: dict,
         target: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name(test_id)
    path.write_text(json.dumps({"replay_format": REPLAY_FORMAT, "test_id": test_id, "target": target,
                                "case": case, "expected": expected, "actual": actual, "verdict": verdict},
                               indent=1, sort_keys=True), encoding="utf-8")
    return path


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
