"""Unit tests of ascendc_conformance.judge.verdict.judge, ascendc_conformance.judge.diff and reference.explain on hand-made cases."""
from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case, Region, Result
from ascendc_conformance.judge.diff import CLASSES, Diff, diff_case, diff_memory, format_diff
from ascendc_conformance.targets import Answer, Hello
from ascendc_conformance.format.answer import AnswerKind
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.judge import verdict as judging
from ascendc_conformance.judge.verdict import NamedRules, RuleNaming, Verdict
from ascendc_conformance.reference import explain as explaining
from ascendc_conformance.spec.loader import load_spec
from tests.helpers.casebuild import sentinel, typed_case as make_case

SPEC = load_spec()


def expect(case: Case, **options: Any) -> Result:
    return reference.expect(case, SPEC, **options)


def judge(case: Case, expected: Result, answer: Answer, hello: Hello, **options: Any) -> Verdict:
    return judging.judge(case, expected, answer, hello, spec=SPEC, **options)


def explain(case: Case) -> explaining.Explanation | None:
    return explaining.explain(case, SPEC)


def region_bytes(source: Case | Result, memory: str) -> bytes:
    assert source.memory is not None
    return source.memory[memory].data

VALIDATING = Hello(name="t", validates=True, products=None, apis=None, raw={})
NON_VALIDATING = Hello(name="nv", validates=False, products=None, apis=None, raw={})
NOP = {"startIndex": 0, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 0, "ifTranspose": False, "addrMode": 0}


def halves(first: int, last: int) -> bytes:
    return np.arange(first, last + 1, dtype="<f2").tobytes()


def two_bursts(**params) -> Case:
    """DataCopy GM -> VECIN half {2, 8, 0, 1} (E2): UB [256, 512) and [544, 800) written, [512, 544) a gap."""
    return make_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 256),
                     {"blockCount": 2, "blockLen": 8, "srcGap": 0, "dstGap": 1, **params},
                     {"GM": sentinel(64, 1) + halves(1, 256) + sentinel(64, 2), "UB": sentinel(1024, 3)})


def ok_with(case: Case, expected: Result, **images: bytes) -> Answer:
    """An ok answer: the expected memory with some regions replaced by `images`."""
    assert expected.memory is not None
    memory = {name: Region(region.address, images.get(name, region.data)) for name, region in expected.memory.items()}
    return ok_memory(memory)


def rejected(*rules: str, message: str = "") -> Answer:
    return Answer(kind=AnswerKind.RESULT, result=Result.rejected(rules, message))


def run(case: Case, answer: Answer, hello: Hello = VALIDATING) -> Verdict:
    return judge(case, expect(case), answer, hello)


def mutated(case: Case, region: str, edit) -> tuple[Result, Answer]:
    """The expected result and an ok answer whose `region` is the expected image after `edit(bytearray)`."""
    expected = expect(case)
    image = bytearray(region_bytes(expected, region))
    edit(image)
    return expected, ok_with(case, expected, **{region: bytes(image)})


# --- judge: each outcome ----------------------------------------------------------------------------

def test_pass_when_memory_matches() -> None:
    case = two_bursts()
    expected = expect(case)
    verdict = judge(case, expected, Answer(kind=AnswerKind.RESULT, result=expected), VALIDATING)
    assert verdict.outcome == "pass" and not verdict.is_failure
    assert verdict.diff is None and verdict.depends_on == () and verdict.reading is None and not verdict.points


def test_fail_carries_a_diff() -> None:
    case = two_bursts()

    def edit(image: bytearray) -> None:
        image[600] ^= 0xFF

    expected, answer = mutated(case, "UB", edit)
    verdict = judge(case, expected, answer, VALIDATING)
    assert verdict.outcome == "fail" and verdict.is_failure
    assert verdict.diff is not None and verdict.diff.runs_by_class == {"wrong-value": 1}
    assert "burst 1 (of 2), element 28, byte 0" in verdict.message
    assert "wrong-value" in verdict.describe()


def test_false_reject_names_the_targets_rules() -> None:
    verdict = run(two_bursts(), rejected("My-rule", message="too many bursts"))
    assert verdict.outcome == "false-reject" and verdict.is_failure
    assert "My-rule" in verdict.message and "too many bursts" in verdict.message


