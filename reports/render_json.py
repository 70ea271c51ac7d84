"""The report document (report.json, format 1): the one model every renderer draws from.

`build_report(results, spec, report_dir=None)` turns a RunResults into a plain JSON-able dict that
validates against reports/schema/report-v1.schema.json: run metadata (start, end, machine, shards),
the certification statement, verdict totals, coverage (path matrix, rules, disputed points, bit coverage), failures with
their diffs, replay files and replay commands, waivers used / unmatched, every test, and notes.
`render_json(doc)` is its text; `validate_report(doc)` checks it against the schema.
"""
from __future__ import annotations

import datetime
import json
import re
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import ascendc_conformance
from ascendc_conformance.reports.against_baseline import against_baseline
from ascendc_conformance.reports.bit_table import bits_summary
from ascendc_conformance.reports.crossings import crossings_summary
from ascendc_conformance.reports.causes import Member, accepted_apis, run_causes
from ascendc_conformance.reports.coverage import Coverage, build_coverage, certify
from ascendc_conformance.reports.model import RunResults, TestResult, thaw
import jsonschema

from ascendc_conformance.format.outcome import Outcome
from ascendc_conformance.format.results import Cause, TestKind, format_params
from ascendc_conformance.judge.diff import format_diff
from ascendc_conformance.spec.model import Spec

