"""Counterfactual twins: the same case with only the thing in question put right (issue 25).

A target's rejection proves that it checks a rule only if it accepts the same call once that rule holds. Before
a verdict credits a target on the strength of a rejection (following a reading of a disputed point, refusing a
fault, refusing a case past a limit it declares), the judge sends the case's *twin* (docs/evidence.md):

- `twin_for_fault(spec, case, rule)`: for a single fault of `rule`, the legal case it was made from: the faulty
  field back in every reading's range (the nearest value that fits), the misaligned operand aligned, the region
  covering the call again, the operand back within the buffer, a documented route, dtype or form, or a relation
  rule put right by the API's planner (`ApiStrategies.RELATION_TWINS`, `semantic_twin`);
- `twin_for_point(spec, case, point)`: for a case a disputed point decides, the point's discriminating field
  moved to a value on which every computable reading agrees the call is legal (dstGap 0 for D24, an address
  aligned for every reading's alignment, a value inside every reading's limits, a capacity within every
  reading's);
- `twin_for_limit(spec, case, limit, limits)`: for a case just past a limit the target declares, the same call
  within it.

Everything is derived from the spec's data (the rule's kind and field; the rules the reference names when it
rejects the twin under some reading), deterministically: no draw, so the judge can ask after the target
answered, and the same case always gives the same twin. A twin is legal under every computable reading of every
disputed point it depends on (the reference is asked; where a reading still rejects it, the rules it names are
put right in turn), within the limits the target declares and within every reading of the buffers' capacities.
Everything but the point stays: the same API, product, route, dtypes and form (unless the point is the route,
dtype or form itself), the same parameters, every operand where it was while it still fits, and otherwise as
near as fits with *exactly* its alignment class (`recast.alignment_class`): a twin is never more aligned than its
case, so that a target's undeclared alignment check refuses it as it refused the case. Its regions cover its
footprint; their bytes are the fill recipe's (format.fill), seeded from the case.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

from ascendc_conformance.format import tags
from ascendc_conformance.format.case import DETACHED_TENSOR, REGION_INDEX, SPARSE_MEMORY, Case, Operand, Region, \
    ResultStatus, Result
from ascendc_conformance.format.limits import DeclaredAlignment, DeclaredMaximum, Limits
from ascendc_conformance.format.words import Word
from ascendc_conformance.reference import expect, expect_readings, points_of
from ascendc_conformance.spec.model import Path, Reading, Rule, RuleKind, Spec, Status
from ascendc_conformance.strategies import layout
from ascendc_conformance.strategies.api_contract import module_for
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.recast import ALIGNMENT_CLASS_CAP, OPERANDS, alignment_class, context_of

ROUNDS = 4   # times the reference may name further rules to put right before a twin is given up


class NoTwinReason(Word):
    """Why a case has no twin."""

    NEEDLESS = "needless"       # no reading makes the case illegal for the point in question: a rejection of it is
    #                             never credited to it, so there is nothing to attribute
    UNFIXABLE = "unfixable"     # the point cannot be put right on this case (no value of the field fits the call's
    #                             other parameters, a relation whose outcome is left open, a product with no
    #                             documented route of the API, no placement that fits)


@dataclass(frozen=True)
class NoTwin:
    """Why a case has no twin: the reason, in words, and the reading that still refuses the best the suite could
    put right (None: no reading refused it; it could not be built)."""

    why: NoTwinReason
    detail: str
    reading: str | None = None

    def describe(self) -> str:
        return f"no twin ({self.why}): {self.detail}"


@dataclass(frozen=True)
class Twin:
    """The twin of a case: `case` (legal under every reading of the points it depends on), the rules it puts right
    (`put_right`: rule ids, or a declared limit's label), and what differs from the case, in words (`changes`)."""

    case: Case
    put_right: tuple[str, ...]
    changes: tuple[str, ...]

    def describe(self) -> str:
        return f"putting right {', '.join(self.put_right)}: {'; '.join(self.changes) or 'nothing else changed'}"


def twin_for_fault(spec: Spec, case: Case, rule: Rule, limits: Limits = Limits()) -> Twin | NoTwin:
    """The twin of a single fault of `rule` (or of a case whose outcome a disputed `rule` decides): `case` with
    `rule` put right, legal under every reading, within `limits` (the target's declared limits)."""
    work = _Work.of(spec, case, limits)
    if not _put_right(work, rule):
        if not _rejections(spec, case):
            return NoTwin(NoTwinReason.NEEDLESS, f"no reading makes the case illegal: {rule.id} is not in question")
    return _agreed(work, case, frozenset() if rule.dispute is None else frozenset({rule.dispute}))


def twin_for_point(spec: Spec, case: Case, point: str, limits: Limits = Limits()) -> Twin | NoTwin:
    """The twin of a case whose outcome the disputed `point` decides: the rules by which some reading of the point
    rejects the case put right (its discriminating field moved to a value every reading accepts), legal under
    every reading, within `limits`."""
    rejections = [result for result in _rejections(spec, case) if point in _points(spec, result)]
    if not rejections:
        return NoTwin(NoTwinReason.NEEDLESS, f"no reading of {point} makes the case illegal: a rejection of it "
                                             f"cannot follow {point}")
    work = _Work.of(spec, case, limits)
    for rule_id in dict.fromkeys(rule for result in rejections for rule in result.rules):
        if spec.rule(rule_id).dispute in (None, point):   # not another point's rule a reading rejects it by too
            _put_right(work, spec.rule(rule_id))
    return _agreed(work, case, frozenset({point}))


def twin_for_limit(spec: Spec, case: Case, limit: DeclaredAlignment | DeclaredMaximum, limits: Limits) -> Twin | NoTwin:
    """The twin of a case just past `limit`, one of the `limits` a target declares: the same call within it (the
    field at the declared maximum, the operand aligned as declared), legal under every reading."""
    work = _Work.of(spec, case, limits)
    if isinstance(limit, DeclaredMaximum):
        moved = limit.field in work.params and _fix_value(work, limit.field, work.ctx.field_range(limit.field))
    else:
        moved = _align(work, [op for op in OPERANDS if limit.covers(work.ctx.api.name, op, work.ctx.position(op),
                                                                    work.ctx.product.memory_of(work.ctx.position(op)))])
    if not moved:
        return NoTwin(NoTwinReason.NEEDLESS, f"the case is within {limit.label}")
    work.put_right.append(limit.label)
    return _agreed(work, case, frozenset())


# --- the case being put right -------------------------------------------------------------------------------

@dataclass
class _Work:
    """A twin under construction (mutable: each rule put right edits it)."""

    spec: Spec
    ctx: PathContext                   # within the target's limits, every capacity at its smallest reading
    params: dict[str, Any]
    addresses: dict[str, int | None]   # None: to be placed anew, as near `near` as fits
    near: dict[str, int]
    classes: dict[str, int]            # the exact alignment class each operand keeps
    put_right: list[str]
    fixed: dict[str, int]              # rule id -> times put right
    seed: int                          # the fill seed of its regions (from the case: the same case, the same twin)

    @classmethod
    def of(cls, spec: Spec, case: Case, limits: Limits) -> "_Work":
        ctx = _agreed_capacities(context_of(spec, case, limits))
        addresses = {op: getattr(case, op).address for op in OPERANDS}
        work = cls(spec, ctx, _plain(case.params), dict(addresses), dict(addresses), {}, [], {}, _seed(case))
        work.reclass()
        return work

    def reclass(self, operands: tuple[str, ...] = OPERANDS) -> None:
        """Each operand's class: its address's (at least the alignment every reading and the limits ask)."""
        for op in operands:
            align = self.ctx.alignment(op)
            self.classes[op] = max(alignment_class(self.near[op], max(ALIGNMENT_CLASS_CAP, align)), align)

    def move_to(self, ctx: PathContext) -> None:
        """Put the call on another path (a route, dtype or form put right): operands placed anew near where they
        were, keeping their classes (at least the new path's alignments)."""
        self.ctx = _agreed_capacities(ctx)
        self.addresses = {op: None for op in OPERANDS}
        self.reclass()


def _plain(params: Mapping[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(dict(params)))


def _agreed_capacities(ctx: PathContext) -> PathContext:
    """The context with every capacity at its smallest reading (D28): a twin that fits it fits every reading."""
    capacities = {memory: dataclasses.replace(capacity, bytes=min([capacity.bytes, *capacity.alternatives.values()]))
                  for memory, capacity in ctx.product.capacities.items()}
    return dataclasses.replace(ctx, product=dataclasses.replace(ctx.product, capacities=capacities))


def _put_right(work: _Work, rule: Rule) -> bool:
    """Edit the twin so that `rule` holds under every reading; False when it already does, or cannot be made to."""
    fixer = _FIXERS.get(rule.kind)
    if fixer is None or work.fixed.get(rule.id, 0) >= 2 or not fixer(work, rule):
        return False
    work.fixed[rule.id] = work.fixed.get(rule.id, 0) + 1
    if rule.id not in work.put_right:
        work.put_right.append(rule.id)
    return True


def _agreed(work: _Work, case: Case, points: frozenset[str]) -> Twin | NoTwin:
    """The twin once every reading accepts it: the rules the reference names when some reading rejects it are put
    right in turn, at most ROUNDS times. A rejection for the path itself (its route, dtypes or form) by another
    reading of a point not in question (`points`: D10 on a fixpipe dtype) is left as it is: the twin keeps its
    path, which the case shares."""
    for _ in range(ROUNDS):
        built = _build(work)
        if isinstance(built, str):
            return NoTwin(NoTwinReason.UNFIXABLE, built)
        refused = [(reading, result) for reading, result in _refusals(work.spec, built)
                   if not _of_another_path_point(work.spec, result, points)]
        if not refused:
            if not work.put_right:
                return NoTwin(NoTwinReason.NEEDLESS, "no reading makes the case illegal")
            return Twin(built, tuple(work.put_right), _changes(case, built))
        reading, result = refused[0]
        progressed = False
        for rule_id in (rule for rule in result.rules if rule in work.spec.rules):
            progressed = _put_right(work, work.spec.rule(rule_id)) or progressed
        if not progressed:
            return NoTwin(NoTwinReason.UNFIXABLE, f"under the reading {reading.label} the reference still answers "
                                                  f"{result.status}: {result.message}", reading.label)
    return NoTwin(NoTwinReason.UNFIXABLE, f"still refused by some reading after putting right {', '.join(work.put_right)}")


def _of_another_path_point(spec: Spec, result: Result, points: frozenset[str]) -> bool:
    """A rejection for the call's path alone (route, dtype or form rules) that hinges on disputed points none of
    which is in question."""
    hinges = _points(spec, result)
    return (result.status is ResultStatus.REJECTED and bool(hinges) and not hinges & points
            and all(rule in spec.rules and spec.rule(rule).kind.path_only for rule in result.rules))


def _results(spec: Spec, case: Case) -> list[tuple[Reading, Result]]:
    """The reference's result under the seed reading and under every combination of the computable readings of
    the disputed points its results depend on."""
    expected, others = expect_readings(case, spec)
    return [(spec.seed_reading, expected), *others]


def _refusals(spec: Spec, case: Case) -> list[tuple[Reading, Result]]:
    return [(reading, result) for reading, result in _results(spec, case) if result.status is not ResultStatus.OK]


def _rejections(spec: Spec, case: Case) -> list[Result]:
    return [result for _, result in _refusals(spec, case) if result.status is ResultStatus.REJECTED]


def _points(spec: Spec, result: Result) -> set[str]:
    """The disputed points a rejection hinges on (its disputed rules' points and the points of the rules it names)."""
    named = {point for rule in result.rules if rule in spec.rules and (point := spec.rule(rule).dispute) is not None}
    return set(points_of(result.depends_on, spec)) | named


# --- each kind of rule put right ----------------------------------------------------------------------------

def _agreed_range(ctx: PathContext, field: str) -> tuple[int, int]:
    """The values of `field` every reading allows: its C type and the target's declared maximum, narrowed by
    every range rule of the field (whatever its status or default) and every alternative's limits on them."""
    low, high = ctx.field_range(field)
    for rule in ctx.rules():
        if rule.kind is not RuleKind.RANGE or rule.field != field or rule.status is Status.UNSPECIFIED:
            continue
        bounds = [(rule.min, rule.max)] + [point.effects[alt].limits[rule.id] for point in ctx.spec.disputes.values()
                                           for alt in point.effects if rule.id in point.effects[alt].limits]
        for lower, upper in bounds:
            low = max(low, lower if lower is not None else low)
            high = min(high, upper if upper is not None else high)
    return low, high


def _fix_value(work: _Work, field: str, allowed: tuple[int, int]) -> bool:
    """`field` moved to the value nearest its own within `allowed` (and a multiple of its multiple rules) with which
    the call still fits its memories (the largest such below a value above the range)."""
    value, (low, high) = work.params[field], allowed
    step = work.ctx.field_multiple(field)
    low, high = -(-low // step) * step, high // step * step
    if low <= value <= high and value % step == 0:
        return False
    if low > high:
        return False
    candidates = sorted({min(max(value // step * step, low), high), min(max(-(-value // step) * step, low), high)},
                        key=lambda v: abs(v - value))

    def fits(candidate: int) -> bool:
        footprint = module_for(work.ctx.api).footprint(work.ctx, {**work.params, field: candidate})
        return layout.fits(work.ctx, footprint)
    chosen = next((v for v in candidates if fits(v)), None)
    if chosen is None and value > high:   # fitting is monotone: the largest value below that fits
        top, bottom = high // step, low // step
        if fits(bottom * step):
            while bottom < top:
                middle = (bottom + top + 1) // 2
                bottom, top = (middle, top) if fits(middle * step) else (bottom, middle - 1)
            chosen = bottom * step
    if chosen is None:
        return False
    work.params[field] = chosen
    return True


def _fix_range(work: _Work, rule: Rule) -> bool:
    value = work.params.get(rule.param)
    if type(value) is not int:
        return False
    return _fix_value(work, rule.param, _agreed_range(work.ctx, rule.param))


def _align(work: _Work, operands: list[str]) -> bool:
    """Each of `operands` not aligned as every reading and the declared limits ask placed anew, as near as fits,
    of exactly that alignment's class (no more aligned: see the module's doc)."""
    moved = False
    for op in operands:
        align = work.ctx.alignment(op)
        placed = work.addresses[op]
        address = placed if placed is not None else work.near[op]
        if address % align:
            work.classes[op], work.addresses[op], moved = align, None, True
    return moved


def _fix_alignment(work: _Work, rule: Rule) -> bool:
    return _align(work, [op for op in rule.operands if rule.where.covers(work.ctx.position(op))])


def _fix_bounds(work: _Work, rule: Rule) -> bool:
    """Regions over every byte the call touches: every twin's regions are made so (`_build`)."""
    return True


def _fix_capacity(work: _Work, rule: Rule) -> bool:
    """Each operand whose accesses pass its buffer's end (at the buffer's smallest reading) placed anew, as near
    its address as fits, keeping its class."""
    extents = module_for(work.ctx.api).footprint(work.ctx, work.params)
    over = [op for op, address in work.addresses.items() if address is not None
            and work.ctx.memory(op) in work.ctx.product.capacities
            and address + layout.reach(extents, op)[1] > work.ctx.limit(work.ctx.memory(op))]
    for op in over:
        work.addresses[op] = None
    return bool(over)


def _fix_route(work: _Work, rule: Rule) -> bool:
    """A documented route of the API on the product (the same dtypes and form, the same memories where there is
    one), else (the API documents no route on the product) a path of another product, the same route first."""
    ctx, spec = work.ctx, work.spec
    if spec.has_route(ctx.api.name, ctx.product.id, ctx.src, ctx.dst):
        return False
    here = [path for path in spec.paths(ctx.product.id, ctx.api.name) if ctx.form in path.forms]
    elsewhere = [path for path in spec.paths(api=ctx.api.name) if ctx.form in path.forms]

    def likeness(path: Path) -> tuple[bool | str, ...]:
        memories = spec.product(path.product).memory_of
        return (path.route != (ctx.src, ctx.dst), (path.src_dtype, path.dst_dtype) != (ctx.src_dtype.name, ctx.dst_dtype.name),
                memories(path.src) != ctx.memory("src"), memories(path.dst) != ctx.memory("dst"),
                path.src != ctx.src, path.dst != ctx.dst, path.label)
    return _move_to_path(work, sorted(here, key=likeness) or sorted(elsewhere, key=likeness))


def _fix_dtype(work: _Work, rule: Rule) -> bool:
    """A dtype pair documented for the route, the form and every reading (the same sizes where there is one)."""
    ctx, spec = work.ctx, work.spec
    path = spec.find_path(ctx.api.name, ctx.product.id, ctx.src, ctx.dst, ctx.src_dtype.name, ctx.dst_dtype.name)
    if path is not None and rule.id not in path.depends_on:
        return False
    candidates = [p for p in spec.paths(ctx.product.id, ctx.api.name)
                  if p.route == (ctx.src, ctx.dst) and ctx.form in p.forms and rule.id not in p.depends_on]
    return _move_to_path(work, sorted(candidates, key=lambda p: (
        bool(p.depends_on), spec.dtypes[p.src_dtype].size != ctx.src_dtype.size,
        spec.dtypes[p.dst_dtype].size != ctx.dst_dtype.size, p.label)))


def _fix_form(work: _Work, rule: Rule) -> bool:
    """A form documented for the path (one with the same parameters where there is one, else its smallest call)."""
    ctx, spec = work.ctx, work.spec
    path = spec.find_path(ctx.api.name, ctx.product.id, ctx.src, ctx.dst, ctx.src_dtype.name, ctx.dst_dtype.name)
    if path is None or ctx.form in path.forms:
        return False
    fields = set(ctx.api.forms[ctx.form].fields)
    form = next((f for f in path.forms if set(ctx.api.forms[f].fields) == fields), path.forms[0])
    return _move_to_path(work, [path], form)


def _move_to_path(work: _Work, paths: list[Path], form: str | None = None) -> bool:
    """The call on the first of `paths` (in `form`, else the same one), its parameters kept where they still fit
    there, else the path's smallest call."""
    if not paths:
        return False
    path, old = paths[0], work.ctx
    ctx = PathContext.make(work.spec, path.product, path.api, path.src, path.dst, path.src_dtype, path.dst_dtype,
                           form or old.form)
    ctx = ctx.detaching() if old.detached else ctx
    ctx = (ctx.sparsing() if old.sparse else ctx).within(old.limits)
    module = module_for(ctx.api)
    work.move_to(ctx)
    kept = set(ctx.api.forms[ctx.form].fields) == set(work.params) and layout.fits(ctx, module.footprint(ctx, work.params))
    if kept:   # parameters in elements may not suit the new dtypes (a slice's lengths): kept only if legal there
        trial = _build(work)
        kept = not isinstance(trial, str) and expect(trial, work.spec).status is ResultStatus.OK
        work.addresses = {op: None for op in OPERANDS}
    if not kept:
        work.params = module.smallest_params(ctx, {}) or work.params
    return True


def _fix_relation(work: _Work, rule: Rule) -> bool:
    planner = module_for(work.ctx.api).RELATION_TWINS.get(rule.relation)
    return _planned(work, planner(rule, work.ctx, work.params) if planner else None)


def _fix_overlap(work: _Work, rule: Rule) -> bool:
    """Writes of one call that hit the same bytes (unspecified) kept apart by the planners of the API's relation
    rules whose outcome is left open (NZ2ND's rows and matrices), where it has any."""
    module, moved = module_for(work.ctx.api), False
    for other in work.ctx.api.rules:
        if other.kind is RuleKind.RELATION and other.status is Status.UNSPECIFIED:
            moved = _planned(work, module.RELATION_TWINS[other.relation](other, work.ctx, work.params)) or moved
    return moved


def _fix_semantics(work: _Work, rule: Rule) -> bool:
    return _planned(work, module_for(work.ctx.api).semantic_twin(rule, work.ctx, work.params))


def _planned(work: _Work, params: dict[str, Any] | None) -> bool:
    if params is None or params == work.params:
        return False
    work.params = params
    return True


_FIXERS: dict[RuleKind, Callable[[_Work, Rule], bool]] = {
    RuleKind.RANGE: _fix_range, RuleKind.MULTIPLE: _fix_range, RuleKind.ALIGNMENT: _fix_alignment,
    RuleKind.ROUTE: _fix_route, RuleKind.DTYPE: _fix_dtype, RuleKind.FORM: _fix_form,
    RuleKind.RELATION: _fix_relation, RuleKind.BOUNDS: _fix_bounds, RuleKind.CAPACITY: _fix_capacity,
    RuleKind.SEMANTICS: _fix_semantics, RuleKind.OVERLAP: _fix_overlap,
}
"""How a rule of each kind is put right."""


# --- the twin's case ------------------------------------------------------------------------------------------

def _build(work: _Work) -> Case | str:
    """The twin's case (or why it cannot be placed): the footprint of its parameters, its operands placed,
    regions over the bytes it touches, filled by the fill recipe (seeded from the case the twin is of)."""
    ctx = work.ctx
    extents = module_for(ctx.api).footprint(ctx, work.params)
    if not layout.fits(ctx, extents):
        return f"{_params_text(work.params)} does not fit {ctx.label}'s memories"
    addresses = _placed(ctx, extents, work)
    if addresses is None:
        return f"no address of {ctx.label}'s memories holds the call with its operands' alignment classes"
    work.addresses = dict(addresses)
    spans = layout.regions(ctx, addresses, extents)
    memory = {key: Region(start, fill.bytes_at(start).tobytes())
              for key, (start, fill) in layout.region_fills(ctx, spans, work.seed).items()}
    extensions = tuple(name for name, needed in ((DETACHED_TENSOR, ctx.detached),
                                                 (SPARSE_MEMORY, any(REGION_INDEX in key for key in spans))) if needed)
    return Case(api=ctx.api.name, product=ctx.product.id,
                src=Operand(ctx.src, ctx.src_dtype.name, addresses["src"]),
                dst=Operand(ctx.dst, ctx.dst_dtype.name, addresses["dst"]),
                params=MappingProxyType(_plain(work.params)), memory=MappingProxyType(memory), extensions=extensions,
                tags=(tags.path(ctx.label), tags.form(ctx.form), *(tags.twin(rule) for rule in work.put_right)))


def _placed(ctx: PathContext, extents: layout.Extents, work: _Work) -> dict[str, int] | None:
    """Both operands' addresses: each kept where it still fits (in its class), the others as near their old
    address as fits with exactly their class; in a shared memory apart."""
    bound = ctx.span_limit if ctx.shared_memory else ctx.limit

    def interval(op: str) -> tuple[int, int]:
        below, high = layout.reach(extents, op)
        return below, bound(ctx.memory(op)) - high

    def fits_at(op: str, address: int) -> bool:
        low, high = interval(op)
        cap = max(ALIGNMENT_CLASS_CAP, work.classes[op])
        return low <= address <= high and alignment_class(address, cap) == work.classes[op]

    kept = {op: a for op, a in work.addresses.items() if a is not None and fits_at(op, a)}
    if not ctx.shared_memory:
        for op in OPERANDS:
            if op not in kept:
                found = _nearest(*interval(op), work.near[op], work.classes[op])
                if found is None:
                    return None
                kept[op] = found
        return kept
    if len(kept) == 2 and layout.apart(kept, extents):
        return kept
    for first in [op for op in OPERANDS if op in kept] + list(OPERANDS):
        start = kept[first] if first in kept else _nearest(*interval(first), work.near[first], work.classes[first])
        if start is None:
            continue
        second = next(op for op in OPERANDS if op != first)
        beside = _nearest_apart(ctx, extents, interval(second), {first: start}, second, work)
        if beside is not None:
            return {first: start, second: beside}
    return None


def _nearest_apart(ctx: PathContext, extents: layout.Extents, interval: tuple[int, int], placed: dict[str, int],
                   op: str, work: _Work) -> int | None:
    """The address nearest `op`'s old one, of its class, whose accesses share no byte with the placed operand's."""
    (other, address), = placed.items()
    below, high = layout.reach(extents, op)
    other_below, other_high = layout.reach(extents, other)
    low, top = interval
    options = [_nearest(low, min(top, address - other_below - high), work.near[op], work.classes[op]),
               _nearest(max(low, address + other_high + below), top, work.near[op], work.classes[op])]
    found = [a for a in options if a is not None]
    return min(found, key=lambda a: abs(a - work.near[op])) if found else None


def _nearest(low: int, high: int, near: int, cls: int) -> int | None:
    """The address of [low, high] nearest `near` whose alignment class is exactly `cls` (an odd multiple of it, or
    any multiple of the cap)."""
    step, offset = (cls, 0) if cls >= ALIGNMENT_CLASS_CAP else (2 * cls, cls)
    first, last = -(-(low - offset) // step), (high - offset) // step
    if first > last:
        return None
    middle = min(max((near - offset) // step, first), last)
    return min((offset + k * step for k in (middle, min(middle + 1, last))), key=lambda a: abs(a - near))


def _seed(case: Case) -> int:
    """The fill seed of a case's twin: from the case's content, so that the same case always gives the same twin."""
    digest = hashlib.sha256(json.dumps({"api": case.api, "product": case.product, "src": case.src.to_json(),
                                        "dst": case.dst.to_json(), "params": _plain(case.params),
                                        "extensions": list(case.extensions)}, sort_keys=True).encode())
    for key in sorted(case.memory):
        digest.update(f"{key}@{case.memory[key].address}:".encode())
        digest.update(case.memory[key].data)
    return int.from_bytes(digest.digest()[:4], "little") % (2**32 - 1) + 1


def _params_text(params: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in params.items() if not isinstance(v, list)) + "}"


def _changes(case: Case, twin: Case) -> tuple[str, ...]:
    """What the twin changes, in words: the path, each parameter, each address, the regions."""
    found = []
    if twin.product != case.product:
        found.append(f"product {case.product} -> {twin.product}")
    if (case.src.position, case.dst.position) != (twin.src.position, twin.dst.position):
        found.append(f"route {case.src.position}->{case.dst.position} -> {twin.src.position}->{twin.dst.position}")
    if (case.src.dtype, case.dst.dtype) != (twin.src.dtype, twin.dst.dtype):
        found.append(f"dtypes {case.src.dtype}->{case.dst.dtype} -> {twin.src.dtype}->{twin.dst.dtype}")
    before, after = _plain(case.params), _plain(twin.params)
    if set(before) != set(after):
        found.append(f"params {_params_text(before)} -> {_params_text(after)} (another form)")
    else:
        found.extend(f"{name} {before[name]} -> {after[name]}" if not isinstance(after[name], list) else f"{name} changed"
                     for name in after if before[name] != after[name])
    found.extend(f"{op} address {getattr(case, op).address:#x} -> {getattr(twin, op).address:#x}" for op in OPERANDS
                 if getattr(case, op).address != getattr(twin, op).address)
    if {k: (r.address, r.end) for k, r in case.memory.items()} != {k: (r.address, r.end) for k, r in twin.memory.items()}:
        found.append("regions over the bytes the call touches")
    return tuple(found)
