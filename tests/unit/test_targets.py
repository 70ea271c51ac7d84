"""Tests of the target adapters (ascendc_conformance.targets) against small fake targets.

The fake exec targets live in tests/fixtures/targets/ and are run with this
interpreter; timeouts are kept short so the file runs in a few seconds.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.format.errors import ConformanceError, TargetSpecError, TargetStartError
from ascendc_conformance.format.answer import AnswerKind
from ascendc_conformance.targets import Answer, Hello, Target, open_target
from ascendc_conformance.format.case import Case, Result
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.targets.base import memory_problem
from ascendc_conformance.targets.exec_target import ExecTarget, Heard, _Process

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fixtures" / "targets"
TIMEOUT = 0.5


def fake_argv(script: str, *args: str) -> list[str]:
    return [sys.executable, str(FAKES / script), *args]


def fake_spec(script: str, *args: str) -> str:
    return "exec:" + shlex.join(fake_argv(script, *args))


SPEC = load_spec()


def make_case(tag: int = 0) -> Case:
    """A DataCopy GM -> VECIN case with a 64-byte GM and a 64-byte UB region."""
    gm = bytes((i * 7 + tag) % 256 for i in range(64))
    return Case.from_json({
        "case_format": 1,
        "api": "DataCopy",
        "product": "atlas-a2",
        "src": {"position": "GM", "dtype": "half", "address": 0},
        "dst": {"position": "VECIN", "dtype": "half", "address": 0},
        "params": {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
        "memory": {
            "GM": {"address": 0, "data": base64.b64encode(gm).decode()},
            "UB": {"address": 0, "data": base64.b64encode(bytes(64)).decode()},
        },
    })


def python_path(*dirs: Path) -> str:
    """PYTHONPATH for child processes: dirs first, then whatever was set already."""
    return os.pathsep.join([*map(str, dirs), *filter(None, [os.environ.get("PYTHONPATH")])])


def echoed(case: Case) -> Result:
    return Result.ok(case.memory)


@pytest.fixture
def targets():
    """Open targets through this and they are closed after the test."""
    opened: list[Target] = []

    def open_(spec: str, **kwargs) -> Target:
        target = open_target(spec, SPEC, **kwargs)
        opened.append(target)
        return target

    yield open_
    for target in opened:
        target.close()


@pytest.fixture
def fakes_on_path(monkeypatch):
    """Make py_fakes importable here and in child processes (serve)."""
    monkeypatch.syspath_prepend(str(FAKES))
    monkeypatch.setenv("PYTHONPATH", python_path(ROOT, FAKES))


# --- exec: good target, hello, supports -------------------------------------


def test_echo_target_answers_result(targets):
    target = targets(fake_spec("fake_echo.py"), timeout=TIMEOUT)
    assert target.hello.name == "echo"
    assert target.hello.validates is False
    assert target.hello.products is None and target.hello.apis is None
    for tag in range(3):
        case = make_case(tag)
        answer = target.execute(case)
        assert answer.kind is AnswerKind.RESULT, answer.message
        assert answer.result == echoed(case)
        assert answer.elapsed_s > 0
        assert answer.message == "" and answer.stderr_tail == ""


def test_supports_follows_hello(targets):
    target = targets(
        fake_spec("fake_echo.py", "--validates", "--products", "atlas-a2,atlas-a3", "--apis", "DataCopy"),
        timeout=TIMEOUT,
    )
    assert target.hello.validates is True
    assert target.hello.products == ("atlas-a2", "atlas-a3")
    assert target.hello.apis == ("DataCopy",)
    assert target.supports("atlas-a2", "DataCopy")
    assert target.supports("atlas-a3", "DataCopy")
    assert not target.supports("atlas-300i", "DataCopy")
    assert not target.supports("atlas-a2", "DataCopyPad")


def test_unrestricted_hello_supports_everything(targets):
    target = targets(fake_spec("fake_echo.py"), timeout=TIMEOUT)
    assert target.supports("anything", "AnyApi")


def test_context_manager_stops_the_process():
    with open_target(fake_spec("fake_echo.py"), SPEC, timeout=TIMEOUT) as target:
        popen = target._slots[0].process.popen
        assert target.execute(make_case()).kind is AnswerKind.RESULT
    assert popen.poll() is not None


# --- exec: timeout and crash, then restart ----------------------------------


def test_timeout_kills_and_next_case_is_answered(targets):
    target = targets(fake_spec("fake_hang.py", "--on", "2"), timeout=TIMEOUT)
    cases = [make_case(i) for i in range(4)]
    first = target.execute(cases[0])
    hung = target.execute(cases[1])
    third = target.execute(cases[2])
    assert first.kind is AnswerKind.RESULT and first.result == echoed(cases[0])
    assert hung.kind is AnswerKind.TIMEOUT
    assert hung.result is None
    assert f"no answer within {TIMEOUT:g} s" in hung.message
    assert "hanging on case 2" in hung.stderr_tail
    assert TIMEOUT <= hung.elapsed_s < TIMEOUT + 2
    assert third.kind is AnswerKind.RESULT and third.result == echoed(cases[2])
    # The restarted process counts cases afresh: its 2nd case hangs again.
    assert target.execute(cases[3]).kind is AnswerKind.TIMEOUT
    assert first.kind is AnswerKind.RESULT and first.result == echoed(cases[0])  # earlier answers kept


def test_crash_reports_exit_code_and_stderr_then_restarts(targets):
    target = targets(fake_spec("fake_exit.py"), timeout=TIMEOUT)
    cases = [make_case(i) for i in range(3)]
    first = target.execute(cases[0])
    crashed = target.execute(cases[1])
    third = target.execute(cases[2])
    assert first.kind is AnswerKind.RESULT and first.result == echoed(cases[0])
    assert crashed.kind is AnswerKind.CRASHED
    assert "exited with code 3" in crashed.message
    assert "giving up on case 2" in crashed.stderr_tail
    assert third.kind is AnswerKind.RESULT and third.result == echoed(cases[2])


def test_hello_is_not_repeated_on_a_running_process(targets):
    target = targets(fake_spec("fake_exit.py"), timeout=TIMEOUT)
    hello = target.hello
    target.execute(make_case())
    target.execute(make_case())  # crash
    target.execute(make_case())  # restart (with a new hello) and answer
    assert target.hello is hello


# --- exec: several requests in flight, several processes ------------------------


def test_answers_out_of_order_are_matched_by_id(targets):
    """Requests go out before the answers come back; a target answering them in another order is matched by
    the ids: every case gets its own answer, in the order of the cases."""
    target = targets(fake_spec("fake_reorder.py"), timeout=5)
    cases = [make_case(i) for i in range(5)]
    answers = list(target.execute_many(cases))
    assert [case for case, _ in answers] == cases
    assert [answer.result.memory for _, answer in answers] == [case.memory for case in cases]
    assert any("answered before request" in answer.result.message for _, answer in answers)


def test_the_cases_are_shared_by_the_target_processes(targets):
    target = open_target(fake_spec("fake_echo.py"), SPEC, timeout=5, processes=3)
    try:
        cases = [make_case(i) for i in range(12)]
        assert [answer.result for _, answer in target.execute_many(cases)] == [echoed(case) for case in cases]
        assert len({slot.process.popen.pid for slot in target._slots}) == 3
    finally:
        target.close()


def test_a_crash_is_the_oldest_requests_and_the_others_are_sent_again(targets):
    """fake_exit answers its first case and exits on its second: with all four cases in flight, the second
    crashes the process, the third and fourth are sent again to a new one, whose second case (the fourth)
    crashes it again."""
    target = targets(fake_spec("fake_exit.py"), timeout=5)
    cases = [make_case(i) for i in range(4)]
    kinds = [answer.kind for _, answer in target.execute_many(cases)]
    assert kinds == [AnswerKind.RESULT, AnswerKind.CRASHED, AnswerKind.RESULT, AnswerKind.CRASHED]


def test_an_answer_written_before_the_target_stopped_reading_comes_before_the_failed_write():
    """A program that answers one request and exits: a request written after its exit fails (EPIPE), but the
    answer it wrote before is still in its stdout and is the answer to the first request, not a crash (a race
    that failed the test above about one run in six)."""
    program = [sys.executable, "-c", "import sys; sys.stdin.readline(); print('{\"id\": 1}', flush=True)"]
    process = _Process(program, max_line_bytes=1 << 20)
    try:
        process.send({"id": 1})
        process.popen.wait(5)
        process.send({"id": 2})   # nobody reads it: the write fails
        heard = [item for item, _ in process.inbox]
        assert heard[:1] == [Heard.LINE] and Heard.WRITE_FAILED in heard, heard
    finally:
        process.stop(polite=False)


def test_stopping_early_leaves_no_answer_to_be_taken_for_a_later_one(targets):
    target = targets(fake_spec("fake_echo.py"), timeout=5)
    answers = target.execute_many([make_case(i) for i in range(6)])
    next(answers)
    answers.close()   # five requests were in flight
    later = make_case(9)
    assert target.execute(later).result == echoed(later)


# --- exec: protocol errors ----------------------------------------------------


def test_non_json_line_is_an_error_and_target_restarts(targets):
    target = targets(fake_spec("fake_nonjson.py"), timeout=TIMEOUT)
    for _ in range(2):
        answer = target.execute(make_case())
        assert answer.kind is AnswerKind.ERROR
        assert "answer to request" in answer.message and ": not JSON" in answer.message
        assert "debug: copying 2 blocks" in answer.message
        assert answer.result is None


def test_wrong_id_is_an_error(targets):
    target = targets(fake_spec("fake_wrong_id.py"), timeout=TIMEOUT)
    answer = target.execute(make_case())
    assert answer.kind is AnswerKind.ERROR
    assert answer.message == "answer to request 2 has the id 1002"
    # The restarted process numbers answers the same wrong way.
    assert target.execute(make_case()).message == "answer to request 4 has the id 1004"


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("wrong-length", "answer memory region 'GM' decodes to 65 bytes, the case region has 64"),
        ("missing-region", "answer memory lacks region(s) ['GM'] of the case"),
        ("extra-region", "answer memory has region(s) ['L1'] that the case does not have"),
        ("wrong-address", "answer memory region 'GM' has address 32, the case has 0"),
        ("bad-base64", "answer memory region 'GM' data is not valid base64"),
        ("not-object", "answer to request 2 is a JSON list, not an object"),
        ("no-id", 'answer to request 2 has no "id"'),
        ("no-status", 'answer has no "status"'),
        ("unknown-status", "answer has unknown status 'fine'"),
        ("rejected-no-rules", 'answer with status "rejected" has no "rules" list'),
    ],
)
def test_malformed_answer_is_an_error_with_a_precise_message(targets, mode, expected):
    target = targets(fake_spec("fake_bad_answer.py", "--mode", mode), timeout=TIMEOUT)
    answer = target.execute(make_case())
    assert answer.kind is AnswerKind.ERROR
    assert expected in answer.message
    assert answer.result is None
    assert target.execute(make_case()).kind is AnswerKind.ERROR  # still answering after it


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("nested", "answer to request 2: JSON nested deeper than 64 levels"),
        ("nul", "answer to request 2: holds a NUL character"),
        ("status-list", "answer has unknown status ['ok']"),
        ("nan", "answer to request 2: NaN is not JSON"),
    ],
)
def test_an_answer_the_suite_cannot_read_is_the_targets_error(targets, mode, expected):
    """Never an exception of the suite's (a RecursionError, a TypeError, the utf-32 codec)."""
    answer = targets(fake_spec("fake_bad_answer.py", "--mode", mode), timeout=TIMEOUT).execute(make_case())
    assert answer.kind is AnswerKind.ERROR and answer.message.startswith(expected), answer.message


