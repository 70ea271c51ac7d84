"""judge.diagnosis: of every bug class of a failing case's API, the hypotheses whose twin reproduces the target's
answer exactly — its memory (bytes read from outside the case unknown, never a match by chance), a rejection
(naming a rule the twin breaks, or the target's own), an error or a crash where the twin overruns the case's
regions — and the headline of issue 26: a target keeping DataCopy's blockLen in 8 bits earns one cause, "blockLen
kept in 8 bits", whose smallest showing case has blockLen 256."""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.outcome import Shown
from ascendc_conformance.judge.diagnosis import actual_of, diagnose, explains
from ascendc_conformance.judge.evidence import Evidence, Question, judge_with_evidence
from ascendc_conformance.judge.grouping import Failure, group_failures
from ascendc_conformance.judge.verdict import judge
from ascendc_conformance.reference.hypotheses import hypothesis, shows
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.legal import case_for, contexts, select_paths
from ascendc_conformance.targets import open_target
from tests.e2e.test_buggy_catalogue import CASES, verdict_of
from tests.fixtures.buggy import targets as buggy
from tests.helpers.casebuild import make_case

SPEC = load_spec()
SEED = SPEC.seed_reading
KEPT_IN_8 = "DataCopy.blockLen:kept-in-8-bits"


def diagnosed(bug: type, case: dict):
    """The diagnosis of what the buggy target did with `case`."""
    typed = Case.from_json(case)
    with open_target(f"python:tests.fixtures.buggy.targets:{bug.__name__}", SPEC) as target:
        answer = target.execute(typed)
    return diagnose(typed, reference.expect(typed, SPEC), actual_of(answer), SPEC, SEED)


def drawn(pinned: dict, count: int) -> list[Case]:
    """Legal DataCopy GM -> VECIN half cases of the DataCopyParams form with these parameters pinned."""
    [ctx] = [c for c in contexts(SPEC, select_paths(SPEC, ["atlas-a2"], ["DataCopy"]))
             if (c.src, c.dst, c.src_dtype.name, c.form) == ("GM", "VECIN", "half", "params")]
    cases: list[Case] = []

    @settings(max_examples=count, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case_for(ctx, pinned))
    def collect(case: Case) -> None:
        cases.append(case)

    collect()
    return cases


def test_a_target_keeping_blocklen_in_8_bits_earns_one_cause_named_so() -> None:
    cases = [case for value in (256, 300, 511, 877, 1024, 4095) for case in drawn({"blockLen": value}, 3)]
    cases += drawn({}, 30)
    failures, words = [], {}
    with open_target("python:tests.fixtures.buggy.targets:DataCopyBlockLenIn8Bits", SPEC) as target:
        for index, case in enumerate(cases):
            verdict = verdict_of(target, case)
            if not verdict.is_failure:
                continue
            diagnosis = diagnose(case, verdict.expected, actual_of(target.execute(case)), SPEC, SEED)
            failures.append(Failure(index, diagnosis.ids, verdict.outcome))
            words.update({e.hypothesis.id: e.words for e in diagnosis.explanations if case.params["blockLen"] == 877})
    assert len(failures) >= 18
    [group] = group_failures(failures, lambda name: hypothesis(SPEC, name).rank)
    assert group.named == KEPT_IN_8 and hypothesis(SPEC, KEPT_IN_8).title == "blockLen kept in 8 bits"
    assert words[KEPT_IN_8] == "blockLen kept in 8 bits (877 read as 109)"


def test_the_smallest_case_showing_blocklen_kept_in_8_bits_has_blocklen_256() -> None:
    kept = hypothesis(SPEC, KEPT_IN_8)
    assert kept.smallest == 256 and kept.fields == ("blockLen",)
    [smallest] = drawn({"blockLen": kept.smallest, "blockCount": 1}, 1)
    [below] = drawn({"blockLen": kept.smallest - 1, "blockCount": 1}, 1)
    assert shows(kept, smallest, SPEC) and not shows(kept, below, SPEC)
    with open_target("python:tests.fixtures.buggy.targets:DataCopyBlockLenIn8Bits", SPEC) as target:
        assert verdict_of(target, below).outcome == "pass"
        verdict = verdict_of(target, smallest)
        assert verdict.outcome == "fail"
        actual = actual_of(target.execute(smallest))
        assert explains(kept, smallest, verdict.expected, actual, SPEC, SEED)
        assert not explains(hypothesis(SPEC, "DataCopy.blockCount:kept-in-11-bits"), smallest, verdict.expected, actual,
                            SPEC, SEED)


