"""What a target says: its Hello when it starts, and one Answer per case it is asked to execute.

Adapters (ascendc_conformance.targets) turn every way a target can misbehave into an Answer of a fixed kind,
so the judge never has to care about pipes or exceptions.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Callable

from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import Result
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.validation import Validation

HELLO_CHARS = 64 * 1024
"""Largest hello accepted, as JSON text: the run record, report.json and the header keep it whole."""


def quoted(value: Any) -> str:
    """A value a target sent, shown in a message: its repr, cut to TARGET_TEXT_CHARS."""
    return clip(repr(value), TARGET_TEXT_CHARS)


class AnswerKind(Enum):
    """What came back from one execute call."""

    RESULT = "result"     # a well-formed result v1 (the target's own {"status": "error"} included)
    TIMEOUT = "timeout"   # no answer in time
    CRASHED = "crashed"   # the target died
    ERROR = "error"       # an answer that is not a valid result v1

    @property
    def outcome(self) -> Outcome:
        """The verdict of an answer that is not a result (a result is judged against the reference)."""
        if self is AnswerKind.RESULT:
            raise ValueError("a result is judged against the reference; it has no fixed outcome")
        return Outcome(self.value)


CAPABILITY_KEYS = ("product", "api", "src", "dst", "dtype", "dst_dtype", "form")
"""What an entry of hello's `implements` / `excludes` may name: product id, API, source and destination
TPosition, source dtype (`dtype`), destination dtype and call form (count, params, …)."""


@dataclass(frozen=True)
class Capability:
    """One entry of hello's `implements` or `excludes`: every key it names must match; the others match anything."""

    keys: tuple[tuple[str, str], ...]

    @classmethod
    def from_json(cls, raw: Any, where: str) -> Capability:
        if not isinstance(raw, dict) or not raw:
            raise ValueError(f"{where} must be a non-empty object with some of {', '.join(CAPABILITY_KEYS)}, "
                             f"got {quoted(raw)}")
        unknown = sorted(set(raw) - set(CAPABILITY_KEYS))
        if unknown:
            raise ValueError(f"{where} has unknown key(s) {clip(', '.join(unknown), TARGET_TEXT_CHARS)}; "
                             f"expected {', '.join(CAPABILITY_KEYS)}")
        bad = {key: value for key, value in raw.items() if not isinstance(value, str)}
        if bad:
            raise ValueError(f"{where} values must be strings, got {quoted(bad)}")
        return cls(tuple(sorted(raw.items())))

    def matches(self, subject: dict[str, str | None]) -> bool:
        return all(subject.get(key) == value for key, value in self.keys)


