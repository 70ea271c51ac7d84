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
from ascendc_conformance.runner.records import PASSES_KEPT, CauseRecord, CheckRecord, size_of
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


def refused_at(address: int, **params: int) -> Case:
    """`refused(**params)` with its VECIN operand at `address`."""
    data = bytes(range(256)) * 256
    return typed_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", address),
                      {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0, **params},
                      {"GM": data, "UB": data[::-1]})


def attributed(record: CheckRecord, case: Case, ask: Ask | None = None) -> Cause:
    """Attribute the target's refusal (naming no rule) of `case` to a cause of `record`, as the checker does."""
    expected = reference.expect(case, SPEC)
    verdict = judge(case, expected, Answer(kind=AnswerKind.RESULT, result=Result.rejected((), "not supported")),
                    HELLO, spec=SPEC, diagnose=False)
    fallback = Cause.of(verdict.outcome, {})
    attribution = DIAGNOSER.attribute(record, case, expected, verdict, lambda: fallback, drawn=True, ask=ask)
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
    255 right has two bugs (two causes, the broader explanation refuted). One refusing it too may have one
    broader bug, or a second bound below 255 ("blockCount refused above 127" says it is refused as well): two
    causes, each keeping the broader explanations, which the run groups by when it saw no call accepted
    (reports.causes)."""
    for target in (Target("blockCount", 255), Target("blockCount", 0)):
        record = new_record()
        first = attributed(record, refused(blockLen=300))
        second = attributed(record, refused(blockCount=300), ask=target)
        assert [asked["blockCount"] for asked in target.asked] == [255]
        assert second != first and len(record.causes) == 2
        assert record.causes[second].hypotheses[0] == "DataCopy.blockCount:refused-above-255"
        if target.maximum == 255:
            assert READ_AS_0 in record.causes[second].refuted
        else:
            assert {READ_AS_0, "every-call-refused"} <= set(record.causes[first].hypotheses)
            assert {READ_AS_0, "every-call-refused"} <= set(record.causes[second].hypotheses)


def test_a_second_kind_of_failure_only_one_broader_bug_explains_is_merged() -> None:
    """An answer shows one broader bug where only hypotheses a cause of the test has predicted it: asked blockCount
    255 and refused again, blockCount 300's refusal is that cause's broader bug if nothing else of its own
    predicted the refusal, and may be a second bug if "blockCount refused above 127" did too."""
    named = DIAGNOSER._hypothesis("DataCopy.blockCount:refused-above-255")
    broad = {READ_AS_0, "every-call-refused"}
    broader = DIAGNOSER._asked(new_record(), refused(blockCount=300), named, broad, broad, Target("blockCount", 0), ())
    assert broader is not None and broader.broader
    narrower = DIAGNOSER._asked(new_record(), refused(blockCount=300), named,
                                broad | {"DataCopy.blockCount:refused-above-127"}, broad, Target("blockCount", 0), ())
    assert narrower is not None and not narrower.broader
    moved = DIAGNOSER._asked(new_record(), refused(blockCount=300), named, broad, broad, Target("blockCount", 255), ())
    assert moved is not None and not moved.broader and moved.refuted == broad


def test_without_a_way_to_ask_a_second_kind_of_failure_founds_a_cause_of_its_own() -> None:
    """Nothing says the two refusals are one broader bug: merged, they would be named by what they share
    ("blockCount read as 0"), which neither bound is; apart, each keeps its own (the run groups causes that
    share a hypothesis again: reports.causes)."""
    record = new_record()
    first = attributed(record, refused(blockLen=300))
    second = attributed(record, refused(blockCount=300))
    assert second != first and len(record.causes) == 2
    assert record.causes[first].hypotheses[0] == "DataCopy.blockLen:refused-above-255"
    assert record.causes[second].hypotheses[0] == "DataCopy.blockCount:refused-above-255"
    assert READ_AS_0 in record.causes[first].hypotheses   # nothing refuted it: left to the run


def test_a_case_the_test_saw_pass_puts_the_explanations_it_contradicts_last() -> None:
    """Refused at blockCount 300 with its UB operand at 32, a case is explained first by UB operands refused unless
    64-B aligned; the test saw blockCount 2 at UB 32 moved right, which a target with that bug would have refused:
    the cause is named by blockCount's bound. The alignment stays among its explanations, after it (a hypothesis
    need not model a bug's every guard: a pass demotes, a question refutes)."""
    plain, seen = new_record(), new_record()
    seen.passed.append(refused_at(32, blockCount=2))
    assert attributed(plain, refused_at(32, blockCount=300)).hypothesis == "DataCopy.UB:aligned-to-64"
    cause = attributed(seen, refused_at(32, blockCount=300))
    state = seen.causes[cause]
    assert cause.hypothesis == "DataCopy.blockCount:refused-above-255" and not state.refuted
    assert state.hypotheses.index("DataCopy.UB:aligned-to-64") > state.hypotheses.index(cause.hypothesis)


