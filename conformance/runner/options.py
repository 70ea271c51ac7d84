"""Every run option, defined once for the pytest plugin (`--ascendc-NAME`) and the `run` verb (`--NAME`).

Standard library only: the lazy plugin entry point (ascendc_conformance.plugin) registers these options in
every pytest run of an environment where the suite is installed, and must not import more than this.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

from ascendc_conformance.format.defaults import (CASE_TIMEOUT_S, DEFAULT_PROFILE, PROFILES, RESENDS,
                                                 RUN_SHRINK_SECONDS, SHRINK_SECONDS)
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.errors import ConformanceError, did_you_mean

PLUGIN_PREFIX = "--ascendc-"
PROGRESS_MODES = ("auto", "live", "lines", "off")
MAX_WORKERS = 64
"""Most xdist workers `run --workers` starts (each runs its own target process)."""
MAX_TARGET_PROCESSES = 64
"""Most processes of an exec target one run (each xdist worker of it) starts."""
MAX_SEED = 2**64 - 1
MAX_SHARDS = 10_000
SHOWN_CHARS = 40
"""How much of a refused value its message repeats."""


# --- value checks: argparse `type=` callables, shared by `run` (argparse) and the plugin (activate) ----------

def _shown(text: str) -> str:
    return clip(repr(text), SHOWN_CHARS)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a finite number")
    return value


def positive_seconds(text: str) -> float:
    """A number of seconds above 0 (a timeout: 0 or less would time every case out, nan or inf never)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: expected a number of seconds above 0, e.g. 10")
    return value


def non_negative_seconds(text: str) -> float:
    """A finite number of seconds, 0 or more."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: expected a number of seconds, 0 or more")
    return value


def _whole(text: str, low: int, high: int, what: str) -> int:
    """A whole number in low..high (every range here has at most 20 digits: a longer text is not parsed)."""
    try:
        value = int(text.strip()) if len(text) <= 40 else None
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: expected {what}, a whole number from {low} to {high}")
    return value


def worker_count(text: str) -> int:
    """A number of xdist workers, 1..MAX_WORKERS."""
    return _whole(text, 1, MAX_WORKERS, "a number of workers")


def process_count(text: str) -> int:
    """A number of target processes, 1..MAX_TARGET_PROCESSES."""
    return _whole(text, 1, MAX_TARGET_PROCESSES, "a number of target processes")


def seed(text: str) -> int:
    """A Hypothesis seed: 0..2**64-1 (the run record and the command that repeats the run hold it)."""
    return _whole(text, 0, MAX_SEED, "a seed")


def pack_id(text: str) -> str:
    """A pack id: the SHA-256 of a pack's manifest, 64 hex digits (lower case as kept)."""
    if len(text) != 64 or any(char not in "0123456789abcdefABCDEF" for char in text):
        raise argparse.ArgumentTypeError(f"{_shown(text)}: expected a pack id, the 64 hex digits `pack build` and "
                                         "`pack verify` print")
    return text.lower()


def parse_shard(text: str) -> tuple[int, int]:
    """(I, N) of `I/N`, 1 <= I <= N."""
    index, _, count = text.partition("/")
    try:
        part, parts = _whole(index, 1, MAX_SHARDS, "I"), _whole(count, 1, MAX_SHARDS, "N")
    except argparse.ArgumentTypeError:
        part = parts = 0
    if not 1 <= part <= parts:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: expected I/N, the I-th of N parts, "
                                         f"1 <= I <= N <= {MAX_SHARDS}, e.g. 1/4")
    return part, parts


def shard(text: str) -> str:
    """`I/N` as given, once checked."""
    parse_shard(text)
    return text