def illegal_case() -> Case:
    """dst VECIN at UB 16: breaks the documented DataCopy-dst-align-local rule (no dispute)."""
    return make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 16),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"GM": halves(1, 64), "UB": sentinel(256, 4)})


def test_missed_reject_names_our_rules_and_descriptions() -> None:
    case = illegal_case()
    verdict = run(case, ok_memory(case.memory))
    assert verdict.outcome == "missed-reject" and verdict.is_failure
    assert "DataCopy-dst-align-local" in verdict.message
    assert "A local dst starts 32-B aligned." in verdict.message


@pytest.mark.parametrize("rules, says", [
    (("DataCopy-dst-align-local",), "citing DataCopy-dst-align-local"),
    (("their-own-rule",), "none of the suite's rules"),
    ((), "named no rule"),
])
def test_rejection_passes_whatever_rules_it_names(rules: tuple[str, ...], says: str) -> None:
    verdict = run(illegal_case(), rejected(*rules))
    assert verdict.outcome == "pass"
    assert says in verdict.message


@pytest.mark.parametrize("rules, named, outcomes", [
    (("DataCopy-dst-align-local",), NamedRules.BROKEN, ("pass", "pass", "pass")),
    (("DataCopy-blockCount-max", "DataCopy-dst-align-local"), NamedRules.BROKEN, ("pass", "pass", "pass")),
    (("DataCopy-blockCount-max",), NamedRules.OTHER_KNOWN, ("wrong-rule", "wrong-rule", "pass")),
    (("their-own-rule",), NamedRules.OTHER_UNKNOWN, ("pass", "wrong-rule", "pass")),
    ((), None, ("pass", "pass", "pass")),
])
def test_a_rejection_for_another_rule_is_wrong_rule_by_the_naming_policy(rules, named, outcomes) -> None:
    """Default: a rejection naming only rules of the spec, none broken, is wrong-rule (one naming an id the
    spec does not know passes, counted); --strict-rules fails both; --lenient-rules passes both; naming no rule
    is judged on the rejection alone under every policy."""
    case, answer = illegal_case(), rejected(*rules)
    for policy, outcome in zip((RuleNaming.KNOWN, RuleNaming.STRICT, RuleNaming.LENIENT), outcomes):
        verdict = judge(case, expect(case), answer, VALIDATING, rule_naming=policy)
        assert verdict.outcome == outcome and verdict.is_failure is (outcome == "wrong-rule"), policy
        assert verdict.named_rule is named and verdict.other_rule is (named not in (None, NamedRules.BROKEN))
        if outcome == "wrong-rule":
            assert "DataCopy-dst-align-local" in verdict.message and Outcome.WRONG_RULE.junit_tag == "failure"


def test_non_validating_target_is_never_judged_on_a_rejection() -> None:
    with pytest.raises(ValueError, match="does not validate"):
        run(illegal_case(), rejected(), NON_VALIDATING)
    assert run(two_bursts(), rejected("x"), NON_VALIDATING).outcome == "false-reject"


def test_unspecified_expectation_is_refused() -> None:
    case = make_case("DataCopy", "atlas-a2", ("VECIN", "half", 0), ("VECOUT", "half", 32),
                     {"blockCount": 1, "blockLen": 2, "srcGap": 0, "dstGap": 0}, {"UB": sentinel(256, 5)})
    expected = expect(case)
    assert expected.status == "unspecified"
    with pytest.raises(ValueError, match="unspecified"):
        judge(case, expected, rejected(), VALIDATING)


@pytest.mark.parametrize("kind", [AnswerKind.TIMEOUT, AnswerKind.CRASHED, AnswerKind.ERROR])
def test_answer_kinds_become_outcomes(kind: AnswerKind) -> None:
    answer = Answer(kind=kind, message="no answer within 1 s", stderr_tail="Traceback: boom\n")
    verdict = run(two_bursts(), answer)
    assert verdict.outcome == kind.value and verdict.is_failure and verdict.actual is None
    assert "no answer within 1 s" in verdict.message and "Traceback: boom" in verdict.message


