"""Questions the diagnosis asks the target (runner.diagnosing): where the hypotheses that explain a cause say
different things of a call just short of the named one's smallest showing value, that call is sent, and the
answer keeps only the hypotheses that predicted it. A refusal naming no rule is explained by every narrower
bound and by a field read as 0 alike: the answer to blockCount 255 tells them apart."""
from __future__ import annotations

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.results import Cause, TestKind
from ascendc_conformance.judge.verdict import judge
from ascendc_conformance.runner.diagnosing import QUESTIONS, Ask, Diagnoser
from ascendc_conformance.runner.records import CauseRecord, CheckRecord, size_of
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import typed_case

SPEC = load_spec()
DIAGNOSER = Diagnoser(SPEC, SPEC.seed_reading)
HELLO = Hello.from_dict({"name": "questions", "validates": True})
READ_AS_0 = "DataCopy.blockCount:read-as-0"


def refused(**params: int) -> Case:
    """A legal DataCopy GM -> VECIN call with these parameters, regions with room for them (and bytes that show
    a call moving nothing: zeros over zeros would not)."""
    data = bytes(range(256)) * 256
    return typed_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                      {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0, **params},
                      {"GM": data, "UB": data[::-1]})


def attributed(record: CheckRecord, case: Case, ask: Ask | None = None) -> Cause:
    """Attribute the target's refusal (naming no rule) of `case` to a cause of `record`, as the checker does."""
    expected = reference.expect(case, SPEC)
    verdict = judge(case, expected, Answer(kind=AnswerKind.RESULT, result=Result.rejected((), "not supported")),
                    HELLO, spec=SPEC, diagnose=False)
    fallback = Cause.of(verdict.outcome, {}, None, None, None)
    attribution = DIAGNOSER.attribute(record, case, expected, verdict, fallback, drawn=True, ask=ask)
    if attribution.cause not in record.causes:
        record.causes[attribution.cause] = CauseRecord(
            cause=attribution.cause, index=len(record.causes) + 1, verdict=verdict, summary={}, size=size_of(case),
            case=case, expected=expected, hypotheses=attribution.hypotheses, title=attribution.cause.title,
            refuted=attribution.refuted)
    return attribution.cause


def new_record() -> CheckRecord:
    return CheckRecord(test_id="test_legal[questions]", kind=TestKind.LEGAL, budget=100)


class Target:
    """Answers questions as a target refusing `field` above `maximum` does; keeps what it was asked."""

    def __init__(self, field: str, maximum: int) -> None:
        self.field, self.maximum, self.asked = field, maximum, []

    def __call__(self, case: Case) -> bool:
        self.asked.append(dict(case.params))
        return case.params[self.field] <= self.maximum


def test_the_question_of_a_bound_is_the_call_at_the_bound() -> None:
    named = DIAGNOSER._hypothesis("DataCopy.blockCount:refused-above-255")
    question = DIAGNOSER.question(refused(blockCount=300), named)
    assert question is not None and question.params["blockCount"] == 255
    assert DIAGNOSER.question(refused(blockCount=200), named) is None   # already short of it: nothing to ask
    assert DIAGNOSER.question(refused(blockCount=300), DIAGNOSER._hypothesis("every-call-refused")) is None


def test_the_bound_a_target_keeps_is_found_and_the_broader_explanations_dropped() -> None:
    record, target = new_record(), Target("blockCount", 255)
    cause = attributed(record, refused(blockCount=300))
    state = record.causes[cause]
    assert state.hypotheses[0] == "DataCopy.blockCount:refused-above-255" and READ_AS_0 in state.hypotheses
    DIAGNOSER.settle(record, target)
    assert 255 in [asked["blockCount"] for asked in target.asked] and len(target.asked) <= QUESTIONS
    assert state.hypotheses[0] == "DataCopy.blockCount:refused-above-255"
    assert READ_AS_0 not in state.hypotheses and READ_AS_0 in state.refuted
    assert "DataCopy.blockCount:refused-above-127" in state.refuted


def test_a_narrower_bound_than_the_failing_case_shows_is_found_by_halving() -> None:
    record, target = new_record(), Target("blockCount", 63)
    state = record.causes[attributed(record, refused(blockCount=300))]
    DIAGNOSER.settle(record, target)
    assert state.hypotheses == ("DataCopy.blockCount:refused-above-63",)
    assert state.title == "blockCount refused above 63"
    assert len(target.asked) <= QUESTIONS


def test_a_target_refusing_every_call_keeps_the_broad_explanation() -> None:
    record, target = new_record(), Target("blockCount", 0)
    state = record.causes[attributed(record, refused(blockCount=300))]
    DIAGNOSER.settle(record, target)
    assert state.hypotheses[0] == READ_AS_0 and "every-call-refused" in state.hypotheses


def test_a_second_bug_of_a_test_is_asked_about_before_it_is_merged_into_the_first() -> None:
    """Refusals of blockLen 300 and of blockCount 300 share "blockCount read as 0": a target moving blockCount
    255 right has two bugs (two causes); one refusing it too has one, the broader (one cause, renamed)."""
    for target, causes in ((Target("blockCount", 255), 2), (Target("blockCount", 0), 1)):
        record = new_record()
        first = attributed(record, refused(blockLen=300))
        second = attributed(record, refused(blockCount=300), ask=target)
        assert [asked["blockCount"] for asked in target.asked] == [255]
        assert len(record.causes) == causes and (second != first) == (causes == 2)
        if causes == 2:
            assert READ_AS_0 in record.causes[second].refuted
            assert record.causes[second].hypotheses[0] == "DataCopy.blockCount:refused-above-255"
        else:
            assert record.causes[first].hypotheses[0] == READ_AS_0


def test_without_a_way_to_ask_a_second_bug_is_merged_into_the_first() -> None:
    record = new_record()
    first = attributed(record, refused(blockLen=300))
    assert attributed(record, refused(blockCount=300)) == first and len(record.causes) == 1


def test_a_test_asks_at_most_its_questions() -> None:
    record, target = new_record(), Target("blockCount", 255)
    state = record.causes[attributed(record, refused(blockCount=300))]
    record.questions = QUESTIONS - 2
    DIAGNOSER.settle(record, target)
    assert len(target.asked) == 2 and record.questions == QUESTIONS
    assert READ_AS_0 in state.hypotheses or len(state.hypotheses) > 2   # not settled: no further question


def test_a_question_the_target_gives_no_result_to_refutes_nothing_and_ends_the_questions() -> None:
    """A timeout, a crash or an error is no evidence about a hypothesis: it refutes none, and the test asks nothing
    more (a hanging target costs one timeout, not QUESTIONS)."""
    asked: list[Case] = []

    def hangs(case: Case) -> None:
        asked.append(case)
        return None

    record = new_record()
    state = record.causes[attributed(record, refused(blockCount=300))]
    before = state.hypotheses
    DIAGNOSER.settle(record, hangs)
    assert len(asked) == 1 and state.hypotheses == before and not state.refuted and record.questions == QUESTIONS
