"""Which rules of the spec a call breaks, before any byte is moved.

Generic kinds (route, dtype, form, range, multiple, alignment) are decided here from the rule data alone;
`relation` rules are decided by the API module named in `reference.apis`, beside the API's semantics.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ascendc_conformance.reference.api_contract import Relation
from ascendc_conformance.reference.call import Call
from ascendc_conformance.reference.index import SpecIndex, for_spec
from ascendc_conformance.spec.model import Path, Rule, RuleKind, Status


@dataclass(frozen=True)
class Breach:
    """A rule the call breaks; `disputed_by` names a disputed rule under whose alternative it would not."""

    rule: Rule
    detail: str
    disputed_by: str | None = None
    value: int | None = None   # the parameter's value, for a range rule (a reading may move its bounds)

    def illegal(self, call: Call) -> bool:
        """Whether this breach makes the call illegal under the call's reading."""
        return call.reading.illegal(self.rule, call.product.id, call.route, self.value, self.disputed_by)

    @property
    def disputed(self) -> str | None:
        """The disputed or vendor-only rule the breach's outcome hinges on, if any."""
        return self.disputed_by or (self.rule.id if not self.rule.status.firm else None)


def static_breaches(call: Call, relations: Mapping[str, Relation]) -> list[Breach]:
    """Every rule of the API (and common ones) the call breaks, judged from its parameters and operands.

    What depends only on the path and form — the route, dtype and form verdicts, and which alignment each
    alignment rule asks of which operand — is worked out once (`_Checks`, kept per path in the SpecIndex);
    a call then only compares its values. The list is in the spec's rule order either way."""
    index = for_spec(call.spec)
    case = call.case
    key = (call.api.name, call.product.id, case.src.position, case.dst.position, case.src.dtype, case.dst.dtype,
           call.form.name)
    checks = index.path_checks.get(key)
    if checks is None:
        checks = index.path_checks[key] = _Checks.of(call, index, relations)
    found = list(checks.fixed)
    params = call.params
    for position, rule, field, kind, low, high, multiple in checks.ranges:
        value = params[field]
        if kind is RuleKind.MULTIPLE:
            if value % multiple:
                found.append((position, Breach(rule, f"{field} = {value} is not a multiple of {multiple}")))
        elif low is not None and value < low:
            found.append((position, Breach(rule, f"{field} = {value} < {low}", value=value)))
        elif high is not None and value > high:
            found.append((position, Breach(rule, f"{field} = {value} > {high}", value=value)))
    for position, rule, demands in checks.alignments:
        for name, align in demands:
            operand = case.src if name == "src" else case.dst
            if operand.address % align:
                found.append((position, Breach(rule, f"{name} address {operand.address} in {operand.position} "
                                                     f"is not {align}-byte aligned")))
                break
    for position, rule in checks.relations:
        detail = relations[rule.relation](call, rule)   # every check name is there (reference.apis.module_for)
        if detail is not None:
            found.append((position, Breach(rule, detail)))
    if len(found) > 1:
        found.sort(key=lambda item: item[0])
    return [breach for _, breach in found]


@dataclass(frozen=True)
class _Checks:
    """The rules of one path and form, sorted for judging: the breaches already known (route, dtype, form),
    the range and multiple rules on the form's scalar parameters (position, rule, field, kind, min, max,
    multiple), the alignment rules with the (operand, bytes) each asks here, and the relation rules;
    positions index the spec's rule order."""

    fixed: tuple[tuple[int, Breach], ...]
    ranges: tuple[tuple[Any, ...], ...]
    alignments: tuple[tuple[int, Rule, tuple[tuple[str, int], ...]], ...]
    relations: tuple[tuple[int, Rule], ...]

    @classmethod
    def of(cls, call: Call, index: SpecIndex, relations: Mapping[str, Relation]) -> "_Checks":
        rules = index.rules_for(call.api.name, call.product.id)
        route_ok = _route_ok(call, index)
        path = _path(call)
        fixed, ranges, alignments, related = [], [], [], []
        for position, rule in enumerate(rules):
            if rule.kind.path_only:
                detail = _judge(call, rule, route_ok, path)
                if detail is not None:
                    disputed_by = _route_extension(call, rules) if rule.kind is RuleKind.ROUTE else None
                    fixed.append((position, Breach(rule, detail, disputed_by)))
            elif rule.kind in (RuleKind.RANGE, RuleKind.MULTIPLE):
                field = call.form.fields.get(rule.param)
                if field is not None and field.array_of is None:   # a scalar parameter of this form
                    ranges.append((position, rule, rule.field, rule.kind, rule.min, rule.max, rule.multiple))
            elif rule.kind is RuleKind.ALIGNMENT:
                demands = tuple((name, rule.alignment(call.dtype(name)))
                                for name in rule.operands if rule.where.covers(call.operand(name).position))
                if demands:
                    alignments.append((position, rule, demands))
            elif rule.kind is RuleKind.RELATION:
                related.append((position, rule))
            # bounds, capacity, overlap and semantics rules are judged while planning the transfer
        return cls(tuple(fixed), tuple(ranges), tuple(alignments), tuple(related))


def _route_extension(call: Call, rules: tuple[Rule, ...]) -> str | None:
    """A disputed rule whose alternative reading documents this route on this product (e.g. D19)."""
    route = (call.case.src.position, call.case.dst.position)
    return next((rule.id for rule in rules if rule.kind is RuleKind.ROUTE and route in rule.routes), None)


def _route_ok(call: Call, index: SpecIndex) -> bool:
    case = call.case
    return (call.src_memory is not None and call.dst_memory is not None
            and index.has_route(call.api.name, call.product.id, case.src.position, case.dst.position))


def _path(call: Call) -> Path | None:
    case = call.case
    return call.spec.find_path(call.api.name, call.product.id, case.src.position, case.dst.position,
                               case.src.dtype, case.dst.dtype)


def _judge(call: Call, rule: Rule, route_ok: bool, path: Path | None) -> str | None:
    """The breach of a route, dtype or form rule (these depend on the path and form alone)."""
    case = call.case
    route = f"{case.src.position} -> {case.dst.position}"
    if rule.kind is RuleKind.ROUTE:
        if rule.routes:  # a disputed extension, consulted through _route_extension
            return None
        return None if route_ok else f"{route} is not a documented {call.api.name} path on {call.product.id}"
    if rule.kind is RuleKind.DTYPE:
        if not route_ok:
            return None
        if rule.status is Status.DOCUMENTED:
            return None if path else (f"{case.src.dtype} -> {case.dst.dtype} is not documented for "
                                      f"{route} on {call.product.id}")
        return f"{path.label} depends on {rule.id}" if path and rule.id in path.depends_on else None
    if rule.kind is RuleKind.FORM:
        if path is None or call.form.name in path.forms:
            return None
        return f"the {call.form.name} form is not documented for {path.label} (documented: {', '.join(path.forms)})"
    return None
