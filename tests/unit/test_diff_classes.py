"""judge.diff's byte classes against their definitions, written the slow way, byte by byte and element by element:
a differing byte no written element holds is `wrote-outside`; a differing written element is `permuted` when the
whole written area's elements are a rearrangement of the expected ones or when its run (differing written elements,
each starting where the one before it ends) is, otherwise `unwritten` when it still holds its pre-call bytes and
`wrong-value` when not. The shortcuts the diff takes (elements read as integers, checks skipped where the sums
already differ, runs found where the class changes) must never change a class."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendc_conformance.judge import diff

SIZES = (1, 2, 4, 8)   # the dtype sizes the spec's schema allows


def permuted_by_definition(starts: np.ndarray, size: int, differs: np.ndarray, want: list[bytes],
                           got: list[bytes]) -> np.ndarray:
    """The elements of a run (differing written elements, each starting where the one before it ends, in address
    order) of two or more whose actual values, sorted, are its expected values, sorted."""
    index = sorted(np.flatnonzero(differs).tolist(), key=lambda i: int(starts[i]))
    runs: list[list[int]] = []
    for i in index:
        if runs and int(starts[runs[-1][-1]]) + size == int(starts[i]):
            runs[-1].append(i)
        else:
            runs.append([i])
    mask = np.zeros(len(starts), dtype=bool)
    for run in runs:
        if len(run) > 1 and sorted(want[i] for i in run) == sorted(got[i] for i in run):
            mask[run] = True
    return mask


@st.composite
def regions(draw: st.DrawFn) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(size, starts, before, expected, actual): written elements of `size` bytes at shuffled, sometimes gapped
    places of a small region (one operand's: all alike modulo `size`); its bytes from a small alphabet (so that
    permutations and equal sums happen); the actual image the expected one with its written elements shuffled,
    some elements put back to their pre-call bytes and some bytes replaced, inside or outside the written ones."""
    size = draw(st.sampled_from(SIZES))
    count = draw(st.integers(1, 10))
    shift = draw(st.integers(0, size - 1))
    gaps = draw(st.lists(st.integers(0, 1), min_size=count, max_size=count))
    places = np.cumsum([draw(st.integers(0, 1))] + gaps[:-1]) + np.arange(count)   # in elements
    starts = shift + size * places[np.array(draw(st.permutations(range(count))), dtype=np.int64)]
    length = int(starts.max()) + size + draw(st.integers(0, 2 * size))
    alphabet = st.integers(0, 3)
    before, expected = (np.array(draw(st.lists(alphabet, min_size=length, max_size=length)), dtype=np.uint8)
                        for _ in range(2))
    actual = expected.copy()
    shuffled = np.array(draw(st.permutations(range(count))), dtype=np.int64)
    rows = np.asarray(starts)[:, None] + np.arange(size)
    actual[rows] = expected[rows[shuffled]]
    for element in draw(st.lists(st.integers(0, count - 1), max_size=2)):
        actual[rows[element]] = before[rows[element]]
    for offset in draw(st.lists(st.integers(0, length - 1), max_size=3)):
        actual[offset] = draw(alphabet)
    return size, starts, before, expected, actual


def classes_by_definition(size: int, starts: np.ndarray, before: np.ndarray, expected: np.ndarray,
                          actual: np.ndarray) -> list[int]:
    """Each byte's class (-1: equal) by the definitions of the module's docstring."""
    classes = [diff.OUTSIDE if e != a else -1 for e, a in zip(expected.tolist(), actual.tolist())]
    spans = [range(int(start), int(start) + size) for start in starts]
    want = [expected[span].tobytes() for span in spans]
    got = [actual[span].tobytes() for span in spans]
    differs = np.array([w != g for w, g in zip(want, got)])
    whole = sorted(want) == sorted(got)
    permuted = permuted_by_definition(starts, size, differs, want, got)
    for i, span in enumerate(spans):
        if not differs[i]:
            continue
        kind = (diff.PERMUTED if whole or permuted[i] else
                diff.UNWRITTEN if got[i] == before[span].tobytes() else diff.WRONG)
        for offset in span:
            classes[offset] = kind
    return classes


@settings(max_examples=500, deadline=None)
@given(regions())
def test_every_byte_is_classed_by_its_definition(drawn: tuple) -> None:
    size, starts, before, expected, actual = drawn
    elements = diff._Elements.within(starts.astype(np.uint64) + np.uint64(1000), 1000, expected.size, size)
    classes = diff.classify(expected != actual, before, expected, actual, elements)
    assert classes.tolist() == classes_by_definition(size, starts, before, expected, actual)


@settings(max_examples=300, deadline=None)
@given(regions())
def test_permuted_runs_and_multisets_follow_their_definitions(drawn: tuple) -> None:
    size, starts, _, expected, actual = drawn
    elements = diff._Elements.within(starts.astype(np.uint64), 0, expected.size, size)
    assert elements is not None
    want, got = elements.of(expected), elements.of(actual)
    differs = want != got
    as_bytes = [[data[int(start):int(start) + size].tobytes() for start in starts] for data in (expected, actual)]
    if differs.any():
        assert (diff._permuted_runs(starts, size, differs, want, got)
                == permuted_by_definition(starts, size, differs, *as_bytes)).all()
    assert diff._same_multiset(want, got) == (sorted(as_bytes[0]) == sorted(as_bytes[1]))


def runs_by_definition(classes: list[int], written: list[bool]) -> list[tuple[int, int, int]]:
    """(start, stop, class) of each maximal stretch of bytes of one class (not -1); then each two neighbours of
    one class at most BRIDGE_BYTES bytes apart joined, where the bytes from the last of the one to the first of
    the other are all written by the call or all not."""
    runs: list[tuple[int, int, int]] = []
    for offset, kind in enumerate(classes):
        if kind < 0:
            continue
        if runs and runs[-1][1] == offset and runs[-1][2] == kind:
            runs[-1] = (runs[-1][0], offset + 1, kind)
        else:
            runs.append((offset, offset + 1, kind))
    joined: list[tuple[int, int, int]] = []
    for run in runs:
        if joined:
            start, stop, kind = joined[-1]
            across = set(written[stop - 1:run[0] + 1])
            if run[2] == kind and run[0] - stop <= diff.BRIDGE_BYTES and len(across) == 1:
                joined[-1] = (start, run[1], kind)
                continue
        joined.append(run)
    return joined


STRETCH = st.tuples(st.sampled_from((-1, -1, 0, 1)), st.booleans(),   # lengths about the bridge's width
                    st.sampled_from((1, 2, diff.BRIDGE_BYTES - 1, diff.BRIDGE_BYTES, diff.BRIDGE_BYTES + 1)))


@settings(max_examples=500, deadline=None)
@given(st.lists(STRETCH, min_size=1, max_size=12))
def test_runs_join_by_their_definition(stretches: list[tuple[int, bool, int]]) -> None:
    classes = [kind for kind, _, length in stretches for _ in range(length)]
    written = [mark for _, mark, length in stretches for _ in range(length)]
    starts, stops, kinds = diff._runs(np.array(classes, dtype=np.int8), np.array(written))
    assert list(zip(starts.tolist(), stops.tolist(), kinds.tolist())) == runs_by_definition(classes, written)
