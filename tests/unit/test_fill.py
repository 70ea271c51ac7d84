"""The fill recipe (format.fill): SplitMix64 as published, word by word; zeros for seed 0; the half-NaN fix at
absolute addresses; what the strategies draw is made by it and remembers it."""
from __future__ import annotations

import base64

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendc_conformance.format.bounded import MAX_LINE_BYTES
from ascendc_conformance.format.fill import MAX_FILL_BYTES, Fill, recording, region_bytes, splitmix64_bytes, without_nan_halves
from ascendc_conformance.strategies.legal import legal_cases, select_paths
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.sample import draw

SPEC = load_spec()

MASK = 2**64 - 1


def splitmix64_words(seed: int, count: int) -> list[int]:
    """The generator as Vigna publishes it: a state advanced by the golden gamma, each output mixed."""
    state, out = seed, []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def test_the_published_test_vector() -> None:
    """SplitMix64 seeded with 1234567 (the reference implementation's test vector) gives these first words."""
    assert splitmix64_words(1234567, 3) == [6457827717110365317, 3203168211198807973, 9817491932198370423]
    data = splitmix64_bytes(1234567, 24)
    assert [int.from_bytes(data[i:i + 8].tobytes(), "little") for i in (0, 8, 16)] == splitmix64_words(1234567, 3)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(1, MASK), size=st.integers(0, 100))
def test_bytes_are_the_little_endian_words_cut_to_size(seed: int, size: int) -> None:
    words = splitmix64_words(seed, -(-size // 8))
    expected = b"".join(word.to_bytes(8, "little") for word in words)[:size]
    assert splitmix64_bytes(seed, size).tobytes() == expected


def test_seed_zero_is_zeros_and_seeds_outside_64_bits_are_refused() -> None:
    assert splitmix64_bytes(0, 9).tobytes() == bytes(9)
    with pytest.raises(ValueError):
        splitmix64_bytes(2**64, 8)


@pytest.mark.parametrize("address", [0, 1, 4096, 4097])
def test_half_nans_become_infinities_at_even_absolute_addresses(address: int) -> None:
    nan, inf, plain = 0x7E01, 0x7C00, 0x3C00   # a half NaN, +infinity, 1.0
    words = np.array([nan, plain, 0xFFFF, inf], dtype="<u2").view(np.uint8)
    data = np.concatenate([np.zeros(address % 2, np.uint8), words, np.zeros(1, np.uint8)])
    fixed = without_nan_halves(data.copy(), address)[address % 2:][:8].view("<u2")
    assert list(fixed) == [0x7C00, plain, 0xFC00, inf]


def test_the_strategies_fill_regions_by_the_recipe_recorded_in_a_pack_build() -> None:
    with recording() as recipes:
        cases = draw(legal_cases(SPEC, select_paths(SPEC, products=["atlas-a2"], apis=["DataCopy"])), 10, seed=3,
                     keep=lambda case: case)
        fills = [(region, recipes.of(region.data)) for case in cases for region in case.memory.values()]
    for region, fill in fills:
        assert fill is not None and type(region.data) is bytes and fill.size == len(region.data)
        assert region.data == fill.bytes_at(region.address).tobytes()
    assert not any(fill.half_nan_to_inf for _, fill in fills if fill is not None)
    assert recipes.of(bytes(4)) is None   # bytes it did not make


def test_a_converting_copy_from_half_has_its_source_region_fixed() -> None:
    [path] = [p for p in select_paths(SPEC, products=["atlas-a2"], apis=["DataCopy"]) if p.label.endswith("half->float")]
    with recording() as recipes:
        cases = draw(legal_cases(SPEC, [path]), 5, seed=3, keep=lambda case: case)
        fixes = [{name: getattr(recipes.of(region.data), "half_nan_to_inf", None) for name, region in case.memory.items()}
                 for case in cases]
    assert fixes == [{"L1": True, "BT": False}] * len(cases)   # C1 is L1, C2 the bias table


def test_a_recipe_makes_at_most_what_one_case_line_carries() -> None:
    """The bound is the line's (docs/robustness.md): 64 MiB of base64 carry 48 MiB, for recipes in packs and in
    replay files alike."""
    assert MAX_FILL_BYTES == MAX_LINE_BYTES // 4 * 3 == 48 * 2**20
    Fill(seed=1, size=MAX_FILL_BYTES)
    with pytest.raises(ValueError, match="a fill size is 0 to 50331648 bytes"):
        Fill(seed=1, size=MAX_FILL_BYTES + 1)
    with pytest.raises(ValueError, match=r"case\.memory\.GM\.fill is not a fill recipe \(a fill size"):
        region_bytes("case.memory.GM", 0, {"seed": 1, "size": MAX_FILL_BYTES + 1})
