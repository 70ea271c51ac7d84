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
   "replay_command": str|null, "duration_s": float, "waiver": {...}|null, "skip": <format.outcome.SkipReason>|null,
   "skipped_reason": str|null, "case": {case_summary of the smallest failing case}|null,
   "causes": [{"cause": {Cause.to_json()}, "verdict": str, "message": str, "diff": {...}|null, "replay": str|null,
               "replay_command": str|null, "case": {case_summary}, "cases": n,
               "verdicts": [the verdicts of its cases, worst first], "hypotheses": [ids explaining every case of
               it asked, simplest first; [] for none], "shown_by": [ids explaining its smallest case],
               "words": "its named hypothesis with that case's values", "known": bool,
               "fallback": {Cause.to_json(): an explained cause's diff-class cause}}, ...],   (the last five
               optional: records written before diagnosis have none; reports.causes groups causes across tests by
               them, and a cause the run refutes every hypothesis of is its `fallback`)
   "bits": {"<API>": {"<field>": [bit, ...]}},   (optional: the bits of the parameters its legal cases witnessed
   first in their process, reference.bit_witness; a record without it witnessed none)
   "crossings": {"<API>": {"<derived quantity>": [width, ...]}}}   (optional: the widths 2^width its legal cases'
   derived byte offsets reached first in their process, reference.crossings; a record without it crossed none)
  The fields message, diff, replay, replay_command and case are those of the first cause (records written
  before causes were recorded have no "causes": their one cause is derived from those fields).
- "end" (last line): {"record": "end", "finished": ISO-8601, "exit_status": int}

`read` checks every line as it reads it (format.bounded: strict JSON of at most MAX_RECORD_BYTES) against
schema/results-v1.schema.json: the types of every field above, a known profile, verdict and skip reason.

Outcomes are those of ascendc_conformance.format.outcome: a case's (pass, fail, missed-reject, wrong-rule,
false-reject, flaky, error, timeout, crashed, not-supported, waived, disputed), plus "known" for a test failing
only with causes the run's baseline holds (each such cause says `"known": true`) and "skipped" for tests that
did not run (e.g. a legal boundary no path can reach under the product's capacities: skipped_reason says
"unreachable: ...").
"""
from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypedDict

from ascendc_conformance.format import bounded, schemas
from ascendc_conformance.format.bounded import SHOWN_CHARS, InputError, clip, shown
from ascendc_conformance.format.case import Case, plain
from ascendc_conformance.format.defaults import PROFILES
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.words import Word

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


_SCALARS = (str, int, float, type(None))   # booleans are ints


def thaw(value: Any) -> Any:
    """Plain JSON-able data back from freeze's views: enum members, values and keys alike, as their spelling
    (a key that is a Word, e.g. an Outcome counted, would keep orjson off a record: it takes str keys only)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, _SCALARS):   # most values: asking the Mapping ABC is ten times slower
        return value
    if isinstance(value, Mapping):
        return {k.value if isinstance(k, Enum) else k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def case_summary(case: Case) -> dict[str, Any]:
    """What a person needs to see of a case (no memory images): product, API, route, dtypes, params."""
    return {"product": case.product, "api": case.api, "route": f"{case.src.position}->{case.dst.position}",
            "src_dtype": case.src.dtype, "dst_dtype": case.dst.dtype, "src_address": case.src.address,
            "dst_address": case.dst.address, "params": plain(case.params)}


def format_params(summary: Mapping[str, Any] | None) -> str:
    """One line: `<api> <product> <route> <dtype> src@<address> dst@<address> {params}` of a case summary ("" without
    one): the operands' addresses (hex) and dtypes too, since an alignment or placement failure is about them."""
    if not summary:
        return ""
    dtype = summary["src_dtype"] if summary["src_dtype"] == summary["dst_dtype"] else \
        f"{summary['src_dtype']}->{summary['dst_dtype']}"
    addresses = " ".join(f"{side}@{_hex(summary.get(f'{side}_address'))}" for side in ("src", "dst"))
    params = ", ".join(f"{name}={value}" for name, value in summary["params"].items())
    return f"{summary['api']} {summary['product']} {summary['route']} {dtype} {addresses} {{{params}}}"


def _hex(address: Any) -> str:
    return hex(address) if isinstance(address, int) and not isinstance(address, bool) else "?"


def params_size(params: Any) -> int:
    """How big a call is by its parameters: the sum of their integers, nested ones included (for choosing a
    cause's smallest failing case)."""
    if isinstance(params, Mapping):
        return sum(params_size(value) for value in params.values())
    if isinstance(params, (list, tuple)):
        return sum(params_size(value) for value in params)
    return abs(int(params)) if isinstance(params, int) else 0


NO_RULE = "no rule"   # what a false rejection that named no rule is grouped under
NAMED_RULES, NAMED_RULE_CHARS = 4, 80   # how much of the rules a false rejection named its cause keeps


@dataclass(frozen=True)
class Cause:
    """One root cause of failures, as a person would group them.

    A cause a hypothesis explains (judge.diagnosis, runner.diagnosing) is that hypothesis on its API: every
    failure it explains, whatever its verdict, route, dtype or diff class — `hypothesis` its id, `title` its
    words ("blockLen kept in 8 bits"), `verdict` the worst verdict seen of it. A cause no hypothesis explains is
    told by the API, the verdict, and what tells one behaviour of the target from another: a fail's primary diff
    class (the class of its first differing run: where the misplaced bytes start), the rules a false rejection
    named, the rule an illegal test's call breaks. Not the route (a dstGap ignored misplaces bursts on every
    route: the reports list the routes of a cause), not the test kind (a legal and a boundary test of one bug are
    one cause) and not the other diff classes a case happens to show. A test records each of its causes; the
    reports group them across tests (reports.causes); a run shrinks only the first failure of each cause (its
    `shrink_key`); a flaky failure's cause is its API alone; a baseline and `report --compare` match causes by
    their `key`. `route` stays in the record's JSON, empty, for readers of the first format."""

    api: str
    route: str
    verdict: Outcome
    diff_class: str = ""   # a fail's primary diff class
    named: str = ""        # the rules a false rejection named, sorted and joined by "+" (NO_RULE for none)
    rule: str = ""         # the rule an illegal test's call breaks
    hypothesis: str = ""   # the id of the hypothesis that explains it ("" for none): "DataCopy.blockLen:kept-in-8-bits"
    title: str = ""        # that hypothesis in words: "blockLen kept in 8 bits"

    @classmethod
    def of(cls, verdict: Outcome, case: Mapping[str, Any] | None, diff: Mapping[str, Any] | None = None, *,
           named_rules: Sequence[str] = (), fault_rule: str | None = None) -> "Cause":
        """The diff-class cause of a failing verdict on a case (its case_summary), with the verdict's diff and the
        rules the target's answer named; `fault_rule` the rule a single-fault test breaks (None for legal and
        boundary tests)."""
        case, diff = case or {}, diff or {}
        if verdict is Outcome.FLAKY:   # what a changing answer got wrong is chance: the API is the cause
            return cls(api=case.get("api") or "", route="", verdict=verdict)
        runs = diff.get("runs") or ()
        primary = runs[0]["class"] if runs else min(diff.get("runs_by_class") or [""])   # a diff without its runs
        named = ""
        if verdict is Outcome.FALSE_REJECT:   # the target's own words: a few rule ids, each cut short
            rules = sorted(str(rule) for rule in named_rules)
            named = "+".join([clip(rule, NAMED_RULE_CHARS) for rule in rules[:NAMED_RULES]]
                             + ([f"{len(rules) - NAMED_RULES} more"] if len(rules) > NAMED_RULES else [])) or NO_RULE
        return cls(api=case.get("api") or "", route="", verdict=verdict, diff_class=primary, named=named,
                   rule=fault_rule or "")

    @classmethod
    def explained(cls, verdict: Outcome, api: str, hypothesis: str, title: str) -> "Cause":
        """The cause a hypothesis explains (its id and title) on `api`, with the worst verdict seen of it."""
        return cls(api=api, route="", verdict=verdict, hypothesis=hypothesis, title=title)

    @property
    def key(self) -> str:
        """What a baseline and `report --compare` match this cause by (format.baseline): the API and the
        hypothesis for an explained cause; else the API, verdict, rule an illegal call breaks, the diff's first
        class and the rules a false rejection named; never a test id, a route or a seed, which change from run to
        run while the bug stays."""
        if self.hypothesis:
            return f"{self.api}|{self.hypothesis}"
        return "|".join((self.api, self.verdict.value, self.rule, self.diff_class, self.named))

    @property
    def shrink_key(self) -> tuple[str, ...]:
        """Failures that would shrink to the same behaviour: one per run is shrunk (a missed rejection shrinks
        to the same small call whatever the rule)."""
        if self.hypothesis:
            return (self.api, self.hypothesis)
        return (self.api, self.verdict.value, self.diff_class, self.named)

    @property
    def label(self) -> str:
        if self.hypothesis:
            return f"{self.api} / {self.title or self.hypothesis}"
        named = f"naming {self.named}" if self.named else ""
        parts = [self.api, self.route, self.verdict.value, self.diff_class, named, self.rule]
        return " / ".join(part for part in parts if part)

    def to_json(self) -> dict[str, str]:
        return {"api": self.api, "route": self.route, "verdict": self.verdict.value, "diff_class": self.diff_class,
                "named": self.named, "rule": self.rule, "hypothesis": self.hypothesis, "title": self.title,
                "key": self.key, "label": self.label}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Cause":
        return cls(api=str(data.get("api") or ""), route=str(data.get("route") or ""),
                   verdict=Outcome.parse(data.get("verdict")), diff_class=str(data.get("diff_class") or ""),
                   named=str(data.get("named") or ""), rule=str(data.get("rule") or ""),
                   hypothesis=str(data.get("hypothesis") or ""), title=str(data.get("title") or ""))


class Subject(TypedDict, total=False):
    """What a conformance test is about, in the fields of its TestRecord: a path (product, API, route, dtypes),
    a rule and its variant, or a route and form of a smoke test."""

    product: str | None
    api: str | None
    route: str | None
    src_dtype: str | None
    dst_dtype: str | None
    rule: str | None
    variant: str | None


class TestKind(Word):
    """Which of the suite's test functions a test is (`test_<kind>[<id>]`)."""

    __test__ = False  # not a pytest test class

    SMOKE = "smoke"         # one case of a route and form, a fault rule or a bound, before the full tests
    LEGAL = "legal"         # legal cases of one documented path x dtype
    ILLEGAL = "illegal"     # single-fault cases of one rule (and the cases a disputed point decides)
    BOUNDARY = "boundary"   # legal cases on the just-legal value of one range bound
    LIMIT = "limit"         # cases just past a limit the target declares (legal by the spec): it must reject them


@dataclass(frozen=True)
class TestRecord:
    """One conformance test as a "test" record of results.jsonl: the one definition of its fields, written by
    the run (ascendc_conformance.runner.records) and read by the reports (reports.model.TestResult extends it)."""

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
    dispute_examples: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=lambda: MappingProxyType({}))
    message: str = ""
    diff: Mapping[str, Any] | None = None
    replay: str | None = None
    replay_command: str | None = None
    duration_s: float = 0.0
    waiver: Mapping[str, Any] | None = None
    skip: SkipReason | None = None
    skipped_reason: str | None = None
    case: Mapping[str, Any] | None = None   # case_summary of the (smallest) failing case
    other_rule: int = 0   # illegal cases the target rejected naming only rules the case does not break
    shown: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # rejections of illegal calls (and of calls past a declared limit) per format.outcome.Shown: shown to be for
    # the rule they break (named, twin), or not (masked by a false rejection, ...: docs/evidence.md)
    causes: tuple[Mapping[str, Any], ...] = ()   # every distinct cause of its failures, worst first (see the module doc)
    bits: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=lambda: MappingProxyType({}))
    # API -> field -> bits its legal cases witnessed (set, and with an effect), first in their process
    crossings: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=lambda: MappingProxyType({}))
    # API -> derived quantity -> the widths its legal cases' offsets crossed, first in their process

    # The fields a test's subject is described by (set by the suite before the test runs).
    SUBJECT = tuple(Subject.__annotations__)

    @property
    def cause(self) -> Cause | None:
        """What the (first) failure is about; None for a test that did not fail."""
        causes = self.failing_causes
        return causes[0] if causes else None

    @property
    def failing_causes(self) -> tuple[Cause, ...]:
        """Every cause the test failed with, worst first (a known test's too: failures a baseline holds)."""
        if not (self.verdict.is_failure or self.verdict is Outcome.KNOWN):
            return ()
        if self.causes:
            return tuple(Cause.from_json(entry["cause"]) for entry in self.causes)
        case = dict(self.case or {})   # a record written before causes were recorded
        case.setdefault("api", self.api)
        case["route"] = case.get("route") or self.route
        fault_rule = self.rule if self.kind is TestKind.ILLEGAL else None
        return (Cause.of(self.verdict, case, self.diff, fault_rule=fault_rule),)

    def to_json(self) -> dict[str, Any]:
        record = {"record": "test"}
        record.update((f.name, thaw(getattr(self, f.name))) for f in fields(TestRecord))
        return record

    @classmethod
    def from_json(cls, record: Mapping[str, Any], where: str = "", **extra: Any) -> "TestRecord":
        """A test record as `read` yields it (its fields' types checked against results-v1), frozen (`extra`:
        the fields a subclass adds); ResultsError naming `where` and the field for a verdict or skip reason the
        suite does not know."""
        try:
            verdict = Outcome.parse(record["verdict"])
        except ValueError as error:
            raise ResultsError(f"{where}: test record: 'verdict': {error}") from None
        try:
            kind = TestKind.parse(record.get("kind"), "test kind")
        except ValueError as error:
            raise ResultsError(f"{where}: test record: 'kind': {error}") from None
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
        return cls(test_id=record["test_id"], kind=kind, verdict=verdict, skip=skip,
                   **text, counts=freeze(counts),
                   cases=int(record["cases"]) if record.get("cases") is not None else sum(counts.values()),
                   tags=freeze({k: int(v) for k, v in (record.get("tags") or {}).items()}),
                   disputed=freeze(disputed), dispute_examples=freeze(record.get("dispute_examples") or {}),
                   message=record.get("message") or "", diff=freeze(record.get("diff")) if record.get("diff") else None,
                   duration_s=float(record.get("duration_s") or 0.0),
                   waiver=freeze(record.get("waiver")) if record.get("waiver") else None,
                   other_rule=int(record.get("other_rule") or 0),
                   shown=freeze({str(k): int(v) for k, v in (record.get("shown") or {}).items()}),
                   case=freeze(record.get("case")) if record.get("case") else None,
                   causes=freeze(list(record.get("causes") or ())),
                   bits=freeze({api: {name: tuple(sorted(found)) for name, found in fields.items()}
                                for api, fields in (record.get("bits") or {}).items()}),
                   crossings=freeze({api: {name: tuple(sorted(found)) for name, found in quantities.items()}
                                     for api, quantities in (record.get("crossings") or {}).items()}), **extra)


