"""Fuzz the boundary with targets and the command line (issues 19 and 20): exec answer lines, target answers,
hellos, `expect -` streams and option values, generated malformed. Each input is refused with a specific
one-line message, never a traceback; a bad line or answer costs only itself (nothing lost); every message is
of bounded size. Seeded (derandomized) and bounded: a few seconds in all."""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import shlex
import sys
from functools import partial
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascendc_conformance import reference
from ascendc_conformance.cli.commands.expect_cmd import expect_stream, expected_json
from ascendc_conformance.cli.main import build_parser
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.defaults import PROFILES, TARGET_TEXT_CHARS
from ascendc_conformance.format.case import Case
from ascendc_conformance.judge.verdict import judge
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.runner import options
from ascendc_conformance.targets.base import json_problem, read_result
from ascendc_conformance.targets.exec_target import AnswerFailure, ExecTarget, answer_object
from tests.helpers.casebuild import illegal_case, legal_case

ROOT = Path(__file__).resolve().parents[2]
GARBAGE_ONCE = ROOT / "tests" / "fixtures" / "targets" / "fake_garbage_once.py"
FUZZ = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MESSAGE_CHARS = 3 * TARGET_TEXT_CHARS   # the suite's words around what a target said, itself cut
RUN_PARSER = build_parser()


HELLO = Hello.from_dict({"name": "fuzz", "validates": True})
SPEC = load_spec()
CASES = [(case, reference.expect(case, SPEC)) for case in map(Case.from_json, (legal_case(), illegal_case()))]

# --- inputs ----------------------------------------------------------------------------------------------

