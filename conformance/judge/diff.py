"""Structured differences between the memory a target left and the memory the reference expects.

For every region the differing bytes are grouped into contiguous runs of one class:

* ``wrote-outside-expected-area`` — a byte the call must not write was changed;
* ``left-expected-bytes-unwritten`` — an element the call must write still holds its pre-call value;
* ``wrong-value`` — an element the call must write holds neither the expected nor the pre-call value;
* ``permuted`` — inside the written area the actual elements are a rearrangement of the expected ones
  (a transpose missing, bursts swapped), judged on elements of the destination dtype: over the whole
  written area, or else over one contiguous run of differing written elements.

Inside the written area a whole element counts as differing when any of its bytes does, so a wrong
element does not split into byte-sized runs where bytes happen to agree; and two runs of one class a few
matching bytes apart (at most BRIDGE_BYTES, all written or all not written by the call) form one run, so
a transpose that leaves the diagonal in place is one run, not thirty. A run's `differing` and the Diff's
byte counts count only the bytes that really differ. Everything is vectorised numpy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from ascendc_conformance.format.case import Case, Region, memory_of
from ascendc_conformance.reference.explain import Explanation, explain
from ascendc_conformance.spec.model import Reading, Spec

OUTSIDE, UNWRITTEN, WRONG, PERMUTED = range(4)
CLASSES = ("wrote-outside-expected-area", "left-expected-bytes-unwritten", "wrong-value", "permuted")
SHOW_BYTES = 8      # expected / actual bytes shown per run
MAX_RUNS = 200      # runs kept (with locations) in a Diff; the counts always cover every run
RENDER_RUNS = 20    # runs listed by format_diff
BRIDGE_BYTES = 8    # runs of one class at most this many matching bytes apart are one run
MISPLACED_BYTES = 8   # the fewest bytes of a run looked up to say where they belong


@dataclass(frozen=True)
class Run:
    """One contiguous run of differing bytes of one class: absolute [start, stop) of `region`."""

    region: str
    start: int
    stop: int
    kind: str
    expected: str       # hex of the first SHOW_BYTES expected bytes ("…" when the run is longer)
    actual: str
    differing: int      # bytes of [start, stop) that differ (fewer than its length when an element differs in
    #                     part or runs were bridged)
    described: Callable[[], tuple[str, str]] = field(repr=False, compare=False)
    # (location, misplaced), worked out when first asked: a failing case's diff keeps up to MAX_RUNS runs, and
    # naming each costs the API's locate; only a recorded failure's runs are all shown

    @cached_property
    def _where(self) -> tuple[str, str]:
        return self.described()

    @property
    def location(self) -> str:
        """Explanation.locate() of the run's first byte ("" without an explanation)."""
        return self._where[0]

    @property
    def misplaced(self) -> str:
        """Where the run's bytes belong, when they are the call's bytes put in the wrong place ("" otherwise)."""
        return self._where[1]

    @property
    def length(self) -> int:
        return self.stop - self.start

    def to_json(self, *, located: bool = True) -> dict[str, Any]:
        """The run v1 dict; `located` False leaves out its location and misplacement (what locating costs is a
        sort of every byte the call writes)."""
        data = {"region": self.region, "start": self.start, "stop": self.stop, "class": self.kind,
                "differing": self.differing, "expected": self.expected, "actual": self.actual}
        return {**data, "location": self.location, "misplaced": self.misplaced} if located else data


@dataclass(frozen=True)
class Diff:
    """All differences of one answer: the first `MAX_RUNS` runs in full, counts for every run."""

    runs: tuple[Run, ...]
    total_runs: int
    bytes_by_class: Mapping[str, int]
    runs_by_class: Mapping[str, int]

    @property
    def differing_bytes(self) -> int:
        return sum(self.bytes_by_class.values())

    @property
    def classes(self) -> tuple[str, ...]:
        """The classes present, in CLASSES order."""
        return tuple(kind for kind in CLASSES if self.runs_by_class.get(kind))

    def __bool__(self) -> bool:
        return self.total_runs > 0

    def to_json(self, max_runs: int | None = None, *, located: bool = True) -> dict[str, Any]:
        """The diff v1 dict, with every run it keeps or the first `max_runs`, each located unless `located` is
        False (a cause keyed by its first run's class needs no location: format.results.Cause.of)."""
        runs = self.runs[:max_runs]
        return {"differing_bytes": self.differing_bytes, "total_runs": self.total_runs,
                "bytes_by_class": dict(self.bytes_by_class), "runs_by_class": dict(self.runs_by_class),
                "runs": [run.to_json(located=located) for run in runs], "truncated": len(runs) < self.total_runs}


