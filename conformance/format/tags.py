"""The tags a generated case carries (case `tags`, counted per test in results.jsonl), built and read here only.

A tag says what a case exercises: `path:<label>` and `form:<name>` of its path, `hit:<rule>` for each range
rule whose field it sets, `boundary:<rule>:min|max` when that field sits on a bound, `fault:<rule>` for the
rule a single fault breaks, `twin:<rule>` for each rule a counterfactual twin puts right. The strategies write
them, the suite shows some as Hypothesis events, and the coverage report counts them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ascendc_conformance.format.words import BoundSide, Word


class TagKind(Word):
    PATH = "path"           # the documented path (product-API-src->dst-dtype)
    FORM = "form"           # the parameter form
    HIT = "hit"             # a range rule whose field the case sets
    BOUNDARY = "boundary"   # a range rule's bound the case sits on
    FAULT = "fault"         # the rule a single-fault case breaks
    TWIN = "twin"           # a rule (or declared limit) a counterfactual twin puts right (strategies.twins)

    @property
    def is_event(self) -> bool:
        """Shown as a Hypothesis event (`hit` tags are too many to be useful there)."""
        return self is not TagKind.HIT


@dataclass(frozen=True)
class Tag:
    kind: TagKind
    subject: str                    # the path label, the form name, or the rule id
    side: BoundSide | None = None   # a boundary tag's bound

    def __str__(self) -> str:
        return f"{self.kind}:{self.subject}" + (f":{self.side}" if self.side is not None else "")

    @staticmethod
    @lru_cache(maxsize=4096)   # a run reads the same few hundred tags on every case
    def parse(text: str) -> "Tag | None":
        """The tag spelt `text`; None for a text that is not one of the suite's tags."""
        kind, _, rest = text.partition(":")
        try:
            kind = TagKind(kind)
        except ValueError:
            return None
        if kind is TagKind.BOUNDARY:
            subject, _, side = rest.rpartition(":")
            try:
                return Tag(kind, subject, BoundSide(side))
            except ValueError:
                return None
        return Tag(kind, rest) if rest else None


def path(label: str) -> str:
    return str(Tag(TagKind.PATH, label))


def form(name: str) -> str:
    return str(Tag(TagKind.FORM, name))


def hit(rule: str) -> str:
    return str(Tag(TagKind.HIT, rule))


def boundary(rule: str, side: BoundSide) -> str:
    return str(Tag(TagKind.BOUNDARY, rule, side))


def fault(rule: str) -> str:
    return str(Tag(TagKind.FAULT, rule))


def twin(rule: str) -> str:
    return str(Tag(TagKind.TWIN, rule))
