"""What the tests ask of the processes a target leaves behind."""
from __future__ import annotations

from pathlib import Path


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
