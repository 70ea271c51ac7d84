"""The package's shape: one top-level import package, layers that import only downward, a lazy plugin.

The layer contracts live in pyproject.toml ([tool.importlinter]); these tests run them on the package as a
wheel installs it (tests/conftest.py), and show on a copy with one upward import added that they do catch a violation.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def _lint_imports(cwd: Path, python_path: Path | None = None) -> subprocess.CompletedProcess:
    env = None
    if python_path is not None:
        env = {"PYTHONPATH": str(python_path), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                           "sys.exit(lint_imports_command())", "--config", str(PYPROJECT), "--no-cache"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_layer_contracts_hold(tmp_path: Path, wheel_site: Path) -> None:
    done = _lint_imports(tmp_path, python_path=wheel_site)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


@pytest.mark.parametrize("importer, imported", [
    ("format/case.py", "ascendc_conformance.cli.main"),          # the bottom layer reaching the top
    ("reference/call.py", "ascendc_conformance.strategies.draw"),  # one layer up
    ("runner/recorder.py", "ascendc_conformance.reports"),       # the runner writing reports itself
])
def test_the_contracts_catch_an_upward_import(tmp_path: Path, wheel_site: Path, importer: str,
                                              imported: str) -> None:
    """A copy of the package with one upward import added breaks the layer contract."""
    copy = tmp_path / "site" / "ascendc_conformance"
    shutil.copytree(wheel_site / "ascendc_conformance", copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / importer, "a", encoding="utf-8") as module:
        module.write(f"\nimport {imported}  # an upward import\n")
    done = _lint_imports(tmp_path, python_path=tmp_path / "site")
    assert done.returncode != 0
    dotted = "ascendc_conformance." + importer.removesuffix(".py").replace("/", ".")
    assert f"{dotted} -> {imported}" in done.stdout, done.stdout


def test_a_wheel_has_exactly_one_top_level_import_package(built_wheel: Path) -> None:
    with zipfile.ZipFile(built_wheel) as archive:
        names = archive.namelist()
        top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
        entry_points = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert top_level == {"ascendc_conformance"}
    for layer in ("format", "spec", "reference", "strategies", "judge", "targets", "runner", "reports", "cli"):
        assert f"ascendc_conformance/{layer}/__init__.py" in names
    assert "ascendc_conformance/spec/datacopy.yaml" in names   # package data travels with the mapped folders
    assert "ascendc = ascendc_conformance.plugin" in entry_points
    assert "ascendc-conformance = ascendc_conformance.cli.main:main" in entry_points


PROBE = textwrap.dedent("""
    import json, sys

    def test_probe():
        print("MODULES=" + json.dumps(sorted(sys.modules)))
""")


def _modules_of_a_pytest_run(tmp_path: Path, *options: str) -> set[str]:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist",
                           *options, "test_probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    line, = [line for line in done.stdout.splitlines() if "MODULES=" in line]
    return set(json.loads(line.split("MODULES=", 1)[1]))


def test_the_plugin_imports_only_pytest_and_the_standard_library_until_given_a_target(tmp_path: Path) -> None:
    with_plugin = _modules_of_a_pytest_run(tmp_path)
    without = _modules_of_a_pytest_run(tmp_path, "-p", "no:ascendc")
    added = with_plugin - without
    assert added, "the plugin was not loaded at all: is the entry point installed?"
    assert {m for m in added if not m.startswith("ascendc_conformance")} == set()
    assert added == {"ascendc_conformance", "ascendc_conformance.plugin", "ascendc_conformance.runner",
                     "ascendc_conformance.runner.options", "ascendc_conformance.format",
                     "ascendc_conformance.format.defaults", "ascendc_conformance.format.errors",
                     "ascendc_conformance.format.bounded"}   # the option values' checks: standard library only