def test_a_test_keeps_its_first_passing_cases_as_evidence_but_a_heavy_ones() -> None:
    """A pass is kept as it is counted, up to PASSES_KEPT (each holds its regions' bytes), and never by a heavy
    test (tens of MiB a case); a failure is not."""
    case = refused(blockCount=2)
    expected = reference.expect(case, SPEC)
    passing = judge(case, expected, Answer(kind=AnswerKind.RESULT, result=expected), HELLO, spec=SPEC)
    failing = judge(case, expected, Answer(kind=AnswerKind.RESULT, result=Result.rejected((), "no")), HELLO,
                    spec=SPEC, diagnose=False)
    record, heavy = new_record(), CheckRecord(test_id="test_boundary[heavy]", kind=TestKind.BOUNDARY, budget=3,
                                              heavy=True)
    for verdict in (failing, *[passing] * (PASSES_KEPT + 2)):
        record.add(verdict, case)
        heavy.add(verdict, case)
    assert record.passed == [case] * PASSES_KEPT and not heavy.passed


def test_settling_names_a_cause_by_what_the_passes_seen_since_leave() -> None:
    """A cause named by the UB alignment before any case passed is renamed, when the test ends, by blockCount's
    bound once blockCount 2 at the same UB address was moved right; nothing is asked or refuted for it."""
    record, target = new_record(), Target("blockCount", 255)
    state = record.causes[attributed(record, refused_at(32, blockCount=300))]
    assert state.hypotheses[0] == "DataCopy.UB:aligned-to-64"
    record.passed.append(refused_at(32, blockCount=2))
    record.questions = QUESTIONS   # no question left
    DIAGNOSER.settle(record, target)
    assert not target.asked and state.hypotheses[0] == "DataCopy.blockCount:refused-above-255"
    assert state.title == "blockCount refused above 255" and "DataCopy.UB:aligned-to-64" in state.hypotheses


def test_no_question_is_asked_that_another_bug_of_the_test_would_answer() -> None:
    """A target refusing blockCount above 255 and srcGap above 3: the blockCount cause's smallest case has srcGap 4
    too. Asked blockCount 255 with srcGap 4, the target refuses it for its srcGap, which would refute the very
    bound it keeps; with the test's srcGap cause known, that question is not asked."""
    record = new_record()
    count = record.causes[attributed(record, refused(blockCount=300))]
    attributed(record, refused(srcGap=4))
    count.case = refused(blockCount=300, srcGap=4)   # its smallest case, as the test found it
    named = DIAGNOSER._hypothesis("DataCopy.blockCount:refused-above-255")
    assert DIAGNOSER.question(count.case, named) is not None
    assert DIAGNOSER.question(count.case, named, DIAGNOSER._others(record, count)) is None
    asked: list[dict] = []

    def two_bugs(case: Case) -> bool:
        asked.append(dict(case.params))
        return case.params["blockCount"] <= 255 and case.params["srcGap"] <= 3
    DIAGNOSER.settle(record, two_bugs)
    assert count.hypotheses[0] == "DataCopy.blockCount:refused-above-255", count.refuted
    assert not [question for question in asked if question["blockCount"] > 255 or question["srcGap"] > 3]


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
