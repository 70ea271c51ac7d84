"""The verdict line at the end of every run: what the certification statement will say, in two lines.

The run's terminal used to end with pytest's own tally ("16 failed, 56 passed, 264 skipped"), which lumps
not-supported tests with skips and says nothing of conformance. The recorder asks for these lines when the
run ends (with or without a report directory): the outcome as the certification states it, the failing tests
and their distinct causes, what passed, was not supported or was skipped, the reading and profile, where the
report is, and the replay command of the first cause.
"""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import Cause, params_size
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
    causes: dict[str, tuple[int, str | None]] = {}   # label -> (size of its smallest case, that case's replay)
    for test in failing:
        cause = test.cause
        assert cause is not None, "a failing test has a cause"
        entries = test.causes or ({"cause": cause.to_json(), "replay_command": test.replay_command,
                                   "case": test.case},)
        for entry in entries:
            label = Cause.from_json(entry["cause"]).label
            size = params_size((entry.get("case") or {}).get("params"))
            if label not in causes or size < causes[label][0]:
                causes[label] = (size, entry.get("replay_command"))
    tally = {words: sum(test.verdict is outcome for test in results.tests) for outcome, words in TALLY}
    others = "; ".join(f"{n} {words}" for words, n in tally.items() if n)
    scope = "a certification run" if certification.is_certification else "not a certification run"
    where = f"report {report_dir}" if report_dir is not None else "no report (--report DIR keeps one)"
    lines = [f"{PREFIX} VERDICT: {certification.outcome.upper()} — {len(failing)} failing test(s), "
             f"{len(causes)} distinct cause(s); {others or 'no other test'}; reading {results.reading}; profile "
             f"{results.profile} ({scope}); {where}"]
    if causes:
        label, (_, replay) = next(iter(causes.items()))
        lines.append(f"{PREFIX} first cause: {label}; its smallest case: "
                     + (replay or "no replay file (--report DIR saves one per cause)"))
    return lines
