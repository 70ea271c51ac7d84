"""Which rules of the spec a call breaks, before any byte is moved.

Generic kinds (route, dtype, form, range, multiple, alignment) are decided here from the rule data alone;
`relation` rules are decided by the API module named in `reference.apis`, beside the API's semantics.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from reference.call import Call
from spec.model import Rule

# A relation check returns a sentence describing the breach, or None when the rule holds.
Relation = Callable[[Call, Rule], "str | None"]


@dataclass(frozen=True)
class Breach:
    """A rule the call breaks; `disputed_by` names a disputed rule under whose alternative it would not."""

    rule: Rule
    detail: str
    disputed_by: str | None = None


def static_breaches(call: Call, relations: dict[str, Relation]) -> list[Breach]:
    """Every rule of the API (and common ones) the call breaks, judged from its parameters and operands."""
    breaches = []
    route_ok = _route_ok(call)
    rules = call.spec.rules_for(call.api.name, call.product.id)
    for rule in rules:
        detail = _judge(call, rule, route_ok, relations)
        if detail is not None:
            disputed_by = _route_extension(call, rules) if rule.kind == "route" else None
            breaches.append(Breach(rule, detail, disputed_by))
    return breaches


def _route_extension(call: Call, rules: tuple[Rule, ...]) -> str | None:
    """A disputed rule whose alternative reading documents this route on this product (e.g. D19)."""
    route = (call.case.src.position, call.case.dst.position)
    return next((rule.id for rule in rules if rule.kind == "route" and route in rule.routes), None)


def _route_ok(call: Call) -> bool:
    case = call.case
    return (call.src_memory is not None and call.dst_memory is not None
            and call.spec.has_route(call.api.name, call.product.id, case.src.position, case.dst.position))


def _path(call: Call):
    case = call.case
    return call.spec.find_path(call.api.name, call.product.id, case.src.position, case.dst.position,
                               case.src.dtype, case.dst.dtype)


def _judge(call: Call, rule: Rule, route_ok: bool, relations: dict[str, Relation]) -> str | None:
    case = call.case
    route = f"{case.src.position} -> {case.dst.position}"
    if rule.kind == "route":
        if rule.routes:  # a disputed extension, consulted through _route_extension
            return None
        return None if route_ok else f"{route} is not a documented {call.api.name} path on {call.product.id}"
    if rule.kind == "dtype":
        if not route_ok:
            return None
        path = _path(call)
        if rule.status == "documented":
            return None if path else (f"{case.src.dtype} -> {case.dst.dtype} is not documented for "
                                      f"{route} on {call.product.id}")
        return f"{path.label} depends on {rule.id}" if path and rule.id in path.depends_on else None
    if rule.kind == "form":
        path = _path(call)
        if path is None or call.form.name in path.forms:
            return None
        return f"the {call.form.name} form is not documented for {path.label} (documented: {', '.join(path.forms)})"
    if rule.kind in ("range", "multiple"):
        value = call.params.get(rule.field)
        if value is None or isinstance(value, (list, dict)):
            return None
        if rule.kind == "multiple":
            return None if value % rule.multiple == 0 else f"{rule.field} = {value} is not a multiple of {rule.multiple}"
        if rule.min is not None and value < rule.min:
            return f"{rule.field} = {value} < {rule.min}"
        if rule.max is not None and value > rule.max:
            return f"{rule.field} = {value} > {rule.max}"
        return None
    if rule.kind == "alignment":
        return _alignment(call, rule)
    if rule.kind == "relation":
        check = relations.get(rule.check)
        if check is None:
            raise NotImplementedError(f"rule {rule.id} ({rule.file}:{rule.line}) names check '{rule.check}', "
                                      f"which the {call.api.name} reference does not define")
        return check(call, rule)
    return None  # bounds, capacity, overlap and semantics rules are judged while planning the transfer


def _alignment(call: Call, rule: Rule) -> str | None:
    for name in rule.operands:
        operand = call.operand(name)
        if not rule.where.covers(operand.position):
            continue
        align = call.dtype(name).size if rule.bytes == "sizeof" else rule.bytes
        if operand.address % align:
            return f"{name} address {operand.address} in {operand.position} is not {align}-byte aligned"
    return None
