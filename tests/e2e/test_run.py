"""End to end: `ascendc-conformance run` against the reference passes, against a buggy exec target fails
with a diff and a replay file, and `replay` reproduces the failure; the reports are written."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ascendc_conformance.runner.selection import Selection
from ascendc_conformance.spec.loader import load_spec
from ascendc_conformance.reports.render_json import validate_report
from tests.helpers.html import Sections

ROOT = Path(__file__).resolve().parents[2]
SELECTION = ["--product", "atlas-a2", "--api", "LoadData2D", "--profile", "quick", "--seed", "1"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascendc_conformance", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_reference_conforms_and_reports_are_written(tmp_path):
    done = _run("run", "--target", "reference", *SELECTION, "--report", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:]
    for name in ("results.jsonl", "report.json", "junit.xml", "report.md", "report.html"):
        assert (tmp_path / name).is_file(), name
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert records[0]["record"] == "run" and records[-1]["record"] == "end"
    assert {r["verdict"] for r in records if r["record"] == "test"} <= {"pass", "disputed", "skipped"}


WITHOUT_EXTENSIONS = "python:tests.fixtures.targets.py_fakes:ReferenceWithoutExtensions"


@pytest.mark.parametrize("target", ["reference", WITHOUT_EXTENSIONS], ids=["every-extension", "no-extension"])
def test_a_whole_ci_run_leaves_untested_only_what_the_target_cannot_be_sent(target, tmp_path):
    """Issue 27: a `ci` run over every product and API (the seed CI runs the catalogue under) exercises every
    reachable bit of every field and every reachable crossing of every derived offset the target can be sent.
    The reference announces every case-format extension: nothing is untested, and only then is its verdict plain
    "conforms". The same reference announcing none is sent the top bits of gaps, strides and start indices in
    large GM regions; what only an extension reaches (a slice's bits 25-31, every crossing) is named, with why."""
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", target, "--profile", "ci",
                           "--seed", "7", "--report", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    coverage, certification = report["coverage"], report["certification"]
    if target == "reference":
        assert certification["outcome"] == "conforms" and certification["untested"] == []
        assert coverage["bits_summary"]["effective"] == coverage["bits_summary"]["reachable"]
        assert coverage["crossings_summary"]["crossed"] == coverage["crossings_summary"]["reachable"] >= 8
        assert "[ascendc] VERDICT: CONFORMS — " in done.stdout
        return
    assert certification["outcome"] == "conforms on what was run"
    assert {entry["why"] for entry in certification["untested"]} == {"extension not announced"}
    untested = {(entry["api"], entry["name"]): entry["values"] for entry in certification["untested"]}
    assert untested[("DataCopySlice", "srcSliceInfo.stride")] == list(range(25, 32))
    assert untested[("DataCopy", "dst-burst-start")] == [31, 32]
    bits = {(row["api"], row["field"]): row for row in coverage["bits"]}
    assert {11, 12, 13, 14, 15} <= set(bits[("LoadData2D", "srcStride")]["effective"])   # in large regions
    assert 15 in bits[("DataCopy", "dstGap")]["effective"]
    assert re.search(r"\[ascendc\] VERDICT: CONFORMS ON WHAT WAS RUN \(\d+ field bits and 10 crossings untested\) — ",
                     done.stdout) and "[ascendc] untested: " in done.stdout


def test_buggy_exec_target_fails_with_diff_and_replay(tmp_path):
    """A real run against a buggy target: the failure, its diff and replay command reach stdout, the replay
    file reproduces it, and every report holds the failure with its replay command."""
    target = f"exec:{sys.executable} tests/fixtures/buggy/exec_buggy.py LoadDataTransposeMissing"
    done = _run("run", "--target", target, *SELECTION, "--report", str(tmp_path), "-x")
    assert done.returncode == 1
    assert "permuted" in done.stdout and "its smallest case: ascendc-conformance replay" in done.stdout
    replays = sorted((tmp_path / "replays").glob("*.json"))
    assert replays
    again = _run("replay", str(replays[0]), "--target", target)
    assert again.returncode == 1 and "verdict: fail — the target still fails this case" in again.stdout
    assert _run("replay", str(replays[0]), "--target", "reference").returncode == 0

    report = json.loads((tmp_path / "report.json").read_text())
    validate_report(report)
    assert report["certification"]["outcome"] == "does not conform"
    [failure] = report["failures"]
    assert failure["verdict"] == "fail" and "permuted" in failure["message"]
    assert failure["replay_command"].startswith("ascendc-conformance replay ") and target in failure["replay_command"]
    html = (tmp_path / "report.html").read_text()
    sections = Sections()
    sections.feed(html)
    assert {"certification", "heatmap", "failures", "rules", "disputed", "waivers", "totals", "run"} <= sections.ids
    assert failure["test_id"] in sections.section("failures") and "ascendc-conformance replay" in sections.section("failures")
    junit = (tmp_path / "junit.xml").read_text()
    assert failure["test_id"].replace(">", "&gt;") in junit and "<failure" in junit
    assert failure["test_id"] in (tmp_path / "report.md").read_text()


def recorded_tests(report_dir: Path) -> dict[str, dict]:
    """The test records of a run's results.jsonl, by test id (each id exactly once)."""
    records = [json.loads(line) for line in (report_dir / "results.jsonl").read_text().splitlines()]
    tests = [r for r in records if r["record"] == "test"]
    assert len({t["test_id"] for t in tests}) == len(tests), "a test was recorded twice"
    return {t["test_id"]: t for t in tests}


def planned(products: list[str], apis: list[str]) -> set[str]:
    """Every conformance test id of a selection."""
    return set(Selection(load_spec(), tuple(products), tuple(apis)).planned)


FAULTY = ROOT / "tests" / "fixtures" / "targets" / "fake_faulty_reference.py"


@pytest.mark.parametrize("mode, verdict, phrase", [
    ("exit", "crashed", "exited with code 3"), ("hang", "timeout", "no answer within"),
    ("nonjson", "error", "not JSON"), ("wrong-length", "error", "decodes to"),
    ("nested", "error", "JSON nested deeper than 64 levels"),
    ("mid-line", "crashed", "in the middle of the line (after 20 bytes, no newline) and exited with code 4")])
def test_a_misbehaving_target_costs_only_the_cases_it_spoils(tmp_path, mode, verdict, phrase):
    """A target that exits (even in the middle of an answer line), hangs, prints non-JSON or 100,000 nested
    brackets, or answers a region of the wrong size on one dtype: the run finishes, those tests get the
    target's verdict (never the suite's own error), and every other test keeps its own result."""
    target = "exec:" + shlex.join([sys.executable, str(FAULTY), "--mode", mode, "--dtype", "half"])
    done = _run("run", "--target", target, *SELECTION, "-k", "test_legal and A1", "--timeout", "3",
                "--shrink-seconds", "1", "--report", str(tmp_path))
    assert done.returncode == 1, done.stdout[-3000:]
    legal = recorded_tests(tmp_path)
    assert set(legal) == {test_id for test_id in planned(["atlas-a2"], ["LoadData2D"])
                          if test_id.startswith("test_legal[") and "A1" in test_id}
    spoiled = {test_id for test_id, t in legal.items() if t["src_dtype"] == "half"}
    assert len(spoiled) == 2   # GM->A1 and A1->A2
    assert {legal[test_id]["verdict"] for test_id in spoiled} == {verdict}
    assert {t["verdict"] for test_id, t in legal.items() if test_id not in spoiled} == {"pass"}
    for test_id in spoiled:
        assert legal[test_id]["replay"] and (tmp_path / legal[test_id]["replay"]).is_file()
        assert phrase in legal[test_id]["message"] and legal[test_id]["skip"] != "suite-error"
    assert (tmp_path / "report.html").is_file() and f"{verdict.upper()} test_legal[" in done.stdout


def test_waivers_under_workers(tmp_path):
    """Under two xdist workers: a waiver for a rule turns its missed rejection into `waived`; a waiver that
    matched nothing is warned about (the tally of used waivers comes from every worker)."""
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- rule: LoadData2D-dstGap-range\n  reason: clamps dstGap\n  link: TRACK-1\n"
                       "- test: test_legal[atlas-a2-LoadData2D-GM->A1-half]\n  reason: stale\n  link: TRACK-2\n")
    done = _run("run", "--target", "python:tests.fixtures.buggy.targets:AcceptsEverything", *SELECTION, "-k", "test_illegal",
                "--waivers", str(waivers), "--workers", "2", "--report", str(tmp_path / "out"))
    assert done.returncode == 1, done.stdout[-3000:]
    tests = recorded_tests(tmp_path / "out")
    assert tests["test_illegal[LoadData2D-dstGap-range:above]"]["verdict"] == "waived"
    assert "missed-reject" in {t["verdict"] for t in tests.values()}
    assert "waiver matched nothing: test_legal[atlas-a2-LoadData2D-GM->A1-half]" in done.stdout
    assert "waiver matched nothing: LoadData2D-dstGap-range" not in done.stdout