def test_target_status_error_is_an_error() -> None:
    verdict = run(two_bursts(), Answer(kind=AnswerKind.RESULT, result=Result.error("bad case")))
    assert verdict.outcome == "error" and "bad case" in verdict.message


def test_target_unspecified_on_a_legal_case_fails() -> None:
    verdict = run(two_bursts(), Answer(kind=AnswerKind.RESULT, result=Result.unspecified(("x",), "")))
    assert verdict.outcome == "fail" and "'unspecified'" in verdict.message


def training_gap_case() -> Case:
    """LoadData2D on atlas-training with dstGap 1: depends on LoadData2D-dstGap-training-D24."""
    return make_case("LoadData2D", "atlas-training", ("A1", "half", 0), ("A2", "half", 0), {**NOP, "dstGap": 1},
                     {"L1": halves(1, 512), "L0A": sentinel(2048, 6)})


def judged(case: Case, answer: Answer, *words: str, hello: Hello = VALIDATING, credited: bool = False) -> Verdict:
    """The verdict under the reading `words` name (none: seed), compared with every other reading, as a run does
    (`credited`: the rejection's counterfactual twin was accepted, judge.evidence)."""
    reading = SPEC.reading(words)
    expected, others = reference.expect_readings(case, SPEC, reading)
    return judge(case, expected, answer, hello, reading=reading, others=others, credited=credited)


def ok_memory(memory: Any) -> Answer:
    return Answer(kind=AnswerKind.RESULT, result=Result.ok(memory))


def test_matching_the_run_reading_on_a_disputed_case_passes() -> None:
    case = training_gap_case()
    verdict = judged(case, ok_memory(expect(case).memory))
    assert verdict.outcome == "pass" and verdict.diff is None
    assert verdict.depends_on == ("LoadData2D-dstGap-training-D24",)
    assert verdict.reading == "seed" and dict(verdict.points) == {"D24": "seed"} and verdict.followed is None


def test_following_another_reading_of_a_point_the_run_does_not_name_is_disputed() -> None:
    verdict = judged(training_gap_case(), rejected("LoadData2D-dstGap-training-D24"))
    assert verdict.outcome == "disputed" and not verdict.is_failure
    assert verdict.followed == "D24=must-be-zero" and dict(verdict.points) == {"D24": "must-be-zero"}
    assert "D24=must-be-zero" in verdict.message and "false-reject" in verdict.message


@pytest.mark.parametrize("rules, credited, outcome", [
    (("LoadData2D-l1-align",), False, "false-reject"),          # an unrelated rule of the spec: no reading makes it break it
    (("their-512-byte-alignment",), False, "false-reject"),     # an id the spec does not know: likewise
    (("LoadData2D-dstGap-training-D24",), False, "disputed"),   # the rule D24=must-be-zero makes the case break
    ((), False, "false-reject"),                                # no rule named, no evidence: credited to no reading
    ((), True, "disputed"),                                     # its twin (dstGap 0) accepted: the rejection is for D24
    (("their-512-byte-alignment",), True, "disputed"),          # an id of its own, the twin accepted: likewise
])
def test_a_rejection_follows_a_reading_only_through_the_rules_it_names_or_its_twin(rules, credited, outcome) -> None:
    """The C++ simulator's case: it rejects legal LoadData2D calls for a stricter alignment; with dstGap != 0 on
    atlas-training the case also depends on D24, whose alternative makes it illegal. Naming its alignment rule,
    or no rule without evidence, the rejection is a false-reject (it was once credited to D24=must-be-zero as
    disputed); it follows D24=must-be-zero by naming D24's rule, or when its twin was accepted (`credited`)."""
    verdict = judged(training_gap_case(), rejected(*rules), credited=credited)
    assert verdict.outcome == outcome and verdict.is_failure is (outcome == "false-reject")
    if outcome == "false-reject":
        assert verdict.followed is None and dict(verdict.points) == {"D24": "none"}
    else:
        assert verdict.followed == "D24=must-be-zero" and dict(verdict.points) == {"D24": "must-be-zero"}


