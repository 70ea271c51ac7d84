"""Hangs and what a target leaves behind are bounded (issue 28, item 5): a target whose detached grandchild holds
its pipes crashes as fast as any other and leaves no process, thread or file descriptor behind; restarts that
hang are given up after FAILED_STARTS_GIVE_UP in a row, the remaining cases answered at once; the case timeout
bounds the hello wait too."""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from ascendc_conformance.format.answer import AnswerKind
from ascendc_conformance.format.case import Case
from ascendc_conformance.format.errors import TargetStartError
from ascendc_conformance.targets.exec_target import FAILED_STARTS_GIVE_UP, ExecTarget
from tests.helpers.casebuild import typed_case
from tests.helpers.processes import left_running, recorded

FAKES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "targets"


def case() -> Case:
    return typed_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                      {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0}, {"GM": bytes(64), "UB": bytes(64)})


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc to count descriptors and processes")
def test_a_detached_grandchild_holding_the_pipes_neither_slows_a_crash_nor_outlives_the_target(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    threads, descriptors = threading.active_count(), len(os.listdir("/proc/self/fd"))
    started = time.monotonic()
    target = ExecTarget([sys.executable, str(FAKES / "fake_detached.py"), "--pids", str(pids)], timeout=10)
    kinds = [target.execute(case()).kind for _ in range(6)]   # every second case crashes it: three restarts
    target.close()
    elapsed = time.monotonic() - started
    assert kinds == [AnswerKind.RESULT, AnswerKind.CRASHED] * 3
    assert elapsed < 8, f"{elapsed:.1f} s: a crash waited for the timeout (the grandchild held the pipe open)"
    grandchildren = recorded(pids)
    assert len(grandchildren) == 3 and not left_running(grandchildren)
    assert threading.active_count() == threads and len(os.listdir("/proc/self/fd")) == descriptors


def test_restarts_that_hang_are_given_up_and_the_remaining_cases_answered_at_once(tmp_path: Path) -> None:
    argv = [sys.executable, str(FAKES / "fake_restart_hang.py"), "--state", str(tmp_path / "started")]
    target = ExecTarget(argv, timeout=0.5)
    try:
        first = target.execute(case())
        assert first.kind is AnswerKind.CRASHED
        hung = [target.execute(case()) for _ in range(FAILED_STARTS_GIVE_UP)]
        assert [answer.kind for answer in hung] == [AnswerKind.TIMEOUT] * FAILED_STARTS_GIVE_UP
        assert all("could not be restarted" in a.message and "no answer within 0.5 s" in a.message for a in hung)
        started = time.monotonic()
        rest = [target.execute(case()) for _ in range(50)]
        assert time.monotonic() - started < 1.0   # no more starts, no more waits
    finally:
        target.close()
    assert {answer.kind for answer in rest} == {AnswerKind.TIMEOUT}
    assert rest[0].message.startswith(f"not sent: the target failed to start {FAILED_STARTS_GIVE_UP} times in a row")
    assert "no answer within 0.5 s" in rest[0].message and "hanging before the hello" in rest[0].stderr_tail


def test_the_case_timeout_bounds_the_hello_wait(tmp_path: Path) -> None:
    argv = [sys.executable, str(FAKES / "fake_restart_hang.py"), "--state", str(tmp_path / "s"), "--hang-first"]
    started = time.monotonic()
    with pytest.raises(TargetStartError, match="failed its hello: no answer within 1 s"):
        ExecTarget(argv, timeout=1)
    assert time.monotonic() - started < 5
