"""Drawing integers over whole documented ranges while the case still fits the product's memories.

`draw_fields` draws parameters one at a time in a drawn order; each is drawn between its minimum and the
largest value that still fits with the parameters not yet drawn at their minimum. Every value of every
range is therefore reachable as far as capacity allows, and shrinking goes to small, one-block cases.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

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
    materialise: Callable[[Mapping[str, int]], dict[str, Any]]
    pins: Mapping[str, int]

    def reachable(self) -> bool:
        """Whether the pins can be met at all: within their ranges, with everything else at its minimum (a range
        a declared maximum left empty can be met by nothing)."""
        ranges = {field.name: field for field in self.fields}
        if any(field.low > field.high for field in self.fields if field.name not in self.pins):
            return False
        if any(name in ranges and not ranges[name].low <= value <= ranges[name].high for name, value in self.pins.items()):
            return False
        return self.legal({field.name: field.low for field in self.fields} | dict(self.pins))

    def smallest(self) -> dict[str, Any]:
        """The parameters with every variable at its minimum and the pins at their values, fitting or not."""
        return self.materialise({field.name: field.low for field in self.fields} | dict(self.pins))

    def draw(self, draw: st.DrawFn) -> dict[str, Any]:
        if not self.reachable():
            raise Unreachable(f"{dict(self.pins)} cannot be met")
        return self.materialise(draw_fields(draw, self.fields, self.legal, self.pins))


# One size class per case, shared by every biased draw of that case (st.shared keys it to the example): most
# cases are small (cheap to move, and where shrinking ends), one in eight is wide (its values from any bit band
# up to capacity). Each test drawing from its own seed (runner.seeds), a ci run has about that many wide cases;
# the boundary and reach tests pin the largest values.
WIDE_CASE = st.shared(st.integers(0, 7).map(lambda n: n == 7), key="strategies.draw.WIDE_CASE")
SMALL_CASE_BYTES = 16 * 1024  # budget of a small case where a product of many drawn counts sizes it (slices)
# Whether a case places its operands anywhere in their memories (else near their lowest addresses), apart from
# its size class: an address costs nothing (regions cover only the bytes a call touches), and a target that keeps
# GM addresses in 32 or 48 bits shows only above 4 GiB or 256 TiB, so every other case is placed far.
FAR_ADDRESSES = st.shared(st.booleans(), key="strategies.draw.FAR_ADDRESSES")
# A far address's top bits are drawn as a share of the range in these steps: Hypothesis draws an integer of a wide
# range mostly small (st.integers(0, 2**64 - 1) is below 2**32 four times in five), of 8 bits evenly.
ADDRESS_STEPS = 255


def anywhere(draw: st.DrawFn, low: int, high: int, label: str) -> int:
    """A value of [low, high] whose top bits are spread evenly (an address placed far), shrinking to low."""
    share = draw(st.integers(0, ADDRESS_STEPS), label=f"{label}: where in the range")
    start = low + (high - low) * share // ADDRESS_STEPS
    return draw(st.integers(start, min(high, low + (high - low) * (share + 1) // ADDRESS_STEPS)), label=label)


def bit_bands(low: int, high: int) -> list[tuple[int, int]]:
    """[low, high] (low >= 0) cut where the highest set bit changes: [0, 0], [1, 1], [2, 3], [4, 7], ... A value
    drawn from a band drawn uniformly sets each bit of the range's top one as often as any other: a field kept
    in too few bits, or read as signed, shows only where its high bits are set."""
    found, start = [], low
    while start <= high:
        stop = min(high, (1 << start.bit_length()) - 1) if start else 0
        found.append((start, stop))
        start = stop + 1
    return found


# How a wide case draws a value, by a drawn number of WAYS (shrinking goes to SMALL): a quarter small, half from a
# bit band, an eighth all ones, an eighth the top. The reach and boundary tests pin the largest values already;
# the legal tests' wide cases spread over the bands, which also keeps their size (the run's time) moderate.
WAYS = (*["small"] * 2, *["band"] * 4, "ones", "top")


def all_ones(low: int, high: int) -> int:
    """The largest value of [low, high] whose bits below its highest one are all set (2**k - 1), else high:
    clearing any one of its bits gives another value of the range, so it witnesses every bit at once."""
    ones = (1 << (high + 1).bit_length() - 1) - 1 if high >= 0 else high
    return ones if ones >= low else high


def biased(draw: st.DrawFn, low: int, high: int, label: str, wide: bool | None = None) -> int:
    """Small values in a small case; in a wide case a small value, a value of a drawn bit band (bit_bands: most
    often near its top, where the lower bits are set too), the largest value with every lower bit set
    (all_ones), or the top of the range.

    Every strategy drawn from is a plain st.integers, which Hypothesis keeps per bounds: a strategy built per
    call (a one_of over the bands of a range that changes from case to case) would be validated on every draw,
    which costs far more than the draw. `wide` overrides the case's size class (a far slice, whatever the case)."""
    if not (draw(WIDE_CASE) if wide is None else wide):
        return draw(st.integers(low, min(high, low + 8)), label=label)
    way = WAYS[draw(st.integers(0, len(WAYS) - 1), label=f"{label}: small, band, ones or top")]
    if way == "small":
        return draw(st.integers(low, min(high, low + 8)), label=label)
    if way == "top":
        return high
    if low < 0:   # a range around a faulty negative value: no bits to speak of
        return draw(st.integers(low, high), label=label)
    if way == "ones":
        return all_ones(low, high)
    bands = bit_bands(low, high)
    bottom, top = bands[draw(st.integers(0, len(bands) - 1), label=f"{label}: bit band")]
    return top - draw(st.integers(0, top - bottom), label=label)


@lru_cache(maxsize=1024)
def _orders(free: tuple[FieldRange, ...]) -> st.SearchStrategy[list[FieldRange]]:
    return st.permutations(free)


def largest_fitting(field: FieldRange, values: Mapping[str, int], fits: Callable[[dict[str, Any]], bool]) -> int:
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


def draw_fields(draw: st.DrawFn, fields: Sequence[FieldRange], fits: Callable[[dict[str, Any]], bool],
                pinned: Mapping[str, int] | None = None) -> dict[str, int]:
    """Draw every field; `pinned` ones keep their value (Unreachable if the pins alone cannot fit)."""
    pinned = dict(pinned or {})
    values = {field.name: field.low for field in fields} | pinned
    if not fits(values):
        raise Unreachable(f"{pinned or 'the minimal parameters'} do not fit")
    free = tuple(field for field in fields if field.name not in pinned)
    for field in draw(_orders(free), label="draw order"):
        top = largest_fitting(field, values, fits)
        values[field.name] = biased(draw, field.low, top, field.name)
    return values
