"""The results of one run (or of several shards of one run), read from results.jsonl files, as frozen objects.

`load_results(*sources)` reads one or more results files (or report directories holding a results.jsonl)
into one `RunResults`:

- one file: its run record (metadata), its test records, its end record. A file without an end record is a
  run that was killed (or is still running): `RunResults.killed` is true and `notes` says so. A line cut by a
  run killed mid-write (the last line, or one followed by a later run's record) is skipped by
  ascendc_conformance.format.results.read, with a note. A file holding several runs (a reused report
  directory) is reported as its last run, with a note. The file is read record by record: memory holds one
  line (at most results.MAX_RECORD_BYTES) and the last run's records, one per test id.
- several files (shards run on several machines): the run metadata must agree on target, spec digest,
  profile and seed, else `ReportError` names every mismatch; the tests are unioned, and a test id present
  twice keeps the worse verdict (with a note naming both).

Nothing here knows the spec; coverage is computed from a RunResults and the spec by reports.coverage.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ascendc_conformance.format import results as results_file
from ascendc_conformance.format.results import TestRecord, freeze, thaw
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.files import utf8_path
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.outcome import FAILURES, Outcome
from ascendc_conformance.runner.options import Entry

# Verdicts of a test, worst first; a merge keeps the earlier of two verdicts of one test id.
VERDICT_ORDER = tuple(Outcome)
FAILURE_VERDICTS = FAILURES
# The metadata that must agree when shards are merged.
MERGE_KEYS = ("target", "spec_digest", "profile", "seed", "reading", "pack")


class ReportError(ConformanceError):
    """Results cannot be reported (unreadable, not a run, shards that do not belong together)."""


def severity(verdict: str) -> int:
    """Rank of a verdict: lower is worse; unknown verdicts rank with the failures (they are suspicious)."""
    try:
        return Outcome(verdict).severity
    except ValueError:
        return Outcome.FAIL.severity


def worst(verdicts: Iterable[str]) -> str | None:
    """The worst of some verdicts (None for none)."""
    return min(verdicts, key=severity, default=None)


@dataclass(frozen=True)
class TestResult(TestRecord):
    """One conformance test: a "test" record of results.jsonl, plus the report dir it came from."""

    source: Path | None = None   # the report directory of the results file the record came from

    @classmethod
    def from_record(cls, record: Mapping[str, Any], source: Path | None = None, where: str = "") -> "TestResult":
        try:
            return cls.from_json(record, where, source=source)  # type: ignore[return-value]  # extra: TestResult
        except results_file.ResultsError as error:
            raise ReportError(str(error)) from None

    @property
    def is_failure(self) -> bool:
        return self.verdict in FAILURE_VERDICTS

    @property
    def ran(self) -> bool:
        """At least one case was judged (not skipped, not unsupported)."""
        return self.cases > 0 and self.verdict not in (Outcome.SKIPPED, Outcome.NOT_SUPPORTED)

    @property
    def dtype(self) -> str | None:
        """The dtype label of a path test: 'half', or 'half->float' for a mixed pair."""
        if self.src_dtype is None:
            return None
        if self.dst_dtype in (None, self.src_dtype):
            return self.src_dtype
        return f"{self.src_dtype}->{self.dst_dtype}"

    @property
    def replay_path(self) -> Path | None:
        """The replay file, resolved against the report dir the record came from."""
        if not self.replay:
            return None
        path = Path(self.replay)
        if not path.is_absolute() and self.source is not None:
            path = self.source / path
        return path

    def to_json(self) -> dict[str, Any]:
        """The record as report.json lists it (its diff is shown with the failures, not with every test)."""
        return {key: value for key, value in super().to_json().items() if key not in ("record", "diff")}


@dataclass(frozen=True)
class Shard:
    """One results file that went into a RunResults: where it is, which shard, when and where it ran."""

    source: Path                 # the results.jsonl file
    shard: str | None
    started: str | None
    finished: str | None
    exit_status: int | None
    machine: Mapping[str, Any]
    workers: int | None
    command: str | None
    tests: int

    @property
    def killed(self) -> bool:
        return self.finished is None

    def to_json(self) -> dict[str, Any]:
        return {"source": str(self.source), "shard": self.shard, "started": self.started, "finished": self.finished,
                "exit_status": self.exit_status, "killed": self.killed, "machine": thaw(self.machine),
                "workers": self.workers, "command": self.command, "tests": self.tests}


@dataclass(frozen=True)
class RunResults:
    """One run: metadata (`run`, the run record of the first shard), tests, end, shards, notes."""

    run: Mapping[str, Any]
    tests: tuple[TestResult, ...]
    end: Mapping[str, Any] | None           # the end record (merged: the last finish, the worst exit status); None if killed
    shards: tuple[Shard, ...]
    notes: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()   # test ids recorded more than once (each named once)

    # --- metadata ------------------------------------------------------------------------------------
    def _get(self, key: str, default: Any = None) -> Any:
        return self.run.get(key, default)

    @property
    def target(self) -> str:
        return str(self._get("target") or "(unknown target)")

    @property
    def suite_version(self) -> str:
        return str(self._get("suite_version") or "(unknown)")

    @property
    def spec_digest(self) -> str:
        return str(self._get("spec_digest") or "(unknown)")

    @property
    def profile(self) -> str:
        return str(self._get("profile") or "(unknown)")

    @property
    def seed(self) -> int | None:
        return self._get("seed")

    @property
    def pack(self) -> Mapping[str, Any] | None:
        """The certification pack the run took its cases from (id, profile, ...; runner.recorder), or None."""
        return self._get("pack")

    @property
    def hypothesis_versions(self) -> tuple[str, ...]:
        """The Hypothesis releases that drew the cases (one per shard at most): with the seed, what fixes them."""
        return tuple(sorted({str(s.machine["hypothesis"]) for s in self.shards if s.machine.get("hypothesis")}))

    @property
    def reading(self) -> str:
        """The reading of the disputed points the run judged under (a run record without one: seed)."""
        return str(self._get("reading") or "seed")

    @property
    def reading_choices(self) -> Mapping[str, str]:
        """The alternatives the reading takes, per point (empty: every point's default)."""
        return self._get("reading_choices") or MappingProxyType({})

    @property
    def products(self) -> tuple[str, ...]:
        """The products the run selected; empty = all of the spec."""
        return tuple(self._get("products") or ())

    @property
    def apis(self) -> tuple[str, ...]:
        """The APIs the run selected; empty = all of the spec."""
        return tuple(self._get("apis") or ())

    @property
    def hello(self) -> Mapping[str, Any]:
        return self._get("hello") or MappingProxyType({})

    def flag(self, name: str) -> str:
        """How the run's user gives the option called `name`: `run`'s flag or the pytest plugin's (the run
        record's entry; a record without one is taken for `run`'s)."""
        return Entry(self._get("entry") or Entry.RUN.value).flag(name)

    @property
    def allows_flaky(self) -> bool:
        """The run was told that flaky tests do not fail it (--allow-flaky)."""
        return bool(self._get("allow_flaky"))

    def fails_run(self, test: TestRecord) -> bool:
        """Whether a test's verdict fails the run: a failure verdict, but a flaky one under --allow-flaky."""
        return test.verdict.is_failure and not (test.verdict is Outcome.FLAKY and self.allows_flaky)

    @property
    def limits(self) -> Limits:
        """The limits the target's hello declares (none for a hello that declares none or cannot be read)."""
        try:
            return Limits.from_json(thaw(self.hello).get("limits"))
        except ValueError:
            return Limits()

    @property
    def declared_limits(self) -> tuple[Mapping[str, Any], ...]:
        """The target's declared limits stricter than the spec, with the rules they deviate from (run record)."""
        return tuple(self._get("declared_limits") or ())

    @property
    def not_certified(self) -> Mapping[str, tuple[str, ...]]:
        """The rule kinds and ids the selection's fault tests break that the target does not declare it
        validates (the run record's `validation`, runner.recorder): what the certification does not certify."""
        found = (self._get("validation") or {}).get("not_certified") or {}
        return MappingProxyType({key: tuple(found.get(key) or ()) for key in ("kinds", "rules")})

    @property
    def started(self) -> str | None:
        return min((s.started for s in self.shards if s.started), default=None)

    @property
    def finished(self) -> str | None:
        return None if self.end is None else self.end.get("finished")

    @property
    def exit_status(self) -> int | None:
        return None if self.end is None else self.end.get("exit_status")

    @property
    def killed(self) -> bool:
        """Some results file has no end record: the run (or one of its shards) did not finish."""
        return any(shard.killed for shard in self.shards)

    @property
    def waivers_declared(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(self._get("waivers") or ())

    @property
    def missing_shards(self) -> tuple[str, ...]:
        """For a sharded run, the shards 'I/N' not among the results (empty when complete or unsharded)."""
        present: set[int] = set()
        total = 0
        for shard in self.shards:
            parsed = _parse_shard(shard.shard)
            if parsed is None:
                return ()   # an unsharded part runs everything
            present.add(parsed[0])
            total = max(total, parsed[1])
        return tuple(f"{i}/{total}" for i in range(1, total + 1) if i not in present)

    # --- tests ---------------------------------------------------------------------------------------
    def test(self, test_id: str) -> TestResult | None:
        return next((t for t in self.tests if t.test_id == test_id), None)

    @property
    def failures(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.is_failure)

    def verdict_counts(self) -> dict[str, int]:
        """Tests per verdict, in VERDICT_ORDER (zero counts left out)."""
        counts: dict[str, int] = {}
        for test in self.tests:
            counts[test.verdict] = counts.get(test.verdict, 0) + 1
        return {v: counts[v] for v in sorted(counts, key=severity)}

    def case_counts(self) -> dict[str, int]:
        """Judged cases per outcome over all tests."""
        counts: dict[str, int] = {}
        for test in self.tests:
            for outcome, n in test.counts.items():
                counts[outcome] = counts.get(outcome, 0) + n
        return {v: counts[v] for v in sorted(counts, key=severity)}

    def metadata(self) -> dict[str, Any]:
        """The run metadata as plain JSON (for report.json)."""
        machines = [thaw(s.machine) for s in self.shards]
        return {"target": self.target, "hello": thaw(self.hello), "suite_version": self.suite_version,
                "spec_digest": self.spec_digest, "profile": self.profile, "seed": self.seed,
                "pack": thaw(self.pack) if self.pack else None,
                "reading": self.reading, "reading_choices": thaw(self.reading_choices),
                "products": list(self.products), "apis": list(self.apis), "started": self.started,
                "finished": self.finished, "exit_status": self.exit_status, "killed": self.killed,
                "machine": machines[0] if machines else {}, "command": self._get("command"),
                "allow_flaky": self.allows_flaky,
                "shards": [s.to_json() for s in self.shards], "missing_shards": list(self.missing_shards)}


def _parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    try:
        index, count = (int(part) for part in str(text).split("/"))
    except ValueError:
        return None
    return index, count


def results_path(source: str | os.PathLike[str]) -> Path:
    """The results.jsonl of a report dir, or the file itself; a missing one, or a path that is not UTF-8 (the
    reports name it), is a ReportError."""
    path = Path(source)
    try:
        utf8_path(path)
    except ConformanceError as error:
        raise ReportError(str(error)) from None
    if path.is_dir():
        path = path / results_file.RESULTS_FILE
        if not path.is_file():
            raise ReportError(f"{source}: no {results_file.RESULTS_FILE} in this directory; `report DIR` reads the "
                              f"{results_file.RESULTS_FILE} a run writes into its report directory (`run --report "
                              "DIR`, or pytest's --ascendc-report DIR)")
        return path
    if not path.is_file():
        raise ReportError(f"{source}: no such file or directory")
    return path


def _read_one(source: str | os.PathLike[str]) -> RunResults:
    """The last run of one results file, read record by record: memory holds one line and the last run's
    records, one per test id (an earlier run's are dropped when the next run record comes), never the file."""
    path = results_path(source)
    notes: list[str] = []
    run: dict[str, Any] | None = None
    union, end, unknown = _Union(), None, 0
    earlier: list[str] = []
    try:
        for number, record in results_file.read(path, notes):
            kind = record["record"]
            if kind == "run":
                if run is not None:   # a later run in a reused directory: report that one
                    earlier.append(str(run.get("started")))
                    union, end, unknown = _Union(), None, 0
                run = record
            elif kind == "test":   # records before the first run record (stray) belong to it
                union.add(TestResult.from_record(record, path.parent, f"{path}:{number}"))
            elif kind == "end":
                end = record
            else:
                unknown += 1
    except results_file.ResultsError as error:
        raise ReportError(str(error)) from None
    except OSError as error:
        raise ReportError(f"{path}: cannot read ({error.strerror})") from None
    if run is None:
        raise ReportError(f"{path}: no run record (the first line of a results file); "
                          "this is not the results of a conformance run, or the run died before it started")
    if earlier:
        shown_starts = ", ".join(earlier[-EARLIER_RUNS_NAMED:]) + (" …" if len(earlier) > EARLIER_RUNS_NAMED else "")
        notes.append(f"{path} holds {len(earlier) + 1} runs (the report directory was reused); reporting the last "
                     f"one, started {run.get('started')} (earlier: {shown_starts})")
    if unknown:
        notes.append(f"{path}: {unknown} record(s) of an unknown kind ignored")
    if end is None:
        notes.append(f"{path} has no end record: the run was killed (or is still running) before it finished; "
                     f"the report covers the {union.records} test(s) it recorded")
    return _results(run, union, end, path, notes)


EARLIER_RUNS_NAMED = 5   # how many earlier runs of a reused report directory a note names (the last ones)


def results_of(run: Mapping[str, Any], tests: Iterable[TestResult], end: Mapping[str, Any] | None, source: Path,
               notes: Iterable[str] = ()) -> RunResults:
    """One run's results from its records: the run record, its tests and its end record (None: killed)."""
    union = _Union()
    for test in tests:
        union.add(test)
    return _results(run, union, end, source, notes)


def _results(run: Mapping[str, Any], union: "_Union", end: Mapping[str, Any] | None, source: Path,
             notes: Iterable[str]) -> RunResults:
    machine = run.get("machine") or {}
    shard = Shard(source=source, shard=run.get("shard"), started=run.get("started"),
                  finished=end.get("finished") if end else None,
                  exit_status=end.get("exit_status") if end else None, machine=freeze(machine),
                  workers=run.get("workers"), command=run.get("command"), tests=union.records)
    run_meta = {k: v for k, v in run.items() if k != "record"}
    return RunResults(run=freeze(run_meta), tests=tuple(union.kept.values()), end=freeze(end) if end else None,
                      shards=(shard,), notes=tuple(list(notes) + union.notes()), duplicates=tuple(union.repeated))


class _Union:
    """Tests by id in first-seen order, as their records come: a test id recorded again keeps the worse verdict
    (memory: one record per distinct test id, however often it was recorded)."""

    def __init__(self) -> None:
        self.kept: dict[str, TestResult] = {}
        self.repeated: dict[str, dict[tuple[str, str], None]] = {}   # test id -> (where, verdict) of its records
        self.records = 0

    def add(self, test: TestResult) -> None:
        self.records += 1
        other = self.kept.get(test.test_id)
        if other is None:
            self.kept[test.test_id] = test
            return
        seen = self.repeated.setdefault(test.test_id, {(_where(other), str(other.verdict)): None})
        seen[(_where(test), str(test.verdict))] = None
        if severity(test.verdict) < severity(other.verdict):
            self.kept[test.test_id] = test

    def notes(self) -> list[str]:
        return [f"test {test_id} was recorded more than once ({'; '.join(f'{where}: {verdict}' for where, verdict in seen)}); "
                f"kept the worse verdict, {self.kept[test_id].verdict}" for test_id, seen in self.repeated.items()]


def _where(test: TestResult) -> str:
    return str(test.source) if test.source is not None else "?"


def merge(parts: Iterable[RunResults]) -> RunResults:
    """One RunResults from several shards of one run; ReportError if their metadata disagree."""
    parts = list(parts)
    if not parts:
        raise ReportError("no results to merge")
    if len(parts) == 1:
        return parts[0]
    mismatches = []
    for key in MERGE_KEYS:
        values = [part.run.get(key) for part in parts]
        if len({repr(v) for v in values}) > 1:
            listed = "; ".join(f"{value!r} in {part.shards[0].source}" for part, value in zip(parts, values))
            mismatches.append(f"{key} differs ({listed})")
    if mismatches:
        raise ReportError("cannot merge results of different runs (shards of one run share target, spec digest, "
                          "profile, seed, reading and pack): " + "; ".join(mismatches))
    notes: list[str] = []
    for part in parts:
        notes.extend(part.notes)
    sources = [shard.source.resolve() for part in parts for shard in part.shards]
    if len(set(sources)) < len(sources):
        notes.append("the same results file was given more than once")
    versions = {part.suite_version for part in parts}
    if len(versions) > 1:
        notes.append(f"the shards ran different suite versions: {', '.join(sorted(versions))}")
    shard_names = [shard.shard for part in parts for shard in part.shards if shard.shard]
    repeated = sorted({s for s in shard_names if shard_names.count(s) > 1})
    if repeated:
        notes.append(f"shard(s) {', '.join(repeated)} given more than once")
    run = thaw(parts[0].run)
    # A selection that differs between parts: the union (empty = everything).
    for key in ("products", "apis"):
        selections = [list(part.run.get(key) or ()) for part in parts]
        if len({tuple(s) for s in selections}) > 1:
            notes.append(f"the shards selected different {key}: "
                         + "; ".join(", ".join(s) or "all" for s in selections) + "; reporting their union")
            run[key] = [] if any(not s for s in selections) else sorted({x for s in selections for x in s})
    waivers: list[Any] = []
    for part in parts:
        for waiver in thaw(part.run.get("waivers") or []):
            if waiver not in waivers:
                waivers.append(waiver)
    run["waivers"] = waivers
    run["shard"] = None
    union = _Union()
    for part in parts:
        for test in part.tests:
            union.add(test)
    ends = [part.end for part in parts]
    end = None
    known = [e for e in ends if e is not None]
    if len(known) == len(ends):
        statuses = [int(e.get("exit_status") or 0) for e in known]
        end = {"record": "end", "finished": max(str(e.get("finished") or "") for e in known) or None,
               "exit_status": max(statuses, key=lambda s: (s != 0, s))}
    duplicates = dict.fromkeys([*(d for part in parts for d in part.duplicates), *union.repeated])
    return RunResults(run=freeze(run), tests=tuple(union.kept.values()), end=freeze(end) if end else None,
                      shards=tuple(shard for part in parts for shard in part.shards), notes=tuple(notes + union.notes()),
                      duplicates=tuple(duplicates))


def load_results(*sources: str | os.PathLike[str]) -> RunResults:
    """Read results.jsonl files (or report dirs holding one) into one RunResults; several are merged."""
    if len(sources) == 1 and isinstance(sources[0], (list, tuple)):
        sources = tuple(sources[0])
    if not sources:
        raise ReportError("no results given (a report directory or a results.jsonl file)")
    return merge(_read_one(source) for source in sources)
