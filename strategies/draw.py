"""Drawing integers over whole documented ranges while the case still fits the product's memories.

`draw_fields` draws parameters one at a time in a drawn order; each is drawn between its minimum and the
largest value that still fits with the parameters not yet drawn at their minimum. Every value of every
range is therefore reachable as far as capacity allows, and shrinking goes to small, one-block cases.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Mapping, Sequence

from hypothesis import strategies as st

from ascendc_conformance.strategies.context import Unreachable


@dataclass(frozen=True)
class FieldRange:
    name: str
    low: int
    high: int


@dataclass(frozen=True)
class Problem:
    """What to draw for one path: the variables, when a choice of them is legal, how it becomes parameters.

    `pins` are variable values fixed in advance (boundary values), already translated to variable names.
    """

    fields: tuple[FieldRange, ...]
    legal: Callable[[Mapping[str, int]], bool]
    materialise: Callable[[Mapping[str, int]], dict]
    pins: Mapping[str, int]

    def reachable(self) -> bool:
        """Whether the pins can be met at all: within their ranges, with everything else at its minimum."""
        ranges = {field.name: field for field in self.fields}
        if any(name in ranges and not ranges[name].low <= value <= ranges[name].high for name, value in self.pins.items()):
            return False
        return self.legal({field.name: field.low for field in self.fields} | dict(self.pins))

    def smallest(self) -> dict:
        """The parameters with every variable at its minimum and the pins at their values, fitting or not."""
        return self.materialise({field.name: field.low for field in self.fields} | dict(self.pins))

    def draw(self, draw) -> dict:
        if not self.reachable():
            raise Unreachable(f"{dict(self.pins)} cannot be met")
        return self.materialise(draw_fields(draw, self.fields, self.legal, self.pins))


# One size class per case, shared by every biased draw of that case (st.shared keys it to the example): most
# cases are small (cheap to move, and where shrinking ends), a quarter range freely up to capacity.
WIDE_CASE = st.shared(st.integers(0, 3).map(lambda n: n == 3), key="strategies.draw.WIDE_CASE")
SMALL_CASE_BYTES = 16 * 1024  # budget of a small case where a product of many drawn counts sizes it (slices)


@lru_cache(maxsize=4096)
def biased_integers(low: int, high: int) -> st.SearchStrategy[int]:
    """Small values in a small case; in a wide case small values, anything in range or the top of it.

    Kept per (low, high): a new strategy object is validated by Hypothesis on its first draw, which cost
    more than the draw itself when every field of every case built its own."""
    small = st.integers(low, min(high, low + 8))
    wide = st.one_of(small, st.integers(low, high), st.just(high))
    return WIDE_CASE.flatmap(lambda is_wide: wide if is_wide else small)


@lru_cache(maxsize=1024)
def _orders(free: tuple[FieldRange, ...]) -> st.SearchStrategy[list[FieldRange]]:
    return st.permutations(free)


def largest_fitting(field: FieldRange, values: Mapping[str, int], fits: Callable[[dict], bool]) -> int:
    """The largest value of `field` that fits, by bisection (fitting is monotone: more is never smaller)."""
    low, high = field.low, field.high
    if fits({**values, field.name: high}):
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if fits({**values, field.name: middle}):
            low = middle
        else:
            high = middle - 1
    return low


def draw_fields(draw, fields: Sequence[FieldRange], fits: Callable[[dict], bool],
                pinned: Mapping[str, int] | None = None) -> dict[str, int]:
    """Draw every field; `pinned` ones keep their value (Unreachable if the pins alone cannot fit)."""
    pinned = dict(pinned or {})
    values = {field.name: field.low for field in fields} | pinned
    if not fits(values):
        raise Unreachable(f"{pinned or 'the minimal parameters'} do not fit")
    free = tuple(field for field in fields if field.name not in pinned)
    for field in draw(_orders(free), label="draw order"):
        top = largest_fitting(field, values, fits)
        values[field.name] = draw(biased_integers(field.low, top), label=field.name)
    return values