def diff_memory(before: Mapping[str, Region], expected: Mapping[str, Region], actual: Mapping[str, Region],
                explanation: Explanation | None = None, *, max_runs: int = MAX_RUNS) -> Diff:
    """Compare `actual` with `expected`, classing each run with the pre-call image `before` and the bytes the
    call writes (`explanation`, a reference.explain.Explanation; without it every difference counts as
    written-outside). The three images must have the same regions at the same addresses and sizes; a memory
    may have several (`GM`, `GM#1`, ...: the sparse-memory extension), each diffed on its own."""
    if set(expected) != set(actual) or set(expected) != set(before):
        raise ValueError(f"region names differ: before {sorted(before)}, expected {sorted(expected)}, "
                         f"actual {sorted(actual)}")
    runs: list[Run] = []
    total = 0
    byte_counts = np.zeros(len(CLASSES), dtype=np.int64)
    run_counts = np.zeros(len(CLASSES), dtype=np.int64)
    for name in sorted(expected):
        regions = (before[name], expected[name], actual[name])
        if len({(r.address, len(r.data)) for r in regions}) != 1:
            raise ValueError(f"region {name!r} differs in address or size: "
                             + ", ".join(f"[{r.address}, {r.end})" for r in regions))
        if regions[1].data == regions[2].data:   # nothing differs (one memcmp: a large source region is most
            continue                              # of a case's bytes, and every pass below is over every byte)
        address = regions[0].address
        old, want, got = (np.frombuffer(r.data, dtype=np.uint8) for r in regions)
        elements = (_Elements.within(explanation.dst_starts, address, want.size, explanation.dst_size)
                    if explanation is not None and explanation.dst_memory == memory_of(name) else None)
        differs = want != got
        classes = classify(differs, old, want, got, elements)
        written = np.zeros(want.size, dtype=bool)
        if elements is not None:
            elements.fill(written.view(np.uint8), np.ones(1, dtype=np.uint8))
        firsts, stops, kinds = _runs(classes, written)
        total += firsts.size
        byte_counts += np.bincount(classes[differs], minlength=len(CLASSES))
        run_counts += np.bincount(kinds, minlength=len(CLASSES))
        for start, stop, kind in zip(firsts[:max(max_runs - len(runs), 0)].tolist(), stops.tolist(), kinds.tolist()):
            runs.append(Run(name, address + start, address + stop, CLASSES[kind], _hex(want[start:stop]),
                            _hex(got[start:stop]), int(np.count_nonzero(differs[start:stop])),
                            partial(_described, want, got, address, start, stop, explanation, memory_of(name),
                                    misplaced=len(runs) < RENDER_RUNS and kind in (OUTSIDE, WRONG))))
    return Diff(tuple(runs), total,
                MappingProxyType({k: int(n) for k, n in zip(CLASSES, byte_counts) if n}),
                MappingProxyType({k: int(n) for k, n in zip(CLASSES, run_counts) if n}))


def diff_case(case: Case, expected: Mapping[str, Region], actual: Mapping[str, Region], spec: Spec,
              reading: Reading | None = None, *, max_runs: int = MAX_RUNS) -> Diff:
    """diff_memory of the expected and actual memory after the call of `case`, explained under `reading`
    (reference.explain: without an explanation when the reference does not answer the case "ok")."""
    return diff_memory(case.memory, expected, actual, explain(case, spec, reading), max_runs=max_runs)


def classify(differs: np.ndarray, before: np.ndarray, expected: np.ndarray, actual: np.ndarray,
             written: _Elements | None) -> np.ndarray:
    """The class index of every byte of one region (-1 where actual equals expected: `differs` is False).

    `written`: the destination elements the call writes in the region (None for a region it does not write).
    """
    classes = np.where(differs, np.int8(OUTSIDE), np.int8(-1))
    if written is None:
        return classes
    want, got, old = (written.of(data) for data in (expected, actual, before))
    element_differs = want != got
    if not element_differs.any():
        return classes
    kinds = np.where(got == old, np.uint8(UNWRITTEN), np.uint8(WRONG))
    if _same_multiset(want, got):
        kinds[:] = PERMUTED
    else:
        kinds[_permuted_runs(written.starts, written.size, element_differs, want, got)] = PERMUTED
    written.fill(classes.view(np.uint8), kinds[element_differs], element_differs)
    return classes