def test_alternatives_a_case_cannot_tell_from_the_run_reading_count_for_it() -> None:
    """D28 has two alternatives, on two different memories: a case that ends inside the disputed band of FB
    tells the seed from `vendor-constant` (FB 2 KiB) but not from `vendor-cpu-model` (a UB size). An answer
    matching the seed is counted for the seed (it was left out, and D28 showed as never exercised)."""
    case = make_case("DataCopy", "atlas-a2", ("A1", "uint64_t", 0), ("C2PIPE2GM", "uint64_t", 2048),
                     {"blockCount": 1, "blockLen": 2, "srcGap": 0, "dstGap": 0},
                     {"L1": sentinel(512, 1), "FB": sentinel(2560, 2)})
    assert expect(case).depends_on == ("Memory-capacity-D28",)
    assert dict(judged(case, ok_memory(expect(case).memory)).points) == {"D28": "seed"}
    assert dict(judged(case, rejected("Memory-capacity")).points) == {"D28": "vendor-constant"}


def test_matching_no_reading_fails_with_the_diff_against_the_run_reading() -> None:
    case = training_gap_case()
    expected, answer = mutated(case, "L0A", lambda image: image.__setitem__(slice(512, 1024), bytes(512)))
    verdict = judged(case, answer)
    assert verdict.outcome == "fail" and verdict.is_failure
    assert verdict.diff is not None and verdict.diff.runs_by_class == {"wrong-value": 1}
    assert "matches none of the readings compared (seed, D24=must-be-zero" in verdict.message
    assert dict(verdict.points) == {"D24": "none"}


def test_a_disputed_rejection_under_each_reading() -> None:
    case = two_bursts(blockCount=0)  # D1: blockCount 0 is illegal by default, a no-op under devkit
    no_op = ok_memory(case.memory)
    assert judged(case, rejected()).outcome == "pass"
    follows = judged(case, no_op)
    assert follows.outcome == "disputed" and follows.followed == "D1=devkit"
    writes, _ = mutated(two_bursts(), "UB", lambda image: None)   # the bytes of a blockCount-2 move
    assert judged(case, ok_memory(writes.memory)).outcome == "missed-reject"
    assert judged(case, no_op, "devkit").outcome == "pass"
    unproven = judged(case, rejected(), "devkit")   # no evidence that the rejection is for D1: it follows nothing
    assert unproven.outcome == "false-reject" and dict(unproven.points) == {"D1": "none"} and unproven.followed is None
    under_devkit = judged(case, rejected(), "devkit", credited=True)   # devkit names D1: following the seed's fails it
    assert under_devkit.outcome == "false-reject" and under_devkit.is_failure and under_devkit.reading == "devkit"
    assert dict(under_devkit.points) == {"D1": "seed"} and "D1=" not in under_devkit.followed
    assert "but this run certifies D1=devkit" in under_devkit.message
    with pytest.raises(ValueError):
        judged(case, rejected(), hello=NON_VALIDATING)


def test_half_bits_copied_unconverted_match_no_reading_of_d13() -> None:
    case = make_case("DataCopy", "atlas-a2", ("C1", "half", 0), ("C2", "float", 0),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"L1": halves(1, 128), "BT": sentinel(256, 10)})
    raw = bytearray(region_bytes(expect(case), "BT"))
    raw[:64] = halves(1, 32)
    answer = ok_with(case, expect(case), BT=bytes(raw))
    for words in ((), ("D13=destination-bytes",)):
        verdict = judged(case, answer, *words)
        assert verdict.outcome == "fail" and dict(verdict.points) == {"D13": "none"}, verdict.describe()
    converted = expect(case, reading=SPEC.reading(["D13=destination-bytes"]))
    assert judged(case, ok_memory(converted.memory), "D13=destination-bytes").outcome == "pass"
    assert judged(case, ok_memory(converted.memory)).followed == "D13=destination-bytes"


def test_crash_on_a_disputed_case_stays_a_crash() -> None:
    verdict = run(training_gap_case(), Answer(kind=AnswerKind.CRASHED, message="exit 139"))
    assert verdict.outcome == "crashed" and verdict.depends_on == ("LoadData2D-dstGap-training-D24",)


