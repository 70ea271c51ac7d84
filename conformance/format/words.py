"""`Word`: the base of every enum whose members are words of the suite's files (JSON, YAML, report formats)."""
from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # typing.Self from Python 3.11 on
    from typing_extensions import Self


class Word(str, Enum):
    """An enum member that is its spelling: it compares, hashes and prints as that string, so a record read
    back from JSON (a plain "ok") finds the member's entries in a dict or set, and json writes it as is."""

    def __str__(self) -> str:
        return self.value

    __hash__ = str.__hash__   # the string's own (C) hash: a dict keyed by members is asked it on every case

    @classmethod
    def parse(cls, text: object, what: str | None = None) -> Self:
        """The member spelt `text`; ValueError naming `what` (default: the class's name) and the spellings known."""
        try:
            return cls(text)
        except ValueError:
            known = ", ".join(member.value for member in cls)
            raise ValueError(f"unknown {what or cls.__name__} {text!r}; expected one of {known}") from None


class BoundSide(Word):
    """Which bound of a range rule: its minimum or its maximum."""

    MIN = "min"
    MAX = "max"
