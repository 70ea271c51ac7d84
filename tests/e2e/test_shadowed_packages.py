"""A user's project with its own packages named like the suite's old top-level ones still runs, and runs the suite.

Before the suite had one import namespace, a simulator repository with its own `reports/` package could no
longer run even its own tests once the suite was installed (`cannot import name 'write_all' from 'reports'`).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

SHADOWS = ("spec", "strategies", "reference", "conformance", "reports")

OWN_TEST = '''
import conformance, reference, reports, spec, strategies


def test_my_packages_are_mine():
    assert [m.OWNER for m in (spec, strategies, reference, conformance, reports)] == ["simulator"] * 5
'''


def _project(root: Path) -> Path:
    for name in SHADOWS:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text('OWNER = "simulator"\n', encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_mine.py").write_text(OWN_TEST, encoding="utf-8")
    return root


def _pytest(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600, env=env)


def test_a_project_with_packages_named_like_the_suites_runs_its_own_tests(tmp_path: Path) -> None:
    project = _project(tmp_path / "simulator")
    done = _pytest(project, "-q", "tests")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


# Imports ascendc_conformance from a folder named `conformance`, as an editable install of the repository does.
SOURCE_LAYOUT = textwrap.dedent("""
    import importlib.util, sys
    folder = {folder!r}
    spec = importlib.util.spec_from_file_location("ascendc_conformance", folder + "/__init__.py",
                                                  submodule_search_locations=[folder])
    module = sys.modules["ascendc_conformance"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
""")


def _suite_in_project(tmp_path: Path, env: dict[str, str] | None = None) -> None:
    project = _project(tmp_path / "simulator")
    report = tmp_path / "out"
    done = _pytest(project, "-q", "tests", "--ascendc-target=reference", "--ascendc-product=atlas-a2",
                   "--ascendc-api=DataCopyNz2Nd", "--ascendc-profile=quick", f"--ascendc-report={report}",
                   "--ascendc-progress=off", "--hypothesis-seed=3", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_my_packages_are_mine" not in done.stdout   # -q: only a summary; the project's test passed too
    document = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert document["certification"]["outcome"] == "conforms"
    assert document["verdicts"]["tests"].get("pass", 0) > 10


def test_the_suite_runs_from_such_a_project(tmp_path: Path) -> None:
    _suite_in_project(tmp_path)


def test_the_suite_runs_from_a_source_checkout_in_such_a_project(tmp_path: Path, wheel_site: Path) -> None:
    """Installed in editable mode, the suite's test module lies under conformance/runner/suite: pytest would
    name it conformance.runner.suite.test_conformance, inside the project's own `conformance` package."""
    checkout = tmp_path / "checkout" / "conformance"
    shutil.copytree(wheel_site / "ascendc_conformance", checkout)
    boot = tmp_path / "boot"
    boot.mkdir()
    (boot / "sitecustomize.py").write_text(SOURCE_LAYOUT.format(folder=str(checkout)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(boot)}
    _suite_in_project(tmp_path, env)
