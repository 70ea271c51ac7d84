"""The causes of a run (reports.causes): the causes every failing test recorded, grouped across tests — and so
across xdist workers, whose records are merged — by the hypothesis that explains them; the rest by their
diff-class cause; the one explaining the most failing tests first, ties by severity."""
from __future__ import annotations

from dataclasses import replace

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import Cause, TestKind, TestRecord
from ascendc_conformance.reports.causes import Member, accepted_apis, run_causes
from ascendc_conformance.spec.loader import load_spec

SPEC = load_spec()
BITS = [f"DataCopy.blockLen:kept-in-{k}-bits" for k in range(15, 0, -1)]
EIGHT = "DataCopy.blockLen:kept-in-8-bits"
REFUSED = "DataCopy.blockCount:refused-above-3"
EVERY_CALL = "every-call-refused"
ACCEPTED = frozenset({"DataCopy"})   # the run saw a DataCopy call accepted


def member(test_id: str, verdict: Outcome, hypotheses: list[str], blocks: int, shown_by: list[str] | None = None,
           diff_class: str = "wrong-value") -> Member:
    """One test's cause as results.jsonl records it: named by the first of `hypotheses` (a diff-class cause when
    there is none: the `fallback` of an explained one)."""
    unexplained = Cause(api="DataCopy", route="", verdict=verdict, diff_class=diff_class)
    cause = Cause.explained(verdict, "DataCopy", hypotheses[0], hypotheses[0]) if hypotheses else unexplained
    case = {"api": "DataCopy", "params": {"blockCount": blocks, "blockLen": 256}}
    return Member(test_id, {"cause": cause.to_json(), "verdict": verdict.value, "case": case,
                            "verdicts": [verdict.value], "hypotheses": hypotheses,
                            "shown_by": hypotheses if shown_by is None else shown_by,
                            "words": f"{hypotheses[0]} (words)" if hypotheses else "",
                            **({"fallback": unexplained.to_json()} if hypotheses else {})})


def test_one_bug_recorded_under_narrower_names_by_two_workers_is_one_cause_named_by_the_hypothesis_of_all() -> None:
    # worker 1's test saw only blockLen 16384 (kept in 14 bits or fewer fits); worker 2's saw 300 (8 bits or fewer)
    fourteen = member("test_legal[a]", Outcome.FAIL, BITS[1:], blocks=3)
    eight = member("test_legal[b]", Outcome.FAIL, BITS[7:], blocks=1)
    overran = member("test_boundary[c]", Outcome.ERROR, BITS[6:], blocks=2, shown_by=[])
    [cause] = run_causes([fourteen, eight, overran], SPEC, ACCEPTED)
    assert cause.cause.hypothesis == EIGHT and cause.cause.key == f"DataCopy|{EIGHT}"
    assert cause.tests == ("test_legal[a]", "test_legal[b]", "test_boundary[c]")
    assert cause.verdicts == ("error", "fail") and cause.cause.verdict is Outcome.ERROR
    assert cause.smallest.test_id == "test_legal[b]"   # the smallest its hypothesis explains, not blockCount 2's
    assert set(cause.alternatives) == set(BITS[8:])


def test_causes_come_by_the_failing_tests_they_explain_then_by_severity_and_unexplained_ones_keep_their_class() -> None:
    refused = [member(f"test_legal[r{i}]", Outcome.FALSE_REJECT, [REFUSED], blocks=4) for i in range(3)]
    truncated = [member(f"test_legal[t{i}]", Outcome.FAIL, [EIGHT], blocks=1) for i in range(2)]
    unexplained = [member("test_legal[u]", Outcome.FAIL, [], blocks=1, diff_class="permuted"),
                   member("test_legal[v]", Outcome.FAIL, [], blocks=2, diff_class="permuted")]
    causes = run_causes(truncated + unexplained + refused, SPEC, ACCEPTED)
    assert [(cause.cause.hypothesis, len(cause.tests)) for cause in causes] == [(REFUSED, 3), (EIGHT, 2), ("", 2)]
    assert causes[2].cause.label == "DataCopy / fail / permuted" and causes[2].smallest.test_id == "test_legal[u]"
    # two causes explaining as many tests: the worse verdict first
    tie = run_causes(refused[:2] + truncated, SPEC, ACCEPTED)
    assert [cause.cause.hypothesis for cause in tie] == [EIGHT, REFUSED]


