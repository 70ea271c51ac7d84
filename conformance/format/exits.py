"""The exit codes of `ascendc-conformance` and of a conformance run (the plugin's too), each defined once.

0, 1, 3, 4 and 5 are pytest's own codes where a run has them (pytest's internal error is 3: the suite's own
failure as well); 2 is a usage error found before anything ran.
"""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0              # run: the target conforms on what was run; other verbs: done
    FAILED = 1          # run: the target does not conform
    USAGE = 2           # a usage error (an option, a file, the target's start): nothing was run
    SUITE = 3           # the suite could not finish (its own error: a test it could not draw or judge); every
                        # result written before is kept
