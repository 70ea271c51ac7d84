"""Certification packs: what `pack build` writes (format.pack, runner.pack_build), that every case and expected
result is made from the pack alone, that a pack's case is judged as a profile run judges it (judge.packed),
that a changed pack is refused naming the file, and what lies beyond a target's declared limits."""
from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from ascendc_conformance import reference
from ascendc_conformance.format import cache
from ascendc_conformance.format import pack as pack_module
from ascendc_conformance.format.answer import Answer, AnswerKind, Hello
from ascendc_conformance.format.case import Case, Operand, Region, Result
from ascendc_conformance.format.limits import DeclaredAlignment, DeclaredMaximum, Limits
from ascendc_conformance.format.pack import MANIFEST_FILE, Pack, PackError, digested, open_pack, verify_pack
from ascendc_conformance.judge.evidence import Evidence, Proof, Question, judge_with_evidence
from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.judge.packed import by_digest, judge_packed
from ascendc_conformance.judge.verdict import RuleNaming
from ascendc_conformance.runner.pack_build import BuildSettings, build
from ascendc_conformance.runner.selection import PACKED_KINDS, Selection
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.context import PathContext
from ascendc_conformance.strategies.limits import beyond

SPEC = load_spec()
SELECTION = BuildSettings(profile="quick", seed=5, products=("atlas-a2",), apis=("DataCopy",))
HELLO = Hello.from_dict({"name": "t", "validates": True})
READINGS = [SPEC.reading([]), SPEC.reading(["devkit"]), SPEC.reading(["D13=destination-bytes"])]


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Pack:
    return build(SELECTION, SPEC, tmp_path_factory.mktemp("packs") / "pack")


def cases_of(pack: Pack):
    return [(test_id, packed) for test_id in pack.tests for packed in pack.read_test(test_id).cases]


def test_a_pack_holds_every_test_of_the_run_but_the_limit_tests(pack: Pack) -> None:
    selection = Selection(SPEC, SELECTION.products, SELECTION.apis, profile=SELECTION.profile)
    assert list(pack.tests) == [test_id for test_id, _, _ in selection.tests(*PACKED_KINDS)]
    counts = pack.manifest["counts"]
    assert counts["cases"] == sum(test.cases for test in pack.tests.values()) == len(cases_of(pack)) > 0
    assert {kind for kind in counts["per_kind"]} == {"smoke", "legal", "illegal", "boundary"}
    assert pack.manifest["built"]["seed"] == 5 and pack.spec_digest == SPEC.digest


def test_the_pack_id_is_the_digest_of_the_manifest_which_lists_every_file(pack: Pack) -> None:
    manifest = (pack.directory / MANIFEST_FILE).read_bytes()
    assert pack.pack_id == hashlib.sha256(manifest).hexdigest()
    files = {str(path.relative_to(pack.directory)) for path in pack.directory.rglob("*") if path.is_file()}
    assert files == {MANIFEST_FILE, *pack.manifest["files"]}
    assert verify_pack(pack.directory).pack_id == pack.pack_id


def test_the_same_build_gives_the_same_pack(tmp_path: Path) -> None:
    settings = BuildSettings(profile="quick", seed=11, products=("atlas-a3",), apis=("DataCopyNz2Nd",))
    first, second = build(settings, SPEC, tmp_path / "one"), build(settings, SPEC, tmp_path / "two")
    assert first.pack_id == second.pack_id
    assert build(replace(settings, seed=12), SPEC, tmp_path / "three").pack_id != first.pack_id


def test_every_case_and_expected_result_comes_from_the_pack_alone(pack: Pack) -> None:
    """Each case rebuilt from its recipes is a valid case v1 of its test, whose expected results, under
    every reading the pack stores, are the reference's (regions by their SHA-256)."""
    for test_id, packed in cases_of(pack):
        case = packed.materialize()
        Case.from_json(case.to_json())
        assert case.id is not None and case.id.startswith(f"{test_id}#")
        for choices, stored in packed.expected:
            result = reference.expect(case, SPEC, reading=SPEC.reading([f"{p}={a}" for p, a in choices.items()]))
            assert digested(result) == stored, (case.id, dict(choices))
    assert any(packed.points for _, packed in cases_of(pack))   # disputed discriminators with their readings


