"""The ``reference`` target: the suite's own numpy model of the APIs, in-process.

"""

from __future__ import annotations

from typing import Any

from ascendc_conformance.format.case import EXTENSIONS
from ascendc_conformance.targets.python_target import PythonTarget
from ascendc_conformance.reference import expect

# the reference checks every access against the case's regions (the harness rule Memory-bounds)
REFERENCE_HELLO = {"name": "reference", "validates": True, "extensions": list(EXTENSIONS),
                   "limits": {"checks_regions": True}}


class ReferenceImpl:
    """The reference as an object with hello()/execute(), like any python: target."""

    def __init__(self) -> None:
        self._expect = expect

    def hello(self) -> dict[str, Any]:
        return dict(REFERENCE_HELLO)

    def execute(self, case: dict[str, Any]) -> dict[str, Any]:
        return self._expect(case)


class ReferenceTarget(PythonTarget):
    """The reference model adapted to Target (answers are validated like any target's)."""

    def __init__(self) -> None:
        super().__init__(ReferenceImpl(), name="reference")
