"""Every usage error of a run is caught before pytest starts (issue 20, item 1): a bad target spec, a target
that fails to start or says a hello the run cannot use, an unknown product, API, reading, profile or shard, an
unusable waiver file or report directory, an option value out of its range. Each is one `error:` line naming
the option the user typed (`--product` for `run`, `--ascendc-product` for pytest) and what is accepted, with
a close match where there is one; a target's failed hello adds the tail of its stderr. Exit 2 for `run`,
pytest's usage-error code 4 for the plugin; no traceback, and nothing from pytest before it."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.cli.main import main
from ascendc_conformance.runner import options
from ascendc_conformance.runner.session import RunSession
from ascendc_conformance.runner.settings import RunSettings
from ascendc_conformance.spec.loader import load_spec

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
BAD_HELLO = ROOT / "tests" / "fixtures" / "targets" / "fake_bad_hello.py"
STDERR_TAIL = "target stderr (tail):"


def bad_hello(mode: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(BAD_HELLO), "--mode", mode])


# (id, the `run` options after a good --target reference, the option named by the error, a phrase of it)
BAD_INPUTS = [
    ("target-misspelt", ["--target", "refrence"], "target", "did you mean reference?"),
    ("target-exec-empty", ["--target", "exec:"], "target", "no command after 'exec:'"),
    ("target-missing-program", ["--target", "exec:/nonexistent/sim"], "target", "No such file or directory"),
    ("target-exec-false", ["--target", "exec:false"], "target", "exited with code 1"),
    ("target-python-no-module", ["--target", "python:nosuchmod:Sim"], "target", "cannot import module 'nosuchmod'"),
    ("hello-banner", ["--target", bad_hello("banner")], "target", "answer to request 1: not JSON"),
    ("hello-exit", ["--target", bad_hello("exit")], "target", "exited with code 5"),
    ("hello-mid-line", ["--target", bad_hello("mid-line")], "target", "in the middle of the line"),
    ("hello-status-error", ["--target", bad_hello("status")], "target", "hello answer has status 'error'"),
    ("hello-no-status", ["--target", bad_hello("no-status")], "target", "hello answer has status None"),
    ("hello-not-object", ["--target", bad_hello("not-object")], "target", "is a JSON list, not an object"),
    ("hello-products-string", ["--target", bad_hello("products-string")], "target",
     '"products" must be a list of strings'),
    ("hello-validates-yes", ["--target", bad_hello("validates-yes")], "target", '"validates" as true or false'),
    ("hello-garbage-implements", ["--target", bad_hello("garbage-implements")], "target",
     '"implements"[0] must be a non-empty object'),
    ("hello-apis-ints", ["--target", bad_hello("apis-ints")], "target", '"apis" must be a list of strings'),
    ("hello-nested", ["--target", bad_hello("nested")], "target", "JSON nested deeper than 64 levels"),
    ("hello-nul", ["--target", bad_hello("nul")], "target", "NUL character"),
    ("hello-huge", ["--target", bad_hello("huge")], "target", "more than the 65536 accepted"),
    ("hello-implements-nothing", ["--target", bad_hello("implements-nothing")], "target",
     "leaves nothing of the selection"),
    ("hello-unknown-product", ["--target", bad_hello("unknown-product")], "target", "did you mean atlas-a2?"),
    ("hello-python-products-string", ["--target", "python:tests.fixtures.targets.py_fakes:ProductsAsString"],
     "target", '"products" must be a list of strings'),
    ("target-python-file-path", ["--target", "python:./my_target.py:MyTarget"], "target",
     "is a file path; python: takes the dotted name of a module on PYTHONPATH"),
    ("product", ["--product", "atlasa2"], "product", "did you mean atlas-a2?"),
    ("api", ["--api", "Datacopy"], "api", "did you mean DataCopy?"),
    ("reading-set", ["--reading", "devkti"], "reading", "did you mean devkit?"),
    ("reading-alternative", ["--reading", "D13=destination-byte"], "reading", "did you mean destination-bytes?"),
    ("reading-point", ["--reading", "D99=x"], "reading", "unknown disputed point 'D99'"),
    ("profile", ["--profile", "fulll"], "profile", "did you mean full?"),
    ("shard-beyond", ["--shard", "3/2"], "shard", "1 <= I <= N"),
    ("shard-garbage", ["--shard", "half"], "shard", "expected I/N"),
    ("waivers-missing", ["--waivers", "{tmp}/nope.yaml"], "waivers", "cannot read the waiver file"),
    ("waivers-malformed", ["--waivers", "{tmp}/malformed.yaml"], "waivers", "not valid YAML"),
    ("waivers-misspelt-rule", ["--waivers", "{tmp}/misspelt.yaml"], "waivers", "no rule 'DataCopy-blockCnt-max'"),
    ("baseline-missing", ["--baseline", "{tmp}/nope"], "baseline", "no such file or directory"),
    ("baseline-not-results", ["--baseline", "{tmp}/a-file"], "baseline", "no run record"),
    ("report-not-creatable", ["--report", "{tmp}/a-file/out"], "report", "cannot create the directory"),
    ("report-a-file", ["--report", "{tmp}/a-file"], "report", "is a file"),
    ("report-name-too-long", ["--report", "{tmp}/" + "a" * 300], "report", "is 300 bytes long; the file system takes"),
    ("report-not-utf8", ["--report", "{tmp}/bad\udcff"], "report", "bad\\xff is not UTF-8 text"),
    ("seed-negative", ["--seed", "-1"], "seed", "a whole number from 0 to"),
    ("seed-text", ["--seed", "abc"], "seed", "a whole number from 0 to"),
    ("timeout-negative", ["--timeout", "-1"], "timeout", "above 0"),
    ("timeout-zero", ["--timeout", "0"], "timeout", "above 0"),
    ("timeout-nan", ["--timeout", "nan"], "timeout", "not a finite number"),
    ("timeout-inf", ["--timeout", "inf"], "timeout", "not a finite number"),
    ("shrink-seconds-negative", ["--shrink-seconds", "-1"], "shrink_seconds", "0 or more"),
    ("shrink-budget-inf", ["--shrink-budget", "inf"], "shrink_budget", "not a finite number"),
    ("progress", ["--progress", "livee"], "progress", "did you mean live?"),
    ("workers-zero", ["--workers", "0"], "workers", "from 1 to 64"),
    ("workers-negative", ["--workers", "-3"], "workers", "from 1 to 64"),
    ("workers-too-many", ["--workers", "999"], "workers", "from 1 to 64"),
]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """The files the bad inputs name: waiver files and a regular file where a directory is expected."""
    (tmp_path / "malformed.yaml").write_text("- rule: [unclosed\n")
    (tmp_path / "misspelt.yaml").write_text("- rule: DataCopy-blockCnt-max\n  reason: r\n  link: l\n")
    (tmp_path / "a-file").write_text("")
    return tmp_path


def _words(words: list[str], tmp: Path) -> list[str]:
    words = [word.replace("{tmp}", str(tmp)) for word in words]
    return words if words[0] == "--target" else ["--target", "reference", *words]


def _plugin_words(words: list[str]) -> list[str]:
    """The same options as the plugin takes them (`--ascendc-NAME=VALUE`, the seed as --hypothesis-seed)."""
    by_flag = {option.cli_flag: option for option in options.OPTIONS + options.RUN_ONLY}
    return [f"{by_flag[flag].plugin_flag}={value}" for flag, value in zip(words[::2], words[1::2])]


def _assert_one_error_line(stderr: str, prefix: str, flag: str, phrase: str) -> None:
    lines = stderr.strip().splitlines()
    assert lines, "nothing on stderr"
    assert lines[0].startswith(prefix) and f" {flag}: " in lines[0] and phrase in lines[0], lines[0]
    assert lines[1:] == [] or lines[1] == STDERR_TAIL, stderr   # a failed hello: the tail of the target's stderr
    assert "Traceback" not in stderr and "INTERNALERROR" not in stderr


@pytest.mark.parametrize("words, name, phrase", [case[1:] for case in BAD_INPUTS], ids=[c[0] for c in BAD_INPUTS])
def test_run_refuses_a_bad_input_in_one_line(words, name, phrase, files, capfd) -> None:
    code = main(["run", *_words(words, files)])
    out, err = capfd.readouterr()
    assert code == 2 and out == "", out[-2000:]
    _assert_one_error_line(err, "ascendc-conformance", options.named(name).cli_flag, phrase)


PLUGIN_INPUTS = [case for case in BAD_INPUTS if case[2] != "workers"]   # pytest-xdist's own -n, not the plugin's


@pytest.mark.parametrize("words, name, phrase", [case[1:] for case in PLUGIN_INPUTS],
                         ids=[c[0] for c in PLUGIN_INPUTS])
def test_the_plugin_refuses_a_bad_input_in_one_line(words, name, phrase, files, pytester) -> None:
    result = pytester.runpytest_inprocess(*_plugin_words(_words(words, files)), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and result.outlines == [], result.outlines[-20:]
    _assert_one_error_line("\n".join(result.errlines), "ERROR: ", options.named(name).plugin_flag, phrase)


@pytest.mark.parametrize("command", [
    [sys.executable, "-m", "ascendc_conformance", "run", "--target", "reference", "--product", "atlasa2"],
    [sys.executable, "-m", "pytest", "--ascendc-target=reference", "--ascendc-shard=3/2", "-n", "2",
     "-p", "no:cacheprovider"],
], ids=["run", "plugin"])
def test_a_usage_error_is_all_a_process_prints(command, tmp_path: Path) -> None:
    """In a process of its own too: no pytest header, no "no tests ran", no xdist workers started."""
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == (2 if "run" in command else 4) and done.stdout == "", done.stdout[-2000:]
    assert len(done.stderr.strip().splitlines()) == 1 and "error" in done.stderr.lower(), done.stderr


def test_a_hello_that_leaves_nothing_to_run_is_refused_unless_the_selection_is_empty() -> None:
    """An empty selection (atlas-training documents no DataCopyNz2Nd path) is the user's choice, not the
    hello's doing: that run starts (and runs nothing)."""
    target = "python:tests.fixtures.targets.py_fakes:ImplementsNothing"
    refused = RunSession(RunSettings(target=target, products=("atlas-training",), apis=("LoadData2D",)), load_spec())
    with pytest.raises(options.OptionError, match="leaves nothing of the selection") as error:
        refused.start()
    assert error.value.option is options.named("target") and "matches no documented path" in error.value.message
    empty = RunSession(RunSettings(target=target, products=("atlas-training",), apis=("DataCopyNz2Nd",)), load_spec())
    try:
        empty.start()
        assert not empty.selection.planned
    finally:
        empty.close()


