"""results.jsonl: the run's verdicts, appended as they happen so that a killed run keeps what it found.

One JSON object per line, discriminated by "record":

- "run" (first line; once per run, written by the controlling process):
  {"record": "run", "started": ISO-8601, "target": "<target spec>", "hello": {...},
   "suite_version": "...", "spec_digest": "...", "profile": "quick|ci|full", "seed": int|null,
   "products": [...], "apis": [...], "shard": "I/N"|null, "workers": int, "machine": {...},
   "command": "<how to re-run>"}
- "test" (one per conformance test, when it finishes; from any xdist worker):
  {"record": "test", "test_id": "test_legal[atlas-a2-DataCopy-GM->VECIN-half]",
   "kind": "legal|illegal|boundary", "product": str|null, "api": str|null, "route": "GM->VECIN"|null,
   "src_dtype": str|null, "dst_dtype": str|null, "rule": str|null, "variant": str|null,
   "verdict": "<the test's verdict: the worst of its cases, or skipped>",
   "counts": {"<outcome>": n, ...}, "cases": n,
   "tags": {"path:<label>": n, "hit:<rule>": n, "boundary:<rule>:min|max": n, "fault:<rule>": n, ...},
   "disputed": {"<rule id>": {"matches_default": n, "differs": n}},
   "message": str, "diff": {...}|null, "replay": "<path relative to the report dir>"|null,
   "replay_command": str|null, "duration_s": float, "waiver": {...}|null, "skipped_reason": str|null}
- "end" (last line): {"record": "end", "finished": ISO-8601, "exit_status": int}

Outcomes are those of conformance.verdict (pass, fail, missed-reject, false-reject, error, timeout, crashed,
not-supported, waived, disputed) plus "skipped" for tests that did not run (e.g. a legal boundary no path can
reach under the product's capacities: skipped_reason says "unreachable: ...").
"""
from __future__ import annotations

import fcntl
import json
from pathlib import Path
from typing import Any, Iterator

from conformance.errors import ConformanceError

RESULTS_FILE = "results.jsonl"


class ResultsError(ConformanceError):
    """A results file cannot be read; the message names the file and line."""


def append(report_dir: Path, record: dict[str, Any]) -> None:
    """Append one record as one line, under an exclusive lock (xdist workers share the file)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, sort_keys=True, default=str) + "\n"
    with open(report_dir / RESULTS_FILE, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            handle.write(line)
            handle.flush()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a results file; a truncated last line (a killed run) is skipped, other bad lines are errors."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            if number == len(lines):
                return
            raise ResultsError(f"{path}:{number}: not a JSON record ({error.msg})") from None
        if not isinstance(record, dict) or "record" not in record:
            raise ResultsError(f"{path}:{number}: expected an object with a 'record' key")
        yield record