def answers_to(case: Case, reading) -> list[Answer]:
    """What targets may answer: the reference under the seed and under `reading`, a byte changed, a
    rejection naming another rule, one naming none (its twin decides), an acceptance that changes nothing."""
    right = [reference.expect(case, SPEC), reference.expect(case, SPEC, reading=reading)]
    answers = [Answer(kind=AnswerKind.RESULT, result=result) for result in right if result.status in ("ok", "rejected")]
    ok = next((result for result in right if result.status == "ok"), None)
    if ok is not None and ok.memory is not None:
        name, region = next(iter(ok.memory.items()))
        data = bytearray(region.data)
        data[len(data) // 2] ^= 0xFF
        changed = {**ok.memory, name: Region(region.address, bytes(data))}
        answers.append(Answer(kind=AnswerKind.RESULT, result=Result.ok(changed)))
    answers.append(Answer(kind=AnswerKind.RESULT, result=Result.rejected(("DataCopy-blockCount-max",), "")))
    answers.append(Answer(kind=AnswerKind.RESULT, result=Result.rejected((), "CHECK(addr % 512 == 0) failed")))
    answers.append(Answer(kind=AnswerKind.RESULT, result=Result.ok(case.memory)))
    answers.append(Answer(kind=AnswerKind.TIMEOUT, message="no answer"))
    return answers


@pytest.mark.parametrize("proof", [Proof.ACCEPTED, Proof.NO_TWIN])
def test_a_pack_case_is_judged_as_a_profile_run_judges_it(pack: Pack, proof: Proof) -> None:
    """Verdict, message, diff, the readings followed and the expected result (when a failure needs it) are
    those of the judge given the reference's expected results, under every reading, with the same evidence of
    the twins (`proof`: every twin accepted, or none to send)."""
    def ask(question: Question) -> Evidence:
        return Evidence(proof, f"{proof} for {question.describe()}")

    chosen = [packed for _, packed in cases_of(pack)]
    chosen = [packed for packed in chosen if packed.points] + chosen[::25]
    for packed in chosen:
        case = packed.materialize()
        for reading in READINGS:
            expected, others = reference.expect_readings(case, SPEC, reading)
            if expected.status not in ("ok", "rejected"):
                continue
            for answer in answers_to(case, reading):
                plain = judge_with_evidence(case, expected, answer, HELLO, reading=reading, others=others, spec=SPEC,
                                            ask=ask)
                # the answer as bytes, and as the digests a region-digest target gives (its bytes asked for if needed)
                for given in (answer, by_digest(answer)):
                    verdict, judged, used = judge_packed(packed, case, given, HELLO, reading=reading,
                                                         rule_naming=RuleNaming.KNOWN, spec=SPEC, rule=None, ask=ask,
                                                         in_full=lambda: answer)
                    assert (verdict.outcome, verdict.message, verdict.diff, dict(verdict.points),
                            verdict.followed) == (plain.outcome, plain.message, plain.diff, dict(plain.points),
                                                  plain.followed), case.id
                    if verdict.is_failure:
                        assert judged == expected and verdict.actual == plain.actual
                    # the bytes are asked for only where the verdict needs them: a failure, a disputed case
                    assert used is (answer if verdict.is_failure or verdict.outcome is Outcome.DISPUTED else given)


def rewrite(pack_dir: Path, name: str, change) -> None:
    """Rewrite one test file's JSON through `change` and put its new SHA-256 in the manifest."""
    path = pack_dir / name
    data = json.loads(gzip.decompress(path.read_bytes()))
    change(data)
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    manifest = json.loads((pack_dir / MANIFEST_FILE).read_text())
    manifest["files"][name] = hashlib.sha256(path.read_bytes()).hexdigest()
    (pack_dir / MANIFEST_FILE).write_text(json.dumps(manifest))


def first_test_file(pack_dir: Path) -> str:
    return json.loads((pack_dir / MANIFEST_FILE).read_text())["tests"][0]["file"]


def change_manifest(pack_dir: Path, change) -> None:
    manifest = json.loads((pack_dir / MANIFEST_FILE).read_text())
    change(manifest)
    (pack_dir / MANIFEST_FILE).write_text(json.dumps(manifest))


TAMPERINGS = {
    "a changed file": (lambda d: (d / first_test_file(d)).write_bytes((d / first_test_file(d)).read_bytes() + b"x"),
                       "SHA-256 does not match the manifest's"),
    "a missing file": (lambda d: (d / "FORMAT.md").unlink(), "FORMAT.md: missing"),
    "an unlisted file": (lambda d: (d / "tests" / "extra.json.gz").write_bytes(b""), "extra.json.gz: not listed"),
    "a manifest without files": (lambda d: change_manifest(d, lambda m: m.pop("files")), "'files' is a required"),
    "a later pack format": (lambda d: change_manifest(d, lambda m: m.update(pack_format=2)), "not a pack format"),
    "a file outside the pack": (lambda d: change_manifest(d, lambda m: m["files"].update({"../x": "0" * 64})),
                                "lies outside the pack"),
    "not JSON": (lambda d: (d / MANIFEST_FILE).write_text("{"), "not JSON"),
}


@pytest.mark.parametrize("how", TAMPERINGS)
def test_a_changed_pack_is_refused_on_one_line_naming_the_file(pack: Pack, tmp_path: Path, how: str) -> None:
    tamper, words = TAMPERINGS[how]
    copy = shutil.copytree(pack.directory, tmp_path / "copy")
    tamper(copy)
    with pytest.raises(PackError) as refused:
        open_pack(copy)
    message = str(refused.value)
    assert words in message and str(copy) in message and "\n" not in message, message


def test_verify_reads_every_file_against_the_schema_and_the_counts(pack: Pack, tmp_path: Path) -> None:
    """A test file rewritten with a matching hash opens, but `verify_pack` (pack verify) reads what it holds."""
    copy = shutil.copytree(pack.directory, tmp_path / "copy")
    name = first_test_file(copy)
    rewrite(copy, name, lambda data: data["cases"][0]["case"]["memory"]["GM"]["fill"].update(seed=-1))
    open_pack(copy)
    with pytest.raises(PackError, match=r"json\.gz: 'cases\.0\.case\.memory\.GM\.fill\.seed'"):
        verify_pack(copy)
    rewrite(copy, name, lambda data: data["cases"].pop(0))
    with pytest.raises(PackError, match=r"the manifest says \w+ test"):
        verify_pack(copy)


@pytest.mark.parametrize("number", [2.0, 2**64, -2**63 - 1, 2**70])
def test_a_number_orjson_reads_otherwise_than_json_is_refused_in_a_test_file(pack: Pack, tmp_path: Path,
                                                                             number: int | float) -> None:
    """A checked pack's test files are read again without the checks of outside JSON (format.wire.loads_checked:
    orjson, which reads an integer past 64 bits as a float): `verify_pack` refuses, naming the field, a number
    the schema takes that orjson would read otherwise than the check did."""
    copy = shutil.copytree(pack.directory, tmp_path / "copy")
    rewrite(copy, first_test_file(copy), lambda data: data["cases"][0]["case"]["params"].update(blockCount=number))
    with pytest.raises(PackError, match=r"json\.gz: 'cases\.0\.case\.params\.blockCount': \w+ [-\d.]+ is not an "
                                        r"integer of at most 64 bits"):
        verify_pack(copy)


def test_a_checked_pack_reads_its_tests_as_an_unchecked_one(pack: Pack) -> None:
    """`verify_pack` marks the pack checked, whose test files are then read without the checks again: the same
    tests, case for case; a pack only opened is read with every check."""
    checked, opened = verify_pack(pack.directory), open_pack(pack.directory)
    assert checked.checked and not opened.checked
    for test_id in pack.tests:
        assert checked.read_test(test_id) == opened.read_test(test_id), test_id


def test_a_packs_files_are_checked_once_per_pack_id(pack: Pack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks of the test files depend on their content alone, which the pack id pins: a second verify of the
    same pack skips them (format.cache), a pack changed in any file (another id) is checked again."""
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    checked: list[str] = []
    check = pack_module._check_test_file
    monkeypatch.setattr(pack_module, "_check_test_file", lambda p, test: checked.append(test.id) or check(p, test))
    copy = shutil.copytree(pack.directory, tmp_path / "copy")
    verify_pack(copy)
    assert len(checked) == len(pack.tests)
    verify_pack(copy)
    assert len(checked) == len(pack.tests), "the same pack's files were checked again"
    rewrite(copy, first_test_file(copy), lambda data: data["cases"][0]["case"]["memory"]["GM"]["fill"].update(seed=-1))
    with pytest.raises(PackError, match=r"'cases\.0\.case\.memory\.GM\.fill\.seed'"):
        verify_pack(copy)
    with pytest.raises(PackError, match=r"'cases\.0\.case\.memory\.GM\.fill\.seed'"):
        verify_pack(copy)   # a check that failed is not remembered


def datacopy_case(dst_address: int = 96, **params) -> tuple[Case, PathContext]:
    ctx = PathContext.make(SPEC, "atlas-a2", "DataCopy", "GM", "VECIN", "half", "half", "params")
    case = Case(api="DataCopy", product="atlas-a2", src=Operand("GM", "half", 64),
                dst=Operand("VECIN", "half", dst_address), memory={},
                params={"blockCount": 2, "blockLen": 1, "srcGap": 0, "dstGap": 0, **params})
    return case, ctx


def test_what_lies_beyond_a_targets_declared_limits() -> None:
    case, ctx = datacopy_case(blockCount=300)
    maximum = Limits(maxima=(DeclaredMaximum("blockCount", 255),))
    assert "blockCount = 300 is above the declared 255" in beyond(case, ctx, maximum)
    assert beyond(case, ctx, maximum, exempt=frozenset({"blockCount"})) is None   # a fault's own faulty value
    aligned = Limits(alignments=(DeclaredAlignment(64, memory="UB"),))
    assert "dst address 0x60 is not 64-B aligned" in beyond(case, ctx, aligned)
    case, _ = datacopy_case(dst_address=97, blockCount=300)   # misaligned against the spec itself: a misalignment fault's point
    assert beyond(case, ctx, aligned) is None and beyond(case, ctx, Limits()) is None