def test_verdict_json_and_failure_kinds() -> None:
    case = two_bursts()
    expected, answer = mutated(case, "UB", lambda image: image.__setitem__(520, image[520] ^ 1))
    data = judge(case, expected, answer, VALIDATING).to_json()
    assert json.loads(json.dumps(data))["outcome"] == "fail"
    assert set(data) >= {"outcome", "message", "diff", "depends_on"}
    assert {o for o in Outcome if o.is_failure} == {"fail", "missed-reject", "wrong-rule", "false-reject", "flaky",
                                                    "error", "timeout", "crashed"}
    for outcome in set(Outcome) - {Outcome.SKIPPED}:
        assert Verdict(outcome=outcome, message="", expected=None).is_failure == outcome.is_failure
    with pytest.raises(ValueError):
        Verdict(outcome="maybe", message="", expected=None)  # type: ignore[arg-type]


# --- diff classes ------------------------------------------------------------------------------------

def diff_of(case: Case, expected: Result, answer: Answer, **options: Any) -> Diff:
    assert expected.memory is not None and answer.result is not None and answer.result.memory is not None
    return diff_case(case, expected.memory, answer.result.memory, SPEC, **options)


def test_wrote_outside_expected_area() -> None:
    case = two_bursts()
    expected, answer = mutated(case, "UB", lambda image: image.__setitem__(512, image[512] ^ 0xFF))
    diff = diff_of(case, expected, answer)
    (run_,) = diff.runs
    assert (run_.region, run_.start, run_.stop, run_.kind) == ("UB", 512, 513, "wrote-outside-expected-area")
    assert run_.location == "not written by the call, 1 B past (burst 0 (of 2), element 127, byte 1)"
    assert len(run_.expected.split()) == 1 and run_.expected != run_.actual


def test_bytes_put_in_the_wrong_place_say_where_they_belong() -> None:
    """dstGap ignored: burst 1 lands in the gap, 32 B early. The diff says so in words; a byte that was merely
    spoilt (no copy of the call's bytes) gets no such words."""
    case = two_bursts()
    expected = expect(case)
    image = region_bytes(expected, "UB")
    early = image[:512] + image[544:800] + image[768:]   # burst 1 moved to where the gap is (UB 256 + 256)
    answer = ok_with(case, expected, UB=early)
    first = diff_of(case, expected, answer).runs[0]
    assert (first.start, first.kind) == (512, "wrote-outside-expected-area")
    assert first.misplaced == "burst 1 (of 2), element 0, byte 0 written 32 B before where it belongs"
    verdict = judge(case, expected, answer, VALIDATING)
    assert "burst 1 (of 2), element 0, byte 0 written 32 B before where it belongs" in verdict.message
    _, spoilt = mutated(case, "UB", lambda image: image.__setitem__(slice(512, 530), bytes(range(18))))
    assert diff_of(case, expected, spoilt).runs[0].misplaced == ""


def test_left_expected_bytes_unwritten() -> None:
    case = two_bursts()
    before = region_bytes(case, "UB")
    expected, answer = mutated(case, "UB", lambda image: image.__setitem__(slice(544, 800), before[544:800]))
    diff = diff_of(case, expected, answer)
    assert [(r.start, r.stop, r.kind) for r in diff.runs] == [(544, 800, "left-expected-bytes-unwritten")]
    assert diff.runs[0].location == "burst 1 (of 2), element 0, byte 0"
    assert diff.runs[0].expected.endswith("…") and len(diff.runs[0].expected.split()) == 9


def test_wrong_value_covers_whole_elements() -> None:
    case = two_bursts()
    expected, answer = mutated(case, "UB", lambda image: image.__setitem__(257, image[257] ^ 0x01))
    diff = diff_of(case, expected, answer)
    assert [(r.start, r.stop, r.kind, r.differing) for r in diff.runs] == [(256, 258, "wrong-value", 1)]
    assert diff.bytes_by_class == {"wrong-value": 1}


def test_permuted_bursts_swapped() -> None:
    case = two_bursts()

    def swap(image: bytearray) -> None:
        image[256:512], image[544:800] = image[544:800], image[256:512]

    diff = diff_of(case, *mutated(case, "UB", swap))
    assert diff.classes == ("permuted",)
    assert [(r.start, r.stop) for r in diff.runs] == [(256, 512), (544, 800)]


