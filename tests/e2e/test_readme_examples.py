"""The README's two example targets (examples/python_target/) are the files the README shows, and its commands run
them as shown, from the repository root: each run conforms. A copy of the python: target that leaves the last byte
of each copy unwritten fails the same command, so the runs can tell a wrong target from a right one."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLES = ROOT / "examples" / "python_target"
COMMANDS = [block for block in re.findall(r"```sh\n(.*?)```", README, re.S) if "examples/python_target" in block]


def shell(command: str, **env: str) -> subprocess.CompletedProcess:
    """`command` run by bash from the repository root, this interpreter's scripts (ascendc-conformance, python3) first
    on PATH, as a user who installed the suite runs it."""
    path = os.pathsep.join([sysconfig.get_path("scripts"), str(Path(sys.executable).parent), os.environ["PATH"]])
    return subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PATH": path, **env})


@pytest.mark.parametrize("name", ["my_target.py", "exec_target.py"])
def test_the_readme_shows_each_example_file_whole(name: str) -> None:
    assert f"```python\n{(EXAMPLES / name).read_text(encoding='utf-8')}```" in README


def test_the_readme_runs_the_python_target_then_the_exec_target() -> None:
    assert [("python:my_target:MyTarget" in c, "exec:python3 examples/python_target/exec_target.py" in c)
            for c in COMMANDS] == [(True, False), (False, True)]


@pytest.mark.parametrize("command", COMMANDS, ids=["python", "exec"])
def test_each_readme_command_runs_and_its_target_conforms(command: str) -> None:
    done = shell(command)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "VERDICT: CONFORMS" in done.stdout


def test_a_wrong_copy_of_the_python_target_fails_the_readme_command(tmp_path: Path) -> None:
    text = (EXAMPLES / "my_target.py").read_text(encoding="utf-8")
    right = "data[dst_memory][d:d + n] = data[src_memory][s:s + n]"
    assert right in text
    (tmp_path / "my_target.py").write_text(text.replace(right, right.replace("d + n]", "d + n - 1]").replace("s + n]", "s + n - 1]")),
                                           encoding="utf-8")
    command = COMMANDS[0].replace("PYTHONPATH=examples/python_target", f"PYTHONPATH={tmp_path}").strip() + " --shrink-budget 2"
    done = shell(command)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "VERDICT: DOES NOT CONFORM" in done.stdout and "memory differs" in done.stdout
