"""The pytest plugin without traps (issue 29, item 3), in a small project of the user's own (pytest's cache plugin on,
as a user project has it; this project's own pytest settings turn it off): a conformance option without a target
is a usage error; the verdict speaks of the conformance tests only, whatever the user's own tests do; its hints
name the plugin's options; pytest's summary counts the conformance tests as the verdict line does; --lf reruns
the failing conformance tests."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ["--ascendc-product=atlas-a2", "--ascendc-api=LoadData2D", "--ascendc-profile=quick",
             "--ascendc-shrink-seconds=0", "--hypothesis-seed=3"]
OWN_TESTS = "def test_mine_fails():\n    assert 1 == 2\n\n\ndef test_mine_passes():\n    pass\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's project: one failing and one passing test of its own, pytest's default settings."""
    (tmp_path / "test_mine.py").write_text(OWN_TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


def pytest_in(project: Path, *words: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}   # the catalogue's buggy targets
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *words], cwd=project,
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.parametrize("words, phrase", [
    (["--ascendc-profile=quick", "--ascendc-report=out"], "--ascendc-profile, --ascendc-report given without "
                                                          "--ascendc-target, so no conformance test would run"),
    (["--ascendc-target="], "--ascendc-target is empty (an unset environment variable?)"),
    (["--ascendc-target", " ", "--ascendc-api=LoadData2D"], "--ascendc-target is empty"),
], ids=["options-without-target", "empty-target", "blank-target"])
def test_a_conformance_option_without_a_target_is_a_usage_error(project: Path, words: list[str], phrase: str) -> None:
    """Before, the session ran the user's tests and no conformance test, and CI went green."""
    done = pytest_in(project, *words)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    assert phrase in done.stderr and "--ascendc-target" in done.stderr and "Traceback" not in done.stderr
    assert "test_mine" not in done.stdout


def test_the_verdict_counts_the_conformance_tests_only(project: Path) -> None:
    """A failing test of the user's own is pytest's (the session fails): the verdict still says the reference
    conforms, names the other tests apart, gives the plugin's option in its hints, and pytest's summary counts
    the conformance tests as the verdict line does."""
    done = pytest_in(project, "--ascendc-target=reference", *SELECTION, "-k", "test_mine or test_legal or test_illegal")
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-3000:]
    verdict = next(line for line in done.stdout.splitlines() if "VERDICT:" in line)
    assert verdict.startswith("[ascendc] VERDICT: CONFORMS — 0 failing test(s)"), verdict
    assert "no report (--ascendc-report DIR keeps one)" in verdict and " --report " not in done.stdout
    assert "the session's 2 other test(s) are pytest's" in done.stdout
    summary = next(line for line in done.stdout.splitlines() if re.search(r"\d+ passed.* in [\d.]+s", line))
    counted = {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|failed|disputed|not supported)", summary)}
    tallied = {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|disputed|not supported)", verdict)}
    assert counted.pop("failed") == 1 and counted.pop("passed") == tallied.pop("passed") + 1   # the user's two
    assert counted == tallied, (summary, verdict)


def test_last_failed_reruns_the_failing_conformance_tests(project: Path) -> None:
    """pytest --lf after a run where conformance tests and one of the user's failed: both are run again (before,
    the suite's test module was skipped as holding no last failure)."""
    target = "--ascendc-target=python:tests.fixtures.buggy.targets:LoadDataTransposeMissing"
    first = pytest_in(project, target, *SELECTION, "-k", "test_mine or (test_legal and A2)")
    failed = set(re.findall(r"^FAILED (test_conformance\.py::\S+)", first.stdout, re.MULTILINE))
    assert first.returncode == 1 and failed, first.stdout[-3000:]
    again = pytest_in(project, target, *SELECTION, "--lf")
    rerun = set(re.findall(r"^FAILED (test_conformance\.py::\S+)", again.stdout, re.MULTILINE))
    assert rerun == failed and "FAILED test_mine.py::test_mine_fails" in again.stdout, again.stdout[-3000:]
    assert f"{len(failed) + 1} failed, " in again.stdout and f"{len(failed)} failing test(s)" in again.stdout
