"""The smoke phase (strategies.smoke): every route and form, fault rule and reachable bound once (on its first
group of routes; never a reach test), APIs first."""
from __future__ import annotations

from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.boundaries import Reach, boundaries
from ascendc_conformance.strategies.faults import faults
from ascendc_conformance.strategies.legal import contexts, select_paths
from ascendc_conformance.strategies.smoke import RouteForm, smoke_tests

SPEC = load_spec()


def test_the_smoke_phase_holds_one_test_of_everything_the_selection_has() -> None:
    paths, all_faults, all_bounds = select_paths(SPEC), faults(SPEC), boundaries(SPEC)
    smoke = smoke_tests(SPEC, paths, all_faults, all_bounds)
    forms = {(c.product.id, c.api.name, c.src, c.dst, c.form) for c in contexts(SPEC, paths)}
    legal = [s.item for s in smoke if isinstance(s.item, RouteForm)]
    assert {(r.first.product.id, r.first.api.name, r.first.src, r.first.dst, r.first.form) for r in legal} == forms
    assert len(legal) == len(forms)
    assert all({(c.product.id, c.api.name, c.src, c.dst, c.form) for c in r.contexts} == {
        (r.first.product.id, r.first.api.name, r.first.src, r.first.dst, r.first.form)} for r in legal)
    rules = {f.id.rsplit(":", 1)[0] for f in all_faults}
    assert sorted(s.item.id.rsplit(":", 1)[0] for s in smoke if s.id.startswith("illegal:")) == sorted(rules)
    bounds = [s.item for s in smoke if s.id.startswith("boundary:")]
    reachable = {(b.rule.id, b.side) for b in all_bounds if b.contexts and not isinstance(b, Reach)}
    assert sorted((b.rule.id, b.side) for b in bounds) == sorted(reachable)
    assert all(b.contexts and not isinstance(b, Reach) for b in bounds)
    assert len({s.id for s in smoke}) == len(smoke)
