"""format.cache: entries per code digest, written whole or not at all, never an error when the folder cannot be used;
a check passed once is not run again on the same key."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

from ascendc_conformance.format import cache


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of the test's own."""
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    yield tmp_path / "cache"


def files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if path.is_file()) if root.exists() else []


def test_an_entry_written_is_read_back(folder: Path) -> None:
    entry = cache.entry("probe", ("key", 1))
    cache.write(entry, b"value")
    assert cache.read(cache.entry("probe", ("key", 1))) == b"value"
    assert cache.read(cache.entry("probe", ("key", 2))) is None, "another key read this key's entry"
    assert cache.read(cache.entry("other", ("key", 1))) is None, "another name read this name's entry"


def test_the_code_digest_names_the_folder_so_other_code_never_reads_an_entry(folder: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cache.write(cache.entry("probe", ()), b"ours")
    ours = cache.folder().name   # type: ignore[union-attr]
    monkeypatch.setattr(cache, "code_digest", lambda: "f" * 64)
    assert cache.read(cache.entry("probe", ())) is None, "an entry of other code was read back"
    cache.write(cache.entry("probe", ()), b"theirs")
    assert {path.parent.name for path in files(folder)} == {ours, f"{'f' * 16}-{sys.implementation.cache_tag}"}


def test_the_code_digest_changes_with_any_module_or_data_file(tmp_path: Path) -> None:
    package = tmp_path / "package"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "module.py").write_text("A = 1\n")
    (package / "sub" / "data.yaml").write_text("a: 1\n")
    digests = [cache.files_digest([package])]
    (package / "sub" / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"compiled")
    (package / "notes.txt").write_text("not code")
    assert cache.files_digest([package]) == digests[0], "a file that is not code changed the digest"
    for change in (lambda: (package / "module.py").write_text("A = 2\n"),
                   lambda: (package / "sub" / "data.yaml").write_text("a: 2\n"),
                   lambda: (package / "sub" / "new.py").write_text(""),
                   lambda: (package / "sub" / "new.py").rename(package / "new.py")):
        change()
        digests.append(cache.files_digest([package]))
    assert len(set(digests)) == len(digests), "a change to the code left the digest as it was"


def test_the_code_digest_covers_every_layer_of_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a source checkout the layers' folders lie apart (spec/, reference/, strategies/ beside conformance/):
    a change to any module of any of them is a change of code."""
    import ascendc_conformance
    from ascendc_conformance import reference, reports, spec, strategies
    digested: list[Path] = []
    monkeypatch.setattr(cache, "files_digest", lambda folders: digested.extend(folders) or "digest")
    cache.code_digest.cache_clear()
    try:
        cache.code_digest()
    finally:
        cache.code_digest.cache_clear()
    for package in (ascendc_conformance, spec, reference, strategies, reports):
        module = Path(package.__file__).resolve()
        assert any(module.is_relative_to(folder) for folder in digested), f"{package.__name__} is not digested"


def test_a_folder_that_cannot_be_written_means_no_cache_not_an_error(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("where the cache's folder would be")
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(blocked))
    cache.write(cache.entry("probe", ()), b"value")
    assert cache.read(cache.entry("probe", ())) is None
    assert blocked.read_text() == "where the cache's folder would be"


def test_an_empty_variable_turns_the_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.CACHE_VARIABLE, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.folder() is None and cache.entry("probe", ()) is None
    cache.write(cache.entry("probe", ()), b"value")
    assert not files(tmp_path)


def test_without_the_variable_the_cache_is_in_the_users_cache_folder(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.folder() == (tmp_path / "ascendc-conformance"
                              / f"{cache.code_digest()[:16]}-{sys.implementation.cache_tag}")


def test_an_entry_is_renamed_into_place_leaving_no_temporary_file(folder: Path) -> None:
    """Written to a temporary file and renamed (no reader sees half an entry): nothing else is left over."""
    cache.write(cache.entry("probe", ()), bytes(10_000_000))
    assert [path.name for path in files(folder)] == [cache.entry("probe", ()).name]   # type: ignore[union-attr]


def test_folders_of_old_code_are_cleared_out_when_new_code_writes(folder: Path) -> None:
    stale, recent = folder / ("0" * 16), folder / ("1" * 16)
    for place in (stale, recent):
        place.mkdir(parents=True)
        (place / "selection-0").write_bytes(b"old")
    old = os.stat(stale).st_mtime - cache.STALE_SECONDS - 60
    os.utime(stale, (old, old))
    cache.write(cache.entry("probe", ()), b"new")
    assert not stale.exists(), "a folder of code untouched for a week was kept"
    assert recent.exists(), "a folder of code used recently (another version running beside) was removed"


def test_a_check_that_passed_is_not_run_again_on_the_same_key(folder: Path) -> None:
    runs: list[str] = []
    cache.checked("probe", "key", lambda: runs.append("key"))
    cache.checked("probe", "key", lambda: runs.append("key"))
    cache.checked("probe", "other", lambda: runs.append("other"))
    assert runs == ["key", "other"]


def test_a_check_that_failed_is_run_again(folder: Path) -> None:
    runs: list[int] = []

    def failing() -> None:
        runs.append(1)
        raise ValueError("the content is wrong")
    for _ in range(2):
        with pytest.raises(ValueError, match="the content is wrong"):
            cache.checked("probe", "key", failing)
    assert len(runs) == 2, "a failed check was remembered as passed"
