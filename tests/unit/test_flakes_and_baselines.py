"""The pieces of issue 29's gate: a failing case sent again a bounded number of times (runner.flakes), a cause's
key (what a baseline matches, never a test id or seed), a baseline's known, fixed and not re-checked causes
(format.baseline), a test's verdict against a baseline (runner.records), and the plugin's options that would run
no conformance test (runner.options.plugin_problem)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascendc_conformance.format.answer import Answer, AnswerKind
from ascendc_conformance.format.baseline import Baseline, BaselineError
from ascendc_conformance.format.case import Case, Region, Result
from ascendc_conformance.format.defaults import RESENDS, RESENDS_AFTER_LOSS
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import NO_RULE, Cause, TestKind, TestRecord
from ascendc_conformance.judge.verdict import Verdict
from ascendc_conformance.runner import flakes, options
from ascendc_conformance.runner.records import CauseRecord, CheckRecord
from ascendc_conformance import reference
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import make_case, sentinel

FAILED = Verdict(outcome=Outcome.FAIL, message="memory differs", expected=None)


def ok(data: bytes) -> Answer:
    return Answer(kind=AnswerKind.RESULT, result=Result.ok({"UB": Region(0, data)}))


class Sender:
    """Answers a case sent again from a list, counting the sends."""

    def __init__(self, *answers: Answer) -> None:
        self.answers, self.sent = list(answers), 0

    def __call__(self) -> Answer:
        self.sent += 1
        return self.answers.pop(0)


def judged(answer: Answer) -> Verdict:
    right = answer == ok(b"right")
    return Verdict(outcome=Outcome.PASS if right else Outcome.FAIL,
                   message="judged in full: " + ("right" if right else "wrong"), expected=None)


def test_an_answer_given_again_keeps_the_failure_after_every_resend() -> None:
    send = Sender(*[ok(b"wrong")] * RESENDS)
    assert flakes.confirmed(FAILED, ok(b"wrong"), send, judged) is FAILED and send.sent == RESENDS


def test_the_first_answer_that_changes_makes_the_verdict_flaky_with_both_answers() -> None:
    send = Sender(ok(b"right"), ok(b"wrong"))
    verdict = flakes.confirmed(FAILED, ok(b"wrong"), send, judged)
    assert verdict.outcome is Outcome.FLAKY and send.sent == 1
    # both answers judged in full (FAILED, judged without its diff, is not shown)
    assert "first answer: fail: judged in full: wrong | answer 2: pass: judged in full: right" in verdict.message


def test_a_timeout_or_a_crash_is_sent_again_only_once() -> None:
    for kind in (AnswerKind.TIMEOUT, AnswerKind.CRASHED):
        lost = Answer(kind=kind, message="no answer within 10 s")
        send = Sender(*[Answer(kind=kind, message="no answer within 10.1 s")] * RESENDS)
        verdict = Verdict(outcome=kind.outcome, message=lost.message, expected=None)
        assert flakes.confirmed(verdict, lost, send, judged) is verdict and send.sent == RESENDS_AFTER_LOSS


def test_the_messages_and_times_of_an_answer_are_not_its_behaviour() -> None:
    rejected = Result.rejected(("B", "A"), "no")
    assert flakes.behaviour(Answer(kind=AnswerKind.RESULT, result=rejected, elapsed_s=1.0)) == flakes.behaviour(
        Answer(kind=AnswerKind.RESULT, result=Result.rejected(("A", "B"), "refused"), elapsed_s=2.0))
    assert flakes.behaviour(ok(b"a")) != flakes.behaviour(ok(b"b"))
    assert flakes.behaviour(Answer(kind=AnswerKind.ERROR, message="answer to request 7: not JSON")) == \
        flakes.behaviour(Answer(kind=AnswerKind.ERROR, message="answer to request 9: not JSON"))
    assert flakes.behaviour(Answer(kind=AnswerKind.ERROR, message="not JSON")) != flakes.behaviour(ok(b"a"))


def test_a_cause_key_names_the_behaviour_and_nothing_of_the_test() -> None:
    first = Cause.explained(Outcome.FAIL, "DataCopy", "DataCopy.blockLen:kept-in-8-bits", "blockLen kept in 8 bits")
    overran = Cause.explained(Outcome.ERROR, "DataCopy", "DataCopy.blockLen:kept-in-8-bits", "blockLen kept in 8 bits")
    assert first.key == overran.key == "DataCopy|DataCopy.blockLen:kept-in-8-bits"   # the diagnosed bug, any verdict
    on_one_route = Cause.of(Outcome.FAIL, {"api": "DataCopy", "route": "GM->VECIN"}, {"runs": [{"class": "misplaced"}]})
    other_route = Cause.of(Outcome.FAIL, {"api": "DataCopy", "route": "VECOUT->GM"}, {"runs": [{"class": "misplaced"}]})
    assert on_one_route.key == other_route.key == "DataCopy|fail||misplaced|"
    assert Cause.of(Outcome.MISSED_REJECT, {"api": "DataCopy"}, fault_rule="DataCopy-blockCount-max").key != \
        Cause.of(Outcome.MISSED_REJECT, {"api": "DataCopy"}, fault_rule="DataCopy-blockLen-max").key
    flaky = Cause.of(Outcome.FLAKY, {"api": "LoadData2D"}, {"runs": [{"class": "wrote-outside-expected-area"}]})
    assert flaky.key == "LoadData2D|flaky|||"   # which bytes a flip hits is chance
    refused = Cause.of(Outcome.FALSE_REJECT, {"api": "DataCopy"}, named_rules=("my-len", "my-align"))
    assert refused.key == "DataCopy|false-reject|||my-align+my-len"   # the target's own words, sorted
    assert Cause.of(Outcome.FALSE_REJECT, {"api": "DataCopy"}).named == NO_RULE
    assert Cause.from_json(json.loads(json.dumps(first.to_json()))).key == first.key


def record(test_id: str, verdict: Outcome, *causes: Cause, cases: int = 3) -> dict:
    return {"record": "test", "test_id": test_id, "kind": "legal", "verdict": verdict.value, "cases": cases,
            "causes": [{"cause": cause.to_json(), "verdict": cause.verdict.value, "message": "m"} for cause in causes]}


DSTGAP = Cause.of(Outcome.FAIL, {"api": "DataCopy"}, {"runs": [{"class": "misplaced"}]})
SRCGAP = Cause.of(Outcome.FAIL, {"api": "DataCopy"}, {"runs": [{"class": "wrote-outside-expected-area"}]})
RULE = Cause.of(Outcome.MISSED_REJECT, {"api": "LoadData2D"}, fault_rule="LoadData2D-repeatTimes-max")


@pytest.fixture
def baseline_file(tmp_path: Path) -> Path:
    lines = [{"record": "run", "suite_version": "0.0.9", "spec_digest": "old"},
             record("test_legal[a]", Outcome.FAIL, DSTGAP), record("test_legal[b]", Outcome.KNOWN, DSTGAP, SRCGAP),
             record("test_illegal[r]", Outcome.MISSED_REJECT, RULE), record("test_legal[c]", Outcome.PASS),
             {"record": "end", "exit_status": 1}]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_baseline_holds_every_cause_of_its_failing_and_known_tests(baseline_file: Path) -> None:
    baseline = Baseline.read(baseline_file.parent)
    assert baseline.keys == {DSTGAP.key, SRCGAP.key, RULE.key} and baseline.suite_version == "0.0.9"
    assert {cause.key: cause.tests for cause in baseline.causes}[DSTGAP.key] == ("test_legal[a]", "test_legal[b]")
    assert Baseline.from_json(json.loads(json.dumps(baseline.to_json()))) == baseline


def test_a_baseline_cause_is_fixed_only_where_a_test_that_showed_it_ran(baseline_file: Path) -> None:
    """This run: test_legal[b] ran and failed with the dst-gap cause only, test_legal[a] ran and passed, and a test
    the baseline did not have failed with the dst-gap cause too (matched by key, whatever the test): the src-gap
    cause is fixed; the rule's test did not run (another selection), so its cause is not re-checked."""
    tests = [TestRecord.from_json(record("test_legal[a]", Outcome.PASS)),
             TestRecord.from_json(record("test_legal[b]", Outcome.KNOWN, DSTGAP)),
             TestRecord.from_json(record("test_boundary[z]", Outcome.KNOWN, DSTGAP))]
    baseline = Baseline.read(baseline_file)
    assert [cause.key for cause in baseline.fixed(tests)] == [SRCGAP.key]
    assert [cause.key for cause in baseline.unchecked(tests)] == [RULE.key]


