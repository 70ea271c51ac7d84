"""Serve one buggy target of tests.buggy.targets over the exec protocol (JSON lines on stdin/stdout).

    python tests/buggy/exec_buggy.py DataCopyDstGapIgnored

is the exec twin of ``python:tests.buggy.targets:DataCopyDstGapIgnored``; use it as
``exec:python tests/buggy/exec_buggy.py <BugName>`` (the repository root is put on sys.path here, so the
script runs from any directory). Serving is conformance.targets.serve's.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.targets.serve import main as serve_main  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isidentifier():
        print("usage: python tests/buggy/exec_buggy.py <BugName>  (a class of tests/buggy/targets.py)", file=sys.stderr)
        return 2
    return serve_main([f"python:tests.buggy.targets:{argv[0]}"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