def test_an_exit_in_the_middle_of_an_answer_line_is_a_crash(targets):
    target = targets(fake_spec("fake_bad_answer.py", "--mode", "mid-line"), timeout=TIMEOUT)
    answer = target.execute(make_case())
    assert answer.kind is AnswerKind.CRASHED, answer.message
    assert "in the middle of the line" in answer.message and "exited with code 7" in answer.message
    assert "exiting in the middle of an answer" in answer.stderr_tail


def test_endless_line_is_an_error_not_a_hang():
    with ExecTarget(
        fake_argv("fake_bad_answer.py", "--mode", "endless-line"), timeout=5, max_line_bytes=1 << 20
    ) as target:
        answer = target.execute(make_case())
    assert answer.kind is AnswerKind.ERROR
    assert answer.message == f"answer to request 2: the line is longer than {1 << 20} bytes"
    assert answer.elapsed_s < 5


# --- exec: failing start -------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("garbage", "answer to request 1: not JSON"),
        ("exit", "exited with code 5"),
        ("hang", "no answer within 0.5 s"),
        ("status", "hello answer has status 'error'"),
        ("no-name", 'hello answer needs "name"'),
    ],
)
def test_failing_hello_raises_start_error_with_stderr(mode, expected):
    with pytest.raises(TargetStartError) as info:
        open_target(fake_spec("fake_bad_hello.py", "--mode", mode), SPEC, timeout=TIMEOUT, start_timeout=TIMEOUT)
    assert expected in info.value.message
    assert f"failing hello with mode {mode}" in info.value.stderr_tail
    assert info.value.stderr_tail in str(info.value)


