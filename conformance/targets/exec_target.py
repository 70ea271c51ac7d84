"""The ``exec:<command line>`` target: any program speaking the exec protocol.

The program is started once and reused: JSON lines go to its stdin, answers
come back one line each on its stdout, and whatever it writes to stderr is kept
in a bounded ring buffer for crash reports. Its pipes are non-blocking and
pumped by the thread waiting for an answer (`_pump`: one poll over every
process's stdin, stdout, stderr and exit), so the suite never blocks on a pipe,
every wait on the target has a deadline, and no thread hands the bytes of a
request or an answer to another (POSIX: a pidfd tells a program's exit where
Linux has one, polling every EXIT_POLL_S elsewhere).

A case that times out or crashes the program gets the process killed; the
next case starts a fresh one. An answer that leaves the stream out of step
(a non-JSON line, a non-object, a wrong or missing id, an oversized line) also
gets the process restarted, so later answers cannot be mistaken for this one.
Answer lines are read by format.bounded (strict UTF-8, no NUL, nesting and
number limits); a line cut short by the program's exit is a crash.

The program runs in a session of its own; stopping it kills its whole process
group, and whatever else still holds its pipes (a detached descendant:
targets.holders), so that a crash is seen when the program exits, not a
timeout later, and nothing it started outlives the run or keeps a file
descriptor of the suite's. A start (the hello) is bounded by the case
timeout; after FAILED_STARTS_GIVE_UP starts in a row that failed, the target's
remaining cases are answered at once, as the last start failed (timeout or
crashed), saying so.
"""

from __future__ import annotations

import enum
import os
import select
import signal
import subprocess
import time
from collections import deque
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Collection, Generator, Iterable, Sequence

from ascendc_conformance.format import bounded, wire
from ascendc_conformance.format.case import DIGEST, REGION_DIGEST, REGION_FILL, Case, ResultStatus
from ascendc_conformance.format.defaults import CASE_TIMEOUT_S
from ascendc_conformance.format.errors import TargetStartError
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello, quoted
from ascendc_conformance.targets.base import Target, answer_of, tail
from ascendc_conformance.targets.holders import kill_holders, pipe_links

PROTOCOL = 1
#: Longest stdout line accepted; a longer one is an error, not a hang or an OOM.
DEFAULT_MAX_LINE_BYTES = bounded.MAX_LINE_BYTES
#: How much of the program's stderr is kept.
STDERR_RING_BYTES = 16 * 1024
#: Grace given to a dying process to exit and flush its stderr.
EXIT_GRACE_S = 1.0
#: How much of a malformed line its message quotes: enough to recognise a log line.
EXCERPT_CHARS = 120
#: Requests sent ahead to one process while it works (a pack's test has all its cases at once).
IN_FLIGHT = 8
#: Starts in a row that failed (a hello that timed out or failed) after which the target is given up: its
#: remaining cases are answered at once instead of each waiting for another start.
FAILED_STARTS_GIVE_UP = 3
#: How long stopping a program waits for its pipes to close before it kills what still holds them.
PIPES_GRACE_S = 0.2
#: How often a program's exit is polled for where the system gives no pidfd to wait on.
EXIT_POLL_S = 0.05
#: Most bytes read from a pipe at a time (what a Linux pipe holds).
READ_BYTES = 1 << 16
#: Most bytes read from a program's stdout at once when a write to it fails (as much as a pipe can hold on Linux).
WRITTEN_BYTES = 1 << 20


class Heard(enum.Enum):
    """What a process's `inbox` holds, in order: what its pipes and its exit said (each with a payload)."""

    LINE = "a line of stdout, its newline included"
    PARTIAL = "the last bytes of stdout, with no newline"
    OVERSIZE = "a line of stdout longer than the limit (dropped)"
    EOF = "the end of stdout"
    WRITE_FAILED = "stdin refused a request (the OSError)"
    EXITED = "the program exited"


class _StderrRing:
    """The last bytes a process wrote to stderr."""

    def __init__(self, limit: int) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._limit = limit

    def add(self, chunk: bytes) -> None:
        self._chunks.append(chunk)
        self._size += len(chunk)
        while self._size - len(self._chunks[0]) >= self._limit:
            self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        data = b"".join(self._chunks)
        return tail(data[-self._limit :].decode("utf-8", errors="replace"))


