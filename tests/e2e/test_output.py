"""What a person sees of a failing run (issue 13): a header, one line per failing test and no tracebacks,
failures grouped by cause with the case's params, replay showing the params, a hang paid once per test (and once when sent again),
counts that agree with verdicts, and targets that declare which routes they implement."""
from __future__ import annotations

import json
import re
from html import escape
import shlex
import subprocess
import sys
from pathlib import Path

import hypothesis

from ascendc_conformance.format.defaults import RESENDS_AFTER_LOSS
from ascendc_conformance.reports.render_json import validate_report

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ROOT / "tests" / "fixtures" / "buggy" / "exec_buggy.py"
FAULTY = ROOT / "tests" / "fixtures" / "targets" / "fake_faulty_reference.py"
JUDGED = {"pass", "fail", "missed-reject", "false-reject", "error", "timeout", "crashed", "waived", "disputed"}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def _tests(report_dir: Path) -> list[dict]:
    return [r for r in map(json.loads, (report_dir / "results.jsonl").read_text().splitlines())
            if r["record"] == "test"]


def test_a_failing_run_prints_a_header_and_one_line_per_failing_test(tmp_path: Path) -> None:
    target = "exec:" + shlex.join([sys.executable, str(BUGGY), "DataCopyDstGapIgnored"])
    done = _run("run", "--target", target, "--product", "910B", "--api", "DataCopy", "--profile", "quick",
                "--seed", "2", "--report", str(tmp_path))
    assert done.returncode == 1
    header = done.stdout.splitlines()[:2]
    assert header[0].startswith("[ascendc] ascendc-conformance ") and f"target {target}" in header[0]
    assert '"name": "buggy-DataCopyDstGapIgnored"' in header[0]
    spec_digest = json.loads((tmp_path / "report.json").read_text())["run"]["spec_digest"]
    assert (f"spec {spec_digest}; profile quick (3 cases per test); seed 2 (Hypothesis {hypothesis.__version__}); "
            "products atlas-a2; apis DataCopy") in header[1]
    certification = json.loads((tmp_path / "report.json").read_text())["certification"]
    assert certification["hypothesis_versions"] == [hypothesis.__version__]
    assert f"seed 2 (Hypothesis {hypothesis.__version__})" in certification["text"]
    tests = _tests(tmp_path)
    failing = [t for t in tests if t["verdict"] in JUDGED - {"pass", "disputed", "waived"}]
    assert len(failing) > 20
    for test in failing:   # exactly one line for each, naming its verdict
        assert len(re.findall(rf"^\[ascendc\] {test['verdict'].upper()} {re.escape(test['test_id'])}: ",
                              done.stdout, re.M)) == 1
    assert "Traceback" not in done.stdout and "site-packages" not in done.stdout
    assert "[ascendc] first cause: " in done.stdout and "its smallest case: ascendc-conformance replay" in done.stdout

    for test in tests:     # a test's counts hold its verdict
        if test["verdict"] in JUDGED:
            assert test["counts"].get(test["verdict"], 0) >= 1, test
            assert sum(test["counts"].values()) == test["cases"]

    document = json.loads((tmp_path / "report.json").read_text())
    validate_report(document)
    groups = document["failure_groups"]
    assert len(document["failures"]) == len(failing)
    # every cause of every failing test is counted once, in its group
    assert sum(group["count"] for group in groups) == sum(len(f["causes"]) for f in document["failures"])
    by_id = {f["test_id"]: f for f in document["failures"]}
    for group in groups:
        assert all(group["cause"]["label"] in {c["cause"]["label"] for c in by_id[t]["causes"]} for t in group["tests"])
        assert group["smallest"]["test_id"] in group["tests"] and group["smallest"]["params"]
    assert all(f["params"].startswith("DataCopy atlas-a2 ") for f in document["failures"])
    markdown = (tmp_path / "report.md").read_text()
    assert "## Failures by cause" in markdown and groups[0]["cause"]["label"] in markdown
    html = (tmp_path / "report.html").read_text()
    assert 'id="failure-groups"' in html and escape(groups[0]["smallest"]["params"], quote=False) in html

    replay = document["failures"][0]["replay"]
    again = _run("replay", str(tmp_path / replay), "--target", target)
    assert again.returncode == 1 and f"case: {document['failures'][0]['params']}" in again.stdout


