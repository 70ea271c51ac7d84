"""One seed, one set of cases, whatever the target's module: a run with an implementation loaded in-process
(`python:`, its module imported by the run's process: Hypothesis would mix its constants into the draws) sends it
the cases a run sends the same implementation served over `exec:` (strategies.determinism, applied with the run's
profile by runner.plugin)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TARGET_MODULE = '''
"""The reference, noting every call it is sent; its constants are what a target's tables of limits hold."""
import json, os
from tests.fixtures.buggy.targets import BuggyTarget

LIMITS = [{limits}]


class Noting(BuggyTarget):
    def execute(self, case):
        with open(os.environ["NOTED_CALLS"], "a") as out:
            out.write(json.dumps({{key: case[key] for key in ("src", "dst", "params")}}, sort_keys=True) + "\\n")
        return super().execute(case)

    def legal_bug(self, case, expected):
        return None
'''.format(limits=", ".join(str(value) for value in [*range(1, 600), *range(3, 70000, 997)]))


def sent(tmp_path: Path, name: str, target: str) -> list[str]:
    """The calls a `run` of DataCopy's legal tests on atlas-a2 (seed 3) sends `target`, in order."""
    noted = tmp_path / f"{name}.jsonl"
    env = {**os.environ, "NOTED_CALLS": str(noted), "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--product",
                           "atlas-a2", "--api", "DataCopy", "-k", "test_legal", "--seed", "3", "--progress", "off"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return noted.read_text().splitlines()


def test_a_target_in_process_and_over_exec_is_sent_the_same_cases(tmp_path: Path) -> None:
    (tmp_path / "noting_target.py").write_text(TARGET_MODULE)
    in_process = sent(tmp_path, "python", "python:noting_target:Noting")
    served = sent(tmp_path, "exec", f"exec:{sys.executable} -m ascendc_conformance.targets.serve "
                                    "python:noting_target:Noting")
    assert len(in_process) > 100
    assert in_process == served
