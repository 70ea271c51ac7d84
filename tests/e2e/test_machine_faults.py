"""What the machine does to a run is the run's, never the target's (issue 28, item 4): a disk that fills up while
results or replays are written, a path too long for the file system, a read-only file system, a path that is not
UTF-8 — each is one line naming the path, exit 2 when it is found before anything ran (a usage error) and exit 3
(the suite could not finish) when found while writing, with every result written before kept and readable."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from ascendc_conformance.cli.main import main
from ascendc_conformance.format.exits import ExitCode

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ["--product", "atlas-a2", "--api", "DataCopy", "--profile", "quick", "--seed", "1"]
DISK_BYTES = 96 * 1024   # a quick DataCopy run of the reference writes about 400 KiB of results
STOPPED = "[ascendc] STOPPED: cannot write "
REPORT_PATH_BYTES = 4060   # its files' paths fit in Linux's 4096 (PATH_MAX), its replays' do not


def cli(*args: str, prefix: tuple[str, ...] = ("-m", "ascendc_conformance")) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *prefix, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def mount_tmpfs(directory: Path, options: str) -> str | None:
    """Mount a tmpfs on `directory`; None if done, else why it could not be (not root, no mount(8), ...)."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)], capture_output=True,
                              text=True, timeout=30)
    except OSError as error:
        return f"cannot run mount(8): {error}"
    return None if done.returncode == 0 else f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}"


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[callable]:
    """Mounts tmpfs file systems under tmp_path (`tmpfs(name, options)` -> the directory, or a skip with the
    reason it cannot), unmounted after the test."""
    mounted: list[Path] = []

    def mount(name: str, options: str) -> Path:
        directory = tmp_path / name
        problem = mount_tmpfs(directory, options)
        if problem is not None:
            pytest.skip(problem)
        mounted.append(directory)
        return directory

    yield mount
    for directory in reversed(mounted):
        subprocess.run(["umount", str(directory)], capture_output=True, timeout=30)


def assert_stopped_by_a_full_disk(done: subprocess.CompletedProcess, report: Path, elsewhere: Path) -> None:
    """Exit 3, one line naming the file the disk refused, no traceback, and every line written before is a whole
    record: `report` reads them (exit 0), the run killed by the disk, no test charged with the suite's fault."""
    assert done.returncode == ExitCode.SUITE, done.stdout[-3000:] + done.stderr[-3000:]
    stopped = [line for line in done.stdout.splitlines() if line.startswith(STOPPED)]
    assert stopped and stopped[0].startswith(f"{STOPPED}{report / 'results.jsonl'}: No space left on device")
    assert "Traceback" not in done.stdout + done.stderr and "INTERNALERROR" not in done.stdout
    lines = (report / "results.jsonl").read_bytes().split(b"\n")
    records = [json.loads(line) for line in lines[:-1]]   # the last may be cut where the disk filled up
    tests = [r for r in records if r["record"] == "test"]
    assert records[0]["record"] == "run" and len(tests) > 20
    assert all(test["verdict"] in ("pass", "skipped") for test in tests)
    again = cli("report", str(report), "--out", str(elsewhere))
    assert again.returncode == 0, again.stderr
    regenerated = json.loads((elsewhere / "report.json").read_text())
    assert regenerated["run"]["killed"] and regenerated["certification"]["outcome"] == "incomplete"


def test_a_disk_that_fills_up_under_results_jsonl_stops_the_run_with_exit_3(tmpfs, tmp_path: Path) -> None:
    disk = tmpfs("disk", f"size={DISK_BYTES}")
    report = disk / "report"
    done = cli("run", "--target", "reference", *SELECTION, "--report", str(report))
    assert_stopped_by_a_full_disk(done, report, tmp_path / "regenerated")


