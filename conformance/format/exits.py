"""The exit codes of `ascendc-conformance` and of a conformance run (the plugin's too), each defined once.

0, 1, 3, 4 and 5 are pytest's own codes where a run has them (pytest's internal error is 3: the suite's own
failure as well); 2 is a usage error found before anything ran (pytest's 2, an interrupted session, is a run's
130 instead, as a shell reports a process ended by SIGINT).
"""
from __future__ import annotations

import textwrap
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0              # run: the target conforms on what was run; other verbs: done
    FAILED = 1          # run: the target does not conform; spec check: the spec is broken; replay: still fails
    USAGE = 2           # a usage error (an option, a file, the target's start): nothing was run
    SUITE = 3           # the suite could not finish: the machine would not let it write (a full disk, ...), or
                        # its own internal error; every result written before is kept
    PLUGIN_USAGE = 4    # the plugin: a usage error (pytest's 4; `run` checks -k itself, a usage error: 2)
    NO_TESTS = 5        # run: no test was selected (e.g. by -k)
    INTERRUPTED = 130   # SIGINT (Ctrl-C): stopped after writing what it had


_COMMON = (f"{ExitCode.USAGE} a usage error (nothing was run); {ExitCode.SUITE} the suite could not finish (the "
          f"machine would not let it write: a full disk, a read-only file system, a path too long; or its own "
          f"internal error), every result written before is kept; {ExitCode.INTERRUPTED} interrupted (SIGINT), "
          "after writing what it had")
"""What the codes every verb shares mean."""


def help_text(own: str, extra: str = "") -> str:
    """The `Exit codes:` paragraph of a help text: a verb's `own` codes (0, 1), the codes every verb shares,
    and `extra` ones (a run's 4 and 5), wrapped for a terminal."""
    return textwrap.fill(f"Exit codes: {own}; {_COMMON}" + (f"; {extra}" if extra else "") + ".", width=100)