def test_a_hanging_case_is_paid_twice_per_test(tmp_path: Path) -> None:
    """Shrinking never runs a case that timed out again, nor tries smaller ones: each test whose case hangs
    costs exactly one timeout, and one more when the case is sent again before the timeout is reported
    (runner.flakes: RESENDS_AFTER_LOSS; a case that answers the second time is flaky)."""
    log = tmp_path / "hangs.log"
    target = "exec:" + shlex.join([sys.executable, str(FAULTY), "--mode", "hang", "--dtype", "half",
                                   "--log", str(log)])
    done = _run("run", "--target", target, "--product", "atlas-a2", "--api", "LoadData2D", "--profile", "quick",
                "--seed", "1", "-k", "test_legal and A1", "--timeout", "3", "--report", str(tmp_path / "out"))
    assert done.returncode == 1
    timed_out = [t for t in _tests(tmp_path / "out") if t["verdict"] == "timeout"]
    assert len(timed_out) == 2   # GM->A1 and A1->A2 in half
    assert len(log.read_text().splitlines()) == (1 + RESENDS_AFTER_LOSS) * len(timed_out)


def test_a_target_declares_the_routes_it_implements(tmp_path: Path) -> None:
    """hello `implements` / `excludes`: tests outside them are not-supported (n/s), never errors."""
    done = _run("run", "--target", "python:tests.fixtures.targets.py_fakes:OnlyGmToVecin", "--product", "910B",
                "--profile", "quick", "--seed", "1", "-k", "test_legal or test_smoke", "--report", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:]
    tests = _tests(tmp_path)
    legal = [t for t in tests if t["kind"] == "legal"]
    implemented = [t for t in legal if t["api"] == "DataCopy" and t["route"] == "GM->VECIN"]
    assert implemented and {t["verdict"] for t in implemented} == {"pass"}
    others = [t for t in legal if t not in implemented]
    assert others and {t["verdict"] for t in others} == {"not-supported"}
    assert all(t["skip"] == "not-supported" for t in others)
    smoke_count_form = [t for t in tests if t["kind"] == "smoke" and t["test_id"].endswith("GM->VECIN-count]")]
    assert smoke_count_form and {t["verdict"] for t in smoke_count_form} == {"not-supported"}
    matrix = json.loads((tmp_path / "report.json").read_text())["coverage"]["matrix"]
    mine = [c for c in matrix if c["product"] == "atlas-a2"]
    assert {c["state"] for c in mine if c["api"] == "DataCopy" and c["route"] == "GM->VECIN"} == {"pass"}
    assert "not-supported" in {c["state"] for c in mine if c["route"] == "GM->A1"}


def test_a_partial_target_still_refuses_what_the_spec_does_not_document(tmp_path: Path) -> None:
    """A validating target that implements one route is still sent the route, dtype and form faults of the
    APIs it claims (a documented-elsewhere route must be refused whatever it implements); the statement says
    what it covered and what it excluded without contradicting itself."""
    done = _run("run", "--target", "python:tests.fixtures.targets.py_fakes:OnlyGmToVecin", "--product", "910B",
                "--api", "DataCopy", "--profile", "quick", "--seed", "1", "--report", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:]
    tests = {t["test_id"]: t for t in _tests(tmp_path)}
    for rule in ("DataCopy-route:undocumented-route", "DataCopy-dtype:undocumented-dtype", "DataCopy-form:undocumented-form"):
        assert tests[f"test_illegal[{rule}]"]["verdict"] == "pass" and tests[f"test_illegal[{rule}]"]["cases"] > 0
    text = json.loads((tmp_path / "report.json").read_text())["certification"]["text"]
    assert "Covered (paths x dtypes whose legal tests ran, of those documented): atlas-a2/DataCopy 12 of " in text
    assert "Excluded by the target's hello: atlas-a2/DataCopy " in text and "Products covered" not in text
    # a target of one route and a quick run: the bits its cases left untested are counted and named
    assert "[ascendc] VERDICT: CONFORMS ON WHAT WAS RUN (" in done.stdout and " untested) — 0 failing test(s)" in done.stdout
    assert " not supported; " in done.stdout and "[ascendc] untested: " in done.stdout


