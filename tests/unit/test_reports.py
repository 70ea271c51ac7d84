"""Reports from results.jsonl: the report document and its schema, junit.xml, report.md, report.html, the
certification statement, merging shards, comparing runs, and the `report` CLI verb.

Results files are written by `write_results` (a run record, test records, an end record) in a tmp dir; the
static fixtures of tests/data/reports/ are a killed run with a truncated last line.
"""
from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from ascendc_conformance.cli.main import main
from ascendc_conformance.reports import (FORMATS, ReportError, build_document, load_results, render, render_document,
                                         write_all)
from ascendc_conformance.reports.compare import compare, render_table
from ascendc_conformance.reports.coverage import (REASON_KILLED, REASON_NOT_DRAWN, REASON_NOT_SELECTED, REASON_NOT_SUPPORTED,
                              REASON_UNREACHABLE, REASON_UNSPECIFIED, build_coverage, certify)
from ascendc_conformance.reports.render_html import FAILURES_OPEN
from ascendc_conformance.reports.render_json import SCHEMA_FILE, build_report, validate_report
from tests.helpers.html import Sections
from ascendc_conformance.spec.loader import load_spec

DATA = Path(__file__).resolve().parents[1] / "data" / "reports"
SPEC = load_spec()
TARGET = "exec:./my-target --fast"
DIFF = {"differing_bytes": 4, "total_runs": 1, "bytes_by_class": {"wrong-value": 4},
        "runs_by_class": {"wrong-value": 1}, "truncated": False,
        "runs": [{"region": "UB", "start": 64, "stop": 68, "class": "wrong-value", "differing": 4,
                  "expected": "00 3c 00 3c", "actual": "00 00 00 00", "location": "dst element 0 (row 0, col 0)"}]}
WAIVER = {"rule": "DataCopy-dstGap-range", "test": None, "reason": "simulator clamps dstGap", "link": "TRACK-123"}
UNUSED_WAIVER = {"rule": None, "test": "test_legal[nothing]", "reason": "stale", "link": "TRACK-9"}


def legal_id(product: str, api: str, route: str, dtype: str) -> str:
    return f"test_legal[{product}-{api}-{route}-{dtype}]"


def run_record(**overrides) -> dict:
    record = {"record": "run", "started": "2024-05-01T10:00:00+00:00", "target": TARGET,
              "hello": {"name": "my-target", "validates": True}, "suite_version": "0.1.0",
              "spec_digest": SPEC.digest, "profile": "ci", "seed": 1234, "products": [], "apis": [], "shard": None,
              "reading": "D13=destination-bytes", "reading_choices": {"D13": "destination-bytes"},
              "workers": 1, "machine": {"node": "box-1", "python": "3.11.0", "platform": "Linux"},
              "command": "ascendc-conformance run --target exec:./my-target", "waivers": [WAIVER, UNUSED_WAIVER]}
    record.update(overrides)
    return record


def make_test(test_id: str, kind: str, verdict: str, **fields) -> dict:
    record = {"record": "test", "test_id": test_id, "kind": kind, "product": None, "api": None, "route": None,
              "src_dtype": None, "dst_dtype": None, "rule": None, "variant": None, "verdict": verdict,
              "counts": {}, "cases": 0, "tags": {}, "disputed": {}, "message": "", "diff": None, "replay": None,
              "replay_command": None, "duration_s": 0.5, "waiver": None, "skipped_reason": None}
    record.update(fields)
    record["cases"] = sum(record["counts"].values())
    return record


def legal(product: str, api: str, route: str, dtype: str, verdict: str = "pass", **fields) -> dict:
    fields.setdefault("counts", {verdict: 10} if verdict not in ("skipped", "not-supported") else {})
    fields.setdefault("tags", {f"path:{product}-{api}-{route}-{dtype}": 10, "hit:DataCopy-blockCount-max": 10,
                               "hit:DataCopy-srcGap-range": 4, "boundary:DataCopy-srcGap-range:min": 2})
    return make_test(legal_id(product, api, route, dtype), "legal", verdict, product=product, api=api, route=route,
                       src_dtype=dtype, dst_dtype=dtype, **fields)


def standard_tests() -> list[dict]:
    """About ten tests: pass, fail with a diff and a replay file, missed-reject, disputed, skipped-unreachable,
    not-supported, waived, crashed, a boundary pass, an illegal pass."""
    return [
        legal("atlas-a2", "DataCopy", "GM->VECIN", "half"),
        legal("atlas-a2", "DataCopy", "GM->VECIN", "float", "fail", counts={"pass": 3, "fail": 1},
              message="memory differs: 4 bytes in 1 run (wrong-value); first: UB [64, 68) wrong-value",
              diff=DIFF, replay="replays/test_legal_atlas-a2-DataCopy-GM-_VECIN-float.json",
              replay_command=f"ascendc-conformance replay replays/test_legal_float.json --target '{TARGET}'"),
        legal("atlas-a2", "DataCopy", "GM->VECIN", "int8_t", "waived", counts={"pass": 4, "waived": 1},
              message="fail waived (simulator clamps dstGap; TRACK-123): memory differs", waiver=WAIVER),
        legal("atlas-a2", "DataCopy", "GM->VECIN", "int16_t", "crashed", counts={"crashed": 1},
              message="crashed: the target exited with signal 11\nstderr tail:\nSegmentation fault <core>",
              replay="replays/crash.json", replay_command="ascendc-conformance replay replays/crash.json --target x"),
        legal("atlas-training", "DataCopy", "GM->VECIN", "half", "not-supported", counts={}, tags={},
              skip="not-supported", skipped_reason="not-supported: the target's hello excludes DataCopy on atlas-training",
              message="not-supported: the target's hello excludes DataCopy on atlas-training"),
        make_test("test_illegal[DataCopy-blockCount-max:above]", "illegal", "missed-reject", api="DataCopy",
                    rule="DataCopy-blockCount-max", variant="above", counts={"pass": 2, "missed-reject": 1},
                    tags={"fault:DataCopy-blockCount-max": 3},
                    message="the target answered 'ok' for an illegal call; it breaks DataCopy-blockCount-max",
                    replay="replays/missed.json", replay_command="ascendc-conformance replay replays/missed.json --target x"),
        make_test("test_illegal[DataCopy-srcGap-range:above]", "illegal", "pass", api="DataCopy",
                    rule="DataCopy-srcGap-range", variant="above", counts={"pass": 10},
                    tags={"fault:DataCopy-srcGap-range": 10}),
        make_test("test_illegal[DataCopy-blockCount-min:below]", "illegal", "disputed", api="DataCopy",
                    rule="DataCopy-blockCount-min", variant="below", counts={"disputed": 5},
                    disputed={"D1": {"seed": 3, "devkit": 2}},
                    dispute_examples={"D1": {"seed": {"blockCount": 0, "blockLen": 1, "srcGap": 0, "dstGap": 0},
                                             "devkit": {"blockCount": 2, "blockLen": 0, "srcGap": 0, "dstGap": 0}}},
                    message="the expected outcome depends on DataCopy-blockCount-min"),
        make_test("test_boundary[DataCopy-blockLen-max=65535]", "boundary", "skipped", api="DataCopy",
                    rule="DataCopy-blockLen-max", variant="max=65535",
                    skip="unreachable", skipped_reason="unreachable: blockLen = 65535 does not fit the product's capacity on any of 40 paths",
                    message="unreachable: blockLen = 65535 does not fit the product's capacity on any of 40 paths"),
        make_test("test_boundary[DataCopy-dstGap-range=65535]", "boundary", "pass", api="DataCopy",
                    rule="DataCopy-dstGap-range", variant="max=65535", counts={"pass": 10},
                    tags={"boundary:DataCopy-dstGap-range:max": 10, "hit:DataCopy-dstGap-range": 10}),
    ]


