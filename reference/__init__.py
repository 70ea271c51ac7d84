"""The numpy reference: from a case, the expected memory image of every region, or the rules it breaks.

`expect(case, spec) -> Result` under one reading of the disputed points; `expect_readings` under the run's
reading and every other reading the case's outcome depends on. Legality comes from the spec's rules
(reference.legality and the API modules' relations); the bytes move by vectorised index arithmetic
(reference.transfer). The spec is always the caller's: the reference loads none.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Iterable
from ascendc_conformance.format.bounded import clip
from ascendc_conformance.format.case import Case, Region, Result
from ascendc_conformance.format.defaults import TARGET_TEXT_CHARS
from ascendc_conformance.format.errors import CaseError
from ascendc_conformance.reference import transfer as moves
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import Call, resolve
from ascendc_conformance.reference.legality import Breach, static_breaches
from ascendc_conformance.reference.transfer import Transfer
from ascendc_conformance.spec.model import Reading, Spec, Status

Others = list[tuple[Reading, Result]]
"""The expected results of a case under the other readings it is judged against (expect_readings)."""

# Common rules (spec/common.yaml) the memory stage cites.
BOUNDS, CAPACITY, OVERLAP, SELF_OVERLAP = "Memory-bounds", "Memory-capacity", "Memory-overlap", "Memory-self-overlap"


def expect(case: Case, spec: Spec, *, reading: Reading | None = None,
           ignore: frozenset[str] = frozenset()) -> Result:
    """The expected outcome of one call under `reading` (default: the seed reading, every point's default); a
    case the spec cannot resolve (an unknown product or API, a missing parameter) gets an error result.

    `ignore`: rule ids judged as if they held — what a target lacking exactly those checks would answer
    (the single-fault meta-test asks this of every fault case with its own rule ignored)."""
    try:
        call = resolve(case, spec, reading)
    except CaseError as error:   # its message may quote the case (a 1 MB product name): cut, as a target's text is
        return Result.error(clip(str(error), TARGET_TEXT_CHARS))
    judged = _judged(call, ignore)
    if isinstance(judged, Result):
        return judged
    plan, spans, depends = judged
    if BOUNDS in ignore:
        call = _covering(call, plan, spans)
    return Result.ok(moves.apply(call, plan, spans), depends)


def legal_transfer(call: Call, ignore: frozenset[str] = frozenset()) -> Transfer | None:
    """What a call moves when the reference answers it ok as if the case's regions held every byte it touches
    (the region bounds are not judged, nor the rules in `ignore`; every other rule is), else None: for
    comparing what two calls move without their memory images (reference.bit_witness)."""
    judged = _judged(call, frozenset({BOUNDS}) | ignore)
    return None if isinstance(judged, Result) else judged[0]


def legal_plan(case: Case, spec: Spec, reading: Reading | None = None) -> tuple[Call, Transfer] | None:
    """The call and what it moves when the reference answers the case ok under `reading` (None otherwise: as
    `expect`'s status says), without making its memory image (reference.explain)."""
    try:
        call = resolve(case, spec, reading)
    except CaseError:
        return None
    judged = _judged(call, frozenset())
    return None if isinstance(judged, Result) else (call, judged[0])


def _judged(call: Call, ignore: frozenset[str]) -> Result | tuple[Transfer, moves.Extents, tuple[str, ...]]:
    """The call's rejection or unspecified outcome, or (the transfer, its extents, the disputed rules its
    legal outcome depends on); rules in `ignore` are judged as if they held."""
    spec = call.spec
    module = module_for(call.api)
    verdict, depends = _verdict(call, _kept(static_breaches(call, module.RELATIONS), ignore))
    if verdict is not None:
        return verdict
    plan = module.plan(call)
    spans = moves.extents(call, plan)
    memory_breaches, capacity_depends = _memory_breaches(call, spans, plan, bounds=BOUNDS not in ignore)
    verdict, more = _verdict(call, _kept(memory_breaches, ignore))
    if verdict is not None:
        return verdict
    semantic = [Breach(spec.rule(rule_id), f"{call.reading.label} makes it illegal")
                for rule_id in plan.depends_on if call.reading.illegal(spec.rule(rule_id), call.product.id, call.route)]
    semantic = _kept(semantic, ignore)
    if semantic:
        rejection, _ = _verdict(call, semantic)
        assert rejection is not None, "a semantic breach makes the call illegal"
        return rejection
    if moves.self_overlaps(plan):
        return _unspecified(spec, SELF_OVERLAP, "two destination writes of the call hit the same bytes")
    if moves.overlaps(call, plan, *spans):
        return _unspecified(spec, OVERLAP, "source and destination bytes of the call overlap")
    return plan, spans, _unique(depends + more + capacity_depends + plan.depends_on)


def points_of(depends_on: Iterable[str], spec: Spec) -> tuple[str, ...]:
    """The disputed points the rules of a result's `depends_on` belong to, in order."""
    disputes = (spec.rule(rule_id).dispute for rule_id in depends_on)
    return _unique(tuple(point for point in disputes if point))


def expect_readings(case: Case, spec: Spec, reading: Reading | None = None) -> tuple[Result, Others]:
    """The expected result under `reading` (default: the seed reading) and, when it depends on disputed points,
    under every other combination of their computable readings (Spec.other_readings), as (reading, result) pairs. A
    point that only an alternative's answer depends on (e.g. D8 once count-below-unit's alternative makes a
    count legal) is taken in too, until no new point appears."""
    reading = reading or spec.seed_reading
    expected = expect(case, spec, reading=reading)
    points = points_of(expected.depends_on, spec)
    answers: dict[Reading, Result] = {}
    while points:
        for other in spec.other_readings(points, reading):
            if other not in answers:
                answers[other] = expect(case, spec, reading=other)
        more = points_of([rule for result in answers.values() for rule in result.depends_on], spec)
        if set(more) <= set(points):
            break
        points = _unique(points + more)
    return expected, [(other, answers[other]) for other in spec.other_readings(points, reading)]


def _kept(breaches: list[Breach], ignore: frozenset[str]) -> list[Breach]:
    """The breaches of rules not ignored; a breach that an ignored disputed rule disputes goes too (its
    alternative reading holds)."""
    if not ignore:
        return breaches
    return [b for b in breaches if b.rule.id not in ignore and b.disputed_by not in ignore]


def _covering(call: Call, plan: Transfer, spans: moves.Extents) -> Call:
    """The call with its regions widened by zero bytes over every access at address 0 or above: what a
    target that does not check the bounds works on. With several regions per memory (sparse-memory), zero
    regions are added over the touched bytes no region holds, not over the distance between them."""
    if call.sparse:
        memory = moves.covering(call, plan)
        return replace(call, case=replace(call.case, memory=MappingProxyType(memory)), derived={})
    memory = dict(call.case.memory)
    for span in spans:
        if span is None or span.start < 0:
            continue
        region = memory.get(span.memory)
        if region is None:
            memory[span.memory] = Region(span.start, bytes(span.stop - span.start))
        elif not region.contains(span.start, span.stop):
            start, stop = min(region.address, span.start), max(region.end, span.stop)
            memory[span.memory] = Region(start, bytes(region.address - start) + region.data + bytes(stop - region.end))
    return replace(call, case=replace(call.case, memory=MappingProxyType(memory)), derived={})


def _unspecified(spec: Spec, rule_id: str, message: str) -> Result:
    return Result.unspecified((spec.rule(rule_id).id,), message)


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _verdict(call: Call, breaches: list[Breach]) -> tuple[Result | None, tuple[str, ...]]:
    """Rejected, unspecified, or (None, rule ids the legal outcome depends on), under the call's reading."""
    if not breaches:
        return None, ()
    illegal = [b for b in breaches if b.illegal(call)]
    if illegal:
        firm = [b for b in illegal if b.disputed is None]
        depends = () if firm else _unique(tuple(b.disputed for b in illegal if b.disputed))
        message = "; ".join(f"{b.rule.id}: {b.detail}" for b in illegal)
        return Result.rejected(_unique(tuple(b.rule.id for b in illegal)), message, depends), ()
    unspecified = [b for b in breaches if b.rule.status is Status.UNSPECIFIED]
    if unspecified:
        message = "; ".join(f"{b.rule.id}: {b.detail}" for b in unspecified)
        return Result.unspecified(_unique(tuple(b.rule.id for b in unspecified)), message), ()
    return None, _unique(tuple(b.disputed for b in breaches if b.disputed))


def _memory_breaches(call: Call, spans: moves.Extents, plan: Transfer,
                     bounds: bool = True) -> tuple[list[Breach], tuple[str, ...]]:
    """Accesses outside the case's regions (unless `bounds` is False) or beyond a memory's capacity under the
    call's reading (with disputed capacities noted)."""
    spec = call.spec
    breaches, depends = [], []
    for name, span in zip(("src", "dst"), spans):
        if span is None:
            continue
        if bounds:
            outside = _outside(call, name, span, plan)
            if outside:
                breaches.append(Breach(spec.rule(BOUNDS), outside))
        capacity = call.product.capacities.get(span.memory)
        if capacity is None:
            continue
        point = spec.rule(capacity.rule).dispute if capacity.rule else None
        limit = call.reading.capacity(capacity, point)
        readings = (capacity.bytes, *capacity.alternatives.values())   # every reading of the capacity
        if span.stop > limit:
            disputed_by = capacity.rule if any(span.stop <= bytes_ for bytes_ in readings) else None
            breaches.append(Breach(spec.rule(CAPACITY), f"{_where(name, span)} exceed the {limit}-B "
                                                         f"capacity on {call.product.id}", disputed_by))
        elif capacity.rule and any(span.stop > bytes_ for bytes_ in readings):
            depends.append(capacity.rule)
    return breaches, tuple(depends)


def _outside(call: Call, name: str, span: moves.Extent, plan: Transfer) -> str | None:
    """How the operand's accesses leave the case's regions of their memory (None when they do not): one
    region holding the whole span, or, with several regions (sparse-memory), one holding each element."""
    if not call.sparse:
        region = call.case.memory.get(span.memory)
        if region is None:
            return f"{_where(name, span)}: the case has no {span.memory} region"
        if not region.contains(span.start, span.stop):
            return f"{_where(name, span)} leave the region [{region.address}, {region.end})"
        return None
    regions = moves.regions_of(call.case.memory, span.memory)
    if not regions:
        return f"{_where(name, span)}: the case has no {span.memory} region"
    if any(region.contains(span.start, span.stop) for _, region in regions):
        return None
    missing = moves.uncovered(call, name, plan)
    if missing is None:
        return None
    return (f"{name} bytes [{missing[0]}, {missing[1]}) of {span.memory} lie in none of its regions "
            f"({', '.join(f'{key} [{region.address}, {region.end})' for key, region in regions)})")


def _where(name: str, span: moves.Extent) -> str:
    return f"{name} bytes [{span.start}, {span.stop}) of {span.memory}"
