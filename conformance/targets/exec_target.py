"""The ``exec:<command line>`` target: any program speaking the exec protocol.

The program is started once and reused: JSON lines go to its stdin, answers
come back one line each on its stdout, and whatever it writes to stderr is kept
in a bounded ring buffer for crash reports. Three daemon threads per process
(stdout reader, stderr reader, stdin writer) make sure the suite never blocks
on a pipe: every wait on the target has a deadline.

A case that times out or crashes the program gets the process killed; the
next case starts a fresh one. An answer that leaves the stream out of step
(a non-JSON line, a non-object, a wrong or missing id, an oversized line) also
gets the process restarted, so later answers cannot be mistaken for this one.
Answer lines are read by format.bounded (strict UTF-8, no NUL, nesting and
number limits); a line cut short by the program's exit is a crash.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any, Sequence

from ascendc_conformance.format import bounded
from ascendc_conformance.format.case import ResultStatus
from ascendc_conformance.format.defaults import CASE_TIMEOUT_S
from ascendc_conformance.format.errors import TargetStartError
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello, quoted
from ascendc_conformance.targets.base import Target, tail, validate_result

PROTOCOL = 1
#: Longest stdout line accepted; a longer one is an error, not a hang or an OOM.
DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
#: How much of the program's stderr is kept.
STDERR_RING_BYTES = 16 * 1024
#: Grace given to a dying process to exit and flush its stderr.
EXIT_GRACE_S = 1.0
#: How much of a malformed line its message quotes: enough to recognise a log line.
EXCERPT_CHARS = 120

# Kinds of items the stdout reader and stdin writer put on the inbox queue.
_LINE, _PARTIAL, _OVERSIZE, _EOF, _WRITE_FAILED = "line", "partial", "oversize", "eof", "write-failed"


class _StderrRing:
    """The last bytes a process wrote to stderr, filled by a reader thread."""

    def __init__(self, limit: int) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._limit = limit
        self._lock = threading.Lock()

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._chunks.append(chunk)
            self._size += len(chunk)
            while self._size - len(self._chunks[0]) >= self._limit:
                self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        with self._lock:
            data = b"".join(self._chunks)
        return tail(data[-self._limit :].decode("utf-8", errors="replace"))


class _Process:
    """One running instance of the target program and its pipe threads."""

    def __init__(self, argv: Sequence[str], max_line_bytes: int) -> None:
        try:
            self.popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                # Own process group, so a kill also reaches children it spawned
                # (which would otherwise keep the pipes open).
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            raise TargetStartError(f"cannot start target {list(argv)!r}: {exc}") from exc
        self.inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stderr = _StderrRing(STDERR_RING_BYTES)
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(max_line_bytes,), daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
            threading.Thread(target=self._write_stdin, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_stdout(self, max_line_bytes: int) -> None:
        stream = self.popen.stdout
        assert stream is not None
        try:
            while True:
                line = stream.readline(max_line_bytes + 1)
                if not line:
                    break
                if len(line) > max_line_bytes:
                    self.inbox.put((_OVERSIZE, len(line)))
                    # Skip the rest of that line; the owner kills us anyway.
                    while line and not line.endswith(b"\n"):
                        line = stream.readline(max_line_bytes)
                    continue
                # readline stops short of a newline only at the end of the stream: the program ended mid-line
                self.inbox.put((_LINE if line.endswith(b"\n") else _PARTIAL, line))
        except (OSError, ValueError):
            pass
        self.inbox.put((_EOF, None))

    def _read_stderr(self) -> None:
        stream = self.popen.stderr
        assert stream is not None
        try:
            while chunk := stream.read1(4096):
                self.stderr.add(chunk)
        except (OSError, ValueError):
            pass

    def _write_stdin(self) -> None:
        stream = self.popen.stdin
        assert stream is not None
        while (data := self._outbox.get()) is not None:
            try:
                stream.write(data)
                stream.flush()
            except (OSError, ValueError) as exc:
                self.inbox.put((_WRITE_FAILED, exc))
                return
        try:
            stream.close()
        except OSError:
            pass

    def send(self, message: dict[str, Any]) -> None:
        """Queue one JSON line for the program's stdin (never blocks)."""
        self._outbox.put(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def exit_status(self) -> str:
        """Wait briefly for the program to exit, then describe how it ended."""
        try:
            code = self.popen.wait(EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            return "is still running"
        self._threads[1].join(EXIT_GRACE_S)  # let stderr drain into the ring
        if code < 0:
            try:
                return f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def stop(self, *, polite: bool) -> None:
        """End the program: close its stdin and wait a little if polite, then kill."""
        self._outbox.put(None)
        if polite:
            try:
                self.popen.wait(EXIT_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
        if os.name == "posix":
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()
        for thread in self._threads:
            thread.join(EXIT_GRACE_S)
        if not any(thread.is_alive() for thread in self._threads):
            for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                _close_quietly(stream)


def _close_quietly(stream: IO[bytes] | None) -> None:
    if stream is not None:
        try:
            stream.close()
        except OSError:
            pass


class AnswerFailure(Exception):
    """A request got no usable answer line (the process must be replaced): what the Answer's kind and message
    will be."""

    def __init__(self, kind: AnswerKind, message: str) -> None:
        super().__init__(message)
        self.kind: AnswerKind = kind
        self.message = message


def answer_object(line: bytes, request_id: int) -> dict[str, Any]:
    """The answer object of one complete answer line to request `request_id`: AnswerFailure (kind error, a
    one-line message starting with `answer to request N`) for a line that is not a JSON object with that id."""
    where = f"answer to request {request_id}"
    try:
        answer = bounded.loads(line, where)
    except bounded.InputError as error:
        excerpt = bounded.clip(line.decode("utf-8", errors="replace").rstrip("\n"), EXCERPT_CHARS)
        raise AnswerFailure(AnswerKind.ERROR, f"{error}; the line: {excerpt!r}; only protocol lines may go to "
                                              "stdout, logs belong on stderr") from None
    if not isinstance(answer, dict):
        raise AnswerFailure(AnswerKind.ERROR, f"{where} is a JSON {type(answer).__name__}, not an object")
    if "id" not in answer:
        raise AnswerFailure(AnswerKind.ERROR, f'{where} has no "id"')
    if type(answer["id"]) is not int or answer["id"] != request_id:
        raise AnswerFailure(AnswerKind.ERROR, f"{where} has the id {bounded.clip(repr(answer['id']), EXCERPT_CHARS)}")
    return answer


class ExecTarget(Target):
    """A target program started from ``argv`` and spoken to over the exec protocol.

    ``timeout`` bounds each case; ``start_timeout`` (default: the larger of
    ``timeout`` and 30 s) bounds starting the program and its hello, for the
    first start and for every restart.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = CASE_TIMEOUT_S,
        start_timeout: float | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self.argv = tuple(argv)
        self.timeout = timeout
        self.start_timeout = max(timeout, 30.0) if start_timeout is None else start_timeout
        self.max_line_bytes = max_line_bytes
        self._next_id = 1
        self._proc: _Process | None = None
        self.hello = self._start()

    def _start(self) -> Hello:
        """Start the program and do the hello; raise TargetStartError on any failure."""
        proc = _Process(self.argv, self.max_line_bytes)
        try:
            raw = self._exchange(proc, {"op": "hello", "protocol": PROTOCOL}, self.start_timeout)
            if raw.get("status") != ResultStatus.OK:
                raise ValueError(f'hello answer has status {quoted(raw.get("status"))}, not "ok": {quoted(raw)}')
            hello = Hello.from_dict({k: v for k, v in raw.items() if k != "id"})
        except (AnswerFailure, ValueError) as exc:
            proc.stop(polite=False)
            raise TargetStartError(
                f"target {list(self.argv)!r} failed its hello: {exc}", proc.stderr.text()
            ) from None
        self._proc = proc
        return hello

    def _exchange(self, proc: _Process, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and return the answer object with the right id, or raise AnswerFailure."""
        request_id = self._next_id
        self._next_id += 1
        where = f"answer to request {request_id}"
        proc.send({"id": request_id, **request})
        try:
            item, payload = proc.inbox.get(timeout=timeout)
        except queue.Empty:
            raise AnswerFailure(AnswerKind.TIMEOUT, f"no answer within {timeout:g} s; the target was killed") from None
        if item in (_EOF, _WRITE_FAILED):
            how = "closed its stdout" if item == _EOF else f"stopped reading its stdin ({payload})"
            raise AnswerFailure(AnswerKind.CRASHED, f"target {how} before answering and {proc.exit_status()}")
        if item == _PARTIAL:
            raise AnswerFailure(AnswerKind.CRASHED, f"{where}: the target ended its stdout in the middle of the line "
                                               f"(after {len(payload)} bytes, no newline) and {proc.exit_status()}")
        if item == _OVERSIZE:
            raise AnswerFailure(AnswerKind.ERROR, f"{where}: the line is longer than {self.max_line_bytes} bytes")
        return answer_object(payload, request_id)

    def execute(self, case: dict[str, Any]) -> Answer:
        """Send one case; restart the program first if the previous case ended it."""
        if self._proc is None:
            try:
                self._start()
            except TargetStartError as exc:
                return Answer(
                    kind=AnswerKind.CRASHED,
                    message=f"target could not be restarted: {exc.message}",
                    stderr_tail=exc.stderr_tail,
                )
        proc = self._proc
        assert proc is not None
        started = time.monotonic()
        try:
            answer = self._exchange(proc, {"op": "execute", "case": case}, self.timeout)
        except AnswerFailure as failure:
            elapsed = time.monotonic() - started
            proc.stop(polite=False)
            self._proc = None
            stderr_tail = proc.stderr.text() if failure.kind in (AnswerKind.TIMEOUT, AnswerKind.CRASHED) else ""
            return Answer(
                kind=failure.kind, message=failure.message, elapsed_s=elapsed, stderr_tail=stderr_tail
            )
        elapsed = time.monotonic() - started
        result = {k: v for k, v in answer.items() if k != "id"}
        problem = validate_result(case, result)
        if problem is not None:
            return Answer(kind=AnswerKind.ERROR, message=problem, elapsed_s=elapsed)
        return Answer(kind=AnswerKind.RESULT, result=result, elapsed_s=elapsed)

    def close(self) -> None:
        """Close the program's stdin, give it a moment to exit, then kill it."""
        if self._proc is not None:
            self._proc.stop(polite=True)
            self._proc = None
