"""Certification packs: a fixed, hash-pinned set of cases with their expected results, data only.

A pack is a directory (FORMAT.md in a pack says all of this for a harness in any language):

- `manifest.json` — pack format, suite version, spec digest, how the pack was built (profile, seed, the
  Hypothesis release that drew it, the selection, the command), counts per test, kind and rule, one entry per
  test (id, kind, subject, number of cases, file) and the SHA-256 of every other file of the pack;
- `FORMAT.md` — the format, for a harness written from it;
- `tests/NNNNN.json.gz` — one gzip'ed JSON object per test: its id and kind and its cases, each with the
  expected result under every computable reading of the disputed points it depends on.

The **pack id** is the SHA-256 of `manifest.json`'s bytes: it pins the manifest, and through it every file.
A case of a pack is a case v1 whose memory regions give their fill recipe (format.fill) instead of their bytes
(`{"address": A, "fill": {"seed": S, "size": N, "half_nan_to_inf": false}}`); an expected `ok` result gives
each region's SHA-256 instead of its bytes (`{"address": A, "sha256": H}`). `open_pack` checks the hashes (a
PackError, one line, names the file that does not match); `verify_pack` checks the pack against itself too: every
file against schema/pack-v1.schema.json and what the manifest says of it, the counts, the profile's number of
cases, the size of every fill recipe (runner.pack_check checks it against the spec and the reference).
"""
from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ascendc_conformance.format import bounded, cache, schemas, wire
from ascendc_conformance.format.case import Case, Operand, RecipeRegion, Region, Result, digest_of
from ascendc_conformance.format.defaults import PROFILES, SMOKE_CASES
from ascendc_conformance.format.errors import ConformanceError, MachineFault
from ascendc_conformance.format.files import output_directory, usable_path, utf8_path
from ascendc_conformance.format.fill import Fill, Recipes
from ascendc_conformance.format.results import Subject, TestKind

PACK_FORMAT = 1
MANIFEST_FILE = "manifest.json"
FORMAT_FILE = "FORMAT.md"
TESTS_DIR = "tests"
SCHEMA = "pack-v1"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
"""The largest manifest read (one of a full pack of every product and API takes about 1 MiB)."""
MAX_TEST_BYTES = 32 * 1024 * 1024
"""The largest test file read, compressed and inflated alike (one holds a test's cases without their bytes: the
largest of a `ci` pack inflates to 34 KiB, a full pack's tests hold ten times the cases); inflating stops there
(a gzip bomb is refused)."""
GZIP_LEVEL = 9


class PackError(ConformanceError):
    """A pack cannot be used (missing, tampered with, malformed); the message names the file and the problem."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def canonical(data: Any) -> bytes:
    """The bytes a pack writes for a JSON value: sorted keys, no spaces, ASCII (the same value, the same bytes)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def region_digest(data: bytes) -> str:
    """The SHA-256 (hex) of a region's bytes."""
    return digest_of(data).hex()


def digested(result: Result) -> dict[str, Any]:
    """A result v1 as a pack stores it: an ok result's regions as their SHA-256 instead of their bytes."""
    stored = replace(result, memory=None).to_json()
    if result.memory is not None:
        stored["memory"] = {name: {"address": region.address, "sha256": region_digest(region.data)}
                            for name, region in result.memory.items()}
    return stored


def recipe_case(case: Case, recipes: Recipes, test_id: str, index: int) -> dict[str, Any]:
    """A drawn case as a pack stores it: each region as the fill recipe it was made by (recorded while it was
    drawn: format.fill.recording), an `id` naming the test and the case's place in it."""
    memory = {}
    for name, region in case.memory.items():
        fill = recipes.of(region.data)
        if fill is None:
            raise ValueError(f"region {name} of a case of {test_id} was not made by the fill recipe")
        memory[name] = {"address": region.address, "fill": fill.to_json()}
    return {**replace(case, memory=MappingProxyType({})).to_json(), "id": f"{test_id}#{index}", "memory": memory}


