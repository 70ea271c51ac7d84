"""results.jsonl: the run's verdicts, appended as they happen so that a killed run keeps what it found.

One JSON object per line, discriminated by "record":

- "run" (first line; once per run, written by the controlling process):
  {"record": "run", "started": ISO-8601, "target": "<target spec>", "hello": {...},
   "suite_version": "...", "spec_digest": "...", "profile": "quick|ci|full", "seed": int|null,
   "products": [...], "apis": [...], "reading": "<label>", "reading_choices": {"<point>": "<alternative>"},
   "shard": "I/N"|null, "workers": int, "machine": {...},
   "command": "<how to re-run>"}
- "test" (one per conformance test, when it finishes; written by the controlling process from the test's
  report, so also for tests run on xdist workers, and for a test whose worker died, as "crashed"):
  {"record": "test", "test_id": "test_legal[atlas-a2-DataCopy-GM->VECIN-half]",
   "kind": "legal|illegal|boundary", "product": str|null, "api": str|null, "route": "GM->VECIN"|null,
   "src_dtype": str|null, "dst_dtype": str|null, "rule": str|null, "variant": str|null,
   "verdict": "<the test's verdict: the worst of its cases, or skipped>",
   "counts": {"<outcome>": n, ...}, "cases": n,
   "tags": {"path:<label>": n, "hit:<rule>": n, "boundary:<rule>:min|max": n, "fault:<rule>": n, ...},
   "disputed": {"<point>": {"<reading of the point followed: seed | an alternative | none>": n}},
   "dispute_examples": {"<point>": {"<reading>": {params of the first such case}}},
   "message": str, "diff": {...}|null, "replay": "<path relative to the report dir>"|null,
   "replay_command": str|null, "duration_s": float, "waiver": {...}|null, "skip": "not-supported|not-validating|unreachable|needs-extension"|null,
   "skipped_reason": str|null}
- "end" (last line): {"record": "end", "finished": ISO-8601, "exit_status": int}

`read` checks every line as it reads it (format.bounded: strict JSON of at most MAX_RECORD_BYTES) against
schema/results-v1.schema.json: the types of every field above, a known profile, verdict and skip reason.

Outcomes are those of ascendc_conformance.judge.verdict (pass, fail, missed-reject, false-reject, error, timeout, crashed,
not-supported, waived, disputed) plus "skipped" for tests that did not run (e.g. a legal boundary no path can
reach under the product's capacities: skipped_reason says "unreachable: ...").
"""
from __future__ import annotations

import fcntl
import json
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from ascendc_conformance.format import bounded, schemas
from ascendc_conformance.format.bounded import SHOWN_CHARS, InputError, clip, shown
from ascendc_conformance.format.defaults import PROFILES
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.outcome import Outcome, SkipReason

RESULTS_FILE = "results.jsonl"
RECORD_KINDS = ("run", "test", "end")
MAX_RECORD_BYTES = 16 * 1024 * 1024
"""The longest line read: a record takes a few KiB (a target's text is cut to TARGET_TEXT_CHARS); the cap
only stops a file that is no results file."""


class ResultsError(ConformanceError):
    """A results file cannot be read; the message names the file and line."""


