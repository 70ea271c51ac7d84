"""What a target declares it validates (hello `validates`): every rule, none, or the rules of some kinds and some
rule ids.

An intrinsic-level simulator checks parameter ranges, alignments and capacities but leaves dtypes, routes and
transposes to a library above it: with `validates: true` it would fail the fault tests of the checks it lacks by
design, with `validates: false` it would get no fault test at all. It may narrow the declaration instead:

    "validates": true                                     every rule (as before)
    "validates": false                                    none: no case it would have to reject is sent (as before)
    "validates": {"kinds": ["range", "alignment", "capacity"], "rules": ["LoadData2D-transpose-route"]}

— the rules of the kinds listed (spec rule kinds: conformance/format/schema/hello-v1.schema.json `$defs.rule_kind`,
the spec's RuleKind) and the rule ids listed, at least one of either. The fault tests of every other rule are not
sent (skip reason `not-validated`) and the certification lists what is not certified (`not_certified`). A rule
of the test harness (Memory-bounds) is governed by `limits.checks_regions` alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Collection, Iterable

from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.schemas import schema
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import did_you_mean

WHERE = 'hello answer "validates"'


@lru_cache(maxsize=None)
def rule_kinds() -> tuple[str, ...]:
    """The rule kinds a declaration may name: the hello schema's list (tests/unit/test_validation.py holds it to
    the spec's RuleKind)."""
    return tuple(schema("hello-v1")["$defs"]["rule_kind"]["enum"])


@dataclass(frozen=True)
class Validation:
    """`kinds`: the rule kinds it checks (None: every kind); `rules`: rule ids it checks besides them."""

    kinds: frozenset[str] | None = None
    rules: frozenset[str] = frozenset()

    @classmethod
    def everything(cls) -> "Validation":
        return cls()

    @classmethod
    def nothing(cls) -> "Validation":
        return cls(kinds=frozenset())

    @property
    def any(self) -> bool:
        """It rejects some illegal calls (`validates` is not false)."""
        return self.kinds is None or bool(self.kinds) or bool(self.rules)

    @property
    def narrowed(self) -> bool:
        """It declares only some kinds or rules."""
        return self.kinds is not None and self.any

    def covers(self, rule_id: str, kind: str) -> bool:
        """Whether the target validates the rule `rule_id` (of kind `kind`, a RuleKind value)."""
        return self.kinds is None or kind in self.kinds or rule_id in self.rules

    def not_certified(self, rules: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
        """Of `rules` ((id, kind) of the rules a run's selection tests), the kinds and the ids the declaration does
        not cover: what the certification says it does not certify (empty lists: everything it tests)."""
        missed = sorted((rule_id, kind) for rule_id, kind in rules if not self.covers(rule_id, kind))
        return {"kinds": sorted({kind for _, kind in missed}), "rules": [rule_id for rule_id, _ in missed]}

    def unknown_rules(self, known: Collection[str]) -> tuple[str, ...]:
        """The rule ids it names that are not in `known` (the spec's): a misspelling the run warns about."""
        return tuple(sorted(rule for rule in self.rules if rule not in known))

    def to_json(self) -> bool | dict[str, Any]:
        if not self.narrowed:
            return self.any
        return {key: sorted(value) for key, value in (("kinds", self.kinds), ("rules", self.rules)) if value}

    @classmethod
    def from_json(cls, raw: Any) -> "Validation":
        """The declaration of a hello's `validates`; ValueError naming the field and what it accepts."""
        if isinstance(raw, bool):
            return cls.everything() if raw else cls.nothing()
        accepted = (f'"validates" as true or false, or as an object with "kinds" (some of {", ".join(rule_kinds())}) '
                    f'and/or "rules" (rule ids)')
        if not isinstance(raw, dict):
            raise ValueError(f"hello answer needs {accepted}, got {clip(repr(raw), TARGET_TEXT_CHARS)}")
        unknown = sorted(set(raw) - {"kinds", "rules"})
        if unknown or not raw:
            what = f"has unknown key(s) {clip(', '.join(map(repr, unknown)), 200)}" if unknown else "is an empty object"
            raise ValueError(f"{WHERE} {what}; expected {accepted}")
        lists = {}
        for key in ("kinds", "rules"):
            value = raw.get(key, [])
            if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
                raise ValueError(f"{WHERE}.{key} must be a list of non-empty strings, got "
                                 f"{clip(repr(value), TARGET_TEXT_CHARS)}")
            lists[key] = frozenset(value)
        wrong = sorted(lists["kinds"] - set(rule_kinds()))
        if wrong:
            raise ValueError(f"{WHERE}.kinds: unknown rule kind {clip(repr(wrong[0]), 200)}"
                             f"{did_you_mean(wrong[0], rule_kinds())}; expected some of {', '.join(rule_kinds())}")
        if not lists["kinds"] and not lists["rules"]:
            raise ValueError(f'{WHERE} names no kind and no rule; say false if it validates nothing, or name '
                             f'"kinds" or "rules"')
        return cls(kinds=lists["kinds"], rules=lists["rules"])