REPORT_FORMAT = 1
SCHEMA_FILE = Path(__file__).resolve().parent / "schema" / "report-v1.schema.json"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def validate_report(doc: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError if `doc` is not a valid report.json v1."""
    jsonschema.Draft202012Validator(schema()).validate(doc)


def diff_text(diff: Any) -> str:
    """ascendc_conformance.judge.diff.format_diff of a stored diff; the raw JSON if it is not one format_diff knows."""
    if not diff:
        return ""

    try:
        return format_diff(thaw(diff))
    except (KeyError, TypeError, ValueError, AttributeError):
        return json.dumps(thaw(diff), indent=1, sort_keys=True)


def _replay_for(replay: str | None, test: TestResult, report_dir: Path | None) -> str | None:
    """A replay file of the test as a path relative to the report being written (absolute when on another
    branch)."""
    if not replay:
        return None
    if report_dir is None or test.source is None or test.source.resolve() == Path(report_dir).resolve():
        return replay
    path = Path(replay) if Path(replay).is_absolute() else test.source / replay
    try:
        return os.path.relpath(path.resolve(), Path(report_dir).resolve())
    except ValueError:   # another drive (Windows)
        return str(path.resolve())


def _failure(test: TestResult, report_dir: Path | None) -> dict[str, Any]:
    replay = _replay_for(test.replay, test, report_dir)
    exists = test.replay_path.is_file() if test.replay_path is not None else False
    return {"test_id": test.test_id, "verdict": test.verdict, "kind": test.kind, "product": test.product,
            "api": test.api, "route": test.route, "dtype": test.dtype, "rule": test.rule, "variant": test.variant,
            "message": test.message, "diff": thaw(test.diff), "diff_text": diff_text(test.diff), "replay": replay,
            "replay_exists": exists, "replay_command": test.replay_command, "counts": thaw(test.counts),
            "cases": test.cases, "case": thaw(test.case), "params": format_params(test.case),
            "cause": _cause(test).to_json(), "causes": _causes(test, report_dir)}


def _cause(test: TestResult) -> Cause:
    cause = test.cause
    assert cause is not None, "a failing test has a cause"
    return cause


DIAGNOSED = ("verdicts", "hypotheses", "shown_by", "words", "fallback")
"""What a test's record says of each cause's diagnosis (runner.diagnosing), kept as it is in report.json."""


def _causes(test: TestResult, report_dir: Path | None) -> list[dict[str, Any]]:
    """Every distinct cause of the test's failures (one, derived from the record, when it recorded none)."""
    if not test.causes:
        return [{"cause": _cause(test).to_json(), "verdict": test.verdict, "message": test.message,
                 "diff_text": diff_text(test.diff), "replay": _replay_for(test.replay, test, report_dir),
                 "replay_command": test.replay_command, "case": thaw(test.case), "params": format_params(test.case),
                 "cases": test.cases}]
    return [{"cause": thaw(entry["cause"]), "verdict": entry["verdict"], "message": entry["message"],
             "diff_text": diff_text(entry.get("diff")), "replay": _replay_for(entry.get("replay"), test, report_dir),
             "replay_command": entry.get("replay_command"), "case": thaw(entry.get("case")),
             "params": format_params(entry.get("case")), "cases": entry.get("cases", 0),
             "known": bool(entry.get("known")),
             **{key: thaw(entry[key]) for key in DIAGNOSED if key in entry}} for entry in test.causes]


def failure_groups(failures: list[dict[str, Any]], spec: Spec, accepted: frozenset[str]) -> list[dict[str, Any]]:
    """The causes of the run (reports.causes: grouped across tests by the hypothesis that explains them, the others
    by their diff-class cause; `accepted`: the APIs of which the run saw a call accepted), those explaining the
    most failing tests first; each names its failing tests, its verdicts, its hypothesis (with the others that fit
    alike) and its smallest case with its replay."""
    members = [Member(failure["test_id"], cause) for failure in failures for cause in failure["causes"]]
    route = {failure["test_id"]: failure.get("route") for failure in failures}
    out = []
    for found in run_causes(members, spec, accepted):
        smallest = found.smallest
        routes = {(member.entry.get("case") or {}).get("route") or route[member.test_id] or "" for member in found.members}
        out.append({**found.to_json(), "routes": sorted(routes - {""}),
                    "known": all(member.entry.get("known") for member in found.members),
                    "smallest": {"test_id": smallest.test_id, "words": found.words,
                                 **{key: smallest.entry.get(key) for key in ("params", "message", "replay",
                                                                            "replay_command")}}})
    return out


def _summary(test: TestResult) -> dict[str, Any]:
    """A passing test, as report.json lists it without --report-details."""
    return {"test_id": test.test_id, "kind": test.kind, "verdict": test.verdict, "counts": thaw(test.counts),
            "cases": test.cases, "api": test.api, "duration_s": test.duration_s}


def _cell(cell: dict[str, Any], details: bool) -> dict[str, Any]:
    """A heat-map cell; without --report-details one whose tests all passed does not list them (the legal
    test of a path is `test_legal[<label>]`)."""
    if not details and cell["verdicts"].get(Outcome.PASS, 0) == len(cell["tests"]):
        cell["tests"] = []
    return cell


def _waiver_key(waiver: Any) -> str:
    return json.dumps(thaw(waiver), sort_keys=True)


def _waivers(results: RunResults) -> dict[str, Any]:
    declared = [thaw(w) for w in results.waivers_declared]
    used: dict[str, dict[str, Any]] = {}
    for test in results.tests:
        if test.waiver:
            entry = used.setdefault(_waiver_key(test.waiver), {"waiver": thaw(test.waiver), "tests": []})
            entry["tests"].append(test.test_id)
    unmatched = [w for w in declared if _waiver_key(w) not in used]
    return {"declared": declared, "used": list(used.values()), "unmatched": unmatched}


def _products(spec: Spec, coverage: Coverage) -> list[dict[str, Any]]:
    names = {p.id: p.display_name for p in spec.products}
    return [{"id": product, "display_name": names.get(product, product), **coverage.product_summary(product)}
            for product in coverage.products]


def build_report(results: RunResults, spec: Spec, report_dir: str | os.PathLike[str] | None = None,
                 coverage: Coverage | None = None, details: bool = False) -> dict[str, Any]:
    """The report document of `results` against `spec`. `report_dir` is where the
    report will be written; replay paths are given relative to it. Without `details` a test that did not fail
    is summarised (its id, kind, verdict, counts and skip reason): results.jsonl keeps everything, and the
    coverage tables are worked out from it, not from this list."""
    report_dir = Path(report_dir) if report_dir is not None else None
    coverage = coverage or build_coverage(results, spec)
    certification = certify(results, coverage)
    # every test that failed, a known one (failing only with causes of the baseline) included
    failures = [_failure(t, report_dir) for t in results.tests if t.failing_causes]
    kinds = (TestKind.LEGAL, TestKind.BOUNDARY, TestKind.ILLEGAL)   # smoke failures come last: a full test repeats them
    failures.sort(key=lambda f: (kinds.index(f["kind"]) if f["kind"] in kinds else len(kinds), f["test_id"]))
    notes = list(results.notes) + list(coverage.notes)
    return {
        "report_format": REPORT_FORMAT,
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "generator": {"name": "ascendc-conformance", "version": ascendc_conformance.__version__},
        "run": results.metadata(),
        "certification": certification.to_json(),
        "verdicts": {"tests": dict(coverage.verdicts), "cases": dict(coverage.cases)},
        "coverage": {
            "spec_digest": spec.digest,
            "selected_products": list(coverage.selected_products),
            "selected_apis": list(coverage.selected_apis),
            "dtypes": list(spec.dtypes),
            "products": _products(spec, coverage),
            "paths": coverage.paths_summary(),
            "matrix": [_cell(cell.to_json(), details) for cell in coverage.cells],
            "rules_summary": coverage.rules_summary(),
            "rules": [row.to_json() for row in coverage.rules],
            "disputed": [row.to_json() for row in coverage.disputes],
            "bits_summary": bits_summary(coverage.bits),
            "bits": [row.to_json() for row in coverage.bits],
            "crossings_summary": crossings_summary(coverage.crossings),
            "crossings": [row.to_json() for row in coverage.crossings],
        },
        "failures": failures,
        "failure_groups": failure_groups(failures, spec, accepted_apis(results.tests)),
        "waivers": _waivers(results),
        "baseline": baseline.to_json() if (baseline := against_baseline(results)) is not None else None,
        "tests": [test.to_json() if details or test.verdict is not Outcome.PASS else _summary(test)
                  for test in results.tests],
        "duplicates": list(results.duplicates),
        "notes": notes,
    }


_C1 = re.compile("[\x7f-\x9f]")   # DEL and the C1 controls: JSON text may hold them raw, a terminal obeys them


def render_json(doc: dict[str, Any]) -> str:
    """report.json: compact, one line (a ci run's report is a few hundred kB; `jq .` or `python -m json.tool`
    indent it for reading), UTF-8 with every control character escaped (`\\u009b`: JSON's own escapes for C0,
    and here for DEL and C1, which can only stand in its strings), so that a target's text in it is inert."""
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False, default=str)
    return _C1.sub(lambda match: f"\\u{ord(match.group()):04x}", text) + "\n"
