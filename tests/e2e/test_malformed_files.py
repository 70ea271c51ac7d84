"""End to end: the CLI refuses a malformed file it reads with one line and a usage exit code, no traceback —
an alias bomb in a spec file, a report directory that cannot be created, a bad replay file, a bad waiver file."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from ascendc_conformance.spec.loader import SPEC_DIR

ROOT = Path(__file__).resolve().parents[2]
# Nine anchors of ten aliases each: 10^9 nodes once expanded (it used to run ~50 s into a MemoryError).
ALIAS_BOMB = "bomb_a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"bomb_{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n" for previous, name in zip("abcdefghi", "bcdefghij"))


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_an_alias_bomb_in_a_spec_file_is_one_issue(tmp_path: Path) -> None:
    spec_dir = tmp_path / "spec"
    shutil.copytree(SPEC_DIR, spec_dir, ignore=shutil.ignore_patterns("*.py", "schema", "__pycache__"))
    bombed = spec_dir / "dtypes.yaml"
    bombed.write_text(bombed.read_text(encoding="utf-8") + ALIAS_BOMB, encoding="utf-8")
    line = next(number for number, text in enumerate(bombed.read_text(encoding="utf-8").splitlines(), start=1)
                if text.startswith("bomb_e:"))

    checked = cli("spec", "check", str(bombed))
    assert checked.returncode == 1 and "Traceback" not in checked.stdout + checked.stderr, checked.stderr
    assert checked.stdout.splitlines() == [
        f"dtypes.yaml:{line}: aliases expand to more than 100000 nodes (the one at line {line} passes the limit); "
        "reuse fewer or smaller anchors", "spec check failed: 1 issue"]

    listed = cli("spec", "paths", "--spec-dir", str(spec_dir))
    assert listed.returncode == 2 and "Traceback" not in listed.stderr
    assert f"dtypes.yaml:{line}: aliases expand" in listed.stderr


def test_report_into_a_directory_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    records = [{"record": "run", "target": "reference", "profile": "ci"}, {"record": "end", "exit_status": 0}]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    done = cli("report", str(tmp_path), "--out", "/proc/nope")
    assert done.returncode == 2
    assert done.stderr == ("ascendc-conformance: error: --out: cannot create the directory /proc/nope "
                           "(No such file or directory)\n")


def test_a_bad_replay_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"replay_format": 1, "case": None, "verdict": ["fail"]}), encoding="utf-8")
    done = cli("replay", str(path), "--target", "reference")
    assert done.returncode == 2
    assert done.stderr == f"ascendc-conformance: error: {path}: 'case': expected object, got NoneType None\n"


def test_a_bad_waiver_file_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- test: 5\n  reason: r\n  link: l\n", encoding="utf-8")
    done = cli("run", "--target", "reference", "--product", "atlas-a2", "--api", "LoadData2D", "--profile", "quick",
               "--waivers", str(waivers), "--report", str(tmp_path / "out"))
    assert done.returncode != 0 and "Traceback" not in done.stdout + done.stderr and "INTERNALERROR" not in done.stderr
    assert f"{waivers}:1: waiver 1: 'test' must be a test id as pytest shows it (text), got int 5" in done.stderr
    assert not (tmp_path / "out" / "results.jsonl").exists()
