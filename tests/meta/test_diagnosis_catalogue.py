"""One bug, one cause, named (issue 26), proved on the catalogue of buggy targets at the building-block level:
every bug, diagnosed over the failing cases the suite's own strategies draw for it, forms exactly one cause group,
and that group names the bug's hypothesis (the target's HYPOTHESIS); a target with several bugs forms one group
per bug (HYPOTHESES), and no failure is left unexplained.

A target's cases are those of its selection (SHOWS_IN's product and API), drawn as a run draws them, derandomized:
legal cases of every path that moves bytes its own way (one per product, route, form and dtype size; with the
case-format extensions every buggy target announces), legal cases with the top bits of every field set on every
kind of route (its highest bit that some path of the route holds, alone and with every lower bit: what a field
kept in too few bits or read as signed gets wrong, as the suite's reach tests and bit witnesses draw), and a few
cases of every fault and every legal bound, within the limits the target declares. Each is judged as a run judges it
(reference.expect_readings, judge.verdict.judge); the failures are diagnosed (judge.diagnosis) and grouped
(judge.grouping) with the hypotheses' rank. The pools are drawn once per product and API.

The same failures are then recorded as a run records them (runner.checker's Checker, whose runner.diagnosing
attributes each to a cause of its test, one record per test of the pool) and grouped as the reports group them
(reports.causes, from the records' JSON): the run's causes must be the same groups, each naming its hypothesis.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.format.case import EXTENSIONS, Case, ResultStatus
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.judge.diagnosis import diagnose
from ascendc_conformance.judge.grouping import Failure, group_failures
from ascendc_conformance.judge.verdict import judge
from ascendc_conformance.reference import bit_witness
from ascendc_conformance.reference.hypotheses import hypothesis
from ascendc_conformance.reports.causes import Member, accepted_apis, run_causes
from ascendc_conformance.runner.checker import Checker, Judged
from ascendc_conformance.runner.plan import Plan
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.boundaries import boundaries, distinct, group_of, pins, reaching
from ascendc_conformance.strategies.faults import Expectation, faults
from ascendc_conformance.strategies.legal import case_for, contexts, extended, select_paths
from ascendc_conformance.targets import open_target
from tests.fixtures.buggy import targets as buggy

SPEC = load_spec()
LEGAL_CASES = 30       # legal cases per product and API at least, spread over its paths
PER_PATH = 1           # legal cases per path at least
CASES_PER_ITEM = 2     # cases of every fault, every legal bound and every field's top bits on every route
SEVERAL_BUGS = (buggy.SimulatorOfIssue17, buggy.SimulatorOfIssue17Declaring)
# Bugs that show only on issue 27's large GM regions (tens of MiB), which this pool does not draw: a `ci` run
# catches them (tests/e2e/test_buggy_catalogue.py); that its diagnosis names them there is not checked yet.
ONLY_IN_LARGE_REGIONS = (buggy.LoadDataSrcStrideBit15Dropped,)
TARGETS = tuple(bug for bug in buggy.CATALOGUE if bug not in ONLY_IN_LARGE_REGIONS) + SEVERAL_BUGS


def expected_hypotheses(bug: type) -> tuple[str, ...]:
    return bug.HYPOTHESES or ((bug.HYPOTHESIS,) if bug.HYPOTHESIS else ())


def _drawn(strategy: st.SearchStrategy[Case], count: int) -> list[Case]:
    drawn: list[Case] = []

    @settings(max_examples=count, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case: Case) -> None:
        drawn.append(case)

    collect()
    return drawn


@lru_cache(maxsize=None)
def pool(product: str, api: str, limits: Limits) -> tuple[tuple[str, Case], ...]:
    """(the test it belongs to, a case) for the selection, drawn within `limits`."""
    paths = distinct(contexts(SPEC, select_paths(SPEC, [product], [api])))
    each = max(PER_PATH, -(-LEGAL_CASES // len(paths)))
    cases = [("legal", case) for ctx in extended(paths, EXTENSIONS) for case in _drawn(case_for(ctx.within(limits)), each)]
    items = [*faults(SPEC, [product], [api]), *(b for b in boundaries(SPEC, [product], [api]) if b.contexts)]
    for item in items:
        within = replace(item, contexts=tuple(ctx.within(limits) for ctx in item.contexts))
        cases += [(item.id, case) for case in _drawn(within.strategy(), CASES_PER_ITEM)]
    for name, strategy in top_bits(paths, limits):
        cases += [(name, case) for case in _drawn(strategy, CASES_PER_ITEM)]
    return tuple(cases)


def top_bits(paths: list, limits: Limits) -> list[tuple[str, st.SearchStrategy[Case]]]:
    """Per tracked field and kind of route (its memories), legal cases with the field at its highest bit that
    some path of the route holds with its effect: that bit alone, and with as many lower bits as fit."""
    found = []
    for tracked in bit_witness.fields(SPEC, paths[0].api.name):
        param = tracked.name.partition(bit_witness.MEMBER)[0]
        routes: dict[str, list] = {}
        for ctx in paths:
            if param in ctx.api.forms[ctx.form].fields:
                routes.setdefault(group_of(ctx), []).append(ctx.within(limits))
        for route, members in sorted(routes.items()):
            step = members[0].field_multiple(tracked.name)
            highest = next((bit for bit in reversed(tracked.bits)
                            if _reached(members, tracked.name, (1 << bit) // step * step)), None)
            if highest is None:
                continue
            # its highest bit, and the first bit past each narrower C type's width (a uint32_t kept in 16 bits)
            for bit in [highest] + [width for width in (8, 16) if width < highest and width in tracked.bits]:
                alone = _reached(members, tracked.name, (1 << bit) // step * step)
                if alone is None:
                    continue
                fuller = (_reached(members, tracked.name, ((1 << bit) | ((1 << lower) - 1)) // step * step)
                          for lower in range(bit, 0, -1))
                values = dict((alone, next(filter(None, fuller), alone)))
                found += [(f"{tracked.name}={value}@{route}", strategy) for value, strategy in values.items()]
    return found


def _reached(members: list, field: str, value: int) -> tuple[int, st.SearchStrategy[Case]] | None:
    """The cases of the members that hold `field` = `value` (with its effect where any does), if any does."""
    reach, effect = reaching(members, field, value) if value else ((), True)
    if not reach:
        return None
    return value, st.sampled_from(reach).flatmap(lambda ctx: case_for(ctx, pins(ctx, field, value, effect)))


def target_of(bug: type) -> str:
    return f"python:tests.fixtures.buggy.targets:{bug.__name__}"


def judged_failures(bug: type) -> tuple[tuple[str, int, Judged], ...]:
    """(its test, its place in the pool, the case judged) for every failing case of the target's pool."""
    return tuple(judged for judged in judged_cases(bug) if judged[2].verdict.is_failure)