def test_a_disk_that_fills_up_simulated_where_no_tmpfs_can_be_mounted(tmp_path: Path) -> None:
    """The same, the disk simulated (tests/fixtures/full_disk.py): runs everywhere, root or not."""
    report = tmp_path / "report"
    done = cli("run", "--target", "reference", *SELECTION, "--report", str(report),
               prefix=("tests/fixtures/full_disk.py", str(DISK_BYTES)))
    assert_stopped_by_a_full_disk(done, report, tmp_path / "regenerated")


def test_a_replay_the_file_system_cannot_name_is_the_runs_fault_not_the_targets(tmp_path: Path) -> None:
    """A report directory just short of PATH_MAX: results.jsonl fits, a replay file's path does not
    (ENAMETOOLONG). The failing test keeps the target's verdict (false-reject, not error), the run stops with
    exit 3 naming the replay file."""
    report = tmp_path
    while len(os.fsencode(str(report))) < REPORT_PATH_BYTES - 250:
        report /= "d" * 200
    report /= "d" * (REPORT_PATH_BYTES - len(os.fsencode(str(report))) - 1)
    assert len(os.fsencode(str(report))) == REPORT_PATH_BYTES
    target = "python:tests.fixtures.buggy.targets:RejectsMultiBurst"
    done = cli("run", "--target", target, *SELECTION, "-k", "test_legal", "--report", str(report))
    assert done.returncode == ExitCode.SUITE, done.stdout[-3000:] + done.stderr[-3000:]
    [stopped] = {line for line in done.stdout.splitlines() if line.startswith(STOPPED)}
    assert f"{STOPPED}{report / 'replays'}/test_legal" in stopped and stopped.endswith(
        ": File name too long; the suite could not finish (what it wrote before is kept)")
    records = [json.loads(line) for line in (report / "results.jsonl").read_text().splitlines()]
    failed = [r for r in records if r["record"] == "test" and r["verdict"] != "pass"]
    assert failed and {r["verdict"] for r in failed} == {"false-reject"} and failed[0]["replay"] is None
    assert records[-1] == {**records[-1], "record": "end", "exit_status": ExitCode.SUITE}


def test_pack_build_into_a_read_only_or_full_file_system_is_one_line(tmpfs) -> None:
    read_only = tmpfs("read-only", "size=1m,ro")
    done = cli("pack", "build", *SELECTION, "--out", str(read_only / "pack"))
    assert done.returncode == ExitCode.USAGE and done.stdout == ""
    assert done.stderr == (f"ascendc-conformance: error: --out: cannot create the directory {read_only / 'pack'} "
                           "(Read-only file system)\n")
    full = tmpfs("full", "size=64k")
    done = cli("pack", "build", *SELECTION, "--out", str(full / "pack"))
    assert done.returncode == ExitCode.SUITE, done.stderr[-2000:]
    [line] = [line for line in done.stderr.splitlines() if line.startswith("ascendc-conformance: error:")]
    assert line.startswith(f"ascendc-conformance: error: cannot write {full / 'pack'}/") and line.endswith(
        ": No space left on device; the suite could not finish (what it wrote before is kept)")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name, problem", [("a" * 300, "is 300 bytes long; the file system takes names of at most"),
                                           ("bad\udcff", "bad\\xff is not UTF-8 text")], ids=["long-name", "not-utf8"])
def test_a_path_no_file_system_write_could_take_is_a_usage_error(tmp_path: Path, name: str, problem: str,
                                                                 capsys) -> None:
    """Before anything runs, for every command that writes or reads a directory: one line, exit 2."""
    path = str(tmp_path / name)
    commands = [["pack", "build", *SELECTION, "--out", path],
                ["report", str(ROOT / "tests/data/reports/killed"), "--out", path]]
    if name.startswith("bad"):   # a pack or results directory named so cannot be read and reported either
        os.mkdir(path)
        commands += [["pack", "verify", path], ["report", path]]
    for words in commands:
        assert main(words) == ExitCode.USAGE, words
        out, err = capsys.readouterr()
        assert out == "" and problem in err and err.count("\n") == 1, (words, err)