def write_results(directory: Path, tests: list[dict] | None = None, *, end: bool = True, exit_status: int = 1,
                  truncate: bool = False, replays: bool = True, **run) -> Path:
    """A report dir with results.jsonl (run record, tests, end record unless killed) and the replay files."""
    directory.mkdir(parents=True, exist_ok=True)
    tests = standard_tests() if tests is None else tests
    records = [run_record(**run), *tests]
    if end:
        records.append({"record": "end", "finished": "2024-05-01T10:30:00+00:00", "exit_status": exit_status})
    lines = [json.dumps(record, sort_keys=True) for record in records]
    text = "\n".join(lines) + "\n"
    if truncate:
        text += json.dumps(make_test("test_legal[half-written]", "legal", "pass"))[:40]
    (directory / "results.jsonl").write_text(text, encoding="utf-8")
    if replays:
        for record in tests:
            if record.get("replay"):
                path = directory / record["replay"]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps({"replay_format": 1, "test_id": record["test_id"], "case": {}}))
    return directory


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    return write_results(tmp_path / "run")


def test_write_all_writes_the_four_formats(report_dir: Path) -> None:
    written = write_all(report_dir, spec=SPEC)
    assert set(written) == set(FORMATS)
    for fmt, path in written.items():
        assert path == report_dir / FORMATS[fmt] and path.stat().st_size > 0
    assert not list(report_dir.glob(".report*"))   # no temporary files left behind


def test_report_json_validates_against_the_schema(report_dir: Path) -> None:
    doc = json.loads(write_all(report_dir, spec=SPEC)["json"].read_text())
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["report_format"] == 1
    assert doc["run"]["started"] == "2024-05-01T10:00:00+00:00" and doc["run"]["finished"]
    assert doc["run"]["machine"]["node"] == "box-1"
    assert doc["verdicts"]["tests"] == {"crashed": 1, "fail": 1, "missed-reject": 1, "waived": 1, "disputed": 1,
                                        "not-supported": 1, "pass": 3, "skipped": 1}
    failures = {f["test_id"]: f for f in doc["failures"]}
    assert set(failures) == {legal_id("atlas-a2", "DataCopy", "GM->VECIN", "float"),
                             legal_id("atlas-a2", "DataCopy", "GM->VECIN", "int16_t"),
                             "test_illegal[DataCopy-blockCount-max:above]"}
    fail = failures[legal_id("atlas-a2", "DataCopy", "GM->VECIN", "float")]
    assert fail["replay"] == "replays/test_legal_atlas-a2-DataCopy-GM-_VECIN-float.json" and fail["replay_exists"]
    assert fail["replay_command"].startswith("ascendc-conformance replay")
    assert "1 wrong-value (4 B)" in fail["diff_text"]
    assert [w["waiver"] for w in doc["waivers"]["used"]] == [WAIVER]
    assert doc["waivers"]["unmatched"] == [UNUSED_WAIVER]
    # an invalid document is caught by the schema
    doc["certification"]["outcome"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        validate_report(doc)


def test_coverage_matrix_and_rule_table(report_dir: Path) -> None:
    coverage = build_coverage(load_results(report_dir), SPEC)
    cells = {c.label: c for c in coverage.cells}
    assert len(cells) == len(SPEC.paths())
    assert cells["atlas-a2-DataCopy-GM->VECIN-half"].state == "pass"
    assert cells["atlas-a2-DataCopy-GM->VECIN-float"].state == "fail"
    assert dict(cells["atlas-a2-DataCopy-GM->VECIN-float"].cases) == {"fail": 1, "pass": 3}
    assert cells["atlas-a2-DataCopy-GM->VECIN-int16_t"].state == "crashed"
    assert cells["atlas-training-DataCopy-GM->VECIN-half"].state == "not-supported"
    assert cells["atlas-a2-DataCopy-GM->VECIN-uint8_t"].state == "not run"   # selected (all), no record
    rules = {r.id: r for r in coverage.rules}
    assert set(rules) == set(SPEC.rules)
    assert (rules["DataCopy-blockCount-max"].legal_hits, rules["DataCopy-blockCount-max"].rejected,
            rules["DataCopy-blockCount-max"].missed) == (40, 2, 1)
    assert rules["DataCopy-srcGap-range"].boundary_hits == 8 and rules["DataCopy-srcGap-range"].rejected == 10
    assert rules["DataCopy-dstGap-range"].boundary_hits == 10 and rules["DataCopy-dstGap-range"].covered
    assert rules["Memory-overlap"].reason == REASON_UNSPECIFIED
    assert rules["DataCopy-blockLen-max"].reason == REASON_UNREACHABLE
    assert rules["DataCopy-gm-align"].reason == REASON_KILLED   # selected paths have no record: the run stopped early
    assert rules["DataCopy-blockCount-min"].disputed_cases == 5
    disputes = {d.point: d for d in coverage.disputes}
    assert set(disputes) == {p.id for p in SPEC.disputes.values() if p.alternatives}
    row = disputes["D1"]
    assert dict(row.counts) == {"seed": 3, "devkit": 2} and row.summary == "mixed" and row.run_reading == "seed"
    assert dict(row.examples["devkit"])["blockLen"] == 0 and set(row.rules) == {"DataCopy-blockCount-min",
                                                                                 "DataCopy-blockLen-min"}
    assert row.default == SPEC.disputes["D1"].default and dict(row.alternatives) == dict(SPEC.disputes["D1"].alternatives)
    assert disputes["D13"].run_reading == "destination-bytes" and disputes["D13"].summary == "not exercised"
    assert disputes["D15"].uncomputable["vendor-floor"] == SPEC.disputes["D15"].uncomputable["vendor-floor"]
    assert "vendor-floor" not in disputes["D15"].counts     # never followed: the reference cannot compute it


def test_rule_reasons_not_selected_and_not_supported(tmp_path: Path) -> None:
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half"),
             make_test("test_illegal[DataCopy-dstGap-range:above]", "illegal", "not-supported", api="DataCopy",
                         rule="DataCopy-dstGap-range", variant="above",
                         skip="not-supported", skipped_reason="not-supported: the target's hello excludes DataCopy on atlas-a2")]
    results = load_results(write_results(tmp_path / "r", tests, products=["910B"], apis=["DataCopy"]))
    coverage = build_coverage(results, SPEC)
    rules = {r.id: r for r in coverage.rules}
    assert rules["LoadData2D-repeatTimes-min"].reason == REASON_NOT_SELECTED
    assert rules["DataCopy-dstGap-range"].reason == REASON_NOT_SUPPORTED
    states = {c.label: c.state for c in coverage.cells}
    assert states["atlas-a3-DataCopy-GM->VECIN-half"] == "not selected"
    assert all(state == "not selected" for label, state in states.items() if "-LoadData2D-" in label)
    assert coverage.selected_products == ("atlas-a2",)


