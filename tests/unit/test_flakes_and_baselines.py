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
from ascendc_conformance.format.case import Region, Result
from ascendc_conformance.format.defaults import RESENDS, RESENDS_AFTER_LOSS
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import Cause, TestKind, TestRecord
from ascendc_conformance.judge.verdict import Verdict
from ascendc_conformance.runner import flakes, options
from ascendc_conformance.runner.records import CauseRecord, CheckRecord

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
    return Verdict(outcome=Outcome.PASS if answer == ok(b"right") else Outcome.FAIL, message="judged again",
                   expected=None)


def test_an_answer_given_again_keeps_the_failure_after_every_resend() -> None:
    send = Sender(*[ok(b"wrong")] * RESENDS)
    assert flakes.confirmed(FAILED, ok(b"wrong"), send, judged) is FAILED and send.sent == RESENDS


def test_the_first_answer_that_changes_makes_the_verdict_flaky_with_both_answers() -> None:
    send = Sender(ok(b"right"), ok(b"wrong"))
    verdict = flakes.confirmed(FAILED, ok(b"wrong"), send, judged)
    assert verdict.outcome is Outcome.FLAKY and send.sent == 1
    assert "first answer: fail: memory differs | answer 2: pass: judged again" in verdict.message


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
    first = Cause.of(Outcome.FAIL, {"api": "DataCopy", "route": "GM->VECIN"}, misread="bit 15 of srcStride dropped")
    other_route = Cause.of(Outcome.FAIL, {"api": "DataCopy", "route": "VECOUT->GM"}, misread="bit 15 of srcStride dropped")
    assert first.key == other_route.key == "DataCopy|fail|||bit 15 of srcStride dropped|"
    assert Cause.of(Outcome.MISSED_REJECT, {"api": "DataCopy"}, fault_rule="DataCopy-blockCount-max").key != \
        Cause.of(Outcome.MISSED_REJECT, {"api": "DataCopy"}, fault_rule="DataCopy-blockLen-max").key
    flaky = Cause.of(Outcome.FLAKY, {"api": "LoadData2D"}, {"runs": [{"class": "wrote-outside-expected-area"}]},
                     misread="bit 7 of repeatTimes dropped")
    assert flaky.key == "LoadData2D|flaky||||"   # which bytes a flip hits is chance
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


def test_a_test_failing_only_with_known_causes_is_known_and_with_a_new_one_fails_with_it() -> None:
    check = CheckRecord(test_id="test_legal[x]", kind=TestKind.LEGAL, budget=10, known=frozenset({DSTGAP.key}))
    verdict = Verdict(outcome=Outcome.FAIL, message="m", expected=None)
    check.counts[Outcome.FAIL] += 2
    check.causes[DSTGAP] = CauseRecord(cause=DSTGAP, index=1, verdict=verdict, summary={}, size=(1, 1))
    assert check.verdict is Outcome.KNOWN
    rejected = Verdict(outcome=Outcome.FALSE_REJECT, message="n", expected=None)
    new = Cause.of(Outcome.FALSE_REJECT, {"api": "DataCopy"})
    check.causes[new] = CauseRecord(cause=new, index=2, verdict=rejected, summary={}, size=(1, 1))
    assert check.verdict is Outcome.FALSE_REJECT and check.ranked_causes[0].cause == new
    assert [entry["known"] for entry in check.result().causes] == [False, True]


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
