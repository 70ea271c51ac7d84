"""The verdict line at the end of every run: what the certification statement will say, in a few lines.

The recorder asks for these lines when the run ends (with or without a report directory): the outcome as the
certification states it, the failing tests and their distinct new causes, the other tests counted under their
verdict's word (passed, disputed, waived, known, flaky under --allow-flaky, not supported, skipped: the words
pytest's own summary counts the conformance tests under too), the reading and profile, where the report is;
with a baseline, its known, new, fixed and not re-checked causes; and the first cause (reports.causes: one per
hypothesis that explains failures, across the tests of every worker) — the one explaining the most failing
tests, ties by its worst verdict — with its smallest case's replay command.
The hints name the options of the entry point the run came from (`--report` or `--ascendc-report`). Before
them, how far its legal cases reached (field bits witnessed, crossings of derived offsets made) and what
reachable it left untested, and why (reports.untested).
"""
from __future__ import annotations

import datetime
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.reports.against_baseline import against_baseline
from ascendc_conformance.reports.bit_table import bits_summary
from ascendc_conformance.reports.causes import Member, accepted_apis, run_causes
from ascendc_conformance.reports.coverage import Coverage, build_coverage, certify
from ascendc_conformance.reports.crossings import crossings_summary
from ascendc_conformance.reports.model import TestResult, results_of
from ascendc_conformance.reports.untested import summary as untested_summary
from ascendc_conformance.runner.progress import PREFIX
from ascendc_conformance.spec.model import Spec


def verdict_lines(run: Mapping[str, Any], tests: Sequence[Mapping[str, Any]], exit_status: int,
                  report_dir: Path | None, *, spec: Spec) -> list[str]:
    """The verdict of a run from its run record and test records (results.jsonl's shapes). The tests that did not
    fail are counted under their verdict's word (Outcome.tally), as pytest's own summary counts them; a test
    failing only with causes of the baseline is `known`, and the line says when no new failure is why the run
    passes, or a stale baseline (--strict-baseline) why it fails."""
    end = {"record": "end", "exit_status": exit_status,
           "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    results = results_of(run, [TestResult.from_record(test) for test in tests], end, report_dir or Path("."))
    coverage = build_coverage(results, spec)
    certification = certify(results, coverage)
    failing = [test for test in results.tests if results.fails_run(test)]
    causes = run_causes(_members(failing), spec, accepted_apis(results.tests))
    tally = Counter(test.verdict.tally(results.allows_flaky) for test in results.tests if not results.fails_run(test))
    order = [outcome.tally(results.allows_flaky) for outcome in Outcome]   # passed first, then worst first
    others = "; ".join(f"{tally[word]} {word}" for word in sorted(tally, key=lambda w: (w != "passed", order.index(w))))
    scope = "a certification run" if certification.is_certification else "not a certification run"
    flag = results.flag
    where = f"report {report_dir}" if report_dir is not None else f"no report ({flag('report')} DIR keeps one)"
    baseline = against_baseline(results)
    qualifier = ""
    if baseline is not None and not failing and certification.known_tests:
        qualifier += ", NO NEW FAILURE"
    if baseline is not None and baseline.stale:
        qualifier += ", BASELINE STALE"
    lines = [_reach_line(coverage)]
    if certification.untested:
        shown = certification.untested[:UNTESTED_SHOWN]
        more = len(certification.untested) - len(shown)
        lines.append(f"{PREFIX} untested: " + "; ".join(entry.text for entry in shown)
                     + (f"; and {more} more (the report's statement lists them)" if more else ""))
    untested = f" ({untested_summary(certification.untested)})" if certification.untested else ""
    lines.append(f"{PREFIX} VERDICT: {certification.outcome.upper()}{untested}{qualifier} — {len(failing)} failing "
                 f"test(s), {len(causes)} distinct cause(s); {others or 'no other test'}; reading {results.reading}; "
                 f"profile {results.profile} ({scope}); {where}")
    missed = results.not_certified
    if missed["rules"]:
        kinds = f"rule kind(s) {', '.join(missed['kinds'])}, " if missed["kinds"] else ""
        lines.append(f"{PREFIX} not certified (the target does not declare that it validates them): {kinds}"
                     f"{len(missed['rules'])} rule(s); the report lists them")
    if baseline is not None:
        lines.append(f"{PREFIX} {baseline.summary}")
    if causes:
        first = causes[0]
        replay = first.smallest.entry.get("replay_command")
        lines.append(f"{PREFIX} first cause: {first.words}; its smallest case: "
                     + (replay or f"no replay file ({flag('report')} DIR saves one per cause)"))
    return lines


UNTESTED_SHOWN = 8   # untested fields and quantities the terminal names (the report's statement names them all)


def _reach_line(coverage: Coverage) -> str:
    """How far the run's legal cases reached: field bits witnessed and crossings of derived offsets made."""
    bits, crossings = bits_summary(coverage.bits), crossings_summary(coverage.crossings)
    unreachable = sorted({f"{row.api} {row.quantity}" for row in coverage.crossings if not row.reachable})
    return (f"{PREFIX} reach: {bits['effective']} of {bits['reachable']} reachable field bits witnessed; "
            f"{crossings['crossed']} of {crossings['reachable']} reachable crossings of derived offsets made"
            + (f" (unreachable: {', '.join(unreachable)})" if unreachable else ""))


def _members(failing: Sequence[TestResult]) -> list[Member]:
    """Every new cause of every failing test (one derived from the record where it recorded none); the causes the
    run's baseline holds are not counted."""
    members = []
    for test in failing:
        cause = test.cause
        assert cause is not None, "a failing test has a cause"
        entries = test.causes or ({"cause": cause.to_json(), "verdict": test.verdict.value,
                                   "replay_command": test.replay_command, "case": test.case},)
        members += [Member(test.test_id, entry) for entry in entries if not entry.get("known")]
    return members