def test_missing_program_raises_start_error():
    with pytest.raises(TargetStartError, match="cannot start target"):
        open_target("exec:/nonexistent/target-binary --flag", SPEC)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("exec:", "no command after 'exec:'"),
        ("exec:   ", "no command after 'exec:'"),
        ("exec:'unbalanced", "cannot split the command line"),
        ("ftp:somewhere", "unknown target spec"),
        ("referenc", "unknown target spec"),
    ],
)
def test_bad_spec_raises_spec_error(spec, expected):
    with pytest.raises(TargetSpecError, match=expected):
        open_target(spec, SPEC)


def test_target_errors_are_conformance_errors():
    assert issubclass(TargetSpecError, ConformanceError)
    assert issubclass(TargetStartError, ConformanceError)


# --- python: targets -------------------------------------------------------------


@pytest.mark.usefixtures("fakes_on_path")
def test_python_target_good(targets):
    target = targets("python:py_fakes:Good")
    assert target.hello.name == "py-good" and target.hello.validates is True
    assert target.supports("atlas-a2", "DataCopy")
    assert not target.supports("atlas-a2", "Copy")
    case = make_case()
    answer = target.execute(case)
    assert answer.kind is AnswerKind.RESULT and answer.result == echoed(case)


@pytest.mark.usefixtures("fakes_on_path")
def test_python_target_without_hello_gets_default_hello(targets):
    target = targets("python:py_fakes:NoHello")
    assert (target.hello.name, target.hello.validates) == ("py_fakes:NoHello", False)
    assert target.supports("any", "Api")


