"""Adding an API is its YAML, its reference module and its strategies module, and nothing else.

A copy of the built package gets exactly three files of a toy fifth API (tests/fixtures/toy_api: ToyCopy,
`count` elements copied `repeat` times) and nothing else: the spec checks, `spec apis` lists it, a run of the
reference on it conforms with legal, single-fault and boundary tests of every one of its rules, a target with a
bug in it fails, and the case schema, the CLI's help and the run options never needed to learn its name.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "toy_api"
# the three files, and where in the package each goes
FILES = {"toycopy.yaml": "spec/toycopy.yaml", "reference.py": "reference/apis/toycopy.py",
         "strategies.py": "strategies/apis/toycopy.py"}


@pytest.fixture(scope="module")
def site_with_toy(wheel_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("toy") / "site"
    shutil.copytree(wheel_site, site)
    for source, destination in FILES.items():
        shutil.copy(FIXTURE / source, site / "ascendc_conformance" / destination)
    return site


def _cli(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(FIXTURE)])}
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", *args], capture_output=True, text=True,
                          env=env, cwd=cwd or site, timeout=600)


def test_the_toy_api_is_in_the_spec_and_the_help_never_names_apis(site_with_toy):
    assert _cli(site_with_toy, "spec", "check").returncode == 0
    listed = json.loads(_cli(site_with_toy, "spec", "apis", "--json").stdout)
    assert [a for a in listed if a["api"] == "ToyCopy"] == [
        {"api": "ToyCopy", "title": "ToyCopy (a toy API of the project's tests)", "forms": ["params"],
         "products": ["atlas-a2"], "paths": 2, "rules": 7, "spec_file": "toycopy.yaml",
         "modules": ["reference/apis/toycopy.py", "strategies/apis/toycopy.py"]}]
    for verb in ([], ["run"], ["sample"], ["spec", "paths"]):
        text = " ".join(_cli(site_with_toy, *verb, "--help").stdout.split())   # argparse wraps lines
        assert "spec apis" in text or verb == ["spec", "paths"]
        assert not all(api["api"] in text for api in listed), f"`{' '.join(verb)} --help` lists every API"


def test_the_reference_conforms_on_the_toy_api_with_every_kind_of_test(site_with_toy, tmp_path):
    done = _cli(site_with_toy, "run", "--target", "reference", "--api", "ToyCopy", "--product", "atlas-a2",
                "--profile", "quick", "--seed", "3", "--report", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    tests = {r["test_id"]: r for r in records if r["record"] == "test"}
    assert {r["verdict"] for r in tests.values()} == {"pass"}
    for expected in ("test_legal[atlas-a2-ToyCopy-GM->VECIN-half]", "test_legal[atlas-a2-ToyCopy-GM->VECIN-float]",
                     "test_illegal[ToyCopy-total-max:over-total]", "test_illegal[ToyCopy-count-range:above]",
                     "test_illegal[ToyCopy-repeat-range:below]", "test_illegal[ToyCopy-route:undocumented-route]",
                     "test_illegal[ToyCopy-dtype:undocumented-dtype]", "test_illegal[ToyCopy-dst-align:misaligned]",
                     "test_illegal[Memory-bounds:ToyCopy:region-missing]", "test_boundary[ToyCopy-count-range=4096@GM->UB]",
                     "test_boundary[ToyCopy-repeat-range=4@GM->UB]"):
        assert tests[expected]["cases"] > 0, expected
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["certification"]["outcome"] == "conforms"
    rows = {row["id"]: row for row in report["coverage"]["rules"]}
    assert all(rows[rule]["covered"] for rule in rows if rule.startswith("ToyCopy-")), \
        {rule: rows[rule]["reason"] for rule in rows if rule.startswith("ToyCopy-")}
    bits = {row["field"]: row for row in report["coverage"]["bits"] if row["api"] == "ToyCopy"}
    # count <= 4096 and repeat <= 4: their top bits are set only in 4096 and 4, which clear to 0, below the minimum 1
    assert bits["count"]["reachable"] == list(range(12)) and bits["repeat"]["reachable"] == [0, 1]


def test_a_bug_in_the_toy_api_is_caught(site_with_toy, tmp_path):
    done = _cli(site_with_toy, "run", "--target", "python:buggy:RepeatIgnored", "--api", "ToyCopy", "--product",
                "atlas-a2", "--profile", "quick", "--seed", "3", "--report", str(tmp_path))
    assert done.returncode == 1, done.stdout[-3000:]
    failures = json.loads((tmp_path / "report.json").read_text())["failures"]
    assert failures and {f["verdict"] for f in failures} == {"fail"}
    assert any("left-expected-bytes-unwritten" in f["message"] for f in failures)


DIAGNOSE_TOY = """
import json
from hypothesis import HealthCheck, Phase, given, settings
from ascendc_conformance import reference
from ascendc_conformance.judge.diagnosis import actual_of, diagnose
from ascendc_conformance.judge.grouping import Failure, group_failures
from ascendc_conformance.reference.hypotheses import catalogue, hypothesis
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.strategies.legal import case_for, contexts, select_paths
from ascendc_conformance.targets import open_target

spec, cases = load_spec(), []
ctx = contexts(spec, select_paths(spec, ["atlas-a2"], ["ToyCopy"]))[0]

@settings(max_examples=20, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(case_for(ctx))
def collect(case):
    cases.append(case)

collect()
failures = []
with open_target("python:buggy:RepeatIgnored", spec) as target:
    for index, case in enumerate(cases):
        expected, answer = reference.expect(case, spec), target.execute(case)
        if answer.result is not None and answer.result.memory == expected.memory:
            continue
        diagnosis = diagnose(case, expected, actual_of(answer), spec, spec.seed_reading)
        failures.append(Failure(index, diagnosis.ids, "unexplained"))
groups = group_failures(failures, lambda name: hypothesis(spec, name).rank)
print(json.dumps({"catalogue": [h.id for h in catalogue(spec, "ToyCopy")], "failures": len(failures),
                  "named": [g.named for g in groups]}))
"""


def test_the_toy_apis_bug_classes_come_with_it_and_diagnose_its_bug(site_with_toy, tmp_path):
    """The toy API's reference module declares its own bug class (MISREADINGS) and reads its fields (read_as): the
    hypothesis catalogue has them and its generic misreads with no other file touched, and the failures of a
    target that writes the elements once, whatever `repeat` says, form one cause named by that bug class."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site_with_toy), str(FIXTURE)])}
    done = subprocess.run([sys.executable, "-c", DIAGNOSE_TOY], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    assert {"ToyCopy:repeat-once", "ToyCopy.count:kept-in-8-bits", "ToyCopy.repeat:read-as-0"} <= set(found["catalogue"])
    assert found["failures"] >= 5 and found["named"] == ["ToyCopy:repeat-once"], found
