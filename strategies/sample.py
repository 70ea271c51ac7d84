"""Cases to look at: what the suite would send for a product, API, route, dtype or broken rule (`sample` verb).

`selection(...)` is the strategy of the cases the suite draws for that selection (legal cases, or single
faults of one rule); `draw(strategy, count, seed)` draws them outside any test, reproducibly.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from ascendc_conformance.format.case import Case
from ascendc_conformance.format.errors import ConformanceError
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.determinism import without_local_constants
from ascendc_conformance.strategies.faults import faults
from ascendc_conformance.strategies.legal import case_for, contexts, select_paths


DRAWS_PER_CASE = 10   # draws allowed per distinct case asked for, before giving up on finding more
T = TypeVar("T")


class SampleError(ConformanceError):
    """The selection asked for draws no case; the message says which part of it matched nothing."""


def selection(spec: Spec, product: str, api: str, route: str | None = None, dtype: str | None = None,
              illegal: str | None = None) -> st.SearchStrategy[Case]:
    """The cases the suite draws for `api` on `product`, narrowed to a route ("GM-VECIN" or "GM->VECIN") and
    a source dtype; with `illegal`, the single-fault cases of that rule instead of legal ones."""
    if api not in spec.apis:
        raise SampleError(f"unknown API {api!r}; expected one of {', '.join(spec.apis)}")
    try:
        product_id = spec.product(product).id
        rule = spec.rule(illegal).id if illegal is not None else None
    except KeyError as error:
        raise SampleError(error.args[0]) from None
    wanted = _matcher(route, dtype)
    if rule is None:
        chosen = [c for c in contexts(spec, select_paths(spec, [product_id], [api])) if wanted(c)]
        if not chosen:
            raise SampleError(f"no documented {api} path on {product_id} matches{_words(route, dtype)}; "
                              f"`ascendc-conformance spec paths --product {product_id} --api {api}` lists them")
        return st.sampled_from(chosen).flatmap(case_for)
    generators = [replace(f, contexts=tuple(c for c in f.contexts if wanted(c)))
                  for f in faults(spec, [product_id], [api]) if f.rule.id == rule]
    generators = [f for f in generators if f.contexts]
    if not generators:
        raise SampleError(f"the suite generates no single fault of {rule} for {api} on {product_id}"
                          f"{_words(route, dtype)} (`ascendc-conformance spec rules` shows where each rule applies)")
    return st.one_of([f.strategy() for f in generators])


class _Enough(Exception):
    """`count` distinct cases were drawn: stops Hypothesis's generation (no shrink phase runs)."""


def draw(strategy: st.SearchStrategy[Case], count: int, seed: int, keep: Callable[[Case], T]) -> list[T]:
    """`count` distinct cases of `strategy` (fewer if it has fewer distinct ones), the same ones for the same
    seed (strategies.determinism), each kept as `keep(case)` returns it, as it is drawn (a pack build keeps a case's recipe, not its
    bytes). Hypothesis may draw a case twice (its first, simplest example again, say): duplicates are skipped."""
    drawn: dict[str, T] = {}
    without_local_constants()   # the same cases for the same seed, whatever this process imported

    @hypothesis_seed(seed)
    @settings(max_examples=DRAWS_PER_CASE * count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case: Case) -> None:
        if len(drawn) >= count:
            raise _Enough
        key = case.digest()
        if key not in drawn:
            drawn[key] = keep(case)
        if len(drawn) >= count:
            raise _Enough

    try:
        collect()
    except _Enough:
        pass
    return list(drawn.values())


def _matcher(route: str | None, dtype: str | None) -> Callable[[PathContext], bool]:
    source, _, destination = (route.replace("->", "-").partition("-") if route else ("", "", ""))

    def wanted(context: PathContext) -> bool:
        return ((not route or (context.src, context.dst) == (source, destination))
                and (not dtype or context.src_dtype.name == dtype))
    return wanted


def _words(route: str | None, dtype: str | None) -> str:
    parts = [f"route {route}" if route else "", f"dtype {dtype}" if dtype else ""]
    return "".join(f" {part}" for part in parts if part)
