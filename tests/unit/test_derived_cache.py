"""spec.derived: what a spec works out, read back from the cache (format.cache) equal to what was worked out and
holding the spec's own objects; worked out again whenever an entry cannot be read back."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from ascendc_conformance.format import cache as cache_module
from ascendc_conformance.runner.selection import Selection, SpecTests
from ascendc_conformance.spec import derived
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.bit_reach import selection_bits

SPEC = load_spec()
PRODUCT = "atlas-a2"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of the test's own, and a process that has remembered nothing yet."""
    monkeypatch.setenv(cache_module.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(derived, "_MEMORY", {})
    yield tmp_path / "cache"


def counting(value: Any) -> tuple[list[int], Any]:
    calls: list[int] = []

    def compute() -> Any:
        calls.append(1)
        return value
    return calls, compute


def entries(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


def test_a_selection_read_back_is_the_one_worked_out_and_holds_the_spec_objects() -> None:
    worked_out = SpecTests.work_out(SPEC, (PRODUCT,), None)
    back = derived.loads(derived.dumps(worked_out, SPEC), SPEC)
    for name in ("faults", "bounds", "pinned", "smoke"):
        made, read = getattr(worked_out, name), getattr(back, name)
        assert [repr(item) for item in read] == [repr(item) for item in made], f"{name}: the tests read back differ"
    assert all(read.rule is SPEC.rule(made.rule.id) for made, read in zip(worked_out.faults, back.faults)), \
        "a fault read back holds a copy of its rule, not the spec's own"
    assert [fault.contexts for fault in back.faults] == [fault.contexts for fault in worked_out.faults]
    assert all(ctx.spec is SPEC for fault in back.faults for ctx in fault.contexts)


def test_the_bits_of_a_selection_read_back_equal_those_worked_out() -> None:
    bits = selection_bits(SPEC, [PRODUCT])
    assert derived.loads(derived.dumps(bits, SPEC), SPEC) == bits


def test_an_entry_is_worked_out_once_then_read_back(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls, compute = counting({"value": (1, 2)})
    assert derived.remembered(SPEC, "probe", ("key",), compute) == {"value": (1, 2)}
    assert len(entries(cache)) == 1, "no entry was written"
    monkeypatch.setattr(derived, "_MEMORY", {})   # another process
    assert derived.remembered(SPEC, "probe", ("key",), compute) == {"value": (1, 2)}
    assert len(calls) == 1, "the entry was worked out again instead of read back"


def test_another_key_or_name_is_another_entry(cache: Path) -> None:
    calls, compute = counting(1)
    derived.remembered(SPEC, "probe", ("a",), compute)
    derived.remembered(SPEC, "probe", ("b",), compute)
    derived.remembered(SPEC, "other", ("a",), compute)
    assert len(calls) == 3 and len(entries(cache)) == 3


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x05truncated"])
def test_an_entry_that_cannot_be_read_back_is_worked_out_again_and_replaced(cache: Path, damage: bytes,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    calls, compute = counting([1, 2, 3])
    derived.remembered(SPEC, "probe", (), compute)
    entry, = entries(cache)
    entry.write_bytes(damage)
    monkeypatch.setattr(derived, "_MEMORY", {})
    assert derived.remembered(SPEC, "probe", (), compute) == [1, 2, 3]
    assert len(calls) == 2
    monkeypatch.setattr(derived, "_MEMORY", {})
    assert derived.remembered(SPEC, "probe", (), compute) == [1, 2, 3] and len(calls) == 2, "not replaced"


def test_a_runs_selection_is_remembered_and_read_back_equal(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a run's processes share: the selection's tests (and the bits and crossings they rest on), in the
    cache after one process worked them out, and the same tests in the next process."""
    first = list(Selection(SPEC, (PRODUCT,)).tests())
    names = {path.name.split("-")[0] for path in entries(cache)}
    assert {"selection", "crossings"} <= names, f"the selection's parts were not all written: {sorted(names)}"
    monkeypatch.setattr(derived, "_MEMORY", {})
    monkeypatch.setattr(SpecTests, "work_out", classmethod(lambda *args: pytest.fail("worked out again")))
    second = list(Selection(SPEC, (PRODUCT,)).tests())
    assert [(test_id, kind, repr(item)) for test_id, kind, item in second] == \
        [(test_id, kind, repr(item)) for test_id, kind, item in first]


def test_a_value_that_cannot_be_pickled_is_not_kept_and_not_an_error(cache: Path) -> None:
    """An API's strategies module may build its fault edits as closures (tests/fixtures' toy API does): its
    selection is then worked out in every process, as before the cache."""
    calls, compute = counting({"edit": lambda draw, draft: None})
    value = derived.remembered(SPEC, "probe", (), compute)
    assert callable(value["edit"]) and entries(cache) == []


def test_every_built_in_apis_selection_pickles() -> None:
    """The whole spec's selection (every product and API): what the cache keeps for a run of everything. A fault
    edit written as a closure would quietly leave the built-in selection uncached."""
    tests = SpecTests.work_out(SPEC, None, None)
    back = derived.loads(derived.dumps(tests, SPEC), SPEC)
    assert [repr(fault) for fault in back.faults] == [repr(fault) for fault in tests.faults]
