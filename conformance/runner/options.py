"""Every run option, defined once for the pytest plugin (`--ascendc-NAME`) and the `run` verb (`--NAME`).

Standard library only: the lazy plugin entry point (ascendc_conformance.plugin) registers these options in
every pytest run of an environment where the suite is installed, and must not import more than this.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable

from ascendc_conformance.format.defaults import (CASE_TIMEOUT_S, DEFAULT_PROFILE, PROFILES, RUN_SHRINK_SECONDS,
                                                 SHRINK_SECONDS)

PLUGIN_PREFIX = "--ascendc-"
PROGRESS_MODES = ("auto", "live", "lines", "off")


@dataclass(frozen=True)
class RunOption:
    """One option of a conformance run: its name (`shrink_seconds`), help, and argparse-style shape."""

    name: str
    help: str
    metavar: str | None = None
    default: Any = None
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    repeatable: bool = False
    flag: bool = False   # a switch (store_true) rather than a value

    @property
    def words(self) -> str:
        return self.name.replace("_", "-")

    @property
    def plugin_flag(self) -> str:
        return PLUGIN_PREFIX + self.words

    @property
    def cli_flag(self) -> str:
        return "--" + self.words

    @property
    def plugin_dest(self) -> str:
        """Where pytest keeps the value (`config.getoption(dest)`)."""
        return "ascendc_" + self.name

    def argparse_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `parser.add_argument` and pytest's `group.addoption` alike."""
        if self.flag:
            return {"action": "store_true", "default": False, "help": self.help}
        kwargs: dict[str, Any] = {"help": self.help, "metavar": self.metavar}
        if self.repeatable:
            kwargs.update(action="append", default=[])
        else:
            kwargs["default"] = self.default
        if self.type is not None:
            kwargs["type"] = self.type
        if self.choices is not None:
            kwargs["choices"] = self.choices
            kwargs.pop("metavar")
        return kwargs

    def plugin_args(self, value: Any) -> list[str]:
        """The plugin's command-line words that pass `value` on (none for an unset value)."""
        if self.flag:
            return [self.plugin_flag] if value else []
        values = value if self.repeatable else [] if value is None else [value]
        return [f"{self.plugin_flag}={item}" for item in values]


TARGET = RunOption("target", "run the conformance suite against TARGET: reference, exec:<command line> or "
                             "python:<module>:<attr>", metavar="TARGET")
OPTIONS: tuple[RunOption, ...] = (
    TARGET,
    RunOption("product", "only this product (id or alias, e.g. atlas-a2 or 910B); repeatable; default: all",
              metavar="PRODUCT", repeatable=True),
    RunOption("api", "only this API of the spec (`ascendc-conformance spec apis` lists them); repeatable; "
                     "default: all",
              metavar="API", repeatable=True),
    RunOption("profile", "how many cases per test: " + ", ".join(f"{name} ({count})" for name, count in PROFILES.items())
              + f"; only full is a certification run (default {DEFAULT_PROFILE})",
              default=DEFAULT_PROFILE, choices=tuple(PROFILES)),
    RunOption("report", "write results.jsonl, replays and reports into DIR", metavar="DIR"),
    RunOption("waivers", "YAML waivers (rule or test, reason, link) turning matching failures into 'waived'",
              metavar="FILE"),
    RunOption("timeout", f"per-case timeout of exec targets (default {CASE_TIMEOUT_S:g} s)", metavar="SECONDS",
              default=CASE_TIMEOUT_S, type=float),
    RunOption("shrink_seconds", "time Hypothesis may spend shrinking one failing test before its smallest failing "
                                f"case so far is reported (default {SHRINK_SECONDS:g} s)", metavar="SECONDS",
              default=SHRINK_SECONDS, type=float),
    RunOption("shrink_budget", "time all failing tests of the run (of each worker) may spend shrinking together; "
                               f"past it failures are reported as drawn (default {RUN_SHRINK_SECONDS:g} s)",
              metavar="SECONDS", default=RUN_SHRINK_SECONDS, type=float),
    RunOption("reading", "certify under this reading of the disputed points: a reading set of spec/disputes.yaml "
                         "(seed, the default; devkit) or POINT=ALTERNATIVE (e.g. D13=destination-bytes); repeatable, "
                         "merged; points not named take their default", metavar="SET|POINT=ALT", repeatable=True),
    RunOption("shard", "run only the I-th of N deterministic parts of the suite (merge the reports afterwards)",
              metavar="I/N"),
    RunOption("progress", "progress of the run (tests done per API, cases, failures so far): live (one status "
                          "line, for a terminal), lines (a line per tenth of the run, for CI logs), off (pytest's "
                          "own dots), auto (live on a terminal, else lines; default)",
              default="auto", choices=PROGRESS_MODES),
    RunOption("strict_rules", "a rejection of an illegal call is wrong-rule unless it names a rule the call "
                              "breaks (or names none), even when it names ids that are not rules of the spec (by "
                              "default only a rejection naming spec rules, none of them broken, is wrong-rule)",
              flag=True),
    RunOption("lenient_rules", "pass every rejection of an illegal call, whatever rules it names (for targets whose "
                               "rule names are approximate); one naming only other rules is counted in the rule "
                               "table's 'rejected for another rule' column", flag=True),
)


def add_to_pytest(parser: Any) -> None:
    """Register every option on pytest's parser, in the plugin's option group."""
    group = parser.getgroup("ascendc", "ascendc-conformance: Ascend C data-movement conformance")
    for option in OPTIONS:
        group.addoption(option.plugin_flag, dest=option.plugin_dest, **option.argparse_kwargs())


def add_to_argparse(parser: argparse.ArgumentParser) -> None:
    """Register every option on the `run` verb's parser (the target is required there)."""
    for option in OPTIONS:
        kwargs = option.argparse_kwargs()
        if option is TARGET:
            kwargs["required"] = True
        parser.add_argument(option.cli_flag, dest=option.name, **kwargs)


def plugin_args(values: argparse.Namespace) -> list[str]:
    """The plugin's command-line words for the options `run` parsed into `values`."""
    return [word for option in OPTIONS for word in option.plugin_args(getattr(values, option.name))]
