"""Target adapters: turn a target spec string into a started ``Target``.

Spec strings:

* ``reference`` - the built-in numpy reference, in-process;
* ``exec:<command line>`` - a program in any language speaking the exec
  protocol (JSON lines on stdin/stdout), started once and reused;
* ``python:<module>:<attr>`` - a Python object (a class is instantiated with
  no arguments) with ``execute(case: dict) -> dict`` and optionally ``hello()``.
"""

from __future__ import annotations

import shlex
from typing import Any

from ascendc_conformance.format.defaults import CASE_TIMEOUT_S
from ascendc_conformance.format.errors import TargetSpecError, did_you_mean
from ascendc_conformance.format.answer import Answer, Hello
from ascendc_conformance.targets.base import Target
from ascendc_conformance.targets.exec_target import ExecTarget
from ascendc_conformance.targets.python_target import PythonTarget, load_object
from ascendc_conformance.targets.reference_target import ReferenceImpl, ReferenceTarget
from ascendc_conformance.spec.model import Spec

__all__ = ["Answer", "Hello", "Target", "open_target", "load_in_process", "EXEC_SCHEME"]

SPEC_HELP = "use 'reference', 'exec:<command line>' or 'python:<module>:<attr>'"
EXEC_SCHEME = "exec:"


def open_target(target: str, spec: Spec, *, timeout: float = CASE_TIMEOUT_S, start_timeout: float | None = None,
                processes: int = 1) -> Target:
    """Start the target named by ``target`` and do its hello; ``spec`` is the run's (the reference answers
    under it).

    ``timeout`` bounds each case of an exec target (in-process targets are not
    timed out); ``start_timeout`` bounds an exec target's start and hello
    (default: ``timeout``); ``processes`` instances of
    an exec target share the cases given to ``execute_many`` (an in-process
    target has one). Raises TargetSpecError for an unusable spec and
    TargetStartError when the target fails to start. The products its hello names may be ids or aliases, as
    the command line's --product (resolved here through the spec).
    """
    started = _start(target, spec, timeout=timeout, start_timeout=start_timeout, processes=processes)
    started.hello = started.hello.naming_products(spec.resolve_product)   # `910B` in a hello, as on the CLI
    return started


def _start(target: str, spec: Spec, *, timeout: float, start_timeout: float | None, processes: int) -> Target:
    scheme, _, rest = target.partition(":")
    if target == "reference":
        return ReferenceTarget(spec)
    if scheme == "exec":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise TargetSpecError(f"{target!r}: cannot split the command line: {exc}") from exc
        if not argv:
            raise TargetSpecError(f"{target!r}: no command after 'exec:', e.g. exec:./my_target --flag")
        return ExecTarget(argv, timeout=timeout, start_timeout=start_timeout, processes=processes)
    if scheme == "python":
        module_name, _, attr = rest.partition(":")
        return PythonTarget(load_object(module_name, attr), name=rest)
    hint = did_you_mean(scheme, ("exec", "python")) if rest else did_you_mean(target, ("reference",))
    raise TargetSpecError(f"unknown target spec {target!r}{hint}; {SPEC_HELP}")


def load_in_process(target: str) -> tuple[Any, str]:
    """The raw object (with execute/hello) and name behind an in-process target spec.

    Used by ``ascendc_conformance.targets.serve`` to expose that object over exec
    without the adapter's validation, so the exec side sees its real answers.
    """
    if target == "reference":
        return ReferenceImpl(), "reference"
    scheme, _, rest = target.partition(":")
    if scheme == "python":
        module_name, _, attr = rest.partition(":")
        return load_object(module_name, attr), rest
    raise TargetSpecError(f"cannot serve {target!r} in-process; use 'reference' or 'python:<module>:<attr>'")