@pytest.mark.usefixtures("fakes_on_path")
def test_python_target_object_attribute(targets):
    answer = targets("python:py_fakes:rejecting").execute(make_case())
    assert answer.kind is AnswerKind.RESULT
    assert answer.result.status == "rejected"
    assert answer.result.rules == ("DataCopy.blockLen.range",)


@pytest.mark.usefixtures("fakes_on_path")
def test_python_target_exception_is_crashed_with_traceback(targets):
    target = targets("python:py_fakes:Raising")
    answer = target.execute(make_case())
    assert answer.kind is AnswerKind.CRASHED
    assert answer.message == "execute raised RuntimeError: device on fire"
    assert "Traceback" in answer.stderr_tail and "device on fire" in answer.stderr_tail
    assert target.execute(make_case()).kind is AnswerKind.CRASHED  # still usable


@pytest.mark.usefixtures("fakes_on_path")
def test_python_target_gets_a_copy_and_is_validated(targets):
    case = make_case()
    before = case.to_json()
    answer = targets("python:py_fakes:Mutating").execute(case)
    assert case.to_json() == before
    assert answer.kind is AnswerKind.ERROR
    assert answer.message == "answer memory lacks region(s) ['GM', 'UB'] of the case"


@pytest.mark.usefixtures("fakes_on_path")
@pytest.mark.parametrize(("answer", "expected"), [
    (["not", "a", "dict"], "answer is a list, not a JSON object"),
    ({"status": {"ok"}}, "answer.status is a set, not a JSON value"),
    ({"status": "rejected", "rules": [], "cost": float("nan")}, "answer.cost is nan, not a JSON number"),
    ({"status": "ok", "memory": {1: {}}}, "answer.memory has the key 1, not a string"),
])
def test_a_python_answer_that_is_not_json_data_is_the_targets_error(targets, answer, expected, monkeypatch):
    import py_fakes
    monkeypatch.setattr(py_fakes.NoHello, "execute", lambda self, case: answer)
    result = targets("python:py_fakes:NoHello").execute(make_case())
    assert result.kind is AnswerKind.ERROR and result.message == expected


