"""Fixtures of the end-to-end tests: the C++ example of examples/cpp, built once per test process."""
from __future__ import annotations

import fcntl
import subprocess
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cpp"


@pytest.fixture(scope="session")
def cpp_target() -> Path:
    """examples/cpp built by its own build.sh, once per test process; processes take turns (a lock file in the
    build directory), since they build into the same place."""
    build = EXAMPLE / "build"
    build.mkdir(exist_ok=True)
    with open(build / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(["bash", str(EXAMPLE / "build.sh")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, ("examples/cpp/build.sh failed; it needs g++, cmake and nlohmann-json3-dev, and "
                                  f"libssl-dev for region-digest (.ci/run installs them):\n{done.stderr[-3000:]}")
    binary = Path(done.stdout.strip().splitlines()[-1])
    assert binary.is_file(), done.stdout
    return binary


@pytest.fixture(scope="session")
def cpp_fill(cpp_target: Path) -> Path:
    """The fill recipe's C++ reference as a tool (examples/cpp/src/fill.hpp, built beside the target)."""
    return cpp_target.parent / "ascendc-fill"