def test_a_file_that_is_no_results_file_is_no_baseline(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text('{"record": "end"}\n')
    with pytest.raises(BaselineError, match="no run record"):
        Baseline.read(tmp_path)
    with pytest.raises(BaselineError, match="no such file or directory"):
        Baseline.read(tmp_path / "nowhere")


CASE = Case.from_json(make_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 256),
                                {"blockCount": 1, "blockLen": 8, "srcGap": 0, "dstGap": 0},
                                {"GM": sentinel(640, 1), "UB": sentinel(1024, 3)}))
EXPECTED = reference.expect(CASE, load_spec())


def cause_record(cause: Cause, index: int, verdict: Verdict, hypotheses: tuple[str, ...] = ()) -> CauseRecord:
    return CauseRecord(cause=cause, index=index, verdict=verdict, summary={}, size=(1, 1), case=CASE,
                       expected=EXPECTED, hypotheses=hypotheses, title=cause.title)


def test_a_test_failing_only_with_known_causes_is_known_and_with_a_new_one_fails_with_it() -> None:
    check = CheckRecord(test_id="test_legal[x]", kind=TestKind.LEGAL, budget=10, known=frozenset({DSTGAP.key}))
    verdict = Verdict(outcome=Outcome.FAIL, message="m", expected=None)
    check.counts[Outcome.FAIL] += 2
    check.causes[DSTGAP] = cause_record(DSTGAP, 1, verdict)
    assert check.verdict is Outcome.KNOWN
    rejected = Verdict(outcome=Outcome.FALSE_REJECT, message="n", expected=None)
    new = Cause.of(Outcome.FALSE_REJECT, {"api": "DataCopy"})
    check.causes[new] = cause_record(new, 2, rejected)
    assert check.verdict is Outcome.FALSE_REJECT and check.ranked_causes[0].cause == new
    assert [entry["known"] for entry in check.result().causes] == [False, True]


