"""The verdict line at the end of every run: what the certification statement will say, in two lines.

The run's terminal used to end with pytest's own tally ("16 failed, 56 passed, 264 skipped"), which lumps
not-supported tests with skips and says nothing of conformance. The recorder asks for these lines when the
run ends (with or without a report directory): the outcome as the certification states it, the failing tests
and their distinct causes (reports.causes: one per hypothesis that explains failures, across the tests of every
worker), what passed, was not supported or was skipped, the reading and profile, where the report is, and the
first cause — the one explaining the most failing tests, ties by its worst verdict — with its smallest case's
replay command.
"""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.reports.causes import Member, run_causes
from ascendc_conformance.reports.coverage import build_coverage, certify
from ascendc_conformance.reports.model import TestResult, results_of
from ascendc_conformance.runner.progress import PREFIX
from ascendc_conformance.spec.model import Spec


TALLY = ((Outcome.PASS, "passed"), (Outcome.DISPUTED, "disputed"), (Outcome.WAIVED, "waived"),
         (Outcome.NOT_SUPPORTED, "not supported"), (Outcome.SKIPPED, "skipped"))
"""The verdicts of the tests that did not fail, as the line names them: not-supported apart from skipped."""


def verdict_lines(run: Mapping[str, Any], tests: Sequence[Mapping[str, Any]], exit_status: int,
                  report_dir: Path | None, *, spec: Spec) -> list[str]:
    """The verdict of a run from its run record and test records (results.jsonl's shapes)."""
    end = {"record": "end", "exit_status": exit_status,
           "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    results = results_of(run, [TestResult.from_record(test) for test in tests], end, report_dir or Path("."))
    certification = certify(results, build_coverage(results, spec))
    failing = [test for test in results.tests if test.is_failure]
    causes = run_causes(_members(failing), spec)
    tally = {words: sum(test.verdict is outcome for test in results.tests) for outcome, words in TALLY}
    others = "; ".join(f"{n} {words}" for words, n in tally.items() if n)
    scope = "a certification run" if certification.is_certification else "not a certification run"
    where = f"report {report_dir}" if report_dir is not None else "no report (--report DIR keeps one)"
    lines = [f"{PREFIX} VERDICT: {certification.outcome.upper()} — {len(failing)} failing test(s), "
             f"{len(causes)} distinct cause(s); {others or 'no other test'}; reading {results.reading}; profile "
             f"{results.profile} ({scope}); {where}"]
    if causes:
        first = causes[0]
        replay = first.smallest.entry.get("replay_command")
        lines.append(f"{PREFIX} first cause: {first.words}; its smallest case: "
                     + (replay or "no replay file (--report DIR saves one per cause)"))
    return lines


def _members(failing: Sequence[TestResult]) -> list[Member]:
    """Every cause of every failing test (one derived from the record where it recorded none)."""
    members = []
    for test in failing:
        cause = test.cause
        assert cause is not None, "a failing test has a cause"
        entries = test.causes or ({"cause": cause.to_json(), "verdict": test.verdict.value,
                                   "replay_command": test.replay_command, "case": test.case},)
        members += [Member(test.test_id, entry) for entry in entries]
    return members
