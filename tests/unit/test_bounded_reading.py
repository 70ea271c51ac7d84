"""Every file the suite reads is read with its size limit held while reading (issue 28, item 2): a gzip bomb in a
pack, a sparse manifest, an oversized waiver, spec, replay or case file, a line longer than its limit are refused
on one line having read at most the limit; a results file is reported one line at a time, in memory that does
not grow with the file (only with the last run's distinct tests). Memory is measured with tracemalloc."""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tracemalloc
import zlib
from pathlib import Path
from types import MappingProxyType
from typing import Callable

import pytest

import ascendc_conformance
from ascendc_conformance.cli.main import main
from ascendc_conformance.format import bounded, bounded_yaml, pack, replay, results
from ascendc_conformance.format.bounded import InputError
from ascendc_conformance.format.pack import PackError, PackedTest, PackTest, open_pack, verify_pack, write_pack
from ascendc_conformance.reports import load_results
from ascendc_conformance.runner import waivers
from ascendc_conformance.spec.loader import load_spec

SPEC = load_spec()
MiB = 1 << 20


def peak_bytes(action: Callable[[], object]) -> int:
    """The most memory Python allocated at once while `action` ran (what it raised is ignored)."""
    return measured(action)[0]


def measured(action: Callable[[], object]) -> tuple[int, object]:
    """(the most memory Python allocated at once while `action` ran, what it returned or raised)."""
    tracemalloc.start()
    try:
        outcome = action()
    except Exception as error:   # a refusal, which the caller checks
        outcome = error
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak, outcome