def append(report_dir: Path, record: dict[str, Any]) -> None:
    """Append one record as one line, under an exclusive lock, on a line of its own: after a run killed in the
    middle of a line, the next record starts on a fresh line (`read` then skips the cut one). An OSError (a
    full disk, a read-only file system) is the caller's: the lines written before it are kept."""
    report_dir.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, sort_keys=True, default=str).encode("ascii") + b"\n"
    with open(report_dir / RESULTS_FILE, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            size = os.fstat(handle.fileno()).st_size
            if size and os.pread(handle.fileno(), 1, size - 1) != b"\n":
                line = b"\n" + line
            handle.write(line)
            handle.flush()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read(path: Path, skipped: list[str] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of each record of a results file, each checked by `check`, read one line at a time
    (memory: one line of at most MAX_RECORD_BYTES, whatever the file's size). A bad line is a ResultsError
    naming `file:line` and the field — except an unfinished line, left by a run killed while writing it: a line
    that is not JSON, and is the last one (no line break after it) or is followed by the run record of a later
    run. It is skipped, and said so in `skipped`."""
    cut: tuple[bounded.Line, InputError] | None = None   # a line that is not JSON, until the next one is read
    with open(path, "rb") as handle:
        for line in bounded.lines(handle, MAX_RECORD_BYTES):
            if not line.data.strip():
                continue
            where = f"{path}:{line.number}"
            try:
                record = line.json(where, MAX_RECORD_BYTES)
            except InputError as error:
                if cut is not None:
                    raise ResultsError(str(cut[1])) from None
                cut = (line, error)
                continue
            if cut is not None:
                if not (isinstance(record, dict) and record.get("record") == "run"):
                    raise ResultsError(str(cut[1])) from None
                _skip(cut[0], path, skipped)
                cut = None
            yield line.number, check(record, where)
    if cut is not None:
        if cut[0].ended:
            raise ResultsError(str(cut[1])) from None
        _skip(cut[0], path, skipped)


def _skip(line: bounded.Line, path: Path, skipped: list[str] | None) -> None:
    if skipped is not None:
        skipped.append(f"{path}:{line.number}: an unfinished record ({line.size} bytes) skipped: a run was stopped "
                       "(killed, or its disk full) while writing it")


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