def all_legal_tests(product: str, api: str) -> list[dict]:
    """A passing legal test for every documented path of `product` x `api`: what a complete run records."""
    tests = []
    for path in SPEC.paths():
        if path.product == product and path.api == api:
            dtype = path.src_dtype if path.src_dtype == path.dst_dtype else f"{path.src_dtype}->{path.dst_dtype}"
            tests.append(make_test(legal_id(product, api, f"{path.src}->{path.dst}", dtype), "legal", "pass",
                                   product=product, api=api, route=f"{path.src}->{path.dst}",
                                   src_dtype=path.src_dtype, dst_dtype=path.dst_dtype, counts={"pass": 3},
                                   tags={f"path:{product}-{api}-{path.src}->{path.dst}-{dtype}": 3}))
    return tests


def test_rule_reasons_after_an_early_stop_and_a_complete_run(tmp_path: Path) -> None:
    """A run that stopped before some selected tests (-x) says so, for rules and in the statement; a complete
    run says a rule nothing exercised was not drawn."""
    stopped = write_results(tmp_path / "stopped", standard_tests()[:2], products=["atlas-a2"], apis=["DataCopy"])
    results = load_results(stopped)
    coverage = build_coverage(results, SPEC)
    assert {r.id: r for r in coverage.rules}["DataCopy-gm-align"].reason == REASON_KILLED
    statement = certify(results, coverage)
    assert statement.outcome == "does not conform"
    assert any("have no test record" in remark and "-x" in remark for remark in statement.remarks)

    complete = write_results(tmp_path / "complete", all_legal_tests("atlas-a2", "DataCopy"), exit_status=0,
                             products=["atlas-a2"], apis=["DataCopy"])
    results = load_results(complete)
    coverage = build_coverage(results, SPEC)
    assert not any(c.state == "not run" for c in coverage.cells)
    assert {r.id: r for r in coverage.rules}["DataCopy-gm-align"].reason == REASON_NOT_DRAWN
    statement = certify(results, coverage)
    assert statement.outcome == "conforms"
    assert not any("no test record" in remark for remark in statement.remarks)


def test_junit_has_one_testcase_per_test_with_failures(report_dir: Path) -> None:
    root = ET.parse(write_all(report_dir, spec=SPEC)["junit"]).getroot()
    cases = root.findall(".//testcase")
    assert sorted(c.get("name") for c in cases) == sorted(t["test_id"] for t in standard_tests())
    by_name = {c.get("name"): c for c in cases}
    fail = by_name[legal_id("atlas-a2", "DataCopy", "GM->VECIN", "float")].find("failure")
    assert fail is not None and fail.get("type") == "fail"
    assert "wrong-value" in fail.text and "ascendc-conformance replay" in fail.text
    assert by_name["test_illegal[DataCopy-blockCount-max:above]"].find("failure").get("type") == "missed-reject"
    crash = by_name[legal_id("atlas-a2", "DataCopy", "GM->VECIN", "int16_t")].find("error")
    assert crash is not None and "<core>" in crash.text     # escaped on the way out, intact on the way in
    skipped = by_name["test_boundary[DataCopy-blockLen-max=65535]"].find("skipped")
    assert skipped.get("message").startswith("unreachable")
    assert by_name[legal_id("atlas-training", "DataCopy", "GM->VECIN", "half")].find("skipped") is not None
    assert by_name[legal_id("atlas-a2", "DataCopy", "GM->VECIN", "half")].find("failure") is None
    assert root.get("tests") == str(len(cases)) and root.get("failures") == "2" and root.get("errors") == "1"
    properties = {p.get("name"): p.get("value") for p in root.find("testsuite").find("properties")}
    assert properties["reading"] == "D13=destination-bytes"
    assert properties["reading-followed:D1"].startswith("mixed (seed 3, devkit 2;")
    assert properties["reading-followed:D24"].startswith("not exercised")


def test_junit_survives_control_characters(tmp_path: Path) -> None:
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half", "crashed", counts={"crashed": 1},
                   message="crashed\x00 with \x1b[31mcolour\x1b[0m & <tags> \"quotes\"")]
    text = render("junit", load_results(write_results(tmp_path / "r", tests)), spec=SPEC)
    error = ET.fromstring(text.encode()).find(".//error")
    assert "& <tags> \"quotes\"" in error.text and "\x00" not in error.text