@lru_cache(maxsize=None)
def judged_cases(bug: type) -> tuple[tuple[str, int, Judged], ...]:
    """(its test, its place in the pool, the case judged) for every case of the target's pool the runner would
    send, judged as the runner judges (without a diagnosis: the runner asks for it itself)."""
    product, api, _ = bug.SHOWS_IN
    found = []
    with open_target(target_of(bug), SPEC) as target:
        for index, (test, case) in enumerate(pool(product, api, target.hello.limits)):
            if not target.handles(frozenset(case.extensions)):   # as the runner's gates: never sent to it
                continue
            expected, others = reference.expect_readings(case, SPEC)
            if expected.status not in (ResultStatus.OK, ResultStatus.REJECTED):
                continue
            verdict = judge(case, expected, target.execute(case), target.hello, others=others, spec=SPEC,
                            diagnose=False)
            found.append((test, index, Judged(case, expected, verdict)))
    return tuple(found)


def failures_of(bug: type) -> list[tuple[Failure, str]]:
    """Every failing case of the target's pool as a Failure to group (keyed by its test and its place in the pool,
    falling back to its test and verdict), with its verdict's message."""
    found = []
    for test, index, judged in judged_failures(bug):
        actual = judged.verdict.what_it_did
        assert actual is not None, judged.verdict.message
        diagnosis = diagnose(judged.case, judged.expected, actual, SPEC, SPEC.seed_reading)
        found.append((Failure((test, index), diagnosis.ids, (test, judged.verdict.outcome)), judged.verdict.message))
    return found


def rank(hypothesis_id: str):
    return hypothesis(SPEC, hypothesis_id).rank


@pytest.mark.parametrize("bug", [b for b in TARGETS if expected_hypotheses(b)], ids=lambda bug: bug.__name__)
def test_each_bug_earns_one_cause_group_naming_its_hypothesis(bug: type) -> None:
    failures = failures_of(bug)
    assert failures, f"{bug.__name__}: no failing case drawn"
    unexplained = [message for failure, message in failures if not failure.hypotheses]
    assert not unexplained, f"{len(unexplained)} failure(s) no hypothesis explains, e.g. {unexplained[0][:300]}"
    groups = group_failures([failure for failure, _ in failures], rank)
    named = sorted(group.named for group in groups)
    assert named == sorted(expected_hypotheses(bug)), [(g.named, len(g.members), g.alternatives[:3]) for g in groups]