def test_permuted_within_one_run_beside_other_damage() -> None:
    case = two_bursts()

    def edit(image: bytearray) -> None:
        image[256:272] = b"".join(reversed([bytes(image[k:k + 2]) for k in range(256, 272, 2)]))
        image[700] ^= 0xFF

    diff = diff_of(case, *mutated(case, "UB", edit))
    assert [(r.start, r.stop, r.kind) for r in diff.runs] == [(256, 272, "permuted"), (700, 702, "wrong-value")]


def test_other_regions_and_json_and_rendering() -> None:
    case = two_bursts()
    expected = expect(case)
    gm = bytearray(region_bytes(expected, "GM"))
    gm[100] ^= 0xFF
    ub = bytearray(region_bytes(expected, "UB"))
    for k in range(0, 250, 10):  # 25 separate runs before the first burst
        ub[k] ^= 0xFF
    diff = diff_of(case, expected, ok_with(case, expected, GM=bytes(gm), UB=bytes(ub)))
    assert diff.total_runs == 26 and diff.runs[0].region == "GM"
    assert diff.runs[0].location == "GM byte 100: the call's source memory, not the destination (UB)"
    data = json.loads(json.dumps(diff.to_json()))
    assert data["runs_by_class"] == {"wrote-outside-expected-area": 26} and data["truncated"] is False
    text = format_diff(diff)
    assert text.splitlines()[0].startswith("26 differing bytes in 26 runs")
    assert len(text.splitlines()) == 1 + 20 + 1 and text.endswith("… 6 more")
    assert format_diff(data) == text
    small = diff_of(case, expected, ok_with(case, expected, GM=bytes(gm), UB=bytes(ub)), max_runs=5)
    assert len(small.runs) == 5 and small.total_runs == 26 and small.to_json()["truncated"] is True


def test_no_difference_and_mismatched_regions() -> None:
    case = two_bursts()
    assert not diff_memory(case.memory, case.memory, case.memory)
    assert format_diff(diff_memory(case.memory, case.memory, case.memory)) == "memory matches"
    short = {**case.memory, "UB": Region(0, b"\0")}
    with pytest.raises(ValueError, match="UB"):
        diff_memory(case.memory, case.memory, short)


def test_without_explanation_everything_is_outside() -> None:
    case = two_bursts()
    expected = expect(case).memory
    assert expected is not None
    diff = diff_memory(case.memory, expected, case.memory)
    assert diff.classes == ("wrote-outside-expected-area",) and all(r.location == "" for r in diff.runs)
    assert set(CLASSES) >= set(diff.bytes_by_class)


# --- explain and locate, per API ---------------------------------------------------------------------

def test_explain_datacopy() -> None:
    explanation = explain(two_bursts())
    assert explanation.dst_memory == "UB" and explanation.src_memory == "GM"
    assert explanation.dst_starts.shape == (256,) and explanation.dst_starts[128] == 544
    assert explanation.writes(545) and explanation.writes(799)   # element 128's second byte, the last
    assert not explanation.writes(520) and not explanation.writes(255) and not explanation.writes(800)   # gap, edges
    assert explanation.locate(256 + 288 + 11) == "burst 1 (of 2), element 5, byte 1"
    assert explanation.locate(0) == ("not written by the call, 256 B before the first written byte "
                                     "(burst 0 (of 2), element 0, byte 0)")
    assert explanation.locate(900).startswith("not written by the call, 101 B past the last written byte")
    assert explain(illegal_case()) is None


def test_locate_is_exact_at_gm_addresses_past_2_to_the_53() -> None:
    """numpy compares a Python int with uint64 addresses as floats: a GM byte above 2**53 next to the written ones
    was located as written, or the written one as not (found by comparing with every written byte's address)."""
    base = 2**60 + 4096
    case = make_case("DataCopy", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", base),
                     {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                     {"UB": sentinel(64, 1), "GM": (base - 64, sentinel(160, 2))})
    explanation = explain(case)
    assert explanation.writes(base) and explanation.writes(base + 31)
    assert not explanation.writes(base - 1) and not explanation.writes(base + 32)
    assert explanation.locate(base + 31) == "burst 0 (of 1), element 15, byte 1"
    assert explanation.locate(base + 32) == ("not written by the call, 1 B past the last written byte "
                                             "(burst 0 (of 1), element 15, byte 1)")
    assert explanation.locate(base - 1).startswith("not written by the call, 1 B before the first written byte")


def test_locate_datacopy_count_form() -> None:
    case = make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0), {"count": 40},
                     {"GM": halves(1, 64), "UB": sentinel(256, 7)})
    assert explain(case).locate(2 * 17) == "element 17 (of 32), count form, byte 0"


