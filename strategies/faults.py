"""Cases that break one rule: single-fault illegal cases, and the cases a disputed point decides.

Each `Fault` starts from a legal draft (of a documented path, or of a pseudo-path whose only flaw is its
route, dtype or form, its operands aligned as strictly as any API asks for their memories) and edits exactly
one thing. For a documented rule the reference must reject the
case naming exactly that rule; for a disputed or vendor-only rule the outcome must depend on it. Rules
whose outcome the documents leave open (status unspecified) are never generated.

This module builds the faults of every rule kind the spec's data describes (range, multiple, alignment,
route, dtype, form, bounds, capacity); the faults of relation and semantics rules are the API's own and come
from its strategies module as `FaultPlan`s (strategies.api_contract).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Iterable, Sequence

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance.format import tags
from ascendc_conformance.format.case import Case
from ascendc_conformance.format.words import BoundSide, Word
from ascendc_conformance.spec.model import Path, Rule, RuleKind, ShortRepr, Spec, Status
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import Edit, FaultPlan, module_for
from ascendc_conformance.strategies.cases import Draft, draft, extensions_of, finish, settle
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.legal import contexts, select_paths


class Expectation(Word):
    """What the reference must answer for a generated case (checked by the runner before the target is asked)."""

    LEGAL = "legal"             # ok
    REJECT = "reject"           # rejected, naming exactly the fault's rule
    DISPUTED = "disputed"       # the outcome depends on the fault's (disputed or vendor-only) rule
    PAST_LIMIT = "past-limit"   # ok by the spec, but past a limit the target declares: it must reject it


@dataclass(frozen=True, repr=False)
class Fault(ShortRepr):
    rule: Rule
    variant: str
    contexts: tuple[PathContext, ...]
    edit: Edit | None = None
    pinned: tuple[tuple[str, int], ...] = ()
    inseparable: bool = False   # no path fits the faulty call alone: it breaks other rules too (spec says which)

    @property
    def id(self) -> str:
        """`<rule>:<variant>`; a common rule (no API of its own) is broken once per API, so its id names the
        API too: `<rule>:<API>:<variant>`."""
        if self.rule.api is None:
            return f"{self.rule.id}:{self.contexts[0].api.name}:{self.variant}"
        return f"{self.rule.id}:{self.variant}"

    def __repr__(self) -> str:
        return f"Fault({self.id}, {len(self.contexts)} contexts)"

    @property
    def extensions(self) -> frozenset[str]:
        """Case-format extensions a target must announce to be sent this fault's cases."""
        return extensions_of(self.contexts)

    @property
    def value(self) -> int | None:
        """A range fault: the value it gives the rule's field (pinned)."""
        return dict(self.pinned).get(self.rule.param) if self.rule.kind is RuleKind.RANGE else None

    @property
    def type_enforced(self) -> bool:
        """The fault gives a field a value outside its C type (the spec's `type_limit` bounds): a typed target
        cannot be given it, as a C caller cannot write it."""
        rule, value = self.rule, self.value
        if rule.kind is RuleKind.RANGE and value is not None:
            return ((BoundSide.MIN in rule.type_limit and rule.min is not None and value < rule.min)
                    or (BoundSide.MAX in rule.type_limit and rule.max is not None and value > rule.max))
        return rule.kind is RuleKind.RELATION and bool(rule.type_limit)

    @property
    def expectation(self) -> Expectation:
        """REJECT: rejected naming exactly this rule; DISPUTED: the outcome depends on this rule."""
        return Expectation.REJECT if self.rule.owed else Expectation.DISPUTED

    def strategy(self) -> st.SearchStrategy[Case]:
        return st.sampled_from(self.contexts).flatmap(self._case)

    @st.composite
    def _case(draw: st.DrawFn, self: Fault, ctx: PathContext, /) -> Case:
        d = draft(draw, ctx, dict(self.pinned))
        if self.edit is not None:
            self.edit(draw, d)
        d.tags.append(tags.fault(self.rule.id))
        # a fault to reject may be zero-filled (its bytes never matter); a disputed case is there to tell
        # readings apart, and zero-filled memory would hide every byte-level one
        return finish(draw, d, zero_fill=self.expectation is Expectation.REJECT)


def faults(spec: Spec, products: Iterable[str] | None = None, apis: Iterable[str] | None = None) -> list[Fault]:
    """Every fault generator for the selection, each with at least one context."""
    paths = select_paths(spec, products, apis)
    chosen_products = {p.product for p in paths} or set()
    chosen_apis = set(apis) if apis else set(spec.apis)
    built = []
    for rule in spec.rules.values():
        if rule.status is Status.UNSPECIFIED:
            continue
        for api in ([rule.api] if rule.api else sorted(chosen_apis)):
            if api not in chosen_apis:
                continue
            api_paths = [p for p in paths if p.api == api and rule.applies_to(p.product)]
            products_here = [p for p in sorted(chosen_products) if rule.applies_to(p)]
            for fault in _generators(spec, rule, api, api_paths, products_here):
                if fault.contexts:
                    built.extend(_per_product(spec, fault))
    return built