@pytest.mark.usefixtures("fakes_on_path")
@pytest.mark.parametrize(
    ("spec", "error", "expected"),
    [
        ("python:py_fakes:Missing", TargetSpecError, "has no attribute 'Missing'"),
        ("python:py_fakes", TargetSpecError, "expected python:<module>:<attr>"),
        ("python:no_such_module_xyz:Target", TargetSpecError, "cannot import module 'no_such_module_xyz'"),
        ("python:py_fakes:not_a_target", TargetSpecError, "has no execute"),
        ("python:py_fakes:BrokenInit", TargetStartError, "cannot open device"),
        ("python:py_fakes:ExitsInHello", TargetStartError, "failed its hello: no licence"),
    ],
)
def test_python_target_spec_problems(spec, error, expected):
    with pytest.raises(error, match=expected):
        open_target(spec, SPEC)


# --- serve: python objects over exec ---------------------------------------------


def serve_spec(inner: str) -> str:
    return "exec:" + shlex.join([sys.executable, "-m", "ascendc_conformance.targets.serve", inner])


@pytest.mark.usefixtures("fakes_on_path")
def test_serve_exposes_python_target_over_exec(targets):
    target = targets(serve_spec("python:py_fakes:Good"), timeout=5)
    assert target.hello.name == "py-good" and target.hello.apis == ("DataCopy",)
    case = make_case()
    answer = target.execute(case)
    assert answer.kind is AnswerKind.RESULT and answer.result == echoed(case)


@pytest.mark.usefixtures("fakes_on_path")
def test_serve_turns_exception_into_crash_and_restarts(targets):
    target = targets(serve_spec("python:py_fakes:Raising"), timeout=5)
    for _ in range(2):
        answer = target.execute(make_case())
        assert answer.kind is AnswerKind.CRASHED
        assert "exited with code 1" in answer.message
        assert "RuntimeError: device on fire" in answer.stderr_tail


@pytest.mark.usefixtures("fakes_on_path")
def test_serve_answers_malformed_requests_and_continues():
    requests = [
        "this is not json",
        "[1, 2]",
        json.dumps({"id": 7, "op": "dance"}),
        json.dumps({"id": 8, "op": "execute"}),
        json.dumps({"id": 9, "op": "hello", "protocol": 2}),
        json.dumps({"id": 10, "op": "hello", "protocol": 1}),
        json.dumps({"id": 11, "op": "execute", "case": make_case().to_json()}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "ascendc_conformance.targets.serve", "python:py_fakes:Good"],
        input="\n".join(requests) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [None, None, 7, 8, 9, 10, 11]
    assert [a["status"] for a in answers] == ["error"] * 5 + ["ok", "ok"]
    assert "not JSON" in answers[0]["message"]
    assert "unknown op 'dance'" in answers[2]["message"]
    assert "unsupported protocol 2" in answers[4]["message"]
    assert answers[5]["name"] == "py-good"


@pytest.mark.usefixtures("fakes_on_path")
def test_serve_reads_requests_through_the_bounded_loader():
    """A request nested 100,000 deep, a line of NUL bytes or of bytes that are not UTF-8 each get an error
    answer naming the line, and the requests after them are served."""
    requests = [b"[" * 100_000 + b"]" * 100_000, b"\0" * 8, b"\xff\xfe{}", json.dumps({"id": 4, "op": "hello",
                                                                                       "protocol": 1}).encode()]
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance.targets.serve", "python:py_fakes:Good"],
                          input=b"\n".join(requests) + b"\n", capture_output=True, timeout=30, check=True)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a["id"], a["status"]) for a in answers] == [(None, "error")] * 3 + [(4, "ok")]
    assert answers[0]["message"] == "request line 1: JSON nested deeper than 64 levels"
    assert answers[1]["message"].startswith("request line 2: holds a NUL character")
    assert answers[2]["message"].startswith("request line 3: not UTF-8 text")


