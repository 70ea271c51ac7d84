"""The edges of issue 29 (item 6) a run shows: a hello naming its products by the aliases the command line takes;
junit.xml giving each test its own duration; a run's summary with nothing deselected that the user did not
deselect. (A bad -k, a python: target named by a file path and a hello with "products" as a string are usage
errors: tests/e2e/test_usage_errors.py.)"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_hello_may_name_products_by_alias_and_a_run_reports_real_durations(tmp_path: Path) -> None:
    """NamesProductsByAlias says "products": ["910B"]: its atlas-a2 tests run (none is not-supported), pytest's
    summary deselects nothing (before, every run ended with "1 deselected": the limit test of a target that
    declares no limits), and junit.xml gives each test the duration results.jsonl holds for it."""
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           "python:tests.fixtures.targets.py_fakes:NamesProductsByAlias", "--product", "atlas-a2",
                           "--api", "LoadData2D", "--profile", "quick", "--seed", "2", "--report", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    summary = next(line for line in done.stdout.splitlines() if re.search(r"\d+ passed.* in [\d.]+s", line))
    assert "deselected" not in summary and "not supported" not in summary, summary
    tests = {r["test_id"]: r for r in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
             if r["record"] == "test"}
    assert {t["verdict"] for t in tests.values()} <= {"pass", "skipped"}
    cases = ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    times = {case.get("name"): float(case.get("time") or 0) for case in cases}
    assert times.keys() == tests.keys()
    assert all(abs(times[test_id] - test["duration_s"]) < 0.001 for test_id, test in tests.items())
    passed = [test_id for test_id, test in tests.items() if test["verdict"] == "pass"]
    assert sum(times[test_id] > 0 for test_id in passed) > len(passed) / 2, sorted(times.values())[:20]
