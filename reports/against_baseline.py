"""A run against its baseline (`run --baseline`): which of its causes of failure are known, which are new, and which
causes of the baseline it fixed or did not re-check, from results.jsonl alone (the run record keeps the baseline).

`against_baseline(results)` is None for a run without a baseline. Every report and the verdict line show it: the
known causes (their tests have the verdict `known`, or a new cause beside them), the new ones, the fixed ones
(and with --strict-baseline, that they failed the run), and how many were not re-checked (another selection).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ascendc_conformance.format.baseline import Baseline, BaselineCause
from ascendc_conformance.format.results import Cause
from ascendc_conformance.reports.model import RunResults


@dataclass(frozen=True)
class CauseTests:
    """A cause of this run's failures and the tests that showed it."""

    cause: Cause
    tests: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"key": self.cause.key, "label": self.cause.label, "tests": list(self.tests)}


@dataclass(frozen=True)
class AgainstBaseline:
    """This run's causes split by the baseline, and the baseline's causes this run fixed or did not re-check."""

    baseline: Baseline
    known: tuple[CauseTests, ...]
    new: tuple[CauseTests, ...]
    fixed: tuple[BaselineCause, ...]
    unchecked: tuple[BaselineCause, ...]
    strict: bool   # --strict-baseline: a fixed cause fails the run
    strict_flag: str = "--strict-baseline"   # how the run's user gives that option (run's or the plugin's)

    @property
    def stale(self) -> bool:
        """The run failed because the baseline holds causes that no longer fail (--strict-baseline)."""
        return self.strict and bool(self.fixed)

    @property
    def summary(self) -> str:
        """One clause: what the baseline made of the run's failures."""
        parts = [f"baseline {self.baseline.source}: {len(self.known)} known cause(s)", f"{len(self.new)} new",
                 f"{len(self.fixed)} fixed" + (f" ({self.strict_flag}: refresh the baseline)" if self.stale else "")]
        if self.unchecked:
            parts.append(f"{len(self.unchecked)} not re-checked (no test of this run showed them in the baseline)")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.baseline.source, "suite_version": self.baseline.suite_version,
                "spec_digest": self.baseline.spec_digest, "causes": len(self.baseline.causes),
                "known": [c.to_json() for c in self.known], "new": [c.to_json() for c in self.new],
                "fixed": [c.to_json() for c in self.fixed], "unchecked": [c.to_json() for c in self.unchecked],
                "strict": self.strict, "stale": self.stale}


def against_baseline(results: RunResults) -> AgainstBaseline | None:
    """The run's failures against the baseline its run record names (None: a run without one)."""
    data = results.run.get("baseline")
    if not data:
        return None
    baseline = Baseline.from_json(data)
    keys = baseline.keys
    found: dict[Cause, list[str]] = {}
    for test in results.tests:
        for cause in test.failing_causes:
            found.setdefault(cause, []).append(test.test_id)
    split: dict[bool, list[CauseTests]] = {True: [], False: []}
    for cause, tests in found.items():
        split[cause.key in keys].append(CauseTests(cause, tuple(tests)))
    return AgainstBaseline(baseline=baseline, known=tuple(split[True]), new=tuple(split[False]),
                           fixed=baseline.fixed(results.tests), unchecked=baseline.unchecked(results.tests),
                           strict=bool(results.run.get("strict_baseline")),
                           strict_flag=results.flag("strict_baseline"))
