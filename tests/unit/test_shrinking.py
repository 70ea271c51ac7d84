"""Which failures a run shrinks (runner.checker.Checker._plan_shrinking): the first of each cause in the run, in
a full test; never a smoke test's or a heavy test's (strategies.pinned: every candidate moves tens of MiB), which
leave the cause to the next full test that shows it."""
from __future__ import annotations

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.format.results import TestKind
from ascendc_conformance.judge.verdict import judge
from ascendc_conformance.runner.checker import Checker, Judged
from ascendc_conformance.runner.plan import Plan
from ascendc_conformance.runner.records import CheckRecord
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.faults import Expectation
from ascendc_conformance.targets import open_target
from tests.helpers.casebuild import legal_case

SPEC = load_spec()
PLAN = Plan(item=None, contexts=(), expectation=Expectation.LEGAL)  # type: ignore[arg-type]


def shrunk(*records: CheckRecord) -> list[bool]:
    """Whether each test's failure (the same one: a legal call answered with its memory unchanged) is shrunk,
    the tests run in turn."""
    case = Case.from_json(legal_case())
    expected = reference.expect(case, SPEC)
    with open_target("reference", SPEC) as target:
        answer = Answer(kind=AnswerKind.RESULT, result=Result.ok(case.memory))
        verdict = judge(case, expected, answer, target.hello, spec=SPEC, diagnose=False)
        assert verdict.is_failure
        checker = Checker(spec=SPEC, reading=SPEC.seed_reading, target=target,
                          settings=RunSettings(target="reference"), waivers=(), packed=False)
        states = [checker._record(record, Judged(case, expected, verdict), PLAN, None, counted=True, packed=None)
                  for record in records]
    assert all(state is not None for state in states)
    return [state.shrinking for state in states if state is not None]


def test_a_heavy_or_smoke_tests_failure_is_left_to_the_next_full_test_to_shrink() -> None:
    records = [CheckRecord(test_id="test_smoke[a]", kind=TestKind.SMOKE, budget=2),
               CheckRecord(test_id="test_boundary[a@large]", kind=TestKind.BOUNDARY, budget=2, heavy=True),
               CheckRecord(test_id="test_legal[a]", kind=TestKind.LEGAL, budget=10),
               CheckRecord(test_id="test_legal[b]", kind=TestKind.LEGAL, budget=10)]
    assert shrunk(*records) == [False, False, True, False]   # the first full test's, once in the run
