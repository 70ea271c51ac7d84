"""A pack is a certificate: nothing in it that can be checked is trusted (issue 28, item 1).

Each test edits a copy of an honest pack as an attacker would — changing what it must, then recomputing every
SHA-256 in the manifest so that the pack is hash-consistent — and shows that `pack verify` and `run --pack`
refuse it before the first case (exit 2, one line naming the file and what is wrong), with and without the
published id pinned by `--pack-id`: pinned, the edited pack's id differs; unpinned, the edit itself is found.
Without these checks each edited pack below ran, and a target that copies nothing conformed."""
from __future__ import annotations

import gzip
import hashlib
import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from ascendc_conformance.format.fill import MAX_FILL_BYTES, Fill

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ["--product", "atlas-a3", "--api", "DataCopyNz2Nd"]
MEMORY_LIMIT = 2 * 1024**3   # address space of a run checking a pack with a 2**50-byte region: it must not try


def cli(*args: str, memory_limit: int | None = None) -> subprocess.CompletedProcess:
    def limit() -> None:
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, preexec_fn=limit)


@pytest.fixture(scope="module")
def honest_pack(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A `ci` pack of DataCopyNz2Nd on atlas-a3 and its id, as `pack build` printed it."""
    directory = tmp_path_factory.mktemp("packs") / "ci"
    done = cli("pack", "build", "--profile", "ci", "--seed", "3", *SELECTION, "--out", str(directory))
    assert done.returncode == 0, done.stderr[-3000:]
    return directory, done.stdout.split()[1]


def manifest_of(directory: Path) -> dict[str, Any]:
    return json.loads((directory / "manifest.json").read_text())


def read_test(directory: Path, file: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((directory / file).read_bytes()))


def write_test(directory: Path, file: str, data: dict[str, Any]) -> None:
    (directory / file).write_bytes(gzip.compress(json.dumps(data).encode(), mtime=0))


def reseal(directory: Path, manifest: dict[str, Any]) -> None:
    """Write `manifest` with the SHA-256 of every file it lists recomputed: a hash-consistent pack."""
    manifest["files"] = {name: hashlib.sha256((directory / name).read_bytes()).hexdigest()
                         for name in manifest["files"] if (directory / name).is_file()}
    (directory / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=1) + "\n")


def edited(honest: Path, tmp_path: Path, edit: Callable[[Path, dict[str, Any]], None]) -> Path:
    copy = tmp_path / "edited"
    shutil.copytree(honest, copy)
    manifest = manifest_of(copy)
    edit(copy, manifest)
    reseal(copy, manifest)
    return copy


def first(manifest: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(test for test in manifest["tests"] if test["kind"] == kind and test["cases"])


def assert_refused(pack: Path, pack_id: str, *words: str, memory_limit: int | None = None) -> None:
    """`pack verify` and `run --pack` refuse the pack on one line holding `words`, exit 2, nothing run; pinned
    to the honest pack's id, the run refuses it as another pack."""
    for args in (["pack", "verify", str(pack)], ["run", "--target", "reference", "--pack", str(pack)]):
        done = cli(*args, memory_limit=memory_limit)
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout[-2000:], done.stderr[-2000:])
        [line] = done.stderr.splitlines()
        assert all(word in line for word in words), line
    done = cli("run", "--target", "reference", "--pack", str(pack), "--pack-id", pack_id, memory_limit=memory_limit)
    assert done.returncode == 2 and done.stdout == "", done.stdout[-2000:]
    [line] = done.stderr.splitlines()
    assert line.startswith("ascendc-conformance: error: --pack: ") and f"not the pinned {pack_id}" in line, line


def test_the_honest_pack_runs_pinned_and_unpinned(honest_pack, tmp_path: Path) -> None:
    """The honest pack passes both ways; the statement says whether its id was pinned."""
    directory, pack_id = honest_pack
    assert cli("pack", "verify", str(directory), "--pack-id", pack_id).returncode == 0
    for pinned in (False, True):
        report = tmp_path / f"pinned-{pinned}"
        done = cli("run", "--target", "reference", "--pack", str(directory), "--report", str(report),
                   *(["--pack-id", pack_id.upper()] if pinned else []))
        assert done.returncode == 0, done.stderr[-3000:]
        run = json.loads((report / "results.jsonl").read_text().splitlines()[0])
        assert run["pack"]["id"] == pack_id and run["pack"]["pinned"] is pinned
        text = json.loads((report / "report.json").read_text())["certification"]["text"]
        assert ("The pack id was not pinned" in text) is not pinned, text