def test_markdown_has_the_sections(report_dir: Path) -> None:
    text = write_all(report_dir, spec=SPEC)["md"].read_text()
    headings = ("## Certification", "## Verdict totals", "## Failures by cause", "## Coverage per product", "## Rules",
                "## Disputed points", "## Failing tests", "## Waivers")
    assert [text.index(heading) for heading in headings] == sorted(text.index(heading) for heading in headings)
    assert "This is not a certification run (profile ci)." in text
    assert "ascendc-conformance replay replays/test_legal_float.json" in text
    assert "| DataCopy-blockCount-max " in text
    assert "## Disputed points: which reading the target follows" in text
    d1 = next(line for line in text.splitlines() if line.startswith("| D1 "))
    assert "seed 3, devkit 2" in d1 and "mixed" in d1 and '"blockLen": 0' in d1
    d15 = next(line for line in text.splitlines() if line.startswith("| D15 "))
    assert "not exercised" in d15 and SPEC.disputes["D15"].uncomputable["vendor-floor"] in d15
    assert "Reading of the disputed points: D13=destination-bytes" in text and "| reading " in text
    assert "simulator clamps dstGap" in text and "stale" in text


def test_html_is_self_contained_with_every_section(report_dir: Path) -> None:
    html = write_all(report_dir, spec=SPEC)["html"].read_text()
    parser = Sections()
    parser.feed(html)
    for section in ("certification", "heatmap", "rules", "disputed", "failures", "waivers"):
        assert section in parser.ids, section
    heatmap = parser.section("heatmap")
    for product in SPEC.products:
        assert product.id in heatmap and f"heatmap-{product.id}" in parser.ids
    assert "script" not in parser.tags
    assert "<script src=" not in html and "<link href=http" not in html.replace('"', "") and "url(http" not in html
    assert all(value.startswith("#") for tag, key, value in parser.refs), parser.refs
    assert not any("url(" in style or "@import" in style or "@font-face" in style for style in parser.styles)
    failures = parser.section("failures")
    assert f"ascendc-conformance replay replays/test_legal_float.json --target '{TARGET}'" in failures
    assert "wrong-value" in failures and "Segmentation fault <core>" in failures   # escaped in HTML, intact as text
    assert "<core>" not in html
    assert "This is not a certification run (profile ci)." in parser.section("certification")
    assert "simulator clamps dstGap" in parser.section("waivers")
    disputed = parser.section("disputed")
    assert "seed 3, devkit 2" in disputed and "mixed" in disputed and "point-D1" in parser.ids
    assert SPEC.disputes["D4"].uncomputable["docs-table"] in disputed
    assert "Reading of the disputed points: D13=destination-bytes" in parser.section("certification")


def test_html_summary_on_top_and_failures_indexed(report_dir: Path) -> None:
    """The outcome banner and key figures open the page; the failures are indexed and anchored; rules and
    waivers carry ids; waivers that matched nothing are flagged."""
    html = write_all(report_dir, spec=SPEC)["html"].read_text()
    parser = Sections()
    parser.feed(html)
    order = [html.index(f'<section id="{name}"') for name in ("certification", "heatmap", "failures", "rules",
                                                                "disputed", "waivers", "totals", "run")]
    assert order == sorted(order)
    certification = parser.section("certification")
    assert "does not conform" in certification and {"outcome", "figures"} <= parser.ids
    assert html.index('id="outcome"') < html.index('id="figures"') < html.index('<section id="heatmap"')
    assert "3failing tests" in certification.replace("\n", "")     # 2 failing + 1 crashed; waived is not failing
    assert {"failure-1", "failure-2", "failure-3"} <= parser.ids
    assert ("a", "href", "#failure-1") in parser.refs
    assert "rule-DataCopy-blockCount-max" in parser.ids
    assert {"waivers-used", "waivers-unmatched"} <= parser.ids
    assert "matched no failure" in parser.section("waivers") and "TRACK-9" in parser.section("waivers")


def test_html_folds_failures_after_the_first_few(tmp_path: Path) -> None:
    """Hundreds of failures must not bury the rule table: the first FAILURES_OPEN are unfolded, the rest folded
    (still indexed and anchored)."""
    dtypes = [d.name for d in SPEC.dtypes.values()][:FAILURES_OPEN + 2]
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", dtype, "fail", message=f"memory differs ({dtype})")
             for dtype in dtypes]
    html = write_all(write_results(tmp_path / "r", tests, replays=False), spec=SPEC)["html"].read_text()
    assert html.count('<details class="failure"') == len(dtypes)
    assert html.count('<details class="failure" id="failure-') == len(dtypes)
    assert [f'id="failure-{n}" open' in html for n in (1, FAILURES_OPEN, FAILURES_OPEN + 1)] == [True, True, False]
    assert f'href="#failure-{len(dtypes)}"' in html


def test_html_heatmap_puts_selected_products_first(tmp_path: Path) -> None:
    directory = write_results(tmp_path / "r", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")],
                              products=["910B"], apis=["DataCopy"])
    html = write_all(directory, spec=SPEC)["html"].read_text()
    parser = Sections()
    parser.feed(html)
    assert "heatmap-unselected" in parser.ids and "<details" in html
    assert html.index('id="heatmap-atlas-a2"') < html.index('id="heatmap-unselected"') < html.index('id="heatmap-atlas-a3"')
    # on the selected product, the APIs left out of the run are listed, not drawn as rows of dashes
    selected_table = html[html.index('data-product="atlas-a2"'):html.index("</table>", html.index('data-product="atlas-a2"'))]
    assert "LoadData2D" not in selected_table and "DataCopy" in selected_table
    assert "Not selected in this run (rows not drawn): DataCopyNz2Nd" in parser.section("heatmap")


def test_heatmap_lists_products_not_selected(tmp_path: Path) -> None:
    directory = write_results(tmp_path / "r", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")],
                              products=["atlas-a2"], apis=["DataCopy"])
    parser = Sections()
    parser.feed(write_all(directory, spec=SPEC)["html"].read_text())
    heatmap = parser.section("heatmap")
    for product in SPEC.products:
        assert product.id in heatmap
    assert "not selected in this run" in heatmap


@pytest.mark.parametrize("profile", ["quick", "ci"])
def test_certification_wording_quick_and_ci(tmp_path: Path, profile: str) -> None:
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    results = load_results(write_results(tmp_path / "r", tests, profile=profile, exit_status=0))
    cert = certify(results, build_coverage(results, SPEC))
    assert cert.outcome == "conforms" and not cert.is_certification
    assert f"This is not a certification run (profile {profile})." in cert.text
    assert TARGET in cert.text and SPEC.digest in cert.text and "seed 1234" in cert.text
    assert "atlas-a2" in cert.text and "DataCopy" in cert.text


PACK = {"id": "ab" * 32, "profile": "full", "seed": 7, "hypothesis": "6.170.17", "suite_version": "0.1.0",
        "tests": 1, "cases": 100, "pinned": True}


