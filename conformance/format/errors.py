"""Exception classes shared by the whole conformance suite.

Every error the suite raises on purpose derives from ConformanceError, so a
command-line entry point can catch that one class and print a clean message
instead of a traceback.
"""
from __future__ import annotations

from typing import Iterable


class ConformanceError(Exception):
    """Base class of every error raised on purpose by the suite."""


class SuiteFailure(ConformanceError):
    """The suite could not finish what it was asked: its own failure, never a target's verdict (exit code 3,
    format.exits.ExitCode.SUITE)."""


class MachineFault(SuiteFailure):
    """The machine would not let the suite write a file it must (a full disk, a read-only file system, a name
    or path too long for it); the message names the path and says what was kept."""

    def __init__(self, path: object, error: OSError) -> None:
        super().__init__(f"cannot write {path}: {error.strerror or error}; the suite could not finish (what it "
                         "wrote before is kept)")
        self.path = path
        self.errno = error.errno


class TargetSpecError(ConformanceError):
    """A target spec string (reference, exec:..., python:...) cannot be used as given."""


class TargetStartError(ConformanceError):
    """A target could not be started or its hello failed, so no run can start.

    ``message`` says what failed; ``stderr_tail`` keeps the last output the
    target wrote to stderr (or a traceback tail for an in-process target).
    str() of the error shows both.
    """

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail)
        self.message = message
        self.stderr_tail = stderr_tail

    def __str__(self) -> str:
        if not self.stderr_tail:
            return self.message
        return f"{self.message}\n--- target stderr (tail) ---\n{self.stderr_tail}"


class CaseError(ConformanceError):
    """A case or result does not follow the pinned format v1; the message names the key and the problem."""


class ReadingError(ConformanceError):
    """A reading (`--reading POINT=ALT | SET`) names an unknown point, alternative or set, or an alternative
    the reference cannot compute; the message lists what is known."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean X?)` when `word` looks like a misspelling of one of `known` (case aside), else ""."""
    import difflib   # here, not at the top: every pytest run imports this module (the plugin's options)

    names = {name.lower(): name for name in known}
    close = difflib.get_close_matches(word.lower(), list(names), n=1, cutoff=0.6)
    return f" (did you mean {names[close[0]]}?)" if close else ""