@dataclass(frozen=True)
class PackedCase:
    """One case of a pack: the case (regions as recipes), the disputed points its outcome depends on, and its
    expected result under each combination of their computable readings (`choices`: point -> alternative, the
    points at their default left out; the first entry is the default reading's)."""

    case: Mapping[str, Any]
    points: tuple[str, ...]
    expected: tuple[tuple[Mapping[str, str], Mapping[str, Any]], ...]

    @cached_property
    def call(self) -> Case:
        """The case without its memory images (its path and parameters), made once."""
        return _call_of(self.case)

    def materialize(self) -> Case:
        """The case itself: every region's bytes made from its recipe when first read (format.case.RecipeRegion)."""
        memory = {name: RecipeRegion(region["address"], Fill(**region["fill"]))
                  for name, region in self.case["memory"].items()}
        return replace(self.call, memory=MappingProxyType(memory))

    def result(self, choices: Mapping[str, str]) -> Mapping[str, Any] | None:
        """The stored expected result under these choices of its points (None: not stored)."""
        return self._results.get(frozenset(choices.items()))

    @cached_property
    def _results(self) -> dict[frozenset[tuple[str, str]], Mapping[str, Any]]:
        """The stored expected results by their choices (the first stored for the same choices)."""
        results: dict[frozenset[tuple[str, str]], Mapping[str, Any]] = {}
        for choices, result in self.expected:
            results.setdefault(frozenset(choices.items()), result)
        return results

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "points": list(self.points),
                "expected": [{"reading": dict(choices), "result": result} for choices, result in self.expected]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PackedCase":
        return cls(case=data["case"], points=tuple(data["points"]),
                   expected=tuple((MappingProxyType(entry["reading"]), entry["result"]) for entry in data["expected"]))


def _call_of(data: Mapping[str, Any]) -> Case:
    """A pack's case (as the suite wrote it: the pack's hashes pin it) without its memory images."""
    return Case(api=data["api"], product=data["product"], src=Operand(**data["src"]), dst=Operand(**data["dst"]),
                params=MappingProxyType(dict(data["params"])), memory=MappingProxyType({}), id=data.get("id"),
                tags=tuple(data.get("tags", ())), extensions=tuple(data.get("extensions", ())))


Reach = Mapping[str, Mapping[str, tuple[int, ...]]]
"""API -> field -> the bits of it witnessed (or derived quantity -> the widths 2^w crossed), as results.jsonl's
`bits` and `crossings` give them."""


@dataclass(frozen=True)
class PackedTest:
    """A test file of a pack: its cases, and their reach under the pack's reading (`built.reading`): every bit of
    every field its legal cases witness (`bits`) and every width their derived offsets cross (`crossings`), as
    runner.witnessed_bits works them out. A run whose pack id is pinned notes these instead of working them out
    case by case; None in a pack built before they were stored."""

    cases: tuple[PackedCase, ...]
    bits: Reach | None = None
    crossings: Reach | None = None

    def to_json(self) -> dict[str, Any]:
        """The test file's `cases`, `bits` and `crossings` (the keys of a test file beside its id and kind)."""
        stored = {name: {api: {key: list(found) for key, found in keys.items()} for api, keys in reach.items()}
                  for name, reach in (("bits", self.bits), ("crossings", self.crossings)) if reach is not None}
        return {"cases": [case.to_json() for case in self.cases], **stored}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PackedTest":
        def reach(name: str) -> Reach | None:
            stored = data.get(name)
            return None if stored is None else MappingProxyType({
                api: MappingProxyType({key: tuple(found) for key, found in keys.items()})
                for api, keys in stored.items()})
        return cls(cases=tuple(PackedCase.from_json(entry) for entry in data["cases"]), bits=reach("bits"),
                   crossings=reach("crossings"))


@dataclass(frozen=True)
class PackTest:
    """A test of a pack, as the manifest lists it: its pytest id, kind, subject, number of cases and file."""

    id: str
    kind: str
    subject: Subject
    cases: int
    file: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "subject": dict(self.subject), "cases": self.cases,
                "file": self.file}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PackTest":
        return cls(id=data["id"], kind=data["kind"], subject=Subject(**data["subject"]),
                   cases=data["cases"], file=data["file"])


