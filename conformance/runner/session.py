"""One conformance run inside pytest: the target, the selection from the spec, verdicts and their records.

The pytest plugin builds one `RunSession` per process (each xdist worker has its own target process); the
suite's tests hand each drawn case to `RunSession.check`, which asks the reference and the target, judges,
records, and raises `ConformanceFailure` when the target fails (after saving a replay file).
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from ascendc_conformance import reference
from ascendc_conformance.format import replay
from ascendc_conformance.format.defaults import CASE_TIMEOUT_S, RUN_SHRINK_SECONDS, SHRINK_SECONDS
from ascendc_conformance.runner import waivers
from ascendc_conformance.runner.bits import BitWitnesses
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.case import ResultStatus
from ascendc_conformance.format.results import TestKind, TestRecord, case_summary, freeze
from ascendc_conformance.targets import Target, open_target
from ascendc_conformance.judge.verdict import Verdict, judge
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Path as SpecPath, Reading, ShortRepr
from ascendc_conformance.strategies.boundaries import Boundary, boundaries
from ascendc_conformance.strategies.faults import Expectation, Fault, faults
from ascendc_conformance.strategies.legal import contexts, select_paths
from ascendc_conformance.strategies.smoke import RouteForm, Smoke, smoke_tests


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
    shrink_seconds: float = SHRINK_SECONDS        # per failing test
    shrink_budget: float = RUN_SHRINK_SECONDS     # all failing tests of this process together
    reading: tuple[str, ...] = ()                 # --reading words: reading sets and POINT=ALT (none: the seed reading)
    strict_rules: bool = False                    # a rejection naming only other rules is the failing wrong-rule


@dataclass(repr=False)
class CheckRecord(ShortRepr):
    """What one conformance test saw over all its cases (mutable: filled in while Hypothesis runs).

    `result()` is the frozen `TestRecord` written to results.jsonl; the test's subject (product, API, path,
    rule...) is set once, by `describe`, with TestRecord's field names."""

    test_id: str
    kind: TestKind
    subject: dict[str, str] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    tags: Counter = field(default_factory=Counter)
    disputed: dict = field(default_factory=dict)           # point -> Counter of the readings followed
    dispute_examples: dict = field(default_factory=dict)   # point -> reading -> params of its first case
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
    failing_summary: dict | None = None   # its case_summary, for the record
    failure_text: str = ""                # what the test raised on it
    shrinking: bool = False               # the failure is raised for Hypothesis to shrink (see RunSession.check)
    bits: dict = field(default_factory=dict)   # API -> field -> bits its cases witnessed first in this process

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

    def add(self, verdict: Verdict, case: dict) -> None:
        """Count a judged case. Once the test failed, Hypothesis only shrinks: a smaller failing case replaces
        the failure it was counted as (so the counts always hold the test's verdict); passing candidates of
        the shrinker are not counted."""
        if self.failure is None:
            self.counts[verdict.outcome] += 1
            self.other_rule += verdict.other_rule
            self.tags.update(case.get("tags", []))
            for point, name in verdict.points.items():
                self.disputed.setdefault(point, Counter())[name] += 1
                self.dispute_examples.setdefault(point, {}).setdefault(name, case["params"])
        elif verdict.is_failure:
            self.counts[self.failure.outcome] -= 1
            self.counts[verdict.outcome] += 1
        if verdict.is_failure:
            self.failure = verdict

    def suite_error(self, message: str) -> None:
        """The test stopped on something other than the target's answer (a suite bug, a target that cannot be
        started, a Hypothesis health check): recorded as an error, never as a pass."""
        self.failure = Verdict(outcome=Outcome.ERROR, message=f"the suite could not judge this test: {message}",
                               expected={})

    def result(self) -> TestRecord:
        failure = self.failure
        return TestRecord(
            test_id=self.test_id, kind=self.kind, verdict=self.verdict, **self.subject,
            counts=freeze(dict(self.counts)), cases=sum(self.counts.values()), tags=freeze(dict(self.tags)),
            disputed=freeze({point: dict(seen) for point, seen in self.disputed.items()}),
            dispute_examples=freeze(self.dispute_examples), message=failure.message if failure else (self.skipped_reason or ""),
            diff=freeze(failure.diff) if failure and failure.diff else None, replay=self.replay,
            replay_command=self.replay_command, duration_s=round(time.monotonic() - self.started, 3),
            waiver=freeze(self.waiver) if self.waiver else None, skip=self.skip,
            skipped_reason=self.skipped_reason, other_rule=self.other_rule,
            case=freeze(self.failing_summary) if self.failing_summary else None,
            bits=freeze({api: {name: sorted(found) for name, found in fields.items()} for api, fields in self.bits.items()}))


def param_id(item: SpecPath | Fault | Boundary | Smoke) -> str:
    """The pytest parameter id of the test that checks `item` (test_legal[<id>], test_illegal[<id>], ...)."""
    return item.label if isinstance(item, SpecPath) else item.id


