"""What one conformance test saw over all its cases (`CheckRecord`), and each distinct cause of its failures
(`CauseRecord`): filled in while Hypothesis runs the test, frozen into the `TestRecord` results.jsonl holds."""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import Case, Result, plain
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.outcome import Outcome, Shown, SkipReason
from ascendc_conformance.format.results import (Cause, Subject, TestKind, TestRecord, case_summary, freeze,
                                                 params_size)
from ascendc_conformance.judge.verdict import Verdict
from ascendc_conformance.runner.plan import Plan
from ascendc_conformance.runner.witnessed_bits import Witnessed
from ascendc_conformance.spec.model import ShortRepr

if TYPE_CHECKING:   # typing.Unpack from Python 3.11 on
    from typing_extensions import Unpack

SKIP_CHARS = 1000   # the longest reason a skipped test records (JUnit shows it on every skipped test)
PASSES_KEPT = 8     # passing cases a test keeps as evidence for its diagnosis (each holds its regions' bytes)


@dataclass(repr=False)
class CauseRecord(ShortRepr):
    """One distinct cause of a test's failures: its smallest failing case so far (what the reports show and its
    replay file holds), how many judged cases showed it, whether the run shrinks it, and the hypotheses that
    explain it (runner.diagnosing keeps them)."""

    cause: Cause                 # as it was found: what the test's failures are keyed and raised by
    index: int                   # 1 for the test's first cause, 2 for the next one found, ...
    verdict: Verdict             # on the smallest failing case
    summary: dict[str, Any]      # that case's case_summary
    size: tuple[int, int]        # how big that case is (size_of)
    case: Case                   # that case, and the result it was judged against
    expected: Result
    text: str = ""               # the verdict, its diff and the replay command
    cases: int = 0               # judged cases of this cause (the shrinker's candidates not counted)
    verdicts: set[Outcome] = field(default_factory=set)   # the verdicts of its cases
    shrinking: bool = False      # raised for Hypothesis to shrink (see Checker.check)
    replay: str | None = None
    replay_command: str | None = None
    replay_hypothesis: str = ""  # the id of the hypothesis its replay file says it demonstrates
    hypotheses: tuple[str, ...] = ()   # the ids of those explaining every case of it asked, simplest first
    title: str = ""              # the first's words (Hypothesis.title)
    narrowed: int = 0            # drawn cases of it that asked every one of them again
    shown_by: tuple[str, ...] = ()     # the ids of those explaining its smallest case (asked when the test ends)
    words: str = ""              # the first with that case's values: "blockLen kept in 8 bits (256 read as 0)"
    fallback: Cause | None = None   # an explained cause's diff-class cause (of its first case): what it is
    #                                    where the run refutes every hypothesis of it (reports.causes)
    refuted: frozenset[str] = frozenset()   # hypotheses a question to the target refuted (runner.diagnosing)

    def __repr__(self) -> str:
        return f"CauseRecord({self.cause.label})"

    @property
    def reported(self) -> Cause:
        """The cause as the test's record states it: named by the simplest hypothesis that explains all of it
        (which a later case may have changed), with the worst verdict of its cases."""
        worst = min(self.verdicts | {self.verdict.outcome}, key=lambda outcome: outcome.severity)
        if not self.hypotheses:
            return self.cause
        return Cause.explained(worst, self.cause.api, self.hypotheses[0], self.title)

    def to_json(self) -> dict[str, Any]:
        verdicts = sorted({outcome.value for outcome in self.verdicts | {self.verdict.outcome}},
                          key=lambda value: Outcome(value).severity)
        return {"cause": self.reported.to_json(), "verdict": self.verdict.outcome.value,
                "message": self.verdict.message, "diff": self.verdict.diff.to_json() if self.verdict.diff else None,
                "replay": self.replay, "replay_command": self.replay_command, "case": self.summary,
                "cases": self.cases, "verdicts": verdicts, "hypotheses": list(self.hypotheses),
                "shown_by": list(self.shown_by), "words": self.words,
                **({"fallback": self.fallback.to_json()} if self.fallback and self.hypotheses else {}),
                **({"refuted": sorted(self.refuted)} if self.refuted else {})}