@pytest.mark.parametrize("profile", ["ci", "full"])
def test_a_pack_run_is_certified_by_its_pack_id_not_a_seed(tmp_path: Path, profile: str) -> None:
    """The statement of a pack run names the pack id where a profile run names its seed; a pack built from
    full makes a certification run, one from ci does not; shards of two packs are not merged."""
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    pack = {**PACK, "profile": profile}
    results = load_results(write_results(tmp_path / "r", tests, profile=profile, seed=None, pack=pack, exit_status=0))
    cert = certify(results, build_coverage(results, SPEC))
    assert f"profile {profile}; pack {PACK['id']}" in cert.text and "seed" not in cert.text
    assert cert.is_certification is (profile == "full") and cert.to_json()["pack"] == PACK["id"]
    if profile == "full":
        assert f"This is a certification run (profile full, pack {PACK['id']})." in cert.text
    validate_report(build_report(results, SPEC))
    other = write_results(tmp_path / "other", tests, profile=profile, seed=None, pack={**pack, "id": "cd" * 32})
    with pytest.raises(ReportError, match="pack differs"):
        load_results([tmp_path / "r", other])


@pytest.mark.parametrize("profile", ["ci", "full"])
def test_a_pack_run_without_a_pinned_id_says_so_and_certifies_nothing(tmp_path: Path, profile: str) -> None:
    """Nothing ties an unpinned pack to the one its certifier published: even a full pack's conforming run is
    not a certification run, and the statement says why (a results file without `pinned` counts as unpinned)."""
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    for number, pack in enumerate(({**PACK, "profile": profile, "pinned": False},
                                   {key: value for key, value in PACK.items() if key != "pinned"} | {"profile": profile})):
        results = load_results(write_results(tmp_path / f"r{number}", tests, profile=profile, seed=None, pack=pack,
                                             exit_status=0))
        cert = certify(results, build_coverage(results, SPEC))
        assert cert.outcome == "conforms" and not cert.is_certification
        assert "the pack id was not pinned" in cert.text.lower()


def test_the_certification_names_the_hypothesis_releases_behind_its_seed(tmp_path: Path) -> None:
    """A seed reproduces the cases only with the Hypothesis release that drew them; a results file of an older
    suite has no release, and the line says only the seed."""
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    machine = {"node": "box-1", "python": "3.11.0", "platform": "Linux", "hypothesis": "6.155.2"}
    one = write_results(tmp_path / "one", tests, shard="1/2", machine=machine)
    two = write_results(tmp_path / "two", tests, shard="2/2", machine={**machine, "hypothesis": "6.170.15"})
    results = load_results([one, two])
    cert = certify(results, build_coverage(results, SPEC))
    assert cert.hypothesis_versions == ("6.155.2", "6.170.15")
    assert "seed 1234 (Hypothesis 6.155.2, 6.170.15)" in cert.text
    older = load_results(write_results(tmp_path / "older", tests))
    assert certify(older, build_coverage(older, SPEC)).lines[1].endswith("seed 1234")


def test_certification_full_run(tmp_path: Path) -> None:
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    results = load_results(write_results(tmp_path / "ok", tests, profile="full", exit_status=0))
    cert = certify(results, build_coverage(results, SPEC))
    assert cert.outcome == "conforms" and cert.is_certification
    assert "This is a certification run (profile full)." in cert.text
    assert "not a certification" not in cert.text

    failing = load_results(write_results(tmp_path / "bad", profile="full"))
    cert = certify(failing, build_coverage(failing, SPEC))
    assert cert.outcome == "does not conform" and "Outcome: does not conform" in cert.text
    assert "3 of 10 tests have a failure verdict" in cert.summary


def test_unclean_exit_is_not_a_conforming_certification(tmp_path: Path) -> None:
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    errored = load_results(write_results(tmp_path / "e1", tests, profile="full", exit_status=1))
    cert = certify(errored, build_coverage(errored, SPEC))
    assert cert.outcome == "incomplete" and "xdist worker that crashed" in cert.summary
    interrupted = load_results(write_results(tmp_path / "e2", tests, profile="full", exit_status=2))
    cert = certify(interrupted, build_coverage(interrupted, SPEC))
    assert cert.outcome == "incomplete" and not cert.is_certification and "interrupted" in cert.scope


def test_killed_run_is_never_a_certification(tmp_path: Path) -> None:
    tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    results = load_results(write_results(tmp_path / "r", tests, profile="full", end=False))
    assert results.killed and any("no end record" in note for note in results.notes)
    cert = certify(results, build_coverage(results, SPEC))
    assert not cert.is_certification and cert.outcome == "incomplete"
    assert "This is not a certification run: the run was killed" in cert.text
    doc = build_report(results, SPEC)
    validate_report(doc)
    assert doc["run"]["killed"] and doc["run"]["finished"] is None

    ci = load_results(write_results(tmp_path / "ci", tests, profile="ci", end=False))
    text = certify(ci, build_coverage(ci, SPEC)).text
    assert "This is not a certification run (profile ci)." in text and "killed" in text


def test_truncated_last_line_is_tolerated(tmp_path: Path) -> None:
    directory = write_results(tmp_path / "r", end=False, truncate=True)
    results = load_results(directory)
    assert len(results.tests) == len(standard_tests()) and results.killed
    written = write_all(directory, spec=SPEC)
    validate_report(json.loads(written["json"].read_text()))


def test_static_fixture_of_a_killed_run(tmp_path: Path) -> None:
    directory = tmp_path / "killed"
    shutil.copytree(DATA / "killed", directory)
    results = load_results(directory / "results.jsonl")
    assert [t.test_id for t in results.tests] == ["test_legal[atlas-a2-DataCopy-GM->VECIN-half]",
                                                  "test_illegal[DataCopy-srcGap-range:above]"]
    assert results.killed
    doc = json.loads(write_all(directory, spec=SPEC)["json"].read_text())
    assert doc["certification"]["outcome"] == "incomplete" and not doc["certification"]["is_certification"]


def test_a_reused_report_dir_reports_its_last_run(tmp_path: Path) -> None:
    first = write_results(tmp_path / "a", [legal("atlas-a2", "DataCopy", "GM->VECIN", "float", "fail")])
    second = write_results(tmp_path / "b", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")],
                           started="2024-05-02T10:00:00+00:00")
    combined = tmp_path / "c"
    combined.mkdir()
    (combined / "results.jsonl").write_text((first / "results.jsonl").read_text() + (second / "results.jsonl").read_text())
    results = load_results(combined)
    assert [t.verdict for t in results.tests] == ["pass"]
    assert any("holds 2 runs" in note for note in results.notes)