def test_run_starts_the_target_once_for_its_checks_and_its_tests(tmp_path: Path) -> None:
    """`run` starts the target to check its hello before pytest, and the plugin takes that target over."""
    starts = tmp_path / "starts"
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           "python:tests.fixtures.targets.py_fakes:CountsStarts", "--product", "atlas-a2", "--api",
                           "DataCopyNz2Nd", "--profile", "quick", "-k", "test_smoke"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "ASCENDC_RECORD_STARTS": str(starts)})
    assert done.returncode == 0, done.stdout[-2000:]
    assert starts.read_text().splitlines() == ["started"]


def test_a_bad_keyword_expression_is_a_usage_error_before_anything_runs(capfd) -> None:
    """A -k expression pytest cannot parse: one line naming -k, exit 2, no header and no verdict (pytest's own
    parser decides: its private API, used by `run` to check -k before pytest starts)."""
    code = main(["run", "--target", "reference", "--product", "atlas-a2", "--api", "LoadData2D", "-k",
                 "test_legal and ("])
    out, err = capfd.readouterr()
    assert code == 2 and out == "", out[-2000:]
    assert len(err.strip().splitlines()) == 1 and "argument -k: " in err and "at column 17" in err, err


def test_the_plugin_prints_no_verdict_for_a_bad_keyword_expression(pytester) -> None:
    result = pytester.runpytest_inprocess("--ascendc-target=reference", "--ascendc-product=atlas-a2",
                                          "--ascendc-api=LoadData2D", "-k", "test_legal and (", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "VERDICT" not in result.stdout.str() and "Wrong expression passed to '-k'" in result.stderr.str()


def test_strict_baseline_needs_a_baseline(capfd) -> None:
    code = main(["run", "--target", "reference", "--strict-baseline"])
    _, err = capfd.readouterr()
    assert code == 2
    _assert_one_error_line(err, "ascendc-conformance", "--strict-baseline", "give the baseline with --baseline")
