"""A target declares its limits; the suite tests within them, tests them, and names them (issue 17, item 3).

The C++ simulator's systematic deviation (512-B L1 alignment on LoadData2D) is a false-reject wherever it
shows, never credited to a disputed reading; declared, it is drawn around, checked and named in the
certification ("conforms within declared limits"). A typed target is not sent values its C types cannot hold.
A declaration the target does not honour fails its limit tests. The harness rule Memory-bounds is tested only on
a target that declares it checks the case's regions.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUGGY = "python:tests.fixtures.buggy.targets:"
FAKES = "python:tests.fixtures.targets.py_fakes:"


def _run(tmp_path: Path, target: str, *selection: str) -> tuple[subprocess.CompletedProcess, dict, dict]:
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--profile", "ci",
                           "--seed", "7", "--shrink-seconds", "1", "--report", str(tmp_path), *selection],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    tests = {r["test_id"]: r for r in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
             if r["record"] == "test"}
    return done, tests, json.loads((tmp_path / "report.json").read_text())


def test_an_undeclared_stricter_alignment_is_a_false_reject_never_a_reading(tmp_path):
    done, tests, report = _run(tmp_path, BUGGY + "StricterLoadDataAlignment", "--product", "atlas-training",
                               "--api", "LoadData2D", "-k", "test_legal")
    assert done.returncode == 1
    legal = [t for t in tests.values() if t["kind"] == "legal"]
    assert {t["verdict"] for t in legal} <= {"false-reject", "pass"} and any(t["verdict"] == "false-reject" for t in legal)
    d24 = next(p for p in report["coverage"]["disputed"] if p["point"] == "D24")
    assert d24["counts"].get("must-be-zero", 0) == 0 and d24["counts"]["none"] > 0, d24["counts"]
    # one bug class, diagnosed: operands refused unless 512-B aligned (the target's HYPOTHESIS); a test whose cases
    # all sat at 128-B multiples names a narrower alignment, but lists 512 B among those that explain it
    assert [g["cause"]["hypothesis"] for g in report["failure_groups"]] == ["LoadData2D.L1:aligned-to-512"]
    assert all("LoadData2D.L1:aligned-to-512" in c["hypotheses"] for t in report["failures"] for c in t["causes"])


def test_a_declared_alignment_is_drawn_around_tested_and_named(tmp_path):
    done, tests, report = _run(tmp_path, BUGGY + "DeclaresStricterLoadDataAlignment", "--product", "atlas-training",
                               "--api", "LoadData2D")
    assert done.returncode == 0, done.stdout[-3000:]
    certification = report["certification"]
    # a ci run of one product: what only the other products reach goes untested, and is named
    assert certification["outcome"] == "conforms within declared limits, on what was run"
    assert {entry["why"] for entry in certification["untested"]} == {"product not selected"}
    [limit] = certification["declared_limits"]
    assert limit["rules"] == ["LoadData2D-l1-align"] and "512-B" in limit["text"] and "32-B" in limit["text"]
    [probe] = [t for t in tests.values() if t["kind"] == "limit"]
    assert probe["verdict"] == "pass" and probe["cases"] > 0 and probe["rule"] == "LoadData2D-l1-align"
    for name in ("report.md", "report.html", "junit.xml"):
        text = (tmp_path / name).read_text()
        assert "within declared limits" in text and "LoadData2D-l1-align" in text, name


def test_a_declaration_the_target_does_not_honour_fails_its_limit_tests(tmp_path):
    done, tests, report = _run(tmp_path, FAKES + "ReferenceDeclaringLimits", "--product", "atlas-a2", "--api",
                               "DataCopy", "-k", "test_limit or (test_legal and VECIN and GM and half)")
    assert done.returncode == 1
    probes = {t["variant"]: t for t in tests.values() if t["kind"] == "limit"}
    assert set(probes) == {"DataCopy blockCount <= 100", "DataCopy UB 64-B aligned"}
    assert {t["verdict"] for t in probes.values()} == {"missed-reject"}
    legal = [t for t in tests.values() if t["kind"] == "legal"]
    assert legal and {t["verdict"] for t in legal} == {"pass"}   # drawn within the declared limits
    rules = {rule for limit in report["certification"]["declared_limits"] for rule in limit["rules"]}
    assert "DataCopy-blockCount-max" in rules and "DataCopy-dst-align-local" in rules


def test_a_typed_target_is_not_sent_values_outside_its_c_types(tmp_path):
    typed_dir, untyped_dir = tmp_path / "typed", tmp_path / "untyped"
    done, tests, report = _run(typed_dir, BUGGY + "TypedTarget", "--product", "atlas-a2", "--api", "DataCopy",
                               "-k", "test_illegal or (test_legal and VECIN and GM and half)")
    assert done.returncode == 0, done.stdout[-3000:]
    enforced = {t["test_id"] for t in tests.values() if t["skip"] == "type-enforced"}
    assert "test_illegal[DataCopy-srcGap-range:above]" in enforced and "test_illegal[DataCopy-srcGap-range:below]" in enforced
    assert "test_illegal[DataCopy-blockCount-max:above]" not in enforced   # 4096 fits uint16_t: still sent
    # the tests of one path and the faults (-k): the bits its legal cases did not reach are named
    assert report["certification"]["outcome"] == "conforms on what was run" and report["certification"]["typed"]
    assert "Typed: the target holds each field in its C type" in report["certification"]["text"]
    done, tests, _ = _run(untyped_dir, BUGGY + "CannotHoldOutOfTypeValues", "--product", "atlas-a2", "--api",
                          "DataCopy", "-k", "test_illegal and srcGap")
    assert done.returncode == 1 and tests["test_illegal[DataCopy-srcGap-range:above]"]["verdict"] == "error"


def test_the_harness_rule_is_tested_only_where_declared(tmp_path):
    done, tests, report = _run(tmp_path, FAKES + "ReferenceWithoutRegionChecks", "--product", "atlas-a2", "--api",
                               "LoadData2D", "-k", "Memory")
    assert done.returncode == 0, done.stdout[-3000:]
    regions = [t for t in tests.values() if t["rule"] == "Memory-bounds"]
    assert regions and {t["skip"] for t in regions} == {"not-declared"}
    assert "the harness rule Memory-bounds was not tested" in report["certification"]["text"]
    capacity = [t for t in tests.values() if t["rule"] == "Memory-capacity" and t["kind"] == "illegal"]
    assert capacity and {t["verdict"] for t in capacity} == {"pass"}   # an API rule: tested as ever