def test_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no results.jsonl"):
        load_results(tmp_path)
    (tmp_path / "results.jsonl").write_text(json.dumps(make_test("t", "legal", "pass")) + "\n")
    with pytest.raises(ReportError, match="no run record"):
        load_results(tmp_path)


def _edited_line(directory: Path, number: int, edit) -> Path:
    """The results file of `directory` with its line `number` replaced by edit(line)."""
    path = directory / "results.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = edit(lines[number - 1])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _record_with(**fields):
    return lambda line: json.dumps({**json.loads(line), **fields})


@pytest.mark.parametrize("number, edit, words", [
    (3, lambda line: line.replace('"cases": 4', '"cases": NaN'), "NaN is not JSON"),
    (3, lambda line: line.replace('"cases": 4', '"cases": 1e400'), "the number 1e400 is out of range"),
    (3, _record_with(api=["DataCopy"]), "test record: 'api': expected string or null, got list ['DataCopy']"),
    (3, _record_with(tags={"hit:x": "many"}), "test record: 'tags.hit:x': expected integer, got str 'many'"),
    (3, _record_with(case={"product": "p", "params": []}), "test record: 'case'"),
    (3, _record_with(verdict="great"), "test record: 'verdict': unknown verdict 'great'"),
    (3, _record_with(skip="lazy"), "test record: 'skip': unknown skip reason 'lazy'"),
    (1, _record_with(products="atlas-a2"), "run record: 'products': expected array, got str 'atlas-a2'"),
    (1, _record_with(profile="turbo"), "run record: 'profile': unknown profile 'turbo'; expected one of quick, ci, full"),
    (1, _record_with(workers=0), "run record: 'workers': 0 is less than the minimum of 1"),
    (3, lambda line: "[" * 100 + "]" * 100, "JSON nested deeper than 64 levels"),
    (3, lambda line: "5", "expected an object with a 'record' key (run, test or end), got int 5"),
    (3, lambda line: line[:40], "not JSON"),
])
def test_a_bad_record_is_one_line_naming_file_line_and_field(tmp_path: Path, number, edit, words) -> None:
    """Not a traceback, not a false statement (products as a string), and not dropped: a bad line in the middle
    stops the report, naming it."""
    path = _edited_line(write_results(tmp_path / "r"), number, edit)
    with pytest.raises(ReportError) as raised:
        load_results(path.parent)
    message = str(raised.value)
    assert message.startswith(f"{path}:{number}: ") and words in message and "\n" not in message, message


def test_a_line_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r") / "results.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"message": "memory differs', b'"message": "m\xe9moire differs', 1))
    with pytest.raises(ReportError, match=f"^{path}:3: not UTF-8 text"):
        load_results(path.parent)


def test_only_an_unfinished_last_line_is_skipped(tmp_path: Path) -> None:
    """A killed run leaves its last line without a line break: skipped. A finished bad last line is an error."""
    path = write_results(tmp_path / "r", end=False) / "results.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + '{"record": "test", "test_id": "half\n', encoding="utf-8")
    with pytest.raises(ReportError, match=f"^{path}:{len(standard_tests()) + 2}: not JSON"):
        load_results(path.parent)


def test_report_of_an_empty_dir_or_into_an_unwritable_one_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no results.jsonl in this directory; `report DIR` reads" in err and "run --report DIR" in err, err
    directory = write_results(tmp_path / "r")
    for args in (["--out", "/proc/nope"], ["--format", "html", "--out", "/proc/nope/report.html"]):
        assert main(["report", str(directory), *args]) == 2
        err = capsys.readouterr().err
        assert err == "ascendc-conformance: error: --out: cannot create the directory /proc/nope " \
                      "(No such file or directory)\n", err


def shard_tests(index: int) -> list[dict]:
    tests = standard_tests()
    return [t for i, t in enumerate(tests) if i % 2 == index - 1]


def test_merging_two_shards(tmp_path: Path) -> None:
    one = write_results(tmp_path / "s1", shard_tests(1), shard="1/2", profile="full",
                        machine={"node": "box-1"}, exit_status=0)
    two = write_results(tmp_path / "s2", shard_tests(2), shard="2/2", profile="full",
                        machine={"node": "box-2"}, exit_status=1)
    merged = load_results(one, two)
    assert sorted(t.test_id for t in merged.tests) == sorted(t["test_id"] for t in standard_tests())
    assert [s.shard for s in merged.shards] == ["1/2", "2/2"] and not merged.missing_shards
    assert merged.exit_status == 1 and not merged.killed
    out = tmp_path / "merged"
    written = write_all(out, merged, spec=SPEC)
    doc = json.loads(written["json"].read_text())
    validate_report(doc)
    assert {s["machine"]["node"] for s in doc["run"]["shards"]} == {"box-1", "box-2"}
    assert doc["certification"]["is_certification"] and doc["certification"]["outcome"] == "does not conform"
    replays = {f["test_id"]: f["replay"] for f in doc["failures"]}
    for test_id, replay in replays.items():
        assert (out / replay).resolve().is_file(), (test_id, replay)   # relative to the merged report dir

    alone = load_results(one)
    cert = certify(alone, build_coverage(alone, SPEC))
    assert not cert.is_certification and "2/2" in cert.scope


def test_merging_keeps_the_worse_verdict_of_a_duplicate(tmp_path: Path) -> None:
    test_id = legal_id("atlas-a2", "DataCopy", "GM->VECIN", "half")
    one = write_results(tmp_path / "s1", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")])
    two = write_results(tmp_path / "s2", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half", "fail",
                                                counts={"fail": 1}, message="memory differs")])
    merged = load_results(one, two)
    assert merged.test(test_id).verdict == "fail" and merged.duplicates == (test_id,)
    assert any(test_id in note and "kept the worse verdict, fail" in note for note in merged.notes)
    merged_reverse = load_results(two, one)
    assert merged_reverse.test(test_id).verdict == "fail"


def test_merging_mismatched_runs_errors(tmp_path: Path) -> None:
    one = write_results(tmp_path / "s1", shard_tests(1), shard="1/2", profile="ci")
    two = write_results(tmp_path / "s2", shard_tests(2), shard="2/2", profile="full", seed=99)
    with pytest.raises(ReportError) as error:
        load_results(one, two)
    assert "profile" in str(error.value) and "seed differs" in str(error.value)
    assert "target differs" not in str(error.value)
    three = write_results(tmp_path / "s3", shard_tests(2), shard="2/2", target="reference")
    with pytest.raises(ReportError, match="target differs"):
        load_results(one, three)