@dataclass(frozen=True)
class _Elements:
    """Elements of `size` bytes at region offsets `starts`, all alike modulo `size` (one operand's): the region's
    bytes read `size` at a time from `shift` hold element i at `places[i]`. A dtype is 1, 2, 4 or 8 bytes (the
    spec's schema says so), each a numpy unsigned integer."""

    starts: np.ndarray
    size: int
    shift: int
    places: np.ndarray

    @classmethod
    def within(cls, addresses: np.ndarray, address: int, length: int, size: int) -> "_Elements | None":
        """The elements at `addresses` (of their first bytes) lying wholly in the region of `length` bytes at
        `address`; None if there is none."""
        starts = (addresses - np.uint64(address)).astype(np.int64)   # below the region: negative
        if starts.size and (starts.min() < 0 or starts.max() > length - size):   # elements past the region
            starts = starts[(starts >= 0) & (starts <= length - size)]
        if not starts.size:
            return None
        shift = int(starts[0]) % size
        return cls(starts=starts, size=size, shift=shift, places=(starts - shift) // size)

    def _lined(self, data: np.ndarray) -> np.ndarray:
        """The bytes `data` of the region as little-endian integers of `size` bytes, from `shift`."""
        return data[self.shift:self.shift + (data.size - self.shift) // self.size * self.size].view(f"<u{self.size}")

    def of(self, data: np.ndarray) -> np.ndarray:
        """Each element of the region's bytes `data`, as one integer (equal exactly when the bytes are equal)."""
        return self._lined(data)[self.places]

    def fill(self, data: np.ndarray, values: np.ndarray, where: np.ndarray | slice = slice(None)) -> None:
        """Set every byte of each element (of those `where` picks) in the region's bytes `data` to its value in
        `values` (one byte each, or one for all)."""
        ones = int.from_bytes(b"\x01" * self.size, "little")
        self._lined(data)[self.places[where]] = values.astype(f"<u{self.size}") * np.array(ones, f"<u{self.size}")


def _same_multiset(want: np.ndarray, got: np.ndarray) -> bool:
    if int(want.sum(dtype=np.uint64)) != int(got.sum(dtype=np.uint64)):   # no sort where the sums tell
        return False
    return bool(np.array_equal(np.sort(want), np.sort(got)))


def _permuted_runs(starts: np.ndarray, size: int, differs: np.ndarray, want: np.ndarray,
                   got: np.ndarray) -> np.ndarray:
    """Mask of elements lying in a contiguous run of differing written elements whose actual values are a
    permutation of the expected ones (`starts`: each element's offset, `want`/`got`: its value)."""
    index = np.flatnonzero(differs)
    firsts = starts[index]
    if (firsts[1:] < firsts[:-1]).any():   # in address order (the plan's order mostly is)
        index = index[np.argsort(firsts, kind="stable")]
        firsts = starts[index]
    run = np.concatenate([[0], np.cumsum(firsts[1:] != firsts[:-1] + size)])
    a, b = want[index], got[index]
    mask = np.zeros(len(starts), dtype=bool)
    sizes = np.bincount(run)
    heads = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sums_agree = (np.add.reduceat(a.astype(np.uint64), heads) == np.add.reduceat(b.astype(np.uint64), heads))
    candidates = sums_agree & (sizes > 1)   # values summed modulo 2**64: a run they differ in is no permutation
    if not candidates.any():
        return mask
    chosen = candidates[run]   # only the candidate runs' elements are sorted
    index, run, a, b = index[chosen], run[chosen], a[chosen], b[chosen]
    a_sorted, b_sorted = a[np.lexsort((a, run))], b[np.lexsort((b, run))]
    mismatched = np.bincount(run, weights=(a_sorted != b_sorted), minlength=sizes.size)
    mask[index[(mismatched == 0)[run]]] = True
    return mask


def _runs(classes: np.ndarray, written: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs of one class >= 0 (region offsets start, stop and the class of each), bridged over at most
    BRIDGE_BYTES matching bytes when both sides have the same class and `written` is constant across."""
    edges = np.flatnonzero(classes[1:] != classes[:-1]) + 1   # where the class changes
    bounds = np.concatenate([[0], edges, [classes.size]])
    differing = classes[bounds[:-1]] >= 0
    starts, stops = bounds[:-1][differing], bounds[1:][differing]
    kinds = classes[starts].astype(np.int64)
    if starts.size > 1:
        low, high = stops[:-1] - 1, starts[1:] + 1       # last byte before the gap .. first byte after
        bridge = (starts[1:] - stops[:-1] <= BRIDGE_BYTES) & (kinds[1:] == kinds[:-1])
        candidates = np.flatnonzero(bridge)
        if candidates.size:   # a gap is bridged only where `written` is alike across it (at most BRIDGE_BYTES + 2)
            across = np.minimum(low[candidates, None] + np.arange(BRIDGE_BYTES + 2), high[candidates, None] - 1)
            marks = written[across]
            bridge[candidates] = (marks == marks[:, :1]).all(axis=1)
        starts, kinds = starts[np.concatenate([[True], ~bridge])], kinds[np.concatenate([[True], ~bridge])]
        stops = stops[np.concatenate([~bridge, [True]])]
    return starts, stops, kinds


def _described(want: np.ndarray, got: np.ndarray, address: int, start: int, stop: int,
               explanation: Explanation | None, memory: str, *, misplaced: bool) -> tuple[str, str]:
    """A run's location and, where asked (`misplaced`: one of the first RENDER_RUNS runs, of a class that may be
    bytes put in the wrong place), where its bytes belong."""
    location = explanation.locate(address + start, memory) if explanation is not None else ""
    return location, _misplacement(want, got[start:stop], address, start, explanation, memory) if misplaced else ""


def _misplacement(want: np.ndarray, got: np.ndarray, address: int, start: int, explanation: Explanation | None,
                  memory: str) -> str:
    """Where the bytes of a run belong, when they are bytes the call writes elsewhere: "burst 1 (of 2),
    element 0 written 32 B before where it belongs". Found by looking the run's first bytes (at least
    MISPLACED_BYTES, random data does not repeat by chance) up in the expected image of the region."""
    if explanation is None or explanation.dst_memory != memory or got.size < MISPLACED_BYTES:
        return ""
    found = want.tobytes().find(got[:4 * MISPLACED_BYTES].tobytes())
    if found < 0 or found == start or not explanation.writes(address + found):
        return ""
    distance = found - start
    side = "before" if distance > 0 else "after"
    return f"{explanation.locate(address + found, memory)} written {abs(distance)} B {side} where it belongs"


def same_memory(expected: Mapping[str, Region], actual: Mapping[str, Region]) -> bool:
    """Same regions, addresses and bytes."""
    return expected.keys() == actual.keys() and all(expected[name] == actual[name] for name in expected)


def _hex(data: np.ndarray) -> str:
    text = data[:SHOW_BYTES].tobytes().hex(" ")
    return text + " …" if data.size > SHOW_BYTES else text


def format_diff(diff: Diff | Mapping[str, Any], limit: int = RENDER_RUNS) -> str:
    """A compact human rendering: a summary line, then at most `limit` runs, then "… N more"."""
    data = diff.to_json() if isinstance(diff, Diff) else diff
    if not data["total_runs"]:
        return "memory matches"
    summary = ", ".join(f"{data['runs_by_class'][kind]} {kind} ({data['bytes_by_class'][kind]} B)"
                        for kind in CLASSES if kind in data["runs_by_class"])
    lines = [f"{_count(data['differing_bytes'], 'differing byte')} in {_count(data['total_runs'], 'run')}: {summary}"]
    for run in data["runs"][:limit]:
        where = f": {run['misplaced']}" if run.get("misplaced") else f" at {run['location']}" if run["location"] else ""
        length = run["stop"] - run["start"]
        partly = f" ({run['differing']} differ)" if run.get("differing", length) != length else ""
        lines.append(f"  {run['region']} [{run['start']}, {run['stop']}) {length} B{partly} "
                     f"{run['class']}{where}: expected {run['expected']} | actual {run['actual']}")
    more = data["total_runs"] - min(limit, len(data["runs"]))
    if more > 0:
        lines.append(f"  … {more} more")
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