def refusals() -> list[Member]:
    """False rejections naming no rule, each explained by a narrower bound and by every call refused alike: four
    of blockCount above 3, two of blockLen above 255 (as two bugs of a target accepting other calls show them, and
    as a target refusing every call shows them, each test's cases naming what fits them)."""
    count = [member(f"test_legal[c{i}]", Outcome.FALSE_REJECT, [REFUSED, EVERY_CALL], blocks=4) for i in range(4)]
    length = [member(f"test_boundary[l{i}]", Outcome.FALSE_REJECT, ["DataCopy.blockLen:refused-above-255", EVERY_CALL],
                     blocks=1) for i in range(2)]
    return count + length


def test_a_run_that_accepted_a_call_of_the_api_keeps_its_refusal_bugs_apart() -> None:
    causes = run_causes(refusals(), SPEC, ACCEPTED)
    assert [(cause.cause.hypothesis, len(cause.tests)) for cause in causes] == [
        (REFUSED, 4), ("DataCopy.blockLen:refused-above-255", 2)]
    assert not any(EVERY_CALL in cause.alternatives for cause in causes)


def test_a_run_that_accepted_no_call_of_the_api_names_one_cause_every_call_refused() -> None:
    [cause] = run_causes(refusals(), SPEC, frozenset({"DataCopySlice"}))   # another API's calls do not count
    assert cause.cause.hypothesis == EVERY_CALL and cause.cause.key == f"DataCopy|{EVERY_CALL}"
    assert len(cause.tests) == 6 and cause.words == "DataCopy / every call refused"
    # refusals a field read as 0 explains as well (each test names it: every call refused ranks after it)
    ignored = [member(f"test_legal[i{i}]", Outcome.FALSE_REJECT, ["DataCopy.blockLen:read-as-0", EVERY_CALL],
                      blocks=1) for i in range(3)]
    [cause] = run_causes(ignored, SPEC, frozenset())
    assert cause.cause.hypothesis == EVERY_CALL and cause.alternatives == ("DataCopy.blockLen:read-as-0",)
    [cause] = run_causes(ignored, SPEC, ACCEPTED)
    assert cause.cause.hypothesis == "DataCopy.blockLen:read-as-0" and not cause.alternatives


def test_a_cause_only_every_call_refused_explained_is_its_diff_class_cause_where_a_call_was_accepted() -> None:
    alone = [member(f"test_legal[x{i}]", Outcome.FALSE_REJECT, [EVERY_CALL], blocks=1, diff_class="") for i in range(2)]
    [cause] = run_causes(alone, SPEC, ACCEPTED)
    assert cause.cause.hypothesis == "" and cause.cause.label == "DataCopy / false-reject"
    assert cause.cause.key == "DataCopy|false-reject|||" and len(cause.tests) == 2
    [cause] = run_causes(alone, SPEC, frozenset())
    assert cause.cause.hypothesis == EVERY_CALL


def test_the_apis_a_run_saw_accept_a_call() -> None:
    def record(api: str, kind: TestKind, **counts: int) -> TestRecord:
        return TestRecord(test_id=f"test_{kind.value}[{api}]", kind=kind, verdict=Outcome.PASS, api=api,
                          counts={outcome.replace("_", "-"): n for outcome, n in counts.items()})
    tests = [record("DataCopy", TestKind.LEGAL, false_reject=3, **{"pass": 1}),       # a legal case moved right
             record("LoadData2D", TestKind.ILLEGAL, **{"pass": 5}),                # rejections, rightly: no evidence
             record("DataCopySlice", TestKind.ILLEGAL, false_reject=1, missed_reject=1),   # an illegal call accepted
             record("DataCopyNz2Nd", TestKind.BOUNDARY, false_reject=2)]
    assert accepted_apis(tests) == {"DataCopy", "DataCopySlice"}
    refused = replace(record("LoadData2D", TestKind.ILLEGAL, **{"pass": 2}), shown={"masked by a false rejection": 2})
    assert accepted_apis([refused]) == set()   # each twin refused too: nothing accepted
    assert accepted_apis([replace(refused, shown={"twin": 1, "masked by a false rejection": 1})]) == {"LoadData2D"}
    assert accepted_apis([record("DataCopyNz2Nd", TestKind.SMOKE, fail=1)]) == {"DataCopyNz2Nd"}