long_text = st.one_of(st.text(max_size=40), st.integers(0, 300_000).map(lambda n: "m" * n))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | long_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)
garbage_lines = st.one_of(      # one answer line's bytes, without its newline
    st.binary(max_size=300),
    json_values.map(lambda value: json.dumps(value).encode()),
    st.integers(65, 20_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(65, 20_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(1, 300).map(lambda n: b"\0" * n),
    st.sampled_from([b"NaN", b"[Infinity]", b'{"id": 1e400}', b"1" * 5000, b"\xff\xfe{}", b"\xc3(", b"",
                     b'{"id": 7, "status": NaN}', b'{"id": true}', b'{"id": 7.0}', b'{"id": "7"}']),
).map(lambda line: line.replace(b"\n", b" "))


def _one_line_of_bounded_size(message: str) -> None:
    assert message and "\n" not in message and len(message) < MESSAGE_CHARS, message[:300]


# --- exec answer lines -------------------------------------------------------------------------------------

@FUZZ
@given(line=garbage_lines)
def test_an_exec_answer_line_is_an_answer_or_the_targets_error(line: bytes) -> None:
    try:
        answer = answer_object(line + b"\n", 7)
    except AnswerFailure as failure:
        assert failure.kind is AnswerKind.ERROR and failure.message.startswith("answer to request 7")
        _one_line_of_bounded_size(failure.message)
    else:
        assert answer["id"] == 7
        problem = read_result(Case.from_json(legal_case()), answer)
        assert isinstance(problem, str)
        _one_line_of_bounded_size(problem)


answers = st.one_of(json_values, st.fixed_dictionaries({}, optional={
    "status": st.one_of(st.sampled_from(["ok", "rejected", "error", "unspecified"]), json_values),
    "rules": st.one_of(st.lists(long_text, max_size=3), json_values),
    "message": st.one_of(long_text, json_values),
    "depends_on": st.lists(st.text(max_size=20), max_size=2),
    "memory": st.one_of(st.just(legal_case()["memory"]), json_values),
}))


@FUZZ
@given(answer=answers, which=st.sampled_from(range(len(CASES))))
def test_any_answer_is_judged_or_refused_with_a_bounded_message(answer, which: int) -> None:
    """Validation never raises; a valid result is judged (never an exception of the suite's), and the verdict's
    message holds at most TARGET_TEXT_CHARS of each text of the target's."""
    case, expected = CASES[which]
    result = json_problem(answer) or read_result(case, answer)
    if isinstance(result, str):
        _one_line_of_bounded_size(result)
        return
    verdict = judge(case, expected, Answer(kind=AnswerKind.RESULT, result=result), HELLO, spec=SPEC)
    first, *rest = verdict.message.splitlines()
    _one_line_of_bounded_size(first)


@settings(FUZZ, max_examples=8)
@given(line=garbage_lines)
def test_an_exec_target_answering_garbage_once_keeps_every_other_answer(line: bytes) -> None:
    """The garbage costs its own case (an error, the program restarted); the cases before and after it are
    answered."""
    argv = [sys.executable, str(GARBAGE_ONCE), "--line", line.hex(), "--on", "2"]
    with ExecTarget(argv, timeout=10) as target:
        got = [target.execute(Case.from_json(legal_case())) for _ in range(3)]
    assert [answer.kind for answer in got] == [AnswerKind.RESULT, AnswerKind.ERROR, AnswerKind.RESULT], shlex.join(argv)
    _one_line_of_bounded_size(got[1].message)


# --- hellos ----------------------------------------------------------------------------------------------------

hellos = st.one_of(json_values, st.fixed_dictionaries({}, optional={
    key: st.one_of(json_values, strategy) for key, strategy in {
        "name": long_text, "validates": st.booleans(), "products": st.lists(st.text(max_size=12), max_size=3),
        "apis": st.lists(st.sampled_from(["DataCopy", "LoadData2D", "Datacopy"]), max_size=2),
        "implements": st.lists(st.dictionaries(st.sampled_from(["api", "src", "route", "dtype"]), json_values,
                                               max_size=2), max_size=2),
        "excludes": st.lists(st.dictionaries(st.sampled_from(["form", "dst"]), st.text(max_size=5)), max_size=2),
        "extensions": st.lists(st.text(max_size=20), max_size=2),
    }.items()}))


@FUZZ
@given(raw=hellos)
def test_a_hello_is_read_or_refused_in_one_line(raw) -> None:
    try:
        hello = Hello.from_dict(raw)
    except ValueError as error:
        assert str(error).startswith("hello answer")
        _one_line_of_bounded_size(str(error))
    else:
        assert isinstance(hello.name, str) and isinstance(hello.validates, bool)
        assert len(json.dumps(hello.raw)) <= 64 * 1024


# --- expect - ------------------------------------------------------------------------------------------------

stream_lines = st.lists(st.one_of(
    st.sampled_from([json.dumps(case.to_json()).encode() for case, _ in CASES]),
    garbage_lines,
    st.sampled_from([b"", b"   "])), max_size=8)


@FUZZ
@given(lines=stream_lines)
def test_expect_answers_every_line_of_a_stream_in_order(lines: list[bytes]) -> None:
    """One result per non-blank line, in order; a case gets the reference's result, any other line an error
    naming its line, of a size bounded by the line's own."""
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()) as err:
        assert expect_stream(io.TextIOWrapper(io.BytesIO(b"\n".join(lines) + b"\n"), encoding="utf-8"), out,
                             partial(expected_json, spec=SPEC, reading=SPEC.seed_reading)) == 0
    assert "Traceback" not in err.getvalue()
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    results = [json.loads(text) for text in out.getvalue().splitlines()]
    assert len(results) == len(numbered)
    expected = {json.dumps(case.to_json()).encode(): result.to_json() for case, result in CASES}
    for (number, line), result in zip(numbered, results):
        if line in expected:
            assert result == expected[line]
        elif result["status"] == "error":
            assert result["message"].startswith(f"line {number}: ")
            assert len(result["message"]) < len(line) + 300


# --- option values -------------------------------------------------------------------------------------------

VALUE_CHECKS = {
    "timeout": lambda v: isinstance(v, float) and math.isfinite(v) and v > 0,
    "shrink_seconds": lambda v: isinstance(v, float) and math.isfinite(v) and v >= 0,
    "shrink_budget": lambda v: isinstance(v, float) and math.isfinite(v) and v >= 0,
    "seed": lambda v: type(v) is int and 0 <= v <= options.MAX_SEED,
    "workers": lambda v: type(v) is int and 1 <= v <= options.MAX_WORKERS,
    "shard": lambda v: 1 <= options.parse_shard(v)[0] <= options.parse_shard(v)[1],
    "profile": lambda v: v in PROFILES,
    "progress": lambda v: v in options.PROGRESS_MODES,
}
values = st.one_of(
    st.text(max_size=30), st.floats().map(repr), st.integers(-10**30, 10**30).map(str),
    st.tuples(st.integers(-3, 12), st.integers(-3, 12)).map(lambda pair: f"{pair[0]}/{pair[1]}"),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "0", "-0", "1/0", "3/2", " 1", "1_0", "full ", "CI", "9" * 5000]))


@FUZZ
@given(name=st.sampled_from(sorted(VALUE_CHECKS)), text=values)
def test_an_option_value_is_in_its_range_or_refused_in_one_line(name: str, text: str) -> None:
    """The same check for `run` (argparse) and the plugin (RunOption.value): a value in its range, or one line
    naming the option and what is accepted."""
    option = options.named(name)
    try:
        value = option.parse(text)
    except argparse.ArgumentTypeError as error:
        assert len(str(error)) < 300 and "\n" not in str(error)
        with contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                RUN_PARSER.parse_args(["run", "--target", "reference", f"{option.cli_flag}={text}"])
            except SystemExit as exit_:
                assert exit_.code == 2
            else:
                raise AssertionError(f"run accepted {option.cli_flag}={text!r}")
        line, = err.getvalue().strip().splitlines()
        assert f"argument {option.cli_flag}: " in line and "Traceback" not in line
        if option.pytest_flag is None:
            try:
                option.value(text)
            except options.OptionError as refused:
                assert refused.text(option.plugin_flag).startswith(f"{option.plugin_flag}: ")
            else:
                raise AssertionError(f"the plugin accepted {option.plugin_flag}={text!r}")
    else:
        assert VALUE_CHECKS[name](value), (text, value)