@pytest.mark.parametrize("name", ["multi-burst", "transpose", "nz2nd-strided", "slice-strided", "count-ragged",
                                  "half-to-float", "stride-32768-gm", "illegal"])
def test_a_right_answer_is_explained_by_no_hypothesis(name: str) -> None:
    case = Case.from_json(CASES[name])
    expected = reference.expect(case, SPEC)
    assert not diagnose(case, expected, expected, SPEC, SEED)


def test_bytes_read_from_outside_the_case_never_explain_a_target_that_wrote_nothing() -> None:
    """srcStride kept in 15 bits reads 32768 fractals away, outside the case: those bytes are unknown, and a
    target that left the old bytes there is not one that read them."""
    diagnosis = diagnosed(buggy.WritesNothing, CASES["stride-32768-gm"])
    assert "no-op" in diagnosis.ids
    assert not any("srcStride" in name for name in diagnosis.ids), diagnosis.ids
    truncated = diagnosed(buggy.LoadDataSimulatorTopBits, CASES["stride-32768-gm"])
    assert "LoadData2D.srcStride:kept-in-15-bits" in truncated.ids and "no-op" not in truncated.ids


def test_a_rejection_is_explained_by_the_bugs_that_refuse_the_call_naming_its_rules() -> None:
    case = Case.from_json(CASES["multi-burst"])   # two bursts, the destination UB at 256
    expected = reference.expect(case, SPEC)
    own = diagnose(case, expected, Result.rejected(("buggy-blockCount-max-1",), "no"), SPEC, SEED)
    assert {"DataCopy.blockCount:refused-above-1", "DataCopy.UB:aligned-to-512"} <= own.ids
    aligned = diagnose(case, expected, Result.rejected(("DataCopy-dst-align-local",), "no"), SPEC, SEED)
    assert "DataCopy.UB:aligned-to-512" in aligned.ids and "DataCopy.blockCount:refused-above-1" not in aligned.ids
    bounded = diagnose(case, expected, Result.rejected(("DataCopy-blockCount-max",), "no"), SPEC, SEED)
    assert "DataCopy.blockCount:refused-above-1" in bounded.ids and "DataCopy.UB:aligned-to-512" not in bounded.ids


def test_every_call_refused_explains_a_refusal_naming_no_rule_of_the_spec_and_nothing_else() -> None:
    """The bug class of a target refusing everything: it fits a rejection naming no rule or one of the target's own
    (as every narrower refusal bug does), never one naming only other rules of the spec, an ok answer or an error;
    of several that fit alike a test names it last (the run weighs it: reports.causes)."""
    case = Case.from_json(CASES["multi-burst"])
    expected = reference.expect(case, SPEC)
    for words in (Result.rejected((), "not supported here"), Result.rejected(("own-check",), "no")):
        found = diagnose(case, expected, words, SPEC, SEED)
        assert "every-call-refused" in found.ids and found.explanations[-1].hypothesis.id == "every-call-refused"
    assert "every-call-refused" not in diagnose(case, expected, Result.rejected(("DataCopy-blockCount-max",), "no"),
                                                SPEC, SEED).ids
    assert not explains(hypothesis(SPEC, "every-call-refused"), case, expected, AnswerKind.CRASHED, SPEC, SEED)
    assert expected.memory is not None
    region = expected.memory["UB"]
    wrong = replace(expected, memory={**expected.memory, "UB": replace(region, data=bytes(len(region.data)))})
    assert not explains(hypothesis(SPEC, "every-call-refused"), case, expected, wrong, SPEC, SEED)   # moved wrongly
    illegal = Case.from_json(CASES["illegal"])   # its refusal is right: nothing to explain
    refused = reference.expect(illegal, SPEC)
    assert refused.status is ResultStatus.REJECTED
    assert not explains(hypothesis(SPEC, "every-call-refused"), illegal, refused, Result.rejected((), "no"), SPEC, SEED)


def overrunning_count_case() -> dict:
    """Count form, 20 halves (40 B, rounded down to 32 B) into a UB region of exactly 32 B."""
    return make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0), {"count": 20},
                     {"GM": bytes(range(64)), "UB": bytes(32)})


