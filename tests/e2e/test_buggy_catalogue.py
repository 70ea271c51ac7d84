"""Every buggy target of tests/fixtures/buggy/targets.py earns its verdict on a hand-picked case where the bug shows,
passes a case where it does not, and a few do the same served over exec (tests/fixtures/buggy/exec_buggy.py)."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ascendc_conformance import reference
from ascendc_conformance.format.case import Case
from ascendc_conformance.targets import Target, open_target
from ascendc_conformance.judge.verdict import Verdict, judge
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.faults import faults
from tests.fixtures.buggy import targets as buggy
from tests.helpers.casebuild import make_case, sentinel

ROOT = Path(__file__).resolve().parents[2]
EXEC_BUGGY = ROOT / "tests" / "fixtures" / "buggy" / "exec_buggy.py"


def noise(size: int, seed: int) -> bytes:
    """Non-zero bytes (casebuild.sentinel, but quick for hundreds of kilobytes)."""
    return np.random.default_rng(seed).integers(1, 256, size, dtype=np.uint8).tobytes()


def halves(first: int, last: int) -> bytes:
    return np.arange(first, last + 1, dtype="<f2").tobytes()


def bursts_into_gm(count: int) -> dict:
    """VECOUT -> GM int8_t: `count` one-block bursts 65535 blocks apart, each GM burst in a region of its own."""
    pitch = (1 + 65535) * 32
    gm = {("GM" if i == 0 else f"GM#{i}"): (64 + i * pitch, noise(32, 100 + i % 50)) for i in range(count)}
    return {**make_case("DataCopy", "atlas-a2", ("VECOUT", "int8_t", 0), ("GM", "int8_t", 64),
                        {"blockCount": count, "blockLen": 1, "srcGap": 0, "dstGap": 65535},
                        {"UB": noise(count * 32, 99), **gm}), "extensions": ["sparse-memory"]}


LOADDATA = {"startIndex": 0, "repeatTimes": 2, "srcStride": 1, "sid": 0, "dstGap": 0, "ifTranspose": False,
            "addrMode": 0}

CASES = {
    # DataCopy GM -> VECIN half, two bursts with a source and a destination gap.
    "multi-burst": make_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 256),
                             {"blockCount": 2, "blockLen": 8, "srcGap": 1, "dstGap": 1},
                             {"GM": sentinel(64, 1) + halves(1, 272) + sentinel(64, 2), "UB": sentinel(1024, 3)}),
    # The same call in one burst: no gap, no second burst.
    "one-burst": make_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 256),
                           {"blockCount": 1, "blockLen": 8, "srcGap": 1, "dstGap": 1},
                           {"GM": sentinel(64, 1) + halves(1, 272) + sentinel(64, 2), "UB": sentinel(1024, 3)}),
    "transpose": make_case("LoadData2D", "atlas-a2", ("A1", "half", 0), ("A2", "half", 0),
                           {**LOADDATA, "ifTranspose": True},
                           {"L1": halves(1, 512) + sentinel(64, 4), "L0A": sentinel(1536, 5)}),
    "training-gap": make_case("LoadData2D", "atlas-training", ("A1", "half", 0), ("A2", "half", 0),
                              {**LOADDATA, "dstGap": 1},
                              {"L1": halves(1, 512) + sentinel(64, 4), "L0A": sentinel(2048, 5)}),
    "inference-gap": make_case("LoadData2D", "atlas-inference-aicore", ("A1", "half", 0), ("A2", "half", 0),
                               {**LOADDATA, "dstGap": 1},
                               {"L1": halves(1, 512) + sentinel(64, 4), "L0A": sentinel(2048, 5)}),
    "nz2nd-strided": make_case("DataCopyNz2Nd", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 0),
                               {"ndNum": 1, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 8,
                                "dstDStride": 32, "dstNdMatrixStride": 1},
                               {"UB": halves(1, 256) + sentinel(64, 6), "GM": sentinel(512, 7)}),
    "nz2nd-packed": make_case("DataCopyNz2Nd", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 0),
                              {"ndNum": 1, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 4,
                               "dstDStride": 32, "dstNdMatrixStride": 1},
                              {"UB": halves(1, 256) + sentinel(64, 6), "GM": sentinel(512, 7)}),
    # E3: float, dimValue 2, source slices 7 elements apart.
    "slice-strided": make_case(
        "DataCopySlice", "atlas-a2", ("GM", "float", 64), ("VECIN", "float", 64),
        {"dimValue": 2,
         "dstSliceInfo": [{"startIndex": 0, "endIndex": 47, "stride": 0, "burstLen": 3, "shapeValue": 48},
                          {"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2}],
         "srcSliceInfo": [{"startIndex": 16, "endIndex": 70, "stride": 7, "burstLen": 3, "shapeValue": 87},
                          {"startIndex": 0, "endIndex": 2, "stride": 1, "burstLen": 1, "shapeValue": 3}]},
        {"GM": sentinel(64, 6) + np.arange(1, 262, dtype="<f4").tobytes() + sentinel(60, 7), "UB": sentinel(512, 8)}),
    "count-ragged": make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0), {"count": 20},
                              {"GM": halves(1, 64), "UB": sentinel(256, 9)}),
    "count-whole": make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0), {"count": 32},
                             {"GM": halves(1, 64), "UB": sentinel(256, 9)}),
    "half-to-float": make_case("DataCopy", "atlas-a2", ("C1", "half", 0), ("C2", "float", 0),
                               {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                               {"L1": halves(1, 128), "BT": sentinel(256, 10)}),
    # A1 -> C2PIPE2GM, two 128-B bursts 128 B apart in the source, dstGap 2 (D7: 256 B apart, or 64 B).
    "fixpipe-gap": make_case("DataCopy", "atlas-a2", ("A1", "uint64_t", 0), ("C2PIPE2GM", "uint64_t", 0),
                             {"blockCount": 2, "blockLen": 1, "srcGap": 4, "dstGap": 2},
                             {"L1": sentinel(320, 11), "FB": sentinel(512, 12)}),
    # blockCount 0 (D1): illegal by the seed, a no-op under devkit on atlas-a2/a3.
    "zero-blocks": make_case("DataCopy", "atlas-a2", ("GM", "half", 64), ("VECIN", "half", 256),
                             {"blockCount": 0, "blockLen": 8, "srcGap": 1, "dstGap": 1},
                             {"GM": sentinel(64, 1) + halves(1, 272) + sentinel(64, 2), "UB": sentinel(1024, 3)}),
    # blockCount 4096 (one above the documented maximum), regions sized for all 4096 one-block bursts.
    "blockcount-4096": make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                                 {"blockCount": 4096, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                                 {"GM": sentinel(4096 * 32, 11), "UB": sentinel(4096 * 32, 12)}),
    # src slices of 1 DataBlock (8 floats), dst slices of 2: burstLen differs, each side's equation holds.
    "slice-burstlen": make_case(
        "DataCopySlice", "atlas-a2", ("GM", "float", 0), ("VECIN", "float", 0),
        {"dimValue": 1,
         "dstSliceInfo": [{"startIndex": 0, "endIndex": 15, "stride": 0, "burstLen": 2, "shapeValue": 16}],
         "srcSliceInfo": [{"startIndex": 0, "endIndex": 7, "stride": 0, "burstLen": 1, "shapeValue": 8}]},
        {"GM": np.arange(1, 9, dtype="<f4").tobytes(), "UB": sentinel(64, 13)}),
    # Issue 18.4: the top bits of fields. 2049 one-block bursts (bit 11 of blockCount).
    "blockcount-2049": make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                                 {"blockCount": 2049, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                                 {"GM": noise(2049 * 32 + 64, 14), "UB": noise(2049 * 32 + 64, 15)}),
    # One burst of 256 blocks (blockLen 256: nothing left of it in 8 bits).
    "blocklen-256": make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 0),
                              {"blockCount": 1, "blockLen": 256, "srcGap": 0, "dstGap": 0},
                              {"GM": noise(256 * 32, 30), "UB": noise(256 * 32, 31)}),
    # 129 fractals from GM into L1 (bit 7 of repeatTimes).
    "repeat-129": make_case("LoadData2D", "atlas-a2", ("GM", "half", 0), ("A1", "half", 0),
                            {**LOADDATA, "repeatTimes": 129}, {"GM": noise(129 * 512 + 64, 16), "L1": noise(129 * 512 + 64, 17)}),
    # Two column blocks 4096 x 16 elements apart (srcNStride 4096, the documented maximum: bit 12).
    "nz2nd-stride-4096": make_case("DataCopyNz2Nd", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 0),
                                   {"ndNum": 1, "nValue": 1, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 4096,
                                    "dstDStride": 32, "dstNdMatrixStride": 1},
                                   {"UB": noise(4096 * 32 + 64, 18), "GM": noise(128, 19)}),
    # Two rows 32768 elements apart (dstDStride's bit 15: negative as int16_t).
    "nz2nd-rows-32768": make_case("DataCopyNz2Nd", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 64),
                                  {"ndNum": 1, "nValue": 2, "dValue": 16, "srcNdMatrixStride": 1, "srcNStride": 2,
                                   "dstDStride": 32768, "dstNdMatrixStride": 1},
                                  {"UB": noise(256, 20), "GM": noise(64 + 32768 * 2 + 96, 21)}),
    # Two bursts into GM 32768 blocks (1 MiB) apart, each in a region of its own (sparse-memory).
    "gm-gap-32768": {**make_case("DataCopy", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", 64),
                                 {"blockCount": 2, "blockLen": 1, "srcGap": 0, "dstGap": 32768},
                                 {"UB": noise(128, 22), "GM": noise(160, 23), "GM#1": (64 + 32 + 32768 * 32 - 32, noise(128, 24))}),
                     "extensions": ["sparse-memory"]},
    # One burst of 32 B written to GM at 4 GiB + 64.
    "gm-dst-at-4-gib": make_case("DataCopy", "atlas-a2", ("VECOUT", "half", 0), ("GM", "half", (1 << 32) + 64),
                                 {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                                 {"UB": noise(32, 25), "GM": (1 << 32, noise(128, 26))}),
    # Two float slices of 8 elements 65536 elements apart in GM (a stride past 16 bits).
    "slice-stride-65536": make_case(
        "DataCopySlice", "atlas-a2", ("GM", "float", 0), ("VECIN", "float", 0),
        {"dimValue": 1,
         "dstSliceInfo": [{"startIndex": 0, "endIndex": 15, "stride": 0, "burstLen": 1, "shapeValue": 16}],
         "srcSliceInfo": [{"startIndex": 0, "endIndex": 65551, "stride": 65536, "burstLen": 1, "shapeValue": 65552}]},
        {"GM": noise(65552 * 4, 25), "UB": noise(128, 26)}),
    # Two fractals 32768 fractals (16 MiB) apart in GM, each in a region of its own (srcStride's bit 15).
    "stride-32768-gm": {**make_case("LoadData2D", "atlas-training", ("GM", "half", 0), ("A1", "half", 0),
                                    {**LOADDATA, "srcStride": 32768},
                                    {"GM": noise(576, 27), "GM#1": (32768 * 512 - 64, noise(640, 28)), "L1": noise(1088, 29)}),
                        "extensions": ["sparse-memory"]},
    # Issue 27: 2049 one-block bursts 65535 blocks (2 MiB) apart into GM, each in a region of its own: the last
    # one starts 4 GiB past the destination's start.
    "bursts-past-4-gib": bursts_into_gm(2049),
    # The same with 1025 bursts: the last one starts 2 GiB past it.
    "bursts-past-2-gib": bursts_into_gm(1025),
    # Two fractals 32768 fractals (16 MiB) apart in one large GM region (no extension).
    "stride-32768-large": make_case("LoadData2D", "atlas-a2", ("GM", "half", 0), ("A1", "half", 0),
                                    {**LOADDATA, "srcStride": 32768},
                                    {"GM": noise(32768 * 512 + 576, 30), "L1": noise(1088, 31)}),
    # dst at UB 16 breaks DataCopy-dst-align-local (documented, no dispute).
    "illegal": make_case("DataCopy", "atlas-a2", ("GM", "half", 0), ("VECIN", "half", 16),
                         {"blockCount": 1, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                         {"GM": halves(1, 64), "UB": sentinel(256, 9)}),
}

# bug class -> (case where the bug shows, case where it must not)
CATALOGUE = {
    buggy.DataCopyDstGapInElements: ("multi-burst", "one-burst"),
    buggy.DataCopyDstGapIgnored: ("multi-burst", "one-burst"),
    buggy.DataCopySrcGapIgnored: ("multi-burst", "one-burst"),
    buggy.DataCopyBlockCountOffByOne: ("multi-burst", "one-burst"),
    buggy.LoadDataTransposeMissing: ("transpose", "inference-gap"),
    buggy.LoadDataDstGapOnTraining: ("training-gap", "inference-gap"),
    buggy.Nz2NdSrcNStrideIgnored: ("nz2nd-strided", "nz2nd-packed"),
    buggy.SliceStrideIgnored: ("slice-strided", "count-whole"),
    buggy.CountRoundedUp: ("count-ragged", "count-whole"),
    buggy.CountNotRoundedDown: ("count-ragged", "count-whole"),
    buggy.HalfToFloatRaw: ("half-to-float", "multi-burst"),
    buggy.StrayWrite: ("multi-burst", "illegal"),
    buggy.AcceptsEverything: ("illegal", "multi-burst"),
    buggy.RejectsMultiBurst: ("multi-burst", "one-burst"),
    buggy.MarkupInAnswers: ("count-whole", "multi-burst"),
    buggy.WritesNothing: ("multi-burst", "illegal"),
    buggy.FixpipeDstGapIgnored: ("fixpipe-gap", "one-burst"),
    buggy.FollowsD13DestinationBytes: ("half-to-float", "multi-burst"),
    buggy.FollowsDevkitZeroLengths: ("zero-blocks", "multi-burst"),
    buggy.NoBlockCountMax: ("blockcount-4096", "illegal"),
    buggy.NoSliceBurstLenEquality: ("slice-burstlen", "illegal"),
    buggy.ChecksMemoryOnly: ("illegal", "multi-burst"),
    buggy.DataCopyBlockCountIn11Bits: ("blockcount-2049", "multi-burst"),
    buggy.DataCopyBlockLenIn8Bits: ("blocklen-256", "multi-burst"),
    buggy.LoadDataRepeatTimesIn7Bits: ("repeat-129", "transpose"),
    buggy.Nz2NdSrcNStrideIn12Bits: ("nz2nd-stride-4096", "nz2nd-strided"),
    buggy.Nz2NdDstDStrideSigned: ("nz2nd-rows-32768", "nz2nd-packed"),
    buggy.DataCopyGmDstGapIn15Bits: ("gm-gap-32768", "one-burst"),
    buggy.SliceStrideIn16Bits: ("slice-stride-65536", "slice-strided"),
    buggy.LoadDataSimulatorTopBits: ("stride-32768-gm", "training-gap"),
    buggy.GmAddressIn32Bits: ("gm-dst-at-4-gib", "one-burst"),
    buggy.DataCopyBurstOffsetIn32Bits: ("bursts-past-4-gib", "bursts-past-2-gib"),
    buggy.LoadDataSrcStrideBit15Dropped: ("stride-32768-large", "repeat-129"),
}

EXEC_BUGS = ("DataCopyDstGapIgnored", "LoadDataTransposeMissing", "AcceptsEverything", "RejectsMultiBurst")


def verdict_of(target: Target, case: dict | Case, *words: str) -> Verdict:
    """The verdict under the reading `words` name (none: seed), compared with every other reading, as a run does."""
    spec = load_spec()
    reading, parsed = spec.reading(words), case if isinstance(case, Case) else Case.from_json(case)
    expected, others = reference.expect_readings(parsed, spec, reading)
    return judge(parsed, expected, target.execute(parsed), target.hello, reading=reading, others=others, spec=spec)


def assert_earned(bug: type, verdict: Verdict) -> None:
    assert verdict.outcome == bug.VERDICT, verdict.describe()
    if bug.VERDICT == "disputed":
        assert verdict.followed and verdict.followed != verdict.reading, verdict.describe()
    elif verdict.depends_on:   # a failure on a disputed case: it matched none of the readings compared
        assert "none" in verdict.points.values() and "matches none of the readings" in verdict.message
    if bug.DIFF_CLASSES:
        assert verdict.diff is not None and set(bug.DIFF_CLASSES) & set(verdict.diff.runs_by_class), verdict.describe()


def test_the_catalogue_is_complete() -> None:
    assert set(CATALOGUE) == set(buggy.CATALOGUE) and len(CATALOGUE) >= 12
    for bug in buggy.CATALOGUE:
        assert "verdict" in (bug.__doc__ or "").lower(), bug.__name__
        assert bug.VERDICT in ("fail", "missed-reject", "false-reject", "disputed")
        if bug.VERDICT == "fail":
            assert bug.DIFF_CLASSES, bug.__name__
        elif bug.VERDICT != "disputed":
            assert not bug.DIFF_CLASSES, bug.__name__


@pytest.mark.parametrize("bug", list(CATALOGUE), ids=lambda bug: bug.__name__)
def test_bug_is_caught(bug: type) -> None:
    shows, hides = CATALOGUE[bug]
    with open_target(f"python:tests.fixtures.buggy.targets:{bug.__name__}", load_spec()) as target:
        assert target.hello.validates
        assert_earned(bug, verdict_of(target, CASES[shows]))
        quiet = verdict_of(target, CASES[hides])
        assert quiet.outcome == "pass", quiet.describe()


@pytest.mark.parametrize("name", EXEC_BUGS)
def test_bug_is_caught_over_exec(name: str) -> None:
    bug = getattr(buggy, name)
    spec = "exec:" + shlex.join([sys.executable, str(EXEC_BUGGY), name])
    with open_target(spec, load_spec(), timeout=30) as target:
        assert target.hello.name == f"buggy-{name}"
        assert_earned(bug, verdict_of(target, CASES[CATALOGUE[bug][0]]))
        assert verdict_of(target, CASES[CATALOGUE[bug][1]]).outcome == "pass"


def suite_target(bug: type) -> str:
    """The exec twin for the bugs of EXEC_BUGS, the in-process object for the others."""
    if bug.__name__ in EXEC_BUGS:
        return "exec:" + shlex.join([sys.executable, str(EXEC_BUGGY), bug.__name__])
    return f"python:tests.fixtures.buggy.targets:{bug.__name__}"


@pytest.mark.parametrize("bug", buggy.CATALOGUE, ids=lambda bug: bug.__name__)
def test_the_ci_profile_catches_the_bug(bug: type, tmp_path: Path) -> None:
    """`run --profile ci` against the buggy target earns the bug's verdict (stopping at the first failing
    test); a disputed bug is recorded as differing from the default reading and does not fail the run."""
    product, api, keyword = bug.SHOWS_IN
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", suite_target(bug),
                           "--product", product, "--api", api, "-k", keyword, "--profile", "ci", "--seed", "7",
                           "--shrink-seconds", "1", "-x", "--report", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    earned = [r for r in records if r["record"] == "test" and r["verdict"] == bug.VERDICT]
    assert earned, done.stdout[-3000:]
    if bug.VERDICT == "disputed":
        assert done.returncode == 0, done.stdout[-3000:]
        assert any(name not in ("seed", "none") for record in earned for seen in record["disputed"].values()
                   for name in seen)
    else:
        assert done.returncode == 1
        assert earned[0]["replay_command"] and "its smallest case: ascendc-conformance replay" in done.stdout
    if bug.DIFF_CLASSES and bug.VERDICT != "disputed":
        assert set(bug.DIFF_CLASSES) & set(earned[0]["diff"]["runs_by_class"]), earned[0]["message"]


# --- certifying under a chosen reading (--reading) -----------------------------------------------------

def run_suite(tmp_path: Path, target: str, keyword: str, *extra: str, apis: tuple[str, ...] = ("DataCopy",)
              ) -> tuple[subprocess.CompletedProcess, list[dict], dict]:
    """`run --profile ci` on atlas-a2 (with `extra` words, e.g. --reading): the process, the test records and
    report.json."""
    words = [word for api in apis for word in ("--api", api)]
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--product",
                           "atlas-a2", *words, "-k", keyword, "--profile", "ci", "--seed", "7",
                           "--shrink-seconds", "1", "--report", str(tmp_path), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    report = json.loads((tmp_path / "report.json").read_text())
    return done, [r for r in records if r["record"] == "test"], report


def readings_table(report: dict) -> dict[str, dict]:
    return {row["point"]: row for row in report["coverage"]["disputed"]}


D13_TESTS = "(test_legal and C1 and half and float) or half-float-unit-D13"   # the C1 -> C2 half -> float path


def test_a_d13_follower_passes_under_its_reading_and_is_named_under_the_default(tmp_path: Path) -> None:
    target = suite_target(buggy.FollowsD13DestinationBytes)
    done, tests, report = run_suite(tmp_path / "d13", target, D13_TESTS, "--reading", "D13=destination-bytes")
    assert done.returncode == 0, done.stdout[-3000:]
    assert tests and {t["verdict"] for t in tests} == {"pass"}, [(t["test_id"], t["verdict"]) for t in tests]
    assert report["run"]["reading"] == "D13=destination-bytes"
    assert "Reading of the disputed points: D13=destination-bytes" in report["certification"]["text"]
    assert readings_table(report)["D13"]["summary"] == "destination-bytes"
    done, tests, report = run_suite(tmp_path / "seed", target, D13_TESTS)
    assert done.returncode == 0 and {t["verdict"] for t in tests} == {"disputed"}, done.stdout[-3000:]
    row = readings_table(report)["D13"]
    assert row["summary"] == "destination-bytes" and row["counts"]["seed"] == 0 and row["examples"]["destination-bytes"]


def test_the_reference_does_not_pass_under_the_d13_alternative(tmp_path: Path) -> None:
    """A run under --reading D13=destination-bytes certifies that reading of D13: the seed's answers fail it
    (naming the reading they follow), and the readings table still says which one the target follows."""
    done, tests, report = run_suite(tmp_path, "reference", D13_TESTS, "--reading", "D13=destination-bytes")
    assert done.returncode == 1
    failed = [t for t in tests if t["verdict"] == "fail"]
    assert failed and {t["verdict"] for t in tests} <= {"fail", "pass"}, [(t["test_id"], t["verdict"]) for t in tests]
    assert "follows the reading seed, but this run certifies D13=destination-bytes" in failed[0]["message"]
    assert readings_table(report)["D13"]["summary"] == "seed"
    assert report["certification"]["outcome"] == "does not conform"


def test_unconverted_half_bits_fail_under_every_reading(tmp_path: Path) -> None:
    target = suite_target(buggy.HalfToFloatRaw)
    for words in ((), ("--reading", "D13=destination-bytes")):
        done, tests, report = run_suite(tmp_path / str(len(words)), target, D13_TESTS, "-x", *words)
        failed = [t for t in tests if t["verdict"] == "fail"]
        assert done.returncode == 1 and failed, done.stdout[-3000:]
        assert "matches none of the readings compared" in failed[0]["message"]


def test_a_devkit_follower_on_zero_lengths_passes_under_devkit(tmp_path: Path) -> None:
    target = suite_target(buggy.FollowsDevkitZeroLengths)
    keyword = "blockCount-min or blockLen-min or repeatTimes-min"
    done, tests, report = run_suite(tmp_path, target, keyword, "--reading", "devkit", apis=("DataCopy", "LoadData2D"))
    assert done.returncode == 0, done.stdout[-3000:]
    assert {t["verdict"] for t in tests} == {"pass"}, [(t["test_id"], t["verdict"]) for t in tests]
    assert {t["test_id"] for t in tests if t["kind"] == "illegal"} == {
        "test_illegal[DataCopy-blockCount-min:below@atlas-a2]", "test_illegal[DataCopy-blockLen-min:below@atlas-a2]",
        "test_illegal[LoadData2D-repeatTimes-min:below@atlas-a2]"}
    table = readings_table(report)
    assert table["D1"]["summary"] == table["D20"]["summary"] == "devkit" and report["run"]["reading"] == "devkit"


@pytest.mark.parametrize("api", sorted(load_spec().apis))
def test_a_memory_only_validator_fails_every_separable_fault(api: str, tmp_path: Path) -> None:
    """`run --profile ci` of the illegal tests against a target that checks only the regions' bounds and the
    buffers' capacities: the fault test of every separable documented rule fails (missed-reject); only the
    memory rules' own faults and the spec's inseparable variants pass, and the latter are listed."""
    spec = load_spec()
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           "python:tests.fixtures.buggy.targets:ChecksMemoryOnly", "-k", "test_illegal",
                           "--product", "atlas-a2", "--api", api, "--profile", "ci",
                           "--seed", "7", "--shrink-seconds", "1", "--report", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:]
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    tests = [r for r in records if r["record"] == "test" and r["test_id"].startswith("test_illegal[")]
    inseparable, caught = set(), set()
    for record in tests:
        rule = spec.rule(record["rule"])
        variant = record["test_id"][:-1].rsplit(":", 1)[1]
        if rule.status != "documented" or not rule.illegal_by_default or rule.id in buggy.MEMORY_RULES:
            continue
        if rule.inseparable_variant(variant):
            assert record["verdict"] == "pass", record["test_id"]
            inseparable.add(f"{rule.id}:{variant}")
        else:
            assert record["verdict"] == "missed-reject", (record["test_id"], record["verdict"], record["message"])
            caught.add(rule.id)
    separable = {f.rule.id for f in faults(spec, products=["atlas-a2"], apis=[api])
                 if f.expectation == "reject" and not f.inseparable and f.rule.id not in buggy.MEMORY_RULES}
    assert caught == separable, sorted(separable ^ caught)
    listed = {f"{r.id}:{e.variant}" for r in spec.rules.values() if r.api == api for e in r.inseparable}
    assert inseparable == listed, sorted(inseparable ^ listed)


@pytest.mark.parametrize("lenient", [False, True], ids=["default", "lenient-rules"])
def test_rejections_for_another_rule(lenient: bool, tmp_path: Path) -> None:
    """A target that rejects every illegal call citing a rule of the spec the call does not break: by default
    its fault tests fail with wrong-rule (its missing checks would otherwise hide behind its other ones);
    `--lenient-rules` passes them and the rule table counts the cases as rejected for another rule."""
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           "python:tests.fixtures.buggy.targets:RejectsForAnotherRule", "--product", "atlas-a2",
                           "--api", "LoadData2D", "-k", "test_illegal and repeatTimes", "--profile", "ci", "--seed", "7",
                           "--shrink-seconds", "1", "--report", str(tmp_path)] + (["--lenient-rules"] if lenient else []),
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    tests = [r for r in records if r["record"] == "test" and r["rule"] == "LoadData2D-repeatTimes-max"]
    assert tests, done.stdout[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    row = next(r for r in report["coverage"]["rules"] if r["id"] == "LoadData2D-repeatTimes-max")
    if not lenient:
        assert done.returncode == 1 and {r["verdict"] for r in tests} == {"wrong-rule"}, done.stdout[-3000:]
        assert row["illegal_counts"].get("wrong-rule", 0) > 0
    else:
        assert done.returncode == 0 and {r["verdict"] for r in tests} == {"pass"}, done.stdout[-3000:]
        assert row["other_rule"] == row["rejected"] > 0, row


def test_detached_cases_only_reach_targets_that_announce_the_extension(tmp_path: Path) -> None:
    """A target whose hello announces no extension never receives a detached-tensor or sparse-memory case (its
    fake asserts so): those tests are skipped as needs-extension, and the rest (its legal tests too) pass."""
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           "python:tests.fixtures.targets.py_fakes:ReferenceWithoutExtensions", "--product",
                           "atlas-a2", "--api", "LoadData2D", "-k", "startIndex or srcStride or (test_legal and GM)",
                           "--profile", "ci", "--seed", "7", "--report", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    records = {r["test_id"]: r for r in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
               if r["record"] == "test"}
    for test_id in ("test_boundary[LoadData2D-startIndex-range=65535@GM->L1]",
                    "test_illegal[LoadData2D-startIndex-range:above]"):
        assert records[test_id]["skip"] == "needs-extension", records[test_id]
    assert records["test_boundary[LoadData2D-srcStride-range=65535@GM->L1]"]["skip"] == "needs-extension"
    assert records["test_illegal[LoadData2D-startIndex-range:below]"]["verdict"] == "pass"
    assert records["test_legal[atlas-a2-LoadData2D-GM->A2-half]"]["verdict"] == "pass"


def test_both_top_bit_bugs_of_the_simulator_show_in_a_ci_run(tmp_path: Path) -> None:
    """Issue 18.4: the C++ simulator's two bugs (repeatTimes kept in 7 bits into L0A / L0B, srcStride kept in
    15 bits from GM) each fail tests of a `ci` run of LoadData2D on atlas-training: srcStride on GM fractals
    16 MiB apart (sparse-memory), repeatTimes on the 128 fractals that fill an L0A / L0B."""
    bug = buggy.LoadDataSimulatorTopBits
    product, api, keyword = bug.SHOWS_IN
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", suite_target(bug),
                           "--product", product, "--api", api, "-k", keyword, "--profile", "ci", "--seed", "7",
                           "--shrink-seconds", "1", "--report", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:]
    failed = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    cases = [r["case"] for r in failed if r["record"] == "test" and r["verdict"] == "fail"]
    assert any(c["route"].startswith("GM->") and c["params"]["srcStride"] >= 32768 for c in cases), cases
    assert any(c["route"].endswith(("A2", "B2")) and c["params"]["repeatTimes"] == 128 for c in cases), cases