def test_compare_finds_new_failures_fixed_tests_and_lost_coverage(tmp_path: Path) -> None:
    old_tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half"),
                 legal("atlas-a2", "DataCopy", "GM->VECIN", "float", "fail", counts={"fail": 1}),
                 legal("atlas-a2", "DataCopy", "GM->VECIN", "int8_t"),
                 make_test("test_illegal[DataCopy-srcGap-range:above]", "illegal", "pass", api="DataCopy",
                             rule="DataCopy-srcGap-range", counts={"pass": 5})]
    new_tests = [legal("atlas-a2", "DataCopy", "GM->VECIN", "half", "fail", counts={"pass": 2, "fail": 1},
                       message="memory differs"),
                 legal("atlas-a2", "DataCopy", "GM->VECIN", "float"),
                 legal("atlas-a2", "DataCopy", "GM->VECIN", "int8_t", "not-supported", counts={}, tags={},
                       skip="not-supported", skipped_reason="not-supported: excluded")]
    old = load_results(write_results(tmp_path / "old", old_tests))
    new = load_results(write_results(tmp_path / "new", new_tests))
    result = compare(old, new, SPEC)
    assert [c.test_id for c in result.new_failures] == [legal_id("atlas-a2", "DataCopy", "GM->VECIN", "half")]
    assert [c.test_id for c in result.fixed] == [legal_id("atlas-a2", "DataCopy", "GM->VECIN", "float")]
    assert result.lost_paths == ("atlas-a2-DataCopy-GM->VECIN-int8_t",)
    lost_rules = {r.rule for r in result.lost_rules}
    assert "DataCopy-srcGap-range" not in lost_rules   # still hit by the legal tests' tags
    changes = {c.test_id: (c.old, c.new) for c in result.verdict_changes}
    assert changes[legal_id("atlas-a2", "DataCopy", "GM->VECIN", "int8_t")] == ("pass", "not-supported")
    assert changes["test_illegal[DataCopy-srcGap-range:above]"] == ("pass", "(absent)")
    new_tests.append(make_test("test_illegal[DataCopy-dstGap-range:above]", "illegal", "pass", api="DataCopy",
                                 rule="DataCopy-dstGap-range", counts={"pass": 5}))
    old_tests.append(make_test("test_illegal[DataCopy-gm-align:misaligned]", "illegal", "pass", api="DataCopy",
                                 rule="DataCopy-gm-align", counts={"pass": 5}))
    old = load_results(write_results(tmp_path / "old2", old_tests))
    new = load_results(write_results(tmp_path / "new2", new_tests))
    result = compare(old, new, SPEC)
    assert [(r.rule, r.reason) for r in result.lost_rules] == [("DataCopy-gm-align", REASON_KILLED)]


# --- the CLI verb ------------------------------------------------------------------------------------

def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_report_writes_every_format(capsys, report_dir: Path) -> None:
    code, out, err = run_cli(capsys, "report", str(report_dir))
    assert code == 0, err
    for name in FORMATS.values():
        assert (report_dir / name).is_file() and name in out


def test_cli_report_one_format(capsys, report_dir: Path, tmp_path: Path) -> None:
    code, out, _ = run_cli(capsys, "report", str(report_dir / "results.jsonl"), "--format", "md", "--out", "-")
    assert code == 0 and out.startswith("# ascendc-conformance report") and "## Rules" in out
    target = tmp_path / "elsewhere" / "x.html"
    code, out, _ = run_cli(capsys, "report", str(report_dir), "--format", "html", "--out", str(target))
    assert code == 0 and target.is_file() and "<section id=\"heatmap\">" in target.read_text()
    code, _, _ = run_cli(capsys, "report", str(report_dir), "--format", "junit")
    assert code == 0 and (report_dir / "junit.xml").is_file() and not (report_dir / "report.md").exists()


def test_cli_report_merges_shards(capsys, tmp_path: Path) -> None:
    one = write_results(tmp_path / "s1", shard_tests(1), shard="1/2")
    two = write_results(tmp_path / "s2", shard_tests(2), shard="2/2")
    code, _, err = run_cli(capsys, "report", str(one), str(two))
    assert code == 2 and "--out" in err
    code, out, err = run_cli(capsys, "report", str(one), str(two), "--out", str(tmp_path / "merged"))
    assert code == 0, err
    doc = json.loads((tmp_path / "merged" / "report.json").read_text())
    assert len(doc["tests"]) == len(standard_tests())
    bad = write_results(tmp_path / "s3", shard_tests(2), shard="2/2", spec_digest="0000000000000000")
    code, _, err = run_cli(capsys, "report", str(one), str(bad), "--out", str(tmp_path / "m2"))
    assert code == 2 and "spec_digest differs" in err


