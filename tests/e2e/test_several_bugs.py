"""One bug must not hide another (issue 17, "Done when" (a) and (b)): the C++ simulator whole — an undeclared
512-B alignment of LoadData2D's L1 operands, repeatTimes kept in 7 bits into L0A / L0B, srcStride kept in 15
bits from GM — earns all three causes in one `ci` run; declaring its alignment, it earns the other two and the
certification names the declared deviation. Each cause is named by the hypothesis that explains all of it
(judge.diagnosis): the two truncations by the field each keeps in too few bits, not by their diff classes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUGGY = "python:tests.fixtures.buggy.targets:"


def _run(tmp_path: Path, target: str) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", BUGGY + target,
                           "--product", "atlas-training", "--api", "LoadData2D", "--profile", "ci", "--seed", "7",
                           "--shrink-seconds", "1", "--report", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    return done, json.loads((tmp_path / "report.json").read_text())


def _causes(report: dict) -> list[dict]:
    return [group["cause"] for group in report["failure_groups"]]


ALIGNMENT = "LoadData2D.L1:aligned-to-512"
REPEATS, STRIDE = "LoadData2D.repeatTimes:kept-in-7-bits", "LoadData2D.srcStride:kept-in-15-bits"


def test_three_deviations_at_once_are_three_causes(tmp_path):
    done, report = _run(tmp_path, "SimulatorOfIssue17")
    assert done.returncode == 1, done.stdout[-3000:]
    causes = _causes(report)
    assert sorted(c["hypothesis"] for c in causes) == sorted([ALIGNMENT, REPEATS, STRIDE]), causes
    [alignment] = [c for c in causes if c["hypothesis"] == ALIGNMENT]
    assert alignment["verdict"] == "false-reject" and alignment["title"] == "L1 operands refused unless 512-B aligned"
    [stride] = [c for c in causes if c["hypothesis"] == STRIDE]
    assert stride["title"] == "srcStride kept in 15 bits", stride
    assert "3 distinct cause(s)" in done.stdout, done.stdout[-2000:]
    assert not any(c["verdict"] == "disputed" for c in causes)


def test_the_declared_alignment_leaves_the_two_truncations_and_is_named(tmp_path):
    done, report = _run(tmp_path, "SimulatorOfIssue17Declaring")
    assert done.returncode == 1, done.stdout[-3000:]
    causes = _causes(report)
    assert not any(c["verdict"] == "false-reject" for c in causes), causes
    assert sorted(c["hypothesis"] for c in causes) == [REPEATS, STRIDE], causes
    certification = report["certification"]
    [limit] = certification["declared_limits"]
    assert limit["rules"] == ["LoadData2D-l1-align"]
    assert "Declared limit: LoadData2D L1 512-B aligned" in certification["text"]