def test_a_dead_worker_is_recorded_as_crashed(tmp_path):
    """A python target that kills its process on half cases: under xdist each such test is recorded as
    crashed by the controlling process, xdist starts a new worker, and every other test keeps its result."""
    done = _run("run", "--target", "python:tests.fixtures.targets.py_fakes:DiesOnHalf", *SELECTION, "-k", "test_legal",
                "--workers", "2", "--report", str(tmp_path))
    assert done.returncode == 1, done.stdout[-3000:]
    tests = recorded_tests(tmp_path)
    legal = {test_id for test_id in planned(["atlas-a2"], ["LoadData2D"]) if test_id.startswith("test_legal[")}
    assert set(tests) == legal
    crashed = {test_id for test_id, t in tests.items() if t["verdict"] == "crashed"}
    assert crashed and all(tests[test_id]["src_dtype"] == "half" for test_id in crashed)
    assert all("crashed while running" in tests[test_id]["message"] for test_id in crashed)
    assert {t["verdict"] for test_id, t in tests.items() if t["src_dtype"] != "half"} == {"pass"}


def test_shards_split_the_run_and_merge_back(tmp_path):
    """--shard 1/2 and 2/2 run disjoint parts whose union is the whole selection; `report` merges them."""
    parts = []
    for index in (1, 2):
        out = tmp_path / f"shard{index}"
        done = _run("run", "--target", "reference", *SELECTION, "--shard", f"{index}/2", "--report", str(out))
        assert done.returncode == 0, done.stdout[-3000:]
        parts.append(set(recorded_tests(out)))
    assert parts[0] and parts[1] and not parts[0] & parts[1]
    assert parts[0] | parts[1] == planned(["atlas-a2"], ["LoadData2D"])
    merged = _run("report", str(tmp_path / "shard1"), str(tmp_path / "shard2"), "--out", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stdout + merged.stderr
    report = json.loads((tmp_path / "merged" / "report.json").read_text())
    assert report["verdicts"]["tests"]["pass"] + report["verdicts"]["tests"].get("disputed", 0) \
        + report["verdicts"]["tests"].get("skipped", 0) == len(parts[0] | parts[1])


def test_progress_is_line_oriented_off_a_terminal(tmp_path):
    """Not on a terminal: no pytest dots for conformance tests, a progress line per tenth of the run."""
    done = _run("run", "--target", "reference", *SELECTION)
    lines = [line for line in done.stdout.splitlines() if line.startswith("[ascendc]")]
    done_line = next(line for line in lines if line.startswith("[ascendc] done: 100% "))
    assert len(lines) >= 5 and "LoadData2D" in done_line and "0 failing" in done_line
    assert lines[-3].startswith("[ascendc] reach: ") and lines[-2].startswith("[ascendc] untested: ")
    # one product and a quick run: what other products reach, and what its few cases did not, is named
    assert re.match(r"\[ascendc\] VERDICT: CONFORMS ON WHAT WAS RUN \(\d+ field bits? untested\) — 0 failing test\(s\), "
                    r"0 distinct cause\(s\); [1-9]\d* passed;", lines[-1]), lines[-1]
    assert "(product not selected)" in lines[-2]
    assert not any(set(line) <= set(".s") and line for line in done.stdout.splitlines())


def test_plugin_works_from_any_directory(tmp_path):
    """Installed, `pytest --ascendc-target=reference` runs the suite from a directory that knows nothing of
    the project, with the target's hello, spec hash, profile and seed in the header."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--ascendc-target=reference", "--ascendc-product=910B",
                           "--ascendc-api=DataCopyNz2Nd", "--ascendc-profile=quick", "--hypothesis-seed=3",
                           "--ascendc-reading=seed", "-p", "no:cacheprovider"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert ('target reference (hello: {"extensions": ["detached-tensor", "sparse-memory", "int64", "region-fill", '
            '"region-digest"], "limits": {"checks_regions": true}, "name": "reference", "validates": true})'
            in done.stdout)
    assert "profile quick (3 cases per test); seed 3" in done.stdout and "spec " in done.stdout
    assert "reading seed: every point takes its default" in done.stdout
    assert "[ascendc] done: 100%" in done.stdout


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_hypothesis_profile_given_to_pytest_does_not_change_the_run(tmp_path, workers):
    """Hypothesis's plugin loads --hypothesis-profile at configure time, possibly after the run's own profile:
    the run must keep its cases per test, seeding and health checks (the `default` profile would draw 100
    cases and fail every test on a function-scoped fixture), and say that the option is not used."""
    report = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "pytest", "--ascendc-target=reference", "--ascendc-product=atlas-a2",
                           "--ascendc-api=DataCopyNz2Nd", "--ascendc-profile=quick", "--hypothesis-seed=3",
                           "--hypothesis-profile=default", f"--ascendc-report={report}", "-k", "test_legal",
                           "-n", workers, "-p", "no:cacheprovider"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "--hypothesis-profile default is not used" in done.stdout
    assert {record["cases"] for record in recorded_tests(report).values()} == {3}


def test_an_unknown_plugin_reading_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pytest", "--ascendc-target=reference", "--ascendc-reading=D16=x",
                           "-p", "no:cacheprovider"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 4 and "unknown alternative 'x' of D16" in done.stderr, done.stderr[-2000:]


def test_a_non_validating_target_skips_cases_illegal_under_the_run_reading(tmp_path):
    """blockCount 0 is illegal under the seed (D1): a target that does not validate is not asked, and the test
    is skipped (it was an error before); under devkit the same test is legal and judged."""
    target = "python:tests.fixtures.targets.py_fakes:NonValidating"
    selection = ["--product", "atlas-a2", "--api", "DataCopy", "-k", "blockCount-min", "--profile", "ci", "--seed", "2"]
    done = _run("run", "--target", target, *selection, "--report", str(tmp_path / "seed"))
    records = [json.loads(line) for line in (tmp_path / "seed" / "results.jsonl").read_text().splitlines()]
    tests = {r["test_id"]: r for r in records if r["record"] == "test" and r["kind"] == "illegal"}
    assert done.returncode == 0, done.stdout[-3000:]
    record = tests["test_illegal[DataCopy-blockCount-min:below@atlas-a2]"]
    assert record["verdict"] == "skipped" and record["skip"] == "not-validating" and record["cases"] == 0, record
    done = _run("run", "--target", target, *selection, "--reading", "devkit", "--report", str(tmp_path / "devkit"))
    records = [json.loads(line) for line in (tmp_path / "devkit" / "results.jsonl").read_text().splitlines()]
    tests = {r["test_id"]: r for r in records if r["record"] == "test" and r["kind"] == "illegal"}
    assert done.returncode == 0 and records[0]["reading"] == "devkit", done.stdout[-3000:]
    assert tests["test_illegal[DataCopy-blockCount-min:below@atlas-a2]"]["verdict"] == "pass"


CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "TF_BUILD", "BUILDKITE", "CIRCLECI", "CIRRUS_CI",
                "CODEBUILD_BUILD_ID", "HEROKU_TEST_RUN_ID", "TEAMCITY_VERSION", "bamboo.buildKey")


def _drawn_cases(tmp_path: Path, name: str, seed: str, **environment: str) -> list[str]:
    """The cases a seeded LoadData2D run sends to the recording target, in the order it sends them."""
    record = tmp_path / f"{name}.jsonl"
    env = {key: value for key, value in os.environ.items() if key not in CI_VARIABLES}
    env.update(environment, ASCENDC_RECORD_CASES=str(record))
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target",
                           "python:tests.fixtures.targets.py_fakes:Recording", "--product", "atlas-a2",
                           "--api", "LoadData2D", "-k", "test_legal or test_smoke", "--profile", "quick", "--seed", seed],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    return record.read_text().splitlines()


def test_the_seed_decides_the_cases_even_on_a_ci_machine(tmp_path):
    """Under a CI variable Hypothesis loads its `ci` profile (derandomize=True), which would replace --seed
    with a per-test constant: a CI run would then draw other cases than the same seed on a workstation, and
    every seed the same ones."""
    here = _drawn_cases(tmp_path, "here", "7")
    assert here == _drawn_cases(tmp_path, "ci", "7", CI="true")
    assert here != _drawn_cases(tmp_path, "other-seed", "8", CI="true")


FROZEN = """
import gc, sys
import pytest
from ascendc_conformance.cli.main import main
from ascendc_conformance.targets.reference_target import ReferenceTarget
during = []
execute = ReferenceTarget.execute
def noting(self, case):   # the objects frozen when the tests ran
    during.append(gc.get_freeze_count())
    return execute(self, case)
ReferenceTarget.execute = noting
if sys.argv[1] == "run":
    code = main(["run", "--target", "reference", *sys.argv[2:], "-k", "smoke", "--progress", "off"])
else:   # a pytest run that is no conformance run, of one trivial test
    code = pytest.main([*sys.argv[2:], "-q", "-p", "no:cacheprovider"])
print("exit", int(code), "during", min(during, default=-1), "frozen", gc.get_freeze_count())
"""


@pytest.mark.parametrize("kind", ["run", "other"])
def test_a_runs_objects_are_frozen_before_its_tests_and_only_a_runs(kind, tmp_path):
    """A conformance run freezes the objects made before its tests (runner.plugin.pytest_collection_finish: every
    full collection would walk them again) and at its end (pytest_unconfigure: collecting them again only
    delays the process's exit); a pytest run that is no conformance run, in a process the plugin is loaded
    into, freezes nothing."""
    trivial = tmp_path / "test_trivial.py"
    trivial.write_text("def test_nothing():\n    assert True\n")
    arguments = SELECTION if kind == "run" else [str(trivial)]
    done = subprocess.run([sys.executable, "-c", FROZEN, kind, *arguments], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    exit_code, during, frozen = re.search(r"^exit (\d+) during (-?\d+) frozen (\d+)$", done.stdout, re.M).groups()
    assert exit_code == "0", done.stdout[-3000:]
    assert (int(frozen) > 0) == (kind == "run"), f"{kind}: {frozen} objects frozen at the end"
    if kind == "run":
        assert int(during) > 0, "no object frozen when the run's tests started"


def test_a_run_loads_no_pytest_plugin_installed_beside_it(tmp_path):
    """`run` loads its own pytest plugins only (cli.commands.run_cmd.PLUGIN_DISTRIBUTIONS): a plugin installed in
    the environment, which a plain pytest run in the same environment loads, is loaded by no process of a run."""
    site = tmp_path / "site"
    (site / "intruding_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "intruding_plugin-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: intruding-plugin\nVersion: 1.0\n")
    (site / "intruding_plugin-1.0.dist-info" / "entry_points.txt").write_text("[pytest11]\nintruding = intruding_plugin\n")
    (site / "intruding_plugin.py").write_text(
        "import os\n\n\ndef pytest_configure(config):\n"
        "    with open(os.environ['INTRUDER_MARKS'], 'a') as marks:\n        marks.write(f'{os.getpid()}\\n')\n")
    marks = tmp_path / "marks"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
           "INTRUDER_MARKS": str(marks)}
    (tmp_path / "test_trivial.py").write_text("def test_nothing():\n    pass\n")
    plain = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_trivial.py")],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0 and marks.read_text().count("\n") == 1, "the plugin is not installed as intended"
    marks.unlink()
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", "--target", "reference", *SELECTION,
                           "--workers", "2", "-k", "smoke", "--progress", "off"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not marks.exists(), f"a plugin installed beside the suite was loaded by {marks.read_text().split()}"
