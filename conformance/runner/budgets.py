"""Tests that draw fewer cases than their profile's: the suite's heavy tests (strategies.pinned).

Hypothesis takes a test's number of cases from the settings of its test function, which every parameter of the
suite's `test_boundary` shares. A test whose every case is heavy (a GM region of tens of MiB, thousands of GM
regions) runs a copy of that Hypothesis test made with fewer examples (format.defaults.HEAVY_CASES), built once
per number of cases from the same inner test function (Hypothesis's documented `.hypothesis.inner_test`).
"""
from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_COPIES: dict[tuple[Callable[..., Any], int], Callable[..., Any]] = {}


def draw_at_most(item: pytest.Function, cases: int) -> None:
    """Make `item` (a suite test drawing `data`) draw `cases` cases under the run's Hypothesis profile."""
    inner = item.obj.hypothesis.inner_test
    copy = _COPIES.get((inner, cases))
    if copy is None:
        copy = _COPIES[inner, cases] = settings(settings.default, max_examples=cases)(given(data=st.data())(inner))
    item.obj = copy
