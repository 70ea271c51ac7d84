"""Errors raised while loading the spec: each names the file, the line, the key and what was expected."""
from __future__ import annotations

from dataclasses import dataclass

from ascendc_conformance.format.errors import ConformanceError


@dataclass(frozen=True)
class SpecIssue:
    """One problem in one spec file."""

    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        key = f" at '{self.key}'" if self.key else ""
        return f"{where}{key}: {self.message}"


class SpecError(ConformanceError):
    """The spec is broken; `issues` lists every problem found, not just the first."""

    def __init__(self, issues: list[SpecIssue]) -> None:
        self.issues = list(issues)
        super().__init__("\n".join(str(issue) for issue in self.issues))
