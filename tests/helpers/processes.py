"""What the tests ask of the processes a target leaves behind."""
from __future__ import annotations

import time
from pathlib import Path

KILL_GRACE_S = 5.0
"""How long a process SIGKILLed may take to die: the kernel acts on the signal when it next schedules the process,
which a loaded machine may put off."""


def running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (a killed orphan stays one where PID 1 does not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def recorded(pids: Path) -> list[int]:
    """The pids a fake target wrote, one a line (tests/fixtures/targets/fake_detached.py)."""
    return [int(pid) for pid in pids.read_text().split()] if pids.is_file() else []


def left_running(pids: list[int]) -> list[int]:
    """The processes of `pids` still running once each killed one has had KILL_GRACE_S to die."""
    deadline = time.monotonic() + KILL_GRACE_S
    while (alive := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive
