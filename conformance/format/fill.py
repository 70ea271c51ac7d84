"""The fill recipe: the bytes of a case's memory region, from a seed, a size and an address.

Every generated region is filled by this one function, in runs and in packs alike, so that a pack can give a
region as its recipe instead of its bytes and any language can rebuild it (the C++ reference is
examples/cpp/src/fill.hpp; FORMAT.md of a pack spells it out):

- seed 0: `size` zero bytes;
- otherwise SplitMix64, counter-based: 64-bit word i (i = 0, 1, ...) is
  `mix(seed + (i + 1) * 0x9E3779B97F4A7C15 mod 2**64)` with
  `mix(z) = z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31`
  (products mod 2**64), written little-endian; the region is the first `size` bytes of words 0, 1, ...;
- `half_nan_to_inf` (a source region of a converting copy from a 2-byte float): every little-endian 16-bit
  word lying wholly in the region at an even absolute address (region address + offset) whose exponent bits
  (0x7C00) are all set gets its mantissa cleared (`w &= 0xFC00`): a half NaN becomes an infinity, since a
  widening copy's NaN payload is not verified (semantics 3.1).
"""
from __future__ import annotations

from collections import deque
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any, Iterator

import numpy as np

from ascendc_conformance.format.bounded import MAX_LINE_BYTES

GOLDEN = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB
MAX_SEED = 2**64 - 1
MAX_FILL_BYTES = MAX_LINE_BYTES // 4 * 3
"""The largest region a recipe makes: what one case line to a target carries (its bytes in base64, 4 characters
per 3 bytes, in a line of at most MAX_LINE_BYTES). A recipe asking for more (a pack's 2**50) is refused before
anything is allocated."""


@dataclass(frozen=True)
class Fill:
    """How one region's bytes are made: `seed` (0: zeros), `size` bytes, and the half-NaN fix or not."""

    seed: int
    size: int
    half_nan_to_inf: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"a fill seed is 0 to 2**64-1, got {self.seed}")
        if not 0 <= self.size <= MAX_FILL_BYTES:
            raise ValueError(f"a fill size is 0 to {MAX_FILL_BYTES} bytes (what a case line carries), got {self.size}")

    def to_json(self) -> dict[str, int | bool]:
        return {"seed": self.seed, "size": self.size, "half_nan_to_inf": self.half_nan_to_inf}

    def bytes_at(self, address: int) -> np.ndarray:
        """The region's bytes when it starts at `address` (the half-NaN fix looks at absolute addresses)."""
        data = splitmix64_bytes(self.seed, self.size)
        return without_nan_halves(data, address) if self.half_nan_to_inf else data


def splitmix64_bytes(seed: int, size: int) -> np.ndarray:
    """`size` bytes of the recipe for `seed` (a fresh, writable uint8 array; zeros for seed 0). Worked out in place,
    a chunk of CHUNK_WORDS words at a time from the gammas of `_steps` (no temporary but one chunk's): a
    large region's fill is a few passes over memory, not a dozen arrays."""
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a fill seed is 0 to 2**64-1, got {seed}")
    if seed == 0:
        return np.zeros(size, dtype=np.uint8)
    words = -(-size // 8)
    made = np.empty(words, dtype="<u8")
    temp = np.empty(min(words, CHUNK_WORDS), dtype=np.uint64)
    steps = _steps()
    for first in range(0, words, CHUNK_WORDS):
        count = min(CHUNK_WORDS, words - first)
        z, t = made[first:first + count], temp[:count]
        np.add(steps[:count], np.uint64((seed + first * GOLDEN) % 2**64), out=z)   # seed + (i + 1) * gamma
        for shift, multiplier in _MIXING:
            np.right_shift(z, shift, out=t)
            np.bitwise_xor(z, t, out=z)
            if multiplier is not None:
                np.multiply(z, multiplier, out=z)
    return made.view(np.uint8)[:size]


CHUNK_WORDS = 1 << 18   # words of the recipe worked out at once (2 MiB)
_MIXING = ((np.uint64(30), np.uint64(MIX_1)), (np.uint64(27), np.uint64(MIX_2)), (np.uint64(31), None))
"""mix(z), step by step: z ^= z >> 30; z *= MIX_1; z ^= z >> 27; z *= MIX_2; z ^= z >> 31."""


@cache
def _steps() -> np.ndarray:
    """(i + 1) * GOLDEN mod 2**64 for the CHUNK_WORDS words of a chunk (i = 0, 1, ...): a chunk's counters are
    these plus its first counter."""
    return np.arange(1, CHUNK_WORDS + 1, dtype=np.uint64) * np.uint64(GOLDEN)


def without_nan_halves(data: np.ndarray, start: int) -> np.ndarray:
    """Turn IEEE half NaNs into infinities, in place: the 16-bit words at even absolute addresses of a region
    starting at `start` (see the module doc)."""
    offset = start % 2
    halves = data[offset: offset + (len(data) - offset) // 2 * 2].view("<u2")
    nan = (halves & 0x7C00) == 0x7C00
    halves[nan] &= 0xFC00
    return data


class Recipes:
    """The recipe of every region's bytes `filled_bytes` made while recording (`recording()`): a pack build draws
    cases as a run does and keeps each region's recipe instead of its bytes. The bytes are looked up by identity
    (each is kept alive until `clear`), so a case's regions are plain bytes, as every case's are."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[bytes, Fill]] = {}

    def add(self, data: bytes, fill: Fill) -> None:
        self._made[id(data)] = (data, fill)

    def of(self, data: bytes) -> Fill | None:
        """The recipe `data` was made by (None: not made by filled_bytes while recording)."""
        made = self._made.get(id(data))
        return made[1] if made is not None and made[0] is data else None

    def clear(self) -> None:
        self._made.clear()


_RECORDING: ContextVar[Recipes | None] = ContextVar("ascendc_fill_recipes", default=None)


@contextmanager
def recording() -> Iterator[Recipes]:
    """Remember the recipe of every region made inside the block."""
    recipes = Recipes()
    token = _RECORDING.set(recipes)
    try:
        yield recipes
    finally:
        _RECORDING.reset(token)


def filled_bytes(fill: Fill, address: int) -> bytes:
    """The bytes of the region `fill` makes at `address` (its recipe remembered while recording, and for the
    last large regions made: `made_by`)."""
    data = fill.bytes_at(address).tobytes()
    recipes = _RECORDING.get()
    if recipes is not None:
        recipes.add(data, fill)
    if fill.size >= LARGE_FILL_BYTES:
        _LARGE.append((data, fill))
    return data


LARGE_FILL_BYTES = 1024 * 1024   # a region this large is saved as its recipe where it is known (replay files)
_LARGE: deque[tuple[bytes, Fill]] = deque(maxlen=2)   # the last large regions made (a large case has one)


def made_by(data: bytes) -> Fill | None:
    """The recipe of large region bytes filled_bytes made last (None: other bytes); looked up by identity."""
    return next((fill for made, fill in _LARGE if made is data), None)


def read_recipe(where: str, recipe: Any) -> Fill:
    """The fill recipe a file gives (`{"seed", "size", "half_nan_to_inf"}`); ValueError as region_bytes's."""
    try:
        return Fill(int(recipe["seed"]), int(recipe["size"]), bool(recipe.get("half_nan_to_inf", False)))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(_not_a_recipe(where, error)) from None


def region_bytes(where: str, address: int, recipe: Any) -> bytes:
    """The bytes of a region a file gives as its fill recipe (`{"seed", "size", "half_nan_to_inf"}`); ValueError
    naming `where` and what a recipe holds for one that is not one."""
    fill = read_recipe(where, recipe)
    try:
        return filled_bytes(fill, address)
    except ValueError as error:
        raise ValueError(_not_a_recipe(where, error)) from None


def _not_a_recipe(where: str, error: Exception) -> str:
    return (f"{where}.fill is not a fill recipe ({error}); expected "
            '{"seed": 0..2**64-1, "size": bytes, "half_nan_to_inf": false}')
