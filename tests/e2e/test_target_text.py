"""A target's text is capped (issue 19, item 3): a target rejecting every case with a 1 MB message, a 10 kB
rule name and 1 MB of other keys in its answers gives reports of normal size and terminal lines of bounded
length (one quick run of this target made about 1 GB of reports before); the replay file keeps its message
once, up to REPLAY_TEXT_CHARS."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ascendc_conformance.format.defaults import REPLAY_TEXT_CHARS, TARGET_TEXT_CHARS
from tests.fixtures.targets.py_fakes import RejectsAtLength

ROOT = Path(__file__).resolve().parents[2]
TARGET = "python:tests.fixtures.targets.py_fakes:RejectsAtLength"
LINE_CHARS = 3 * TARGET_TEXT_CHARS   # the suite's own words around a target's message and its rule ids


def test_a_target_talking_at_length_gives_reports_of_normal_size(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", TARGET, "--product",
                           "atlas-a2", "--api", "LoadData2D", "--profile", "quick", "--seed", "1", "--report",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:]
    assert max(map(len, done.stdout.splitlines())) < LINE_CHARS
    # what the target said, in every file: the reports, and each replay less the case and the reference's result
    # (a replay keeps its case's memory, up to 1 MiB a region, whoever the target is)
    reports = sum(path.stat().st_size for path in tmp_path.iterdir() if path.is_file())
    replays = [json.loads(path.read_text()) for path in (tmp_path / "replays").iterdir()]
    said = reports + sum(len(json.dumps({k: v for k, v in replay.items() if k not in ("case", "expected")}))
                         for replay in replays)
    assert said < 10 * 2**20, f"{said} bytes of reports and replays besides their cases"

    tests = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()][1:-1]
    assert {test["verdict"] for test in tests} >= {"false-reject"}
    for test in tests:
        assert len(test["message"]) < LINE_CHARS, test["test_id"]
    false_reject = next(test for test in tests if test["verdict"] == "false-reject")
    assert "more characters)" in false_reject["message"]   # the target's message, cut where it says so

    replay = json.loads((tmp_path / false_reject["replay"]).read_text())
    assert sorted(replay["actual"]) == ["message", "rules", "status"]   # a result v1's keys, not its other keys
    assert replay["actual"]["message"].startswith(RejectsAtLength.MESSAGE[:REPLAY_TEXT_CHARS])
    assert len(replay["actual"]["message"]) < REPLAY_TEXT_CHARS + 100
    assert "actual" not in replay["verdict"] and "expected" not in replay["verdict"]   # kept once
    failing = sum(test["verdict"] == "false-reject" for test in tests)
    for report in ("report.json", "junit.xml", "report.md", "report.html"):   # bounded per failing test
        assert (tmp_path / report).stat().st_size < 2**20 + failing * 16 * 2**10, (report, failing)