def test_an_expected_result_changed_is_refused(honest_pack, tmp_path: Path) -> None:
    """Attack (c): an ok case's expected memory rewritten as "untouched" (each region's digest that of its bytes
    before the call), hashes recomputed. Unpinned, the reference's expected result differs: a pack error."""
    directory, pack_id = honest_pack
    changed: list[str] = []

    def untouched(copy: Path, manifest: dict[str, Any]) -> None:
        for test in (test for test in manifest["tests"] if test["kind"] == "legal"):
            data = read_test(copy, test["file"])
            for entry in data["cases"]:
                stored = entry["expected"][0]["result"]["memory"]
                before = {name: hashlib.sha256(Fill(**region["fill"]).bytes_at(region["address"]).tobytes()).hexdigest()
                          for name, region in entry["case"]["memory"].items()}
                if any(stored[name]["sha256"] != digest for name, digest in before.items()):   # the call writes
                    for name, digest in before.items():
                        stored[name]["sha256"] = digest
                    changed.append(entry["case"]["id"])
                    write_test(copy, test["file"], data)
                    return

    pack = edited(directory, tmp_path, untouched)
    assert_refused(pack, pack_id, f"case {changed[0]}: its expected result under the default reading",
                   "is not the reference's", "expectations were changed")


def test_a_rejection_turned_into_a_pass_is_refused(honest_pack, tmp_path: Path) -> None:
    """An illegal case's expected rejection rewritten as the ok result of the call performed."""
    directory, pack_id = honest_pack

    def accepted(copy: Path, manifest: dict[str, Any]) -> None:
        test = first(manifest, "illegal")
        data = read_test(copy, test["file"])
        data["cases"][0]["expected"][0]["result"] = {"status": "ok", "memory": {}}
        write_test(copy, test["file"], data)

    assert_refused(edited(directory, tmp_path, accepted), pack_id, "(ok) is not the reference's (rejected ")


def test_a_test_pointed_at_another_tests_file_is_refused(honest_pack, tmp_path: Path) -> None:
    """Attack (a): the manifest alone edited so that a rejection test points at a legal test's file."""
    directory, pack_id = honest_pack

    def repointed(copy: Path, manifest: dict[str, Any]) -> None:
        first(manifest, "illegal")["file"] = first(manifest, "legal")["file"]

    illegal = first(manifest_of(directory), "illegal")["id"]
    assert_refused(edited(directory, tmp_path, repointed), pack_id, "holds legal test",
                   f"the manifest says illegal test {illegal}")


def test_dropped_tests_are_refused(honest_pack, tmp_path: Path) -> None:
    """Attack (b): every illegal test deleted (files, entries and counts made consistent) and the profile
    relabelled: the spec's test list for the selection is not the pack's."""
    directory, pack_id = honest_pack
    kept: list[dict[str, Any]] = []

    def dropped(copy: Path, manifest: dict[str, Any]) -> None:
        for test in manifest["tests"]:
            if test["kind"] == "illegal":
                (copy / test["file"]).unlink()
            else:
                kept.append(test)
        manifest["tests"] = kept
        manifest["counts"]["tests"] = len(kept)
        manifest["counts"]["cases"] = sum(test["cases"] for test in kept)
        manifest["counts"]["per_kind"].pop("illegal")
        per_rule: dict[str, int] = {}
        for test in kept:
            if test["subject"].get("rule"):
                per_rule[test["subject"]["rule"]] = per_rule.get(test["subject"]["rule"], 0) + test["cases"]
        manifest["counts"]["per_rule"] = dict(sorted(per_rule.items()))

    pack = edited(directory, tmp_path, dropped)
    assert_refused(pack, pack_id, "manifest.json: lists", "missing, e.g. test_illegal[")