@dataclass(frozen=True)
class RunOption:
    """One option of a conformance run: its name (`shrink_seconds`), help, and argparse-style shape."""

    name: str
    help: str
    metavar: str | None = None
    default: Any = None
    type: Callable[[str], Any] | None = None   # raises argparse.ArgumentTypeError for a value it refuses
    choices: tuple[str, ...] | None = None
    repeatable: bool = False
    flag: bool = False   # a switch (store_true) rather than a value
    pytest_flag: str | None = None   # the pytest option carrying it, when not the plugin's own

    @property
    def words(self) -> str:
        return self.name.replace("_", "-")

    @property
    def plugin_flag(self) -> str:
        return self.pytest_flag or PLUGIN_PREFIX + self.words

    @property
    def cli_flag(self) -> str:
        return "--" + self.words

    @property
    def plugin_dest(self) -> str:
        """Where pytest keeps the value (`config.getoption(dest)`)."""
        return "ascendc_" + self.name

    def parse(self, text: str) -> Any:
        """The value of one word given for this option; argparse.ArgumentTypeError saying what is accepted."""
        if self.choices is not None and text not in self.choices:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not one of {', '.join(self.choices)}"
                                             f"{did_you_mean(text, self.choices)}")
        return self.type(text) if self.type is not None else text

    def value(self, raw: Any) -> Any:
        """A value as pytest kept it, checked as `run` checks it (OptionError if refused): the plugin registers
        its options unchecked, since pytest would print its whole usage text around a refused value, and
        checks them in activate."""
        if isinstance(raw, str) and (self.type is not None or self.choices is not None):
            try:
                return self.parse(raw)
            except argparse.ArgumentTypeError as error:
                raise OptionError(self, str(error)) from None
        return raw

    def argparse_kwargs(self, checked: bool = True) -> dict[str, Any]:
        """Keyword arguments for `parser.add_argument` (`checked`: values go through `parse`) and pytest's
        `group.addoption` (unchecked: see `value`)."""
        if self.flag:
            return {"action": "store_true", "default": False, "help": self.help}
        kwargs: dict[str, Any] = {"help": self.help,
                                  "metavar": "|".join(self.choices) if self.choices else self.metavar}
        if self.repeatable:
            kwargs.update(action="append", default=[])
        else:
            kwargs["default"] = self.default
        if checked and (self.type is not None or self.choices is not None):
            kwargs["type"] = self.parse
        return kwargs

    @property
    def unset(self) -> Any:
        """The value of the option when it is not given."""
        return False if self.flag else [] if self.repeatable else self.default

    def plugin_args(self, value: Any) -> list[str]:
        """The plugin's command-line words that pass `value` on (none for an unset value)."""
        if self.flag:
            return [self.plugin_flag] if value else []
        values = value if self.repeatable else [] if value is None else [value]
        return [f"{self.plugin_flag}={item}" for item in values]


class OptionError(ConformanceError):
    """What a run was given cannot be used; `option` names the option at fault, so that each entry point
    shows it under the flag its user typed (`--product` for `run`, `--ascendc-product` for pytest).
    `detail` (e.g. the tail of a failing target's stderr) follows the one-line message."""

    def __init__(self, option: RunOption, message: str, detail: str = "") -> None:
        message = "; ".join(line.strip() for line in message.splitlines() if line.strip())   # one line, always
        super().__init__(option, message, detail)
        self.option, self.message, self.detail = option, message, detail

    def text(self, flag: str) -> str:
        return f"{flag}: {self.message}" + (f"\n{self.detail}" if self.detail else "")

    def __str__(self) -> str:
        return self.text(self.option.cli_flag)


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
              + f"; only full is a certification run (default {DEFAULT_PROFILE}; with --pack, the pack's own)",
              default=DEFAULT_PROFILE, choices=tuple(PROFILES)),
    RunOption("report", "write results.jsonl, replays and reports into DIR", metavar="DIR"),
    RunOption("report_details", "list every test in full in report.json (default: the tests that did not fail are "
                                "summarised to their verdict and counts; results.jsonl keeps everything)", flag=True),
    RunOption("waivers", "YAML waivers (rule or test, reason, link) turning matching failures into 'waived'",
              metavar="FILE"),
    RunOption("timeout", f"per-case timeout of exec targets, in seconds above 0, which bounds each start (its hello) "
                         f"too (default {CASE_TIMEOUT_S:g})",
              metavar="SECONDS", default=CASE_TIMEOUT_S, type=positive_seconds),
    RunOption("shrink_seconds", "time Hypothesis may spend shrinking one failing test before its smallest failing "
                                f"case so far is reported, in seconds, 0 or more (default {SHRINK_SECONDS:g})",
              metavar="SECONDS", default=SHRINK_SECONDS, type=non_negative_seconds),
    RunOption("shrink_budget", "time all failing tests of the run (of each worker) may spend shrinking together; "
                               f"past it failures are reported as drawn; seconds, 0 or more (default {RUN_SHRINK_SECONDS:g})",
              metavar="SECONDS", default=RUN_SHRINK_SECONDS, type=non_negative_seconds),
    RunOption("reading", "certify under this reading of the disputed points: a reading set of spec/disputes.yaml "
                         "(seed, the default; devkit) or POINT=ALTERNATIVE (e.g. D13=destination-bytes); repeatable, "
                         "merged; points not named take their default", metavar="SET|POINT=ALT", repeatable=True),
    RunOption("shard", "run only the I-th of N deterministic parts of the suite, 1 <= I <= N (merge the reports "
                       "afterwards)", metavar="I/N", type=shard),
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
    RunOption("pack", "run exactly the cases of this certification pack (`ascendc-conformance pack build`), no "
                      "case drawn: the pack fixes the products, APIs, profile and cases (select tests with -k); the "
                      "statement names its pack id. Before the first case the pack is checked as `pack verify` "
                      "checks it (hashes, schema, the manifest's counts, profile and test list against its content); "
                      "without --pack-id every expected result is also worked out again by the reference, and a "
                      "difference refuses the pack (exit 2)", metavar="DIR"),
    RunOption("pack_id", "the pack id its certifier published (`pack build` and `pack verify` print it): a --pack "
                         "whose id differs is refused, and its stored expected results are used as they are. "
                         "Without it the run re-derives them, and its statement says the id was not pinned: only a "
                         "pinned pack of profile full makes a certification run", metavar="ID", type=pack_id),
    RunOption("baseline", "the results of an earlier run (its report directory or results.jsonl) whose causes of "
                          "failure are known: a test failing only with them gets the verdict known and does not fail "
                          "the run; a new cause fails it; a baseline cause that no longer fails is reported as fixed. "
                          "Causes are matched by their key (API, verdict, rule, what tells the behaviour apart), "
                          "never by test id or seed", metavar="DIR|FILE"),
    RunOption("strict_baseline", "with --baseline: a baseline cause that no longer fails fails the run too, so that "
                                 "the baseline gets refreshed", flag=True),
    RunOption("allow_flaky", f"a test whose failing answer changed when its case was sent again (verdict flaky; "
                             f"the first failing case of each behaviour in a test is sent up to {RESENDS} more "
                             "times) does not fail the run; it is still reported", flag=True),
    RunOption("target_processes", "how many processes of an exec: target to start (in each worker): a pack test's "
                                  "cases are shared among them, several in flight on each (a profile run draws "
                                  f"one case at a time and uses one); 1 to {MAX_TARGET_PROCESSES} (default 1)",
              metavar="N", default=1, type=process_count),
)