@dataclass(frozen=True)
class Pack:
    """An opened pack whose hashes matched: its id, its manifest and its tests by id; `checked` once
    `verify_pack` found every test file sound (then read again without the checks of outside JSON)."""

    directory: Path
    pack_id: str
    manifest: Mapping[str, Any]
    tests: Mapping[str, PackTest] = field(repr=False)
    checked: bool = False

    @property
    def built(self) -> Mapping[str, Any]:
        return self.manifest["built"]

    @property
    def profile(self) -> str:
        return self.built["profile"]

    @property
    def products(self) -> tuple[str, ...]:
        return tuple(self.built["products"])

    @property
    def apis(self) -> tuple[str, ...]:
        return tuple(self.built["apis"])

    @property
    def spec_digest(self) -> str:
        return self.manifest["spec_digest"]

    def summary(self) -> dict[str, Any]:
        """What a run record and the reports say of the pack."""
        return {"id": self.pack_id, "profile": self.profile, "seed": self.built["seed"],
                "hypothesis": self.built["hypothesis"], "suite_version": self.manifest["suite_version"],
                "tests": len(self.tests), "cases": self.manifest["counts"]["cases"]}

    def read_test(self, test_id: str) -> PackedTest:
        """One test's file, whose hash is checked again (the pack may have changed since it was opened); PackError
        if it does not match or cannot be read. The file of a checked pack is the one checked, byte for byte: its
        JSON is read without the checks again (format.bounded.loads walks every value in Python)."""
        test = self.tests[test_id]
        path = self.directory / test.file
        raw = _test_bytes(path)
        if hashlib.sha256(raw).hexdigest() != self.manifest["files"][test.file]:
            raise PackError(f"{path}: its SHA-256 no longer matches the manifest (the pack was changed while it "
                            "ran); rebuild or restore it")
        if self.checked:
            return PackedTest.from_json(wire.loads_checked(bounded.gunzip(raw, str(path), MAX_TEST_BYTES)))
        return PackedTest.from_json(_test_file(path, raw))


def _test_bytes(path: Path) -> bytes:
    """A test file's bytes, at most MAX_TEST_BYTES read (PackError naming it when larger or unreadable)."""
    try:
        return bounded.read_file(path, MAX_TEST_BYTES)
    except OSError as error:
        raise PackError(f"{path}: cannot read ({error.strerror})") from None
    except bounded.InputError as error:
        raise PackError(str(error)) from None


def _test_file(path: Path, raw: bytes) -> dict[str, Any]:
    """The JSON object of a test file's bytes, inflated to at most MAX_TEST_BYTES (PackError naming the file)."""
    try:
        return bounded.loads(bounded.gunzip(raw, str(path), MAX_TEST_BYTES), str(path), max_bytes=MAX_TEST_BYTES)
    except bounded.InputError as error:
        raise PackError(str(error)) from None