def test_an_error_or_a_crash_is_explained_by_a_copy_that_overruns() -> None:
    case = overrunning_count_case()
    assert "DataCopy:count-not-rounded-down" in diagnosed(buggy.CountNotRoundedDown, case).ids
    typed = Case.from_json(case)
    expected = reference.expect(typed, SPEC)
    crashed = diagnose(typed, expected, AnswerKind.CRASHED, SPEC, SEED)
    assert "DataCopy:count-not-rounded-down" in crashed.ids and "DataCopy:count-rounded-up" in crashed.ids
    assert not diagnose(typed, expected, AnswerKind.TIMEOUT, SPEC, SEED)


def test_a_missed_rejection_is_explained_by_the_bug_that_makes_the_call_legal() -> None:
    below = make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0), {"count": 8},
                      {"GM": bytes(range(1, 65)), "UB": bytes(64)})   # 16 B: less than one 32-B unit
    assert reference.expect(Case.from_json(below), SPEC).status is ResultStatus.REJECTED
    diagnosis = diagnosed(buggy.CountNotRoundedDown, below)
    assert "DataCopy:count-not-rounded-down" in diagnosis.ids and "no-op" not in diagnosis.ids
    assert diagnosed(buggy.AcceptsEverything, CASES["illegal"]).ids == {"no-op"}   # nothing moved: no check lacking
    unchecked = diagnosed(buggy.NoBlockCountMax, CASES["blockcount-4096"]).ids
    assert {"DataCopy-blockCount-max:unchecked", "only-memory-checked"} <= unchecked and "no-op" not in unchecked


def test_an_answer_that_changed_the_source_is_explained_by_no_hypothesis() -> None:
    """No bug class writes the source: a target that did is no copy misread, whatever else it did."""
    case = Case.from_json(CASES["multi-burst"])
    expected = reference.expect(case, SPEC)
    with open_target("python:tests.fixtures.buggy.targets:DataCopyDstGapIgnored", SPEC) as target:
        answer = target.execute(case).result
    assert answer is not None and answer.memory is not None
    assert "DataCopy.dstGap:read-as-0" in diagnose(case, expected, answer, SPEC, SEED).ids
    source = answer.memory["GM"]
    touched = Result.ok({**answer.memory, "GM": replace(source, data=bytes([source.data[0] ^ 1]) + source.data[1:])})
    assert not diagnose(case, expected, touched, SPEC, SEED)


def test_a_verdict_judged_with_evidence_is_diagnosed_on_the_case_it_is_shown_on() -> None:
    """judge.evidence after the merge of issues 25 and 26: a failing verdict carries its diagnosis unless the
    caller (the runner) asks for none; a fault's check masked by its twin's wrong copy is diagnosed on the twin."""
    [legal] = drawn({"blockLen": 877, "blockCount": 1}, 1)
    illegal = Case.from_json({**legal.to_json(), "params": {**legal.to_json()["params"], "blockCount": 4096}})
    legal_expected, illegal_expected = reference.expect(legal, SPEC), reference.expect(illegal, SPEC)
    assert illegal_expected.status is ResultStatus.REJECTED
    with open_target("python:tests.fixtures.buggy.targets:DataCopyBlockLenIn8Bits", SPEC) as target:
        answer, hello = target.execute(legal), target.hello
    twin_verdict = judge(legal, legal_expected, answer, hello, spec=SPEC, diagnose=False)
    assert twin_verdict.outcome == "fail" and twin_verdict.diagnosis is None

    def never_asked(question: Question) -> Evidence:
        raise AssertionError(f"no twin is needed for a wrong copy: {question}")

    diagnosed = judge_with_evidence(legal, legal_expected, answer, hello, spec=SPEC, reading=SEED, ask=never_asked)
    assert diagnosed.diagnosis is not None and KEPT_IN_8 in diagnosed.diagnosis.ids
    assert judge_with_evidence(legal, legal_expected, answer, hello, spec=SPEC, reading=SEED, ask=never_asked,
                               diagnose=False).diagnosis is None

    def wrong_copy(question: Question) -> Evidence:
        return Evidence.of("blockCount put right", ("DataCopy-blockCount-max",), legal, legal_expected, twin_verdict)

    silent = Answer(kind=AnswerKind.RESULT, result=Result.rejected((), "no"))
    masked = judge_with_evidence(illegal, illegal_expected, silent, hello, spec=SPEC, reading=SEED, ask=wrong_copy,
                                 rule="DataCopy-blockCount-max")
    assert masked.shown is Shown.MASKED_WRONG_COPY and masked.twin_case == legal
    assert masked.diagnosis is not None and KEPT_IN_8 in masked.diagnosis.ids
