"""One run per report directory (issue 28, item 3): the lock a run holds on it, a run's records starting on a fresh
line after a killed run's cut one, and which cut lines a reader skips (only those a killed run can leave)."""
from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from ascendc_conformance.format import results
from ascendc_conformance.runner.report_lock import LOCK_FILE, ReportDirBusy, ReportLock

RUN = {"record": "run", "started": "2024-05-01T10:00:00+00:00", "target": "reference", "profile": "ci"}
TEST = {"record": "test", "test_id": "test_legal[x]", "kind": "legal", "verdict": "pass"}
END = {"record": "end", "finished": "2024-05-01T11:00:00+00:00", "exit_status": 0}


def hold(directory: str, ready, release) -> None:
    """Another process: lock the directory, say so, hold it until told to let go."""
    lock = ReportLock.acquire(Path(directory))
    ready.set()
    release.wait(30)
    lock.release()


def test_a_second_lock_is_refused_naming_the_holder_until_the_first_is_released(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=hold, args=(str(tmp_path), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(ReportDirBusy) as refused:
            ReportLock.acquire(tmp_path)
        message = str(refused.value)
        assert message.startswith(f"{tmp_path} is the report directory of another run, which is still running "
                                  f"(pid {holder.pid} on ") and "\n" not in message
        assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == holder.pid
    finally:
        release.set()
        holder.join(30)
    lock = ReportLock.acquire(tmp_path)   # released: taken again
    assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
    lock.release()
    lock.release()
    assert (tmp_path / LOCK_FILE).read_text() == ""


def test_a_lock_dies_with_its_holder_however_it_ends(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=hold, args=(str(tmp_path), ready, release))
    holder.start()
    assert ready.wait(30)
    holder.kill()   # SIGKILL: no release, the lock file keeps its holder's text
    holder.join(30)
    assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == holder.pid
    ReportLock.acquire(tmp_path).release()


def lines(path: Path) -> list[str]:
    return path.read_text().split("\n")


def test_a_record_after_a_cut_line_starts_a_line_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / results.RESULTS_FILE
    path.write_text(json.dumps(RUN) + "\n" + json.dumps(TEST)[:20])   # killed in the middle of a line
    results.append(tmp_path, RUN)
    results.append(tmp_path, END)
    assert lines(path) == [json.dumps(RUN), json.dumps(TEST)[:20], json.dumps(RUN, sort_keys=True),
                           json.dumps(END, sort_keys=True), ""]
    skipped: list[str] = []
    read = [record["record"] for _, record in results.read(path, skipped)]
    assert read == ["run", "run", "end"]
    assert skipped == [f"{path}:2: an unfinished record (20 bytes) skipped: a run was stopped (killed, or its disk "
                       "full) while writing it"]


@pytest.mark.parametrize("text, line", [
    (f"{json.dumps(RUN)}\n{{\"record\": \"te\n{json.dumps(TEST)}\n", 2),    # not followed by a run record
    (f"{json.dumps(RUN)}\n{{\"record\": \"te\n{{\"record\": \"ru\n{json.dumps(RUN)}\n", 2),   # two bad lines
    (f"{json.dumps(RUN)}\n{{\"record\": \"te\n", 2),                          # ended by a line break: written whole
])
def test_any_other_bad_line_is_an_error_naming_it(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / results.RESULTS_FILE
    path.write_text(text)
    with pytest.raises(results.ResultsError, match=f"^{path}:{line}: not JSON"):
        list(results.read(path, []))
