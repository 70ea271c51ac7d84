"""One Hypothesis seed per conformance test, derived from the run's seed and the test's id.

Given `--hypothesis-seed N`, Hypothesis starts every test from the same random stream, so every test whose draws
have the same structure makes the same choices at the same places: the fifth case of every legal test is wide,
or no case of any test is, and a field's bit band is the same in all of them. A seed run would then sample a
handful of sizes, bands and layouts over and over. Each test gets a seed of its own instead, derived from N and
its id: the run is as reproducible from N (with the same Hypothesis release) and its tests' draws independent.
"""
from __future__ import annotations

import hashlib

import hypothesis
import pytest


def test_seed(run_seed: int, test_name: str) -> int:
    """The seed of one test (its pytest name, e.g. test_legal[...]) in a run seeded with `run_seed`."""
    return int.from_bytes(hashlib.sha256(f"{run_seed}:{test_name}".encode()).digest()[:8], "little")


test_seed.__test__ = False  # type: ignore[attr-defined]  # not a pytest test (its name starts with test_)


def seed_item(item: pytest.Item, run_seed: int | None) -> None:
    """Seed the Hypothesis test behind `item` for this item (its function is shared by every parameter)."""
    if run_seed is not None:
        assert isinstance(item, pytest.Function), "a conformance test is a test function"
        hypothesis.seed(test_seed(run_seed, item.name))(item.obj)
