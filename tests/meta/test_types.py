"""The package's types hold: mypy, with the settings of pyproject.toml ([tool.mypy]), finds no error in the package
as a wheel installs it (tests/conftest.py), and does find one in a copy with a type error added."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def _mypy(site: Path, cache: Path) -> subprocess.CompletedProcess:
    """mypy on the package `ascendc_conformance` found in `site`, under the project's settings."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT), "--cache-dir", str(cache),
                           "-p", "ascendc_conformance"], cwd=site, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for both runs: the copy differs from the package in one module."""
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    return tmp_path_factory.mktemp("mypy-cache")


def test_mypy_finds_no_error_in_the_package(wheel_site: Path, cache: Path) -> None:
    done = _mypy(wheel_site, cache)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
    assert (wheel_site / "ascendc_conformance" / "py.typed").is_file()   # users' type checkers read the types too


def test_mypy_catches_a_type_error(wheel_site: Path, cache: Path, tmp_path: Path) -> None:
    """A copy of the package whose judge is handed a result where it takes a case: mypy must refuse it."""
    copy = tmp_path / "site" / "ascendc_conformance"
    shutil.copytree(wheel_site / "ascendc_conformance", copy, ignore=shutil.ignore_patterns("__pycache__"),
                    copy_function=shutil.copy2)
    with open(copy / "judge" / "verdict.py", "a", encoding="utf-8") as module:
        module.write("\n\ndef _wrong(expected: Result, answer: Answer, hello: Hello, spec: Spec) -> Verdict:\n"
                     "    return judge(expected, expected, answer, hello, spec=spec)\n")
    done = _mypy(tmp_path / "site", cache)
    assert done.returncode == 1 and "verdict.py" in done.stdout and "[arg-type]" in done.stdout, done.stdout[-3000:]
