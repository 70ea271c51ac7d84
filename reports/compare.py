"""Compare two runs: new failures, fixed tests, coverage lost, verdict changes.

`compare(old, new, spec)` gives a `Comparison`:

- new_causes: causes of failure (by their key, format.results.Cause.key: never a test id or a seed) that tests
  of NEW failed with and no test of OLD did (a known test's causes count: they are failures);
- new_failures: tests with a failure verdict in NEW that had none in OLD (or were not in OLD);
- fixed: tests with a failure verdict in OLD that ran in NEW without one;
- lost_tests: tests that judged cases in OLD and judged none in NEW (absent, skipped or not supported there);
- lost_paths: paths x dtypes covered in OLD (a legal test judged cases) and not in NEW;
- lost_rules: rules exercised in OLD and not in NEW (with NEW's reason);
- changed_causes: tests failing in both runs for another cause (verdict, route, diff class or rule);
- verdict_changes: every other test whose verdict changed (including tests only one run has).

A *regression* (`Comparison.regression`, what `report --compare OLD NEW --fail-on-regression` exits 1 on) is a new
cause of failure or lost coverage: a lost test, path or rule.

`render_table(comparison)` is the human table, `Comparison.to_json()` the machine form.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from ascendc_conformance.format.baseline import FailingCause, failing_causes
from ascendc_conformance.reports.coverage import build_coverage
from ascendc_conformance.reports.model import FAILURE_VERDICTS, RunResults
from ascendc_conformance.spec.model import Spec

ABSENT = "(absent)"


@dataclass(frozen=True)
class Change:
    test_id: str
    old: str          # verdict in OLD, or ABSENT (for a changed cause: Cause.label in OLD)
    new: str          # verdict in NEW, or ABSENT (for a changed cause: Cause.label in NEW)
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"test_id": self.test_id, "old": None if self.old == ABSENT else self.old,
                "new": None if self.new == ABSENT else self.new, "message": self.message}


@dataclass(frozen=True)
class LostRule:
    rule: str
    reason: str | None

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "reason": self.reason}


@dataclass(frozen=True)
class Comparison:
    old: str
    new: str
    new_failures: tuple[Change, ...]
    fixed: tuple[Change, ...]
    lost_paths: tuple[str, ...]
    lost_rules: tuple[LostRule, ...]
    verdict_changes: tuple[Change, ...]
    changed_causes: tuple[Change, ...] = ()
    notes: tuple[str, ...] = ()
    new_causes: tuple[FailingCause, ...] = ()
    lost_tests: tuple[str, ...] = ()

    @property
    def regression(self) -> bool:
        """NEW fails with a cause OLD did not fail with, or covers less: a test, path or rule OLD covered."""
        return bool(self.new_causes or self.lost_tests or self.lost_paths or self.lost_rules)

    def to_json(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "regression": self.regression,
                "new_causes": [c.to_json() for c in self.new_causes], "lost_tests": list(self.lost_tests),
                "new_failures": [c.to_json() for c in self.new_failures],
                "fixed": [c.to_json() for c in self.fixed], "lost_paths": list(self.lost_paths),
                "lost_rules": [r.to_json() for r in self.lost_rules],
                "verdict_changes": [c.to_json() for c in self.verdict_changes],
                "changed_causes": [c.to_json() for c in self.changed_causes], "notes": list(self.notes),
                "summary": {"new_causes": len(self.new_causes), "new_failures": len(self.new_failures),
                            "fixed": len(self.fixed), "lost_tests": len(self.lost_tests),
                            "lost_paths": len(self.lost_paths), "lost_rules": len(self.lost_rules),
                            "changed_causes": len(self.changed_causes),
                            "verdict_changes": len(self.verdict_changes)}}


def _describe(results: RunResults) -> str:
    sources = ", ".join(str(s.source) for s in results.shards)
    return f"{sources} ({results.target}, profile {results.profile}, spec {results.spec_digest})"


def compare(old: RunResults, new: RunResults, spec: Spec) -> Comparison:
    """How two runs differ, test by test and cause by cause, against `spec`."""
    notes = []
    for key, label in (("target", "target"), ("spec_digest", "spec digest"), ("profile", "profile"),
                       ("seed", "seed")):
        a, b = old.run.get(key), new.run.get(key)
        if a != b:
            notes.append(f"the runs differ in {label}: {a!r} -> {b!r}")
    if old.killed:
        notes.append("OLD did not finish (no end record)")
    if new.killed:
        notes.append("NEW did not finish (no end record)")
    old_tests = {t.test_id: t for t in old.tests}
    new_tests = {t.test_id: t for t in new.tests}
    new_failures, fixed, changes, causes = [], [], [], []
    for test_id in list(old_tests) + [t for t in new_tests if t not in old_tests]:
        before, after = old_tests.get(test_id), new_tests.get(test_id)
        old_verdict = before.verdict if before else ABSENT
        new_verdict = after.verdict if after else ABSENT
        message = (after.message if after else before.message if before else "").splitlines()
        old_cause, new_cause = (before.cause if before else None), (after.cause if after else None)
        if old_cause is not None and new_cause is not None and old_cause != new_cause:
            causes.append(Change(test_id, old_cause.label, new_cause.label, message[0] if message else ""))
        if old_verdict == new_verdict:
            continue
        change = Change(test_id, old_verdict, new_verdict, message[0] if message else "")
        if new_verdict in FAILURE_VERDICTS and old_verdict not in FAILURE_VERDICTS:
            new_failures.append(change)
        elif old_verdict in FAILURE_VERDICTS and after is not None and after.ran and not after.is_failure:
            fixed.append(change)
        else:
            changes.append(change)
    old_cov, new_cov = build_coverage(old, spec), build_coverage(new, spec)
    new_paths = new_cov.covered_paths()
    lost_paths = tuple(c.label for c in old_cov.cells if c.covered and c.label not in new_paths)
    new_rules = {r.id: r for r in new_cov.rules}
    lost_rules = tuple(LostRule(r.id, new_rules[r.id].reason if r.id in new_rules else "not in the spec")
                       for r in old_cov.rules if r.covered and not (r.id in new_rules and new_rules[r.id].covered))
    return Comparison(_describe(old), _describe(new), tuple(new_failures), tuple(fixed), lost_paths, lost_rules,
                      tuple(changes), tuple(causes), tuple(notes), _new_causes(old, new),
                      tuple(test_id for test_id, test in old_tests.items()
                            if test.ran and not (test_id in new_tests and new_tests[test_id].ran)))


def _new_causes(old: RunResults, new: RunResults) -> tuple[FailingCause, ...]:
    """The causes of failure of NEW, by key, that no test of OLD failed with."""
    before = {cause.key for cause in failing_causes(old.tests)}
    return tuple(cause for cause in failing_causes(new.tests) if cause.key not in before)


def render_table(comparison: Comparison, limit: int | None = None) -> str:
    """The comparison as text tables (github pipe format); `limit` caps the rows of each table."""
    def cap(rows: list[Any]) -> list[Any]:
        if limit is not None and len(rows) > limit:
            return rows[:limit] + [[f"… {len(rows) - limit} more"] + [""] * (len(rows[0]) - 1)]
        return rows

    out = [f"OLD: {comparison.old}", f"NEW: {comparison.new}", ""]
    summary = comparison.to_json()["summary"]
    out.append(tabulate([[k.replace("_", " "), v] for k, v in summary.items()], headers=["change", "count"],
                        tablefmt="github"))
    out += ["", f"New causes of failure ({len(comparison.new_causes)}):"]
    if comparison.new_causes:
        rows = cap([[c.label, len(c.tests), ", ".join(c.tests[:3]) + (" …" if len(c.tests) > 3 else "")]
                    for c in comparison.new_causes])
        out.append(tabulate(rows, headers=["cause", "tests", "e.g."], tablefmt="github"))
    sections = (("New failures", comparison.new_failures), ("Fixed tests", comparison.fixed),
                ("Failing for another cause", comparison.changed_causes),
                ("Other verdict changes", comparison.verdict_changes))
    for title, changes in sections:
        out += ["", f"{title} ({len(changes)}):"]
        if changes:
            rows = cap([[c.test_id, c.old, c.new, c.message[:100]] for c in changes])
            out.append(tabulate(rows, headers=["test", "old", "new", "message"], tablefmt="github"))
    out += ["", f"Coverage lost: tests that judged cases in OLD and none in NEW ({len(comparison.lost_tests)}):"]
    if comparison.lost_tests:
        out.append(tabulate(cap([[t] for t in comparison.lost_tests]), headers=["test"], tablefmt="github"))
    out += ["", f"Coverage lost: paths ({len(comparison.lost_paths)}):"]
    if comparison.lost_paths:
        out.append(tabulate(cap([[p] for p in comparison.lost_paths]), headers=["path x dtype"], tablefmt="github"))
    out += ["", f"Coverage lost: rules ({len(comparison.lost_rules)}):"]
    if comparison.lost_rules:
        out.append(tabulate(cap([[r.rule, r.reason or ""] for r in comparison.lost_rules]),
                            headers=["rule", "reason in NEW"], tablefmt="github"))
    if comparison.notes:
        out += ["", "Notes:"] + [f"- {note}" for note in comparison.notes]
    out += ["", "Regression: " + ("yes (a new cause of failure or lost coverage)" if comparison.regression else "no")]
    return "\n".join(out) + "\n"