def test_a_count_claim_changed_is_refused(honest_pack, tmp_path: Path) -> None:
    directory, pack_id = honest_pack

    def counted(copy: Path, manifest: dict[str, Any]) -> None:
        manifest["counts"]["per_kind"]["illegal"]["cases"] += 1

    assert_refused(edited(directory, tmp_path, counted), pack_id, "'counts.per_kind.illegal.cases' says",
                   "the manifest's counts are not its content's")


def test_a_profile_claim_below_the_content_is_refused(honest_pack, tmp_path: Path) -> None:
    """A `ci` pack (10 cases a test) relabelled `quick` (3): its tests hold more cases than the profile draws."""
    directory, pack_id = honest_pack

    def relabelled(copy: Path, manifest: dict[str, Any]) -> None:
        manifest["built"]["profile"] = "quick"

    assert_refused(edited(directory, tmp_path, relabelled), pack_id, "holds 10 cases", "a `quick` pack")


def test_a_profile_claim_above_the_content_certifies_nothing(honest_pack, tmp_path: Path) -> None:
    """A `ci` pack relabelled `full`: its content cannot refute the claim (a test may hold fewer cases than its
    profile draws), so the unpinned run goes on, re-deriving every expectation, and is not a certification
    run; pinned to the published id, it is refused as another pack."""
    directory, pack_id = honest_pack

    def relabelled(copy: Path, manifest: dict[str, Any]) -> None:
        manifest["built"]["profile"] = "full"

    pack = edited(directory, tmp_path, relabelled)
    report = tmp_path / "report"
    done = cli("run", "--target", "reference", "--pack", str(pack), "--report", str(report))
    assert done.returncode == 0, done.stderr[-3000:]
    certification = json.loads((report / "report.json").read_text())["certification"]
    assert certification["is_certification"] is False
    assert "This is not a certification run: the pack id was not pinned" in certification["text"]
    done = cli("run", "--target", "reference", "--pack", str(pack), "--pack-id", pack_id)
    assert done.returncode == 2 and f"not the pinned {pack_id}" in done.stderr


def test_a_huge_fill_size_is_refused_without_allocating(honest_pack, tmp_path: Path) -> None:
    """A region of 2**50 bytes in a hash-consistent pack: refused by the check, under an address-space limit
    far below it (a run that tried to make it would die of MemoryError instead)."""
    directory, pack_id = honest_pack
    changed: list[str] = []

    def huge(copy: Path, manifest: dict[str, Any]) -> None:
        test = first(manifest, "legal")
        data = read_test(copy, test["file"])
        case = data["cases"][0]["case"]
        name = sorted(case["memory"])[0]
        case["memory"][name]["fill"]["size"] = 2**50
        changed.append(f"case {case['id']}: region {name}: a fill size is 0 to {MAX_FILL_BYTES} bytes")
        write_test(copy, test["file"], data)

    assert_refused(edited(directory, tmp_path, huge), pack_id, changed[0], str(2**50), memory_limit=MEMORY_LIMIT)


@pytest.mark.parametrize("args, words", [
    (["--pack-id", "abc"], "--pack-id: 'abc': expected a pack id, the 64 hex digits"),
    (["--pack-id", "ab" * 32], "--pack-id: pins the id of a pack; give the pack with --pack"),
])
def test_pack_id_usage_errors(args: list[str], words: str) -> None:
    done = cli("run", "--target", "reference", *args)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert words in line, line


def test_the_plugin_pins_the_id_too(honest_pack) -> None:
    """`--ascendc-pack-id` is the plugin's name of the option: a pytest run pinned to another id is refused."""
    directory, _ = honest_pack
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0",
                           "--ascendc-target=reference", f"--ascendc-pack={directory}", "--ascendc-pack-id=" + "ab" * 32],
                          cwd=directory.parent, capture_output=True, text=True, timeout=600)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"--ascendc-pack: {directory}: its pack id is" in done.stderr and "not the pinned " + "ab" * 32 in done.stderr