@dataclass(frozen=True)
class Hello:
    """What a target said about itself when it started.

    ``products``/``apis`` are None when the target did not restrict itself, meaning it claims to support every
    product/API. ``implements`` (None: everything) and ``excludes`` narrow that down to routes, dtypes and
    forms; a test outside them is `not-supported`. ``extensions``: the case-format extensions it handles
    (format.case.EXTENSIONS; cases that need another are never sent to it) and the wire extensions it speaks
    (format.case.WIRE_EXTENSIONS: regions by recipe, answers by digest). ``limits``: where it declares
    that it stays inside the spec (format.limits). ``validates``: whether it rejects illegal calls at all;
    ``validation``: which rules (format.validation: every rule, or those of some kinds and ids).
    """

    name: str
    validates: bool
    products: tuple[str, ...] | None
    apis: tuple[str, ...] | None
    raw: dict[str, Any]
    implements: tuple[Capability, ...] | None = None
    excludes: tuple[Capability, ...] = ()
    extensions: tuple[str, ...] = ()
    limits: Limits = Limits()
    validation: Validation = Validation()

    def validates_rule(self, rule_id: str, kind: str) -> bool:
        """Whether the target checks the rule `rule_id` (of kind `kind`, a RuleKind value): it validates, and its
        declaration covers the rule."""
        return self.validates and self.validation.covers(rule_id, kind)

    def naming_products(self, product_id: Callable[[str], str | None]) -> Hello:
        """The hello with every product it names (in `products`, `implements` and `excludes`) by its id:
        `product_id` resolves an id or alias (`910B` -> `atlas-a2`) as the spec does for --product; a name it
        does not know stays as it is (the run then says it is none of the spec's)."""
        def resolved(name: str) -> str:
            return product_id(name) or name

        def capability(entry: Capability) -> Capability:
            return Capability(tuple((key, resolved(value) if key == "product" else value) for key, value in entry.keys))
        return replace(self, products=None if self.products is None else tuple(resolved(p) for p in self.products),
                       implements=None if self.implements is None else tuple(map(capability, self.implements)),
                       excludes=tuple(map(capability, self.excludes)))

    def claims(self, product: str, api: str) -> bool:
        """Whether the target claims this product and API at all (its `products` and `apis`)."""
        return (self.products is None or product in self.products) and (self.apis is None or api in self.apis)

    def supports(self, product: str, api: str, **route: str | None) -> bool:
        """Whether the target claims this product and API and, given `route` (src, dst, dtype, dst_dtype,
        form), that path: inside `implements` (when given) and outside `excludes`."""
        if (self.products is not None and product not in self.products) or (self.apis is not None
                                                                            and api not in self.apis):
            return False
        subject = {"product": product, "api": api, **route}
        if self.implements is not None and not any(entry.matches(subject) for entry in self.implements):
            return False
        return not any(entry.matches(subject) for entry in self.excludes)

    @classmethod
    def from_dict(cls, raw: Any) -> Hello:
        """Build a Hello from a hello answer; raise ValueError saying what is wrong.

        "id" and "status" are not looked at here (the exec adapter checks them).
        """
        if not isinstance(raw, dict):
            raise ValueError(f"hello answer is a {type(raw).__name__}, not a JSON object")
        try:
            size = len(json.dumps(raw, allow_nan=False))
        except (TypeError, ValueError, RecursionError) as error:   # an in-process target's hello() may return anything
            raise ValueError(f"hello answer is not JSON data ({clip(str(error), TARGET_TEXT_CHARS)})") from None
        if size > HELLO_CHARS:
            raise ValueError(f"hello answer is {size} characters of JSON, more than the {HELLO_CHARS} accepted")
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f'hello answer needs "name" as a non-empty string, got {quoted(name)}')
        validation = Validation.from_json(raw.get("validates"))
        implements = raw.get("implements")
        return cls(
            name=name,
            validates=validation.any,
            validation=validation,
            products=_optional_names(raw, "products"),
            apis=_optional_names(raw, "apis"),
            raw=raw,
            implements=None if implements is None else _capabilities(raw, "implements"),
            excludes=_capabilities(raw, "excludes"),
            extensions=_optional_names(raw, "extensions") or (),
            limits=Limits.from_json(raw.get("limits")),
        )


def _capabilities(raw: dict[str, Any], key: str) -> tuple[Capability, ...]:
    value = raw.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f'hello answer "{key}" must be a list of objects, got {quoted(value)}')
    return tuple(Capability.from_json(entry, f'hello answer "{key}"[{index}]') for index, entry in enumerate(value))


def _optional_names(raw: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f'hello answer "{key}" must be a list of strings, got {quoted(value)}')
    return tuple(value)


@dataclass(frozen=True)
class Answer:
    """The outcome of one execute call.

    kind "result": the target gave a well-formed result v1 whose regions are the case's (``result``, its
    memory decoded); a target answering ``{"status": "error"}`` itself is still a result.
    kind "timeout" / "crashed": the target did not answer in time / died.
    kind "error": the target answered, but not with a valid result v1;
    ``message`` says exactly what was wrong.
    ``digests``: each region of the result holds the SHA-256 of the target's bytes (32 bytes), not the bytes: the
    answer to a request that asked for them (the wire extension region-digest, a pack run's).
    """

    kind: AnswerKind
    result: Result | None = None
    message: str = ""
    elapsed_s: float = 0.0
    stderr_tail: str = ""
    digests: bool = False
