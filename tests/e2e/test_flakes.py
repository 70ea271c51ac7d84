"""A target whose answers change is flaky, not failing (issue 29, item 2): before a failure is reported its case is
sent again (format.defaults.RESENDS), in a profile run and a pack run alike; an answer that changes makes the verdict
`flaky`, shown with both answers, failing the run unless --allow-flaky."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from ascendc_conformance.reports.render_json import validate_report

ROOT = Path(__file__).resolve().parents[2]
FLIPS = "python:tests.fixtures.buggy.targets:FlipsOneByte"   # one byte of 3 % of its answers flipped
SELECTION = ["--product", "atlas-a2", "--api", "LoadData2D", "-k", "test_legal"]


def run(*words: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", *words], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def recorded(report: Path) -> list[dict]:
    return [r for r in map(json.loads, (report / "results.jsonl").read_text().splitlines()) if r["record"] == "test"]


def test_a_target_flipping_bytes_is_flaky_not_failing(tmp_path: Path) -> None:
    """A `ci` run of LoadData2D's legal tests: every test that met a flipped byte is flaky (one cause, the API),
    none fails for the bytes, the message shows both answers; the run fails, and with --allow-flaky passes with
    the flaky tests still counted."""
    done = run("run", "--target", FLIPS, *SELECTION, "--profile", "ci", "--seed", "5", "--report", str(tmp_path))
    tests = recorded(tmp_path)
    flaky = [t for t in tests if t["verdict"] == "flaky"]
    assert done.returncode == 1 and flaky, done.stdout[-3000:]
    assert {t["verdict"] for t in tests} == {"flaky", "pass"}, done.stdout[-3000:]
    assert {entry["cause"]["label"] for t in flaky for entry in t["causes"]} == {"LoadData2D / flaky"}
    message = flaky[0]["message"]
    assert "answered this case differently when it was sent again" in message
    assert "first answer: fail: memory differs" in message and "pass: memory matches the reference" in message
    assert f"{len(flaky)} failing test(s), 1 distinct cause(s)" in done.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    validate_report(report)
    assert report["verdicts"]["tests"]["flaky"] == len(flaky) and report["certification"]["outcome"] == "does not conform"

    allowed = run("run", "--target", FLIPS, *SELECTION, "--profile", "ci", "--seed", "5", "--allow-flaky")
    assert allowed.returncode == 0, allowed.stdout[-3000:]
    assert f"VERDICT: CONFORMS — 0 failing test(s)" in allowed.stdout and f"; {len(flaky)} flaky;" in allowed.stdout
    assert f"{len(flaky)} flaky in" in allowed.stdout   # pytest's own summary counts them so too


def test_a_pack_run_sends_a_failing_case_again_as_a_drawn_run_does(tmp_path: Path) -> None:
    """The flips of an exec target run as two processes with several cases in flight each, on the cases of a
    pack: sent again in between (the answers in flight dropped and their cases sent again after), they are
    flaky as in a profile run, and every case of the pack is judged."""
    pack = tmp_path / "pack"
    built = run("pack", "build", "--profile", "quick", "--seed", "2", "--product", "atlas-a2", "--api", "LoadData2D",
                "--out", str(pack))
    assert built.returncode == 0, built.stderr[-3000:]
    target = "exec:" + shlex.join([sys.executable, str(ROOT / "tests/fixtures/buggy/exec_buggy.py"), "FlipsOneByteOften"])
    done = run("run", "--target", target, "--pack", str(pack), "-k", "test_legal", "--target-processes", "2",
               "--report", str(tmp_path / "out"))
    tests = recorded(tmp_path / "out")
    assert done.returncode == 1, done.stdout[-3000:]
    assert {t["verdict"] for t in tests} == {"flaky", "pass"}, done.stdout[-3000:]
    manifest = json.loads((pack / "manifest.json").read_text())
    legal = {entry["id"]: entry["cases"] for entry in manifest["tests"] if entry["id"].startswith("test_legal[")}
    assert {t["test_id"]: t["cases"] for t in tests} == legal
