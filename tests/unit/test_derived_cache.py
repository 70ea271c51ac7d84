"""The cache of what a spec works out (spec.derived): read back whole and equal, holding the spec's own objects;
worked out again, never an error, whenever it cannot be used."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from ascendc_conformance.runner.selection import Selection, SpecTests
from ascendc_conformance.spec import derived
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.bit_reach import selection_bits

SPEC = load_spec()
PRODUCT = "atlas-a2"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of the test's own, and a process that has remembered nothing yet."""
    monkeypatch.setenv(derived.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(derived, "_MEMORY", {})
    yield tmp_path / "cache"


def counting(value: Any) -> tuple[list[int], Any]:
    calls: list[int] = []

    def compute() -> Any:
        calls.append(1)
        return value
    return calls, compute


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.pickle")) if folder.exists() else []


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


def test_another_key_name_or_spec_content_is_another_entry(cache: Path) -> None:
    calls, compute = counting(1)
    derived.remembered(SPEC, "probe", ("a",), compute)
    derived.remembered(SPEC, "probe", ("b",), compute)
    derived.remembered(SPEC, "other", ("a",), compute)
    assert len(calls) == 3 and len(entries(cache)) == 3


def test_the_code_digest_names_the_folder_so_other_code_never_reads_an_entry(cache: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    calls, compute = counting(1)
    derived.remembered(SPEC, "probe", (), compute)
    ours = derived.code_digest()[:16]
    monkeypatch.setattr(derived, "_MEMORY", {})
    monkeypatch.setattr(derived, "code_digest", lambda: "f" * 64)
    derived.remembered(SPEC, "probe", (), compute)
    assert len(calls) == 2, "an entry of other code was read back"
    assert {path.parent.name for path in entries(cache)} == {ours, "f" * 16}


def test_the_code_digest_changes_with_any_module_or_data_file(tmp_path: Path) -> None:
    package = tmp_path / "package"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "module.py").write_text("A = 1\n")
    (package / "sub" / "data.yaml").write_text("a: 1\n")
    digests = [derived.files_digest([package])]
    (package / "sub" / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"compiled")
    (package / "notes.txt").write_text("not code")
    assert derived.files_digest([package]) == digests[0], "a file that is not code changed the digest"
    for change in (lambda: (package / "module.py").write_text("A = 2\n"),
                   lambda: (package / "sub" / "data.yaml").write_text("a: 2\n"),
                   lambda: (package / "sub" / "new.py").write_text(""),
                   lambda: (package / "sub" / "new.py").rename(package / "new.py")):
        change()
        digests.append(derived.files_digest([package]))
    assert len(set(digests)) == len(digests), "a change to the code left the digest as it was"


def test_the_code_digest_covers_every_layer_of_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a source checkout the layers' folders lie apart (spec/, reference/, strategies/ beside conformance/):
    a change to any module of any of them is a change of code."""
    import ascendc_conformance
    from ascendc_conformance import reference, reports, spec, strategies
    digested: list[Path] = []
    monkeypatch.setattr(derived, "files_digest", lambda folders: digested.extend(folders) or "digest")
    derived.code_digest.cache_clear()
    try:
        derived.code_digest()
    finally:
        derived.code_digest.cache_clear()
    for package in (ascendc_conformance, spec, reference, strategies, reports):
        module = Path(package.__file__).resolve()
        assert any(module.is_relative_to(folder) for folder in digested), f"{package.__name__} is not digested"


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


def test_a_folder_that_cannot_be_written_means_no_cache_not_an_error(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("where the cache's folder would be")
    monkeypatch.setenv(derived.CACHE_VARIABLE, str(blocked))
    monkeypatch.setattr(derived, "_MEMORY", {})
    calls, compute = counting("value")
    assert derived.remembered(SPEC, "probe", (), compute) == "value" and len(calls) == 1
    assert blocked.read_text() == "where the cache's folder would be"


def test_an_empty_variable_turns_the_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(derived.CACHE_VARIABLE, "")
    monkeypatch.setattr(derived, "_MEMORY", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    calls, compute = counting(1)
    derived.remembered(SPEC, "probe", (), compute)
    assert derived.cache_folder() is None and not entries(tmp_path)


def test_without_the_variable_the_cache_is_in_the_users_cache_folder(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(derived.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert derived.cache_folder() == tmp_path / "ascendc-conformance" / derived.code_digest()[:16]


def test_an_entry_is_written_whole_or_not_at_all(cache: Path) -> None:
    """Written to a temporary file and renamed: no reader ever sees half an entry, and nothing is left over."""
    derived.remembered(SPEC, "probe", (), lambda: list(range(100_000)))
    folder, = {path.parent for path in entries(cache)}
    assert [path.name for path in folder.iterdir() if path.suffix != ".pickle"] == []


def test_folders_of_old_code_are_cleared_out_when_new_code_writes(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale, recent = cache / ("0" * 16), cache / ("1" * 16)
    for folder in (stale, recent):
        folder.mkdir(parents=True)
        (folder / "selection-0.pickle").write_bytes(b"old")
    old = os.stat(stale).st_mtime - derived.STALE_SECONDS - 60
    os.utime(stale, (old, old))
    derived.remembered(SPEC, "probe", (), lambda: 1)
    assert not stale.exists(), "a folder of code untouched for a week was kept"
    assert recent.exists(), "a folder of code used recently (another version running beside) was removed"


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
