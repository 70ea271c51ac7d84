"""Cases that break one rule: single-fault illegal cases, and the cases a disputed point decides.

Each `Fault` starts from a legal draft (of a documented path, or of a pseudo-path whose only flaw is its
route, dtype or form) and edits exactly one thing. For a documented rule the reference must reject the
case naming exactly that rule; for a disputed or vendor-only rule the outcome must depend on it. Rules
whose outcome the documents leave open (status unspecified) are never generated.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from hypothesis import reject
from hypothesis import strategies as st

from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.spec.model import Rule, ShortRepr, Spec
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.apis import MODULES, datacopy_slice
from ascendc_conformance.strategies.cases import Draft, draft, extensions_of, finish
from ascendc_conformance.strategies.context import PathContext, Unreachable
from ascendc_conformance.strategies.legal import contexts, select_paths

Edit = Callable[..., None]  # edit(draw, draft) changes the draft in place


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
        return dict(self.pinned).get(self.rule.field) if self.rule.kind == "range" else None

    @property
    def expectation(self) -> str:
        """'reject': rejected naming exactly this rule; 'disputed': the outcome depends on this rule."""
        return "reject" if self.rule.status == "documented" and self.rule.illegal_by_default else "disputed"

    def strategy(self) -> st.SearchStrategy[dict]:
        return st.sampled_from(self.contexts).flatmap(self._case)

    @st.composite
    def _case(draw, self, ctx: PathContext) -> dict:
        d = draft(draw, ctx, dict(self.pinned))
        if self.edit is not None:
            self.edit(draw, d)
        d.tags.append(f"fault:{self.rule.id}")
        # a fault to reject may be zero-filled (its bytes never matter); a disputed case is there to tell
        # readings apart, and zero-filled memory would hide every byte-level one
        return finish(draw, d, zero_fill=self.expectation == "reject")


def faults(spec: Spec | None = None, products: Iterable[str] | None = None,
           apis: Iterable[str] | None = None) -> list[Fault]:
    """Every fault generator for the selection, each with at least one context."""
    spec = spec or load_spec()
    paths = select_paths(spec, products, apis)
    chosen_products = {p.product for p in paths} or set()
    chosen_apis = set(apis) if apis else set(spec.apis)
    built = []
    for rule in spec.rules.values():
        if rule.status == "unspecified":
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
    if fault.expectation != "disputed":
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


def generator_rules() -> dict[str, str]:
    """Rule kind -> how its faults are built; the consistency test checks this against the spec."""
    return {kind: builder.__name__ for kind, builder in _BUILDERS.items()}


def _generators(spec, rule, api, paths, products) -> list[Fault]:
    builder = _BUILDERS.get(rule.kind)
    return builder(spec, rule, api, paths, products) if builder else []


# --- builders per rule kind ------------------------------------------------------------------------

def _range(spec, rule, api, paths, products):
    ctxs = tuple(c for c in contexts(spec, paths) if rule.field in c.api.forms[c.form].fields)
    if not rule.illegal_by_default:            # e.g. D16: the legal boundary value itself is disputed
        value = rule.max + 1 if rule.max is not None else rule.min - 1
        return [Fault(rule, f"at-{value}", ctxs, pinned=((rule.field, value),))]
    sides = []
    if rule.min is not None:
        sides.append(("below", rule.min - 1))
    if rule.max is not None:  # the next value that keeps any multiple-of rule of the field satisfied
        sides.append(("above", rule.max + ctxs[0].field_multiple(rule.field) if ctxs else rule.max + 1))
    return [_pinned_fault(rule, variant, ctxs, rule.field, value) for variant, value in sides]


def _pinned_fault(rule: Rule, variant: str, ctxs: tuple[PathContext, ...], field: str, value: int) -> Fault:
    """A fault drawn with `field` pinned at its faulty value and every other parameter, address and region
    sized for that faulty call, on the paths where it fits the product's memories. Where it fits on no path
    the fault is inseparable (a capacity check catches it too), and the spec must say so (the meta-test
    checks both ways): it is drawn as if memories had no limit, then put back into them."""
    relaxed = tuple(c.relaxing(field) for c in ctxs)
    separable = tuple(c for c in relaxed if MODULES[c.api.name].reachable(c, {field: value}))
    if not separable:   # the tensor start far from the touched GM bytes (e.g. startIndex x 512 B)
        separable = tuple(c.detaching() for c in relaxed
                          if c.touches_gm and MODULES[c.api.name].reachable(c.detaching(), {field: value}))
    if separable:
        return Fault(rule, variant, separable, pinned=((field, value),))
    unbounded = tuple(c.bounded(True) for c in relaxed if MODULES[c.api.name].reachable(c.bounded(True), {field: value}))
    return Fault(rule, variant, unbounded, _within_memories, pinned=((field, value),), inseparable=True)


def _within_memories(draw, d: Draft) -> None:
    """An inseparable fault's draft, drawn as if memories had no limit (so that every other rule holds), put
    back into the product's memories: operands at their lowest addresses, regions cut at the capacity (or
    the GM window)."""
    d.ctx = d.ctx.bounded()
    d.addresses = {op: -(-layout.reach(d.extents, op)[0] // d.ctx.alignment(op)) * d.ctx.alignment(op)
                   for op in ("src", "dst")}
    if d.ctx.shared_memory:
        d.addresses["dst"] += d.addresses["src"] + layout.reach(d.extents, "src")[1]
        d.addresses["dst"] = -(-d.addresses["dst"] // d.ctx.alignment("dst")) * d.ctx.alignment("dst")
    d.spans = {memory: (start, min(stop, start + d.ctx.span_limit(memory)))
               for memory, (start, stop) in layout.regions(d.ctx, d.addresses, d.extents).items()}


def _multiple(spec, rule, api, paths, products):
    def edit(draw, d: Draft) -> None:
        value = d.params[rule.field]
        offset = draw(st.integers(1, rule.multiple - 1), label="off-multiple by")
        low, high = d.ctx.field_range(rule.field)
        d.params[rule.field] = value - offset if value - offset >= low else value + offset  # smaller: fits
        if not low <= d.params[rule.field] <= high:
            reject()
        _settle(draw, d)
    ctxs = tuple(c for c in contexts(spec, paths) if rule.field in c.api.forms[c.form].fields)
    return [Fault(rule, "off-multiple", ctxs, edit)]


def _alignment(spec, rule, api, paths, products):
    def covered(ctx: PathContext) -> list[str]:
        return [op for op in rule.operands if rule.where.covers(ctx.position(op)) and _align(rule, ctx, op) > 1]

    def edit(draw, d: Draft) -> None:
        operand = draw(st.sampled_from(covered(d.ctx)), label="misaligned operand")
        align = _align(rule, d.ctx, operand)
        offsets = [align >> k for k in range(1, align.bit_length()) if align >> k]
        offset = draw(st.sampled_from(offsets), label="misaligned by")
        address = d.addresses[operand]
        d.addresses[operand] = address - offset if address >= offset else address + offset
        _respan_or_reject(d)
    ctxs = tuple(c for c in contexts(spec, paths) if covered(c))
    return [Fault(rule, "misaligned", ctxs, edit)]


def _align(rule: Rule, ctx: PathContext, operand: str) -> int:
    return ctx.dtype(operand).size if rule.bytes == "sizeof" else rule.bytes


def _respan_or_reject(d: Draft) -> None:
    """Recompute the regions after moving an operand; give up on the example if it no longer fits."""
    if not layout.holds(d.ctx, d.addresses, d.extents):
        reject()
    d.spans = layout.regions(d.ctx, d.addresses, d.extents)


def _settle(draw, d: Draft) -> None:
    """Size the draft for its edited parameters: the footprint of the faulty call, the operands placed anew
    where they no longer fit it, regions over the bytes it touches. A call that cannot fit at all is given
    up (the memory-bounds or capacity rule would be broken too)."""
    d.extents = MODULES[d.ctx.api.name].footprint(d.ctx, d.params)
    if not layout.fits(d.ctx, d.extents):
        reject()
    if not layout.holds(d.ctx, d.addresses, d.extents):
        try:
            d.addresses = layout.place(draw, d.ctx, d.extents)
        except Unreachable:
            reject()
    d.spans = layout.regions(d.ctx, d.addresses, d.extents)


def _route(spec, rule, api, paths, products):
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
    return [PathContext.make(spec, product, api, src, dst, dtype, dtype, form)
            for src in placed for dst in placed if not spec.has_route(api, product, src, dst)
            for dtype in dtypes]


def _dtype(spec, rule, api, paths, products):
    if rule.status != "documented":  # e.g. D10: documented by the seed, disputed by the vendor — legal cases decide
        return [Fault(rule, "legal", tuple(c for c in contexts(spec, paths)
                                            if rule.id in spec.find_path(api, c.product.id, c.src, c.dst, c.src_dtype.name, c.dst_dtype.name).depends_on))]
    ctxs = []
    for product in products:
        for route in sorted({p.route for p in spec.paths(product, api)}):
            documented = {(p.src_dtype, p.dst_dtype) for p in spec.paths(product, api) if p.route == route}
            forms = sorted({f for p in spec.paths(product, api) if p.route == route and p.src_dtype == p.dst_dtype
                            for f in p.forms})
            for dtype in spec.dtypes:
                if (dtype, dtype) not in documented and forms:
                    ctxs.append(PathContext.make(spec, product, api, *route, dtype, dtype, forms[0]))
    return [Fault(rule, "undocumented-dtype", tuple(ctxs))]


def _form(spec, rule, api, paths, products):
    ctxs = []
    for path in paths:
        documented_keys = [set(spec.apis[api].forms[f].fields) for f in path.forms]
        for name, form in spec.apis[api].forms.items():
            if name not in path.forms and set(form.fields) not in documented_keys:
                ctxs.append(PathContext.of(spec, path, name))
    return [Fault(rule, "undocumented-form", tuple(ctxs))]


def _relation(spec, rule, api, paths, products):
    builder = RELATION_FAULTS.get(rule.check)
    return builder(spec, rule, api, paths) if builder else []


def _bounds(spec, rule, api, paths, products):
    def cut_end(draw, d: Draft) -> None:
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

    def drop_region(draw, d: Draft) -> None:
        touched = [op for op in ("src", "dst") if d.extents.of(op)[1] > d.extents.of(op)[0]]
        if d.ctx.shared_memory or not touched:
            reject()
        del d.spans[d.ctx.memory(draw(st.sampled_from(touched), label="region dropped"))]
    ctxs = tuple(c for c in contexts(spec, paths) if c.api.name == api)
    return [Fault(rule, "region-too-short", ctxs, cut_end), Fault(rule, "region-missing", ctxs, drop_region)]


def _capacity(spec, rule, api, paths, products):
    def local(ctx: PathContext) -> list[str]:
        return [op for op in ("src", "dst") if ctx.memory(op) in ctx.product.capacities
                and (rule.status == "documented" or ctx.product.capacities[ctx.memory(op)].rule == rule.id)]

    def edit(draw, d: Draft) -> None:
        operand = draw(st.sampled_from(local(d.ctx)), label="operand over capacity")
        capacity = d.ctx.product.capacities[d.ctx.memory(operand)]
        readings = [capacity.bytes, *capacity.alternatives.values()]
        low, high = d.extents.of(operand)
        if high <= low:
            reject()
        if rule.status == "documented":
            target = max(readings) + draw(st.integers(1, 256), label="bytes over capacity")
        else:
            target = draw(st.integers(min(readings) + 1, max(readings)), label="access end in the disputed band")
        align = d.ctx.alignment(operand)
        address = -(-(target - high) // align) * align
        if address < 0 or address + high <= min(readings) and rule.status != "documented":
            reject()
        d.addresses[operand] = address
        if d.ctx.shared_memory and not layout.apart(d.addresses, d.extents):
            reject()   # moved onto the other operand: source and destination would overlap (unspecified)
        memory = d.ctx.memory(operand)
        others = [d.addresses[op] for op in ("src", "dst") if d.ctx.memory(op) == memory]
        d.spans[memory] = (max(0, min(others) - layout.GUARD_BYTES), address + high + layout.GUARD_BYTES)
    ctxs = tuple(c for c in contexts(spec, paths) if local(c))
    return [Fault(rule, "over-capacity" if rule.status == "documented" else "disputed-band", ctxs, edit)]


def _semantics(spec, rule, api, paths, products):
    """Legal cases that meet the condition under which a disputed reading changes the bytes."""
    faults = []
    spec_api = spec.apis[api]
    for units in spec_api.units:
        for condition, rule_id in units.depends_on.items():
            if rule_id != rule.id:
                continue
            ctxs = [c for c in contexts(spec, paths) if c.dst in units.dst_positions]
            if condition == "count_rounding":
                for ctx in (c for c in ctxs if c.form == "count"):
                    count = (units.count_round_bytes + spec_api.default_units.count_round_bytes) // ctx.src_dtype.size
                    faults.append(Fault(rule, f"{condition}-{ctx.label}", (ctx,), pinned=(("count", count),)))
            elif condition == "mixed_dtypes":
                faults.append(Fault(rule, condition, tuple(c for c in ctxs if c.src_dtype != c.dst_dtype)))
            else:  # multi_burst, dst_gap: two bursts (a start-to-start dstGap is then at least 1)
                faults.append(Fault(rule, condition, tuple(c for c in ctxs if c.form != "count"),
                                    pinned=(("blockCount", 2),)))
    if spec_api.dst_gap_ignored_by == rule.id:
        faults.append(Fault(rule, "dstGap-ignored", tuple(contexts(spec, paths)), pinned=(("dstGap", 1),)))
    return faults


_BUILDERS = {"range": _range, "multiple": _multiple, "alignment": _alignment, "route": _route, "dtype": _dtype,
             "form": _form, "relation": _relation, "bounds": _bounds, "capacity": _capacity, "semantics": _semantics}


# --- relation faults, per check name of the spec ---------------------------------------------------

def _slice_edit(mutate: Callable[..., None], dims: int = 1) -> Callable:
    def edit(draw, d: Draft) -> None:
        mutate(draw, d)
        _settle(draw, d)

    def build(spec, rule, api, paths):
        return [Fault(rule, rule.check, tuple(contexts(spec, paths)), edit,
                      pinned=(("dimValue", dims),) if dims > 1 else ())]
    return build


def _info_count(draw, d: Draft) -> None:
    extra = draw(st.sampled_from([-1, 1]), label="entries added")
    for _, key in datacopy_slice.OPERANDS:
        infos = d.params[key]
        d.params[key] = infos[:-1] if extra < 0 else infos + [dict(datacopy_slice.TRIVIAL_DIMENSION)]


def _sliceinfo_ctype(draw, d: Draft) -> None:
    key = draw(st.sampled_from([k for _, k in datacopy_slice.OPERANDS]), label="operand")
    high = d.ctx.spec.ctypes[d.ctx.api.structs["SliceInfo"]["shapeValue"].ctype][1]
    d.params[key][-1]["shapeValue"] = high + 1


def _burstlen_equal(draw, d: Draft) -> None:
    info = d.params["dstSliceInfo"][0]
    count = _slice_count(d.ctx, info)
    granule = d.ctx.api.constant("datablock_bytes") // d.ctx.src_dtype.size
    info["burstLen"] += 1
    info["endIndex"] = info["startIndex"] + count * info["burstLen"] * granule + (count - 1) * info["stride"] - 1
    info["shapeValue"] = max(info["shapeValue"], -(-(info["endIndex"] + 1) // granule) * granule)


def _slice_count(ctx: PathContext, info: dict) -> int:
    length = info["burstLen"] * ctx.api.constant("datablock_bytes") // ctx.src_dtype.size
    return (info["endIndex"] - info["startIndex"] + 1 + info["stride"]) // (length + info["stride"])


def _burstlen_outer(draw, d: Draft) -> None:
    for _, key in datacopy_slice.OPERANDS:
        d.params[key][1]["burstLen"] = 2


def _index_order(draw, d: Draft) -> None:
    """startIndex one past endIndex in one dimension of both operands: no slice there on either side, so a
    target that lacks the check sees equal (zero) slice counts and moves nothing."""
    dim = draw(st.integers(0, d.params["dimValue"] - 1), label="dimension")
    for _, key in datacopy_slice.OPERANDS:
        info = d.params[key][dim]
        info["startIndex"] = info["endIndex"] + 1


def _end_in_shape(draw, d: Draft) -> None:
    """A shape one short of endIndex, in a dimension whose shape sets no UB row pitch (the outermost one, or
    any of a GM source): moving UB slices off their 32-B blocks, or GM destination rows onto each other, would
    be unspecified, not this fault."""
    dims = d.params["dimValue"]
    choices = [(key, dim) for operand, key in datacopy_slice.OPERANDS for dim in range(dims)
               if d.params[key][dim]["endIndex"] >= 1 and (dim == dims - 1 or d.ctx.position(operand) == "GM"
                                                          and operand == "src")]
    if not choices:
        reject()
    key, dim = draw(st.sampled_from(choices), label="operand and dimension")
    info = d.params[key][dim]
    info["shapeValue"] = info["endIndex"] - 1


def _slice_count_break(draw, d: Draft) -> None:
    """One element short of a whole slice in dimension 0 of both operands: no N fits exactly, and a target
    that floors N (as the vendor does) still sees equal slice counts (a mismatch would be unspecified)."""
    for _, key in datacopy_slice.OPERANDS:
        d.params[key][0]["endIndex"] -= 1


def _transposed(select: Callable[[PathContext, set, set, Rule], bool]) -> Callable:
    """A fault that sets ifTranspose on the contexts `select` picks (given transpose routes and dtypes)."""
    def build(spec, rule, api, paths):
        def set_transpose(draw, d: Draft) -> None:
            d.params["ifTranspose"] = True
            _settle(draw, d)
        routes = {tuple(r) for r in _args(spec, api, "transpose_route")["routes"]}
        dtypes = set(_args(spec, api, "transpose_dtype")["dtypes"])
        return [Fault(rule, rule.check, tuple(c for c in contexts(spec, paths) if select(c, routes, dtypes, rule)),
                      set_transpose)]
    return build


def _off_route(ctx, routes, dtypes, rule) -> bool:
    return (ctx.src, ctx.dst) not in routes and ctx.src_dtype.name in dtypes


def _wrong_dtype(ctx, routes, dtypes, rule) -> bool:
    allowed = dtypes | set(rule.args.get("disputed", ()))
    return (ctx.src, ctx.dst) in routes and ctx.src_dtype.name not in allowed


def _disputed_dtype(ctx, routes, dtypes, rule) -> bool:
    return (ctx.src, ctx.dst) in routes and ctx.src_dtype.name in rule.args["dtypes"]


def _args(spec: Spec, api: str, check: str) -> dict:
    return next(dict(r.args) for r in spec.apis[api].rules if r.check == check)


def _count_below_unit(spec, rule, api, paths):
    def edit(draw, d: Draft) -> None:
        units = d.ctx.api.units_for(d.ctx.dst)
        d.params["count"] = draw(st.integers(0, (units.count_round_bytes - 1) // d.ctx.src_dtype.size), label="count")
    return [Fault(rule, "count-below-unit", tuple(c for c in contexts(spec, paths) if c.form == "count"), edit)]


def _vendor_divisibility(spec, rule, api, paths):
    return [Fault(rule, "indivisible", tuple(contexts(spec, paths)),
                  pinned=(("ndNum", 2), ("nValue", 3), ("srcNdMatrixStride", 1)))]


RELATION_FAULTS = {
    "info_count": _slice_edit(_info_count),
    "sliceinfo_ctype": _slice_edit(_sliceinfo_ctype),
    "burstlen_equal": _slice_edit(_burstlen_equal),
    "burstlen_outer": _slice_edit(_burstlen_outer, dims=2),
    "index_order": _slice_edit(_index_order),
    "end_in_shape": _slice_edit(_end_in_shape),
    "slice_count": _slice_edit(_slice_count_break),
    "transpose_route": _transposed(_off_route),
    "transpose_dtype": _transposed(_wrong_dtype),
    "transpose_dtype_disputed": _transposed(_disputed_dtype),
    "count_fills_unit": _count_below_unit,
    "vendor_divisibility": _vendor_divisibility,
}