class LineCutter:
    """Cuts the chunks a stream gives into the items of its `out` deque: (Heard.LINE, a line, its newline
    included) for each line of at most `limit` bytes, (Heard.OVERSIZE, None) for each longer one (its bytes
    dropped as they come), then, at the end, (Heard.PARTIAL, the last line) if it has no newline, and
    (Heard.EOF, None). The same items whatever the chunks; a line is copied once, when its newline comes."""

    def __init__(self, limit: int, out: deque[tuple[Heard, Any]]) -> None:
        self._limit = limit
        self._out = out
        self._parts: list[bytes] = []   # the line so far (since the last newline)
        self._held = 0                  # its length
        self._oversize = False          # dropping the rest of a line longer than the limit

    def take(self, chunk: bytes) -> None:
        """Cut one chunk of the stream."""
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            piece = chunk[start : end + 1]   # the chunk itself when it is one whole line: not copied
            if self._oversize:
                self._oversize = False
            elif self._held + len(piece) > self._limit:
                self._out.append((Heard.OVERSIZE, None))
            else:
                self._out.append((Heard.LINE, b"".join((*self._parts, piece)) if self._parts else piece))
            self._parts.clear()
            self._held = 0
            start = end + 1
        if start == len(chunk) or self._oversize:
            return
        self._parts.append(chunk[start:])
        self._held += len(chunk) - start
        if self._held > self._limit:
            self._out.append((Heard.OVERSIZE, None))
            self._oversize = True
            self._parts.clear()
            self._held = 0

    def end(self) -> None:
        """The stream ended."""
        if self._parts:   # the program ended in the middle of a line
            self._out.append((Heard.PARTIAL, b"".join(self._parts)))
            self._parts.clear()
            self._held = 0
        self._out.append((Heard.EOF, None))