def test_cli_compare(capsys, tmp_path: Path) -> None:
    old = write_results(tmp_path / "old", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")])
    new = write_results(tmp_path / "new", [legal("atlas-a2", "DataCopy", "GM->VECIN", "half", "fail",
                                                 counts={"fail": 1}, message="memory differs")])
    code, out, err = run_cli(capsys, "report", "--compare", str(old), str(new))
    assert code == 0, err
    assert "New failures (1)" in out and legal_id("atlas-a2", "DataCopy", "GM->VECIN", "half") in out
    assert "| new failures" in out
    code, out, _ = run_cli(capsys, "report", "--compare", str(old), str(new), "--json")
    data = json.loads(out)
    assert code == 0 and data["summary"]["new_failures"] == 1
    assert data["new_failures"][0]["old"] == "pass" and data["lost_paths"] == []   # a failing path is still covered


def test_cli_report_help_and_usage_errors(capsys, tmp_path: Path) -> None:
    code, out, _ = run_cli(capsys, "report", "--help")
    assert code == 0 and "examples:" in out and "--compare" in out and "report shard1/ shard2/" in out
    code, _, err = run_cli(capsys, "report", str(tmp_path / "missing"))
    assert code == 2 and "missing" in err
    code, _, err = run_cli(capsys, "report")
    assert code == 2 and "report directory" in err


def test_compare_reports_a_test_failing_for_another_cause(tmp_path: Path) -> None:
    """Same test, failing in both runs, but for another diff class: a changed cause, not "no change"."""
    def failing(diff_class: str) -> dict:
        return legal("atlas-a2", "DataCopy", "GM->VECIN", "half", "fail", counts={"fail": 1},
                     diff={"runs_by_class": {diff_class: 1}, "total_runs": 1}, message="memory differs")
    old = load_results(write_results(tmp_path / "old", [failing("wrong-value")]))
    new = load_results(write_results(tmp_path / "new", [failing("permuted")]))
    result = compare(old, new, SPEC)
    assert not result.new_failures and not result.verdict_changes
    [change] = result.changed_causes
    assert (change.old, change.new) == ("DataCopy / fail / wrong-value",
                                        "DataCopy / fail / permuted")
    assert "Failing for another cause (1)" in render_table(result)
    same = compare(old, load_results(write_results(tmp_path / "same", [failing("wrong-value")])), SPEC)
    assert not same.changed_causes


def test_failures_are_grouped_by_cause_with_their_smallest_case(tmp_path: Path) -> None:
    def failing(dtype: str, blocks: int, diff_class: str) -> dict:
        case = {"product": "atlas-a2", "api": "DataCopy", "route": "GM->VECIN", "src_dtype": dtype, "dst_dtype": dtype,
                "src_address": 0, "dst_address": 0, "params": {"blockCount": blocks, "blockLen": 1}}
        return legal("atlas-a2", "DataCopy", "GM->VECIN", dtype, "fail", counts={"fail": 1}, case=case,
                     diff={"runs_by_class": {diff_class: 1}, "total_runs": 1}, message="memory differs")
    tests = [failing("half", 9, "wrong-value"), failing("float", 2, "wrong-value"), failing("int8_t", 5, "permuted")]
    document = build_document(load_results(write_results(tmp_path / "r", tests)), spec=SPEC)
    validate_report(document)
    groups = document["failure_groups"]
    assert [(g["cause"]["label"], g["count"]) for g in groups] == [
        ("DataCopy / fail / wrong-value", 2), ("DataCopy / fail / permuted", 1)]
    assert groups[0]["smallest"]["test_id"] == legal_id("atlas-a2", "DataCopy", "GM->VECIN", "float")
    assert groups[0]["smallest"]["params"] == "DataCopy atlas-a2 GM->VECIN float src@0x0 dst@0x0 {blockCount=2, blockLen=1}"
    markdown = render_document("md", document)
    assert "## Failures by cause" in markdown and groups[0]["smallest"]["params"] in markdown


def test_rule_table_says_inseparable_and_counts_rejections_for_another_rule(tmp_path: Path) -> None:
    """A rule whose only fault tests are inseparable variants is not counted as covered; rejections naming
    another rule are counted in their own column (json, md, html)."""
    tests = [make_test("test_illegal[DataCopy-blockLen-max:above]", "illegal", "pass", rule="DataCopy-blockLen-max",
                       variant="above", api="DataCopy", counts={"pass": 5}),
             make_test("test_illegal[DataCopy-blockCount-max:above]", "illegal", "pass", rule="DataCopy-blockCount-max",
                       variant="above", api="DataCopy", counts={"pass": 5}, other_rule=3)]
    directory = write_results(tmp_path / "run", tests)
    rules = {r.id: r for r in build_coverage(load_results(directory), SPEC).rules}
    assert rules["DataCopy-blockLen-max"].reason == "inseparable from Memory-capacity"
    assert not rules["DataCopy-blockLen-max"].covered
    assert rules["DataCopy-blockCount-max"].covered and rules["DataCopy-blockCount-max"].other_rule == 3
    write_all(directory, spec=SPEC)
    report = json.loads((directory / "report.json").read_text())
    validate_report(report)
    row = next(r for r in report["coverage"]["rules"] if r["id"] == "DataCopy-blockLen-max")
    assert row["reason"] == "inseparable from Memory-capacity"
    assert "rejected for another rule" in (directory / "report.md").read_text()
    assert "rejected for another rule" in (directory / "report.html").read_text()


# --- bit coverage (issue 18) --------------------------------------------------------------------------------

def test_every_format_holds_the_bit_coverage_table(tmp_path: Path) -> None:
    """The bits the tests' legal cases witnessed, against the bits some legal call can witness: json (schema
    valid), markdown, html and junit properties; the missing bits are named, the unreachable ones with why."""
    witnessed = {"DataCopy": {"srcGap": list(range(15)), "blockLen": [0, 1, 2]}}
    write_results(tmp_path, [legal("atlas-a2", "DataCopy", "GM->VECIN", "half", bits=witnessed),
                             legal("atlas-a2", "DataCopy", "GM->VECIN", "float", bits={"DataCopy": {"blockLen": [3]}})],
                  products=["atlas-a2"], apis=["DataCopy"])
    written = write_all(tmp_path, spec=SPEC)
    document = json.loads(written["json"].read_text())
    validate_report(document)
    rows = {row["field"]: row for row in document["coverage"]["bits"]}
    assert set(rows) == {"count", "blockCount", "blockLen", "srcGap", "dstGap"}
    assert rows["srcGap"]["summary"] == "15/16" and rows["srcGap"]["missing"] == [15]
    assert rows["srcGap"]["needs_extension"] == {"15": "sparse-memory"}
    assert rows["blockLen"]["effective"] == [0, 1, 2, 3]   # the union over the tests
    [unreachable] = rows["blockLen"]["unreachable"]   # atlas-a2's L1 holds 16384 blocks of 32 B, not 16385
    assert unreachable["bits"] == [14, 15] and unreachable["reason"].endswith("needs 524320 B of L1, 32 B more than its 524288 B")
    assert document["coverage"]["bits_summary"]["fields"] == 5
    markdown = written["md"].read_text()
    assert "## Bit coverage" in markdown and "| DataCopy | srcGap" in markdown.replace("  ", " ").replace("  ", " ")
    assert "15 (calls need sparse-memory)" in markdown
    html = written["html"].read_text()
    assert 'id="bits"' in html and 'id="bits-DataCopy-srcGap"' in html
    junit = written["junit"].read_text()
    assert 'name="bits:DataCopy.srcGap" value="15/16 reachable bits witnessed' in junit


def test_a_results_file_without_bits_still_loads(tmp_path: Path) -> None:
    """`bits` is optional in a test record: a file written before it loads, its table witnesses nothing."""
    write_results(tmp_path, [legal("atlas-a2", "DataCopy", "GM->VECIN", "half")],
                  products=["atlas-a2"], apis=["DataCopy"])
    document = json.loads(write_all(tmp_path, spec=SPEC)["json"].read_text())
    assert all(row["effective"] == [] for row in document["coverage"]["bits"])