def _per_product(spec: Spec, fault: Fault) -> list[Fault]:
    """A disputed fault split so that each product some computable alternative applies to draws its own
    cases (`<variant>@<product>`): every such point and product then gets a whole test's cases that tell its
    readings apart (tests/meta: at least 3 under ci), under the same test id whatever the run selects.
    Contexts no alternative applies to stay together, under the fault's own variant."""
    if fault.expectation is not Expectation.DISPUTED:
        return [fault]
    point = spec.disputes.get(fault.rule.dispute) if fault.rule.dispute else None
    groups: dict[str | None, list[PathContext]] = {}
    for ctx in fault.contexts:
        applies = point is not None and any(effect.applies(ctx.product.id, (ctx.src, ctx.dst))
                                            and (fault.value is None or fault.rule.id not in effect.limits
                                                 or effect.allows(fault.rule, fault.value))
                                            for effect in point.effects.values())
        groups.setdefault(ctx.product.id if applies else None, []).append(ctx)
    return [replace(fault, variant=f"{fault.variant}@{product}" if product else fault.variant, contexts=tuple(ctxs))
            for product, ctxs in groups.items()]


def _generators(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    builder = _BUILDERS.get(rule.kind)
    return builder(spec, rule, api, paths, products) if builder else []


# --- builders per rule kind ------------------------------------------------------------------------

def _range(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    field = rule.param
    ctxs = tuple(c for c in contexts(spec, paths) if field in c.api.forms[c.form].fields)
    if not rule.illegal_by_default:            # e.g. D16: the legal boundary value itself is disputed
        value = rule.max + 1 if rule.max is not None else (rule.min or 0) - 1
        return [Fault(rule, f"at-{value}", ctxs, pinned=((field, value),))]
    sides = []
    if rule.min is not None:
        sides.append(("below", rule.min - 1))
    if rule.max is not None:  # the next value that keeps any multiple-of rule of the field satisfied
        sides.append(("above", rule.max + ctxs[0].field_multiple(field) if ctxs else rule.max + 1))
    return [_pinned_fault(rule, variant, ctxs, field, value) for variant, value in sides]


def _pinned_fault(rule: Rule, variant: str, ctxs: tuple[PathContext, ...], field: str, value: int) -> Fault:
    """A fault drawn with `field` pinned at its faulty value and every other parameter, address and region
    sized for that faulty call, on the paths where it fits the product's memories. Where it fits on no path
    the fault is inseparable (a capacity check catches it too), and the spec must say so (the meta-test
    checks both ways): it is drawn as if memories had no limit, then put back into them."""
    relaxed = tuple(c.relaxing(field) for c in ctxs)
    separable = tuple(c for c in relaxed if module_for(c.api).reachable(c, {field: value}))
    if not separable:   # the tensor start far from the touched GM bytes (e.g. startIndex x 512 B)
        separable = tuple(c.detaching() for c in relaxed
                          if c.touches_gm and module_for(c.api).reachable(c.detaching(), {field: value}))
    if separable:
        return Fault(rule, variant, separable, pinned=((field, value),))
    unbounded = tuple(c.bounded(True) for c in relaxed if module_for(c.api).reachable(c.bounded(True), {field: value}))
    return Fault(rule, variant, unbounded, _within_memories, pinned=((field, value),), inseparable=True)


def _within_memories(draw: st.DrawFn, d: Draft) -> None:
    """An inseparable fault's draft, drawn as if memories had no limit (so that every other rule holds), put
    back into the product's memories: operands at their lowest addresses, regions cut at the capacity (or
    the GM window)."""
    d.ctx = d.ctx.bounded()
    d.addresses = layout.lowest_addresses(d.ctx, d.extents)
    d.spans = {memory: (start, min(stop, start + d.ctx.span_limit(memory)))
               for memory, (start, stop) in layout.regions(d.ctx, d.addresses, d.extents).items()}


# The edits are module-level functions (given their rule with functools.partial), never closures: a selection's
# faults are kept in the cache of what a spec works out (spec.derived), which pickles them.

def _multiple(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    assert rule.multiple is not None, "a multiple rule names its multiple"
    ctxs = tuple(c for c in contexts(spec, paths) if rule.field in c.api.forms[c.form].fields)
    return [Fault(rule, "off-multiple", ctxs, partial(_off_multiple, rule))]


def _off_multiple(rule: Rule, draw: st.DrawFn, d: Draft) -> None:
    field, multiple = rule.param, rule.multiple
    assert multiple is not None, "a multiple rule names its multiple"
    value = d.params[field]
    offset = draw(st.integers(1, multiple - 1), label="off-multiple by")
    low, high = d.ctx.field_range(field)
    d.params[field] = value - offset if value - offset >= low else value + offset  # smaller: fits
    if not low <= d.params[field] <= high:
        reject()
    settle(draw, d)


def _alignment(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    ctxs = tuple(c for c in contexts(spec, paths) if _covered(rule, c))
    return [Fault(rule, "misaligned", ctxs, partial(_misalign, rule))]


def _covered(rule: Rule, ctx: PathContext) -> list[str]:
    """The operands an alignment rule asks more than byte alignment of on this path."""
    return [op for op in rule.operands if rule.where.covers(ctx.position(op)) and _align(rule, ctx, op) > 1]


def _misalign(rule: Rule, draw: st.DrawFn, d: Draft) -> None:
    operand = draw(st.sampled_from(_covered(rule, d.ctx)), label="misaligned operand")
    align = _align(rule, d.ctx, operand)
    offsets = [align >> k for k in range(1, align.bit_length()) if align >> k]
    offset = draw(st.sampled_from(offsets), label="misaligned by")
    address = d.addresses[operand]
    d.addresses[operand] = address - offset if address >= offset else address + offset
    _respan_or_reject(d)


def _align(rule: Rule, ctx: PathContext, operand: str) -> int:
    return rule.alignment(ctx.dtype(operand))


def _respan_or_reject(d: Draft) -> None:
    """Recompute the regions after moving an operand; give up on the example if it no longer fits."""
    if not layout.holds(d.ctx, d.addresses, d.extents):
        reject()
    d.spans = layout.regions(d.ctx, d.addresses, d.extents)


def _route(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    if rule.routes:   # a disputed extension (e.g. D19): the routes it would add
        ctxs = tuple(ctx for product in products for ctx in _pseudo_routes(spec, api, product)
                     if (ctx.src, ctx.dst) in rule.routes)
        return [Fault(rule, "extension-route", ctxs)]
    return [Fault(rule, "undocumented-route", tuple(ctx for product in products for ctx in _pseudo_routes(spec, api, product)))]


def _pseudo_routes(spec: Spec, api: str, product: str) -> list[PathContext]:
    """Every (src, dst) the product can place but the API does not document on it, in a plausible dtype."""
    documented = spec.paths(product, api)
    dtypes = sorted({p.src_dtype for p in documented if p.src_dtype == p.dst_dtype}) or \
        sorted({p.src_dtype for p in spec.paths(api=api) if p.src_dtype == p.dst_dtype})
    form = next(name for name, form in spec.apis[api].forms.items() if not form.mixed_dtypes)
    placed = [pos for pos in spec.positions if spec.product(product).memory_of(pos)]
    return [PathContext.make(spec, product, api, src, dst, dtype, dtype, form).aligning_strictly()
            for src in placed for dst in placed if not spec.has_route(api, product, src, dst)
            for dtype in dtypes]


def _dtype(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    if rule.status is not Status.DOCUMENTED:  # e.g. D10: documented by the seed, disputed by the vendor — legal cases decide
        return [Fault(rule, "legal", tuple(c for c in contexts(spec, paths)
                                            if (path := spec.find_path(api, c.product.id, c.src, c.dst, c.src_dtype.name,
                                                                       c.dst_dtype.name)) is not None
                                            and rule.id in path.depends_on))]
    ctxs = []
    for product in products:
        for route in sorted({p.route for p in spec.paths(product, api)}):
            documented = {(p.src_dtype, p.dst_dtype) for p in spec.paths(product, api) if p.route == route}
            forms = sorted({f for p in spec.paths(product, api) if p.route == route and p.src_dtype == p.dst_dtype
                            for f in p.forms})
            for dtype in spec.dtypes:
                if (dtype, dtype) not in documented and forms:
                    ctxs.append(PathContext.make(spec, product, api, route[0], route[1], dtype, dtype, forms[0]).aligning_strictly())
    return [Fault(rule, "undocumented-dtype", tuple(ctxs))]


def _form(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    ctxs = []
    for path in paths:
        documented_keys = [set(spec.apis[api].forms[f].fields) for f in path.forms]
        for name, form in spec.apis[api].forms.items():
            if name not in path.forms and set(form.fields) not in documented_keys:
                ctxs.append(PathContext.of(spec, path, name).aligning_strictly())
    return [Fault(rule, "undocumented-form", tuple(ctxs))]


def _relation(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    planner = module_for(spec.apis[api]).RELATION_FAULTS[rule.relation]
    return _planned(rule, planner(rule, contexts(spec, paths)))


def _planned(rule: Rule, plans: Sequence[FaultPlan]) -> list[Fault]:
    return [Fault(rule, plan.variant, plan.contexts, plan.edit, pinned=plan.pinned) for plan in plans]


def _bounds(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    ctxs = tuple(c for c in contexts(spec, paths) if c.api.name == api)
    return [Fault(rule, "region-too-short", ctxs, _cut_end), Fault(rule, "region-missing", ctxs, _drop_region)]


def _cut_end(draw: st.DrawFn, d: Draft) -> None:
    """End the region of one operand's memory 1+ bytes before its last access, tensor starts kept inside."""
    touched = [op for op in ("src", "dst") if d.extents.of(op)[1] > d.extents.of(op)[0]]
    if not touched:
        reject()
    operand = draw(st.sampled_from(touched), label="operand cut short")
    memory = d.ctx.memory(operand)
    stop = max(d.addresses[op] + d.extents.of(op)[1] for op in touched if d.ctx.memory(op) == memory)
    floor = max([d.spans[memory][0]] + [d.addresses[op] for op in ("src", "dst") if d.ctx.memory(op) == memory])
    if stop - floor < 2:
        reject()
    cut = draw(st.integers(1, min(stop - floor - 1, 64)), label="bytes cut off")
    d.spans[memory] = (d.spans[memory][0], stop - cut)


def _drop_region(draw: st.DrawFn, d: Draft) -> None:
    touched = [op for op in ("src", "dst") if d.extents.of(op)[1] > d.extents.of(op)[0]]
    if d.ctx.shared_memory or not touched:
        reject()
    del d.spans[d.ctx.memory(draw(st.sampled_from(touched), label="region dropped"))]


def _capacity(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    ctxs = tuple(c for c in contexts(spec, paths) if _local(rule, c))
    return [Fault(rule, "over-capacity" if rule.status is Status.DOCUMENTED else "disputed-band", ctxs,
                  partial(_over_capacity, rule))]


def _local(rule: Rule, ctx: PathContext) -> list[str]:
    """The operands in a memory of limited capacity that the capacity rule covers on this path."""
    return [op for op in ("src", "dst") if ctx.memory(op) in ctx.product.capacities
            and (rule.status is Status.DOCUMENTED or ctx.product.capacities[ctx.memory(op)].rule == rule.id)]


def _over_capacity(rule: Rule, draw: st.DrawFn, d: Draft) -> None:
    operand = draw(st.sampled_from(_local(rule, d.ctx)), label="operand over capacity")
    capacity = d.ctx.product.capacities[d.ctx.memory(operand)]
    readings = [capacity.bytes, *capacity.alternatives.values()]
    low, high = d.extents.of(operand)
    if high <= low:
        reject()
    if rule.status is Status.DOCUMENTED:
        target = max(readings) + draw(st.integers(1, 256), label="bytes over capacity")
    else:
        target = draw(st.integers(min(readings) + 1, max(readings)), label="access end in the disputed band")
    align = d.ctx.alignment(operand)
    address = -(-(target - high) // align) * align
    if address < 0 or address + high <= min(readings) and rule.status is not Status.DOCUMENTED:
        reject()
    d.addresses[operand] = address
    if d.ctx.shared_memory and not layout.apart(d.addresses, d.extents):
        reject()   # moved onto the other operand: source and destination would overlap (unspecified)
    memory = d.ctx.memory(operand)
    others = [d.addresses[op] for op in ("src", "dst") if d.ctx.memory(op) == memory]
    d.spans[memory] = (max(0, min(others) - layout.GUARD_BYTES), address + high + layout.GUARD_BYTES)


def _semantics(spec: Spec, rule: Rule, api: str, paths: list[Path], products: list[str]) -> list[Fault]:
    """Legal cases on which the readings of the rule's disputed point move different bytes (the API's plans)."""
    return _planned(rule, module_for(spec.apis[api]).semantic_faults(rule, contexts(spec, paths)))


_BUILDERS = {RuleKind.RANGE: _range, RuleKind.MULTIPLE: _multiple, RuleKind.ALIGNMENT: _alignment,
             RuleKind.ROUTE: _route, RuleKind.DTYPE: _dtype, RuleKind.FORM: _form, RuleKind.RELATION: _relation,
             RuleKind.BOUNDS: _bounds, RuleKind.CAPACITY: _capacity, RuleKind.SEMANTICS: _semantics}
"""How the faults of each rule kind are built; a kind without a builder (overlap: always unspecified) has none."""
