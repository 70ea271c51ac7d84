"""A run's settings: what the run options (runner.options) say, as one frozen object."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ascendc_conformance.format.defaults import CASE_TIMEOUT_S, RUN_SHRINK_SECONDS, SHRINK_SECONDS
from ascendc_conformance.judge.verdict import RuleNaming
from ascendc_conformance.runner import options
from ascendc_conformance.runner.options import OptionError, RunOption


@dataclass(frozen=True)
class RunSettings:
    """Everything a run was told: its target, selection, profile, reports, waivers, reading and limits."""

    target: str
    products: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    profile: str = "ci"
    report_dir: Path | None = None
    report_details: bool = False                  # every test in full in report.json
    waivers_file: Path | None = None
    timeout: float = CASE_TIMEOUT_S
    shrink_seconds: float = SHRINK_SECONDS        # per failing test
    shrink_budget: float = RUN_SHRINK_SECONDS     # all failing tests of this process together
    reading: tuple[str, ...] = ()                 # --reading words: reading sets and POINT=ALT (none: the seed reading)
    rule_naming: RuleNaming = RuleNaming.KNOWN    # when a rejection naming only other rules is wrong-rule
    pack: Path | None = None                      # run the cases of this pack (format.pack), none drawn
    pack_id: str | None = None                    # the pack's published id, pinned: its expectations are trusted
    target_processes: int = 1                     # processes of an exec target
    baseline: Path | None = None                  # the results of an earlier run whose causes are known
    strict_baseline: bool = False                 # a baseline cause no longer failing fails the run
    allow_flaky: bool = False                     # a flaky test does not fail the run

    @classmethod
    def from_options(cls, value: Callable[[RunOption], Any]) -> RunSettings:
        """The settings of the run options' values: `value(option)` as `run` parsed it or the plugin checked it."""
        values = {option.name: value(option) for option in options.OPTIONS}
        return cls(target=values["target"], products=tuple(values["product"]), apis=tuple(values["api"]),
                   profile=values["profile"], report_dir=Path(values["report"]).resolve() if values["report"] else None,
                   report_details=values["report_details"],
                   waivers_file=Path(values["waivers"]) if values["waivers"] else None, timeout=values["timeout"],
                   shrink_seconds=values["shrink_seconds"], shrink_budget=values["shrink_budget"],
                   reading=tuple(values["reading"]), rule_naming=_rule_naming(values),
                   pack=Path(values["pack"]) if values["pack"] else None, pack_id=values["pack_id"],
                   target_processes=values["target_processes"],
                   baseline=Path(values["baseline"]) if values["baseline"] else None,
                   strict_baseline=values["strict_baseline"], allow_flaky=values["allow_flaky"])


def _rule_naming(values: dict[str, Any]) -> RuleNaming:
    """The policy --strict-rules or --lenient-rules names (the default without either); both: an OptionError."""
    if values["strict_rules"] and values["lenient_rules"]:
        raise OptionError(options.named("lenient_rules"), "contradicts --strict-rules; give one of them")
    return (RuleNaming.STRICT if values["strict_rules"] else RuleNaming.LENIENT if values["lenient_rules"]
            else RuleNaming.KNOWN)
