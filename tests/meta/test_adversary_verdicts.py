"""Meta-test of issue 25: the verdicts each adversarial target may earn under the judgment by twins.

For each adversary of tests/fixtures/buggy/adversaries.py, a run session of the suite (its selection, gates and
checker, as `run` builds them) plans the tests a run sends it — the legal paths, the single faults and the limit
probes of its product and APIs, legal tests first as in a run — draws a few cases of each with the suite's own
strategies, and has the checker judge the adversary's in-process answers (sending twins where a verdict hinges on
one). Each verdict is then held to the truth the twins establish, asked again here, independently of the
judgment's own evidence:

- no `disputed` verdict on a rejection that names no rule the case breaks, unless the adversary accepts the
  rejection's twin;
- no fault test `pass` on such a rejection whose twin the adversary refuses;
- every verdict one the adversary may earn for its test kind (`EARNS`), none it must never earn (`NEVER`), and
  no reading counted as followed that its answers do not prove (`NEVER_FOLLOWS`: the alignment CHECK never
  follows D24=must-be-zero);
- no exception of the suite (Unsatisfiable, a suite bug): no `error` the suite would charge to the target.

The same check against a credulous judgment, which credits every rejection without sending its twin (what the
judge did before issue 25 for a rejection naming no rule), finds violations for the adversaries built to expose
it: the check can fail.
"""
from __future__ import annotations

from dataclasses import dataclass
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.answer import AnswerKind
from ascendc_conformance.format.case import Case, ResultStatus
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.judge.evidence import Evidence, Phrasing, Proof, Question, phrasing, question_for
from ascendc_conformance.judge.verdict import Verdict
from ascendc_conformance.runner import gates
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.selection import subject
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.runner.twins import Twins
from ascendc_conformance.spec.loader import load_spec
from tests.fixtures.buggy import adversaries
from tests.fixtures.buggy.adversaries import Adversary

SPEC = load_spec()
DRAWN = 2   # cases per test
RUNS = [(adversaries.AlignmentCheckSimulator, "atlas-training", ("LoadData2D",), ()),
        (adversaries.RefusesEverySlice, "atlas-a2", ("DataCopySlice",), ()),
        (adversaries.VendorAlignmentsOwnIds, "atlas-a2", ("LoadData2D", "DataCopyNz2Nd"), ()),
        (adversaries.VendorAlignmentsOwnIds, "atlas-a2", ("LoadData2D", "DataCopyNz2Nd"), adversaries.VENDOR_READING),
        (adversaries.ZeroMaximaLoadData, "atlas-training", ("LoadData2D",), ()),
        (adversaries.ValidatesSomeKinds, "atlas-a2", ("LoadData2D",), ())]
QUIET = (adversaries.ValidatesSomeKinds,)   # names the spec's rules whenever it rejects: no twin is asked
IDS = [f"{adversary.__name__}{'@' + reading[0] if reading else ''}" for adversary, _, _, reading in RUNS]


class Credulous:
    """The judgment before twins: every rejection a verdict would credit is credited, no twin sent."""

    def ask(self, question: Question, case: Case) -> Evidence:
        return Evidence(Proof.ACCEPTED, "assumed, never sent")


@dataclass(frozen=True)
class Seen:
    """One judged case: its test's kind and rule, the case and the verdict."""

    kind: TestKind
    rule: str | None
    case: Case
    verdict: Verdict


def session(adversary: type[Adversary], product: str, apis: tuple[str, ...], reading: tuple[str, ...]) -> RunSession:
    run = RunSession(RunSettings(target=f"python:tests.fixtures.buggy.adversaries:{adversary.__name__}",
                                 products=(product,), apis=apis, reading=reading), SPEC)
    run.start()
    return run


