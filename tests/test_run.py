"""End to end: `ascendc-conformance run` against the reference passes, against a buggy exec target fails
with a diff and a replay file, and `replay` reproduces the failure; the reports are written."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SELECTION = ["--product", "atlas-a2", "--api", "LoadData2D", "--profile", "quick", "--seed", "1"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_reference_conforms_and_reports_are_written(tmp_path):
    done = _run("run", "--target", "reference", *SELECTION, "--report", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:]
    for name in ("results.jsonl", "report.json", "junit.xml", "report.md", "report.html"):
        assert (tmp_path / name).is_file(), name
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert records[0]["record"] == "run" and records[-1]["record"] == "end"
    assert {r["verdict"] for r in records if r["record"] == "test"} <= {"pass", "disputed", "skipped"}


def test_buggy_exec_target_fails_with_diff_and_replay(tmp_path):
    target = f"exec:{sys.executable} tests/buggy/exec_buggy.py LoadDataTransposeMissing"
    done = _run("run", "--target", target, *SELECTION, "--report", str(tmp_path), "-x")
    assert done.returncode == 1
    assert "permuted" in done.stdout and "replay: ascendc-conformance replay" in done.stdout
    replays = sorted((tmp_path / "replays").glob("*.json"))
    assert replays
    again = _run("replay", str(replays[0]), "--target", target)
    assert again.returncode == 1 and '"outcome": "fail"' in again.stdout
    assert _run("replay", str(replays[0]), "--target", "reference").returncode == 0