def test_locate_nz2nd() -> None:
    params = {"ndNum": 2, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 4,
              "dstDStride": 160, "dstNdMatrixStride": 48}  # E6: the two matrices interleave in each row
    case = make_case("DataCopyNz2Nd", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 0), params,
                     {"UB": halves(1, 384), "GM": sentinel(1120, 8)})
    explanation = explain(case)
    assert explanation.locate(2 * (160 * 3 + 17)) == "matrix 0, row 3, column 17, byte 0"
    assert explanation.locate(2 * (48 + 160 * 2 + 31) + 1) == "matrix 1, row 2, column 31, byte 1"


def test_locate_loaddata_transposed() -> None:
    case = make_case("LoadData2D", "atlas-a2", ("A1", "half", 0), ("A2", "half", 0),
                     {**NOP, "repeatTimes": 3, "dstGap": 1, "ifTranspose": True},
                     {"L1": halves(1, 768), "L0A": sentinel(2560, 9)})
    explanation = explain(case)
    assert explanation.locate(2 * (4 * 256 + 3 * 16 + 7)) == "repeat 2 (fractal slot 4), element (r 3, c 7), byte 0"
    assert explanation.locate(512).startswith("not written by the call")


def test_locate_loaddata_plain_uses_32_byte_rows() -> None:
    case = make_case("LoadData2D", "atlas-a2", ("A1", "int8_t", 0), ("A2", "int8_t", 0), NOP,
                     {"L1": sentinel(1024, 10), "L0A": sentinel(1024, 11)})
    assert explain(case).locate(512 + 32 * 2 + 5) == "repeat 1 (fractal slot 1), element (r 2, c 5)"


def slice_case(dims: int) -> Case:
    src = [{"startIndex": 16, "endIndex": 70, "stride": 7, "burstLen": 3, "shapeValue": 87},
           {"startIndex": 0, "endIndex": 2, "stride": 1, "burstLen": 1, "shapeValue": 3},
           {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}]
    dst = [{"startIndex": 0, "endIndex": 47, "stride": 0, "burstLen": 3, "shapeValue": 48},
           {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2},
           {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}]
    return make_case("DataCopySlice", "atlas-a2", ("GM", "float", 0), ("VECIN", "float", 0),
                     {"dimValue": dims, "dstSliceInfo": dst[:dims], "srcSliceInfo": src[:dims]},
                     {"GM": sentinel(4 * 522, 12), "UB": sentinel(4 * 192, 13)})


def test_locate_slice() -> None:
    assert explain(slice_case(2)).locate(4 * (48 + 12)) == "row (j=1), slice 0, element 12, byte 0"
    assert explain(slice_case(1)).locate(4 * 30 + 2) == "slice 1, element 6, byte 2"
    assert explain(slice_case(3)).locate(4 * (96 + 48 + 24)) == "row (j1=1, j2=1), slice 1, element 0, byte 0"


def test_following_another_reading_of_a_point_the_run_names_fails() -> None:
    """--reading D24=must-be-zero certifies that reading of D24: the seed's answer (dstGap ignored) fails it,
    while under the seed reading the must-be-zero rejection is only disputed (above)."""
    case = training_gap_case()
    seed_answer = ok_memory(expect(case).memory)
    verdict = judged(case, seed_answer, "D24=must-be-zero")
    assert verdict.outcome == "missed-reject" and verdict.is_failure and verdict.followed == "seed"
    assert "but this run certifies D24=must-be-zero" in verdict.message
    assert judged(case, rejected("LoadData2D-dstGap-training-D24"), "D24=must-be-zero").outcome == "pass"