def judged(run: RunSession) -> list[Seen]:
    """Every case the run's legal, illegal and limit tests send, judged by its checker (legal tests first)."""
    seen: list[Seen] = []
    for test_id, kind, item in run.selection.items(TestKind.LEGAL, TestKind.ILLEGAL, TestKind.LIMIT):
        record = CheckRecord(test_id, kind, budget=DRAWN)
        record.describe(**subject(item))
        try:
            plan = gates.plan(run, record, item)
        except pytest.skip.Exception:
            continue

        @settings(max_examples=DRAWN, database=None, deadline=None, derandomize=True, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(plan.strategy)
        def check(case: Case) -> None:
            result = run.checker.judge_case(record, case, plan)
            if result is not None:
                seen.append(Seen(kind, record.rule, case, result.verdict))
        check()   # any exception of the suite (Unsatisfiable, a suite bug) fails the meta-test here
    return seen


def violations(run: RunSession, adversary: type[Adversary], seen: list[Seen]) -> tuple[list[str], int]:
    """What the verdicts claim that the truth (the twins, sent anew) or the adversary's EARNS and NEVER deny, and
    how many rejections were held to their twin."""
    truth = Twins(spec=SPEC, reading=run.reading, target=run.target, limits=run.limits)
    found, held = [], 0
    for item in seen:
        outcome, kind = item.verdict.outcome, item.kind.value
        if outcome.value in adversary.NEVER.get(kind, ()) or (
                kind in adversary.EARNS and outcome.value not in adversary.EARNS[kind]):
            found.append(f"{kind} {item.case!r}: {outcome} is not what {adversary.__name__} may earn")
        for point, alternative in adversary.NEVER_FOLLOWS:
            if item.verdict.points.get(point) == alternative:
                found.append(f"{kind} {item.case!r}: counted as following {point}={alternative}")
        answer = run.target.execute(item.case)   # an adversary answers a case always alike
        actual = answer.result
        if answer.kind is not AnswerKind.RESULT or actual is None or actual.status is not ResultStatus.REJECTED:
            continue
        expected, others = reference.expect_readings(item.case, SPEC, run.reading)
        if phrasing(expected, others, actual, SPEC) is Phrasing.BROKEN:
            continue   # the spec checks the claim: no twin needed
        question = question_for(item.case, expected, others, answer, spec=SPEC, reading=run.reading,
                                rule_naming=run.settings.rule_naming, rule=item.rule)
        if question is None:
            continue
        proof = truth.ask(question, item.case).proof
        held += 1
        credited_fault = outcome is Outcome.PASS and expected.status is ResultStatus.REJECTED
        if outcome is Outcome.DISPUTED and proof is not Proof.ACCEPTED:
            found.append(f"disputed without twin evidence (the twin: {proof}): {item.case!r}")
        if credited_fault and proof in (Proof.REFUSED, Proof.WRONG_BYTES, Proof.NO_RESULT):
            found.append(f"a fault test passes on a rejection whose twin was {proof}: {item.case!r}")
    return found, held


@pytest.mark.parametrize("adversary, product, apis, reading", RUNS, ids=IDS)
def test_an_adversary_earns_only_what_its_answers_prove(adversary: type[Adversary], product: str,
                                                        apis: tuple[str, ...], reading: tuple[str, ...]) -> None:
    run = session(adversary, product, apis, reading)
    try:
        seen = judged(run)
        assert seen, f"no case of {adversary.__name__} was judged"
        found, held = violations(run, adversary, seen)
        assert not found, found[:5]
        assert held or adversary in QUIET, f"no rejection of {adversary.__name__} needed its twin: nothing was checked"
    finally:
        run.close()


@pytest.mark.parametrize("adversary, product, apis", [
    (adversaries.AlignmentCheckSimulator, "atlas-training", ("LoadData2D",)),
    (adversaries.RefusesEverySlice, "atlas-a2", ("DataCopySlice",))])
def test_the_check_fails_a_judgment_that_credits_rejections_without_twins(adversary: type[Adversary], product: str,
                                                                          apis: tuple[str, ...]) -> None:
    """Crediting every rejection (no twin sent), the check above finds what the twins would have refused: a
    disputed D24 for the alignment CHECK, fault tests passed by the target refusing every slice call."""
    run = session(adversary, product, apis, ())
    try:
        run.checker.twins = Credulous()   # type: ignore[assignment]
        found, _ = violations(run, adversary, judged(run))
        wanted = "disputed without twin evidence" if adversary is adversaries.AlignmentCheckSimulator else \
            "a fault test passes on a rejection whose twin was refused"
        assert any(wanted in line for line in found), found[:5]
    finally:
        run.close()