@pytest.mark.parametrize("bug", [b for b in TARGETS if not expected_hypotheses(b) and not b.UNDIAGNOSED],
                         ids=lambda bug: bug.__name__)
def test_a_target_following_a_reading_has_no_failure_to_diagnose(bug: type) -> None:
    assert bug.VERDICT == "disputed"
    assert failures_of(bug) == []


@pytest.mark.parametrize("bug", [b for b in TARGETS if b.UNDIAGNOSED], ids=lambda bug: bug.__name__)
def test_a_bug_no_hypothesis_models_is_never_given_a_wrong_name(bug: type) -> None:
    """A bug class outside the hypothesis catalogue (its UNDIAGNOSED says which) keeps its plain cause: no
    failing case of it is credited to a hypothesis that does not describe it."""
    assert bug.VERDICT == "fail" and not expected_hypotheses(bug)
    named = [(failure.hypotheses, message[:200]) for failure, message in failures_of(bug) if failure.hypotheses]
    assert not named, named[:3]


def test_every_hypothesis_the_catalogue_names_is_in_the_hypothesis_catalogue() -> None:
    for bug in TARGETS + (buggy.StricterLoadDataAlignment,):
        for name in expected_hypotheses(bug):
            assert hypothesis(SPEC, name).id == name


def _kind(test: str, legal: bool) -> TestKind:
    """The kind of the pool's test: its legal cases (and top bits), a bound's legal cases, a fault's."""
    if test == "legal" or "@" in test:
        return TestKind.LEGAL
    return TestKind.BOUNDARY if legal else TestKind.ILLEGAL


def run_causes_of(bug: type) -> list:
    """The causes a run reports for the target's pool: each case recorded as the runner records it (its own
    attribution, questions to the target included), the causes grouped across tests as the reports group them."""
    with open_target(target_of(bug), SPEC) as target:
        checker = Checker(spec=SPEC, reading=SPEC.seed_reading, target=target, settings=RunSettings(target=target_of(bug)),
                          waivers=(), packed=False)
        records: dict[str, CheckRecord] = {}
        for test, _, judged in judged_cases(bug):
            legal = judged.expected.status is ResultStatus.OK
            record = records.setdefault(test, CheckRecord(test_id=test, kind=_kind(test, legal), budget=10**6))
            record.describe(api=judged.case.api)
            plan = Plan(item=None, contexts=(), expectation=Expectation.LEGAL if legal else Expectation.REJECT)  # type: ignore[arg-type]
            checker._record(record, judged, plan, None, counted=True, packed=None, ask=checker._asker(None))
        for record in records.values():
            checker.finished(record)
    members = [Member(record.test_id, state.to_json()) for record in records.values()
               for state in record.causes.values()]
    return run_causes(members, SPEC, accepted_apis(record.result() for record in records.values()))


@pytest.mark.parametrize("bug", [b for b in TARGETS if expected_hypotheses(b)], ids=lambda bug: bug.__name__)
def test_a_run_records_and_reports_one_cause_per_bug(bug: type) -> None:
    """The runner's own attribution (a known cause asked first, narrowing, questions to the target, the
    diff-class fallback) and the reports' grouping across tests, weighing what the whole pool saw accepted, give
    the same causes as grouping every failure at once."""
    causes = run_causes_of(bug)
    assert sorted(cause.cause.hypothesis for cause in causes) == sorted(expected_hypotheses(bug)), \
        [(cause.cause.label, len(cause.members)) for cause in causes]
    for cause in causes:
        assert cause.cause.key == f"{cause.cause.api}|{cause.cause.hypothesis}"
        assert cause.cause.hypothesis in cause.smallest.entry["shown_by"], cause.smallest.entry


def test_two_refusal_bugs_of_a_target_accepting_other_calls_are_two_causes() -> None:
    """Each refusal of RefusesTwoBounds is also explained by "blockCount read as 0" (a count of 0 is refused),
    which would make one cause of both bugs: asked blockCount 255 (the call just short of its own simplest
    explanation, blockCount refused above 255), the target moves it right, which refutes the broader one. Without
    the question (grouping the failures alone) they are one cause."""
    bug = buggy.RefusesTwoBounds
    causes = run_causes_of(bug)
    assert sorted(cause.cause.hypothesis for cause in causes) == sorted(bug.HYPOTHESES), \
        [(cause.cause.label, len(cause.members)) for cause in causes]
    refuted = {name for cause in causes for member in cause.members for name in member.entry.get("refuted", ())}
    assert "DataCopy.blockCount:read-as-0" in refuted   # recorded, as the evidence the target gave
    failures = failures_of(bug)
    assert len(group_failures([failure for failure, _ in failures], rank)) == 1   # what the question changes
