"""From a case back to what generation works on: its path context and an editable draft.

A counterfactual twin (strategies.twins) and a fault built on a legal case a target accepted
(strategies.accepted) start from a case, not from a draw. `context_of` finds the path context a case lies on
(its product, API, route, dtypes and form as the reference resolves them, the case-format extensions it uses,
within the limits a target declares), `draft_of` the draft of it (the same parameters, addresses and regions:
finishing it gives the case back, its bytes refilled). `alignment_class` is what an address's alignment is, so
that a case derived from another keeps it where that is not the point.
"""
from __future__ import annotations

import copy

from ascendc_conformance.format.case import DETACHED_TENSOR, SPARSE_MEMORY, Case
from ascendc_conformance.format.limits import Limits
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.spec.model import Spec
from ascendc_conformance.strategies.api_contract import Draft, module_for
from ascendc_conformance.strategies.context import PathContext

OPERANDS = ("src", "dst")
ALIGNMENT_CLASS_CAP = 4096
"""The largest alignment an address's class tells apart (a page): addresses that are multiples of it are all of one
class. Wider than any alignment the spec asks (512 B), so that a target's undeclared alignment check of up to a page
sees a derived case's operand exactly as aligned as the original's."""


def alignment_class(address: int, cap: int = ALIGNMENT_CLASS_CAP) -> int:
    """The largest power of two, up to `cap`, that divides `address` (0 is of the class `cap`)."""
    return min(address & -address, cap) if address else cap


def context_of(spec: Spec, case: Case, limits: Limits = Limits()) -> PathContext:
    """The path context `case` lies on, drawn within `limits`: a documented path and form, or the pseudo-path of
    a route, dtype or form fault (then its operands aligned as strictly as any API asks, as the fault's were);
    with the case-format extensions the case uses. CaseError for a case the reference cannot resolve."""
    call = resolve(case, spec)
    ctx = PathContext.make(spec, call.product.id, case.api, case.src.position, case.dst.position, case.src.dtype,
                           case.dst.dtype, call.form.name)
    if not ctx.documented:
        ctx = ctx.aligning_strictly()
    if DETACHED_TENSOR in case.extensions:
        ctx = ctx.detaching()
    if SPARSE_MEMORY in case.extensions:
        ctx = ctx.sparsing()
    return ctx.within(limits)


def draft_of(case: Case, ctx: PathContext) -> Draft:
    """The draft of `case` on `ctx` (context_of, or a fault's context of the same path): its parameters (a copy
    to edit), addresses and regions, and the bytes any call with those parameters touches."""
    params = copy.deepcopy(dict(case.params))
    return Draft(ctx, params, module_for(ctx.api).footprint(ctx, params),
                 {"src": case.src.address, "dst": case.dst.address},
                 {key: (region.address, region.end) for key, region in case.memory.items()})
