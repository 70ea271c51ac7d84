"""Which failing cases a test sends again before their failure counts (runner.checker.Checker._confirmed): the
first case of each diff-class cause in the test, RESENDS more times; not a later case failing with a cause that
stood re-sending in the test; again any case whose cause is new to the test or turned flaky."""
from __future__ import annotations

from typing import Callable

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.defaults import RESENDS
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.runner.checker import Checker
from ascendc_conformance.runner.plan import Plan
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.faults import Expectation
from tests.helpers.casebuild import make_case, sentinel

SPEC = load_spec()
PLAN = Plan(item=None, contexts=(), expectation=Expectation.LEGAL)  # type: ignore[arg-type]
Answering = Callable[[Case, int], Result]   # a case and how many times it was sent before -> the answer


def copy(count: int) -> Case:
    """A legal DataCopy of `count` halves GM -> VECIN on atlas-a2 (one case per count)."""
    return Case.from_json(make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                                    {"count": count}, {"GM": sentinel(256, count), "UB": sentinel(256, 2)}))


def writes_nothing(case: Case, sent_before: int) -> Result:
    return Result.ok(case.memory)


def rejects(case: Case, sent_before: int) -> Result:
    return Result.rejected((), "no")


class Scripted:
    """A target answering each case as `answering` says, counting the sends of each case."""

    def __init__(self, answering: Answering) -> None:
        self.hello = Hello.from_dict({"name": "scripted", "validates": True})
        self.answering, self.sends = answering, {}

    def execute(self, case: Case) -> Answer:
        before = self.sends.get(case.digest(), 0)
        self.sends[case.digest()] = before + 1
        return Answer(kind=AnswerKind.RESULT, result=self.answering(case, before))


def judged(answering: Answering, *cases: Case) -> tuple[list[int], list[Outcome]]:
    """How many times each case was sent, and its verdict, the cases judged in turn in one legal test."""
    target = Scripted(answering)
    checker = Checker(spec=SPEC, reading=SPEC.seed_reading, target=target,  # type: ignore[arg-type]
                      settings=RunSettings(target="scripted"), waivers=(), packed=False)
    record = CheckRecord(test_id="test_legal[copy]", kind=TestKind.LEGAL, budget=len(cases))
    outcomes = []
    for case in cases:
        verdict = checker.judge_case(record, case, PLAN)
        assert verdict is not None
        outcomes.append(verdict.verdict.outcome)
    return [target.sends[case.digest()] for case in cases], outcomes


def test_a_cause_is_sent_again_on_its_first_case_in_a_test_only() -> None:
    sends, outcomes = judged(writes_nothing, copy(16), copy(32), copy(48))
    assert sends == [1 + RESENDS, 1, 1] and outcomes == [Outcome.FAIL] * 3


def test_a_new_cause_in_the_test_is_sent_again() -> None:
    def copies_nothing_then_rejects(case: Case, sent_before: int) -> Result:
        return (writes_nothing if dict(case.params)["count"] < 48 else rejects)(case, sent_before)

    sends, outcomes = judged(copies_nothing_then_rejects, copy(16), copy(32), copy(48), copy(64))
    assert sends == [1 + RESENDS, 1, 1 + RESENDS, 1]
    assert outcomes == [Outcome.FAIL, Outcome.FAIL, Outcome.FALSE_REJECT, Outcome.FALSE_REJECT]


def test_a_cause_that_turned_flaky_stood_nothing_and_its_next_case_is_sent_again() -> None:
    def flips_first_answers(case: Case, sent_before: int) -> Result:
        return writes_nothing(case, 0) if sent_before == 0 else reference.expect(case, SPEC)

    sends, outcomes = judged(flips_first_answers, copy(16), copy(32))
    assert sends == [2, 2] and outcomes == [Outcome.FLAKY, Outcome.FLAKY]


def test_a_passing_case_is_sent_once() -> None:
    sends, outcomes = judged(lambda case, _: reference.expect(case, SPEC), copy(16), copy(32))
    assert sends == [1, 1] and outcomes == [Outcome.PASS, Outcome.PASS]
