"""Run options (ascendc_conformance.runner.options): one definition, the same for the plugin and `run`;
the README's test command is the one .ci/run runs."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.cli.main import build_parser
from ascendc_conformance.format.defaults import CASE_TIMEOUT_S, SHRINK_SECONDS
from ascendc_conformance.runner import options

ROOT = Path(__file__).resolve().parents[2]


def _run_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    verbs = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return verbs.choices["run"]


def test_every_option_reaches_both_the_plugin_and_run_with_one_default() -> None:
    run = {action.dest: action for action in _run_parser()._actions}
    plugin_help = subprocess.run([sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"], cwd=ROOT,
                                 capture_output=True, text=True, timeout=120).stdout
    for option in options.OPTIONS:
        assert option.plugin_flag in plugin_help, option.name
        assert run[option.name].default == option.argparse_kwargs()["default"], option.name
        assert option.cli_flag in run[option.name].option_strings
    assert set(re.findall(r"--ascendc-[a-z-]+", plugin_help)) == {option.plugin_flag for option in options.OPTIONS}
    assert run["timeout"].default == CASE_TIMEOUT_S and run["shrink_seconds"].default == SHRINK_SECONDS


def test_run_passes_each_option_on_under_the_plugins_name() -> None:
    args = _run_parser().parse_args(["--target", "reference", "--product", "910B", "--product", "atlas-a3",
                                     "--timeout", "2.5", "--report", "out"])
    words = options.plugin_args(args)
    assert "--ascendc-target=reference" in words and "--ascendc-timeout=2.5" in words
    assert words.count("--ascendc-product=910B") == 1 and "--ascendc-product=atlas-a3" in words
    assert "--ascendc-report=out" in words and not any(w.startswith("--ascendc-waivers") for w in words)


def test_the_target_is_required_by_run() -> None:
    with pytest.raises(SystemExit):
        _run_parser().parse_args([])


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert f"\n{ci}\n" in readme and "pytest" in ci
