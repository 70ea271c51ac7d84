"""What a test does with its failing cases beyond judging them (runner.checker.Checker):

- which it sends again before their failure counts (`_confirmed`): the first failing case of each behaviour in
  the test, RESENDS more times; not a later case failing so after the behaviour stood re-sending in the test;
  again any case whose behaviour is new to the test or turned flaky;
- which it works a memory diff out for (judge.verdict's `detail`): only a case its test shows (a cause's first or
  smaller case), and that one in full; in a profile run and a pack run alike.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import pytest

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.defaults import RESENDS
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.format.pack import PackedCase
from ascendc_conformance.judge import verdict as judging
from ascendc_conformance.judge.packed import expectations
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


def packed(case: Case) -> PackedCase:
    """The case as a pack holds it: its expected results digested (judge.packed.expectations)."""
    points, stored = expectations(*reference.expect_readings(case, SPEC))
    return PackedCase(case={**case.to_json(), "id": case.digest()}, points=points, expected=stored)


def checked(answering: Answering, *cases: Case, record: bool = False,
            from_pack: bool = False) -> tuple[list[int], list[Outcome], CheckRecord]:
    """How many times each case was sent, and its verdict, the cases judged in turn in one legal test, drawn or
    (`from_pack`) a pack's (and, with `record`, recorded as the test records them); the test's record."""
    target = Scripted(answering)
    checker = Checker(spec=SPEC, reading=SPEC.seed_reading, target=target,  # type: ignore[arg-type]
                      settings=RunSettings(target="scripted"), waivers=(), packed=from_pack)
    test = CheckRecord(test_id="test_legal[copy]", kind=TestKind.LEGAL, budget=len(cases))
    outcomes = []
    for case in cases:
        pack_case = packed(case) if from_pack else None
        answer = target.execute(case) if from_pack else None   # a pack test sends its cases itself
        judged = checker.judge_case(test, case, PLAN, packed=pack_case, answer=answer)
        assert judged is not None
        outcomes.append(judged.verdict.outcome)
        if record:
            checker._record(test, judged, PLAN, None, counted=True, packed=pack_case)
    return [target.sends[case.digest()] for case in cases], outcomes, test


def judged(answering: Answering, *cases: Case) -> tuple[list[int], list[Outcome]]:
    sends, outcomes, _ = checked(answering, *cases)
    return sends, outcomes


@pytest.mark.parametrize("from_pack", [False, True], ids=["drawn", "pack"])
def test_a_cause_is_sent_again_on_its_first_case_in_a_test_only(from_pack: bool) -> None:
    sends, outcomes, _ = checked(writes_nothing, copy(16), copy(32), copy(48), from_pack=from_pack)
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


@pytest.fixture
def diffs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The count of each memory diff the judge works out (of the case's `count` parameter)."""
    counted: list[int] = []
    real = judging.diff_case

    def counting(case: Case, *args: object, **kwargs: object) -> object:
        counted.append(dict(case.params)["count"])
        return real(case, *args, **kwargs)   # type: ignore[arg-type]
    monkeypatch.setattr(judging, "diff_case", counting)
    return counted


@pytest.mark.parametrize("from_pack", [False, True], ids=["drawn", "pack"])
def test_a_failing_case_gets_its_diff_only_where_it_is_shown(diffs: list[int], from_pack: bool) -> None:
    """Four cases of one cause: the first is shown, then the smaller one; the larger ones show nothing new."""
    _, outcomes, test = checked(writes_nothing, copy(48), copy(64), copy(16), copy(80), record=True,
                                from_pack=from_pack)
    assert outcomes == [Outcome.FAIL] * 4 and diffs == [48, 16]
    (state,) = test.causes.values()
    assert dict(state.case.params)["count"] == 16 and state.cases == 4
    shown = state.verdict
    assert shown.diff is not None and shown.diff.differing_bytes > 0
    assert shown.message.startswith(f"{judging.MEMORY_DIFFERS}: ") and "first: UB" in shown.message
    assert state.text.startswith("fail: memory differs: ") and "replay:" in state.text


def test_a_verdict_without_its_diff_is_the_same_verdict_with_the_diff_left_out() -> None:
    case = copy(32)
    expected = reference.expect(case, SPEC)
    answer = Answer(kind=AnswerKind.RESULT, result=writes_nothing(case, 0))
    hello = Scripted(writes_nothing).hello
    full = judging.judge(case, expected, answer, hello, spec=SPEC, diagnose=False)
    light = judging.judge(case, expected, answer, hello, spec=SPEC, diagnose=False, detail=False)
    assert full.diff is not None and light.diff is None and light.message == judging.MEMORY_DIFFERS
    assert full.message.startswith(f"{judging.MEMORY_DIFFERS}: ")
    assert replace(full, diff=None, message=light.message) == light
