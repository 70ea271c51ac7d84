"""`run`: the conformance suite against a target (pytest with the plugin), and `replay` of one saved case."""
from __future__ import annotations

import argparse
import random
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark import _parse_expression

from ascendc_conformance import plugin, reference
from ascendc_conformance.cli.commands import add_verb_parser
from ascendc_conformance.format import replay
from ascendc_conformance.format.cache import CACHE_VARIABLE
from ascendc_conformance.format.case import Case, Result, ResultStatus
from ascendc_conformance.format.errors import ReadingError
from ascendc_conformance.format.exits import help_text
from ascendc_conformance.format.text import terminal
from ascendc_conformance.format.results import case_summary, format_params
from ascendc_conformance.judge.diagnosis import Actual, actual_of, explains
from ascendc_conformance.judge.verdict import judge
from ascendc_conformance.reference.hypotheses import hypothesis
from ascendc_conformance.runner import options
from ascendc_conformance.runner.options import Entry
from ascendc_conformance.runner.plugin import SUITE_DIR, StartedRun
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Reading, Spec
from ascendc_conformance.targets import open_target

ENTRY_POINT = plugin.__name__
PLUGIN_DISTRIBUTIONS = ("hypothesis", "pytest-xdist")
"""The installed packages whose pytest plugins a run loads beside its own: the run's pytest loads these and no
other plugin installed (pytest's autoload is off). A plugin that reorders, reruns or times out tests would change
what a run does; and importing every plugin of a well-stocked environment cost each process of a run seconds."""


def register(subparsers: Any) -> None:
    parser = add_verb_parser(
        subparsers, "run", help="run the conformance suite against a target",
        description="Run the conformance suite (pytest with the ascendc plugin) against TARGET: legal cases\n"
                    "per documented path x dtype, single-fault illegal cases per rule and the legal range\n"
                    "boundaries, under the reading of the disputed points given by --reading (default:\n"
                    "seed). A case where the target follows another named reading is disputed, reported\n"
                    "apart, never a failure. With --pack, the same tests take the cases of a certification\n"
                    "pack (`ascendc-conformance pack build`) instead of drawing them.\n\n"
                    "Every option, the target's start and hello and the report directory are checked\n"
                    "before the run starts; a problem is one line naming the option (exit 2). One run at a\n"
                    "time per --report directory: it is locked while a run writes into it.\n\n"
                    "With --baseline, a test failing only with causes of an earlier run is known and passes:\n"
                    "the run fails on new causes only. The first failing case of each behaviour in a test is\n"
                    "sent again before it is reported: an answer that changes is flaky (failing the run unless\n"
                    "--allow-flaky).\n\n"
                    "The tests a selection makes are worked out once and kept in a cache that every process\n"
                    f"of the run and later runs read: ${CACHE_VARIABLE} names its folder (empty: none;\n"
                    "default $XDG_CACHE_HOME/ascendc-conformance, i.e. ~/.cache/ascendc-conformance).\n"
                    "The run's pytest loads the suite's, Hypothesis's and pytest-xdist's plugins, no other\n"
                    "pytest plugin installed, nor pytest's logging plugin. An in-process target's print() is\n"
                    "kept off the terminal (--capture=sys); what it writes to file descriptors 1 and 2 is not.\n\n"
                    + help_text("0 the target conforms on what was run (with --baseline: no new cause fails); 1 it "
                                "does not (a -k expression pytest cannot parse is a usage error, 2)",
                                "5 no test was selected"),
        examples=["ascendc-conformance run --target reference --profile ci",
                  "ascendc-conformance run --target 'exec:./my_sim --jsonl' --product 910B --report out/",
                  "ascendc-conformance run --target 'exec:./my_sim' --reading devkit --reading D13=destination-bytes",
                  "ascendc-conformance run --target python:my_pkg.target:Target --workers 2 --shard 1/4",
                  "ascendc-conformance run --target 'exec:./my_sim' --pack pack-full/ --target-processes 2",
                  "ascendc-conformance run --target 'exec:./my_sim' --baseline last-release/ --report out/"])
    options.add_to_argparse(parser)
    parser.add_argument("-k", metavar="EXPRESSION", dest="keyword", type=keyword_expression,
                        help="only the tests whose id matches this pytest -k expression, e.g. 'test_legal and C2'")
    parser.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failing test")
    parser.set_defaults(func=cmd_run)

    replay_parser = add_verb_parser(
        subparsers, "replay", help="re-run one saved failing case against a target",
        description="Re-run the case of a replay file (saved in <report>/replays/ by a failing run) on\n"
                    "TARGET and print the verdict with its diff.\n\n"
                    + help_text("0 the target now passes the case; 1 it still fails it"),
        examples=["ascendc-conformance replay out/replays/test_legal_atlas-a2-DataCopy-GM-_VECIN-half.json "
                  "--target 'exec:./my_sim'"])
    replay_parser.add_argument("file", metavar="FILE", help="a replay file")
    replay_parser.add_argument("--target", required=True, help="the target to run the saved case on: reference, "
                                                               "exec:<command line> or python:<module>:<attr>")
    timeout = options.named("timeout")
    replay_parser.add_argument(timeout.cli_flag, **timeout.argparse_kwargs())
    replay_parser.set_defaults(func=cmd_replay)


