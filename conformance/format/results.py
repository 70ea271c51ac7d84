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
   "skipped_reason": str|null,
   "bits": {"<API>": {"<field>": [bit, ...]}}}   (optional: the bits of the parameters its legal cases witnessed
   first in their process, reference.bits; a record without it witnessed none)
- "end" (last line): {"record": "end", "finished": ISO-8601, "exit_status": int}

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

from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.words import Word

RESULTS_FILE = "results.jsonl"


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


class TestKind(Word):
    """Which of the suite's test functions a test is (`test_<kind>[<id>]`)."""

    __test__ = False  # not a pytest test class

    SMOKE = "smoke"         # one case of a route and form, a fault rule or a bound, before the full tests
    LEGAL = "legal"         # legal cases of one documented path x dtype
    ILLEGAL = "illegal"     # single-fault cases of one rule (and the cases a disputed point decides)
    BOUNDARY = "boundary"   # legal cases on the just-legal value of one range bound


@dataclass(frozen=True)
class TestRecord:
    """One conformance test as a "test" record of results.jsonl: the one definition of its fields, written by
    the run (ascendc_conformance.runner.session) and read by the reports (reports.model.TestResult extends it)."""

    __test__ = False  # not a pytest test class

    test_id: str
    kind: TestKind
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
    bits: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=lambda: MappingProxyType({}))
    # API -> field -> bits its legal cases witnessed (set, and with an effect), first in their process

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
        """A record read back, checked and frozen (`extra`: the fields a subclass adds); ResultsError names
        `where` and the problem."""
        test_id = record.get("test_id")
        if not isinstance(test_id, str) or not test_id:
            raise ResultsError(f"{where}: a test record without a test_id")
        verdict = record.get("verdict")
        if not isinstance(verdict, str) or not verdict:
            raise ResultsError(f"{where}: test record {test_id} has no verdict")
        try:
            counts = {str(k): int(v) for k, v in (record.get("counts") or {}).items()}
            tags = {str(k): int(v) for k, v in (record.get("tags") or {}).items()}
            disputed = {str(point): {str(name): int(n) for name, n in (seen or {}).items()}
                        for point, seen in (record.get("disputed") or {}).items()}
            examples = {str(point): {str(name): dict(params) for name, params in (seen or {}).items()}
                        for point, seen in (record.get("dispute_examples") or {}).items()}
            duration = float(record.get("duration_s") or 0.0)
            other_rule = int(record.get("other_rule") or 0)
            bits = {str(api): {str(name): tuple(sorted(int(bit) for bit in found)) for name, found in fields.items()}
                    for api, fields in (record.get("bits") or {}).items()}
        except (AttributeError, TypeError, ValueError) as error:
            raise ResultsError(f"{where}: test record {test_id} has a malformed count ({error})") from None
        try:
            verdict = Outcome.parse(verdict)
            skip = SkipReason(record["skip"]) if record.get("skip") else None
            kind = TestKind.parse(record.get("kind"), "test kind")
        except ValueError as error:
            raise ResultsError(f"{where}: test record {test_id}: {error}") from None
        cases = record.get("cases")
        text = {name: record.get(name) for name in cls.SUBJECT + ("replay", "replay_command", "skipped_reason")}
        return cls(test_id=test_id, kind=kind, verdict=verdict, skip=skip, **text,
                   counts=freeze(counts), cases=int(cases) if isinstance(cases, (int, float)) else sum(counts.values()),
                   tags=freeze(tags), disputed=freeze(disputed), dispute_examples=freeze(examples), message=str(record.get("message") or ""),
                   diff=freeze(record.get("diff")) if record.get("diff") else None, duration_s=duration,
                   waiver=freeze(record.get("waiver")) if record.get("waiver") else None, other_rule=other_rule,
                   case=freeze(record.get("case")) if record.get("case") else None, bits=freeze(bits), **extra)


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
