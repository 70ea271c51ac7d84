"""The ``reference`` target: the suite's own numpy model of the APIs, in-process.

``reference.expect(case) -> result`` is imported only when this target is
opened, so the adapters import (and other targets run) without it.
"""

from __future__ import annotations

from typing import Any

from conformance.errors import TargetStartError
from conformance.targets.python_target import PythonTarget

REFERENCE_HELLO = {"name": "reference", "validates": True}


class ReferenceImpl:
    """The reference as an object with hello()/execute(), like any python: target."""

    def __init__(self) -> None:
        try:
            from reference import expect
        except ImportError as exc:
            raise TargetStartError(f"the reference model is not importable: {exc}") from exc
        self._expect = expect

    def hello(self) -> dict[str, Any]:
        return dict(REFERENCE_HELLO)

    def execute(self, case: dict[str, Any]) -> dict[str, Any]:
        return self._expect(case)


class ReferenceTarget(PythonTarget):
    """The reference model adapted to Target (answers are validated like any target's)."""

    def __init__(self) -> None:
        super().__init__(ReferenceImpl(), name="reference")
