"""The causes of a run (reports.causes): the causes every failing test recorded, grouped across tests — and so
across xdist workers, whose records are merged — by the hypothesis that explains them; the rest by their
diff-class cause; the one explaining the most failing tests first, ties by severity."""
from __future__ import annotations

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import Cause
from ascendc_conformance.reports.causes import Member, run_causes
from ascendc_conformance.spec.loader import load_spec

SPEC = load_spec()
BITS = [f"DataCopy.blockLen:kept-in-{k}-bits" for k in range(15, 0, -1)]
EIGHT = "DataCopy.blockLen:kept-in-8-bits"
REFUSED = "DataCopy.blockCount:refused-above-3"


def member(test_id: str, verdict: Outcome, hypotheses: list[str], blocks: int, shown_by: list[str] | None = None,
           diff_class: str = "wrong-value") -> Member:
    """One test's cause as results.jsonl records it: named by the first of `hypotheses` (a diff-class cause when
    there is none)."""
    cause = (Cause.explained(verdict, "DataCopy", hypotheses[0], hypotheses[0]) if hypotheses
             else Cause(api="DataCopy", route="", verdict=verdict, diff_class=diff_class))
    case = {"api": "DataCopy", "params": {"blockCount": blocks, "blockLen": 256}}
    return Member(test_id, {"cause": cause.to_json(), "verdict": verdict.value, "case": case,
                            "verdicts": [verdict.value], "hypotheses": hypotheses,
                            "shown_by": hypotheses if shown_by is None else shown_by,
                            "words": f"{hypotheses[0]} (words)" if hypotheses else ""})


def test_one_bug_recorded_under_narrower_names_by_two_workers_is_one_cause_named_by_the_hypothesis_of_all() -> None:
    # worker 1's test saw only blockLen 16384 (kept in 14 bits or fewer fits); worker 2's saw 300 (8 bits or fewer)
    fourteen = member("test_legal[a]", Outcome.FAIL, BITS[1:], blocks=3)
    eight = member("test_legal[b]", Outcome.FAIL, BITS[7:], blocks=1)
    overran = member("test_boundary[c]", Outcome.ERROR, BITS[6:], blocks=2, shown_by=[])
    [cause] = run_causes([fourteen, eight, overran], SPEC)
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
    causes = run_causes(truncated + unexplained + refused, SPEC)
    assert [(cause.cause.hypothesis, len(cause.tests)) for cause in causes] == [(REFUSED, 3), (EIGHT, 2), ("", 2)]
    assert causes[2].cause.label == "DataCopy / fail / permuted" and causes[2].smallest.test_id == "test_legal[u]"
    # two causes explaining as many tests: the worse verdict first
    tie = run_causes(refused[:2] + truncated, SPEC)
    assert [cause.cause.hypothesis for cause in tie] == [EIGHT, REFUSED]
