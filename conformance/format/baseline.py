"""A baseline: the causes of failure an earlier run found, so that a run fails only on new ones (`--baseline`).

`Baseline.read(path)` takes the results.jsonl of an earlier run (or the report directory holding it) and keeps,
per distinct cause of its failing (or already known) tests, the cause's stable key (`Cause.key`: API, verdict,
rule and what tells the behaviour apart; never a test id or a seed), its label and the tests that showed it.

A cause of this run whose key the baseline holds is *known*; a test failing only with known causes gets the
verdict `known` and does not fail the run. A baseline cause is *fixed* when a test that showed it in the baseline
judged cases in this run and no test of this run failed with it; one none of whose tests ran here (another
selection, another shard) is *not re-checked*: neither known nor fixed. A baseline written by another release or
from another spec is matched the same way, by key (the header warns: a cause whose key changed between releases
shows as new).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ascendc_conformance.format import results
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import TestRecord


class BaselineError(ConformanceError):
    """A baseline cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class FailingCause:
    """A cause of failure of a run, by its key and label, and the tests of that run that failed with it."""

    key: str
    label: str
    tests: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "tests": list(self.tests)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FailingCause:
        return cls(key=str(data["key"]), label=str(data.get("label") or data["key"]),
                   tests=tuple(str(test) for test in data.get("tests") or ()))


@dataclass(frozen=True)
class Baseline:
    """The causes of failure of an earlier run (see the module doc), with where they were read and which release
    and spec wrote them."""

    source: str
    suite_version: str
    spec_digest: str
    causes: tuple[FailingCause, ...]

    @classmethod
    def read(cls, source: str | Path) -> Baseline:
        """The baseline of a results.jsonl (or of the report directory holding one); BaselineError naming the file
        for one that is missing, unreadable or holds no run."""
        path = Path(source)
        if path.is_dir():
            path = path / results.RESULTS_FILE
        if not path.is_file():
            raise BaselineError(f"{source}: no such file or directory; expected the {results.RESULTS_FILE} of an "
                                f"earlier run, or its report directory")
        try:
            lines = [record for _, record in results.read(path)]
        except results.ResultsError as error:
            raise BaselineError(str(error)) from None
        except OSError as error:
            raise BaselineError(f"{path}: cannot read ({error.strerror})") from None
        starts = [index for index, record in enumerate(lines) if record["record"] == "run"]
        if not starts:
            raise BaselineError(f"{path}: no run record; expected the {results.RESULTS_FILE} of a conformance run")
        run, *records = lines[starts[-1]:]   # a reused report directory: its last run
        try:
            tests = [TestRecord.from_json(record, f"{path}: test {record.get('test_id')}")
                     for record in records if record["record"] == "test"]
        except results.ResultsError as error:
            raise BaselineError(str(error)) from None
        return cls(source=str(path), suite_version=str(run.get("suite_version") or "(unknown)"),
                   spec_digest=str(run.get("spec_digest") or "(unknown)"), causes=failing_causes(tests))

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(cause.key for cause in self.causes)

    def fixed(self, tests: Iterable[TestRecord]) -> tuple[FailingCause, ...]:
        """The baseline's causes that no test of this run failed with, though a test that showed one in the
        baseline judged cases here."""
        return self._absent(tests, rechecked=True)

    def unchecked(self, tests: Iterable[TestRecord]) -> tuple[FailingCause, ...]:
        """The baseline's causes no test of this run failed with and none of whose tests judged a case here
        (another selection or shard): neither known nor fixed."""
        return self._absent(tests, rechecked=False)

    def _absent(self, tests: Iterable[TestRecord], *, rechecked: bool) -> tuple[FailingCause, ...]:
        tests = list(tests)
        seen = {cause.key for test in tests for cause in test.failing_causes}
        judged = {test.test_id for test in tests
                  if test.cases and test.verdict not in (Outcome.SKIPPED, Outcome.NOT_SUPPORTED)}
        return tuple(cause for cause in self.causes
                     if cause.key not in seen and bool(judged.intersection(cause.tests)) is rechecked)

    def to_json(self) -> dict[str, Any]:
        """The baseline as the run record keeps it (the reports work out known and fixed causes from it)."""
        return {"source": self.source, "suite_version": self.suite_version, "spec_digest": self.spec_digest,
                "causes": [cause.to_json() for cause in self.causes]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Baseline:
        return cls(source=str(data.get("source") or ""), suite_version=str(data.get("suite_version") or "(unknown)"),
                   spec_digest=str(data.get("spec_digest") or "(unknown)"),
                   causes=tuple(FailingCause.from_json(cause) for cause in data.get("causes") or ()))


def failing_causes(tests: Iterable[TestRecord]) -> tuple[FailingCause, ...]:
    """Every cause the tests failed with (by key, first found first), each with the tests that showed it."""
    found: dict[str, tuple[str, list[str]]] = {}
    for test in tests:
        for cause in test.failing_causes:
            found.setdefault(cause.key, (cause.label, []))[1].append(test.test_id)
    return tuple(FailingCause(key, label, tuple(ids)) for key, (label, ids) in found.items())