SEED = RunOption("seed", f"Hypothesis seed, 0 to {MAX_SEED} (default: a random one, printed in the header; "
                         "unused with --pack: its cases are drawn already); the same seed draws the same cases "
                         "under one Hypothesis release, whatever the target",
                 metavar="N", type=seed, pytest_flag="--hypothesis-seed")
WORKERS = RunOption("workers", f"parallel workers (pytest-xdist), 1 to {MAX_WORKERS} (default 1)", metavar="N",
                    default=1, type=worker_count, pytest_flag="-n")
RUN_ONLY: tuple[RunOption, ...] = (SEED, WORKERS)
"""Options of `run` that pass on to pytest's own options (Hypothesis's seed, xdist's workers) rather than to
the plugin's."""


class Entry(Enum):
    """How a run was started, which decides the option names its hints give: `ascendc-conformance run`'s
    (`--report`) or the pytest plugin's (`--ascendc-report`, `--hypothesis-seed`)."""

    RUN = "run"
    PYTEST = "pytest"

    def flag(self, name: str) -> str:
        """The command-line name of the option called `name` (`report`, `seed`, ...) for this entry point."""
        option = named(name)
        return option.cli_flag if self is Entry.RUN else option.plugin_flag


def named(name: str) -> RunOption:
    """The option called `name` (`product`, `seed`, ...)."""
    return next(option for option in OPTIONS + RUN_ONLY if option.name == name)


def plugin_problem(value: Callable[[RunOption], Any]) -> str | None:
    """Why the plugin's options of a pytest session (`value(option)`: as pytest kept it) would silently run no
    conformance test: an empty --ascendc-target (an unset $TARGET), or another --ascendc-* option without it.
    None when there is nothing wrong (no --ascendc-* option at all, or a target)."""
    target = value(TARGET)
    accepted = "expected reference, exec:<command line> or python:<module>:<attr>"
    if target is not None and not str(target).strip():
        return f"{TARGET.plugin_flag} is empty (an unset environment variable?); {accepted}"
    given = [option.plugin_flag for option in OPTIONS if option is not TARGET and value(option) != option.unset]
    if target is None and given:
        return (f"{', '.join(given)} given without {TARGET.plugin_flag}, so no conformance test would run; add "
                f"{TARGET.plugin_flag}=TARGET ({accepted})")
    return None


def add_to_pytest(parser: Any) -> None:
    """Register every option on pytest's parser, in the plugin's option group (unchecked: see RunOption.value)."""
    group = parser.getgroup("ascendc", "ascendc-conformance: Ascend C data-movement conformance")
    for option in OPTIONS:
        group.addoption(option.plugin_flag, dest=option.plugin_dest, **option.argparse_kwargs(checked=False))


def add_to_argparse(parser: argparse.ArgumentParser) -> None:
    """Register every option on the `run` verb's parser (the target is required there)."""
    for option in OPTIONS + RUN_ONLY:
        kwargs = option.argparse_kwargs()
        if option is TARGET:
            kwargs["required"] = True
        parser.add_argument(option.cli_flag, dest=option.name, **kwargs)


def plugin_args(values: argparse.Namespace) -> list[str]:
    """The plugin's command-line words for the options `run` parsed into `values`."""
    return [word for option in OPTIONS for word in option.plugin_args(getattr(values, option.name))]
