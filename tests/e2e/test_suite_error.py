"""The suite's own error is never a target's verdict (issue 25): a test the suite cannot draw (Unsatisfiable) ends
the run with exit 3 and one line naming the test, the test is recorded as the suite's error (skip reason
suite-error, never `error`), and every other test keeps its result."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "fixtures" / "suite" / "unsatisfiable_run.py"
RULE = "LoadData2D-repeatTimes-max"


def test_an_unsatisfiable_test_is_the_suites_error_exit_3(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BROKEN), RULE, "run", "--target", "reference", "--product", "atlas-a2",
                           "--api", "LoadData2D", "--profile", "quick", "--seed", "7", "--report", str(tmp_path),
                           "-k", "repeatTimes or test_legal"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stdout[-3000:]
    suite_lines = [line for line in done.stdout.splitlines() if "SUITE ERROR" in line]
    assert len(suite_lines) == 1 and "(exit 3)" in suite_lines[0] and f"illegal:{RULE}" in suite_lines[0]
    assert "Unsatisfiable" in suite_lines[0] and "not the target's" in suite_lines[0]
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    tests = {r["test_id"]: r for r in records if r["record"] == "test"}
    broken = {test_id for test_id, t in tests.items() if t["skip"] == "suite-error"}
    assert broken and all(RULE in test_id for test_id in broken)
    assert all(tests[test_id]["verdict"] == "skipped" for test_id in broken)   # judged nothing: no verdict
    assert not any(t["verdict"] == "error" for t in tests.values())
    assert all(t["verdict"] == "pass" for test_id, t in tests.items() if test_id.startswith("test_legal["))
    assert next(r for r in records if r["record"] == "end")["exit_status"] == 3
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["certification"]["outcome"] == "incomplete"
    assert "the suite could not finish" in report["certification"]["summary"]
