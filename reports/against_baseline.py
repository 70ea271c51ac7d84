"""A run against its baseline (`run --baseline`): which of its causes of failure are known, which are new, and which
causes of the baseline it fixed or did not re-check, from results.jsonl alone (the run record keeps the baseline).

`against_baseline(results)` is None for a run without a baseline. Every report and the verdict line show it: the
known causes (their tests have the verdict `known`, or a new cause beside them), the new ones, the fixed ones
(and with --strict-baseline, that they failed the run), and how many were not re-checked (another selection).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ascendc_conformance.format.baseline import Baseline, FailingCause, failing_causes
from ascendc_conformance.reports.model import RunResults


@dataclass(frozen=True)
class AgainstBaseline:
    """This run's causes split by the baseline, and the baseline's causes this run fixed or did not re-check."""

    baseline: Baseline
    known: tuple[FailingCause, ...]
    new: tuple[FailingCause, ...]
    fixed: tuple[FailingCause, ...]
    unchecked: tuple[FailingCause, ...]
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
            parts.append(f"{len(self.unchecked)} not re-checked (none of the tests that showed them ran here)")
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
    causes = failing_causes(results.tests)
    return AgainstBaseline(baseline=baseline, known=tuple(c for c in causes if c.key in baseline.keys),
                           new=tuple(c for c in causes if c.key not in baseline.keys),
                           fixed=baseline.fixed(results.tests), unchecked=baseline.unchecked(results.tests),
                           strict=bool(results.run.get("strict_baseline")),
                           strict_flag=results.flag("strict_baseline"))
