"""The exec target's pipes (targets.exec_target): answer lines are cut from stdout's chunks exactly as a
`readline` would cut them, whatever the chunks; requests and answers larger than a pipe cross both ways at once
with several in flight; a target that floods stdout or writes much to stderr neither hangs nor stalls the
suite; no thread is started to do any of it."""
from __future__ import annotations

import io
import os
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendc_conformance.format.answer import AnswerKind
from ascendc_conformance.targets import exec_target
from ascendc_conformance.targets.exec_target import ExecTarget, Heard, LineCutter
from tests.helpers.casebuild import typed_case
from tests.helpers.processes import left_running, recorded

FAKES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "targets"


def readline_items(stream: bytes, limit: int) -> list[tuple[Heard, Any]]:
    """What a blocking reader of `stream` takes as its lines: BufferedReader.readline(limit + 1), a line longer
    than `limit` told once and skipped to its newline (the exec target's reader until it read non-blocking)."""
    reader, items = io.BytesIO(stream), []
    while line := reader.readline(limit + 1):
        if len(line) > limit:
            items.append((Heard.OVERSIZE, None))
            while line and not line.endswith(b"\n"):
                line = reader.readline(limit)
        else:
            items.append((Heard.LINE if line.endswith(b"\n") else Heard.PARTIAL, line))
    return [*items, (Heard.EOF, None)]


def cut(stream: bytes, cuts: list[int], limit: int) -> list[tuple[Heard, Any]]:
    """The items a LineCutter makes of `stream` given in chunks ending at `cuts`."""
    items: deque[tuple[Heard, Any]] = deque()
    cutter = LineCutter(limit, items)
    start = 0
    for end in [*sorted(set(cuts)), len(stream)]:
        if end > start:
            cutter.take(stream[start:end])
            start = end
    cutter.end()
    return list(items)


lines = st.lists(st.one_of(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"") + b"\n"),
                           st.integers(0, 40).map(lambda n: b"x" * n + b"\n"),
                           st.binary(max_size=12)), max_size=12)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(parts=lines, limit=st.integers(1, 24), data=st.data())
def test_lines_are_cut_as_readline_cuts_them_whatever_the_chunks(parts: list[bytes], limit: int, data) -> None:
    stream = b"".join(parts)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=8))
    assert cut(stream, cuts, limit) == readline_items(stream, limit), f"stream {stream!r}, cuts {cuts}, limit {limit}"


def test_a_line_is_not_copied_when_a_chunk_is_that_line() -> None:
    items: deque[tuple[Heard, Any]] = deque()
    chunk = b'{"id": 1}\n'
    LineCutter(100, items).take(chunk)
    assert items[0][1] is chunk


def case(region_bytes: int, tag: int) -> Any:
    memory = {"GM": bytes([tag]) * region_bytes, "UB": bytes(64)}
    return typed_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                      {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0}, memory)


def test_requests_and_answers_larger_than_a_pipe_cross_both_ways_with_several_in_flight() -> None:
    threads = threading.active_count()
    cases = [case(3 << 20, tag) for tag in range(6)]   # 4 MiB of base64 each way, a case: 64 times a pipe
    with ExecTarget([sys.executable, str(FAKES / "fake_echo.py")], timeout=20, processes=2, in_flight=3) as target:
        answers = list(target.execute_many(cases))
        assert threading.active_count() == threads, "the pipes are moved by the waiting thread, not by threads"
    assert [answer.kind for _, answer in answers] == [AnswerKind.RESULT] * len(cases)
    assert all(answer.result is not None and answer.result.memory["GM"].data == sent.memory["GM"].data
               for sent, answer in answers)


def test_a_target_writing_much_to_stderr_is_answered() -> None:
    """Before each answer it writes more than a pipe holds to stderr: it would wait forever if nobody read it."""
    with ExecTarget([sys.executable, str(FAKES / "fake_echo.py"), "--stderr-bytes", str(300_000)],
                    timeout=10) as target:
        answers = list(target.execute_many([case(64, tag) for tag in range(8)]))
    assert [answer.kind for _, answer in answers] == [AnswerKind.RESULT] * 8


def test_a_target_flooding_stdout_is_out_of_step_at_once_not_a_hang() -> None:
    started = time.monotonic()
    with ExecTarget([sys.executable, str(FAKES / "fake_flood.py")], timeout=10) as target:
        answer = target.execute(case(64, 0))
    assert answer.kind is AnswerKind.ERROR and "not JSON" in answer.message, answer.message
    assert time.monotonic() - started < 5


def _has_pidfd() -> bool:
    fd = exec_target._pidfd(os.getpid())   # noqa: SLF001: whether this system has them
    if fd is not None:
        os.close(fd)
    return fd is not None


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc to find what holds the pipes")
@pytest.mark.parametrize("pidfd", [pytest.param(True, marks=pytest.mark.skipif(not _has_pidfd(), reason="no pidfd")),
                                   False], ids=["pidfd", "polled"])
def test_an_exit_that_nothing_else_tells_is_seen_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          pidfd: bool) -> None:
    """A program whose detached grandchild holds its pipes exits saying nothing: its exit is seen in well under
    the timeout (from its pidfd, or polled for where the system gives none), and the grandchild does not
    outlive it."""
    if not pidfd:
        monkeypatch.setattr(exec_target, "_pidfd", lambda pid: None)
    started = time.monotonic()
    argv = [sys.executable, str(FAKES / "fake_detached.py"), "--pids", str(tmp_path / "pids"), "--silent"]
    with ExecTarget(argv, timeout=10) as target:
        kinds = [target.execute(case(64, tag)).kind for tag in range(2)]   # the second case crashes it
    assert kinds == [AnswerKind.RESULT, AnswerKind.CRASHED]
    assert time.monotonic() - started < 5
    assert not left_running(recorded(tmp_path / "pids"))
