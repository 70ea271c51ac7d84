"""One run per report directory: a run holds an exclusive lock on `<report dir>/.ascendc-run.lock` from its start
to its end, so that two runs never write one results.jsonl (whose reports would mix their verdicts).

The lock is fcntl.flock on the lock file, taken without waiting: a second run given the same directory while
the first holds it is refused before it starts, on one line naming the directory and the holder, whose pid,
host, start time and command the holder wrote into the lock file. The kernel drops the lock when the holder's
process ends, however it ends (killed, crashed): a lock file left behind never blocks a later run. The file
itself stays (removed, it would let two runs lock two different files of one name). Only the process that
writes results.jsonl (the controlling one, never an xdist worker) takes it.
"""
from __future__ import annotations

import datetime
import fcntl
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import IO, Any

from ascendc_conformance.format import bounded
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.errors import ConformanceError

LOCK_FILE = ".ascendc-run.lock"
HOLDER_BYTES = 4096     # the most of a lock file read back (a holder writes a few hundred bytes)
COMMAND_CHARS = 300     # how much of the holder's command line the lock file keeps


class ReportDirBusy(ConformanceError):
    """Another run holds the report directory; the message names the directory and that run."""


class ReportLock:
    """The lock a run holds on its report directory (`acquire`; `release` when the run ends)."""

    def __init__(self, directory: Path, handle: IO[str]) -> None:
        self.directory = directory
        self._handle: IO[str] | None = handle

    @classmethod
    def acquire(cls, directory: Path) -> ReportLock:
        """Lock `directory` for this process and write who holds it; ReportDirBusy while another run holds it,
        ConformanceError when the lock file cannot be made or locked."""
        path = directory / LOCK_FILE
        try:
            handle = open(path, "a+", encoding="utf-8")   # made if need be, the holder's text left as it is
        except OSError as error:
            raise ConformanceError(f"cannot create the lock file {path} ({error.strerror or error})") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise ReportDirBusy(f"{directory} is the report directory of another run, which is still running "
                                f"({holder(path)}); give this run another directory, or wait for that one to end")
        except OSError as error:
            handle.close()
            raise ConformanceError(f"cannot lock {path} ({error.strerror or error}); the report directory must "
                                   "be on a file system that supports file locks") from None
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(_this_run(), sort_keys=True) + "\n")
        handle.flush()
        return cls(directory, handle)

    def release(self) -> None:
        """Unlock (the lock file is emptied: nobody holds it); again is a no-op."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            handle.seek(0)
            handle.truncate()
        except OSError:   # a full disk cannot keep the kernel from dropping the lock at close
            pass
        finally:
            handle.close()


def _this_run() -> dict[str, Any]:
    """pid, host, start time and command line of this process (its program and script as their names only)."""
    words = list(getattr(sys, "orig_argv", sys.argv)) or ["?"]
    for index in range(min(2, len(words))):
        if not words[index].startswith("-"):   # `python -m pytest` keeps its module name
            words[index] = Path(words[index]).name
    command = shlex.join(words)
    return {"pid": os.getpid(), "host": platform.node(),
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": clip(command, COMMAND_CHARS)}


def holder(path: Path) -> str:
    """Who holds the lock, as its holder wrote it: `pid 123 on host-a since <time>: <command>`."""
    try:
        data = bounded.loads(bounded.read_file(path, HOLDER_BYTES), str(path))
        return (f"pid {int(data['pid'])} on {clip(str(data['host']), 80)} since {clip(str(data['started']), 40)}: "
                f"{clip(str(data['command']), COMMAND_CHARS)}")
    except (OSError, bounded.InputError, KeyError, TypeError, ValueError):
        return f"its pid, host and command are not in {path} yet"