def test_the_run_reaches_every_api_first_in_the_smoke_phase_and_again_in_the_full_tests_heavy_tests_first(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "--ascendc-target=reference", "--collect-only", "-q",
                           "-p", "no:cacheprovider"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    names = [line.rsplit("::", 1)[-1] for line in done.stdout.splitlines() if "::test_" in line]
    smoke = [name for name in names if name.startswith("test_smoke[")]
    assert smoke and names[:len(smoke)] == smoke            # the whole smoke phase comes first
    apis = ("DataCopy", "DataCopySlice", "LoadData2D", "DataCopyNz2Nd")

    def api_of(name: str) -> str:
        return next(api for api in sorted(apis, key=len, reverse=True) if f"-{api}-" in name or f"[{api}-" in name
                    or f":{api}-" in name or f":{api}:" in name)
    assert {api_of(name) for name in smoke[:4]} == set(apis)
    full = names[len(smoke):]
    assert {api_of(name) for name in full[:4]} == set(apis)
    # each API's heavy tests (large regions, crossings) lead its full tests: they alone show a top-bit bug
    heavy = {api: [name for name in full if api_of(name) == api and name.endswith(("@large]", "@crossing]"))]
             for api in apis}
    assert sum(map(len, heavy.values())) >= 20, heavy
    for api in apis:
        own = [name for name in full if api_of(name) == api]
        assert own[:len(heavy[api])] == heavy[api], f"{api}'s heavy tests are not its first: {own[:len(heavy[api])]}"


def test_a_misspelt_capability_is_warned_about(tmp_path: Path) -> None:
    done = _run("run", "--target", "python:tests.fixtures.targets.py_fakes:MisspeltCapability", "--product", "910B",
                "--profile", "quick", "--seed", "1", "-k", "test_legal and VECIN", "--report", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:]
    assert ("[ascendc] WARNING hello implements[1] {'api': 'DataCopy', 'dst': 'VECN', 'src': 'GM'} matches no "
            "documented path") in done.stdout
    assert "implements[0]" not in done.stdout


TWO_CAUSES = "python:tests.fixtures.targets.py_fakes:TwoCauses"
INT8_GM_TO_VECIN = "test_legal and int8_t and not uint8_t and GM and VECIN and not VECOUT"


def test_the_run_ends_with_a_verdict_line_counting_the_distinct_causes(tmp_path: Path) -> None:
    done = _run("run", "--target", TWO_CAUSES, "--product", "atlas-a2", "--api", "DataCopy", "-k", INT8_GM_TO_VECIN,
                "--profile", "ci", "--seed", "1", "--report", str(tmp_path))
    assert done.returncode == 1
    verdict, first = done.stdout.rstrip().splitlines()[-2:]
    # one path's tests (-k): the verdict line counts what they left untested (each named on the line before it)
    assert verdict.startswith("[ascendc] VERDICT: DOES NOT CONFORM (") and " untested) — 1 failing test(s), 2 distinct " \
        "cause(s);" in verdict
    assert f"report {tmp_path}" in verdict and "profile ci (not a certification run)" in verdict
    # each cause named by the hypothesis that explains it; ties (one test each) by severity: the wrong copy first
    assert first.startswith("[ascendc] first cause: DataCopy / srcGap ignored (read as 0) (")
    assert "; its smallest case: ascendc-conformance replay " in first
    [test] = [t for t in _tests(tmp_path) if t["verdict"] != "skipped"]
    assert [c["cause"]["verdict"] for c in test["causes"]] == ["fail", "false-reject"]
    assert [c["cause"]["hypothesis"] for c in test["causes"]] == ["DataCopy.srcGap:read-as-0",
                                                                  "DataCopy.blockCount:refused-above-3"]
    assert all((tmp_path / c["replay"]).is_file() for c in test["causes"])


def test_plain_pytest_shows_one_failure_listing_its_causes_and_no_python_noise(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", f"--ascendc-target={TWO_CAUSES}", "--ascendc-product=atlas-a2",
                           "--ascendc-api=DataCopy", "-k", INT8_GM_TO_VECIN, "--hypothesis-seed=1",
                           "--ascendc-progress=off", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "2 distinct causes:\n(1) fail: memory differs" in done.stdout and "\n(2) false-reject: " in done.stdout
    for noise in ("ExceptionGroup", "FlakyFailure", "Traceback", "DeprecationWarning", "Falsifying example"):
        assert noise not in done.stdout + done.stderr, noise
    assert done.stdout.count("FAILED ") == 1


def test_an_in_process_targets_prints_are_kept_off_the_terminal(tmp_path: Path) -> None:
    """`run` captures at the sys level (cli.commands.run_cmd.pytest_args): what an in-process target print()s on
    every call is neither on the run's stdout nor on its stderr, and the run passes (a smoke run: incomplete)."""
    done = _run("run", "--target", "python:tests.fixtures.targets.py_fakes:Chatty", "--product", "atlas-a2", "--api",
                "DataCopy", "--profile", "quick", "--seed", "1", "-k", "smoke", "--progress", "off")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "VERDICT: INCOMPLETE" in done.stdout and " passed;" in done.stdout
    assert "chatty" not in done.stdout + done.stderr