def gzip_bomb(mebibytes: int) -> bytes:
    """A gzip file that inflates to `mebibytes` MiB of spaces, made in milliseconds: one MiB deflated once (a
    full flush after it makes every copy the same bytes), repeated, then an empty final block and a trailer
    (its CRC is not the content's: a reader that keeps to its limit never gets that far)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflate.compress(b" " * MiB) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert deflate.compress(b" " * MiB) + deflate.flush(zlib.Z_FULL_FLUSH) == block
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + block * mebibytes + b"\x03\x00" + (0).to_bytes(4, "little") + (mebibytes * MiB % 2**32).to_bytes(4, "little")


def one_test_pack(directory: Path) -> Path:
    """A pack of one test with no case (format.pack.write_pack), the smallest a schema accepts."""
    test = PackTest(id="test_smoke[x]", kind="smoke", subject=MappingProxyType({"api": "DataCopy"}), cases=0,
                    file="tests/1.json.gz")
    header = {"suite_version": ascendc_conformance.__version__, "spec_digest": SPEC.digest,
              "built": {"profile": "quick", "seed": 1, "hypothesis": "0", "products": [], "apis": [],
                        "reading": "seed", "command": "x", "fill": "splitmix64"}}
    write_pack(directory, header=header, tests=[(test, PackedTest(cases=()))], format_text="format\n")
    return directory


def replace_file(pack_dir: Path, name: str, data: bytes) -> None:
    """Put `data` in the pack as `name`, its SHA-256 in the manifest: a hash-consistent pack."""
    (pack_dir / name).write_bytes(data)
    manifest = json.loads((pack_dir / pack.MANIFEST_FILE).read_text())
    manifest["files"][name] = hashlib.sha256(data).hexdigest()
    (pack_dir / pack.MANIFEST_FILE).write_text(json.dumps(manifest))


def test_a_gzip_bomb_in_a_pack_is_refused_having_inflated_no_more_than_the_limit(tmp_path: Path) -> None:
    bomb = gzip_bomb(1230)   # 1.29 GB inflated, about 1.3 MB as a file
    assert len(bomb) < 1.5 * MiB
    directory = one_test_pack(tmp_path / "pack")
    replace_file(directory, "tests/1.json.gz", bomb)
    for read in (lambda: verify_pack(directory), lambda: open_pack(directory).read_test("test_smoke[x]")):
        with pytest.raises(PackError) as refused:
            read()
        assert str(refused.value) == f"{directory / 'tests/1.json.gz'}: inflates to more than the " \
                                     f"{pack.MAX_TEST_BYTES} bytes accepted"
        peak = peak_bytes(read)
        assert peak < 1.5 * pack.MAX_TEST_BYTES, f"{peak} bytes at the peak, for a limit of {pack.MAX_TEST_BYTES}"


def test_gunzip_keeps_to_its_limit_whatever_the_members() -> None:
    data = gzip.compress(b"a" * 1000) + gzip.compress(b"b" * 1000)
    assert bounded.gunzip(data, "f", 2000) == b"a" * 1000 + b"b" * 1000   # members concatenated
    with pytest.raises(InputError, match="^f: inflates to more than the 1999 bytes accepted$"):
        bounded.gunzip(data, "f", 1999)
    with pytest.raises(InputError, match="^f: not a gzip file"):
        bounded.gunzip(b"not gzip", "f", 2000)
    with pytest.raises(InputError, match="^f: not a gzip file .cut short"):
        bounded.gunzip(data[:-30], "f", 2000)


def test_a_sparse_manifest_of_3_gib_is_refused_without_reading_it(tmp_path: Path) -> None:
    directory = one_test_pack(tmp_path / "pack")
    with open(directory / pack.MANIFEST_FILE, "r+b") as handle:
        handle.truncate(3 << 30)   # a hole: no disk, 3 GiB for a reader
    with pytest.raises(PackError, match=f"manifest.json: larger than the {pack.MAX_MANIFEST_BYTES} bytes accepted$"):
        open_pack(directory)
    assert peak_bytes(lambda: open_pack(directory)) < MiB


@pytest.mark.parametrize("reader, limit", [
    (lambda path: waivers.load(path, SPEC.rules), bounded_yaml.MAX_FILE_BYTES),
    (lambda path: bounded_yaml.parse_file(path, str(path)), bounded_yaml.MAX_FILE_BYTES),
    (lambda path: replay.load(path), replay.MAX_FILE_BYTES),
])
def test_an_oversized_yaml_or_replay_file_is_refused_on_one_line_without_reading_it(tmp_path: Path, reader,
                                                                                     limit: int) -> None:
    path = tmp_path / "big"
    with open(path, "wb") as handle:
        handle.truncate(limit + 1)
    with pytest.raises(Exception) as refused:   # WaiverError, InputError, ReplayError: each one line
        reader(path)
    assert str(refused.value) == f"{path}: larger than the {limit} bytes accepted"
    assert peak_bytes(lambda: reader(path)) < MiB


def test_an_oversized_case_file_is_a_usage_error(tmp_path: Path, capsys) -> None:
    path = tmp_path / "case.json"
    with open(path, "wb") as handle:
        handle.truncate(bounded.MAX_LINE_BYTES + 1)
    assert main(["expect", str(path)]) == 2
    assert capsys.readouterr().err == f"ascendc-conformance: error: {path}: larger than the " \
                                      f"{bounded.MAX_LINE_BYTES} bytes accepted\n"


def test_a_line_longer_than_its_limit_is_read_no_further_than_the_limit() -> None:
    stream = io.BytesIO(b"[1]\n" + b"[" + b"0," * 5000 + b"0]\n" + b"[2]\n" + b"[3")
    lines = list(bounded.lines(stream, max_bytes=100))
    assert [line.number for line in lines] == [1, 2, 3, 4]
    long = lines[1]
    assert long.size == 10_003 and len(long.data) == 101 and long.ended
    with pytest.raises(InputError, match="^x: a line of 10003 bytes, more than the 100 accepted$"):
        long.json("x", 100)
    assert lines[2].json("y", 100) == [2] and not lines[3].ended   # the stream goes on; a cut last line


def write_runs(path: Path, runs: int, tests: int, repeats: int = 1) -> None:
    """A results file of `runs` runs into one directory, each of `tests` tests recorded `repeats` times."""
    run = {"record": "run", "started": "2024-05-01T10:00:00+00:00", "target": "reference", "hello": {},
           "suite_version": "0.1.0", "spec_digest": SPEC.digest, "profile": "ci", "seed": 1, "products": [],
           "apis": [], "shard": None, "workers": 1, "machine": {}}
    with open(path, "w") as handle:
        for number in range(runs):
            handle.write(json.dumps({**run, "started": f"2024-05-01T10:{number // 60:02d}:{number % 60:02d}+00:00"}) + "\n")
            for index in range(tests * repeats):
                handle.write(json.dumps({"record": "test", "test_id": f"test_legal[t{index % tests}]", "kind": "legal",
                                         "verdict": "pass", "counts": {"pass": 10}, "cases": 10,
                                         "message": "x" * 2000}) + "\n")
            handle.write(json.dumps({"record": "end", "finished": "2024-05-01T11:00:00+00:00", "exit_status": 0}) + "\n")


def test_report_reads_a_results_file_in_memory_that_does_not_grow_with_it(tmp_path: Path) -> None:
    """Memory is bounded by one line and the last run's distinct tests: 30 runs, or one run recording each test
    30 times, cost what one run costs (the whole file read at once would cost 30 times as much)."""
    sizes = {}
    for name, runs, repeats in (("one", 1, 1), ("many-runs", 30, 1), ("repeated", 1, 30)):
        directory = tmp_path / name
        directory.mkdir()
        write_runs(directory / results.RESULTS_FILE, runs, tests=20, repeats=repeats)
        peak, loaded = measured(lambda: load_results(directory))
        assert len(loaded.tests) == 20 and loaded.end is not None
        sizes[name] = (os.path.getsize(directory / results.RESULTS_FILE), peak)
    file_one, peak_one = sizes["one"]
    for name in ("many-runs", "repeated"):
        file_size, peak = sizes[name]
        assert file_size > 25 * file_one and peak < 2 * peak_one + MiB, sizes