def test_a_diagnosed_cause_is_known_by_its_hypothesis_whatever_its_verdicts() -> None:
    """The baseline key of a diagnosed cause is its API and the hypothesis it is recorded under: a baseline that
    saw blockLen kept in 8 bits as wrong copies knows the same bug's error from an overrun."""
    eight = "DataCopy.blockLen:kept-in-8-bits"
    seen = Cause.explained(Outcome.FAIL, "DataCopy", eight, "blockLen kept in 8 bits")
    check = CheckRecord(test_id="test_legal[x]", kind=TestKind.LEGAL, budget=10, known=frozenset({seen.key}))
    check.counts[Outcome.ERROR] += 1
    overran = Cause.explained(Outcome.ERROR, "DataCopy", eight, "blockLen kept in 8 bits")
    check.causes[overran] = cause_record(overran, 1, Verdict(outcome=Outcome.ERROR, message="m", expected=None),
                                         (eight, "DataCopy.blockLen:kept-in-7-bits"))
    assert check.verdict is Outcome.KNOWN
    other = CheckRecord(test_id="test_legal[y]", kind=TestKind.LEGAL, budget=10, known=frozenset({seen.key}))
    other.counts[Outcome.FAIL] += 1
    twelve = Cause.explained(Outcome.FAIL, "DataCopy", "DataCopy.blockLen:kept-in-12-bits", "blockLen kept in 12 bits")
    other.causes[twelve] = cause_record(twelve, 1, Verdict(outcome=Outcome.FAIL, message="m", expected=None),
                                        ("DataCopy.blockLen:kept-in-12-bits",))
    assert other.verdict is Outcome.FAIL   # another bug class: new


@pytest.mark.parametrize("given, problem", [
    ({}, None),
    ({"target": "reference", "profile": "quick"}, None),
    ({"profile": "quick"}, "--ascendc-profile given without --ascendc-target"),
    ({"product": ["910B"], "report_details": True}, "--ascendc-product, --ascendc-report-details given without"),
    ({"target": ""}, "--ascendc-target is empty"),
    ({"target": "   ", "baseline": "out"}, "--ascendc-target is empty"),
])
def test_plugin_options_that_would_run_no_conformance_test(given: dict, problem: str | None) -> None:
    found = options.plugin_problem(lambda option: given.get(option.name, option.unset))
    assert (found is None) if problem is None else (found is not None and problem in found), found


def test_the_gate_options_are_options_of_both_entry_points() -> None:
    for name in ("baseline", "strict_baseline", "allow_flaky"):
        option = options.named(name)
        assert option.help and option.plugin_flag == f"--ascendc-{option.words}" and option.cli_flag == f"--{option.words}"
