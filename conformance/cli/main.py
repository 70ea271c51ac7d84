"""The `ascendc-conformance` command (also `python -m ascendc_conformance`): argparse with one sub-parser per verb.

Each verb lives in its own module under conformance/cli/commands/ and exposes ``register(subparsers)``
(see conformance/cli/commands/__init__.py). To add a verb, write the module and append its import path
to ``COMMANDS`` below.

`main` never lets a deliberate error escape as a traceback: a ConformanceError or SpecError is printed
to stderr as a message and the exit code is 2 (3 for a SuiteFailure: the suite could not finish, e.g. a
full disk; format.exits). Verbs that report problems as their normal output (e.g. ``spec check`` exits 1 on
a broken spec) return their own exit code. Every message passes through format.text.terminal: the text
of a target or of a file cannot drive the terminal.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn, Sequence

from ascendc_conformance import __version__
from ascendc_conformance.format.errors import ConformanceError, SuiteFailure
from ascendc_conformance.format.exits import ExitCode, help_text
from ascendc_conformance.format.text import terminal
from ascendc_conformance.spec.errors import SpecError

PROG = "ascendc-conformance"

# One line per verb module, in the order the verbs are listed by --help.
COMMANDS: tuple[str, ...] = (
    "ascendc_conformance.cli.commands.spec_cmd",
    "ascendc_conformance.cli.commands.expect_cmd",
    "ascendc_conformance.cli.commands.report_cmd",
    "ascendc_conformance.cli.commands.run_cmd",
    "ascendc_conformance.cli.commands.sample_cmd",
    "ascendc_conformance.cli.commands.pack_cmd",
)

DESCRIPTION = """\
Property-based conformance suite for the Huawei Ascend C data-movement APIs
(`ascendc-conformance spec apis` lists the ones the spec describes).

The documented behaviour lives in a machine-readable spec (products, APIs, paths x
dtypes, rules with stable ids, disputed points); a numpy reference gives the expected
memory image, or the rules broken, for any case."""

EPILOG = """\
examples:
  ascendc-conformance run --target reference --profile ci --report out/
  ascendc-conformance run --target 'exec:./my_sim --jsonl' --product 910B --api DataCopy
  ascendc-conformance replay out/replays/<test>.json --target 'exec:./my_sim --jsonl'
  ascendc-conformance spec apis
  ascendc-conformance spec paths --product 910B --api DataCopy
  ascendc-conformance sample --api DataCopy --product 910B -n 3 > cases.jsonl
  ascendc-conformance expect case.json

Run `ascendc-conformance VERB --help` for the options of a verb.
""" + help_text("0 success (run: the target conforms); 1 the verb found a problem it reports (run: the target does "
                "not conform; spec check: a broken spec; replay: the case still fails; report --compare "
                "--fail-on-regression: a regression)",
                "run only: 5 no test selected (a -k expression pytest cannot parse is a usage error, 2)")


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a usage error on one line (its verbs' parsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every verb of COMMANDS registered."""
    parser = ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(title="verbs", dest="verb", metavar="VERB")
    for module_name in COMMANDS:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]) and return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version and usage errors; keep main() returning an int
        return _exit_code(exit_.code)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        return int(func(args) or 0)
    except SpecError as error:
        count = len(error.issues)
        print(f"{PROG}: error: the spec is broken ({count} issue{'s' if count != 1 else ''}):", file=sys.stderr)
        for issue in error.issues:
            print(terminal(f"  {issue}"), file=sys.stderr)
        return ExitCode.USAGE
    except SuiteFailure as error:
        print(terminal(f"{PROG}: error: {error}"), file=sys.stderr)
        return ExitCode.SUITE
    except ConformanceError as error:
        print(terminal(f"{PROG}: error: {error}"), file=sys.stderr)
        return ExitCode.USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (e.g. `| head`); don't fail again at exit
        return ExitCode.FAILED


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