def freeze(value: Any) -> Any:
    """Read-only views all the way down (dicts become mappingproxies, lists tuples)."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Plain JSON-able data back from freeze's views."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    return value


def case_summary(case: Mapping) -> dict[str, Any]:
    """What a person needs to see of a case (no memory images): product, API, route, dtypes, params."""
    src, dst = case.get("src") or {}, case.get("dst") or {}
    return {"product": case.get("product"), "api": case.get("api"),
            "route": f"{src.get('position')}->{dst.get('position')}", "src_dtype": src.get("dtype"),
            "dst_dtype": dst.get("dtype"), "src_address": src.get("address"), "dst_address": dst.get("address"),
            "params": dict(case.get("params") or {})}


def format_params(summary: Mapping | None) -> str:
    """One line: `<api> <product> <route> <dtype> {params}` of a case summary ("" without one)."""
    if not summary:
        return ""
    dtype = summary["src_dtype"] if summary["src_dtype"] == summary["dst_dtype"] else \
        f"{summary['src_dtype']}->{summary['dst_dtype']}"
    params = ", ".join(f"{name}={value}" for name, value in summary["params"].items())
    return f"{summary['api']} {summary['product']} {summary['route']} {dtype} {{{params}}}"


@dataclass(frozen=True)
class Cause:
    """What a failure is about: API x route x verdict x diff class x rule. Failures of one cause are grouped
    in the reports; a run shrinks only the first failure of each (API, route, verdict, diff class)."""

    api: str
    route: str
    verdict: Outcome
    diff_class: str   # the diff's classes joined by "+", "" for a failure without a memory diff
    rule: str         # the rule of a fault or bound test, "" for a legal test

    @property
    def shrink_key(self) -> tuple[str, str, Outcome, str]:
        return (self.api, self.route, self.verdict, self.diff_class)

    @property
    def label(self) -> str:
        parts = [self.api, self.route, self.verdict.value, self.diff_class, self.rule]
        return " / ".join(part for part in parts if part)

    def to_json(self) -> dict[str, str]:
        return {"api": self.api, "route": self.route, "verdict": self.verdict.value, "diff_class": self.diff_class,
                "rule": self.rule, "label": self.label}


def diff_class(diff: Mapping | None) -> str:
    """The classes of a memory diff (verdict.diff), joined by "+"; "" for none."""
    return "+".join(sorted((diff or {}).get("runs_by_class") or ())) if diff else ""


@dataclass(frozen=True)
class TestRecord:
    """One conformance test as a "test" record of results.jsonl: the one definition of its fields, written by
    the run (ascendc_conformance.runner.session) and read by the reports (reports.model.TestResult extends it)."""

    __test__ = False  # not a pytest test class

    test_id: str
    kind: str
    verdict: Outcome
    product: str | None = None
    api: str | None = None
    route: str | None = None
    src_dtype: str | None = None
    dst_dtype: str | None = None
    rule: str | None = None
    variant: str | None = None
    counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    cases: int = 0
    tags: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    disputed: Mapping[str, Mapping[str, int]] = field(default_factory=lambda: MappingProxyType({}))
    dispute_examples: Mapping[str, Mapping[str, Mapping]] = field(default_factory=lambda: MappingProxyType({}))
    message: str = ""
    diff: Mapping | None = None
    replay: str | None = None
    replay_command: str | None = None
    duration_s: float = 0.0
    waiver: Mapping | None = None
    skip: SkipReason | None = None
    skipped_reason: str | None = None
    case: Mapping | None = None   # case_summary of the (smallest) failing case
    other_rule: int = 0   # illegal cases the target rejected naming only rules the case does not break

    # The fields a test's subject is described by (set by the suite before the test runs).
    SUBJECT = ("product", "api", "route", "src_dtype", "dst_dtype", "rule", "variant")

    @property
    def cause(self) -> Cause | None:
        """What the failure is about; None for a test that did not fail."""
        if not self.verdict.is_failure:
            return None
        case = self.case or {}
        return Cause(api=self.api or case.get("api") or "", route=case.get("route") or self.route or "",
                     verdict=self.verdict, diff_class=diff_class(self.diff), rule=self.rule or "")

    def to_json(self) -> dict:
        record = {"record": "test"}
        record.update((f.name, thaw(getattr(self, f.name))) for f in fields(TestRecord))
        return record

    @classmethod
    def from_json(cls, record: Mapping, where: str = "", **extra: Any) -> "TestRecord":
        """A test record as `read` yields it (its fields' types checked against results-v1), frozen (`extra`:
        the fields a subclass adds); ResultsError naming `where` and the field for a verdict or skip reason the
        suite does not know."""
        try:
            verdict = Outcome.parse(record["verdict"])
        except ValueError as error:
            raise ResultsError(f"{where}: test record: 'verdict': {error}") from None
        try:
            skip = SkipReason(record["skip"]) if record.get("skip") else None
        except ValueError:
            raise ResultsError(f"{where}: test record: 'skip': unknown skip reason "
                               f"{clip(repr(record['skip']), SHOWN_CHARS)}; expected one of "
                               f"{', '.join(reason.value for reason in SkipReason)}") from None
        counts = {k: int(v) for k, v in (record.get("counts") or {}).items()}
        disputed = {point: {name: int(n) for name, n in seen.items()}
                    for point, seen in (record.get("disputed") or {}).items()}
        text = {name: record.get(name) for name in cls.SUBJECT + ("replay", "replay_command", "skipped_reason")}
        return cls(test_id=record["test_id"], kind=record.get("kind") or "unknown", verdict=verdict, skip=skip,
                   **text, counts=freeze(counts),
                   cases=int(record["cases"]) if record.get("cases") is not None else sum(counts.values()),
                   tags=freeze({k: int(v) for k, v in (record.get("tags") or {}).items()}),
                   disputed=freeze(disputed), dispute_examples=freeze(record.get("dispute_examples") or {}),
                   message=record.get("message") or "", diff=freeze(record.get("diff")) if record.get("diff") else None,
                   duration_s=float(record.get("duration_s") or 0.0),
                   waiver=freeze(record.get("waiver")) if record.get("waiver") else None,
                   other_rule=int(record.get("other_rule") or 0),
                   case=freeze(record.get("case")) if record.get("case") else None, **extra)


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


def read(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of each record of a results file, each checked by `check`. A bad line is a
    ResultsError naming `file:line` and the field — except a last line without a line break after it, which a
    run killed while writing it left unfinished: that one is skipped."""
    lines = path.read_bytes().split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = bounded.loads(line, where, max_bytes=MAX_RECORD_BYTES)
        except InputError as error:
            if number == len(lines):
                return
            raise ResultsError(str(error)) from None
        yield number, check(record, where)


def check(record: Any, where: str) -> dict[str, Any]:
    """`record` if it is a record of results.jsonl: an object with a 'record' kind whose run, test and end
    records follow schema/results-v1.schema.json (a run record's profile one of PROFILES; a record of another
    kind, from a later suite, is left to its reader); ResultsError naming `where` and the field otherwise."""
    if not isinstance(record, dict) or not isinstance(record.get("record"), str):
        raise ResultsError(f"{where}: expected an object with a 'record' key (run, test or end), got {shown(record)}")
    kind = record["record"]
    if kind in RECORD_KINDS:
        problem = schemas.problem(record, "results-v1", kind)
        if problem is not None:
            raise ResultsError(f"{where}: {kind} record: {problem}")
    if kind == "run" and record.get("profile") is not None and record["profile"] not in PROFILES:
        raise ResultsError(f"{where}: run record: 'profile': unknown profile "
                           f"{clip(repr(record['profile']), SHOWN_CHARS)}; expected one of {', '.join(PROFILES)}")
    return record