def _manifest(directory: Path) -> tuple[bytes, dict[str, Any]]:
    try:
        utf8_path(directory)
    except ConformanceError as error:
        raise PackError(str(error)) from None
    path = directory / MANIFEST_FILE
    if not directory.is_dir():
        raise PackError(f"{directory}: not a directory; expected a pack (a directory holding {MANIFEST_FILE}, "
                        "made by `ascendc-conformance pack build`)")
    try:
        raw = bounded.read_file(path, MAX_MANIFEST_BYTES)
        manifest = bounded.loads(raw, str(path), max_bytes=MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        raise PackError(f"{directory}: no {MANIFEST_FILE} in it; expected a pack made by "
                        "`ascendc-conformance pack build`") from None
    except OSError as error:
        raise PackError(f"{path}: cannot read ({error.strerror})") from None
    except bounded.InputError as error:
        raise PackError(str(error)) from None
    if isinstance(manifest, dict) and manifest.get("pack_format") not in (None, PACK_FORMAT):
        raise PackError(f"{path}: 'pack_format': {bounded.shown(manifest['pack_format'])} is not a pack format this "
                        f"suite reads ({PACK_FORMAT})")
    problem = schemas.problem(manifest, SCHEMA, "manifest")
    if problem is not None:
        raise PackError(f"{path}: {problem}")
    return raw, manifest


def open_pack(directory: str | Path) -> Pack:
    """The pack in `directory`, its manifest checked against the schema and every file against its SHA-256:
    PackError (one line naming the file) for a missing, changed or unlisted file."""
    directory = Path(directory)
    raw, manifest = _manifest(directory)
    files = manifest["files"]
    for name in sorted(files):
        path = directory / name
        if ".." in Path(name).parts or Path(name).is_absolute():
            raise PackError(f"{directory / MANIFEST_FILE}: 'files': {name!r} lies outside the pack")
        if not path.is_file():
            raise PackError(f"{path}: missing; the manifest lists it (the pack is incomplete)")
        if sha256_file(path) != files[name]:
            raise PackError(f"{path}: its SHA-256 does not match the manifest's; the pack was changed after it "
                            "was built (rebuild it, or fetch it again)")
    listed = {MANIFEST_FILE, *files}
    unlisted = sorted(str(path.relative_to(directory)) for path in directory.rglob("*")
                      if path.is_file() and str(path.relative_to(directory)) not in listed)
    if unlisted:
        raise PackError(f"{directory / unlisted[0]}: not listed in the manifest ({len(unlisted)} such file(s)); "
                        "a pack holds exactly the files its manifest lists")
    tests = {}
    for entry in manifest["tests"]:
        test = PackTest.from_json(entry)
        if test.file not in files:
            raise PackError(f"{directory / MANIFEST_FILE}: test {test.id}: its file {test.file} is not in 'files'")
        if test.id in tests:
            raise PackError(f"{directory / MANIFEST_FILE}: test {test.id} is listed twice")
        tests[test.id] = test
    return Pack(directory=directory, pack_id=hashlib.sha256(raw).hexdigest(), manifest=MappingProxyType(manifest),
                tests=MappingProxyType(tests))


def verify_pack(directory: str | Path, pack_id: str | None = None) -> Pack:
    """`open_pack`, refused unless its id is `pack_id` (when given), and everything the pack says of itself checked
    against its content: every test file against the schema and its manifest entry (test id, kind, number of
    cases, case ids), every fill recipe against MAX_FILL_BYTES (nothing is allocated for a region), the
    manifest's counts against its tests and every test's cases against its profile's (the test files' checks
    once per pack id and code: format.cache). PackError, one line naming the file and field. What the pack says of the spec (its test list, its expected results) needs the
    spec and the reference: runner.pack_check."""
    pack = open_pack(directory)
    if pack_id is not None and pack.pack_id != pack_id.lower():
        raise PackError(f"{pack.directory}: its pack id is {pack.pack_id}, not the pinned {pack_id}: this is not "
                        "the pack whose id was published (it was changed, or it is another pack)")
    manifest = pack.directory / MANIFEST_FILE
    if pack.profile not in PROFILES:
        raise PackError(f"{manifest}: 'built.profile': {bounded.shown(pack.profile)} is not a profile "
                        f"({', '.join(PROFILES)})")
    # the test files' checks depend on their content alone, which the pack id pins (open_pack checked every file
    # against its hash): passed once, they are not run again on the same pack by the same code (format.cache)
    def check_test_files() -> None:
        for test in pack.tests.values():
            _check_test_file(pack, test)
    cache.checked("pack-checked", pack.pack_id, check_test_files)
    difference = _first_difference(pack.manifest["counts"], counts(list(pack.tests.values())), "counts")
    if difference is not None:
        where, claimed, actual = difference
        raise PackError(f"{manifest}: '{where}' says {bounded.shown(claimed)}; its tests hold {bounded.shown(actual)}: "
                        "the manifest's counts are not its content's")
    return replace(pack, checked=True)


def _first_difference(claimed: Any, actual: Any, where: str) -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ (a dotted path into mappings), with both values there; None if equal."""
    if isinstance(claimed, Mapping) and isinstance(actual, Mapping):
        for key in sorted({*claimed, *actual}, key=str):
            found = _first_difference(claimed.get(key), actual.get(key), f"{where}.{key}")
            if found is not None:
                return found
        return None
    return None if claimed == actual else (where, claimed, actual)


def profile_budget(profile: str, kind: str) -> int:
    """The most cases a test of `kind` holds in a pack of `profile` (the cases a profile run draws for it)."""
    return SMOKE_CASES if kind == TestKind.SMOKE.value else PROFILES[profile]


def _check_test_file(pack: Pack, test: PackTest) -> None:
    """One test file against the schema and what the manifest says of it (PackError naming the file)."""
    path = pack.directory / test.file
    data = _test_file(path, _test_bytes(path))
    problem = schemas.problem(data, SCHEMA, "test")
    if problem is not None:
        raise PackError(f"{path}: {problem}")
    differently = wire.read_differently(data)
    if differently is not None:
        where, number = differently
        raise PackError(f"{path}: '{where}': {bounded.shown(number)} is not an integer of at most 64 bits, as every "
                        "number of a pack is")
    if (data["test"], data["kind"], len(data["cases"])) != (test.id, test.kind, test.cases):
        raise PackError(f"{path}: holds {data['kind']} test {data['test']} with {len(data['cases'])} case(s); the "
                        f"manifest says {test.kind} test {test.id} with {test.cases}")
    budget = profile_budget(pack.profile, test.kind)
    if test.cases > budget:
        raise PackError(f"{path}: test {test.id} holds {test.cases} cases; a {test.kind} test of a "
                        f"`{pack.profile}` pack (the manifest's profile) holds at most {budget}")
    for index, entry in enumerate(data["cases"]):
        case = entry["case"]
        if case["id"] != f"{test.id}#{index}":
            raise PackError(f"{path}: case {index} has id {bounded.shown(case['id'])}; expected {test.id}#{index}")
        for name, region in case["memory"].items():
            try:
                Fill(**region["fill"])
            except ValueError as error:
                raise PackError(f"{path}: case {case['id']}: region {name}: {error}") from None


def write_pack(directory: Path, *, header: Mapping[str, Any], tests: Iterable[tuple[PackTest, PackedTest]],
               format_text: str) -> Pack:
    """Write a pack into `directory` (new or empty): a file per test, FORMAT.md, then the manifest (`header`:
    its fields but tests, files and counts, which are worked out here). The same content gives the same bytes
    (sorted keys, gzip without a time stamp), hence the same pack id."""
    check_new_directory(directory)
    files: dict[str, str] = {}
    listed = []
    path = directory / TESTS_DIR
    try:   # a file the machine will not let it write (a full disk) is the suite's failure: MachineFault
        path.mkdir(parents=True, exist_ok=True)
        for test, packed in tests:
            data = canonical({"pack_format": PACK_FORMAT, "test": test.id, "kind": test.kind, **packed.to_json()})
            blob = gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)
            path = directory / test.file
            path.write_bytes(blob)
            files[test.file] = hashlib.sha256(blob).hexdigest()
            listed.append(test)
        path = directory / FORMAT_FILE
        path.write_text(format_text, encoding="utf-8")
        files[FORMAT_FILE] = sha256_file(path)
        manifest = {**header, "pack_format": PACK_FORMAT, "counts": counts(listed),
                    "tests": [test.to_json() for test in listed], "files": files}
        path = directory / MANIFEST_FILE   # last: a pack cut short by the disk has none, and is refused
        path.write_bytes(json.dumps(manifest, sort_keys=True, indent=1).encode("ascii") + b"\n")
    except OSError as error:
        raise MachineFault(path, error) from None
    return open_pack(directory)


def check_new_directory(directory: Path) -> None:
    """PackError (one line) unless `directory` can take a new pack: a usable path (format.files) that does not
    exist or is an empty directory, which is then made and can be written into."""
    try:
        usable_path(directory)
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            raise PackError(f"{directory}: exists and is not an empty directory; give a new directory for the pack")
        output_directory(directory)
    except OSError as error:
        raise PackError(f"{directory}: cannot read it ({error.strerror or error})") from None
    except PackError:
        raise
    except ConformanceError as error:
        raise PackError(str(error)) from None


def counts(tests: list[PackTest]) -> dict[str, Any]:
    """Tests and cases, per kind and per rule (the cases of the tests about each rule)."""
    per_kind: dict[str, dict[str, int]] = {}
    per_rule: dict[str, int] = {}
    for test in tests:
        kind = per_kind.setdefault(test.kind, {"tests": 0, "cases": 0})
        kind["tests"] += 1
        kind["cases"] += test.cases
        rule = test.subject.get("rule")
        if rule:
            per_rule[rule] = per_rule.get(rule, 0) + test.cases
    return {"tests": len(tests), "cases": sum(test.cases for test in tests), "per_kind": per_kind,
            "per_rule": dict(sorted(per_rule.items()))}
