"""Checking one case: the reference's expected results, the target's answer, the verdict, the test's record.

`Checker.check` is what every conformance test hands each case to (runner/suite): it decides whether the case
is still worth sending (a test keeps sending the cases of its budget after a failure; Hypothesis's shrinking is
bounded per test and per run), `judge_case` asks the reference and the target and judges the answer, and
`_record` counts the verdict, applies the waivers and keeps each distinct cause of failure — the hypothesis that
explains it, runner.diagnosing — with its smallest case and replay file. A failure whose cause is to be shrunk is
raised (ConformanceFailure, one class per cause) for Hypothesis, which then shrinks it to the smallest case that
cause's hypothesis still explains. A rejection is credited only for what it proves: where the verdict hinges on it, the case's counterfactual twin
is sent (runner.twins, judge.evidence); the legal cases the target accepts are kept for the fault tests to keep
looking on (runner.twins.Accepted, runner.gates).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import Any, Callable, NoReturn

from hypothesis import target as steer

from ascendc_conformance import reference
from ascendc_conformance.format import replay
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import REGION_FILL, Case, Result, ResultStatus
from ascendc_conformance.format.errors import ConformanceError, MachineFault
from ascendc_conformance.format.outcome import Outcome, SkipReason
from ascendc_conformance.format.pack import PackedCase, PackedTest
from ascendc_conformance.format.results import Cause, TestKind, case_summary
from ascendc_conformance.judge.diff import same_memory
from ascendc_conformance.judge.evidence import judge_with_evidence
from ascendc_conformance.judge.packed import judge_packed
from ascendc_conformance.judge.verdict import RuleNaming, Verdict
from ascendc_conformance.runner import flakes
from ascendc_conformance.runner.diagnosing import Ask, Diagnoser
from ascendc_conformance.runner.options import Entry
from ascendc_conformance.runner.plan import Plan
from ascendc_conformance.runner.records import CauseRecord, CheckRecord, size_of
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.runner.twins import Accepted, Twins
from ascendc_conformance.runner.waivers import Waiver
from ascendc_conformance.runner.witnessed_bits import BitWitnesses, call_of
from ascendc_conformance.spec.model import Reading, Spec
from ascendc_conformance.strategies.faults import Expectation
from ascendc_conformance.strategies.limits import Deviation
from ascendc_conformance.targets import Target

SHRUNK_CAUSES = 2   # causes of one test shown to Hypothesis to shrink (see Checker._plan_shrinking)
FILL_WRONG = ("sent with its regions in bytes instead of their fill recipes, the same case passes: the target's "
              "region-fill makes other bytes than the recipe (docs/target-protocol.md, Wire extensions)")


class ConformanceFailure(AssertionError):
    """The target failed a case; the message is the verdict, its diff and the replay command."""


class SuiteError(ConformanceError):
    """The suite itself misbehaved (e.g. a generated legal case the reference rejects): a bug to report."""


@dataclass(frozen=True)
class Judged:
    """One case judged: the result it was judged against (under the run's reading) and the verdict."""

    case: Case
    expected: Result
    verdict: Verdict
    detailed: Callable[[], Verdict] | None = None   # the verdict with its diff (judge.verdict's `detail`), worked
    #                                                 out when first asked; None: `verdict` has it

    def in_full(self) -> Verdict:
        """The verdict with its diff and the message that describes it: what a failure shown is shown with."""
        return self.verdict if self.detailed is None else self.detailed()

    @property
    def shown(self) -> tuple[Case, Result]:
        """The case a failure is shown on (its summary, its replay file) and its expected result: the twin's
        when the verdict is the answer to the case's twin (a fault's check masked by it)."""
        if self.verdict.twin_case is not None and self.verdict.expected is not None:
            return self.verdict.twin_case, self.verdict.expected
        return self.case, self.expected


class Checker:
    """Checks the cases of a run's tests against its target, under its spec, reading, settings and waivers."""

    def __init__(self, *, spec: Spec, reading: Reading, target: Target, settings: RunSettings,
                 waivers: tuple[Waiver, ...], packed: bool, entry: Entry = Entry.PYTEST) -> None:
        self.spec, self.reading, self.target, self.settings = spec, reading, target, settings
        self.entry = entry                          # the option names hints give
        self.waivers = waivers
        self.packed = packed                        # the run's cases come from a pack: never shrunk
        self.witnesses = BitWitnesses(spec, reading)
        self.diagnoser = Diagnoser(spec, reading)
        self.twins = Twins(spec=spec, reading=reading, target=target, limits=target.hello.limits)
        self.accepted = Accepted()                  # the legal cases it accepted, for the fault tests to build on
        self._shrunk_causes: set[tuple[str, ...]] = set()   # Cause.shrink_key of every failure shrunk so far
        self.shrink_spent = 0.0                     # seconds spent shrinking, over every finished test
        self.machine_fault: MachineFault | None = None   # a file the run could not write: it stops (runner.plugin)

    def check(self, record: CheckRecord, case: Case, plan: Plan, *, packed: PackedCase | None = None,
              answer: Answer | None = None, resend: Callable[[Case], Answer] | None = None) -> None:
        """Run one case on the target, judge it, record it; raise the failure of its cause if the target failed
        and that cause is to be shrunk. A case of a pack (`packed`) comes with the target's `answer` (a pack
        test sends its cases at once: runner.pack_run, whose `resend` sends one again) and is judged against
        the pack's expected results; it is never shrunk. A failing case is sent again before its failure
        counts (runner.flakes), unless the test saw the target repeat that behaviour already (`_confirmed`): an
        answer that changes makes it flaky. Its diff is worked out only where the test shows it (`_record`).

        One failure never hides another: after a test's first failure it keeps sending the cases of its budget
        (steering Hypothesis towards cases unlike the failing ones) and records every distinct cause, each
        with its smallest case and replay file. A failing run stays bounded: only the first failure of each
        cause in the run is shrunk (see `_plan_shrinking`), within --shrink-seconds per test and
        --shrink-budget per run; past the budget the shrinker's candidates are not sent, and the smallest
        failing case of a cause is never sent again (Hypothesis replays it at the end: its verdict is known,
        and a target that hung on it would cost another timeout). After a timeout the test sends nothing
        more. Cases are always drawn in full, so that Hypothesis sees the same data generation on every run."""
        record.calls += 1
        digest = _identity(case, packed) if record.failing else None   # hashed only once a case has failed
        known = record.failing.get(digest) if digest is not None else None
        if known is not None:
            state = record.causes[known]
            if state.shrinking:
                _raise_cause(state)
            return
        if record.causes and packed is None:
            steer(record.novelty(case), label="unlike the failing cases")
        generating = record.calls <= record.budget
        if not generating and record.shrink_started is None:
            record.shrink_started = time.monotonic()
        if record.timed_out:
            return
        if not generating and (not any(state.shrinking for state in record.causes.values())
                               or self._shrink_budget_spent(record)):
            return
        judged = self.judge_case(record, case, plan, packed=packed, answer=answer, resend=resend)
        if judged is None:
            return
        failing = self._record(record, judged, plan, digest, counted=generating, packed=packed,
                               ask=self._asker(resend))
        if failing is not None and failing.shrinking:
            del case, judged   # Hypothesis keeps the traceback of every failing shrink candidate: no case data in it
            _raise_cause(failing)

    def judge_case(self, record: CheckRecord, case: Case, plan: Plan, *, packed: PackedCase | None = None,
                   answer: Answer | None = None, resend: Callable[[Case], Answer] | None = None) -> Judged | None:
        """Ask the reference and the target (or take the pack's expected results and the target's answer) and
        judge the answer, a failing one once the case was sent again (runner.flakes: `resend`, by default the
        target's execute); None when the case is not to be sent after all (the test is then skipped)."""
        naming = self.settings.rule_naming
        if packed is not None:
            assert answer is not None, "a pack's case comes with the target's answer"
            send = resend or self.target.execute
            judged_on = partial(judge_packed, packed, case, hello=self.target.hello, reading=self.reading,
                                rule_naming=naming, spec=self.spec, rule=record.rule,
                                ask=lambda question: self.twins.ask(question, case), in_full=lambda: send(case),
                                diagnose=False)   # see _record
            verdict, expected, judged = judged_on(answer, detail=False)   # a failure's diff: where it is shown
            in_full = cache(lambda: judged_on(judged)[0])
            if judged is not answer and not flakes.same_digests(answer, judged):   # its digests, then other bytes
                return Judged(case, expected, flakes.digests_disagree(in_full(), answer, judged))
            confirmed = self._confirmed(record, plan, Judged(case, expected, verdict), judged,
                                        lambda again: judged_on(again)[0], resend)
            fill_wrong = self._fill_wrong(record, packed, case, confirmed, send)
            return Judged(case, expected, _filled(confirmed, fill_wrong),
                          detailed=cache(lambda: _filled(in_full(), fill_wrong)) if confirmed is verdict else None)
        expected, others = reference.expect_readings(case, self.spec, self.reading)
        # cases are generated legal or single-faulted under the seed reading: check them against it
        check_expectation(record.rule, expected if not self.reading.choices else reference.expect(case, self.spec),
                          plan.expectation)
        limit = plan.deviation if plan.expectation is Expectation.PAST_LIMIT else None
        if limit is not None:   # legal by the spec; the target said it would reject it
            expected, others, naming = _past_limit(limit), [], RuleNaming.LENIENT
        else:
            unchecked = not_validated(self.target.hello, expected, self.spec, self.reading)
            if unchecked is not None:   # e.g. a disputed rule illegal under the run's reading: skipped like its faults
                record.skipped(*unchecked)
                return None
        answer = self.target.execute(case)
        verdict_of = partial(judge_with_evidence, case, expected, hello=self.target.hello, reading=self.reading,
                             others=others, rule_naming=naming, spec=self.spec, rule=record.rule, limit=limit,
                             ask=lambda question: self.twins.ask(question, case),
                             diagnose=False)   # see _record
        # a failure's diff is worked out only where it is shown (_record): most failing cases of a failing test
        # show nothing the test's causes do not show already
        judgement = Judged(case, expected, verdict_of(answer, detail=False),
                           detailed=cache(partial(verdict_of, answer)))
        verdict = self._confirmed(record, plan, judgement, answer, verdict_of, resend)
        self.accepted.note(case, answer, verdict, legal=plan.expectation is Expectation.LEGAL)
        return judgement if verdict is judgement.verdict else Judged(case, expected, verdict)

    def _fill_wrong(self, record: CheckRecord, packed: PackedCase, case: Case, verdict: Verdict,
                    send: Callable[[Case], Answer]) -> bool:
        """Whether a pack's failing case failed for the target's region-fill, not the call (`Verdict.fill_wrong`):
        a case sent by its regions' fill recipes (the target announces REGION_FILL) is sent again with its regions
        in bytes, the one thing put right, and that twin passes (a disputed answer to it is no pass: it proves
        nothing of the fill). Not asked of a flaky answer or a timeout (another one), nor again in a test where
        such a twin did not pass (the call is wrong there)."""
        if (not verdict.is_failure or verdict.outcome in (Outcome.FLAKY, Outcome.TIMEOUT) or record.fill_cleared
                or REGION_FILL not in self.target.hello.extensions or not case.by_recipe):
            return False
        twin = case.in_bytes()
        twin_verdict, _, _ = judge_packed(packed, twin, send(twin), self.target.hello, reading=self.reading,
                                          rule_naming=self.settings.rule_naming, spec=self.spec, rule=record.rule,
                                          ask=lambda question: self.twins.ask(question, twin),
                                          in_full=lambda: send(twin), diagnose=False, detail=False)
        if twin_verdict.outcome is not Outcome.PASS:
            record.fill_cleared = True
            return False
        return True

    def _confirmed(self, record: CheckRecord, plan: Plan, judged: Judged, answer: Answer,
                   verdict_of: Callable[[Answer], Verdict], resend: Callable[[Case], Answer] | None) -> Verdict:
        """A failing verdict once its case was sent again (runner.flakes: `verdict_of` judges an answer in full);
        any other as it is. The first failing case of each behaviour in a test (its fallback cause before its diff:
        the API, verdict, the rule a fault breaks, the rules a false rejection named) is sent again; a later case
        failing so after the behaviour stood re-sending in the test is not (a failing run would send every failing
        case RESENDS more times: about a fifth of its time): the target repeated it."""
        verdict = judged.verdict
        if not verdict.is_failure:
            return verdict
        cause = self._fallback(record, plan, verdict, case_summary(judged.shown[0]), by_diff=False)
        if cause in record.confirmed:
            return verdict
        send = resend or self.target.execute
        confirmed = flakes.confirmed(verdict, answer, lambda: send(judged.case), verdict_of)
        if confirmed is verdict:
            record.confirmed.add(cause)
        return confirmed

    def _asker(self, resend: Callable[[Case], Answer] | None) -> Ask:
        """How the diagnosis asks the target a question (runner.diagnosing): a legal case sent as `resend` sends
        one (a pack test's cases in flight are dropped first, and sent again after it) or directly; whether the
        target moved it as the reference does under the run's reading (None: it gave no result)."""
        send = resend or self.target.execute

        def moved_right(case: Case) -> bool | None:
            expected = reference.expect(case, self.spec, reading=self.reading)
            answer = send(case)
            result = answer.result
            if answer.kind is not AnswerKind.RESULT or result is None:   # a timeout, a crash, an error: no evidence
                return None
            return (result.status is ResultStatus.OK and result.memory is not None and expected.memory is not None
                    and same_memory(result.memory, expected.memory))
        return moved_right

    @staticmethod
    def unraised_failure(record: CheckRecord) -> str | None:
        """The failures of a test that Hypothesis saw pass (none was raised: every cause was reported as
        drawn): the runner fails the test with them when Hypothesis is done."""
        return record.failure_text if record.causes else None

    def finished(self, record: CheckRecord) -> None:
        """A test ended: add the time it spent shrinking to the run's shrink budget; ask the target what tells a
        cause's hypotheses apart and diagnose each cause's smallest case (its replay file then names the
        hypothesis the cause ended with)."""
        if record.shrink_started is not None:
            self.shrink_spent += time.monotonic() - record.shrink_started
        if record.kind is TestKind.LEGAL and record.plan is not None:
            for state in [state for state in record.causes.values() if state.shrinking]:
                pinned = self.diagnoser.demonstration(state)
                judged = self.judge_case(record, pinned, record.plan) if pinned is not None else None
                if judged is not None and self.diagnoser.shows(state, judged.case, judged.expected, judged.verdict):
                    self._record(record, judged, record.plan, None, counted=False, packed=None,
                                 ask=self._asker(None))
        self.diagnoser.settle(record, self._asker(None))
        self.diagnoser.finish(record)
        for state in record.causes.values():
            if state.replay is not None and state.hypotheses and state.hypotheses[0] != state.replay_hypothesis:
                self._save_replay(record, state)

    def take_stored_reach(self, record: CheckRecord) -> None:
        """A pack test whose pack's stored reach (format.pack.PackedTest) is to be noted at its end: its cases'
        calls are kept as they are judged, not asked about (see `stored_reach_taken`)."""
        record.judged_calls = []

    def stored_reach_taken(self, record: CheckRecord, stored: PackedTest) -> None:
        """The end of such a test: its pack's stored reach is noted at once if every one of its cases was judged
        and counted (the same bits and crossings as noting each); else, when a timeout or the target's hello left
        some out, the cases judged are noted one by one."""
        judged, record.judged_calls = record.judged_calls or [], None
        if len(judged) == len(stored.cases):
            self.witnesses.note_known(record.bits, record.crossings, stored)
            return
        for call, expected in judged:
            self._note_reach(record, call, expected)

    def _note_reach(self, record: CheckRecord, case: Case, expected: Result, packed: PackedCase | None = None) -> None:
        """Note the bits and crossings a judged case adds to its test's (runner.witnessed_bits); in a test taking
        its pack's stored reach, keep its call (`packed`'s, made once) until the test ends instead."""
        if record.judged_calls is not None:
            record.judged_calls.append((packed.call if packed is not None else call_of(case), expected))
            return
        self.witnesses.note(record.bits, case, expected)
        self.witnesses.note_crossings(record.crossings, case, expected)

    def _shrink_budget_spent(self, record: CheckRecord) -> bool:
        assert record.shrink_started is not None
        spent = time.monotonic() - record.shrink_started
        return spent > self.settings.shrink_seconds or self.shrink_spent + spent > self.settings.shrink_budget

    def _record(self, record: CheckRecord, judged: Judged, plan: Plan, digest: str | None, *, counted: bool,
                packed: PackedCase | None, ask: Ask | None = None) -> CauseRecord | None:
        """Count the verdict (a case of the test's budget) and keep a failure's cause with its smallest case;
        the failing cause's record if the target failed. `ask`: how the diagnosis asks the target a question."""
        case, expected, verdict = judged.case, judged.expected, judged.verdict
        if verdict.is_failure:
            verdict = self._waived(record, verdict, expected)
        if counted:
            record.add(verdict, case)
            self._note_reach(record, case, expected, packed)
        if not verdict.is_failure:
            return None
        drawn = case
        case, expected = judged.shown
        summary = case_summary(case)
        # the diff of the case, and so its fallback cause, only where it is asked for (most failing cases are
        # explained by a cause of the test, and not shown)
        fallback = cache(lambda: self._fallback(record, plan, judged.in_full(), summary))
        attributed = self.diagnoser.attribute(record, case, expected, verdict, fallback, drawn=counted, ask=ask)
        cause = attributed.cause
        record.failing[digest or _identity(drawn, packed)] = cause
        state = record.causes.get(cause)
        size = size_of(case)
        smaller = state is None or size < state.size
        if smaller:   # shown: in full
            verdict = judged.in_full().diagnosed(attributed.diagnosis)
        if state is None:
            state = record.causes[cause] = CauseRecord(cause=cause, index=len(record.causes) + 1, verdict=verdict,
                                                       summary=summary, size=size, case=case, expected=expected,
                                                       hypotheses=attributed.hypotheses, title=cause.title,
                                                       fallback=fallback() if attributed.hypotheses else None,
                                                       refuted=attributed.refuted)
            self._plan_shrinking(record, state)
        state.verdicts.add(verdict.outcome)
        state.cases += counted
        if not smaller:
            return state
        state.verdict, state.summary, state.size, state.case, state.expected = verdict, summary, size, case, expected
        self._save_replay(record, state)
        state.text = (f"{verdict.describe()}\nreplay: "
                      + (state.replay_command or f"(no replay file: {self.entry.flag('report')} DIR keeps one)"))
        return state

    @staticmethod
    def _fallback(record: CheckRecord, plan: Plan, verdict: Verdict, summary: dict[str, Any], *,
                  by_diff: bool = True) -> Cause:
        """The diff-class cause of a failing verdict on the case of `summary` (format.results.Cause.of), what the
        diagnosis falls back on (`by_diff` False: without its diff's class): the rule a fault breaks is the
        cause of a missed or wrong rejection; a disputed case's other failures (a wrong copy, a false rejection)
        are the target's behaviour on a call legal under the run's reading."""
        misjudged = verdict.outcome not in (Outcome.FAIL, Outcome.FALSE_REJECT)
        fault_rule = record.rule if plan.expectation is not Expectation.LEGAL and misjudged else None
        diff = verdict.diff.to_json(max_runs=1, located=False) if by_diff and verdict.diff else None
        return Cause.of(verdict.outcome, summary, diff,   # its first run's class: no run of the diff located
                        named_rules=verdict.actual.rules if verdict.actual else (), fault_rule=fault_rule)

    def _plan_shrinking(self, record: CheckRecord, state: CauseRecord) -> None:
        """Shrink only the first failure of each cause in the run, at most SHRUNK_CAUSES of one test (Hypothesis
        shrinks each cause it is shown, and its shrinking costs draws even where the target is no longer
        asked), while the run's budget lasts, and never a hang or a crash (each try costs a timeout or a
        restart), nor a flaky one (which bytes go wrong is chance). The other causes are reported with their
        smallest drawn case. A smoke test's failure (two cases) and a heavy test's (every shrink candidate moves
        tens of MiB and keeps the bound the test pins: ten seconds before its failure was reported) are never
        shrunk, and leave the cause to the next full test that shows it."""
        if record.kind is TestKind.SMOKE or record.heavy:
            return
        key = state.cause.shrink_key
        shrunk_here = sum(other.shrinking for other in record.causes.values())
        state.shrinking = (not self.packed and key not in self._shrunk_causes and shrunk_here < SHRUNK_CAUSES
                           and self.shrink_spent < self.settings.shrink_budget
                           and state.cause.verdict not in (Outcome.TIMEOUT, Outcome.CRASHED, Outcome.FLAKY))
        self._shrunk_causes.add(key)

    def _waived(self, record: CheckRecord, verdict: Verdict, expected: Result) -> Verdict:
        rules = [r for r in (record.rule, *expected.rules, *expected.depends_on) if r]
        for waiver in self.waivers:
            if waiver.matches(record.test_id, rules):
                record.waiver = waiver.to_json()
                return replace(verdict, outcome=Outcome.WAIVED,
                               message=f"{verdict.outcome} waived ({waiver.reason}; {waiver.link}): {verdict.message}")
        return verdict

    def _save_replay(self, record: CheckRecord, state: CauseRecord) -> None:
        """Write the replay file of a cause's smallest case, naming the hypothesis it demonstrates; one the machine
        will not let it write (a full disk) is the run's fault, not the target's: the verdict stands, without a
        replay, and the run stops after this test."""
        if self.settings.report_dir is None or self.machine_fault is not None:
            return
        name = record.test_id if state.index == 1 else f"{record.test_id}~cause{state.index}"
        directory = self.settings.report_dir / "replays"
        hypothesis = self.diagnoser.replay_hypothesis(state)
        try:
            path = replay.save(directory, name, state.case, state.expected, state.verdict.actual,
                               state.verdict.to_json(), self.settings.target, hypothesis=hypothesis)
        except OSError as error:
            self.machine_fault = MachineFault(directory / replay.file_name(name), error)
            return
        state.replay_hypothesis = hypothesis.id if hypothesis is not None else ""
        state.replay = str(path.relative_to(self.settings.report_dir))
        state.replay_command = replay.command(path, self.settings.target)


def _filled(verdict: Verdict, fill_wrong: bool) -> Verdict:
    """The verdict of a pack's case whose failure is the target's region-fill (`fill_wrong`), or it as it is."""
    return replace(verdict, fill_wrong=True, message=f"{verdict.message}; {FILL_WRONG}") if fill_wrong else verdict


def _identity(case: Case, packed: PackedCase | None) -> str:
    """What tells a case from another: a pack's case by its id, a drawn one by its content."""
    return str(packed.case["id"]) if packed is not None else case.digest()


def _past_limit(deviation: Deviation) -> Result:
    """What a case past a declared limit must get: a rejection (for whatever rule the target names)."""
    return Result.rejected(tuple(deviation.rules), f"past the limit the target declares: {deviation.text}")


def not_validated(hello: Hello, expected: Result, spec: Spec, reading: Reading) -> tuple[SkipReason, str] | None:
    """Why a case to be rejected under the run's reading is not sent (the skip reason and its words): the target
    does not validate, or checks none of the rules the case breaks (hello `validates` by kind or rule id); None
    for a case it may be sent."""
    if expected.status is not ResultStatus.REJECTED:
        return None
    if not hello.validates:
        return SkipReason.NOT_VALIDATING, (f"the target does not validate (hello validates: false) and the case is "
                                           f"illegal under the reading {reading.label}")
    rules = [spec.rule(rule) for rule in expected.rules if rule in spec.rules]
    if not rules or any(hello.validates_rule(rule.id, rule.kind.value) for rule in rules):
        return None
    return SkipReason.NOT_VALIDATED, (f"the case breaks {', '.join(rule.id for rule in rules)} under the reading "
                                      f"{reading.label}, which the target does not declare that it validates (hello "
                                      f"validates: {json.dumps(hello.validation.to_json())})")


def check_expectation(rule: str | None, expected: Result, expectation: Expectation) -> None:
    """Guard against suite bugs (SuiteError): a legal case must be ok, a single fault of `rule` rejected with
    exactly that rule, a disputed case depend on it (`expected`: the result under the seed reading, which
    generation follows)."""
    status = expected.status
    if expectation in (Expectation.LEGAL, Expectation.PAST_LIMIT):   # a case of a path, a bound, a limit
        if status is not ResultStatus.OK:
            raise SuiteError(f"suite bug: a generated legal case is {status} by the reference: {expected.message}")
    elif expectation is Expectation.REJECT:
        if status is not ResultStatus.REJECTED or list(expected.rules) != [rule]:
            raise SuiteError(f"suite bug: a single fault of {rule} gave {status} {list(expected.rules)}")
    elif rule not in expected.depends_on:
        raise SuiteError(f"suite bug: a case for {rule} does not depend on it: {expected}")


_FAILURE_CLASSES: dict[str, type[ConformanceFailure]] = {}   # Cause.key -> its class


def _raise_cause(state: CauseRecord) -> NoReturn:
    """Raise the cause's failure for Hypothesis to shrink: one class per cause (by its key: the hypothesis that
    explains it), raised from this one line, so that Hypothesis tells causes apart (and shrinks each) by the
    exception's class and nothing else. A shrunk case is raised so only when the cause's hypothesis explains
    it (runner.diagnosing): the shrinker keeps to cases that still show that hypothesis."""
    failure = _FAILURE_CLASSES.setdefault(state.cause.key, type("ConformanceFailure", (ConformanceFailure,),
                                                                {"__module__": __name__}))
    raise failure(state.text)