class RunSession:
    def __init__(self, settings: RunSettings):
        self.settings = settings
        self.spec = load_spec()
        self.waivers = (waivers.load(settings.waivers_file, self.spec.rules) if settings.waivers_file else ())
        self.waivers_used: Counter = Counter()
        self._target: Target | None = None
        self._shrunk_causes: set[tuple] = set()   # Cause.shrink_key of every failure shrunk so far
        self.shrink_spent = 0.0                   # seconds spent shrinking, over every finished test

    @cached_property
    def reading(self) -> Reading:
        """The reading the run certifies under (ReadingError for words naming no known point or alternative)."""
        return self.spec.reading(self.settings.reading)

    @cached_property
    def witnesses(self) -> BitWitnesses:
        """The bits of the parameters this process's legal cases witness (runner.bits)."""
        return BitWitnesses(self.spec, self.reading)

    @property
    def target(self) -> Target:
        if self._target is None:
            self._target = open_target(self.settings.target, timeout=self.settings.timeout)
        return self._target

    def idle_capabilities(self) -> list[str]:
        """The hello's `implements` / `excludes` entries that match no documented path of the spec: a misspelt
        entry would otherwise quietly make tests not-supported (or leave them in)."""
        hello = self.target.hello
        subjects = [{"product": c.product.id, "api": c.api.name, "src": c.src, "dst": c.dst,
                     "dtype": c.src_dtype.name, "dst_dtype": c.dst_dtype.name, "form": c.form}
                    for c in contexts(self.spec, self.spec.paths())]
        return [f"{kind}[{index}] {dict(entry.keys)}"
                for kind, entries in (("implements", hello.implements or ()), ("excludes", hello.excludes))
                for index, entry in enumerate(entries) if not any(entry.matches(s) for s in subjects)]

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

    @cached_property
    def smoke(self) -> list[Smoke]:
        return smoke_tests(self.spec, self.paths, self.faults, self.boundaries)

    @classmethod
    def subject(cls, item: SpecPath | Fault | Boundary | Smoke) -> dict[str, str | None]:
        """The TestRecord subject fields of the test that checks `item`: a documented path, a fault, a bound,
        or one smoke case of a route and form (or of a fault or bound)."""
        if isinstance(item, Smoke):
            if isinstance(item.item, RouteForm):
                first = item.item.first
                return {"product": first.product.id, "api": first.api.name, "route": f"{first.src}->{first.dst}",
                        "variant": first.form}
            return cls.subject(item.item)
        if isinstance(item, Fault):
            return {"rule": item.rule.id, "variant": item.variant, "api": item.contexts[0].api.name}
        if isinstance(item, Boundary):
            return {"rule": item.rule.id, "variant": f"{item.side}={item.legal_value}", "api": item.rule.api}
        return {"product": item.product, "api": item.api, "route": f"{item.src}->{item.dst}",
                "src_dtype": item.src_dtype, "dst_dtype": item.dst_dtype}

    @cached_property
    def planned(self) -> dict[str, tuple[TestKind, dict[str, str | None]]]:
        """Test id -> (kind, subject) of every conformance test the selection makes (before sharding)."""
        tests: dict[str, tuple[TestKind, dict[str, str | None]]] = {}
        for kind, items in ((TestKind.SMOKE, self.smoke), (TestKind.LEGAL, self.paths),
                            (TestKind.ILLEGAL, self.faults), (TestKind.BOUNDARY, self.boundaries)):
            for item in items:
                tests[f"test_{kind}[{param_id(item)}]"] = (kind, self.subject(item))
        return tests

    def check(self, record: CheckRecord, case: dict, expectation: Expectation = Expectation.LEGAL) -> None:
        """Run one case on the target, judge it, record it; raise ConformanceFailure if the target failed and
        the failure is to be shrunk.

        A failing run stays bounded. Only the first failure of each (API, route, verdict, diff class) is
        shrunk, never a timeout or a crash, and only within --shrink-seconds per test and --shrink-budget per
        run: such a failure is raised, so that Hypothesis shrinks it. Any other failure is recorded but not
        raised (the runner fails the test when it ends, see `unraised_failure`): it is reported as drawn. Once
        a test has failed, no case is sent to the target again unless Hypothesis is shrinking it within its
        budget, and the smallest failing case is never sent again (Hypothesis replays it at the end: its
        verdict is known, and a target that hung on it would cost another timeout). Cases are always drawn
        in full, so that Hypothesis sees the same data generation on every run of a test."""
        if record.failure is not None:
            if json.dumps(case, sort_keys=True) == record.failing_case:
                if record.shrinking:
                    raise ConformanceFailure(record.failure_text)
                return
            if not record.shrinking or self._shrink_budget_spent(record):
                return
        failure = self._run(record, case, expectation)
        if failure is not None and record.shrinking:
            del case   # Hypothesis keeps the traceback of every failing shrink candidate: no case data in it
            raise ConformanceFailure(failure)

    @staticmethod
    def unraised_failure(record: CheckRecord) -> str | None:
        """The failure of a test that was recorded but not raised (reported as drawn): the runner fails the
        test with it when Hypothesis is done."""
        return record.failure_text if record.failure is not None and not record.shrinking else None

    def _shrink_budget_spent(self, record: CheckRecord) -> bool:
        assert record.failed_at is not None
        spent = time.monotonic() - record.failed_at
        return spent > self.settings.shrink_seconds or self.shrink_spent + spent > self.settings.shrink_budget

    def finished(self, record: CheckRecord) -> None:
        """A test ended: add the time it spent shrinking to the run's shrink budget."""
        if record.failed_at is not None:
            self.shrink_spent += time.monotonic() - record.failed_at

    def _run(self, record: CheckRecord, case: dict, expectation: Expectation) -> str | None:
        """Ask the reference and the target, judge and record; the failure message if the target failed."""
        expected, others = reference.expect_readings(case, self.reading)
        # cases are generated legal or single-faulted under the seed reading: check them against it
        self._check_expectation(record, case, expected if not self.reading.choices else reference.expect(case),
                                expectation)
        if expected["status"] == ResultStatus.REJECTED and not self.target.hello.validates:
            # e.g. a disputed rule illegal under the run's reading: skipped like every other illegal case
            record.skipped(SkipReason.NOT_VALIDATING, "the target does not validate (hello validates: false) and "
                                                      f"the case is illegal under the reading {self.reading.label}")
            return None
        answer = self.target.execute(case)
        verdict = judge(case, expected, answer, self.target.hello, reading=self.reading, others=others,
                        strict_rules=self.settings.strict_rules, spec=self.spec)
        if verdict.is_failure:
            verdict = self._waived(record, verdict, expected)
        first_failure = record.failure is None
        record.add(verdict, case)
        self.witnesses.note(record.bits, case, expected)
        if not verdict.is_failure:
            return None
        record.failing_case = json.dumps(case, sort_keys=True)
        record.failing_summary = case_summary(case)
        self._save_replay(record, case, expected, verdict)
        if first_failure:
            record.failed_at = time.monotonic()
            self._plan_shrinking(record)
        record.failure_text = f"{verdict.describe()}\nreplay: {record.replay_command or '(no --ascendc-report dir)'}"
        return record.failure_text

    def _plan_shrinking(self, record: CheckRecord) -> None:
        """Shrink only the first failure of each cause, while the run's budget lasts, and never a hang or a
        crash (each try costs a timeout or a restart)."""
        cause = record.result().cause
        assert cause is not None
        record.shrinking = (cause.shrink_key not in self._shrunk_causes and self.shrink_spent < self.settings.shrink_budget
                            and cause.verdict not in (Outcome.TIMEOUT, Outcome.CRASHED))
        self._shrunk_causes.add(cause.shrink_key)

    def _check_expectation(self, record: CheckRecord, case: dict, expected: dict, expectation: Expectation) -> None:
        """Guard against suite bugs: a legal case must be ok, a single fault rejected with exactly its rule
        (`expected`: the result under the seed reading, which generation follows)."""
        status = expected["status"]
        if expectation is Expectation.LEGAL:   # a case of a path or a bound
            if status != ResultStatus.OK:
                raise SuiteError(f"suite bug: a generated legal case is {status} by the reference: {expected.get('message')}")
        elif expectation is Expectation.REJECT:
            if status != ResultStatus.REJECTED or list(expected["rules"]) != [record.rule]:
                raise SuiteError(f"suite bug: a single fault of {record.rule} gave {status} {expected.get('rules')}")
        elif record.rule not in expected.get("depends_on", ()):
            raise SuiteError(f"suite bug: a case for {record.rule} does not depend on it: {expected}")

    def _waived(self, record: CheckRecord, verdict: Verdict, expected: dict) -> Verdict:
        rules = [r for r in (record.rule, *expected.get("rules", ()), *expected.get("depends_on", ())) if r]
        for waiver in self.waivers:
            if waiver.matches(record.test_id, rules):
                self.waivers_used[waiver] += 1
                record.waiver = waiver.to_json()
                return replace(verdict, outcome=Outcome.WAIVED,
                               message=f"{verdict.outcome} waived ({waiver.reason}; {waiver.link}): {verdict.message}")
        return verdict

    def _save_replay(self, record: CheckRecord, case: dict, expected: dict, verdict: Verdict) -> None:
        if self.settings.report_dir is None:
            return
        path = replay.save(self.settings.report_dir / "replays", record.test_id, case, expected, verdict.actual,
                           verdict.to_json(), self.settings.target)
        record.replay = str(path.relative_to(self.settings.report_dir))
        record.replay_command = replay.command(path, self.settings.target)
