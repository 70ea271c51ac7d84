"""judge.diff's element classes against their definitions, written the slow way: a run of differing written
elements is `permuted` exactly when its actual elements are a rearrangement of its expected ones (the checks the
diff skips where the keys' sums already differ must never change a class)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendc_conformance.judge import diff


def permuted_by_definition(written: np.ndarray, differs: np.ndarray, want: np.ndarray, got: np.ndarray) -> np.ndarray:
    """The elements of a run (differing written elements, each starting where the one before it ends, in address
    order) of two or more whose actual rows, sorted, are its expected rows, sorted."""
    index = sorted(np.flatnonzero(differs).tolist(), key=lambda i: int(written[i, 0]))
    runs: list[list[int]] = []
    for i in index:
        if runs and int(written[runs[-1][-1], -1]) + 1 == int(written[i, 0]):
            runs[-1].append(i)
        else:
            runs.append([i])
    mask = np.zeros(len(written), dtype=bool)
    for run in runs:
        if len(run) > 1 and sorted(map(bytes, want[run])) == sorted(map(bytes, got[run])):
            mask[run] = True
    return mask


@st.composite
def elements(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Written elements of 1-3 bytes at shuffled, sometimes gapped places; expected rows from a small alphabet
    (so that permutations and equal sums happen), actual rows a shuffle of them with some replaced."""
    size = draw(st.integers(1, 3))
    count = draw(st.integers(1, 12))
    gaps = draw(st.lists(st.integers(0, 1), min_size=count, max_size=count))
    starts = np.cumsum([0] + [size + gap for gap in gaps[:-1]])
    order = draw(st.permutations(range(count)))
    written = np.array([[starts[i] + b for b in range(size)] for i in order], dtype=np.int64)
    want = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=size, max_size=size), min_size=count,
                                  max_size=count)), dtype=np.uint8)
    got = want[np.array(draw(st.permutations(range(count))))].copy()
    for row in draw(st.lists(st.integers(0, count - 1), max_size=3)):
        got[row] = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    return written, (want != got).any(axis=1), want, got


@settings(max_examples=500, deadline=None)
@given(elements())
def test_permuted_runs_and_multisets_follow_their_definitions(drawn: tuple[np.ndarray, ...]) -> None:
    written, differs, want, got = drawn
    if differs.any():
        assert (diff._permuted_runs(written, differs, want, got) == permuted_by_definition(written, differs, want,
                                                                                           got)).all()
    assert diff._same_multiset(want, got) == (sorted(map(bytes, want)) == sorted(map(bytes, got)))
