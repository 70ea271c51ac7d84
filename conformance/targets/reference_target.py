"""The ``reference`` target: the suite's own numpy model of the APIs, in-process.

`ReferenceTarget` hands the reference the case object itself (no JSON on the way); `ReferenceImpl` is the
reference as a ``python:`` object speaks, case v1 dict in and result v1 dict out: what ``targets.serve``
serves over exec, and what a user's Python target that wraps the reference calls.
"""

from __future__ import annotations

import time
from typing import Any

from ascendc_conformance import reference
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import EXTENSIONS, WIRE_EXTENSIONS, Case, Result
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.targets.base import Target, memory_problem

# the reference checks every access against the case's regions (the harness rule Memory-bounds), and speaks the
# wire extensions (served over exec: regions by their recipes, answers by their digests)
REFERENCE_HELLO = {"name": "reference", "validates": True, "extensions": [*EXTENSIONS, *WIRE_EXTENSIONS],
                   "limits": {"checks_regions": True}}


class ReferenceTarget(Target):
    """The reference model adapted to Target, under the run's spec (its answers are checked against the case
    like any target's)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.hello = Hello.from_dict(dict(REFERENCE_HELLO))

    def execute(self, case: Case) -> Answer:
        started = time.monotonic()
        result = reference.expect(case, self.spec)
        elapsed = time.monotonic() - started
        problem = memory_problem(case, result.memory) if result.memory is not None else None
        if problem is not None:
            return Answer(kind=AnswerKind.ERROR, message=problem, elapsed_s=elapsed)
        return Answer(kind=AnswerKind.RESULT, result=result, elapsed_s=elapsed)


class ReferenceImpl:
    """The reference as an object with hello()/execute(case v1 dict) -> result v1 dict, like any python:
    target; under the packaged spec unless given one (it is an entry point: a user's target calls it)."""

    def __init__(self, spec: Spec | None = None) -> None:
        self.spec = spec if spec is not None else load_spec()

    def hello(self) -> dict[str, Any]:
        return dict(REFERENCE_HELLO)

    def execute(self, case: Any, digest: bool = False) -> dict[str, Any]:
        """The expected result of a case v1 dict (`digest`: its regions as their SHA-256, the wire extension
        region-digest); a malformed case gets {"status": "error", ...}."""
        try:
            parsed = Case.from_json(case)
        except CaseError as error:   # its message may quote the case (a 1 MB product name): cut, as a target's text is
            return Result.error(clip(str(error), TARGET_TEXT_CHARS)).to_json()
        return reference.expect(parsed, self.spec).to_json(digests=digest)
