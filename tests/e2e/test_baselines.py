"""A regressions-only gate (issue 29, item 1): `run --baseline` passes a run whose failures all have causes of the
baseline (verdict known), fails one with a new cause, reports a baseline cause that no longer fails as fixed (and
fails the run on it with --strict-baseline); `report --compare OLD NEW --fail-on-regression` exits 1 on a new cause
or lost coverage. Causes are matched by key, so the runs here draw their cases from different seeds."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.reports.render_json import validate_report

ROOT = Path(__file__).resolve().parents[2]
TRANSPOSE = "python:tests.fixtures.buggy.targets:LoadDataTransposeMissing"     # ifTranspose ignored (read as 0)
REPEAT_TIMES = "python:tests.fixtures.buggy.targets:LoadDataRepeatTimesIn7Bits"  # repeatTimes kept in 7 bits
SELECTION = ["--product", "atlas-a2", "--api", "LoadData2D", "--profile", "quick", "--shrink-seconds", "0"]


def run(target: str, report: Path, keyword: str, seed: int, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", target, *SELECTION,
                           "-k", keyword, "--seed", str(seed), "--report", str(report), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def compare(old: Path, new: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", "report", "--compare", str(old), str(new),
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=300)


def recorded(report: Path) -> list[dict]:
    return [r for r in map(json.loads, (report / "results.jsonl").read_text().splitlines()) if r["record"] == "test"]


def verdict_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if "VERDICT:" in line)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the transpose bug's legal tests: its one cause is the baseline's."""
    report = tmp_path_factory.mktemp("baseline")
    done = run(TRANSPOSE, report, "test_legal", 3)
    assert done.returncode == 1 and any(t["verdict"] == "fail" for t in recorded(report)), done.stdout[-3000:]
    return report


def test_known_causes_pass_the_run_and_every_report_says_so(baseline: Path, tmp_path: Path) -> None:
    """The same bug on cases of another seed: its failing tests are `known`, the run exits 0, the verdict line
    says no new failure, pytest's summary counts the known tests as the verdict line does, and report.json,
    report.md and junit.xml show the baseline; the certification still says the target does not conform.
    Compared with the baseline, nothing regressed."""
    done = run(TRANSPOSE, tmp_path, "test_legal", 4, "--baseline", str(baseline))
    assert done.returncode == 0, done.stdout[-3000:]
    tests = recorded(tmp_path)
    known = [t for t in tests if t["verdict"] == "known"]
    assert known and {t["verdict"] for t in tests} <= {"known", "pass"}
    assert all(entry["known"] and entry["verdict"] == "fail" for t in known for entry in t["causes"])
    line = verdict_line(done.stdout)
    # its legal tests alone (-k): the verdict counts the bits and crossings they left untested before the qualifier
    assert re.search(r"DOES NOT CONFORM \([^)]* untested\), NO NEW FAILURE — 0 failing test\(s\)", line), line
    assert f"{len(known)} known" in line, line
    assert f"{len(known)} known in" in done.stdout   # pytest's own summary line
    assert "1 known cause(s), 0 new, 0 fixed" in done.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    validate_report(report)
    assert report["certification"]["outcome"] == "does not conform" and report["certification"]["known_tests"] == len(known)
    assert [c["label"] for c in report["baseline"]["known"]] == ["LoadData2D / ifTranspose ignored (read as 0)"]
    assert report["baseline"]["new"] == report["baseline"]["fixed"] == []
    assert "## Baseline" in (tmp_path / "report.md").read_text()
    assert 'message="known (every cause of its failure is in the baseline)' in (tmp_path / "junit.xml").read_text()
    assert compare(baseline, tmp_path, "--fail-on-regression").returncode == 0


def test_a_new_cause_fails_the_run_and_the_baseline_cause_it_lost_is_fixed(baseline: Path, tmp_path: Path) -> None:
    """Another bug of the same API: its cause is new (the run fails), and the transpose cause, whose tests ran
    without it, is reported fixed; `report --compare` exits 1 on it with --fail-on-regression (0 without), and on
    the coverage the baseline run lost against this wider one."""
    done = run(REPEAT_TIMES, tmp_path, "test_legal or (test_boundary and repeatTimes-max)", 4,
               "--baseline", str(baseline))
    assert done.returncode == 1, done.stdout[-3000:]
    assert "0 known cause(s), 1 new, 1 fixed" in done.stdout, done.stdout[-3000:]
    assert not any(t["verdict"] == "known" for t in recorded(tmp_path))
    report = json.loads((tmp_path / "report.json").read_text())
    validate_report(report)
    assert [c["label"] for c in report["baseline"]["fixed"]] == ["LoadData2D / ifTranspose ignored (read as 0)"]
    assert [c["label"] for c in report["baseline"]["new"]] == ["LoadData2D / repeatTimes kept in 7 bits"]

    gate = compare(baseline, tmp_path, "--fail-on-regression")
    assert gate.returncode == 1 and "New causes of failure (1)" in gate.stdout, gate.stdout[-3000:]
    assert "repeatTimes kept in 7 bits" in gate.stdout and "Regression: yes" in gate.stdout
    assert compare(baseline, tmp_path).returncode == 0
    narrower = compare(tmp_path, baseline, "--fail-on-regression", "--json")
    changes = json.loads(narrower.stdout)
    assert narrower.returncode == 1 and changes["regression"] and changes["new_causes"] != []   # the transpose cause
    assert {t for t in changes["lost_tests"]} == {t["test_id"] for t in recorded(tmp_path)
                                                   if t["test_id"].startswith("test_boundary[") and t["cases"]}


def test_strict_baseline_fails_a_run_whose_baseline_holds_a_fixed_cause(baseline: Path, tmp_path: Path) -> None:
    """The reference fixes the baseline's cause: reported as fixed; with --strict-baseline the run exits 1 so that
    the baseline gets refreshed, the verdict line says why (and the certification is not "incomplete")."""
    done = run("reference", tmp_path / "lenient", "test_legal", 5, "--baseline", str(baseline))
    assert done.returncode == 0 and "0 known cause(s), 0 new, 1 fixed" in done.stdout, done.stdout[-3000:]
    done = run("reference", tmp_path / "strict", "test_legal", 5, "--baseline", str(baseline), "--strict-baseline")
    assert done.returncode == 1, done.stdout[-3000:]
    # its legal tests alone (-k) leave reachable bits untested: it conforms on what was run, each named
    assert re.search(r"VERDICT: CONFORMS ON WHAT WAS RUN \([^)]* untested\), BASELINE STALE — 0 failing test\(s\)",
                     done.stdout), done.stdout[-3000:]
    assert "1 fixed (--strict-baseline: refresh the baseline)" in done.stdout
    report = json.loads((tmp_path / "strict" / "report.json").read_text())
    assert report["baseline"]["stale"] and report["certification"]["outcome"] == "conforms on what was run"
    assert report["run"]["exit_status"] == 1
