"""The processes a target leaves holding its pipes: found in /proc and killed, so that none outlives the run.

An exec target runs in a session and process group of its own, and the whole group is killed when it is
stopped. A descendant that left the group (a daemon that called setsid(), a detached helper) escapes that
kill; if it inherited the target's stdout it keeps the pipe open, and the suite would never see the end of the
target's output: every crash would wait a full timeout, the suite's ends of the pipes would stay open, and the
descendant would outlive the run. `kill_holders` kills every process but this one that holds one of the pipes
(Linux's /proc/<pid>/fd; where there is no /proc it finds none). A detached descendant that closed the pipes
cannot hold the run up, and is left alone.
"""
from __future__ import annotations

import os
import signal
from typing import IO, Iterable

PROC = "/proc"


def pipe_links(streams: Iterable[IO[bytes] | None]) -> frozenset[str]:
    """What /proc/<pid>/fd/<n> links to for each open stream: `pipe:[<inode>]` (both ends of a pipe share it)."""
    links = set()
    for stream in streams:
        if stream is None:
            continue
        try:
            links.add(f"pipe:[{os.fstat(stream.fileno()).st_ino}]")
        except (OSError, ValueError):   # a stream already closed
            continue
    return frozenset(links)


def holders(links: frozenset[str]) -> list[int]:
    """The pids of the processes other than this one that hold a file descriptor linking to one of `links`."""
    if not links:
        return []
    own = os.getpid()
    found = []
    try:
        entries = os.scandir(PROC)
    except OSError:
        return []
    with entries:
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == own:
                continue
            if _holds(f"{PROC}/{entry.name}/fd", links):
                found.append(int(entry.name))
    return found


def _holds(fd_dir: str, links: frozenset[str]) -> bool:
    try:
        with os.scandir(fd_dir) as fds:
            for fd in fds:
                try:
                    if os.readlink(fd.path) in links:
                        return True
                except OSError:   # closed meanwhile
                    continue
    except OSError:   # gone meanwhile, or another user's
        return False
    return False


def kill_holders(links: frozenset[str]) -> list[int]:
    """SIGKILL every other process holding one of the pipes `links`; the pids it killed."""
    killed = []
    for pid in holders(links):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
        killed.append(pid)
    return killed
