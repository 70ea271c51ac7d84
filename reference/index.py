"""What the reference looks up in the spec on every call, computed once per spec object.

The spec is immutable once loaded, so the rules that apply to an (API, product), the routes it documents,
the form matching a set of parameter keys and what a case's names resolve to never change; `for_spec(spec)`
keeps them in a table tied to that spec object (dropped with it), so a call costs dictionary lookups instead
of scans of every path and rule.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from ascendc_conformance.spec.model import Form, Rule, Spec

_TABLES: dict[int, tuple[weakref.ref[Spec], "SpecIndex"]] = {}


def for_spec(spec: Spec) -> "SpecIndex":
    entry = _TABLES.get(id(spec))
    if entry is None or entry[0]() is not spec:
        index = SpecIndex(weakref.proxy(spec))
        key = id(spec)

        def forget(_ref: weakref.ref[Spec]) -> None:
            _TABLES.pop(key, None)
        _TABLES[key] = (weakref.ref(spec, forget), index)
        return index
    return entry[1]


@dataclass
class SpecIndex:
    spec: Spec
    _rules: dict[tuple[str, str], tuple[Rule, ...]] = field(default_factory=dict)
    _routes: dict[tuple[str, str], frozenset[tuple[str, str]]] = field(default_factory=dict)
    _forms: dict[tuple[Any, ...], tuple[Form, ...]] = field(default_factory=dict)
    # (api, product, src position, dst position, src dtype, dst dtype, form) -> reference.legality._Checks
    path_checks: dict[tuple[str, ...], Any] = field(default_factory=dict)
    # a case's names and parameter and memory keys -> reference.call.Signature (the Call fields they decide)
    signatures: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def rules_for(self, api: str, product: str) -> tuple[Rule, ...]:
        """spec.rules_for(api, product), in the same order."""
        key = (api, product)
        rules = self._rules.get(key)
        if rules is None:
            rules = self._rules[key] = self.spec.rules_for(api, product)
        return rules

    def has_route(self, api: str, product: str, src: str, dst: str) -> bool:
        """spec.has_route(api, product, src, dst)."""
        key = (api, product)
        routes = self._routes.get(key)
        if routes is None:
            routes = self._routes[key] = frozenset(path.route for path in self.spec.paths(product, api))
        return (src, dst) in routes

    def forms_with_keys(self, api: str, keys: tuple[str, ...]) -> tuple[Form, ...]:
        """The API's forms whose fields are exactly `keys` (as a set), in the spec's order."""
        key = (api, keys)
        forms = self._forms.get(key)
        if forms is None:
            wanted = set(keys)
            forms = self._forms[key] = tuple(form for form in self.spec.apis[api].forms.values()
                                             if set(form.fields) == wanted)
        return forms
