"""Which overflow widths a legal call's derived quantities cross: the byte offsets the spec names per API
(spec/<api>.yaml `derived`: a burst's start, a fractal's start, a slice element's or a row's offset) against
2^width for each of their widths.

An implementation that computes such an offset in 32 bits before widening it to a 64-bit address (`block *
(blockLen + gap) * 32` in uint32_t) moves the right bytes until the offset reaches 2^32 (2^31 in int32_t),
and the wrong ones from there on: only a legal call whose offset gets that far shows it. The run records, per
test, the crossings its legal cases made (runner.witnessed_bits); the reports set them against the crossings some legal
call can make at all (strategies.crossings).
"""
from __future__ import annotations

from ascendc_conformance.format.case import Case
from ascendc_conformance.reference.api_contract import module_for
from ascendc_conformance.reference.call import resolve
from ascendc_conformance.spec.model import Reading, Spec


def crossings(case: Case, spec: Spec, reading: Reading | None = None) -> dict[str, tuple[int, ...]]:
    """Per derived quantity of the case's API, the widths w (of its spec entry) for which the (legal) call's
    quantity reaches 2^w bytes; quantities that cross none are left out. The case's memory is not used."""
    call = resolve(case, spec, reading)
    values = module_for(call.api).derived(call)
    found = {}
    for quantity in call.api.derived:
        value = values.get(quantity.name)
        crossed = tuple(width for width in quantity.widths if value is not None and value >= 1 << width)
        if crossed:
            found[quantity.name] = crossed
    return found
