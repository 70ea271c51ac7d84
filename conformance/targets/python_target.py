"""The ``python:<module>:<attr>`` target: a Python object run in-process.

The object has ``execute(case: dict) -> dict`` returning a result v1 and,
optionally, ``hello() -> dict`` (``{"name": ..., "validates": ...}`` plus
optional "products"/"apis"). Without hello() the target is named after its
spec and claims ``validates: False`` and every product and API.

In-process targets are fast but not isolated: timeouts are NOT enforced (a
hanging execute hangs the run) and a crash of the interpreter takes the suite
down. Serve the object over exec (``exec:python -m ascendc_conformance.targets.serve
python:<module>:<attr>``) to get timeouts and crash isolation.
"""

from __future__ import annotations

import importlib
import time
import traceback
from typing import Any

from ascendc_conformance.format.errors import TargetSpecError, TargetStartError
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello, quoted
from ascendc_conformance.format.case import Case, ResultStatus
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.targets.base import Target, answer_of, json_problem, tail


def load_object(module_name: str, attr: str) -> Any:
    """Import ``module_name``, take ``attr`` (dots allowed), instantiate it if it is a class.

    Raises TargetSpecError for a bad module or attribute or an object without
    execute(), and TargetStartError if the module or the constructor raises.
    """
    spec = f"python:{module_name}:{attr}"
    if "/" in module_name or "\\" in module_name or module_name.endswith(".py"):
        raise TargetSpecError(
            f"{spec!r}: {module_name!r} is a file path; python: takes the dotted name of a module on PYTHONPATH, "
            f"e.g. PYTHONPATH=<its directory> and python:my_target:MyTarget (or exec:python3 <file> for a program)"
        )
    if not module_name or not attr:
        raise TargetSpecError(
            f"{spec!r}: expected python:<module>:<attr>, e.g. python:my_pkg.target:MyTarget"
        )
    try:
        obj: Any = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        if isinstance(exc, ModuleNotFoundError) and exc.name is not None and f"{module_name}.".startswith(
                f"{exc.name}."):  # the module itself, not a dependency
            raise TargetSpecError(
                f"{spec!r}: cannot import module {module_name!r} ({exc}); "
                "check the dotted name and that its directory is on PYTHONPATH"
            ) from exc
        raise TargetStartError(f"{spec!r}: importing {module_name!r} raised {quoted(exc)}", _traceback_tail()) from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise TargetSpecError(f"{spec!r}: {getattr(obj, '__name__', obj)!r} has no attribute {part!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type):
        try:
            obj = obj()
        except (Exception, SystemExit) as exc:
            raise TargetStartError(f"{spec!r}: {attr}() raised {quoted(exc)}", _traceback_tail()) from exc
    if not callable(getattr(obj, "execute", None)):
        raise TargetSpecError(f"{spec!r}: the object {quoted(obj)} has no execute(case) method")
    return obj


def object_hello(obj: Any, default_name: str) -> dict[str, Any]:
    """The hello dict of an object: its hello() if it has one, else a default."""
    if not callable(getattr(obj, "hello", None)):
        return {"name": default_name, "validates": False}
    raw = obj.hello()
    if not isinstance(raw, dict):
        raise NotAHello(f"hello() returned a {type(raw).__name__}, not a dict")
    return raw


class NotAHello(ValueError):
    """What an object's hello() returned is not a hello dict (its own code did not fail)."""


def _traceback_tail() -> str:
    return tail(traceback.format_exc())


class PythonTarget(Target):
    """An in-process object with execute(case v1 dict) -> result v1 dict, adapted to Target: the case is
    written as JSON data and the answer read back, as over the exec wire, without the pipe."""

    def __init__(self, obj: Any, *, name: str) -> None:
        self.obj = obj
        try:
            raw = object_hello(obj, name)
        except NotAHello as exc:
            raise TargetStartError(f"target {name!r} failed its hello: {exc}") from None
        except (Exception, SystemExit) as exc:   # the target's own code raised: its traceback is the clue
            raise TargetStartError(f"target {name!r} failed its hello: {clip(str(exc), TARGET_TEXT_CHARS)}",
                                   _traceback_tail()) from exc
        try:
            if raw.get("status", ResultStatus.OK) != ResultStatus.OK:
                raise ValueError(f'hello() returned status {quoted(raw.get("status"))}, not "ok"')
            self.hello = Hello.from_dict(raw)
        except ValueError as exc:   # what it returned is not a hello: the message says what, no traceback
            raise TargetStartError(f"target {name!r} failed its hello: {clip(str(exc), TARGET_TEXT_CHARS)}") from None

    def execute(self, case: Case) -> Answer:
        """Call the object's execute with the case v1 dict (a fresh one: the object cannot alter the case, as an
        exec target cannot); an exception is a "crashed" Answer with its traceback, an answer that is not JSON
        data (what no exec target could send) or not a valid result an "error" Answer."""
        started = time.monotonic()
        try:
            raw = self.obj.execute(case.to_json())
        except (Exception, SystemExit) as exc:
            return Answer(
                kind=AnswerKind.CRASHED,
                message=f"execute raised {clip(traceback.format_exception_only(exc)[-1].strip(), TARGET_TEXT_CHARS)}",
                elapsed_s=time.monotonic() - started,
                stderr_tail=_traceback_tail(),
            )
        elapsed = time.monotonic() - started
        problem = json_problem(raw)
        if problem is not None:
            return Answer(kind=AnswerKind.ERROR, message=problem, elapsed_s=elapsed)
        return answer_of(case, raw, elapsed)
