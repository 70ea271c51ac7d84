"""One conformance run inside pytest: the target, the selection from the spec, verdicts and their records.

The pytest plugin builds one `RunSession` per process (each xdist worker has its own target process); the
suite's tests hand each drawn case to `RunSession.check`, which asks the reference and the target, judges,
records, and raises `ConformanceFailure` when the target fails (after saving a replay file).
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ascendc_conformance import reference
from ascendc_conformance.format import replay
from ascendc_conformance.format.defaults import CASE_TIMEOUT_S, SHRINK_SECONDS
from ascendc_conformance.runner import waivers
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.results import TestRecord, freeze
from ascendc_conformance.targets import Target, open_target
from ascendc_conformance.judge.verdict import Verdict, judge
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Path as SpecPath, ShortRepr
from ascendc_conformance.strategies.boundaries import Boundary, boundaries
from ascendc_conformance.strategies.faults import Fault, faults
from ascendc_conformance.strategies.legal import select_paths


class ConformanceFailure(AssertionError):
    """The target failed a case; the message is the verdict, its diff and the replay command."""


class SuiteError(ConformanceError):
    """The suite itself misbehaved (e.g. a generated legal case the reference rejects): a bug to report."""


@dataclass(frozen=True)
class RunSettings:
    target: str
    products: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    profile: str = "ci"
    report_dir: Path | None = None
    waivers_file: Path | None = None
    timeout: float = CASE_TIMEOUT_S
    shrink_seconds: float = SHRINK_SECONDS   # per failing test: then only its smallest failing case runs again
    strict_rules: bool = False               # a rejection naming only other rules is the failing wrong-rule


@dataclass(repr=False)
class CheckRecord(ShortRepr):
    """What one conformance test saw over all its cases (mutable: filled in while Hypothesis runs).

    `result()` is the frozen `TestRecord` written to results.jsonl; the test's subject (product, API, path,
    rule...) is set once, by `describe`, with TestRecord's field names."""

    test_id: str
    kind: str
    subject: dict[str, str] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    tags: Counter = field(default_factory=Counter)
    disputed: dict = field(default_factory=dict)
    failure: Verdict | None = None
    replay: str | None = None
    replay_command: str | None = None
    waiver: dict | None = None
    skip: SkipReason | None = None
    skipped_reason: str | None = None
    other_rule: int = 0
    started: float = field(default_factory=time.monotonic)
    failed_at: float | None = None
    failing_case: str | None = None   # the last (so the smallest) failing case, as canonical JSON

    def __repr__(self) -> str:
        return f"CheckRecord({self.test_id})"

    def describe(self, **subject: str | None) -> None:
        unknown = set(subject) - set(TestRecord.SUBJECT)
        if unknown:
            raise TypeError(f"not a subject field of a test record: {', '.join(sorted(unknown))}")
        self.subject.update(subject)

    @property
    def rule(self) -> str | None:
        return self.subject.get("rule")

    @property
    def verdict(self) -> Outcome:
        """The failure if there is one, else the worst outcome of its cases (skipped if it judged none)."""
        if self.failure is not None:
            return self.failure.outcome
        if self.skip is not None and not self.counts:
            return self.skip.verdict
        return min((Outcome(outcome) for outcome in self.counts), key=lambda o: o.severity, default=Outcome.SKIPPED)

    def skipped(self, reason: SkipReason, detail: str) -> str:
        """Record why this test judges no case; the text to pass to pytest.skip."""
        self.skip, self.skipped_reason = reason, f"{reason}: {detail}"
        return self.skipped_reason

    def add(self, verdict: Verdict, tags: list[str]) -> None:
        if self.failure is None:   # after the first failure Hypothesis shrinks: count only the final answer
            self.counts[verdict.outcome] += 1
            self.other_rule += verdict.other_rule
            self.tags.update(tags)
            for rule_id in verdict.depends_on:
                seen = self.disputed.setdefault(rule_id, {"matches_default": 0, "differs": 0})
                seen["matches_default" if verdict.matches_default else "differs"] += 1
        if verdict.is_failure:
            self.failure = verdict

    def suite_error(self, message: str) -> None:
        """The test stopped on something other than the target's answer (a suite bug, a target that cannot be
        started, a Hypothesis health check): recorded as an error, never as a pass."""
        self.failure = Verdict(Outcome.ERROR, f"the suite could not judge this test: {message}", {})

    def result(self) -> TestRecord:
        failure = self.failure
        return TestRecord(
            test_id=self.test_id, kind=self.kind, verdict=self.verdict, **self.subject,
            counts=freeze(dict(self.counts)), cases=sum(self.counts.values()), tags=freeze(dict(self.tags)),
            disputed=freeze(self.disputed), message=failure.message if failure else (self.skipped_reason or ""),
            diff=freeze(failure.diff) if failure and failure.diff else None, replay=self.replay,
            replay_command=self.replay_command, duration_s=round(time.monotonic() - self.started, 3),
            waiver=freeze(self.waiver) if self.waiver else None, skip=self.skip,
            skipped_reason=self.skipped_reason, other_rule=self.other_rule)


def param_id(item: SpecPath | Fault | Boundary) -> str:
    """The pytest parameter id of the test that checks `item` (test_legal[<id>], test_illegal[<id>], ...)."""
    return item.label if isinstance(item, SpecPath) else item.id


