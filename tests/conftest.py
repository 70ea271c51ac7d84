"""Fixtures shared by the project's own tests."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD_OUTPUTS = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache",
                 ".mypy_cache")


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel, once per test process, from a copy of the working tree without its build
    outputs: setuptools reuses a checkout's build/lib, which still holds modules since deleted or renamed."""
    source = tmp_path_factory.mktemp("source") / "project"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*BUILD_OUTPUTS))
    directory = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(directory), str(source)],
                   check=True, capture_output=True, timeout=300)
    wheel, = directory.glob("ascendc_conformance-*.whl")
    return wheel


@pytest.fixture(scope="session")
def wheel_site(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the package as a wheel installs it, whatever way the running copy was installed
    (an editable install maps the repository's folders in with an import hook, which static tools cannot
    follow). Put it on PYTHONPATH; copy it before changing it."""
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(built_wheel) as archive:
        archive.extractall(site)
    return site
