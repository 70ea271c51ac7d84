"""Faults built on legal cases a target accepted: so that one systematic false rejection cannot mask a missing
check (issue 25; docs/evidence.md).

A target that refuses a fault's twin too has not shown its check: its rejection may be the same false rejection
its legal tests see (a C++ simulator's undeclared 512-byte alignment CHECK refuses most capacity faults before
any capacity check could). The test then keeps looking on cases the target is known to accept: `fault_on`
builds the fault's cases from the legal cases of the same paths it accepted (the legal tests found them),
each edited exactly as the fault edits a fresh legal draft (its pinned faulty values set, its edit applied, the
draft re-sized; a case that breaks another rule too is not drawn), and every operand kept at least as aligned as
the accepted case's (the alignment class of
recast.alignment_class, as a declared alignment of the draft's context): whatever the accepted case had that the
target's false rejection spares, the fault's case has too, but the fault.
"""
from __future__ import annotations

from typing import Sequence

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance import reference

from ascendc_conformance.format import tags
from ascendc_conformance.format.case import Case, ResultStatus
from ascendc_conformance.format.limits import DeclaredAlignment, Limits
from ascendc_conformance.spec.model import RuleKind, Spec
from ascendc_conformance.strategies.cases import finish, settle
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.faults import Expectation, Fault
from ascendc_conformance.strategies.recast import OPERANDS, alignment_class, context_of, draft_of


def fault_on(spec: Spec, fault: Fault, accepted: Sequence[Case]) -> st.SearchStrategy[Case] | None:
    """Cases of `fault` built on the `accepted` legal cases that lie on one of its contexts (as a test's plan has
    them: within the target's declared limits); None when none does, or the fault cannot be built on a case
    that fits the product's memories (an inseparable fault, drawn as if memories had no limit).

    A route, dtype or form fault's contexts are pseudo-paths no legal case lies on: for a route or dtype fault,
    an accepted case of the same product, API and form whose dtypes have the same sizes is moved onto the fault's
    path (its parameters and alignments kept); a form fault has none."""
    if fault.inseparable:
        return None
    pairs = [(ctx, case) for case in accepted for ctx in _fault_contexts(spec, fault, case)]
    if not pairs:
        return None
    return st.sampled_from(pairs).flatmap(lambda pair: _built(spec, fault, *pair))


def _fault_contexts(spec: Spec, fault: Fault, case: Case) -> list[PathContext]:
    """The contexts of `fault` an accepted case can carry: its own path and form, or (route and dtype faults)
    the fault's pseudo-paths like it."""
    own = context_of(spec, case)
    if fault.rule.kind is RuleKind.FORM:
        return []
    if fault.rule.kind not in (RuleKind.ROUTE, RuleKind.DTYPE):
        return [ctx for ctx in fault.contexts if (ctx.label, ctx.form) == (own.label, own.form)][:1]
    return [ctx for ctx in fault.contexts
            if (ctx.product.id, ctx.api.name, ctx.form) == (own.product.id, own.api.name, own.form)
            and (ctx.src_dtype.size, ctx.dst_dtype.size) == (own.src_dtype.size, own.dst_dtype.size)
            and (fault.rule.kind is RuleKind.ROUTE or (ctx.src, ctx.dst) == (own.src, own.dst))]


@st.composite
def _built(draw: st.DrawFn, spec: Spec, fault: Fault, ctx: PathContext, case: Case) -> Case:
    """One case of `fault` on `ctx` made from the accepted `case` (see the module's doc)."""
    d = draft_of(case, _keeping_alignments(ctx, case))
    d.params.update(dict(fault.pinned))
    settle(draw, d)   # sized for the pinned faulty values, placed anew only where it no longer fits (a pseudo-path)
    if fault.edit is not None:
        fault.edit(draw, d)
    d.tags.append(tags.fault(fault.rule.id))
    built = finish(draw, d, zero_fill=fault.expectation is Expectation.REJECT)
    if reference.expect(built, spec, ignore=frozenset({fault.rule.id})).status is not ResultStatus.OK:
        reject()   # the accepted case's other parameters break another rule here too: not a single fault
    return built


def _keeping_alignments(ctx: PathContext, case: Case) -> PathContext:
    """`ctx` with each operand aligned at least as the accepted case's address is (a declared alignment beside the
    limits the context is drawn within): a re-placed operand, or one a capacity fault moves past its buffer,
    keeps what the target accepted."""
    kept = tuple(DeclaredAlignment(alignment_class(getattr(case, op).address), api=ctx.api.name, operand=op)
                 for op in OPERANDS if alignment_class(getattr(case, op).address) >= 2)
    limits = ctx.limits
    return ctx.within(Limits(limits.typed, limits.checks_regions, limits.alignments + kept, limits.maxima))