class RunSession:
    def __init__(self, settings: RunSettings):
        self.settings = settings
        self.spec = load_spec()
        self.waivers = (waivers.load(settings.waivers_file, self.spec.rules) if settings.waivers_file else ())
        self.waivers_used: Counter = Counter()
        self._target: Target | None = None

    @property
    def target(self) -> Target:
        if self._target is None:
            self._target = open_target(self.settings.target, timeout=self.settings.timeout)
        return self._target

    def close(self) -> None:
        if self._target is not None:
            self._target.close()
            self._target = None

    @cached_property
    def products(self) -> tuple[str, ...] | None:
        return tuple(self.spec.product(p).id for p in self.settings.products) or None

    @cached_property
    def apis(self) -> tuple[str, ...] | None:
        unknown = [api for api in self.settings.apis if api not in self.spec.apis]
        if unknown:
            raise ConformanceError(f"unknown API {', '.join(unknown)}; expected one of {', '.join(self.spec.apis)}")
        return tuple(self.settings.apis) or None

    @cached_property
    def paths(self):
        return select_paths(self.spec, self.products, self.apis)

    @cached_property
    def faults(self) -> list[Fault]:
        return faults(self.spec, self.products, self.apis)

    @cached_property
    def boundaries(self) -> list[Boundary]:
        return boundaries(self.spec, self.products, self.apis)

    @staticmethod
    def subject(item: SpecPath | Fault | Boundary) -> dict[str, str | None]:
        """The TestRecord subject fields of the test that checks `item`: a documented path, a fault or a bound."""
        if isinstance(item, Fault):
            return {"rule": item.rule.id, "variant": item.variant, "api": item.contexts[0].api.name}
        if isinstance(item, Boundary):
            return {"rule": item.rule.id, "variant": f"{item.side}={item.legal_value}", "api": item.rule.api}
        return {"product": item.product, "api": item.api, "route": f"{item.src}->{item.dst}",
                "src_dtype": item.src_dtype, "dst_dtype": item.dst_dtype}

    @cached_property
    def planned(self) -> dict[str, tuple[str, dict[str, str | None]]]:
        """Test id -> (kind, subject) of every conformance test the selection makes (before sharding)."""
        tests: dict[str, tuple[str, dict[str, str | None]]] = {}
        for kind, items in (("legal", self.paths), ("illegal", self.faults), ("boundary", self.boundaries)):
            for item in items:
                tests[f"test_{kind}[{param_id(item)}]"] = (kind, self.subject(item))
        return tests

    def check(self, record: CheckRecord, case: dict, expectation: str | None = None) -> None:
        """Run one case on the target, judge it, record it; raise ConformanceFailure if the target failed."""
        if self._shrink_budget_spent(record, case):
            return
        failure = self._run(record, case, expectation)
        if failure is not None:
            del case   # Hypothesis keeps the traceback of every failing shrink candidate: no case data in it
            raise ConformanceFailure(failure)

    def _run(self, record: CheckRecord, case: dict, expectation: str | None) -> str | None:
        """Ask the reference and the target, judge and record; the failure message if the target failed."""
        expected = reference.expect(case)
        self._check_expectation(record, case, expected, expectation)
        answer = self.target.execute(case)
        verdict = judge(case, expected, answer, self.target.hello, strict_rules=self.settings.strict_rules)
        if verdict.is_failure:
            verdict = self._waived(record, verdict, expected)
        record.add(verdict, case.get("tags", []))
        if not verdict.is_failure:
            return None
        record.failed_at = record.failed_at or time.monotonic()
        record.failing_case = json.dumps(case, sort_keys=True)
        self._save_replay(record, case, expected, verdict)
        return f"{verdict.describe()}\nreplay: {record.replay_command or '(no --ascendc-report dir)'}"

    def _shrink_budget_spent(self, record: CheckRecord, case: dict) -> bool:
        """Whether Hypothesis is shrinking a failure past the budget and `case` is not the smallest failing one.

        Such candidates are passed without asking the target: the shrinker then finds nothing smaller and
        ends, and its final replay runs the smallest failing case, which still fails. A target that hangs or
        a large failing case can therefore not hold a run up for more than about the budget per test.
        """
        if record.failed_at is None or time.monotonic() - record.failed_at <= self.settings.shrink_seconds:
            return False
        return json.dumps(case, sort_keys=True) != record.failing_case

    def _check_expectation(self, record: CheckRecord, case: dict, expected: dict, expectation: str | None) -> None:
        """Guard against suite bugs: a legal case must be ok, a single fault rejected with exactly its rule."""
        status = expected["status"]
        if record.kind == "legal" or record.kind == "boundary":
            if status != "ok":
                raise SuiteError(f"suite bug: a generated legal case is {status} by the reference: {expected.get('message')}")
        elif expectation == "reject":
            if status != "rejected" or list(expected["rules"]) != [record.rule]:
                raise SuiteError(f"suite bug: a single fault of {record.rule} gave {status} {expected.get('rules')}")
        elif record.rule not in expected.get("depends_on", ()):
            raise SuiteError(f"suite bug: a case for {record.rule} does not depend on it: {expected}")

    def _waived(self, record: CheckRecord, verdict: Verdict, expected: dict) -> Verdict:
        rules = [r for r in (record.rule, *expected.get("rules", ()), *expected.get("depends_on", ())) if r]
        for waiver in self.waivers:
            if waiver.matches(record.test_id, rules):
                self.waivers_used[waiver] += 1
                record.waiver = waiver.to_json()
                return Verdict(Outcome.WAIVED, f"{verdict.outcome} waived ({waiver.reason}; {waiver.link}): {verdict.message}",
                               verdict.expected, verdict.actual, verdict.diff, verdict.depends_on)
        return verdict

    def _save_replay(self, record: CheckRecord, case: dict, expected: dict, verdict: Verdict) -> None:
        if self.settings.report_dir is None:
            return
        path = replay.save(self.settings.report_dir / "replays", record.test_id, case, expected, verdict.actual,
                           verdict.to_json(), self.settings.target)
        record.replay = str(path.relative_to(self.settings.report_dir))
        record.replay_command = replay.command(path, self.settings.target)