def test_serve_rejects_exec_spec():
    done = subprocess.run(
        [sys.executable, "-m", "ascendc_conformance.targets.serve", "exec:true"],
        capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 2 and "cannot serve" in done.stderr


# --- reference -----------------------------------------------------------------


def _require_reference() -> None:
    reference = pytest.importorskip("reference")
    if not callable(getattr(reference, "expect", None)):
        pytest.skip("reference.expect is not written yet")


def test_reference_target_in_process_and_over_exec(targets, monkeypatch):
    _require_reference()
    monkeypatch.setenv("PYTHONPATH", python_path(ROOT))
    in_process = targets("reference")
    served = targets(serve_spec("reference"), timeout=30)
    assert (in_process.hello.name, in_process.hello.validates) == ("reference", True)
    assert served.hello.name == "reference"
    case = make_case()
    local, remote = in_process.execute(case), served.execute(case)
    assert local.kind is AnswerKind.RESULT, local.message
    assert remote.kind is AnswerKind.RESULT, remote.message
    assert local.result == remote.result
    assert memory_problem(case, local.result.memory) is None


def test_answer_is_immutable():
    answer = Answer(kind=AnswerKind.RESULT, result=Result.error("x"))
    with pytest.raises(AttributeError):
        answer.kind = "error"  # type: ignore[misc]


def test_hello_capabilities_narrow_what_a_target_supports() -> None:
    hello = Hello.from_dict({"name": "t", "validates": True, "products": ["atlas-a2"],
                             "implements": [{"api": "DataCopy", "src": "GM", "dst": "VECIN"},
                                            {"api": "LoadData2D", "dtype": "half"}],
                             "excludes": [{"form": "count"}, {"dst_dtype": "float"}]})
    assert hello.supports("atlas-a2", "DataCopy", src="GM", dst="VECIN", dtype="int8_t", dst_dtype="int8_t",
                          form="params")
    assert not hello.supports("atlas-a2", "DataCopy", src="GM", dst="VECIN", dtype="int8_t", dst_dtype="int8_t",
                              form="count")                       # excluded form
    assert not hello.supports("atlas-a2", "DataCopy", src="GM", dst="A1", dtype="half", dst_dtype="half",
                              form="params")                      # not implemented
    assert hello.supports("atlas-a2", "LoadData2D", src="GM", dst="A1", dtype="half", dst_dtype="half", form="params")
    assert not hello.supports("atlas-a3", "LoadData2D", src="GM", dst="A1", dtype="half", dst_dtype="half",
                              form="params")                      # product not claimed
    assert not hello.supports("atlas-a2", "DataCopy", src="GM", dst="VECIN", dtype="half", dst_dtype="float",
                              form="params")                      # excluded destination dtype
    plain = Hello.from_dict({"name": "t", "validates": True})
    assert plain.supports("any", "Api", src="x", dst="y", dtype="z", dst_dtype="z", form="f")


@pytest.mark.parametrize("raw, phrase", [
    ({"implements": {"api": "DataCopy"}}, '"implements" must be a list of objects'),
    ({"implements": [{"route": "GM->VECIN"}]}, "unknown key(s) route"),
    ({"excludes": [{"api": 3}]}, "values must be strings"),
    ({"excludes": [{}]}, "must be a non-empty object"),
])
def test_malformed_hello_capabilities_are_refused(raw: dict, phrase: str) -> None:
    with pytest.raises(ValueError, match=re.escape(phrase)):
        Hello.from_dict({"name": "t", "validates": True, **raw})
