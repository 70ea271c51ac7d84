"""I-JSON by default (issue 29, item 4): no integer beyond +-(2**53 - 1) reaches a target unless its hello announces
the int64 case extension, over a whole `ci` run of an API (every integer of every case it received: addresses,
region addresses, parameters); one that announces it is sent far GM addresses above 2**53. The certification
statement names what a target without it is not tested on."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

from ascendc_conformance.format.case import IJSON_MAX

ROOT = Path(__file__).resolve().parents[2]


def integers(value: Any) -> Iterator[int]:
    """Every integer of a JSON value (booleans are not integers)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from integers(item)
    elif isinstance(value, list):
        for item in value:
            yield from integers(item)


def received(tmp_path: Path, target: str, *words: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """A run against a Recording fake, and every case it received (as the JSON it was given)."""
    cases = tmp_path / "cases.jsonl"
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           f"python:tests.fixtures.targets.py_fakes:{target}", "--product", "atlas-a2", "--api",
                           "LoadData2D", "--seed", "3", "--report", str(tmp_path / "out"), *words], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "ASCENDC_RECORD_CASES": str(cases)})
    assert done.returncode == 0, done.stdout[-3000:]
    return done, [json.loads(line) for line in cases.read_text().splitlines()]


def test_a_target_without_int64_receives_no_integer_beyond_ijson(tmp_path: Path) -> None:
    done, cases = received(tmp_path, "Recording", "--profile", "ci")
    assert len(cases) > 1000 and any(case["src"]["position"] == "GM" for case in cases)
    largest = max(abs(n) for case in cases for n in integers(case))
    assert 2**40 < largest <= IJSON_MAX, largest   # far addresses are drawn, below 2**53
    statement = json.loads((tmp_path / "out" / "report.json").read_text())["certification"]
    assert not statement["exact_int64"] and "Untested: GM address bits 53-63" in statement["text"]


def test_a_target_announcing_int64_is_sent_addresses_beyond_it(tmp_path: Path) -> None:
    _, cases = received(tmp_path, "RecordingInt64", "--profile", "quick", "-k", "test_legal and GM")
    beyond = [case for case in cases if max(abs(n) for n in integers(case)) > IJSON_MAX]
    assert beyond and all("int64" in case["extensions"] for case in beyond)
    statement = json.loads((tmp_path / "out" / "report.json").read_text())["certification"]
    assert statement["exact_int64"] and "Untested: GM address bits" not in statement["text"]