def keyword_expression(text: str) -> str:
    """A -k expression pytest can parse, checked before the run starts (a usage error, exit 2, before any
    header or verdict). pytest has no public parser of -k: its own (private) one is used, so that both accept
    the same expressions; tests/e2e/test_usage_errors.py fails should it change."""
    try:
        _parse_expression(text, "not a pytest -k expression")
    except pytest.UsageError as error:
        raise argparse.ArgumentTypeError(f"{error}; e.g. -k 'test_legal and C2'") from None
    return text


def pytest_args(args: argparse.Namespace) -> list[str]:
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    argv = [str(SUITE_DIR), f"--rootdir={SUITE_DIR}", "-c", str(SUITE_DIR / "pytest.ini"), "-q",
            f"--hypothesis-seed={seed}", *options.plugin_args(args),
            # one line per failing test, printed as it fails (no tracebacks, no second list at the end); the
            # suite's own errors are printed with their traceback by the recorder
            "--tb=no", "-rN",
            # nothing a test prints or logs is shown (--tb=no) or kept: file-descriptor capture and pytest's log
            # capture around every test cost about a tenth of a pack run's CPU; an in-process target's print() is
            # still kept off the terminal
            "--capture=sys", "-p", "no:logging",
            # pytest.main runs in this process, after the CLI imported the suite's modules: nothing to rewrite.
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    argv[:0] = ["--disable-plugin-autoload", *(word for name in run_plugins() for word in ("-p", name))]
    if args.progress != "off":   # the progress lines say how far the run is: no pytest percentages beside them
        argv += ["-o", "console_output_style=classic"]
    if args.workers > 1:
        argv += ["-n", str(args.workers), "--dist", "worksteal"]
    if args.keyword:
        argv += ["-k", args.keyword]
    if args.exitfirst:
        argv.append("-x")
    return argv


def run_plugins() -> list[str]:
    """The modules of the pytest plugins a run loads: the suite's, and those of PLUGIN_DISTRIBUTIONS."""
    return [ENTRY_POINT, *(entry.value for name in PLUGIN_DISTRIBUTIONS
                           for entry in metadata.distribution(name).entry_points if entry.group == "pytest11")]


def cmd_run(args: argparse.Namespace) -> int:
    """Check every option and start the target before pytest starts (an OptionError is a usage error, exit 2),
    then hand the started run to the plugin."""
    session = RunSession(RunSettings.from_options(lambda option: getattr(args, option.name)), load_spec(), Entry.RUN)
    try:
        session.start()
        return int(pytest.main(pytest_args(args), plugins=[StartedRun(session)]))
    finally:
        session.close()


def cmd_replay(args: argparse.Namespace) -> int:
    saved = replay.load(Path(args.file))
    spec = load_spec()
    try:   # judged under the reading of the saved run
        reading = spec.reading([saved.reading] if saved.reading else [])
    except ReadingError as error:
        raise replay.ReplayError(f"{args.file}: 'verdict.reading': {error}") from None
    expected, others = reference.expect_readings(saved.case, spec, reading)
    if expected.status is ResultStatus.ERROR:   # a case the suite's own checks refuse (unknown product, missing param, ...)
        raise replay.ReplayError(f"{args.file}: {expected.message}; the saved case cannot be judged")
    with open_target(args.target, spec, timeout=args.timeout) as target:
        answer = target.execute(saved.case)
        verdict = judge(saved.case, expected, answer, target.hello, reading=reading, others=others, spec=spec)
    print(terminal(f"case: {format_params(case_summary(saved.case))}"))
    if saved.hypothesis is not None:
        print(terminal(f"hypothesis: {saved.hypothesis.words} ({saved.hypothesis.id}): "
                       f"{_still_shown(saved.hypothesis, saved.case, expected, actual_of(answer), spec, reading)}"))
    print(terminal(verdict.describe()))
    now = "still fails" if verdict.is_failure else "now passes"
    saved_words = f" (saved verdict: {saved.outcome})" if saved.outcome is not None else ""
    print(f"verdict: {verdict.outcome} — the target {now} this case{saved_words}")
    return 1 if verdict.is_failure else 0


def _still_shown(shown: replay.Demonstrated, case: Case, expected: Result, actual: Actual, spec: Spec,
                 reading: Reading) -> str:
    """Whether the hypothesis a replay demonstrates still explains what the target did with its case."""
    try:
        known = hypothesis(spec, shown.id)
    except KeyError:
        return "not a hypothesis of this suite's catalogue"
    if explains(known, case, expected, actual, spec, reading):
        return "the case demonstrates it (it explains the target's answer)"
    return "it no longer explains the target's answer"
