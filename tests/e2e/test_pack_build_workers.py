"""`pack build --workers N` builds the same pack, byte for byte, as one process: the same pack id and files."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.runner.options import OptionError
from ascendc_conformance.runner import pack_build
from ascendc_conformance.spec.loader import load_spec

ROOT = Path(__file__).resolve().parents[2]
SMALLEST = ["--product", "atlas-a2", "--api", "DataCopySlice"]   # the fewest tests of a product and API (57)


def build(directory: Path, workers: int) -> str:
    """The pack id `pack build` prints for the smallest selection with this many workers."""
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "pack", "build", "--profile", "quick",
                           "--seed", "5", *SMALLEST, "--workers", str(workers), "--out", str(directory)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()[1]


def files(directory: Path) -> dict[str, bytes]:
    return {str(path.relative_to(directory)): path.read_bytes() for path in directory.rglob("*") if path.is_file()}


def test_two_workers_build_the_pack_one_process_builds(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert build(one, 1) == build(two, 2)
    built = files(one)
    assert len(built) > 3   # the manifest, FORMAT.md and a file per test
    assert files(two) == built


def test_a_number_of_workers_out_of_range_is_refused_on_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "pack", "build", "--workers", "0",
                           "--out", str(tmp_path / "pack")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--workers" in done.stderr and "from 1 to 64" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "pack").exists()


def test_workers_are_refused_for_a_spec_that_is_not_the_packaged_one(tmp_path: Path) -> None:
    """The worker processes load the packaged spec: a build from another spec would draw from the wrong one."""
    other = dataclasses.replace(load_spec(), digest="0" * 16)
    settings = pack_build.BuildSettings(profile="quick", seed=5, products=("atlas-a2",), apis=("DataCopySlice",))
    with pytest.raises(OptionError) as refused:
        pack_build.build(settings, other, tmp_path / "pack", workers=2)
    assert refused.value.option.name == "workers" and "packaged spec" in refused.value.message
    assert not (tmp_path / "pack").exists()