@dataclass(repr=False)
class CheckRecord(ShortRepr):
    """What one conformance test saw over all its cases (mutable: filled in while Hypothesis runs).

    `result()` is the frozen `TestRecord` written to results.jsonl; the test's subject (product, API, path,
    rule...) is set once, by `describe`, with TestRecord's field names. `budget` is the number of cases the
    test draws (its settings' max_examples): calls past it are Hypothesis's shrinking."""

    test_id: str
    kind: TestKind
    budget: int
    heavy: bool = False   # its every case moves tens of MiB (strategies.pinned): its failures are not shrunk
    subject: Subject = field(default_factory=lambda: Subject())
    counts: Counter[Outcome] = field(default_factory=Counter)
    tags: Counter[str] = field(default_factory=Counter)
    disputed: dict[str, Counter[str]] = field(default_factory=dict)   # point -> the readings followed
    dispute_examples: dict[str, dict[str, Any]] = field(default_factory=dict)   # point -> reading -> params of its first case
    causes: dict[Cause, CauseRecord] = field(default_factory=dict)   # every distinct cause, first found first
    failing: dict[str, Cause] = field(default_factory=dict)   # digest of every failing case seen -> its cause
    unexplained: Counter[Cause] = field(default_factory=Counter)   # diff-class cause -> its cases no hypothesis explained
    confirmed: set[Cause] = field(default_factory=set)   # behaviours (causes without a diff class) that stood
    #                      re-sending on a case of the test (runner.checker.Checker._confirmed, runner.flakes)
    questions: int = 0   # questions the diagnosis asked the target (runner.diagnosing: QUESTIONS)
    passed: list[Case] = field(default_factory=list)   # its first PASSES_KEPT passing cases (not a heavy test's):
    #                    the target's own evidence against the hypotheses that show on them (runner.diagnosing)
    fill_cleared: bool = False   # a pack case's twin in bytes did not pass: its region-fill is not asked about again
    waiver: dict[str, Any] | None = None
    skip: SkipReason | None = None
    skipped_reason: str | None = None
    other_rule: int = 0
    shown: Counter[Shown] = field(default_factory=Counter)   # rejections of illegal calls: how each was shown
    calls: int = 0                    # cases handed to Checker.check
    plan: Plan | None = None          # what the test sends (runner.gates), worked out on its first case
    started: float = field(default_factory=time.monotonic)
    shrink_started: float | None = None   # when the first call past the budget came
    bits: Witnessed = field(default_factory=dict)   # API -> field -> bits its cases witnessed first in this process
    crossings: Witnessed = field(default_factory=dict)   # API -> derived quantity -> widths its cases crossed first
    judged_calls: list[tuple[Case, Result]] | None = None   # a pack test whose stored reach is taken: its cases
    #                                   judged so far (their calls, and expected results), noted at its end
    known: frozenset[str] = frozenset()   # the keys of the causes the run's baseline holds (format.baseline)

    def __repr__(self) -> str:
        return f"CheckRecord({self.test_id})"

    def describe(self, **subject: Unpack[Subject]) -> None:
        unknown = set(subject) - set(TestRecord.SUBJECT)
        if unknown:
            raise TypeError(f"not a subject field of a test record: {', '.join(sorted(unknown))}")
        self.subject.update(subject)

    @property
    def rule(self) -> str | None:
        return self.subject.get("rule")

    def is_known(self, state: CauseRecord) -> bool:
        """Whether the run's baseline holds this cause of the test's failures, by the key it is recorded under (the
        diagnosed hypothesis that names it, CauseRecord.reported)."""
        return state.reported.key in self.known

    @property
    def ranked_causes(self) -> list[CauseRecord]:
        """The causes, new ones before those the baseline holds, worst verdict first (the test's own verdict),
        then in the order they were found."""
        return sorted(self.causes.values(),
                      key=lambda state: (self.is_known(state), state.verdict.outcome.severity, state.index))

    @property
    def failure(self) -> Verdict | None:
        """The verdict of the worst cause; None for a test that has not failed."""
        return self.ranked_causes[0].verdict if self.causes else None

    @property
    def failure_text(self) -> str:
        """What the test fails with: every cause, each with its verdict, diff and replay command."""
        texts = [("known (in the baseline): " if self.is_known(state) else "") + state.text
                 for state in self.ranked_causes]
        if len(texts) < 2:
            return "".join(texts)
        return f"{len(texts)} distinct causes:\n" + "\n\n".join(f"({i}) {text}" for i, text in enumerate(texts, 1))

    @property
    def verdict(self) -> Outcome:
        """The worst outcome of its cases and causes (skipped if it judged none: its skip reason says why, the
        suite's own error included); a failing test's worst outcome among the causes its run's baseline does not
        hold, or known if it holds them all."""
        outcomes = [Outcome(outcome) for outcome in self.counts] + [c.verdict.outcome for c in self.causes.values()]
        if self.skip is not None and not outcomes:
            return self.skip.verdict
        worst = min(outcomes, key=lambda o: o.severity, default=Outcome.SKIPPED)
        if not worst.is_failure:
            return worst
        new = [state.verdict.outcome for state in self.causes.values() if not self.is_known(state)]
        return min(new, key=lambda o: o.severity) if new else Outcome.KNOWN

    @property
    def timed_out(self) -> bool:
        """A case of the test timed out: it sends no more."""
        return any(cause.verdict is Outcome.TIMEOUT for cause in self.causes)

    def skipped(self, reason: SkipReason, detail: str) -> str:
        """Record why this test judges no case (in at most SKIP_CHARS); the text to pass to pytest.skip."""
        self.skip, self.skipped_reason = reason, clip(f"{reason}: {detail}", SKIP_CHARS)
        return self.skipped_reason

    def add(self, verdict: Verdict, case: Case) -> None:
        """Count a judged case of the test's budget (the shrinker's candidates are not counted)."""
        self.counts[verdict.outcome] += 1
        if verdict.outcome is Outcome.PASS and len(self.passed) < PASSES_KEPT and not self.heavy:
            self.passed.append(case)
        self.other_rule += verdict.other_rule
        if verdict.shown is not None:
            self.shown[verdict.shown] += 1
        if verdict.outcome is not Outcome.FALSE_REJECT and (verdict.shown is None or verdict.shown.shown):
            self.tags.update(case.tags)   # a call refused without evidence exercised none of what it hits
        for point, name in verdict.points.items():
            self.disputed.setdefault(point, Counter())[name] += 1
            self.dispute_examples.setdefault(point, {}).setdefault(name, plain(case.params))

    def novelty(self, case: Case) -> float:
        """How unlike the test's failing cases a case is (for Hypothesis's targeting, once the test failed):
        its route or dtypes differing from every one's count 4, and each parameter whose magnitude (bit
        length) differs from that parameter in every one counts 1."""
        summary = case_summary(case)
        others = [state.summary for state in self.causes.values()]
        score = 4.0 * all((summary["route"], summary["src_dtype"], summary["dst_dtype"]) !=
                          (other["route"], other["src_dtype"], other["dst_dtype"]) for other in others)
        for name, value in summary["params"].items():
            if isinstance(value, int) and all(_bits(other["params"].get(name)) != _bits(value) for other in others):
                score += 1
        return score

    def suite_error(self, message: str) -> None:
        """The test stopped on the suite's own error (Unsatisfiable, a Hypothesis health check, a suite bug), not
        on the target's answer: never the target's verdict, and never a pass either. The cases it judged before
        keep their verdicts; the run ends with the suite's error (exit 3, runner.recorder). The message is cut to
        TARGET_TEXT_CHARS: an exception's text may quote what a target sent."""
        self.skip = SkipReason.SUITE_ERROR
        self.skipped_reason = clip(f"{SkipReason.SUITE_ERROR}: the suite could not draw or judge this test: "
                                   f"{clip(message, TARGET_TEXT_CHARS)}", SKIP_CHARS)

    def result(self) -> TestRecord:
        failure = self.failure
        ranked = self.ranked_causes
        first = ranked[0] if ranked else None
        return TestRecord(
            test_id=self.test_id, kind=self.kind, verdict=self.verdict, **self.subject,
            counts=freeze(dict(self.counts)), cases=sum(self.counts.values()), tags=freeze(dict(self.tags)),
            disputed=freeze({point: dict(seen) for point, seen in self.disputed.items()}),
            dispute_examples=freeze(self.dispute_examples),
            message=failure.message if failure else (self.skipped_reason or ""),
            diff=freeze(failure.diff.to_json()) if failure and failure.diff else None,
            replay=first.replay if first else None, replay_command=first.replay_command if first else None,
            duration_s=round(time.monotonic() - self.started, 3),
            waiver=freeze(self.waiver) if self.waiver else None, skip=self.skip,
            skipped_reason=self.skipped_reason, other_rule=self.other_rule, shown=freeze(dict(self.shown)),
            case=freeze(first.summary) if first else None,
            causes=freeze([{**state.to_json(), "known": self.is_known(state)} for state in ranked]),
            bits=freeze({api: {name: sorted(found) for name, found in fields.items()} for api, fields in self.bits.items()}),
            crossings=freeze({api: {name: sorted(found) for name, found in quantities.items()}
                              for api, quantities in self.crossings.items()}))


def _bits(value: Any) -> int:
    return abs(value).bit_length() if isinstance(value, int) else -1


def size_of(case: Case) -> tuple[int, int]:
    """How big a case is, for choosing a cause's smallest: the sum of its integer parameters, then their text."""
    return params_size(case.params), len(json.dumps(plain(case.params), sort_keys=True))
