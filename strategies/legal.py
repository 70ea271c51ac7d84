"""Legal cases for any selection of documented paths (product x API x route x dtype), in every form."""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from hypothesis import strategies as st

from ascendc_conformance.format.case import SPARSE_MEMORY, Case
from ascendc_conformance.spec.model import Path, Spec
from ascendc_conformance.strategies.cases import draft, finish
from ascendc_conformance.strategies.context import PathContext


def select_paths(spec: Spec, products: Iterable[str] | None = None, apis: Iterable[str] | None = None) -> list[Path]:
    """Documented paths of the chosen products (ids or aliases) and APIs; all of them by default."""
    wanted = {spec.product(p).id for p in products} if products else None
    apis = set(apis) if apis else None
    return [path for path in spec.paths()
            if (wanted is None or path.product in wanted) and (apis is None or path.api in apis)]


def selection_key(spec: Spec, products: Iterable[str] | None, apis: Iterable[str] | None
                  ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A selection as a cache key: sorted product ids and APIs, () for all (every product named is all of them)."""
    products = tuple(sorted({spec.product(name).id for name in products or ()}))
    apis = tuple(sorted(set(apis or ())))
    return (() if set(products) == {p.id for p in spec.products} else products,
            () if set(apis) == set(spec.apis) else apis)


def contexts(spec: Spec, paths: Sequence[Path]) -> list[PathContext]:
    """One context per path and documented form of it."""
    return [PathContext.of(spec, path, form) for path in paths for form in path.forms]


def extended(ctxs: Sequence[PathContext], extensions: Iterable[str]) -> tuple[PathContext, ...]:
    """The contexts as a target's case-format extensions let them be drawn: with sparse-memory, GM accesses may
    lie far apart, each stretch in a region of its own (a gap or stride in its top bits costs only its bursts).
    A target without it is sent the cases it always was."""
    if SPARSE_MEMORY not in set(extensions):
        return tuple(ctxs)
    return tuple(ctx.sparsing() if ctx.touches_gm else ctx for ctx in ctxs)


@st.composite
def case_for(draw: st.DrawFn, ctx: PathContext, pinned: Mapping[str, int] | None = None) -> Case:
    """One legal case for one path context, optionally with some parameters pinned (boundaries)."""
    return finish(draw, draft(draw, ctx, pinned))


def legal_cases(spec: Spec, paths: Sequence[Path] | None = None) -> st.SearchStrategy[Case]:
    """Legal cases spread over the given documented paths (all of them by default)."""
    chosen = contexts(spec, paths if paths is not None else spec.paths())
    return st.sampled_from(chosen).flatmap(case_for)