class _Process:
    """One running instance of the target program. Its pipes are moved by `_pump`: `send` queues a request for
    its stdin; what its stdout says (lines, an oversized line, the end) and its exit go to its `inbox` as
    (kind, payload), in order; its stderr to a ring."""

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
        streams = (self.popen.stdin, self.popen.stdout, self.popen.stderr)
        assert all(stream is not None for stream in streams), "all three are pipes"
        self._stdin, self._stdout, self._stderr = (stream.fileno() for stream in streams)  # type: ignore[union-attr]
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self._pipes = pipe_links(streams)
        self.inbox: deque[tuple[Heard, Any]] = deque()
        self._lines = LineCutter(max_line_bytes, self.inbox)
        self.stderr = _StderrRing(STDERR_RING_BYTES)
        self._unwritten: deque[memoryview] = deque()   # requests (or their rests) not yet taken by the pipe
        self._exit_fd = _pidfd(self.popen.pid)
        self._stdin_open = self._stdout_open = self._stderr_open = True
        self._exit_seen = False

    # What the poll watches, and what it found.

    def watched(self) -> list[tuple[int, int]]:
        """(file descriptor, poll events) for each pipe and the exit still to be watched."""
        fds = []
        if self._stdin_open and self._unwritten:
            fds.append((self._stdin, select.POLLOUT))
        if self._stdout_open:
            fds.append((self._stdout, select.POLLIN))
        if self._stderr_open:
            fds.append((self._stderr, select.POLLIN))
        if self._exit_fd is not None and not self._exit_seen:
            fds.append((self._exit_fd, select.POLLIN))
        return fds

    def polled_exit(self) -> bool:
        """Whether the exit is only seen by polling (no pidfd) and still to be seen."""
        return self._exit_fd is None and not self._exit_seen

    def ready(self, fd: int) -> None:
        """Move what the poll said file descriptor `fd` has ready."""
        if fd == self._stdin:
            self._write()
        elif fd == self._stdout:
            self._read_stdout()
        elif fd == self._stderr:
            self._read_stderr()
        elif fd == self._exit_fd:
            self._exited()

    def check_exit(self) -> None:
        """See the exit of a program whose exit no pidfd tells."""
        if self.polled_exit() and self.popen.poll() is not None:
            self._exited()

    def _exited(self) -> None:
        """Say the program exited: what it left holding its pipes must not hide its end."""
        self._exit_seen = True
        self.inbox.append((Heard.EXITED, None))

    # The pipes.

    def send(self, message: dict[str, Any]) -> None:
        """Queue one JSON line for the program's stdin, and give the pipe what it takes now (never blocks)."""
        self._unwritten.append(memoryview(wire.json_line(message)))
        self._write()

    def _write(self) -> None:
        while self._stdin_open and self._unwritten:
            data = self._unwritten[0]
            try:
                written = os.write(self._stdin, data)
            except BlockingIOError:
                return
            except OSError as exc:   # the program closed its stdin or ended
                self._unwritten.clear()
                self._stdin_open = False
                self._read_written()   # what it answered before is heard before the failed write
                self.inbox.append((Heard.WRITE_FAILED, exc))
                return
            if written < len(data):
                self._unwritten[0] = data[written:]
            else:
                self._unwritten.popleft()

    def _read_stdout(self) -> int:
        """Take one chunk of stdout (one at a time: a program that floods a pipe cannot keep the pump here): how
        many bytes (0: none for now, or its end)."""
        read = _read_into(self._stdout, self._lines.take)
        if read is None:
            self._stdout_open = False
            self._lines.end()
        return read or 0

    def _read_written(self) -> None:
        """Take what stdout holds now, to its end or to as much as a pipe holds (WRITTEN_BYTES): the answers a
        program wrote before it stopped reading its stdin, which a write failing now would otherwise be heard
        before."""
        taken = 0
        while self._stdout_open and taken < WRITTEN_BYTES:
            read = self._read_stdout()
            if not read:
                return
            taken += read

    def _read_stderr(self) -> None:
        """Take one chunk of stderr into the ring."""
        if _read_into(self._stderr, self.stderr.add) is None:
            self._stderr_open = False

    # Its end.

    def release_pipes(self) -> None:
        """The program has exited: kill the rest of its process group and whatever else holds its pipes, so
        that its stdout ends once what it wrote has been read."""
        _kill_group(self.popen.pid)
        kill_holders(self._pipes)

    def _drain(self, until: Callable[[], bool], seconds: float) -> bool:
        """Pump this process alone until `until()` or `seconds` have passed; whether `until()` came true."""
        deadline = time.monotonic() + seconds
        while not until():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            _pump([self], remaining)
        return True

    def exit_status(self) -> str:
        """Wait briefly for the program to exit, then describe how it ended."""
        try:
            code = self.popen.wait(EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            return "is still running"
        self.release_pipes()   # nothing it left behind keeps its stderr from ending
        self._drain(lambda: not self._stderr_open, EXIT_GRACE_S)   # what it wrote to stderr, into the ring
        if code < 0:
            try:
                return f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def stop(self, *, polite: bool) -> None:
        """End the program: close its stdin and wait a little if polite, then kill; close every pipe, once
        nothing outside its process group holds them (or whatever did is killed)."""
        self._unwritten.clear()
        self._close_stdin()
        if polite:
            try:
                self.popen.wait(EXIT_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(self.popen.pid)
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()
        if not self._drain(lambda: not (self._stdout_open or self._stderr_open), PIPES_GRACE_S):
            kill_holders(self._pipes)   # something outside the group holds the pipes
            self._drain(lambda: not (self._stdout_open or self._stderr_open), EXIT_GRACE_S)
        for stream in (self.popen.stdout, self.popen.stderr):
            _close_quietly(stream)
        self._stdout_open = self._stderr_open = False
        if self._exit_fd is not None:
            os.close(self._exit_fd)
            self._exit_fd = None
            self._exit_seen = True

    def _close_stdin(self) -> None:
        if self._stdin_open:
            self._stdin_open = False
            _close_quietly(self.popen.stdin)


def _pump(processes: Iterable[_Process], timeout: float) -> None:
    """Wait up to `timeout` seconds for a pipe or the exit of one of `processes` to be ready, and move whatever
    is: requests into stdin, stdout into lines, stderr into the ring, an exit into the inbox."""
    poller = select.poll()
    owners: dict[int, _Process] = {}
    polled = []
    for process in processes:
        for fd, events in process.watched():
            poller.register(fd, events)
            owners[fd] = process
        if process.polled_exit():
            polled.append(process)
    if polled:
        timeout = min(timeout, EXIT_POLL_S)
    for fd, _ in poller.poll(max(timeout, 0) * 1000):
        owners[fd].ready(fd)
    for process in polled:
        process.check_exit()


def _read_into(fd: int, take: Callable[[bytes], None]) -> int | None:
    """Give `take` what a non-blocking pipe has now, if anything (at most READ_BYTES): how many bytes (0: none
    for now), None at the pipe's end."""
    try:
        chunk = os.read(fd, READ_BYTES)
    except BlockingIOError:
        return 0
    except OSError:   # closed under us: its end
        return None
    if not chunk:
        return None
    take(chunk)
    return len(chunk)


def _pidfd(pid: int) -> int | None:
    """A file descriptor that polls readable when process `pid` exits (Linux 5.3+), or None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _kill_group(pid: int) -> None:
    """SIGKILL the process group the program leads (its session's: start_new_session)."""
    if os.name == "posix":
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _close_quietly(stream: IO[bytes] | None) -> None:
    if stream is not None:
        try:
            stream.close()
        except OSError:
            pass


class StartFailure(TargetStartError):
    """A start of the program (its hello) failed; `kind` is how: a hello that timed out is a timeout, anything
    else a crash."""

    def __init__(self, message: str, stderr_tail: str, kind: AnswerKind) -> None:
        super().__init__(message, stderr_tail)
        self.kind = kind


class AnswerFailure(Exception):
    """A request got no usable answer line (the process must be replaced): what the Answer's kind and message
    will be."""

    def __init__(self, kind: AnswerKind, message: str) -> None:
        super().__init__(message)
        self.kind: AnswerKind = kind
        self.message = message


def answer_object(line: bytes, request_id: int, others: Collection[int] = ()) -> dict[str, Any]:
    """The answer object of one complete answer line, to request `request_id` (the oldest unanswered one) or
    to one of `others` (requests in flight after it): AnswerFailure (kind error, a one-line message starting
    with `answer to request N`, N the oldest) for a line that is not a JSON object with one of those ids."""
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
    if type(answer["id"]) is not int or (answer["id"] != request_id and answer["id"] not in others):
        raise AnswerFailure(AnswerKind.ERROR, f"{where} has the id {bounded.clip(repr(answer['id']), EXCERPT_CHARS)}")
    return answer


_Answered = dict[int, tuple[Case, Answer]]   # index of a case of execute_many -> the case and its answer


@dataclass
class _Request:
    """A request in flight: its id, the case and its place among the cases of `execute_many`, when it was sent
    and whether it asked for the regions' digests."""

    id: int
    index: int
    case: Case
    sent: float
    digests: bool


@dataclass
class _Slot:
    """One of the target's processes (None until started, and after it was killed) and its requests in flight,
    oldest first. `since`: when it last answered, or when its oldest request was sent if that is later: the
    next answer is due `timeout` seconds after it."""

    process: _Process | None = None
    in_flight: deque[_Request] = field(default_factory=deque)
    since: float = 0.0


class ExecTarget(Target):
    """A target program started from ``argv`` and spoken to over the exec protocol.

    ``timeout`` bounds each case (from its request, or from the previous answer of the same process when
    requests queue up); ``start_timeout`` (default: ``timeout``) bounds starting the program and its hello,
    for the first start and for every restart; after FAILED_STARTS_GIVE_UP restarts in a row that failed, the
    remaining cases are answered at once as the last one was. ``processes`` instances of the program
    share `execute_many`'s cases, each with up to ``in_flight`` requests sent ahead: a program that answers
    in order works unchanged, one that answers out of order is matched by the ids. A timeout, a crash or an
    answer that leaves the stream out of step is the verdict of the process's oldest unanswered request (the
    one an in-order program was working on); the process is killed and its other requests are sent again.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = CASE_TIMEOUT_S,
        start_timeout: float | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        processes: int = 1,
        in_flight: int = IN_FLIGHT,
    ) -> None:
        self.argv = tuple(argv)
        self.timeout = timeout
        self.start_timeout = timeout if start_timeout is None else start_timeout
        self.max_line_bytes = max_line_bytes
        self.in_flight = in_flight
        self._next_id = 1
        self._slots = [_Slot() for _ in range(processes)]
        self._failed_starts: list[StartFailure] = []   # the starts in a row that failed (none since one worked)
        self.hello = self._start(self._slots[0])
        self._recipes = REGION_FILL in self.hello.extensions   # regions sent by their fill recipe where known

    def _start(self, slot: _Slot) -> Hello:
        """Start the slot's program and do the hello; raise StartFailure (a TargetStartError) on any failure."""
        try:
            proc = _Process(self.argv, self.max_line_bytes)
        except TargetStartError as exc:
            raise StartFailure(exc.message, exc.stderr_tail, AnswerKind.CRASHED) from None
        request_id = self._take_id()
        try:
            proc.send({"id": request_id, "op": "hello", "protocol": PROTOCOL})
            raw = self._hello_answer(proc, request_id)
            if raw.get("status") != ResultStatus.OK:
                raise ValueError(f'hello answer has status {quoted(raw.get("status"))}, not "ok": {quoted(raw)}')
            hello = Hello.from_dict({k: v for k, v in raw.items() if k != "id"})
        except (AnswerFailure, ValueError) as exc:
            proc.stop(polite=False)
            kind = exc.kind if isinstance(exc, AnswerFailure) and exc.kind is AnswerKind.TIMEOUT else AnswerKind.CRASHED
            raise StartFailure(f"target {list(self.argv)!r} failed its hello: {exc}", proc.stderr.text(),
                               kind) from None
        slot.process = proc
        return hello

    def _restart(self, slot: _Slot) -> Answer | None:
        """Start the slot's program again: None if it started, else the answer of the case it was started for
        (a hello that timed out is a timeout, any other failure a crash). After FAILED_STARTS_GIVE_UP failures in
        a row no start is tried again: every later case is answered at once as the last one was, saying so."""
        if len(self._failed_starts) >= FAILED_STARTS_GIVE_UP:
            last = self._failed_starts[-1]
            return Answer(kind=last.kind, stderr_tail=last.stderr_tail,
                          message=f"not sent: the target failed to start {FAILED_STARTS_GIVE_UP} times in a row, and "
                                  f"its remaining cases are answered so at once (the last start: {last.message})")
        try:
            self._start(slot)
        except StartFailure as failure:
            self._failed_starts.append(failure)
            return Answer(kind=failure.kind, message=f"target could not be restarted: {failure.message}",
                          stderr_tail=failure.stderr_tail)
        self._failed_starts.clear()
        return None

    def _take_id(self) -> int:
        request_id = self._next_id
        self._next_id += 1
        return request_id

    def _hello_answer(self, proc: _Process, request_id: int) -> dict[str, Any]:
        """The answer object to the hello `request_id` of a starting process, or AnswerFailure."""
        deadline = time.monotonic() + self.start_timeout
        while True:
            while not proc.inbox:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AnswerFailure(AnswerKind.TIMEOUT,
                                        f"no answer within {self.start_timeout:g} s; the target was killed")
                _pump([proc], remaining)
            item, payload = proc.inbox.popleft()
            if item is not Heard.EXITED:
                break
            proc.release_pipes()   # the end of its stdout (a crash) follows, once nothing else holds the pipe
        _check_item(proc, item, payload, request_id, self.max_line_bytes)
        return answer_object(payload, request_id)

    def execute(self, case: Case) -> Answer:
        """Send one case; restart the program first if the previous case ended it."""
        return next(self.execute_many([case]))[1]

    def execute_many(self, cases: Iterable[Case], *, digests: bool = False) -> Generator[tuple[Case, Answer], None, None]:
        """Each case with its answer, in the order of the cases; up to `in_flight` requests in flight on each
        process (a process that ended is restarted when it is next needed). Closing the iterator early waits
        for the answers still in flight (dropping them), so that none is taken for the answer to a later
        request. `digests`: ask for the regions' SHA-256 instead of their bytes, if the hello announces
        region-digest (Answer.digests)."""
        digests = digests and REGION_DIGEST in self.hello.extensions
        pending = deque(enumerate(cases))   # (index, case): not sent yet (or to be sent again)
        answered: dict[int, tuple[Case, Answer]] = {}
        next_index = 0
        try:
            while True:
                self._send_pending(pending, answered, limit=next_index + len(self._slots) * self.in_flight,
                                   digests=digests)
                if next_index in answered:
                    yield answered.pop(next_index)
                    next_index += 1
                elif any(slot.in_flight for slot in self._slots):
                    self._receive(pending, answered)
                else:
                    return
        finally:
            while any(slot.in_flight for slot in self._slots):
                self._receive(deque(), {})

    def _send_pending(self, pending: deque[tuple[int, Case]], answered: _Answered, limit: int, digests: bool) -> None:
        """Send cases while a process has room, and while they are fewer than `limit` ahead of the one awaited
        (a slow case holds back only so many answers); `digests`: asking for the regions' SHA-256."""
        while pending and pending[0][0] < limit:
            slot = min(self._slots, key=lambda s: (len(s.in_flight), s.process is None))
            if len(slot.in_flight) >= self.in_flight:
                return
            index, case = pending.popleft()
            if slot.process is None:
                failed = self._restart(slot)
                if failed is not None:
                    answered[index] = (case, failed)
                    continue
            now = time.monotonic()
            if not slot.in_flight:
                slot.since = now
            request = _Request(self._take_id(), index, case, now, digests)
            slot.in_flight.append(request)
            assert slot.process is not None, "started above"
            message = {"id": request.id, "op": "execute", "case": case.to_json(recipes=self._recipes)}
            if digests:
                message["digest"] = DIGEST
            slot.process.send(message)

    def _receive(self, pending: deque[tuple[int, Case]], answered: _Answered) -> None:
        """Wait for the next thing a process with requests in flight does (or the first deadline) and record
        the answer it makes; a process that failed is killed and its other requests go back to `pending`.
        What an idle process sends stays in its inbox until it is next asked (a line it was never asked for
        is then out of step; its exit, a crash)."""
        busy = [slot for slot in self._slots if slot.in_flight]
        while True:
            slot = next((slot for slot in busy if slot.process is not None and slot.process.inbox), None)
            if slot is not None:
                break
            late = min(busy, key=lambda slot: slot.since)
            remaining = late.since + self.timeout - time.monotonic()
            if remaining <= 0:
                self._fail(late, AnswerFailure(AnswerKind.TIMEOUT, f"no answer within {self.timeout:g} s; the "
                                                                   "target was killed"), pending, answered)
                return
            _pump([slot.process for slot in self._slots if slot.process is not None], remaining)
        process = slot.process
        assert process is not None, "a slot with requests in flight has its process"
        item, payload = process.inbox.popleft()
        if item is Heard.EXITED:   # the end of its stdout follows what it wrote, once nothing else holds the pipe
            process.release_pipes()
            return
        oldest = slot.in_flight[0]
        try:
            _check_item(process, item, payload, oldest.id, self.max_line_bytes)
            answer = answer_object(payload, oldest.id, {request.id for request in slot.in_flight})
        except AnswerFailure as failure:
            self._fail(slot, failure, pending, answered)
            return
        request = next(request for request in slot.in_flight if request.id == answer["id"])
        slot.in_flight.remove(request)
        now = time.monotonic()
        elapsed = now - max(request.sent, slot.since)
        slot.since = now
        answered[request.index] = (request.case, answer_of(request.case, answer, elapsed, digests=request.digests))

    def _fail(self, slot: _Slot, failure: AnswerFailure, pending: deque[tuple[int, Case]], answered: _Answered) -> None:
        """The slot's oldest request gets `failure` as its answer; its process is killed, its other requests
        are sent again (to a restarted process)."""
        proc, oldest = slot.process, slot.in_flight.popleft()
        assert proc is not None
        elapsed = time.monotonic() - max(oldest.sent, slot.since)
        proc.stop(polite=False)
        slot.process = None
        stderr_tail = proc.stderr.text() if failure.kind in (AnswerKind.TIMEOUT, AnswerKind.CRASHED) else ""
        answered[oldest.index] = (oldest.case, Answer(kind=failure.kind, message=failure.message, elapsed_s=elapsed,
                                                      stderr_tail=stderr_tail))
        pending.extendleft(reversed([(request.index, request.case) for request in slot.in_flight]))
        slot.in_flight.clear()

    def close(self) -> None:
        """Close the programs' stdin, give them a moment to exit, then kill them."""
        for slot in self._slots:
            if slot.process is not None:
                slot.process.stop(polite=True)
                slot.process = None


def _check_item(proc: _Process, item: Heard, payload: Any, request_id: int, max_line_bytes: int) -> None:
    """AnswerFailure unless the process sent a complete line (the answer to request `request_id`, the oldest
    it has in flight, or a later one)."""
    where = f"answer to request {request_id}"
    if item in (Heard.EOF, Heard.WRITE_FAILED):
        how = "closed its stdout" if item is Heard.EOF else f"stopped reading its stdin ({payload})"
        raise AnswerFailure(AnswerKind.CRASHED, f"target {how} before answering and {proc.exit_status()}")
    if item is Heard.PARTIAL:
        raise AnswerFailure(AnswerKind.CRASHED, f"{where}: the target ended its stdout in the middle of the line "
                                                f"(after {len(payload)} bytes, no newline) and {proc.exit_status()}")
    if item is Heard.OVERSIZE:
        raise AnswerFailure(AnswerKind.ERROR, f"{where}: the line is longer than {max_line_bytes} bytes")
